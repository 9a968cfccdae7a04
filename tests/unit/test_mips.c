/* Mip chains: sRGB-correct filtering, alpha weighting, normal renormalisation,
 * coverage preservation, non-power-of-two sizes, max_size downscaling. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "cook/process/mips_simd.h"
#include "test_support.h"

static float *checkerboard(uint32_t w, uint32_t h) {
    float *px = malloc((size_t)w * h * 4 * sizeof(float));
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float v = ((x + y) & 1) ? 1.0f : 0.0f;
            float *p = px + ((size_t)y * w + x) * 4;
            p[0] = p[1] = p[2] = v;
            p[3] = 1.0f;
        }
    return px;
}

static void srgb_checkerboard_averages_to_188_not_128(void **state) {
    (void)state;
    float *base = checkerboard(8, 8);
    mip_options o = {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true};
    mip_chain chain;
    assert_true(mip_build(base, 8, 8, &o, &chain));
    assert_int_equal(chain.count, 4);
    for (uint32_t level = 1; level < chain.count; level++) {
        size_t n = (size_t)chain.width[level] * chain.height[level];
        for (size_t i = 0; i < n; i++) {
            /* linear 0.5 encodes to sRGB 187.5..., stored on the 8-bit grid */
            assert_true(chain.levels[level][i * 4] == 188.0f / 255.0f);
        }
    }
    /* Level 0 is the input, exactly. */
    assert_memory_equal(chain.levels[0], base, 8 * 8 * 4 * sizeof(float));
    mip_chain_free(&chain);
    /* Linear data averages to 0.5 (128). */
    o.mode = MIP_MODE_LINEAR;
    assert_true(mip_build(base, 8, 8, &o, &chain));
    assert_true(fabsf(chain.levels[1][0] - 0.5f) < 1e-6f);
    mip_chain_free(&chain);
    free(base);
}

static void non_power_of_two_chains_halve_down_to_1x1(void **state) {
    (void)state;
    assert_int_equal(mip_level_count(1, 1), 1);
    assert_int_equal(mip_level_count(5, 3), 3);
    assert_int_equal(mip_level_count(256, 1), 9);
    assert_int_equal(mip_level_count(300, 17), 9);
    float *base = checkerboard(5, 3);
    mip_options o = {.mode = MIP_MODE_LINEAR, .mipmaps = true};
    mip_chain chain;
    assert_true(mip_build(base, 5, 3, &o, &chain));
    assert_int_equal(chain.count, 3);
    assert_int_equal(chain.width[1], 2);
    assert_int_equal(chain.height[1], 1);
    assert_int_equal(chain.width[2], 1);
    assert_int_equal(chain.height[2], 1);
    /* The 1x1 level is the mean of the whole image: 7 white of 15. */
    assert_true(fabsf(chain.levels[2][0] - 7.0f / 15.0f) < 1e-5f);
    mip_chain_free(&chain);
    o.mipmaps = false;
    assert_true(mip_build(base, 5, 3, &o, &chain));
    assert_int_equal(chain.count, 1);
    mip_chain_free(&chain);
    free(base);
}

static void max_size_downscales_keeping_aspect(void **state) {
    (void)state;
    float *base = checkerboard(100, 50);
    mip_options o = {.mode = MIP_MODE_COLOR_SRGB, .mipmaps = true, .max_size = 32};
    mip_chain chain;
    assert_true(mip_build(base, 100, 50, &o, &chain));
    assert_int_equal(chain.width[0], 32);
    assert_int_equal(chain.height[0], 16);
    assert_int_equal(chain.count, 6);
    mip_chain_free(&chain);
    free(base);
}

/* Level 0 in whole blocks (texture.block_align): padding repeats the right
 * column and bottom row exactly (in floats and in bytes) and the rest of the
 * chain halves the padded level; resizing resamples to whole blocks; a level
 * 0 downscaled for max_size is resampled straight to whole blocks. */
static void block_alignment_pads_or_resizes_level0(void **state) {
    (void)state;
    const uint32_t w = 6, h = 3;
    float *base = malloc((size_t)w * h * 4 * sizeof(float));
    uint8_t *base8 = malloc((size_t)w * h * 4);
    for (size_t i = 0; i < (size_t)w * h * 4; i++) {
        base8[i] = (uint8_t)(i * 11 + 3);
        base[i] = base8[i] / 255.0f;
    }
    mip_options o = {.mode = MIP_MODE_LINEAR,
                     .mipmaps = true,
                     .align_width = 4,
                     .align_height = 4,
                     .align_by_padding = true,
                     .skip_level0 = true, /* padding builds level 0 all the same */
                     .levels8 = true};
    for (int eight = 0; eight < 2; eight++) {
        mip_chain chain;
        assert_true(eight ? mip_build_rgba8(base8, w, h, &o, &chain)
                          : mip_build(base, w, h, &o, &chain));
        assert_int_equal(chain.width[0], 8);
        assert_int_equal(chain.height[0], 4);
        assert_int_equal(chain.content_width, 6);
        assert_int_equal(chain.content_height, 3);
        assert_int_equal(chain.count, 4); /* 8x4, 4x2, 2x1, 1x1 */
        assert_non_null(chain.levels8[0]);
        for (uint32_t y = 0; y < 4; y++)
            for (uint32_t x = 0; x < 8; x++) {
                uint32_t sx = x < w ? x : w - 1, sy = y < h ? y : h - 1;
                assert_memory_equal(chain.levels8[0] + ((size_t)y * 8 + x) * 4,
                                    base8 + ((size_t)sy * w + sx) * 4, 4);
            }
        mip_chain_free(&chain);
    }
    /* Resize: 6x3 resampled to 8x4 with the area filter. */
    o.align_by_padding = false;
    o.levels8 = false;
    mip_chain chain;
    assert_true(mip_build(base, w, h, &o, &chain));
    assert_int_equal(chain.width[0], 8);
    assert_int_equal(chain.height[0], 4);
    assert_int_equal(chain.content_width, 8);
    float *expected = malloc(8 * 4 * 4 * sizeof(float));
    assert_true(image_resample_area(base, w, h, expected, 8, 4));
    for (size_t i = 0; i < 8 * 4 * 4; i++)
        assert_true(fabsf(chain.levels[0][i] - expected[i]) < 1e-6f);
    mip_chain_free(&chain);
    /* Downscaled for max_size (6x3 to 5x3 by aspect, rounded 5x2.5) then
     * aligned: resampled once, straight to 8x4, even with padding asked. */
    o.align_by_padding = true;
    o.max_size = 5;
    assert_true(mip_build(base, w, h, &o, &chain));
    assert_int_equal(chain.width[0], 8);
    assert_int_equal(chain.height[0], 4);
    assert_int_equal(chain.content_width, 8);
    mip_chain_free(&chain);
    /* Already whole blocks (the first 16 texels as 4x4): level 0 untouched. */
    o.max_size = 0;
    o.skip_level0 = false;
    assert_true(mip_build(base, 4, 4, &o, &chain));
    assert_int_equal(chain.width[0], 4);
    assert_int_equal(chain.height[0], 4);
    assert_int_equal(chain.content_width, 4);
    assert_memory_equal(chain.levels[0], base, 4 * 4 * 4 * sizeof(float));
    mip_chain_free(&chain);
    free(expected);
    free(base);
    free(base8);
}

