#!/usr/bin/env bash
# The shipped build, which `swift test` (debug) never runs: release feedctl and feedctl-daemon (the
# daemon statically linked with lld and its hot-function order), installed by scripts/install.sh
# into a temp prefix, play a file into a private headless PulseAudio with the build tree's FFmpeg
# moved away, and the sink's monitor must carry the tone. Part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
work=$(mktemp -d)
bin=""
prefix=$work/prefix
server=""
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null || true
  [[ -x $prefix/bin/feedctl ]] && "$prefix/bin/feedctl" quit >/dev/null 2>&1 || true
  [[ -d .build/ffmpeg.smoke-away ]] && mv .build/ffmpeg.smoke-away .build/ffmpeg
  scripts/headless-pulse.sh stop "$work" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "release smoke: $*" >&2; [[ -f $work/run/feedctl/daemon.log ]] && tail -5 "$work/run/feedctl/daemon.log" >&2; exit 1; }

swift build -c release --product feedctl-daemon 2>&1 | grep -E "error" && fail "build failed"
swift build -c release --product feedctl 2>&1 | grep -E "error" && fail "build failed"
swift build -c release --product feedctl-serve 2>&1 | grep -E "error" && fail "build failed"
bin=$(swift build -c release --show-bin-path)
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

# Installed as a user would (scripts/install.sh), then played from there with the build tree's
# FFmpeg out of the way: the installed daemon must find its own copy, relative to itself.
bash scripts/install.sh --prefix "$prefix" --no-build >/dev/null || fail "scripts/install.sh failed"
for f in bin/feedctl bin/feedctl-daemon bin/feedctl-serve share/man/man1/feedctl.1 share/man/man1/feedctl-daemon.1 \
         share/man/man1/feedctl-serve.1 \
         share/bash-completion/completions/feedctl share/zsh/site-functions/_feedctl \
         share/fish/vendor_completions.d/feedctl.fish share/systemd/user/feedctl.service; do
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
[[ $("$prefix/bin/feedctl" --version) == "$("$bin/feedctl-daemon" --version)" ]] || fail "feedctl and feedctl-daemon report different versions"
! readelf -d "$prefix/bin/feedctl" | grep -q "libswiftCore" || fail "the installed feedctl needs the Swift toolchain's libswiftCore.so"
! readelf -d "$prefix/bin/feedctl-serve" | grep -q "libswiftCore" || fail "the installed feedctl-serve needs the Swift toolchain's libswiftCore.so"
minimal=0
if [[ -f .build/ffmpeg/config.txt ]]; then
  minimal=1
  mv .build/ffmpeg .build/ffmpeg.smoke-away
fi
bin=$prefix/bin

# A private server even when one is reachable: the monitor must hold only our audio.
export XDG_RUNTIME_DIR=$work/run FEEDCTL_DB=$work/library.sqlite
unset FEEDCTL_SOCKET PULSE_SERVER
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
eval "$(PULSE_SERVER=unix:/nonexistent scripts/headless-pulse.sh start "$work")"
ffmpeg -nostdin -v error -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=6" \
  -ac 2 -c:a libmp3lame -b:a 128k "$work/tone.mp3"

# Raw samples written as they come, in small fragments (a monitor may hand over ~2 s at a time by
# default; a WAV written by a parec stopped with a signal sometimes read as empty).
timeout 15 parec -d nullsink.monitor --latency-msec=20 --format=s16le --channels=1 --rate=48000 >"$work/heard.raw" &
recorder=$!
"$bin/feedctl" play "$work/tone.mp3" >/dev/null || fail "feedctl play failed"
# Until a second has been heard (a null sink woken from idle may take ~2 s to start a stream).
for _ in $(seq 50); do
  status=$("$bin/feedctl" status --json) || fail "feedctl status failed"
  python3 -c 'import json, sys; sys.exit(0 if json.loads(sys.argv[1])["position"] >= 1 else 1)' "$status" && break
  sleep 0.2
done
sleep 0.5
kill -INT "$recorder" 2>/dev/null; wait "$recorder" 2>/dev/null || true
python3 - "$status" <<'EOF' || fail "unexpected status: $status"
import json, sys
s = json.loads(sys.argv[1])
assert s["status"] == "playing" and s["position"] >= 1 and abs(s["duration"] - 6) < 0.2, s
EOF
read -r length rms < <(sox -t raw -e signed -b 16 -c 1 -r 48000 "$work/heard.raw" -n stat 2>&1 |
  awk '/Length \(seconds\)/ { l = $3 } /RMS +amplitude/ { r = $3 } END { print l + 0, r + 0 }')
awk -v l="$length" 'BEGIN { exit !(l >= 0.5) }' || fail "recorded only $length s of the sink's monitor"
awk -v r="$rms" 'BEGIN { exit !(r > 0.02) }' || fail "the sink's monitor is silent (RMS $rms)"
# The FFmpeg it plays with: scripts/build-ffmpeg.sh's minimal build when there is one.
daemon=$(pgrep -n -f -- "feedctl-daemon --socket $XDG_RUNTIME_DIR/feedctl/player.sock") || fail "no daemon process"
codec=$(awk '/libavcodec/ { print $6; exit }' "/proc/$daemon/maps")
if ((minimal)) && [[ $codec != "$prefix/lib/feedctl/ffmpeg/"* ]]; then
  fail "the installed daemon loaded $codec, not the minimal FFmpeg installed in $prefix/lib/feedctl/ffmpeg"
fi
"$bin/feedctl" stop >/dev/null

# The installed server, started through `feedctl serve` (which runs feedctl-serve beside it).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/feedctl" serve --open --listen "127.0.0.1:$port" 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >"$work/health.json" 2>/dev/null && break; sleep 0.1; done
python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["status"] == "healthy" else 1)' "$work/health.json" 2>/dev/null ||
  fail "the installed feedctl serve did not answer /health: $(tail -2 "$work/serve.log")"
kill "$server"; wait "$server" 2>/dev/null || true; server=""

echo "release smoke: release builds linked by lld with their hot functions (${packed%, }), installed by scripts/install.sh, played into PulseAudio (monitor RMS $rms) with $codec; feedctl serve answered /health"
