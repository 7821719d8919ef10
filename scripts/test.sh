#!/usr/bin/env bash
# CI, what .ci/run calls: scripts/test.sh [REGEX...]
# Installs what is missing, checks the import rules, builds the minimal FFmpeg (once per machine),
# builds with the tests, then at once: the test suite (its XCTest classes in parallel processes,
# scripts/run-tests.py; REGEX selects classes), the release build (plain `swift build -c release`,
# every product, as a developer types it) and the parsers' fuzzing (scripts/fuzz.sh 60); then
# the release smoke test (the release programs installed by scripts/install.sh and as a .deb,
# playing into PulseAudio). The build tree is per machine (scripts/scratch.sh): a second clone
# rebuilds only feedctl's own modules. Ends with a table of each stage's start and duration.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
source scripts/scratch.sh
source scripts/stages.sh
logs=$(mktemp -d)
background=()
finish() {
  local status=$?
  for pid in "${background[@]}"; do kill "$pid" 2>/dev/null || true; done
  echo; stage_table; rm -rf "$logs" "$stage_log"
  ((status == 0)) && echo "test.sh: all stages passed" || echo "test.sh: failed (exit status $status)"
}
trap finish EXIT

stage "install-deps" bash scripts/install-deps.sh
stage "check-imports" python3 scripts/check-imports.py   # the layout's import rules (docs/architecture.md)
stage "ffmpeg" bash scripts/build-ffmpeg.sh
echo "   build tree: $scratch"
stage "debug build" swift build "${spm[@]}" --build-tests

# The tests mostly wait on real time; the release build and the fuzzer use the cores meanwhile,
# niced so that the audio tests keep theirs. Their output is shown when each ends.
(stage "release build" nice -n 10 swift build "${spm[@]}" -c release) >"$logs/release" 2>&1 &
background+=($!)
(stage "fuzz (60 s)" nice -n 10 bash scripts/fuzz.sh 60) >"$logs/fuzz" 2>&1 &
background+=($!)
tests=0
stage "tests" python3 scripts/run-tests.py "$scratch/debug/feedctlPackageTests.xctest" --jobs $((3 * $(nproc))) \
  --timings "$scratch/test-timings.json" "$@" || tests=$?

release=0; wait "${background[0]}" || release=$?
if ((release)); then cat "$logs/release"; else grep -E "warning: |error: |Build complete" "$logs/release" | grep -v "unhandled" || true; fi
fuzz=0; wait "${background[1]}" || fuzz=$?
cat "$logs/fuzz"
background=()
((tests == 0 && release == 0 && fuzz == 0)) || exit 1
stage "release smoke" bash scripts/release-smoke.sh --no-build
