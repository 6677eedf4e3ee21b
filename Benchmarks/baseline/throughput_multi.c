/*
 * The limit of throughput.sh: COUNT small keep-alive GETs of BASE_URL/small.json with IN_FLIGHT
 * of them in flight at once, from one thread on libcurl's multi interface. IN_FLIGHT easy handles
 * are made once; each, when its transfer is done, is added again for the next GET until COUNT
 * are done (curl_multi_perform + curl_multi_poll). One round of IN_FLIGHT GETs first, untimed,
 * opens the connections (they stay in the multi handle's cache). Prints the Swift clients'
 * result line (Benchmarks/Sources/BenchSupport), cpu_seconds being the timed part's. With
 * CURL_BASELINE_LIKE_HTTPTRANSPORT=1, client (m'): each handle set up as HTTPTransport sets up
 * its own (like_httptransport.h), so the same requests go on the wire.
 *
 *   throughput_multi get BASE_URL COUNT IN_FLIGHT
 *
 * Build: gcc -O2 -o throughput_multi throughput_multi.c -lcurl
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "like_httptransport.h"
#include "proc_status.h"

static size_t count_bytes(char *data, size_t size, size_t count, void *userdata) {
    (void)data;
    *(size_t *)userdata += size * count;
    return size * count;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/* Runs COUNT GETs with the handles; returns the errors (a failed transfer or a status not 200). */
static long run(CURLM *multi, CURL **handles, long in_flight, long count, size_t *bytes) {
    long started = 0, done = 0, errors = 0;
    for (; started < in_flight && started < count; started++) curl_multi_add_handle(multi, handles[started]);
    while (done < count) {
        int running = 0, queued = 0;
        if (curl_multi_perform(multi, &running) != CURLM_OK) return errors + count - done;
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result != CURLE_OK || status != 200) errors++;
            curl_multi_remove_handle(multi, easy);
            done++;
            if (started < count) {
                curl_multi_add_handle(multi, easy);
                started++;
            }
        }
        if (done < count) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    (void)bytes;
    return errors;
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[1], "get") != 0) {
        fprintf(stderr, "usage: throughput_multi get BASE_URL COUNT IN_FLIGHT\n");
        return 2;
    }
    long count = atol(argv[3]), in_flight = atol(argv[4]);
    if (count < 1 || in_flight < 1) return 2;
    char url[1024];
    snprintf(url, sizeof url, "%s/small.json", argv[2]);
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    CURL **handles = calloc((size_t)in_flight, sizeof *handles);
    struct curl_slist **header_lists = calloc((size_t)in_flight, sizeof *header_lists);
    size_t bytes = 0;
    for (long index = 0; index < in_flight; index++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_bytes);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &bytes);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT, 60L);
        if (like_httptransport()) header_lists[index] = set_like_httptransport(easy);
        handles[index] = easy;
    }
    long errors = run(multi, handles, in_flight, in_flight, &bytes);
    bytes = 0;
    long rss_start = status_kib("VmRSS:");
    double cpu_start = cpu_seconds(), start = now();
    errors += run(multi, handles, in_flight, count, &bytes);
    double seconds = now() - start, cpu = cpu_seconds() - cpu_start;
    printf("{\"client\":\"curl-multi\",\"workload\":\"threads\",\"ops\":%ld,\"seconds\":%.6f,\"bytes\":%zu,"
           "\"errors\":%ld,\"vmhwm_kib\":%ld,\"rss_start_kib\":%ld,\"cpu_seconds\":%.4f}\n",
           count, seconds, bytes, errors, status_kib("VmHWM:"), rss_start, cpu);
    for (long index = 0; index < in_flight; index++) {
        curl_easy_cleanup(handles[index]);
        curl_slist_free_all(header_lists[index]);
    }
    free(handles);
    free(header_lists);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return 0;
}
