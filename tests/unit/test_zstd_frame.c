/* zstd_frame.c: write_zstd_frame on each thread's reused context (write.h).
 * Every frame is byte for byte the frame ZSTD_compress2 makes on a new
 * context with zstd_frame_parameters, whatever the context compressed before
 * (another level, a larger or smaller input, an input over the size whose
 * context is kept) and whichever thread of the pool made it; it inflates to
 * its input and records content size and checksum. The workers' kept
 * contexts are freed when they are joined (parallel_stop: LeakSanitizer
 * reports them otherwise).
 *
 * The two rules of the parameters, read back from the frame's bytes as RFC
 * 8878 lays them out (parsed here, not by Zstd): a frame's window holds its
 * whole input (up to 2^WRITE_ZSTD_WINDOW_LOG_MAX), and a frame under
 * WRITE_ZSTD_RAW_LITERALS_BELOW bytes keeps its literals raw while a larger
 * one Huffman-codes them.
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
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_literalCompressionMode */
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

/* The frame a new context makes: the reference of the reuse tests. */
static uint8_t *reference_frame(const uint8_t *data, size_t size, int level, size_t *frame_size) {
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_non_null(cctx);
    assert_true(zstd_frame_parameters(cctx, size, level));
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

/* RFC 8878, read here without Zstd: what a frame's header says and how its
 * first block codes its literals. */
typedef struct frame_header {
    bool single_segment;
    uint64_t window_size;  /* the content size when single_segment */
    uint64_t content_size; /* when the header records it */
    int first_block_type;  /* Block_Type: 0 Raw, 1 RLE, 2 Compressed */
    int literals_type;     /* of a compressed first block: 0 Raw, 1 RLE, 2 Huffman, 3 Treeless */
} frame_header;

static uint64_t read_le(const uint8_t *p, size_t bytes) {
    uint64_t value = 0;
    for (size_t i = bytes; i-- > 0;)
        value = value << 8 | p[i];
    return value;
}

static frame_header parse_frame(const uint8_t *frame, size_t size) {
    frame_header h = {.literals_type = -1};
    assert_true(size >= 6);
    assert_int_equal(read_le(frame, 4), 0xFD2FB528u); /* Magic_Number */
    uint8_t descriptor = frame[4];
    unsigned content_flag = descriptor >> 6, dictionary_flag = descriptor & 3;
    h.single_segment = (descriptor >> 5) & 1;
    size_t at = 5;
    if (!h.single_segment) { /* Window_Descriptor */
        unsigned exponent = frame[at] >> 3, mantissa = frame[at] & 7;
        uint64_t base = (uint64_t)1 << (10 + exponent);
        h.window_size = base + base / 8 * mantissa;
        at++;
    }
    static const size_t dictionary_bytes[4] = {0, 1, 2, 4};
    at += dictionary_bytes[dictionary_flag];
    static const size_t content_bytes[4] = {0, 2, 4, 8};
    size_t fcs_bytes = content_flag == 0 && h.single_segment ? 1 : content_bytes[content_flag];
    assert_true(at + fcs_bytes + 3 <= size);
    h.content_size = read_le(frame + at, fcs_bytes) + (fcs_bytes == 2 ? 256 : 0);
    at += fcs_bytes;
    if (h.single_segment)
        h.window_size = h.content_size;
    uint32_t block = (uint32_t)read_le(frame + at, 3); /* Block_Header */
    h.first_block_type = (block >> 1) & 3;
    at += 3;
    if (h.first_block_type == 2) { /* Literals_Section_Header, first byte */
        assert_true(at < size);
        h.literals_type = frame[at] & 3;
    }
    return h;
}

/* Compresses `data` with write_zstd_frame, checks it inflates back (Zstd's
 * one-shot decoder) and returns its header; *frame_size too when asked. */
static frame_header frame_of(const uint8_t *data, size_t size, int level, size_t *frame_size) {
    size_t n = 0;
    uint8_t *frame = write_zstd_frame(data, size, level, &n);
    assert_non_null(frame);
    uint8_t *back = malloc(size + 1);
    assert_non_null(back);
    assert_int_equal(ZSTD_decompress(back, size + 1, frame, n), size);
    assert_memory_equal(back, data, size);
    frame_header h = parse_frame(frame, n);
    assert_int_equal(h.content_size, size);
    free(back);
    free(frame);
    if (frame_size != NULL)
        *frame_size = n;
    return h;
}

/* Noise of `period` bytes repeated: only a window of `period` bytes or more
 * finds the repeats. */
static uint8_t *repeated_noise(size_t size, size_t period) {
    uint8_t *data = malloc(size);
    assert_non_null(data);
    uint32_t state = 12345;
    for (size_t i = 0; i < size; i++) {
        state = state * 1664525u + 1013904223u;
        data[i] = i < period ? (uint8_t)(state >> 24) : data[i - period];
    }
    return data;
}

/* Levels 1, 2 and 3 have windows of 512 KiB, 1 MiB and 2 MiB for large
 * inputs; 3 MiB of 1.5 MiB noise twice is found again only by a window of
 * 1.5 MiB or more, which each frame has (single-segment: the window is the
 * content size) and which halves the frame. */
static void a_frames_window_holds_its_input(void **state) {
    (void)state;
    size_t size = 3u << 20, period = size / 2;
    uint8_t *data = repeated_noise(size, period);
    for (int level = 1; level <= 3; level++) {
        size_t n = 0;
        frame_header h = frame_of(data, size, level, &n);
        assert_true(h.window_size >= size);
        assert_true(h.single_segment);
        assert_true(n < period + period / 50);
    }
    /* Small inputs: single-segment too (Zstd's own rule, kept). */
    uint8_t *small = repeated_noise(5000, 1000);
    frame_header h = frame_of(small, 5000, 19, NULL);
    assert_true(h.window_size >= 5000);
    free(small);
    free(data);
}

/* Past 2^WRITE_ZSTD_WINDOW_LOG_MAX bytes the window stops growing; the
 * parameter, read back from the context (a frame of 256 MiB is too slow a
 * test). */
static void the_window_stops_at_the_readers_default_limit(void **state) {
    (void)state;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_non_null(cctx);
    int window_log = 0;
    assert_true(zstd_frame_parameters(cctx, (size_t)1 << 28, 2));
    assert_false(ZSTD_isError(ZSTD_CCtx_getParameter(cctx, ZSTD_c_windowLog, &window_log)));
    assert_int_equal(window_log, WRITE_ZSTD_WINDOW_LOG_MAX);
    assert_int_equal(WRITE_ZSTD_WINDOW_LOG_MAX, ZSTD_WINDOWLOG_LIMIT_DEFAULT);
    assert_false(ZSTD_isError(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters)));
    assert_true(zstd_frame_parameters(cctx, ((size_t)1 << 27) - 5, 2));
    assert_false(ZSTD_isError(ZSTD_CCtx_getParameter(cctx, ZSTD_c_windowLog, &window_log)));
    assert_int_equal(window_log, 27);
    ZSTD_freeCCtx(cctx);
}

