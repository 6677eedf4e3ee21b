#!/usr/bin/env bash
# Builds and runs every example program (Demo, DependentRequests, Middleware, OpenAPIClient, WorkerDaemon) with
# bounded arguments, and checks each one: its exit status and the lines it must print. Every
# example starts its own server on 127.0.0.1; nothing leaves the machine.
#
#   bash scripts/examples.sh                 # build in .build, run all
#   SCRATCH_PATH=.build-docs bash scripts/examples.sh
#
# Ends with "examples: N passed, N failed" and a non-zero status when any check failed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"

scratch="${SCRATCH_PATH:-.build}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

echo "examples: building (scratch path $scratch)"
build_log="$logs/build.log"
if ! swift build --scratch-path "$scratch" >"$build_log" 2>&1; then
    cat "$build_log"
    echo "examples: the build failed" >&2
    exit 1
fi
if grep -E "^$(pwd)/Examples/.*warning:" "$build_log"; then
    echo "examples: the examples build with warnings (above); fix them." >&2
    exit 1
fi
bin="$(swift build --scratch-path "$scratch" --show-bin-path)"

passed=0
failed=0
current=""
current_log=""
failed_before=0

# check DESCRIPTION CONDITION...: counts one check of the current example.
check() {
    local description="$1"
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "  ok    $current: $description"
    else
        failed=$((failed + 1))
        echo "  FAIL  $current: $description"
    fi
}

# has REGEX: the current example's output has a line matching REGEX (extended regex).
has() { grep -Eq -- "$1" "$current_log"; }
# has_all REGEX...: a matching line for each REGEX.
has_all() {
    local pattern
    for pattern in "$@"; do has "$pattern" || return 1; done
}
lacks() { ! grep -Eq -- "$1" "$current_log"; }

# start NAME: names the example whose output the following checks read.
start() {
    current="$1"
    current_log="$logs/$1.log"
    failed_before=$failed
    echo "examples: $1"
}

# any_failed: whether a check of the current example failed.
any_failed() { [ "$failed" -gt "$failed_before" ]; }

# run NAME [ARGS...]: runs an example in the foreground (at most 180 s); sets $status.
run() {
    local name="$1"
    shift
    status=0
    timeout 180 "$bin/$name" "$@" >"$current_log" 2>&1 || status=$?
}

# show_on_failure: prints the example's output when one of its checks failed.
show_on_failure() {
    if any_failed; then
        echo "  --- output of $current ---"
        sed 's/^/  | /' "$current_log" | tail -n 80
        echo "  ---"
    fi
}

# --- Demo: the cook book ------------------------------------------------------------------
start Demo
run Demo
check "exits 0" [ "$status" -eq 0 ]
check "basic GET printed the JSON" has 'Sample Slide Show'
check "dependent requests found the user" has 'users: .*Appleseed'
check "body and URL parameters arrived" has 'salary'
check "the 404 was clarified" has 'status 404, code not_found'
check "a refused connection is .cannotConnect" has 'refused connection: cannotConnect'
show_on_failure

# --- DependentRequests: log in, CRUD, log out ---------------------------------------------
start DependentRequests
run DependentRequests
check "exits 0" [ "$status" -eq 0 ]
check "all its checks passed" has '^DependentRequests: all [0-9]+ checks passed$'
check "logged in with a session cookie" has 'session cookie SESS[0-9a-f]+ stored'
check "created, updated and deleted a node" has_all '201 created node' 'title is now "Hello again"' '204 No Content'
check "no unexpected result" lacks 'UNEXPECTED'
show_on_failure

# --- DependentRequests: the same flow recorded into a HAR file, then replayed from it -----
start DependentRequests-record
archive="$logs/flow.har"
run DependentRequests --record "$archive"
recorded_log="$current_log"
check "exits 0" [ "$status" -eq 0 ]
check "all its checks passed" has '^DependentRequests: all [0-9]+ checks passed$'
check "every exchange was recorded" has '^archive: recorded 12 exchanges in '
check "the archive is private (mode 600)" [ "$(stat -c %a "$archive" 2>/dev/null)" = 600 ]
# The password, the Basic credentials (base64 of "admin:"), a session cookie's value.
check "no secret in the archive" bash -c "! grep -Eq 'correct horse|YWRtaW46|SESS[0-9a-f]+=[^<]' '$archive'"
check "a HAR reader from PyPI opens it (haralyzer)" bash -c "python3 scripts/check_har.py '$archive' >>'$current_log' 2>&1"
check "haralyzer read every entry" has '^check_har: .*: HAR 1\.2 by HTTPTransport, 12 entries'
show_on_failure

