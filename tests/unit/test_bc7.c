/* BC7: the specification's tables, the decoder on blocks built bit by bit
 * from the specification (one per mode, the reserved mode), exact encoding
 * of single- and representable two-colour blocks, opaque alpha, and quality
 * floors per level on synthetic and (when present) corpus images. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bc7_tables.h"
#include "cook/drivers/drivers.h"
#include "cook/encode/encode.h"
#include "test_support.h"

/* ---- helpers ----------------------------------------------------------------- */

static void tmode(test_bits *b, unsigned mode) {
    tput(b, 1u << mode, mode + 1);
}

static int lerp64(int e0, int e1, int w) {
    return ((64 - w) * e0 + w * e1 + 32) >> 6;
}

static uint32_t rng_state = 12345;
static uint32_t rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static double block_sq_error(const uint8_t *a, const uint8_t *b, int channels_mask) {
    double e = 0.0;
    for (int i = 0; i < 64; i++) {
        if (!((channels_mask >> (i & 3)) & 1))
            continue;
        double d = (double)a[i] - (double)b[i];
        e += d * d;
    }
    return e;
}

/* ---- tables ------------------------------------------------------------------- */

static void mode_table_fills_exactly_128_bits(void **state) {
    (void)state;
    for (unsigned mode = 0; mode < 8; mode++) {
        const bc7_mode_info *m = &bc7_modes[mode];
        unsigned ns = m->subsets;
        unsigned bits = mode + 1 + m->partition_bits + m->rotation_bits + m->index_sel_bits;
        bits += 3 * 2 * ns * m->color_bits + 2 * ns * m->alpha_bits;
        bits += m->endpoint_pbits ? 2 * ns : 0;
        bits += m->shared_pbits ? ns : 0;
        bits += 16 * m->index_bits - ns; /* one implied bit per anchor */
        bits += m->index2_bits ? 16 * m->index2_bits - 1 : 0;
        assert_int_equal(bits, 128);
    }
    /* Spot values of Table.M. */
    assert_int_equal(bc7_modes[0].partition_bits, 4);
    assert_int_equal(bc7_modes[4].index2_bits, 3);
    assert_int_equal(bc7_modes[5].alpha_bits, 8);
    assert_int_equal(bc7_modes[7].alpha_bits, 5);
}

static void weights_are_symmetric_and_increasing(void **state) {
    (void)state;
    const uint8_t *tables[3] = {bc7_weights2, bc7_weights3, bc7_weights4};
    const unsigned sizes[3] = {4, 8, 16};
    for (int k = 0; k < 3; k++) {
        const uint8_t *w = tables[k];
        assert_int_equal(w[0], 0);
        assert_int_equal(w[sizes[k] - 1], 64);
        for (unsigned i = 0; i < sizes[k]; i++) {
            assert_int_equal(w[i] + w[sizes[k] - 1 - i], 64);
            if (i > 0)
                assert_true(w[i] > w[i - 1]);
        }
    }
}

static void check_partition_table(const uint8_t rows[64][16], unsigned subsets) {
    for (unsigned p = 0; p < 64; p++) {
        unsigned count[3] = {0};
        assert_int_equal(rows[p][0], 0); /* texel 0 is always subset 0's anchor */
        for (unsigned t = 0; t < 16; t++) {
            assert_true(rows[p][t] < subsets);
            count[rows[p][t]]++;
        }
        for (unsigned s = 0; s < subsets; s++)
            assert_true(count[s] >= 1);
        for (unsigned q = 0; q < p; q++) /* a typo often duplicates a row */
            assert_memory_not_equal(rows[p], rows[q], 16);
    }
}

