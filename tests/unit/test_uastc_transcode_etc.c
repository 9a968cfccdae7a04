/* UASTC into ETC1, ETC2 RGBA8, BC1 and BC3 (src/common/uastc_transcode_etc.h)
 * and the encoder's hints (src/cook/encode/uastc_hints.c). Outputs are decoded
 * by decoders that are not the transcoder's: ETC1 and EAC from the Khronos
 * specification (src/cook/inspect/etc_decode.c), BC1 and BC3 by the cooker's
 * (encode/bc1.c). Checked: the hint layout per mode; per mode and target the
 * PSNR against the UASTC decoding, and what the transcoder says it decodes to
 * equals the independent decoding; solid blocks against an exhaustive search
 * written here (ETC1 and BC1 colour as good as any code can be, alpha exact);
 * opaque modes keep alpha 255; hints make ETC1 and BC1 better than none;
 * invalid blocks are refused with the output untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/uastc_transcode_etc.h"
#include "cook/encode/encode.h"
#include "cook/inspect/etc_decode.h"
#include "test_support.h"

static uint32_t rng_state = 31337;
static uint32_t rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static double sq_error(const uint8_t *a, const uint8_t *b, bool alpha) {
    double e = 0;
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < (alpha ? 4 : 3); c++) {
            double d = (double)a[4 * i + c] - (double)b[4 * i + c];
            e += d * d;
        }
    return e;
}

static double psnr(double se, double samples) {
    return se == 0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / (se / samples));
}

static int clamp_byte(int v) {
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* A random valid block of a mode whose endpoint pairs lie within 47 of a
 * random centre per component (closer to a texture's than random values),
 * with the hints the encoder computes for its own decoding. */
static void random_block(unsigned mode, uint8_t block[16], uint8_t rgba[64]) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    uastc_logical b;
    memset(&b, 0, sizeof b);
    b.mode = (uint8_t)mode;
    if (mode == UASTC_MODE_SOLID) {
        for (int k = 0; k < 4; k++)
            b.solid[k] = (uint8_t)rnd();
    } else {
        b.pattern = d->subsets > 1 ? (uint8_t)(rnd() % uastc_pattern_count(mode)) : 0;
        b.ccs = d->planes == 2 ? (d->comps == 2 ? 3 : (uint8_t)(rnd() % 4)) : 0;
        unsigned levels = uastc_ise_levels(d->endpoint_ise);
        for (unsigned i = 0; i < d->comps * 2u * d->subsets; i += 2) {
            int centre = (int)(rnd() % 256), spread = (int)(rnd() % 48);
            for (unsigned e = 0; e < 2; e++) { /* the ISE value nearest each end */
                int want = clamp_byte(centre + (e ? spread : -spread)), best = 1 << 30;
                for (unsigned q = 0; q < levels; q++) {
                    int dq = abs((int)uastc_unquant_endpoint(d->endpoint_ise, q) - want);
                    if (dq < best) {
                        best = dq;
                        b.endpoints[i + e] = (uint8_t)q;
                    }
                }
            }
        }
        uint8_t subset_of[16], anchors[3];
        unsigned subsets = uastc_partition(mode, b.pattern, subset_of, anchors);
        for (unsigned i = 0; i < 16u * d->planes; i++) {
            unsigned bits = d->weight_bits;
            for (unsigned s = 0; s < subsets; s++)
                if (anchors[s] == i / d->planes)
                    bits = d->weight_bits - 1;
            b.weights[i] = (uint8_t)(rnd() & ((1u << bits) - 1u));
        }
    }
    uastc_decode_logical(&b, false, rgba);
    uastc_encode_hints(rgba, BLOCK_QUALITY_NORMAL, &b);
    assert_int_equal(uastc_pack(&b, block), UASTC_OK);
}

/* ---- the hint layout ------------------------------------------------------- */

static void hints_fill_each_modes_bits_and_read_back(void **state) {
    (void)state;
    for (unsigned m = 0; m < UASTC_MODES; m++) {
        const uastc_mode_desc *d = uastc_mode_info(m);
        uastc_hints all = {true, true, true, true, {7, 7}, 31, 15, 15, 3, {31, 31, 31}};
        /* Every field at its maximum sets exactly the mode's hint bits. */
        assert_true(uastc_hints_write(m, &all) == (uint32_t)((1ull << d->hint_bits) - 1u));
        for (int t = 0; t < 200; t++) {
            uint32_t bits = rnd() & (uint32_t)((1ull << d->hint_bits) - 1u);
            uastc_hints h;
            uastc_hints_read(m, bits, &h);
            assert_true(uastc_hints_write(m, &h) == bits);
        }
    }
    /* The fields in the specification's order: BC1 hint 0 first, the EAC
     * multiplier last (mode 9: 23 bits). */
    uastc_hints h;
    uastc_hints_read(9, 1u | 0xA0u << 15, &h);
    assert_true(h.bc1_direct && !h.bc1_weights && h.eac_multiplier == 10 && h.eac_table == 0);
    uastc_hints_read(0, 1u << 2 | 5u << 4 | 13u << 10, &h); /* flip, table 0 = 5, bias 13 */
    assert_true(h.flip && !h.diff && h.table[0] == 5 && h.table[1] == 0 && h.bias == 13);
    assert_false(uastc_mode_has_bias(10));
    assert_true(uastc_mode_has_bias(9) && uastc_mode_has_eac(9) && !uastc_mode_has_eac(0));
}