start DependentRequests-replay
recorded_port=$(grep -oE '^Drupal-like site: http://127\.0\.0\.1:[0-9]+' "$recorded_log" | grep -oE '[0-9]+$' || echo 0)
run DependentRequests --replay "$archive"
check "exits 0" [ "$status" -eq 0 ]
check "all its checks passed" has '^DependentRequests: all [0-9]+ checks passed$'
check "replayed from the file" has '^archive: replayed .*, no server started$'
check "the recorded site is gone (port $recorded_port closed)" bash -c "! (exec 3<>/dev/tcp/127.0.0.1/$recorded_port) 2>/dev/null"
check "the same output as the recorded run" diff <(grep -v '^archive: \|^check_har: ' "$recorded_log") <(grep -v '^archive: ' "$current_log")
show_on_failure

# --- Middleware: custom interceptors and StubEngine ---------------------------------------
start Middleware
run Middleware
check "exits 0" [ "$status" -eq 0 ]
check "all its checks passed" has '^Middleware: all [0-9]+ checks passed$'
check "error bodies became BankError values" has 'insufficientFunds: Balance'
check "the stub answered without a server" has 'stubbed overdraft: insufficientFunds: stubbed'
check "a network step saw the wire and answered one request itself" has_all '^   GET /accounts/acc-2 → 401$' '^   GET /status → answered by the step$'
check "no unexpected result" lacks 'UNEXPECTED'
show_on_failure

# --- OpenAPIClient: a generated client over OpenAPITransport ------------------------------
start OpenAPIClient
run OpenAPIClient
check "exits 0" [ "$status" -eq 0 ]
check "all its checks passed" has '^OpenAPIClient: all [0-9]+ checks passed$'
check "a 422 and a 404 reached the client as documented cases" has_all '^   422: ' '^   404: not_found'
check "the export streamed every line" has '^   1000 lines$'
check "no unexpected result" lacks 'UNEXPECTED'
show_on_failure

# --- WorkerDaemon: a bounded run ----------------------------------------------------------
# Jobs whose id ends in 3 fail once with 503 (20 of 200), jobs 17, 67, 117, 167 always do:
# 196 done, 4 failed, 20 + 4 × 2 = 28 retries.
start WorkerDaemon
run WorkerDaemon --jobs 200 --threads 4
check "exits 0" [ "$status" -eq 0 ]
check "the summary adds up" has '^summary: 200 jobs, done 196, failed 4, retried 28, cancelled 0, discarded 0$'
check "latency percentiles are printed" has '^latency: p50 [0-9.]+ ms, p90 [0-9.]+ ms, p99 [0-9.]+ ms'
check "the server saw every attempt" has '^server: 228 requests received$'
check "its resilience settings held nothing back" has '^resilience: .*; 0 sends refused by an open circuit$'
check "responses were logged, 503s included" has_all '← 200 OK PUT .*/api/results/' '← 503 Service Unavailable PUT'
check "retries were announced" has 'retrying PUT /api/results/[0-9]+ after attempt 1 \(503\)'
check "its own checks passed" has '^result: ok$'
show_on_failure

# --- WorkerDaemon: the same jobs as async sends on the session's transfer loop --------------
start WorkerDaemon-async
run WorkerDaemon --jobs 200 --in-flight 32
check "exits 0" [ "$status" -eq 0 ]
check "the summary adds up" has '^summary: 200 jobs, done 196, failed 4, retried 28, cancelled 0, discarded 0$'
check "32 async sends were in flight" has '^throughput: .* with 32 async sends in flight;'
check "the server saw every attempt" has '^server: 228 requests received$'
check "its own checks passed" has '^result: ok$'
show_on_failure

# --- WorkerDaemon: through a real proxy (tinyproxy with basic authentication) -------------
# 20 jobs: 3 and 13 fail once, 17 always (given up after 3): 19 done, 1 failed, 4 retries, so
# 24 PUTs pass the proxy.
start WorkerDaemon-proxy
proxy_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
printf '%s\n' "Port $proxy_port" "Listen 127.0.0.1" "Timeout 60" "LogFile \"$logs/tinyproxy.log\"" "LogLevel Connect" \
    "PidFile \"$logs/tinyproxy.pid\"" "BasicAuth worker proxy-secret" >"$logs/tinyproxy.conf"
tinyproxy -d -c "$logs/tinyproxy.conf" >"$logs/tinyproxy.out" 2>&1 &
proxy_pid=$!
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$proxy_port") 2>/dev/null && break
    sleep 0.1
