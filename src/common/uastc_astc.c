/*
 * uastc_astc.c — UASTC blocks as ASTC 4×4 LDR blocks (uastc_transcode.h):
 * the same partition seed, endpoint mode, endpoints and weights, written in
 * ASTC's layout. Two things differ from a plain re-packing: ASTC would
 * blue-contract an RGB(A) subset whose second endpoint sums below its first,
 * which UASTC never does, so such a subset goes out with its endpoints
 * swapped and its weights inverted (the same texels); and the solid mode
 * becomes a void-extent block.
 */
#include <string.h>

#include "common/uastc_transcode.h"

/* Integer sequence encoding: five trits (the base-3 number t0 + 3 t1 + …,
 * first value lowest, as UASTC stores them) as ASTC's 8-bit T, and three
 * quints as its 7-bit Q. Each is the smallest code the specification's
 * decoding maps to those values; test_uastc_transcode decodes all of them. */
static const uint8_t trit_code[243] = {
    0,   1,   2,   4,   5,   6,   8,   9,   10,  16,  17,  18,  20,  21,  22,  24,  25,  26,  3,
    7,   11,  19,  23,  27,  12,  13,  14,  32,  33,  34,  36,  37,  38,  40,  41,  42,  48,  49,
    50,  52,  53,  54,  56,  57,  58,  35,  39,  43,  51,  55,  59,  44,  45,  46,  64,  65,  66,
    68,  69,  70,  72,  73,  74,  80,  81,  82,  84,  85,  86,  88,  89,  90,  67,  71,  75,  83,
    87,  91,  76,  77,  78,  128, 129, 130, 132, 133, 134, 136, 137, 138, 144, 145, 146, 148, 149,
    150, 152, 153, 154, 131, 135, 139, 147, 151, 155, 140, 141, 142, 160, 161, 162, 164, 165, 166,
    168, 169, 170, 176, 177, 178, 180, 181, 182, 184, 185, 186, 163, 167, 171, 179, 183, 187, 172,
    173, 174, 192, 193, 194, 196, 197, 198, 200, 201, 202, 208, 209, 210, 212, 213, 214, 216, 217,
    218, 195, 199, 203, 211, 215, 219, 204, 205, 206, 96,  97,  98,  100, 101, 102, 104, 105, 106,
    112, 113, 114, 116, 117, 118, 120, 121, 122, 99,  103, 107, 115, 119, 123, 108, 109, 110, 224,
    225, 226, 228, 229, 230, 232, 233, 234, 240, 241, 242, 244, 245, 246, 248, 249, 250, 227, 231,
    235, 243, 247, 251, 236, 237, 238, 28,  29,  30,  60,  61,  62,  92,  93,  94,  156, 157, 158,
    188, 189, 190, 220, 221, 222, 31,  63,  95,  159, 191, 223, 124, 125, 126,
};
static const uint8_t quint_code[125] = {
    0,   1,   2,   3,   4,   8,   9,   10,  11,  12,  16,  17,  18,  19,  20,  24,  25,  26,
    27,  28,  5,   13,  21,  29,  6,   32,  33,  34,  35,  36,  40,  41,  42,  43,  44,  48,
    49,  50,  51,  52,  56,  57,  58,  59,  60,  37,  45,  53,  61,  14,  64,  65,  66,  67,
    68,  72,  73,  74,  75,  76,  80,  81,  82,  83,  84,  88,  89,  90,  91,  92,  69,  77,
    85,  93,  22,  96,  97,  98,  99,  100, 104, 105, 106, 107, 108, 112, 113, 114, 115, 116,
    120, 121, 122, 123, 124, 101, 109, 117, 125, 30,  102, 103, 70,  71,  38,  110, 111, 78,
    79,  46,  118, 119, 86,  87,  54,  126, 127, 94,  95,  62,  39,  47,  55,  63,  7,
};

/* Endpoint values at the stream position: groups of five trits (three
 * quints), each value's plain bits followed by its share of T (Q). A last,
 * shorter group stops after its last value (the rest of T is zero). */
static void put_ise(uint8_t block[16], unsigned *pos, unsigned range, const uint8_t *values,
                    unsigned count) {
    static const uint8_t trit_split[5] = {2, 2, 1, 2, 1}, quint_split[3] = {3, 2, 2};
    unsigned bits = uastc_ise_bits(range);
    uint32_t mask = (1u << bits) - 1u;
    bool trits = uastc_ise_trits(range), quints = uastc_ise_quints(range);
    if (!trits && !quints) {
        for (unsigned i = 0; i < count; i++)
            uastc_put_bits(block, pos, values[i], bits);
        return;
    }
    unsigned base = trits ? 3u : 5u, per_group = trits ? 5u : 3u;
    const uint8_t *split = trits ? trit_split : quint_split;
    for (unsigned first = 0; first < count; first += per_group) {
        unsigned n = count - first < per_group ? count - first : per_group;
        unsigned number = 0;
        for (unsigned k = n; k-- > 0;)
            number = number * base + (values[first + k] >> bits);
        uint32_t code = trits ? trit_code[number] : quint_code[number];
        for (unsigned k = 0; k < n; k++) {
            uastc_put_bits(block, pos, values[first + k] & mask, bits);
            uastc_put_bits(block, pos, code, split[k]);
            code >>= split[k];
        }
    }
}

