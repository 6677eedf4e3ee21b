#!/usr/bin/env bash
# Peak memory of a 1 GiB download to file and a 1 GiB file upload (target: < 32 MiB above the
# process's baseline each), and cancellation latency, against the local test server.
set -euo pipefail
cd "$(dirname "$0")/LargeBodies"
source ../../scripts/setup.sh
swift build -c release >/dev/null
exec 3< <(exec sleep 1200 2>/dev/null)  # the server exits when this pipe closes
server_out=$(mktemp)
python3 ../../Tests/Server/server.py <&3 >"$server_out" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -f "$server_out"' EXIT
for _ in $(seq 50); do [ -s "$server_out" ] && break; sleep 0.1; done
port=$(head -1 "$server_out" | python3 -c "import json,sys; print(json.load(sys.stdin)['http'])")
bytes=${1:-1073741824}
.build/release/LargeBodies "http://127.0.0.1:$port" download "$bytes"
.build/release/LargeBodies "http://127.0.0.1:$port" upload "$bytes"
.build/release/LargeBodies "http://127.0.0.1:$port" cancel
