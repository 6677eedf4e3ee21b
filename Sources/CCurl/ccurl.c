#define _GNU_SOURCE
#include "CCurl.h"

#include <fcntl.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t ccurl_once = PTHREAD_ONCE_INIT;

static void ccurl_global_init_once(void) {
    signal(SIGPIPE, SIG_IGN);
#ifdef OPENSSL_INIT_NO_ATEXIT
    // OpenSSL registers OPENSSL_cleanup with atexit() on its first initialisation (libcurl's,
    // unless this one comes first). That handler frees OpenSSL's global state while other
    // threads may still be in a handshake or in their thread-exit cleanup: a process exiting
    // with transfers in flight then crashed, or corrupted the heap ("corrupted double-linked
    // list"). Without it, OpenSSL stays usable until the process is gone; the system takes
    // the memory back. (Only the first initialisation decides: an application that set up
    // OpenSSL before any session keeps OpenSSL's handler.)
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
#endif
    curl_global_init(CURL_GLOBAL_ALL);
}

void ccurl_global_init(void) { pthread_once(&ccurl_once, ccurl_global_init_once); }

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_share(CURL *handle, CURLSH *share) {
    return curl_easy_setopt(handle, CURLOPT_SHARE, share);
}
CURLcode ccurl_setopt_mime(CURL *handle, curl_mime *mime) {
    return curl_easy_setopt(handle, CURLOPT_MIMEPOST, mime);
}

CURLcode ccurl_set_callbacks(CURL *handle, ccurl_data_callback write, ccurl_data_callback header,
                             ccurl_data_callback read, ccurl_seek_callback seek,
                             ccurl_progress_callback progress) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, write);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, header);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_READFUNCTION, read);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, seek);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, progress);
    return code;
}

CURLcode ccurl_set_callback_userdata(CURL *handle, void *userdata) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEDATA, userdata);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_HEADERDATA, userdata);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_READDATA, userdata);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_SEEKDATA, userdata);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, userdata);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_PREREQDATA, userdata);
    return code;
}

CURLcode ccurl_set_prereq_callback(CURL *handle, ccurl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

CURLcode ccurl_set_opensocket_callback(CURL *handle, ccurl_opensocket_callback callback, void *clientp) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, clientp);
}

size_t ccurl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
size_t ccurl_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }
size_t ccurl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
CURLcode ccurl_unpause(CURL *handle) { return curl_easy_pause(handle, CURLPAUSE_CONT); }
CURLcode ccurl_pause_receive(CURL *handle) { return curl_easy_pause(handle, CURLPAUSE_RECV); }

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

void ccurl_get_metrics(CURL *handle, int sent_body, ccurl_metrics *m) {
    memset(m, 0, sizeof *m);
    curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &m->connects);
    curl_easy_getinfo(handle, CURLINFO_NAMELOOKUP_TIME_T, &m->name_lookup_us);
    // A transfer that made no connection (a reused one) has no connect or handshake time:
    // libcurl clears both when a transfer starts and sets them only while connecting.
    if (m->connects > 0) {
        curl_easy_getinfo(handle, CURLINFO_CONNECT_TIME_T, &m->connect_us);
        curl_easy_getinfo(handle, CURLINFO_APPCONNECT_TIME_T, &m->tls_handshake_us);
    }
    curl_easy_getinfo(handle, CURLINFO_STARTTRANSFER_TIME_T, &m->first_byte_us);
    curl_easy_getinfo(handle, CURLINFO_TOTAL_TIME_T, &m->total_us);
    if (sent_body) curl_easy_getinfo(handle, CURLINFO_SIZE_UPLOAD_T, &m->bytes_sent);
    curl_easy_getinfo(handle, CURLINFO_SIZE_DOWNLOAD_T, &m->bytes_received);
    curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, &m->http_version);
    curl_easy_getinfo(handle, CURLINFO_PRIMARY_PORT, &m->remote_port);
    curl_easy_getinfo(handle, CURLINFO_LOCAL_PORT, &m->local_port);
    if (curl_easy_getinfo(handle, CURLINFO_PRIMARY_IP, &m->remote_address) != CURLE_OK) m->remote_address = NULL;
}

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    *value = 0;
    return curl_easy_getinfo(handle, info, value);
}

void *ccurl_private(CURL *handle) {
    char *value = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_PRIVATE, &value) != CURLE_OK) return NULL;
    return value;
}

// MARK: - Share

struct ccurl_share {
    CURLSH *handle;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static void ccurl_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *userptr) {
    (void)handle;
    (void)access;
    struct ccurl_share *share = userptr;
    if (data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&share->locks[data]);
}

static void ccurl_share_unlock(CURL *handle, curl_lock_data data, void *userptr) {
    (void)handle;
    struct ccurl_share *share = userptr;
    if (data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&share->locks[data]);
}

