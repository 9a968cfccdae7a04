/*
 * runtime/anim_eval.h — evaluating one animation channel at a time
 * (docs/formats/kanim.md, Sampling), shared by kiln_anim_sample (anim.c) and
 * the prepared sampler (anim_sampler.c), so that both give the same bits.
 * Every function is inlined into its caller's loop.
 */
#ifndef KILN_RUNTIME_ANIM_EVAL_H
#define KILN_RUNTIME_ANIM_EVAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kiln/kiln.h"

/* The sampler's small functions are inlined into the per-clip loop. */
#if defined(__GNUC__)
#define ANIM_INLINE static inline __attribute__((always_inline))
#else
#define ANIM_INLINE static inline
#endif

/* The key interval holding `time`: k with t[k] <= time < t[k + 1], for
 * n >= 2 and t[0] < time < t[n - 1]. A cursor at or before the answer walks
 * forward a few keys (forward playback), otherwise a binary search. */
static inline uint32_t find_interval(const float *t, uint32_t n, float time, uint32_t k) {
    if (k < n - 1 && t[k] <= time) {
        if (time < t[k + 1])
            return k;
        for (int step = 0; step < 3 && k + 2 < n; step++) {
            k++;
            if (time < t[k + 1])
                return k;
        }
    }
    uint32_t lo = 0, hi = n - 1; /* t[lo] <= time < t[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t[mid] <= time)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static inline void normalize4(float *q) {
    float length = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (length > 0.0f) {
        float inverse = 1.0f / length;
        for (int k = 0; k < 4; k++)
            q[k] *= inverse;
    }
}

/* Slerp on the shortest arc between unit quaternions a and b, without
 * trigonometry: D. Eberly, "A Fast and Accurate Algorithm for Computing
 * SLERP" (JGGT 2011), whose polynomial in cos(theta) of degree 8 gives the
 * weights sin((1 - s) theta) / sin(theta) and sin(s theta) / sin(theta) to
 * about 1e-7 for every angle up to pi/2 between the (sign-corrected)
 * quaternions, i.e. every rotation. Its terms shrink by |cos(theta) - 1| each:
 * when the keys are within about 16 degrees (cos theta >= 0.99, what keys of
 * a sampled clip are) four terms already hold the weights to ~1e-9, so the
 * rest are skipped, and the result keeps the inputs' unit length to ~1e-7.
 * For wider arcs, where the polynomial's error in the length reaches ~1e-5,
 * it is renormalised by one Newton step (kanim.md, Sampling). */
ANIM_INLINE void slerp_unit(const float *a, const float *b, float s, float *out) {
    static const float mu = 1.90110745351730037f; /* 1 + mu for degree 8 */
    static const float u[8] = {1.0f / (1 * 3),  1.0f / (2 * 5),  1.0f / (3 * 7),  1.0f / (4 * 9),
                               1.0f / (5 * 11), 1.0f / (6 * 13), 1.0f / (7 * 15), mu / (8 * 17)};
    static const float v[8] = {1.0f / 3,  2.0f / 5,  3.0f / 7,  4.0f / 9,
                               5.0f / 11, 6.0f / 13, 7.0f / 15, mu * 8 / 17};
    float dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sign = dot < 0.0f ? -1.0f : 1.0f;
    dot *= sign;
    float xm1 = dot - 1.0f, d = 1.0f - s, s2 = s * s, d2 = d * d;
    float ws = 1.0f, wd = 1.0f;
    if (xm1 >= -0.01f) {
        for (int i = 3; i >= 0; i--) {
            ws = 1.0f + (u[i] * s2 - v[i]) * xm1 * ws;
            wd = 1.0f + (u[i] * d2 - v[i]) * xm1 * wd;
        }
        float wa = d * wd, wb = sign * s * ws;
        for (int k = 0; k < 4; k++)
            out[k] = wa * a[k] + wb * b[k];
        return;
    }
    for (int i = 7; i >= 0; i--) {
        ws = 1.0f + (u[i] * s2 - v[i]) * xm1 * ws;
        wd = 1.0f + (u[i] * d2 - v[i]) * xm1 * wd;
    }
    float wa = d * wd, wb = sign * s * ws;
    for (int k = 0; k < 4; k++)
        out[k] = wa * a[k] + wb * b[k];
    /* |out|^2 is within ~1e-5 of 1: one Newton step of 1 / sqrt from 1,
     * (3 - |out|^2) / 2, leaves ~1e-10, without a square root or division. */
    float length2 = out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3];
    float scale = 1.5f - 0.5f * length2;
    for (int k = 0; k < 4; k++)
        out[k] *= scale;
}

static inline void slerp(const float *a, const float *b, float s, float *out) {
    float x[4], y[4];
    memcpy(x, a, sizeof x);
    memcpy(y, b, sizeof y);
    normalize4(x);
    normalize4(y);
    slerp_unit(x, y, s, out);
    normalize4(out);
}

