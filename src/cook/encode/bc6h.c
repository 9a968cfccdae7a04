/*
 * bc6h.c — BC6H unsigned (BC6H_UF16) encoder and decoder, written from the
 * Khronos Data Format Specification's BPTC chapter (BC6H section) and
 * Microsoft's BC6H format documentation.
 *
 * Modes are numbered here in the order of the specification's mode table
 * (mode value 0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15), i.e. index
 * 0..13 = Microsoft's "mode 1".."mode 14". Each mode's bit layout is the
 * specification's block description, one token per run of bits.
 *
 * Encoding works on the 16-bit values the decoder interpolates ("u" below):
 * the decoder turns an interpolated u into half bits as (u * 31) >> 6, so
 * half-bit patterns (nearly logarithmic in the value) are the error metric,
 * which weighs dark and bright texels alike as HDR content wants. Endpoints
 * come from a principal-axis fit per subset, refined by least squares at
 * normal/best; indices are chosen against the exact palette the decoder
 * computes. Quality: fast tries the four one-subset modes; normal adds the
 * ten two-subset modes on the 2 most promising of the 32 partitions; best on
 * the 8 most promising, with one more refinement pass.
 */
#include <math.h>
#include <string.h>

#include "cook/encode/encode.h"

/* ---------------------------------------------------------------------------
 * Half floats
 * ------------------------------------------------------------------------- */

uint16_t block_float_to_half(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t exponent = (bits >> 23) & 0xFFu;
    uint32_t mantissa = bits & 0x7FFFFFu;
    if (exponent == 0xFF) /* inf / NaN */
        return (uint16_t)(sign | 0x7C00u | (mantissa ? 0x200u : 0u));
    int e = (int)exponent - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7BFFu); /* clamp to the largest finite half */
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        mantissa |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1u)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)e << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent: still correct (up to inf -> clamp below) */
    if ((half & 0x7C00u) == 0x7C00u)
        half = sign | 0x7BFFu;
    return (uint16_t)half;
}

float block_half_to_float(uint16_t half) {
    uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1Fu;
    uint32_t mantissa = half & 0x3FFu;
    uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                mantissa <<= 1;
            } while (!(mantissa & 0x400u));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mantissa & 0x3FFu) << 13);
        }
    } else if (exponent == 31) {
        bits = sign | 0x7F800000u | (mantissa << 13);
    } else {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float out;
    memcpy(&out, &bits, sizeof out);
    return out;
}

/* ---------------------------------------------------------------------------
 * Mode table and bit layouts
 * ------------------------------------------------------------------------- */

enum { R0, G0, B0, R1, G1, B1, R2, G2, B2, R3, G3, B3, PB, END };

/* "v^a..b" of the specification: the first block bit goes to bit b of v,
 * the following ones towards bit a (a < b means the bits are reversed). */
typedef struct bit_run {
    uint8_t field, a, b;
} bit_run;

#define T(f, a, b)                                                                                 \
    { f, a, b }
#define STOP                                                                                       \
    { END, 0, 0 }
static const bit_run layout_0[] = {
    T(G2, 4, 4), T(B2, 4, 4), T(B3, 4, 4), T(R0, 9, 0), T(G0, 9, 0), T(B0, 9, 0), T(R1, 4, 0),
    T(G3, 4, 4), T(G2, 3, 0), T(G1, 4, 0), T(B3, 0, 0), T(G3, 3, 0), T(B1, 4, 0), T(B3, 1, 1),
    T(B2, 3, 0), T(R2, 4, 0), T(B3, 2, 2), T(R3, 4, 0), T(B3, 3, 3), T(PB, 4, 0), STOP};
static const bit_run layout_1[] = {T(G2, 5, 5), T(G3, 4, 4), T(G3, 5, 5), T(R0, 6, 0), T(B3, 0, 0),
                                   T(B3, 1, 1), T(B2, 4, 4), T(G0, 6, 0), T(B2, 5, 5), T(B3, 2, 2),
                                   T(G2, 4, 4), T(B0, 6, 0), T(B3, 3, 3), T(B3, 5, 5), T(B3, 4, 4),
                                   T(R1, 5, 0), T(G2, 3, 0), T(G1, 5, 0), T(G3, 3, 0), T(B1, 5, 0),
                                   T(B2, 3, 0), T(R2, 5, 0), T(R3, 5, 0), T(PB, 4, 0), STOP};
