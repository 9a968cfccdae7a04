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
 * bits; an exact 2:1 halving computes what the area filter would, bit for
 * bit, without its temporary; level 1 is filtered straight from level 0's
 * texels (8-bit or float), two rows at a time, so level 0 is never copied.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/texture_internal.h"

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

/* One dimension of area resampling: dst[i] averages src over the interval
 * [i * n / m, (i + 1) * n / m). `stride` is the distance between successive
 * samples along the axis, in floats; 4 channels per sample. */
static void resample_line(const float *src, size_t src_stride, uint32_t n, float *dst,
                          size_t dst_stride, uint32_t m) {
    double scale = (double)n / (double)m;
    for (uint32_t i = 0; i < m; i++) {
        double begin = i * scale, end = (i + 1) * scale;
        uint32_t first = (uint32_t)begin;
        uint32_t last = (uint32_t)ceil(end);
        if (last > n)
            last = n;
        double sum[4] = {0, 0, 0, 0};
        double total = 0;
        for (uint32_t k = first; k < last; k++) {
            double lo = k > begin ? k : begin;
            double hi = (k + 1) < end ? (k + 1) : end;
            double w = hi - lo;
            if (w <= 0)
                continue;
            const float *s = src + (size_t)k * src_stride;
            for (int c = 0; c < 4; c++)
                sum[c] += w * s[c];
            total += w;
        }
        float *d = dst + (size_t)i * dst_stride;
        for (int c = 0; c < 4; c++)
            d[c] = total > 0 ? (float)(sum[c] / total) : 0.0f;
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

/* sRGB -> linear for the 256 values an 8-bit source can hold (exact floats
 * k / 255 hit the table; anything else takes powf). */
static float srgb_table[256];

/* linear -> sRGB 8-bit code without powf, exactly
 * to_unorm8(image_linear_to_srgb(v)) for every float v >= 0: that function
 * is monotonic, so it is a step function whose 255 steps are found once by
 * bisection on the float bit patterns (threshold[k] = the smallest v that
 * encodes to k + 1). A lookup on v's exponent and top 8 mantissa bits gives
 * the code at the start of v's bucket (3328 buckets for 2^-13 .. 1; below
 * 2^-13 everything encodes to 0). */
#define SRGB_LOW_BITS 0x39000000u /* 2^-13: below threshold[0], encodes to 0 */
#define SRGB_BUCKETS ((0x3F800000u - SRGB_LOW_BITS) >> 15)
static float srgb_threshold[256]; /* [255] = +inf: no code above 255 */
static uint8_t srgb_bucket_code[SRGB_BUCKETS];
static float unorm8_value[256]; /* k / 255.0f */
static pthread_once_t srgb_tables_once = PTHREAD_ONCE_INIT;

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
    for (int i = 0; i < 256; i++) {
        srgb_table[i] = image_srgb_to_linear(i / 255.0f);
        unorm8_value[i] = i / 255.0f;
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
    for (uint32_t b = 0; b < SRGB_BUCKETS; b++) {
        float start = float_of_bits(SRGB_LOW_BITS + (b << 15));
        while (code < 255 && start >= srgb_threshold[code])
            code++;
        srgb_bucket_code[b] = (uint8_t)code;
    }
}

static uint8_t srgb8_of(float v) { /* the tables are initialised */
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (!(v >= float_of_bits(SRGB_LOW_BITS))) /* also NaN */
        return 0;
    if (v >= 1.0f)
        return 255;
    /* A bucket holds at most one step (checked by test_mips), so at most two
     * branchless steps reach the code. */
    uint32_t code = srgb_bucket_code[(bits - SRGB_LOW_BITS) >> 15];
    code += v >= srgb_threshold[code];
    code += v >= srgb_threshold[code];
    return (uint8_t)code;
}

uint8_t image_linear_to_srgb8(float v) {
    pthread_once(&srgb_tables_once, srgb_tables_init);
    return srgb8_of(v);
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

/* One texel, stored encoding -> working space. */
static inline void working_texel(const float *s, float *p, const mip_options *o) {
    if (o->mode == MIP_MODE_NORMAL) {
        for (int c = 0; c < 3; c++)
            p[c] = s[c] * 2.0f - 1.0f;
        p[3] = s[3];
        return;
    }
    for (int c = 0; c < 4; c++)
        p[c] = o->mode == MIP_MODE_COLOR_SRGB && c < 3 ? srgb_to_linear_fast(s[c]) : s[c];
    if (o->alpha_weighted)
        for (int c = 0; c < 3; c++)
            p[c] *= p[3];
}

/* The average of two samples exactly as resample_line computes it for a 2:1
 * reduction (weights 1 and 1 summed in double, divided by 2, rounded once to
 * float), so halving is bit-identical to the general area filter. */
static inline float half_sum(float a, float b) {
    return (float)(((double)a + (double)b) / 2.0);
}

/* One 8-bit texel -> working space: working_texel of its k / 255 floats. */
static inline void working_texel8(const uint8_t *s, float *p, const mip_options *o) {
    if (o->mode == MIP_MODE_NORMAL) {
        for (int c = 0; c < 3; c++)
            p[c] = unorm8_value[s[c]] * 2.0f - 1.0f;
        p[3] = unorm8_value[s[3]];
        return;
    }
    for (int c = 0; c < 4; c++)
        p[c] = o->mode == MIP_MODE_COLOR_SRGB && c < 3 ? srgb_table[s[c]] : unorm8_value[s[c]];
    if (o->alpha_weighted)
        for (int c = 0; c < 3; c++)
            p[c] *= p[3];
}

/* Level 0 as the caller gave it (stored encoding): floats or 8-bit texels. */
typedef struct level0_texels {
    const float *f;
    const uint8_t *b;
} level0_texels;

/* Row `y` of level 0 (`width` texels) into the working space. */
static void convert_row(level0_texels level0, uint32_t y, uint32_t width, float *out,
                        const mip_options *o) {
    size_t at = (size_t)y * width * 4;
    for (uint32_t x = 0; x < width; x++, at += 4) {
        if (level0.b != NULL)
            working_texel8(level0.b + at, out + (size_t)x * 4, o);
        else
            working_texel(level0.f + at, out + (size_t)x * 4, o);
    }
}

/* One output row of a 2:1 box: horizontal pair averages, then vertical. */
static void halve_rows(const float *r0, const float *r1, float *d, uint32_t dw) {
    for (uint32_t x = 0; x < dw; x++, r0 += 8, r1 += 8, d += 4)
        for (int k = 0; k < 4; k++)
            d[k] = half_sum(half_sum(r0[k], r0[4 + k]), half_sum(r1[k], r1[4 + k]));
}

/* 2:1 in both directions (both sides even): image_resample_area's result,
 * horizontal pass then vertical, without its temporary image. `src` is in
 * the working space; with `convert`, `level0` is read instead, two rows at a
 * time converted into a small buffer (level 1 is made without a working
 * copy of level 0). */
static bool halve_box(const float *src, uint32_t sw, float *dst, uint32_t dw, uint32_t dh,
                      const mip_options *convert, level0_texels level0) {
    float *rows = convert != NULL ? alloc_rgba(sw, 2) : NULL;
    if (convert != NULL && rows == NULL)
        return false;
    for (uint32_t y = 0; y < dh; y++) {
        const float *r0, *r1;
        if (convert != NULL) {
            convert_row(level0, 2 * y, sw, rows, convert);
            convert_row(level0, 2 * y + 1, sw, rows + (size_t)sw * 4, convert);
            r0 = rows;
        } else {
            r0 = src + (size_t)(2 * y) * sw * 4;
        }
        r1 = r0 + (size_t)sw * 4;
        halve_rows(r0, r1, dst + (size_t)y * dw * 4, dw);
    }
    free(rows);
    return true;
}

/* Stored encoding -> working space, in place. */
static void to_working(float *px, size_t count, const mip_options *o) {
    for (size_t i = 0; i < count; i++)
        working_texel(px + i * 4, px + i * 4, o);
}

/* Working space -> stored encoding, from `src` into `dst`. sRGB colour is
 * quantised to the 8-bit grid here (k / 255, exactly what RGBA8 stores). */
static void to_stored(const float *src, float *dst, size_t count, const mip_options *o) {
    for (size_t i = 0; i < count; i++) {
        const float *s = src + i * 4;
        float *d = dst + i * 4;
        if (o->mode == MIP_MODE_NORMAL) {
            float len = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
            float n[3] = {0.0f, 0.0f, 1.0f};
            if (len > 1e-12f)
                for (int c = 0; c < 3; c++)
                    n[c] = s[c] / len;
            for (int c = 0; c < 3; c++)
                d[c] = n[c] * 0.5f + 0.5f;
            d[3] = s[3];
            continue;
        }
        float a = s[3];
        for (int c = 0; c < 3; c++) {
            float v = s[c];
            if (o->alpha_weighted)
                v = a > 0.0f ? v / a : 0.0f;
            if (o->mode == MIP_MODE_COLOR_SRGB)
                v = unorm8_value[srgb8_of(v < 0.0f ? 0.0f : v)];
            d[c] = v;
        }
        d[3] = a;
    }
}

static void renormalise(float *px, size_t count) {
    for (size_t i = 0; i < count; i++) {
        float *p = px + i * 4;
        float len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        if (len > 1e-12f) {
            p[0] /= len;
            p[1] /= len;
            p[2] /= len;
        } else {
            p[0] = 0.0f;
            p[1] = 0.0f;
            p[2] = 1.0f;
        }
    }
}

/* Scales alpha so the coverage at `cutoff` becomes `target` (bisection). */
static void preserve_coverage(float *px, size_t count, float cutoff, float target) {
    float lo = 0.0f, hi = 4.0f, best = 1.0f;
    float best_error = 2.0f;
    for (int step = 0; step < 24; step++) {
        float scale = 0.5f * (lo + hi);
        size_t above = 0;
        for (size_t i = 0; i < count; i++) {
            float a = px[i * 4 + 3] * scale;
            above += (a > 1.0f ? 1.0f : a) > cutoff;
        }
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
    for (size_t i = 0; i < count; i++) {
        float a = px[i * 4 + 3] * best;
        px[i * 4 + 3] = a > 1.0f ? 1.0f : a;
    }
}

void mip_chain_free(mip_chain *chain) {
    for (uint32_t i = 0; i < chain->count && i < MIP_MAX_LEVELS; i++)
        free(chain->levels[i]);
    memset(chain, 0, sizeof *chain);
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
    uint32_t count = o->mipmaps ? mip_level_count(w0, h0) : 1;
    if (count > MIP_MAX_LEVELS)
        return false;

    pthread_once(&srgb_tables_once, srgb_tables_init);
    size_t base_count = (size_t)width * height;
    /* A working copy of level 0 is needed only for a general resample; an
     * exact halving converts level 0's texels as it reads them. */
    bool direct = !resized && count > 1 && width % 2 == 0 && height % 2 == 0;
    float *work = NULL, *base_copy = NULL;
    if (!direct && base8 != NULL) { /* the general path works on floats */
        if ((base_copy = alloc_rgba(width, height)) == NULL)
            return false;
        for (size_t i = 0; i < base_count * 4; i++)
            base_copy[i] = unorm8_value[base8[i]];
        base = base_copy;
        base8 = NULL;
    }
    if (!direct) {
        if ((work = alloc_rgba(width, height)) == NULL) {
            free(base_copy);
            return false;
        }
        memcpy(work, base, base_count * 4 * sizeof(float));
        to_working(work, base_count, o);
    }
    float target_coverage = 0.0f;
    if (o->alpha_cutoff > 0.0f && base8 != NULL) {
        size_t above = 0;
        for (size_t i = 0; i < base_count; i++)
            above += unorm8_value[base8[i * 4 + 3]] > o->alpha_cutoff;
        target_coverage = (float)((double)above / (double)base_count);
    } else if (o->alpha_cutoff > 0.0f) {
        target_coverage = mip_alpha_coverage(base, base_count, o->alpha_cutoff);
    }

    uint32_t w = width, h = height;
    bool ok = true;
    for (uint32_t level = 0; level < count && ok; level++) {
        uint32_t lw = level == 0 ? w0 : (w > 1 ? w / 2 : 1);
        uint32_t lh = level == 0 ? h0 : (h > 1 ? h / 2 : 1);
        if (level == 0 && !resized && o->skip_level0) {
            out->width[0] = lw;
            out->height[0] = lh;
            out->count = 1;
            continue; /* the caller keeps the source texels; levels[0] stays NULL */
        }
        float *stored = alloc_rgba(lw, lh);
        if (stored == NULL) {
            ok = false;
            break;
        }
        out->levels[level] = stored;
        out->width[level] = lw;
        out->height[level] = lh;
        out->count = level + 1;
        size_t n = (size_t)lw * lh;
        if (level == 0 && !resized) { /* exact */
            if (base8 != NULL)
                for (size_t i = 0; i < n * 4; i++)
                    stored[i] = unorm8_value[base8[i]];
            else
                memcpy(stored, base, n * 4 * sizeof(float));
            continue;
        }
        float *next = alloc_rgba(lw, lh);
        bool halving = level > 0 && lw * 2 == w && lh * 2 == h;
        bool made = next != NULL &&
                    (halving ? halve_box(work, w, next, lw, lh, work ? NULL : o,
                                         (level0_texels){base, base8})
                             : work != NULL && image_resample_area(work, w, h, next, lw, lh));
        if (!made) {
            free(next);
            ok = false;
            break;
        }
        if (o->mode == MIP_MODE_NORMAL)
            renormalise(next, n);
        free(work);
        work = next;
        w = lw;
        h = lh;
        to_stored(work, stored, n, o);
        if (o->alpha_cutoff > 0.0f && level > 0)
            preserve_coverage(stored, n, o->alpha_cutoff, target_coverage);
    }
    free(work);
    free(base_copy);
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
