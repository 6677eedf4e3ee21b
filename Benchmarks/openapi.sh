#!/usr/bin/env bash
# A generated OpenAPI client over three transports, in one run: the library's OpenAPITransport,
# swift-openapi-async-http-client's AsyncHTTPClientTransport and swift-openapi-urlsession's
# URLSessionTransport (Sources/OpenAPIBench, one executable per transport so each process's CPU
# time and peak memory are its own). Against one nginx on 127.0.0.1: GETS sequential GETs of a
# ~100-byte JSON file decoded by the generated types (keep-alive), and one BIG_MIB download read
# as it streams. Each figure is the median of REPS runs; the ratios are against OpenAPITransport
# measured in the same run (above 1: the other transport took more).
#
# Wall: the timed part (after a warm-up for the GETs); CPU: user + system time of the whole
# process; peak RSS: VmHWM of the process.
#
# Environment: GETS (default 2000), BIG_MIB (default 256), REPS (default 3), CLIENTS (default
# "OpenAPIOverHTTPTransport OpenAPIOverAsyncHTTPClient OpenAPIOverURLSession"), KEEP=1 (keep the
# work directory).
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/setup.sh
source ./nginx.sh
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

GETS=${GETS:-2000}
BIG_MIB=${BIG_MIB:-256}
REPS=${REPS:-3}
BIG_BYTES=$((BIG_MIB * 1024 * 1024))
read -r -a CLIENTS <<<"${CLIENTS:-OpenAPIOverHTTPTransport OpenAPIOverAsyncHTTPClient OpenAPIOverURLSession}"

echo "openapi.sh: building (release)" >&2
swift_build_products "${CLIENTS[@]}"

WORK=$(mktemp -d /tmp/openapi-bench.XXXXXX)
cleanup() {
    nginx_stop
    if [ "${KEEP:-0}" = 1 ]; then echo "openapi.sh: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
write_small_json "$WORK"
head -c "$BIG_BYTES" /dev/zero >"$WORK/www/big.bin"
PORT=$(free_port)
nginx_config "$WORK" "$PORT" >"$WORK/nginx.conf"
BASE_URL="http://127.0.0.1:$PORT"
nginx_start "$WORK" "$BASE_URL/small.json"

RESULTS="$WORK/results.jsonl"
for rep in $(seq "$REPS"); do
    for client in "${CLIENTS[@]}"; do
        echo "openapi.sh: run $rep/$REPS $client" >&2
        ".build/release/$client" get "$BASE_URL" "$GETS" >>"$RESULTS"
        ".build/release/$client" download "$BASE_URL" "$BIG_BYTES" >>"$RESULTS"
    done
done

python3 - "$RESULTS" "$GETS" "$BIG_MIB" "$REPS" <<'PYTHON'
import json, statistics, sys
path, gets, big_mib, reps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
runs = {}
for line in open(path):
    line = line.strip()
    if line.startswith("{"):
        row = json.loads(line)
        runs.setdefault((row["workload"], row["client"]), []).append(row)
clients = ["OpenAPITransport", "AsyncHTTPClientTransport", "URLSessionTransport"]
titles = {"get": f"{gets} sequential GETs of ~100 B JSON", "download": f"one {big_mib} MiB download, streamed"}

def median(rows, key):
    return statistics.median(row[key] for row in rows)

print(f"\nmedian of {reps} runs; (×N) = that figure divided by OpenAPITransport's")
for workload in ("get", "download"):
    print(f"\n{titles[workload]}")
    print(f"| {'transport':<26} | {'wall s':>15} | {'CPU s':>15} | {'peak RSS MiB':>15} | errors |")
    print(f"|{'-' * 28}|{'-' * 17}|{'-' * 17}|{'-' * 17}|--------|")
    ours = runs.get((workload, clients[0]))
    for client in clients:
        rows = runs.get((workload, client))
        if not rows:
            print(f"| {client:<26} | {'(no result)':>15} |")
            continue
        cells = []
        for key, scale in (("seconds", 1), ("cpu_seconds", 1), ("vmhwm_kib", 1 / 1024)):
            value = median(rows, key) * scale
            ratio = "" if client == clients[0] or not ours else f" (×{value / (median(ours, key) * scale):.2f})"
            cells.append(f"{value:.2f}{ratio}" if key != "vmhwm_kib" else f"{value:.0f}{ratio}")
        errors = sum(row["errors"] for row in rows)
        print(f"| {client:<26} | {cells[0]:>15} | {cells[1]:>15} | {cells[2]:>15} | {errors:>6} |")
PYTHON
