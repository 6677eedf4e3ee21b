#!/usr/bin/env bash
# Streamed bodies (issue 34, streams), in one run against two servers on 127.0.0.1: nginx serving a
# file, and the Python test server (Tests/Server, /bytes/N).
#
# 1. Read rate: a STREAM_MIB (256) MiB body read as fast as possible by curl to /dev/null, by a C
#    program on libcurl with a write callback that counts the bytes (baseline/stream_callback.c),
#    and by HTTPTransport's stream(_:).body counted chunk by chunk (Sources/StreamingBodies); RUNS
#    runs of each, interleaved, each its own process, each timing its own request. Printed: MiB/s
#    min/median/max per client, the ratio of each run of ours to the curl run beside it, and the
#    CPU time (user + system) per read: curl's and C's whole process (its start included, a few
#    ms), ours over the read only (every thread of the process: the transfer's loop, the reader).
# 2. Spread: RUNS reads of the same nginx file through one transport (a paused transfer left asleep
#    shows as runs seconds longer than the rest), with the time to the first chunk.
# 3. Memory: a SLOW_MIB (1024) MiB stream read slowly (about 64 MiB/s) from the test server, the
#    peak RSS above the baseline taken just before the stream (target: at most 1 MiB), SLOW_RUNS runs.
#
# Environment: RUNS=8, STREAM_MIB=256, SLOW_MIB=1024, SLOW_RUNS=3, PARTS="rate spread slow",
#              SERVERS="nginx python", STREAMING_BODIES=path (another build of the client, e.g.
#              a copy from before a change, measured instead of this tree's), STREAM_READER=task
#              (our reader in a task of its own rather than on the main actor),
#              STREAMING_BODIES_BEFORE=path (a build from before a change, read in the same runs,
#              interleaved: before and after measured side by side).
set -euo pipefail
cd "$(dirname "$0")"
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

RUNS=${RUNS:-8}
STREAM_MIB=${STREAM_MIB:-256}
SLOW_MIB=${SLOW_MIB:-1024}
SLOW_RUNS=${SLOW_RUNS:-3}
PARTS=${PARTS:-"rate spread slow"}
SERVERS=${SERVERS:-"nginx python"}
bytes=$((STREAM_MIB << 20))

source ./nginx.sh
source ./test-server.sh
missing=($(nginx_if_missing))
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || missing+=(libcurl4-openssl-dev)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "streaming.sh: installing ${missing[*]}"
    apt_install "${missing[@]}"
fi

echo "streaming.sh: building (release)"
mkdir -p .build
gcc -O2 -Wall -o .build/stream_callback baseline/stream_callback.c -lcurl
if [ -n "${STREAMING_BODIES:-}" ]; then
    client=$STREAMING_BODIES
else
    swift_build_products StreamingBodies
    client="$(swift build -c release --show-bin-path)/StreamingBodies"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/httptransport-streaming.XXXXXX")
RESULTS="$WORK/results.txt"
: >"$RESULTS"
mkdir -p "$WORK/www"
head -c "$bytes" /dev/urandom >"$WORK/www/big.bin"
PORT=$(free_port)
NGINX_BASE="http://127.0.0.1:$PORT"
nginx_config "$WORK" "$PORT" "    default_type application/octet-stream;" >"$WORK/nginx.conf"
printf '{}' >"$WORK/www/json"
trap 'nginx_stop; kill "${TEST_SERVER_PID:-0}" 2>/dev/null || true; rm -rf "$WORK" "${TEST_SERVER_OUT:-}"' EXIT
nginx_start "$WORK" "$NGINX_BASE/json"
start_test_server 3600
trap 'nginx_stop; kill "${TEST_SERVER_PID:-0}" 2>/dev/null || true; rm -rf "$WORK" "${TEST_SERVER_OUT:-}"' EXIT
echo "streaming.sh: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), libcurl $(curl-config --version | cut -d' ' -f2)"

# with_cpu CMD...: CMD's output, then the CPU milliseconds (user + system) it used.
with_cpu() {
    python3 -c 'import resource, subprocess, sys
out = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(out, round((usage.ru_utime + usage.ru_stime) * 1000, 1))' "$@"
}

base_of() { if [ "$1" = nginx ]; then echo "$NGINX_BASE"; else echo "$TEST_SERVER_URL"; fi; }
body_of() { if [ "$1" = nginx ]; then echo "$NGINX_BASE/big.bin"; else echo "$TEST_SERVER_URL/bytes/$bytes"; fi; }

