# Sourced (after scripts/env.sh, from the package root, before the script reads its arguments)
# by the scripts that build: test.sh, demo.sh, install.sh, release-smoke.sh, package-deb.sh.
# Sets where SwiftPM builds: debug_spm=(--scratch-path TREE) and release_spm=(…) for `swift
# build`, debug_bin and release_bin for the programs, and $scratch for other per-machine state.
#
# The build trees are per machine, outside the clone, so that a second clone (a CI run, the demo
# after the tests) reuses the dependencies' builds (SwiftPM, GRDB, NIO, BoringSSL, TOMLKit: most
# of a clean build); only feedctl's own modules recompile, their source paths differ:
#   ${XDG_CACHE_HOME:-~/.cache}/feedctl/build-KEY-N/{debug,release}   KEY: Package.swift, toolchain
# Debug and release are two trees, so that both can build at once (SwiftPM locks a tree for the
# whole of each command). A slot N is held (flock) for the whole run of the script that took it,
# so two runs at once never build into one tree (the second takes slot N+1, or waits when 4 are
# busy); the scripts a script runs inherit its slot ($FEEDCTL_SLOT). Slots of another KEY unused
# for 14 days are removed. FEEDCTL_SCRATCH=DIR builds both in DIR instead (e.g. the clone's
# .build, where a plain `swift build` builds). scripts/build-ffmpeg.sh caches the minimal FFmpeg
# beside the slots.
feedctl_cache=${XDG_CACHE_HOME:-$HOME/.cache}/feedctl
if [[ -z ${FEEDCTL_SCRATCH:-} && -z ${FEEDCTL_SLOT:-} ]]; then
  key=$({ cat Package.swift; swift --version 2>/dev/null; } | sha256sum | cut -c1-12)
  if ! mkdir -p "$feedctl_cache" 2>/dev/null; then
    echo "note: cannot create $feedctl_cache; building in .build" >&2
    export FEEDCTL_SCRATCH=.build
  else
    for stale in "$feedctl_cache"/build-*-[0-9]; do
      [[ -d $stale && $stale != *"-$key-"* && -z $(find "$stale" -maxdepth 0 -mtime -14) ]] || continue
      flock -n "$stale.lock" rm -rf "$stale" && rm -f "$stale.lock"
    done
    # Re-runs this script under the first free slot's lock: flock -o keeps the lock in flock
    # itself, not in the script's children (a daemon the script starts must not hold it).
    self=scripts/${0##*/}
    for n in 0 1 2 3 wait; do
      slot=$feedctl_cache/build-$key-${n/wait/0}
      mkdir -p "$slot" && touch "$slot"
      if [[ $n == wait ]]; then
        echo "waiting for another build in $feedctl_cache (4 runs at once)…" >&2
        FEEDCTL_SLOT=$slot exec flock -o "$slot.lock" bash "$self" "$@"
      fi
      status=0
      FEEDCTL_SLOT=$slot flock -n -o -E 175 "$slot.lock" bash "$self" "$@" || status=$?
      ((status == 175)) || exit "$status"
    done
  fi
fi
if [[ -n ${FEEDCTL_SCRATCH:-} ]]; then
  scratch=$FEEDCTL_SCRATCH debug_tree=$FEEDCTL_SCRATCH release_tree=$FEEDCTL_SCRATCH
else
  scratch=$FEEDCTL_SLOT debug_tree=$FEEDCTL_SLOT/debug release_tree=$FEEDCTL_SLOT/release
fi
debug_spm=(--scratch-path "$debug_tree")
release_spm=(--scratch-path "$release_tree")
debug_bin=$debug_tree/debug
release_bin=$release_tree/release
