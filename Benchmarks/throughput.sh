#!/usr/bin/env bash
# Issue 34's table in one run: the throughput and cost of small keep-alive GETs with many in
# flight, every client against the C program on libcurl's multi interface measured in the same
# run, and the stream figures next to curl and C. Installs what is missing (nginx, gcc, libcurl's
# headers, valgrind), starts its own nginx on 127.0.0.1, builds the clients in release mode, runs
# each client as its own process.
#
# 1. Throughput: COUNT (20,000) GETs of a ~100-byte JSON file, IN_FLIGHT (32 and 256) at a time:
#    (m)  C, one thread on libcurl's multi interface, IN_FLIGHT easy handles re-added as each is
#         done (baseline/throughput_multi.c): the limit;
#    (m') the same C program with HTTPTransport's libcurl settings and its two default request
#         headers, User-Agent and Accept-Encoding (baseline/like_httptransport.h), so that the same
#         requests go on the wire: libcurl 7.88 writes header lines a byte at a time, and these
#         two cost it about 11k instructions per request;
#    (b-async)    HTTPTransport async send(_:), IN_FLIGHT tasks each awaiting its sends in turn;
#    (b-requests) HTTPTransport send(requests:) of all COUNT, maxConcurrentTransfers = IN_FLIGHT;
#    (b-blocking) HTTPTransport blocking send(request:) on IN_FLIGHT threads;
#    (e)  AsyncHTTPClient, IN_FLIGHT tasks, its per-host pool raised to IN_FLIGHT.
#    Every client opens its connections before its clock starts. CPU per request is the
#    process's user + system CPU over the timed part divided by COUNT (what the client costs the
#    machine, nginx excluded); both as ratios to (m): CPU per request × (m), requests/s × (m);
#    and CPU per request × (m').
# 2. Streams: a 256 MiB file from the same nginx read as fast as possible: curl to /dev/null, the
#    C program with a write callback (baseline/curl_baseline.c, into memory), HTTPTransport's
#    stream(_:).body counted chunk by chunk (Sources/StreamingBodies); and the peak RSS above
#    the baseline of a 1 GiB stream read slowly (about 64 MiB/s).
# 3. Blocking: COUNT GETs one after another on one thread, the client on CPU 0: the
#    blocking send(request:) against the C program with the same libcurl options (run.sh's (a')).
# 4. Instructions per small GET (callgrind, instructions.sh's method): blocking send(request:)
#    (and its part outside curl_easy_perform, the Swift layer) and an awaited async send(_:).
# Each throughput and stream figure is the median of REPS runs.
#
# Environment: REPS=N (default 3), COUNT=20000, IN_FLIGHT="32 256",
#              CLIENTS="m m2 b-async b-requests b-blocking e" (m2 is (m')), PARTS="throughput streams blocking instructions",
#              STREAM_MIB=256, SLOW_MIB=1024.
set -euo pipefail
cd "$(dirname "$0")"
export DEBIAN_FRONTEND=noninteractive
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

REPS=${REPS:-3}
COUNT=${COUNT:-20000}
IN_FLIGHT=${IN_FLIGHT:-"32 256"}
CLIENTS=${CLIENTS:-"m m2 b-async b-requests b-blocking e"}
PARTS=${PARTS:-"throughput streams blocking instructions"}
STREAM_MIB=${STREAM_MIB:-256}
SLOW_MIB=${SLOW_MIB:-1024}

source ./nginx.sh
missing=($(nginx_if_missing))
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || missing+=(libcurl4-openssl-dev)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "throughput.sh: installing ${missing[*]}"
    apt_install "${missing[@]}"
fi

echo "throughput.sh: building (release)"
mkdir -p .build
gcc -O2 -Wall -o .build/throughput_multi baseline/throughput_multi.c -lcurl -lpthread
gcc -O2 -Wall -o .build/curl_baseline baseline/curl_baseline.c -lcurl -lpthread
products=(BenchHTTPTransport StreamingBodies)
case " $CLIENTS " in *" e "*) products+=(BenchAsyncHTTPClient) ;; esac
swift_build_products "${products[@]}"
BIN=$(swift build -c release --show-bin-path)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/httptransport-throughput.XXXXXX")
RESULTS="$WORK/results.jsonl"
: >"$RESULTS"
write_small_json "$WORK"
printf '{}' >"$WORK/www/json"
mkdir -p "$WORK/www/bytes"
truncate -s $((STREAM_MIB << 20)) "$WORK/www/big.bin"
ln "$WORK/www/big.bin" "$WORK/www/bytes/$((STREAM_MIB << 20))"
truncate -s $((SLOW_MIB << 20)) "$WORK/www/bytes/$((SLOW_MIB << 20))"
truncate -s $((1 << 20)) "$WORK/www/bytes/$((1 << 20))"  # the slow reader's warm-up stream
PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
nginx_config "$WORK" "$PORT" "    default_type application/octet-stream;" >"$WORK/nginx.conf"
trap 'nginx_stop; rm -rf "$WORK"' EXIT
nginx_start "$WORK" "$BASE/small.json"
echo "throughput.sh: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), libcurl $(curl-config --version | cut -d' ' -f2)"

