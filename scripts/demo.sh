#!/usr/bin/env bash
# The main job end to end on bundled data: install what is missing, build, serve the fixture
# feeds from 127.0.0.1, subscribe and sync them into a fresh library, print the feed, and play the
# newest episode (four 15 s tones: 440, 660, 880, 1100 Hz) into PulseAudio (a private headless
# one with a null sink when none is reachable), showing the 1 Hz progress, a +15 s seek at 5 s and
# a -15 s seek at 10 s, then stop. The sink's monitor is recorded meanwhile, and the last line says
# whether what reached it was right: 440 Hz (0-5 s), 660 Hz (20-25 s), 440 Hz again (10-14 s), in
# that order (scripts/tones.py). Exits non-zero when it was not.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
source scripts/scratch.sh
start=$SECONDS
elapsed() { printf '%d:%02d' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }
# A stage line with the time since the demo started; long stages also say what they took.
step() { echo; echo "== [$(elapsed)] $*"; }
took() { echo "   ($1 took $(($2 / 60)) min $(($2 % 60)) s)"; }

step "checking the Debian packages (scripts/install-deps.sh; installs what is missing)"
bash scripts/install-deps.sh
t=$SECONDS
step "the minimal FFmpeg the player loads (scripts/build-ffmpeg.sh: ~2 min once per machine, then nothing)"
bash scripts/build-ffmpeg.sh
((SECONDS - t < 5)) || took "FFmpeg" $((SECONDS - t))

# On a terminal SwiftPM shows its own progress; otherwise one line per product, errors only.
build() {
  local product=$1 t=$SECONDS log
  if [[ -t 1 ]]; then
    swift build "${release_spm[@]}" -c release --product "$product" || { echo "demo: building $product failed" >&2; exit 1; }
  else
    log=$(mktemp)
    swift build "${release_spm[@]}" -c release --product "$product" >"$log" 2>&1 ||
      { grep -E "error" "$log" >&2 || tail -20 "$log" >&2; echo "demo: building $product failed" >&2; exit 1; }
    rm -f "$log"
  fi
  echo "   $product: $((SECONDS - t)) s"
}
t=$SECONDS
step "building feedctl-daemon and feedctl (release) in $release_tree"
echo "   ~4 min the first time on 2 cores; the dependencies' builds are then kept per machine, so"
echo "   another clone's first build takes ~1 min; seconds when nothing changed"
build feedctl-daemon
build feedctl
((SECONDS - t < 5)) || took "building" $((SECONDS - t))
bin=$release_bin/feedctl
[[ -x $bin && -x ${bin}-daemon ]] || { echo "demo: no $bin after the build" >&2; exit 1; }

work=$(mktemp -d /tmp/feedctl-demo.XXXXXX)
server_pid=""; rec_pid=""
cleanup() {
  "$bin" quit >/dev/null 2>&1 || true
  [[ -n $rec_pid ]] && kill "$rec_pid" 2>/dev/null || true
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null || true
  bash scripts/headless-pulse.sh stop "$work" || true
  rm -rf "$work"
}
trap cleanup EXIT

step "generating the demo media with ffmpeg"
mkdir -p "$work/www/media"
cp fixtures/demo/*.xml "$work/www/"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
ff -f lavfi -i "sine=f=440:d=15" -f lavfi -i "sine=f=660:d=15" -f lavfi -i "sine=f=880:d=15" -f lavfi -i "sine=f=1100:d=15" \
   -filter_complex "[0][1][2][3]concat=n=4:v=0:a=1" -ac 2 -c:a libmp3lame -b:a 128k "$work/www/media/tones-60s.mp3"
ff -f lavfi -i "sine=f=440:d=60" -c:a libvorbis "$work/www/media/a440-60s.ogg"
ff -f lavfi -i "sine=f=523:d=20" -c:a aac -movflags +faststart "$work/www/media/hello-20s.m4a"

step "serving fixtures/demo on 127.0.0.1"
coproc SERVER { exec python3 Tests/Support/http_server.py --root "$work/www"; }
server_pid=$SERVER_PID
read -r port <&"${SERVER[0]}"
base="http://127.0.0.1:$port"
echo "   $base"

eval "$(bash scripts/headless-pulse.sh start "$work")"
export FEEDCTL_DB="$work/library.sqlite" FEEDCTL_SOCKET="$work/ctl/player.sock"

step "feedctl channel add"
"$bin" channel add "$base/podcast.xml" "$base/youtube.xml" "$base/atom.xml"
step "feedctl sync --all"
"$bin" sync --all
step "feedctl feed"
"$bin" feed
step "feedctl feed --mode short-form"
"$bin" feed --mode short-form

# The newest episode with media (an Atom blog counts as "podcast" too, without an enclosure):
# "Episode 3: Four tones", media/tones-60s.mp3.
id=$("$bin" feed --platform podcast --json |
     python3 -c 'import json,sys; print(next(i["id"] for i in json.load(sys.stdin) if i["enclosure_url"]))')
# Raw samples (no header: stopping parec with a signal leaves a whole file) from the monitor of
# the sink the daemon plays to.
parec -d @DEFAULT_MONITOR@ --latency-msec=20 --format=s16le --rate=48000 --channels=2 --raw >"$work/heard.raw" &
rec_pid=$!
step "feedctl play $id   (then status --follow; seek +15 at 5 s, seek -15 at 10 s, stop at 14 s)"
"$bin" play "$id"
"$bin" status --follow & follow=$!
sleep 5; echo "-- feedctl seek +15"; "$bin" seek +15
sleep 5; echo "-- feedctl seek -15"; "$bin" seek -15
sleep 4
kill "$follow" 2>/dev/null || true; wait "$follow" 2>/dev/null || true
step "feedctl stop"
"$bin" stop
"$bin" status
kill -INT "$rec_pid" 2>/dev/null || true; wait "$rec_pid" 2>/dev/null || true; rec_pid=""
step "feedctl show $id (progress saved)"
"$bin" show "$id"

step "what reached the sink (scripts/tones.py over the recording of its monitor); total $(elapsed)"
# Heard in order: 440 Hz from 0 s, 660 Hz from 20 s (after +15 at 5 s), 440 Hz from 10 s (after
# -15 at 25 s), stopped at 14 s.
python3 scripts/tones.py "$work/heard.raw" --expect 440,660,440
