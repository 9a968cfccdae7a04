/*
 * mips.c — resize and mip chains for textures (process stage).
 *
 * Filtering happens in a working space where averaging is physically right:
 *   - sRGB colour is converted to linear light first (a 1-pixel black/white
 *     checkerboard averages to linear 0.5, stored as sRGB 188, not 128);
 *   - colour is premultiplied by alpha while filtering (alpha_weighted), so
 *     fully transparent texels contribute no colour;
 *   - normal maps are decoded to vectors and renormalised after every level.
 * The filter is an area (box) filter with exact fractional coverage, separable,
 * which handles both halving of odd sizes (floor halving down to 1x1) and any
 * downscale ratio for texture.max_size. Each level is filtered from the
 * previous level's working copy, never from quantised output.
 *
 * Alpha-test coverage (MASK materials): after a level is produced, its alpha is
 * scaled so the fraction of texels above the cutoff matches level 0's.
 *
 * Speed without changing results: sRGB decode is a 256-entry table, sRGB
 * encode a table step function equal to the powf curve after rounding to 8
 * bits; an exact 2:1 halving computes what the area filter would without its
 * temporary, one texel per vector operation; level 1 is filtered straight
 * from level 0's texels (8-bit or float), so level 0 is never copied. Each
 * texel goes from the filter to its stored form at once: 8-bit levels
 * (levels8) come out as the bytes the GPU formats take, with no float level
 * and no separate quantising pass. Only the working copy the next level
 * reads is kept, in two buffers used in turn, and the first level filtered
 * keeps none: when the next level halves it exactly, both are made together
 * band by band (the first level's working rows of a band, then the next
 * level's rows from them), so a big texture's largest working copy is the
 * second level filtered (a quarter of the first's texels). Rows are
 * independent, so a level's rows run on options->threads threads
 * (parallel_for) with the same bytes for any thread count. Where the CPU
 * has them (a run-time check), AVX2 encodes an 8-bit level's rows 8 texels
 * at a time and AVX-512 halves opaque 8-bit rows 16 at a time, the table
 * held in registers (mips_simd.c): the same IEEE operations lane by lane, so
 * the same bytes (mip_options.portable turns them off for tests).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/process/mips_simd.h"
#include "cook/process/process.h"

float image_srgb_to_linear(float v) {
    if (v <= 0.04045f)
        return v / 12.92f;
    return powf((v + 0.055f) / 1.055f, 2.4f);
}

float image_linear_to_srgb(float v) {
    if (v <= 0.0031308f)
        return v * 12.92f;
    return 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
}

uint32_t mip_level_count(uint32_t width, uint32_t height) {
    uint32_t largest = width > height ? width : height;
    uint32_t count = 1;
    while (largest > 1) {
        largest >>= 1;
        count++;
    }
    return count;
}

/* Output sample i of an area resampling of n samples by `scale` (n / m)
 * covers [begin, end): the source samples first..last - 1, each weighted by
 * the part of it inside (area_weight). */
typedef struct area_span {
    double begin, end;
    uint32_t first, last;
} area_span;

static area_span area_span_of(uint32_t i, double scale, uint32_t n) {
    area_span span = {.begin = i * scale, .end = (i + 1) * scale};
    span.first = (uint32_t)span.begin;
    span.last = (uint32_t)ceil(span.end);
    if (span.last > n)
        span.last = n;
    return span;
}

/* The part of source sample k inside the span (0 or less: none). */
static double area_weight(const area_span *span, uint32_t k) {
    double lo = k > span->begin ? k : span->begin;
    double hi = (k + 1) < span->end ? (k + 1) : span->end;
    return hi - lo;
}

/* Adds the `count` floats of `s`, weighted by w, to sum[0..count) and w to
 * *total; nothing when w <= 0. */
static void area_add(double *sum, double *total, const float *s, size_t count, double w) {
    if (w <= 0)
        return;
    for (size_t c = 0; c < count; c++)
        sum[c] += w * s[c];
    *total += w;
}

/* dst[0..count): the weighted means sum / total (0 when nothing was added). */
static void area_store(float *dst, const double *sum, size_t count, double total) {
    for (size_t c = 0; c < count; c++)
        dst[c] = total > 0 ? (float)(sum[c] / total) : 0.0f;
}

/* One dimension of area resampling: dst[i] averages src over the interval
 * [i * n / m, (i + 1) * n / m). `stride` is the distance between successive
 * samples along the axis, in floats; 4 channels per sample. */
static void resample_line(const float *src, size_t src_stride, uint32_t n, float *dst,
                          size_t dst_stride, uint32_t m) {
    double scale = (double)n / (double)m;
    for (uint32_t i = 0; i < m; i++) {
        area_span span = area_span_of(i, scale, n);
        double sum[4] = {0, 0, 0, 0};
        double total = 0;
        for (uint32_t k = span.first; k < span.last; k++)
            area_add(sum, &total, src + (size_t)k * src_stride, 4, area_weight(&span, k));
        area_store(dst + (size_t)i * dst_stride, sum, 4, total);
    }
}

bool image_resample_area(const float *src, uint32_t sw, uint32_t sh, float *dst, uint32_t dw,
                         uint32_t dh) {
    size_t tmp_count;
    if (sw == 0 || sh == 0 || dw == 0 || dh == 0 ||
        !checked_mul_size((size_t)dw * 4, sh, &tmp_count) || tmp_count > SIZE_MAX / sizeof(float))
        return false;
    float *tmp = malloc(tmp_count * sizeof(float));
    if (tmp == NULL)
        return false;
    for (uint32_t y = 0; y < sh; y++)
        resample_line(src + (size_t)y * sw * 4, 4, sw, tmp + (size_t)y * dw * 4, 4, dw);
    for (uint32_t x = 0; x < dw; x++)
        resample_line(tmp + (size_t)x * 4, (size_t)dw * 4, sh, dst + (size_t)x * 4, (size_t)dw * 4,
                      dh);
    free(tmp);
    return true;
}

