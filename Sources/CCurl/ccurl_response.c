// The response as libcurl hands it over, read in C: the header lines into the response head
// (status, blocks, the declared length) and the body into memory while it goes there, so that
// a plain exchange calls Swift for neither (see CCurl.h, "The response head" and "The body in
// memory").
#include "CCurl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// Makes room for `needed` bytes in all, doubling; 0 when memory ran out. (Out of line: the
/// buffer keeps its memory from one transfer to the next, so this is rare.)
static __attribute__((noinline)) int ccurl_lines_grow(ccurl_header_lines *lines, size_t needed) {
    size_t capacity = lines->capacity ? 2 * lines->capacity : 512;
    if (capacity < needed) capacity = needed;
    unsigned char *grown = realloc(lines->bytes, capacity);
    if (grown == NULL) return 0;
    lines->bytes = grown;
    lines->capacity = capacity;
    return 1;
}

/// Appends one line (`length` bytes, without its CR LF). A line that would take the buffer past
/// 4 GiB, or for which memory ran out, is dropped.
static inline void ccurl_lines_append(ccurl_header_lines *lines, const char *line, size_t length) {
    if (length == 0 || lines->count + length >= UINT32_MAX) return;
    size_t needed = lines->count + length + 1;
    if (needed > lines->capacity && !ccurl_lines_grow(lines, needed)) return;
    if (line[0] == ' ' || line[0] == '\t') lines->has_fold = 1;
    memcpy(lines->bytes + lines->count, line, length);
    lines->bytes[needed - 1] = '\n';
    lines->count = needed;
}

/// Empties the buffer, keeping its memory for the next block.
static void ccurl_lines_clear(ccurl_header_lines *lines) {
    lines->count = 0;
    lines->has_fold = 0;
}

void ccurl_header_lines_free(ccurl_header_lines *lines) {
    free(lines->bytes);
    lines->bytes = NULL;
    lines->count = lines->capacity = 0;
    lines->has_fold = 0;
}

/// Whether the `count` letters of `line` are `lowercased`, in any case.
static int ccurl_has_name(const char *line, const char *lowercased, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if ((line[i] | 0x20) != lowercased[i]) return 0;  // "-" is 0x2D either way
    }
    return 1;
}

/// The decimal number in `start..<end` between optional spaces and tabs; -1 for anything else
/// (or more than 18 digits).
static curl_off_t ccurl_decimal(const char *line, size_t start, size_t end) {
    while (start < end && (line[start] == ' ' || line[start] == '\t')) start++;
    while (end > start && (line[end - 1] == ' ' || line[end - 1] == '\t')) end--;
    if (start == end || end - start > 18) return -1;
    curl_off_t value = 0;
    for (size_t i = start; i < end; i++) {
        if (line[i] < '0' || line[i] > '9') return -1;
        value = value * 10 + (line[i] - '0');
    }
    return value;
}

/// The status code of `HTTP/x nnn reason`: the three digits after the first space(s); -1 when
/// there are not exactly three or anything else comes before the next space. (libcurl 7.88
/// refuses such a line itself, libcurl 8 reads `HTTP/1.1 2000` as a response: the rule is ours.)
static long ccurl_status_code(const char *line, size_t end) {
    const char *space = memchr(line, ' ', end);
    if (space == NULL) return -1;
    size_t i = (size_t)(space - line);
    while (i < end && line[i] == ' ') i++;
    long code = 0;
    int digits = 0;
    for (; i < end && line[i] != ' '; i++) {
        if (line[i] < '0' || line[i] > '9' || digits == 3) return -1;
        code = code * 10 + (line[i] - '0');
        digits++;
    }
    return digits == 3 ? code : -1;
}

/// Whether a status line now starts a response: no block has begun yet, or the last one was a
/// complete interim (1xx) block. Anywhere else a line starting with "HTTP/" is an ordinary
/// (malformed) header line, which must not replace the status and headers already received.
static int ccurl_starts_response(const ccurl_response_head *head) {
    if (head->in_block) return 0;
    if (head->status < 0) return 1;
    return head->complete && head->status < 200;
}

/// A line that may be a status line (starts with "H") or one of the two headers acted on before
/// the body (starts with "c"). Out of line: the ordinary line's path stays short.
static __attribute__((noinline)) int ccurl_head_special_line(ccurl_response_head *head, const char *line, size_t end) {
    if (end >= 5 && memcmp(line, "HTTP/", 5) == 0 && ccurl_starts_response(head)) {
        // A status line: the first, or the final response's after an interim 1xx block.
        ccurl_lines_clear(&head->lines);
        head->complete = 0;
        head->in_block = 1;
        head->status = ccurl_status_code(line, end);
        head->content_length = -1;
        return CCURL_HEAD_LINE_TAKEN;
    }
    int action = CCURL_HEAD_LINE_TAKEN;
    // Content-Length and Content-Encoding are known by the colon after their 14 or 16 letters.
    if ((line[0] | 0x20) == 'c') {
        if (end > 14 && line[14] == ':' && ccurl_has_name(line, "content-length", 14)) {
            curl_off_t length = ccurl_decimal(line, 15, end);
            if (length >= 0) head->content_length = length;
        } else if (end > 16 && line[16] == ':' && head->status >= 200 && ccurl_has_name(line, "content-encoding", 16)) {
            action = CCURL_HEAD_LINE_CONTENT_ENCODING;
        }
    }
    ccurl_lines_append(&head->lines, line, end);
    return action;
}

