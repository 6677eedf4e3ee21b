// A response body's content decoding outside libcurl, for bodies that must decode no faster
// than their consumer reads (a stream's): the caller asks for at most so many decoded bytes and
// keeps the input the decoder did not use, instead of libcurl decoding all it read at once.
#include "CCurl.h"

#include <brotli/decode.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

/// Between two stages of a chain (e.g. "gzip, br"): the earlier stage's output not yet read.
#define STAGE_BUFFER_SIZE 16384
/// RFC 9659: zstd content needs a window of at most 8 MiB (2^23).
#define ZSTD_WINDOW_LOG_MAX 23

typedef struct ccurl_stage {
    int coding;
    int ended;        // the coding's data ended (zstd: at a frame's end)
    int used_input;   // input went in: deflate can no longer fall back to raw
    int trailer;      // raw deflate: bytes after its end tolerated (as libcurl does)
    z_stream z;
    int z_ready;
    BrotliDecoderState *brotli;
    ZSTD_DStream *zstd;
    unsigned char *buffer;  // this stage's output for the next stage (all but the last stage)
    size_t start, end;
} ccurl_stage;

struct ccurl_decoder {
    ccurl_stage stages[CCURL_MAX_CODINGS];  // stages[0] decodes the bytes as received
    size_t count;
    char error[200];
};

static const char *coding_name(int coding) {
    switch (coding) {
    case CCURL_CODING_GZIP: return "gzip";
    case CCURL_CODING_DEFLATE: return "deflate";
    case CCURL_CODING_BR: return "br";
    default: return "zstd";
    }
}

static int stage_init(ccurl_stage *stage, int coding) {
    stage->coding = coding;
    switch (coding) {
    case CCURL_CODING_GZIP:
    case CCURL_CODING_DEFLATE:
        // gzip: the gzip or zlib wrapper, detected (32); deflate: the zlib wrapper, raw on failure.
        if (inflateInit2(&stage->z, coding == CCURL_CODING_GZIP ? MAX_WBITS + 32 : MAX_WBITS) != Z_OK) return 0;
        stage->z_ready = 1;
        return 1;
    case CCURL_CODING_BR:
        stage->brotli = BrotliDecoderCreateInstance(NULL, NULL, NULL);
        return stage->brotli != NULL;
    case CCURL_CODING_ZSTD:
        stage->zstd = ZSTD_createDStream();
        if (stage->zstd == NULL) return 0;
        return !ZSTD_isError(ZSTD_DCtx_setParameter(stage->zstd, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX));
    default:
        return 0;
    }
}

static void stage_free(ccurl_stage *stage) {
    if (stage->z_ready) inflateEnd(&stage->z);
    if (stage->brotli) BrotliDecoderDestroyInstance(stage->brotli);
    if (stage->zstd) ZSTD_freeDStream(stage->zstd);
    free(stage->buffer);
}

ccurl_decoder *ccurl_decoder_create(const int *codings, size_t count) {
    if (count == 0 || count > CCURL_MAX_CODINGS) return NULL;
    ccurl_decoder *decoder = calloc(1, sizeof(ccurl_decoder));
    if (decoder == NULL) return NULL;
    decoder->count = count;
    for (size_t index = 0; index < count; index++) {
        // The last coding listed was applied last: it is decoded first.
        ccurl_stage *stage = &decoder->stages[index];
        int ready = stage_init(stage, codings[count - 1 - index]);
        if (ready && index + 1 < count) ready = (stage->buffer = malloc(STAGE_BUFFER_SIZE)) != NULL;
        if (!ready) {
            decoder->count = index + 1;
            ccurl_decoder_free(decoder);
            return NULL;
        }
    }
    return decoder;
}

void ccurl_decoder_free(ccurl_decoder *decoder) {
    if (decoder == NULL) return;
    for (size_t index = 0; index < decoder->count; index++) stage_free(&decoder->stages[index]);
    free(decoder);
}

static long failed(ccurl_decoder *decoder, const ccurl_stage *stage, const char *detail) {
    snprintf(decoder->error, sizeof decoder->error, "%s: %s", coding_name(stage->coding), detail);
    return -1;
}

/// Input after the end of a coding's data: an error, except the few bytes libcurl tolerates
/// after raw deflate.
static long after_end(ccurl_decoder *decoder, ccurl_stage *stage, const unsigned char **input, size_t *length) {
    size_t tolerated = *length < (size_t)stage->trailer ? *length : (size_t)stage->trailer;
    stage->trailer -= (int)tolerated;
    *input += tolerated;
    *length -= tolerated;
    return *length ? failed(decoder, stage, "bytes follow the end of the data") : 0;
}