float mip_alpha_coverage(const float *rgba, size_t pixel_count, float cutoff) {
    if (pixel_count == 0)
        return 0.0f;
    size_t above = 0;
    for (size_t i = 0; i < pixel_count; i++)
        above += rgba[i * 4 + 3] > cutoff;
    return (float)((double)above / (double)pixel_count);
}

/* One texel (RGBA) as a GCC/Clang vector: the lane operations are the IEEE
 * float operations the scalar code did, four at a time. */
typedef float v4f __attribute__((vector_size(16)));

/* sRGB -> linear for the 256 values an 8-bit source can hold (exact floats
 * k / 255 hit the table; anything else takes powf). */
static float srgb_table[256];

/* linear -> sRGB 8-bit code without powf, exactly
 * to_unorm8(image_linear_to_srgb(v)) for every float v >= 0: that function
 * is monotonic, so it is a step function whose 255 steps are found once by
 * bisection on the float bit patterns (threshold[k] = the smallest v that
 * encodes to k + 1). A lookup on v's exponent and top 8 mantissa bits gives
 * the code at the start of v's bucket (3328 buckets for 2^-13 .. 1, and one
 * for 1.0; v is clamped into 2^-13 .. 1 first, below 2^-13 everything
 * encodes to 0) and the one step inside the bucket, if any: steps are at
 * least 0.9 % apart (relative), buckets 0.4 % wide, so one compare finishes
 * (test_mips checks every step). */
static float srgb_threshold[256]; /* [255] = +inf: no code above 255 */
/* A bucket in one word (one load, or one gather in mips_simd.c): its first
 * code in bits 0..7, and from bit 8 up its step as the step's bits less the
 * bucket's first bits (1 << 15, past the bucket: no step). */
static uint32_t srgb_bucket[SRGB_BUCKETS + 1];
static float unorm8_value[256]; /* k / 255.0f */
static float normal_table[256]; /* k / 255.0f * 2 - 1: a normal map's vector component */
/* An 8-bit texel into the working space as vector loads and adds instead of
 * assembling lanes: texel_lane[mode - 1][channel][k] holds the mode's
 * working value of k in lane `channel` and zeros elsewhere (adding zeros is
 * exact); alpha_lane[k] = {0, 0, 0, k / 255}, alpha_weight[k] = {a, a, a, 1}
 * with a = k / 255 (premultiplication). */
typedef struct texel_lanes {
    v4f lane[3][256];
} texel_lanes;
static texel_lanes texel_lane[3];
static v4f alpha_lane[256];
static v4f alpha_weight[256];
static pthread_once_t srgb_tables_once = PTHREAD_ONCE_INIT;
static bool cpu_has_avx2;   /* mips_simd.c's encode runs here */
static bool cpu_has_avx512; /* and its opaque halving */

static float float_of_bits(uint32_t bits) {
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static uint8_t srgb_encode_reference(float v) {
    float s = image_linear_to_srgb(v);
    return !(s > 0.0f) ? 0 : s >= 1.0f ? 255 : (uint8_t)lrintf(s * 255.0f);
}

static void srgb_tables_init(void) {
    cpu_has_avx2 = mips_avx2_available();
    cpu_has_avx512 = mips_avx512_available();
    for (int i = 0; i < 256; i++) {
        srgb_table[i] = image_srgb_to_linear(i / 255.0f);
        unorm8_value[i] = i / 255.0f;
        normal_table[i] = unorm8_value[i] * 2.0f - 1.0f;
    }
    const float *mode_table[3] = {srgb_table, unorm8_value, normal_table}; /* mip_mode order */
    for (int i = 0; i < 256; i++) {
        float a = unorm8_value[i];
        for (int m = 0; m < 3; m++)
            for (int c = 0; c < 3; c++) {
                texel_lane[m].lane[c][i] = (v4f){0.0f, 0.0f, 0.0f, 0.0f};
                texel_lane[m].lane[c][i][c] = mode_table[m][i];
            }
        alpha_lane[i] = (v4f){0.0f, 0.0f, 0.0f, a};
        alpha_weight[i] = (v4f){a, a, a, 1.0f};
    }
    for (uint32_t k = 0; k < 255; k++) {   /* smallest bits with code > k */
        uint32_t lo = 0, hi = 0x3F800000u; /* code(lo) <= k < code(hi) */
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (srgb_encode_reference(float_of_bits(mid)) > k)
                hi = mid;
            else
                lo = mid;
        }
        srgb_threshold[k] = float_of_bits(hi);
    }
    srgb_threshold[255] = INFINITY;
    uint32_t code = 0;
    for (uint32_t b = 0; b <= SRGB_BUCKETS; b++) {
        float start = float_of_bits(SRGB_LOW_BITS + (b << 15));
        float end = float_of_bits(SRGB_LOW_BITS + ((b + 1) << 15));
        while (code < 255 && start >= srgb_threshold[code])
            code++;
        uint32_t step_bits;
        memcpy(&step_bits, &srgb_threshold[code], sizeof step_bits);
        uint32_t step =
            srgb_threshold[code] < end ? step_bits - (SRGB_LOW_BITS + (b << 15)) : 1u << 15;
        srgb_bucket[b] = code | step << 8;
    }
}

/* The filter's values are never NaN (sources are finite, alpha divides only
 * when above 0). The clamp into 2^-13 .. 1 is on the bit pattern as a
 * signed integer, which orders non-negative floats as they compare and puts
 * negative ones below: branchless, where float compares would branch on
 * the data. */
/* The code of v's bits, clamped into 2^-13 .. 1: the bucket's first code,
 * plus one from its step on (the bits compare as the floats do). */
static inline uint8_t srgb8_of_bits(uint32_t bits) {
    uint32_t bucket = srgb_bucket[(bits - SRGB_LOW_BITS) >> 15];
    uint32_t step = (bits & ~0x7FFFu) + (bucket >> 8);
    return (uint8_t)((bucket & 0xFF) + (bits >= step));
}

