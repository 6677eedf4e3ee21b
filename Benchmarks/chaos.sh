#!/usr/bin/env bash
# The chaos soak (not a timed test): 16 threads share one transport, with a RetryPolicy, for
# MINUTES (default 10) against chaos_server.py on 127.0.0.1, which mixes resets, stalls,
# truncated bodies, slow headers, bad gzip, 5xx and TLS connections closed without close_notify.
# Prints requests, successes, failures by code and by fault, and the open file descriptors,
# threads and resident memory at the end against the start. Fails on a crash, a send that
# outlasts its time-out (or the whole run outlasting MINUTES by 2 minutes: a hang), a wrong or
# faulty body passed as a success, or growth past the bounds ChaosSoak prints.
#
# Usage: Benchmarks/chaos.sh [MINUTES] [THREADS] [threads|async]
# (async: THREADS tasks share the transport with async sends, on the session's transfer loop)
set -euo pipefail
cd "$(dirname "$0")"
minutes=${1:-10}
threads=${2:-16}
mode=${3:-threads}
source ../scripts/setup.sh
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

work=$(mktemp -d -t httptransport-chaos.XXXXXX)
swift build -c release --product ChaosSoak >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
python3 ../Tests/Server/make_certs.py "$work/certs" >/dev/null
exec 3< <(exec sleep $(( minutes * 60 + 600 )) 2>/dev/null)  # the server exits when this pipe closes
python3 chaos_server.py "$work/certs" <&3 >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; cat "$work/server.out" | tail -1; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/server.out" ] && break; sleep 0.1; done
read -r http https abort < <(head -1 "$work/server.out" | python3 -c \
    "import json,sys; p=json.load(sys.stdin); print(p['http'], p['https'], p['tls_abort'])")

status=0
timeout --signal=ABRT $(( minutes * 60 + 120 )) .build/release/ChaosSoak "$http" "$https" "$abort" \
    "$work/certs/ca.pem" "$minutes" "$threads" "$mode" || status=$?
kill -0 "$server_pid" 2>/dev/null || { echo "chaos: the chaos server died" >&2; status=1; }
if [ "$status" -eq 124 ] || [ "$status" -eq 134 ]; then echo "chaos: FAILED: the soak hung past its time" >&2; fi
exit "$status"