static void partition_tables_are_consistent(void **state) {
    (void)state;
    check_partition_table(bc7_partition2, 2);
    check_partition_table(bc7_partition3, 3);
    /* Spot rows: halves, and the three horizontal bands of P3 #8. */
    static const uint8_t p2_13[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    static const uint8_t p3_8[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
    assert_memory_equal(bc7_partition2[13], p2_13, 16);
    assert_memory_equal(bc7_partition3[8], p3_8, 16);
}

/* Each anchor must lie in its subset, and the two anchors of a 3-subset
 * partition differ. (In BC7 the anchor of subset 1 or 2 is not always the
 * subset's first texel in raster order, e.g. P2 #0 has texel 2 in subset 1
 * but anchor 15; the tables are normative.) */
static void anchors_belong_to_their_subsets(void **state) {
    (void)state;
    for (unsigned p = 0; p < 64; p++) {
        assert_true(bc7_anchor2_1[p] < 16);
        assert_int_equal(bc7_partition2[p][bc7_anchor2_1[p]], 1);
        assert_int_equal(bc7_partition3[p][bc7_anchor3_1[p]], 1);
        assert_int_equal(bc7_partition3[p][bc7_anchor3_2[p]], 2);
        assert_int_not_equal(bc7_anchor3_1[p], bc7_anchor3_2[p]);
    }
    /* P2 #35: the ARB and D3D tables say texel 8 (Khronos DFS 1.4's
     * table has a known typo there). */
    assert_int_equal(bc7_anchor2_1[35], 8);
    assert_int_equal(bc7_anchor2_1[17], 2);
    assert_int_equal(bc7_anchor3_1[62], 3);
    assert_int_equal(bc7_anchor3_2[38], 9);
}

/* ---- decoder on hand-built blocks ----------------------------------------------- */

/* Mode 6: one subset, RGBA 7 bits + P-bit per endpoint, 4-bit indices. */
static void decodes_mode6(void **state) {
    (void)state;
    test_bits b = {{0}, 0};
    tmode(&b, 6);
    const unsigned e0[4] = {10, 20, 30, 40}, e1[4] = {100, 110, 120, 127};
    for (int c = 0; c < 4; c++) {
        tput(&b, e0[c], 7);
        tput(&b, e1[c], 7);
    }
    tput(&b, 1, 1); /* P-bit of endpoint 0 */
    tput(&b, 0, 1); /* P-bit of endpoint 1 */
    for (unsigned t = 0; t < 16; t++)
        tput(&b, t, t == 0 ? 3 : 4); /* texel t gets index t */
    assert_int_equal(b.pos, 128);
    uint8_t out[64];
    bc7_decode_block(b.bytes, out);
    /* Endpoints: (v << 1 | p) is already 8 bits. */
    const int d0[4] = {21, 41, 61, 81}, d1[4] = {200, 220, 240, 254};
    for (unsigned t = 0; t < 16; t++)
        for (int c = 0; c < 4; c++)
            assert_int_equal(out[4 * t + c], lerp64(d0[c], d1[c], bc7_weights4[t]));
    /* By hand: texel 5 has weight 21, red = (43 * 21 + 21 * 200 + 32) >> 6 = 80. */
    assert_int_equal(out[4 * 5 + 0], 80);
    assert_int_equal(out[0], 21);
    assert_int_equal(out[4 * 15 + 3], 254);
}

/* Mode 1: two subsets (partition 13: top half / bottom half), RGB 6 bits +
 * shared P-bit per subset, 3-bit indices, anchors 0 and 15. */
static void decodes_mode1(void **state) {
    (void)state;
    test_bits b = {{0}, 0};
    tmode(&b, 1);
    tput(&b, 13, 6);
    /* [subset][endpoint][channel] */
    const unsigned e[2][2][3] = {{{0, 63, 10}, {63, 0, 20}}, {{5, 6, 7}, {40, 41, 42}}};
    for (int c = 0; c < 3; c++)
        for (int s = 0; s < 2; s++)
            for (int ep = 0; ep < 2; ep++)
                tput(&b, e[s][ep][c], 6);
    tput(&b, 1, 1); /* subset 0 shared P-bit */
    tput(&b, 0, 1); /* subset 1 */
    const unsigned idx[16] = {0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0};
    for (unsigned t = 0; t < 16; t++)
        tput(&b, idx[t], (t == 0 || t == 15) ? 2 : 3);
    assert_int_equal(b.pos, 128);
    uint8_t out[64];
    bc7_decode_block(b.bytes, out);
    for (unsigned t = 0; t < 16; t++) {
        int s = t < 8 ? 0 : 1, p = s == 0 ? 1 : 0;
        for (int c = 0; c < 3; c++) {
            int v0 = (int)(e[s][0][c] << 1 | (unsigned)p),
                v1 = (int)(e[s][1][c] << 1 | (unsigned)p);
            int d0 = (v0 << 1) | (v0 >> 6), d1 = (v1 << 1) | (v1 >> 6); /* 7 -> 8 bits */
            assert_int_equal(out[4 * t + c], lerp64(d0, d1, bc7_weights3[idx[t]]));
        }
        assert_int_equal(out[4 * t + 3], 255);
    }
    /* By hand: texel 0 red: field 0, P 1 -> 0000001 -> 00000010 = 2. */
    assert_int_equal(out[0], 2);
    /* Texel 1 green: endpoints 63|1 = 127 -> 255 and 0|1 = 1 -> 2, weight 9:
     * (55 * 255 + 9 * 2 + 32) >> 6 = 219. */
    assert_int_equal(out[4 + 1], 219);
}

/* Modes 0 and 2: three subsets (partition 8: rows 0-1, row 2, row 3). */
static void decodes_mode0_and_mode2(void **state) {
    (void)state;
    const unsigned idx[16] = {0, 1, 2, 3, 4, 5, 6, 7, 3, 2, 1, 0, 1, 2, 3, 0};
    for (unsigned mode = 0; mode <= 2; mode += 2) {
        const bc7_mode_info *m = &bc7_modes[mode];
        test_bits b = {{0}, 0};
        tmode(&b, mode);
        tput(&b, 8, m->partition_bits);
        unsigned e[3][2][3];
        for (int s = 0; s < 3; s++)
            for (int ep = 0; ep < 2; ep++)
                for (int c = 0; c < 3; c++)
                    e[s][ep][c] = (unsigned)(3 * s + 7 * ep + c) % (1u << m->color_bits);
        for (int c = 0; c < 3; c++)
            for (int s = 0; s < 3; s++)
                for (int ep = 0; ep < 2; ep++)
                    tput(&b, e[s][ep][c], m->color_bits);
        unsigned pbits[3][2] = {{1, 0}, {0, 1}, {1, 1}};
        if (mode == 0) {
            for (int s = 0; s < 3; s++)
                for (int ep = 0; ep < 2; ep++)
                    tput(&b, pbits[s][ep], 1);
        }
        /* Anchors: texel 0, then 8 and 15 for P3 #8. */
        unsigned ib = m->index_bits, maxidx = (1u << ib) - 1;
        unsigned used[16];
        for (unsigned t = 0; t < 16; t++) {
            used[t] = idx[t] & maxidx;
            bool anchor = t == 0 || t == 8 || t == 15;
            if (anchor)
                used[t] &= maxidx >> 1;
            tput(&b, used[t], anchor ? ib - 1 : ib);
        }
        assert_int_equal(b.pos, 128);
        uint8_t out[64];
        bc7_decode_block(b.bytes, out);
        const uint8_t *w = ib == 3 ? bc7_weights3 : bc7_weights2;
        for (unsigned t = 0; t < 16; t++) {
            unsigned s = t < 8 ? 0 : t < 12 ? 1 : 2;
            for (int c = 0; c < 3; c++) {
                int d[2];
                for (int ep = 0; ep < 2; ep++) {
                    if (mode == 0) { /* 4 bits + P = 5 bits */
                        int v = (int)(e[s][ep][c] << 1 | pbits[s][ep]);
                        d[ep] = (v << 3) | (v >> 2);
                    } else { /* 5 bits */
                        int v = (int)e[s][ep][c];
                        d[ep] = (v << 3) | (v >> 2);
                    }
                }
                assert_int_equal(out[4 * t + c], lerp64(d[0], d[1], w[used[t]]));
            }
            assert_int_equal(out[4 * t + 3], 255);
        }
    }
}

/* Mode 3: two subsets, RGB 7 bits + P-bit per endpoint (full 8-bit
 * endpoints), 2-bit indices; partition 0 (columns 0-1 / 2-3), anchor 15. */
static void decodes_mode3(void **state) {
    (void)state;
    test_bits b = {{0}, 0};
    tmode(&b, 3);
    tput(&b, 0, 6);
    const unsigned e[2][2][3] = {{{0, 127, 64}, {127, 0, 65}}, {{1, 2, 3}, {100, 101, 102}}};
    for (int c = 0; c < 3; c++)
        for (int s = 0; s < 2; s++)
            for (int ep = 0; ep < 2; ep++)
                tput(&b, e[s][ep][c], 7);
    const unsigned p[2][2] = {{0, 1}, {1, 0}};
    for (int s = 0; s < 2; s++)
        for (int ep = 0; ep < 2; ep++)
            tput(&b, p[s][ep], 1);
    for (unsigned t = 0; t < 16; t++)
        tput(&b, t == 15 ? 1 : t % 4, (t == 0 || t == 15) ? 1 : 2);
    assert_int_equal(b.pos, 128);
    uint8_t out[64];
    bc7_decode_block(b.bytes, out);
    for (unsigned t = 0; t < 16; t++) {
        unsigned s = bc7_partition2[0][t], i = t == 15 ? 1 : t % 4;
        for (int c = 0; c < 3; c++) {
            int d0 = (int)(e[s][0][c] << 1 | p[s][0]), d1 = (int)(e[s][1][c] << 1 | p[s][1]);
            assert_int_equal(out[4 * t + c], lerp64(d0, d1, bc7_weights2[i]));
        }
    }
    /* By hand: texel 0 is subset 0 endpoint 0 = (0, 254, 128). */
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 254);
    assert_int_equal(out[2], 128);
}

/* Mode 7: two subsets, RGBA 5 bits + P-bit per endpoint, 2-bit indices. */
static void decodes_mode7(void **state) {
    (void)state;
    test_bits b = {{0}, 0};
    tmode(&b, 7);
    tput(&b, 13, 6);
    unsigned e[2][2][4];
    for (int s = 0; s < 2; s++)
        for (int ep = 0; ep < 2; ep++)
            for (int c = 0; c < 4; c++)
                e[s][ep][c] = (unsigned)(5 * s + 11 * ep + 3 * c) % 32u;
    for (int c = 0; c < 4; c++)
        for (int s = 0; s < 2; s++)
            for (int ep = 0; ep < 2; ep++)
                tput(&b, e[s][ep][c], 5);
    const unsigned p[2][2] = {{1, 0}, {0, 1}};
    for (int s = 0; s < 2; s++)
        for (int ep = 0; ep < 2; ep++)
            tput(&b, p[s][ep], 1);
    for (unsigned t = 0; t < 16; t++)
        tput(&b, (t * 3) % 4 & ((t == 0 || t == 15) ? 1u : 3u), (t == 0 || t == 15) ? 1 : 2);
    assert_int_equal(b.pos, 128);
    uint8_t out[64];
    bc7_decode_block(b.bytes, out);
    for (unsigned t = 0; t < 16; t++) {
        unsigned s = t < 8 ? 0 : 1, i = (t * 3) % 4 & ((t == 0 || t == 15) ? 1u : 3u);
        for (int c = 0; c < 4; c++) {
            int v0 = (int)(e[s][0][c] << 1 | p[s][0]), v1 = (int)(e[s][1][c] << 1 | p[s][1]);
            int d0 = (v0 << 2) | (v0 >> 4), d1 = (v1 << 2) | (v1 >> 4); /* 6 -> 8 bits */
            assert_int_equal(out[4 * t + c], lerp64(d0, d1, bc7_weights2[i]));
        }
    }
}

/* Modes 4 and 5: separate colour and alpha indices, rotation, and (mode 4)
 * the index selection bit. */
static void build_mode45(test_bits *b, unsigned mode, unsigned rotation, unsigned isb,
                         const unsigned color[2][3], const unsigned alpha[2],
                         const unsigned *primary, const unsigned *secondary) {
    const bc7_mode_info *m = &bc7_modes[mode];
    tmode(b, mode);
    tput(b, rotation, 2);
    if (mode == 4)
        tput(b, isb, 1);
    for (int c = 0; c < 3; c++)
        for (int ep = 0; ep < 2; ep++)
            tput(b, color[ep][c], m->color_bits);
    for (int ep = 0; ep < 2; ep++)
        tput(b, alpha[ep], m->alpha_bits);
    for (unsigned t = 0; t < 16; t++)
        tput(b, primary[t], t == 0 ? m->index_bits - 1 : m->index_bits);
    for (unsigned t = 0; t < 16; t++)
        tput(b, secondary[t], t == 0 ? m->index2_bits - 1 : m->index2_bits);
    assert_int_equal(b->pos, 128);
}

static void decodes_mode4_and_mode5(void **state) {
    (void)state;
    unsigned primary[16], secondary[16];
    for (unsigned t = 0; t < 16; t++) {
        primary[t] = t == 0 ? 1 : t % 4;
        secondary[t] = t == 0 ? 1 : t % 8; /* anchors: top bit 0 */
    }
    const unsigned color[2][3] = {{1, 2, 3}, {30, 20, 10}};
    for (unsigned mode = 4; mode <= 5; mode++) {
        const bc7_mode_info *m = &bc7_modes[mode];
        unsigned alpha[2] = {mode == 4 ? 5u : 7u, mode == 4 ? 60u : 250u};
        unsigned sec_mask = mode == 4 ? 7u : 3u;
        for (unsigned rotation = 0; rotation < 4; rotation++) {
            for (unsigned isb = 0; isb < (mode == 4 ? 2u : 1u); isb++) {
                unsigned sec[16];
                for (unsigned t = 0; t < 16; t++)
                    sec[t] = secondary[t] & sec_mask;
                test_bits b = {{0}, 0};
                build_mode45(&b, mode, rotation, isb, color, alpha, primary, sec);
                uint8_t out[64];
                bc7_decode_block(b.bytes, out);
                for (unsigned t = 0; t < 16; t++) {
                    /* Mode 4 with isb = 1: colour from the 3-bit set, alpha
                     * from the 2-bit one; otherwise the reverse. */
                    int cw, aw;
                    if (mode == 4 && isb) {
                        cw = bc7_weights3[sec[t]], aw = bc7_weights2[primary[t]];
                    } else {
                        cw = bc7_weights2[primary[t]];
                        aw = mode == 4 ? bc7_weights3[sec[t]] : bc7_weights2[sec[t]];
                    }
                    int px[4];
                    for (int c = 0; c < 3; c++) {
                        int cb = m->color_bits;
                        int d0 = (int)(color[0][c] << (8 - cb)),
                            d1 = (int)(color[1][c] << (8 - cb));
                        d0 |= d0 >> cb, d1 |= d1 >> cb;
                        px[c] = lerp64(d0, d1, cw);
                    }
                    int ab = m->alpha_bits;
                    int a0 = (int)(alpha[0] << (8 - ab)), a1 = (int)(alpha[1] << (8 - ab));
                    if (ab < 8)
                        a0 |= a0 >> ab, a1 |= a1 >> ab;
                    px[3] = lerp64(a0, a1, aw);
                    if (rotation) {
                        int tmp = px[3];
                        px[3] = px[rotation - 1];
                        px[rotation - 1] = tmp;
                    }
                    for (int c = 0; c < 4; c++)
                        assert_int_equal(out[4 * t + c], px[c]);
                }
            }
        }
    }
}

/* A low byte of zero is reserved: transparent black, whatever follows. */
static void reserved_mode_decodes_to_transparent_black(void **state) {
    (void)state;
    uint8_t block[16], out[64];
    for (int i = 0; i < 16; i++)
        block[i] = (uint8_t)(0xA5 + 17 * i);
    block[0] = 0;
    memset(out, 0x77, sizeof(out));
    bc7_decode_block(block, out);
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], 0);
}

