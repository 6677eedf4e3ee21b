#!/usr/bin/env bash
# Runs the demo: a local server on 127.0.0.1 started by the demo itself, and the cook book's
# requests sent to it through HTTPTransport. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift run Demo "$@"
