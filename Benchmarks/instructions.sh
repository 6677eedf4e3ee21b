#!/usr/bin/env bash
# Instructions per small keep-alive GET, counted by callgrind (repeatable where times are not).
# Starts its own nginx on 127.0.0.1, builds the HTTPTransport benchmark client in release mode,
# runs it under callgrind for N and 2N GETs and prints (I(2N) − I(N)) / N: the cost of one
# request, start-up and first connection excluded; for a blocking send also the part outside
# libcurl's curl_easy_perform (the Swift layer). Installs valgrind and nginx if missing.
#
# Environment: N (default 2000), CLIENT_ARGS (extra client options, e.g. "--interceptors 10"),
#              BASELINE=1 also counts the C libcurl loop with the same method, as is (a) and with
#              HTTPTransport's libcurl settings (a'), and prints HTTPTransport − (a'),
#              HEADERS=1 also counts the two ways of reading response headers in C
#              (baseline/header_access.c: a header callback vs curl_easy_nextheader),
#              IN_FLIGHT=K instead counts throughput.sh's workload with K GETs in flight, every
#              thread of the process: K tasks awaiting async sends in turn (BenchHTTPTransport
#              threads K … --api async) against the C program on libcurl's multi interface
#              (baseline/throughput_multi.c) as is (m) and with HTTPTransport's settings and
#              request headers (m'), N and 2N GETs each, and prints each per GET and the ratios,
#              the machine's load left out (CPU times on a shared machine are not),
#              and each one's part outside libcurl's multi calls (curl_multi_perform, _poll,
#              _add_handle, _remove_handle, _info_read, _wakeup): libcurl's part moves by ±1.5k
#              between runs with the timing of nginx's answers, the part outside by ~0.1k.
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
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || missing+=(libcurl4-openssl-dev)
apt_install "${missing[@]}"

swift_build_products BenchHTTPTransport
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

count() {  # $1: requests; the rest: the client command. Prints total instructions, then those
            # inside curl_easy_perform (inclusive: libcurl's work, with the callbacks it makes).
    local requests=$1; shift
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$@" get "http://127.0.0.1:$PORT" "$requests" \
        >/dev/null 2>"$WORK/cg.log"
    grep -o 'Collected : [0-9]*' "$WORK/cg.log" | grep -o '[0-9]*$'
    callgrind_annotate --inclusive=yes --threshold=100 "$WORK/cg.out" 2>/dev/null \
        | awk '/:curl_easy_perform / { gsub(",", "", $1); print $1; found = 1; exit } END { if (!found) print 0 }'
}
per_request() {  # the client command; prints instructions per GET, then those inside curl_easy_perform
    local one two
    one=($(count "$N" "$@"))
    two=($(count $((2 * N)) "$@"))
    echo $(( (two[0] - one[0]) / N )) $(( (two[1] - one[1]) / N ))
}

if [ -n "${IN_FLIGHT:-}" ]; then
    gcc -O2 -o "$WORK/multi" baseline/throughput_multi.c -lcurl -lpthread
    base="http://127.0.0.1:$PORT"
    in_flight() {  # $1: async, multi or multi-like, $2: GETs; prints the process's
                   # instructions (all threads), then those outside libcurl's multi calls
        local command=("$WORK/client" threads "$base" "$IN_FLIGHT" $(($2 / IN_FLIGHT)) --api async)
        [ "$1" != async ] && command=("$WORK/multi" get "$base" "$2" "$IN_FLIGHT")
        local like=0
        [ "$1" = multi-like ] && like=1
        CURL_BASELINE_LIKE_HTTPTRANSPORT=$like valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
            "${command[@]}" >"$WORK/out.txt" 2>"$WORK/cg.log"
        grep -q '"errors":0' "$WORK/out.txt" || { echo "instructions.sh: ($1) failed: $(head -c 300 "$WORK/out.txt")" >&2; exit 1; }
        local total
        total=$(grep -o 'Collected : [0-9]*' "$WORK/cg.log" | grep -o '[0-9]*$')
        callgrind_annotate --inclusive=yes --threshold=100 "$WORK/cg.out" 2>/dev/null | awk -v total="$total" '
            /:curl_multi_(perform|poll|add_handle|remove_handle|info_read|wakeup) / { gsub(",", "", $1); inside += $1 }
            END { print total, total - inside }'
    }
    per_get() {  # $1: async or multi; prints instructions per GET, and those outside libcurl's multi calls
        local one two
        one=($(in_flight "$1" "$count"))
        two=($(in_flight "$1" $((2 * count))))
        echo $(( (two[0] - one[0]) / count )) $(( (two[1] - one[1]) / count ))
    }
    # (N and 2N rounded to whole GETs per task, so that the two runs differ by N exactly.)
    count=$(( N / IN_FLIGHT * IN_FLIGHT ))
    ours=($(per_get async))
    c=($(per_get multi))
    like=($(per_get multi-like))
    echo "HTTPTransport async send(_:), $IN_FLIGHT in flight: ${ours[0]} instructions per small GET (${ours[1]} outside libcurl's multi calls)"
    echo "(m) C, libcurl's multi interface, $IN_FLIGHT in flight: ${c[0]} instructions per small GET (${c[1]} outside libcurl's multi calls)"
    echo "(m') the same with HTTPTransport's settings and request headers: ${like[0]} instructions per small GET (${like[1]} outside libcurl's multi calls)"
    echo "ratio to (m): $(python3 -c "print(f'{${ours[0]} / ${c[0]}:.3f}')"), to (m'): $(python3 -c "print(f'{${ours[0]} / ${like[0]}:.3f}')")"
    exit 0
fi

# shellcheck disable=SC2086
ours=($(per_request "$WORK/client" ${CLIENT_ARGS:-}))
echo "HTTPTransport: ${ours[0]} instructions per small GET"
# The Swift layer: everything outside libcurl's curl_easy_perform (a blocking send's one entry
# into libcurl; an async send's transfers run elsewhere, so this line is for blocking sends).
# The C callbacks that read the head into memory run inside it, so they count as libcurl's here;
# (b) − (a') below counts them as ours.
if [ "${ours[1]}" -gt 0 ]; then
    echo "HTTPTransport outside curl_easy_perform (the Swift layer): $(( ours[0] - ours[1] )) instructions per small GET"
fi
if [ "${BASELINE:-0}" = 1 ]; then
    plain=($(per_request "$WORK/curl_baseline"))
    like=($(export CURL_BASELINE_LIKE_HTTPTRANSPORT=1; per_request "$WORK/curl_baseline"))
    echo "C libcurl (a): ${plain[0]} instructions per small GET"
    echo "C libcurl, HTTPTransport's settings (a'): ${like[0]} instructions per small GET"
    echo "HTTPTransport − (a'), the cost of the Swift layer and its callbacks: $(( ours[0] - like[0] )) instructions per small GET"
fi
if [ "${HEADERS:-0}" = 1 ]; then
    by_callback=($(per_request "$WORK/header_access" cb))
    by_api=($(per_request "$WORK/header_access" api))
    echo "headers by callback: ${by_callback[0]} instructions per small GET"
    echo "headers by curl_easy_nextheader: ${by_api[0]} instructions per small GET"
fi