/* Any 16 bytes decode (under the sanitizers: no out-of-range read) and the
 * colour-only modes 0-3 always give alpha 255. */
static void random_blocks_decode_within_spec(void **state) {
    (void)state;
    rng_state = 99;
    for (int i = 0; i < 4000; i++) {
        uint8_t block[16], out[64];
        for (int k = 0; k < 16; k++)
            block[k] = (uint8_t)rnd();
        if (i % 9 == 0)
            block[0] = 0;
        bc7_decode_block(block, out);
        unsigned mode = 0;
        while (mode < 8 && !((block[0] >> mode) & 1u))
            mode++;
        for (int t = 0; t < 16; t++) {
            if (mode == 8)
                assert_int_equal(out[4 * t + 3] | out[4 * t] | out[4 * t + 1] | out[4 * t + 2], 0);
            else if (mode <= 3)
                assert_int_equal(out[4 * t + 3], 255);
        }
    }
}

/* ---- encoder: exact cases ----------------------------------------------------- */

static const block_quality qualities[3] = {BLOCK_QUALITY_FAST, BLOCK_QUALITY_NORMAL,
                                           BLOCK_QUALITY_BEST};

static void single_colour_blocks_round_trip_exactly(void **state) {
    (void)state;
    uint8_t in[64], block[16], out[64];
    for (int q = 0; q < 3; q++) {
        /* Every byte value in every channel... */
        for (int v = 0; v < 256; v++) {
            for (int t = 0; t < 16; t++) {
                in[4 * t + 0] = (uint8_t)v, in[4 * t + 1] = (uint8_t)(255 - v);
                in[4 * t + 2] = (uint8_t)(v * 7), in[4 * t + 3] = (uint8_t)(v ^ 0x5A);
            }
            bc7_encode_block(in, qualities[q], block);
            bc7_decode_block(block, out);
            assert_memory_equal(in, out, 64);
        }
        /* ...and random colours, opaque and not. */
        for (int i = 0; i < 200; i++) {
            uint32_t r = rnd(), a = i & 1 ? 255 : rnd() & 255;
            for (int t = 0; t < 16; t++) {
                in[4 * t + 0] = (uint8_t)r, in[4 * t + 1] = (uint8_t)(r >> 8);
                in[4 * t + 2] = (uint8_t)(r >> 16), in[4 * t + 3] = (uint8_t)a;
            }
            bc7_encode_block(in, qualities[q], block);
            bc7_decode_block(block, out);
            assert_memory_equal(in, out, 64);
        }
    }
}