/* Block mode bits (bits 0-10) of a 4×4 weight grid per UASTC weight width:
 * the layout with bits 2-3 zero (width B + 4 = 4, height A + 2 = 4), weight
 * range R in bits 4, 0, 1 and the high-precision flag H in bit 9 (2, 4, 8,
 * 16, 32 levels). Bit 10 is the dual-plane flag. */
static const uint16_t block_mode_of_bits[6] = {0, 0x041, 0x042, 0x053, 0x242, 0x253};
#define ASTC_DUAL_PLANE 0x400u

/* ASTC colour endpoint modes: LA, RGB and RGBA, each "direct". */
static unsigned endpoint_mode(unsigned comps) {
    return comps == 2 ? 4u : comps == 3 ? 8u : 12u;
}

/* A void-extent block: LDR, no extent (all coordinates ones), the colour
 * as 16-bit UNORM (c * 257, whose top byte every decoder takes). */
static void put_void_extent(const uint8_t rgba[4], uint8_t out[16]) {
    memset(out, 0, 16);
    unsigned pos = 0;
    uastc_put_bits(out, &pos, 0x1FC, 9); /* the void-extent block mode */
    uastc_put_bits(out, &pos, 0, 1);     /* LDR */
    uastc_put_bits(out, &pos, 3, 2);     /* reserved, ones */
    for (unsigned i = 0; i < 4; i++)
        uastc_put_bits(out, &pos, 0x1FFF, 13);
    for (unsigned c = 0; c < 4; c++)
        uastc_put_bits(out, &pos, rgba[c] * 257u, 16);
}

/* Swaps endpoints and inverts weights of each RGB(A) subset ASTC would
 * otherwise blue-contract (its second endpoint's RGB sum below the first's). */
static void avoid_blue_contraction(const uastc_mode_desc *d, uastc_logical *b) {
    if (d->comps < 3)
        return;
    uint8_t subset_of[16], anchors[3];
    (void)uastc_partition(b->mode, b->pattern, subset_of, anchors);
    unsigned top = (1u << d->weight_bits) - 1u;
    for (unsigned s = 0; s < d->subsets; s++) {
        uint8_t *v = b->endpoints + s * d->comps * 2u;
        unsigned sum0 = 0, sum1 = 0;
        for (unsigned k = 0; k < 3; k++) {
            sum0 += uastc_unquant_endpoint(d->endpoint_ise, v[2 * k]);
            sum1 += uastc_unquant_endpoint(d->endpoint_ise, v[2 * k + 1]);
        }
        if (sum1 >= sum0)
            continue;
        for (unsigned k = 0; k < d->comps; k++) {
            uint8_t low = v[2 * k];
            v[2 * k] = v[2 * k + 1];
            v[2 * k + 1] = low;
        }
        for (unsigned i = 0; i < 16u * d->planes; i++)
            if (subset_of[i / d->planes] == s)
                b->weights[i] = (uint8_t)(top - b->weights[i]);
    }
}

void uastc_logical_to_astc(const uastc_logical *block, uint8_t out[UASTC_TARGET_BLOCK_BYTES]) {
    const uastc_mode_desc *d = uastc_mode_info(block->mode);
    if (block->mode == UASTC_MODE_SOLID) {
        put_void_extent(block->solid, out);
        return;
    }
    uastc_logical b = *block;
    avoid_blue_contraction(d, &b);
    memset(out, 0, UASTC_TARGET_BLOCK_BYTES);
    unsigned pos = 0;
    unsigned mode_bits = block_mode_of_bits[d->weight_bits];
    uastc_put_bits(out, &pos, d->planes == 2 ? mode_bits | ASTC_DUAL_PLANE : mode_bits, 11);
    uastc_put_bits(out, &pos, d->subsets - 1u, 2);
    if (d->subsets == 1) {
        uastc_put_bits(out, &pos, endpoint_mode(d->comps), 4);
    } else {
        uastc_put_bits(out, &pos, uastc_pattern_seed(b.mode, b.pattern), 10);
        /* Selector 00: every partition has the endpoint mode in the next 4 bits. */
        uastc_put_bits(out, &pos, endpoint_mode(d->comps) << 2, 6);
    }
    put_ise(out, &pos, d->endpoint_ise, b.endpoints, (unsigned)d->comps * 2u * d->subsets);

    /* Weights run down from bit 127, the stream's bits reversed: weight i
     * holds bits 127 - i * w down to 128 - (i + 1) * w, that is its value
     * with its bits reversed, LSB first from 128 - (i + 1) * w. The second
     * plane's component sits right below them. */
    unsigned weight_count = 16u * d->planes, weight_bits = weight_count * d->weight_bits;
    for (unsigned i = 0; i < weight_count; i++) {
        unsigned reversed = 0, wpos = 128u - (i + 1u) * d->weight_bits;
        for (unsigned k = 0; k < d->weight_bits; k++)
            reversed |= ((b.weights[i] >> k) & 1u) << (d->weight_bits - 1u - k);
        uastc_put_bits(out, &wpos, reversed, d->weight_bits);
    }
    if (d->planes == 2) {
        unsigned ccs_pos = 128u - weight_bits - 2u;
        uastc_put_bits(out, &ccs_pos, b.ccs, 2);
    }
}

uastc_status uastc_to_astc(const uint8_t block[UASTC_BLOCK_BYTES],
                           uint8_t out[UASTC_TARGET_BLOCK_BYTES]) {
    uastc_logical b;
    uastc_status status = uastc_unpack(block, &b);
    if (status == UASTC_OK)
        uastc_logical_to_astc(&b, out);
    return status;
}
