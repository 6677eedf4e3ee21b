#!/usr/bin/env bash
# The fan-out benchmark (issue 22): many GETs in flight at once from one process. Installs what is
# missing (gcc, libcurl's headers, nginx, openssl), builds the clients in release mode, runs every
# client as its own process, and prints the tables.
#
# Workload A: N concurrent GETs (NS, default "100 1000 10000") to baseline/delay_server.c on
#   127.0.0.1, which answers each request 100 ms after it arrived (small JSON body, keep-alive),
#   one fresh server per run so that its count of accepted connections is the client's.
#   Clients: (m) C on libcurl's multi interface, one thread (baseline/fanout_multi.c): the limit;
#            (m-socket) the same driven by curl_multi_socket_action and epoll instead of
#                curl_multi_poll;
#            (b-async) HTTPTransport async sends in one task group, maxConcurrentTransfers = N;
#            (b-async-default) the same with the default maxConcurrentTransfers;
#            (b-fanout) HTTPTransport send(requests:) with N requests, maxConcurrentTransfers = N;
#            (b-fanout-default) the same with the default maxConcurrentTransfers;
#            (e) AsyncHTTPClient, its default pool (8 HTTP/1 connections per host);
#            (e+) AsyncHTTPClient, its per-host connection limit raised to N;
#            (d) URLSession (FoundationNetworking) data(for:) in one task group,
#                httpMaximumConnectionsPerHost = N.
#   Each client sends one GET first (not timed), then all N at once; seconds are from the first
#   request of the N until the last response, as the client measures them.
# Workload B: H2_N (default 1,000) concurrent GETs of a small static file from nginx over TLS
#   (a CA generated here, which the clients trust), once over HTTP/2 (ALPN h2) and once over
#   HTTP/1.1: (m) with CURLPIPE_MULTIPLEX + CURLOPT_PIPEWAIT, (m8) the same with
#   CURLMOPT_MAX_HOST_CONNECTIONS 8 (without a limit libcurl 7.88 opens a connection per transfer
#   once the first is full), (b) HTTPTransport async sends (httpVersion .automatic or .http1_1,
#   multiplexing on), (b8) the same with maxConnectionsPerHost 8, (e) and (e+) AsyncHTTPClient.
#   Connections are nginx's stub_status "accepts" after the run less before it (less the
#   reading's own connection). nginx keeps its default of 128 streams per connection
#   (H2_STREAMS=N sets http2_max_concurrent_streams). Ratios are to the faster C client.
# Peak RSS (the whole process, wait4's ru_maxrss) and peak threads (/proc/PID/status sampled
# every 5 ms) come from baseline/procstat.c, which also kills a client after TIMEOUT seconds: a
# hung client is reported as timed out, and its further repetitions at that N are skipped.
# Each figure is the median of REPS runs. A burst of 10,000 connects overflows the default accept
# queue (net.core.somaxconn 4096): the script raises it to 16384 while it runs when it may (as
# root) and restores it, and counts the kernel's listen drops during each run of workload A.
#
# Environment: REPS=N (default 3), NS="100 1000 10000", QUICK=1 (REPS=1, NS="100 1000"),
#              CLIENTS="m m-socket b-async b-async-default b-fanout b-fanout-default e e+ d", H2_N=1000,
#              H2_CLIENTS="m m8 b b8 e e+", WORKLOADS="A B", TIMEOUT=120 (seconds per run),
#              DELAY_MS=100, H2_STREAMS=N, KEEP=1 (keep the work directory and raw results).
set -euo pipefail
cd "$(dirname "$0")"
export DEBIAN_FRONTEND=noninteractive
# Loopback only: never through a proxy from the environment.
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

if [ "${QUICK:-0}" = 1 ]; then
    REPS=${REPS:-1}; NS=${NS:-"100 1000"}
else
    REPS=${REPS:-3}; NS=${NS:-"100 1000 10000"}
fi
CLIENTS=${CLIENTS:-"m m-socket b-async b-async-default b-fanout b-fanout-default e e+ d"}
H2_CLIENTS=${H2_CLIENTS:-"m m8 b b8 e e+"}
H2_N=${H2_N:-1000}
WORKLOADS=${WORKLOADS:-"A B"}
TIMEOUT=${TIMEOUT:-120}
DELAY_MS=${DELAY_MS:-100}

