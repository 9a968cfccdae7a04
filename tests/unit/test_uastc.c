/* UASTC block core (src/common/uastc.h): the mode table's layouts fill at
 * most 128 bits, the shared partition patterns are BC7's shapes (checked
 * against kiln's BC7 tables), endpoint unquantisation against ASTC's spacing,
 * hand-built blocks per mode decoded against an interpolation computed here,
 * pack∘unpack and unpack∘pack identities, invalid blocks refused, and
 * libkiln's level decoder (kiln_uastc_decode_rgba8). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bc7_tables.h"
#include "common/uastc.h"
#include "kiln/kiln.h"
#include "test_support.h"

/* ---- helpers ---------------------------------------------------------------- */

static uint32_t rng_state = 2024;
static uint32_t rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

/* The specification's modes: code, code bits, hint bits (solid: its 21 ETC1
 * bits), subsets, planes, components, endpoint levels, weight bits. */
static const struct {
    unsigned code, code_bits, hints, subsets, planes, comps, levels, wbits;
} spec[19] = {
    {0x01, 4, 15, 1, 1, 3, 192, 4}, {0x35, 6, 15, 1, 1, 3, 256, 2}, {0x1D, 5, 15, 2, 1, 3, 16, 3},
    {0x03, 5, 15, 3, 1, 3, 12, 2},  {0x13, 5, 15, 2, 1, 3, 40, 2},  {0x0B, 5, 15, 1, 1, 3, 256, 3},
    {0x1B, 5, 15, 1, 2, 3, 160, 2}, {0x07, 5, 15, 2, 1, 3, 40, 2},  {0x17, 5, 21, 0, 0, 4, 0, 0},
    {0x0F, 5, 23, 2, 1, 4, 16, 2},  {0x02, 3, 17, 1, 1, 4, 48, 4},  {0x00, 2, 17, 1, 2, 4, 48, 2},
    {0x06, 3, 17, 1, 1, 4, 192, 3}, {0x1F, 5, 23, 1, 2, 4, 256, 1}, {0x0D, 5, 23, 1, 1, 4, 256, 2},
    {0x05, 7, 23, 1, 1, 2, 256, 4}, {0x15, 6, 23, 2, 1, 2, 256, 2}, {0x25, 6, 23, 1, 2, 2, 256, 2},
    {0x09, 4, 15, 1, 1, 3, 32, 5},
};

/* A random valid logical block of a mode. */
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
        b->endpoints[i] = (uint8_t)(rnd() % spec[mode].levels);
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

/* ---- tables ---------------------------------------------------------------- */

static void mode_table_matches_the_specification(void **state) {
    (void)state;
    for (unsigned m = 0; m < 19; m++) {
        const uastc_mode_desc *d = uastc_mode_info(m);
        assert_non_null(d);
        assert_int_equal(d->code, spec[m].code);
        assert_int_equal(d->code_bits, spec[m].code_bits);
        assert_int_equal(d->hint_bits, spec[m].hints);
        assert_int_equal(d->subsets, spec[m].subsets);
        assert_int_equal(d->planes, spec[m].planes);
        assert_int_equal(d->comps, spec[m].comps);
        assert_int_equal(d->weight_bits, spec[m].wbits);
        if (m != UASTC_MODE_SOLID)
            assert_int_equal(uastc_ise_levels(d->endpoint_ise), spec[m].levels);
        /* Each mode's code selects it alone (a prefix code, LSB first). */
        for (unsigned other = 0; other < 19; other++) {
            const uastc_mode_desc *o = uastc_mode_info(other);
            unsigned n = o->code_bits < d->code_bits ? o->code_bits : d->code_bits;
            if (other != m)
                assert_true(((d->code ^ o->code) & ((1u << n) - 1u)) != 0);
        }
    }
    assert_null(uastc_mode_info(19));
}

/* Bits a mode's layout takes, summed here from the specification's fields. */
static unsigned layout_bits(unsigned m) {
    const uastc_mode_desc *d = uastc_mode_info(m);
    if (m == UASTC_MODE_SOLID)
        return d->code_bits + 32 + d->hint_bits;
    unsigned values = d->comps * 2u * d->subsets, levels = spec[m].levels, bits = 0;
    while ((levels & 1u) == 0) {
        levels >>= 1;
        bits++;
    }
    unsigned tq = 0;
    if (levels == 3) /* 5 trits in 8 bits; a last short group in ceil(n·log2 3) */
        tq = (values / 5) * 8 + (unsigned[]){0, 2, 4, 5, 7}[values % 5];
    else if (levels == 5)
        tq = (values / 3) * 7 + (unsigned[]){0, 3, 5}[values % 3];
    unsigned weights = 16u * d->planes * d->weight_bits - d->subsets * (d->planes == 2 ? 2 : 1);
    unsigned extra = (d->subsets == 2   ? 5u
                      : d->subsets == 3 ? 4u
                                        : 0u) +
                     (d->planes == 2 && d->comps != 2 ? 2u : 0u);
    return d->code_bits + d->hint_bits + extra + tq + values * bits + weights;
}

