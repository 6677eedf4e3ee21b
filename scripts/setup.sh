#!/usr/bin/env bash
# Installs what building and testing need, only when it is missing:
# libcurl (OpenSSL flavour) and OpenSSL headers, libpsl and the public-suffix list, the test
# server's Python packages, and the real peers the tests start themselves on loopback (tinyproxy,
# microsocks, nginx; never run as system services). Sourced by scripts/demo.sh and scripts/test.sh.
set -euo pipefail

need_apt=()
for package in libcurl4-openssl-dev libssl-dev libpsl-dev publicsuffix python3 curl tinyproxy microsocks; do
    dpkg -s "$package" >/dev/null 2>&1 || need_apt+=("$package")
done
# Any nginx build with HTTP/2 will do (nginx-light is the smallest); the flavours conflict.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need_apt+=(nginx-light)
if [ "${#need_apt[@]}" -gt 0 ]; then
    echo "setup: installing ${need_apt[*]}"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    # No system service starts on installing nginx or tinyproxy (the tests start their own).
    policy_added=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
        $SUDO chmod +x /usr/sbin/policy-rc.d
        policy_added=1
    fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
    if [ "$policy_added" = 1 ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
fi

if ! python3 -c "import cryptography" >/dev/null 2>&1; then
    echo "setup: installing the test server's Python packages"
    python3 -m pip install --quiet cryptography
fi