/* `draft` (kiln watch's first encode) writes mode 6 for every block that is
 * not one colour, keeps one colour exact (mode 5) and two colours mode 6
 * holds exactly (every channel odd), and is no worse on a smooth gradient
 * than a few levels per texel. */
static void draft_writes_mode6_and_round_trips_what_it_holds(void **state) {
    (void)state;
    uint8_t in[64], block[16], out[64];
    for (int i = 0; i < 300; i++) {
        uint8_t c[2][4];
        for (int k = 0; k < 2; k++) {
            for (int ch = 0; ch < 4; ch++)
                c[k][ch] = (uint8_t)(((rnd() & 127) << 1) | 1);
        }
        uint32_t pattern = (rnd() | 1u) & ~(1u << 5); /* both colours present */
        for (int t = 0; t < 16; t++)
            memcpy(in + 4 * t, c[(pattern >> t) & 1], 4);
        bc7_encode_block(in, BLOCK_QUALITY_DRAFT, block);
        bc7_decode_block(block, out);
        assert_int_equal(block_bc7_mode(block), 6);
        assert_memory_equal(in, out, 64);
        for (int t = 0; t < 16; t++)
            memcpy(in + 4 * t, c[0], 4);
        bc7_encode_block(in, BLOCK_QUALITY_DRAFT, block);
        bc7_decode_block(block, out);
        assert_memory_equal(in, out, 64);
    }
    for (int i = 0; i < 100; i++) {
        int base = (int)(rnd() % 160), step = 1 + (int)(rnd() % 6);
        for (int t = 0; t < 16; t++) {
            for (int ch = 0; ch < 3; ch++)
                in[4 * t + ch] = (uint8_t)(base + step * (t % 4 + t / 4) + 10 * ch);
            in[4 * t + 3] = 255;
        }
        bc7_encode_block(in, BLOCK_QUALITY_DRAFT, block);
        bc7_decode_block(block, out);
        assert_int_equal(block_bc7_mode(block), 6);
        assert_true(block_sq_error(in, out, 0xF) <= 16.0 * 4.0);
    }
}