static void transparent_texels_do_not_bleed_colour(void **state) {
    (void)state;
    /* Red opaque next to green fully transparent. */
    float base[2 * 2 * 4] = {1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0};
    mip_options o = {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true};
    mip_chain chain;
    assert_true(mip_build(base, 2, 2, &o, &chain));
    const float *p = chain.levels[1];
    assert_true(fabsf(p[0] - 1.0f) < 1e-5f);
    assert_true(fabsf(p[1]) < 1e-5f);
    assert_true(fabsf(p[3] - 0.5f) < 1e-5f);
    mip_chain_free(&chain);
}

static void normal_maps_are_renormalised_per_level(void **state) {
    (void)state;
    /* Two normals tilted +-45 degrees in x: the average must be unit +z. */
    float s = 0.70710678f;
    float n[2][3] = {{s, 0, s}, {-s, 0, s}};
    float base[4 * 4 * 4];
    for (int i = 0; i < 16; i++) {
        const float *v = n[(i + i / 4) & 1];
        for (int c = 0; c < 3; c++)
            base[i * 4 + c] = v[c] * 0.5f + 0.5f;
        base[i * 4 + 3] = 1.0f;
    }
    mip_options o = {.mode = MIP_MODE_NORMAL, .mipmaps = true};
    mip_chain chain;
    assert_true(mip_build(base, 4, 4, &o, &chain));
    for (uint32_t level = 1; level < chain.count; level++) {
        const float *p = chain.levels[level];
        float x = p[0] * 2 - 1, y = p[1] * 2 - 1, z = p[2] * 2 - 1;
        assert_true(fabsf(sqrtf(x * x + y * y + z * z) - 1.0f) < 1e-4f);
        assert_true(z > 0.999f);
    }
    mip_chain_free(&chain);
}

static void alpha_coverage_is_preserved_at_the_cutoff(void **state) {
    (void)state;
    /* A foliage-like mask: ~29% of texels above 0.5; plain averaging pulls
     * level-1 alphas towards the mean (1/3) and coverage collapses. */
    uint32_t w = 64, h = 64;
    float *base = calloc((size_t)w * h * 4, sizeof(float));
    uint32_t seed = 12345;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float *p = base + ((size_t)y * w + x) * 4;
            p[0] = p[1] = p[2] = 0.5f;
            seed = seed * 1664525u + 1013904223u;
            float r = (float)(seed >> 8) / 16777216.0f;
            p[3] = r * r; /* continuous, mostly below the cutoff */
        }
    float target = mip_alpha_coverage(base, (size_t)w * h, 0.5f);
    mip_options o = {
        .mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true, .alpha_cutoff = 0.5f};
    mip_chain chain;
    assert_true(mip_build(base, w, h, &o, &chain));
    for (uint32_t level = 1; level + 2 < chain.count; level++) {
        size_t n = (size_t)chain.width[level] * chain.height[level];
        float coverage = mip_alpha_coverage(chain.levels[level], n, 0.5f);
        assert_true(fabsf(coverage - target) < 0.05f);
    }
    mip_chain_free(&chain);
    /* Without the cutoff the coverage collapses. */
    o.alpha_cutoff = 0.0f;
    assert_true(mip_build(base, w, h, &o, &chain));
    assert_true(mip_alpha_coverage(chain.levels[1], 32 * 32, 0.5f) < target - 0.1f);
    mip_chain_free(&chain);
    free(base);
}

static void srgb_transfer_round_trips_every_byte(void **state) {
    (void)state;
    for (int i = 0; i < 256; i++) {
        float lin = image_srgb_to_linear(i / 255.0f);
        assert_int_equal(lrintf(image_linear_to_srgb(lin) * 255.0f), i);
    }
    assert_int_equal(lrintf(image_linear_to_srgb(0.5f) * 255.0f), 188);
}

