/* simplify_fan.c — the arithmetic of a collapse's walk round the triangles
 * it moves (collapse_flips in simplify.c), four triangles at a time: whether
 * one turns over, and the removed position's distance to each.
 *
 * The point–triangle distance is Ericson's ("Real-Time Collision Detection",
 * 5.1.5: the closest point by its Voronoi region). With SSE2 the four
 * triangles go in the four lanes, every lane doing the same operations in the
 * same order as the scalar code below (SSE2 has no fused multiply-add), so
 * both give the same bits and the simplifier the same levels on any machine;
 * the region is chosen by masks in Ericson's order instead of by branches.
 * One at a time, each test cost about as much as the rest of the walk (the
 * 1M grid runs it ~1.5 million times a LOD step). */
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cook/process/simplify_internal.h"

#if defined(__SSE2__)
static inline __m128 select4(__m128 mask, __m128 yes, __m128 no) {
    return _mm_or_ps(_mm_and_ps(mask, yes), _mm_andnot_ps(mask, no));
}

static inline __m128 dot4(const __m128 x[3], const __m128 y[3]) {
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(x[0], y[0]), _mm_mul_ps(x[1], y[1])),
                      _mm_mul_ps(x[2], y[2]));
}

static inline void cross4(const __m128 x[3], const __m128 y[3], __m128 out[3]) {
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        out[k] = _mm_sub_ps(_mm_mul_ps(x[k1], y[k2]), _mm_mul_ps(x[k2], y[k1]));
    }
}

/* Squared distance from p to the segments a-b, given ap = p - a, ab = b - a
 * and ap.ab (the scalar code's dot3(ap, ab), the same bits). */
static inline __m128 segment_distance2_x4(const __m128 ap[3], const __m128 ab[3], __m128 ap_ab) {
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    __m128 length2 = dot4(ab, ab);
    __m128 t = select4(_mm_cmpgt_ps(length2, zero), _mm_div_ps(ap_ab, length2), zero);
    t = select4(_mm_cmplt_ps(t, zero), zero, select4(_mm_cmpgt_ps(t, one), one, t));
    __m128 d[3];
    for (int k = 0; k < 3; k++)
        d[k] = _mm_sub_ps(ap[k], _mm_mul_ps(t, ab[k]));
    return dot4(d, d);
}

static __m128 triangle_distance2_x4(const __m128 p[3], const __m128 a[3], const __m128 b[3],
                                    const __m128 c[3]) {
    const __m128 zero = _mm_setzero_ps();
    __m128 ab[3], ac[3], ap[3], bp[3], cp[3], bc[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = _mm_sub_ps(b[k], a[k]);
        ac[k] = _mm_sub_ps(c[k], a[k]);
        ap[k] = _mm_sub_ps(p[k], a[k]);
        bp[k] = _mm_sub_ps(p[k], b[k]);
        cp[k] = _mm_sub_ps(p[k], c[k]);
        bc[k] = _mm_sub_ps(c[k], b[k]);
    }
    __m128 d1 = dot4(ab, ap), d2 = dot4(ac, ap);
    __m128 d3 = dot4(ab, bp), d4 = dot4(ac, bp), d5 = dot4(ab, cp), d6 = dot4(ac, cp);
    __m128 va = _mm_sub_ps(_mm_mul_ps(d3, d6), _mm_mul_ps(d5, d4));
    __m128 vb = _mm_sub_ps(_mm_mul_ps(d5, d2), _mm_mul_ps(d1, d6));
    __m128 vc = _mm_sub_ps(_mm_mul_ps(d1, d4), _mm_mul_ps(d3, d2));
    __m128 sum = _mm_add_ps(_mm_add_ps(va, vb), vc);
    __m128 to_ab = segment_distance2_x4(ap, ab, d1);
    __m128 positive = _mm_cmpgt_ps(sum, zero);
    __m128 safe_sum = select4(positive, sum, _mm_set1_ps(1.0f));
    __m128 v = _mm_div_ps(vb, safe_sum), w = _mm_div_ps(vc, safe_sum), closest[3];
    for (int k = 0; k < 3; k++)
        closest[k] = _mm_sub_ps(
            _mm_add_ps(_mm_add_ps(a[k], _mm_mul_ps(ab[k], v)), _mm_mul_ps(ac[k], w)), p[k]);
    /* From the last of Ericson's tests to the first, each overriding. */
    __m128 r = select4(positive, dot4(closest, closest), to_ab); /* inside, or degenerate */
    __m128 near_bc =
        _mm_and_ps(_mm_and_ps(_mm_cmple_ps(va, zero), _mm_cmpge_ps(_mm_sub_ps(d4, d3), zero)),
                   _mm_cmpge_ps(_mm_sub_ps(d5, d6), zero));
    /* Rare round a collapse (p is near the kept corner, far from the side
     * opposite it): its division only when a lane needs it. */
    if (_mm_movemask_ps(near_bc) != 0)
        r = select4(near_bc, segment_distance2_x4(bp, bc, dot4(bp, bc)), r);
    __m128 near_ac = _mm_and_ps(_mm_and_ps(_mm_cmple_ps(vb, zero), _mm_cmpge_ps(d2, zero)),
                                _mm_cmple_ps(d6, zero));
    r = select4(near_ac, segment_distance2_x4(ap, ac, d2), r);
    __m128 near_ab = _mm_and_ps(_mm_and_ps(_mm_cmple_ps(vc, zero), _mm_cmpge_ps(d1, zero)),
                                _mm_cmple_ps(d3, zero));
    r = select4(near_ab, to_ab, r);
    __m128 near_c = _mm_and_ps(_mm_cmpge_ps(d6, zero), _mm_cmple_ps(d5, d6));
    r = select4(near_c, dot4(cp, cp), r);
    __m128 near_b = _mm_and_ps(_mm_cmpge_ps(d3, zero), _mm_cmple_ps(d4, d3));
    r = select4(near_b, dot4(bp, bp), r);
    __m128 near_a = _mm_and_ps(_mm_cmple_ps(d1, zero), _mm_cmple_ps(d2, zero));
    return select4(near_a, dot4(ap, ap), r);
}