static const bit_run layout_2[] = {
    T(R0, 9, 0),   T(G0, 9, 0), T(B0, 9, 0), T(R1, 4, 0), T(R0, 10, 10), T(G2, 3, 0), T(G1, 3, 0),
    T(G0, 10, 10), T(B3, 0, 0), T(G3, 3, 0), T(B1, 3, 0), T(B0, 10, 10), T(B3, 1, 1), T(B2, 3, 0),
    T(R2, 4, 0),   T(B3, 2, 2), T(R3, 4, 0), T(B3, 3, 3), T(PB, 4, 0),   STOP};
static const bit_run layout_6[] = {
    T(R0, 9, 0), T(G0, 9, 0), T(B0, 9, 0),   T(R1, 3, 0), T(R0, 10, 10), T(G3, 4, 4),
    T(G2, 3, 0), T(G1, 4, 0), T(G0, 10, 10), T(G3, 3, 0), T(B1, 3, 0),   T(B0, 10, 10),
    T(B3, 1, 1), T(B2, 3, 0), T(R2, 3, 0),   T(B3, 0, 0), T(B3, 2, 2),   T(R3, 3, 0),
    T(G2, 4, 4), T(B3, 3, 3), T(PB, 4, 0),   STOP};
static const bit_run layout_10[] = {
    T(R0, 9, 0),   T(G0, 9, 0), T(B0, 9, 0),   T(R1, 3, 0), T(R0, 10, 10), T(B2, 4, 4),
    T(G2, 3, 0),   T(G1, 3, 0), T(G0, 10, 10), T(B3, 0, 0), T(G3, 3, 0),   T(B1, 4, 0),
    T(B0, 10, 10), T(B2, 3, 0), T(R2, 3, 0),   T(B3, 1, 1), T(B3, 2, 2),   T(R3, 3, 0),
    T(B3, 4, 4),   T(B3, 3, 3), T(PB, 4, 0),   STOP};
static const bit_run layout_14[] = {
    T(R0, 8, 0), T(B2, 4, 4), T(G0, 8, 0), T(G2, 4, 4), T(B0, 8, 0), T(B3, 4, 4), T(R1, 4, 0),
    T(G3, 4, 4), T(G2, 3, 0), T(G1, 4, 0), T(B3, 0, 0), T(G3, 3, 0), T(B1, 4, 0), T(B3, 1, 1),
    T(B2, 3, 0), T(R2, 4, 0), T(B3, 2, 2), T(R3, 4, 0), T(B3, 3, 3), T(PB, 4, 0), STOP};
static const bit_run layout_18[] = {
    T(R0, 7, 0), T(G3, 4, 4), T(B2, 4, 4), T(G0, 7, 0), T(B3, 2, 2), T(G2, 4, 4), T(B0, 7, 0),
    T(B3, 3, 3), T(B3, 4, 4), T(R1, 5, 0), T(G2, 3, 0), T(G1, 4, 0), T(B3, 0, 0), T(G3, 3, 0),
    T(B1, 4, 0), T(B3, 1, 1), T(B2, 3, 0), T(R2, 5, 0), T(R3, 5, 0), T(PB, 4, 0), STOP};
static const bit_run layout_22[] = {T(R0, 7, 0), T(B3, 0, 0), T(B2, 4, 4), T(G0, 7, 0), T(G2, 5, 5),
                                    T(G2, 4, 4), T(B0, 7, 0), T(G3, 5, 5), T(B3, 4, 4), T(R1, 4, 0),
                                    T(G3, 4, 4), T(G2, 3, 0), T(G1, 5, 0), T(G3, 3, 0), T(B1, 4, 0),
                                    T(B3, 1, 1), T(B2, 3, 0), T(R2, 4, 0), T(B3, 2, 2), T(R3, 4, 0),
                                    T(B3, 3, 3), T(PB, 4, 0), STOP};