/* Two colours that mode 6 holds exactly (every channel odd: 7 bits + a
 * P-bit of 1) at every quality, and two colours mode 5 holds exactly (RGB
 * from 7 bits, any alpha) at `best`, spread over the block at random. */
static void representable_two_colour_blocks_round_trip_exactly(void **state) {
    (void)state;
    uint8_t in[64], block[16], out[64];
    for (int i = 0; i < 120; i++) {
        uint8_t c[2][4];
        bool mode5_kind = i % 3 == 2;
        for (int k = 0; k < 2; k++) {
            for (int ch = 0; ch < 3; ch++) {
                unsigned v = rnd() & 127;
                c[k][ch] = mode5_kind ? (uint8_t)((v << 1) | (v >> 6)) : (uint8_t)((v << 1) | 1);
            }
            if (i % 3 == 0)
                c[k][3] = 255; /* opaque */
            else
                c[k][3] = mode5_kind ? (uint8_t)rnd() : (uint8_t)((rnd() << 1) | 1);
        }
        uint32_t pattern = rnd() | 1u;
        pattern &= ~(1u << 5); /* both colours present */
        for (int t = 0; t < 16; t++)
            memcpy(in + 4 * t, c[(pattern >> t) & 1], 4);
        for (int q = 0; q < 3; q++) {
            bc7_encode_block(in, qualities[q], block);
            bc7_decode_block(block, out);
            /* `fast` and `normal` may stop at a near-exact mode 6 before
             * trying mode 5: mode 5 pairs are exact at `best`, and within
             * `normal`'s early-exit error (16) otherwise. */
            if (mode5_kind && qualities[q] != BLOCK_QUALITY_BEST) {
                if (qualities[q] == BLOCK_QUALITY_NORMAL)
                    assert_true(block_sq_error(in, out, 0xF) <= 16.0);
                continue;
            }
            assert_memory_equal(in, out, 64);
        }
    }
}