/* The reference the table must reproduce: powf curve, then lrintf to 8 bits. */
static uint8_t srgb8_reference(float v) {
    float s = image_linear_to_srgb(v);
    return !(s > 0.0f) ? 0 : s >= 1.0f ? 255 : (uint8_t)lrintf(s * 255.0f);
}

static float next_float(float v, int steps) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits = (uint32_t)((int64_t)bits + steps);
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void table_srgb_encode_is_exact_and_monotonic(void **state) {
    (void)state;
    /* Every byte round-trips through linear and back. */
    for (int i = 0; i < 256; i++) {
        assert_int_equal(image_linear_to_srgb8(image_srgb_to_linear(i / 255.0f)), i);
        assert_true(image_unorm8_to_float((uint8_t)i) == i / 255.0f);
    }
    /* Equal to the reference on a sweep of bit patterns from 0 to past 1 and
     * around every step (where a table that is off by one would show), and
     * never decreasing along the sweep. */
    uint8_t previous = 0;
    for (uint32_t bits = 0; bits <= 0x3F810000u; bits += 1021u) {
        float v;
        memcpy(&v, &bits, sizeof v);
        uint8_t code = image_linear_to_srgb8(v);
        if (code != srgb8_reference(v))
            fail_msg("v = %.9g: %u, reference %u", (double)v, code, srgb8_reference(v));
        assert_true(code >= previous);
        previous = code;
    }
    for (int k = 0; k < 255; k++) {
        /* The reference's step from k to k + 1, found by bisection. */
        float lo = 0.0f, hi = 1.0f;
        for (int i = 0; i < 40; i++) {
            float mid = 0.5f * (lo + hi);
            if (srgb8_reference(mid) > k)
                hi = mid;
            else
                lo = mid;
        }
        for (int d = -4; d <= 4; d++) {
            float v = next_float(hi, d);
            assert_int_equal(image_linear_to_srgb8(v), srgb8_reference(v));
        }
    }
    assert_int_equal(image_linear_to_srgb8(-1.0f), 0);
    assert_int_equal(image_linear_to_srgb8(NAN), 0);
    assert_int_equal(image_linear_to_srgb8(2.0f), 255);
    assert_int_equal(image_linear_to_srgb8(INFINITY), 255);
    assert_int_equal(image_linear_to_srgb8(0.5f), 188);
}

/* image_float_to_unorm8 (no library call) equals lrintf(255 v) clamped, ties
 * to even included, on a sweep of bit patterns and around every half step. */
static void unorm8_quantiser_equals_lrintf(void **state) {
    (void)state;
    for (uint32_t bits = 0; bits <= 0x3F810000u; bits += 997u) {
        float v;
        memcpy(&v, &bits, sizeof v);
        long expected = v >= 1.0f ? 255 : lrintf(v * 255.0f);
        assert_int_equal(image_float_to_unorm8(v), expected);
    }
    for (int k = 0; k < 255; k++)
        for (int d = -8; d <= 8; d++) {
            float v = next_float((k + 0.5f) / 255.0f, d);
            assert_int_equal(image_float_to_unorm8(v), lrintf(v * 255.0f));
        }
    assert_int_equal(image_float_to_unorm8(-0.5f), 0);
    assert_int_equal(image_float_to_unorm8(NAN), 0);
    assert_int_equal(image_float_to_unorm8(INFINITY), 255);
}

/* Deterministic pseudo-random floats in [0, 1]. */
static float *random_rgba(uint32_t w, uint32_t h, uint32_t seed) {
    float *px = malloc((size_t)w * h * 4 * sizeof(float));
    for (size_t i = 0; i < (size_t)w * h * 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        px[i] = (float)(seed >> 8) / (float)(1u << 24);
    }
    return px;
}

/* The halving sums pairs in float where the area filter sums in double: the
 * same floats whenever the two values are within 2^29 of each other, as
 * here (mips_stay_within_one_code_of_the_area_filter covers the rest). */
static void halving_equals_the_general_area_filter_exactly(void **state) {
    (void)state;
    const uint32_t w = 24, h = 10;
    float *base = random_rgba(w, h, 7);
    mip_options o = {.mode = MIP_MODE_LINEAR, .mipmaps = true};
    mip_chain chain;
    assert_true(mip_build(base, w, h, &o, &chain));
    /* Level 1 (12x5) is an exact halving; level 2 (6x2) halves 12 but not 5. */
    float expected1[12 * 5 * 4], expected2[6 * 2 * 4];
    assert_true(image_resample_area(base, w, h, expected1, 12, 5));
    assert_true(image_resample_area(expected1, 12, 5, expected2, 6, 2));
    assert_memory_equal(chain.levels[1], expected1, sizeof expected1);
    assert_memory_equal(chain.levels[2], expected2, sizeof expected2);
    mip_chain_free(&chain);
    /* From a halved level, again an exact halving (8x4 -> 4x2 -> 2x1 -> 1x1). */
    float *even = random_rgba(8, 4, 11);
    float e1[4 * 2 * 4], e2[2 * 1 * 4];
    assert_true(mip_build(even, 8, 4, &o, &chain));
    assert_true(image_resample_area(even, 8, 4, e1, 4, 2));
    assert_true(image_resample_area(e1, 4, 2, e2, 2, 1));
    assert_memory_equal(chain.levels[1], e1, sizeof e1);
    assert_memory_equal(chain.levels[2], e2, sizeof e2);
    mip_chain_free(&chain);
    free(even);
    free(base);
}

/* A general resample (max_size, whole-block resize, odd halving) reads level
 * 0 and resamples it in row bands (no whole-image temporaries): the floats
 * are image_resample_area's of the whole image, bit for bit, for ratios
 * below and above 1 and far from 1. */
