/* UASTC transcoding (src/common/uastc_transcode.h, kiln_uastc_transcode):
 * random valid blocks of every mode transcoded to ASTC 4×4 and decoded by
 * astcenc (the cooker's ASTC decoder) give exactly the UASTC decoding, UNORM8
 * and sRGB; transcoded to BC7 and decoded by the cooker's BC7 decoder they
 * stay within a bound per mode (solid colours exactly); the ASTC endpoint
 * ranges are the ones an ASTC decoder derives from the free bits; libkiln's
 * level transcoder, its sizes, formats and refusals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/uastc.h"
#include "common/uastc_transcode.h"
#include "common/uastc_transcode_etc.h"
#include "cook/encode/encode.h"
#include "kiln/kiln.h"
#include "test_support.h"

static uint32_t rng_state = 77;
static uint32_t rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

/* A random valid logical block of a mode (endpoints of its range, weights
 * with the anchors' top bit clear). */
static void random_block(unsigned mode, uastc_logical *b) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    memset(b, 0, sizeof *b);
    b->mode = (uint8_t)mode;
    b->hints = rnd() & ((1u << d->hint_bits) - 1u);
    if (mode == UASTC_MODE_SOLID) {
        for (int k = 0; k < 4; k++)
            b->solid[k] = (uint8_t)rnd();
        return;
    }
    b->pattern = d->subsets > 1 ? (uint8_t)(rnd() % uastc_pattern_count(mode)) : 0;
    b->ccs = d->planes == 2 ? (d->comps == 2 ? 3 : (uint8_t)(rnd() % 4)) : 0;
    for (unsigned i = 0; i < d->comps * 2u * d->subsets; i++)
        b->endpoints[i] = (uint8_t)(rnd() % uastc_ise_levels(d->endpoint_ise));
    uint8_t subset_of[16], anchors[3];
    unsigned subsets = uastc_partition(mode, b->pattern, subset_of, anchors);
    for (unsigned i = 0; i < 16u * d->planes; i++) {
        unsigned texel = i / d->planes, bits = d->weight_bits;
        for (unsigned s = 0; s < subsets; s++)
            if (anchors[s] == texel)
                bits = d->weight_bits - 1;
        b->weights[i] = (uint8_t)(rnd() & ((1u << bits) - 1u));
    }
}

/* BLOCKS_X x BLOCKS_Y random blocks of one mode, as UASTC bytes. */
#define BLOCKS_X 32u
#define BLOCKS_Y 16u
#define BLOCKS (BLOCKS_X * BLOCKS_Y)
#define IMAGE_W (BLOCKS_X * 4u)
#define IMAGE_H (BLOCKS_Y * 4u)

static void random_level(unsigned mode, uint8_t uastc[BLOCKS * 16]) {
    rng_state = 1000u + mode; /* the same blocks whichever test asks */
    for (unsigned i = 0; i < BLOCKS; i++) {
        uastc_logical b;
        random_block(mode, &b);
        assert_int_equal(uastc_pack(&b, uastc + i * 16), UASTC_OK);
    }
}

/* The UASTC decoding of the level laid out as an image. */
static void uastc_image(const uint8_t *uastc, bool srgb, uint8_t *rgba) {
    kiln_error err;
    assert_int_equal(kiln_uastc_decode_rgba8(uastc, BLOCKS * 16, IMAGE_W, IMAGE_H, srgb, rgba,
                                             IMAGE_W * IMAGE_H * 4, "t", &err),
                     KILN_OK);
}

/* The cooker's decoders: BC7's own, astcenc for ASTC. astcenc 4.2's UNORM8
 * bytes come from its 16-bit decoding through half floats, rounded, where
 * ASTC's 8-bit decoding (UASTC's) keeps the top byte: they may be one off;
 * its sRGB floats are the 16-bit values / 65535, whose top byte is exact. */
