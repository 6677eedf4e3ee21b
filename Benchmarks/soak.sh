#!/usr/bin/env bash
# Connection reuse and memory over 10,000 sequential small GETs against the local test server.
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/setup.sh
source ./test-server.sh
swift build -c release --product ReuseSoak >/dev/null
start_test_server 600
.build/release/ReuseSoak "$TEST_SERVER_URL/json" "${1:-10000}"
