/*
 * (m) of fanout.sh, the limit: N concurrent GETs of BASE_URL/small.json from one thread on
 * libcurl's multi interface: every easy handle added to one multi handle at once, driven by
 * curl_multi_perform + curl_multi_poll until all are done. Speaks the Swift clients' fan-out
 * command line (Benchmarks/Sources/BenchSupport) and prints the same result line:
 *
 *   fanout_multi fanout BASE_URL N [--http 1.1|2] [--ca PEM] [--max-host-connections K]
 *                [--driver poll|socket]
 *
 * --http 2: HTTP/2 over TLS (ALPN), streams multiplexed over shared connections
 * (CURLPIPE_MULTIPLEX, CURLOPT_PIPEWAIT: a transfer waits for a connection that can take another
 * stream rather than opening its own). --ca: the PEM the server's certificate is checked against.
 * --max-host-connections: CURLMOPT_MAX_HOST_CONNECTIONS (default 0, no limit). Without a limit,
 * libcurl 7.88 multiplexes only until the first connection is full (the server's stream limit,
 * 128 for nginx) and then opens a connection of its own for every further transfer (1,000 GETs:
 * 872 new connections); with a limit, transfers beyond the streams the connections take wait.
 * --driver socket: curl_multi_socket_action driven by epoll instead of curl_multi_perform +
 * curl_multi_poll, whose every turn walks every transfer and polls every socket: what that costs
 * with thousands in flight (fanout.sh's client m-socket).
 * One GET before the clock starts (its connection stays in the multi handle's cache); then all N.
 * connections: new connections the timed transfers made (CURLINFO_NUM_CONNECTS summed).
 *
 * Build: gcc -O2 -o fanout_multi fanout_multi.c -lcurl
 */
#include <curl/curl.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proc_status.h"

struct transfer {
    CURL *easy;
    size_t bytes;
};

static size_t count_bytes(char *data, size_t size, size_t count, void *userdata) {
    (void)data;
    ((struct transfer *)userdata)->bytes += size * count;
    return size * count;
}

static void set_up(struct transfer *transfer, const char *url, int http2, const char *ca) {
    CURL *easy = curl_easy_init();
    transfer->easy = easy;
    transfer->bytes = 0;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_bytes);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, transfer);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT, 300L);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, http2 ? (long)CURL_HTTP_VERSION_2TLS : (long)CURL_HTTP_VERSION_1_1);
    if (http2) curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    if (ca != NULL) curl_easy_setopt(easy, CURLOPT_CAINFO, ca);
}

struct tally {
    long errors;      /* failed transfers, and those still running at the deadline */
    long connections; /* new connections (CURLINFO_NUM_CONNECTS summed) */
    long h2;          /* responses over HTTP/2 */
};

/* Takes the finished transfers off the multi handle, counting them. */
static void collect(CURLM *multi, struct tally *tally) {
    CURLMsg *message;
    int left;
    while ((message = curl_multi_info_read(multi, &left)) != NULL) {
        if (message->msg != CURLMSG_DONE) continue;
        struct transfer *transfer;
        long status = 0, connects = 0, version = 0;
        curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&transfer);
        curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_getinfo(message->easy_handle, CURLINFO_NUM_CONNECTS, &connects);
        curl_easy_getinfo(message->easy_handle, CURLINFO_HTTP_VERSION, &version);
        if (message->data.result != CURLE_OK || status != 200 || transfer->bytes == 0) {
            if (tally->errors == 0) fprintf(stderr, "fanout_multi: %s, status %ld\n", curl_easy_strerror(message->data.result), status);
            tally->errors++;
        }
        tally->connections += connects;
        if (version == CURL_HTTP_VERSION_2_0) tally->h2++;
        curl_multi_remove_handle(multi, message->easy_handle);
        curl_easy_cleanup(message->easy_handle);
    }
}

/* The poll driver: curl_multi_perform + curl_multi_poll until every transfer added is done
 * (bounded: 600 s). */
