/*
 * (a) The baseline: libcurl used directly from C, one easy handle reused for every request of a
 * thread (its options set once, so only CURLOPT_URL-level work repeats), the body copied into a
 * growable buffer (or fwrite-n to a file). Same command line and result line as the Swift
 * clients (Benchmarks/Sources/BenchSupport):
 *
 *   curl_baseline get      BASE_URL COUNT
 *   curl_baseline threads  BASE_URL THREADS PER      (each thread has its own easy handle)
 *   curl_baseline post     BASE_URL COUNT            (1 KiB JSON body)
 *   curl_baseline download BASE_URL BYTES            (into memory)
 *   curl_baseline download-file BASE_URL BYTES PATH
 *
 * Build: gcc -O2 -o curl_baseline curl_baseline.c -lcurl -lpthread
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "like_httptransport.h"
#include "proc_status.h"

struct buffer {
    char *data;
    size_t size;
    size_t capacity;
};

struct worker {
    const char *url;
    long count;
    long errors;
    long connections;
    size_t bytes;
    pthread_barrier_t *barrier;
};

static char post_body[1025];

static long rss_start_kib; /* resident memory when the clock started */

static size_t write_memory(char *data, size_t size, size_t count, void *userdata) {
    struct buffer *buffer = userdata;
    size_t length = size * count;
    if (buffer->size + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 16384;
        while (capacity < buffer->size + length) capacity *= 2;
        char *grown = realloc(buffer->data, capacity);
        if (grown == NULL) return 0;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->size, data, length);
    buffer->size += length;
    return length;
}

static CURL *new_handle(const char *url, struct buffer *buffer) {
    CURL *curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_memory);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, buffer);
    /* Client (a'): HTTPTransport's options (like_httptransport.h). */
    if (like_httptransport()) curl_easy_setopt(curl, CURLOPT_PRIVATE, set_like_httptransport(curl));
    return curl;
}

static void cleanup_handle(CURL *curl) {
    char *headers = NULL;
    curl_easy_getinfo(curl, CURLINFO_PRIVATE, &headers);
    curl_easy_cleanup(curl);
    curl_slist_free_all((struct curl_slist *)headers);
}

/* One transfer on a configured handle; returns 1 when it failed. */
static int perform(CURL *curl, struct buffer *buffer, size_t expected, long *connections) {
    long status = 0, connects = 0;
    buffer->size = 0;
    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
    *connections += connects;
    if (code != CURLE_OK || status != 200 || buffer->size == 0 || (expected && buffer->size != expected)) {
        static int reported = 0;
        if (!reported++) fprintf(stderr, "curl_baseline: failure: %s, status %ld, %zu bytes\n",
                                 curl_easy_strerror(code), status, buffer->size);
        return 1;
    }
    return 0;
}

/* Transfers before the clock starts: a tenth of the count, at least 1, at most 200. */
static long warm_up_count(long count) {
    return count / 10 > 200 ? 200 : (count / 10 > 0 ? count / 10 : 1);
}

static void *run_worker(void *argument) {
    struct worker *worker = argument;
    struct buffer buffer = {0};
    CURL *curl = new_handle(worker->url, &buffer);
    long warm = warm_up_count(worker->count);
    long ignored = 0;
    for (long i = 0; i < warm; i++) perform(curl, &buffer, 0, &ignored);
    pthread_barrier_wait(worker->barrier);  /* the clock starts when every thread is here */
    pthread_barrier_wait(worker->barrier);
    for (long i = 0; i < worker->count; i++) {
        worker->errors += perform(curl, &buffer, 0, &worker->connections);
        worker->bytes += buffer.size;
    }
    cleanup_handle(curl);
    free(buffer.data);
    return NULL;
}

static void report(const char *workload, long ops, double seconds, size_t bytes, long errors, long connections) {
    printf("{\"client\":\"curl_baseline\",\"workload\":\"%s\",\"ops\":%ld,\"seconds\":%.6f,\"bytes\":%zu,"
           "\"errors\":%ld,\"vmhwm_kib\":%ld,\"rss_start_kib\":%ld,\"connections\":%ld}\n",
           workload, ops, seconds, bytes, errors, status_kib("VmHWM:"), rss_start_kib, connections);
}

