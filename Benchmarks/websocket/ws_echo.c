// websocket.sh's baseline: the same echo round trips as WebSocketEcho, written straight on
// libcurl's WebSocket API (CONNECT_ONLY 2, curl_ws_send/curl_ws_recv) with one poll() loop over
// every socket: the limit a library on libcurl can reach. Same output line as WebSocketEcho.
//
//   ws_echo ws://127.0.0.1:PORT/echo SOCKETS ROUND_TRIPS_PER_SOCKET BYTES
//
// Built against Debian 12's 7.88 headers (curl/websockets.h declares the API; 7.88's library is
// built without it) and run on bookworm-backports' libcurl 8.
#include <curl/curl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>


struct socket_state { CURL *curl; curl_socket_t fd; long done; size_t received; };

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static int send_message(struct socket_state *s, const char *payload, size_t bytes) {
    size_t offset = 0;
    while (offset < bytes) {
        size_t sent = 0;
        CURLcode code = curl_ws_send(s->curl, payload + offset, bytes - offset, &sent, 0, CURLWS_BINARY);
        offset += sent;
        if (code == CURLE_AGAIN) {
            struct pollfd p = { s->fd, POLLOUT, 0 };
            poll(&p, 1, 1000);
        } else if (code != CURLE_OK) {
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: ws_echo URL SOCKETS ROUND_TRIPS_PER_SOCKET BYTES\n"); return 2; }
    int count = atoi(argv[2]);
    long per_socket = atol(argv[3]);
    size_t bytes = (size_t)atol(argv[4]);
    char *payload = malloc(bytes), *buffer = malloc(65536);
    memset(payload, 'a', bytes);
    curl_global_init(CURL_GLOBAL_ALL);
    struct socket_state *sockets = calloc((size_t)count, sizeof *sockets);
    struct pollfd *fds = calloc((size_t)count, sizeof *fds);
    for (int i = 0; i < count; i++) {
        sockets[i].curl = curl_easy_init();
        curl_easy_setopt(sockets[i].curl, CURLOPT_URL, argv[1]);
        curl_easy_setopt(sockets[i].curl, CURLOPT_CONNECT_ONLY, 2L);
        if (curl_easy_perform(sockets[i].curl) != CURLE_OK) { fprintf(stderr, "handshake failed\n"); return 1; }
        curl_easy_getinfo(sockets[i].curl, CURLINFO_ACTIVESOCKET, &sockets[i].fd);
        fds[i].fd = sockets[i].fd;
        fds[i].events = POLLIN;
    }
    double cpu_start = cpu_seconds(), start = now_seconds();
    for (int i = 0; i < count; i++) if (!send_message(&sockets[i], payload, bytes)) return 1;
    int finished = 0;
    while (finished < count) {
        poll(fds, (nfds_t)count, 1000);
        for (int i = 0; i < count; i++) {
            if (!(fds[i].revents & POLLIN)) continue;
            struct socket_state *s = &sockets[i];
            for (;;) {
                size_t n = 0;
                struct curl_ws_frame *meta = NULL;
                CURLcode code = curl_ws_recv(s->curl, buffer, 65536, &n, &meta);
                if (code == CURLE_AGAIN) break;
                if (code != CURLE_OK) { fprintf(stderr, "recv failed: %d\n", code); return 1; }
                s->received += n;
                if (meta->bytesleft != 0 || s->received < bytes) continue;
                s->received = 0;
                if (++s->done == per_socket) {
                    fds[i].fd = -1;
                    finished++;
                    break;
                }
                if (!send_message(s, payload, bytes)) return 1;
            }
        }
    }
    double wall = now_seconds() - start, cpu = cpu_seconds() - cpu_start;
    long total = (long)count * per_socket;
    printf("%d %ld %.3f %.0f %.1f\n", count, total, wall, (double)total / wall, cpu / (double)total * 1e6);
    for (int i = 0; i < count; i++) {
        size_t sent = 0;
        unsigned char normal[2] = { 0x03, 0xE8 };  // 1000
        curl_ws_send(sockets[i].curl, normal, 2, &sent, 0, CURLWS_CLOSE);
        curl_easy_cleanup(sockets[i].curl);
    }
    return 0;
}
