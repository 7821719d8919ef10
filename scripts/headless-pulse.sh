#!/usr/bin/env bash
# Starts a private headless PulseAudio with a null sink (when no server is reachable) and prints
# the environment to use it: eval "$(scripts/headless-pulse.sh start DIR)"; stop with `stop DIR`.
# Everything lives under DIR, so nothing touches ~/.config/pulse or /tmp/pulse-*.
set -euo pipefail
cmd=${1:?usage: headless-pulse.sh start|stop DIR}
dir=${2:?usage: headless-pulse.sh start|stop DIR}
mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
runtime=$dir/pulse-run
case "$cmd" in
start)
  if pactl info >/dev/null 2>&1; then
    echo "# PulseAudio already reachable: using it" >&2
    exit 0
  fi
  mkdir -p "$runtime" "$dir/config" "$dir/pulse-state"; chmod 700 "$runtime"
  env XDG_RUNTIME_DIR="$dir" XDG_CONFIG_HOME="$dir/config" PULSE_RUNTIME_PATH="$runtime" \
      PULSE_STATE_PATH="$dir/pulse-state" \
    pulseaudio -D -n --exit-idle-time=-1 --system=false --log-target="file:$dir/pulse.log" \
      --load="module-null-sink sink_name=nullsink rate=48000" \
      --load="module-native-protocol-unix auth-anonymous=1 socket=$runtime/native" \
      --load="module-always-sink" 2>/dev/null
  for _ in $(seq 50); do PULSE_SERVER=unix:$runtime/native pactl info >/dev/null 2>&1 && break; sleep 0.1; done
  PULSE_SERVER=unix:$runtime/native pactl set-default-sink nullsink
  echo "export PULSE_SERVER=unix:$runtime/native PULSE_RUNTIME_PATH=$runtime"
  echo "# started headless PulseAudio (null sink) in $runtime" >&2
  ;;
stop)
  if [[ -S $runtime/native ]]; then
    PULSE_SERVER=unix:$runtime/native pactl exit 2>/dev/null || kill "$(cat "$runtime/pid" 2>/dev/null)" 2>/dev/null || true
  fi
  ;;
*) echo "usage: headless-pulse.sh start|stop DIR" >&2; exit 2 ;;
esac
