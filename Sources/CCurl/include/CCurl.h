// CCurl: a thin, typed C layer over libcurl and OpenSSL for the HTTPTransport engine.
//
// Swift cannot call C variadic functions such as curl_easy_setopt, so every option kind gets
// a non-variadic wrapper here. The share-lock callbacks and the certificate-pin verification
// callback also live here, in C, because they run inside libcurl and OpenSSL.
#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

/// Initializes libcurl once for the process and ignores SIGPIPE. Safe to call from any thread.
void ccurl_global_init(void);

// MARK: - Easy handle options

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_setopt_share(CURL *handle, CURLSH *share);
CURLcode ccurl_setopt_mime(CURL *handle, curl_mime *mime);

typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);
typedef int (*ccurl_progress_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);
typedef int (*ccurl_seek_callback)(void *userdata, curl_off_t offset, int origin);

/// Sets the write, header, read, seek and progress functions (once, when a handle is made).
/// The progress function runs only while CURLOPT_NOPROGRESS is 0.
CURLcode ccurl_set_callbacks(CURL *handle, ccurl_data_callback write, ccurl_data_callback header,
                             ccurl_data_callback read, ccurl_seek_callback seek,
                             ccurl_progress_callback progress);
/// Points every callback at the user data of the next transfer.
CURLcode ccurl_set_callback_userdata(CURL *handle, void *userdata);

/// libcurl's open-socket callback (CURLOPT_OPENSOCKETFUNCTION): sees the resolved address of
/// every connection attempt, and returns a new socket or CURL_SOCKET_BAD to refuse it.
typedef curl_socket_t (*ccurl_opensocket_callback)(void *clientp, curlsocktype purpose,
                                                   struct curl_sockaddr *address);
CURLcode ccurl_set_opensocket_callback(CURL *handle, ccurl_opensocket_callback callback, void *clientp);

/// libcurl's pre-request callback (CURLOPT_PREREQFUNCTION): called each time a request is about
/// to be sent on a connection, including libcurl's own resend of a request on a fresh connection
/// when a reused one died. Return CURL_PREREQFUNC_OK to send, anything else to abort.
typedef int (*ccurl_prereq_callback)(void *userdata, char *primary_ip, char *local_ip,
                                     int primary_port, int local_port);
CURLcode ccurl_set_prereq_callback(CURL *handle, ccurl_prereq_callback callback);

/// The value a read callback returns to abort the transfer.
size_t ccurl_readfunc_abort(void);
/// The value a read callback returns to pause sending (CURL_READFUNC_PAUSE).
size_t ccurl_readfunc_pause(void);
/// The value a write callback returns to pause receiving (CURL_WRITEFUNC_PAUSE).
size_t ccurl_writefunc_pause(void);
/// Resumes a paused transfer (curl_easy_pause with CURLPAUSE_CONT); call it on the thread that performs.
CURLcode ccurl_unpause(CURL *handle);
/// Pauses receiving outside a callback (curl_easy_pause with CURLPAUSE_RECV), on the thread that performs.
CURLcode ccurl_pause_receive(CURL *handle);

// MARK: - Multi handle

/// curl_multi_setopt for a `long` option (e.g. CURLMOPT_PIPELINING, CURLMOPT_MAX_HOST_CONNECTIONS).
CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

// MARK: - The response head (the header callback, in C)

/// A response's header lines as received: each without its CR LF and ended with '\n', in one
/// buffer grown by doubling. `has_fold`: a line starts with a space or a tab (obs-fold).
typedef struct ccurl_header_lines {
    unsigned char *bytes;
    size_t count, capacity;
    int has_fold;
} ccurl_header_lines;

/// Frees the buffer's memory.
void ccurl_header_lines_free(ccurl_header_lines *lines);

/// The head of the response a transfer is receiving, read line by line as libcurl hands the
/// lines over (`ccurl_response_head_receive`): the current block's header lines, its status,
/// where the blocks stand (interim 1xx blocks are replaced by the next response), and the
/// declared body length.
typedef struct ccurl_response_head {
    ccurl_header_lines lines;
    long status;                /// the current response's status; -1: none (no status line, or one without a code)
    int in_block;               /// 1 between a status line and the blank line that ends its block
    int complete;               /// 1 once the blank line ending a block with a status arrived
    curl_off_t content_length;  /// the block's declared Content-Length; -1: none, or not a number
    int action;                 /// what the last line asks of the caller (a CCURL_HEAD_LINE_ value)
} ccurl_response_head;

