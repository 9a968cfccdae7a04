/*
 * bc1.c — BC1 (opaque and 1-bit alpha), BC3, BC4 and BC5 encoders and
 * decoders, written from the Khronos Data Format Specification (S3TC and
 * RGTC chapters).
 *
 * The specification gives decoded values in exact arithmetic: a 565 endpoint
 * is the unorm value c / 31 (or / 63), an interpolated colour is
 * (2 * RGB0 + RGB1) / 3 of those, a BC4 value (6 * RED0 + RED1) / 7 and so on.
 * The decoders here round those exact values to the nearest 8-bit level, and
 * the encoders measure their error against the very same palettes, so what
 * the encoder optimises is what the decoder (and the tests) see.
 *
 * Quality levels:
 *   fast    colour: bounding box with the diagonal picked by covariance signs,
 *           as it is and inset by 1/16 ("range fit"), the better of the two;
 *           BC4: min/max endpoints.
 *   normal  colour: principal axis (power iteration), least-squares endpoint
 *           refinement while it helps, one pass of +-1 steps on each 565
 *           field; the 3-colour mode as well when 1-bit alpha allows it.
 *           BC4: both modes, least-squares refined.
 *   best    colour: inset box and axis as start points, longer refinement, then
 *           +-1 steps (single fields, and a channel of both endpoints shifted
 *           or stretched) until none helps. BC4: exhaustive search of the
 *           endpoint pairs within 6 of the refined ones, both modes.
 * Blocks of one colour (one value for BC4) take exact or optimal endpoints
 * at every level. Opaque BC1 and BC3 colour always use the 4-colour mode
 * (encode.h), so no opaque texel can decode transparent.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cook/encode/encode.h"

/* ---- the specification's arithmetic ------------------------------------------------------- */

/* Largest value of the 5-, 6- and 5-bit R, G, B fields of a 565 colour. */
static const int k_channel_max[3] = {31, 63, 31};

/* Nearest 8-bit level to the unorm value x / max. */
static int unorm_expand(int x, int max) {
    return (x * 255 + max / 2) / max;
}

/* Nearest 8-bit level to (2 * a + b) / 3 in unorm: 255 (2a + b) / (3 max).
 * 3 * max is odd, so there are no ties. */
static int unorm_third(int a, int b, int max) {
    return (255 * (2 * a + b) + (3 * max) / 2) / (3 * max);
}

/* Nearest 8-bit level to (a + b) / 2 in unorm, ties rounded up. */
static int unorm_half(int a, int b, int max) {
    return (255 * (a + b) + max) / (2 * max);
}

/* A 565 colour as its three fields: r 0..31, g 0..63, b 0..31. */
typedef struct q565 {
    int c[3];
} q565;

static uint16_t q565_pack(const q565 *q) {
    return (uint16_t)(q->c[0] << 11 | q->c[1] << 5 | q->c[2]);
}

static q565 q565_unpack(uint16_t v) {
    q565 q = {{v >> 11, (v >> 5) & 63, v & 31}};
    return q;
}

/* One channel of the colour palette; `max` is a constant at every call, so
 * the divisions become multiplications (this is the encoder's inner loop). */
static inline void channel_palette(int a, int b, int max, bool three, int pal[4][3], int ch) {
    pal[0][ch] = unorm_expand(a, max);
    pal[1][ch] = unorm_expand(b, max);
    if (three) {
        pal[2][ch] = unorm_half(a, b, max);
        pal[3][ch] = 0;
    } else {
        pal[2][ch] = unorm_third(a, b, max);
        pal[3][ch] = unorm_third(b, a, max);
    }
}

/* The four palette colours of a colour block. `three`: the 3-colour mode
 * (entry 2 the midpoint, entry 3 black, transparent in BC1 with alpha). */
static void colour_palette(const q565 *e0, const q565 *e1, bool three, int pal[4][3]) {
    channel_palette(e0->c[0], e1->c[0], 31, three, pal, 0);
    channel_palette(e0->c[1], e1->c[1], 63, three, pal, 1);
    channel_palette(e0->c[2], e1->c[2], 31, three, pal, 2);
}