done
run WorkerDaemon --jobs 20 --threads 2 --proxy "http://worker:proxy-secret@127.0.0.1:$proxy_port"
proxied_puts=$(grep -c 'PUT http://127.0.0.1:[0-9]*/api/results/' "$logs/tinyproxy.log" || true)
kill "$proxy_pid" 2>/dev/null || true
wait "$proxy_pid" 2>/dev/null || true
check "exits 0" [ "$status" -eq 0 ]
check "the proxy check passed" has '^proxy: Proxy\(http://127.0.0.1:[0-9]+, username: worker, password: \*\*\*\) reaches the API$'
check "the summary adds up" has '^summary: 20 jobs, done 19, failed 1, retried 4, cancelled 0, discarded 0$'
check "every attempt went through the proxy ($proxied_puts PUTs in its log)" [ "$proxied_puts" -eq 24 ]
check "the password is never printed" lacks 'proxy-secret'
check "its own checks passed" has '^result: ok$'
show_on_failure

start WorkerDaemon-bad-proxy
run WorkerDaemon --jobs 5 --proxy "ftp://127.0.0.1:21"
check "exits 2" [ "$status" -eq 2 ]
check "says which proxy schemes work" has "cannot be used: The session's proxy URL 'ftp://127.0.0.1:21' has the scheme 'ftp', which is not supported: use http://, https://, socks5:// or socks5h://"
show_on_failure

# --- WorkerDaemon: its limits shared through Redis (redis-server on a Unix socket) ----------
start WorkerDaemon-redis
redis-server --port 0 --unixsocket "$logs/redis.sock" --unixsocketperm 700 --save "" --appendonly no \
    --dir "$logs" --daemonize no >"$logs/redis.out" 2>&1 &
redis_pid=$!
for _ in $(seq 100); do [ -S "$logs/redis.sock" ] && break; sleep 0.1; done
run WorkerDaemon --jobs 50 --threads 2 --redis "unix://$logs/redis.sock"
kill "$redis_pid" 2>/dev/null || true
wait "$redis_pid" 2>/dev/null || true
check "exits 0" [ "$status" -eq 0 ]
check "Redis answered throughout" lacks 'does not answer'
check "its own checks passed" has '^result: ok$'
show_on_failure

start WorkerDaemon-redis-down
run WorkerDaemon --jobs 50 --threads 2 --redis "unix://$logs/no-redis.sock"
check "exits 0: the daemon goes on alone" [ "$status" -eq 0 ]
check "warns once" [ "$(grep -c 'does not answer; sends go on' "$current_log")" -eq 1 ]
check "its own checks passed" has '^result: ok$'
show_on_failure

start WorkerDaemon-bad-redis
run WorkerDaemon --jobs 5 --redis "http://127.0.0.1:6379"
check "exits 2" [ "$status" -eq 2 ]
check "says which URLs work" has 'redis://\[user:password@\]host:port\[/db\] or unix:///path/to/redis.sock'
show_on_failure

# --- WorkerDaemon: jobs from an NDJSON feed, queued as its lines arrive ----------------------
# 50 jobs: 3, 13, 23, 33, 43 fail once, 17 always (given up after 3): 49 done, 1 failed,
# 5 + 2 = 7 retries; the server sees 50 + 7 PUTs and the one feed GET.
start WorkerDaemon-feed
run WorkerDaemon --jobs 50 --threads 2 --feed
check "exits 0" [ "$status" -eq 0 ]
check "every job arrived over the stream" has '^feed: 50 jobs arrived over the NDJSON stream$'
check "the summary adds up" has '^summary: 50 jobs, done 49, failed 1, retried 7, cancelled 0, discarded 0$'
check "the server saw the feed and every attempt" has '^server: 58 requests received$'
check "its own checks passed" has '^result: ok$'
show_on_failure

# --- WorkerDaemon: the same feed over a WebSocket, on bookworm-backports' libcurl 8 ------------
# (scripts/libcurl8.sh fetches it into .libcurl8/; on the machine's 7.88 the daemon says it has
# no WebSockets and follows the NDJSON feed.) The handshake is the feed's one request.
start WorkerDaemon-ws-feed
LD_LIBRARY_PATH="$(bash scripts/libcurl8.sh)" run WorkerDaemon --jobs 50 --threads 2 --ws-feed
check "exits 0" [ "$status" -eq 0 ]
check "every job arrived over the WebSocket" has '^feed: 50 jobs arrived over the WebSocket$'
check "the summary adds up" has '^summary: 50 jobs, done 49, failed 1, retried 7, cancelled 0, discarded 0$'
check "the server saw the handshake and every attempt" has '^server: 58 requests received$'
check "its own checks passed" has '^result: ok$'
show_on_failure

