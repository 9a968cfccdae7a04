/*
 * bc7.c — BC7 (BPTC UNORM) encoder and decoder, written from the format
 * specification (ARB_texture_compression_bptc / Khronos Data Format
 * Specification, BC7 chapter). Tables are in bc7_tables.c.
 *
 * Encoder outline, per block:
 *   - single-colour blocks: mode 5 with exact endpoints (every 8-bit value is
 *     reachable with weight 21/64 between two 7-bit endpoints);
 *   - otherwise each candidate mode (and partition, rotation, index
 *     selection) is fitted: principal axis of each subset -> endpoints,
 *     quantised with the best P-bits, indices by projection onto the
 *     quantised line, least-squares endpoint refinement, then a search over
 *     neighbouring field values; the candidate with the least squared RGBA
 *     error wins, and its endpoints are finally nudged a step at a time with
 *     the indices reassigned;
 *   - partitions are shortlisted by an estimate (a line fit per subset plus
 *     the error of snapping to the index levels; for all 64 two-subset
 *     partitions at once, vectorised, and for the three-subset ones with
 *     the least spread within their subsets) so only a few are fitted
 *     fully, and only while their estimate beats the best error so far;
 *   - `best` fits its winner once more from endpoints extended beyond the
 *     texels, for subsets whose texels do not reach the palette's ends.
 * The quality levels differ in which modes they try and how hard each fit
 * searches (see bc7_encode_block); `draft` fits mode 6 alone. Everything is
 * deterministic.
 * Opaque blocks decode with alpha exactly 255, fully transparent ones with
 * alpha exactly 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bc7_tables.h"
#include "cook/encode/encode.h"

/* ---- bit I/O (LSB first across the 16 bytes) ------------------------------ */

typedef struct bitwriter {
    uint8_t *out;
    unsigned pos;
} bitwriter;

static void put_bits(bitwriter *w, uint32_t value, unsigned count) {
    for (unsigned i = 0; i < count; i++, w->pos++) {
        if ((value >> i) & 1u)
            w->out[w->pos >> 3] |= (uint8_t)(1u << (w->pos & 7));
    }
}

typedef struct bitreader {
    const uint8_t *in;
    unsigned pos;
} bitreader;

static uint32_t get_bits(bitreader *r, unsigned count) {
    uint32_t value = 0;
    for (unsigned i = 0; i < count; i++, r->pos++)
        value |= (uint32_t)((r->in[r->pos >> 3] >> (r->pos & 7)) & 1u) << i;
    return value;
}

/* ---- shared helpers --------------------------------------------------------- */

static const uint8_t *weights_for(unsigned index_bits) {
    return index_bits == 2 ? bc7_weights2 : index_bits == 3 ? bc7_weights3 : bc7_weights4;
}

/* Replicates the top bits of a `bits`-wide value into a byte (bits >= 4). */
static int expand_bits(int value, unsigned bits) {
    int v = value << (8 - bits);
    return v | (v >> bits);
}

static int interpolate(int e0, int e1, int weight) {
    return ((64 - weight) * e0 + weight * e1 + 32) >> 6;
}

static const uint8_t *partition_row(unsigned subsets, unsigned partition) {
    static const uint8_t single[16] = {0};
    return subsets == 1   ? single
           : subsets == 2 ? bc7_partition2[partition]
                          : bc7_partition3[partition];
}

/* Anchor texel of `subset`; the anchor's index has its top bit implied 0. */
static unsigned anchor_of(unsigned subsets, unsigned partition, unsigned subset) {
    if (subset == 0)
        return 0;
    if (subsets == 2)
        return bc7_anchor2_1[partition];
    return subset == 1 ? bc7_anchor3_1[partition] : bc7_anchor3_2[partition];
}

static bool is_anchor(unsigned subsets, unsigned partition, unsigned texel) {
    for (unsigned s = 0; s < subsets; s++) {
        if (anchor_of(subsets, partition, s) == texel)
            return true;
    }
    return false;
}

/* ---- decoder ---------------------------------------------------------------- */

void bc7_decode_block(const uint8_t in[16], uint8_t rgba[64]) {
    unsigned mode = 0;
    while (mode < 8 && !((in[0] >> mode) & 1u))
        mode++;
    if (mode == 8) { /* reserved: transparent black */
        memset(rgba, 0, 64);
        return;
    }
    const bc7_mode_info *m = &bc7_modes[mode];
    bitreader r = {in, mode + 1};
    unsigned partition = get_bits(&r, m->partition_bits);
    unsigned rotation = get_bits(&r, m->rotation_bits);
    unsigned index_sel = get_bits(&r, m->index_sel_bits);
    unsigned ns = m->subsets;

    int ep[3][2][4]; /* subset, endpoint, channel: raw field values first */
    for (unsigned c = 0; c < 3; c++)
        for (unsigned s = 0; s < ns; s++)
            for (unsigned e = 0; e < 2; e++)
                ep[s][e][c] = (int)get_bits(&r, m->color_bits);
    for (unsigned s = 0; s < ns; s++)
        for (unsigned e = 0; e < 2; e++)
            ep[s][e][3] = m->alpha_bits ? (int)get_bits(&r, m->alpha_bits) : 255;
    unsigned pbit[3][2] = {{0}};
    for (unsigned s = 0; s < ns; s++) {
        if (m->endpoint_pbits) {
            pbit[s][0] = get_bits(&r, 1);
            pbit[s][1] = get_bits(&r, 1);
        } else if (m->shared_pbits) {
            pbit[s][0] = pbit[s][1] = get_bits(&r, 1);
        }
    }
    bool has_p = m->endpoint_pbits || m->shared_pbits;
    for (unsigned s = 0; s < ns; s++) {
        for (unsigned e = 0; e < 2; e++) {
            for (unsigned c = 0; c < 4; c++) {
                unsigned bits = c < 3 ? m->color_bits : m->alpha_bits;
                if (c == 3 && bits == 0)
                    continue;
                int v = ep[s][e][c];
                if (has_p)
                    v = (v << 1) | (int)pbit[s][e], bits++;
                ep[s][e][c] = bits >= 8 ? v : expand_bits(v, bits);
            }
        }
    }

    const uint8_t *part = partition_row(ns, partition);
    uint8_t idx1[16], idx2[16] = {0};
    for (unsigned t = 0; t < 16; t++)
        idx1[t] = (uint8_t)get_bits(&r, m->index_bits - (is_anchor(ns, partition, t) ? 1 : 0));
    if (m->index2_bits) {
        for (unsigned t = 0; t < 16; t++)
            idx2[t] = (uint8_t)get_bits(&r, m->index2_bits - (t == 0 ? 1 : 0));
    }

    /* Colour from the secondary indices when the selection bit says so;
     * alpha from the secondary ones when present and not selected away. */
    const uint8_t *cidx = idx1, *aidx = idx1;
    unsigned cbits = m->index_bits, abits = m->index_bits;
    if (m->index2_bits) {
        if (index_sel) {
            cidx = idx2, cbits = m->index2_bits;
        } else {
            aidx = idx2, abits = m->index2_bits;
        }
    }
    const uint8_t *cw = weights_for(cbits), *aw = weights_for(abits);
    for (unsigned t = 0; t < 16; t++) {
        int(*e)[4] = ep[part[t]];
        uint8_t *px = rgba + 4 * t;
        for (unsigned c = 0; c < 3; c++)
            px[c] = (uint8_t)interpolate(e[0][c], e[1][c], cw[cidx[t]]);
        px[3] = (uint8_t)interpolate(e[0][3], e[1][3], aw[aidx[t]]);
        if (rotation) {
            uint8_t tmp = px[3];
            px[3] = px[rotation - 1];
            px[rotation - 1] = tmp;
        }
    }
}

/* ---- encoder: a candidate encoding ------------------------------------------ */

typedef struct candidate {
    uint32_t err;
    uint8_t mode, partition, rotation, index_sel;
    uint8_t ep[3][2][4]; /* quantised fields (without P-bits) */
    uint8_t pbit[3][2];
    uint8_t cidx[16]; /* colour (or joint RGBA) indices */
    uint8_t aidx[16]; /* alpha indices: modes 4 and 5 */
} candidate;

static void flip_subset(candidate *cand, unsigned subset, unsigned maxidx, bool alpha_part,
                        unsigned first_channel, unsigned channels) {
    const uint8_t *part = partition_row(bc7_modes[cand->mode].subsets, cand->partition);
    uint8_t *idx = alpha_part ? cand->aidx : cand->cidx;
    for (unsigned t = 0; t < 16; t++) {
        if (part[t] == subset)
            idx[t] = (uint8_t)(maxidx - idx[t]);
    }
    for (unsigned c = first_channel; c < first_channel + channels; c++) {
        uint8_t tmp = cand->ep[subset][0][c];
        cand->ep[subset][0][c] = cand->ep[subset][1][c];
        cand->ep[subset][1][c] = tmp;
    }
    if (!alpha_part) {
        uint8_t tmp = cand->pbit[subset][0];
        cand->pbit[subset][0] = cand->pbit[subset][1];
        cand->pbit[subset][1] = tmp;
    }
}