# --- 1. What the benchmark needs -------------------------------------------------------------
source ./nginx.sh
missing=($(nginx_if_missing))
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || missing+=(libcurl4-openssl-dev)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v nstat >/dev/null 2>&1 || missing+=(iproute2)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "fanout.sh: installing ${missing[*]}"
    apt_install "${missing[@]}"
fi

# Ten thousand connections need as many descriptors in the client and in the server (each its
# own process). Without CAP_SYS_RESOURCE the hard limit is as far as it goes.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
FD_LIMIT=$(ulimit -n)
for n in $NS; do
    if [ "$FD_LIMIT" != unlimited ] && [ $((n + 256)) -gt "$FD_LIMIT" ]; then
        echo "fanout.sh: warning: open files limited to $FD_LIMIT, too few for $n connections" >&2
    fi
done
SOMAXCONN=/proc/sys/net/core/somaxconn
SOMAXCONN_WAS=$(cat "$SOMAXCONN")
if [ "$SOMAXCONN_WAS" -lt 16384 ]; then
    echo 16384 2>/dev/null >"$SOMAXCONN" || echo "fanout.sh: warning: net.core.somaxconn stays $SOMAXCONN_WAS" >&2
fi

# --- 2. Build ---------------------------------------------------------------------------------
echo "fanout.sh: building (release; AsyncHTTPClient's first build takes several minutes)"
mkdir -p .build
gcc -O2 -Wall -o .build/delay_server baseline/delay_server.c
gcc -O2 -Wall -o .build/fanout_multi baseline/fanout_multi.c -lcurl
gcc -O2 -Wall -o .build/procstat baseline/procstat.c
products=()
case " $CLIENTS $H2_CLIENTS " in *" b"*) products+=(BenchHTTPTransport) ;; esac
case " $CLIENTS $H2_CLIENTS " in *" e"*) products+=(BenchAsyncHTTPClient) ;; esac
case " $CLIENTS " in *" d "*) products+=(BenchURLSession) ;; esac
swift_build_products "${products[@]}"
BIN=$(swift build -c release --show-bin-path)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/httptransport-fanout.XXXXXX")
RESULTS="$WORK/results.jsonl"
: >"$RESULTS"
SERVER_PID=""

stop_delay_server() {
    if [ -n "$SERVER_PID" ]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}

cleanup() {
    stop_delay_server
    nginx_stop
    if [ "$(cat "$SOMAXCONN")" != "$SOMAXCONN_WAS" ]; then echo "$SOMAXCONN_WAS" >"$SOMAXCONN"; fi
    if [ "${KEEP:-0}" = 1 ]; then echo "fanout.sh: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # the EXIT trap then stops the servers

# measure ID COMMAND...: runs the client under procstat (with the time-out); prints
# "RESULT_LINE_OR_null PROCSTAT_LINE" as two lines. The client's standard error goes to
# $WORK/stderr.txt.
measure() {
    local id=$1 line
    shift
    rm -f "$WORK/proc.json"
    line=$(timeout -k 5 $((TIMEOUT + 30)) .build/procstat "$TIMEOUT" "$WORK/proc.json" "$@" 2>"$WORK/stderr.txt" | tail -1) || true
    case "$line" in \{*\}) ;; *)
        echo "fanout.sh: ($id) $*: no result: $(head -c 400 "$WORK/stderr.txt")" >&2
        line=null ;;
    esac
    if [ "$line" != null ] && [ -s "$WORK/stderr.txt" ]; then
        echo "fanout.sh: ($id): $(head -c 300 "$WORK/stderr.txt")" >&2
    fi
    echo "$line"
    if [ -s "$WORK/proc.json" ]; then cat "$WORK/proc.json"; else echo null; fi
}

# --- 3. Workload A: fan-out against the delaying server ----------------------------------------
fanout_command() {  # $1 client, $2 base URL, $3 N
    case "$1" in
        m) echo ".build/fanout_multi fanout $2 $3" ;;
        m-socket) echo ".build/fanout_multi fanout $2 $3 --driver socket" ;;
        b-async) echo "$BIN/BenchHTTPTransport fanout $2 $3 --max-transfers $3" ;;
        b-async-default) echo "$BIN/BenchHTTPTransport fanout $2 $3" ;;
        b-fanout) echo "$BIN/BenchHTTPTransport fanout $2 $3 --api requests --max-transfers $3" ;;
        b-fanout-default) echo "$BIN/BenchHTTPTransport fanout $2 $3 --api requests" ;;
        e) echo "$BIN/BenchAsyncHTTPClient fanout $2 $3" ;;
        e+) echo "$BIN/BenchAsyncHTTPClient fanout $2 $3 --pool $3" ;;
        d) echo "$BIN/BenchURLSession fanout $2 $3" ;;
        *) echo "fanout.sh: unknown client $1" >&2; exit 2 ;;
    esac
}