static void layouts_fit_in_128_bits(void **state) {
    (void)state;
    for (unsigned m = 0; m < 19; m++)
        assert_true(layout_bits(m) <= 128);
    /* The specification's fullest modes use every bit. */
    assert_int_equal(layout_bits(0), 128);
    assert_int_equal(layout_bits(10), 128);
    assert_int_equal(layout_bits(18), 128);
}

/* Same partition up to renaming the subsets. */
static int same_partition(const uint8_t *a, const uint8_t *b) {
    int map[3] = {-1, -1, -1};
    for (int i = 0; i < 16; i++) {
        if (map[a[i]] < 0)
            map[a[i]] = b[i];
        if (map[a[i]] != b[i])
            return 0;
    }
    return 1;
}

static void patterns_are_bc7_shapes(void **state) {
    (void)state;
    /* The BC7 partition each shared pattern names (the specification's table). */
    static const uint8_t bc7_of2[30] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                                        15, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 29, 32, 33, 52};
    static const uint8_t bc7_of3[11] = {4, 8, 9, 10, 11, 12, 13, 20, 35, 36, 57};
    static const uint8_t bc7_of7[19] = {10, 11, 0, 2,  8,  13, 1,  33, 40, 20,
                                        21, 58, 3, 32, 59, 34, 20, 14, 31};
    uint8_t subset_of[16], anchors[3];
    for (unsigned p = 0; p < 30; p++) {
        assert_int_equal(uastc_partition(2, p, subset_of, anchors), 2);
        assert_true(same_partition(subset_of, bc7_partition2[bc7_of2[p]]));
        assert_int_equal(anchors[subset_of[0]], 0);
    }
    for (unsigned p = 0; p < 11; p++) {
        assert_int_equal(uastc_partition(3, p, subset_of, anchors), 3);
        assert_true(same_partition(subset_of, bc7_partition3[bc7_of3[p]]));
    }
    for (unsigned p = 0; p < 19; p++) {
        assert_int_equal(uastc_partition(7, p, subset_of, anchors), 2);
        /* Each BC7 subset lies inside one ASTC subset: two of three merged. */
        int owner[3] = {-1, -1, -1};
        for (int i = 0; i < 16; i++) {
            unsigned s = bc7_partition3[bc7_of7[p]][i];
            if (owner[s] < 0)
                owner[s] = subset_of[i];
            assert_int_equal(owner[s], subset_of[i]);
        }
    }
    /* Anchors are each subset's first texel. */
    for (unsigned p = 0; p < 11; p++) {
        uastc_partition(3, p, subset_of, anchors);
        for (unsigned s = 0; s < 3; s++) {
            unsigned first = 0;
            while (subset_of[first] != s)
                first++;
            assert_int_equal(anchors[s], first);
        }
    }
    assert_int_equal(uastc_partition(2, 30, subset_of, anchors), 0);
    assert_int_equal(uastc_partition(3, 11, subset_of, anchors), 0);
    assert_int_equal(uastc_partition(7, 19, subset_of, anchors), 0);
}

/* Unquantised endpoints of every range are 0..255 spread evenly (ASTC's
 * tables round i·255/(n-1) within 1), the bits-only ranges replicate bits. */
