/*
 * uastc_bc7.c — UASTC blocks as BC7 blocks (uastc_transcode.h), by the
 * UASTC specification's mode mapping:
 *
 *   UASTC 0 5 10 12 14 15 18  one subset         → BC7 6 (RGBA 7+P, 4-bit index)
 *   UASTC 1                   one subset, RGB    → BC7 3, both subsets alike
 *   UASTC 2                   two subsets, 3-bit → BC7 1 (RGB 6+shared P)
 *   UASTC 3                   three subsets      → BC7 2 (RGB 5)
 *   UASTC 4                   two subsets, RGB   → BC7 3 (RGB 7+P)
 *   UASTC 7                   two ASTC subsets   → BC7 2, one of them split in two
 *   UASTC 9 16                two subsets, RGBA  → BC7 7 (RGBA 5+P)
 *   UASTC 6 11 13 17          two planes         → BC7 5 (RGB 7, A 8, rotation)
 *   UASTC 8                   solid colour       → BC7 5, exact
 *
 * Partitions map onto the BC7 shapes they equal (uastc_pattern_bc7), with
 * subsets renumbered to BC7's; weights go to the nearest BC7 weight of the
 * target's index width; each endpoint is rounded to the target's precision
 * (the P-bit chosen for the least error); then the BC7
 * anchor rule (an anchor's index has its top bit clear) is met by swapping
 * a subset's endpoints and inverting its indices.
 */
#include <string.h>

#include "common/bc7_tables.h"
#include "common/uastc_transcode.h"

/* The BC7 mode each UASTC mode maps onto. */
static const uint8_t bc7_mode_of[UASTC_MODES] = {6, 3, 1, 2, 3, 6, 5, 2, 5, 7,
                                                 6, 5, 6, 5, 6, 6, 7, 5, 6};

typedef struct bc7_fields {
    unsigned mode, partition, rotation;
    uint8_t ends[3][2][4]; /* per subset, endpoint, channel: the stored bits */
    uint8_t pbits[3][2];
    uint8_t index[16], alpha_index[16];
} bc7_fields;

/* A `bits`-bit value widened to 8 bits by replicating its top bits. */
static unsigned expand(unsigned value, unsigned bits) {
    return bits >= 8 ? value : (value << (8 - bits)) | (value >> (2 * bits - 8));
}

/* The `bits`-bit value (with P-bit `pbit` below it, or none when pbit < 0)
 * for an 8-bit `target`, rounded half up in the stored precision (with a
 * P-bit: among the values with that low bit), and its widened value's
 * squared error in *error. Rounding where the value is stored, not to the
 * nearest widened value, is what Basis Universal's transcoder does, and on
 * UASTC encoded for it that gives the better BC7 (BENCHMARKS.md §19). */
static unsigned quantize_channel(unsigned target, unsigned bits, int pbit, unsigned *error) {
    unsigned top = (1u << bits) - 1u, value, wide;
    if (pbit < 0) {
        value = (target * top + 127u) / 255u;
        wide = expand(value, bits);
    } else {
        unsigned scale = (1u << (bits + 1)) - 1u; /* value and P-bit together */
        value = (target * scale + 255u - 255u * (unsigned)pbit) / 510u;
        value = value > top ? top : value;
        wide = expand(value << 1 | (unsigned)pbit, bits + 1);
    }
    unsigned diff = wide > target ? wide - target : target - wide;
    *error = diff * diff;
    return value;
}

/* One endpoint's channels at the mode's precision; the error over the first
 * `counted` channels (3 for an opaque source: its alpha is 255 either way). */
static unsigned quantize_endpoint(const bc7_mode_info *m, const uint8_t target[4], int pbit,
                                  unsigned counted, uint8_t out[4]) {
    unsigned total = 0;
    for (unsigned c = 0; c < 4; c++) {
        unsigned bits = c < 3 ? m->color_bits : m->alpha_bits, error = 0;
        out[c] = bits ? (uint8_t)quantize_channel(target[c], bits, pbit, &error) : 0;
        total += c < counted ? error : 0;
    }
    return total;
}

static void quantize(bc7_fields *f, uint8_t target[3][2][4], unsigned counted) {
    const bc7_mode_info *m = &bc7_modes[f->mode];
    for (unsigned s = 0; s < m->subsets; s++) {
        if (m->shared_pbits) { /* one P-bit for both endpoints */
            unsigned best = ~0u;
            for (int p = 0; p < 2; p++) {
                uint8_t e0[4], e1[4];
                unsigned error = quantize_endpoint(m, target[s][0], p, counted, e0) +
                                 quantize_endpoint(m, target[s][1], p, counted, e1);
                if (error < best) {
                    best = error;
                    memcpy(f->ends[s][0], e0, 4);
                    memcpy(f->ends[s][1], e1, 4);
                    f->pbits[s][0] = f->pbits[s][1] = (uint8_t)p;
                }
            }
            continue;
        }
        for (unsigned e = 0; e < 2; e++) {
            if (!m->endpoint_pbits) {
                quantize_endpoint(m, target[s][e], -1, counted, f->ends[s][e]);
                continue;
            }
            unsigned best = ~0u;
            for (int p = 0; p < 2; p++) {
                uint8_t q[4];
                unsigned error = quantize_endpoint(m, target[s][e], p, counted, q);
                if (error < best) {
                    best = error;
                    memcpy(f->ends[s][e], q, 4);
                    f->pbits[s][e] = (uint8_t)p;
                }
            }
        }
    }
}