/* Opaque input always decodes to alpha 255 and fully transparent input to
 * alpha 0, whatever the colours look like: white noise, two tones with
 * noise, and steep ramps in random directions. */
static void opaque_and_transparent_blocks_keep_their_alpha(void **state) {
    (void)state;
    rng_state = 4242;
    uint8_t in[64], block[16], out[64];
    for (int i = 0; i < 60; i++) {
        uint8_t base[2][3], alpha = i % 4 == 3 ? 0 : 255;
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < 3; c++)
                base[k][c] = (uint8_t)rnd();
        for (int t = 0; t < 16; t++) {
            for (int c = 0; c < 3; c++) {
                int v;
                if (i % 3 == 0)
                    v = (int)(rnd() & 255);
                else if (i % 3 == 1)
                    v = base[(t * 7 + i) % 5 < 2][c] + (int)(rnd() % 9) - 4;
                else
                    v = base[0][c] + ((t & 3) * (base[1][c] - 128) + (t >> 2) * (c * 40 - 40)) / 4;
                in[4 * t + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
            in[4 * t + 3] = alpha;
        }
        for (int q = 0; q < 3; q++) {
            bc7_encode_block(in, qualities[q], block);
            bc7_decode_block(block, out);
            for (int t = 0; t < 16; t++)
                assert_int_equal(out[4 * t + 3], alpha);
        }
    }
}

/* ---- encoder: synthetic images ---------------------------------------------------- */

enum { IMG = 24 };

/* A random mode 3 block (opaque, two subsets of up to 8-bit endpoints,
 * 2-bit indices) decoded; `inner` keeps every index at 1 or 2, so the
 * texels of each subset lie strictly inside their segment. */
static void random_mode3_block(bool inner, uint8_t rgba[64]) {
    test_bits b = {{0}, 0};
    unsigned partition = rnd() % 64;
    tmode(&b, 3);
    tput(&b, partition, 6);
    for (int f = 0; f < 12; f++)
        tput(&b, rnd() % 128, 7);
    tput(&b, rnd() % 16, 4); /* P-bits */
    for (unsigned t = 0; t < 16; t++) {
        bool anchor = t == 0 || t == bc7_anchor2_1[partition];
        unsigned index = inner ? 1 + (anchor ? 0 : rnd() % 2) : rnd() % (anchor ? 2 : 4);
        tput(&b, index, anchor ? 1 : 2);
    }
    assert_int_equal(b.pos, 128);
    bc7_decode_block(b.bytes, rgba);
}

/* Exactly representable two-subset blocks: each subset's texels lie on a
 * line, the block as a whole spreads over a plane. The encoder has to rank
 * the right partition among the few it fits and then find the endpoints
 * from texels that need not reach the segment's ends. Measured (of 100,
 * exact / within a squared error of 16): `normal` 56 / 64, `best` 76 / 78;
 * before the full partition estimate (normal) and the extended starts
 * (best) 51 / 58 and 56 / 64. */
static void two_subset_blocks_round_trip(void **state) {
    (void)state;
    enum { N = 100 };
    static const int min_exact[2] = {54, 72}, min_close[2] = {62, 75};
    for (int q = 0; q < 2; q++) {
        block_quality quality = q ? BLOCK_QUALITY_BEST : BLOCK_QUALITY_NORMAL;
        rng_state = 4242u;
        int exact = 0, close = 0;
        for (int n = 0; n < N; n++) {
            uint8_t src[64], block[16], out[64];
            random_mode3_block(false, src);
            bc7_encode_block(src, quality, block);
            bc7_decode_block(block, out);
            double err = block_sq_error(src, out, 0xF);
            exact += err == 0.0;
            close += err <= 16.0;
        }
        printf("two-subset blocks, quality %d: %d exact, %d within 16 of %d\n", (int)quality, exact,
               close, N);
        assert_true(exact >= min_exact[q]);
        assert_true(close >= min_close[q]);
    }
}

/* Subsets whose texels use only the inner palette entries: the fit from
 * the texels' extremes puts the endpoints on them and stays there; `best`
 * also starts from segments extended beyond them and must find every
 * block exactly (mode 3 itself, or anything as good). */
static void inner_palette_blocks_round_trip_at_best(void **state) {
    (void)state;
    rng_state = 99u;
    for (int n = 0; n < 20; n++) {
        uint8_t src[64], block[16], out[64];
        random_mode3_block(true, src);
        bc7_encode_block(src, BLOCK_QUALITY_BEST, block);
        bc7_decode_block(block, out);
        assert_memory_equal(src, out, 64);
    }
}

typedef enum pattern {
    PATTERN_GRADIENT,
    PATTERN_NOISE,
    PATTERN_EDGES,
    PATTERN_ALPHA_RAMP,
    PATTERN_NORMAL_MAP,
    PATTERN_COUNT
} pattern;

static const char *pattern_names[PATTERN_COUNT] = {"gradient", "noise", "edges", "alpha ramp",
                                                   "normal map"};

static void make_image(pattern p, uint8_t *img) {
    rng_state = 777u + (uint32_t)p;
    for (int y = 0; y < IMG; y++) {
        for (int x = 0; x < IMG; x++) {
            uint8_t *px = img + 4 * (y * IMG + x);
            switch (p) {
            case PATTERN_GRADIENT:
                px[0] = (uint8_t)(x * 8), px[1] = (uint8_t)(y * 8);
                px[2] = (uint8_t)(255 - (x + y) * 4), px[3] = 255;
                break;
            case PATTERN_NOISE: { /* smooth colour plus noise */
                int n = (int)(rnd() % 41) - 20;
                px[0] = (uint8_t)(120 + n), px[1] = (uint8_t)(80 + x * 2 + n / 2);
                px[2] = (uint8_t)(60 + y * 3 - n), px[3] = 255;
                break;
            }
            case PATTERN_EDGES: { /* hard-edged shapes in three colours */
                int dx = x - 13, dy = y - 17;
                bool disc = dx * dx + dy * dy < 100, stripe = ((x + 2 * y) / 5) % 2 == 0;
                px[0] = disc ? 230 : stripe ? 20 : 90;
                px[1] = disc ? 40 : stripe ? 200 : 90;
                px[2] = disc ? 30 : stripe ? 60 : 220;
                px[3] = 255;
                break;
            }
            case PATTERN_ALPHA_RAMP:
                px[0] = (uint8_t)(200 - x * 3), px[1] = (uint8_t)(50 + y * 5);
                px[2] = (uint8_t)(((x / 8) % 2) ? 180 : 40);
                px[3] = (uint8_t)(x * 8 + (y % 4) * 2);
                break;
            case PATTERN_NORMAL_MAP: { /* bumps, unit normals in [0,255] */
                float fx = sinf((float)x * 0.45f) * 0.5f, fy = cosf((float)y * 0.35f) * 0.5f;
                float z = sqrtf(fmaxf(0.0f, 1.0f - fx * fx - fy * fy));
                px[0] = (uint8_t)lrintf((fx * 0.5f + 0.5f) * 255.0f);
                px[1] = (uint8_t)lrintf((fy * 0.5f + 0.5f) * 255.0f);
                px[2] = (uint8_t)lrintf((z * 0.5f + 0.5f) * 255.0f);
                px[3] = 255;
                break;
            }
            default:
                break;
            }
        }
    }
}

/* Squared errors (RGB, alpha) of a whole image through BC7 at `q`; checks
 * on the way that opaque blocks decode to alpha 255. */
static void image_error(const uint8_t *img, int w, int h, block_quality q, double *rgb_sq,
                        double *alpha_sq) {
    *rgb_sq = *alpha_sq = 0.0;
    for (int by = 0; by + 4 <= h; by += 4) {
        for (int bx = 0; bx + 4 <= w; bx += 4) {
            uint8_t in[64], block[16], out[64];
            bool opaque = true;
            for (int y = 0; y < 4; y++)
                memcpy(in + 16 * y, img + 4 * ((size_t)(by + y) * (size_t)w + (size_t)bx), 16);
            for (int t = 0; t < 16; t++)
                opaque = opaque && in[4 * t + 3] == 255;
            bc7_encode_block(in, q, block);
            bc7_decode_block(block, out);
            if (opaque) {
                for (int t = 0; t < 16; t++)
                    assert_int_equal(out[4 * t + 3], 255);
            }
            *rgb_sq += block_sq_error(in, out, 0x7);
            *alpha_sq += block_sq_error(in, out, 0x8);
        }
    }
}

static double psnr(double sq, double samples) {
    double mse = sq / samples;
    return mse <= 0.0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / mse);
}

