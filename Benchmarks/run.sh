#!/usr/bin/env bash
# The HTTP client benchmark, in one go: installs what is missing (nginx, gcc, libcurl's headers),
# starts its own nginx on 127.0.0.1, builds the clients in release mode, runs every workload with
# every client (each run is its own process), stops nginx, and prints the tables.
#
# Clients: (a) C over libcurl with one reused easy handle per thread, the baseline;
#          (a') the same C program with HTTPTransport's libcurl settings (its User-Agent and
#          Accept-Encoding headers, time-outs, DNS share, header callback): the same request on
#          the wire, so (b) − (a') is the cost of the Swift layer alone;
#          (b) HTTPTransport, default interceptors; (c) HTTPTransport + 10 no-op request and
#          10 no-op response interceptors; (d) URLSession (FoundationNetworking), synchronous;
#          (e) AsyncHTTPClient, awaited sequentially; (f) HTTPTransport with an in-memory HTTPCache
#          and (g) with a directory HTTPCache, both GETting a resource served with
#          `Cache-Control: max-age=3600`, so every timed GET is a cache hit (sequential GETs only).
# Workloads: sequential small GETs; 4 threads of GETs (one shared transport/session/client;
#            the C baseline has an easy handle per thread); sequential POSTs of a 1 KiB JSON
#            body; a 256 MiB download into memory, and (a)/(b) also into a file.
# Each figure is the median of REPS runs, first with nginx and the client both pinned to CPU 0
# (taskset -c 0), then unpinned.
#
# Environment: QUICK=1 (a tenth of the requests, a 64 MiB download), REPS=N (default 3),
#              MODES="pinned unpinned", CLIENTS="a a2 b c d e f g", WORKLOADS="get threads post download download-file",
#              KEEP=1 (keep the work directory with the raw results and nginx's logs).
set -euo pipefail
cd "$(dirname "$0")"
BENCH_DIR=$(pwd)
export DEBIAN_FRONTEND=noninteractive
# Loopback only: never through a proxy from the environment.
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

REPS=${REPS:-3}
MODES=${MODES:-"pinned unpinned"}
CLIENTS=${CLIENTS:-"a a2 b c d e f g"}
WORKLOADS=${WORKLOADS:-"get threads post download download-file"}
if [ "${QUICK:-0}" = 1 ]; then
    GETS=2000; THREADS=4; PER_THREAD=500; POSTS=500; BIG_MIB=64
else
    GETS=20000; THREADS=4; PER_THREAD=5000; POSTS=5000; BIG_MIB=256
fi
BIG_BYTES=$((BIG_MIB * 1024 * 1024))

# --- 1. What the benchmark needs -------------------------------------------------------------
source ./nginx.sh
missing=($(nginx_if_missing))
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || missing+=(libcurl4-openssl-dev)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v taskset >/dev/null 2>&1 || missing+=(util-linux)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "run.sh: installing ${missing[*]}"
    apt_install "${missing[@]}"
fi

# --- 2. Build ---------------------------------------------------------------------------------
echo "run.sh: building (release; AsyncHTTPClient's first build takes several minutes)"
mkdir -p .build
gcc -O2 -Wall -o .build/curl_baseline baseline/curl_baseline.c -lcurl -lpthread
products=()
case " $CLIENTS " in *" b "*|*" c "*|*" f "*|*" g "*) products+=(BenchHTTPTransport) ;; esac
case " $CLIENTS " in *" d "*) products+=(BenchURLSession) ;; esac
case " $CLIENTS " in *" e "*) products+=(BenchAsyncHTTPClient) ;; esac
swift_build_products "${products[@]}"
BIN=$(swift build -c release --show-bin-path)

# --- 3. The server's files --------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/httptransport-bench.XXXXXX")
mkdir -p "$WORK/www" "$WORK/out"
# The large file is generated once and kept between runs (random bytes: nothing compresses).
DATA_DIR=${TMPDIR:-/tmp}/httptransport-bench-data
mkdir -p "$DATA_DIR"
chmod 755 "$DATA_DIR"
if [ "$(stat -c %s "$DATA_DIR/big-$BIG_MIB.bin" 2>/dev/null || echo 0)" != "$BIG_BYTES" ]; then
    echo "run.sh: generating a $BIG_MIB MiB file"
    head -c "$BIG_BYTES" /dev/urandom >"$DATA_DIR/big-$BIG_MIB.bin"
