#!/usr/bin/env bash
# The handshake storm (issue 20 item 12, a heap corruption seen once under load): THREADS threads
# each do one blocking send at the same moment through one transport, to nginx over TLS (h2, or
# HTTP/1.1 with HTTP=1.1; answers after 100 ms when nginx has its echo module) and, every MUTE-th
# thread (default 4th; 0: none), to a server that accepts TCP and never answers the ClientHello,
# so handshakes time out together (CONNECT_TIMEOUT, default 1 s). ROUNDS storms per process.
# Fails on a crash (a heap corruption aborts the process) or a send far past its time-out.
# Before OpenSSL was set up without its atexit handler (ccurl.c), 3 of 10 storms of 3,000 threads
# (MUTE=1 CONNECT_TIMEOUT=2, 1 round) crashed as the process exited; EXIT_AFTER=1.5 makes the
# program exit with sends in flight.
#
# Usage: Benchmarks/handshake-storm.sh [THREADS] [ROUNDS]
# Environment: SANITIZE=address (AddressSanitizer build in .build-asan), PIN=1 (a SHA-256 pin on
#   the leaf: the handshake callback runs and TLS sessions are not shared), HTTP=1.1, MUTE,
#   CONNECT_TIMEOUT, FRESH=1 (a new transport per round), MALLOC_CHECK_=3 (glibc's checks),
#   STORM_BINARY (a HandshakeStorm built elsewhere: no build here).
set -euo pipefail
cd "$(dirname "$0")"
threads=${1:-2000}
rounds=${2:-3}
source ./nginx.sh
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
ulimit -n "$(ulimit -Hn)"

build_flags=(-c release)
scratch=.build
if [ "${SANITIZE:-}" = address ]; then
    build_flags=(--sanitize=address)
    scratch=.build-asan
    export SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=0:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi
work=$(mktemp -d -t httptransport-storm.XXXXXX)
binary=${STORM_BINARY:-$scratch/$([ "$scratch" = .build ] && echo release || echo debug)/HandshakeStorm}
if [ -z "${STORM_BINARY:-}" ]; then
    swift build "${build_flags[@]}" --scratch-path "$scratch" --product HandshakeStorm >"$work/build.log" 2>&1 \
        || { cat "$work/build.log" >&2; exit 1; }
fi
python3 ../Tests/Server/make_certs.py "$work/certs" >/dev/null

port=$(free_port)
echo_module=/usr/lib/nginx/modules/ngx_http_echo_module.so
location='location / { return 200 "ok\n"; }'
[ -f "$echo_module" ] && location='location / { echo_sleep 0.1; echo "ok"; }'
{
    [ -f "$echo_module" ] && echo "load_module $echo_module;"
    nginx_config "$work" "$port" "" "$location" \
        | sed -e "s|listen 127.0.0.1:$port;|listen 127.0.0.1:$port ssl http2 backlog=8192;\n        ssl_certificate $work/certs/leaf-chain.pem;\n        ssl_certificate_key $work/certs/leaf.key;|" \
              -e 's|worker_connections 1024;|worker_connections 16384;|' \
              -e 's|^worker_processes 1;|worker_processes 1;\nworker_rlimit_nofile 20000;|'
} >"$work/nginx.conf"
mkdir -p "$work/www"
trap 'nginx_stop; kill "$mute_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
mute_pid=""
CURL_CA_BUNDLE="$work/certs/ca.pem" nginx_start "$work" "https://127.0.0.1:$port/"
# The mute server: accepts connections and holds them without a byte, until its stdin closes.
exec 3< <(exec sleep 3600 2>/dev/null)
python3 -c '
import socket, sys, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(8192); print(s.getsockname()[1], flush=True)
held = []
def accept():
    while True: held.append(s.accept()[0])
threading.Thread(target=accept, daemon=True).start()
sys.stdin.read()
' <&3 >"$work/mute.port" &
mute_pid=$!
for _ in $(seq 100); do [ -s "$work/mute.port" ] && break; sleep 0.05; done
mute_port=$(cat "$work/mute.port")

pin=""
[ "${PIN:-0}" = 1 ] && pin=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["leaf"]["sha256"])' \
    "$work/certs/fingerprints.json")
PIN="$pin" "$binary" \
    "https://127.0.0.1:$port/" "https://127.0.0.1:$mute_port/" "$work/certs/ca.pem" "$threads" "$rounds"