static void decode_target(block_format format, bool srgb, const uint8_t *blocks, uint8_t *rgba) {
    block_image_desc desc = {.format = format,
                             .width = IMAGE_W,
                             .height = IMAGE_H,
                             .srgb = srgb,
                             .astc_block_width = 4,
                             .astc_block_height = 4};
    char reason[256] = "";
    if (format == BLOCK_FORMAT_BC7 || !srgb) {
        if (!block_decode_image(&desc, blocks, rgba, NULL, reason, sizeof reason))
            fail_msg("decode: %s", reason);
        return;
    }
    static float values[IMAGE_W * IMAGE_H * 4];
    if (!block_decode_image(&desc, blocks, NULL, values, reason, sizeof reason))
        fail_msg("decode: %s", reason);
    for (unsigned i = 0; i < IMAGE_W * IMAGE_H * 4; i++)
        rgba[i] = (uint8_t)(lrintf(values[i] * 65535.0f) >> 8);
}

static void transcode_level(const uint8_t *uastc, kiln_transcode_target target, uint8_t *out) {
    kiln_error err;
    assert_int_equal(kiln_uastc_transcode(uastc, BLOCKS * 16, IMAGE_W, IMAGE_H, false, target, out,
                                          BLOCKS * 16, "t", &err),
                     KILN_OK);
}

/* ---- ASTC ------------------------------------------------------------------ */

/* ISE bits of `count` values of range r (the ASTC specification's formula). */
static unsigned ise_bits(unsigned range, unsigned count) {
    unsigned bits = uastc_ise_bits(range) * count;
    if (uastc_ise_trits(range))
        bits += (8 * count + 4) / 5;
    if (uastc_ise_quints(range))
        bits += (7 * count + 2) / 3;
    return bits;
}

/* An ASTC decoder reads the endpoints at the largest range whose values fit
 * the bits the rest of the block leaves: it must be the UASTC mode's range. */
static void astc_endpoint_ranges_are_derived(void **state) {
    (void)state;
    for (unsigned mode = 0; mode < UASTC_MODES; mode++) {
        if (mode == UASTC_MODE_SOLID)
            continue;
        const uastc_mode_desc *d = uastc_mode_info(mode);
        unsigned weight_bits = 16u * d->planes * d->weight_bits;
        unsigned header = d->subsets == 1 ? 17u : 29u;
        unsigned free_bits = 128u - header - weight_bits - (d->planes == 2 ? 2u : 0u);
        unsigned values = d->comps * 2u * d->subsets, largest = 0;
        for (unsigned r = 0; r < 21; r++)
            if (ise_bits(r, values) <= free_bits)
                largest = r;
        assert_int_equal(largest, d->endpoint_ise);
    }
}

/* Every mode's blocks, transcoded, decode in astcenc to the UASTC texels:
 * exactly with sRGB interpolation (which proves the block: endpoints,
 * weights, partition, plane and mode are the same for both), within
 * astcenc's rounding with UNORM8. */
static void astc_decodes_exactly_per_mode(void **state) {
    (void)state;
    uint8_t *uastc = malloc(BLOCKS * 16), *astc = malloc(BLOCKS * 16);
    uint8_t *want = malloc(IMAGE_W * IMAGE_H * 4), *got = malloc(IMAGE_W * IMAGE_H * 4);
    for (unsigned mode = 0; mode < UASTC_MODES; mode++) {
        random_level(mode, uastc);
        transcode_level(uastc, KILN_TRANSCODE_ASTC_4X4, astc);
        for (int srgb = 1; srgb >= 0; srgb--) {
            uastc_image(uastc, srgb, want);
            decode_target(BLOCK_FORMAT_ASTC_LDR, srgb, astc, got);
            for (unsigned i = 0; i < IMAGE_W * IMAGE_H * 4; i++) {
                int diff = (int)got[i] - (int)want[i];
                if (srgb ? diff != 0 : abs(diff) > 1)
                    fail_msg("mode %u %s: texel %u channel %u: ASTC %u, UASTC %u", mode,
                             srgb ? "sRGB" : "UNORM", i / 4, i % 4, got[i], want[i]);
            }
        }
    }
    free(uastc);
    free(astc);
    free(want);
    free(got);
}

/* ---- BC7 ------------------------------------------------------------------- */