static const bit_run layout_26[] = {T(R0, 7, 0), T(B3, 1, 1), T(B2, 4, 4), T(G0, 7, 0), T(B2, 5, 5),
                                    T(G2, 4, 4), T(B0, 7, 0), T(B3, 5, 5), T(B3, 4, 4), T(R1, 4, 0),
                                    T(G3, 4, 4), T(G2, 3, 0), T(G1, 4, 0), T(B3, 0, 0), T(G3, 3, 0),
                                    T(B1, 5, 0), T(B2, 3, 0), T(R2, 4, 0), T(B3, 2, 2), T(R3, 4, 0),
                                    T(B3, 3, 3), T(PB, 4, 0), STOP};
static const bit_run layout_30[] = {T(R0, 5, 0), T(G3, 4, 4), T(B3, 0, 0), T(B3, 1, 1), T(B2, 4, 4),
                                    T(G0, 5, 0), T(G2, 5, 5), T(B2, 5, 5), T(B3, 2, 2), T(G2, 4, 4),
                                    T(B0, 5, 0), T(G3, 5, 5), T(B3, 3, 3), T(B3, 5, 5), T(B3, 4, 4),
                                    T(R1, 5, 0), T(G2, 3, 0), T(G1, 5, 0), T(G3, 3, 0), T(B1, 5, 0),
                                    T(B2, 3, 0), T(R2, 5, 0), T(R3, 5, 0), T(PB, 4, 0), STOP};
static const bit_run layout_3[] = {T(R0, 9, 0), T(G0, 9, 0), T(B0, 9, 0), T(R1, 9, 0),
                                   T(G1, 9, 0), T(B1, 9, 0), STOP};
static const bit_run layout_7[] = {T(R0, 9, 0),   T(G0, 9, 0), T(B0, 9, 0),   T(R1, 8, 0),
                                   T(R0, 10, 10), T(G1, 8, 0), T(G0, 10, 10), T(B1, 8, 0),
                                   T(B0, 10, 10), STOP};
static const bit_run layout_11[] = {T(R0, 9, 0),   T(G0, 9, 0), T(B0, 9, 0),   T(R1, 7, 0),
                                    T(R0, 10, 11), T(G1, 7, 0), T(G0, 10, 11), T(B1, 7, 0),
                                    T(B0, 10, 11), STOP};
static const bit_run layout_15[] = {T(R0, 9, 0),   T(G0, 9, 0), T(B0, 9, 0),   T(R1, 3, 0),
                                    T(R0, 10, 15), T(G1, 3, 0), T(G0, 10, 15), T(B1, 3, 0),
                                    T(B0, 10, 15), STOP};
#undef T
#undef STOP

typedef struct bc6h_mode {
    uint8_t value; /* the mode number stored in the low bits */
    uint8_t value_bits;
    bool two_subsets;
    bool transformed; /* endpoints after the first are deltas */
    uint8_t endpoint_bits;
    uint8_t delta_bits[3]; /* R, G, B */
    const bit_run *layout;
} bc6h_mode;

static const bc6h_mode modes[14] = {
    {0, 2, true, true, 10, {5, 5, 5}, layout_0},
    {1, 2, true, true, 7, {6, 6, 6}, layout_1},
    {2, 5, true, true, 11, {5, 4, 4}, layout_2},
    {6, 5, true, true, 11, {4, 5, 4}, layout_6},
    {10, 5, true, true, 11, {4, 4, 5}, layout_10},
    {14, 5, true, true, 9, {5, 5, 5}, layout_14},
    {18, 5, true, true, 8, {6, 5, 5}, layout_18},
    {22, 5, true, true, 8, {5, 6, 5}, layout_22},
    {26, 5, true, true, 8, {5, 5, 6}, layout_26},
    {30, 5, true, false, 6, {6, 6, 6}, layout_30},
    {3, 5, false, false, 10, {10, 10, 10}, layout_3},
    {7, 5, false, true, 11, {9, 9, 9}, layout_7},
    {11, 5, false, true, 12, {8, 8, 8}, layout_11},
    {15, 5, false, true, 16, {4, 4, 4}, layout_15},
};

/* Two-subset partitions 0..31 (the first half of the BPTC table): bit i set
 * when texel i belongs to subset 1; and the anchor texel of subset 1. */
