/* anim.c — animation key reduction and quantization (anim.reduce,
 * anim.quantize; docs/formats/kanim.md "Reduction and quantization").
 *
 * Everything works on copies of an IR sampler's keys: the IR clips stay as
 * the importers filled them. Values are evaluated in double precision by the
 * glTF 2.0 Appendix C rules (slerp with acos/sin), independently of the
 * runtime's float sampler.
 *
 * Reduction (anim_reduce):
 *   LINEAR  greedy: from a kept key, the next kept key is the farthest (at most
 *           ANIM_REDUCE_SPAN keys on) such that interpolating between the two
 *           reproduces the source within the tolerance at every source key in
 *           between and at three points inside each source interval. For
 *           translations, scales and weights the difference of two piecewise
 *           linear curves is linear between source keys, so the source keys
 *           bound it exactly; rotations are checked at the quarter points too.
 *   STEP    a key whose value is within the tolerance of the last kept one is
 *           removed (that value is held instead).
 *   CUBICSPLINE kept as authored, except a constant channel.
 *   A channel whose every key value is within the tolerance of the first (and,
 *   for CUBICSPLINE, every tangent 0) becomes one key. The first and last keys
 *   are always kept otherwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

/* Longest run of removed keys + 1: bounds the greedy search to
 * O(keys x ANIM_REDUCE_SPAN) evaluations. */
#define ANIM_REDUCE_SPAN 256u

static uint32_t groups_of(ir_interpolation interpolation) {
    return interpolation == IR_INTERP_CUBICSPLINE ? 3u : 1u;
}

/* ---------------------------------------------------------------------------
 * Evaluation (double precision, glTF 2.0 Appendix C)
 * ------------------------------------------------------------------------- */

static void normalize4d(double *q) {
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (length > 0.0)
        for (int k = 0; k < 4; k++)
            q[k] /= length;
}

/* Slerp on the shortest arc; a and b need not be unit (normalised first). */
static void slerpd(const double *a_in, const double *b_in, double s, double *out) {
    double a[4], b[4];
    memcpy(a, a_in, sizeof a);
    memcpy(b, b_in, sizeof b);
    normalize4d(a);
    normalize4d(b);
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0.0) {
        dot = -dot;
        for (int k = 0; k < 4; k++)
            b[k] = -b[k];
    }
    double wa = 1.0 - s, wb = s;
    if (dot < 1.0 - 1e-12) {
        double theta = acos(dot > 1.0 ? 1.0 : dot), sine = sin(theta);
        wa = sin((1.0 - s) * theta) / sine;
        wb = sin(s * theta) / sine;
    }
    for (int k = 0; k < 4; k++)
        out[k] = wa * a[k] + wb * b[k];
    normalize4d(out);
}

void anim_evaluate(const anim_keys *keys, double time, double *out) {
    uint32_t n = keys->key_count, c = keys->components;
    bool cubic = keys->interpolation == IR_INTERP_CUBICSPLINE;
    size_t stride = (size_t)c * groups_of(keys->interpolation), at = cubic ? c : 0;
    const float *t = keys->times, *v = keys->values;
    bool rotation = keys->path == IR_ANIM_ROTATION;
    uint32_t key = 0;
    if (n > 1 && time >= t[n - 1]) {
        key = n - 1;
    } else if (n > 1 && time > t[0]) {
        uint32_t lo = 0, hi = n - 1;
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if ((double)t[mid] <= time)
                lo = mid;
            else
                hi = mid;
        }
        double d = (double)t[lo + 1] - t[lo], s = (time - t[lo]) / d;
        const float *v0 = v + lo * stride + at, *v1 = v0 + stride;
        if (keys->interpolation == IR_INTERP_STEP) {
            for (uint32_t j = 0; j < c; j++)
                out[j] = v0[j];
        } else if (!cubic) {
            if (rotation) {
                double a[4], b[4];
                for (int j = 0; j < 4; j++) {
                    a[j] = v0[j];
                    b[j] = v1[j];
                }
                slerpd(a, b, s, out);
            } else {
                for (uint32_t j = 0; j < c; j++)
                    out[j] = v0[j] + s * ((double)v1[j] - v0[j]);
            }
        } else {
            const float *b0 = v0 + c, *a1 = v1 - c;
            double s2 = s * s, s3 = s2 * s;
            double h00 = 2 * s3 - 3 * s2 + 1, h10 = d * (s3 - 2 * s2 + s);
            double h01 = -2 * s3 + 3 * s2, h11 = d * (s3 - s2);
            for (uint32_t j = 0; j < c; j++)
                out[j] = h00 * v0[j] + h10 * b0[j] + h01 * v1[j] + h11 * a1[j];
            if (rotation)
                normalize4d(out);
        }
        return;
    }
    for (uint32_t j = 0; j < c; j++)
        out[j] = v[key * stride + at + j];
    if (rotation)
        normalize4d(out);
}