ccurl_share *ccurl_share_create(int share_tls) {
    struct ccurl_share *share = calloc(1, sizeof(struct ccurl_share));
    if (share == NULL) return NULL;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share->locks[i], NULL);
    share->handle = curl_share_init();
    if (share->handle == NULL) {
        free(share);
        return NULL;
    }
    curl_share_setopt(share->handle, CURLSHOPT_LOCKFUNC, ccurl_share_lock);
    curl_share_setopt(share->handle, CURLSHOPT_UNLOCKFUNC, ccurl_share_unlock);
    curl_share_setopt(share->handle, CURLSHOPT_USERDATA, share);
    curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    if (share_tls) curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    return share;
}

CURLSH *ccurl_share_handle(ccurl_share *share) { return share ? share->handle : NULL; }

void ccurl_share_destroy(ccurl_share *share) {
    if (share == NULL) return;
    curl_share_cleanup(share->handle);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&share->locks[i]);
    free(share);
}

// MARK: - Pinning

static int ccurl_x509_digests(X509 *cert, unsigned char sha1[20], unsigned char sha256[32],
                              unsigned char spki_sha256[32]) {
    unsigned int size = 0;
    int ok = X509_digest(cert, EVP_sha1(), sha1, &size) == 1 && size == 20;
    ok = ok && X509_digest(cert, EVP_sha256(), sha256, &size) == 1 && size == 32;
    // The SHA-256 of the DER SubjectPublicKeyInfo, as CURLOPT_PINNEDPUBLICKEY and HPKP use.
    // (X509_pubkey_digest would hash only the key bits, without the algorithm identifier.)
    unsigned char *spki = NULL;
    int length = ok ? i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &spki) : -1;
    ok = ok && length > 0 && spki != NULL &&
         EVP_Digest(spki, (size_t)length, spki_sha256, &size, EVP_sha256(), NULL) == 1 && size == 32;
    OPENSSL_free(spki);
    return ok ? 1 : 0;
}

static int ccurl_pin_in(const unsigned char *pins, size_t count, size_t width, const unsigned char *digest) {
    if (pins == NULL) return 0;
    int found = 0;
    for (size_t i = 0; i < count; i++) {
        // Constant-time per pin; the pins are not secret, but there is no reason to leak.
        if (CRYPTO_memcmp(pins + i * width, digest, width) == 0) found = 1;
    }
    return found;
}

/// Replaces OpenSSL's X509_verify_cert for the connection: chain verification (when asked),
/// then the pins. Returning 0 with SSL_VERIFY_PEER aborts the handshake with an alert, before
/// libcurl sends anything.
static int ccurl_pin_verify(X509_STORE_CTX *store, void *arg) {
    ccurl_pin_check *check = arg;
    check->ran = 1;
    check->matched = 0;
    check->chain_ok = 0;
    check->has_presented = 0;
    X509 *leaf = X509_STORE_CTX_get0_cert(store);
    if (leaf == NULL ||
        !ccurl_x509_digests(leaf, check->presented_sha1, check->presented_sha256, check->presented_spki_sha256)) {
        X509_STORE_CTX_set_error(store, X509_V_ERR_UNSPECIFIED);
        return 0;
    }
    check->has_presented = 1;
    int chain_ok = check->verify_chain ? X509_verify_cert(store) == 1 : 1;
    check->chain_ok = chain_ok;
    size_t spki_count = check->count_spki;
    if (spki_count > CCURL_MAX_CALLBACK_SPKI_PINS) spki_count = CCURL_MAX_CALLBACK_SPKI_PINS;
    check->matched = ccurl_pin_in(check->sha1_pins, check->count_sha1, 20, check->presented_sha1) |
                     ccurl_pin_in(check->sha256_pins, check->count_sha256, 32, check->presented_sha256) |
                     ccurl_pin_in(check->spki_pins, spki_count, 32, check->presented_spki_sha256);
    if (check->report != NULL) check->report(check, check->report_context);
    if (!chain_ok) return 0;  // X509_verify_cert set the reason
    if (check->debug_only || check->matched) return 1;
    X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
}

static CURLcode ccurl_ssl_ctx_function(CURL *handle, void *ssl_ctx, void *userptr) {
    (void)handle;
    SSL_CTX *ctx = ssl_ctx;
    ccurl_pin_check *check = userptr;
    // libcurl 7.88 creates a fresh SSL_CTX for every new connection and calls this hook on it
    // after its own settings, so the callback and its argument belong to this connection.
    SSL_CTX_set_cert_verify_callback(ctx, ccurl_pin_verify, check);
    // The callback's verdict must end the handshake, so peer verification stays requested
    // (also when certificate verification is disabled for the host: then only pins count).
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    // A resumed session skips certificate verification: never resume on a pinned context.
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_sess_set_new_cb(ctx, NULL);
    // No new handshake later on this connection either: `check` lives only for this transfer.
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
    return CURLE_OK;
}

CURLcode ccurl_set_pin_check(CURL *handle, ccurl_pin_check *check) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, check ? ccurl_ssl_ctx_function : NULL);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, check);
}

// MARK: - Files

int ccurl_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
}
