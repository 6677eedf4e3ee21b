#!/usr/bin/env bash
# HTTP/2 fan-out against a server that takes its time (issue 34): N (default 1,000) concurrent
# GETs over TLS HTTP/2 to Tests/Server/h2_delay_server.py (Python with the h2 package), which answers each
# 100 ms after it arrived and announces STREAMS (default "100 1000") streams per connection.
# Clients: (m) C on libcurl's multi interface with CURLPIPE_MULTIPLEX + CURLOPT_PIPEWAIT
# (baseline/fanout_multi.c), (m2) the same with CURLMOPT_MAX_HOST_CONNECTIONS 2, (b) HTTPTransport
# async sends in one task group. Connections are the server's own count of accepted ones (each
# client's warm-up GET included). Median of REPS (default 3) runs; ratios to the faster C client.
#
# Environment: N=1000, REPS=3, STREAMS="100 1000", CLIENTS="m m2 b", DELAY_MS=100.
set -euo pipefail
cd "$(dirname "$0")"
export DEBIAN_FRONTEND=noninteractive
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
N=${N:-1000}
REPS=${REPS:-3}
STREAMS=${STREAMS:-"100 1000"}
CLIENTS=${CLIENTS:-"m m2 b"}
DELAY_MS=${DELAY_MS:-100}

source ./nginx.sh  # apt_install, swift_build_products
missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || missing+=(libcurl4-openssl-dev)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
/usr/bin/python3 -c 'import h2' 2>/dev/null || missing+=(python3-h2)
if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
mkdir -p .build
gcc -O2 -Wall -o .build/fanout_multi baseline/fanout_multi.c -lcurl
swift_build_products BenchHTTPTransport
BIN=$(swift build -c release --show-bin-path)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/httptransport-h2-fanout.XXXXXX")
SERVER_PID=""
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=h2-fanout CA" \
    -keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$WORK/server.key" -out "$WORK/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$WORK/ext.cnf"
openssl x509 -req -in "$WORK/server.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -days 2 \
    -extfile "$WORK/ext.cnf" -out "$WORK/server.pem" 2>/dev/null

command_for() {  # $1 client, $2 base URL
    local common="fanout $2 $N --http 2 --ca $WORK/ca.pem"
    case "$1" in
        m) echo ".build/fanout_multi $common" ;;
        m2) echo ".build/fanout_multi $common --max-host-connections 2" ;;
        b) echo "$BIN/BenchHTTPTransport $common --max-transfers $N" ;;
        *) echo "h2-fanout.sh: unknown client $1" >&2; exit 2 ;;
    esac
}

: >"$WORK/results.jsonl"
for rep in $(seq "$REPS"); do
    for streams in $STREAMS; do
        for client in $CLIENTS; do
            rm -f "$WORK/port" "$WORK/server.json"
            /usr/bin/python3 ../Tests/Server/h2_delay_server.py "$WORK/port" "$WORK/server.json" "$DELAY_MS" \
                "$WORK/server.pem" "$WORK/server.key" "$streams" &
            SERVER_PID=$!
            for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
            # shellcheck disable=SC2046
            line=$(timeout 300 $(command_for "$client" "https://127.0.0.1:$(cat "$WORK/port")") 2>/dev/null | tail -1) || true
            kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
            case "$line" in \{*\}) ;; *) line=null ;; esac
            echo "{\"client\":\"$client\",\"streams\":$streams,\"result\":$line,\"server\":$(cat "$WORK/server.json" 2>/dev/null || echo null)}" >>"$WORK/results.jsonl"
        done
    done
    echo "h2-fanout.sh: repetition $rep done"
done

python3 - "$WORK/results.jsonl" "$N" "$REPS" "$DELAY_MS" <<'PYTHON'
import json, statistics, sys
path, n, reps, delay = sys.argv[1:]
rows = [json.loads(line) for line in open(path) if line.strip()]
names = {"m": "(m) C, libcurl multi", "m2": "(m2) C, libcurl multi, 2 connections per host", "b": "(b) HTTPTransport async sends"}
print(f"\n### {int(n):,} concurrent GETs over TLS HTTP/2, each answered after {delay} ms (median of {reps})\n")
print("| client | server's streams per connection | seconds | × fastest C | connections (warm-up's included) | errors |")
print("|---|---:|---:|---:|---:|---:|")
for streams in dict.fromkeys(r["streams"] for r in rows):
    def figures(client):
        good = [r for r in rows if r["streams"] == streams and r["client"] == client and r["result"]]
        if not good:
            return None
        return (statistics.median(r["result"]["seconds"] for r in good),
                statistics.median((r["server"] or {}).get("accepted", 0) for r in good),
                sum(r["result"]["errors"] for r in good) + len([r for r in rows if r["streams"] == streams and r["client"] == client]) - len(good))
    fastest = min((f[0] for f in (figures("m"), figures("m2")) if f), default=None)
    for client in dict.fromkeys(r["client"] for r in rows):
        f = figures(client)
        if f is None:
            print(f"| {names.get(client, client)} | {streams} | failed | — | — | — |")
            continue
        ratio = f"{f[0] / fastest:.2f}×" if fastest else "—"
        print(f"| {names.get(client, client)} | {streams} | {f[0]:.3f} | {ratio} | {f[1]:.0f} | {f[2]} |")
PYTHON