double anim_difference(ir_anim_path path, uint32_t components, const double *a, const double *b) {
    double worst = 0.0;
    if (path == IR_ANIM_ROTATION) {
        double qa[4], qb[4];
        memcpy(qa, a, sizeof qa);
        memcpy(qb, b, sizeof qb);
        normalize4d(qa);
        normalize4d(qb);
        /* 2 acos(|dot|), through atan2 of the difference: exact near 0 too. */
        double diff[4], sum[4];
        double sign = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3] < 0 ? -1 : 1;
        double dn = 0.0, sn = 0.0;
        for (int k = 0; k < 4; k++) {
            diff[k] = qa[k] - sign * qb[k];
            sum[k] = qa[k] + sign * qb[k];
            dn += diff[k] * diff[k];
            sn += sum[k] * sum[k];
        }
        return 4.0 * atan2(sqrt(dn), sqrt(sn));
    }
    if (path == IR_ANIM_TRANSLATION) {
        double sum = 0.0;
        for (uint32_t j = 0; j < components; j++)
            sum += (a[j] - b[j]) * (a[j] - b[j]);
        return sqrt(sum);
    }
    for (uint32_t j = 0; j < components; j++)
        worst = fmax(worst, fabs(a[j] - b[j]));
    return worst;
}

/* ---------------------------------------------------------------------------
 * Reduction
 * ------------------------------------------------------------------------- */

static float tolerance_of(const cook_anim_tolerance *t, ir_anim_path path) {
    switch (path) {
    case IR_ANIM_TRANSLATION:
        return t->translation;
    case IR_ANIM_ROTATION:
        return t->rotation;
    case IR_ANIM_SCALE:
        return t->scale;
    case IR_ANIM_WEIGHTS:
        break;
    }
    return t->weights;
}

/* Key k's value (the value group for CUBICSPLINE) as doubles. */
static void key_value(const anim_keys *keys, uint32_t k, double *out) {
    size_t stride = (size_t)keys->components * groups_of(keys->interpolation);
    size_t at = keys->interpolation == IR_INTERP_CUBICSPLINE ? keys->components : 0;
    for (uint32_t j = 0; j < keys->components; j++)
        out[j] = keys->values[k * stride + at + j];
}

/* Does interpolating from key i to key j reproduce the source (LINEAR) within
 * `tolerance` at every source key between them and three points inside every
 * source interval of [t_i, t_j]? */
static bool span_fits(const anim_keys *src, uint32_t i, uint32_t j, double tolerance, double *a,
                      double *b, double *x, double *y) {
    uint32_t c = src->components;
    bool rotation = src->path == IR_ANIM_ROTATION;
    key_value(src, i, a);
    key_value(src, j, b);
    double t0 = src->times[i], d = (double)src->times[j] - t0;
    /* The newest key first: that is where a growing span usually fails. */
    for (uint32_t k = j; k-- > i;) {
        for (int q = 0; q < (rotation ? 4 : 1); q++) {
            if (k == i && q == 0)
                continue;
            double time = src->times[k] + ((double)src->times[k + 1] - src->times[k]) * q / 4.0;
            if (q == 0) {
                key_value(src, k, x);
            } else {
                anim_evaluate(src, time, x);
            }
            double s = (time - t0) / d;
            if (rotation) {
                slerpd(a, b, s, y);
            } else {
                for (uint32_t m = 0; m < c; m++)
                    y[m] = a[m] + s * (b[m] - a[m]);
            }
            if (!(anim_difference(src->path, c, x, y) <= tolerance))
                return false;
        }
    }
    return true;
}

static bool constant_channel(const anim_keys *src, double tolerance, double *a, double *x) {
    uint32_t c = src->components;
    if (src->interpolation == IR_INTERP_CUBICSPLINE) {
        for (uint32_t k = 0; k < src->key_count; k++)
            for (uint32_t j = 0; j < c; j++)
                if (src->values[(size_t)k * 3 * c + j] != 0.0f ||
                    src->values[(size_t)k * 3 * c + 2 * c + j] != 0.0f)
                    return false;
    }
    key_value(src, 0, a);
    for (uint32_t k = 1; k < src->key_count; k++) {
        key_value(src, k, x);
        if (!(anim_difference(src->path, c, a, x) <= tolerance))
            return false;
    }
    return true;
}

