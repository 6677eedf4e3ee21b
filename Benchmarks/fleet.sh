#!/usr/bin/env bash
# Fleets (DocC "Running a fleet"): what sharing the per-origin state through Redis costs and what
# it buys, against redis-server and the local test server on 127.0.0.1, ratios in one run:
#   1. a send's wall time and CPU with HostLimits in Redis (RedisSharedState) against the same
#      limits in the session (target: one round trip, under 100 µs added on loopback);
#   2. the combined rate at the server of PROCESSES processes, each with
#      HostLimits(requestsPerSecond: RATE, burst: 1), for SECONDS: shared through Redis (target:
#      within 10% of RATE) against not shared (PROCESSES × RATE).
#
# Usage: Benchmarks/fleet.sh [COUNT=5000] [PROCESSES=4] [RATE=20] [SECONDS=10]
set -euo pipefail
cd "$(dirname "$0")"
count=${1:-5000}
processes=${2:-4}
rate=${3:-20}
duration=${4:-10}
source ../scripts/setup.sh
source ./test-server.sh
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

work=$(mktemp -d -t httptransport-fleet.XXXXXX)
swift build -c release --product FleetBench >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
start_test_server $(( duration * 3 + 600 ))
redis_port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" --daemonize no \
    >"$work/redis.log" 2>&1 &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null || true; kill "$TEST_SERVER_PID" 2>/dev/null || true; rm -rf "$work" "$TEST_SERVER_OUT"' EXIT
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis="redis://127.0.0.1:$redis_port"
bench=.build/release/FleetBench

echo "fleet: redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on 127.0.0.1:$redis_port; $(nproc) cores"
read -r _ plain_wall shared_wall plain_cpu shared_cpu round_trip < <("$bench" latency "$TEST_SERVER_URL/get" "$redis" "$count" \
    | sed 's/[a-z_]*=//g')

# rate KEY REDIS: runs the processes at once against /resilience/outage?key=KEY and prints the
# combined rate the server saw (requests after the first over the time from the first to the last).
rate_at_server() {
    local pids=()
    for _ in $(seq "$processes"); do
        "$bench" worker "$TEST_SERVER_URL/resilience/outage?key=$1&fail=0" "$2" "$rate" "$duration" >>"$work/workers-$1.log" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    curl -s "$TEST_SERVER_URL/resilience/log?key=$1" | python3 -c "
import json, sys
times = sorted(json.load(sys.stdin)['times'])
print('%.2f %d' % ((len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else 0, len(times)))"
}
read -r shared_rate shared_count < <(rate_at_server "shared-$$" "$redis")
read -r alone_rate alone_count < <(rate_at_server "alone-$$" none)

# Outages: Redis frozen (SIGSTOP: it accepts connections and answers nothing), then stopped, then
# restarted on its port (empty): when does the first store answer after the restart?
kill -STOP "$redis_pid"
read -r _ frozen_mean frozen_max < <("$bench" outage "$TEST_SERVER_URL/get" "$redis" 200 | sed 's/[a-z_]*=//g')
kill -CONT "$redis_pid"
kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true
read -r _ down_mean down_max < <("$bench" outage "$TEST_SERVER_URL/get" "$redis" 200 | sed 's/[a-z_]*=//g')
"$bench" recovery "$redis" 10 >"$work/recovery.out" &
recovery_pid=$!
for _ in $(seq 200); do grep -q asking "$work/recovery.out" && break; sleep 0.05; done
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" --daemonize no \
    >"$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 500); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.01; done
restarted_at=$(date +%s.%N)
wait "$recovery_pid"
answered_at=$(sed -n 's/.*answered_at=//p' "$work/recovery.out")

python3 - "$plain_wall" "$shared_wall" "$plain_cpu" "$shared_cpu" "$round_trip" "$shared_rate" "$shared_count" \
    "$alone_rate" "$alone_count" "$processes" "$rate" "$duration" "$count" \
    "$frozen_mean" "$frozen_max" "$down_mean" "$down_max" "$restarted_at" "$answered_at" <<'PY'
import sys
pw, sw, pc, sc, rt, srate, scount, arate, acount = map(float, sys.argv[1:10])
processes, rate, duration, count = int(sys.argv[10]), float(sys.argv[11]), sys.argv[12], sys.argv[13]
fmean, fmax, dmean, dmax = map(float, sys.argv[14:18])
restarted, answered = sys.argv[18], sys.argv[19]
print(f"\n1. one blocking GET on loopback ({count} sends, alternating rounds), microseconds per send")
print(f"| {'':28} | {'wall':>8} | {'CPU':>8} |")
print(f"|{'-'*30}|{'-'*10}|{'-'*10}|")
print(f"| {'HostLimits in the session':28} | {pw:8.1f} | {pc:8.1f} |")
print(f"| {'HostLimits in Redis':28} | {sw:8.1f} | {sc:8.1f} |")
print(f"| {'added':28} | {sw - pw:8.1f} | {sc - pc:8.1f} |")
print(f"| {'ratio':28} | {sw / pw:8.2f} | {sc / pc:8.2f} |")
print(f"one store round trip alone (reserveTurn): {rt:.1f} us; target: added under 100 us -> {'met' if sw - pw < 100 else 'MISSED'}")
print(f"\n2. {processes} processes, each HostLimits(requestsPerSecond: {rate:g}, burst: 1), {duration} s, rate seen at the server")
print(f"| {'':28} | {'requests':>8} | {'rate/s':>8} | {'vs limit':>8} |")
print(f"|{'-'*30}|{'-'*10}|{'-'*10}|{'-'*10}|")
print(f"| {'shared through Redis':28} | {scount:8.0f} | {srate:8.2f} | {srate / rate:8.2f} |")
print(f"| {'each process alone':28} | {acount:8.0f} | {arate:8.2f} | {arate / rate:8.2f} |")
print(f"target: shared within 10% of {rate:g}/s -> {'met' if abs(srate - rate) <= rate * 0.1 else 'MISSED'}")
print(f"\n3. Redis out (RedisSharedState timeout 0.05 s): 200 GETs each, microseconds per send")
print(f"| {'':28} | {'mean':>8} | {'longest':>8} |")
print(f"|{'-'*30}|{'-'*10}|{'-'*10}|")
print(f"| {'Redis frozen (SIGSTOP)':28} | {fmean:8.1f} | {fmax:8.1f} |")
print(f"| {'Redis stopped':28} | {dmean:8.1f} | {dmax:8.1f} |")
recovery = f"{float(answered) - float(restarted):.2f} s" if answered not in ("", "never") else "never"
print(f"after a restart, the first store answered {recovery} after Redis did (the store retries at most once a second)")
PY