static void endpoint_unquantisation(void **state) {
    (void)state;
    static const unsigned ranges[] = {7, 8, 11, 12, 13, 18, 19, 20};
    for (unsigned r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        unsigned n = uastc_ise_levels(ranges[r]);
        int *sorted = calloc(n, sizeof *sorted);
        assert_non_null(sorted);
        for (unsigned v = 0; v < n; v++)
            sorted[v] = uastc_unquant_endpoint(ranges[r], v);
        for (unsigned i = 1; i < n; i++) /* insertion sort */
            for (unsigned j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
                int t = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = t;
            }
        for (unsigned i = 0; i < n; i++) {
            double ideal = 255.0 * i / (n - 1);
            assert_true(sorted[i] >= ideal - 1.5 && sorted[i] <= ideal + 1.5);
        }
        free(sorted);
    }
    /* Known values: 12 levels (trit, 2 bits), from the ASTC tables. */
    assert_int_equal(uastc_unquant_endpoint(7, 0), 0);
    assert_int_equal(uastc_unquant_endpoint(7, 1), 255);
    assert_int_equal(uastc_unquant_endpoint(7, 4), 23);   /* trit 1, bits 00 */
    assert_int_equal(uastc_unquant_endpoint(7, 2), 69);   /* trit 0, bits 10 */
    assert_int_equal(uastc_unquant_endpoint(7, 5), 232);  /* trit 1, bits 01 */
    assert_int_equal(uastc_unquant_endpoint(8, 5), 0x55); /* 0101 replicated */
    assert_int_equal(uastc_unquant_endpoint(20, 200), 200);
    assert_int_equal(uastc_unquant_weight(2, 1), 21);
    assert_int_equal(uastc_unquant_weight(2, 2), 43);
    assert_int_equal(uastc_unquant_weight(4, 8), 35);
    assert_int_equal(uastc_unquant_weight(5, 31), 64);
    assert_int_equal(uastc_unquant_weight(1, 1), 64);
}

/* ---- hand-built blocks ----------------------------------------------------- */

static int lerp(int e0, int e1, int w, int srgb) {
    int c0 = srgb ? (e0 << 8) | 0x80 : e0 * 257, c1 = srgb ? (e1 << 8) | 0x80 : e1 * 257;
    return ((c0 * (64 - w) + c1 * w + 32) >> 6) >> 8;
}

static void solid_block_decodes_its_colour(void **state) {
    (void)state;
    test_bits b = {{0}, 0};
    tput(&b, 0x17, 5);
    tput(&b, 10, 8);
    tput(&b, 20, 8);
    tput(&b, 30, 8);
    tput(&b, 40, 8);
    uint8_t rgba[64];
    assert_int_equal(uastc_decode(b.bytes, false, rgba), UASTC_OK);
    for (int i = 0; i < 16; i++) {
        assert_int_equal(rgba[4 * i], 10);
        assert_int_equal(rgba[4 * i + 3], 40);
    }
}

/* Mode 18: 5-bit endpoints, 5-bit weights, 15 hint bits; every texel's
 * weight its index doubled (the anchor's 4 bits hold 0). */
static void mode18_block_decodes_per_texel(void **state) {
    (void)state;
    test_bits b = {{0}, 0};
    tput(&b, 0x9, 4);
    tput(&b, 0x1234, 15);                        /* hints: kept, not decoded */
    const unsigned e[6] = {0, 31, 3, 17, 31, 0}; /* r0 r1 g0 g1 b0 b1 */
    for (int i = 0; i < 6; i++)
        tput(&b, e[i], 5);
    for (unsigned i = 0; i < 16; i++)
        tput(&b, 2 * i, i == 0 ? 4 : 5);
    assert_int_equal(b.pos, 128);
    uastc_logical l;
    assert_int_equal(uastc_unpack(b.bytes, &l), UASTC_OK);
    assert_int_equal(l.mode, 18);
    assert_int_equal(l.hints, 0x1234);
    uint8_t rgba[64];
    assert_int_equal(uastc_decode(b.bytes, false, rgba), UASTC_OK);
    for (unsigned i = 0; i < 16; i++) {
        unsigned v = 2 * i, w = (v << 1) | (v >> 4);
        w = w > 32 ? w + 1 : w;
        for (int k = 0; k < 3; k++) {
            int e0 = (int)((e[2 * k] << 3) | (e[2 * k] >> 2));
            int e1 = (int)((e[2 * k + 1] << 3) | (e[2 * k + 1] >> 2));
            assert_int_equal(rgba[4 * i + k], lerp(e0, e1, (int)w, 0));
        }
        assert_int_equal(rgba[4 * i + 3], 255);
    }
}

