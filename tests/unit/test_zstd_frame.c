/* zstd_frame.c: write_zstd_frame on each thread's reused context (write.h).
 * Every frame is byte for byte the frame ZSTD_compress2 makes on a new
 * context with the same level, checksum and content size, whatever the
 * context compressed before (another level, a larger or smaller input, an
 * input over the size whose context is kept) and whichever thread of the
 * pool made it; it inflates to its input and records content size and
 * checksum. The workers' kept contexts are freed when they are joined
 * (parallel_stop: LeakSanitizer reports them otherwise).
 *
 * Built twice: with the other tests (AddressSanitizer when KILN_SANITIZE), and
 * as test_zstd_frame_tsan from zstd_frame.c and parallel.c alone under
 * ThreadSanitizer. It includes nothing of the cooker but those two headers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* cmocka needs the includes above first. */
#include <cmocka.h>
#include <zstd.h>

#include "cook/core/parallel.h"
#include "cook/write/write.h"

/* Inputs of different sizes and kinds: zeros, short repeats, noise, and a
 * mix, so frames take raw, RLE and compressed blocks. Sizes straddle the
 * kept context's limit (128 KiB). */
enum { INPUTS = 12 };
static const size_t input_sizes[INPUTS] = {0,     1,      16,     64,     1024, 4096,
                                           65536, 131072, 131073, 200000, 300,  70000};
static const int input_levels[INPUTS] = {2, 2, 19, 2, 3, -1, 2, 1, 2, 19, -5, 2};

static uint8_t *make_input(size_t index, size_t size) {
    uint8_t *data = malloc(size ? size : 1);
    assert_non_null(data);
    uint32_t state = 0x9E3779B9u * (uint32_t)(index + 1);
    for (size_t i = 0; i < size; i++) {
        state = state * 1664525u + 1013904223u;
        switch (index % 4) {
        case 0:
            data[i] = 0;
            break;
        case 1:
            data[i] = (uint8_t)(i % 37);
            break;
        case 2:
            data[i] = (uint8_t)(state >> 24);
            break;
        default:
            data[i] = (i / 512) % 2 ? (uint8_t)(state >> 24) : (uint8_t)(i & 7);
            break;
        }
    }
    return data;
}

/* The frame a new context makes: the independent reference. */
static uint8_t *reference_frame(const uint8_t *data, size_t size, int level, size_t *frame_size) {
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_non_null(cctx);
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)));
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)));
    size_t bound = ZSTD_compressBound(size);
    uint8_t *frame = malloc(bound);
    assert_non_null(frame);
    size_t n = ZSTD_compress2(cctx, frame, bound, data, size);
    assert_false(ZSTD_isError(n));
    ZSTD_freeCCtx(cctx);
    *frame_size = n;
    return frame;
}

typedef struct frames {
    uint8_t *input[INPUTS];
    uint8_t *expected[INPUTS];
    size_t expected_size[INPUTS];
    uint8_t *got[INPUTS * 8];
    size_t got_size[INPUTS * 8];
} frames;

static void frames_make(frames *f) {
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < INPUTS; i++) {
        f->input[i] = make_input(i, input_sizes[i]);
        f->expected[i] =
            reference_frame(f->input[i], input_sizes[i], input_levels[i], &f->expected_size[i]);
    }
}

static void frames_free(frames *f) {
    for (size_t i = 0; i < INPUTS; i++) {
        free(f->input[i]);
        free(f->expected[i]);
    }
    for (size_t i = 0; i < INPUTS * 8; i++)
        free(f->got[i]);
}

/* Item k compresses input k % INPUTS: with 8 rounds over the inputs every
 * thread's context sees several levels and sizes in turn. */
static void compress_item(void *ctx, uint32_t k) {
    frames *f = ctx;
    size_t i = k % INPUTS;
    f->got[k] = write_zstd_frame(f->input[i], input_sizes[i], input_levels[i], &f->got_size[k]);
}

static void check_frame(const frames *f, uint32_t k) {
    size_t i = k % INPUTS;
    assert_non_null(f->got[k]);
    assert_int_equal(f->got_size[k], f->expected_size[i]);
    assert_memory_equal(f->got[k], f->expected[i], f->expected_size[i]);
    assert_int_equal(ZSTD_getFrameContentSize(f->got[k], f->got_size[k]), input_sizes[i]);
    /* RFC 8878: the descriptor after the magic number, bit 2 Content_Checksum_flag. */
    assert_true(f->got_size[k] > 4 && (f->got[k][4] & 0x04) != 0);
    uint8_t *back = malloc(input_sizes[i] + 1);
    assert_non_null(back);
    size_t n = ZSTD_decompress(back, input_sizes[i] + 1, f->got[k], f->got_size[k]);
    assert_int_equal(n, input_sizes[i]);
    if (n > 0)
        assert_memory_equal(back, f->input[i], n);
    free(back);
}

static void frames_equal_a_new_contexts_on_one_thread(void **state) {
    (void)state;
    frames f;
    frames_make(&f);
    for (uint32_t k = 0; k < INPUTS * 8; k++)
        compress_item(&f, k);
    for (uint32_t k = 0; k < INPUTS * 8; k++)
        check_frame(&f, k);
    frames_free(&f);
}

static void frames_equal_a_new_contexts_on_every_thread(void **state) {
    (void)state;
    for (unsigned threads = 2; threads <= 4; threads += 2) {
        frames f;
        frames_make(&f);
        parallel_for(threads, INPUTS * 8, compress_item, &f);
        for (uint32_t k = 0; k < INPUTS * 8; k++)
            check_frame(&f, k);
        frames_free(&f);
    }
    parallel_stop(); /* the workers' contexts are freed as they exit */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_equal_a_new_contexts_on_one_thread),
        cmocka_unit_test(frames_equal_a_new_contexts_on_every_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