/* Quantized keys (kanim.md, Quantized keys): the decoder of the spec. */
ANIM_INLINE void decode_rotation(const uint16_t *q, float *out) {
    unsigned largest = (unsigned)(q[0] >> 15) | ((unsigned)(q[1] >> 15) << 1);
    float x0 = ((float)(q[0] & 0x7fff) * (2.0f / 32767.0f) - 1.0f) * 0.70710678f;
    float x1 = ((float)(q[1] & 0x7fff) * (2.0f / 32767.0f) - 1.0f) * 0.70710678f;
    float x2 = ((float)(q[2] & 0x7fff) * (2.0f / 32767.0f) - 1.0f) * 0.70710678f;
    float sum = x0 * x0 + x1 * x1 + x2 * x2;
    float w = sqrtf(sum < 1.0f ? 1.0f - sum : 0.0f);
    /* where each of x0 x1 x2 w goes, by the left-out index */
    static const uint8_t place[4][4] = {{1, 2, 3, 0}, {0, 2, 3, 1}, {0, 1, 3, 2}, {0, 1, 2, 3}};
    const uint8_t *to = place[largest];
    out[to[0]] = x0;
    out[to[1]] = x1;
    out[to[2]] = x2;
    out[to[3]] = w;
}

ANIM_INLINE void decode_vec3(const uint16_t *q, const float *range, float *out) {
    for (int j = 0; j < 3; j++)
        out[j] = range[j] + (float)q[j] * range[3 + j];
}

/* Where `time` falls among a channel's keys: key k, and for `between` the
 * fraction s of the interval [t_k, t_k+1] of length d (STEP never
 * interpolates). */
typedef struct key_position {
    uint32_t key;
    bool between;
    float s, d;
} key_position;

ANIM_INLINE key_position locate(const float *t, uint32_t n, float time, uint32_t cursor) {
    key_position p = {0, false, 0.0f, 0.0f};
    if (n == 1 || !(time > t[0])) /* also NaN */
        return p;
    if (time >= t[n - 1]) {
        p.key = n - 1;
        return p;
    }
    p.key = find_interval(t, n, time, cursor);
    p.d = t[p.key + 1] - t[p.key];
    p.s = (time - t[p.key]) / p.d;
    p.between = true;
    return p;
}

/* The cursor a position leaves: the interval, or the one next to the end. */
static inline uint32_t cursor_of(key_position p, uint32_t n) {
    return p.between ? p.key : p.key == 0 ? 0 : n - 2;
}

/* Channel c at position p into out. */
ANIM_INLINE void evaluate(const kiln_anim_view *view, const kiln_anim_channel *c, key_position p,
                          float *out) {
    uint32_t components = c->components;
    bool between = p.between && c->interpolation != KILN_ANIM_STEP;
    float s = p.s;
    if (c->encoding == KILN_ANIM_QUANTIZED) {
        const uint16_t *q = view->quantized + c->value_offset + (size_t)p.key * 3;
        if (c->path == KILN_ANIM_ROTATION) {
            if (!between) {
                decode_rotation(q, out);
            } else {
                float a[4], b[4];
                decode_rotation(q, a);
                decode_rotation(q + 3, b);
                slerp_unit(a, b, s, out);
            }
        } else {
            const float *range = view->values + c->range_offset;
            if (!between) {
                decode_vec3(q, range, out);
            } else {
                float a[3], b[3];
                decode_vec3(q, range, a);
                decode_vec3(q + 3, range, b);
                for (int j = 0; j < 3; j++)
                    out[j] = a[j] + s * (b[j] - a[j]);
            }
        }
        return;
    }
    const float *v = view->values + c->value_offset;
    if (c->interpolation != KILN_ANIM_CUBICSPLINE) {
        const float *v0 = v + (size_t)p.key * components;
        if (c->path == KILN_ANIM_ROTATION) {
            if (between) {
                slerp_unit(v0, v0 + 4, s, out);
            } else {
                for (int j = 0; j < 4; j++)
                    out[j] = v0[j];
            }
        } else if (c->path != KILN_ANIM_WEIGHTS) {
            if (between) {
                for (int j = 0; j < 3; j++)
                    out[j] = v0[j] + s * (v0[3 + j] - v0[j]);
            } else {
                for (int j = 0; j < 3; j++)
                    out[j] = v0[j];
            }
        } else if (!between) {
            memcpy(out, v0, components * sizeof *out);
        } else {
            const float *v1 = v0 + components;
            for (uint32_t j = 0; j < components; j++)
                out[j] = v0[j] + s * (v1[j] - v0[j]);
        }
        return;
    }
    size_t stride = 3u * components;
    const float *v0 = v + (size_t)p.key * stride + components;
    if (!between) {
        memcpy(out, v0, components * sizeof *out);
    } else {
        const float *v1 = v0 + stride;
        const float *b0 = v0 + components; /* out tangent of k */
        const float *a1 = v1 - components; /* in tangent of k + 1 */
        float d = p.d, s2 = s * s, s3 = s2 * s;
        float h00 = 2 * s3 - 3 * s2 + 1, h10 = d * (s3 - 2 * s2 + s);
        float h01 = -2 * s3 + 3 * s2, h11 = d * (s3 - s2);
        for (uint32_t j = 0; j < components; j++)
            out[j] = h00 * v0[j] + h10 * b0[j] + h01 * v1[j] + h11 * a1[j];
    }
    if (c->path == KILN_ANIM_ROTATION)
        normalize4(out);
}

#endif /* KILN_RUNTIME_ANIM_EVAL_H */