listen_drops() {  # connections the kernel dropped because an accept queue was full, so far
    nstat -asz TcpExtListenDrops 2>/dev/null | awk '$1 == "TcpExtListenDrops" { print $2 }' | grep . || echo 0
}

run_fanout() {  # $1 rep, $2 N, $3 client
    local port="" measured drops
    rm -f "$WORK/port" "$WORK/server.json"
    .build/delay_server "$WORK/port" "$WORK/server.json" "$DELAY_MS" &
    SERVER_PID=$!
    for _ in $(seq 100); do
        [ -s "$WORK/port" ] && break
        sleep 0.05
    done
    port=$(cat "$WORK/port" 2>/dev/null) || { echo "fanout.sh: delay_server did not start" >&2; exit 1; }
    drops=$(listen_drops)
    # shellcheck disable=SC2046
    measured=$(measure "$3" $(fanout_command "$3" "http://127.0.0.1:$port" "$2"))
    drops=$(( $(listen_drops) - drops ))
    stop_delay_server
    echo "{\"workload\":\"A\",\"rep\":$1,\"n\":$2,\"id\":\"$3\",\"listen_drops\":$drops,\"result\":$(sed -n 1p <<<"$measured"),\"proc\":$(sed -n 2p <<<"$measured"),\"server\":$(cat "$WORK/server.json" 2>/dev/null || echo null)}" >>"$RESULTS"
    grep -q '"timed_out":true' <<<"$measured"  # the status says whether it timed out
}

started=$(date +%s)
echo "fanout.sh: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), open files $FD_LIMIT, libcurl $(curl-config --version 2>/dev/null | cut -d' ' -f2)"
if [[ " $WORKLOADS " == *" A "* ]]; then
    declare -A timed_out=()
    for rep in $(seq "$REPS"); do
        for n in $NS; do
            for client in $CLIENTS; do
                if [ -n "${timed_out[$n:$client]:-}" ]; then continue; fi
                if run_fanout "$rep" "$n" "$client"; then
                    echo "fanout.sh: ($client) N=$n timed out after $TIMEOUT s; its other repetitions at N=$n are skipped" >&2
                    timed_out[$n:$client]=1
                fi
            done
        done
        echo "fanout.sh: workload A: repetition $rep done ($(( $(date +%s) - started )) s)"
    done
fi

# --- 4. Workload B: HTTP/2 against HTTP/1.1 from nginx over TLS ---------------------------------
make_certificates() {  # a CA and a certificate for 127.0.0.1 it signed, in $WORK/tls
    local tls="$WORK/tls"
    mkdir -p "$tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=fanout.sh CA" \
        -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$tls/ext.cnf"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 2 \
        -extfile "$tls/ext.cnf" -out "$tls/server.pem" 2>/dev/null
}

accepts() {  # nginx's accepted connections so far (this reading's own included)
    curl -s --cacert "$WORK/tls/ca.pem" "$H2_BASE/nginx_status" | awk 'NR == 3 { print $1 }'
}

h2_command() {  # $1 client, $2 version (2 or 1.1)
    local common="fanout $H2_BASE $H2_N --http $2 --ca $WORK/tls/ca.pem"
    case "$1" in
        m) echo ".build/fanout_multi $common" ;;
        m8) echo ".build/fanout_multi $common --max-host-connections 8" ;;
        b) echo "$BIN/BenchHTTPTransport $common --max-transfers $H2_N" ;;
        b8) echo "$BIN/BenchHTTPTransport $common --max-transfers $H2_N --max-host-connections 8" ;;
        e) echo "$BIN/BenchAsyncHTTPClient $common" ;;
        e+) echo "$BIN/BenchAsyncHTTPClient $common --pool $H2_N" ;;
        *) echo "fanout.sh: unknown client $1" >&2; exit 2 ;;
    esac
}