bool anim_reduce(const anim_keys *src, const cook_anim_tolerance *tolerance, anim_keys *out) {
    uint32_t n = src->key_count, c = src->components;
    size_t stride = (size_t)c * groups_of(src->interpolation);
    *out = *src;
    out->times = malloc(n * sizeof(float));
    out->values = malloc(n * stride * sizeof(float));
    bool *keep = calloc(n, sizeof *keep);
    double *scratch = malloc(4 * (size_t)(c > 4 ? c : 4) * sizeof(double));
    if (out->times == NULL || out->values == NULL || keep == NULL || scratch == NULL) {
        free(keep);
        free(scratch);
        anim_keys_free(out);
        return false;
    }
    size_t cc = c > 4 ? c : 4;
    double *a = scratch, *b = scratch + cc, *x = scratch + 2 * cc, *y = scratch + 3 * cc;
    double tol = tolerance_of(tolerance, src->path);
    if (!tolerance->on || n <= 1) {
        for (uint32_t k = 0; k < n; k++)
            keep[k] = true;
    } else if (constant_channel(src, tol, a, x)) {
        keep[0] = true;
    } else if (src->interpolation == IR_INTERP_STEP) {
        uint32_t last = 0;
        keep[0] = keep[n - 1] = true;
        for (uint32_t k = 1; k + 1 < n; k++) {
            key_value(src, last, a);
            key_value(src, k, x);
            if (!(anim_difference(src->path, c, a, x) <= tol)) {
                keep[k] = true;
                last = k;
            }
        }
    } else if (src->interpolation == IR_INTERP_LINEAR) {
        keep[0] = true;
        uint32_t i = 0;
        while (i + 1 < n) {
            uint32_t j = i + 1;
            while (j + 1 < n && j + 1 - i <= ANIM_REDUCE_SPAN &&
                   span_fits(src, i, j + 1, tol, a, b, x, y))
                j++;
            keep[j] = true;
            i = j;
        }
    } else {
        for (uint32_t k = 0; k < n; k++)
            keep[k] = true;
    }
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!keep[k])
            continue;
        out->times[m] = src->times[k];
        memcpy(out->values + m * stride, src->values + k * stride, stride * sizeof(float));
        m++;
    }
    out->key_count = m;
    free(keep);
    free(scratch);
    return true;
}

void anim_keys_free(anim_keys *keys) {
    free(keys->times);
    free(keys->values);
    keys->times = NULL;
    keys->values = NULL;
}

/* ---------------------------------------------------------------------------
 * Quantization
 * ------------------------------------------------------------------------- */

bool anim_quantizable(const anim_keys *keys) {
    return keys->path != IR_ANIM_WEIGHTS && keys->interpolation != IR_INTERP_CUBICSPLINE &&
           keys->components == (keys->path == IR_ANIM_ROTATION ? 4u : 3u);
}