if [[ " $PARTS " == *" rate "* ]]; then
    for server in $SERVERS; do
        url=$(body_of "$server")
        for run in $(seq "$RUNS"); do
            line=$(with_cpu curl -sf -o /dev/null -w '%{time_total}' "$url")
            echo "rate $server curl $run $(cut -d' ' -f1,2 <<<"$line")" >>"$RESULTS"
            line=$(with_cpu .build/stream_callback "$url")
            echo "rate $server c $run $(cut -d' ' -f1,3 <<<"$line")" >>"$RESULTS"
            line=$(STREAM_BODY_URL="$url" "$client" "$(base_of "$server")" read "$bytes" 1)
            echo "rate $server stream $run $(cut -d' ' -f1,4 <<<"$line")" >>"$RESULTS"
            if [ -n "${STREAMING_BODIES_BEFORE:-}" ]; then
                line=$(STREAM_BODY_URL="$url" "$STREAMING_BODIES_BEFORE" "$(base_of "$server")" read "$bytes" 1)
                echo "rate $server before $run $(cut -d' ' -f1,4 <<<"$line")" >>"$RESULTS"
            fi
        done
        echo "streaming.sh: read rates from $server done"
    done
fi

if [[ " $PARTS " == *" spread "* ]]; then
    STREAM_BODY_URL="$NGINX_BASE/big.bin" "$client" "$NGINX_BASE" read "$bytes" "$RUNS" |
        while read -r seconds _ first _; do echo "spread nginx $seconds $first" >>"$RESULTS"; done
fi

if [[ " $PARTS " == *" slow "* ]]; then
    for run in $(seq "$SLOW_RUNS"); do
        line=$("$client" "$TEST_SERVER_URL" slow $((SLOW_MIB << 20)))
        echo "slow $(sed -E 's/.*peak above baseline ([0-9.]+) MiB.*/\1/' <<<"$line") $line" >>"$RESULTS"
    done
fi

python3 - "$RESULTS" "$bytes" <<'PYTHON'
import statistics, sys

path, size = sys.argv[1], int(sys.argv[2])
rows = [line.split() for line in open(path) if line.strip()]
def spread(values, fmt="{:.0f}"):
    values = sorted(values)
    return "/".join(fmt.format(v) for v in (values[0], statistics.median(values), values[-1]))

rates, cpus = {}, {}
for kind, server, client, run, seconds, cpu in (r for r in rows if r[0] == "rate"):
    rates.setdefault(server, {}).setdefault(client, {})[int(run)] = size / 1048576 / float(seconds)
    cpus.setdefault(server, {}).setdefault(client, []).append(float(cpu))
for server, clients in rates.items():
    print(f"{server}, {size >> 20} MiB read as fast as possible, {len(clients.get('curl', {}))} runs, MiB/s min/median/max; CPU ms per read min/median/max:")
    for client, name in (("curl", "curl -o /dev/null"), ("c", "C, write callback"), ("stream", "stream(_:).body"),
                         ("before", "stream, before")):
        if client in clients:
            print(f"  {name:22} {spread(clients[client].values()):>16}   CPU {spread(cpus[server][client])}")
    for ours_id, ours_name in (("stream", "stream(_:).body"), ("before", "stream, before")):
        ours = clients.get(ours_id, {})
        for client, name in (("curl", "curl"), ("c", "C")):
            paired = [ours[run] / clients[client][run] for run in ours if run in clients.get(client, {})]
            if paired:
                print(f"  {ours_name} × {name:5} (each run against the one beside it) min/median/max {spread(paired, '{:.2f}')}")

spreads = [r for r in rows if r[0] == "spread"]
if spreads:
    print(f"nginx, {len(spreads)} reads through one transport: seconds "
          + " ".join(f"{float(r[2]):.2f}" for r in spreads)
          + "; time to first chunk (ms) " + " ".join(f"{float(r[3]):.1f}" for r in spreads))
slows = [r for r in rows if r[0] == "slow"]
if slows:
    print("slow reader, peak RSS above baseline (MiB), min/median/max: " + spread([float(r[1]) for r in slows], "{:.1f}"))
    for r in slows: print("  " + " ".join(r[2:]))
PYTHON
