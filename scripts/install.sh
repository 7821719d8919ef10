#!/usr/bin/env bash
# Installs feedctl: scripts/install.sh [--prefix DIR] [--destdir STAGE] [--no-build]
#   DIR/bin/feedctl, DIR/bin/feedctl-daemon,
#   DIR/bin/feedctl-serve                          release builds (Swift runtime linked in), stripped
#   DIR/lib/feedctl/ffmpeg/                        the minimal FFmpeg the player loads (found
#                                                  relative to the binary: $ORIGIN/../lib/feedctl/ffmpeg)
#   DIR/share/feedctl/web/                         the web app (web/), which feedctl serve finds
#                                                  relative to itself: ../share/feedctl/web
#   DIR/share/man/man1/feedctl.1, feedctl-daemon.1, feedctl-serve.1
#   DIR/share/bash-completion/completions/feedctl, DIR/share/zsh/site-functions/_feedctl,
#   DIR/share/fish/vendor_completions.d/feedctl.fish
#   DIR/share/systemd/user/feedctl.service         systemctl --user enable --now feedctl
#   DIR/share/systemd/user/feedctl-serve.service   systemctl --user enable --now feedctl-serve
# The default prefix is ~/.local (no root needed; systemd finds user units under
# ~/.local/share/systemd/user). The system libraries it needs come from scripts/install-deps.sh.
# --destdir writes everything under STAGE/DIR for a package (scripts/package-deb.sh), with the
# units still naming DIR/bin. --no-build installs what the last release build left (the release
# smoke test and package-deb.sh use it).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
source scripts/scratch.sh   # before the options are read: it may re-run this script with them
prefix="$HOME/.local"
destdir=""
build=1
while (($#)); do
  case $1 in
    --prefix) [[ $# -ge 2 ]] || { echo "install.sh: --prefix needs a directory" >&2; exit 64; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --destdir) [[ $# -ge 2 ]] || { echo "install.sh: --destdir needs a directory" >&2; exit 64; }; destdir=$2; shift 2 ;;
    --destdir=*) destdir=${1#--destdir=}; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
  esac
done
[[ -n $prefix ]] || { echo "install.sh: empty --prefix" >&2; exit 64; }
fail() { echo "install.sh: $*" >&2; exit 1; }
if [[ -n $destdir ]]; then
  [[ $prefix == /* ]] || fail "--prefix must be absolute with --destdir"
  mkdir -p "$destdir"
  destdir=$(cd "$destdir" && pwd)
else
  mkdir -p "$prefix"
  prefix=$(cd "$prefix" && pwd)
fi
root=$destdir$prefix   # where the files go; $prefix is where they will be run from

if ((build)); then
  bash scripts/build-ffmpeg.sh
  swift build "${release_spm[@]}" -c release
fi
bin=$release_bin
[[ -x $bin/feedctl && -x $bin/feedctl-daemon && -x $bin/feedctl-serve ]] || fail "no release build in $bin (run it without --no-build)"

install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
  "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d" "$root/share/systemd/user"
# Stripped: the debug information and symbol tables (35-79 MB of each release build; see "Why
# the programs are 63-75 MB" in docs/install.md), which nothing installed reads.
install -m 755 -s "$bin/feedctl" "$bin/feedctl-daemon" "$bin/feedctl-serve" "$root/bin/"

# The minimal FFmpeg: its shared libraries and their version links, replacing an older copy.
if [[ -f .build/ffmpeg/config.txt ]]; then
  rm -rf "$root/lib/feedctl/ffmpeg"
  install -d "$root/lib/feedctl/ffmpeg"
  cp -P .build/ffmpeg/lib/lib*.so.* "$root/lib/feedctl/ffmpeg/"   # the libraries and their soname links
else
  echo "install.sh: no minimal FFmpeg in .build/ffmpeg; the player will use Debian's FFmpeg libraries" >&2
fi

# The web app, replacing an older copy (a removed file must not stay served).
rm -rf "$root/share/feedctl/web"
install -d "$root/share/feedctl"
cp -R web "$root/share/feedctl/web"
find "$root/share/feedctl/web" -type d -exec chmod 755 {} + -o -type f -exec chmod 644 {} +

man=$(mktemp -d)
trap 'rm -rf "$man"' EXIT
# From each installed program's --experimental-dump-help and dist/man/PROGRAM.1.md (no Swift tool to build).
python3 scripts/man-pages.py "$root/bin" "$man"
install -m 644 "$man/feedctl.1" "$man/feedctl-daemon.1" "$man/feedctl-serve.1" "$root/share/man/man1/"
"$root/bin/feedctl" --generate-completion-script bash >"$root/share/bash-completion/completions/feedctl"
"$root/bin/feedctl" --generate-completion-script zsh >"$root/share/zsh/site-functions/_feedctl"
"$root/bin/feedctl" --generate-completion-script fish >"$root/share/fish/vendor_completions.d/feedctl.fish"
for unit in feedctl.service feedctl-serve.service; do
  sed "s|@BINDIR@|$prefix/bin|g" "dist/$unit" >"$root/share/systemd/user/$unit"
  chmod 644 "$root/share/systemd/user/$unit"
done

[[ -n $destdir ]] && exit 0
echo "installed feedctl $("$prefix/bin/feedctl" --version) into $prefix"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "add $prefix/bin to PATH to run it by name" ;; esac
