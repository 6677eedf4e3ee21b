#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds (failing on any warning in this
# package's own code), then runs every test against the local test server the tests start.
#   bash scripts/test.sh                  # on the machine's libcurl (Debian 12: 7.88.1)
#   LIBCURL=8 bash scripts/test.sh        # on bookworm-backports' libcurl 8 (WebSockets)
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

# LIBCURL=8 runs the same build on bookworm-backports' libcurl 8 (scripts/libcurl8.sh fetches it
# into .libcurl8/ of this checkout; the machine's libcurl stays as it is).
if [ "${LIBCURL:-}" = 8 ]; then
    libcurl8="$(bash scripts/libcurl8.sh)"
    export LD_LIBRARY_PATH="$libcurl8${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
swift test "$@"
