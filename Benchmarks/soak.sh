#!/usr/bin/env bash
# Connection reuse and memory over 10,000 sequential small GETs against the local test server.
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/setup.sh
swift build -c release --product ReuseSoak >/dev/null
exec 3< <(exec sleep 600 2>/dev/null)  # the server exits when this pipe closes
server_out=$(mktemp)
python3 ../Tests/Server/server.py <&3 >"$server_out" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -f "$server_out"' EXIT
for _ in $(seq 50); do [ -s "$server_out" ] && break; sleep 0.1; done
port=$(head -1 "$server_out" | python3 -c "import json,sys; print(json.load(sys.stdin)['http'])")
.build/release/ReuseSoak "http://127.0.0.1:$port/json" "${1:-10000}"
