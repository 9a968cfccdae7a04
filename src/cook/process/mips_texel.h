/*
 * mips_texel.h — texels between their stored encoding and the working space
 * mip chains filter in (mips_texel.c holds the tables and the public
 * conversions); private to the process stage. The helpers the chain's and
 * the resampler's hot loops call are here, static inline, so that they
 * still inline into those loops.
 *
 * The working space is where averaging is physically right:
 *   - sRGB colour is converted to linear light first (a 1-pixel black/white
 *     checkerboard averages to linear 0.5, stored as sRGB 188, not 128);
 *   - colour is premultiplied by alpha while filtering (alpha_weighted), so
 *     fully transparent texels contribute no colour;
 *   - normal maps are decoded to vectors and renormalised after every level.
 * Speed without changing results: sRGB decode is a 256-entry table, sRGB
 * encode a table step function equal to the powf curve after rounding to 8
 * bits.
 */
#ifndef KILN_COOK_PROCESS_MIPS_TEXEL_H
#define KILN_COOK_PROCESS_MIPS_TEXEL_H

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/process/mips_simd.h"
#include "cook/process/process.h"

/* One texel (RGBA) as a GCC/Clang vector: the lane operations are the IEEE
 * float operations the scalar code did, four at a time. */
typedef float v4f __attribute__((vector_size(16)));

/* sRGB -> linear for the 256 values an 8-bit source can hold (exact floats
 * k / 255 hit the table; anything else takes powf). */
extern float mips_srgb_table[256];
/* A bucket in one word (one load, or one gather in mips_simd.c): its first
 * code in bits 0..7, and from bit 8 up its step as the step's bits less the
 * bucket's first bits (1 << 15, past the bucket: no step). */
extern uint32_t mips_srgb_bucket[SRGB_BUCKETS + 1];
extern float mips_unorm8_value[256]; /* k / 255.0f */
extern float mips_normal_table[256]; /* k / 255.0f * 2 - 1: a normal map's vector component */
/* An 8-bit texel into the working space as vector loads and adds instead of
 * assembling lanes: mips_texel_lane[mode - 1][channel][k] holds the mode's
 * working value of k in lane `channel` and zeros elsewhere (adding zeros is
 * exact); mips_alpha_lane[k] = {0, 0, 0, k / 255}, mips_alpha_weight[k] = {a, a, a, 1}
 * with a = k / 255 (premultiplication). */
typedef struct texel_lanes {
    v4f lane[3][256];
} texel_lanes;
extern texel_lanes mips_texel_lane[3];
extern v4f mips_alpha_lane[256];
extern v4f mips_alpha_weight[256];
/* The tables above and the CPU checks, made once: every user first calls
 * pthread_once(&mips_tables_once, mips_tables_init). */
extern pthread_once_t mips_tables_once;
void mips_tables_init(void);
extern bool mips_cpu_has_avx2;   /* mips_simd.c's encode runs here */
extern bool mips_cpu_has_avx512; /* and its opaque halving */

/* The filter's values are never NaN (sources are finite, alpha divides only
 * when above 0). The clamp into 2^-13 .. 1 is on the bit pattern as a
 * signed integer, which orders non-negative floats as they compare and puts
 * negative ones below: branchless, where float compares would branch on
 * the data. */
/* The code of v's bits, clamped into 2^-13 .. 1: the bucket's first code,
 * plus one from its step on (the bits compare as the floats do). */
static inline uint8_t srgb8_of_bits(uint32_t bits) {
    uint32_t bucket = mips_srgb_bucket[(bits - SRGB_LOW_BITS) >> 15];
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

static inline float srgb_to_linear_fast(float v) {
    float k = v * 255.0f + 0.5f; /* rounds: k / 255.0f times 255 may land just below k */
    if (k >= 0.0f && k < 256.0f) {
        int i = (int)k;
        if (mips_unorm8_value[i] == v)
            return mips_srgb_table[i];
    }
    return image_srgb_to_linear(v);
}

static inline float *alloc_rgba(uint32_t w, uint32_t h) {
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
 * (`lane` is the mode's mips_texel_lane). */
static inline v4f working_texel8(const uint8_t *s, const texel_lanes *t, bool premultiply) {
    v4f p = t->lane[0][s[0]] + t->lane[1][s[1]] + t->lane[2][s[2]];
    if (premultiply)
        p *= mips_alpha_weight[s[3]];
    return p + mips_alpha_lane[s[3]];
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
            d[c] = mips_unorm8_value[srgb8_of(d[c])];
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

#endif