/* Mode 17: LA, two planes (alpha on the second), 8-bit endpoints. */
static void mode17_la_dual_plane(void **state) {
    (void)state;
    test_bits b = {{0}, 0};
    tput(&b, 0x25, 6);
    tput(&b, 0, 23);
    const unsigned e[4] = {16, 240, 255, 0}; /* l0 l1 a0 a1 */
    for (int i = 0; i < 4; i++)
        tput(&b, e[i], 8);
    for (unsigned i = 0; i < 16; i++) {
        tput(&b, i % 2, i == 0 ? 1 : 2);       /* plane 1 (luminance) */
        tput(&b, (i / 4) % 2, i == 0 ? 1 : 2); /* plane 2 (alpha) */
    }
    uint8_t rgba[64];
    assert_int_equal(uastc_decode(b.bytes, true, rgba), UASTC_OK);
    for (unsigned i = 0; i < 16; i++) {
        int l = lerp(16, 240, (i % 2) ? 21 : 0, 1), a = lerp(255, 0, ((i / 4) % 2) ? 21 : 0, 1);
        assert_int_equal(rgba[4 * i], l);
        assert_int_equal(rgba[4 * i + 2], l);
        assert_int_equal(rgba[4 * i + 3], a);
    }
}

/* Mode 3: three subsets (12 levels: trit + 2 bits), pattern 7 (BC7 20). */
static void mode3_three_subsets(void **state) {
    (void)state;
    test_bits b = {{0}, 0};
    tput(&b, 0x03, 5);
    tput(&b, 0, 15);
    tput(&b, 7, 4);
    /* 18 endpoints: subset s, every component low = s*4 (trit s, bits 0)
     * and high = 1 (trit 0, bits 01: 255). Trits in groups of 5, base 3. */
    unsigned ep[18];
    for (unsigned s = 0; s < 3; s++)
        for (unsigned k = 0; k < 3; k++) {
            ep[s * 6 + k * 2] = s * 4;
            ep[s * 6 + k * 2 + 1] = 1;
        }
    for (unsigned g = 0; g < 18; g += 5) {
        unsigned n = 18 - g < 5 ? 18 - g : 5, v = 0;
        for (unsigned k = n; k-- > 0;)
            v = v * 3 + (ep[g + k] >> 2);
        tput(&b, v, (unsigned[]){0, 2, 4, 5, 7, 8}[n]);
    }
    for (unsigned i = 0; i < 18; i++)
        tput(&b, ep[i] & 3u, 2);
    uint8_t subset_of[16], anchors[3];
    assert_int_equal(uastc_partition(3, 7, subset_of, anchors), 3);
    for (unsigned i = 0; i < 16; i++) {
        int anchor = i == anchors[0] || i == anchors[1] || i == anchors[2];
        tput(&b, anchor ? 1 : 3, anchor ? 1 : 2);
    }
    uint8_t rgba[64];
    assert_int_equal(uastc_decode(b.bytes, false, rgba), UASTC_OK);
    const int low[3] = {0, 23, 46}; /* 12-level trit 0, 1, 2 with bits 00 */
    for (unsigned i = 0; i < 16; i++) {
        int anchor = i == anchors[0] || i == anchors[1] || i == anchors[2];
        int want = lerp(low[subset_of[i]], 255, anchor ? 21 : 64, 0);
        assert_int_equal(rgba[4 * i], want);
        assert_int_equal(rgba[4 * i + 1], want);
    }
}

/* ---- identities and refusals ------------------------------------------------ */

static void pack_unpack_round_trips(void **state) {
    (void)state;
    for (unsigned m = 0; m < 19; m++) {
        for (int t = 0; t < 300; t++) {
            uastc_logical in, out;
            uint8_t block[16], again[16];
            random_block(m, &in);
            assert_int_equal(uastc_pack(&in, block), UASTC_OK);
            assert_int_equal(uastc_unpack(block, &out), UASTC_OK);
            assert_memory_equal(&in, &out, sizeof in);
            assert_int_equal(uastc_pack(&out, again), UASTC_OK);
            assert_memory_equal(block, again, 16);
        }
    }
}