static const uint16_t partitions[32] = {
    0xCCCC, 0x8888, 0xEEEE, 0xECC8, 0xC880, 0xFEEC, 0xFEC8, 0xEC80, 0xC800, 0xFFEC, 0xFE80,
    0xE800, 0xFFE8, 0xFF00, 0xFFF0, 0xF000, 0xF710, 0x008E, 0x7100, 0x08CE, 0x008C, 0x7310,
    0x3100, 0x8CCE, 0x088C, 0x3110, 0x6666, 0x366C, 0x17E8, 0x0FF0, 0x718E, 0x399C};
static const uint8_t anchor2[32] = {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
                                    15, 2,  8,  2,  2,  8,  8,  15, 2,  8,  2,  2,  8,  8,  2,  2};

static const uint8_t weights3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
static const uint8_t weights4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

static int mode_index_of(const uint8_t block[16]) {
    unsigned low2 = block[0] & 3u, low5 = block[0] & 31u;
    for (int m = 0; m < 14; m++) {
        if (modes[m].value_bits == 2 ? modes[m].value == low2 && low2 < 2
                                     : low2 >= 2 && modes[m].value == low5)
            return m;
    }
    return -1;
}

int block_bc6h_mode(const uint8_t block[16]) {
    return mode_index_of(block);
}

/* ---------------------------------------------------------------------------
 * Bits
 * ------------------------------------------------------------------------- */

static unsigned get_bit(const uint8_t *block, unsigned at) {
    return (block[at >> 3] >> (at & 7u)) & 1u;
}

static void put_bit(uint8_t *block, unsigned at, unsigned bit) {
    if (bit)
        block[at >> 3] |= (uint8_t)(1u << (at & 7u));
}

/* Walks a layout from bit `start`: reads into fields[] or writes from it. */
static unsigned walk_layout(const bit_run *layout, unsigned start, uint8_t *block,
                            uint32_t fields[PB + 1], bool write) {
    unsigned at = start;
    for (const bit_run *run = layout; run->field != END; run++) {
        int step = run->a >= run->b ? 1 : -1;
        int bit = run->b;
        for (;;) {
            if (write)
                put_bit(block, at, (fields[run->field] >> bit) & 1u);
            else
                fields[run->field] |= (uint32_t)get_bit(block, at) << bit;
            at++;
            if (bit == run->a)
                break;
            bit += step;
        }
    }
    return at;
}

/* ---------------------------------------------------------------------------
 * Decoding
 * ------------------------------------------------------------------------- */

static int32_t sign_extend(uint32_t value, unsigned bits) {
    uint32_t sign = 1u << (bits - 1);
    return (int32_t)((value ^ sign) - sign);
}

/* Unsigned unquantisation of an endpoint of `bits` bits to 16 bits. */
static int32_t unquantize(int32_t x, unsigned bits) {
    if (bits >= 15)
        return x;
    if (x == 0)
        return 0;
    if (x == (1 << bits) - 1)
        return 0xFFFF;
    return (int32_t)((((uint32_t)x << 16) + 0x8000u) >> bits);
}

static uint16_t interpolate(int32_t e0, int32_t e1, unsigned weight) {
    int32_t u = ((64 - (int32_t)weight) * e0 + (int32_t)weight * e1 + 32) >> 6;
    return (uint16_t)((u * 31) >> 6); /* unsigned finish: half bits */
}

/* Endpoints of a block as absolute quantised values [endpoint][channel]. */
static void endpoints_from_fields(const bc6h_mode *mode, const uint32_t fields[PB + 1],
                                  int32_t out[4][3]) {
    uint32_t mask = (1u << mode->endpoint_bits) - 1u;
    int count = mode->two_subsets ? 4 : 2;
    for (int e = 0; e < count; e++) {
        for (int c = 0; c < 3; c++) {
            uint32_t value = fields[e * 3 + c];
            if (e > 0 && mode->transformed)
                value = (fields[c] + (uint32_t)sign_extend(value, mode->delta_bits[c])) & mask;
            out[e][c] = (int32_t)value;
        }
    }
}