/* BC4 palette: 8 values when a0 > a1, else 6 values plus 0 and 255. */
static void bc4_palette(int a0, int a1, int pal[8]) {
    pal[0] = a0;
    pal[1] = a1;
    if (a0 > a1) {
        for (int i = 1; i <= 6; i++)
            pal[i + 1] = ((7 - i) * a0 + i * a1 + 3) / 7;
    } else {
        for (int i = 1; i <= 4; i++)
            pal[i + 1] = ((5 - i) * a0 + i * a1 + 2) / 5;
        pal[6] = 0;
        pal[7] = 255;
    }
}

static uint64_t load_le(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void store_le(uint8_t *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- decoders ------------------------------------------------------------------------------ */

/* Colour half of BC1/BC3. `bc1_rules`: c0 <= c1 selects the 3-colour mode
 * with transparent black; BC3 always interpolates four colours. */
static void decode_colour(const uint8_t in[8], bool bc1_rules, uint8_t rgba[64]) {
    uint16_t c0 = (uint16_t)load_le(in, 2), c1 = (uint16_t)load_le(in + 2, 2);
    uint32_t bits = (uint32_t)load_le(in + 4, 4);
    q565 e0 = q565_unpack(c0), e1 = q565_unpack(c1);
    bool three = bc1_rules && c0 <= c1;
    int pal[4][3];
    colour_palette(&e0, &e1, three, pal);
    for (int i = 0; i < 16; i++) {
        int code = (int)(bits >> (2 * i)) & 3;
        for (int ch = 0; ch < 3; ch++)
            rgba[i * 4 + ch] = (uint8_t)pal[code][ch];
        rgba[i * 4 + 3] = (three && code == 3) ? 0 : 255;
    }
}

void bc1_decode_block(const uint8_t in[8], uint8_t rgba[64]) {
    decode_colour(in, true, rgba);
}

/* Writes the 16 decoded values at `out[0]`, `out[stride]`, ... */
static void decode_bc4_strided(const uint8_t in[8], uint8_t *out, int stride) {
    int pal[8];
    bc4_palette(in[0], in[1], pal);
    uint64_t bits = load_le(in + 2, 6);
    for (int i = 0; i < 16; i++)
        out[i * stride] = (uint8_t)pal[(bits >> (3 * i)) & 7];
}

void bc4_decode_block(const uint8_t in[8], uint8_t values[16]) {
    decode_bc4_strided(in, values, 1);
}

void bc3_decode_block(const uint8_t in[16], uint8_t rgba[64]) {
    decode_colour(in + 8, false, rgba);
    decode_bc4_strided(in, rgba + 3, 4);
}

void bc5_decode_block(const uint8_t in[16], uint8_t rgba[64]) {
    decode_bc4_strided(in, rgba, 4);
    decode_bc4_strided(in + 8, rgba + 1, 4);
    for (int i = 0; i < 16; i++) {
        rgba[i * 4 + 2] = 0;
        rgba[i * 4 + 3] = 255;
    }
}

/* ---- colour encoder ------------------------------------------------------------------------ */

/* The texels a colour block must reproduce: all 16, or the opaque ones when
 * 1-bit alpha makes the others transparent. */
typedef struct texels {
    int n;
    int px[16][3];
    float soa[3][16]; /* px again, channel by channel */
    uint8_t pos[16];  /* block position of px[i] */
} texels;

/* One candidate encoding: endpoints, mode, and per-texel palette entries
 * (in texels order) with their total squared error. */
typedef struct colour_fit {
    q565 e0, e1;
    bool three;
    uint8_t idx[16];
    int err;
} colour_fit;

static int sq(int x) {
    return x * x;
}

/* Picks the nearest palette entry for every texel; sets idx and err. Black
 * (entry 3 of the 3-colour mode) is transparent, so never used for texels.
 * Floats hold the integer distances exactly (< 2^24) and let the compiler
 * vectorise the loop over texels. */
static void colour_assign(const texels *t, colour_fit *f) {
    int ipal[4][3];
    colour_palette(&f->e0, &f->e1, f->three, ipal);
    float pal[4][3];
    for (int k = 0; k < 4; k++)
        for (int ch = 0; ch < 3; ch++)
            pal[k][ch] = f->three && k == 3 ? 1e6f : (float)ipal[k][ch];
    /* All 16 lanes (those past t->n hold zeros and are ignored): fixed trip
     * counts the compiler turns into SIMD. */
    float dist[4][16];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 16; i++) {
            float dr = t->soa[0][i] - pal[k][0], dg = t->soa[1][i] - pal[k][1],
                  db = t->soa[2][i] - pal[k][2];
            dist[k][i] = dr * dr + dg * dg + db * db;
        }
    float err = 0;
    for (int i = 0; i < t->n; i++) {
        float best = dist[0][i];
        int best_k = 0;
        for (int k = 1; k < 4; k++) {
            best_k = dist[k][i] < best ? k : best_k;
            best = dist[k][i] < best ? dist[k][i] : best;
        }
        f->idx[i] = (uint8_t)best_k;
        err += best;
    }
    f->err = (int)err;
}

static int quantize_channel(float v, int max) {
    if (v < 0.0f)
        v = 0.0f;
    if (v > 255.0f)
        v = 255.0f;
    return (int)lrintf(v * (float)max / 255.0f);
}

static q565 quantize(const float rgb[3]) {
    q565 q;
    for (int ch = 0; ch < 3; ch++)
        q.c[ch] = quantize_channel(rgb[ch], k_channel_max[ch]);
    return q;
}

/* Position of each palette entry between e0 (0) and e1 (1). */
static const float k_weight4[4] = {0.0f, 1.0f, 1.0f / 3.0f, 2.0f / 3.0f};
static const float k_weight3[4] = {0.0f, 1.0f, 0.5f, 0.0f};

/* Endpoints that minimise the squared error of the current assignment
 * (unquantised); false when the assignment does not determine them. */
static bool colour_least_squares(const texels *t, const colour_fit *f, float a[3], float b[3]) {
    const float *w = f->three ? k_weight3 : k_weight4;
    float aa = 0, ab = 0, bb = 0, ax[3] = {0, 0, 0}, bx[3] = {0, 0, 0};
    for (int i = 0; i < t->n; i++) {
        float wb = w[f->idx[i]], wa = 1.0f - wb;
        aa += wa * wa;
        ab += wa * wb;
        bb += wb * wb;
        for (int ch = 0; ch < 3; ch++) {
            ax[ch] += wa * (float)t->px[i][ch];
            bx[ch] += wb * (float)t->px[i][ch];
        }
    }
    float det = aa * bb - ab * ab;
    if (fabsf(det) < 1e-4f)
        return false;
    for (int ch = 0; ch < 3; ch++) {
        a[ch] = (bb * ax[ch] - ab * bx[ch]) / det;
        b[ch] = (aa * bx[ch] - ab * ax[ch]) / det;
    }
    return true;
}

static bool q565_equal(const q565 *x, const q565 *y) {
    return x->c[0] == y->c[0] && x->c[1] == y->c[1] && x->c[2] == y->c[2];
}

/* Least-squares refinement: refit the endpoints to the assignment, requantise,
 * reassign; keep going while the error falls. */
static void colour_refine(const texels *t, colour_fit *f, int iterations) {
    for (int it = 0; it < iterations && f->err > 0; it++) {
        float a[3], b[3];
        if (!colour_least_squares(t, f, a, b))
            return;
        colour_fit g = *f;
        g.e0 = quantize(a);
        g.e1 = quantize(b);
        if (q565_equal(&g.e0, &f->e0) && q565_equal(&g.e1, &f->e1))
            return;
        colour_assign(t, &g);
        if (g.err >= f->err)
            return;
        *f = g;
    }
}

/* Greedy +-1 steps of the 565 fields while any helps: each field of either
 * endpoint alone, and (`joint`) a channel of both endpoints together, moved
 * the same way (shift) or opposite ways (stretch). */
static void colour_hill_climb(const texels *t, colour_fit *f, int passes, bool joint) {
    static const int moves[8][2] = {{-1, 0},  {1, 0}, {0, -1}, {0, 1},
                                    {-1, -1}, {1, 1}, {-1, 1}, {1, -1}};
    int move_count = joint ? 8 : 4;
    bool improved = true;
    for (int pass = 0; improved && pass < passes && f->err > 0; pass++) {
        improved = false;
        for (int ch = 0; ch < 3; ch++)
            for (int m = 0; m < move_count; m++) {
                colour_fit g = *f;
                g.e0.c[ch] += moves[m][0];
                g.e1.c[ch] += moves[m][1];
                int max = k_channel_max[ch];
                if (g.e0.c[ch] < 0 || g.e0.c[ch] > max || g.e1.c[ch] < 0 || g.e1.c[ch] > max)
                    continue;
                colour_assign(t, &g);
                if (g.err < f->err) {
                    *f = g;
                    improved = true;
                }
            }
    }
}

/* The 565 field pair (a, b) whose entry 2 (2/3 a + 1/3 b, or the midpoint)
 * is nearest to the channel value v. For each a, only the two b around the
 * exact solution can be nearest: the palette value is monotonic in b. */
static void single_channel(int v, int max, bool three, int *best_a, int *best_b) {
    int best = INT32_MAX;
    for (int a = 0; a <= max; a++) {
        /* interp = 255 (2a + b) / (3 max) or 255 (a + b) / (2 max) */
        float exact = three ? (float)v * 2.0f * (float)max / 255.0f - (float)a
                            : (float)v * 3.0f * (float)max / 255.0f - 2.0f * (float)a;
        int b0 = (int)floorf(exact);
        for (int b = b0; b <= b0 + 1; b++) {
            if (b < 0 || b > max)
                continue;
            int value = three ? unorm_half(a, b, max) : unorm_third(a, b, max);
            int d = abs(value - v);
            if (d < best) {
                best = d;
                *best_a = a;
                *best_b = b;
            }
        }
    }
}

/* One colour: every texel on entry 2 (the 1/3 or 1/2 point), which with
 * a == b is also the exact endpoint colour when 565 holds it. */
static void colour_single(const texels *t, bool three, colour_fit *f) {
    f->three = three;
    for (int ch = 0; ch < 3; ch++)
        single_channel(t->px[0][ch], k_channel_max[ch], three, &f->e0.c[ch], &f->e1.c[ch]);
    colour_assign(t, f);
}

static bool texels_one_colour(const texels *t) {
    for (int i = 1; i < t->n; i++)
        if (t->px[i][0] != t->px[0][0] || t->px[i][1] != t->px[0][1] || t->px[i][2] != t->px[0][2])
            return false;
    return true;
}

/* Box start: the bounding box diagonal that follows the colours' trend (signs
 * of the red-green and blue-green covariances), with `inset` moved in by
 * 1/16 of its size at both ends. */
static void bbox_endpoints(const texels *t, bool inset, float hi[3], float lo[3]) {
    int mn[3] = {255, 255, 255}, mx[3] = {0, 0, 0};
    for (int i = 0; i < t->n; i++)
        for (int ch = 0; ch < 3; ch++) {
            if (t->px[i][ch] < mn[ch])
                mn[ch] = t->px[i][ch];
            if (t->px[i][ch] > mx[ch])
                mx[ch] = t->px[i][ch];
        }
    float centre[3], cov_rg = 0, cov_bg = 0;
    for (int ch = 0; ch < 3; ch++)
        centre[ch] = 0.5f * (float)(mn[ch] + mx[ch]);
    for (int i = 0; i < t->n; i++) {
        float dg = (float)t->px[i][1] - centre[1];
        cov_rg += ((float)t->px[i][0] - centre[0]) * dg;
        cov_bg += ((float)t->px[i][2] - centre[2]) * dg;
    }
    for (int ch = 0; ch < 3; ch++) {
        hi[ch] = (float)mx[ch];
        lo[ch] = (float)mn[ch];
    }
    if (cov_rg < 0) {
        hi[0] = (float)mn[0];
        lo[0] = (float)mx[0];
    }
    if (cov_bg < 0) {
        hi[2] = (float)mn[2];
        lo[2] = (float)mx[2];
    }
    if (inset)
        for (int ch = 0; ch < 3; ch++) {
            float d = (hi[ch] - lo[ch]) / 16.0f;
            hi[ch] -= d;
            lo[ch] += d;
        }
}

/* Principal axis of the colours (power iteration on the covariance); the
 * endpoints are the extreme projections onto it. */
static void pca_endpoints(const texels *t, float hi[3], float lo[3]) {
    float mean[3] = {0, 0, 0};
    for (int i = 0; i < t->n; i++)
        for (int ch = 0; ch < 3; ch++)
            mean[ch] += (float)t->px[i][ch];
    for (int ch = 0; ch < 3; ch++)
        mean[ch] /= (float)t->n;
    float cov[3][3] = {{0}};
    for (int i = 0; i < t->n; i++) {
        float d[3];
        for (int ch = 0; ch < 3; ch++)
            d[ch] = (float)t->px[i][ch] - mean[ch];
        for (int r = 0; r < 3; r++)
            for (int c = r; c < 3; c++)
                cov[r][c] += d[r] * d[c];
    }
    cov[1][0] = cov[0][1];
    cov[2][0] = cov[0][2];
    cov[2][1] = cov[1][2];
    /* Start from the covariance column of the largest variance, not from
     * (1,1,1), which e.g. a red-against-green block is orthogonal to. (It is
     * orthogonal to the principal axis only in contrived cases; the axis
     * found then is still a fair start for the refinement.) */
    int start = 0;
    for (int ch = 1; ch < 3; ch++)
        if (cov[ch][ch] > cov[start][start])
            start = ch;
    float axis[3] = {cov[0][start], cov[1][start], cov[2][start]};
    for (int it = 0; it < 8; it++) {
        float v[3], m = 0;
        for (int r = 0; r < 3; r++) {
            v[r] = cov[r][0] * axis[0] + cov[r][1] * axis[1] + cov[r][2] * axis[2];
            if (fabsf(v[r]) > m)
                m = fabsf(v[r]);
        }
        if (m <= 0.0f)
            break;
        for (int r = 0; r < 3; r++)
            axis[r] = v[r] / m;
    }
    float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (len <= 0.0f) {
        bbox_endpoints(t, false, hi, lo);
        return;
    }
    float tmin = INFINITY, tmax = -INFINITY;
    for (int i = 0; i < t->n; i++) {
        float p = 0;
        for (int ch = 0; ch < 3; ch++)
            p += ((float)t->px[i][ch] - mean[ch]) * axis[ch] / len;
        if (p < tmin)
            tmin = p;
        if (p > tmax)
            tmax = p;
    }
    for (int ch = 0; ch < 3; ch++) {
        hi[ch] = mean[ch] + axis[ch] / len * tmax;
        lo[ch] = mean[ch] + axis[ch] / len * tmin;
    }
}

/* Fits one mode from start endpoints at the given quality. */
static void colour_fit_mode(const texels *t, const float hi[3], const float lo[3], bool three,
                            block_quality quality, colour_fit *f) {
    f->three = three;
    f->e0 = quantize(hi);
    f->e1 = quantize(lo);
    colour_assign(t, f);
    if (quality == BLOCK_QUALITY_FAST)
        return;
    bool best = quality == BLOCK_QUALITY_BEST;
    colour_refine(t, f, best ? 8 : 4);
    /* One pass already recovers most of what the hill climb finds. */
    colour_hill_climb(t, f, best ? 64 : 1, best);
}

/* Writes the colour half: orders the endpoints as the chosen mode requires
 * (c0 > c1 for four colours, c0 <= c1 for three) and relabels the entries
 * to match. Positions not in `t` (transparent) take entry 3. */
static void colour_write(const texels *t, const colour_fit *f, uint8_t out[8]) {
    uint16_t c0 = q565_pack(&f->e0), c1 = q565_pack(&f->e1);
    uint8_t relabel[4] = {0, 1, 2, 3};
    if (f->three ? c0 > c1 : c0 < c1) {
        uint16_t swap = c0;
        c0 = c1;
        c1 = swap;
        relabel[0] = 1;
        relabel[1] = 0;
        if (!f->three) {
            relabel[2] = 3;
            relabel[3] = 2;
        }
    } else if (!f->three && c0 == c1) {
        /* One colour: entry 0 decodes to it in either mode. */
        memset(relabel, 0, sizeof relabel);
    }
    uint32_t bits = 0xffffffffu; /* entry 3 everywhere, then the texels */
    for (int i = 0; i < t->n; i++) {
        int shift = 2 * t->pos[i];
        bits = (bits & ~(3u << shift)) | (uint32_t)relabel[f->idx[i]] << shift;
    }
    store_le(out, c0, 2);
    store_le(out + 2, c1, 2);
    store_le(out + 4, bits, 4);
}

static void better(colour_fit *best, const colour_fit *candidate) {
    if (candidate->err < best->err)
        *best = *candidate;
}

/* Encodes the colour half. `alpha_1bit`: texels with alpha < 128 become
 * transparent and the 3-colour mode may be chosen; otherwise always four
 * colours (BC1 opaque, BC3). */
static void encode_colour(const uint8_t rgba[64], bool alpha_1bit, bool bc1_rules,
                          block_quality quality, uint8_t out[8]) {
    texels t = {.n = 0}; /* zeroed: colour_assign reads all 16 lanes */
    for (int i = 0; i < 16; i++) {
        if (alpha_1bit && rgba[i * 4 + 3] < 128)
            continue;
        for (int ch = 0; ch < 3; ch++)
            t.soa[ch][t.n] = t.px[t.n][ch] = rgba[i * 4 + ch];
        t.pos[t.n++] = (uint8_t)i;
    }
    if (t.n == 0) {
        /* c0 = c1 = 0 is the 3-colour mode; entry 3 everywhere: transparent. */
        memset(out, 0, 4);
        memset(out + 4, 0xff, 4);
        return;
    }
    bool must_three = t.n < 16;
    /* BC1 (not BC3's colour half) may also use the 3-colour mode for opaque
     * blocks: its fourth entry is never chosen for a texel (colour_assign). */
    bool may_three = must_three || (bc1_rules && quality != BLOCK_QUALITY_FAST);
    colour_fit best = {.err = INT32_MAX}, f;
    if (texels_one_colour(&t)) {
        if (!must_three) {
            colour_single(&t, false, &f);
            better(&best, &f);
        }
        if (may_three) {
            colour_single(&t, true, &f);
            better(&best, &f);
        }
        colour_write(&t, &best, out);
        return;
    }
    /* Start points. fast: the box as it is (suits blocks of few colours) and
     * inset (range fit: suits smooth ones), the better of both, which costs
     * a fifth of fast's speed and gains 1.4 dB on bench_bc1's images. normal:
     * the principal axis. best: the inset box and the axis (the plain box
     * adds nothing there). The 3-colour mode takes no inset. */
    float hi[3][3], lo[3][3];
    int starts = 0;
    if (quality == BLOCK_QUALITY_FAST || (quality == BLOCK_QUALITY_BEST && must_three)) {
        bbox_endpoints(&t, false, hi[starts], lo[starts]);
        starts++;
    }
    if (quality != BLOCK_QUALITY_NORMAL && !must_three) {
        bbox_endpoints(&t, true, hi[starts], lo[starts]);
        starts++;
    }
    if (quality != BLOCK_QUALITY_FAST) {
        pca_endpoints(&t, hi[starts], lo[starts]);
        starts++;
    }
    for (int s = 0; s < starts; s++) {
        if (!must_three) {
            colour_fit_mode(&t, hi[s], lo[s], false, quality, &f);
            better(&best, &f);
        }
        /* Opaque blocks the 4-colour fit already serves well (a mean squared
         * error of at most 32 per texel) skip it. */
        if (may_three && best.err > (must_three ? 0 : 16 * 32)) {
            /* An opaque block tries the 3-colour mode as a cheaper second
             * opinion: it wins on blocks whose colours lie near a midpoint. */
            colour_fit_mode(&t, hi[s], lo[s], true, must_three ? quality : BLOCK_QUALITY_FAST, &f);
            if (!must_three && quality != BLOCK_QUALITY_FAST)
                colour_refine(&t, &f, 2);
            better(&best, &f);
        }
    }
    colour_write(&t, &best, out);
}

void bc1_encode_block(const uint8_t rgba[64], bool alpha_1bit, block_quality quality,
                      uint8_t out[8]) {
    encode_colour(rgba, alpha_1bit, true, quality, out);
}

/* ---- BC4 encoder --------------------------------------------------------------------------- */

typedef struct bc4_fit {
    int a0, a1;
    uint8_t idx[16];
    int err;
} bc4_fit;

static void bc4_assign(const uint8_t v[16], bc4_fit *f) {
    int pal[8];
    bc4_palette(f->a0, f->a1, pal);
    int err = 0;
    for (int i = 0; i < 16; i++) {
        int best = INT32_MAX, best_k = 0;
        for (int k = 0; k < 8; k++) {
            int d = sq(v[i] - pal[k]);
            if (d < best) {
                best = d;
                best_k = k;
            }
        }
        f->idx[i] = (uint8_t)best_k;
        err += best;
    }
    f->err = err;
}

/* Position of each entry between a0 (0) and a1 (1); < 0: a constant (0, 255). */
static const float k_bc4_weight8[8] = {0,        1,        1 / 7.0f, 2 / 7.0f,
                                       3 / 7.0f, 4 / 7.0f, 5 / 7.0f, 6 / 7.0f};
static const float k_bc4_weight6[8] = {0, 1, 1 / 5.0f, 2 / 5.0f, 3 / 5.0f, 4 / 5.0f, -1, -1};

static int clamp255(float v) {
    return v < 0.0f ? 0 : v > 255.0f ? 255 : (int)lrintf(v);
}

/* Puts a0/a1 in the order the mode needs; false when that is impossible
 * (the 8-value mode needs a0 != a1). */
static bool bc4_order(bc4_fit *f, bool eight) {
    if (eight ? f->a0 < f->a1 : f->a0 > f->a1) {
        int s = f->a0;
        f->a0 = f->a1;
        f->a1 = s;
    }
    return !eight || f->a0 != f->a1;
}

/* Least-squares refinement of the endpoints, as for colour. */
static void bc4_refine(const uint8_t v[16], bc4_fit *f, bool eight, int iterations) {
    const float *w = eight ? k_bc4_weight8 : k_bc4_weight6;
    for (int it = 0; it < iterations && f->err > 0; it++) {
        float aa = 0, ab = 0, bb = 0, ax = 0, bx = 0;
        for (int i = 0; i < 16; i++) {
            float wb = w[f->idx[i]];
            if (wb < 0)
                continue;
            float wa = 1.0f - wb;
            aa += wa * wa;
            ab += wa * wb;
            bb += wb * wb;
            ax += wa * v[i];
            bx += wb * v[i];
        }
        float det = aa * bb - ab * ab;
        if (fabsf(det) < 1e-4f)
            return;
        bc4_fit g = {.a0 = clamp255((bb * ax - ab * bx) / det),
                     .a1 = clamp255((aa * bx - ab * ax) / det)};
        if (!bc4_order(&g, eight) || (g.a0 == f->a0 && g.a1 == f->a1))
            return;
        bc4_assign(v, &g);
        if (g.err >= f->err)
            return;
        *f = g;
    }
}

/* Every endpoint pair within `radius` of the current one. */
static void bc4_search(const uint8_t v[16], bc4_fit *f, bool eight, int radius) {
    bc4_fit start = *f;
    for (int a0 = start.a0 - radius; a0 <= start.a0 + radius; a0++)
        for (int a1 = start.a1 - radius; a1 <= start.a1 + radius; a1++) {
            if (a0 < 0 || a0 > 255 || a1 < 0 || a1 > 255 || (eight ? a0 <= a1 : a0 > a1))
                continue;
            bc4_fit g = {.a0 = a0, .a1 = a1};
            bc4_assign(v, &g);
            if (g.err < f->err)
                *f = g;
        }
}

static void bc4_fit_mode(const uint8_t v[16], int lo, int hi, bool eight, block_quality quality,
                         bc4_fit *f) {
    f->a0 = eight ? hi : lo;
    f->a1 = eight ? lo : hi;
    bc4_assign(v, f);
    if (quality == BLOCK_QUALITY_FAST)
        return;
    bc4_refine(v, f, eight, quality == BLOCK_QUALITY_BEST ? 8 : 3);
    if (quality == BLOCK_QUALITY_BEST && f->err > 0)
        bc4_search(v, f, eight, 6);
}

void bc4_encode_block(const uint8_t values[16], block_quality quality, uint8_t out[8]) {
    int lo = 255, hi = 0, inner_lo = 255, inner_hi = 0;
    for (int i = 0; i < 16; i++) {
        int x = values[i];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        if (x != 0 && x != 255) {
            inner_lo = x < inner_lo ? x : inner_lo;
            inner_hi = x > inner_hi ? x : inner_hi;
        }
    }
    bc4_fit best;
    if (lo == hi) {
        /* a0 == a1: the 6-value mode, entry 0 is the value exactly. */
        best = (bc4_fit){.a0 = lo, .a1 = lo};
        bc4_assign(values, &best);
    } else {
        bc4_fit_mode(values, lo, hi, true, quality, &best);
        /* The 6-value mode pays off when values sit at 0 or 255 (or fast
         * found no exact fit and the inner range is narrower). */
        if (best.err > 0 && (quality != BLOCK_QUALITY_FAST || inner_lo > lo || inner_hi < hi)) {
            if (inner_lo > inner_hi)
                inner_lo = inner_hi = 0; /* only 0 and 255: both are constants */
            bc4_fit six;
            bc4_fit_mode(values, inner_lo, inner_hi, false, quality, &six);
            if (six.err < best.err)
                best = six;
        }
    }
    uint64_t bits = 0;
    for (int i = 0; i < 16; i++)
        bits |= (uint64_t)best.idx[i] << (3 * i);
    out[0] = (uint8_t)best.a0;
    out[1] = (uint8_t)best.a1;
    store_le(out + 2, bits, 6);
}

/* ---- BC3 and BC5 --------------------------------------------------------------------------- */

static void channel_of(const uint8_t rgba[64], int ch, uint8_t values[16]) {
    for (int i = 0; i < 16; i++)
        values[i] = rgba[i * 4 + ch];
}

void bc3_encode_block(const uint8_t rgba[64], block_quality quality, uint8_t out[16]) {
    uint8_t alpha[16];
    channel_of(rgba, 3, alpha);
    bc4_encode_block(alpha, quality, out);
    encode_colour(rgba, false, false, quality, out + 8);
}

void bc5_encode_block(const uint8_t rgba[64], block_quality quality, uint8_t out[16]) {
    uint8_t values[16];
    for (int ch = 0; ch < 2; ch++) {
        channel_of(rgba, ch, values);
        bc4_encode_block(values, quality, out + 8 * ch);
    }
}
