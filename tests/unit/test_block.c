/* block.c: image sizes, edge padding of partial blocks, identical output for
 * every thread count, whole-image decoding, errors and the PSNR helper. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/encode/encode.h"
#include "test_support.h"

static uint8_t *pattern_rgba8(uint32_t w, uint32_t h) {
    uint8_t *p = malloc((size_t)w * h * 4);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *t = p + ((size_t)y * w + x) * 4;
            t[0] = (uint8_t)(x * 7 + y * 3);
            t[1] = (uint8_t)((x ^ y) * 11);
            t[2] = (uint8_t)(x > w / 2 ? 240 : y * 5);
            t[3] = (uint8_t)(255 - x * 4);
        }
    return p;
}

static float *pattern_rgbaf(uint32_t w, uint32_t h) {
    float *p = malloc((size_t)w * h * 4 * sizeof(float));
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float *t = p + ((size_t)y * w + x) * 4;
            t[0] = exp2f((float)x * 0.3f - 4.0f);
            t[1] = (float)y * 0.7f;
            t[2] = (x + y) % 5 == 0 ? 20.0f : 0.1f;
            t[3] = 1.0f;
        }
    return p;
}

static void test_image_sizes(void **state) {
    (void)state;
    block_image_desc d = {.format = BLOCK_FORMAT_BC1, .width = 5, .height = 3};
    assert_int_equal(block_image_size(&d), 2 * 1 * 8);
    d.format = BLOCK_FORMAT_BC7;
    assert_int_equal(block_image_size(&d), 2 * 1 * 16);
    d.width = d.height = 1;
    assert_int_equal(block_image_size(&d), 16);
    d.format = BLOCK_FORMAT_BC4;
    d.width = 8;
    d.height = 9;
    assert_int_equal(block_image_size(&d), 2 * 3 * 8);
    d.format = BLOCK_FORMAT_ASTC_LDR;
    d.astc_block_width = d.astc_block_height = 6;
    d.width = 13;
    d.height = 7;
    assert_int_equal(block_image_size(&d), 3 * 2 * 16);
    d.astc_block_width = 8;
    d.astc_block_height = 5;
    assert_int_equal(block_image_size(&d), 2 * 2 * 16);
    d.astc_block_width = 3; /* not an ASTC block size */
    assert_int_equal(block_image_size(&d), 0);
    d.astc_block_width = 4;
    d.astc_block_height = 8; /* taller than wide: not a 2D ASTC size */
    assert_int_equal(block_image_size(&d), 0);
}

/* The same bytes for 1, 2, 3 and 8 threads, for each kiln format. */
static void test_output_independent_of_threads(void **state) {
    (void)state;
    const uint32_t w = 37, h = 29; /* partial blocks on both edges */
    uint8_t *rgba8 = pattern_rgba8(w, h);
    float *rgbaf = pattern_rgbaf(w, h);
    const block_format formats[] = {BLOCK_FORMAT_BC1, BLOCK_FORMAT_BC1A, BLOCK_FORMAT_BC3,
                                    BLOCK_FORMAT_BC4, BLOCK_FORMAT_BC5,  BLOCK_FORMAT_BC6H,
                                    BLOCK_FORMAT_BC7};
    const unsigned thread_counts[] = {2, 3, 8};
    char reason[256];
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        block_image_desc d = {.format = formats[f],
                              .quality = BLOCK_QUALITY_FAST,
                              .width = w,
                              .height = h,
                              .threads = 1};
        if (formats[f] == BLOCK_FORMAT_BC6H)
            d.rgbaf = rgbaf;
        else
            d.rgba8 = rgba8;
        size_t size = block_image_size(&d);
        uint8_t *one = malloc(size), *many = malloc(size);
        assert_true(block_encode_image(&d, one, reason, sizeof reason));
        for (size_t t = 0; t < 3; t++) {
            d.threads = thread_counts[t];
            memset(many, 0xCD, size);
            assert_true(block_encode_image(&d, many, reason, sizeof reason));
            assert_memory_equal(one, many, size);
        }
        free(one);
        free(many);
    }
    free(rgba8);
    free(rgbaf);
}

/* A partial block repeats the last column and row: a 6x5 image's block
 * (1, 1) is texels x 4..5, y 4 padded out. */
static void test_partial_blocks_replicate_edges(void **state) {
    (void)state;
    const uint32_t w = 6, h = 5;
    uint8_t *rgba8 = pattern_rgba8(w, h);
    block_image_desc d = {.format = BLOCK_FORMAT_BC7,
                          .quality = BLOCK_QUALITY_FAST,
                          .width = w,
                          .height = h,
                          .rgba8 = rgba8};
    uint8_t blocks[4 * 16];
    char reason[256];
    assert_int_equal(block_image_size(&d), sizeof blocks);
    assert_true(block_encode_image(&d, blocks, reason, sizeof reason));
    uint8_t gathered[64], expected[16];
    for (uint32_t i = 0; i < 16; i++) {
        uint32_t x = 4 + i % 4, y = 4 + i / 4;
        x = x > w - 1 ? w - 1 : x;
        y = y > h - 1 ? h - 1 : y;
        memcpy(gathered + i * 4, rgba8 + ((size_t)y * w + x) * 4, 4);
    }
    bc7_encode_block(gathered, BLOCK_QUALITY_FAST, expected);
    assert_memory_equal(blocks + 3 * 16, expected, 16);

    /* A 1x1 image is one block of 16 copies of its texel. */
    d.format = BLOCK_FORMAT_BC1;
    d.width = d.height = 1;
    uint8_t one[8], direct[8];
    for (int i = 0; i < 16; i++)
        memcpy(gathered + i * 4, rgba8, 4);
    assert_true(block_encode_image(&d, one, reason, sizeof reason));
    bc1_encode_block(gathered, false, BLOCK_QUALITY_FAST, direct);
    assert_memory_equal(one, direct, 8);
    free(rgba8);
}

