/* zstd_frame.c — one Zstd frame of a buffer, on the calling thread's
 * compression context (write.h).
 *
 * Creating a ZSTD_CCtx and sizing its tables costs ~10 µs, more than
 * compressing a small texture's levels or a small mesh chunk, so each thread
 * keeps one context for its small frames (a thread-specific value freed when
 * the thread exits: the pool's workers at their join). Frames over
 * REUSE_MAX_BYTES take a context of their own, freed at once: that cost is
 * lost in theirs, and a kept context would keep the large tables a large
 * input at a high level sizes (tens of MB at level 19). Every frame starts with a
 * full reset (session and parameters), so its bytes depend only on the input
 * and the level, never on what the context compressed before or on the thread:
 * the same frame ZSTD_compress2 makes on a new context with the parameters of
 * zstd_frame_parameters. ZSTD_compress2 tells Zstd the input's size, which
 * picks the tables for that size (small inputs get small tables) and records
 * it in the frame.
 *
 * Two parameters differ from the level's own (BENCHMARKS.md section 3, "Zstd
 * frames that fit their input"):
 * - the window holds the whole input, up to 2^WRITE_ZSTD_WINDOW_LOG_MAX: a
 *   level's window is smaller than a large input (level 2: 1 MiB, a 2048²
 *   BC7 level is 4 MiB), and matches further back were lost. Such frames
 *   become single-segment (RFC 8878: the window is the content size). The
 *   level's tables keep their size; at levels 16 and up a window of 2^27
 *   (inputs over 64 MiB) turns on Zstd's long-distance matcher, as Zstd does
 *   for its own windows that large.
 * - literals stay raw (not Huffman-coded) in frames under
 *   WRITE_ZSTD_RAW_LITERALS_BELOW bytes: building a Huffman table costs
 *   ~2.8 µs per frame, more than a tiny texture level's decode, for a few
 *   bytes saved. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_literalCompressionMode, ZSTD_getCParams */
#include <pthread.h>
#include <stdlib.h>
#include <zstd.h>

#include "cook/write/write.h"

/* Zstd's block size: a context kept for frames up to this holds a few MB at
 * level 19, well under 1 MB at the texture default 2. */
#define REUSE_MAX_BYTES ((size_t)128 << 10)

static pthread_key_t cctx_key;
static bool cctx_key_made;
static pthread_once_t cctx_key_once = PTHREAD_ONCE_INIT;

static void free_cctx(void *cctx) {
    ZSTD_freeCCtx(cctx);
}

static void make_cctx_key(void) {
    cctx_key_made = pthread_key_create(&cctx_key, free_cctx) == 0;
}

/* The calling thread's context for a frame of `size` bytes, created on first
 * use; NULL when out of memory. *owned: a context of this call alone, for the
 * caller to free. */
static ZSTD_CCtx *thread_cctx(size_t size, bool *owned) {
    pthread_once(&cctx_key_once, make_cctx_key);
    *owned = !cctx_key_made || size > REUSE_MAX_BYTES;
    if (*owned)
        return ZSTD_createCCtx();
    ZSTD_CCtx *cctx = pthread_getspecific(cctx_key);
    if (cctx != NULL)
        return cctx;
    cctx = ZSTD_createCCtx();
    if (cctx != NULL && pthread_setspecific(cctx_key, cctx) != 0)
        *owned = true;
    return cctx;
}

/* The smallest window log whose window holds `size` bytes, at most
 * WRITE_ZSTD_WINDOW_LOG_MAX. */
static int window_log_holding(size_t size) {
    int log = ZSTD_WINDOWLOG_MIN;
    while (log < WRITE_ZSTD_WINDOW_LOG_MAX && ((size_t)1 << log) < size)
        log++;
    return log;
}

static bool set_parameter(ZSTD_CCtx *cctx, ZSTD_cParameter parameter, int value) {
    return !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, parameter, value));
}

bool zstd_frame_parameters(ZSTD_CCtx *cctx, size_t size, int level) {
    bool ok = set_parameter(cctx, ZSTD_c_compressionLevel, level) &&
              /* kiln check and the readers catch bit rot */
              set_parameter(cctx, ZSTD_c_checksumFlag, 1) &&
              set_parameter(cctx, ZSTD_c_contentSizeFlag, 1);
    /* The level's window for this size (Zstd already shrinks it to a small
     * input), raised only when smaller than the input. */
    int window_log = window_log_holding(size);
    if (ok && (int)ZSTD_getCParams(level, size, 0).windowLog < window_log)
        ok = set_parameter(cctx, ZSTD_c_windowLog, window_log);
    if (ok && size < WRITE_ZSTD_RAW_LITERALS_BELOW)
        ok = set_parameter(cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
    return ok;
}

uint8_t *write_zstd_frame(const uint8_t *data, size_t size, int level, size_t *frame_size) {
    bool owned;
    ZSTD_CCtx *cctx = thread_cctx(size, &owned);
    size_t bound = ZSTD_compressBound(size), n = 0;
    uint8_t *frame = cctx != NULL ? malloc(bound ? bound : 1) : NULL;
    bool ok = frame != NULL &&
              !ZSTD_isError(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters)) &&
              zstd_frame_parameters(cctx, size, level);
    if (ok) {
        n = ZSTD_compress2(cctx, frame, bound, data, size);
        ok = !ZSTD_isError(n);
    }
    if (owned)
        ZSTD_freeCCtx(cctx);
    if (!ok) {
        free(frame);
        return NULL;
    }
    /* Give back the bound's unused tail (noise grows a little, zeros shrink
     * to almost nothing). */
    uint8_t *fit = realloc(frame, n ? n : 1);
    *frame_size = n;
    return fit != NULL ? fit : frame;
}