fi
chmod 644 "$DATA_DIR/big-$BIG_MIB.bin"
ln -s "$DATA_DIR/big-$BIG_MIB.bin" "$WORK/www/big.bin"
write_small_json "$WORK"
cp "$WORK/www/small.json" "$WORK/www/cached.json"  # (f) and (g): the same body, cacheable for an hour
PORT=$(free_port)
nginx_config "$WORK" "$PORT" "
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 120s;
    default_type application/octet-stream;" "
        # Reads (and discards) a body of up to 16 KiB in memory, answers a small JSON body; the
        # connection stays open (checked below).
        location = /post {
            client_body_buffer_size 16k;
            default_type application/json;
            return 200 '{\"ok\":true}';
        }
        location = /cached.json {
            expires 1h;  # Cache-Control: max-age=3600 and Expires
        }" >"$WORK/nginx.conf"
BASE="http://127.0.0.1:$PORT"
RESULTS="$WORK/results.jsonl"
: >"$RESULTS"

cleanup() {
    nginx_stop
    if [ "${KEEP:-0}" = 1 ]; then echo "run.sh: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # the EXIT trap then stops nginx

start_nginx() {  # $1: pinned|unpinned
    local prefix=()
    if [ "$1" = pinned ]; then prefix=(taskset -c 0); fi
    nginx_start "$WORK" "$BASE/small.json" "${prefix[@]}"
}

check_server() {
    # The POST location must read the 1 KiB body and keep the connection open: two POSTs on one
    # connection (curl says it reused it), each answered with the small body.
    local body verbose
    body=$(python3 -c 'print("{\"data\":\"" + "x" * 1013 + "\"}", end="")')
    verbose=$(curl -sv -H 'Content-Type: application/json' -H 'Expect:' --data-binary "$body" "$BASE/post" \
        --next -H 'Content-Type: application/json' -H 'Expect:' --data-binary "$body" "$BASE/post" 2>&1)
    if ! grep -q 'Re-using existing connection' <<<"$verbose" || [ "$(grep -o '{"ok":true}' <<<"$verbose" | wc -l)" != 2 ]; then
        echo "$verbose" >&2
        echo "run.sh: nginx does not answer two POSTs on one kept-alive connection" >&2
        exit 1
    fi
    [ "$(curl -s "$BASE/big.bin" | wc -c)" = "$BIG_BYTES" ] || { echo "run.sh: big.bin is not served whole" >&2; exit 1; }
}

client_command() {  # $1: a|a2|b|c|d|e|f|g
    case "$1" in
        a) echo ".build/curl_baseline" ;;
        a2) echo "env CURL_BASELINE_LIKE_HTTPTRANSPORT=1 .build/curl_baseline" ;;
        b) echo "$BIN/BenchHTTPTransport" ;;
        c) echo "$BIN/BenchHTTPTransport --interceptors 10" ;;
        d) echo "$BIN/BenchURLSession" ;;
        e) echo "$BIN/BenchAsyncHTTPClient" ;;
        f) echo "$BIN/BenchHTTPTransport --cache memory" ;;
        g) echo "$BIN/BenchHTTPTransport --cache directory" ;;
    esac
}

workload_arguments() {  # $1: workload
    case "$1" in
        get) echo "get $BASE $GETS" ;;
        threads) echo "threads $BASE $THREADS $PER_THREAD" ;;
        post) echo "post $BASE $POSTS" ;;
        download) echo "download $BASE $BIG_BYTES" ;;
        download-file) echo "download-file $BASE $BIG_BYTES $WORK/out/download.bin" ;;
    esac
}