/* Bytes of 16 values, the small ones far more often (about 3 bits each), so
 * Huffman-coding them pays in a frame of any size; rarely a repeat. */
static uint8_t *skewed_bytes(size_t size) {
    uint8_t *data = malloc(size);
    assert_non_null(data);
    uint32_t state = 777;
    for (size_t i = 0; i < size; i++) {
        state = state * 1664525u + 1013904223u;
        uint32_t r = state >> 16, value = 0;
        while (value < 15 && (r & 1) != 0) {
            value++;
            r >>= 1;
        }
        data[i] = (uint8_t)('a' + value);
    }
    return data;
}

static void small_frames_keep_their_literals_raw(void **state) {
    (void)state;
    const size_t below = WRITE_ZSTD_RAW_LITERALS_BELOW;
    const size_t sizes[] = {200, below / 2, below - 1, below, below + 1, 4 * below};
    const int levels[] = {1, 2, 3, 19};
    uint8_t *data = skewed_bytes(4 * below);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
            frame_header h = frame_of(data, sizes[s], levels[l], NULL);
            assert_int_equal(h.first_block_type, 2); /* compressed */
            assert_int_equal(h.literals_type, sizes[s] < below ? 0 : 2);
        }
    }
    free(data);
}

/* The experimental parameter is accepted by the libzstd kiln runs with and
 * reads back as set (a refusal fails zstd_frame_parameters, so a frame). */
static void the_literal_mode_is_set_on_small_frames_only(void **state) {
    (void)state;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_non_null(cctx);
    int mode = -1;
    assert_true(zstd_frame_parameters(cctx, WRITE_ZSTD_RAW_LITERALS_BELOW - 1, 2));
    assert_false(ZSTD_isError(ZSTD_CCtx_getParameter(cctx, ZSTD_c_literalCompressionMode, &mode)));
    assert_int_equal(mode, ZSTD_ps_disable);
    assert_false(ZSTD_isError(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters)));
    assert_true(zstd_frame_parameters(cctx, WRITE_ZSTD_RAW_LITERALS_BELOW, 2));
    assert_false(ZSTD_isError(ZSTD_CCtx_getParameter(cctx, ZSTD_c_literalCompressionMode, &mode)));
    assert_int_equal(mode, ZSTD_ps_auto);
    ZSTD_freeCCtx(cctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_equal_a_new_contexts_on_one_thread),
        cmocka_unit_test(frames_equal_a_new_contexts_on_every_thread),
        cmocka_unit_test(a_frames_window_holds_its_input),
        cmocka_unit_test(the_window_stops_at_the_readers_default_limit),
        cmocka_unit_test(small_frames_keep_their_literals_raw),
        cmocka_unit_test(the_literal_mode_is_set_on_small_frames_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
