/*
 * uastc_encode.c — the UASTC 4×4 block encoder (encode.h): per block, a set
 * of candidate layouts chosen by quality, each fitted (principal axis,
 * endpoints quantised to the mode's ISE range, weights chosen against the
 * exact decoded palette, least-squares refinement), then scored by decoding
 * the packed candidate with the shared decoder (common/uastc.h), so the
 * chosen block is the one whose real decoding is closest to the source.
 *
 * Which modes: solid blocks take mode 8 (exact). Opaque blocks: mode 0
 * (4-bit weights, 192-level endpoints) always; normal adds 18 (5-bit
 * weights), 1, dual-plane 6 and two subsets (mode 2) on the pattern whose
 * subsets lie closest to lines; best tries mode 2 on the best 4 patterns and
 * the partitioned modes 3 and 4. Translucent blocks: 10 and 12 (5-bit
 * weights) always; normal adds dual-plane 11 (alpha on its own plane), 14
 * and the partitioned 9 on the best pattern; best adds 13 and mode 9 on the
 * best 4. Grey blocks also try the luminance-alpha modes 15 and 17 (and 16
 * at best); best also tries dual-plane 11 with each colour channel alone.
 * Every fit refines its endpoints by least squares (once at fast, as Basis
 * Universal's fastest level does, twice above). Then the chosen block's
 * endpoints move one quantisation step at a time while that lowers the
 * exact error (1 pass at normal, 3 at best). The hint bits (for transcoding
 * to BC1 and ETC) are uastc_hints.c's. BENCHMARKS.md (UASTC) compares it
 * with basisu.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "common/uastc.h"
#include "cook/encode/encode.h"

/* ---- quantisation tables ---------------------------------------------------- */

/* Per ISE range: the nearest ISE value of each 8-bit endpoint, and the ISE
 * values in order of their unquantised value (ISE order interleaves them). */
static uint8_t nearest_ise[21][256];
static uint8_t ise_by_rank[21][256], rank_of_ise[21][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void) {
    for (unsigned r = 0; r < 21; r++) {
        unsigned levels = uastc_ise_levels(r);
        for (unsigned q = 0; q < levels; q++) {
            unsigned rank = 0; /* values below q's, ties broken by ISE value */
            for (unsigned o = 0; o < levels; o++) {
                unsigned a = uastc_unquant_endpoint(r, o), b = uastc_unquant_endpoint(r, q);
                rank += a < b || (a == b && o < q);
            }
            ise_by_rank[r][rank] = (uint8_t)q;
            rank_of_ise[r][q] = (uint8_t)rank;
        }
        for (unsigned v = 0; v < 256; v++) {
            unsigned best = 0, best_d = 1000;
            for (unsigned q = 0; q < levels; q++) {
                int d = (int)uastc_unquant_endpoint(r, q) - (int)v;
                unsigned ad = (unsigned)(d < 0 ? -d : d);
                if (ad < best_d) {
                    best_d = ad;
                    best = q;
                }
            }
            nearest_ise[r][v] = (uint8_t)best;
        }
    }
}

static uint8_t quantise(unsigned range, float v) {
    int i = (int)lrintf(v);
    i = i < 0 ? 0 : i > 255 ? 255 : i;
    return nearest_ise[range][i];
}

/* ---- fitting one subset on one plane --------------------------------------- */

/* What one fit works on: the block's texels, the texels of the subset, the
 * endpoint components of the mode and which of them this plane carries. */
typedef struct fit_job {
    const uint8_t *rgba; /* 16 texels */
    const uint8_t *members;
    unsigned count;
    unsigned comps;     /* 2 LA, 3 RGB, 4 RGBA */
    unsigned chan_mask; /* components (0..comps-1) this plane weighs */
    unsigned range, wbits;
} fit_job;

/* Component k of texel i in the mode's terms (LA: luminance is red). */
static float comp_of(const fit_job *j, unsigned i, unsigned k) {
    unsigned channel = j->comps == 2 ? (k == 0 ? 0u : 3u) : k;
    return (float)j->rgba[4 * i + channel];
}