/* Per mode, the largest texel difference and the lowest PSNR of BC7
 * against the UASTC decoding on these random blocks (as measured, rounded
 * down: BENCHMARKS.md §19 lists them). What costs: endpoint precision (5-bit
 * BC7 endpoints for modes 3, 7, 9 and 16), BC7's 8-bit interpolation, ASTC's
 * 4-bit weights (8, 12, 25 … of 64) against BC7's (9, 13, 26 …), and 3- and
 * 5-bit weights on the nearest 4-bit BC7 weight (modes 5, 12, 18). */
static const struct {
    unsigned max_diff;
    double min_psnr;
} bc7_bounds[UASTC_MODES] = {
    {5, 46}, {2, 54}, {3, 49}, {3, 44}, {2, 54}, {5, 46}, {1, 54}, {4, 42}, {0, 999}, {4, 43},
    {5, 45}, {1, 52}, {5, 45}, {1, 52}, {2, 52}, {5, 45}, {5, 45}, {1, 52}, {9, 42},
};

static void bc7_is_close_per_mode(void **state) {
    (void)state;
    uint8_t *uastc = malloc(BLOCKS * 16), *bc7 = malloc(BLOCKS * 16);
    uint8_t *want = malloc(IMAGE_W * IMAGE_H * 4), *got = malloc(IMAGE_W * IMAGE_H * 4);
    unsigned worst_diff[UASTC_MODES];
    double worst_psnr[UASTC_MODES];
    for (unsigned mode = 0; mode < UASTC_MODES; mode++) {
        random_level(mode, uastc);
        transcode_level(uastc, KILN_TRANSCODE_BC7, bc7);
        uastc_image(uastc, false, want);
        decode_target(BLOCK_FORMAT_BC7, false, bc7, got);
        unsigned max_diff = 0;
        double squares = 0;
        for (unsigned i = 0; i < IMAGE_W * IMAGE_H * 4; i++) {
            unsigned diff = (unsigned)abs((int)want[i] - (int)got[i]);
            max_diff = diff > max_diff ? diff : max_diff;
            squares += (double)diff * diff;
        }
        double mse = squares / (IMAGE_W * IMAGE_H * 4);
        double psnr = mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : 999;
        print_message("mode %2u: BC7 max difference %u, PSNR %.1f dB\n", mode, max_diff, psnr);
        worst_diff[mode] = max_diff;
        worst_psnr[mode] = psnr;
    }
    for (unsigned mode = 0; mode < UASTC_MODES; mode++) {
        assert_true(worst_diff[mode] <= bc7_bounds[mode].max_diff);
        assert_true(worst_psnr[mode] >= bc7_bounds[mode].min_psnr);
    }
    free(uastc);
    free(bc7);
    free(want);
    free(got);
}

/* Solid blocks of every channel value decode exactly (BC7 mode 5). */
static void bc7_solid_colours_are_exact(void **state) {
    (void)state;
    for (unsigned v = 0; v < 256; v++) {
        uastc_logical b = {.mode = UASTC_MODE_SOLID};
        uint8_t colour[4] = {(uint8_t)v, (uint8_t)(255 - v), (uint8_t)(v ^ 0x5A), (uint8_t)(v * 7)};
        memcpy(b.solid, colour, 4);
        uint8_t block[16], rgba[64];
        uastc_logical_to_bc7(&b, block);
        assert_int_equal(block_bc7_mode(block), 5);
        block_image_desc desc = {.format = BLOCK_FORMAT_BC7, .width = 4, .height = 4};
        char reason[128];
        assert_true(block_decode_image(&desc, block, rgba, NULL, reason, sizeof reason));
        for (unsigned i = 0; i < 16; i++)
            assert_memory_equal(rgba + 4 * i, colour, 4);
    }
}

/* Each UASTC mode lands in the BC7 mode the specification maps it to. */
static void bc7_modes_follow_the_mapping(void **state) {
    (void)state;
    static const int expected[UASTC_MODES] = {6, 3, 1, 2, 3, 6, 5, 2, 5, 7,
                                              6, 5, 6, 5, 6, 6, 7, 5, 6};
    for (unsigned mode = 0; mode < UASTC_MODES; mode++) {
        uastc_logical b;
        random_block(mode, &b);
        uint8_t block[16];
        uastc_logical_to_bc7(&b, block);
        assert_int_equal(block_bc7_mode(block), expected[mode]);
    }
}

/* ---- the runtime's level transcoder ------------------------------------------ */

