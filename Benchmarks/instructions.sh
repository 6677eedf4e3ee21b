#!/usr/bin/env bash
# Instructions per small keep-alive GET, counted by callgrind (repeatable where times are not).
# Starts its own nginx on 127.0.0.1, builds the HTTPTransport benchmark client in release mode,
# runs it under callgrind for N and 2N GETs and prints (I(2N) − I(N)) / N: the cost of one
# request, start-up and first connection excluded. Installs valgrind and nginx if missing.
#
# Environment: N (default 2000), CLIENT_ARGS (extra client options, e.g. "--interceptors 10"),
#              BASELINE=1 also counts the C libcurl loop with the same method, as is (a) and with
#              HTTPTransport's libcurl settings (a'),
#              HEADERS=1 also counts the two ways of reading response headers in C
#              (baseline/header_access.c: a header callback vs curl_easy_nextheader).
set -euo pipefail
cd "$(dirname "$0")"
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
N=${N:-2000}
# The clients warm up with N/10 requests, at most 200, before they count: only from N = 2000 on
# are the warm-ups of the N and the 2N run the same, so that they cancel out of the difference
# (with N = 1000 every figure came out 10% high).
if [ "$N" -lt 2000 ]; then
    echo "instructions.sh: N must be at least 2000 (the warm-up is N/10 requests, at most 200)" >&2
    exit 2
fi

source ./nginx.sh
missing=($(nginx_if_missing))
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
apt_install "${missing[@]}"

swift build -c release --product BenchHTTPTransport >/dev/null 2>&1
BIN=$(swift build -c release --show-bin-path)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/httptransport-instructions.XXXXXX")
# valgrind 3.19 cannot read the DWARF that Swift 6 writes: count a copy without debug info.
cp "$BIN/BenchHTTPTransport" "$WORK/client"
strip --strip-debug "$WORK/client"
gcc -O2 -o "$WORK/curl_baseline" baseline/curl_baseline.c -lcurl -lpthread
gcc -O2 -o "$WORK/header_access" baseline/header_access.c -lcurl
write_small_json "$WORK"
PORT=$(free_port)
nginx_config "$WORK" "$PORT" >"$WORK/nginx.conf"
trap 'nginx_stop; rm -rf "$WORK"' EXIT
nginx_start "$WORK" "http://127.0.0.1:$PORT/small.json"

# What is counted must be the success path: a few requests first, every one a 200 with its body.
if ! "$WORK/client" get "http://127.0.0.1:$PORT" 20 | grep -q '"errors":0'; then
    echo "instructions.sh: the client's requests fail (see above); nothing counted" >&2
    exit 1
fi

count() {  # $1: requests; the rest: the client command. Prints total instructions.
    local requests=$1; shift
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$@" get "http://127.0.0.1:$PORT" "$requests" \
        >/dev/null 2>"$WORK/cg.log"
    grep -o 'Collected : [0-9]*' "$WORK/cg.log" | grep -o '[0-9]*$'
}
per_request() {  # the client command; prints instructions per GET
    local one two
    one=$(count "$N" "$@")
    two=$(count $((2 * N)) "$@")
    echo $(( (two - one) / N ))
}

# shellcheck disable=SC2086
echo "HTTPTransport: $(per_request "$WORK/client" ${CLIENT_ARGS:-}) instructions per small GET"
if [ "${BASELINE:-0}" = 1 ]; then
    echo "C libcurl (a): $(per_request "$WORK/curl_baseline") instructions per small GET"
    echo "C libcurl, HTTPTransport's settings (a'): $(export CURL_BASELINE_LIKE_HTTPTRANSPORT=1; per_request "$WORK/curl_baseline") instructions per small GET"
fi
if [ "${HEADERS:-0}" = 1 ]; then
    echo "headers by callback: $(per_request "$WORK/header_access" cb) instructions per small GET"
    echo "headers by curl_easy_nextheader: $(per_request "$WORK/header_access" api) instructions per small GET"
fi
