/*
 * uastc_bc1.c — UASTC into BC1 and BC3 (uastc_transcode_etc.h): a small
 * real-time BC1 fit and a BC4 alpha fit, on a block's decoded texels.
 *
 * BC1 (Khronos Data Format 1.3, "S3TC"): two 565 endpoints and 2-bit
 * selectors; always the 4-colour mode (colour0 > colour1, or both equal with
 * every selector 0), so the block decodes the same as BC1 RGB, BC1 RGBA and
 * BC3's colour half. Palettes are the specification's exact values rounded
 * to 8 bits. Which fit follows the block's BC1 hints:
 *   hint 0: subset 0's endpoints, quantised to 565, are good enough;
 *   hint 1: the first plane's weights, rounded to BC1's four steps, are good
 *           selectors: least squares gives the endpoints;
 *   neither: the principal axis of the texels gives them.
 * Then every texel takes its closest palette entry, and least squares on
 * those selectors is kept where it lowers the error. One colour gets the best
 * 565 pair for it, channel by channel.
 * BC4 (BC3's alpha, "RGTC"): the 8-value mode from the alpha range, refined
 * by least squares.
 */
#include <math.h>
#include <string.h>

#include "common/uastc_transcode_etc.h"

/* ---- BC1 ----------------------------------------------------------------------- */

static const int channel_max[3] = {31, 63, 31};

static int unorm(int v, int max) {
    return (v * 255 + max / 2) / max;
}

/* (2a + b) / 3 of the unorm values a / max and b / max, as 8 bits. */
static int unorm_third(int a, int b, int max) {
    return (255 * (2 * a + b) + (3 * max) / 2) / (3 * max);
}

typedef struct bc1_fit {
    int ends[2][3]; /* 565 fields of colour0 and colour1 */
    uint8_t sel[16];
    uint32_t error;
} bc1_fit;

static void bc1_palette(const bc1_fit *f, int pal[4][3]) {
    for (int c = 0; c < 3; c++) {
        pal[0][c] = unorm(f->ends[0][c], channel_max[c]);
        pal[1][c] = unorm(f->ends[1][c], channel_max[c]);
        pal[2][c] = unorm_third(f->ends[0][c], f->ends[1][c], channel_max[c]);
        pal[3][c] = unorm_third(f->ends[1][c], f->ends[0][c], channel_max[c]);
    }
}

/* Every texel to its closest entry; sets f->sel and f->error. */
static void bc1_assign(const uint8_t rgba[64], bc1_fit *f) {
    int pal[4][3];
    bc1_palette(f, pal);
    f->error = 0;
    for (unsigned i = 0; i < 16; i++) {
        uint32_t best_e = UINT32_MAX;
        for (unsigned s = 0; s < 4; s++) {
            uint32_t e = 0;
            for (int c = 0; c < 3; c++) {
                int d = pal[s][c] - rgba[4 * i + c];
                e += (uint32_t)(d * d);
            }
            if (e < best_e) {
                best_e = e;
                f->sel[i] = (uint8_t)s;
            }
        }
        f->error += best_e;
    }
}

static int quantise(float v, int max) {
    int q = (int)lrintf(v * (float)max / 255.0f);
    return q < 0 ? 0 : q > max ? max : q;
}

/* Endpoints minimising the squared error for the selectors (each selector
 * is a fixed point between colour0 and colour1); false when singular. */
static bool bc1_least_squares(const uint8_t rgba[64], const uint8_t sel[16], int ends[2][3]) {
    static const float toward1[4] = {0.0f, 1.0f, 1.0f / 3.0f, 2.0f / 3.0f};
    float aa = 0, ab = 0, bb = 0, ax[3] = {0, 0, 0}, bx[3] = {0, 0, 0};
    for (unsigned i = 0; i < 16; i++) {
        float t = toward1[sel[i] & 3u], s = 1.0f - t;
        aa += s * s;
        ab += s * t;
        bb += t * t;
        for (int c = 0; c < 3; c++) {
            ax[c] += s * rgba[4 * i + c];
            bx[c] += t * rgba[4 * i + c];
        }
    }
    float det = aa * bb - ab * ab;
    if (fabsf(det) < 1e-4f)
        return false;
    for (int c = 0; c < 3; c++) {
        ends[0][c] = quantise((ax[c] * bb - bx[c] * ab) / det, channel_max[c]);
        ends[1][c] = quantise((bx[c] * aa - ax[c] * ab) / det, channel_max[c]);
    }
    return true;
}