/* Best weight per member for quantised endpoints q, against the palette
 * the decoder would produce; returns the error. */
static float pick_weights(const fit_job *j, uint8_t q[4][2], uint8_t *weights) {
    unsigned levels = 1u << j->wbits;
    float palette[32][4];
    for (unsigned w = 0; w < levels; w++) {
        unsigned w64 = uastc_unquant_weight(j->wbits, w);
        for (unsigned k = 0; k < j->comps; k++) {
            unsigned e0 = uastc_unquant_endpoint(j->range, q[k][0]);
            unsigned e1 = uastc_unquant_endpoint(j->range, q[k][1]);
            palette[w][k] = (float)uastc_lerp(e0, e1, w64, false);
        }
    }
    float total = 0;
    for (unsigned m = 0; m < j->count; m++) {
        unsigned i = j->members[m], best = 0;
        float best_e = 1e30f;
        for (unsigned w = 0; w < levels; w++) {
            float e = 0;
            for (unsigned k = 0; k < j->comps; k++) {
                if (!((j->chan_mask >> k) & 1u))
                    continue;
                float d = palette[w][k] - comp_of(j, i, k);
                /* LA: luminance stands for three channels. */
                e += d * d * (j->comps == 2 && k == 0 ? 3.0f : 1.0f);
            }
            if (e < best_e) {
                best_e = e;
                best = w;
            }
        }
        weights[m] = (uint8_t)best;
        total += best_e;
    }
    return total;
}

/* Endpoints along the principal axis of the members' components. */
static void axis_endpoints(const fit_job *j, float lo[4], float hi[4]) {
    float mean[4] = {0, 0, 0, 0}, cov[4][4] = {{0}};
    for (unsigned m = 0; m < j->count; m++)
        for (unsigned k = 0; k < j->comps; k++)
            mean[k] += comp_of(j, j->members[m], k) / (float)j->count;
    for (unsigned m = 0; m < j->count; m++)
        for (unsigned a = 0; a < j->comps; a++)
            for (unsigned b = 0; b < j->comps; b++)
                cov[a][b] += (comp_of(j, j->members[m], a) - mean[a]) *
                             (comp_of(j, j->members[m], b) - mean[b]);
    /* Only this plane's components: another plane's vary independently. */
    float axis[4];
    for (unsigned k = 0; k < 4; k++)
        axis[k] = (j->chan_mask >> k) & 1u ? 1.0f : 0.0f;
    for (unsigned a = 0; a < j->comps; a++)
        for (unsigned b = 0; b < j->comps; b++)
            if (!((j->chan_mask >> a) & (j->chan_mask >> b) & 1u))
                cov[a][b] = 0;
    for (int it = 0; it < 8; it++) { /* power iteration */
        float next[4] = {0, 0, 0, 0}, len = 0;
        for (unsigned a = 0; a < j->comps; a++) {
            for (unsigned b = 0; b < j->comps; b++)
                next[a] += cov[a][b] * axis[b];
            len += next[a] * next[a];
        }
        if (len < 1e-12f)
            break;
        len = sqrtf(len);
        for (unsigned a = 0; a < j->comps; a++)
            axis[a] = next[a] / len;
    }
    float tmin = 1e30f, tmax = -1e30f;
    for (unsigned m = 0; m < j->count; m++) {
        float t = 0;
        for (unsigned k = 0; k < j->comps; k++)
            t += (comp_of(j, j->members[m], k) - mean[k]) * axis[k];
        tmin = t < tmin ? t : tmin;
        tmax = t > tmax ? t : tmax;
    }
    for (unsigned k = 0; k < j->comps; k++) {
        lo[k] = mean[k] + tmin * axis[k];
        hi[k] = mean[k] + tmax * axis[k];
    }
}

/* Least-squares endpoints for fixed weights, per component. False when the
 * weights are all equal (the system is singular). */
