#!/usr/bin/env bash
# Installs what building and testing need, only when it is missing:
# libcurl (OpenSSL flavour) and OpenSSL headers, the decoders' headers (zlib, brotli, zstd: a
# stream's content decoding), libpsl and the public-suffix list, the test
# server's Python packages, and the real peers the tests start themselves on loopback (tinyproxy,
# microsocks, nginx, redis-server; never run as system services; hiredis for HTTPTransportRedis).
# Sourced by scripts/demo.sh and scripts/test.sh.
# `INSTALL_LIBCURL8=1 bash scripts/setup.sh` also installs libcurl 8 (see below).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"

need_apt=()
for package in libcurl4-openssl-dev libssl-dev libpsl-dev zlib1g-dev libbrotli-dev libzstd-dev publicsuffix python3 curl tinyproxy microsocks libhiredis-dev redis-server; do
    dpkg -s "$package" >/dev/null 2>&1 || need_apt+=("$package")
done
need_apt+=($(nginx_if_missing))
if [ "${#need_apt[@]}" -gt 0 ]; then
    echo "setup: installing ${need_apt[*]}"
    apt_install "${need_apt[@]}"
fi

# INSTALL_LIBCURL8=1 makes bookworm-backports' libcurl 8 (WebSockets) the machine's libcurl on
# Debian 12, asked for only: the tests fetch their own copy instead (scripts/libcurl8.sh).
if [ "${INSTALL_LIBCURL8:-}" = 1 ] && ! curl-config --version 2>/dev/null | grep -q "^libcurl [89]"; then
    echo "setup: installing libcurl 8 from bookworm-backports"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "deb http://deb.debian.org/debian bookworm-backports main" | $sudo tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -t bookworm-backports libcurl4-openssl-dev >/dev/null
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

if ! python3 -c "import h2" >/dev/null 2>&1; then
    echo "setup: installing h2 (an HTTP/2 server's protocol, for Tests/Server/h2_delay_server.py)"
    python3 -m pip install --quiet h2==4.1.0
fi