/* Swaps endpoints where needed so every anchor index has its top bit clear
 * (the weights are symmetric, so the decoded texels do not change), then
 * writes the block. */
static void pack_candidate(candidate *cand, uint8_t out[16]) {
    const bc7_mode_info *m = &bc7_modes[cand->mode];
    unsigned ns = m->subsets;
    bool separate = m->index2_bits != 0;
    unsigned cbits = m->index_bits, abits = m->index2_bits;
    if (separate && cand->index_sel)
        cbits = m->index2_bits, abits = m->index_bits;
    for (unsigned s = 0; s < ns; s++) {
        unsigned anchor = anchor_of(ns, cand->partition, s);
        if (cand->cidx[anchor] >> (cbits - 1))
            flip_subset(cand, s, (1u << cbits) - 1, false, 0, separate ? 3 : 4);
    }
    if (separate && (cand->aidx[0] >> (abits - 1)))
        flip_subset(cand, 0, (1u << abits) - 1, true, 3, 1);

    memset(out, 0, 16);
    bitwriter w = {out, 0};
    put_bits(&w, 1u << cand->mode, cand->mode + 1);
    put_bits(&w, cand->partition, m->partition_bits);
    put_bits(&w, cand->rotation, m->rotation_bits);
    put_bits(&w, cand->index_sel, m->index_sel_bits);
    for (unsigned c = 0; c < 3; c++)
        for (unsigned s = 0; s < ns; s++)
            for (unsigned e = 0; e < 2; e++)
                put_bits(&w, cand->ep[s][e][c], m->color_bits);
    if (m->alpha_bits) {
        for (unsigned s = 0; s < ns; s++)
            for (unsigned e = 0; e < 2; e++)
                put_bits(&w, cand->ep[s][e][3], m->alpha_bits);
    }
    for (unsigned s = 0; s < ns; s++) {
        if (m->endpoint_pbits) {
            put_bits(&w, cand->pbit[s][0], 1);
            put_bits(&w, cand->pbit[s][1], 1);
        } else if (m->shared_pbits) {
            put_bits(&w, cand->pbit[s][0], 1);
        }
    }
    /* Primary indices are the colour ones except for mode 4 with the
     * selection bit set, where the 2-bit primary set drives alpha. */
    const uint8_t *primary = cand->cidx, *secondary = cand->aidx;
    if (separate && cand->index_sel)
        primary = cand->aidx, secondary = cand->cidx;
    for (unsigned t = 0; t < 16; t++)
        put_bits(&w, primary[t], m->index_bits - (is_anchor(ns, cand->partition, t) ? 1 : 0));
    if (separate) {
        for (unsigned t = 0; t < 16; t++)
            put_bits(&w, secondary[t], m->index2_bits - (t == 0 ? 1 : 0));
    }
}

/* ---- encoder: fitting one subset -------------------------------------------- */

/* How one group of channels of one subset is quantised. */
typedef struct fit_spec {
    unsigned first, count; /* channels [first, first + count) */
    unsigned bits[4];      /* field bits per channel (without the P-bit) */
    unsigned pbits;        /* 0 none, 1 shared by both endpoints, 2 one per endpoint */
    int force_p;           /* joint RGBA: both P-bits 1 (opaque: alpha 255) or 0 (fully
                              transparent: alpha 0); -1: free */
    unsigned index_bits;
    unsigned refine;  /* least-squares refinement rounds */
    bool exhaustive;  /* exact nearest palette entry instead of projection */
    bool all_pbits;   /* try every P-bit combination instead of the likeliest */
    unsigned polish;  /* rounds of search over neighbouring fields at the end */
    bool wide_polish; /* search two steps around instead of one */
    bool extend;      /* also start from segments extended beyond the texels */
    unsigned nudge;   /* nudge_endpoints: 1 = single-channel and all-channel moves, 2 = all */
    bool nudge_each;  /* ...in every fit, not only on the block's winner */
} fit_spec;

typedef struct fit_result {
    uint32_t err;
    uint8_t q[2][4]; /* quantised fields */
    uint8_t p[2];    /* P-bits */
    uint8_t idx[16]; /* per texel of the subset */
} fit_result;

/* The field value (and its decoded byte) nearest to `target` for a channel
 * of `bits` bits plus, when p >= 0, a P-bit below them. */
static int quantize_channel(float target, unsigned bits, int p, int *decoded) {
    int best_q = 0, best_d = 0;
    float best_e = INFINITY;
    unsigned total = bits + (p >= 0 ? 1 : 0);
    int maxq = (1 << bits) - 1;
    float scaled = target * (float)((1 << total) - 1) / 255.0f;
    if (p >= 0)
        scaled = (scaled - (float)p) * 0.5f;
    int q0 = (int)lrintf(scaled);
    for (int q = q0 - 1; q <= q0 + 1; q++) {
        if (q < 0 || q > maxq)
            continue;
        int v = p >= 0 ? (q << 1) | p : q;
        int d = total >= 8 ? v : expand_bits(v, total);
        float e = fabsf((float)d - target);
        if (e < best_e)
            best_e = e, best_q = q, best_d = d;
    }
    *decoded = best_d;
    return best_q;
}

typedef struct subset_pixels {
    unsigned n;
    uint8_t texel[16]; /* block texel of each entry */
    int px[16][4];
    float fx[16][4]; /* the same as floats, for the vectorised loops */
} subset_pixels;

/* The byte a field value decodes to, with P-bit p (-1: none). */
static int decode_field(int q, unsigned bits, int p) {
    if (p >= 0)
        q = (q << 1) | p, bits++;
    return bits >= 8 ? q : expand_bits(q, bits);
}

/* Nearest palette entry for every texel; returns the squared error, or
 * UINT32_MAX once it exceeds `limit`. All four channels are computed, the
 * ones outside the spec masked to zero, so the compiler can vectorise over
 * channels (float arithmetic is exact here: every value is below 2^24). */
static uint32_t assign_indices(const subset_pixels *sp, const fit_spec *fs, int dec[2][4],
                               uint8_t idx[16], uint32_t limit) {
    unsigned c0 = fs->first, c1 = fs->first + fs->count;
    unsigned nidx = 1u << fs->index_bits;
    const uint8_t *w = weights_for(fs->index_bits);
    float mask[4], base[4], dir[4], pal[16][4], dd = 0.0f;
    for (unsigned c = 0; c < 4; c++) {
        mask[c] = c >= c0 && c < c1 ? 1.0f : 0.0f;
        base[c] = (float)dec[0][c] * mask[c];
        dir[c] = (float)(dec[1][c] - dec[0][c]) * mask[c];
        dd += dir[c] * dir[c];
    }
    for (unsigned k = 0; k < nidx; k++)
        for (unsigned c = 0; c < 4; c++)
            pal[k][c] = mask[c] > 0.0f ? (float)interpolate(dec[0][c], dec[1][c], w[k]) : 0.0f;

    /* Projection onto the quantised segment gives the index to within one
     * step (the weights are within half a step of uniform); the neighbours
     * are then compared exactly. */
    float scale = dd > 0.0f ? (float)(nidx - 1) / dd : 0.0f;
    uint32_t total = 0;
    for (unsigned i = 0; i < sp->n; i++) {
        float x[4];
        for (unsigned c = 0; c < 4; c++)
            x[c] = sp->fx[i][c] * mask[c];
        int lo = 0, hi = (int)nidx - 1;
        if (!fs->exhaustive) {
            float t = 0.0f;
            for (unsigned c = 0; c < 4; c++)
                t += (x[c] - base[c]) * dir[c];
            int k = (int)(t * scale + 0.5f);
            k = k < 0 ? 0 : k > hi ? hi : k;
            lo = k > 0 ? k - 1 : 0;
            hi = k < hi ? k + 1 : hi;
        }
        float best = INFINITY;
        int best_k = lo;
        for (int k = lo; k <= hi; k++) {
            float err = 0.0f;
            for (unsigned c = 0; c < 4; c++) {
                float d = x[c] - pal[k][c];
                err += d * d;
            }
            if (err < best)
                best = err, best_k = k;
        }
        idx[i] = (uint8_t)best_k;
        total += (uint32_t)best;
        if (total > limit)
            return UINT32_MAX;
    }
    return total;
}

