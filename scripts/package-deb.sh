#!/usr/bin/env bash
# Builds the Debian package: scripts/package-deb.sh [--output DIR] [--no-build] [--fast]
#   DIR/feedctl_VERSION_ARCH.deb (default DIR: the package root), VERSION from `feedctl --version`.
# It holds what scripts/install.sh installs, with prefix /usr: the three programs (stripped),
# the minimal FFmpeg in /usr/lib/feedctl/ffmpeg, the web app in /usr/share/feedctl/web, the man pages (gzipped), the completions (zsh's
# in Debian's vendor-completions) and the systemd user units in /usr/lib/systemd/user. No
# maintainer scripts and no conffiles: `apt remove feedctl` leaves nothing behind.
#   sudo apt install ./feedctl_0.13.0_amd64.deb      then: systemctl --user enable --now feedctl
# Depends: dpkg-shlibdeps over the programs and the FFmpeg libraries (the libraries they link,
# each with the version its shlibs file asks for), plus by hand what they load with dlopen, which
# no tool can see: libcurl.so.4 (libcurl4, every fetch), libcrypto.so.3 (libssl3, digests), and
# libavfilter.so.8 (libavfilter8, speeds other than 1×) when the minimal FFmpeg is missing.
# --no-build packages the last release build; --fast compresses with zstd -3 instead of xz -6
# (80 MB instead of 54, in a second instead of a minute on 2 cores; the same files, and Debian 12's
# dpkg reads both): the release smoke test uses both.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
source scripts/scratch.sh
out=$PWD
install_args=()
compression=(-Zxz -z6)
while (($#)); do
  case $1 in
    --output) [[ $# -ge 2 ]] || { echo "package-deb.sh: --output needs a directory" >&2; exit 64; }; out=$2; shift 2 ;;
    --output=*) out=${1#--output=}; shift ;;
    --no-build) install_args+=(--no-build); shift ;;
    --fast) compression=(-Zzstd -z3); shift ;;
    -h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "package-deb.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
  esac
done
fail() { echo "package-deb.sh: $*" >&2; exit 1; }
command -v dpkg-shlibdeps >/dev/null || fail "dpkg-shlibdeps is missing (Debian: dpkg-dev; scripts/install-deps.sh installs it)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# dpkg-shlibdeps wants a source tree: debian/control, the files under debian/PACKAGE (libraries
# found there are the package's own, so FFmpeg's need no shlibs entry).
pkg=$work/debian/feedctl
bash scripts/install.sh --prefix /usr --destdir "$pkg" "${install_args[@]}"

# Debian's places: zsh reads packages' completions from vendor-completions, systemd packages'
# user units from /usr/lib/systemd/user; man pages are gzipped (-n: no timestamp).
install -d "$pkg/usr/share/zsh/vendor-completions" "$pkg/usr/lib/systemd/user" "$pkg/usr/share/doc/feedctl"
mv "$pkg/usr/share/zsh/site-functions/_feedctl" "$pkg/usr/share/zsh/vendor-completions/"
rmdir "$pkg/usr/share/zsh/site-functions"
mv "$pkg"/usr/share/systemd/user/*.service "$pkg/usr/lib/systemd/user/"
rmdir "$pkg/usr/share/systemd/user" "$pkg/usr/share/systemd"
gzip -9n "$pkg"/usr/share/man/man1/*.1
install -m 644 dist/debian/copyright "$pkg/usr/share/doc/feedctl/copyright"
# The FFmpeg libraries as Debian strips shared libraries (their symbol tables are needed; what
# else is there, .comment and .note, is not).
if [[ -d $pkg/usr/lib/feedctl/ffmpeg ]]; then
  find "$pkg/usr/lib/feedctl/ffmpeg" -type f -name 'lib*.so*' -exec \
    strip --strip-unneeded --remove-section=.comment --remove-section=.note {} +
fi

version=$("$pkg/usr/bin/feedctl" --version)
arch=$(dpkg --print-architecture)
mkdir -p "$pkg/DEBIAN"
printf 'Source: feedctl\n\nPackage: feedctl\nArchitecture: any\n' >"$work/debian/control"
# With the minimal FFmpeg, its libraries load each other from the package (the first to load
# comes through the programs' run path, the rest by soname), yet dpkg-shlibdeps, which finds no
# shlibs entry for them, would name Debian's packages of the same sonames (and with them the
# ~150 libraries the minimal build avoids): -x leaves those out.
private=()
[[ -d $pkg/usr/lib/feedctl/ffmpeg ]] && private=(-xlibavformat59 -xlibavcodec59 -xlibavutil57 -xlibswresample4 -xlibavfilter8)
shlibs=$(cd "$work" && dpkg-shlibdeps -O "${private[@]}" -l"$pkg/usr/lib/feedctl/ffmpeg" -e"$pkg/usr/bin/feedctl" -e"$pkg/usr/bin/feedctl-daemon" \
  -e"$pkg/usr/bin/feedctl-serve" $(find "$pkg/usr/lib/feedctl" -type f -name 'lib*.so*' -printf ' -e%p' 2>/dev/null) \
  2> >(grep -v "binaries to analyze should already be installed" >&2)) || fail "dpkg-shlibdeps failed"
depends=${shlibs#shlibs:Depends=}
[[ -n $depends && $depends != "$shlibs" ]] || fail "dpkg-shlibdeps found no dependencies: $shlibs"
depends+=", libcurl4, libssl3"
[[ -e $pkg/usr/lib/feedctl/ffmpeg/libavfilter.so.8 ]] || depends+=", libavfilter8"

cat >"$pkg/DEBIAN/control" <<EOF
Package: feedctl
Version: $version
Architecture: $arch
Maintainer: feedctl developers <feedctl@invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
Depends: $depends
Recommends: pulseaudio | pipewire-pulse
Suggests: yt-dlp
Section: sound
Priority: optional
Description: podcast, YouTube and Rumble feeds, and background audio, from the command line
 feedctl keeps your subscriptions (podcast RSS/Atom feeds, YouTube and Rumble channels) in a
 local SQLite library, keeps them in sync, shows them as a feed, and plays episodes and videos
 as background audio through PulseAudio from a small daemon it drives the way mpc drives mpd.
 \`feedctl serve\` is an HTTP server for the WebSearch app and gpodder sync. The programs carry
 the Swift runtime; the player loads a minimal FFmpeg of its own. yt-dlp plays video pages.
EOF
deb=$out/feedctl_${version}_${arch}.deb
# Owned by root whoever builds it.
dpkg-deb --root-owner-group "${compression[@]}" --build "$pkg" "$deb" >/dev/null
echo "$deb"
echo "  Depends: $depends" >&2
echo "  $(du -h "$deb" | cut -f1) ($(($(du -sk --exclude=DEBIAN "$pkg" | cut -f1) / 1024)) MB installed)" >&2