static unsigned index_bits_at(bool two, unsigned texel, unsigned anchor) {
    unsigned bits = two ? 3 : 4;
    return texel == 0 || (two && texel == anchor) ? bits - 1 : bits;
}

void bc6h_decode_block(const uint8_t in[16], float rgb[48]) {
    int m = mode_index_of(in);
    if (m < 0) { /* reserved mode: the specification returns zero */
        memset(rgb, 0, 48 * sizeof(float));
        return;
    }
    const bc6h_mode *mode = &modes[m];
    uint32_t fields[PB + 1] = {0};
    unsigned at = walk_layout(mode->layout, mode->value_bits, (uint8_t *)in, fields, false);
    int32_t ends[4][3];
    endpoints_from_fields(mode, fields, ends);
    int count = mode->two_subsets ? 4 : 2;
    for (int e = 0; e < count; e++)
        for (int c = 0; c < 3; c++)
            ends[e][c] = unquantize(ends[e][c], mode->endpoint_bits);
    unsigned partition = mode->two_subsets ? fields[PB] : 0;
    unsigned anchor = mode->two_subsets ? anchor2[partition] : 0;
    const uint8_t *weights = mode->two_subsets ? weights3 : weights4;
    for (unsigned i = 0; i < 16; i++) {
        unsigned bits = index_bits_at(mode->two_subsets, i, anchor);
        unsigned index = 0;
        for (unsigned b = 0; b < bits; b++)
            index |= get_bit(in, at + b) << b;
        at += bits;
        unsigned subset = mode->two_subsets ? (partitions[partition] >> i) & 1u : 0;
        for (int c = 0; c < 3; c++)
            rgb[i * 3 + (unsigned)c] = block_half_to_float(
                interpolate(ends[subset * 2][c], ends[subset * 2 + 1][c], weights[index]));
    }
}

/* ---------------------------------------------------------------------------
 * Encoding
 * ------------------------------------------------------------------------- */

typedef struct texels {
    float target[16][3]; /* u-space targets: centre of the u range giving each half */
    uint16_t half[16][3];
} texels;

/* Principal-axis endpoints of the texels in `mask` (u space). */
static void fit_endpoints(const texels *t, uint16_t mask, float e0[3], float e1[3]) {
    float mean[3] = {0, 0, 0};
    int n = 0;
    for (int i = 0; i < 16; i++) {
        if (!(mask & (1u << i)))
            continue;
        for (int c = 0; c < 3; c++)
            mean[c] += t->target[i][c];
        n++;
    }
    if (n == 0) {
        memset(e0, 0, 3 * sizeof(float));
        memset(e1, 0, 3 * sizeof(float));
        return;
    }
    for (int c = 0; c < 3; c++)
        mean[c] /= (float)n;
    float cov[6] = {0}; /* xx xy xz yy yz zz */
    for (int i = 0; i < 16; i++) {
        if (!(mask & (1u << i)))
            continue;
        float d[3] = {t->target[i][0] - mean[0], t->target[i][1] - mean[1],
                      t->target[i][2] - mean[2]};
        cov[0] += d[0] * d[0];
        cov[1] += d[0] * d[1];
        cov[2] += d[0] * d[2];
        cov[3] += d[1] * d[1];
        cov[4] += d[1] * d[2];
        cov[5] += d[2] * d[2];
    }
    float axis[3] = {1.0f, 1.0f, 1.0f};
    for (int iter = 0; iter < 8; iter++) {
        float v[3] = {cov[0] * axis[0] + cov[1] * axis[1] + cov[2] * axis[2],
                      cov[1] * axis[0] + cov[3] * axis[1] + cov[4] * axis[2],
                      cov[2] * axis[0] + cov[4] * axis[1] + cov[5] * axis[2]};
        float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(length > 1e-12f))
            break;
        for (int c = 0; c < 3; c++)
            axis[c] = v[c] / length;
    }
    float lo = 0.0f, hi = 0.0f;
    for (int i = 0; i < 16; i++) {
        if (!(mask & (1u << i)))
            continue;
        float p = 0.0f;
        for (int c = 0; c < 3; c++)
            p += (t->target[i][c] - mean[c]) * axis[c];
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
    }
    for (int c = 0; c < 3; c++) {
        float a = mean[c] + lo * axis[c], b = mean[c] + hi * axis[c];
        e0[c] = a < 0.0f ? 0.0f : a > 65535.0f ? 65535.0f : a;
        e1[c] = b < 0.0f ? 0.0f : b > 65535.0f ? 65535.0f : b;
    }
}

