#!/usr/bin/env bash
# The shipped build, which the tests (debug) never run: scripts/release-smoke.sh [--no-build]
# The release build (plain `swift build -c release`; the daemon and the server statically linked
# with lld and their hot-function orders) is installed twice, and each installed copy, with the
# build tree's FFmpeg moved away, plays a tone into a private headless PulseAudio (the sink's
# monitor must carry 440 Hz: scripts/tones.py) with its own minimal FFmpeg, and its `feedctl
# serve` answers /health:
#   1. by scripts/install.sh into a temp prefix, as a user without root would;
#   2. as the Debian package (scripts/package-deb.sh): `apt-get install ./feedctl_….deb`, then
#      `apt-get remove feedctl`, after which none of its files may be left. This one needs root
#      (or sudo without a password) and a machine where the feedctl package is not installed
#      already; elsewhere it is skipped, and the last line says so.
# Part of scripts/test.sh, which builds first (--no-build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
source scripts/scratch.sh
build=1
[[ ${1:-} == --no-build ]] && build=0
work=$(mktemp -d)
chmod 755 "$work"   # apt's _apt user reads the .deb from here
prefix=$work/prefix
server="" recorder="" installed_deb=0
sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo -n"
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null || true
  [[ -n $recorder ]] && kill "$recorder" 2>/dev/null || true
  for b in "$prefix/bin" /usr/bin; do
    [[ -x $b/feedctl ]] && XDG_RUNTIME_DIR=$work/run-${b//\//-} "$b/feedctl" quit >/dev/null 2>&1 || true
  done
  ((installed_deb)) && $sudo apt-get remove -y -qq feedctl >/dev/null 2>&1 || true
  [[ -e .build/ffmpeg.smoke-away || -L .build/ffmpeg.smoke-away ]] && mv .build/ffmpeg.smoke-away .build/ffmpeg
  scripts/headless-pulse.sh stop "$work" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "release smoke: $*" >&2
  for log in "$work"/run-*/feedctl/daemon.log; do [[ -f $log ]] && tail -5 "$log" >&2; done
  exit 1
}