static void banded_resample_equals_the_whole_image_area_filter(void **state) {
    (void)state;
    static const struct {
        uint32_t w, h, max_size, align;
    } cases[] = {
        {37, 23, 16, 0},  /* 37x23 -> 16x10, fractional both ways */
        {5, 200, 7, 0},   /* -> 0x7 clamped to 1x7: 28.6 rows per output row */
        {6, 3, 0, 4},     /* upscaled to whole blocks: 8x4 */
        {300, 17, 64, 0}, /* -> 64x4 */
        {37, 23, 0, 0},   /* no resize: level 1 (18x11) from odd level 0 */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint32_t w = cases[c].w, h = cases[c].h;
        float *base = random_rgba(w, h, 40u + (uint32_t)c);
        mip_options o = {.mode = MIP_MODE_LINEAR,
                         .mipmaps = true,
                         .max_size = cases[c].max_size,
                         .align_width = cases[c].align,
                         .align_height = cases[c].align};
        mip_chain chain;
        assert_true(mip_build(base, w, h, &o, &chain));
        bool resized = chain.width[0] != w || chain.height[0] != h;
        uint32_t level = resized ? 0 : 1;
        uint32_t dw = chain.width[level], dh = chain.height[level];
        float *expected = malloc((size_t)dw * dh * 4 * sizeof(float));
        assert_true(image_resample_area(base, w, h, expected, dw, dh));
        assert_memory_equal(chain.levels[level], expected, (size_t)dw * dh * 4 * sizeof(float));
        free(expected);
        mip_chain_free(&chain);
        free(base);
    }
}

/* The first level filtered and its exact halving made together in bands
 * (the default) give the bytes of the chain whose every working copy is
 * whole (whole_levels): float and 8-bit level 0, every mode, alpha-test
 * coverage, a level 0 resized (resampled first level) or kept (halved or, at
 * odd sizes, resampled level 1), bands of 1, 2, 3 and the default rows, on 1
 * and 3 threads. */
static void banded_first_levels_equal_the_whole_levels_chain(void **state) {
    (void)state;
    static const struct {
        uint32_t w, h, max_size, align;
    } cases[] = {
        {64, 32, 0, 0},  /* level 1 halved from level 0, level 2 from it */
        {37, 23, 16, 0}, /* resized to 16x10, then 8x5 */
        {33, 21, 0, 0},  /* level 1 (16x10) resampled from odd level 0 */
        {6, 3, 0, 4},    /* resized up to whole blocks: 8x4 */
        {130, 6, 0, 0},  /* 65x3: level 2 is not an exact halving */
        {2, 64, 0, 0},   /* 1x32: no band (1 is not halved) */
    };
    static const mip_mode modes[] = {MIP_MODE_COLOR_SRGB, MIP_MODE_LINEAR, MIP_MODE_NORMAL};
    static const uint32_t bands[] = {1, 2, 3, 0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint32_t w = cases[c].w, h = cases[c].h;
        size_t n = (size_t)w * h * 4;
        float *floats = random_rgba(w, h, 90u + (uint32_t)c);
        uint8_t *bytes = malloc(n);
        for (size_t i = 0; i < n; i++) /* a few transparent texels among opaque ones */
            bytes[i] = (i % 4 == 3 && i % 28 != 3) ? 255 : (uint8_t)(floats[i] * 255.0f);
        for (size_t m = 0; m < 3; m++)
            for (int eight = 0; eight < 2; eight++)
                for (int levels8 = 0; levels8 < 2; levels8++) {
                    mip_options o = {.mode = modes[m],
                                     .alpha_weighted = modes[m] == MIP_MODE_COLOR_SRGB,
                                     .alpha_cutoff = modes[m] == MIP_MODE_COLOR_SRGB ? 0.5f : 0.0f,
                                     .max_size = cases[c].max_size,
                                     .align_width = cases[c].align,
                                     .align_height = cases[c].align,
                                     .align_by_padding = false,
                                     .mipmaps = true,
                                     .levels8 = levels8 != 0,
                                     .whole_levels = true};
                    mip_chain whole;
                    assert_true(eight ? mip_build_rgba8(bytes, w, h, &o, &whole)
                                      : mip_build(floats, w, h, &o, &whole));
                    for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++)
                        for (unsigned threads = 1; threads <= 3; threads += 2) {
                            mip_options banded = o;
                            banded.whole_levels = false;
                            banded.band_rows = bands[b];
                            banded.threads = threads;
                            mip_chain chain;
                            assert_true(eight ? mip_build_rgba8(bytes, w, h, &banded, &chain)
                                              : mip_build(floats, w, h, &banded, &chain));
                            assert_int_equal(chain.count, whole.count);
                            for (uint32_t l = 0; l < chain.count; l++) {
                                size_t texels = (size_t)chain.width[l] * chain.height[l];
                                assert_int_equal(chain.width[l], whole.width[l]);
                                assert_int_equal(chain.height[l], whole.height[l]);
                                if (levels8)
                                    assert_memory_equal(chain.levels8[l], whole.levels8[l],
                                                        texels * 4);
                                else
                                    assert_memory_equal(chain.levels[l], whole.levels[l],
                                                        texels * 4 * sizeof(float));
                            }
                            mip_chain_free(&chain);
                        }
                    mip_chain_free(&whole);
                }
        free(floats);
        free(bytes);
    }
}

/* mip_build_rgba8 gives mip_build's chain of the k / 255 floats, bit for bit,
 * on the direct even-size path and on the general path, in every mode. */