void anim_quantize_range(const anim_keys *keys, float range[6]) {
    for (uint32_t j = 0; j < 3; j++) {
        float lo = keys->values[j], hi = lo;
        for (uint32_t k = 1; k < keys->key_count; k++) {
            float v = keys->values[(size_t)k * 3 + j];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        range[j] = lo;
        range[3 + j] = (float)(((double)hi - lo) / 65535.0);
    }
}

void anim_quantize_vec3(const float *v, const float range[6], uint16_t *q) {
    for (int j = 0; j < 3; j++) {
        double step = range[3 + j];
        double u = step > 0.0 ? ((double)v[j] - range[j]) / step : 0.0;
        /* The nearest of the three codes around u as the decoder computes it. */
        long base = lround(u), best = 0;
        double best_error = INFINITY;
        for (long cand = base - 1; cand <= base + 1; cand++) {
            if (cand < 0 || cand > 65535)
                continue;
            float decoded = range[j] + (float)cand * range[3 + j];
            double e = fabs((double)decoded - v[j]);
            if (e < best_error) {
                best_error = e;
                best = cand;
            }
        }
        q[j] = (uint16_t)best;
    }
}

void anim_dequantize_vec3(const uint16_t *q, const float range[6], float *v) {
    for (int j = 0; j < 3; j++)
        v[j] = range[j] + (float)q[j] * range[3 + j];
}

#define SQRT1_2 0.70710678118654752440
void anim_quantize_rotation(const float *q_in, uint16_t *q) {
    double r[4] = {q_in[0], q_in[1], q_in[2], q_in[3]};
    normalize4d(r);
    int largest = 0;
    for (int k = 1; k < 4; k++)
        if (fabs(r[k]) > fabs(r[largest]))
            largest = k;
    double sign = r[largest] < 0.0 ? -1.0 : 1.0;
    int w = 0;
    for (int k = 0; k < 4; k++) {
        if (k == largest)
            continue;
        double x = sign * r[k] / SQRT1_2; /* [-1, 1] */
        long u = lround((x + 1.0) * 0.5 * 32767.0);
        q[w++] = (uint16_t)(u < 0 ? 0 : u > 32767 ? 32767 : u);
    }
    q[0] |= (uint16_t)((largest & 1) << 15);
    q[1] |= (uint16_t)((largest >> 1) << 15);
}

void anim_dequantize_rotation(const uint16_t *q, float *out) {
    int largest = (q[0] >> 15) | ((q[1] >> 15) << 1);
    float x[3], sum = 0.0f;
    for (int k = 0; k < 3; k++) {
        x[k] = ((float)(q[k] & 0x7fff) * (2.0f / 32767.0f) - 1.0f) * 0.70710678f;
        sum += x[k] * x[k];
    }
    int w = 0;
    for (int k = 0; k < 4; k++)
        out[k] = k == largest ? sqrtf(sum < 1.0f ? 1.0f - sum : 0.0f) : x[w++];
}

/* ---------------------------------------------------------------------------
 * The stage
 * ------------------------------------------------------------------------- */

/* The path of every channel using sampler `s`; false when none uses it or
 * two disagree (then it is kept as it is). */
static bool sampler_path(const ir_animation *anim, uint32_t s, ir_anim_path *path) {
    bool found = false;
    for (uint32_t c = 0; c < anim->channel_count; c++) {
        if (anim->channels[c].sampler != s)
            continue;
        if (found && anim->channels[c].path != *path)
            return false;
        *path = anim->channels[c].path;
        found = true;
    }
    return found;
}

/* The worst difference of `cooked` from `src` at every source key time and
 * three points inside every source interval (and, for cooked keys not in the
 * source, which reduction never makes, nothing more is needed). */
static double keys_error(const anim_keys *src, const anim_keys *cooked, double *x, double *y) {
    double worst = 0.0;
    for (uint32_t k = 0; k < src->key_count; k++) {
        for (int q = 0; q < 4 && (q == 0 || k + 1 < src->key_count); q++) {
            double time =
                q == 0 ? src->times[k]
                       : src->times[k] + ((double)src->times[k + 1] - src->times[k]) * q / 4.0;
            anim_evaluate(src, time, x);
            anim_evaluate(cooked, time, y);
            worst = fmax(worst, anim_difference(src->path, src->components, x, y));
        }
    }
    return worst;
}

static bool process_sampler(ir_animation *anim, ir_anim_sampler *s, ir_anim_path path,
                            const cook_settings *settings) {
    anim_keys src = {.key_count = s->key_count,
                     .components = s->components,
                     .interpolation = s->interpolation,
                     .path = path,
                     .times = s->times,
                     .values = s->values};
    anim_keys out;
    if (!anim_reduce(&src, &settings->anim_reduce, &out))
        return false;
    if (settings->anim_quantize && anim_quantizable(&out)) {
        s->quantized = malloc((size_t)out.key_count * 3 * sizeof *s->quantized);
        if (s->quantized == NULL) {
            anim_keys_free(&out);
            return false;
        }
        if (path != IR_ANIM_ROTATION)
            anim_quantize_range(&out, s->range);
        for (uint32_t k = 0; k < out.key_count; k++) {
            float *v = out.values + (size_t)k * out.components;
            uint16_t *q = s->quantized + (size_t)k * 3;
            if (path == IR_ANIM_ROTATION) {
                anim_quantize_rotation(v, q);
                anim_dequantize_rotation(q, v);
            } else {
                anim_quantize_vec3(v, s->range, q);
                anim_dequantize_vec3(q, s->range, v);
            }
        }
    }
    size_t cc = s->components > 4 ? s->components : 4;
    double *scratch = malloc(2 * cc * sizeof *scratch);
    if (scratch == NULL) {
        anim_keys_free(&out);
        return false;
    }
    double error = keys_error(&src, &out, scratch, scratch + cc);
    free(scratch);
    anim->error[path] = fmaxf(anim->error[path], (float)error);
    free(s->times);
    free(s->values);
    s->times = out.times;
    s->values = out.values;
    s->key_count = out.key_count;
    return true;
}

bool process_animations(ir_asset *asset, const cook_settings *settings) {
    if (!settings->anim_reduce.on && !settings->anim_quantize)
        return true;
    for (uint32_t a = 0; a < asset->animation_count; a++) {
        ir_animation *anim = &asset->animations[a];
        bool first = true;
        for (uint32_t c = 0; c < anim->channel_count; c++) {
            const ir_anim_sampler *s = &anim->samplers[anim->channels[c].sampler];
            float t0 = s->times[0], t1 = s->times[s->key_count - 1];
            anim->start = first || t0 < anim->start ? t0 : anim->start;
            anim->end = first || t1 > anim->end ? t1 : anim->end;
            first = false;
        }
        anim->has_range = !first;
        for (uint32_t s = 0; s < anim->sampler_count; s++) {
            ir_anim_path path = IR_ANIM_TRANSLATION;
            if (sampler_path(anim, s, &path) && anim->samplers[s].quantized == NULL &&
                !process_sampler(anim, &anim->samplers[s], path, settings))
                return false;
        }
    }
    return true;
}