static bool refit(const fit_job *j, const uint8_t *weights, float lo[4], float hi[4]) {
    float aa = 0, ab = 0, bb = 0, ax[4] = {0, 0, 0, 0}, bx[4] = {0, 0, 0, 0};
    for (unsigned m = 0; m < j->count; m++) {
        float t = (float)uastc_unquant_weight(j->wbits, weights[m]) / 64.0f, s = 1.0f - t;
        aa += s * s;
        ab += s * t;
        bb += t * t;
        for (unsigned k = 0; k < j->comps; k++) {
            ax[k] += s * comp_of(j, j->members[m], k);
            bx[k] += t * comp_of(j, j->members[m], k);
        }
    }
    float det = aa * bb - ab * ab;
    if (fabsf(det) < 1e-6f)
        return false;
    for (unsigned k = 0; k < j->comps; k++) {
        lo[k] = (ax[k] * bb - bx[k] * ab) / det;
        hi[k] = (bx[k] * aa - ax[k] * ab) / det;
    }
    return true;
}

/* Fits the plane's components of one subset: writes q[k][0..1] for the
 * plane's components and one weight per member; returns the error. */
static float fit(const fit_job *j, unsigned refinements, uint8_t q[4][2], uint8_t *weights) {
    float lo[4], hi[4];
    axis_endpoints(j, lo, hi);
    for (unsigned k = 0; k < j->comps; k++)
        if ((j->chan_mask >> k) & 1u) {
            q[k][0] = quantise(j->range, lo[k]);
            q[k][1] = quantise(j->range, hi[k]);
        }
    float err = pick_weights(j, q, weights);
    for (unsigned r = 0; r < refinements && err > 0; r++) {
        uint8_t q2[4][2], w2[16];
        memcpy(q2, q, sizeof q2);
        if (!refit(j, weights, lo, hi))
            break;
        for (unsigned k = 0; k < j->comps; k++)
            if ((j->chan_mask >> k) & 1u) {
                q2[k][0] = quantise(j->range, lo[k]);
                q2[k][1] = quantise(j->range, hi[k]);
            }
        float e2 = pick_weights(j, q2, w2);
        if (e2 >= err)
            break;
        err = e2;
        memcpy(q, q2, sizeof q2);
        memcpy(weights, w2, j->count);
    }
    return err;
}

/* ---- whole candidates -------------------------------------------------------- */

/* Squared error of a logical block's real decoding against the source. */
static double block_error(const uastc_logical *b, const uint8_t rgba[64]) {
    uint8_t out[64];
    uastc_decode_logical(b, false, out);
    double e = 0;
    for (int i = 0; i < 64; i++) {
        double d = (double)out[i] - (double)rgba[i];
        e += d * d;
    }
    return e;
}

/* Flips a plane of a subset so its anchor's weight has the top bit clear:
 * swapping the endpoints and mirroring the weights decodes the same, since
 * ASTC's weight unquantisation is symmetric (w(max - v) = 64 - w(v)). */
static void fix_anchor(uastc_logical *b, const uastc_mode_desc *d, unsigned subset, unsigned plane,
                       unsigned chan_mask, const uint8_t *subset_of, unsigned anchor) {
    unsigned top = 1u << (d->weight_bits - 1), max = (1u << d->weight_bits) - 1;
    if (b->weights[anchor * d->planes + plane] < top)
        return;
    uint8_t *e = b->endpoints + subset * d->comps * 2u;
    for (unsigned k = 0; k < d->comps; k++)
        if ((chan_mask >> k) & 1u) {
            uint8_t t = e[2 * k];
            e[2 * k] = e[2 * k + 1];
            e[2 * k + 1] = t;
        }
    for (unsigned i = 0; i < 16; i++)
        if (subset_of[i] == subset)
            b->weights[i * d->planes + plane] = (uint8_t)(max - b->weights[i * d->planes + plane]);
}

/* One subset's plane of a block: fills `weights` for j's members (a fit also
 * sets the plane's endpoints in *b). */
typedef void (*plane_step)(uastc_logical *b, const uastc_mode_desc *d, unsigned subset,
                           const fit_job *j, unsigned refinements, uint8_t weights[16]);

/* Runs `step` on every subset and plane of b's mode and pattern, stores the
 * weights it chose, fixes the anchors; returns the block's exact error. */
