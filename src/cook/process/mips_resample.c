/*
 * mips_resample.c — area resampling (process stage): image_resample_area,
 * and the banded resampler a mip chain uses for a level that is not an
 * exact halving (mips_resample.h).
 *
 * The filter is an area (box) filter with exact fractional coverage,
 * separable, which handles both halving of odd sizes (floor halving down to
 * 1x1) and any downscale ratio for texture.max_size.
 */
#include "cook/process/mips_resample.h"

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

void mips_resampler_free(resampler *r) {
    free(r->ring);
    free(r->row);
    free(r->sum);
    r->ring = r->row = NULL;
    r->sum = NULL;
}

bool mips_resampler_init(resampler *r, const float *src, level0_texels base, uint32_t sw,
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
        mips_resampler_free(r);
    return ok;
}

void mips_resampler_rows(resampler *r, float *dst, uint32_t rows) {
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

bool mips_resample_banded(const float *src, level0_texels base, uint32_t sw, uint32_t sh,
                          const mip_options *o, const texel_lanes *lane, bool premultiply,
                          float *dst, uint32_t dw, uint32_t dh) {
    resampler r;
    if (!mips_resampler_init(&r, src, base, sw, sh, o, lane, premultiply, dw, dh))
        return false;
    mips_resampler_rows(&r, dst, dh);
    mips_resampler_free(&r);
    return true;
}
