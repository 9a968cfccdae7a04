/* vertex.c — packing of vertex attributes into their cooked encodings. */
#include <math.h>

#include "cook/cook.h"

static int16_t snorm16(float value) {
    float clamped = value < -1.0f ? -1.0f : (value > 1.0f ? 1.0f : value);
    return (int16_t)lrintf(clamped * 32767.0f);
}

static float sign_not_zero(float value) {
    return value >= 0.0f ? 1.0f : -1.0f;
}

/* Octahedral mapping (Meyer et al. 2010, "On floating-point normal vectors"):
 * project onto the octahedron |x|+|y|+|z| = 1, fold the lower half over the
 * diagonals, store x and y. Decoded by kiln_oct_decode. */
static void oct_project(const float v[3], float *out_x, float *out_y) {
    float l1 = fabsf(v[0]) + fabsf(v[1]) + fabsf(v[2]);
    if (!(l1 > 0.0f) || !isfinite(l1)) {
        *out_x = 0.0f; /* not a direction: store +Z */
        *out_y = 0.0f;
        return;
    }
    float x = v[0] / l1, y = v[1] / l1;
    if (v[2] < 0.0f) {
        float folded_x = (1.0f - fabsf(y)) * sign_not_zero(x);
        float folded_y = (1.0f - fabsf(x)) * sign_not_zero(y);
        x = folded_x;
        y = folded_y;
    }
    *out_x = x;
    *out_y = y;
}

void encode_oct_snorm16(const float v[3], int16_t out[2]) {
    float x, y;
    oct_project(v, &x, &y);
    out[0] = snorm16(x);
    out[1] = snorm16(y);
}

/* y' = w * (0.5 + 0.5 * y) maps y in [-1, 1] to [0.5 * w .. w]'s half of the
 * range, so the sign of y' carries w at the cost of one bit of y. y' is never
 * stored as 0, which has no sign. */
void encode_oct_signed_snorm16(const float v[3], float w, int16_t out[2]) {
    float x, y;
    oct_project(v, &x, &y);
    float sign = w < 0.0f ? -1.0f : 1.0f;
    int16_t packed = snorm16(sign * (0.5f + 0.5f * y));
    if (packed == 0)
        packed = (int16_t)sign;
    out[0] = snorm16(x);
    out[1] = packed;
}
