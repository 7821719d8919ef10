#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite (what .ci/run calls), then the
# parsers' fuzz target for a bounded time, and the release smoke test: the shipped (release)
# daemon playing into PulseAudio.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
python3 scripts/check-imports.py   # the layout's import rules (docs/architecture.md)
bash scripts/build-ffmpeg.sh
source scripts/env.sh
swift build --build-tests
swift test --skip-build "$@"
bash scripts/fuzz.sh 60   # the parsers under libFuzzer and ASan for 60 s (issue 14)
bash scripts/release-smoke.sh
