#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds (failing on any warning in this
# package's own code), then runs every test against the local test server the tests start.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# The tests talk to servers on 127.0.0.1 only: never through a proxy from the environment.
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"

build_log=$(mktemp)
swift build --build-tests 2>&1 | tee "$build_log"
if grep -E "^$(pwd)/(Sources|Tests|Examples)/.*warning:" "$build_log"; then
    echo "test.sh: the build has warnings (above); fix them." >&2
    exit 1
fi
rm -f "$build_log"

swift test "$@"