static double each_plane(uastc_logical *b, const uint8_t rgba[64], plane_step step,
                         unsigned refinements) {
    const uastc_mode_desc *d = uastc_mode_info(b->mode);
    uint8_t subset_of[16], anchors[3];
    unsigned subsets = uastc_partition(b->mode, b->pattern, subset_of, anchors);
    /* The second plane's component in the mode's terms (LA: alpha is 1). */
    unsigned plane2 = d->comps == 2 ? 1u : b->ccs;
    unsigned all = (1u << d->comps) - 1u;
    for (unsigned s = 0; s < subsets; s++) {
        uint8_t members[16], count = 0;
        for (unsigned i = 0; i < 16; i++)
            if (subset_of[i] == s)
                members[count++] = (uint8_t)i;
        for (unsigned p = 0; p < d->planes; p++) {
            unsigned mask = d->planes == 1 ? all : p == 0 ? all & ~(1u << plane2) : 1u << plane2;
            fit_job j = {rgba, members, count, d->comps, mask, d->endpoint_ise, d->weight_bits};
            uint8_t weights[16];
            step(b, d, s, &j, refinements, weights);
            for (unsigned m = 0; m < count; m++)
                b->weights[members[m] * d->planes + p] = weights[m];
            fix_anchor(b, d, s, p, mask, subset_of, anchors[s]);
        }
    }
    return block_error(b, rgba);
}

/* plane_step of try_mode: endpoints and weights fitted together. */
static void fit_plane(uastc_logical *b, const uastc_mode_desc *d, unsigned subset, const fit_job *j,
                      unsigned refinements, uint8_t weights[16]) {
    uint8_t q[4][2] = {{0}};
    fit(j, refinements, q, weights);
    for (unsigned k = 0; k < d->comps; k++)
        if ((j->chan_mask >> k) & 1u) {
            b->endpoints[subset * d->comps * 2u + 2 * k] = q[k][0];
            b->endpoints[subset * d->comps * 2u + 2 * k + 1] = q[k][1];
        }
}

/* Fits mode `mode` (with `pattern` and, for two planes, `ccs`) to the
 * block; returns its exact error, the packed block in *out. */
static double try_mode(const uint8_t rgba[64], unsigned mode, unsigned pattern, unsigned ccs,
                       unsigned refinements, uastc_logical *out) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    memset(out, 0, sizeof *out);
    out->mode = (uint8_t)mode;
    out->pattern = (uint8_t)pattern;
    out->ccs = (uint8_t)(d->comps == 2 && d->planes == 2 ? 3 : ccs);
    return each_plane(out, rgba, fit_plane, refinements);
}

/* Residual of a principal-axis fit of the members (what a line leaves): a
 * quick score for choosing partition patterns. */
static float line_residual(const uint8_t rgba[64], const uint8_t *subset_of, unsigned subset,
                           unsigned comps) {
    uint8_t members[16], count = 0;
    for (unsigned i = 0; i < 16; i++)
        if (subset_of[i] == subset)
            members[count++] = (uint8_t)i;
    fit_job j = {rgba, members, count, comps, (1u << comps) - 1u, 20, 5};
    float lo[4], hi[4], e = 0;
    axis_endpoints(&j, lo, hi);
    for (unsigned m = 0; m < count; m++) {
        float dir[4], len = 0, t = 0, v[4];
        for (unsigned k = 0; k < comps; k++) {
            dir[k] = hi[k] - lo[k];
            len += dir[k] * dir[k];
            v[k] = comp_of(&j, members[m], k) - lo[k];
            t += v[k] * dir[k];
        }
        t = len > 0 ? t / len : 0;
        for (unsigned k = 0; k < comps; k++) {
            float r = v[k] - t * dir[k];
            e += r * r;
        }
    }
    return e;
}

/* The `keep` patterns of a partitioned mode whose subsets lie closest to
 * lines, best first. */