/* ---- per mode and target ---------------------------------------------------- */

enum { ETC1, ETC2, BC1, BC3, TARGETS };
static const char *target_names[TARGETS] = {"ETC1", "ETC2 RGBA8", "BC1", "BC3"};

/* Transcodes and decodes a block independently into `out` (RGBA8). */
static void transcode_decoded(unsigned target, const uint8_t block[16], uint8_t out[64]) {
    uint8_t bytes[16];
    memset(out, 255, 64);
    switch (target) {
    case ETC1:
        assert_int_equal(uastc_block_to_etc1(block, false, bytes), UASTC_OK);
        assert_true(etc1_decode_block(bytes, out));
        break;
    case ETC2:
        assert_int_equal(uastc_block_to_etc2_rgba8(block, false, bytes), UASTC_OK);
        assert_true(etc1_decode_block(bytes + 8, out));
        eac_decode_block(bytes, out);
        break;
    case BC1:
        assert_int_equal(uastc_block_to_bc1(block, false, bytes), UASTC_OK);
        bc1_decode_block(bytes, out);
        /* 4-colour mode: no texel may decode transparent */
        assert_true((bytes[0] | bytes[1] << 8) >= (bytes[2] | bytes[3] << 8));
        break;
    default:
        assert_int_equal(uastc_block_to_bc3(block, false, bytes), UASTC_OK);
        bc3_decode_block(bytes, out);
        break;
    }
}

/* Floors (dB, RGB for ETC1 and BC1, RGBA otherwise; 1 dB under what the
 * transcoders reach on 300 random blocks of each mode): the subsets' random
 * colours make the partitioned modes (2, 3, 4, 7, 9, 16) far harder than a
 * texture's blocks, which no ETC1 or BC1 block can split the same way. */
static const double floors[UASTC_MODES][TARGETS] = {
    {30, 31, 35, 36}, /* 0 */
    {29, 30, 42, 43}, /* 1 */
    {16, 18, 23, 25}, /* 2 */
    {15, 17, 17, 19}, /* 3 */
    {16, 18, 23, 24}, /* 4 */
    {29, 31, 35, 36}, /* 5 */
    {25, 26, 29, 30}, /* 6 */
    {18, 19, 23, 24}, /* 7 */
    {44, 45, 49, 51}, /* 8 */
    {16, 17, 23, 24}, /* 9 */
    {30, 31, 35, 36}, /* 10 */
    {25, 26, 29, 30}, /* 11 */
    {29, 30, 35, 36}, /* 12 */
    {23, 24, 26, 27}, /* 13 */
    {29, 30, 42, 42}, /* 14 */
    {35, 36, 35, 36}, /* 15 */
    {30, 31, 28, 29}, /* 16 */
    {38, 39, 42, 43}, /* 17 */
    {30, 31, 35, 36}, /* 18 */
};

static void each_mode_transcodes_close_to_its_decoding(void **state) {
    (void)state;
    for (unsigned m = 0; m < UASTC_MODES; m++) {
        double se[TARGETS] = {0, 0, 0, 0};
        for (int t = 0; t < 300; t++) {
            uint8_t block[16], rgba[64];
            random_block(m, block, rgba);
            for (unsigned target = 0; target < TARGETS; target++) {
                uint8_t out[64];
                transcode_decoded(target, block, out);
                bool alpha = target == ETC2 || target == BC3;
                se[target] += sq_error(rgba, out, alpha);
                if (alpha && uastc_mode_info(m)->comps == 3)
                    for (int i = 0; i < 16; i++) /* opaque modes stay opaque */
                        assert_int_equal(out[4 * i + 3], 255);
            }
        }
        printf("mode %2u:", m);
        for (unsigned target = 0; target < TARGETS; target++) {
            bool alpha = target == ETC2 || target == BC3;
            double p = psnr(se[target], 300.0 * 16 * (alpha ? 4 : 3));
            printf("  %s %.2f", target_names[target], p);
            assert_true(p > floors[m][target]);
        }
        printf("\n");
    }
}