static inline int ccurl_head_line(ccurl_response_head *head, const char *line, size_t length) {
    size_t end = length;
    while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r')) end--;
    if (end == 0) {
        head->in_block = 0;
        head->complete = head->status >= 0;
        return head->complete && head->status >= 200 ? CCURL_HEAD_LINE_ENDS_FINAL_HEAD : CCURL_HEAD_LINE_TAKEN;
    }
    if (line[0] == 'H' || (line[0] | 0x20) == 'c') return ccurl_head_special_line(head, line, end);
    ccurl_lines_append(&head->lines, line, end);
    return CCURL_HEAD_LINE_TAKEN;
}

int ccurl_response_head_receive(ccurl_response_head *head, const char *line, size_t length) {
    head->action = ccurl_head_line(head, line, length);
    return head->action;
}

void ccurl_response_head_clear(ccurl_response_head *head) {
    ccurl_lines_clear(&head->lines);
    head->status = -1;
    head->in_block = 0;
    head->complete = 0;
    head->content_length = -1;
    head->action = CCURL_HEAD_LINE_TAKEN;
}

size_t ccurl_header_callback(char *buffer, size_t size, size_t count, void *userdata) {
    ccurl_callback_slot *slot = userdata;
    size_t length = size * count;
    if (slot->state == NULL || slot->head == NULL) return slot->header(buffer, size, count, userdata);
    int action = ccurl_head_line(slot->head, buffer, length);
    slot->head->action = action;
    if (action == CCURL_HEAD_LINE_TAKEN) return length;
    if (action == CCURL_HEAD_LINE_ENDS_FINAL_HEAD && slot->body != NULL && slot->body->takes_body) {
        // The memory sink begins here: room for the declared length, nothing else to do.
        ccurl_body_expect(slot->body, slot->head->content_length);
        return length;
    }
    return slot->header(buffer, size, count, userdata);
}

// MARK: - The body in memory

int ccurl_body_reserve(ccurl_body *body, size_t capacity) {
    if (capacity <= body->capacity) return 1;
    unsigned char *grown = realloc(body->bytes, capacity);
    if (grown == NULL) return 0;
    body->bytes = grown;
    body->capacity = capacity;
    return 1;
}

int ccurl_body_append(ccurl_body *body, const char *bytes, size_t length) {
    if (length == 0) return 1;
    size_t needed = body->count + length;
    if (needed > body->capacity) {
        // Doubling (from 16 KiB) when the length was not declared: amortised copies stay linear.
        size_t capacity = body->capacity * 2;
        if (capacity < 16384) capacity = 16384;
        if (body->limit >= 0 && (curl_off_t)capacity > body->limit) capacity = (size_t)body->limit;
        if (capacity < needed) capacity = needed;
        if (!ccurl_body_reserve(body, capacity)) return 0;
    }
    memcpy(body->bytes + body->count, bytes, length);
    body->count = needed;
    return 1;
}

void ccurl_body_expect(ccurl_body *body, curl_off_t length) {
    if (length <= 0 || length > body->limit) return;
    if (length > CCURL_DECLARED_LENGTH_RESERVATION) length = CCURL_DECLARED_LENGTH_RESERVATION;
    (void)ccurl_body_reserve(body, (size_t)length);
}

size_t ccurl_write_callback(char *buffer, size_t size, size_t count, void *userdata) {
    ccurl_callback_slot *slot = userdata;
    size_t length = size * count;
    ccurl_body *body = slot->body;
    if (slot->state != NULL && body != NULL && body->takes_body) {
        curl_off_t received = body->received + (curl_off_t)length;
        if (received <= body->limit && received <= body->cut && ccurl_body_append(body, buffer, length)) {
            body->received = received;
            return length;
        }
    }
    return slot->write(buffer, size, count, userdata);
}

// MARK: - The request head as sent

void ccurl_sent_head_clear(ccurl_sent_head *head) {
    head->buffer.count = 0;
    head->complete = 1;
}

void ccurl_sent_head_free(ccurl_sent_head *head) {
    ccurl_header_lines_free(&head->buffer);
}

static int ccurl_debug_callback(CURL *handle, curl_infotype type, char *data, size_t size, void *userdata) {
    (void)handle;
    if (type != CURLINFO_HEADER_OUT) return 0;
    ccurl_sent_head *head = userdata;
    ccurl_header_lines *buffer = &head->buffer;
    if (head->complete) buffer->count = 0;
    size_t needed = buffer->count + size;
    if (needed > buffer->capacity && !ccurl_lines_grow(buffer, needed)) return 0;
    memcpy(buffer->bytes + buffer->count, data, size);
    buffer->count = needed;
    head->complete = needed >= 4 && memcmp(buffer->bytes + needed - 4, "\r\n\r\n", 4) == 0;
    return 0;
}

CURLcode ccurl_set_sent_head(CURL *handle, ccurl_sent_head *head) {
    ccurl_sent_head_clear(head);
    CURLcode code = curl_easy_setopt(handle, CURLOPT_DEBUGDATA, (void *)head);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, ccurl_debug_callback);
}
