#!/usr/bin/env bash
# CI, what .ci/run calls: scripts/test.sh [REGEX...]
# Installs what is missing, checks the import rules, builds the minimal FFmpeg (once per machine),
# builds with the tests and runs them (their XCTest classes in parallel processes,
# scripts/run-tests.py; REGEX selects classes; then the browser tests, Tests/web/run.py) and the parsers' fuzzing (scripts/fuzz.sh 60),
# while the release build (plain `swift build -c release`, every product, as a developer types
# it) runs beside them; then the release smoke test (the release programs installed by
# scripts/install.sh and as a .deb, playing into PulseAudio). The build trees are per machine
# (scripts/scratch.sh): a second clone rebuilds only feedctl's own modules. Ends with a table of
# each stage's start and duration.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
source scripts/scratch.sh
source scripts/stages.sh
logs=$(mktemp -d)
pg_dir=$(mktemp -d -t feedctl-pg.XXXXXX)   # its own: the server runs as the postgres user
background=()
finish() {
  local status=$?
  bash scripts/pg-test-server.sh stop "$pg_dir"; rm -rf "$pg_dir"
  for pid in "${background[@]}"; do pkill -P "$pid" 2>/dev/null; kill "$pid" 2>/dev/null || true; done
  echo; stage_table; rm -rf "$logs" "$stage_log"
  ((status == 0)) && echo "test.sh: all stages passed" || echo "test.sh: failed (exit status $status)"
}
trap finish EXIT

stage "install-deps" bash scripts/install-deps.sh
stage "check-imports" python3 scripts/check-imports.py   # the layout's import rules (docs/architecture.md)
stage "ffmpeg" bash scripts/build-ffmpeg.sh
echo "   build trees: $debug_tree, $release_tree"

# The release build runs beside everything up to the smoke test, niced: the debug build, then the
# tests (which mostly wait on real time) and the fuzzer come first. Its output and the fuzzer's
# are shown when they end.
(stage "release build" nice -n 10 swift build "${release_spm[@]}" -c release) >"$logs/release" 2>&1 &
background+=($!)
stage "debug build" swift build "${debug_spm[@]}" --build-tests
(stage "fuzz (60 s)" bash scripts/fuzz.sh 60) >"$logs/fuzz" 2>&1 &
background+=($!)
# One PostgreSQL for every test process (each test makes a database of its own in it).
stage "postgresql" bash scripts/pg-test-server.sh start "$pg_dir"
export FEEDCTL_TEST_PG="$pg_dir"
# The PostgreSQL schema's triggers and counters, and its parity with SQLite's (Tests/postgres).
schema=0
(($# == 0)) && { stage "postgres schema" python3 Tests/postgres/schema_check.py --feedctl "$debug_bin/feedctl" || schema=$?; }
tests=0
stage "tests" python3 scripts/run-tests.py "$debug_bin/feedctlPackageTests.xctest" --jobs $((4 * $(nproc))) \
  --timings "$scratch/test-timings.json" "$@" || tests=$?
# The web app in Chromium against the debug programs (Tests/web; skipped when REGEX picks classes).
web=0
if (($# == 0)); then
  stage "web tests" env FEEDCTL_BIN_DIR="$debug_bin" python3 Tests/web/run.py --out "$scratch/web-test-output" || web=$?
fi

fuzz=0; wait "${background[1]}" || fuzz=$?
cat "$logs/fuzz"
release=0; wait "${background[0]}" || release=$?
if ((release)); then cat "$logs/release"; else grep -E "warning: |error: |Build complete" "$logs/release" | grep -v "unhandled" || true; fi
background=()
((tests == 0 && web == 0 && schema == 0 && release == 0 && fuzz == 0)) || exit 1
stage "release smoke" bash scripts/release-smoke.sh --no-build