/* The quantised value (endpoint_bits) whose unquantisation is closest to u. */
static int32_t quantize(float u, unsigned bits) {
    int32_t max = (1 << bits) - 1;
    if (bits >= 16)
        return u <= 0.0f ? 0 : u >= 65535.0f ? 65535 : (int32_t)lrintf(u);
    int32_t guess = (int32_t)(u * (float)(1 << bits) / 65536.0f);
    int32_t best = 0;
    float best_error = INFINITY;
    for (int32_t x = guess - 1; x <= guess + 1; x++) {
        if (x < 0 || x > max)
            continue;
        float error = fabsf((float)unquantize(x, bits) - u);
        if (error < best_error) {
            best_error = error;
            best = x;
        }
    }
    return best;
}

typedef struct candidate {
    int mode;
    unsigned partition;
    int32_t ends[4][3]; /* quantised, absolute */
    uint8_t index[16];
    double error;
} candidate;

/* Chooses every texel's index against the decoder's palette; returns the
 * squared error in half bits. */
static double select_indices(const texels *t, const bc6h_mode *mode, unsigned partition,
                             const int32_t ends[4][3], uint8_t index[16]) {
    unsigned count = mode->two_subsets ? 8 : 16;
    const uint8_t *weights = mode->two_subsets ? weights3 : weights4;
    uint16_t palette[2][16][3];
    int subsets = mode->two_subsets ? 2 : 1;
    for (int s = 0; s < subsets; s++) {
        int32_t a[3], b[3];
        for (int c = 0; c < 3; c++) {
            a[c] = unquantize(ends[s * 2][c], mode->endpoint_bits);
            b[c] = unquantize(ends[s * 2 + 1][c], mode->endpoint_bits);
        }
        for (unsigned k = 0; k < count; k++)
            for (int c = 0; c < 3; c++)
                palette[s][k][c] = interpolate(a[c], b[c], weights[k]);
    }
    double total = 0.0;
    for (unsigned i = 0; i < 16; i++) {
        unsigned s = mode->two_subsets ? (partitions[partition] >> i) & 1u : 0;
        double best = INFINITY;
        unsigned best_k = 0;
        for (unsigned k = 0; k < count; k++) {
            double error = 0.0;
            for (int c = 0; c < 3; c++) {
                double d = (double)palette[s][k][c] - (double)t->half[i][c];
                error += d * d;
            }
            if (error < best) {
                best = error;
                best_k = k;
            }
        }
        index[i] = (uint8_t)best_k;
        total += best;
    }
    return total;
}

/* Least-squares endpoints (u space) for the chosen indices of one subset. */
static bool refit_subset(const texels *t, const bc6h_mode *mode, unsigned partition,
                         unsigned subset, const uint8_t index[16], float e0[3], float e1[3]) {
    const uint8_t *weights = mode->two_subsets ? weights3 : weights4;
    double aa = 0, ab = 0, bb = 0, ax[3] = {0}, bx[3] = {0};
    for (unsigned i = 0; i < 16; i++) {
        unsigned s = mode->two_subsets ? (partitions[partition] >> i) & 1u : 0;
        if (s != subset)
            continue;
        double w = weights[index[i]] / 64.0, v = 1.0 - w;
        aa += v * v;
        ab += v * w;
        bb += w * w;
        for (int c = 0; c < 3; c++) {
            ax[c] += v * t->target[i][c];
            bx[c] += w * t->target[i][c];
        }
    }
    double det = aa * bb - ab * ab;
    if (fabs(det) < 1e-9)
        return false;
    for (int c = 0; c < 3; c++) {
        double a = (ax[c] * bb - bx[c] * ab) / det, b = (bx[c] * aa - ax[c] * ab) / det;
        e0[c] = (float)(a < 0 ? 0 : a > 65535 ? 65535 : a);
        e1[c] = (float)(b < 0 ? 0 : b > 65535 ? 65535 : b);
    }
    return true;
}