run_one() {  # $1 mode, $2 rep, $3 client, $4 workload
    local prefix=() line
    if [ "$1" = pinned ]; then prefix=(taskset -c 0); fi
    # shellcheck disable=SC2046
    if line=$(timeout 600 "${prefix[@]}" $(client_command "$3") $(workload_arguments "$4") 2>"$WORK/stderr.txt" | tail -1) \
        && [ -n "$line" ]; then
        echo "{\"mode\":\"$1\",\"rep\":$2,\"id\":\"$3\",${line#\{}" >>"$RESULTS"
    else
        echo "run.sh: ($3) $4 failed: $(head -c 500 "$WORK/stderr.txt")" >&2
        echo "{\"mode\":\"$1\",\"rep\":$2,\"id\":\"$3\",\"workload\":\"$4\",\"failed\":true}" >>"$RESULTS"
    fi
    rm -f "$WORK/out/download.bin" "$WORK/out/download.bin.part"
}

# --- 4. Run -----------------------------------------------------------------------------------
started=$(date +%s)
for mode in $MODES; do
    start_nginx "$mode"
    check_server
    echo "run.sh: $mode: $REPS repetitions of [$WORKLOADS] × clients [$CLIENTS] against nginx $("$(nginx_binary)" -v 2>&1 | sed 's/.*\///') on $BASE"
    for rep in $(seq "$REPS"); do
        for workload in $WORKLOADS; do
            for client in $CLIENTS; do
                case "$workload:$client" in download-file:[cde]|download*:a2|threads:[fg]|post:[fg]|download*:[fg]) continue ;; esac
                run_one "$mode" "$rep" "$client" "$workload"
            done
        done
        echo "run.sh: $mode: repetition $rep done ($(( $(date +%s) - started )) s)"
    done
    nginx_stop
done

# --- 5. Tables --------------------------------------------------------------------------------
python3 - "$RESULTS" "$GETS" "$THREADS" "$PER_THREAD" "$POSTS" "$BIG_MIB" "$REPS" <<'PYTHON'
import json, statistics, sys

path, gets, threads, per_thread, posts, big_mib, reps = sys.argv[1:]
rows = [json.loads(line) for line in open(path) if line.strip()]
names = {"a": "(a) C libcurl", "a2": "(a') C, HTTPTransport's options", "b": "(b) HTTPTransport", "c": "(c) HTTPTransport +10/+10 no-op",
         "d": "(d) URLSession", "e": "(e) AsyncHTTPClient", "f": "(f) cache hit, memory", "g": "(g) cache hit, directory"}
workloads = [
    ("get", f"{int(gets):,} sequential GETs", "req/s"),
    ("threads", f"{threads} threads × {int(per_thread):,} GETs", "req/s"),
    ("post", f"{int(posts):,} sequential POSTs (1 KiB JSON)", "req/s"),
    ("download", f"{big_mib} MiB download to memory", "MB/s"),
    ("download-file", f"{big_mib} MiB download to a file", "MB/s"),
]
clients = ["a", "a2", "b", "c", "d", "e"] + [c for c in ("f", "g") if any(r["id"] == c for r in rows)]

def figures(mode, workload, client):
    done = [r for r in rows if r["mode"] == mode and r["workload"] == workload and r["id"] == client]
    good = [r for r in done if not r.get("failed")]
    if not good:
        return None
    rate = [(r["ops"] if workload in ("get", "threads", "post") else r["bytes"] / 1e6) / r["seconds"] for r in good]
    return {
        "rate": statistics.median(rate),
        "hwm": statistics.median(r["vmhwm_kib"] for r in good) / 1024,
        "growth": statistics.median(r["vmhwm_kib"] - r.get("rss_start_kib", 0) for r in good) / 1024,
        "errors": sum(r.get("errors", 0) for r in good) + (len(done) - len(good)),
        "runs": len(good),
        "connections": max(r.get("connections", 0) for r in good),
    }

