/*
 * mips_resample.h — area resampling of a mip level without whole-image
 * temporaries (mips_resample.c), for the chain in mips.c; private to the
 * process stage.
 */
#ifndef KILN_COOK_PROCESS_MIPS_RESAMPLE_H
#define KILN_COOK_PROCESS_MIPS_RESAMPLE_H

#include "cook/process/mips_texel.h"

/* mips_resample_banded's state: output rows come in turn (mips_resampler_rows). */
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

void mips_resampler_free(resampler *r);
bool mips_resampler_init(resampler *r, const float *src, level0_texels base, uint32_t sw,
                         uint32_t sh, const mip_options *o, const texel_lanes *lane,
                         bool premultiply, uint32_t dw, uint32_t dh);
/* The next `rows` output rows into dst (rows x dw texels). */
void mips_resampler_rows(resampler *r, float *dst, uint32_t rows);

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
bool mips_resample_banded(const float *src, level0_texels base, uint32_t sw, uint32_t sh,
                          const mip_options *o, const texel_lanes *lane, bool premultiply,
                          float *dst, uint32_t dw, uint32_t dh);

#endif