# run_signalled NAME SIGNAL COUNT ARGS...: starts the daemon (it stops by itself after 60 s
# at the latest), waits until it is working, sends SIGNAL COUNT times, and waits for it.
run_signalled() {
    local signal="$1" count="$2"
    shift 2
    : >"$current_log"
    "$bin/WorkerDaemon" "$@" --duration 60 >>"$current_log" 2>&1 &
    local pid=$!
    local waited=0
    until grep -q 'workers, jobs until a signal' "$current_log" || [ "$waited" -ge 300 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    sleep 1  # let it work for a while
    for _ in $(seq "$count"); do
        kill "-$signal" "$pid" 2>/dev/null || true
        sleep 0.2
    done
    status=0
    wait "$pid" || status=$?
}

# --- WorkerDaemon: SIGINT drains ----------------------------------------------------------
start WorkerDaemon-SIGINT
run_signalled INT 1 --jobs 0 --threads 4 --log-level notice
check "exits 0" [ "$status" -eq 0 ]
check "stopped because of SIGINT" has '^stopped: SIGINT$'
check "announced the drain" has 'SIGINT: stopping; in-flight jobs finish'
check "nothing was cancelled or dropped" has '^summary: [0-9]+ jobs, done [0-9]+, failed [0-9]+, retried [0-9]+, cancelled 0, discarded 0$'
check "its own checks passed" has '^result: ok$'
show_on_failure

# --- WorkerDaemon: a second SIGTERM aborts ------------------------------------------------
start WorkerDaemon-SIGTERM
# Slow jobs (100 ms each), so that the drain is still under way when the second signal comes.
run_signalled TERM 2 --jobs 0 --threads 4 --log-level notice --work-ms 100
check "exits 0" [ "$status" -eq 0 ]
check "stopped because of SIGTERM" has '^stopped: SIGTERM$'
check "the second signal aborted" has 'SIGTERM again: cancelling in-flight jobs'
check "printed a summary" has '^summary: [0-9]+ jobs, done [0-9]+, failed [0-9]+, retried [0-9]+, cancelled [0-9]+, discarded [0-9]+$'
check "its own checks passed" has '^result: ok$'
show_on_failure

# --- WorkerDaemon: its metrics, scraped in Prometheus' text format ------------------------
start WorkerDaemon-metrics
scrape="$logs/scrape.txt"
: >"$current_log"
: >"$scrape"
"$bin/WorkerDaemon" --jobs 0 --duration 60 --threads 4 --log-level notice --metrics-port 0 >>"$current_log" 2>&1 &
pid=$!
metrics_url=""
for _ in $(seq 300); do  # the URL it announces (at most 30 s)
    metrics_url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/metrics' "$current_log" | head -n 1 || true)
    [ -n "$metrics_url" ] && break
    sleep 0.1
done
for _ in $(seq 100); do  # scraped until a send given up after its 503s shows too (at most 10 s)
    [ -n "$metrics_url" ] || break
    curl -sf --noproxy '*' "$metrics_url" >"$scrape" || true
    grep -q '^http_client_request_duration_count.*error_type="503"' "$scrape" && break
    sleep 0.1
done
kill -INT "$pid" 2>/dev/null || true
status=0
wait "$pid" || status=$?
# scraped REGEX: the scrape has a line matching REGEX.
scraped() { grep -Eq -- "$1" "$scrape"; }
check "exits 0" [ "$status" -eq 0 ]
check "announced its metrics URL" [ -n "$metrics_url" ]
check "the scrape has the send durations" scraped \
    '^http_client_request_duration_bucket\{http_request_method="PUT",server_address="127\.0\.0\.1",server_port="[0-9]+",http_response_status_code="200",le="0\.005"\} [0-9]+$'
check "503s carry their error type" scraped '^http_client_request_duration_count\{.*http_response_status_code="503",error_type="503"\} [0-9]+$'
check "body bytes are counted" scraped '^http_client_request_body_bytes\{http_request_method="PUT",.*\} [1-9][0-9]*$'
check "active sends are a gauge" scraped '^http_client_active_requests [0-9.]+$'
check "pooled handles are reported" scraped '^http_client_pool_handles\{state="idle"\} [0-9.]+$'
check "its own checks passed" has '^result: ok$'
if any_failed; then
    echo "  --- scrape ---"
    grep -v '_bucket' "$scrape" | sed 's/^/  | /' | head -n 40
fi
show_on_failure

echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