results = {}
for mode in ("pinned", "unpinned"):
    if not any(r["mode"] == mode for r in rows):
        continue
    print()
    title = "pinned: nginx and client on CPU 0 (taskset -c 0)" if mode == "pinned" else "unpinned: 2 CPUs shared by nginx and client"
    print(f"### {title}; median of {reps}")
    print()
    print("| workload | " + " | ".join(names[c] for c in clients) + " |")
    print("|---|" + "---:|" * len(clients))
    for workload, label, unit in workloads:
        cells = []
        base = figures(mode, workload, "a")
        for client in clients:
            f = figures(mode, workload, client)
            results[(mode, workload, client)] = f
            if f is None:
                cells.append("—")
                continue
            cell = f"{f['rate']:,.0f}"
            if base and client != "a":
                cell += f" ({f['rate'] / base['rate']:.2f}×)"
            if f["errors"]:
                cell += f" ⚠ {f['errors']} errors"
            cells.append(cell)
        print(f"| {label}, {unit} | " + " | ".join(cells) + " |")
    print()
    print(f"Peak memory of the client process during the {big_mib} MiB download, MiB: VmHWM (whole process: libraries "
          "and runtime included) / growth over the resident size when the download started:")
    print()
    print("| download | " + " | ".join(names[c] for c in clients) + " |")
    print("|---|" + "---:|" * len(clients))
    for workload, label in (("download", "to memory"), ("download-file", "to a file")):
        cells = []
        for client in clients:
            f = results.get((mode, workload, client))
            cells.append("—" if f is None else f"{f['hwm']:.1f} / +{f['growth']:.1f}")
        print(f"| {label} | " + " | ".join(cells) + " |")

# Targets (pinned figures when there are any).
mode = "pinned" if any(r["mode"] == "pinned" for r in rows) else "unpinned"
def rate(workload, client):
    f = results.get((mode, workload, client))
    return f["rate"] if f else None
def check(label, ok):
    print(f"- {'met   ' if ok else 'MISSED'} {label}")
print()
print(f"Targets ({mode}):")
pairs = [("get", 0.95, "sequential GETs ≥ 0.95× (a)"), ("threads", 0.90, "4 threads ≥ 0.90× (a)"),
         ("download-file", 0.90, "download to a file ≥ 0.90× (a) MB/s")]
for workload, factor, label in pairs:
    a, b = rate(workload, "a"), rate(workload, "b")
    if a and b:
        check(f"{label}: {b / a:.2f}×", b >= factor * a)
ok = True
for workload, _, _ in workloads[:3]:
    b, c = rate(workload, "b"), rate(workload, "c")
    if b and c:
        check(f"(c) within 5% of (b), {workload}: {c / b:.3f}×", c >= 0.95 * b)
f = results.get((mode, "download-file", "b"))
if f:
    check(f"download to a file: peak memory (VmHWM) {f['hwm']:.1f} MiB ≤ 24 MiB", f["hwm"] <= 24)
    check(f"download to a file: growth during the download {f['growth']:.1f} MiB ≤ 24 MiB", f["growth"] <= 24)
for workload, _, _ in workloads[:4]:
    b = rate(workload, "b")
    others = [(c, rate(workload, c)) for c in ("d", "e") if rate(workload, c)]
    if b and others:
        check(f"(b) faster than (d) and (e), {workload}: " + ", ".join(f"{b / r:.2f}× ({c})" for c, r in others),
              all(b > r for _, r in others))
hits = [(c, rate("get", c)) for c in ("f", "g") if rate("get", c)]
if hits and rate("get", "b"):
    print()
    print(f"A cache hit against a keep-alive GET to nginx ({mode}, (b) = {rate('get', 'b'):,.0f} req/s):")
    for c, r in hits:
        print(f"- {names[c]}: {r:,.0f} hits/s, {r / rate('get', 'b'):.1f}× (b); {1e6 / r:.1f} µs per hit against {1e6 / rate('get', 'b'):.1f} µs per request")
lines = [(w, rate(w, "a2"), rate(w, "b")) for w in ("get", "threads", "post")]
if any(a2 and b for _, a2, b in lines):
    print()
    print(f"The Swift layer alone ({mode}): (b) against (a'), the same requests sent through libcurl from C:")
    for workload, a2, b in lines:
        if a2 and b:
            print(f"- {workload}: {b / a2:.2f}×")
PYTHON
echo
echo "run.sh: done in $(( $(date +%s) - started )) s of measurement"