static void invalid_blocks_are_refused(void **state) {
    (void)state;
    uastc_logical l;
    uint8_t block[16] = {0x45}; /* the reserved 7-bit code */
    assert_int_equal(uastc_unpack(block, &l), UASTC_BAD_MODE);
    /* Mode 2 with pattern 31 (30 patterns). */
    test_bits b = {{0}, 0};
    tput(&b, 0x1D, 5);
    tput(&b, 0, 15);
    tput(&b, 31, 5);
    assert_int_equal(uastc_unpack(b.bytes, &l), UASTC_BAD_PATTERN);
    /* Mode 3 with a trit group of 255 (3^5 = 243 values). */
    test_bits t = {{0}, 0};
    tput(&t, 0x03, 5);
    tput(&t, 0, 15);
    tput(&t, 0, 4);
    tput(&t, 255, 8);
    assert_int_equal(uastc_unpack(t.bytes, &l), UASTC_BAD_TRITS);
    /* The solid mode uses 58 bits: a set bit after them. */
    uint8_t solid[16] = {0x17};
    solid[15] = 0x80;
    assert_int_equal(uastc_unpack(solid, &l), UASTC_BAD_PADDING);
    /* Pack refuses a weight whose anchor top bit is set, and an endpoint past
     * its range. */
    uastc_logical in;
    random_block(0, &in);
    in.weights[0] = 8;
    assert_int_equal(uastc_pack(&in, block), UASTC_BAD_WEIGHT);
    random_block(10, &in);
    in.endpoints[3] = 48;
    assert_int_equal(uastc_pack(&in, block), UASTC_BAD_ENDPOINT);
    assert_string_equal(uastc_status_text(UASTC_BAD_TRITS), "trit or quint group out of range");
}

/* Arbitrary bytes: unpack either refuses or yields a block that packs back
 * to the same bytes. */
static void random_bytes_unpack_or_refuse(void **state) {
    (void)state;
    unsigned valid = 0;
    for (int t = 0; t < 20000; t++) {
        uint8_t block[16], again[16], rgba[64];
        for (int i = 0; i < 16; i++)
            block[i] = (uint8_t)rnd();
        uastc_logical l;
        if (uastc_unpack(block, &l) != UASTC_OK)
            continue;
        valid++;
        assert_int_equal(uastc_pack(&l, again), UASTC_OK);
        assert_memory_equal(block, again, 16);
        uastc_decode_logical(&l, t & 1, rgba);
    }
    assert_true(valid > 1000);
}

/* libkiln's kiln_uastc_decode_rgba8 on a 6x5 level (2x2 blocks, partial at
 * the right and bottom): each texel is its block's decoding here; a short
 * block buffer, a small destination and an invalid block are refused. */
static void runtime_decodes_a_level(void **state) {
    (void)state;
    uint8_t blocks[4 * 16];
    uint8_t decoded[4][64];
    for (unsigned b = 0; b < 4; b++) {
        uastc_logical l;
        random_block(b * 5u, &l); /* modes 0, 5, 10, 15 */
        assert_int_equal(uastc_pack(&l, blocks + 16 * b), UASTC_OK);
        uastc_decode_logical(&l, true, decoded[b]);
    }
    uint8_t out[6 * 5 * 4];
    kiln_error err;
    assert_int_equal(
        kiln_uastc_decode_rgba8(blocks, sizeof blocks, 6, 5, true, out, sizeof out, "t.ktx2", &err),
        KILN_OK);
    for (unsigned y = 0; y < 5; y++)
        for (unsigned x = 0; x < 6; x++) {
            const uint8_t *want = decoded[(y / 4) * 2 + x / 4] + ((y % 4) * 4 + x % 4) * 4;
            assert_memory_equal(out + (y * 6 + x) * 4, want, 4);
        }
    assert_int_equal(
        kiln_uastc_decode_rgba8(blocks, 63, 6, 5, true, out, sizeof out, "t.ktx2", &err),
        KILN_ERR_TRUNCATED);
    assert_int_equal(kiln_uastc_decode_rgba8(blocks, sizeof blocks, 6, 5, true, out, sizeof out - 1,
                                             "t.ktx2", &err),
                     KILN_ERR_INVALID_ARGUMENT);
    blocks[3 * 16] = 0x45; /* the reserved mode in block (1, 1) */
    assert_int_equal(
        kiln_uastc_decode_rgba8(blocks, sizeof blocks, 6, 5, true, out, sizeof out, "t.ktx2", &err),
        KILN_ERR_CORRUPT);
    assert_string_equal(err.message, "t.ktx2: UASTC: block (1, 1): reserved mode code");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mode_table_matches_the_specification),
        cmocka_unit_test(layouts_fit_in_128_bits),
        cmocka_unit_test(patterns_are_bc7_shapes),
        cmocka_unit_test(endpoint_unquantisation),
        cmocka_unit_test(solid_block_decodes_its_colour),
        cmocka_unit_test(mode18_block_decodes_per_texel),
        cmocka_unit_test(mode17_la_dual_plane),
        cmocka_unit_test(mode3_three_subsets),
        cmocka_unit_test(pack_unpack_round_trips),
        cmocka_unit_test(invalid_blocks_are_refused),
        cmocka_unit_test(random_bytes_unpack_or_refuse),
        cmocka_unit_test(runtime_decodes_a_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