int simplify_fan_x4(const float *from, const float *to, const float *const b[4],
                    const float *const c[4], simplify_fan *out) {
    __m128 o[3], t[3], pb[3], pc[3], u[3], v[3], before[3], after[3], offset[3];
    for (int k = 0; k < 3; k++) {
        o[k] = _mm_set1_ps(from[k]);
        t[k] = _mm_set1_ps(to[k]);
        pb[k] = _mm_set_ps(b[3][k], b[2][k], b[1][k], b[0][k]);
        pc[k] = _mm_set_ps(c[3][k], c[2][k], c[1][k], c[0][k]);
        u[k] = _mm_sub_ps(pb[k], o[k]);
        v[k] = _mm_sub_ps(pc[k], o[k]);
    }
    cross4(u, v, before);
    for (int k = 0; k < 3; k++) {
        u[k] = _mm_sub_ps(pb[k], t[k]);
        v[k] = _mm_sub_ps(pc[k], t[k]);
        offset[k] = _mm_sub_ps(o[k], t[k]);
    }
    cross4(u, v, after);
    /* Turned over: the new normal against the old one at a right angle or
     * more (meshoptimizer's rule); a degenerate triangle before never counts. */
    __m128 turn = dot4(before, after), bb = dot4(before, before);
    __m128 turns =
        _mm_and_ps(_mm_cmple_ps(turn, _mm_setzero_ps()), _mm_cmpgt_ps(bb, _mm_setzero_ps()));
    int mask = _mm_movemask_ps(turns);
    if (mask != 0)
        return mask;
    _mm_storeu_ps(out->height, dot4(offset, after));
    _mm_storeu_ps(out->area2, dot4(after, after));
    _mm_storeu_ps(out->distance2, triangle_distance2_x4(o, t, pb, pc));
    return 0;
}
#else
static float triangle_distance2(const float *p, const float *a, const float *b, const float *c) {
    float ab[3], ac[3], ap[3], closest[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    sub3(p, a, ap);
    float d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f)
        return dot3(ap, ap);
    float bp[3], cp[3];
    sub3(p, b, bp);
    sub3(p, c, cp);
    float d3 = dot3(ab, bp), d4 = dot3(ac, bp), d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    float va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
    if (d3 >= 0.0f && d4 <= d3)
        return dot3(bp, bp);
    if (d6 >= 0.0f && d5 <= d6)
        return dot3(cp, cp);
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f)
        return segment_distance2(p, a, b);
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f)
        return segment_distance2(p, a, c);
    if (va <= 0.0f && d4 - d3 >= 0.0f && d5 - d6 >= 0.0f)
        return segment_distance2(p, b, c);
    float sum = va + vb + vc;
    if (!(sum > 0.0f))
        return segment_distance2(p, a, b); /* degenerate: its longest side is near enough */
    float v = vb / sum, w = vc / sum;
    for (int k = 0; k < 3; k++)
        closest[k] = a[k] + ab[k] * v + ac[k] * w - p[k];
    return dot3(closest, closest);
}

int simplify_fan_x4(const float *from, const float *to, const float *const b[4],
                    const float *const c[4], simplify_fan *out) {
    int mask = 0;
    for (int l = 0; l < 4; l++) {
        float u[3], v[3], before[3], after[3], offset[3];
        sub3(b[l], from, u);
        sub3(c[l], from, v);
        cross3(u, v, before);
        sub3(b[l], to, u);
        sub3(c[l], to, v);
        cross3(u, v, after);
        float turn = dot3(before, after), bb = dot3(before, before), aa = dot3(after, after);
        if (turn <= 0.0f && bb > 0.0f)
            mask |= 1 << l;
        sub3(from, to, offset);
        out->height[l] = dot3(offset, after);
        out->area2[l] = aa;
        out->distance2[l] = triangle_distance2(from, to, b[l], c[l]);
    }
    return mask;
}
#endif
