// WebSockets over libcurl 8's curl_ws_* API, looked up at run time (see CCurl.h).
#define _GNU_SOURCE
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

// libcurl 8's struct curl_ws_frame (curl/websockets.h), which 7.88's headers do not have.
struct ccurl_curl_ws_frame {
    int age;
    int flags;
    curl_off_t offset;
    curl_off_t bytesleft;
    size_t len;
};

typedef CURLcode (*ccurl_ws_recv_fn)(CURL *, void *, size_t, size_t *, const struct ccurl_curl_ws_frame **);
typedef CURLcode (*ccurl_ws_send_fn)(CURL *, const void *, size_t, size_t *, curl_off_t, unsigned int);

static pthread_once_t ccurl_ws_once = PTHREAD_ONCE_INIT;
static ccurl_ws_recv_fn ccurl_ws_recv_symbol;
static ccurl_ws_send_fn ccurl_ws_send_symbol;
static int ccurl_ws_supported;

static int ccurl_lists_protocol(const char *const *protocols, const char *name) {
    for (; protocols != NULL && *protocols != NULL; protocols++) {
        if (strcmp(*protocols, name) == 0) return 1;
    }
    return 0;
}

static void ccurl_ws_look_up(void) {
    ccurl_global_init();
    // The symbols of the libcurl this process loaded (RTLD_DEFAULT searches it).
    ccurl_ws_recv_symbol = (ccurl_ws_recv_fn)dlsym(RTLD_DEFAULT, "curl_ws_recv");
    ccurl_ws_send_symbol = (ccurl_ws_send_fn)dlsym(RTLD_DEFAULT, "curl_ws_send");
    void *meta = dlsym(RTLD_DEFAULT, "curl_ws_meta");
    curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    int listed = info != NULL && ccurl_lists_protocol(info->protocols, "ws") &&
                 ccurl_lists_protocol(info->protocols, "wss");
    ccurl_ws_supported = listed && ccurl_ws_recv_symbol != NULL && ccurl_ws_send_symbol != NULL && meta != NULL;
}

int ccurl_ws_available(void) {
    pthread_once(&ccurl_ws_once, ccurl_ws_look_up);
    return ccurl_ws_supported;
}

CURLcode ccurl_ws_recv(CURL *handle, void *buffer, size_t length, size_t *received, ccurl_ws_frame *frame) {
    *received = 0;
    memset(frame, 0, sizeof *frame);
    if (!ccurl_ws_available()) return CURLE_NOT_BUILT_IN;
    const struct ccurl_curl_ws_frame *meta = NULL;
    CURLcode code = ccurl_ws_recv_symbol(handle, buffer, length, received, &meta);
    if (code == CURLE_OK && meta != NULL) {
        frame->flags = meta->flags;
        frame->offset = meta->offset;
        frame->bytesleft = meta->bytesleft;
    }
    return code;
}

CURLcode ccurl_ws_send(CURL *handle, const void *buffer, size_t length, size_t *sent, unsigned int flags) {
    *sent = 0;
    if (!ccurl_ws_available()) return CURLE_NOT_BUILT_IN;
    return ccurl_ws_send_symbol(handle, buffer, length, sent, 0, flags);
}

int ccurl_active_socket(CURL *handle) {
    curl_socket_t socket = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &socket) != CURLE_OK) return -1;
    return socket == CURL_SOCKET_BAD ? -1 : (int)socket;
}