/// What a header line asks of the caller besides what the head records.
enum {
    CCURL_HEAD_LINE_TAKEN = 0,             /// nothing
    CCURL_HEAD_LINE_ENDS_FINAL_HEAD = 1,   /// the final response's head is complete: its body follows
    CCURL_HEAD_LINE_CONTENT_ENCODING = 2,  /// a final response's Content-Encoding line (checked before the body)
};

/// Reads one header line as libcurl hands it over (with its CR LF): a status line starts a
/// response (the first, or the one after an interim block; anywhere else a line starting with
/// "HTTP/" is an ordinary line), a blank line ends a block, any other line is appended to
/// `lines`. Returns (and records in `action`) what the line asks of the caller.
int ccurl_response_head_receive(ccurl_response_head *head, const char *line, size_t length);
/// Readies the head for a new transfer (the lines keep their memory).
void ccurl_response_head_clear(ccurl_response_head *head);

// MARK: - The body in memory (the write callback, in C)

/// The most a declared Content-Length makes a body in memory reserve before its bytes arrive
/// (a hostile 100 MB declaration reserves this much; the rest grows as the bytes arrive).
#define CCURL_DECLARED_LENGTH_RESERVATION 262144

/// A response body gathered in memory, in one malloc'd buffer, handed over whole at the end
/// (the caller takes `bytes` and empties the struct). The rules of the memory sink: at most
/// `limit` bytes (the session's maxResponseSize), a kept body ended at `cut` on purpose.
typedef struct ccurl_body {
    unsigned char *bytes;
    size_t count, capacity;
    curl_off_t received;  /// body bytes taken so far
    curl_off_t limit;     /// more than this many fails (the caller reports it)
    curl_off_t cut;       /// a kept body ends here (CURL_OFF_T_MAX: never)
    int takes_body;       /// 1 while the body goes here and nothing failed: the write callback appends itself
} ccurl_body;

/// Appends `length` bytes, growing the buffer by doubling (from 16 KiB, at most to `limit`);
/// 0 when memory ran out.
int ccurl_body_append(ccurl_body *body, const char *bytes, size_t length);
/// Makes room for `capacity` bytes in all; 0 when memory ran out.
int ccurl_body_reserve(ccurl_body *body, size_t capacity);
/// The final head arrived with a declared length (-1: none): a body within the limit gets room
/// for it, up to CCURL_DECLARED_LENGTH_RESERVATION.
void ccurl_body_expect(ccurl_body *body, curl_off_t length);

/// What every callback of a handle gets as its user data: the running transfer's state (the
/// first member, so the user data read as a `void *` is it), the transfer's response head and
/// body in memory, and the Swift callbacks for what C leaves to the state.
typedef struct ccurl_callback_slot {
    void *state;
    ccurl_response_head *head;
    ccurl_body *body;
    ccurl_data_callback header;
    ccurl_data_callback write;
} ccurl_callback_slot;

/// The header callback (CURLOPT_HEADERFUNCTION) for a handle whose user data is a
/// ccurl_callback_slot: every line goes to `slot->head` here, in C; the final head of a body
/// that goes to memory reserves its room here too. Only a line that asks something of the
/// transfer's other sinks or its decoding goes on to `slot->header`, and every line when no
/// transfer is running (`state` NULL).
size_t ccurl_header_callback(char *buffer, size_t size, size_t count, void *userdata);

/// The write callback (CURLOPT_WRITEFUNCTION) for such a handle: while the body goes to memory
/// (`takes_body`) and the bytes stay within its limit and cut, they are appended here, in C;
/// anything else (another sink, the limit, the cut, no memory) goes on to `slot->write`.
size_t ccurl_write_callback(char *buffer, size_t size, size_t count, void *userdata);

// MARK: - The request head as sent (the debug callback, in C)

/// The last request head a transfer sent, as libcurl wrote it (request line, header lines, blank
/// line). `complete`: the bytes so far end a head, so the next head replaces them (a resend,
/// an auth round or a 100-continue retry sends the head again: the last one is kept).
typedef struct ccurl_sent_head {
    ccurl_header_lines buffer;  /// the bytes as written (CR LF kept; `has_fold` unused)
    int complete;
} ccurl_sent_head;