static void run_polling(CURLM *multi, struct tally *tally) {
    int running = 1;
    double deadline = now() + 600;
    while (running > 0 && now() < deadline) {
        curl_multi_perform(multi, &running);
        collect(multi, tally);
        if (running > 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    tally->errors += running;
}

/* The socket driver's state: libcurl says which sockets to watch and when its timer is due. */
struct sockets {
    int epoll;
    double timer_at; /* < 0: no timer */
};

static int on_socket(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp) {
    struct sockets *sockets = userp;
    struct epoll_event event = {.data.fd = socket};
    (void)easy;
    (void)socketp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(sockets->epoll, EPOLL_CTL_DEL, socket, NULL);
        return 0;
    }
    event.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
    if (epoll_ctl(sockets->epoll, EPOLL_CTL_MOD, socket, &event) != 0) epoll_ctl(sockets->epoll, EPOLL_CTL_ADD, socket, &event);
    return 0;
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp) {
    (void)multi;
    ((struct sockets *)userp)->timer_at = timeout_ms < 0 ? -1 : now() + timeout_ms / 1000.0;
    return 0;
}

/* The socket driver: curl_multi_socket_action for the sockets epoll reports ready and when
 * libcurl's timer is due, so each turn costs what is ready, not every transfer (bounded: 600 s). */
static void run_on_sockets(CURLM *multi, struct sockets *sockets, struct tally *tally) {
    int running = 1;
    double deadline = now() + 600;
    struct epoll_event events[512];
    while (running > 0 && now() < deadline) {
        int wait_ms = 1000;
        if (sockets->timer_at >= 0) wait_ms = sockets->timer_at <= now() ? 0 : (int)((sockets->timer_at - now()) * 1000) + 1;
        int count = epoll_wait(sockets->epoll, events, 512, wait_ms);
        for (int index = 0; index < count; index++) {
            unsigned ready = events[index].events;
            int mask = (ready & EPOLLIN ? CURL_CSELECT_IN : 0) | (ready & EPOLLOUT ? CURL_CSELECT_OUT : 0)
                       | (ready & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
            curl_multi_socket_action(multi, events[index].data.fd, mask, &running);
        }
        if (sockets->timer_at >= 0 && sockets->timer_at <= now()) {
            sockets->timer_at = -1;
            curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
        }
        collect(multi, tally);
    }
    tally->errors += running;
}

/* Runs the transfers added until they are done, on the driver chosen (sockets NULL: poll). */
static void run(CURLM *multi, struct sockets *sockets, struct tally *tally) {
    if (sockets != NULL) run_on_sockets(multi, sockets, tally); else run_polling(multi, tally);
}

int main(int argc, char **argv) {
    if (argc < 4 || strcmp(argv[1], "fanout") != 0) {
        fprintf(stderr, "usage: fanout_multi fanout BASE_URL N [--http 1.1|2] [--ca PEM] [--max-host-connections K] [--driver poll|socket]\n");
        return 2;
    }
    long count = atol(argv[3]), max_host = 0;
    int http2 = 0, on_sockets = 0;
    const char *ca = NULL;
    for (int index = 4; index + 1 < argc; index += 2) {
        if (strcmp(argv[index], "--http") == 0) http2 = strcmp(argv[index + 1], "2") == 0;
        if (strcmp(argv[index], "--ca") == 0) ca = argv[index + 1];
        if (strcmp(argv[index], "--max-host-connections") == 0) max_host = atol(argv[index + 1]);
        if (strcmp(argv[index], "--driver") == 0) on_sockets = strcmp(argv[index + 1], "socket") == 0;
    }
    char url[1024];
    snprintf(url, sizeof url, "%s/small.json", argv[2]);
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, http2 ? (long)CURLPIPE_MULTIPLEX : (long)CURLPIPE_NOTHING);
    if (max_host > 0) curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max_host);
    struct sockets sockets = {.epoll = epoll_create1(EPOLL_CLOEXEC), .timer_at = -1};
    if (on_sockets) {
        curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
        curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, &sockets);
        curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
        curl_multi_setopt(multi, CURLMOPT_TIMERDATA, &sockets);
    }
    struct tally tally = {0};
    struct transfer warm;
    set_up(&warm, url, http2, ca);
    curl_multi_add_handle(multi, warm.easy);
    run(multi, on_sockets ? &sockets : NULL, &tally);
    tally = (struct tally){0};

    struct transfer *transfers = calloc((size_t)count, sizeof *transfers);
    long rss_start = status_kib("VmRSS:");
    double start = now();
    for (long index = 0; index < count; index++) {
        set_up(&transfers[index], url, http2, ca);
        curl_multi_add_handle(multi, transfers[index].easy);
    }
    run(multi, on_sockets ? &sockets : NULL, &tally);
    double seconds = now() - start;
    printf("{\"client\":\"curl-multi%s\",\"workload\":\"fanout\",\"ops\":%ld,\"seconds\":%.6f,\"bytes\":0,"
           "\"errors\":%ld,\"vmhwm_kib\":%ld,\"rss_start_kib\":%ld,\"connections\":%ld,\"h2_responses\":%ld}\n",
           on_sockets ? "-socket" : "", count, seconds, tally.errors, status_kib("VmHWM:"), rss_start, tally.connections, tally.h2);
    curl_multi_cleanup(multi);
    free(transfers);
    curl_global_cleanup();
    return 0;
}