/* What the core functions say a block decodes to is what it decodes to. */
static void reported_decodings_match_the_decoders(void **state) {
    (void)state;
    for (int t = 0; t < 400; t++) {
        uint8_t block[16], rgba[64], bytes[8], said[64], decoded[64];
        random_block(rnd() % UASTC_MODES, block, rgba);
        uastc_logical b;
        assert_int_equal(uastc_unpack(block, &b), UASTC_OK);
        uastc_hints h;
        uastc_hints_read(b.mode, b.hints, &h);
        memcpy(said, rgba, 64);
        if (b.mode == UASTC_MODE_SOLID)
            uastc_etc1_from_solid_hints(&h, bytes, said);
        else
            uastc_etc1_from_texels(rgba, &h, uastc_mode_has_bias(b.mode), bytes, said);
        assert_true(etc1_decode_block(bytes, decoded));
        assert_true(sq_error(said, decoded, false) == 0);
        memcpy(said, rgba, 64);
        uastc_bc1_from_texels(rgba, &b, &h, bytes, said);
        bc1_decode_block(bytes, decoded);
        assert_true(sq_error(said, decoded, false) == 0);
        uint8_t alphas[16];
        for (unsigned table = 0; table < 16; table++) {
            uint32_t e = uastc_eac_from_alpha(rgba, table, 1 + rnd() % 15, bytes, alphas);
            eac_decode_block(bytes, decoded);
            uint32_t check = 0;
            for (int i = 0; i < 16; i++) {
                assert_int_equal(decoded[4 * i + 3], alphas[i]);
                int d = (int)alphas[i] - rgba[4 * i + 3];
                check += (uint32_t)(d * d);
            }
            assert_int_equal(e, check);
        }
    }
}

/* ---- solid blocks: as good as any code ------------------------------------------ */

/* Smallest squared RGB error any one-colour ETC1 block reaches for rgb: every
 * base (5 bits differential, 4 bits individual), table and modifier. */
static int best_etc1_solid_error(const uint8_t rgb[3]) {
    static const int magnitudes[8][2] = {{2, 8},   {5, 17},  {9, 29},   {13, 42},
                                         {18, 60}, {24, 80}, {33, 106}, {47, 183}};
    int best = 1 << 30;
    for (int bits = 4; bits <= 5; bits++)
        for (int table = 0; table < 8; table++)
            for (int k = 0; k < 4; k++) {
                int mod = (k < 2 ? -1 : 1) * magnitudes[table][k == 1 || k == 2 ? 0 : 1];
                int total = 0;
                for (int c = 0; c < 3; c++) {
                    int channel = 1 << 30;
                    for (int v = 0; v < (1 << bits); v++) {
                        int base = bits == 5 ? (v << 3) | (v >> 2) : v * 17;
                        int d = clamp_byte(base + mod) - rgb[c];
                        channel = d * d < channel ? d * d : channel;
                    }
                    total += channel;
                }
                best = total < best ? total : best;
            }
    return best;
}

/* Smallest squared error of one channel over every BC1 4-colour code: the
 * endpoints themselves and both thirds, with the specification's rounding. */
static int best_bc1_channel_error(int v, int max) {
    int best = 1 << 30;
    for (int a = 0; a <= max; a++)
        for (int b = 0; b <= max; b++) {
            int ea = (a * 255 + max / 2) / max;
            int third = (255 * (2 * a + b) + (3 * max) / 2) / (3 * max);
            int d1 = ea - v, d2 = third - v;
            best = d1 * d1 < best ? d1 * d1 : best;
            best = d2 * d2 < best ? d2 * d2 : best;
        }
    return best;
}

static void solid_blocks_are_as_good_as_any_code(void **state) {
    (void)state;
    int channel_best[2][256];
    for (int v = 0; v < 256; v++) {
        channel_best[0][v] = best_bc1_channel_error(v, 31);
        channel_best[1][v] = best_bc1_channel_error(v, 63);
    }
    for (int t = 0; t < 400; t++) {
        uint8_t block[16], rgba[64], out[64];
        random_block(UASTC_MODE_SOLID, block, rgba);
        if (t < 256) /* every grey level too */
            for (int i = 0; i < 16; i++)
                rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = (uint8_t)t;
        if (t < 256) {
            uastc_logical b = {.mode = UASTC_MODE_SOLID};
            memcpy(b.solid, rgba, 4);
            uastc_encode_hints(rgba, BLOCK_QUALITY_FAST, &b);
            assert_int_equal(uastc_pack(&b, block), UASTC_OK);
        }
        transcode_decoded(ETC1, block, out);
        assert_true(sq_error(rgba, out, false) == 16.0 * best_etc1_solid_error(rgba));
        transcode_decoded(BC3, block, out);
        int bc1_best =
            channel_best[0][rgba[0]] + channel_best[1][rgba[1]] + channel_best[0][rgba[2]];
        assert_true(sq_error(rgba, out, false) == 16.0 * bc1_best);
        for (int i = 0; i < 16; i++) /* alpha exact */
            assert_int_equal(out[4 * i + 3], rgba[3]);
        transcode_decoded(ETC2, block, out);
        for (int i = 0; i < 16; i++)
            assert_int_equal(out[4 * i + 3], rgba[3]);
    }
}