/// Empties the head for a new transfer (keeping its memory).
void ccurl_sent_head_clear(ccurl_sent_head *head);
/// Frees the head's memory.
void ccurl_sent_head_free(ccurl_sent_head *head);
/// Sets CURLOPT_DEBUGFUNCTION to a callback that keeps the CURLINFO_HEADER_OUT bytes in `head`
/// and returns at once for every other kind (libcurl calls it only while CURLOPT_VERBOSE is 1).
CURLcode ccurl_set_sent_head(CURL *handle, ccurl_sent_head *head);

// MARK: - Transfer information

/// The figures of the last transfer, read in one call (times in microseconds; 0 when unknown).
typedef struct ccurl_metrics {
    curl_off_t name_lookup_us, connect_us, tls_handshake_us, first_byte_us, total_us;
    curl_off_t bytes_sent, bytes_received;
    long connects, http_version, remote_port, local_port;
    const char *remote_address;  // owned by the handle, valid until its next transfer
} ccurl_metrics;
/// `sent_body`: whether the request had a body (without one, no body bytes were sent: 0 is
/// not asked of libcurl); without a new connection the connect and handshake times are 0.
void ccurl_get_metrics(CURL *handle, int sent_body, ccurl_metrics *metrics);
/// One `long` of transfer information (e.g. CURLINFO_HTTP_CONNECTCODE, CURLINFO_OS_ERRNO).
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
/// The pointer stored with CURLOPT_PRIVATE (NULL when none was).
void *ccurl_private(CURL *handle);

// MARK: - Share (DNS cache and TLS sessions, with pthread locks)

/// A share object with its own mutexes. Shares DNS always, TLS sessions when `share_tls` is 1.
typedef struct ccurl_share ccurl_share;
ccurl_share *ccurl_share_create(int share_tls);
CURLSH *ccurl_share_handle(ccurl_share *share);
void ccurl_share_destroy(ccurl_share *share);

// MARK: - Certificate pinning inside the TLS handshake

/// How many public-key (SPKI SHA-256) pins the handshake callback itself can hold. Public-key
/// pins normally go through CURLOPT_PINNEDPUBLICKEY; the callback checks them only when a host
/// also has certificate-digest pins, so that any one pin of any kind matches (pin rotation).
#define CCURL_MAX_CALLBACK_SPKI_PINS 16

typedef struct ccurl_pin_check ccurl_pin_check;

/// Called inside the handshake once the leaf's digests are recorded (e.g. to log them for the
/// `.debug` fingerprint). Runs on the thread performing the transfer.
typedef void (*ccurl_pin_report_callback)(const ccurl_pin_check *check, void *context);

/// Pins of whole leaf certificates (SHA-1 or SHA-256 of the DER), checked by an OpenSSL
/// certificate-verification callback installed through CURLOPT_SSL_CTX_FUNCTION. The callback
/// runs the normal chain verification first (when `verify_chain` is 1), then compares the leaf.
/// It records what the server presented so the caller can report it.
///
/// The callback is installed on the SSL_CTX that libcurl (7.88, OpenSSL backend) creates for
/// every new connection; it does not run for a reused connection nor for a resumed TLS
/// session, which is why the installer also turns TLS session caching off on that context, and
/// why handles using it must not share TLS sessions or connections with other policies.
struct ccurl_pin_check {
    const unsigned char *sha1_pins;    // count_sha1 × 20 bytes
    size_t count_sha1;
    const unsigned char *sha256_pins;  // count_sha256 × 32 bytes
    size_t count_sha256;
    unsigned char spki_pins[CCURL_MAX_CALLBACK_SPKI_PINS * 32]; // count_spki × 32 bytes
    size_t count_spki;
    int verify_chain;                  // 1: OpenSSL chain verification must pass too
    int debug_only;                    // 1: record and accept (the .debug fingerprint)
    ccurl_pin_report_callback report;  // optional, see above
    void *report_context;
    char host[256];                    // the host name, for reports (NUL-terminated)
    // Results, written during the handshake:
    int ran;                           // 1 once the callback ran
    int matched;                       // 1 if a pin matched
    int chain_ok;                      // 1 if chain verification passed (or was not asked for)
    unsigned char presented_sha1[20];
    unsigned char presented_sha256[32];
    unsigned char presented_spki_sha256[32];
    int has_presented;
};