static void rgba8_chain_equals_the_float_chain(void **state) {
    (void)state;
    static const uint32_t sizes[][2] = {{16, 8}, {7, 5}, {6, 1}};
    static const mip_mode modes[] = {MIP_MODE_COLOR_SRGB, MIP_MODE_LINEAR, MIP_MODE_NORMAL};
    for (size_t s = 0; s < 3; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        size_t n = (size_t)w * h * 4;
        uint8_t *bytes = malloc(n);
        float *floats = malloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++) {
            bytes[i] = (uint8_t)((i * 37 + i / 4 * 11) % 256);
            floats[i] = bytes[i] / 255.0f;
        }
        for (size_t m = 0; m < 3; m++) {
            mip_options o = {.mode = modes[m],
                             .alpha_weighted = modes[m] == MIP_MODE_COLOR_SRGB,
                             .alpha_cutoff = modes[m] == MIP_MODE_COLOR_SRGB ? 0.4f : 0.0f,
                             .mipmaps = true};
            mip_chain a, b;
            assert_true(mip_build(floats, w, h, &o, &a));
            assert_true(mip_build_rgba8(bytes, w, h, &o, &b));
            assert_int_equal(a.count, b.count);
            for (uint32_t level = 0; level < a.count; level++)
                assert_memory_equal(a.levels[level], b.levels[level],
                                    (size_t)a.width[level] * a.height[level] * 4 * sizeof(float));
            mip_chain_free(&a);
            mip_chain_free(&b);
        }
        free(bytes);
        free(floats);
    }
    /* The 1-pixel checkerboard from bytes: linear 0.5 is sRGB 188 exactly. */
    uint8_t board[8 * 8 * 4];
    for (int i = 0; i < 64; i++) {
        uint8_t v = ((i % 8 + i / 8) & 1) ? 255 : 0;
        board[i * 4] = board[i * 4 + 1] = board[i * 4 + 2] = v;
        board[i * 4 + 3] = 255;
    }
    mip_options o = {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true};
    mip_chain chain;
    assert_true(mip_build_rgba8(board, 8, 8, &o, &chain));
    for (uint32_t level = 1; level < chain.count; level++)
        for (size_t i = 0; i < (size_t)chain.width[level] * chain.height[level] * 4; i++)
            assert_true(chain.levels[level][i] == image_unorm8_to_float(i % 4 == 3 ? 255 : 188));
    mip_chain_free(&chain);
}

/* ---------------------------------------------------------------------------
 * 8-bit levels, threads, and the float reference
 * ------------------------------------------------------------------------- */

/* Deterministic 8-bit RGBA: smooth gradients plus noise, and (with `alpha`)
 * alpha from 0 to 255 including fully transparent texels, with every fifth
 * pair of rows opaque (mips.c takes opaque row pairs of an 8-bit level 0 on
 * a path of their own). */
static uint8_t *test_rgba8(uint32_t w, uint32_t h, uint32_t seed, bool alpha) {
    uint8_t *px = malloc((size_t)w * h * 4);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = px + ((size_t)y * w + x) * 4;
            for (int c = 0; c < 4; c++) {
                seed = seed * 1664525u + 1013904223u;
                p[c] = (uint8_t)((x * (c + 1) * 3 + y * 5 + (seed >> 27)) & 255);
            }
            if (!alpha || (y / 2) % 5 == 1)
                p[3] = 255;
            else if ((x / 8 + y / 8) % 3 == 0)
                p[3] = 0;
        }
    return px;
}

static const mip_options test_modes[] = {
    {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true},
    {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true, .alpha_cutoff = 0.5f},
    {.mode = MIP_MODE_LINEAR, .mipmaps = true},
    {.mode = MIP_MODE_NORMAL, .mipmaps = true},
    {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true, .max_size = 50},
};

/* levels8 holds exactly image_float_to_unorm8 of the float chain, for 8-bit
 * and float sources, and neither depends on the thread count: levels of
 * 256x256 sources run on 1, 2 and 3 threads (level 1 has enough texels to
 * be split). */
static void rgba8_levels_are_the_float_levels_quantised_on_any_thread_count(void **state) {
    (void)state;
    static const uint32_t sizes[][2] = {{256, 256}, {255, 130}, {6, 1}};
    for (size_t s = 0; s < 3; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        size_t n = (size_t)w * h * 4;
        uint8_t *bytes = test_rgba8(w, h, (uint32_t)s, true);
        float *floats = malloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++)
            floats[i] = bytes[i] / 255.0f;
        for (size_t m = 0; m < sizeof test_modes / sizeof test_modes[0]; m++) {
            mip_options o = test_modes[m];
            mip_chain reference;
            assert_true(mip_build_rgba8(bytes, w, h, &o, &reference));
            for (unsigned threads = 1; threads <= 3; threads++)
                for (int from_floats = 0; from_floats < 2; from_floats++) {
                    o.threads = threads;
                    o.levels8 = true;
                    mip_chain chain8, chainf;
                    assert_true(from_floats ? mip_build(floats, w, h, &o, &chain8)
                                            : mip_build_rgba8(bytes, w, h, &o, &chain8));
                    o.levels8 = false;
                    assert_true(from_floats ? mip_build(floats, w, h, &o, &chainf)
                                            : mip_build_rgba8(bytes, w, h, &o, &chainf));
                    assert_int_equal(chain8.count, reference.count);
                    for (uint32_t level = 0; level < chain8.count; level++) {
                        size_t count = (size_t)chain8.width[level] * chain8.height[level] * 4;
                        assert_non_null(chain8.levels8[level]);
                        assert_null(chain8.levels[level]);
                        assert_memory_equal(chainf.levels[level], reference.levels[level],
                                            count * sizeof(float));
                        for (size_t i = 0; i < count; i++)
                            if (chain8.levels8[level][i] !=
                                image_float_to_unorm8(reference.levels[level][i]))
                                fail_msg("%ux%u mode %zu threads %u level %u byte %zu: %u, not %u",
                                         w, h, m, threads, level, i, chain8.levels8[level][i],
                                         image_float_to_unorm8(reference.levels[level][i]));
                    }
                    mip_chain_free(&chain8);
                    mip_chain_free(&chainf);
                }
            mip_chain_free(&reference);
        }
        free(bytes);
        free(floats);
    }
}

