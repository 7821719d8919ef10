# Sourced by the other scripts: puts the Swift toolchain on PATH when it is in /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