/* Floors (dB) per pattern and quality: RGB, then alpha for the alpha ramp.
 * Measured values are a little above; a regression in fitting or a table
 * typo drops them by far more. */
static const double rgb_floor[PATTERN_COUNT][3] = {
    {39.3, 39.3, 39.9}, /* gradient (planar: no single line fits a block) */
    {43.2, 43.4, 43.7}, /* noise */
    {48.5, 60.0, 60.0}, /* edges: three flat colours, exact from `normal` on */
    {41.4, 54.0, 50.2}, /* alpha ramp (`best` trades RGB for alpha here) */
    {35.2, 40.3, 41.0}, /* normal map */
};
static const double alpha_ramp_alpha_floor[3] = {40.2, 40.3, 41.6};

static void synthetic_images_meet_quality_floors(void **state) {
    (void)state;
    static uint8_t img[IMG * IMG * 4];
    double total[3] = {0};
    for (int p = 0; p < PATTERN_COUNT; p++) {
        make_image((pattern)p, img);
        for (int q = 0; q < 3; q++) {
            double rgb, alpha;
            image_error(img, IMG, IMG, qualities[q], &rgb, &alpha);
            double db = psnr(rgb, IMG * IMG * 3.0), adb = psnr(alpha, IMG * IMG);
            printf("bc7 %-10s q%d: RGB %.2f dB, alpha %.2f dB\n", pattern_names[p], q, db, adb);
            assert_true(db >= rgb_floor[p][q]);
            if (p == PATTERN_ALPHA_RAMP)
                assert_true(adb >= alpha_ramp_alpha_floor[q]);
            else
                assert_true(adb >= 99.0); /* opaque stays exactly opaque */
            total[q] += rgb + alpha;
        }
    }
    /* More effort never loses overall. */
    assert_true(total[2] <= total[1]);
    assert_true(total[1] <= total[0]);
}

