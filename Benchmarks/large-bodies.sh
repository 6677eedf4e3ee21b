#!/usr/bin/env bash
# Peak memory of a 1 GiB download to file and a 1 GiB file upload (target: < 32 MiB above the
# process's baseline each), and cancellation latency, against the local test server.
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/setup.sh
source ./test-server.sh
swift build -c release --product LargeBodies >/dev/null
start_test_server 1200
bytes=${1:-1073741824}
.build/release/LargeBodies "$TEST_SERVER_URL" download "$bytes"
.build/release/LargeBodies "$TEST_SERVER_URL" upload "$bytes"
.build/release/LargeBodies "$TEST_SERVER_URL" cancel