static void sizes_and_formats(void **state) {
    (void)state;
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_RGBA8, 6, 5), 6 * 5 * 4);
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_BC7, 6, 5), 4 * 16);
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_ASTC_4X4, 1, 1), 16);
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_BC7, 0, 5), 0);
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_ETC1_RGB, 6, 5), 4 * 8);
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_ETC2_RGBA8, 6, 5), 4 * 16);
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_BC1, 6, 5), 4 * 8);
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_BC3, 6, 5), 4 * 16);
    assert_int_equal(kiln_uastc_transcoded_size((kiln_transcode_target)7, 4, 4), 0);
    /* 2^30 x 2^30 blocks of 16 bytes: past SIZE_MAX. */
    assert_int_equal(kiln_uastc_transcoded_size(KILN_TRANSCODE_BC7, UINT32_MAX, UINT32_MAX), 0);
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_BC7, false), 145);
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_BC7, true), 146);
    /* VK_FORMAT_ETC2_R8G8B8_SRGB_BLOCK, ETC2_R8G8B8A8_UNORM_BLOCK, BC1_RGB_SRGB, BC3_UNORM */
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_ETC1_RGB, true), 148);
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_ETC2_RGBA8, false), 151);
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_BC1, true), 132);
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_BC3, false), 137);
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_ASTC_4X4, false), 157);
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_ASTC_4X4, true), 158);
    assert_int_equal(kiln_uastc_transcode_vk_format(KILN_TRANSCODE_RGBA8, true), 43);
    assert_int_equal(kiln_uastc_transcode_vk_format((kiln_transcode_target)7, true), 0);
}

/* A 6x5 level (2x2 blocks): each output block is its block's transcoding;
 * RGBA8 is the decoder's output; bad sizes, targets and blocks are refused. */
