#!/usr/bin/env bash
# The main job end to end on bundled data: install what is missing, build, serve the fixture
# feeds from 127.0.0.1, subscribe and sync them into a fresh library, print the feed, and play an
# episode into PulseAudio (a private headless one with a null sink when none is reachable),
# showing the 1 Hz progress and a ±15 s seek, then stop cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bash scripts/install-deps.sh
bash scripts/build-ffmpeg.sh
source scripts/env.sh

echo "== building feedctl (release)"
swift build -c release --product feedctl-daemon 2>&1 | grep -E "error" || true
swift build -c release --product feedctl 2>&1 | grep -E 'error|warning: unre|Compiling feedctl|Build complete' || true
bin="$(swift build -c release --show-bin-path)/feedctl"
[[ -x $bin && -x ${bin}-daemon ]] || { echo "build failed" >&2; exit 1; }

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

echo "== generating demo media with ffmpeg"
mkdir -p "$work/www/media"
cp fixtures/demo/*.xml "$work/www/"
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }
ff -f lavfi -i "sine=f=440:d=15" -f lavfi -i "sine=f=660:d=15" -f lavfi -i "sine=f=880:d=15" -f lavfi -i "sine=f=1100:d=15" \
   -filter_complex "[0][1][2][3]concat=n=4:v=0:a=1" -ac 2 -c:a libmp3lame -b:a 128k "$work/www/media/tones-60s.mp3"
ff -f lavfi -i "sine=f=440:d=60" -c:a libvorbis "$work/www/media/a440-60s.ogg"
ff -f lavfi -i "sine=f=523:d=20" -c:a aac -movflags +faststart "$work/www/media/hello-20s.m4a"

echo "== serving fixtures on 127.0.0.1"
coproc SERVER { exec python3 Tests/Support/http_server.py --root "$work/www"; }
server_pid=$SERVER_PID
read -r port <&"${SERVER[0]}"
base="http://127.0.0.1:$port"
echo "   $base"

eval "$(bash scripts/headless-pulse.sh start "$work")"
export FEEDCTL_DB="$work/library.sqlite" FEEDCTL_SOCKET="$work/ctl/player.sock"

echo; echo "== feedctl channel add"
"$bin" channel add "$base/podcast.xml" "$base/youtube.xml" "$base/atom.xml"
echo; echo "== feedctl sync --all"
"$bin" sync --all
echo; echo "== feedctl feed"
"$bin" feed
echo; echo "== feedctl feed --mode short-form"
"$bin" feed --mode short-form

# The newest episode with media (an Atom blog counts as "podcast" too, without an enclosure).
id=$("$bin" feed --platform podcast --json |
     python3 -c 'import json,sys; print(next(i["id"] for i in json.load(sys.stdin) if i["enclosure_url"]))')
if pactl list short sinks | grep -q nullsink; then
  parec -d nullsink.monitor --latency-msec=20 --format=s16le --rate=48000 --channels=2 --file-format=wav "$work/heard.wav" &
  rec_pid=$!
fi
echo; echo "== feedctl play $id   (then status --follow for ~15 s, seek +15 at 5 s, seek -15 at 10 s)"
"$bin" play "$id"
"$bin" status --follow & follow=$!
sleep 5; echo "-- feedctl seek +15"; "$bin" seek +15
sleep 5; echo "-- feedctl seek -15"; "$bin" seek -15
sleep 5
kill "$follow" 2>/dev/null || true; wait "$follow" 2>/dev/null || true
echo; echo "== feedctl stop"
"$bin" stop
"$bin" status
if [[ -n $rec_pid ]]; then
  kill -INT "$rec_pid"; wait "$rec_pid" 2>/dev/null || true; rec_pid=""
  echo; echo "== what reached the null sink (sox stat of its monitor)"
  sox "$work/heard.wav" -n remix 1 stat 2>&1 | grep -E 'Length|RMS +amplitude|Rough +frequency' || true
fi
echo; echo "== feedctl show $id (progress saved)"
"$bin" show "$id"