/* With the indices fixed, each channel's error depends only on that
 * channel's two fields: try the neighbours of each pair, moving only for a
 * strictly lower error (so a channel that is already exact, such as the
 * alpha of an opaque block, never moves). */
static void polish_fields(const subset_pixels *sp, const fit_spec *fs, int p0, int p1,
                          fit_result *res, int dec[2][4]) {
    const uint8_t *w = weights_for(fs->index_bits);
    int wt[16];
    for (unsigned i = 0; i < sp->n; i++)
        wt[i] = w[res->idx[i]];
    /* The current pair first, then one endpoint moved by one step, then
     * (wide search) every pair of moves up to two steps. */
    int moves[26][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    int nmoves = 5;
    if (fs->wide_polish) {
        for (int a = -2; a <= 2; a++)
            for (int b = -2; b <= 2; b++)
                if (abs(a) + abs(b) > 1)
                    moves[nmoves][0] = a, moves[nmoves++][1] = b;
    }
    for (unsigned c = fs->first; c < fs->first + fs->count; c++) {
        int maxq = (1 << fs->bits[c]) - 1;
        int base0 = res->q[0][c], base1 = res->q[1][c];
        uint32_t best = UINT32_MAX;
        for (int k = 0; k < nmoves; k++) {
            int q0 = base0 + moves[k][0], q1 = base1 + moves[k][1];
            if (q0 < 0 || q0 > maxq || q1 < 0 || q1 > maxq)
                continue;
            int d0 = decode_field(q0, fs->bits[c], p0), d1 = decode_field(q1, fs->bits[c], p1);
            uint32_t err = 0;
            for (unsigned i = 0; i < sp->n; i++) {
                int d = sp->px[i][c] - interpolate(d0, d1, wt[i]);
                err += (uint32_t)(d * d);
            }
            if (err < best) {
                best = err;
                res->q[0][c] = (uint8_t)q0, res->q[1][c] = (uint8_t)q1;
                dec[0][c] = d0, dec[1][c] = d1;
            }
        }
    }
}

/* Quantises float endpoints with P-bits (p0, p1; -1 = none), assigns indices
 * and returns the squared error over the spec's channels (UINT32_MAX once
 * above `limit`). */
static uint32_t eval_quantized(const subset_pixels *sp, const fit_spec *fs, float e[2][4], int p0,
                               int p1, fit_result *res, uint32_t limit) {
    int dec[2][4] = {{0}};
    unsigned c0 = fs->first, c1 = fs->first + fs->count;
    for (unsigned c = c0; c < c1; c++) {
        res->q[0][c] = (uint8_t)quantize_channel(e[0][c], fs->bits[c], p0, &dec[0][c]);
        res->q[1][c] = (uint8_t)quantize_channel(e[1][c], fs->bits[c], p1, &dec[1][c]);
    }
    res->p[0] = (uint8_t)(p0 < 0 ? 0 : p0);
    res->p[1] = (uint8_t)(p1 < 0 ? 0 : p1);
    uint32_t err = assign_indices(sp, fs, dec, res->idx, limit);
    if (err != UINT32_MAX)
        res->err = err;
    return err;
}

/* Moves one endpoint by one step in one, several or all of R, G, B at
 * once, with the indices reassigned: changes the per-channel search cannot
 * find because they only pay off once texels switch index. */
static void nudge_endpoints(const subset_pixels *sp, const fit_spec *fs, int p0, int p1,
                            fit_result *best) {
    unsigned c0 = fs->first, nch = fs->count > 3 ? 3 : fs->count;
    /* A channel with one value throughout that both endpoints already hold
     * exactly (such as the alpha a rotation moved into the colour of an
     * opaque or transparent block) never moves. */
    bool fixed[3] = {false, false, false};
    for (unsigned k = 0; k < nch; k++) {
        unsigned c = c0 + k;
        int v = sp->px[0][c];
        fixed[k] = decode_field(best->q[0][c], fs->bits[c], p0) == v &&
                   decode_field(best->q[1][c], fs->bits[c], p1) == v;
        for (unsigned i = 1; i < sp->n; i++)
            fixed[k] = fixed[k] && sp->px[i][c] == v;
    }
    bool improved = true;
    for (int pass = 0; pass < 2 && improved && best->err > 0; pass++) {
        improved = false;
        for (unsigned end = 0; end < 2; end++) {
            for (int combo = 0; combo < 27; combo++) {
                int delta[3] = {combo % 3 - 1, combo / 3 % 3 - 1, combo / 9 - 1};
                int moved = (delta[0] != 0) + (delta[1] != 0) + (delta[2] != 0);
                int sum = delta[0] + delta[1] + delta[2];
                if (combo == 13 || (fs->nudge < 2 && moved != 1 && sum != 3 && sum != -3))
                    continue; /* no move, or not one of the few tried first */
                fit_result trial = *best;
                bool valid = true;
                for (unsigned k = 0; k < nch; k++) {
                    unsigned c = c0 + k;
                    int q = trial.q[end][c] + delta[k];
                    valid = valid && q >= 0 && q < (1 << fs->bits[c]) && !(fixed[k] && delta[k]);
                    trial.q[end][c] = (uint8_t)q;
                }
                if (!valid)
                    continue;
                int dec[2][4] = {{0}};
                for (unsigned c = c0; c < c0 + fs->count; c++) {
                    dec[0][c] = decode_field(trial.q[0][c], fs->bits[c], p0);
                    dec[1][c] = decode_field(trial.q[1][c], fs->bits[c], p1);
                }
                uint32_t err = assign_indices(sp, fs, dec, trial.idx, best->err);
                if (err < best->err)
                    trial.err = err, *best = trial, improved = true;
            }
        }
    }
}

/* Rounds of polish_fields and index reassignment on a finished fit, kept
 * while they lower the error. */
static void polish_fit(const subset_pixels *sp, const fit_spec *fs, fit_result *best) {
    /* With every P-bit combination allowed, each other combination is
     * polished from the current fields too. */
    if (fs->all_pbits && fs->pbits && fs->force_p < 0) {
        fit_result start = *best;
        for (int combo = 0; combo < 4; combo++) {
            int p0 = combo & 1, p1 = fs->pbits == 1 ? p0 : combo >> 1;
            if ((fs->pbits == 1 && combo > 1) || (p0 == start.p[0] && p1 == start.p[1]))
                continue;
            fit_result trial = start;
            trial.p[0] = (uint8_t)p0, trial.p[1] = (uint8_t)p1;
            int dec[2][4] = {{0}};
            polish_fields(sp, fs, p0, p1, &trial, dec);
            uint32_t err = assign_indices(sp, fs, dec, trial.idx, best->err);
            if (err < best->err)
                trial.err = err, *best = trial;
        }
    }
    int p0 = fs->pbits ? best->p[0] : -1, p1 = fs->pbits ? best->p[1] : -1;
    for (unsigned round = 0; round < fs->polish && best->err > 0; round++) {
        fit_result polished = *best;
        int dec[2][4] = {{0}};
        polish_fields(sp, fs, p0, p1, &polished, dec);
        uint32_t err = assign_indices(sp, fs, dec, polished.idx, best->err);
        if (err >= best->err)
            break;
        polished.err = err;
        *best = polished;
    }
    if (fs->nudge_each && fs->count >= 3)
        nudge_endpoints(sp, fs, p0, p1, best);
}

/* Picks P-bits (all combinations, or the ones nearest the float endpoints)
 * and evaluates; keeps the best in `best`. */
static void eval_endpoints(const subset_pixels *sp, const fit_spec *fs, float e[2][4],
                           fit_result *best) {
    for (unsigned end = 0; end < 2; end++)
        for (unsigned c = fs->first; c < fs->first + fs->count; c++)
            e[end][c] = e[end][c] < 0.0f ? 0.0f : e[end][c] > 255.0f ? 255.0f : e[end][c];
    fit_result trial;
    if (fs->pbits == 0) {
        if (eval_quantized(sp, fs, e, -1, -1, &trial, best->err) < best->err)
            *best = trial;
        return;
    }
    if (fs->force_p >= 0) {
        if (eval_quantized(sp, fs, e, fs->force_p, fs->force_p, &trial, best->err) < best->err)
            *best = trial;
        return;
    }
    int combos[4][2] = {{0, 0}, {1, 1}, {0, 1}, {1, 0}};
    unsigned ncombos = fs->pbits == 1 ? 2 : 4;
    if (!fs->all_pbits) {
        /* The P-bit per endpoint whose quantisation lands nearest. */
        float err[2][2] = {{0}};
        for (unsigned end = 0; end < 2; end++) {
            for (int p = 0; p < 2; p++) {
                for (unsigned c = fs->first; c < fs->first + fs->count; c++) {
                    int d;
                    quantize_channel(e[end][c], fs->bits[c], p, &d);
                    err[end][p] += ((float)d - e[end][c]) * ((float)d - e[end][c]);
                }
            }
        }
        if (fs->pbits == 1) {
            int p = err[0][1] + err[1][1] < err[0][0] + err[1][0];
            combos[0][0] = combos[0][1] = p;
        } else {
            combos[0][0] = err[0][1] < err[0][0];
            combos[0][1] = err[1][1] < err[1][0];
        }
        ncombos = 1;
    }
    for (unsigned i = 0; i < ncombos; i++) {
        if (eval_quantized(sp, fs, e, combos[i][0], combos[i][1], &trial, best->err) < best->err)
            *best = trial;
    }
}

/* Least squares for the endpoints given the current indices, repeated
 * while it helps, then the field search. */
static void refine_fit(const subset_pixels *sp, const fit_spec *fs, float e[2][4],
                       fit_result *best) {
    unsigned c0 = fs->first, c1 = fs->first + fs->count;
    const uint8_t *w = weights_for(fs->index_bits);
    for (unsigned round = 0; round < fs->refine && best->err > 0; round++) {
        float aa = 0, ab = 0, bb = 0, xa[4] = {0}, xb[4] = {0};
        for (unsigned i = 0; i < sp->n; i++) {
            float wb = (float)w[best->idx[i]] / 64.0f, wa = 1.0f - wb;
            aa += wa * wa, ab += wa * wb, bb += wb * wb;
            for (unsigned c = c0; c < c1; c++) {
                xa[c] += wa * (float)sp->px[i][c];
                xb[c] += wb * (float)sp->px[i][c];
            }
        }
        float det = aa * bb - ab * ab;
        if (fabsf(det) < 1e-6f)
            break;
        float inv = 1.0f / det;
        for (unsigned c = c0; c < c1; c++) {
            e[0][c] = (bb * xa[c] - ab * xb[c]) * inv;
            e[1][c] = (aa * xb[c] - ab * xa[c]) * inv;
        }
        uint32_t before = best->err;
        eval_endpoints(sp, fs, e, best);
        if (best->err >= before)
            break;
    }
    polish_fit(sp, fs, best);
}

/* Fits one subset: principal axis, endpoint quantisation, refinement. */
static void fit_subset(const subset_pixels *sp, const fit_spec *fs, fit_result *best) {
    unsigned c0 = fs->first, c1 = fs->first + fs->count;
    float mean[4] = {0};
    for (unsigned i = 0; i < sp->n; i++)
        for (unsigned c = c0; c < c1; c++)
            mean[c] += (float)sp->px[i][c];
    for (unsigned c = c0; c < c1; c++)
        mean[c] /= (float)sp->n;

    float cov[4][4] = {{0}};
    for (unsigned i = 0; i < sp->n; i++) {
        float d[4];
        for (unsigned c = c0; c < c1; c++)
            d[c] = (float)sp->px[i][c] - mean[c];
        for (unsigned a = c0; a < c1; a++)
            for (unsigned b = a; b < c1; b++)
                cov[a][b] += d[a] * d[b];
    }
    for (unsigned a = c0; a < c1; a++)
        for (unsigned b = c0; b < a; b++)
            cov[a][b] = cov[b][a];

    /* Power iteration from the row of the largest variance. */
    unsigned start = c0;
    for (unsigned c = c0; c < c1; c++) {
        if (cov[c][c] > cov[start][start])
            start = c;
    }
    float axis[4] = {0};
    for (unsigned c = c0; c < c1; c++)
        axis[c] = cov[start][c];
    for (int it = 0; it < 4; it++) {
        float next[4] = {0}, len = 0.0f;
        for (unsigned a = c0; a < c1; a++) {
            for (unsigned b = c0; b < c1; b++)
                next[a] += cov[a][b] * axis[b];
            len += next[a] * next[a];
        }
        if (len <= 1e-12f)
            break;
        len = 1.0f / sqrtf(len);
        for (unsigned c = c0; c < c1; c++)
            axis[c] = next[c] * len;
    }

    float tmin = 0.0f, tmax = 0.0f;
    for (unsigned i = 0; i < sp->n; i++) {
        float t = 0.0f;
        for (unsigned c = c0; c < c1; c++)
            t += ((float)sp->px[i][c] - mean[c]) * axis[c];
        tmin = t < tmin ? t : tmin;
        tmax = t > tmax ? t : tmax;
    }
    /* The extremes along the axis; the wide search also starts from them
     * inset by 1/16 of the range (closer to the least-squares optimum for
     * spread-out texels). With `extend`, also from segments on which the
     * extremes fall on the second or second-last palette entry: texels that
     * use only inner entries (common in smooth blocks) are otherwise stuck
     * there, as least squares keeps the indices it starts from. The best
     * result is kept. */
    static const float starts[5][2] = {{0, 0}, {1.0f / 16, 1.0f / 16}, {1, 1}, {1, 0}, {0, 1}};
    float steps = (float)((1u << fs->index_bits) - 1); /* palette steps over the segment */
    best->err = UINT32_MAX;
    for (unsigned attempt = 0; attempt < 5; attempt++) {
        bool inset = attempt == 1;
        if ((inset && !fs->wide_polish) || (attempt >= 2 && !fs->extend))
            continue;
        /* Start offsets in units of the range: inset, or outwards by
         * one palette step of the extended segment. */
        float range = tmax - tmin, lo = starts[attempt][0], hi = starts[attempt][1];
        float step = inset ? range : range / (steps - lo - hi);
        float e[2][4] = {{0}};
        for (unsigned c = c0; c < c1; c++) {
            e[0][c] = mean[c] + (tmin + (inset ? lo : -lo) * step) * axis[c];
            e[1][c] = mean[c] + (tmax - (inset ? hi : -hi) * step) * axis[c];
        }
        fit_result trial;
        trial.err = UINT32_MAX;
        eval_endpoints(sp, fs, e, &trial);
        refine_fit(sp, fs, e, &trial);
        if (trial.err < best->err)
            *best = trial;
    }
}

/* ---- encoder: modes ----------------------------------------------------------- */

typedef struct block_ctx {
    int px[16][4];
    bool opaque;      /* every alpha 255: decodes to exactly 255 */
    bool transparent; /* every alpha 0: decodes to exactly 0 */
} block_ctx;

static void gather(const block_ctx *bc, const uint8_t *part, unsigned subset, unsigned rotation,
                   subset_pixels *sp) {
    sp->n = 0;
    for (unsigned t = 0; t < 16; t++) {
        if (part[t] != subset)
            continue;
        int *dst = sp->px[sp->n];
        memcpy(dst, bc->px[t], sizeof(bc->px[t]));
        if (rotation) {
            int tmp = dst[3];
            dst[3] = dst[rotation - 1];
            dst[rotation - 1] = tmp;
        }
        for (unsigned c = 0; c < 4; c++)
            sp->fx[sp->n][c] = (float)dst[c];
        sp->texel[sp->n++] = (uint8_t)t;
    }
}

static uint32_t missing_alpha_error(const block_ctx *bc) {
    uint32_t err = 0;
    for (unsigned t = 0; t < 16; t++) {
        int d = 255 - bc->px[t][3];
        err += (uint32_t)(d * d);
    }
    return err;
}

static void store_fit(candidate *cand, unsigned subset, const subset_pixels *sp,
                      const fit_result *fr, const fit_spec *fs, bool alpha_part) {
    for (unsigned c = fs->first; c < fs->first + fs->count; c++) {
        cand->ep[subset][0][c] = fr->q[0][c];
        cand->ep[subset][1][c] = fr->q[1][c];
    }
    if (!alpha_part) {
        cand->pbit[subset][0] = fr->p[0];
        cand->pbit[subset][1] = fr->p[1];
    }
    uint8_t *idx = alpha_part ? cand->aidx : cand->cidx;
    for (unsigned i = 0; i < sp->n; i++)
        idx[sp->texel[i]] = fr->idx[i];
}

typedef struct effort {
    unsigned refine;
    bool exhaustive, all_pbits, wide_polish, nudge_each, extend;
    unsigned polish, nudge;
} effort;

/* How a mode's colour part is fitted: every channel sharing one index
 * (modes 0-3: RGB, 6 and 7: RGBA), or RGB with its own indices (4, 5). */
static fit_spec color_spec(const block_ctx *bc, const effort *ef, unsigned mode,
                           unsigned index_sel) {
    const bc7_mode_info *m = &bc7_modes[mode];
    bool separate = m->index2_bits != 0;
    fit_spec fs = {
        .first = 0,
        .count = m->alpha_bits && !separate ? 4 : 3,
        .bits = {m->color_bits, m->color_bits, m->color_bits, separate ? 0 : m->alpha_bits},
        .pbits = m->endpoint_pbits ? 2
                 : m->shared_pbits ? 1
                                   : 0,
        .force_p = !m->alpha_bits || !m->endpoint_pbits ? -1
                   : bc->opaque                         ? 1
                   : bc->transparent                    ? 0
                                                        : -1,
        .index_bits = separate && index_sel ? m->index2_bits : m->index_bits,
        .refine = ef->refine,
        .exhaustive = ef->exhaustive,
        .all_pbits = ef->all_pbits && !separate,
        .polish = ef->polish,
        .wide_polish = ef->wide_polish,
        .extend = ef->extend,
        .nudge = ef->nudge,
        .nudge_each = ef->nudge_each,
    };
    return fs;
}

/* Modes 0, 1, 2, 3, 6, 7: every channel of a texel shares one index. */
static void try_joint_mode(const block_ctx *bc, const effort *ef, unsigned mode, unsigned partition,
                           candidate *best) {
    const bc7_mode_info *m = &bc7_modes[mode];
    candidate cand;
    memset(&cand, 0, sizeof(cand));
    cand.mode = (uint8_t)mode;
    cand.partition = (uint8_t)partition;
    uint32_t total = m->alpha_bits ? 0 : missing_alpha_error(bc);
    if (total >= best->err)
        return;
    fit_spec fs = color_spec(bc, ef, mode, 0);
    const uint8_t *part = partition_row(m->subsets, partition);
    for (unsigned s = 0; s < m->subsets; s++) {
        subset_pixels sp;
        gather(bc, part, s, 0, &sp);
        fit_result fr;
        fit_subset(&sp, &fs, &fr);
        if (fr.err == UINT32_MAX)
            return;
        total += fr.err;
        if (total >= best->err)
            return;
        store_fit(&cand, s, &sp, &fr, &fs, false);
    }
    cand.err = total;
    *best = cand;
}

/* Modes 4 and 5: colour and alpha with separate indices, after swapping
 * channel (rotation - 1) with alpha. */
static void try_separate_mode(const block_ctx *bc, const effort *ef, unsigned mode,
                              unsigned rotation, unsigned index_sel, candidate *best) {
    const bc7_mode_info *m = &bc7_modes[mode];
    candidate cand;
    memset(&cand, 0, sizeof(cand));
    cand.mode = (uint8_t)mode;
    cand.rotation = (uint8_t)rotation;
    cand.index_sel = (uint8_t)index_sel;
    subset_pixels sp;
    gather(bc, partition_row(1, 0), 0, rotation, &sp);
    fit_spec color = color_spec(bc, ef, mode, index_sel);
    fit_spec alpha = color;
    alpha.first = 3, alpha.count = 1;
    alpha.bits[3] = m->alpha_bits;
    alpha.index_bits = index_sel ? m->index_bits : (m->index2_bits ? m->index2_bits : 2);
    fit_result fr;
    fit_subset(&sp, &alpha, &fr);
    if (fr.err >= best->err)
        return;
    store_fit(&cand, 0, &sp, &fr, &alpha, true);
    uint32_t total = fr.err;
    fit_subset(&sp, &color, &fr);
    if (fr.err == UINT32_MAX || total + fr.err >= best->err)
        return;
    store_fit(&cand, 0, &sp, &fr, &color, false);
    cand.err = total + fr.err;
    *best = cand;
}

/* Squared error of a subset's channels in `fs` with given fields and
 * indices. */
static uint32_t subset_error(const subset_pixels *sp, const fit_spec *fs, const fit_result *fr,
                             int p0, int p1) {
    const uint8_t *w = weights_for(fs->index_bits);
    uint32_t err = 0;
    for (unsigned c = fs->first; c < fs->first + fs->count; c++) {
        int d0 = decode_field(fr->q[0][c], fs->bits[c], p0);
        int d1 = decode_field(fr->q[1][c], fs->bits[c], p1);
        for (unsigned i = 0; i < sp->n; i++) {
            int d = sp->px[i][c] - interpolate(d0, d1, w[fr->idx[i]]);
            err += (uint32_t)(d * d);
        }
    }
    return err;
}

/* Runs nudge_endpoints on the colour part of each subset of a finished
 * candidate, keeping what lowers its error. */
static void nudge_candidate(const block_ctx *bc, const effort *ef, candidate *cand) {
    const bc7_mode_info *m = &bc7_modes[cand->mode];
    fit_spec fs = color_spec(bc, ef, cand->mode, cand->index_sel);
    const uint8_t *part = partition_row(m->subsets, cand->partition);
    for (unsigned s = 0; s < m->subsets; s++) {
        subset_pixels sp;
        gather(bc, part, s, cand->rotation, &sp);
        fit_result fr;
        for (unsigned c = fs.first; c < fs.first + fs.count; c++) {
            fr.q[0][c] = cand->ep[s][0][c];
            fr.q[1][c] = cand->ep[s][1][c];
        }
        fr.p[0] = cand->pbit[s][0], fr.p[1] = cand->pbit[s][1];
        for (unsigned i = 0; i < sp.n; i++)
            fr.idx[i] = cand->cidx[sp.texel[i]];
        int p0 = fs.pbits ? fr.p[0] : -1, p1 = fs.pbits ? fr.p[1] : -1;
        uint32_t before = subset_error(&sp, &fs, &fr, p0, p1);
        fr.err = before;
        nudge_endpoints(&sp, &fs, p0, p1, &fr);
        if (fr.err < before) {
            store_fit(cand, s, &sp, &fr, &fs, false);
            cand->err -= before - fr.err;
        }
    }
}

/* ---- encoder: partition shortlist ------------------------------------------- */

/* Principal axis (unit length) of a subset from its sums (channel sums,
 * products a <= b): power iteration on the scatter matrix, starting from the
 * row of the largest variance; three steps without renormalising stay far
 * inside float range. Returns the spread off the axis (trace minus the
 * Rayleigh quotient). */
static float subset_axis(const float *sum, const float *sq, float n, unsigned nch, float axis[4]) {
    float cov[4][4], inv_n = 1.0f / n, trace = 0.0f;
    unsigned k = 0;
    for (unsigned a = 0; a < nch; a++)
        for (unsigned b = a; b < nch; b++, k++)
            cov[a][b] = cov[b][a] = sq[k] - sum[a] * sum[b] * inv_n;
    unsigned start = 0;
    for (unsigned c = 0; c < nch; c++) {
        trace += cov[c][c];
        if (cov[c][c] > cov[start][start])
            start = c;
    }
    float v[4];
    for (unsigned c = 0; c < nch; c++)
        v[c] = cov[start][c] * (1.0f / 65536.0f);
    for (int it = 0; it < 2; it++) {
        float next[4] = {0};
        for (unsigned a = 0; a < nch; a++)
            for (unsigned b = 0; b < nch; b++)
                next[a] += cov[a][b] * v[b] * (1.0f / 65536.0f);
        memcpy(v, next, sizeof(v));
    }
    float len = 0.0f;
    for (unsigned c = 0; c < nch; c++)
        len += v[c] * v[c];
    len = len > 1e-30f ? 1.0f / sqrtf(len) : 0.0f;
    float along = 0.0f;
    for (unsigned a = 0; a < nch; a++) {
        axis[a] = v[a] * len;
        for (unsigned b = 0; b < nch; b++)
            along += axis[a] * cov[a][b] * v[b] * len;
    }
    float off = trace - along;
    return off > 0.0f ? off : 0.0f;
}

/* Indices of the `keep` lowest of `count` scores, lowest first. */
static unsigned select_lowest(const float *score, unsigned count, unsigned keep, uint8_t *out) {
    if (keep > count)
        keep = count;
    if (keep == 0)
        return 0;
    /* Insertion into a sorted list of the best `keep` so far: most scores
     * lose against its last entry at once. Ties keep the lower index. */
    unsigned n = 0;
    for (unsigned p = 0; p < count; p++) {
        if (n == keep && !(score[p] < score[out[n - 1]]))
            continue;
        unsigned i = n < keep ? n++ : n - 1;
        while (i > 0 && score[p] < score[out[i - 1]]) {
            out[i] = out[i - 1];
            i--;
        }
        out[i] = (uint8_t)p;
    }
    return n;
}

/* Snapping error of one subset's texels to `levels` evenly spaced points
 * between its extremes along `axis`, in units of the squared range. Four
 * lanes of texels at a time so the compiler can vectorise the loops. */
static void snap_error(const float x[4][16], const int32_t which[16], int32_t subset, unsigned nch,
                       const float axis[4], float *e4, float *e8) {
    float along[16], lo4[4], hi4[4];
    for (unsigned j = 0; j < 4; j++)
        lo4[j] = INFINITY, hi4[j] = -INFINITY;
    for (unsigned t0 = 0; t0 < 16; t0 += 4) {
        for (unsigned j = 0; j < 4; j++) {
            unsigned t = t0 + j;
            float v = x[0][t] * axis[0] + x[1][t] * axis[1] + x[2][t] * axis[2];
            if (nch == 4)
                v += x[3][t] * axis[3];
            along[t] = v;
            bool in = which[t] == subset;
            lo4[j] = in && v < lo4[j] ? v : lo4[j];
            hi4[j] = in && v > hi4[j] ? v : hi4[j];
        }
    }
    float lo = lo4[0], hi = hi4[0];
    for (unsigned j = 1; j < 4; j++) {
        lo = lo4[j] < lo ? lo4[j] : lo;
        hi = hi4[j] > hi ? hi4[j] : hi;
    }
    float range = hi - lo, inv = range > 1e-3f ? 1.0f / range : 0.0f;
    float s4[4] = {0}, s8[4] = {0};
    for (unsigned t0 = 0; t0 < 16; t0 += 4) {
        for (unsigned j = 0; j < 4; j++) {
            unsigned t = t0 + j;
            float rel = (along[t] - lo) * inv; /* 0..1 inside the subset */
            rel = rel < 0.0f ? 0.0f : rel;
            float d4 = rel * 3.0f - (float)(int32_t)(rel * 3.0f + 0.5f);
            float d8 = rel * 7.0f - (float)(int32_t)(rel * 7.0f + 0.5f);
            bool in = which[t] == subset;
            s4[j] += in ? d4 * d4 : 0.0f;
            s8[j] += in ? d8 * d8 : 0.0f;
        }
    }
    float r2 = range * range;
    *e4 = (s4[0] + s4[1] + s4[2] + s4[3]) * r2 * (1.0f / 9.0f);
    *e8 = (s8[0] + s8[1] + s8[2] + s8[3]) * r2 * (1.0f / 49.0f);
}

/* Estimated errors of each of the first `count` partitions for `subsets`
 * subsets over `nch` channels, with 4 index values (score4) and with 8
 * (score8): the spread off each subset's principal axis, plus the error of
 * snapping the texels to evenly spaced points between the subset's extremes
 * along the axis (endpoint quantisation ignored). */
static void estimate_partitions(const block_ctx *bc, unsigned subsets, unsigned count, unsigned nch,
                                unsigned detail, float *score4, float *score8) {
    /* Per texel: the channel values, their products and 1 (`full`), or the
     * values, the squared length and 1 (`lite`), summed per subset with
     * masks (subset 0 = the whole block minus the others). */
    enum { NFULL = 16, NLITE = 8 };
    int32_t full[16][NFULL], lite[16][NLITE], whole_full[NFULL] = {0}, whole_lite[NLITE] = {0};
    float x[4][16] = {{0}};
    unsigned nsq = nch * (nch + 1) / 2;
    for (unsigned t = 0; t < 16; t++) {
        unsigned k = 0;
        int32_t len2 = 0;
        memset(lite[t], 0, sizeof(lite[t]));
        for (unsigned c = 0; c < nch; c++) {
            full[t][k++] = lite[t][c] = bc->px[t][c], x[c][t] = (float)bc->px[t][c];
            len2 += bc->px[t][c] * bc->px[t][c];
        }
        lite[t][4] = len2, lite[t][5] = 1;
        for (unsigned a = 0; a < nch; a++)
            for (unsigned b = a; b < nch; b++)
                full[t][k++] = bc->px[t][a] * bc->px[t][b];
        full[t][k++] = 1; /* texel count */
        while (k < NFULL)
            full[t][k++] = 0;
        for (k = 0; k < NFULL; k++)
            whole_full[k] += full[t][k];
        for (k = 0; k < NLITE; k++)
            whole_lite[k] += lite[t][k];
    }
    /* Pass 1: the spread within the subsets (trace of their scatter
     * matrices: what a partition leaves unexplained before the line fit);
     * only the `detail` lowest are estimated in full. */
    float spread[64];
    for (unsigned p = 0; p < count; p++) {
        const uint8_t *part = partition_row(subsets, p);
        int32_t acc[3][NLITE];
        memcpy(acc[0], whole_lite, sizeof(whole_lite));
        for (unsigned s = 1; s < subsets; s++) {
            int32_t sub[NLITE] = {0};
            for (unsigned t = 0; t < 16; t++) {
                int32_t mask = -(int32_t)(part[t] == s);
                for (unsigned k = 0; k < NLITE; k++)
                    sub[k] += lite[t][k] & mask;
            }
            for (unsigned k = 0; k < NLITE; k++)
                acc[s][k] = sub[k], acc[0][k] -= sub[k];
        }
        spread[p] = 0.0f;
        for (unsigned s = 0; s < subsets; s++) {
            float mean2 = 0.0f;
            for (unsigned c = 0; c < nch; c++)
                mean2 += (float)acc[s][c] * (float)acc[s][c];
            spread[p] += (float)acc[s][4] - mean2 / (float)acc[s][5];
        }
    }
    uint8_t order[64];
    unsigned n = select_lowest(spread, count, detail, order);
    for (unsigned p = 0; p < count; p++) {
        if (score4)
            score4[p] = INFINITY;
        if (score8)
            score8[p] = INFINITY;
    }
    /* Pass 2: line fit and snapping error. */
    for (unsigned i = 0; i < n; i++) {
        unsigned p = order[i];
        const uint8_t *part = partition_row(subsets, p);
        int32_t which[16], acc[3][NFULL];
        for (unsigned t = 0; t < 16; t++)
            which[t] = part[t];
        memcpy(acc[0], whole_full, sizeof(whole_full));
        for (unsigned s = 1; s < subsets; s++) {
            int32_t sub[NFULL] = {0};
            for (unsigned t = 0; t < 16; t++) {
                int32_t mask = -(int32_t)(which[t] == (int32_t)s);
                for (unsigned k = 0; k < NFULL; k++)
                    sub[k] += full[t][k] & mask;
            }
            for (unsigned k = 0; k < NFULL; k++)
                acc[s][k] = sub[k], acc[0][k] -= sub[k];
        }
        float err4 = 0.0f, err8 = 0.0f;
        for (unsigned s = 0; s < subsets; s++) {
            float sum[4], sq[10], axis[4] = {0}, cnt = (float)acc[s][nch + nsq];
            for (unsigned c = 0; c < nch; c++)
                sum[c] = (float)acc[s][c];
            for (unsigned k = 0; k < nsq; k++)
                sq[k] = (float)acc[s][nch + k];
            float off = subset_axis(sum, sq, cnt, nch, axis);
            float e4, e8;
            snap_error((const float(*)[16])x, which, (int32_t)s, nch, axis, &e4, &e8);
            err4 += off + e4, err8 += off + e8;
        }
        if (score4)
            score4[p] = err4;
        if (score8)
            score8[p] = err8;
    }
}

/* The same estimate as estimate_partitions for all 64 two-subset
 * partitions at once, laid out with the partitions as the innermost (vector)
 * dimension so the loops vectorise: scoring all 64 in full costs about what
 * the scalar path spends on 8, and its first-pass ranking by spread alone
 * misses the best partition of smooth blocks (whose texels spread over a
 * plane, not a line) too often: +0.2 dB at `normal` on smooth and
 * photographic images, +0.8 dB at `fast` (BENCHMARKS.md, BC7). */
static void estimate_partitions2(const block_ctx *bc, unsigned nch, float *score4, float *score8) {
    enum { P = 64 };
    float x[4][16] = {{0}}, in1[16][P]; /* in1: 1 where the texel is in subset 1 */
    for (unsigned t = 0; t < 16; t++) {
        for (unsigned c = 0; c < nch; c++)
            x[c][t] = (float)bc->px[t][c];
        for (unsigned p = 0; p < P; p++)
            in1[t][p] = (float)bc7_partition2[p][t];
    }
    /* Per-subset sums of values and products (integers below 2^24: exact). */
    unsigned nsq = nch * (nch + 1) / 2, nk = nch + nsq;
    float whole[14] = {0}, sum1[14][P], cnt1[P];
    memset(sum1, 0, sizeof(sum1));
    memset(cnt1, 0, sizeof(cnt1));
    for (unsigned t = 0; t < 16; t++) {
        float v[14];
        unsigned k = 0;
        for (unsigned c = 0; c < nch; c++)
            v[k++] = x[c][t];
        for (unsigned a = 0; a < nch; a++)
            for (unsigned b = a; b < nch; b++)
                v[k++] = x[a][t] * x[b][t];
        for (k = 0; k < nk; k++) {
            whole[k] += v[k];
            for (unsigned p = 0; p < P; p++)
                sum1[k][p] += v[k] * in1[t][p];
        }
        for (unsigned p = 0; p < P; p++)
            cnt1[p] += in1[t][p];
    }
    /* Principal axis and spread off it per subset, as subset_axis; every
     * step a loop over the partitions. */
    float axis[2][4][P], off[P], lo[2][P], hi[2][P];
    memset(axis, 0, sizeof(axis));
    for (unsigned p = 0; p < P; p++)
        off[p] = 0.0f;
    for (unsigned s = 0; s < 2; s++) {
        float sum[14][P], inv_n[P], cov[4][4][P], v[4][P], top[P], trace[P];
        for (unsigned k = 0; k < nk; k++)
            for (unsigned p = 0; p < P; p++)
                sum[k][p] = s ? sum1[k][p] : whole[k] - sum1[k][p];
        for (unsigned p = 0; p < P; p++)
            inv_n[p] = 1.0f / (s ? cnt1[p] : 16.0f - cnt1[p]);
        unsigned k = nch;
        for (unsigned a = 0; a < nch; a++)
            for (unsigned b = a; b < nch; b++, k++)
                for (unsigned p = 0; p < P; p++)
                    cov[a][b][p] = cov[b][a][p] = sum[k][p] - sum[a][p] * sum[b][p] * inv_n[p];
        for (unsigned p = 0; p < P; p++)
            top[p] = -INFINITY, trace[p] = 0.0f;
        for (unsigned c = 0; c < nch; c++) {
            for (unsigned p = 0; p < P; p++) {
                trace[p] += cov[c][c][p];
                bool larger = cov[c][c][p] > top[p]; /* the first largest, as subset_axis */
                top[p] = larger ? cov[c][c][p] : top[p];
                for (unsigned d = 0; d < nch; d++)
                    v[d][p] = larger ? cov[c][d][p] * (1.0f / 65536.0f) : c ? v[d][p] : 0.0f;
            }
        }
        for (int it = 0; it < 2; it++) {
            float next[4][P];
            for (unsigned a = 0; a < nch; a++) {
                for (unsigned p = 0; p < P; p++)
                    next[a][p] = 0.0f;
                for (unsigned b = 0; b < nch; b++)
                    for (unsigned p = 0; p < P; p++)
                        next[a][p] += cov[a][b][p] * v[b][p] * (1.0f / 65536.0f);
            }
            memcpy(v, next, sizeof(v));
        }
        float len[P], along[P];
        for (unsigned p = 0; p < P; p++)
            len[p] = along[p] = 0.0f;
        for (unsigned c = 0; c < nch; c++)
            for (unsigned p = 0; p < P; p++)
                len[p] += v[c][p] * v[c][p];
        for (unsigned p = 0; p < P; p++)
            len[p] = len[p] > 1e-30f ? 1.0f / sqrtf(len[p]) : 0.0f;
        for (unsigned a = 0; a < nch; a++)
            for (unsigned p = 0; p < P; p++)
                axis[s][a][p] = v[a][p] * len[p];
        for (unsigned a = 0; a < nch; a++)
            for (unsigned b = 0; b < nch; b++)
                for (unsigned p = 0; p < P; p++)
                    along[p] += axis[s][a][p] * cov[a][b][p] * v[b][p] * len[p];
        for (unsigned p = 0; p < P; p++) {
            float o = trace[p] - along[p];
            off[p] += o > 0.0f ? o : 0.0f;
            lo[s][p] = INFINITY, hi[s][p] = -INFINITY;
        }
    }
    /* Snapping error to 4 and 8 evenly spaced points, as snap_error. */
    float along[16][P];
    for (unsigned t = 0; t < 16; t++) {
        for (unsigned p = 0; p < P; p++) {
            float v0 = 0.0f, v1 = 0.0f;
            for (unsigned c = 0; c < 4; c++) {
                v0 += x[c][t] * axis[0][c][p];
                v1 += x[c][t] * axis[1][c][p];
            }
            /* Selections by multiplying with the 0/1 mask (exact), which
             * gcc vectorises where it would not if-convert `?:` here. */
            float m = in1[t][p], n = 1.0f - m, v = m * v1 + n * v0;
            float in_lo1 = v + n * 1e30f, in_lo0 = v + m * 1e30f;
            float in_hi1 = v - n * 1e30f, in_hi0 = v - m * 1e30f;
            along[t][p] = v;
            lo[1][p] = in_lo1 < lo[1][p] ? in_lo1 : lo[1][p];
            hi[1][p] = in_hi1 > hi[1][p] ? in_hi1 : hi[1][p];
            lo[0][p] = in_lo0 < lo[0][p] ? in_lo0 : lo[0][p];
            hi[0][p] = in_hi0 > hi[0][p] ? in_hi0 : hi[0][p];
        }
    }
    float inv[2][P], r2[2][P], s4[P], s8[P];
    for (unsigned s = 0; s < 2; s++) {
        for (unsigned p = 0; p < P; p++) {
            float range = hi[s][p] - lo[s][p];
            inv[s][p] = range > 1e-3f ? 1.0f / range : 0.0f;
            r2[s][p] = range * range;
        }
    }
    for (unsigned p = 0; p < P; p++)
        s4[p] = s8[p] = 0.0f;
    for (unsigned t = 0; t < 16; t++) {
        for (unsigned p = 0; p < P; p++) {
            /* rel is in [0, 1]: lo is the least `along` of the subset. */
            float m = in1[t][p], n = 1.0f - m;
            float rel =
                (along[t][p] - (m * lo[1][p] + n * lo[0][p])) * (m * inv[1][p] + n * inv[0][p]);
            float d4 = rel * 3.0f - (float)(int32_t)(rel * 3.0f + 0.5f);
            float d8 = rel * 7.0f - (float)(int32_t)(rel * 7.0f + 0.5f);
            float w = m * r2[1][p] + n * r2[0][p];
            s4[p] += d4 * d4 * w;
            s8[p] += d8 * d8 * w;
        }
    }
    for (unsigned p = 0; p < P; p++) {
        if (score4)
            score4[p] = off[p] + s4[p] * (1.0f / 9.0f);
        if (score8)
            score8[p] = off[p] + s8[p] * (1.0f / 49.0f);
    }
}

/* The rotation whose three colour channels lie closest to a line (least
 * spread off their principal axis), i.e. the channel that most needs its
 * own indices; 0 keeps alpha on its own. */
static unsigned likely_rotation(const block_ctx *bc) {
    unsigned best_r = 0;
    float best = INFINITY;
    for (unsigned r = 0; r < 4; r++) {
        unsigned alone = r == 0 ? 3 : r - 1, ch[3], k = 0;
        for (unsigned c = 0; c < 4; c++) {
            if (c != alone)
                ch[k++] = c;
        }
        float sum[3] = {0}, sq[6] = {0}, axis[4];
        for (unsigned t = 0; t < 16; t++) {
            unsigned j = 0;
            for (unsigned a = 0; a < 3; a++) {
                sum[a] += (float)bc->px[t][ch[a]];
                for (unsigned b = a; b < 3; b++)
                    sq[j++] += (float)(bc->px[t][ch[a]] * bc->px[t][ch[b]]);
            }
        }
        float off = subset_axis(sum, sq, 16.0f, 3, axis);
        if (off < best)
            best = off, best_r = r;
    }
    return best_r;
}

/* Fits `mode` with the shortlisted partitions (best estimate first), each
 * only while its estimate times `slack` beats the best error so far
 * (partitions left out of the full estimate score infinity and stop the
 * loop whatever the slack, as infinity * 0 is NaN). */
static void try_partitions(const block_ctx *bc, const effort *ef, unsigned mode,
                           const uint8_t *list, unsigned n, const float *score, float slack,
                           candidate *best) {
    for (unsigned i = 0; i < n && score[list[i]] * slack < (float)best->err; i++)
        try_joint_mode(bc, ef, mode, list[i], best);
}

/* ---- encoder: single colour --------------------------------------------------- */

/* Mode 5 reproduces any colour exactly: colour index 1 (weight 21) between
 * two 7-bit endpoints reaches every byte value, and alpha is 8 bits. */
static void encode_single_color(const uint8_t px[4], uint8_t out[16]) {
    candidate cand;
    memset(&cand, 0, sizeof(cand));
    cand.mode = 5;
    for (unsigned c = 0; c < 3; c++) {
        int best_err = 1 << 30;
        for (int a = 0; a < 128 && best_err > 0; a++) {
            int ea = expand_bits(a, 7);
            /* 43 * A + 21 * B + 32 >> 6 == v: solve for B, then try nearby b. */
            int b0 = (64 * px[c] - 43 * ea) / 42;
            for (int b = b0 - 1; b <= b0 + 1; b++) {
                if (b < 0 || b > 127)
                    continue;
                int d = interpolate(ea, expand_bits(b, 7), 21) - px[c];
                if (d * d < best_err) {
                    best_err = d * d;
                    cand.ep[0][0][c] = (uint8_t)a;
                    cand.ep[0][1][c] = (uint8_t)b;
                }
            }
        }
    }
    cand.ep[0][0][3] = cand.ep[0][1][3] = px[3];
    memset(cand.cidx, 1, sizeof(cand.cidx));
    pack_candidate(&cand, out);
}

/* ---- encoder: what each quality tries ------------------------------------------ */

typedef struct search_plan {
    effort ef;               /* how hard each fit searches */
    uint32_t good_enough;    /* stop after mode 6 at or below this squared error */
    bool opaque_mode1_only;  /* opaque blocks: modes 6 and 1 only */
    unsigned detail3;        /* 3-subset partitions estimated in full (2: all 64) */
    unsigned keep2, keep3;   /* partitions fitted per mode: 1 and 3; 0 and 2 */
    unsigned keep_alpha;     /* partitions fitted for mode 7; 0: modes 6 and 5 only */
    float slack;             /* fit a partition only while estimate * slack < best error */
    uint32_t three_min_err;  /* modes 0 and 2 only above this squared error */
    unsigned rotations;      /* rotations of modes 4/5 considered (1: none) */
    bool all_rotations;      /* all of them, not only the likeliest */
    bool opaque_unrotated;   /* opaque blocks: also mode 5 without rotation, mode 4 */
    bool mode4_rotations;    /* mode 4 with every rotation tried, not only 0 */
    bool mode4_both_indices; /* mode 4 with both index selections */
    bool extend_winner;      /* fit the winner again with effort.extend */
} search_plan;

/* Each setting of `normal` was measured on sampled corpus blocks (see the
 * BC7 section of BENCHMARKS.md). Partition estimates ignore endpoint
 * quantisation, so they are usually low: `normal` does not fit a partition
 * whose estimate does not beat the best error so far (slack 1); `fast` and
 * `best` fit every shortlisted one (slack 0). */
static const search_plan plans[3] = {
    /* fast: mode 6, then mode 1 with the best-estimated partition (opaque)
     * or mode 5 (alpha) */
    {.ef = {.refine = 1}, .opaque_mode1_only = true, .keep2 = 1, .slack = 0.0f, .rotations = 1},
    /* normal */
    {.ef = {.refine = 1, .polish = 1, .nudge = 1},
     .good_enough = 16, /* mostly off-by-one texels: little left to gain */
     .detail3 = 8,
     .keep2 = 2,
     .keep3 = 2,
     .keep_alpha = 4,
     .slack = 1.0f,
     .three_min_err = 100, /* about 1.5 levels RMS: 3 subsets rarely pay off */
     .rotations = 4},
    /* best: everything shortlisted, every fit searched widely */
    {.ef = {.refine = 4,
            .exhaustive = true,
            .all_pbits = true,
            .wide_polish = true,
            .nudge_each = true,
            .polish = 3,
            .nudge = 2},
     .detail3 = 64,
     .keep2 = 16,
     .keep3 = 8,
     .keep_alpha = 16,
     .slack = 0.0f,
     .rotations = 4,
     .all_rotations = true,
     .opaque_unrotated = true,
     .mode4_rotations = true,
     .mode4_both_indices = true,
     .extend_winner = true},
};

/* Modes 5 and 4 with rotations: rotation 0 is tried here for opaque blocks
 * only (blocks with alpha try it beforehand); besides it, all rotations or
 * the likeliest. */
static void try_rotations(const block_ctx *bc, const search_plan *plan, bool opaque,
                          candidate *best) {
    unsigned likely = plan->rotations > 1 ? likely_rotation(bc) : 0;
    for (unsigned r = opaque ? 0 : 1; r < plan->rotations; r++) {
        bool unrotated = r == 0 && plan->opaque_unrotated;
        if (!unrotated && r != likely && !plan->all_rotations)
            continue;
        try_separate_mode(bc, &plan->ef, 5, r, 0, best);
        if (unrotated || plan->mode4_rotations)
            try_separate_mode(bc, &plan->ef, 4, r, 0, best);
        if (plan->mode4_both_indices)
            try_separate_mode(bc, &plan->ef, 4, r, 1, best);
    }
}

/* ---- encoder: entry point ----------------------------------------------------- */

void bc7_encode_block(const uint8_t rgba[64], block_quality quality, uint8_t out[16]) {
    block_ctx bc;
    bc.opaque = bc.transparent = true;
    bool single = true;
    for (unsigned t = 0; t < 16; t++) {
        for (unsigned c = 0; c < 4; c++) {
            bc.px[t][c] = rgba[4 * t + c];
            single = single && rgba[4 * t + c] == rgba[c];
        }
        bc.opaque = bc.opaque && rgba[4 * t + 3] == 255;
        bc.transparent = bc.transparent && rgba[4 * t + 3] == 0;
    }
    if (single) {
        encode_single_color(rgba, out);
        return;
    }

    const search_plan *plan = &plans[quality == BLOCK_QUALITY_NORMAL ? 1
                                     : quality == BLOCK_QUALITY_BEST ? 2
                                                                     : 0];
    const effort *ef = &plan->ef;
    candidate best;
    memset(&best, 0, sizeof(best));
    best.err = UINT32_MAX;
    if (quality == BLOCK_QUALITY_DRAFT) {
        /* Mode 6 alone (one subset, RGBA on one line, 16 index levels):
         * `kiln watch`'s first encode, replaced by the full one after. */
        static const effort draft = {.refine = 1};
        try_joint_mode(&bc, &draft, 6, 0, &best);
        pack_candidate(&best, out);
        return;
    }
    try_joint_mode(&bc, ef, 6, 0, &best);
    uint8_t list[64];
    float score4[64], score8[64];
    if (best.err <= plan->good_enough) {
        /* mode 6 alone is good enough */
    } else if (bc.opaque && plan->opaque_mode1_only) {
        estimate_partitions2(&bc, 3, NULL, score8);
        unsigned n = select_lowest(score8, 64, plan->keep2, list);
        try_partitions(&bc, ef, 1, list, n, score8, plan->slack, &best);
    } else if (bc.opaque) {
        estimate_partitions2(&bc, 3, score4, score8);
        unsigned n = select_lowest(score8, 64, plan->keep2, list);
        try_partitions(&bc, ef, 1, list, n, score8, plan->slack, &best);
        n = select_lowest(score4, 64, plan->keep2, list);
        try_partitions(&bc, ef, 3, list, n, score4, plan->slack, &best);
        if (best.err > plan->three_min_err) {
            estimate_partitions(&bc, 3, 64, 3, plan->detail3, score4, score8);
            n = select_lowest(score4, 64, plan->keep3, list);
            try_partitions(&bc, ef, 2, list, n, score4, plan->slack, &best);
            n = select_lowest(score8, 16, plan->keep3, list);
            try_partitions(&bc, ef, 0, list, n, score8, plan->slack, &best);
        }
        try_rotations(&bc, plan, true, &best);
    } else {
        try_separate_mode(&bc, ef, 5, 0, 0, &best);
        if (plan->keep_alpha) {
            try_separate_mode(&bc, ef, 4, 0, 0, &best);
            try_separate_mode(&bc, ef, 4, 0, 1, &best);
            estimate_partitions2(&bc, 4, score4, NULL);
            unsigned n = select_lowest(score4, 64, plan->keep_alpha, list);
            try_partitions(&bc, ef, 7, list, n, score4, plan->slack, &best);
        }
        try_rotations(&bc, plan, false, &best);
    }
    /* The winner's mode and partition fitted again from the extended
     * starts (too slow for every fit at this level). */
    if (plan->extend_winner && best.err > 0) {
        effort ext = *ef;
        ext.extend = true;
        if (bc7_modes[best.mode].index2_bits)
            try_separate_mode(&bc, &ext, best.mode, best.rotation, best.index_sel, &best);
        else
            try_joint_mode(&bc, &ext, best.mode, best.partition, &best);
    }
    /* Whole-endpoint moves on the winner only (too slow for every fit). */
    if (ef->nudge && best.err > 0)
        nudge_candidate(&bc, ef, &best);
    pack_candidate(&best, out);
}
