/*
 * The C baselines' handles set up as HTTPTransport sets up its own, so that the same request
 * goes on the wire and libcurl does the same work for it: the User-Agent and Accept-Encoding
 * headers HTTPTransport sends by default, a time-out, a DNS share, a 64 KiB receive buffer, a
 * header callback. Chosen by CURL_BASELINE_LIKE_HTTPTRANSPORT=1: client (a') of run.sh
 * (curl_baseline.c) and (m') of throughput.sh (throughput_multi.c). (b) − (a') is then the
 * cost of the Swift layer.
 *
 * The headers matter more than they look: libcurl 7.88 writes each header line of a request
 * through its printf, one byte at a time (about 86 instructions per byte), and these two lines
 * are about 90 bytes.
 */
#ifndef LIKE_HTTPTRANSPORT_H
#define LIKE_HTTPTRANSPORT_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int like_httptransport(void) {
    const char *value = getenv("CURL_BASELINE_LIKE_HTTPTRANSPORT");
    return value != NULL && strcmp(value, "1") == 0;
}

static size_t count_header(char *data, size_t size, size_t count, void *userdata) {
    (void)data;
    *(size_t *)userdata += size * count;
    return size * count;
}

static __thread size_t header_bytes;
static pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
static CURLSH *share;
static pthread_once_t share_once = PTHREAD_ONCE_INIT;
static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *user) {
    (void)h; (void)access; (void)user;
    pthread_mutex_lock(&share_locks[data]);
}
static void share_unlock(CURL *h, curl_lock_data data, void *user) {
    (void)h; (void)user;
    pthread_mutex_unlock(&share_locks[data]);
}
static void make_share(void) {
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share_locks[i], NULL);
    share = curl_share_init();
    curl_share_setopt(share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
}
static CURLSH *dns_share(void) {
    pthread_once(&share_once, make_share);
    return share;
}

/* The request headers HTTPTransport adds (its default User-Agent and Accept-Encoding). */
static struct curl_slist *httptransport_headers(struct curl_slist *list) {
    char line[256];
    curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    snprintf(line, sizeof line, "User-Agent: HTTPTransport/1.0.0 libcurl/%s", info->version);
    list = curl_slist_append(list, line);
    snprintf(line, sizeof line, "Accept-Encoding: %s%s%s", (info->features & CURL_VERSION_LIBZ) ? "deflate, gzip" : "",
             (info->features & CURL_VERSION_BROTLI) ? ", br" : "", (info->features & CURL_VERSION_ZSTD) ? ", zstd" : "");
    return curl_slist_append(list, line);
}

/* Sets HTTPTransport's options on `curl`; returns the header list set, which the caller frees
 * after the handle (curl_slist_free_all). */
static struct curl_slist *set_like_httptransport(CURL *curl) {
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(curl, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 600000L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 60000L);
    curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 65536L);
    curl_easy_setopt(curl, CURLOPT_SHARE, dns_share());
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, count_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &header_bytes);
    struct curl_slist *headers = httptransport_headers(NULL);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    return headers;
}

#endif