if ((build)); then swift build "${release_spm[@]}" -c release 2>&1 | grep -E "error" && fail "build failed"; fi
bin=$release_bin
# The hot-function orders name mangled symbols: moving code to another module or type renames
# them and silently makes a list stale (lld ignores unknown names). scripts/link-order.sh (the
# daemon) and scripts/link-order-serve.sh (the server) regenerate them; at least 90 % of a list's
# names must be functions of its program.
packed=""
for program in feedctl-daemon feedctl-serve; do
  readelf -p .comment "$bin/$program" | grep -q "Linker: LLD" || fail "$program was not linked with lld"
  order=Sources/$program/hot-functions.order
  read -r listed found < <(python3 - "$order" <(nm --defined-only -P "$bin/$program") <<'EOF'
import sys
names = {l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")}
defined = {l.split()[0] for l in open(sys.argv[2]) if l.strip()}
print(len(names), len(names & defined))
EOF
)
  (( found * 10 >= listed * 9 )) || fail "only $found of the $listed functions in $order exist in $program: regenerate it (scripts/link-order*.sh)"
  packed+="$program $found of $listed, "
done

# 1. Installed as a user would (scripts/install.sh).
bash scripts/install.sh --prefix "$prefix" --no-build >/dev/null || fail "scripts/install.sh failed"
for f in bin/feedctl bin/feedctl-daemon bin/feedctl-serve share/man/man1/feedctl.1 share/man/man1/feedctl-daemon.1 \
         share/man/man1/feedctl-serve.1 \
         share/bash-completion/completions/feedctl share/zsh/site-functions/_feedctl \
         share/fish/vendor_completions.d/feedctl.fish share/systemd/user/feedctl.service \
         share/systemd/user/feedctl-serve.service share/feedctl/web/index.html share/feedctl/web/app/app.js; do
  [[ -s $prefix/$f ]] || fail "install.sh left no $f"
done
# The man pages, written from the installed (stripped) programs' own option lists: each has its
# EXAMPLES, and -h/--help is described once, not under every command (ManPageTests checks more).
for page in feedctl feedctl-daemon feedctl-serve; do
  grep -qx '.SH "EXAMPLES"' "$prefix/share/man/man1/$page.1" || fail "$page.1 has no EXAMPLES"
  [[ $(grep -cxF '\fB\-h\fR, \fB\-\-help\fR' "$prefix/share/man/man1/$page.1") == 1 ]] || fail "$page.1 does not describe --help exactly once"
done
bash -n "$prefix/share/bash-completion/completions/feedctl" || fail "the bash completion script does not parse"
grep -qx "ExecStart=$prefix/bin/feedctl-daemon" "$prefix/share/systemd/user/feedctl.service" || fail "the unit does not start the installed daemon"
grep -qx "ExecStart=$prefix/bin/feedctl-serve" "$prefix/share/systemd/user/feedctl-serve.service" || fail "the serve unit does not start the installed server"
[[ $("$prefix/bin/feedctl" --version) == "$("$bin/feedctl-daemon" --version)" ]] || fail "feedctl and feedctl-daemon report different versions"
deb=$(bash scripts/package-deb.sh --no-build --fast --output "$work" 2>"$work/package.log") || { cat "$work/package.log" >&2; fail "scripts/package-deb.sh failed"; }
chmod 644 "$deb"
grep -q "libpulse0" <<<"$(dpkg-deb -f "$deb" Depends)" || fail "the .deb does not depend on libpulse0: $(dpkg-deb -f "$deb" Depends)"
minimal=0
if [[ -f .build/ffmpeg/config.txt ]]; then
  grep -q "/usr/lib/feedctl/ffmpeg/libavcodec.so" <<<"$(dpkg-deb -c "$deb")" || fail "the .deb has no minimal FFmpeg in /usr/lib/feedctl/ffmpeg"
  minimal=1
  mv .build/ffmpeg .build/ffmpeg.smoke-away
fi

# A private server even when one is reachable: the monitor must hold only our audio.
unset FEEDCTL_SOCKET PULSE_SERVER
eval "$(PULSE_SERVER=unix:/nonexistent scripts/headless-pulse.sh start "$work")"
ffmpeg -nostdin -v error -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=6" \
  -ac 2 -c:a libmp3lame -b:a 128k "$work/tone.mp3"

# The programs in $1 play into PulseAudio with the FFmpeg in $2, and serve answers /health.
# Sets $heard (scripts/tones.py's line) and $codec (the libavcodec the daemon loaded).
check_programs() {
  local dir=$1 ffmpeg_dir=$2 status daemon port
  export XDG_RUNTIME_DIR=$work/run-${dir//\//-} FEEDCTL_DB=$work/library-${dir//\//-}.sqlite
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
  ! readelf -d "$dir/feedctl" | grep -q "libswiftCore" || fail "$dir/feedctl needs the Swift toolchain's libswiftCore.so"
  ! readelf -d "$dir/feedctl-serve" | grep -q "libswiftCore" || fail "$dir/feedctl-serve needs the Swift toolchain's libswiftCore.so"
  # Raw samples written as they come, in small fragments (a monitor may hand over ~2 s at a time
  # by default; a WAV written by a parec stopped with a signal sometimes read as empty).
  timeout 15 parec -d nullsink.monitor --latency-msec=20 --format=s16le --channels=1 --rate=48000 >"$work/heard.raw" &
  recorder=$!
  "$dir/feedctl" play "$work/tone.mp3" >/dev/null || fail "$dir/feedctl play failed"
  # Until a second has been heard (a null sink woken from idle may take ~2 s to start a stream).
  for _ in $(seq 50); do
    status=$("$dir/feedctl" status --json) || fail "$dir/feedctl status failed"
    python3 -c 'import json, sys; sys.exit(0 if json.loads(sys.argv[1])["position"] >= 1 else 1)' "$status" && break
    sleep 0.2
  done
  sleep 0.5
  kill -INT "$recorder" 2>/dev/null; wait "$recorder" 2>/dev/null || true; recorder=""
  python3 - "$status" <<'EOF' || fail "unexpected status from $dir/feedctl: $status"
import json, sys
s = json.loads(sys.argv[1])
assert s["status"] == "playing" and s["position"] >= 1 and abs(s["duration"] - 6) < 0.2, s
EOF
  heard=$(python3 scripts/tones.py "$work/heard.raw" --channels 1 --expect 440) || fail "played by $dir: $heard"
  # The FFmpeg it plays with: scripts/build-ffmpeg.sh's minimal build when there is one.
  daemon=$(pgrep -n -f -- "feedctl-daemon --socket $XDG_RUNTIME_DIR/feedctl/player.sock") || fail "no daemon process"
  codec=$(awk '/libavcodec/ { print $6; exit }' "/proc/$daemon/maps")
  if ((minimal)) && [[ $codec != "$ffmpeg_dir/"* ]]; then
    fail "the daemon in $dir loaded $codec, not the minimal FFmpeg installed in $ffmpeg_dir"
  fi
  "$dir/feedctl" quit >/dev/null

  # The installed server, started through `feedctl serve` (which runs feedctl-serve beside it).
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$dir/feedctl" serve --open --listen "127.0.0.1:$port" 2>"$work/serve.log" &
  server=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >"$work/health.json" 2>/dev/null && break; sleep 0.1; done
  python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["status"] == "healthy" else 1)' "$work/health.json" 2>/dev/null ||
    fail "$dir/feedctl serve did not answer /health: $(tail -2 "$work/serve.log")"
  # The web app, installed beside the programs (share/feedctl/web).
  curl -sf -H 'Accept: text/html' "http://127.0.0.1:$port/feed" | grep -q 'src="/assets/[0-9a-f]*/app/app.js"' ||
    fail "$dir/feedctl serve does not serve the web app at /feed"
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
  rm -f "$work/health.json"
}
check_programs "$prefix/bin" "$prefix/lib/feedctl/ffmpeg"
summary="installed by scripts/install.sh: played into PulseAudio ($heard) with $codec, feedctl serve answered /health"

# 2. The Debian package (built here, before the build tree's FFmpeg goes), installed and removed for real.
if [[ -n $sudo ]] && ! sudo -n true 2>/dev/null; then
  summary+="; .deb built ($(basename "$deb")), NOT installed: needs root or sudo without a password"
elif dpkg-query -W -f='${Status}' feedctl 2>/dev/null | grep -q "ok installed"; then
  summary+="; .deb built ($(basename "$deb")), NOT installed: this machine has the feedctl package installed, which the check would replace and remove"
else
  # One .deb check at a time on this machine (two clones' CI runs would remove each other's).
  exec {deb_lock}>"${XDG_CACHE_HOME:-$HOME/.cache}/feedctl/deb-smoke.lock"
  flock "$deb_lock"
  mapfile -t contents < <(dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\./|/|; s|/$||' | grep -v '^/\?$')
  existed=()
  for path in "${contents[@]}"; do [[ -e $path || -L $path ]] && existed+=("$path"); done
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -qq -o Dpkg::Lock::Timeout=120 "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get install $deb failed"; }
  installed_deb=1
  listed=$(dpkg -L feedctl) || fail "dpkg -L feedctl: the package is not installed after apt-get install"
  for f in /usr/bin/feedctl /usr/bin/feedctl-daemon /usr/bin/feedctl-serve /usr/lib/feedctl/ffmpeg \
           /usr/share/man/man1/feedctl.1.gz /usr/share/man/man1/feedctl-daemon.1.gz /usr/share/man/man1/feedctl-serve.1.gz \
           /usr/share/bash-completion/completions/feedctl /usr/share/zsh/vendor-completions/_feedctl \
           /usr/share/fish/vendor_completions.d/feedctl.fish /usr/lib/systemd/user/feedctl.service \
           /usr/lib/systemd/user/feedctl-serve.service /usr/share/doc/feedctl/copyright; do
    grep -qx "$f" <<<"$listed" && [[ -e $f ]] || fail "the installed package has no $f"
  done
  grep -qx "ExecStart=/usr/bin/feedctl-daemon" /usr/lib/systemd/user/feedctl.service || fail "the .deb's unit does not start /usr/bin/feedctl-daemon"
  grep -qx "ExecStart=/usr/bin/feedctl-serve" /usr/lib/systemd/user/feedctl-serve.service || fail "the .deb's serve unit does not start /usr/bin/feedctl-serve"
  [[ $(/usr/bin/feedctl --version) == "$("$bin/feedctl" --version)" ]] || fail "/usr/bin/feedctl is not the version just built"
  check_programs /usr/bin /usr/lib/feedctl/ffmpeg
  deb_heard=$heard deb_codec=$codec
  $sudo apt-get remove -y -qq -o Dpkg::Lock::Timeout=120 feedctl >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get remove feedctl failed"; }
  installed_deb=0
  state=$(dpkg-query -W -f='${db:Status-Status}' feedctl 2>/dev/null || echo not-installed)
  [[ $state == not-installed ]] || fail "after apt-get remove, dpkg says feedctl is '$state' (config files kept?)"
  for path in "${contents[@]}"; do
    [[ -e $path || -L $path ]] || continue
    printf '%s\n' "${existed[@]}" | grep -qxF "$path" || fail "apt-get remove feedctl left $path behind"
  done
  summary+="; the .deb ($(basename "$deb"), $(du -h "$deb" | cut -f1)) installed by apt-get: played ($deb_heard) with $deb_codec, serve answered /health; apt-get remove left none of its ${#contents[@]} paths"
  flock -u "$deb_lock"
fi
echo "release smoke: release builds linked by lld with their hot functions (${packed%, }); $summary"