static long zlib_step(ccurl_decoder *decoder, ccurl_stage *stage, const unsigned char **input, size_t *length,
                      unsigned char *output, size_t capacity) {
    z_stream *z = &stage->z;
    uInt given = *length > UINT_MAX ? UINT_MAX : (uInt)*length;
    z->next_in = (Bytef *)*input;
    z->avail_in = given;
    z->next_out = output;
    z->avail_out = capacity > UINT_MAX ? UINT_MAX : (uInt)capacity;
    int status = inflate(z, Z_NO_FLUSH);
    if (status == Z_DATA_ERROR && stage->coding == CCURL_CODING_DEFLATE && !stage->used_input
        && z->avail_out == capacity && inflateReset2(z, -MAX_WBITS) == Z_OK) {
        // Some servers send deflate without its zlib wrapper (libcurl accepts that too).
        stage->trailer = 4;
        z->next_in = (Bytef *)*input;
        z->avail_in = given;
        status = inflate(z, Z_NO_FLUSH);
    }
    if (given > 0) stage->used_input = 1;
    size_t used = given - z->avail_in, written = capacity - z->avail_out;
    *input += used;
    *length -= used;
    if (status == Z_STREAM_END) {
        stage->ended = 1;
        if (after_end(decoder, stage, input, length) < 0) return -1;
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
        return failed(decoder, stage, z->msg ? z->msg : "the data is not valid");
    }
    return (long)written;
}

static long brotli_step(ccurl_decoder *decoder, ccurl_stage *stage, const unsigned char **input, size_t *length,
                        unsigned char *output, size_t capacity) {
    size_t available_out = capacity;
    BrotliDecoderResult result = BrotliDecoderDecompressStream(stage->brotli, length, input, &available_out, &output, NULL);
    if (result == BROTLI_DECODER_RESULT_ERROR) {
        char detail[96];
        snprintf(detail, sizeof detail, "the data is not valid (%s)", BrotliDecoderErrorString(BrotliDecoderGetErrorCode(stage->brotli)));
        return failed(decoder, stage, detail);
    }
    if (result == BROTLI_DECODER_RESULT_SUCCESS) {
        stage->ended = 1;
        if (*length) return failed(decoder, stage, "bytes follow the end of the data");
    }
    return (long)(capacity - available_out);
}

static long zstd_step(ccurl_decoder *decoder, ccurl_stage *stage, const unsigned char **input, size_t *length,
                      unsigned char *output, size_t capacity) {
    ZSTD_inBuffer in = { *input, *length, 0 };
    ZSTD_outBuffer out = { output, capacity, 0 };
    size_t hint = ZSTD_decompressStream(stage->zstd, &out, &in);
    if (ZSTD_isError(hint)) {
        if (ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge) {
            return failed(decoder, stage, "the data needs a window larger than 8 MiB (RFC 9659 allows at most 8 MiB)");
        }
        return failed(decoder, stage, ZSTD_getErrorName(hint));
    }
    *input += in.pos;
    *length -= in.pos;
    // (More frames may follow: the data has ended only at a frame's end.)
    if (in.pos > 0 || out.pos > 0) stage->ended = hint == 0;
    return (long)out.pos;
}

static long stage_step(ccurl_decoder *decoder, ccurl_stage *stage, const unsigned char **input, size_t *length,
                       unsigned char *output, size_t capacity) {
    if (stage->ended && stage->coding != CCURL_CODING_ZSTD) {
        return *length ? after_end(decoder, stage, input, length) : 0;
    }
    switch (stage->coding) {
    case CCURL_CODING_BR: return brotli_step(decoder, stage, input, length, output, capacity);
    case CCURL_CODING_ZSTD: return zstd_step(decoder, stage, input, length, output, capacity);
    default: return zlib_step(decoder, stage, input, length, output, capacity);
    }
}

/// Up to `capacity` bytes of stage `index`'s output, its input taken from the stage before it
/// (refilling that stage's buffer when it is empty) or, for the first, the bytes received.
static long stage_pull(ccurl_decoder *decoder, size_t index, const unsigned char **input, size_t *length,
                       unsigned char *output, size_t capacity) {
    ccurl_stage *stage = &decoder->stages[index];
    size_t written = 0;
    while (written < capacity) {
        const unsigned char *source = *input;
        size_t available = *length;
        ccurl_stage *previous = index > 0 ? &decoder->stages[index - 1] : NULL;
        if (previous) {
            if (previous->start == previous->end) {
                long refilled = stage_pull(decoder, index - 1, input, length, previous->buffer, STAGE_BUFFER_SIZE);
                if (refilled < 0) return -1;
                previous->start = 0;
                previous->end = (size_t)refilled;
            }
            source = previous->buffer + previous->start;
            available = previous->end - previous->start;
        }
        size_t left = available;
        long produced = stage_step(decoder, stage, &source, &left, output + written, capacity - written);
        if (produced < 0) return -1;
        if (previous) {
            previous->start += available - left;
        } else {
            *input = source;
            *length = left;
        }
        written += (size_t)produced;
        // No progress: the stage needs input that has not arrived (or its data ended).
        if (produced == 0 && left == available) break;
    }
    return (long)written;
}

long ccurl_decoder_decode(ccurl_decoder *decoder, const unsigned char **input, size_t *length,
                          unsigned char *output, size_t capacity) {
    if (capacity == 0) return 0;
    return stage_pull(decoder, decoder->count - 1, input, length, output, capacity);
}

int ccurl_decoder_finished(const ccurl_decoder *decoder) {
    for (size_t index = 0; index < decoder->count; index++) {
        const ccurl_stage *stage = &decoder->stages[index];
        if (!stage->ended || stage->start != stage->end) return 0;
    }
    return 1;
}

const char *ccurl_decoder_error(const ccurl_decoder *decoder) { return decoder->error; }