/* The float reference of one mip chain, written independently of mips.c:
 * the transfer functions through powf, every level by image_resample_area
 * (double sums) from the previous level's linear values, quantised with
 * lrintf. No alpha cutoff (coverage scaling is checked on its own). */
static uint8_t reference_unorm8(double v) {
    return v <= 0.0 ? 0 : v >= 1.0 ? 255 : (uint8_t)lrint(v * 255.0);
}

static uint32_t reference_chain(const uint8_t *rgba8, uint32_t w, uint32_t h, const mip_options *o,
                                uint8_t *levels[MIP_MAX_LEVELS]) {
    float *work = malloc((size_t)w * h * 4 * sizeof(float));
    for (size_t i = 0; i < (size_t)w * h; i++) {
        float *p = work + i * 4;
        for (int c = 0; c < 4; c++)
            p[c] = rgba8[i * 4 + (size_t)c] / 255.0f;
        for (int c = 0; c < 3; c++) {
            if (o->mode == MIP_MODE_NORMAL)
                p[c] = p[c] * 2.0f - 1.0f;
            else if (o->mode == MIP_MODE_COLOR_SRGB)
                p[c] = image_srgb_to_linear(p[c]);
            if (o->mode != MIP_MODE_NORMAL && o->alpha_weighted)
                p[c] *= p[3];
        }
    }
    uint32_t count = mip_level_count(w, h);
    levels[0] = NULL;
    for (uint32_t level = 1; level < count; level++) {
        uint32_t lw = w > 1 ? w / 2 : 1, lh = h > 1 ? h / 2 : 1;
        float *next = malloc((size_t)lw * lh * 4 * sizeof(float));
        assert_true(image_resample_area(work, w, h, next, lw, lh));
        free(work);
        work = next;
        w = lw;
        h = lh;
        levels[level] = malloc((size_t)w * h * 4);
        for (size_t i = 0; i < (size_t)w * h; i++) {
            float *p = work + i * 4;
            uint8_t *d = levels[level] + i * 4;
            if (o->mode == MIP_MODE_NORMAL) {
                double len = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
                for (int c = 0; c < 3; c++) {
                    p[c] = len > 1e-12 ? (float)(p[c] / len) : c == 2 ? 1.0f : 0.0f;
                    d[c] = reference_unorm8(p[c] * 0.5 + 0.5);
                }
            } else {
                for (int c = 0; c < 3; c++) {
                    double v = p[c];
                    if (o->alpha_weighted)
                        v = p[3] > 0.0f ? v / p[3] : 0.0;
                    if (o->mode == MIP_MODE_COLOR_SRGB)
                        v = v <= 0.0 ? 0.0 : image_linear_to_srgb((float)v);
                    d[c] = reference_unorm8(v);
                }
            }
            d[3] = reference_unorm8(p[3]);
        }
    }
    free(work);
    return count;
}

/* Every texel of levels 1.. within 1 code of the reference (mips.c sums in
 * float, transfers through tables); returns how many differ at all. */
static size_t check_against_reference(const uint8_t *rgba8, uint32_t w, uint32_t h,
                                      const mip_options *options, const char *what) {
    mip_options o = *options;
    o.levels8 = true;
    o.threads = 2;
    mip_chain chain;
    assert_true(mip_build_rgba8(rgba8, w, h, &o, &chain));
    uint8_t *expected[MIP_MAX_LEVELS];
    uint32_t count = reference_chain(rgba8, w, h, &o, expected);
    assert_int_equal(chain.count, count);
    size_t differ = 0;
    for (uint32_t level = 1; level < count; level++) {
        size_t bytes = (size_t)chain.width[level] * chain.height[level] * 4;
        for (size_t i = 0; i < bytes; i++) {
            int d = (int)chain.levels8[level][i] - (int)expected[level][i];
            if (d < -1 || d > 1)
                fail_msg("%s: level %u byte %zu is %u, reference %u", what, level, i,
                         chain.levels8[level][i], expected[level][i]);
            differ += d != 0;
        }
        free(expected[level]);
    }
    mip_chain_free(&chain);
    return differ;
}

