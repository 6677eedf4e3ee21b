#!/usr/bin/env bash
# Builds the fuzz targets and runs each one for SECONDS (default 20), one after the other, each
# on a fresh copy of its committed corpus (Corpus/<target>/: the committed seeds never grow).
# Fails when any target crashes, hangs past 10 s on one input, leaks, runs out of memory or
# breaks an invariant; the input that did it is kept in the output folder (printed) and shown.
#
# Usage: Fuzz/run.sh [SECONDS]
# Environment: TARGETS="FuzzSetCookie FuzzPins" (default: every target), FUZZ_OUT=DIR (where the
#              grown corpora, logs and crash inputs go; default: a new temporary folder),
#              FUZZ_FLAGS="-jobs=…" (more libFuzzer flags).
#
# The targets use `@testable import HTTPTransport`, so they build in debug (testable) mode;
# `-sanitize=fuzzer,address` links the toolchain's own libFuzzer and AddressSanitizer runtimes
# (nothing to install beyond what the library needs).
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-20}
# libFuzzer reads 0 as "no limit".
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: Fuzz/run.sh [SECONDS ≥ 1]" >&2; exit 2; }
source ../scripts/setup.sh

all_targets=$(cd Sources && ls -d Fuzz* | grep -v -x -e FuzzSupport -e FuzzDriver)
read -r -a targets <<<"${TARGETS:-$(echo $all_targets)}"

build_log=$(mktemp)
started=$(date +%s)
# The gold linker warns once per AddressSanitizer helper symbol ("Cannot export local
# symbol"): harmless, and filtered out so that real messages stay visible.
if ! swift build -c debug --scratch-path .build -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
    >"$build_log" 2>&1; then
    grep -v "Cannot export local symbol" "$build_log" >&2
    exit 1
fi
# Only this package's own warnings (a dependency's are not ours to fix).
grep -E "^$(pwd)/Sources/.*warning: " "$build_log" || true
rm -f "$build_log"
echo "fuzz: built in $(( $(date +%s) - started )) s"

out=${FUZZ_OUT:-$(mktemp -d -t httptransport-fuzz.XXXXXX)}
mkdir -p "$out"
# libFuzzer and AddressSanitizer report crashes themselves; Swift's own backtracer would
# stop the process first.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}

failed=()
printf '%-24s %8s %12s %10s  %s\n' target seconds executions corpus result
for target in "${targets[@]}"; do
    [ -d "Sources/$target" ] || { echo "fuzz: no target $target" >&2; exit 2; }
    work="$out/$target"
    rm -rf "$work"
    mkdir -p "$work/corpus"
    cp Corpus/"$target"/* "$work/corpus/"
    status=0
    # shellcheck disable=SC2086
    nice -n 10 ".build/debug/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$work/" ${FUZZ_FLAGS:-} "$work/corpus" >"$work/log" 2>&1 || status=$?
    executions=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log" | awk '{print $2}' | tail -1)
    corpus=$(ls "$work/corpus" | wc -l)
    if [ "$status" -eq 0 ]; then
        printf '%-24s %8s %12s %10s  %s\n' "$target" "$seconds" "${executions:-?}" "$corpus" ok
    else
        printf '%-24s %8s %12s %10s  %s\n' "$target" "$seconds" "${executions:-?}" "$corpus" "FAILED (exit $status)"
        failed+=("$target")
        grep -E "INVARIANT BROKEN|ERROR: |SUMMARY: |Fatal error|Test unit written" "$work/log" | head -20 >&2 || true
        for artifact in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
            [ -e "$artifact" ] || continue
            echo "  input $artifact (base64: $(base64 -w0 "$artifact" | head -c 600))" >&2
        done
    fi
done
echo "fuzz: logs, grown corpora and crash inputs in $out"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]}" >&2
    exit 1
fi
