#!/usr/bin/env bash
# nginx for the benchmarks, sourced by run.sh, instructions.sh and fanout.sh: one nginx in the
# foreground on 127.0.0.1, every file of it (configuration, pid, logs, temporary files, the served
# www/) in one work directory; and the release build of the Swift clients.
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/apt-install.sh"

NGINX_PID=""

# swift_build_products PRODUCT...: builds the products in release mode; when one fails, prints
# the build's output and exits.
swift_build_products() {
    local log product
    log=$(mktemp)
    for product in "$@"; do
        if ! swift build -c release --product "$product" >>"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            exit 1
        fi
    done
    rm -f "$log"
}

# nginx_binary: prints the path of nginx.
nginx_binary() {
    command -v nginx || echo /usr/sbin/nginx
}

# free_port: prints a TCP port that is free on 127.0.0.1 now.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nginx_config WORK PORT [HTTP_LINES [SERVER_LINES]]: prints a configuration serving WORK/www on
# 127.0.0.1:PORT, every request of a run on one kept-alive connection; the optional lines go
# into the http and the server block.
nginx_config() {
    local work=$1 port=$2 http_lines=${3:-} server_lines=${4:-}
    cat <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 10000000;  # every request of a run on one connection (the default closes after 1,000)
    client_body_temp_path $work/temp/body;
    proxy_temp_path $work/temp/proxy;
    fastcgi_temp_path $work/temp/fastcgi;
    uwsgi_temp_path $work/temp/uwsgi;
    scgi_temp_path $work/temp/scgi;
    types { application/json json; application/octet-stream bin; }
$http_lines
    server {
        listen 127.0.0.1:$port;
        root $work/www;
$server_lines
    }
}
CONF
}

# write_small_json WORK: the body of the small GETs, ~100 bytes of JSON, as WORK/www/small.json.
write_small_json() {
    mkdir -p "$1/www"
    printf '{"id":42,"name":"HTTPTransport benchmark","tags":["swift","libcurl"],"ok":true,"score":0.95}' >"$1/www/small.json"
}

# nginx_start WORK URL [PREFIX...]: starts nginx with WORK/nginx.conf (under PREFIX, e.g.
# taskset -c 0), sets NGINX_PID and waits until URL answers; exits with nginx's error log if
# it never does.
nginx_start() {
    local work=$1 url=$2
    shift 2
    mkdir -p "$work/temp"
    chmod 755 "$work"  # run as root, nginx's workers read www/ as nobody
    "$@" "$(nginx_binary)" -p "$work" -e "$work/error.log" -c "$work/nginx.conf" &
    NGINX_PID=$!
    for _ in $(seq 100); do
        curl -s -o /dev/null "$url" 2>/dev/null && break
        sleep 0.05
    done
    curl -sf -o /dev/null "$url" || { cat "$work/error.log" >&2; echo "nginx did not start" >&2; exit 1; }
}

# nginx_stop: stops the nginx nginx_start started (gracefully, then by force after 5 s).
nginx_stop() {
    if [ -n "$NGINX_PID" ]; then
        kill -QUIT "$NGINX_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$NGINX_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
        NGINX_PID=""
    fi
}
