// Per-response cost of reading the response headers two ways, counted by Benchmarks/instructions.sh
// (HEADERS=1): (cb) a header callback copying each line, as HTTPTransport's engine does, vs (api)
// no callback and curl_easy_nextheader after the transfer, copying each name and value. libcurl
// 7.88 counts the headers of the same name on every curl_easy_nextheader call, so (api) grows
// with the square of the header count.
//
//   header_access cb|api get BASE_URL COUNT      (COUNT GETs of BASE_URL/small.json)
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char block[65536]; static size_t used;
static size_t sink(char *p, size_t s, size_t n, void *u) { (void)p; (void)u; return s * n; }
static size_t header_cb(char *p, size_t s, size_t n, void *u) {
    (void)u; size_t len = s * n; char *colon = memchr(p, ':', len);
    if (colon && used + len < sizeof block) { memcpy(block + used, p, len); used += len; }
    return len;
}
int main(int argc, char **argv) {
    if (argc < 5) return 2;
    int api = strcmp(argv[1], "api") == 0; int count = atoi(argv[4]);
    char url[1024];
    snprintf(url, sizeof url, "%s/small.json", argv[3]);
    curl_global_init(CURL_GLOBAL_ALL);
    CURL *h = curl_easy_init();
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    if (!api) curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
    for (int i = 0; i < count; i++) {
        used = 0;
        if (curl_easy_perform(h) != CURLE_OK) return 1;
        if (api) {
            struct curl_header *prev = NULL, *hd;
            while ((hd = curl_easy_nextheader(h, CURLH_HEADER, -1, prev))) {
                size_t nl = strlen(hd->name), vl = strlen(hd->value);
                if (used + nl + vl < sizeof block) { memcpy(block + used, hd->name, nl); used += nl; memcpy(block + used, hd->value, vl); used += vl; }
                prev = hd;
            }
        }
    }
    curl_easy_cleanup(h);
    return 0;
}
