#!/usr/bin/env bash
# Sourced by soak.sh and large-bodies.sh: the local test server (Tests/Server/server.py), HTTP
# only, on 127.0.0.1.

# start_test_server SECONDS: starts the server for at most SECONDS (it exits when a pipe held
# open that long closes), stops it when the calling script exits, and sets TEST_SERVER_URL.
start_test_server() {
    local server_out
    exec 3< <(exec sleep "$1" 2>/dev/null)
    server_out=$(mktemp)
    python3 "$(dirname "${BASH_SOURCE[0]}")/../Tests/Server/server.py" <&3 >"$server_out" &
    TEST_SERVER_PID=$!
    TEST_SERVER_OUT=$server_out
    trap 'kill "$TEST_SERVER_PID" 2>/dev/null || true; rm -f "$TEST_SERVER_OUT"' EXIT
    for _ in $(seq 50); do [ -s "$server_out" ] && break; sleep 0.1; done
    TEST_SERVER_URL="http://127.0.0.1:$(head -1 "$server_out" | python3 -c "import json,sys; print(json.load(sys.stdin)['http'])")"
}
