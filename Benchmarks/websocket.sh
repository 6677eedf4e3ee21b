#!/usr/bin/env bash
# WebSocket echo round trips per second and CPU per message, for 1 socket and for 100 at once,
# over HTTPTransport (WebSocketEcho) and over a C program on libcurl's own WebSocket API
# (websocket/ws_echo.c, the limit), both on bookworm-backports' libcurl 8 and against the same
# echo server (the `websockets` package, Tests/Server/websocket_peer.py), in one run. Target:
# HTTPTransport within 1.5x of the C program.
#   bash Benchmarks/websocket.sh [ROUND_TRIPS_FOR_ONE_SOCKET] [PER_SOCKET_OF_100] [BYTES]
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/setup.sh
libcurl8="$(bash ../scripts/libcurl8.sh)"
one=${1:-20000} hundred=${2:-300} bytes=${3:-128}
swift build -c release --product WebSocketEcho >/dev/null
work=$(mktemp -d)
exec 3< <(exec sleep 900 2>/dev/null)
python3 ../Tests/Server/websocket_peer.py <&3 >"$work/ports" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/ports" ] && break; sleep 0.1; done
url="ws://127.0.0.1:$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['echo'])" "$work/ports")/echo"
cc -O2 -o "$work/ws_echo" websocket/ws_echo.c -L"$libcurl8" -l:libcurl.so.4 -Wl,-rpath,"$libcurl8"

export LD_LIBRARY_PATH="$libcurl8"
printf '%-14s %8s %10s %8s %12s %14s\n' client sockets messages wall "round trips/s" "CPU µs/message"
run() {  # run NAME COMMAND...: prints the line, and remembers round trips/s and CPU per message
    read -r sockets total wall rate cpu < <("${@:2}")
    printf '%-14s %8s %10s %8s %12s %14s\n' "$1" "$sockets" "$total" "$wall" "$rate" "$cpu"
    last_rate=$rate last_cpu=$cpu
}
for config in "1 $one" "100 $hundred"; do
    set -- $config
    run "C (libcurl)" "$work/ws_echo" "$url" "$1" "$2" "$bytes"; c_rate=$last_rate c_cpu=$last_cpu
    run HTTPTransport .build/release/WebSocketEcho "$url" "$1" "$2" "$bytes"
    python3 -c "import sys; r, c, rc, cc = map(float, sys.argv[1:5]); print(f'  {int(sys.argv[5])} socket(s): C/HTTPTransport round trips/s {r / rc:.2f}x, CPU per message HTTPTransport/C {c / cc:.2f}x')" \
        "$c_rate" "$last_cpu" "$last_rate" "$c_cpu" "$1"
done