if [[ " $WORKLOADS " == *" B "* ]]; then
    make_certificates
    write_small_json "$WORK"
    H2_PORT=$(free_port)
    H2_BASE="https://127.0.0.1:$H2_PORT"
    streams=""
    if [ -n "${H2_STREAMS:-}" ]; then streams="http2_max_concurrent_streams $H2_STREAMS;"; fi
    nginx_config "$WORK" "$H2_PORT" "
    tcp_nodelay on;
    keepalive_timeout 120s;
    default_type application/octet-stream;
    ssl_protocols TLSv1.2 TLSv1.3;
    $streams" "
        ssl_certificate $WORK/tls/server.pem;
        ssl_certificate_key $WORK/tls/server.key;
        location = /nginx_status { stub_status; }" \
        | sed -e "s/listen 127.0.0.1:$H2_PORT;/listen 127.0.0.1:$H2_PORT ssl http2;/" \
              -e "s/worker_connections 1024;/worker_connections 16384;/" >"$WORK/nginx.conf"
    CURL_CA_BUNDLE="$WORK/tls/ca.pem" nginx_start "$WORK" "$H2_BASE/small.json"
    [ "$(curl -s --http2 --cacert "$WORK/tls/ca.pem" -o /dev/null -w '%{http_version}' "$H2_BASE/small.json")" = 2 ] \
        || { echo "fanout.sh: nginx does not answer over HTTP/2" >&2; exit 1; }
    for rep in $(seq "$REPS"); do
        for client in $H2_CLIENTS; do
            for version in 2 1.1; do
                before=$(accepts)
                # shellcheck disable=SC2046
                measured=$(measure "$client" $(h2_command "$client" "$version"))
                after=$(accepts)
                echo "{\"workload\":\"B\",\"rep\":$rep,\"n\":$H2_N,\"id\":\"$client\",\"version\":\"$version\",\"result\":$(sed -n 1p <<<"$measured"),\"proc\":$(sed -n 2p <<<"$measured"),\"connections\":$((after - before - 1))}" >>"$RESULTS"
            done
        done
        echo "fanout.sh: workload B: repetition $rep done ($(( $(date +%s) - started )) s)"
    done
    nginx_stop
fi

# --- 5. Tables --------------------------------------------------------------------------------
python3 - "$RESULTS" "$REPS" "$TIMEOUT" "$DELAY_MS" <<'PYTHON'
import json, statistics, sys

path, reps, timeout, delay = sys.argv[1:]
rows = [json.loads(line) for line in open(path) if line.strip()]
names = {"m": "(m) C, libcurl multi", "m-socket": "(m-socket) C, libcurl multi_socket_action + epoll", "m8": "(m8) C, libcurl multi, 8 connections per host", "b-async": "(b-async) HTTPTransport async, maxConcurrentTransfers = N",
         "b-async-default": "(b-async) HTTPTransport async, default maxConcurrentTransfers",
         "b-fanout": "(b-fanout) HTTPTransport send(requests:), maxConcurrentTransfers = N",
         "b-fanout-default": "(b-fanout) HTTPTransport send(requests:), default maxConcurrentTransfers", "b": "(b) HTTPTransport async",
         "b8": "(b8) HTTPTransport async, maxConnectionsPerHost = 8",
         "e": "(e) AsyncHTTPClient, default pool", "e+": "(e+) AsyncHTTPClient, per-host limit N",
         "d": "(d) URLSession data(for:)"}

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

def figures(runs):
    """Medians of the runs that gave a result; None when none did."""
    good = [r for r in runs if r["result"] and not (r["proc"] or {}).get("timed_out")]
    timed_out = any((r["proc"] or {}).get("timed_out") for r in runs)
    errors = sum(r["result"].get("errors", 0) for r in good) + len(runs) - len(good)
    if not good:
        return {"seconds": None, "timed_out": timed_out, "errors": errors}
    return {
        "seconds": median(r["result"]["seconds"] for r in good),
        "rss": median((r["proc"] or {}).get("maxrss_kib", 0) / 1024 for r in good),
        "threads": median((r["proc"] or {}).get("peak_threads") for r in good),
        "connections": median((r.get("server") or {}).get("accepted") if r["workload"] == "A" else r.get("connections") for r in good),
        "h2": median(r["result"].get("h2_responses") for r in good),
        "drops": sum(r.get("listen_drops", 0) for r in runs),
        "timed_out": timed_out,
        "errors": errors,
        "runs": len(good),
    }