static inline uint8_t srgb8_of(float v) { /* the tables are initialised */
    int32_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits = bits < (int32_t)SRGB_LOW_BITS ? (int32_t)SRGB_LOW_BITS : bits;
    bits = bits > (int32_t)SRGB_ONE_BITS ? (int32_t)SRGB_ONE_BITS : bits;
    return srgb8_of_bits((uint32_t)bits);
}

/* srgb8_of of lanes 0..2 (colour) into out[0..2], the clamp and bucket of
 * the lanes as one vector: ~15 % less CPU for a whole 8-bit chain than three
 * scalar chains. The float levels keep srgb8_of, so test_mips' comparison of
 * 8-bit and float levels checks one against the other. */
typedef int32_t v4i __attribute__((vector_size(16)));
static inline void srgb8_of_rgb(v4f v, uint8_t *out) {
    const int32_t lo = (int32_t)SRGB_LOW_BITS, hi = (int32_t)SRGB_ONE_BITS;
    const v4i low = {lo, lo, lo, lo};
    const v4i one = {hi, hi, hi, hi};
    v4i bits;
    memcpy(&bits, &v, sizeof bits);
    v4i below = bits < low; /* lanes all ones where true */
    v4i above = bits > one;
    bits = (below & low) | (~below & bits);
    bits = (above & one) | (~above & bits);
    for (int c = 0; c < 3; c++)
        out[c] = srgb8_of_bits((uint32_t)bits[c]);
}

uint8_t image_linear_to_srgb8(float v) {
    pthread_once(&srgb_tables_once, srgb_tables_init);
    return isnan(v) ? 0 : srgb8_of(v);
}

float image_unorm8_to_float(uint8_t v) {
    pthread_once(&srgb_tables_once, srgb_tables_init);
    return unorm8_value[v];
}

static float srgb_to_linear_fast(float v) {
    float k = v * 255.0f + 0.5f; /* rounds: k / 255.0f times 255 may land just below k */
    if (k >= 0.0f && k < 256.0f) {
        int i = (int)k;
        if (unorm8_value[i] == v)
            return srgb_table[i];
    }
    return image_srgb_to_linear(v);
}

static float *alloc_rgba(uint32_t w, uint32_t h) {
    size_t count;
    if (!checked_mul_size((size_t)w * 4, h, &count) || count > SIZE_MAX / sizeof(float))
        return NULL;
    return malloc(count * sizeof(float));
}

