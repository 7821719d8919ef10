#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite (what .ci/run calls).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
source scripts/env.sh
swift build --build-tests 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Wrapping|Linking|Applying|Merging)' || true
swift build --build-tests >/dev/null   # fail loudly here if the build is broken
swift test --skip-build
