#!/usr/bin/env bash
# Installs feedctl: scripts/install.sh [--prefix DIR] [--no-build]
#   DIR/bin/feedctl, DIR/bin/feedctl-daemon,
#   DIR/bin/feedctl-serve                          release builds (Swift runtime linked in)
#   DIR/lib/feedctl/ffmpeg/                        the minimal FFmpeg the player loads (found
#                                                  relative to the binary: $ORIGIN/../lib/feedctl/ffmpeg)
#   DIR/share/man/man1/feedctl.1, feedctl-daemon.1, feedctl-serve.1
#   DIR/share/bash-completion/completions/feedctl, DIR/share/zsh/site-functions/_feedctl,
#   DIR/share/fish/vendor_completions.d/feedctl.fish
#   DIR/share/systemd/user/feedctl.service         systemctl --user enable --now feedctl
# The default prefix is ~/.local (no root needed; systemd finds user units under
# ~/.local/share/systemd/user). The system libraries it needs come from scripts/install-deps.sh.
# --no-build installs what the last release build left in .build (the release smoke test uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="$HOME/.local"
build=1
while (($#)); do
  case $1 in
    --prefix) [[ $# -ge 2 ]] || { echo "install.sh: --prefix needs a directory" >&2; exit 64; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
  esac
done
[[ -n $prefix ]] || { echo "install.sh: empty --prefix" >&2; exit 64; }
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
fail() { echo "install.sh: $*" >&2; exit 1; }

source scripts/env.sh
if ((build)); then
  bash scripts/build-ffmpeg.sh
  swift build -c release --product feedctl-daemon
  swift build -c release --product feedctl
  swift build -c release --product feedctl-serve
fi
bin=$(swift build -c release --show-bin-path)
[[ -x $bin/feedctl && -x $bin/feedctl-daemon && -x $bin/feedctl-serve ]] || fail "no release build in $bin (run it without --no-build)"

install -d "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d" "$prefix/share/systemd/user"
# Stripped: the release builds carry their symbol tables (~60 MB each), which nothing installed reads.
install -m 755 -s "$bin/feedctl" "$bin/feedctl-daemon" "$bin/feedctl-serve" "$prefix/bin/"

# The minimal FFmpeg: its shared libraries and their version links, replacing an older copy.
if [[ -f .build/ffmpeg/config.txt ]]; then
  rm -rf "$prefix/lib/feedctl/ffmpeg"
  install -d "$prefix/lib/feedctl/ffmpeg"
  cp -P .build/ffmpeg/lib/lib*.so* "$prefix/lib/feedctl/ffmpeg/"
else
  echo "install.sh: no minimal FFmpeg in .build/ffmpeg; the player will use Debian's FFmpeg libraries" >&2
fi

man=$(mktemp -d)
trap 'rm -rf "$man"' EXIT
# From each installed program's --experimental-dump-help and dist/man/PROGRAM.1.md (no Swift tool to build).
python3 scripts/man-pages.py "$prefix/bin" "$man"
install -m 644 "$man/feedctl.1" "$man/feedctl-daemon.1" "$man/feedctl-serve.1" "$prefix/share/man/man1/"
"$prefix/bin/feedctl" --generate-completion-script bash >"$prefix/share/bash-completion/completions/feedctl"
"$prefix/bin/feedctl" --generate-completion-script zsh >"$prefix/share/zsh/site-functions/_feedctl"
"$prefix/bin/feedctl" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/feedctl.fish"
sed "s|@BINDIR@|$prefix/bin|g" dist/feedctl.service >"$prefix/share/systemd/user/feedctl.service"

echo "installed feedctl $("$prefix/bin/feedctl" --version) into $prefix"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "add $prefix/bin to PATH to run it by name" ;; esac