client_command() {  # $1 client, $2 in flight
    local per=$((COUNT / $2))
    case "$1" in
        m) echo ".build/throughput_multi get $BASE $COUNT $2" ;;
        m2) echo "env CURL_BASELINE_LIKE_HTTPTRANSPORT=1 .build/throughput_multi get $BASE $COUNT $2" ;;
        b-async) echo "$BIN/BenchHTTPTransport threads $BASE $2 $per --api async" ;;
        b-requests) echo "$BIN/BenchHTTPTransport threads $BASE $2 $per --api requests --max-transfers $2" ;;
        b-blocking) echo "$BIN/BenchHTTPTransport threads $BASE $2 $per" ;;
        e) echo "$BIN/BenchAsyncHTTPClient threads $BASE $2 $per --pool $2" ;;
        *) echo "throughput.sh: unknown client $1" >&2; exit 2 ;;
    esac
}

if [[ " $PARTS " == *" throughput "* ]]; then
    for rep in $(seq "$REPS"); do
        for k in $IN_FLIGHT; do
            for client in $CLIENTS; do
                # shellcheck disable=SC2046
                line=$($(client_command "$client" "$k") 2>"$WORK/stderr.txt" | tail -1) || true
                case "$line" in \{*\}) ;; *) echo "throughput.sh: ($client) no result: $(head -c 300 "$WORK/stderr.txt")" >&2; line=null ;; esac
                echo "{\"part\":\"throughput\",\"rep\":$rep,\"k\":$k,\"id\":\"$client\",\"result\":$line}" >>"$RESULTS"
            done
        done
        echo "throughput.sh: throughput repetition $rep done"
    done
fi

if [[ " $PARTS " == *" streams "* ]]; then
    bytes=$((STREAM_MIB << 20))
    for rep in $(seq "$REPS"); do
        rate=$(curl -s -o /dev/null -w '%{speed_download}' "$BASE/big.bin")
        echo "{\"part\":\"stream\",\"id\":\"curl\",\"mib_s\":$(python3 -c "print($rate / 1048576)")}" >>"$RESULTS"
        line=$(.build/curl_baseline download "$BASE" "$bytes" | tail -1)
        echo "{\"part\":\"stream\",\"id\":\"c\",\"mib_s\":$(python3 -c "import json,sys; r=json.loads(sys.argv[1]); print(r['bytes']/1048576/r['seconds'])" "$line")}" >>"$RESULTS"
    done
    # StreamingBodies takes the medians of three itself; REPS of those.
    for rep in $(seq "$REPS"); do
        line=$("$BIN/StreamingBodies" "$BASE" throughput "$bytes")
        echo "{\"part\":\"stream\",\"id\":\"b-stream\",\"mib_s\":$(sed -E 's/.*as fast as possible ([0-9]+).*/\1/' <<<"$line")}" >>"$RESULTS"
    done
    line=$("$BIN/StreamingBodies" "$BASE" slow $((SLOW_MIB << 20)))
    echo "{\"part\":\"slow\",\"mib_above\":$(sed -E 's/.*peak above baseline ([0-9.]+) MiB.*/\1/' <<<"$line")}" >>"$RESULTS"
fi

if [[ " $PARTS " == *" blocking "* ]]; then
    # One GET after another on one thread, the client pinned to CPU 0 (nginx runs where it
    # likes): the blocking send against the C program with the same libcurl options.
    pin=(); command -v taskset >/dev/null 2>&1 && pin=(taskset -c 0)
    for rep in $(seq "$REPS"); do
        for client in a2 b; do
            case $client in
                a2) command=(env CURL_BASELINE_LIKE_HTTPTRANSPORT=1 .build/curl_baseline) ;;
                b) command=("$BIN/BenchHTTPTransport") ;;
            esac
            line=$("${pin[@]}" "${command[@]}" get "$BASE" "$COUNT" 2>"$WORK/stderr.txt" | tail -1) || true
            case "$line" in \{*\}) ;; *) echo "throughput.sh: ($client) no result: $(head -c 300 "$WORK/stderr.txt")" >&2; line=null ;; esac
            echo "{\"part\":\"blocking\",\"rep\":$rep,\"id\":\"$client\",\"result\":$line}" >>"$RESULTS"
        done
    done
