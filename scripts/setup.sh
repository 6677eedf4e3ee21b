#!/usr/bin/env bash
# Installs what building and testing need, only when it is missing:
# libcurl (OpenSSL flavour) and OpenSSL headers, the decoders' headers (zlib, brotli, zstd: a
# stream's content decoding), libpsl and the public-suffix list, the test
# server's Python packages, and the real peers the tests start themselves on loopback (tinyproxy,
# microsocks, nginx; never run as system services). Sourced by scripts/demo.sh and scripts/test.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"

need_apt=()
for package in libcurl4-openssl-dev libssl-dev libpsl-dev zlib1g-dev libbrotli-dev libzstd-dev publicsuffix python3 curl tinyproxy microsocks; do
    dpkg -s "$package" >/dev/null 2>&1 || need_apt+=("$package")
done
need_apt+=($(nginx_if_missing))
if [ "${#need_apt[@]}" -gt 0 ]; then
    echo "setup: installing ${need_apt[*]}"
    apt_install "${need_apt[@]}"
fi

if ! python3 -c "import cryptography" >/dev/null 2>&1; then
    echo "setup: installing the test server's Python packages"
    python3 -m pip install --quiet cryptography
fi

if ! python3 -c "import websockets" >/dev/null 2>&1; then
    echo "setup: installing websockets (a strict RFC 6455 server, the WebSocket tests' peer)"
    python3 -m pip install --quiet websockets==17.4
fi

if ! python3 -c "import haralyzer" >/dev/null 2>&1; then
    echo "setup: installing haralyzer (a HAR reader, for scripts/check_har.py)"
    python3 -m pip install --quiet haralyzer==2.4.0
fi
