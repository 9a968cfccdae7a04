/* BC6H unsigned: the decoder against blocks built by hand from the
 * specification's bit layouts, exact single-colour round trips, and PSNR
 * floors (on tone-mapped values) for synthetic HDR gradients and the corpus
 * .hdr images. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "cook/encode/encode.h"
#include "test_support.h"

static void set_bits(uint8_t block[16], unsigned at, unsigned count, uint32_t value) {
    for (unsigned i = 0; i < count; i++)
        if ((value >> i) & 1u)
            block[(at + i) >> 3] |= (uint8_t)(1u << ((at + i) & 7u));
}

/* Mode value 3 (one subset, 10-bit endpoints, not transformed): E0 = 0,
 * E1 = 1023 unquantise to 0 and 0xFFFF; indices pick the weights. */
static void test_decode_mode_3(void **state) {
    (void)state;
    uint8_t block[16] = {0};
    set_bits(block, 0, 5, 3);
    /* R0 G0 B0 = 0 (bits 5..34), R1 G1 B1 = 1023 (bits 35..64). */
    set_bits(block, 35, 10, 1023);
    set_bits(block, 45, 10, 1023);
    set_bits(block, 55, 10, 1023);
    /* Indices from bit 65: texel 0 has 3 bits, the others 4. */
    set_bits(block, 65 + 3 + 4 * 0, 4, 15); /* texel 1: weight 64 */
    set_bits(block, 65 + 3 + 4 * 1, 4, 8);  /* texel 2: weight 34 */
    assert_int_equal(block_bc6h_mode(block), 10);
    float rgb[48];
    bc6h_decode_block(block, rgb);
    for (int c = 0; c < 3; c++) {
        assert_true(rgb[c] == 0.0f);
        assert_true(rgb[3 + c] == 65504.0f); /* (0xFFFF * 31) >> 6 = 0x7BFF */
        /* ((30 * 0 + 34 * 65535 + 32) >> 6) = 34815; * 31 >> 6 = 0x41DF */
        assert_true(rgb[6 + c] == 2.935546875f);
        assert_true(rgb[45 + c] == 0.0f);
    }
}

/* Mode value 15 (one subset, 16-bit endpoints, 4-bit deltas): the high six
 * bits of each E0 channel are stored reversed after the deltas. */
static void test_decode_mode_15_reversed_bits(void **state) {
    (void)state;
    /* u values whose (u * 31) >> 6 are the halves of 1.0, 2.0 and 0.5. */
    const uint32_t e0[3] = {31711, 33826, 29597};
    uint8_t block[16] = {0};
    set_bits(block, 0, 5, 15);
    for (int c = 0; c < 3; c++) {
        set_bits(block, 5 + 10 * (unsigned)c, 10, e0[c] & 0x3FFu);
        unsigned high_at = 39 + 10 * (unsigned)c; /* after the 4 delta bits */
        for (unsigned b = 0; b < 6; b++)          /* bit 15 first, bit 10 last */
            set_bits(block, high_at + b, 1, (e0[c] >> (15 - b)) & 1u);
    }
    set_bits(block, 65, 3, 5); /* any index: both endpoints are equal */
    for (unsigned i = 1; i < 16; i++)
        set_bits(block, 65 + 4 * i - 1, 4, i * 5u % 16u);
    assert_int_equal(block_bc6h_mode(block), 13);
    float rgb[48];
    bc6h_decode_block(block, rgb);
    for (int i = 0; i < 16; i++) {
        assert_true(rgb[i * 3] == 1.0f);
        assert_true(rgb[i * 3 + 1] == 2.0f);
        assert_true(rgb[i * 3 + 2] == 0.5f);
    }
}

/* Mode value 30 (two subsets, 6-bit absolute endpoints), partition 13
 * (rows 2 and 3 are subset 1, anchor texel 15): E0 = 0, E1..E3 all ones. */