/* Fixes the anchors (their top index bit must be 0) by swapping a subset's
 * endpoints, which reverses its palette exactly (the weights are symmetric),
 * then checks the deltas of transformed modes. False when they do not fit. */
static bool finish_candidate(const bc6h_mode *mode, candidate *c) {
    unsigned count = mode->two_subsets ? 8 : 16;
    int subsets = mode->two_subsets ? 2 : 1;
    for (int s = 0; s < subsets; s++) {
        unsigned anchor = s == 0 ? 0 : anchor2[c->partition];
        if (c->index[anchor] < count / 2)
            continue;
        for (int ch = 0; ch < 3; ch++) {
            int32_t tmp = c->ends[s * 2][ch];
            c->ends[s * 2][ch] = c->ends[s * 2 + 1][ch];
            c->ends[s * 2 + 1][ch] = tmp;
        }
        for (unsigned i = 0; i < 16; i++) {
            unsigned si = mode->two_subsets ? (partitions[c->partition] >> i) & 1u : 0;
            if (si == (unsigned)s)
                c->index[i] = (uint8_t)(count - 1 - c->index[i]);
        }
    }
    if (!mode->transformed)
        return true;
    for (int e = 1; e < subsets * 2; e++) {
        for (int ch = 0; ch < 3; ch++) {
            int32_t delta = c->ends[e][ch] - c->ends[0][ch];
            int32_t limit = 1 << (mode->delta_bits[ch] - 1);
            if (delta < -limit || delta >= limit)
                return false;
        }
    }
    return true;
}

/* Whatever endpoint ends up as the base, transformed endpoints must lie
 * within the delta range of it: a spread of more than twice that range per
 * channel can never fit. */
static bool deltas_can_fit(const bc6h_mode *mode, const candidate *c) {
    if (!mode->transformed)
        return true;
    int count = mode->two_subsets ? 4 : 2;
    for (int ch = 0; ch < 3; ch++) {
        int32_t lo = c->ends[0][ch], hi = lo;
        for (int e = 1; e < count; e++) {
            lo = c->ends[e][ch] < lo ? c->ends[e][ch] : lo;
            hi = c->ends[e][ch] > hi ? c->ends[e][ch] : hi;
        }
        if (hi - lo > (1 << mode->delta_bits[ch]) - 1)
            return false;
    }
    return true;
}

static void try_mode(const texels *t, int m, unsigned partition, int passes, candidate *best) {
    const bc6h_mode *mode = &modes[m];
    candidate c = {.mode = m, .partition = partition};
    int subsets = mode->two_subsets ? 2 : 1;
    float ends_f[4][3];
    for (int s = 0; s < subsets; s++) {
        uint16_t mask = mode->two_subsets
                            ? (uint16_t)(s ? partitions[partition] : ~partitions[partition])
                            : 0xFFFFu;
        fit_endpoints(t, mask, ends_f[s * 2], ends_f[s * 2 + 1]);
    }
    for (int pass = 0;; pass++) {
        for (int e = 0; e < subsets * 2; e++)
            for (int ch = 0; ch < 3; ch++)
                c.ends[e][ch] = quantize(ends_f[e][ch], mode->endpoint_bits);
        if (!deltas_can_fit(mode, &c))
            break; /* cheap reject before choosing indices */
        c.error = select_indices(t, mode, partition, (const int32_t(*)[3])c.ends, c.index);
        if (c.error < best->error) {
            candidate done = c;
            if (finish_candidate(mode, &done))
                *best = done;
        }
        if (pass >= passes || c.error == 0.0)
            break;
        bool changed = false;
        for (int s = 0; s < subsets; s++)
            changed |= refit_subset(t, mode, partition, (unsigned)s, c.index, ends_f[s * 2],
                                    ends_f[s * 2 + 1]);
        if (!changed)
            break;
    }
}

/* How well two principal axes fit a partition (smaller is better): the
 * energy off each subset's axis, without quantisation. */