static void mips_stay_within_one_code_of_the_area_filter(void **state) {
    (void)state;
    static const mip_options modes[] = {
        {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true},
        {.mode = MIP_MODE_COLOR_SRGB, .mipmaps = true},
        {.mode = MIP_MODE_LINEAR, .mipmaps = true},
        {.mode = MIP_MODE_NORMAL, .mipmaps = true},
    };
    static const uint32_t sizes[][2] = {{128, 64}, {97, 45}};
    for (size_t s = 0; s < 2; s++) {
        uint8_t *px = test_rgba8(sizes[s][0], sizes[s][1], 3u + (uint32_t)s, true);
        for (size_t m = 0; m < 4; m++)
            check_against_reference(px, sizes[s][0], sizes[s][1], &modes[m], "test image");
        free(px);
    }
    /* Texels far apart in magnitude (alpha 1 and 255, colours 1 and 255):
     * where float pair sums may round differently from double ones. */
    uint8_t *px = malloc(64 * 64 * 4);
    for (size_t i = 0; i < 64 * 64; i++) {
        uint8_t v = (i * 7919u) % 5 == 0 ? 255 : 1;
        px[i * 4] = px[i * 4 + 1] = px[i * 4 + 2] = v;
        px[i * 4 + 3] = (i * 104729u) % 3 == 0 ? 255 : 1;
    }
    check_against_reference(px, 64, 64, &modes[0], "extremes");
    free(px);

    /* Corpus textures, 256x256 and 255x129 crops at the centre. */
    if (test_skip_without_corpus("mips_stay_within_one_code_of_the_area_filter"))
        return;
    static const struct {
        const char *path;
        size_t mode;
    } textures[] = {
        {"gltf/AlphaBlendModeTest/glTF/AlphaBlendLabels.png", 0},
        {"gltf/WaterBottle/glTF/WaterBottle_baseColor.png", 0},
        {"gltf/AlphaBlendModeTest/glTF/MatBed_occlusionRoughnessMetallic.jpg", 2},
        {"gltf/AlphaBlendModeTest/glTF/MatBed_normal.jpg", 3},
    };
    for (size_t t = 0; t < 4; t++) {
        char *path = test_path_join(test_corpus_dir(), textures[t].path);
        size_t size;
        uint8_t *file = test_read_file(path, &size);
        ir_decoded_image image;
        char reason[256];
        assert_true(image_decode(file, size, path, NULL, &image, reason, sizeof reason));
        static const uint32_t crops[][2] = {{256, 256}, {255, 129}};
        size_t differ = 0, total = 0;
        for (size_t c = 0; c < 2; c++) {
            uint32_t cw = crops[c][0], ch = crops[c][1];
            assert_true(image.width >= cw && image.height >= ch);
            uint8_t *crop = malloc((size_t)cw * ch * 4);
            uint32_t x0 = (image.width - cw) / 2, y0 = (image.height - ch) / 2;
            for (uint32_t y = 0; y < ch; y++)
                memcpy(crop + (size_t)y * cw * 4,
                       image.rgba8 + (((size_t)(y0 + y) * image.width) + x0) * 4, (size_t)cw * 4);
            differ += check_against_reference(crop, cw, ch, &modes[textures[t].mode], path);
            total += (size_t)cw * ch * 4 / 3;
            free(crop);
        }
        print_message("%s: %zu of ~%zu mip bytes differ from the reference by 1\n",
                      textures[t].path, differ, total);
        ir_decoded_image_free(&image);
        free(file);
        free(path);
    }
}

/* ---------------------------------------------------------------------------
 * The AVX2 encode (mips_simd.c) against the portable code and plain powf
 * ------------------------------------------------------------------------- */

/* Every mode and weighting the encode tells apart, and the cutoff and
 * resize paths of the chain. */
static const mip_options test_modes_all[] = {
    {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true},
    {.mode = MIP_MODE_COLOR_SRGB, .mipmaps = true},
    {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true, .alpha_cutoff = 0.5f},
    {.mode = MIP_MODE_LINEAR, .mipmaps = true},
    {.mode = MIP_MODE_LINEAR, .alpha_weighted = true, .mipmaps = true},
    {.mode = MIP_MODE_NORMAL, .mipmaps = true},
    {.mode = MIP_MODE_COLOR_SRGB, .alpha_weighted = true, .mipmaps = true, .max_size = 20},
};

static uint32_t lcg(uint32_t *seed) {
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

static float random_unit(uint32_t *seed) { /* 0 .. 1 */
    return (float)lcg(seed) / (float)(1u << 24);
}

/* A row's stored bytes written plainly: colour divided by alpha again (0
 * where alpha is 0), sRGB through powf, every channel rounded by lrintf. */
static void plain_encode8(const float *p, const mip_options *o, uint8_t *d) {
    float len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (int c = 0; c < 3; c++) {
        float v = p[c];
        if (o->mode == MIP_MODE_NORMAL)
            v = len > 1e-12f ? v / len * 0.5f + 0.5f : c == 2 ? 1.0f : 0.5f;
        else if (o->alpha_weighted)
            v = p[3] > 0.0f ? v / p[3] : 0.0f;
        if (o->mode == MIP_MODE_COLOR_SRGB)
            v = image_linear_to_srgb(v);
        d[c] = !(v > 0.0f) ? 0 : v >= 1.0f ? 255 : (uint8_t)lrintf(v * 255.0f);
    }
    d[3] = !(p[3] > 0.0f) ? 0 : p[3] >= 1.0f ? 255 : (uint8_t)lrintf(p[3] * 255.0f);
}

/* Working texels at and around every sRGB step (the linear value of each
 * code's midpoint, 3 ulp either side) and random ones from -0.1 to 1.1 with
 * alphas 0, 1 and between, in rows of odd lengths (the 8-texel batches and
 * the tail): the fast encode gives the portable encode's bytes, and those
 * are the plain encode's. */
static void fast_encode_equals_the_portable_encode_and_powf(void **state) {
    (void)state;
    enum { TEXELS = 256 * 7 + 4003 };
    float *work = malloc(TEXELS * 4 * sizeof(float));
    uint8_t *fast = malloc(TEXELS * 4), *portable = malloc(TEXELS * 4), plain[4];
    uint32_t seed = 7;
    size_t n = 0;
    for (int k = 0; k < 256; k++) {
        float mid = image_srgb_to_linear((k + 0.5f) / 255.0f);
        for (int step = -3; step <= 3; step++, n++) {
            float v = mid;
            for (int u = 0; u < (step < 0 ? -step : step); u++)
                v = nextafterf(v, step < 0 ? 0.0f : 2.0f);
            float *p = work + n * 4;
            p[0] = p[1] = p[2] = v;
            p[(size_t)k % 3] = random_unit(&seed);
            p[3] = 1.0f;
        }
    }
    for (; n < TEXELS; n++) {
        float *p = work + n * 4;
        for (int c = 0; c < 3; c++)
            p[c] = random_unit(&seed) * 1.2f - 0.1f;
        uint32_t kind = lcg(&seed) % 4;
        p[3] = kind == 0 ? 0.0f : kind == 1 ? 1.0f : random_unit(&seed);
        if (kind == 3) /* premultiplied colour */
            for (int c = 0; c < 3; c++)
                p[c] *= p[3];
    }
    static const size_t lengths[] = {TEXELS, 1, 7, 8, 9, 1023};
    for (size_t m = 0; m < sizeof test_modes_all / sizeof *test_modes_all; m++)
        for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
            mip_options o = test_modes_all[m];
            size_t count = lengths[l];
            memset(fast, 0xAB, TEXELS * 4);
            memset(portable, 0xCD, TEXELS * 4);
            mips_encode8_row(work, fast, count, &o);
            o.portable = true;
            mips_encode8_row(work, portable, count, &o);
            assert_memory_equal(fast, portable, count * 4);
            if (count < TEXELS) /* nothing written past the row */
                assert_int_equal(fast[count * 4], 0xAB);
            for (size_t i = 0; i < count; i++) {
                plain_encode8(work + i * 4, &o, plain);
                if (memcmp(plain, fast + i * 4, 4) != 0)
                    fail_msg("mode %zu texel %zu: %u %u %u %u, plain %u %u %u %u", m, i,
                             fast[i * 4], fast[i * 4 + 1], fast[i * 4 + 2], fast[i * 4 + 3],
                             plain[0], plain[1], plain[2], plain[3]);
            }
        }
    free(work);
    free(fast);
    free(portable);
}