static void test_decode_mode_30_two_subsets(void **state) {
    (void)state;
    uint8_t block[16] = {0};
    set_bits(block, 0, 5, 30);
    set_bits(block, 11, 4, 0xF);       /* G3^4 B3^0 B3^1 B2^4 */
    set_bits(block, 21, 4, 0xF);       /* G2^5 B2^5 B3^2 G2^4 */
    for (unsigned b = 31; b < 77; b++) /* the rest of E1..E3 */
        set_bits(block, b, 1, 1);
    set_bits(block, 77, 5, 13); /* partition */
    /* Indices from bit 82: texel 0 two bits, texel 1 three bits = 7. */
    set_bits(block, 84, 3, 7);
    assert_int_equal(block_bc6h_mode(block), 9);
    float rgb[48];
    bc6h_decode_block(block, rgb);
    for (int i = 0; i < 16; i++) {
        float expected = i == 1 || i >= 8 ? 65504.0f : 0.0f;
        for (int c = 0; c < 3; c++)
            assert_true(rgb[i * 3 + c] == expected);
    }
}

static void test_reserved_mode_decodes_to_zero(void **state) {
    (void)state;
    uint8_t block[16];
    memset(block, 0xA5, sizeof block);
    block[0] = (uint8_t)((block[0] & ~31u) | 19u); /* 10011: reserved */
    assert_int_equal(block_bc6h_mode(block), -1);
    float rgb[48];
    bc6h_decode_block(block, rgb);
    for (int i = 0; i < 48; i++)
        assert_true(rgb[i] == 0.0f);
}

static float half_round(float v) {
    if (!(v > 0.0f))
        return 0.0f;
    return block_half_to_float(block_float_to_half(v));
}

/* A single colour is representable exactly (16-bit endpoints, delta 0). */
static void test_single_colour_round_trip(void **state) {
    (void)state;
    const float colours[][3] = {{1.0f, 0.5f, 0.25f}, {100.0f, 2000.0f, 0.001f},
                                {0.0f, 0.0f, 0.0f},  {65504.0f, 1e6f, 3.0f},
                                {-1.0f, NAN, 7.5f},  {1e-6f, 0.1f, 12345.0f}};
    for (size_t k = 0; k < sizeof colours / sizeof colours[0]; k++) {
        for (int q = BLOCK_QUALITY_FAST; q <= BLOCK_QUALITY_BEST; q++) {
            float rgb[48], out[48];
            for (int i = 0; i < 16; i++)
                memcpy(rgb + i * 3, colours[k], sizeof colours[k]);
            uint8_t block[16];
            bc6h_encode_block(rgb, (block_quality)q, block);
            bc6h_decode_block(block, out);
            for (int i = 0; i < 16; i++)
                for (int c = 0; c < 3; c++)
                    assert_true(out[i * 3 + c] == half_round(colours[k][c]));
        }
    }
}

/* Two colours in one block: every texel decodes to one of the two within
 * one half step (the 16-bit endpoints hold each exactly; 4-bit deltas may
 * not reach, so allow the nearest representable). */
static void test_two_colour_block(void **state) {
    (void)state;
    float rgb[48], out[48];
    for (int i = 0; i < 16; i++) {
        float v = (i % 3 == 0) ? 4.0f : 0.25f;
        rgb[i * 3] = v;
        rgb[i * 3 + 1] = v * 0.5f;
        rgb[i * 3 + 2] = v * 2.0f;
    }
    uint8_t block[16];
    bc6h_encode_block(rgb, BLOCK_QUALITY_NORMAL, block);
    bc6h_decode_block(block, out);
    for (int i = 0; i < 48; i++) {
        float ratio = out[i] / rgb[i];
        assert_true(ratio > 0.99f && ratio < 1.01f);
    }
}

static double encode_decode_psnr(const float *rgba, uint32_t w, uint32_t h, block_quality q,
                                 unsigned threads, int *mode_histogram) {
    block_image_desc desc = {.format = BLOCK_FORMAT_BC6H,
                             .quality = q,
                             .width = w,
                             .height = h,
                             .rgbaf = rgba,
                             .threads = threads};
    size_t size = block_image_size(&desc);
    uint8_t *blocks = malloc(size);
    float *back = malloc((size_t)w * h * 4 * sizeof(float));
    char reason[256];
    assert_true(block_encode_image(&desc, blocks, reason, sizeof reason));
    assert_true(block_decode_image(&desc, blocks, NULL, back, reason, sizeof reason));
    if (mode_histogram != NULL)
        for (size_t i = 0; i < size / 16; i++)
            mode_histogram[block_bc6h_mode(blocks + i * 16)]++;
    double psnr = block_psnr_hdr(rgba, back, (size_t)w * h);
    free(blocks);
    free(back);
    return psnr;
}