/* get / post: COUNT sequential transfers on one handle (post: a 1 KiB JSON body). */
static int run_sequential(const char *workload, const char *url, long count) {
    int is_post = workload[0] == 'p';
    struct buffer buffer = {0};
    CURL *curl = new_handle(url, &buffer);
    struct curl_slist *headers = NULL;
    if (is_post) {
        /* {"data":"xxx…"}: exactly 1,024 bytes, as the Swift clients send. */
        memset(post_body, 'x', 1024);
        memcpy(post_body, "{\"data\":\"", 9);
        memcpy(post_body + 1022, "\"}", 2);
        post_body[1024] = 0;
        headers = curl_slist_append(headers, "Content-Type: application/json");
        headers = curl_slist_append(headers, "Expect:");
        if (like_httptransport()) headers = httptransport_headers(headers);
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post_body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, 1024L);
    }
    long warm = warm_up_count(count);
    long errors = 0, connections = 0;
    size_t bytes = 0;
    for (long i = 0; i < warm; i++) perform(curl, &buffer, 0, &connections);
    connections = 0;
    rss_start_kib = status_kib("VmRSS:");
    double start = now();
    for (long i = 0; i < count; i++) {
        errors += perform(curl, &buffer, 0, &connections);
        bytes += buffer.size;
    }
    double seconds = now() - start;
    report(workload, count, seconds, bytes, errors, connections);
    curl_slist_free_all(headers);
    cleanup_handle(curl);
    free(buffer.data);
    return 0;
}

/* threads: THREADS threads, each with its own handle, PER transfers each, started together. */
static int run_threads(const char *url, int threads, long per) {
    pthread_t ids[256];
    struct worker workers[256];
    pthread_barrier_t barrier;
    if (threads < 1 || threads > 256) return 2;
    pthread_barrier_init(&barrier, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        workers[i] = (struct worker){.url = url, .count = per, .barrier = &barrier};
        pthread_create(&ids[i], NULL, run_worker, &workers[i]);
    }
    pthread_barrier_wait(&barrier);  /* every thread warmed up */
    rss_start_kib = status_kib("VmRSS:");
    double start = now();
    pthread_barrier_wait(&barrier);  /* go */
    long errors = 0, connections = 0;
    size_t bytes = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(ids[i], NULL);
        errors += workers[i].errors;
        connections += workers[i].connections;
        bytes += workers[i].bytes;
    }
    double seconds = now() - start;
    report("threads", (long)threads * per, seconds, bytes, errors, connections);
    return 0;
}

/* download / download-file: one large body on a warmed-up connection, into memory or a file. */
static int run_download(const char *workload, const char *warm_url, const char *big_url, size_t expected,
                        const char *path) {
    struct buffer buffer = {0};
    long connections = 0, errors = 0;
    CURL *curl = new_handle(warm_url, &buffer);
    perform(curl, &buffer, 0, &connections);  /* warm-up: the connection is open */
    curl_easy_setopt(curl, CURLOPT_URL, big_url);
    FILE *file = NULL;
    if (path != NULL) {
        file = fopen(path, "wb");
        if (file == NULL) {
            perror("fopen");
            return 1;
        }
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, NULL); /* libcurl's default: fwrite */
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, file);
    }
    rss_start_kib = status_kib("VmRSS:");
    double start = now();
    CURLcode code = curl_easy_perform(curl);
    if (file != NULL) fclose(file);
    double seconds = now() - start;
    long status = 0;
    curl_off_t received = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(curl, CURLINFO_SIZE_DOWNLOAD_T, &received);
    if (code != CURLE_OK || status != 200 || (size_t)received != expected) {
        fprintf(stderr, "curl_baseline: download failed: %s, status %ld, %lld bytes\n", curl_easy_strerror(code),
                status, (long long)received);
        errors = 1;
    }
    report(workload, 1, seconds, (size_t)received, errors, 0);
    cleanup_handle(curl);
    free(buffer.data);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: curl_baseline get|post BASE_URL COUNT | threads BASE_URL THREADS PER |\n"
                        "       download BASE_URL BYTES | download-file BASE_URL BYTES PATH\n");
        return 2;
    }
    const char *workload = argv[1];
    const char *base = argv[2];
    char small_url[1024], post_url[1024], big_url[1024];
    snprintf(small_url, sizeof small_url, "%s/small.json", base);
    snprintf(post_url, sizeof post_url, "%s/post", base);
    snprintf(big_url, sizeof big_url, "%s/big.bin", base);
    curl_global_init(CURL_GLOBAL_ALL);

    int status;
    if (strcmp(workload, "get") == 0 || strcmp(workload, "post") == 0) {
        status = run_sequential(workload, workload[0] == 'p' ? post_url : small_url, atol(argv[3]));
    } else if (strcmp(workload, "threads") == 0) {
        status = run_threads(small_url, atoi(argv[3]), argc > 4 ? atol(argv[4]) : 1000);
    } else if (strcmp(workload, "download") == 0) {
        status = run_download(workload, small_url, big_url, (size_t)atoll(argv[3]), NULL);
    } else if (strcmp(workload, "download-file") == 0) {
        status = run_download(workload, small_url, big_url, (size_t)atoll(argv[3]),
                              argc > 4 ? argv[4] : "/tmp/curl-baseline.bin");
    } else {
        fprintf(stderr, "unknown workload %s\n", workload);
        return 2;
    }
    if (status != 0) return status;
    curl_global_cleanup();
    return 0;
}
