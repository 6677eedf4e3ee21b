#!/usr/bin/env bash
# Streamed bodies against the local test server: a 256 MiB stream read as fast as possible next
# to the same body downloaded to memory (a stream should be at least as fast), and the peak
# memory of a 1 GiB stream read slowly (target: about 1 MiB buffered, RSS flat).
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/setup.sh
source ./test-server.sh
swift build -c release --product StreamingBodies >/dev/null
start_test_server 1200
.build/release/StreamingBodies "$TEST_SERVER_URL" throughput "${1:-268435456}"
.build/release/StreamingBodies "$TEST_SERVER_URL" slow "${2:-1073741824}"