static void test_synthetic_gradients(void **state) {
    (void)state;
    const uint32_t w = 64, h = 48;
    float *rgba = malloc((size_t)w * h * 4 * sizeof(float));
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            float *p = rgba + ((size_t)y * w + x) * 4;
            /* An exponential ramp over 12 stops, a hue sweep and a hard edge. */
            float lum = exp2f((float)x / (float)w * 12.0f - 6.0f);
            p[0] = lum * (0.5f + 0.5f * sinf((float)y * 0.2f));
            p[1] = lum * (0.5f + 0.5f * cosf((float)y * 0.13f));
            p[2] = x > 40 && y > 20 ? 30.0f : lum * 0.3f;
            p[3] = 1.0f;
        }
    }
    int histogram[14] = {0};
    double fast = encode_decode_psnr(rgba, w, h, BLOCK_QUALITY_FAST, 1, NULL);
    double normal = encode_decode_psnr(rgba, w, h, BLOCK_QUALITY_NORMAL, 2, histogram);
    double best = encode_decode_psnr(rgba, w, h, BLOCK_QUALITY_BEST, 1, NULL);
    printf("bc6h synthetic gradients: tone-mapped PSNR fast %.2f normal %.2f best %.2f dB\n", fast,
           normal, best);
    /* One subset only (fast) blurs the hard edge; two subsets recover it. */
    assert_true(fast > 36.0);
    assert_true(normal > 41.0);
    assert_true(best >= normal - 0.05);
    int two_subset_blocks = 0;
    for (int m = 0; m < 10; m++)
        two_subset_blocks += histogram[m];
    assert_true(two_subset_blocks > 0); /* the hard edge wants two subsets */
    free(rgba);
}

static void test_corpus_hdr(void **state) {
    (void)state;
    if (test_skip_without_corpus("test_corpus_hdr"))
        skip();
    const char *names[] = {"images/hdr/hdr-rgb-arboretum.hdr",
                           "images/hdr/spiaggia_di_mondello_1k.hdr"};
    for (size_t n = 0; n < 2; n++) {
        char *path = test_path_join(test_corpus_dir(), names[n]);
        size_t size = 0;
        uint8_t *bytes = test_read_file(path, &size);
        ir_decoded_image image;
        char reason[256];
        assert_true(image_decode(bytes, size, path, NULL, &image, reason, sizeof reason));
        assert_non_null(image.rgbaf);
        /* A 256x128 crop from the middle keeps the test short under ASan. */
        uint32_t w = image.width < 256 ? image.width : 256;
        uint32_t h = image.height < 128 ? image.height : 128;
        uint32_t x0 = (image.width - w) / 2, y0 = (image.height - h) / 2;
        float *crop = malloc((size_t)w * h * 4 * sizeof(float));
        for (uint32_t y = 0; y < h; y++)
            memcpy(crop + (size_t)y * w * 4,
                   image.rgbaf + ((size_t)(y0 + y) * image.width + x0) * 4,
                   (size_t)w * 4 * sizeof(float));
        double psnr = encode_decode_psnr(crop, w, h, BLOCK_QUALITY_NORMAL, 2, NULL);
        printf("bc6h %s (%ux%u crop): tone-mapped PSNR %.2f dB\n", names[n], w, h, psnr);
        assert_true(psnr > 40.0);
        free(crop);
        ir_decoded_image_free(&image);
        free(bytes);
        free(path);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_mode_3),
        cmocka_unit_test(test_decode_mode_15_reversed_bits),
        cmocka_unit_test(test_decode_mode_30_two_subsets),
        cmocka_unit_test(test_reserved_mode_decodes_to_zero),
        cmocka_unit_test(test_single_colour_round_trip),
        cmocka_unit_test(test_two_colour_block),
        cmocka_unit_test(test_synthetic_gradients),
        cmocka_unit_test(test_corpus_hdr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
