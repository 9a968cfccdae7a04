/* Mip chains: sRGB-correct filtering, alpha weighting, normal renormalisation,
 * coverage preservation, non-power-of-two sizes, max_size downscaling. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/texture_internal.h"
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
            long v = lrintf(chain.levels[level][i * 4] * 255.0f);
            assert_true(v >= 187 && v <= 188);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(srgb_checkerboard_averages_to_188_not_128),
        cmocka_unit_test(non_power_of_two_chains_halve_down_to_1x1),
        cmocka_unit_test(max_size_downscales_keeping_aspect),
        cmocka_unit_test(transparent_texels_do_not_bleed_colour),
        cmocka_unit_test(normal_maps_are_renormalised_per_level),
        cmocka_unit_test(alpha_coverage_is_preserved_at_the_cutoff),
        cmocka_unit_test(srgb_transfer_round_trips_every_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