static unsigned best_patterns(const uint8_t rgba[64], unsigned mode, unsigned keep,
                              uint8_t *chosen) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    unsigned n = uastc_pattern_count(mode);
    float scores[UASTC_PATTERNS2];
    for (unsigned p = 0; p < n; p++) {
        uint8_t subset_of[16], anchors[3];
        uastc_partition(mode, p, subset_of, anchors);
        scores[p] = 0;
        for (unsigned s = 0; s < d->subsets; s++)
            scores[p] += line_residual(rgba, subset_of, s, d->comps);
    }
    keep = keep < n ? keep : n;
    for (unsigned k = 0; k < keep; k++) {
        unsigned best = 0;
        for (unsigned p = 1; p < n; p++)
            if (scores[p] < scores[best])
                best = p;
        chosen[k] = (uint8_t)best;
        scores[best] = 1e30f;
    }
    return keep;
}

/* ---- the block --------------------------------------------------------------- */

typedef struct candidate_set {
    const uint8_t *rgba;
    unsigned refinements;
    double best_error;
    uastc_logical best;
} candidate_set;

static void consider(candidate_set *c, unsigned mode, unsigned pattern, unsigned ccs) {
    uastc_logical b;
    double e = try_mode(c->rgba, mode, pattern, ccs, c->refinements, &b);
    if (e < c->best_error) {
        c->best_error = e;
        c->best = b;
    }
}

static void consider_partitioned(candidate_set *c, unsigned mode, unsigned keep) {
    uint8_t patterns[UASTC_PATTERNS2];
    unsigned n = best_patterns(c->rgba, mode, keep, patterns);
    for (unsigned i = 0; i < n; i++)
        consider(c, mode, patterns[i], 0);
}

/* plane_step of reweigh: the best weights for the endpoints the block has. */
static void reweigh_plane(uastc_logical *b, const uastc_mode_desc *d, unsigned subset,
                          const fit_job *j, unsigned refinements, uint8_t weights[16]) {
    (void)refinements;
    uint8_t q[4][2];
    for (unsigned k = 0; k < d->comps; k++) {
        q[k][0] = b->endpoints[subset * d->comps * 2u + 2 * k];
        q[k][1] = b->endpoints[subset * d->comps * 2u + 2 * k + 1];
    }
    pick_weights(j, q, weights);
}

/* Best weights for a block's current endpoints, texel by texel and plane by
 * plane against the exact palettes, anchors fixed; returns the exact error. */
static double reweigh(uastc_logical *b, const uint8_t rgba[64]) {
    return each_plane(b, rgba, reweigh_plane, 0);
}

/* Moves each endpoint one quantisation step up or down while that lowers the
 * exact error (quantising each endpoint to its nearest value is not the best
 * pair): `passes` sweeps over the endpoints. */
static void polish(candidate_set *c, unsigned passes) {
    uastc_logical *b = &c->best;
    const uastc_mode_desc *d = uastc_mode_info(b->mode);
    if (b->mode == UASTC_MODE_SOLID || c->best_error == 0)
        return;
    unsigned count = (unsigned)d->comps * 2u * d->subsets, r = d->endpoint_ise;
    unsigned levels = uastc_ise_levels(r);
    for (unsigned pass = 0; pass < passes; pass++) {
        bool improved = false;
        for (unsigned i = 0; i < count; i++) {
            for (int step = -1; step <= 1; step += 2) {
                int rank = (int)rank_of_ise[r][b->endpoints[i]] + step;
                if (rank < 0 || rank >= (int)levels)
                    continue;
                uastc_logical trial = *b;
                trial.endpoints[i] = ise_by_rank[r][rank];
                double e = reweigh(&trial, c->rgba);
                if (e < c->best_error) {
                    c->best_error = e;
                    *b = trial;
                    improved = true;
                }
            }
        }
        if (!improved)
            break;
    }
}

