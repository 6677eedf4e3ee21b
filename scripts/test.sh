#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds (failing on any warning in this
# package's own code), then runs every test against the local test server the tests start.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

build_log=$(mktemp)
swift build --build-tests 2>&1 | tee "$build_log"
if grep -E "^$(pwd)/(Sources|Tests|Examples)/.*warning:" "$build_log"; then
    echo "test.sh: the build has warnings (above); fix them." >&2
    exit 1
fi
rm -f "$build_log"

swift test "$@"