/* ---- encoder: corpus images --------------------------------------------------------- */

static void corpus_images_meet_quality_floors(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_images_meet_quality_floors"))
        return;
    /* A 32x32 crop of each (top-left corner at x0, y0): small enough for
     * sanitizer builds. */
    static const struct {
        const char *path;
        int x0, y0;
        double floor[3];
    } cases[] = {
        {"gltf/DamagedHelmet/glTF/Default_albedo.jpg", 1024, 1024, {51.5, 53.0, 53.6}},
        {"gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.jpg", 512, 512, {55.4, 59.7, 64.1}},
        {"images/pngsuite/basn6a08.png", 0, 0, {54.0, 54.3, 54.7}},
    };
    double total[3] = {0};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *path = test_path_join(test_corpus_dir(), cases[i].path);
        size_t size;
        uint8_t *bytes = test_read_file(path, &size);
        ir_decoded_image image;
        char reason[256];
        assert_true(image_decode(bytes, size, cases[i].path, NULL, &image, reason, sizeof(reason)));
        assert_non_null(image.rgba8);
        int x0 = cases[i].x0, y0 = cases[i].y0;
        assert_true(image.width >= (uint32_t)(x0 + 32) && image.height >= (uint32_t)(y0 + 32));
        static uint8_t crop[32 * 32 * 4];
        for (int y = 0; y < 32; y++)
            memcpy(crop + 4 * 32 * y,
                   image.rgba8 + 4 * ((size_t)(y0 + y) * image.width + (size_t)x0), 32 * 4);
        for (int q = 0; q < 3; q++) {
            double rgb, alpha;
            image_error(crop, 32, 32, qualities[q], &rgb, &alpha);
            double db = psnr(rgb + alpha, 32 * 32 * 4.0);
            printf("bc7 %s q%d: RGBA %.2f dB\n", cases[i].path, q, db);
            assert_true(db >= cases[i].floor[q]);
            total[q] += rgb + alpha;
        }
        ir_decoded_image_free(&image);
        free(bytes);
        free(path);
    }
    assert_true(total[2] <= total[1]);
    assert_true(total[1] <= total[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mode_table_fills_exactly_128_bits),
        cmocka_unit_test(weights_are_symmetric_and_increasing),
        cmocka_unit_test(partition_tables_are_consistent),
        cmocka_unit_test(anchors_belong_to_their_subsets),
        cmocka_unit_test(decodes_mode6),
        cmocka_unit_test(decodes_mode1),
        cmocka_unit_test(decodes_mode0_and_mode2),
        cmocka_unit_test(decodes_mode3),
        cmocka_unit_test(decodes_mode7),
        cmocka_unit_test(decodes_mode4_and_mode5),
        cmocka_unit_test(reserved_mode_decodes_to_transparent_black),
        cmocka_unit_test(random_blocks_decode_within_spec),
        cmocka_unit_test(single_colour_blocks_round_trip_exactly),
        cmocka_unit_test(representable_two_colour_blocks_round_trip_exactly),
        cmocka_unit_test(draft_writes_mode6_and_round_trips_what_it_holds),
        cmocka_unit_test(opaque_and_transparent_blocks_keep_their_alpha),
        cmocka_unit_test(two_subset_blocks_round_trip),
        cmocka_unit_test(inner_palette_blocks_round_trip_at_best),
        cmocka_unit_test(synthetic_images_meet_quality_floors),
        cmocka_unit_test(corpus_images_meet_quality_floors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