void uastc_encode_block(const uint8_t rgba[64], block_quality quality, uint8_t out[16]) {
    pthread_once(&tables_once, build_tables);
    bool solid = true, opaque = true, grey = true;
    for (unsigned i = 0; i < 16; i++) {
        solid = solid && memcmp(rgba + 4 * i, rgba, 4) == 0;
        opaque = opaque && rgba[4 * i + 3] == 255;
        grey = grey && rgba[4 * i] == rgba[4 * i + 1] && rgba[4 * i] == rgba[4 * i + 2];
    }
    candidate_set c = {rgba, quality == BLOCK_QUALITY_FAST ? 1u : 2u, 1e300, {0}};
    if (solid) {
        c.best.mode = UASTC_MODE_SOLID;
        memcpy(c.best.solid, rgba, 4);
    } else {
        bool normal = quality != BLOCK_QUALITY_FAST, best = quality == BLOCK_QUALITY_BEST;
        if (grey) {
            consider(&c, 15, 0, 0);
            if (normal)
                consider(&c, 17, 0, 3);
            if (best)
                consider_partitioned(&c, 16, 4);
        }
        if (opaque) {
            consider(&c, 0, 0, 0);
            if (normal) {
                consider(&c, 18, 0, 0);
                consider(&c, 1, 0, 0);
                for (unsigned ccs = 0; ccs < 3; ccs++)
                    consider(&c, 6, 0, ccs);
                consider_partitioned(&c, 2, 1);
            }
            if (best) {
                consider_partitioned(&c, 2, 4);
                consider_partitioned(&c, 4, 2);
                consider_partitioned(&c, 3, 2);
            }
        } else {
            consider(&c, 10, 0, 0);
            consider(&c, 12, 0, 0);
            if (normal) {
                consider(&c, 11, 0, 3);
                consider(&c, 14, 0, 0);
                consider_partitioned(&c, 9, 1);
            }
            if (best) {
                consider(&c, 13, 0, 3);
                for (unsigned ccs = 0; ccs < 3; ccs++)
                    consider(&c, 11, 0, ccs);
                consider_partitioned(&c, 9, 4);
            }
        }
    }
    polish(&c, quality == BLOCK_QUALITY_FAST ? 0u : quality == BLOCK_QUALITY_NORMAL ? 1u : 3u);
    uastc_encode_hints(rgba, quality, &c.best);
    /* Every candidate was built within its mode's ranges: packing cannot fail. */
    (void)uastc_pack(&c.best, out);
}

/* ---- endpoints for given weights (uastc_rdo.c) ------------------------------ */

/* plane_step of uastc_refit_endpoints: least-squares endpoints for the
 * weights the block has, which it keeps (equal weights: the mean). */
static void refit_plane(uastc_logical *b, const uastc_mode_desc *d, unsigned subset,
                        const fit_job *j, unsigned refinements, uint8_t weights[16]) {
    (void)refinements;
    /* each_plane's second plane carries exactly the ccs component. */
    unsigned plane2 = d->comps == 2 ? 1u : b->ccs, planes = d->planes;
    unsigned plane = planes == 2 && j->chan_mask == 1u << plane2 ? 1u : 0u;
    for (unsigned m = 0; m < j->count; m++)
        weights[m] = b->weights[j->members[m] * planes + plane];
    float lo[4], hi[4];
    if (!refit(j, weights, lo, hi))
        for (unsigned k = 0; k < j->comps; k++) {
            float mean = 0;
            for (unsigned m = 0; m < j->count; m++)
                mean += comp_of(j, j->members[m], k) / (float)j->count;
            lo[k] = hi[k] = mean;
        }
    for (unsigned k = 0; k < j->comps; k++)
        if ((j->chan_mask >> k) & 1u) {
            b->endpoints[subset * d->comps * 2u + 2 * k] = quantise(j->range, lo[k]);
            b->endpoints[subset * d->comps * 2u + 2 * k + 1] = quantise(j->range, hi[k]);
        }
}

double uastc_refit_endpoints(uastc_logical *b, const uint8_t rgba[64]) {
    pthread_once(&tables_once, build_tables);
    if (b->mode == UASTC_MODE_SOLID)
        return block_error(b, rgba);
    return each_plane(b, rgba, refit_plane, 0);
}

double uastc_reweigh(uastc_logical *b, const uint8_t rgba[64]) {
    pthread_once(&tables_once, build_tables);
    if (b->mode == UASTC_MODE_SOLID)
        return block_error(b, rgba);
    return reweigh(b, rgba);
}
