/*
 * mips.c — resize and mip chains for textures (process stage).
 *
 * Filtering happens in a working space where averaging is physically right
 * (mips_texel.h: linear light, premultiplied alpha, normal vectors). The
 * filter is an area (box) filter (mips_resample.c) for level 0 resized and
 * for odd sizes; an exact 2:1 halving computes what the area filter would
 * without its temporary. Each level is filtered from the previous level's
 * working copy, never from quantised output.
 *
 * Alpha-test coverage (MASK materials): after a level is produced, its alpha is
 * scaled so the fraction of texels above the cutoff matches level 0's.
 *
 * Speed without changing results: the exact 2:1 halving goes one texel per
 * vector operation; level 1 is filtered straight from level 0's texels
 * (8-bit or float), so level 0 is never copied. Each
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

#include "cook/process/mips_resample.h"
#include "cook/process/mips_simd.h"
#include "cook/process/mips_texel.h"
#include "cook/process/process.h"

uint32_t mip_level_count(uint32_t width, uint32_t height) {
    uint32_t largest = width > height ? width : height;
    uint32_t count = 1;
    while (largest > 1) {
        largest >>= 1;
        count++;
    }
    return count;
}

float mip_alpha_coverage(const float *rgba, size_t pixel_count, float cutoff) {
    if (pixel_count == 0)
        return 0.0f;
    size_t above = 0;
    for (size_t i = 0; i < pixel_count; i++)
        above += rgba[i * 4 + 3] > cutoff;
    return (float)((double)above / (double)pixel_count);
}

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
                          .srgb_buckets = mips_srgb_bucket};
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
    bool batched = job->out8 != NULL && mips_cpu_has_avx2 && !o->portable;
    texel_source from = !job->halve           ? FROM_WORK
                        : job->src != NULL    ? FROM_SRC
                        : job->base.b != NULL ? FROM_BASE8
                                              : FROM_BASEF;
    uint32_t made = 0;   /* working texels made already (batched) */
    uint32_t stored = 0; /* ... and their bytes stored */
    if (from == FROM_BASE8 && batched && mips_cpu_has_avx512) {
        /* Opaque quads from the row's start 16 at a time, until 16 hold a
         * texel with alpha below 255; the rest as any 8-bit row. An opaque
         * quad's working texel is the same either way (premultiplying by 1
         * and adding the alpha lanes change nothing), and no pass over the
         * row's alpha comes first. */
        static const float *const value[3] = {mips_srgb_table, mips_unorm8_value,
                                              mips_normal_table};
        const uint8_t *r0 = job->base.b + (size_t)(2 * y) * job->sw * 4;
        mips_encode8 e = encode8_of(o);
        made = stored = (uint32_t)mips_opaque_halving_avx512(
            r0, r0 + (size_t)job->sw * 4, value[o->mode - 1], &e, job->work + work_row * 4,
            job->out8 + row * 4, job->dw);
    } else if (from == FROM_SRC && batched) { /* levels 2 and below; encoded below */
        const float *r0 = job->src + src_y * job->sw * 4;
        made = (uint32_t)mips_halving_avx2(r0, r0 + (size_t)job->sw * 4, o->mode == MIP_MODE_NORMAL,
                                           job->work + work_row * 4, job->dw);
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
        make_texels(job, o, FROM_SRC, y, row, work_row, src_y, batched, made);
        break;
    case FROM_OPAQUE8:
        make_texels(job, o, FROM_OPAQUE8, y, row, work_row, src_y, batched, 0);
        break;
    case FROM_BASE8:
        make_texels(job, o, FROM_BASE8, y, row, work_row, src_y, batched, made);
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
    pthread_once(&mips_tables_once, mips_tables_init);
    size_t x = 0;
    if (mips_cpu_has_avx2 && !o->portable) {
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
            out->levels[0][i] = mips_unorm8_value[base8[i]];
    else
        memcpy(out->levels[0], base, n * 4 * sizeof(float));
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
              (halve || mips_resampler_init(&r, NULL, base, w, h, o, lane, premultiply, lw, lh));
    for (uint32_t r0 = 0; ok && r0 < nh; r0 += rows) {
        uint32_t count = nh - r0 < rows ? nh - r0 : rows;
        if (!halve)
            mips_resampler_rows(&r, band, 2 * count);
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
        mips_resampler_free(&r);
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

    pthread_once(&mips_tables_once, mips_tables_init);
    const texel_lanes *lane = &mips_texel_lane[o->mode - 1];
    bool premultiply = o->alpha_weighted && o->mode != MIP_MODE_NORMAL;
    size_t base_count = (size_t)width * height;
    float target_coverage = 0.0f;
    if (o->alpha_cutoff > 0.0f && base8 != NULL) {
        size_t above = 0;
        for (size_t i = 0; i < base_count; i++)
            above += mips_unorm8_value[base8[i * 4 + 3]] > o->alpha_cutoff;
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
                (!halve && !mips_resample_banded(prev, (level0_texels){base, base8}, w, h, o, lane,
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