def cell_seconds(f, base):
    if f["seconds"] is None:
        return f"timed out (> {timeout} s)" if f["timed_out"] else "failed"
    text = f"{f['seconds']:.3f}"
    ratio = f"{f['seconds'] / base['seconds']:.2f}×" if base and base.get("seconds") else "—"
    return f"{text} | {ratio}"

summary = {}
a_rows = [r for r in rows if r["workload"] == "A"]
for n in sorted({r["n"] for r in a_rows}):
    clients = list(dict.fromkeys(r["id"] for r in a_rows if r["n"] == n))
    print()
    print(f"### Workload A: {n:,} concurrent GETs, each answered after {delay} ms (median of {reps})")
    print()
    print("| client | seconds | × (m) | peak RSS MiB | peak threads | connections | errors, all runs | listen drops, all runs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    base = figures([r for r in a_rows if r["n"] == n and r["id"] == "m"])
    for client in clients:
        f = figures([r for r in a_rows if r["n"] == n and r["id"] == client])
        summary[(n, client)] = f
        if f["seconds"] is None:
            print(f"| {names.get(client, client)} | {cell_seconds(f, base)} | — | — | — | — | {f['errors']} | — |")
            continue
        print(f"| {names.get(client, client)} | {cell_seconds(f, base)} | {f['rss']:.1f} | {f['threads']:.0f} | "
              f"{f['connections']:.0f} | {f['errors']} | {f['drops']} |")

b_rows = [r for r in rows if r["workload"] == "B"]
if b_rows:
    n = b_rows[0]["n"]
    print()
    print(f"### Workload B: {n:,} concurrent GETs of a small file from nginx over TLS, HTTP/2 against HTTP/1.1 (median of {reps})")
    print()
    print("| client | version | seconds | × fastest C | connections | HTTP/2 responses | peak threads | peak RSS MiB | errors, all runs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for client in dict.fromkeys(r["id"] for r in b_rows):
        for version in ("2", "1.1"):
            runs = [r for r in b_rows if r["id"] == client and r["version"] == version]
            if not runs:
                continue
            f = figures(runs)
            base = min((figures([r for r in b_rows if r["id"] == c and r["version"] == version]) for c in ("m", "m8")),
                       key=lambda c: c["seconds"] if c["seconds"] is not None else float("inf"))
            label = "HTTP/2" if version == "2" else "HTTP/1.1"
            if f["seconds"] is None:
                print(f"| {names.get(client, client)} | {label} | {cell_seconds(f, base)} | — | — | — | — | — | {f['errors']} |")
                continue
            print(f"| {names.get(client, client)} | {label} | {cell_seconds(f, base)} | {f['connections']:.0f} | "
                  f"{f['h2'] or 0:.0f} | {f['threads']:.0f} | {f['rss']:.1f} | {f['errors']} |")
    print()
    print("HTTP/2 against HTTP/1.1, time over h2 ÷ time over HTTP/1.1 (below 1: h2 is faster):")
    for client in dict.fromkeys(r["id"] for r in b_rows):
        h2, h1 = (figures([r for r in b_rows if r["id"] == client and r["version"] == v])["seconds"] for v in ("2", "1.1"))
        if h2 and h1:
            print(f"- {names.get(client, client)}: {h2 / h1:.2f}")

# The issue's targets for workload A, for the library as shipped (the default
# maxConcurrentTransfers): its async sends and send(requests:).
def seconds(n, client):
    f = summary.get((n, client))
    return f["seconds"] if f else None
lines = []
for n in sorted({n for n, _ in summary}):
    m = seconds(n, "m")
    for client, what in (("b-async-default", "async sends"), ("b-fanout-default", "send(requests:)")):
        b = seconds(n, client)
        if n >= 1000 and m and b:
            lines.append((f"N={n:,}: {what} within 1.5× of (m): {b / m:.2f}×", b <= 1.5 * m))
        peers = [(c, seconds(n, c)) for c in ("e", "e+", "d") if (n, c) in summary]
        if b and peers:
            ahead = all(s is None or b < s for _, s in peers)
            text = ", ".join(f"({c}) {s:.3f} s" if s else f"({c}) none" for c, s in peers)
            lines.append((f"N={n:,}: {what} ({b:.3f} s) ahead of every Swift peer: {text}", ahead))
if lines:
    print()
    print("Targets (issue 22):")
    for text, ok in lines:
        print(f"- {'met   ' if ok else 'MISSED'} {text}")
PYTHON
echo
echo "fanout.sh: done in $(( $(date +%s) - started )) s"