/* A UASTC weight of `bits` bits as the BC7 index of `index_bits` bits whose
 * weight is nearest (equal widths are the same weights). Two 5-bit weights
 * fall midway (28 between 26 and 30, 36 between 34 and 38): each goes
 * towards the middle, as Basis Universal's table has it. */
static uint8_t bc7_index(unsigned bits, unsigned index_bits, unsigned weight) {
    static const uint8_t to4[6][32] = {
        {0},
        {0, 15},
        {0, 5, 10, 15},
        {0, 2, 4, 6, 9, 11, 13, 15},
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {0, 0, 1, 1, 2,  2,  3,  3,  4,  4,  5,  5,  6,  6,  6,  7,
         8, 9, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15},
    };
    if (bits == index_bits)
        return (uint8_t)weight;
    if (index_bits == 4)
        return to4[bits][weight];
    return (uint8_t)(weight * 3u); /* 1 bit into 2: the two end weights */
}

/* The solid colour: BC7 mode 5 with every colour index 1 (weights 43:21),
 * each RGB channel's two 7-bit endpoints chosen so the blend is the value
 * exactly, alpha stored at 8 bits. value / 2 and an endpoint within two of
 * it always blend to the value (test_uastc_transcode checks all 256). */
static void solid_channel(unsigned value, uint8_t *low, uint8_t *high) {
    unsigned e0 = value >> 1, wide0 = expand(e0, 7);
    *low = *high = (uint8_t)e0;
    for (unsigned e1 = e0 >= 2 ? e0 - 2 : 0; e1 <= e0 + 1 && e1 < 128; e1++)
        if (((43u * wide0 + 21u * expand(e1, 7) + 32u) >> 6) == value) {
            *high = (uint8_t)e1;
            return;
        }
}

static void solid_fields(const uint8_t rgba[4], bc7_fields *f) {
    f->mode = 5;
    for (unsigned c = 0; c < 3; c++)
        solid_channel(rgba[c], &f->ends[0][0][c], &f->ends[0][1][c]);
    f->ends[0][0][3] = f->ends[0][1][3] = rgba[3];
    memset(f->index, 1, 16);
}

/* Each BC7 subset's anchor texel (subset 0's is texel 0). */
static void bc7_anchors(unsigned subsets, unsigned partition, unsigned anchors[3]) {
    anchors[0] = 0;
    anchors[1] = subsets == 2 ? bc7_anchor2_1[partition] : bc7_anchor3_1[partition];
    anchors[2] = bc7_anchor3_2[partition];
}

static const uint8_t *bc7_subsets_of(unsigned subsets, unsigned partition) {
    static const uint8_t single[16] = {0};
    return subsets == 2   ? bc7_partition2[partition]
           : subsets == 3 ? bc7_partition3[partition]
                          : single;
}

/* BC7 implies the top bit of each anchor's index clear: a subset whose
 * anchor has it set swaps its endpoints and inverts its indices. Mode 5's
 * alpha (its own indices, anchor texel 0) does the same on its own. */
static void meet_anchor_rule(bc7_fields *f) {
    const bc7_mode_info *m = &bc7_modes[f->mode];
    const uint8_t *subset_of = bc7_subsets_of(m->subsets, f->partition);
    unsigned anchors[3], top = 1u << (m->index_bits - 1), full = (1u << m->index_bits) - 1u;
    unsigned swap_channels = m->index2_bits ? 3 : 4;
    bc7_anchors(m->subsets, f->partition, anchors);
    for (unsigned s = 0; s < m->subsets; s++) {
        if (!(f->index[anchors[s]] & top))
            continue;
        for (unsigned c = 0; c < swap_channels; c++) {
            uint8_t low = f->ends[s][0][c];
            f->ends[s][0][c] = f->ends[s][1][c];
            f->ends[s][1][c] = low;
        }
        uint8_t p = f->pbits[s][0];
        f->pbits[s][0] = f->pbits[s][1];
        f->pbits[s][1] = p;
        for (unsigned i = 0; i < 16; i++)
            if (subset_of[i] == s)
                f->index[i] = (uint8_t)(full - f->index[i]);
    }
    if (m->index2_bits && (f->alpha_index[0] & (1u << (m->index2_bits - 1)))) {
        uint8_t low = f->ends[0][0][3];
        f->ends[0][0][3] = f->ends[0][1][3];
        f->ends[0][1][3] = low;
        for (unsigned i = 0; i < 16; i++)
            f->alpha_index[i] = (uint8_t)((1u << m->index2_bits) - 1u - f->alpha_index[i]);
    }
}