static inline v4f load4(const float *p) {
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store4(float *p, v4f v) {
    memcpy(p, &v, sizeof v);
}

/* One texel, stored encoding -> working space. */
static inline v4f working_texel(const float *s, const mip_options *o) {
    v4f p = load4(s);
    if (o->mode == MIP_MODE_NORMAL) {
        v4f n = p * 2.0f - 1.0f;
        n[3] = s[3];
        return n;
    }
    if (o->mode == MIP_MODE_COLOR_SRGB)
        for (int c = 0; c < 3; c++)
            p[c] = srgb_to_linear_fast(s[c]);
    if (o->alpha_weighted)
        p *= (v4f){p[3], p[3], p[3], 1.0f};
    return p;
}

/* One 8-bit texel -> working space: working_texel of its k / 255 floats
 * (`lane` is the mode's texel_lane). */
static inline v4f working_texel8(const uint8_t *s, const texel_lanes *t, bool premultiply) {
    v4f p = t->lane[0][s[0]] + t->lane[1][s[1]] + t->lane[2][s[2]];
    if (premultiply)
        p *= alpha_weight[s[3]];
    return p + alpha_lane[s[3]];
}

/* working_texel8 of a texel with alpha 255 without the alpha lane: the
 * caller sets alpha to 1 (adding 0 to the colour lanes changes nothing). */
static inline v4f opaque_texel8(const uint8_t *s, const texel_lanes *t) {
    return t->lane[0][s[0]] + t->lane[1][s[1]] + t->lane[2][s[2]];
}

/* A normal map's working vector renormalised, as every level keeps it. */
static inline v4f renormalised(v4f p) {
    float len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (!(len > 1e-12f))
        return (v4f){0.0f, 0.0f, 1.0f, p[3]};
    v4f n = p / len;
    n[3] = p[3];
    return n;
}

/* Working space -> stored encoding before sRGB quantisation: colour divided
 * by alpha again, or a normal vector mapped back to 0..1. */
static inline v4f unweighted(v4f s, const mip_options *o) {
    v4f d = s;
    if (o->mode == MIP_MODE_NORMAL)
        d = renormalised(s) * 0.5f + 0.5f;
    else if (o->alpha_weighted && s[3] != 1.0f) /* opaque: dividing by 1 changes nothing */
        d = s[3] > 0.0f ? s / s[3] : (v4f){0.0f, 0.0f, 0.0f, 0.0f};
    d[3] = s[3];
    return d;
}

/* Working space -> stored floats. sRGB colour lands on the 8-bit grid. */
static inline v4f stored_texel(v4f s, const mip_options *o) {
    v4f d = unweighted(s, o);
    if (o->mode == MIP_MODE_COLOR_SRGB)
        for (int c = 0; c < 3; c++)
            d[c] = unorm8_value[srgb8_of(d[c])];
    return d;
}

/* Working space -> stored 8-bit texel: stored_texel quantised, without the
 * round trip through k / 255 for sRGB colour. */
static inline void stored_texel8(v4f s, const mip_options *o, uint8_t *out) {
    v4f d = unweighted(s, o);
    if (o->mode == MIP_MODE_COLOR_SRGB) {
        srgb8_of_rgb(d, out);
    } else {
        out[0] = image_float_to_unorm8(d[0]);
        out[1] = image_float_to_unorm8(d[1]);
        out[2] = image_float_to_unorm8(d[2]);
    }
    out[3] = image_float_to_unorm8(d[3]);
}

/* Level 0 as the caller gave it (stored encoding): floats or 8-bit texels. */
typedef struct level0_texels {
    const float *f;
    const uint8_t *b;
} level0_texels;

/* One level being made, row by row (parallel_for items are rows): from the
 * previous level's working copy `src` (or, when NULL, straight from level
 * 0's texels by an exact halving), into the working copy `work` and the
 * stored level (`out8` or `outf`). */
typedef struct level_job {
    const mip_options *o;
    const texel_lanes *lane; /* working_texel8's table for the mode */
    bool premultiply;        /* alpha_weighted outside normal maps */
    level0_texels base;      /* with src == NULL */
    const float *src;
    uint32_t sw;
    bool halve; /* 2:1 halving; else `work` already holds the resampled level */
    float *work;
    uint32_t dw;
    uint8_t *out8;
    float *outf;
    /* Bands: row y of a make_level call is the level's row first_row + y;
     * `work` holds the level's rows from work_row0 on and `src` the previous
     * level's rows from src_row0 on (all 0 for a whole level). */
    uint32_t first_row, work_row0, src_row0;
} level_job;

/* The average of a 2x2 quad as image_resample_area computes it for a 2:1
 * reduction, horizontal pairs and then the vertical pair, each summed and
 * halved ((a + b) / 2 + (c + d) / 2) / 2, which is this: halving is exact
 * (outside subnormals).
 * resample_line sums in double and rounds once; a float sum of two floats
 * rounds the same unless one is over 2^29 times the other (then at most 1
 * ulp apart: test_mips checks every texel within 1 code of the area
 * filter). Double sums would cost ~30 % of the mip time. */
static inline v4f quad_average(v4f a, v4f b, v4f c, v4f d) {
    return ((a + b) + (c + d)) * 0.25f;
}

/* What mips_simd.c's encode needs of the options. */
static mips_encode8 encode8_of(const mip_options *o) {
    return (mips_encode8){.mode = o->mode,
                          .unweight = o->alpha_weighted && o->mode != MIP_MODE_NORMAL,
                          .srgb_buckets = srgb_bucket};
}

/* Where make_row's texels come from: one loop each (make_texels inlined
 * with a constant source), so that no texel tests for the others. */
typedef enum texel_source {
    FROM_WORK,    /* `work` already holds the resampled level */
    FROM_SRC,     /* halving the previous level's working copy */
    FROM_OPAQUE8, /* halving an opaque row pair of 8-bit level 0 */
    FROM_BASE8,   /* halving 8-bit level 0 */
    FROM_BASEF,   /* halving float level 0 */
} texel_source;

/* Row y's texels (at `row` in the stored level, `work_row` in `work`; row
 * src_y of `src` is the first it halves); each stored at once unless
 * `batched`; from texel x0 on. */
static inline __attribute__((always_inline)) void
make_texels(const level_job *job, const mip_options *o, texel_source from, uint32_t y, size_t row,
            size_t work_row, size_t src_y, bool batched, uint32_t x0) {
    for (uint32_t x = x0; x < job->dw; x++) {
        size_t i = row + x, w = work_row + x;
        size_t base_texel = (size_t)(2 * y) * job->sw + 2 * x; /* in level 0 */
        v4f h;
        if (from == FROM_WORK) {
            h = load4(job->work + w * 4);
        } else if (from == FROM_SRC) {
            const float *r0 = job->src + (src_y * job->sw + 2 * x) * 4;
            const float *r1 = r0 + (size_t)job->sw * 4;
            h = quad_average(load4(r0), load4(r0 + 4), load4(r1), load4(r1 + 4));
        } else if (from == FROM_OPAQUE8) {
            const uint8_t *r0 = job->base.b + base_texel * 4;
            const uint8_t *r1 = r0 + (size_t)job->sw * 4;
            h = quad_average(opaque_texel8(r0, job->lane), opaque_texel8(r0 + 4, job->lane),
                             opaque_texel8(r1, job->lane), opaque_texel8(r1 + 4, job->lane));
            h[3] = 1.0f; /* ((1 + 1) + (1 + 1)) * 0.25 */
        } else if (from == FROM_BASE8) {
            const uint8_t *r0 = job->base.b + base_texel * 4;
            const uint8_t *r1 = r0 + (size_t)job->sw * 4;
            bool premultiply = job->premultiply;
            h = quad_average(working_texel8(r0, job->lane, premultiply),
                             working_texel8(r0 + 4, job->lane, premultiply),
                             working_texel8(r1, job->lane, premultiply),
                             working_texel8(r1 + 4, job->lane, premultiply));
        } else {
            const float *r0 = job->base.f + base_texel * 4;
            const float *r1 = r0 + (size_t)job->sw * 4;
            h = quad_average(working_texel(r0, o), working_texel(r0 + 4, o), working_texel(r1, o),
                             working_texel(r1 + 4, o));
        }
        if (o->mode == MIP_MODE_NORMAL)
            h = renormalised(h); /* the next level filters unit vectors */
        store4(job->work + w * 4, h);
        if (job->out8 == NULL)
            store4(job->outf + i * 4, stored_texel(h, o));
        else if (!batched)
            stored_texel8(h, o, job->out8 + i * 4);
    }
}

static void make_row(void *ctx, uint32_t y) {
    /* Local copies: the byte stores below may alias anything, which would
     * make the compiler reload every field after each texel. */
    const level_job copy = *(const level_job *)ctx, *job = &copy;
    const mip_options options = *job->o, *o = &options;
    y += job->first_row;
    size_t row = (size_t)y * job->dw;                         /* in the stored level */
    size_t work_row = (size_t)(y - job->work_row0) * job->dw; /* in `work` */
    size_t src_y = (size_t)2 * y - job->src_row0;             /* in `src` */
    /* 8-bit levels on AVX2: the row's bytes are encoded 8 texels at a time
     * once its working texels are made. */
    bool batched = job->out8 != NULL && cpu_has_avx2 && !o->portable;
    texel_source from = !job->halve           ? FROM_WORK
                        : job->src != NULL    ? FROM_SRC
                        : job->base.b != NULL ? FROM_BASE8
                                              : FROM_BASEF;
    uint32_t stored = 0; /* texels made and stored already (batched) */
    if (from == FROM_BASE8 && batched && cpu_has_avx512) {
        /* Opaque quads from the row's start 16 at a time, until 16 hold a
         * texel with alpha below 255; the rest as any 8-bit row. An opaque
         * quad's working texel is the same either way (premultiplying by 1
         * and adding the alpha lanes change nothing), and no pass over the
         * row's alpha comes first. */
        static const float *const value[3] = {srgb_table, unorm8_value, normal_table};
        const uint8_t *r0 = job->base.b + (size_t)(2 * y) * job->sw * 4;
        mips_encode8 e = encode8_of(o);
        stored = (uint32_t)mips_opaque_halving_avx512(
            r0, r0 + (size_t)job->sw * 4, value[o->mode - 1], &e, job->work + work_row * 4,
            job->out8 + row * 4, job->dw);
    } else if (from == FROM_BASE8) { /* opaque rows skip premultiplying by 1 and the alpha lanes */
        const uint8_t *rows = job->base.b + (size_t)(2 * y) * job->sw * 4;
        uint8_t all = 255;
        for (size_t t = 0; t < (size_t)job->sw * 2; t++)
            all &= rows[t * 4 + 3];
        from = all == 255 ? FROM_OPAQUE8 : FROM_BASE8;
    }
    switch (from) {
    case FROM_WORK:
        make_texels(job, o, FROM_WORK, y, row, work_row, src_y, batched, 0);
        break;
    case FROM_SRC:
        make_texels(job, o, FROM_SRC, y, row, work_row, src_y, batched, 0);
        break;
    case FROM_OPAQUE8:
        make_texels(job, o, FROM_OPAQUE8, y, row, work_row, src_y, batched, 0);
        break;
    case FROM_BASE8:
        make_texels(job, o, FROM_BASE8, y, row, work_row, src_y, batched, stored);
        break;
    case FROM_BASEF:
        make_texels(job, o, FROM_BASEF, y, row, work_row, src_y, batched, 0);
        break;
    }
    if (batched) /* the row just written, still in cache */
        mips_encode8_row(job->work + (work_row + stored) * 4, job->out8 + (row + stored) * 4,
                         job->dw - stored, o);
}

void mips_encode8_row(const float *work, uint8_t *out, size_t count, const mip_options *o) {
    pthread_once(&srgb_tables_once, srgb_tables_init);
    size_t x = 0;
    if (cpu_has_avx2 && !o->portable) {
        mips_encode8 e = encode8_of(o);
        x = mips_encode8_avx2(work, out, count, &e);
    }
    for (; x < count; x++)
        stored_texel8(load4(work + x * 4), o, out + x * 4);
}

/* Levels below this many texels are made on one thread: sharing them with
 * other threads would cost more than the rows. */
#define MIP_PARALLEL_MIN_TEXELS 16384u

/* Rows first_row .. first_row + rows - 1 of a level. */
static void make_level(level_job *job, uint32_t rows) {
    unsigned threads = (size_t)job->dw * rows >= MIP_PARALLEL_MIN_TEXELS ? job->o->threads : 1;
    parallel_for(threads, rows, make_row, job);
}

/* The alpha scale that brings the coverage at `cutoff` closest to `target`
 * (bisection over `px`'s alpha, clamped to 1 as stored). `alpha` (count
 * floats) receives the alphas side by side so that the 24 counting passes
 * vectorise; min(a, 1) > cutoff is a > cutoff for a cutoff below 1 (and
 * never true from 1 up). */
static float coverage_scale_of(const float *alpha, size_t count, float cutoff, float target) {
    float lo = 0.0f, hi = 4.0f, best = 1.0f;
    float best_error = 2.0f;
    for (int step = 0; step < 24; step++) {
        float scale = 0.5f * (lo + hi);
        size_t above = 0;
        if (cutoff < 1.0f)
            for (size_t i = 0; i < count; i++)
                above += alpha[i] * scale > cutoff;
        float coverage = (float)((double)above / (double)count);
        float error = fabsf(coverage - target);
        if (error < best_error) {
            best_error = error;
            best = scale;
        }
        if (coverage < target)
            lo = scale;
        else if (coverage > target)
            hi = scale;
        else
            break;
    }
    return best;
}

static float coverage_scale(const float *px, size_t count, float cutoff, float target,
                            float *alpha) {
    for (size_t i = 0; i < count; i++)
        alpha[i] = px[i * 4 + 3];
    return coverage_scale_of(alpha, count, cutoff, target);
}

void mip_chain_free(mip_chain *chain) {
    for (uint32_t i = 0; i < chain->count && i < MIP_MAX_LEVELS; i++) {
        free(chain->levels[i]);
        free(chain->levels8[i]);
    }
    memset(chain, 0, sizeof *chain);
}

/* Level 0 stored as it is (no downscale): the caller's texels, as floats or
 * quantised to 8 bits. */
static bool copy_level0(const float *base, const uint8_t *base8, size_t n, const mip_options *o,
                        mip_chain *out) {
    if (o->levels8) {
        if ((out->levels8[0] = malloc(n * 4)) == NULL)
            return false;
        if (base8 != NULL)
            memcpy(out->levels8[0], base8, n * 4);
        else
            for (size_t i = 0; i < n * 4; i++)
                out->levels8[0][i] = image_float_to_unorm8(base[i]);
        return true;
    }
    if ((out->levels[0] = malloc(n * 4 * sizeof(float))) == NULL)
        return false;
    if (base8 != NULL)
        for (size_t i = 0; i < n * 4; i++)
            out->levels[0][i] = unorm8_value[base8[i]];
    else
        memcpy(out->levels[0], base, n * 4 * sizeof(float));
    return true;
}

/* resample_banded's state: output rows come in turn (resampler_rows). */
typedef struct resampler {
    const float *src;
    level0_texels base;
    uint32_t sw, sh, dw, dh;
    const mip_options *o;
    const texel_lanes *lane;
    bool premultiply;
    double scale;
    uint32_t cap;   /* rows in the ring */
    float *ring;    /* the last `cap` source rows resampled horizontally */
    float *row;     /* one source row in the working space (src == NULL) */
    double *sum;    /* one output row's sums */
    uint32_t ready; /* source rows below this one are resampled (the last cap in the ring) */
    uint32_t next;  /* the next output row */
} resampler;

static void resampler_free(resampler *r) {
    free(r->ring);
    free(r->row);
    free(r->sum);
    r->ring = r->row = NULL;
    r->sum = NULL;
}

static bool resampler_init(resampler *r, const float *src, level0_texels base, uint32_t sw,
                           uint32_t sh, const mip_options *o, const texel_lanes *lane,
                           bool premultiply, uint32_t dw, uint32_t dh) {
    *r = (resampler){.src = src,
                     .base = base,
                     .sw = sw,
                     .sh = sh,
                     .dw = dw,
                     .dh = dh,
                     .o = o,
                     .lane = lane,
                     .premultiply = premultiply,
                     .scale = (double)sh / (double)dh};
    r->cap = (uint32_t)ceil(r->scale) + 2;
    r->ring = alloc_rgba(dw, r->cap);
    r->row = src == NULL ? alloc_rgba(sw, 1) : NULL;
    r->sum = malloc((size_t)dw * 4 * sizeof *r->sum);
    bool ok = r->ring != NULL && r->sum != NULL && (src != NULL || r->row != NULL);
    if (!ok)
        resampler_free(r);
    return ok;
}

/* The next `rows` output rows into dst (rows x dw texels). */
static void resampler_rows(resampler *r, float *dst, uint32_t rows) {
    uint32_t sw = r->sw, dw = r->dw;
    for (uint32_t i = r->next; i < r->next + rows; i++) {
        area_span span = area_span_of(i, r->scale, r->sh);
        for (uint32_t k = r->ready > span.first ? r->ready : span.first; k < span.last; k++) {
            const float *line = r->src + (size_t)k * sw * 4;
            if (r->src == NULL) {
                for (size_t x = 0; x < sw; x++) {
                    size_t t = (size_t)k * sw + x;
                    store4(r->row + x * 4,
                           r->base.b != NULL
                               ? working_texel8(r->base.b + t * 4, r->lane, r->premultiply)
                               : working_texel(r->base.f + t * 4, r->o));
                }
                line = r->row;
            }
            resample_line(line, 4, sw, r->ring + (size_t)(k % r->cap) * dw * 4, 4, dw);
            r->ready = k + 1;
        }
        double *sum = r->sum;
        memset(sum, 0, (size_t)dw * 4 * sizeof *sum);
        double total = 0;
        for (uint32_t k = span.first; k < span.last; k++)
            area_add(sum, &total, r->ring + (size_t)(k % r->cap) * dw * 4, (size_t)dw * 4,
                     area_weight(&span, k));
        area_store(dst + (size_t)(i - r->next) * dw * 4, sum, (size_t)dw * 4, total);
    }
    r->next += rows;
}

/* image_resample_area of a level into `dst` (dw x dh) without its
 * whole-image temporaries: the source is the previous level's working copy
 * `src`, or (when NULL) level 0's texels `base` taken into the working space
 * row by row as they are read. Rows are resampled horizontally as the
 * vertical pass first needs them, into a ring of the few rows one output row
 * spans, and each output row sums them in the order image_resample_area's
 * vertical pass does (the same double sums, so the same floats). Memory: a
 * source row and ceil(sh / dh) + 2 resampled rows instead of a float copy of
 * level 0 and an sh x dw temporary. A resampler gives the rows in turn, so
 * that a band of them can be used before the next is made. */
static bool resample_banded(const float *src, level0_texels base, uint32_t sw, uint32_t sh,
                            const mip_options *o, const texel_lanes *lane, bool premultiply,
                            float *dst, uint32_t dw, uint32_t dh) {
    resampler r;
    if (!resampler_init(&r, src, base, sw, sh, o, lane, premultiply, dw, dh))
        return false;
    resampler_rows(&r, dst, dh);
    resampler_free(&r);
    return true;
}

static uint32_t round_up(uint32_t value, uint32_t multiple) {
    return multiple > 1 ? (value + multiple - 1) / multiple * multiple : value;
}

/* A w x h image of `texel` bytes per texel extended to pw x ph by repeating
 * its right column and bottom row; NULL when out of memory. */
static void *pad_image(const void *image, size_t texel, uint32_t w, uint32_t h, uint32_t pw,
                       uint32_t ph) {
    uint8_t *out = malloc((size_t)pw * ph * texel);
    if (out == NULL)
        return NULL;
    const uint8_t *src = image;
    for (uint32_t y = 0; y < ph; y++) {
        const uint8_t *row = src + (size_t)(y < h ? y : h - 1) * w * texel;
        uint8_t *dst = out + (size_t)y * pw * texel;
        memcpy(dst, row, (size_t)w * texel);
        for (uint32_t x = w; x < pw; x++)
            memcpy(dst + (size_t)x * texel, row + (size_t)(w - 1) * texel, texel);
    }
    return out;
}

static bool build(const float *base, const uint8_t *base8, uint32_t width, uint32_t height,
                  const mip_options *o, mip_chain *out);

/* build() of level 0 padded to pw x ph (mip_options.align_by_padding). */
static bool build_padded(const float *base, const uint8_t *base8, uint32_t width, uint32_t height,
                         uint32_t pw, uint32_t ph, const mip_options *o, mip_chain *out) {
    memset(out, 0, sizeof *out);
    void *padded = pad_image(base8 != NULL ? (const void *)base8 : (const void *)base,
                             base8 != NULL ? 4 : 4 * sizeof(float), width, height, pw, ph);
    if (padded == NULL)
        return false;
    mip_options inner = *o;
    inner.align_width = inner.align_height = 0;
    inner.skip_level0 = false; /* level 0 is no longer the caller's image */
    bool ok = base8 != NULL ? build(NULL, padded, pw, ph, &inner, out)
                            : build(padded, NULL, pw, ph, &inner, out);
    free(padded);
    out->content_width = width;
    out->content_height = height;
    return ok;
}

/* The stored level `level` (lw x lh), allocated. */
static bool alloc_stored(mip_chain *out, uint32_t level, uint32_t lw, uint32_t lh,
                         const mip_options *o) {
    return o->levels8 ? (out->levels8[level] = malloc((size_t)lw * lh * 4)) != NULL
                      : (out->levels[level] = alloc_rgba(lw, lh)) != NULL;
}

/* A level's stored alpha from its working alpha (n values) scaled for
 * alpha-test coverage, clamped to 1. */
static void apply_coverage(const float *alpha, size_t n, float scale, const mip_options *o,
                           mip_chain *out, uint32_t level) {
    for (size_t i = 0; i < n; i++) {
        float a = alpha[i] * scale;
        a = a > 1.0f ? 1.0f : a;
        if (o->levels8)
            out->levels8[level][i * 4 + 3] = image_float_to_unorm8(a);
        else
            out->levels[level][i * 4 + 3] = a;
    }
}

/* Rows of the next level per band: o->band_rows, or about 4 MiB of the
 * first level's working rows (two per row of the next). */
static uint32_t band_rows(const mip_options *o, uint32_t lw, uint32_t nh) {
    size_t rows = o->band_rows > 0 ? o->band_rows : ((size_t)4 << 20) / ((size_t)lw * 32);
    rows = rows < 1 ? 1 : rows;
    return rows < nh ? (uint32_t)rows : nh;
}

/* Level `level` of `out` (stored level allocated) made from level 0's
 * texels `base` (w x h; by a 2:1 halving when `halve`, else resampled) and
 * level + 1, its exact halving, into `next` (its whole working copy) and its
 * stored level: band by band, a band of `level`'s working rows then the rows
 * of level + 1 they make. The same rows in the same arithmetic as making each
 * level whole, so the same bytes. `alpha` (when not NULL) receives `level`'s
 * working alpha for its coverage. */
static bool build_pair(level0_texels base, uint32_t w, uint32_t h, bool halve, const mip_options *o,
                       const texel_lanes *lane, bool premultiply, mip_chain *out, uint32_t level,
                       float *next, float *alpha) {
    uint32_t lw = out->width[level], lh = out->height[level];
    uint32_t nw = out->width[level + 1], nh = out->height[level + 1];
    uint32_t rows = band_rows(o, lw, nh);
    float *band = alloc_rgba(lw, 2 * rows);
    resampler r = {0};
    bool ok = band != NULL &&
              (halve || resampler_init(&r, NULL, base, w, h, o, lane, premultiply, lw, lh));
    for (uint32_t r0 = 0; ok && r0 < nh; r0 += rows) {
        uint32_t count = nh - r0 < rows ? nh - r0 : rows;
        if (!halve)
            resampler_rows(&r, band, 2 * count);
        level_job first = {.o = o,
                           .lane = lane,
                           .premultiply = premultiply,
                           .base = base,
                           .sw = w,
                           .halve = halve,
                           .work = band,
                           .dw = lw,
                           .out8 = out->levels8[level],
                           .outf = out->levels[level],
                           .first_row = 2 * r0,
                           .work_row0 = 2 * r0};
        make_level(&first, 2 * count);
        if (alpha != NULL)
            for (size_t i = 0; i < (size_t)2 * count * lw; i++)
                alpha[(size_t)2 * r0 * lw + i] = band[i * 4 + 3];
        level_job second = {.o = o,
                            .lane = lane,
                            .premultiply = premultiply,
                            .base = base,
                            .src = band,
                            .sw = lw,
                            .halve = true,
                            .work = next,
                            .dw = nw,
                            .out8 = out->levels8[level + 1],
                            .outf = out->levels[level + 1],
                            .first_row = r0,
                            .src_row0 = 2 * r0};
        make_level(&second, count);
    }
    if (!halve && band != NULL)
        resampler_free(&r);
    free(band);
    return ok;
}

/* mip_build and mip_build_rgba8: level 0 is `base` (floats) or `base8`. */
static bool build(const float *base, const uint8_t *base8, uint32_t width, uint32_t height,
                  const mip_options *o, mip_chain *out) {
    memset(out, 0, sizeof *out);
    if (width == 0 || height == 0)
        return false;
    /* Level 0 size: fit into max_size, keeping the aspect ratio. */
    uint32_t w0 = width, h0 = height;
    if (o->max_size > 0 && (width > o->max_size || height > o->max_size)) {
        if (width >= height) {
            w0 = o->max_size;
            h0 = (uint32_t)(((uint64_t)height * o->max_size + width / 2) / width);
        } else {
            h0 = o->max_size;
            w0 = (uint32_t)(((uint64_t)width * o->max_size + height / 2) / height);
        }
        if (w0 == 0)
            w0 = 1;
        if (h0 == 0)
            h0 = 1;
    }
    bool resized = w0 != width || h0 != height;
    uint32_t aligned_w = round_up(w0, o->align_width), aligned_h = round_up(h0, o->align_height);
    if (aligned_w != w0 || aligned_h != h0) {
        if (!resized && o->align_by_padding)
            return build_padded(base, base8, width, height, aligned_w, aligned_h, o, out);
        w0 = aligned_w; /* resampled once, straight to the aligned size */
        h0 = aligned_h;
        resized = true;
    }
    uint32_t count = o->mipmaps ? mip_level_count(w0, h0) : 1;
    if (count > MIP_MAX_LEVELS)
        return false;
    out->content_width = w0;
    out->content_height = h0;

    pthread_once(&srgb_tables_once, srgb_tables_init);
    const texel_lanes *lane = &texel_lane[o->mode - 1];
    bool premultiply = o->alpha_weighted && o->mode != MIP_MODE_NORMAL;
    size_t base_count = (size_t)width * height;
    float target_coverage = 0.0f;
    if (o->alpha_cutoff > 0.0f && base8 != NULL) {
        size_t above = 0;
        for (size_t i = 0; i < base_count; i++)
            above += unorm8_value[base8[i * 4 + 3]] > o->alpha_cutoff;
        target_coverage = (float)((double)above / (double)base_count);
    } else if (o->alpha_cutoff > 0.0f) {
        target_coverage = mip_alpha_coverage(base, base_count, o->alpha_cutoff);
    }

    /* Working copies: never a whole level 0 (an exact halving or a general
     * resample reads level 0's texels as it goes); each level's in one of
     * two buffers, alternately (a level is never larger than the one two
     * before it). */
    float *buffer[2] = {NULL, NULL}, *alpha = NULL;
    const float *prev = NULL; /* the previous level's working copy; NULL: level 0's texels */

    uint32_t w = width, h = height;
    bool ok = true;
    for (uint32_t level = 0; level < count && ok; level++) {
        uint32_t lw = level == 0 ? w0 : (w > 1 ? w / 2 : 1);
        uint32_t lh = level == 0 ? h0 : (h > 1 ? h / 2 : 1);
        size_t n = (size_t)lw * lh;
        out->width[level] = lw;
        out->height[level] = lh;
        out->count = level + 1;
        if (level == 0 && !resized) { /* exact */
            ok = o->skip_level0 || copy_level0(base, base8, n, o, out);
            continue;
        }
        bool halve = level > 0 && lw * 2 == w && lh * 2 == h;
        uint32_t nw = lw > 1 ? lw / 2 : 1, nh = lh > 1 ? lh / 2 : 1;
        if (prev == NULL && !o->whole_levels && level + 1 < count && nw * 2 == lw && nh * 2 == lh) {
            /* The first level filtered and the next, its exact halving,
             * band by band: this level keeps no whole working copy. */
            uint32_t next = level + 1;
            out->width[next] = nw;
            out->height[next] = nh;
            out->count = next + 1;
            float **slot = &buffer[next & 1];
            bool coverage = o->alpha_cutoff > 0.0f && level > 0;
            ok = (*slot = alloc_rgba(nw, nh)) != NULL && alloc_stored(out, level, lw, lh, o) &&
                 alloc_stored(out, next, nw, nh, o) &&
                 (!coverage || (alpha = malloc(n * sizeof(float))) != NULL) &&
                 build_pair((level0_texels){base, base8}, w, h, halve, o, lane, premultiply, out,
                            level, *slot, coverage ? alpha : NULL);
            if (!ok)
                break;
            if (coverage)
                apply_coverage(alpha, n,
                               coverage_scale_of(alpha, n, o->alpha_cutoff, target_coverage), o,
                               out, level);
            prev = *slot;
            level = next;
            w = lw = nw;
            h = lh = nh;
            n = (size_t)lw * lh;
        } else {
            float **slot = &buffer[level & 1];
            if (*slot == NULL && (*slot = alloc_rgba(lw, lh)) == NULL) {
                ok = false;
                break;
            }
            if (!alloc_stored(out, level, lw, lh, o) ||
                (!halve && !resample_banded(prev, (level0_texels){base, base8}, w, h, o, lane,
                                            premultiply, *slot, lw, lh))) {
                ok = false;
                break;
            }
            level_job job = {.o = o,
                             .lane = lane,
                             .premultiply = premultiply,
                             .base = {base, base8},
                             .src = prev,
                             .sw = w,
                             .halve = halve,
                             .work = *slot,
                             .dw = lw,
                             .out8 = out->levels8[level],
                             .outf = out->levels[level]};
            make_level(&job, lh);
            prev = *slot;
            w = lw;
            h = lh;
        }
        if (o->alpha_cutoff > 0.0f && level > 0) {
            if (alpha == NULL && (alpha = malloc(n * sizeof(float))) == NULL) {
                ok = false; /* level 1 is the largest to need it */
                break;
            }
            float scale = coverage_scale(prev, n, o->alpha_cutoff, target_coverage, alpha);
            apply_coverage(alpha, n, scale, o, out, level);
        }
    }
    free(buffer[0]);
    free(buffer[1]);
    free(alpha);
    if (!ok)
        mip_chain_free(out);
    return ok;
}

bool mip_build(const float *base, uint32_t width, uint32_t height, const mip_options *o,
               mip_chain *out) {
    return build(base, NULL, width, height, o, out);
}

bool mip_build_rgba8(const uint8_t *rgba8, uint32_t width, uint32_t height, const mip_options *o,
                     mip_chain *out) {
    return build(NULL, rgba8, width, height, o, out);
}
void image_floats_to_stored(const float *in, float *out, size_t count, cook_texture_usage usage) {
    for (size_t i = 0; i < count * 4; i++) {
        float v = in[i];
        if (!isfinite(v))
            v = 0.0f;
        if (usage != COOK_TEXTURE_HDR) {
            v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
            if (usage == COOK_TEXTURE_COLOR && (i % 4) != 3)
                v = image_linear_to_srgb(v);
        }
        out[i] = v;
    }
}

float *image_to_float(const ir_decoded_image *image, cook_texture_usage usage) {
    size_t count = (size_t)image->width * image->height; /* checked by the decoder */
    float *out = malloc(count * 4 * sizeof(float));
    if (out == NULL)
        return NULL;
    if (image->rgba8 != NULL) {
        for (size_t i = 0; i < count * 4; i++)
            out[i] = image->rgba8[i] / 255.0f;
        return out;
    }
    image_floats_to_stored(image->rgbaf, out, count, usage);
    return out;
}