/* Least squares on the current selectors, kept while it helps (twice at most). */
static void bc1_refine(const uint8_t rgba[64], bc1_fit *f) {
    for (int pass = 0; pass < 2; pass++) {
        bc1_fit trial = *f;
        if (!bc1_least_squares(rgba, f->sel, trial.ends))
            return;
        bc1_assign(rgba, &trial);
        if (trial.error >= f->error)
            return;
        *f = trial;
    }
}

/* Endpoints at the ends of the texels' principal axis. */
static void bc1_axis_fit(const uint8_t rgba[64], bc1_fit *f) {
    float mean[3] = {0, 0, 0}, cov[6] = {0, 0, 0, 0, 0, 0};
    for (unsigned i = 0; i < 16; i++)
        for (int c = 0; c < 3; c++)
            mean[c] += rgba[4 * i + c] / 16.0f;
    for (unsigned i = 0; i < 16; i++) {
        float d[3];
        for (int c = 0; c < 3; c++)
            d[c] = rgba[4 * i + c] - mean[c];
        cov[0] += d[0] * d[0];
        cov[1] += d[0] * d[1];
        cov[2] += d[0] * d[2];
        cov[3] += d[1] * d[1];
        cov[4] += d[1] * d[2];
        cov[5] += d[2] * d[2];
    }
    float axis[3] = {1.0f, 1.0f, 1.0f};
    for (int it = 0; it < 6; it++) { /* power iteration */
        float next[3] = {cov[0] * axis[0] + cov[1] * axis[1] + cov[2] * axis[2],
                         cov[1] * axis[0] + cov[3] * axis[1] + cov[4] * axis[2],
                         cov[2] * axis[0] + cov[4] * axis[1] + cov[5] * axis[2]};
        float len = sqrtf(next[0] * next[0] + next[1] * next[1] + next[2] * next[2]);
        if (len < 1e-6f)
            break;
        for (int c = 0; c < 3; c++)
            axis[c] = next[c] / len;
    }
    float lo = 1e30f, hi = -1e30f;
    for (unsigned i = 0; i < 16; i++) {
        float t = 0;
        for (int c = 0; c < 3; c++)
            t += (rgba[4 * i + c] - mean[c]) * axis[c];
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    for (int c = 0; c < 3; c++) {
        f->ends[0][c] = quantise(mean[c] + hi * axis[c], channel_max[c]);
        f->ends[1][c] = quantise(mean[c] + lo * axis[c], channel_max[c]);
    }
    bc1_assign(rgba, f);
}

/* hint 1: the first plane's weights (0..64) to BC1's nearest step. */
static void bc1_weights_fit(const uint8_t rgba[64], const uastc_logical *b, bc1_fit *f) {
    const uastc_mode_desc *d = uastc_mode_info(b->mode);
    uint8_t sel[16];
    for (unsigned i = 0; i < 16; i++) {
        unsigned w = uastc_unquant_weight(d->weight_bits, b->weights[i * d->planes]);
        /* steps 0, 1/3, 2/3, 1 of the way to colour1: selectors 0, 2, 3, 1 */
        sel[i] = w < 11 ? 0 : w < 32 ? 2 : w < 54 ? 3 : 1;
    }
    if (!bc1_least_squares(rgba, sel, f->ends))
        bc1_axis_fit(rgba, f);
    else
        bc1_assign(rgba, f);
}

/* hint 0: subset 0's endpoints as they are (luminance-alpha: grey). */
static void bc1_direct_fit(const uint8_t rgba[64], const uastc_logical *b, bc1_fit *f) {
    const uastc_mode_desc *d = uastc_mode_info(b->mode);
    for (unsigned e = 0; e < 2; e++)
        for (int c = 0; c < 3; c++) {
            unsigned k = d->comps == 2 ? 0u : (unsigned)c;
            int v = uastc_unquant_endpoint(d->endpoint_ise, b->endpoints[2 * k + e]);
            f->ends[e][c] = quantise((float)v, channel_max[c]);
        }
    bc1_assign(rgba, f);
}

/* The best (a, b) for one channel's value v when every texel takes
 * (2a + b) / 3: a near v, b a few steps around (the unit test checks this
 * against every pair). */
static void single_channel(int v, int max, int *best_a, int *best_b) {
    int q = (v * max + 127) / 255, best_e = 1 << 30;
    for (int a = q - 2; a <= q + 2; a++)
        for (int b = a - 4; b <= a + 4; b++) {
            if (a < 0 || a > max || b < 0 || b > max)
                continue;
            int d = unorm_third(a, b, max) - v;
            if (d * d < best_e) {
                best_e = d * d;
                *best_a = a;
                *best_b = b;
            }
        }
}

static void bc1_single_colour(const uint8_t rgb[3], bc1_fit *f) {
    for (int c = 0; c < 3; c++)
        single_channel(rgb[c], channel_max[c], &f->ends[0][c], &f->ends[1][c]);
    memset(f->sel, 2, sizeof f->sel);
}

static uint16_t pack565(const int e[3]) {
    return (uint16_t)(e[0] << 11 | e[1] << 5 | e[2]);
}

/* Writes the block in the 4-colour mode: colour0 > colour1 (swapping the
 * endpoints swaps selectors 0/1 and 2/3), or equal with all selectors 0. */
static void bc1_write(const bc1_fit *f, uint8_t out[8], uint8_t decoded[64]) {
    uint16_t c0 = pack565(f->ends[0]), c1 = pack565(f->ends[1]);
    bool swap = c0 < c1, equal = c0 == c1;
    uint16_t hi = swap ? c1 : c0, lo = swap ? c0 : c1;
    out[0] = (uint8_t)hi;
    out[1] = (uint8_t)(hi >> 8);
    out[2] = (uint8_t)lo;
    out[3] = (uint8_t)(lo >> 8);
    int pal[4][3];
    bc1_palette(f, pal);
    uint32_t bits = 0;
    for (unsigned i = 0; i < 16; i++) {
        unsigned s = equal ? 0u : f->sel[i] ^ (swap ? 1u : 0u);
        bits |= (uint32_t)s << (2 * i);
        if (decoded != NULL)
            for (int c = 0; c < 3; c++)
                decoded[4 * i + c] = (uint8_t)pal[equal ? 0 : f->sel[i]][c];
    }
    for (unsigned k = 0; k < 4; k++)
        out[4 + k] = (uint8_t)(bits >> (8 * k));
}

static bool one_colour(const uint8_t rgba[64]) {
    for (unsigned i = 1; i < 16; i++)
        if (memcmp(rgba + 4 * i, rgba, 3) != 0)
            return false;
    return true;
}

void uastc_bc1_from_texels(const uint8_t rgba[64], const uastc_logical *b, const uastc_hints *h,
                           uint8_t out[8], uint8_t decoded[64]) {
    bc1_fit f;
    if (one_colour(rgba)) {
        bc1_single_colour(rgba, &f);
    } else {
        bool direct = b != NULL && h != NULL && b->mode != UASTC_MODE_SOLID && h->bc1_direct;
        bool weights = b != NULL && h != NULL && b->mode != UASTC_MODE_SOLID && h->bc1_weights;
        if (direct)
            bc1_direct_fit(rgba, b, &f);
        else if (weights)
            bc1_weights_fit(rgba, b, &f);
        else
            bc1_axis_fit(rgba, &f);
        if (!direct)
            bc1_refine(rgba, &f);
    }
    bc1_write(&f, out, decoded);
}

/* ---- BC4 ----------------------------------------------------------------------- */

/* The 8-value mode's palette (a0 > a1). */
static void bc4_palette(int a0, int a1, int pal[8]) {
    pal[0] = a0;
    pal[1] = a1;
    for (int i = 1; i <= 6; i++)
        pal[i + 1] = ((7 - i) * a0 + i * a1 + 3) / 7;
}

static uint32_t bc4_assign(const uint8_t rgba[64], int a0, int a1, uint8_t sel[16]) {
    int pal[8];
    bc4_palette(a0, a1, pal);
    uint32_t total = 0;
    for (unsigned i = 0; i < 16; i++) {
        uint32_t best = UINT32_MAX;
        for (unsigned k = 0; k < 8; k++) {
            int d = pal[k] - rgba[4 * i + 3];
            if ((uint32_t)(d * d) < best) {
                best = (uint32_t)(d * d);
                sel[i] = (uint8_t)k;
            }
        }
        total += best;
    }
    return total;
}

/* BC4 of the texels' alpha into out[0..7]. */
static void bc4_alpha(const uint8_t rgba[64], uint8_t out[8]) {
    int lo = 255, hi = 0;
    for (unsigned i = 0; i < 16; i++) {
        lo = rgba[4 * i + 3] < lo ? rgba[4 * i + 3] : lo;
        hi = rgba[4 * i + 3] > hi ? rgba[4 * i + 3] : hi;
    }
    uint8_t sel[16] = {0};
    int a0 = hi, a1 = lo;
    if (lo != hi) {
        uint32_t error = bc4_assign(rgba, a0, a1, sel);
        /* least squares on the selectors: entry k lies (k - 1) / 7 of the way */
        float aa = 0, ab = 0, bb = 0, ax = 0, bx = 0;
        for (unsigned i = 0; i < 16; i++) {
            float t = sel[i] == 0 ? 0.0f : sel[i] == 1 ? 1.0f : (float)(sel[i] - 1) / 7.0f;
            float s = 1.0f - t;
            aa += s * s;
            ab += s * t;
            bb += t * t;
            ax += s * rgba[4 * i + 3];
            bx += t * rgba[4 * i + 3];
        }
        float det = aa * bb - ab * ab;
        if (fabsf(det) > 1e-4f) {
            long n0 = lrintf((ax * bb - bx * ab) / det), n1 = lrintf((bx * aa - ax * ab) / det);
            n0 = n0 < 0 ? 0 : n0 > 255 ? 255 : n0;
            n1 = n1 < 0 ? 0 : n1 > 255 ? 255 : n1;
            uint8_t sel2[16];
            if (n0 > n1 && bc4_assign(rgba, (int)n0, (int)n1, sel2) < error) {
                a0 = (int)n0;
                a1 = (int)n1;
                memcpy(sel, sel2, sizeof sel);
            }
        }
    }
    out[0] = (uint8_t)a0;
    out[1] = (uint8_t)a1;
    uint64_t bits = 0;
    for (unsigned i = 0; i < 16; i++)
        bits |= (uint64_t)sel[i] << (3 * i);
    for (unsigned k = 0; k < 6; k++)
        out[2 + k] = (uint8_t)(bits >> (8 * k));
}

/* ---- blocks -------------------------------------------------------------------- */

static uastc_status bc1_of(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb, uint8_t rgba[64],
                           uint8_t colour[8]) {
    uastc_logical b;
    uastc_status status = uastc_unpack(uastc, &b);
    if (status != UASTC_OK)
        return status;
    uastc_hints h;
    uastc_hints_read(b.mode, b.hints, &h);
    uastc_decode_logical(&b, srgb, rgba);
    uastc_bc1_from_texels(rgba, &b, &h, colour, NULL);
    return UASTC_OK;
}

uastc_status uastc_block_to_bc1(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb, uint8_t out[8]) {
    uint8_t rgba[64];
    return bc1_of(uastc, srgb, rgba, out);
}

uastc_status uastc_block_to_bc3(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb,
                                uint8_t out[16]) {
    uint8_t rgba[64];
    uastc_status status = bc1_of(uastc, srgb, rgba, out + 8);
    if (status == UASTC_OK)
        bc4_alpha(rgba, out);
    return status;
}
