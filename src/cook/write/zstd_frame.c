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
 * the same frame ZSTD_compress2 makes on a new context. ZSTD_compress2 tells
 * Zstd the input's size, which picks the tables for that size (small inputs
 * get small tables) and records it in the frame. */
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

uint8_t *write_zstd_frame(const uint8_t *data, size_t size, int level, size_t *frame_size) {
    bool owned;
    ZSTD_CCtx *cctx = thread_cctx(size, &owned);
    size_t bound = ZSTD_compressBound(size), n = 0;
    uint8_t *frame = cctx != NULL ? malloc(bound ? bound : 1) : NULL;
    bool ok = frame != NULL &&
              !ZSTD_isError(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters)) &&
              !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)) &&
              /* kiln check and the readers catch bit rot */
              !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) &&
              !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1));
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
