/*
 * The streams' C baseline (streaming.sh): one GET through libcurl's easy interface whose write
 * callback only counts the bytes, as a stream's consumer that reads as fast as possible does.
 * Prints the seconds from the start of the request to the body's end, and the bytes received.
 *
 *   stream_callback URL [BUFFERSIZE]      (BUFFERSIZE: CURLOPT_BUFFERSIZE; libcurl's default if 0 or absent)
 *
 * Build: gcc -O2 -o stream_callback stream_callback.c -lcurl
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>

#include "proc_status.h"

static size_t count_bytes(char *data, size_t size, size_t count, void *userdata) {
    (void)data;
    *(size_t *)userdata += size * count;
    return size * count;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: stream_callback URL [BUFFERSIZE]\n");
        return 2;
    }
    long buffer_size = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    size_t received = 0;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *curl = curl_easy_init();
    if (curl == NULL) return 1;
    curl_easy_setopt(curl, CURLOPT_URL, argv[1]);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, count_bytes);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &received);
    if (buffer_size > 0) curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, buffer_size);
    double started = now();
    CURLcode code = curl_easy_perform(curl);
    double elapsed = now() - started;
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(curl);
    curl_global_cleanup();
    if (code != CURLE_OK || status != 200) {
        fprintf(stderr, "stream_callback: %s, status %ld\n", curl_easy_strerror(code), status);
        return 1;
    }
    printf("%.6f %zu\n", elapsed, received);
    return 0;
}