static float partition_residual(const texels *t, unsigned partition) {
    float total = 0.0f;
    for (int s = 0; s < 2; s++) {
        uint16_t mask = (uint16_t)(s ? partitions[partition] : ~partitions[partition]);
        float e0[3], e1[3];
        fit_endpoints(t, mask, e0, e1);
        float axis[3] = {e1[0] - e0[0], e1[1] - e0[1], e1[2] - e0[2]};
        float length2 = axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2];
        for (int i = 0; i < 16; i++) {
            if (!(mask & (1u << i)))
                continue;
            float d[3] = {t->target[i][0] - e0[0], t->target[i][1] - e0[1],
                          t->target[i][2] - e0[2]};
            float along = length2 > 0.0f
                              ? (d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2]) / length2
                              : 0.0f;
            along = along < 0.0f ? 0.0f : along > 1.0f ? 1.0f : along;
            for (int c = 0; c < 3; c++) {
                float r = d[c] - along * axis[c];
                total += r * r;
            }
        }
    }
    return total;
}

static void write_block(const candidate *c, uint8_t out[16]) {
    const bc6h_mode *mode = &modes[c->mode];
    memset(out, 0, 16);
    for (unsigned b = 0; b < mode->value_bits; b++)
        put_bit(out, b, (mode->value >> b) & 1u);
    uint32_t fields[PB + 1] = {0};
    int count = mode->two_subsets ? 4 : 2;
    uint32_t mask = (1u << mode->endpoint_bits) - 1u;
    for (int e = 0; e < count; e++) {
        for (int ch = 0; ch < 3; ch++) {
            uint32_t value = (uint32_t)c->ends[e][ch];
            if (e > 0 && mode->transformed)
                value = (uint32_t)(c->ends[e][ch] - c->ends[0][ch]) &
                        ((1u << mode->delta_bits[ch]) - 1u);
            fields[e * 3 + ch] = value & mask;
        }
    }
    fields[PB] = c->partition;
    unsigned at = walk_layout(mode->layout, mode->value_bits, out, fields, true);
    unsigned anchor = mode->two_subsets ? anchor2[c->partition] : 0;
    for (unsigned i = 0; i < 16; i++) {
        unsigned bits = index_bits_at(mode->two_subsets, i, anchor);
        for (unsigned b = 0; b < bits; b++)
            put_bit(out, at + b, (c->index[i] >> b) & 1u);
        at += bits;
    }
}

void bc6h_encode_block(const float rgb[48], block_quality quality, uint8_t out[16]) {
    texels t;
    for (int i = 0; i < 16; i++) {
        for (int c = 0; c < 3; c++) {
            float v = rgb[i * 3 + c];
            if (!(v > 0.0f)) /* negative and NaN */
                v = 0.0f;
            uint16_t h = block_float_to_half(v); /* clamps to 65504 */
            t.half[i][c] = h;
            t.target[i][c] = ((float)h + 0.5f) * 64.0f / 31.0f;
            if (t.target[i][c] > 65535.0f)
                t.target[i][c] = 65535.0f;
        }
    }
    int passes = quality == BLOCK_QUALITY_FAST ? 0 : quality == BLOCK_QUALITY_NORMAL ? 1 : 2;
    candidate best = {.error = INFINITY};
    for (int m = 10; m < 14; m++) /* one subset: 10, 11, 12 and 16 bits */
        try_mode(&t, m, 0, passes, &best);
    unsigned shortlist = quality == BLOCK_QUALITY_FAST     ? 0
                         : quality == BLOCK_QUALITY_NORMAL ? 2
                                                           : 8;
    /* Two subsets only when one leaves visible error: above one half-bit step
     * per channel and texel on average (smooth HDR rarely needs them). */
    if (shortlist > 0 && best.error > 48.0) {
        float residual[32];
        for (unsigned p = 0; p < 32; p++)
            residual[p] = partition_residual(&t, p);
        for (unsigned n = 0; n < shortlist; n++) {
            unsigned pick = 0;
            for (unsigned p = 1; p < 32; p++)
                if (residual[p] < residual[pick])
                    pick = p;
            residual[pick] = INFINITY;
            for (int m = 0; m < 10; m++)
                try_mode(&t, m, pick, passes, &best);
        }
    }
    write_block(&best, out);
}
