#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer with LeakSanitizer (a debug build of its own
# in .build-asan). Fails on any memory error, or on a leak at exit that scripts/lsan.supp (only
# XCTest's own allocations, each explained there) does not cover.
#
# Usage: scripts/sanitizers.sh [swift test arguments, e.g. --filter CookieStorageTests]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# The tests talk to servers on 127.0.0.1 only: never through a proxy from the environment.
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
# Swift's own crash backtracer would stop the process before AddressSanitizer reports.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$(pwd)/scripts/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
swift test --sanitize=address --scratch-path .build-asan "$@"