/// Installs the pin check for the next transfer on `handle` (the struct must outlive it);
/// NULL removes the check.
CURLcode ccurl_set_pin_check(CURL *handle, ccurl_pin_check *check);

// MARK: - Files

/// Starts writing back `length` bytes of `fd` from `offset` without waiting (sync_file_range
/// with SYNC_FILE_RANGE_WRITE), so that a later fsync has little left to do.
int ccurl_start_writeback(int fd, long long offset, long long length);

// MARK: - Content decoding outside libcurl (ccurl_decode.c)

/// The content codings `ccurl_decoder` decodes (`identity` needs no decoder).
enum {
    CCURL_CODING_GZIP = 1,     /// gzip and x-gzip (the zlib wrapper accepted too, as libcurl does)
    CCURL_CODING_DEFLATE = 2,  /// the zlib wrapper, or raw deflate (as libcurl accepts)
    CCURL_CODING_BR = 3,
    CCURL_CODING_ZSTD = 4,     /// windows of at most 8 MiB (RFC 9659)
};
/// The most codings one body may list (libcurl's limit too).
#define CCURL_MAX_CODINGS 5

/// A body's decoder for the codings its Content-Encoding lists, which decodes no more than it is
/// asked for: the input it did not use stays with the caller.
typedef struct ccurl_decoder ccurl_decoder;

/// `codings` in the order the header lists them (applied first to last, so decoded last to
/// first), 1 to CCURL_MAX_CODINGS of them; NULL when memory ran out.
ccurl_decoder *ccurl_decoder_create(const int *codings, size_t count);
void ccurl_decoder_free(ccurl_decoder *decoder);
/// Decodes from `*input` (`*length` bytes; both advanced past what it used) into `output`, at
/// most `capacity` bytes. Returns the bytes written (less than `capacity` only when it needs more
/// input, or the data ended), or -1 when the data is not valid (`ccurl_decoder_error` says why).
long ccurl_decoder_decode(ccurl_decoder *decoder, const unsigned char **input, size_t *length,
                          unsigned char *output, size_t capacity);
/// 1 when every coding's data ended and nothing decoded waits.
int ccurl_decoder_finished(const ccurl_decoder *decoder);
/// Why decoding failed: the coding's name, a colon, the decoder's reason.
const char *ccurl_decoder_error(const ccurl_decoder *decoder);

// MARK: - WebSockets (ccurl_ws.c)

// libcurl's WebSocket API (8.x) is looked up at run time: the library builds against 7.88's
// headers, which do not declare it, and runs on libcurls with and without it.

/// Frame flags, as libcurl 8 numbers them (CURLWS_TEXT, ...).
enum {
    CCURL_WS_TEXT = 1 << 0,
    CCURL_WS_BINARY = 1 << 1,
    CCURL_WS_CONT = 1 << 2,
    CCURL_WS_CLOSE = 1 << 3,
    CCURL_WS_PING = 1 << 4,
    CCURL_WS_OFFSET = 1 << 5,
    CCURL_WS_PONG = 1 << 6,
};
/// CURLOPT_CONNECT_ONLY's value for a WebSocket: the transfer ends after the upgrade.
#define CCURL_WS_CONNECT_ONLY 2L

/// 1 when this process's libcurl lists ws and wss among its protocols and exports
/// curl_ws_recv, curl_ws_send and curl_ws_meta; 0 otherwise.
int ccurl_ws_available(void);

/// What curl_ws_recv said of the frame the bytes belong to.
typedef struct ccurl_ws_frame {
    int flags;
    curl_off_t offset;     /// where the bytes start in the frame's payload
    curl_off_t bytesleft;  /// the frame's payload bytes still to come after these
} ccurl_ws_frame;

/// curl_ws_recv: CURLE_AGAIN when nothing waits, CURLE_GOT_NOTHING when the connection ended,
/// CURLE_NOT_BUILT_IN when the libcurl has no WebSockets.
CURLcode ccurl_ws_recv(CURL *handle, void *buffer, size_t length, size_t *received, ccurl_ws_frame *frame);
/// curl_ws_send of one whole frame (or the rest of one): `sent` payload bytes were taken.
CURLcode ccurl_ws_send(CURL *handle, const void *buffer, size_t length, size_t *sent, unsigned int flags);
/// The connection's socket (CURLINFO_ACTIVESOCKET), -1 when there is none.
int ccurl_active_socket(CURL *handle);

#endif