/* Decoding crops to the image and matches the per-block decoders. */
static void test_decode_image(void **state) {
    (void)state;
    const uint32_t w = 7, h = 6;
    uint8_t *rgba8 = pattern_rgba8(w, h);
    const block_format formats[] = {BLOCK_FORMAT_BC1, BLOCK_FORMAT_BC3, BLOCK_FORMAT_BC4,
                                    BLOCK_FORMAT_BC5, BLOCK_FORMAT_BC7};
    char reason[256];
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        block_image_desc d = {.format = formats[f], .width = w, .height = h, .rgba8 = rgba8};
        uint32_t bw, bh, bytes;
        assert_true(block_format_layout(&d, &bw, &bh, &bytes));
        size_t size = block_image_size(&d);
        uint8_t *blocks = malloc(size);
        uint8_t *out = malloc((size_t)w * h * 4);
        assert_true(block_encode_image(&d, blocks, reason, sizeof reason));
        assert_true(block_decode_image(&d, blocks, out, NULL, reason, sizeof reason));
        /* Texel (5, 4) lives in block (1, 1) at (1, 0). */
        const uint8_t *block = blocks + (size_t)(1 * 2 + 1) * bytes;
        uint8_t texels[64];
        switch (formats[f]) {
        case BLOCK_FORMAT_BC1:
            bc1_decode_block(block, texels);
            break;
        case BLOCK_FORMAT_BC3:
            bc3_decode_block(block, texels);
            break;
        case BLOCK_FORMAT_BC4: {
            uint8_t v[16];
            bc4_decode_block(block, v);
            for (int i = 0; i < 16; i++) {
                texels[i * 4] = v[i];
                texels[i * 4 + 1] = texels[i * 4 + 2] = 0;
                texels[i * 4 + 3] = 255;
            }
            break;
        }
        case BLOCK_FORMAT_BC5:
            bc5_decode_block(block, texels);
            break;
        default:
            bc7_decode_block(block, texels);
            break;
        }
        assert_memory_equal(out + ((size_t)4 * w + 5) * 4, texels + 1 * 4, 4);
        /* Quality sanity: the pattern survives with some fidelity. */
        unsigned mask = formats[f] == BLOCK_FORMAT_BC4   ? 1u
                        : formats[f] == BLOCK_FORMAT_BC5 ? 3u
                        : formats[f] == BLOCK_FORMAT_BC1 ? 7u
                                                         : 15u;
        assert_true(block_psnr_rgba8(rgba8, out, (size_t)w * h, mask) > 20.0);
        free(blocks);
        free(out);
    }
    free(rgba8);
}

static void test_fully_transparent(void **state) {
    (void)state;
    const uint32_t w = 9, h = 5;
    uint8_t *rgba8 = pattern_rgba8(w, h);
    for (size_t i = 0; i < (size_t)w * h; i++)
        rgba8[i * 4 + 3] = 0;
    const block_format formats[] = {BLOCK_FORMAT_BC1A, BLOCK_FORMAT_BC3, BLOCK_FORMAT_BC7};
    char reason[256];
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        block_image_desc d = {.format = formats[f], .width = w, .height = h, .rgba8 = rgba8};
        uint8_t *blocks = malloc(block_image_size(&d));
        uint8_t *out = malloc((size_t)w * h * 4);
        assert_true(block_encode_image(&d, blocks, reason, sizeof reason));
        assert_true(block_decode_image(&d, blocks, out, NULL, reason, sizeof reason));
        for (size_t i = 0; i < (size_t)w * h; i++)
            assert_int_equal(out[i * 4 + 3], 0);
        free(blocks);
        free(out);
    }
    free(rgba8);
}

static void test_errors(void **state) {
    (void)state;
    char reason[256] = "";
    uint8_t out[64];
    float f[4] = {0};
    block_image_desc d = {.format = BLOCK_FORMAT_BC7, .width = 4, .height = 4, .rgbaf = f};
    assert_false(block_encode_image(&d, out, reason, sizeof reason));
    assert_non_null(strstr(reason, "8-bit"));
    d.format = BLOCK_FORMAT_BC6H;
    d.width = 0;
    assert_false(block_encode_image(&d, out, reason, sizeof reason));
    assert_non_null(strstr(reason, "empty"));
    d.format = (block_format)99;
    assert_false(block_encode_image(&d, out, reason, sizeof reason));
    assert_non_null(strstr(reason, "unsupported"));
}

static void test_psnr_and_modes(void **state) {
    (void)state;
    uint8_t a[16 * 4], b[16 * 4];
    memset(a, 100, sizeof a);
    memcpy(b, a, sizeof b);
    assert_true(block_psnr_rgba8(a, b, 16, 15) == 99.0);
    for (int i = 0; i < 16; i++)
        b[i * 4 + 1] = 101; /* G off by one everywhere */
    assert_true(block_psnr_rgba8(a, b, 16, 1) == 99.0);
    assert_true(fabs(block_psnr_rgba8(a, b, 16, 2) - 48.1308) < 1e-3);
    uint8_t block[16] = {0};
    block[0] = 0x20; /* 00100000: BC7 mode 5 */
    assert_int_equal(block_bc7_mode(block), 5);
    block[0] = 0;
    assert_int_equal(block_bc7_mode(block), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_sizes),
        cmocka_unit_test(test_output_independent_of_threads),
        cmocka_unit_test(test_partial_blocks_replicate_edges),
        cmocka_unit_test(test_decode_image),
        cmocka_unit_test(test_fully_transparent),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_psnr_and_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