/* Random images of random sizes (odd and even, 1 to 75 texels a side, some
 * up to 200 wide; rows opaque, transparent, mixed, or opaque but for one
 * texel) through every mode: the chain is the same
 * bytes with and without the AVX2 code on 1 and 2 threads, and within one
 * code of the plain reference chain. */
static void fast_chain_equals_the_portable_chain_on_random_sizes(void **state) {
    (void)state;
    uint32_t seed = 11;
    for (int image = 0; image < 24; image++) {
        uint32_t w = 1 + lcg(&seed) % (image < 16 ? 75 : 200), h = 1 + lcg(&seed) % 75;
        if (image < 8) { /* odd sides first */
            w |= 1;
            h |= 1;
        }
        uint8_t *px = malloc((size_t)w * h * 4);
        for (size_t i = 0; i < (size_t)w * h * 4; i++)
            px[i] = (uint8_t)lcg(&seed);
        /* Per row pair: opaque, transparent, as drawn, or opaque but for one
         * texel (where the AVX-512 halving stops part way). */
        uint32_t cut = lcg(&seed) % w;
        for (uint32_t y = 0; y < h; y++) {
            uint32_t kind = (y / 2 + (uint32_t)image) % 4;
            for (uint32_t x = 0; kind != 2 && x < w; x++)
                px[((size_t)y * w + x) * 4 + 3] = kind == 1 ? 0 : 255;
            if (kind == 3)
                px[((size_t)y * w + cut) * 4 + 3] = (uint8_t)(lcg(&seed) % 255);
        }
        for (size_t m = 0; m < sizeof test_modes_all / sizeof *test_modes_all; m++) {
            mip_options o = test_modes_all[m];
            o.levels8 = true;
            mip_chain fast, portable;
            o.threads = 1 + (uint32_t)image % 2;
            assert_true(mip_build_rgba8(px, w, h, &o, &fast));
            o.portable = true;
            o.threads = 1;
            assert_true(mip_build_rgba8(px, w, h, &o, &portable));
            assert_int_equal(fast.count, portable.count);
            for (uint32_t level = 0; level < fast.count; level++)
                assert_memory_equal(fast.levels8[level], portable.levels8[level],
                                    (size_t)fast.width[level] * fast.height[level] * 4);
            mip_chain_free(&fast);
            mip_chain_free(&portable);
            if (test_modes_all[m].alpha_cutoff == 0.0f && test_modes_all[m].max_size == 0)
                check_against_reference(px, w, h, &test_modes_all[m], "random image");
        }
        free(px);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(srgb_checkerboard_averages_to_188_not_128),
        cmocka_unit_test(non_power_of_two_chains_halve_down_to_1x1),
        cmocka_unit_test(max_size_downscales_keeping_aspect),
        cmocka_unit_test(block_alignment_pads_or_resizes_level0),
        cmocka_unit_test(transparent_texels_do_not_bleed_colour),
        cmocka_unit_test(normal_maps_are_renormalised_per_level),
        cmocka_unit_test(alpha_coverage_is_preserved_at_the_cutoff),
        cmocka_unit_test(srgb_transfer_round_trips_every_byte),
        cmocka_unit_test(table_srgb_encode_is_exact_and_monotonic),
        cmocka_unit_test(unorm8_quantiser_equals_lrintf),
        cmocka_unit_test(halving_equals_the_general_area_filter_exactly),
        cmocka_unit_test(banded_resample_equals_the_whole_image_area_filter),
        cmocka_unit_test(banded_first_levels_equal_the_whole_levels_chain),
        cmocka_unit_test(rgba8_chain_equals_the_float_chain),
        cmocka_unit_test(rgba8_levels_are_the_float_levels_quantised_on_any_thread_count),
        cmocka_unit_test(mips_stay_within_one_code_of_the_area_filter),
        cmocka_unit_test(fast_encode_equals_the_portable_encode_and_powf),
        cmocka_unit_test(fast_chain_equals_the_portable_chain_on_random_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
