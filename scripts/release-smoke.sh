#!/usr/bin/env bash
# The shipped build, which `swift test` (debug) never runs: release feedctl and feedctl-daemon (the
# daemon statically linked with lld and its hot-function order) play a file into a private
# headless PulseAudio, and the sink's monitor must carry the tone. Part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
work=$(mktemp -d)
bin=""
cleanup() {
  [[ -n $bin ]] && "$bin/feedctl" quit >/dev/null 2>&1 || true
  scripts/headless-pulse.sh stop "$work" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "release smoke: $*" >&2; [[ -f $work/run/feedctl/daemon.log ]] && tail -5 "$work/run/feedctl/daemon.log" >&2; exit 1; }

swift build -c release --product feedctl-daemon 2>&1 | grep -E "error" && fail "build failed"
swift build -c release --product feedctl 2>&1 | grep -E "error" && fail "build failed"
bin=$(swift build -c release --show-bin-path)
readelf -p .comment "$bin/feedctl-daemon" | grep -q "Linker: LLD" || fail "feedctl-daemon was not linked with lld"

# A private server even when one is reachable: the monitor must hold only our audio.
export XDG_RUNTIME_DIR=$work/run FEEDCTL_DB=$work/library.sqlite
unset FEEDCTL_SOCKET PULSE_SERVER
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
eval "$(PULSE_SERVER=unix:/nonexistent scripts/headless-pulse.sh start "$work")"
ffmpeg -nostdin -v error -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=6" \
  -ac 2 -c:a libmp3lame -b:a 128k "$work/tone.mp3"

# Small fragments: by default a monitor may hand over ~2 s at a time, and the recording is short.
timeout 15 parec -d nullsink.monitor --latency-msec=20 --file-format=wav --channels=1 --rate=48000 "$work/heard.wav" &
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
length=$(sox "$work/heard.wav" -n stat 2>&1 | awk '/Length \(seconds\)/ { print $3 }')
python3 -c "import sys; sys.exit(0 if float('${length:-0}') >= 0.5 else 1)" || fail "recorded only ${length:-0} s of the sink's monitor"
rms=$(sox "$work/heard.wav" -n stat 2>&1 | awk '/RMS +amplitude/ { print $3 }')
python3 -c "import sys; sys.exit(0 if float('$rms') > 0.02 else 1)" || fail "the sink's monitor is silent (RMS $rms)"
# The FFmpeg it plays with: scripts/build-ffmpeg.sh's minimal build when there is one.
daemon=$(pgrep -n -f -- "feedctl-daemon --socket $XDG_RUNTIME_DIR/feedctl/player.sock") || fail "no daemon process"
codec=$(awk '/libavcodec/ { print $6; exit }' "/proc/$daemon/maps")
if [[ -f .build/ffmpeg/config.txt && $codec != "$PWD/.build/ffmpeg/lib/"* ]]; then
  fail "the daemon loaded $codec, not the minimal FFmpeg in .build/ffmpeg"
fi
"$bin/feedctl" stop >/dev/null
echo "release smoke: feedctl-daemon (release, lld) played into PulseAudio (monitor RMS $rms) with $codec"
