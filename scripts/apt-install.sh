#!/usr/bin/env bash
# Sourced by scripts/setup.sh and the benchmark scripts: installing Debian packages without
# starting the system services some of them bring (nginx, tinyproxy): the tests and benchmarks
# start their own on loopback.

# apt_install PACKAGE...: installs the packages given (nothing when none are).
apt_install() {
    [ "$#" -gt 0 ] || return 0
    local sudo="" policy_added=0
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    # policy-rc.d exiting 101 tells Debian's maintainer scripts not to start services.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
        $sudo chmod +x /usr/sbin/policy-rc.d
        policy_added=1
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
    if [ "$policy_added" = 1 ]; then $sudo rm -f /usr/sbin/policy-rc.d; fi
}

# nginx_if_missing: prints nginx-light when no nginx is installed (any build with HTTP/2 will do;
# nginx-light is the smallest, and the flavours conflict).
nginx_if_missing() {
    command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || echo nginx-light
}