static void runtime_transcodes_a_level(void **state) {
    (void)state;
    uint8_t blocks[4 * 16], want[2][4 * 16];
    for (unsigned b = 0; b < 4; b++) {
        uastc_logical l;
        random_block(b * 4u + 1u, &l); /* modes 1, 5, 9, 13 */
        assert_int_equal(uastc_pack(&l, blocks + 16 * b), UASTC_OK);
        uastc_logical_to_bc7(&l, want[0] + 16 * b);
        uastc_logical_to_astc(&l, want[1] + 16 * b);
    }
    kiln_error err;
    uint8_t out[4 * 16];
    assert_int_equal(kiln_uastc_transcode(blocks, sizeof blocks, 6, 5, false, KILN_TRANSCODE_BC7,
                                          out, sizeof out, "t.ktx2", &err),
                     KILN_OK);
    assert_memory_equal(out, want[0], sizeof out);
    assert_int_equal(kiln_uastc_transcode(blocks, sizeof blocks, 6, 5, true,
                                          KILN_TRANSCODE_ASTC_4X4, out, sizeof out, "t.ktx2", &err),
                     KILN_OK);
    assert_memory_equal(out, want[1], sizeof out);
    /* In place, as the asset manager transcodes its staging memory. */
    for (int target = 1; target <= 2; target++) {
        memcpy(out, blocks, sizeof out);
        assert_int_equal(kiln_uastc_transcode(out, sizeof out, 6, 5, false,
                                              (kiln_transcode_target)target, out, sizeof out,
                                              "t.ktx2", &err),
                         KILN_OK);
        assert_memory_equal(out, want[target - 1], sizeof out);
    }
    /* The ETC and BC1/BC3 targets in place equal their block functions
     * (8-byte blocks overwrite the front of what they came from). */
    static const struct {
        kiln_transcode_target target;
        uint32_t block_bytes;
        uastc_status (*block)(const uint8_t *, bool, uint8_t *);
    } fitted[] = {{KILN_TRANSCODE_ETC1_RGB, 8, uastc_block_to_etc1},
                  {KILN_TRANSCODE_ETC2_RGBA8, 16, uastc_block_to_etc2_rgba8},
                  {KILN_TRANSCODE_BC1, 8, uastc_block_to_bc1},
                  {KILN_TRANSCODE_BC3, 16, uastc_block_to_bc3}};
    for (size_t t = 0; t < sizeof fitted / sizeof fitted[0]; t++) {
        uint8_t expected[4 * 16];
        for (unsigned b = 0; b < 4; b++)
            assert_int_equal(
                fitted[t].block(blocks + 16 * b, true, expected + fitted[t].block_bytes * b),
                UASTC_OK);
        memcpy(out, blocks, sizeof out);
        assert_int_equal(kiln_uastc_transcode(out, sizeof out, 6, 5, true, fitted[t].target, out,
                                              sizeof out, "t.ktx2", &err),
                         KILN_OK);
        assert_memory_equal(out, expected, 4 * fitted[t].block_bytes);
    }
    uint8_t rgba[6 * 5 * 4], decoded[6 * 5 * 4];
    assert_int_equal(kiln_uastc_transcode(blocks, sizeof blocks, 6, 5, true, KILN_TRANSCODE_RGBA8,
                                          rgba, sizeof rgba, "t.ktx2", &err),
                     KILN_OK);
    assert_int_equal(kiln_uastc_decode_rgba8(blocks, sizeof blocks, 6, 5, true, decoded,
                                             sizeof decoded, "t.ktx2", &err),
                     KILN_OK);
    assert_memory_equal(rgba, decoded, sizeof rgba);

    assert_int_equal(kiln_uastc_transcode(blocks, sizeof blocks, 6, 5, false,
                                          (kiln_transcode_target)7, out, sizeof out, "t.ktx2",
                                          &err),
                     KILN_ERR_UNSUPPORTED);
    assert_string_equal(err.message,
                        "t.ktx2: UASTC: transcode target 7 is not supported by this build");
    assert_int_equal(kiln_uastc_transcode(blocks, 63, 6, 5, false, KILN_TRANSCODE_BC7, out,
                                          sizeof out, "t.ktx2", &err),
                     KILN_ERR_TRUNCATED);
    assert_int_equal(kiln_uastc_transcode(blocks, sizeof blocks, 6, 5, false, KILN_TRANSCODE_BC7,
                                          out, sizeof out - 1, "t.ktx2", &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "t.ktx2: UASTC: 6x5 as BC7 needs 64 bytes, the buffer has 63");
    assert_int_equal(kiln_uastc_transcode(NULL, 0, 6, 5, false, KILN_TRANSCODE_BC7, out, sizeof out,
                                          "t.ktx2", &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_uastc_transcode(blocks, sizeof blocks, UINT32_MAX, UINT32_MAX, false,
                                          KILN_TRANSCODE_ASTC_4X4, out, sizeof out, "t.ktx2", &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "t.ktx2: UASTC: 4294967295x4294967295 is too large");
    blocks[3 * 16] = 0x45; /* the reserved mode in block (1, 1) */
    for (int target = 0; target < 3; target++) {
        assert_int_equal(kiln_uastc_transcode(blocks, sizeof blocks, 6, 5, false,
                                              (kiln_transcode_target)target, rgba, sizeof rgba,
                                              "t.ktx2", &err),
                         KILN_ERR_CORRUPT);
        assert_string_equal(err.message, "t.ktx2: UASTC: block (1, 1): reserved mode code");
    }
}

/* Random bytes: every block is refused or transcodes (under the sanitizers). */
static void random_bytes_transcode_or_refuse(void **state) {
    (void)state;
    unsigned accepted = 0;
    for (unsigned t = 0; t < 20000; t++) {
        uint8_t block[16], out[16];
        for (unsigned i = 0; i < 16; i++)
            block[i] = (uint8_t)rnd();
        uastc_status a = uastc_to_astc(block, out), b = uastc_to_bc7(block, out);
        assert_int_equal(a, b);
        accepted += a == UASTC_OK;
    }
    assert_true(accepted > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(astc_endpoint_ranges_are_derived),
        cmocka_unit_test(astc_decodes_exactly_per_mode),
        cmocka_unit_test(bc7_modes_follow_the_mapping),
        cmocka_unit_test(bc7_solid_colours_are_exact),
        cmocka_unit_test(bc7_is_close_per_mode),
        cmocka_unit_test(sizes_and_formats),
        cmocka_unit_test(runtime_transcodes_a_level),
        cmocka_unit_test(random_bytes_transcode_or_refuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