fi

if [[ " $PARTS " == *" instructions "* ]]; then
    blocking=$(bash ./instructions.sh)
    async=$(CLIENT_ARGS="--api async" bash ./instructions.sh)
    figure() { sed -n "s/^$1: \([0-9]*\) instructions.*/\1/p" <<<"$2"; }
    echo "{\"part\":\"instructions\",\"blocking\":$(figure HTTPTransport "$blocking"),\"async\":$(figure HTTPTransport "$async"),\
\"swift_layer\":$(figure "HTTPTransport outside curl_easy_perform (the Swift layer)" "$blocking")}" >>"$RESULTS"
fi

python3 - "$RESULTS" "$REPS" "$COUNT" <<'PYTHON'
import json, statistics, sys

path, reps, count = sys.argv[1:]
rows = [json.loads(line) for line in open(path) if line.strip()]
names = {"m": "(m) C, libcurl multi interface (the limit)",
         "m2": "(m') C, libcurl multi interface, HTTPTransport's settings and headers", "b-async": "(b-async) async send(_:)",
         "b-requests": "(b-requests) send(requests:)", "b-blocking": "(b-blocking) send(request:) on threads",
         "e": "(e) AsyncHTTPClient"}

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

throughput = [r for r in rows if r["part"] == "throughput" and r["result"]]
if throughput:
    print(f"\n### {int(count):,} small keep-alive GETs from nginx on 127.0.0.1 (median of {reps})\n")
    # (The runs' spread too: on a shared 2-vCPU machine the C program's own CPU per request moved
    # from 20 to 36 µs between neighbouring runs, so a median ratio alone can mislead.)
    print("| client | in flight | requests/s | × (m) | CPU µs per request | × (m) | × (m') | CPU µs, runs min–max | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in dict.fromkeys(r["k"] for r in throughput):
        def figures(client):
            runs = [r["result"] for r in throughput if r["k"] == k and r["id"] == client]
            if not runs:
                return None
            cpu = [r["cpu_seconds"] / r["ops"] * 1e6 for r in runs]
            return (median(r["ops"] / r["seconds"] for r in runs), median(cpu), sum(r["errors"] for r in runs),
                    f"{min(cpu):.1f}–{max(cpu):.1f}")
        base, like = figures("m"), figures("m2")
        ratio = lambda value, b: f"{value / b:.2f}" if b else "—"
        for client in dict.fromkeys(r["id"] for r in throughput if r["k"] == k):
            rate, cpu, errors, spread = figures(client)
            print(f"| {names.get(client, client)} | {k} | {rate:,.0f} | {ratio(rate, base and base[0])} | "
                  f"{cpu:.1f} | {ratio(cpu, base and base[1])} | {ratio(cpu, like and like[1])} | {spread} | {errors} |")

streams = [r for r in rows if r["part"] == "stream"]
if streams:
    print("\n### A large body read as fast as possible (MiB/s, median)\n")
    curl = median(r["mib_s"] for r in streams if r["id"] == "curl")
    for client, label in (("curl", "curl -o /dev/null"), ("c", "C, libcurl write callback into memory"),
                          ("b-stream", "HTTPTransport stream(_:).body, bytes counted")):
        values = [r["mib_s"] for r in streams if r["id"] == client]
        if values:
            print(f"- {label}: {median(values):,.0f} (runs {', '.join(f'{v:,.0f}' for v in values)}; × curl {median(values) / curl:.2f})")
for r in rows:
    if r["part"] == "slow":
        print(f"- a 1 GiB stream read slowly: peak RSS {r['mib_above']} MiB above the baseline")
    if r["part"] == "instructions":
        print(f"\n### Instructions per small GET (callgrind)\n\n- blocking send(request:): {r['blocking']:,} "
              f"({r['swift_layer']:,} outside curl_easy_perform: the Swift layer)\n- async send(_:): {r['async']:,}")

blocking = [r for r in rows if r["part"] == "blocking" and r["result"]]
if blocking:
    rate = lambda client: median(r["result"]["ops"] / r["result"]["seconds"] for r in blocking if r["id"] == client)
    c, ours = rate("a2"), rate("b")
    if c and ours:
        print(f"\n### One GET after another, the client pinned to one CPU (median of {reps})\n\n"
              f"- (a') C, HTTPTransport's libcurl options: {c:,.0f} requests/s\n"
              f"- blocking send(request:): {ours:,.0f} requests/s, {ours / c:.2f}× (a')")
PYTHON