/* The fields in BC7's order: mode, partition, rotation, endpoints channel by
 * channel (R of every endpoint, then G, B, A), P-bits, indices (anchors one
 * bit shorter), mode 5's alpha indices. */
static void write_bc7(const bc7_fields *f, uint8_t out[16]) {
    const bc7_mode_info *m = &bc7_modes[f->mode];
    unsigned anchors[3], pos = 0;
    bc7_anchors(m->subsets, f->partition, anchors);
    memset(out, 0, 16);
    uastc_put_bits(out, &pos, 1u << f->mode, f->mode + 1);
    uastc_put_bits(out, &pos, f->partition, m->partition_bits);
    uastc_put_bits(out, &pos, f->rotation, m->rotation_bits);
    for (unsigned c = 0; c < 4; c++) {
        unsigned bits = c < 3 ? m->color_bits : m->alpha_bits;
        for (unsigned s = 0; s < m->subsets; s++)
            for (unsigned e = 0; e < 2; e++)
                uastc_put_bits(out, &pos, f->ends[s][e][c], bits);
    }
    for (unsigned s = 0; s < m->subsets; s++) {
        if (m->endpoint_pbits) {
            uastc_put_bits(out, &pos, f->pbits[s][0], 1);
            uastc_put_bits(out, &pos, f->pbits[s][1], 1);
        } else if (m->shared_pbits) {
            uastc_put_bits(out, &pos, f->pbits[s][0], 1);
        }
    }
    for (unsigned i = 0; i < 16; i++) {
        bool anchor = i == anchors[0] || (m->subsets > 1 && i == anchors[1]) ||
                      (m->subsets > 2 && i == anchors[2]);
        uastc_put_bits(out, &pos, f->index[i], m->index_bits - (anchor ? 1u : 0u));
    }
    if (m->index2_bits)
        for (unsigned i = 0; i < 16; i++)
            uastc_put_bits(out, &pos, f->alpha_index[i], m->index2_bits - (i == 0 ? 1u : 0u));
}

void uastc_logical_to_bc7(const uastc_logical *block, uint8_t out[UASTC_TARGET_BLOCK_BYTES]) {
    bc7_fields f;
    memset(&f, 0, sizeof f);
    if (block->mode == UASTC_MODE_SOLID) {
        solid_fields(block->solid, &f);
        meet_anchor_rule(&f);
        write_bc7(&f, out);
        return;
    }
    const uastc_mode_desc *d = uastc_mode_info(block->mode);
    f.mode = bc7_mode_of[block->mode];
    const bc7_mode_info *m = &bc7_modes[f.mode];
    f.partition = d->subsets > 1 ? uastc_pattern_bc7(block->mode, block->pattern) : 0;

    /* Each BC7 subset takes the endpoints of the UASTC subset holding its texels. */
    uint8_t ends[3][2][4], target[3][2][4], subset_of[16], anchors[3];
    uastc_endpoints_rgba8(block, ends);
    (void)uastc_partition(block->mode, block->pattern, subset_of, anchors);
    const uint8_t *bc7_subset_of = bc7_subsets_of(m->subsets, f.partition);
    for (unsigned i = 16; i-- > 0;)
        memcpy(target[bc7_subset_of[i]], ends[subset_of[i]], sizeof target[0]);
    if (d->planes == 2) {
        /* BC7 interpolates the second plane as alpha, then swaps alpha
         * with the rotation's channel: store that channel in alpha's place. */
        f.rotation = (block->ccs + 1u) & 3u;
        for (unsigned e = 0; e < 2 && block->ccs != 3; e++) {
            uint8_t channel = target[0][e][block->ccs];
            target[0][e][block->ccs] = target[0][e][3];
            target[0][e][3] = channel;
        }
    }
    quantize(&f, target, d->comps == 3 ? 3 : 4);
    for (unsigned i = 0; i < 16; i++) {
        f.index[i] = bc7_index(d->weight_bits, m->index_bits, block->weights[i * d->planes]);
        if (d->planes == 2)
            f.alpha_index[i] = bc7_index(d->weight_bits, m->index2_bits, block->weights[2 * i + 1]);
    }
    meet_anchor_rule(&f);
    write_bc7(&f, out);
}

uastc_status uastc_to_bc7(const uint8_t block[UASTC_BLOCK_BYTES],
                          uint8_t out[UASTC_TARGET_BLOCK_BYTES]) {
    uastc_logical b;
    uastc_status status = uastc_unpack(block, &b);
    if (status == UASTC_OK)
        uastc_logical_to_bc7(&b, out);
    return status;
}
