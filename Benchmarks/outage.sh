#!/usr/bin/env bash
# The outage scenario: the WorkerDaemon example (8 threads, one shared transport, jobs without
# end) against its own API on 127.0.0.1, which answers only 503 from 5 s to 15 s after the start,
# then recovers. Run twice: with the resilience settings (a rate per origin, a circuit breaker,
# a retry budget) and with none. Prints, for each run, the requests the API received during the
# outage and the time from its end until the jobs flowed at 90% of the rate before it.
#
# Usage: Benchmarks/outage.sh [OUTAGE_SECONDS] [BREAKER_OPEN_SECONDS]
#   CONFIG=debug Benchmarks/outage.sh      # reuse a debug build (default: release)
set -euo pipefail
cd "$(dirname "$0")/.."
outage=${1:-10}
open=${2:-2}
config=${CONFIG:-release}
source scripts/setup.sh
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"

swift build -c "$config" --product WorkerDaemon >/dev/null 2>&1 || swift build -c "$config" --product WorkerDaemon
daemon="$(swift build -c "$config" --show-bin-path)/WorkerDaemon"
duration=$(python3 -c "print(5 + $outage + 10)")

run() {  # run LABEL ARGS...: one bounded run, its summary lines
    local label="$1"
    shift
    echo "== $label"
    timeout $(( ${duration%.*} + 60 )) "$daemon" --jobs 0 --duration "$duration" --threads 8 --log-level error \
        --outage-at 5 --outage-for "$outage" "$@" | grep -E '^(summary|server|resilience|outage|recovery|result):'
}

run "with the resilience settings (rate 1000/s burst 50, breaker 20 failures / ${open} s, retry budget 0.2 + 10/s)" \
    --breaker-open "$open"
run "without them (--no-resilience)" --no-resilience