/* ---- hints matter ----------------------------------------------------------------- */

/* Smooth source blocks through the encoder: ETC1 and BC1 from the encoder's
 * hints against the same blocks with the hints cleared. */
static void hints_make_the_transcodes_better(void **state) {
    (void)state;
    double with[2] = {0, 0}, without[2] = {0, 0};
    for (int t = 0; t < 200; t++) {
        uint8_t rgba[64], block[16], bare[16], decoded[64], out[64];
        int base[3], dx[3], dy[3];
        for (int c = 0; c < 3; c++) {
            base[c] = (int)(rnd() % 256);
            dx[c] = (int)(rnd() % 41) - 20;
            dy[c] = (int)(rnd() % 41) - 20;
        }
        for (int i = 0; i < 16; i++) {
            for (int c = 0; c < 3; c++)
                rgba[4 * i + c] = (uint8_t)clamp_byte(base[c] + dx[c] * (i % 4) + dy[c] * (i / 4));
            rgba[4 * i + 3] = 255;
        }
        uastc_encode_block(rgba, BLOCK_QUALITY_NORMAL, block);
        uastc_logical b;
        assert_int_equal(uastc_unpack(block, &b), UASTC_OK);
        uastc_decode_logical(&b, false, decoded);
        b.hints = 0;
        assert_int_equal(uastc_pack(&b, bare), UASTC_OK);
        for (int k = 0; k < 2; k++) {
            unsigned target = k == 0 ? ETC1 : BC1;
            transcode_decoded(target, block, out);
            with[k] += sq_error(decoded, out, false);
            transcode_decoded(target, bare, out);
            without[k] += sq_error(decoded, out, false);
        }
    }
    printf("ETC1 %.2f dB with hints, %.2f without; BC1 %.2f, %.2f\n", psnr(with[0], 200 * 48.0),
           psnr(without[0], 200 * 48.0), psnr(with[1], 200 * 48.0), psnr(without[1], 200 * 48.0));
    /* Zero hints are a real but poor ETC1 code (all channels biased down,
     * the smallest tables); BC1 without hints fits from scratch, and the
     * hints may cost at most the 5% the encoder allows them. */
    assert_true(psnr(with[0], 200 * 48.0) > psnr(without[0], 200 * 48.0) + 3.0);
    assert_true(with[1] <= without[1] * 1.05);
}

/* ---- invalid blocks ----------------------------------------------------------------- */

static void invalid_blocks_are_refused_untouched(void **state) {
    (void)state;
    uint8_t bad[16] = {0x45}; /* the reserved mode code */
    uint8_t out[16];
    memset(out, 0xAB, sizeof out);
    assert_int_equal(uastc_block_to_etc1(bad, false, out), UASTC_BAD_MODE);
    assert_int_equal(uastc_block_to_etc2_rgba8(bad, false, out), UASTC_BAD_MODE);
    assert_int_equal(uastc_block_to_bc1(bad, false, out), UASTC_BAD_MODE);
    assert_int_equal(uastc_block_to_bc3(bad, true, out), UASTC_BAD_MODE);
    uint8_t padded[16], rgba[64];
    random_block(1, padded, rgba); /* mode 1 takes 100 bits: bit 127 is padding */
    padded[15] |= 0x80;
    assert_int_equal(uastc_block_to_bc3(padded, false, out), UASTC_BAD_PADDING);
    for (int i = 0; i < 16; i++)
        assert_int_equal(out[i], 0xAB);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hints_fill_each_modes_bits_and_read_back),
        cmocka_unit_test(each_mode_transcodes_close_to_its_decoding),
        cmocka_unit_test(reported_decodings_match_the_decoders),
        cmocka_unit_test(solid_blocks_are_as_good_as_any_code),
        cmocka_unit_test(hints_make_the_transcodes_better),
        cmocka_unit_test(invalid_blocks_are_refused_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
