/* scene_affine.h — the product of two affine matrices, shared by the scene
 * instance's passes (scene_instance.c) and its skins (scene_skin.c), and
 * the inlining both need. */
#ifndef KILN_RUNTIME_SCENE_AFFINE_H
#define KILN_RUNTIME_SCENE_AFFINE_H

#include <string.h>

#if defined(__GNUC__)
#define ALWAYS_INLINE __attribute__((always_inline)) static inline
#else
#define ALWAYS_INLINE static inline
#endif

/* world = parent * local for affine matrices (last row 0 0 0 1, which TRS
 * composition and products of such matrices keep): 36 multiplications.
 * Column c of the product is the parent's first three columns weighted by
 * local column c's first three rows, plus the parent's translation for the
 * last column. With GCC's or Clang's vector types a column is computed four
 * rows at once (the fourth, row 3, then set to 0 or 1): the same operations
 * in the same order as the scalar form, so the same bits (test_scene_update
 * checks them against its own scalar product), in 4 stores a matrix instead
 * of 16.
 * The full pass took 0.64x the time, a dirty update 0.70-0.74x (100,000
 * nodes, BENCHMARKS.md 11). */
#if defined(__GNUC__)
typedef float column __attribute__((vector_size(16)));

ALWAYS_INLINE column load_column(const float *p) {
    column c;
    memcpy(&c, p, sizeof c);
    return c;
}

ALWAYS_INLINE column splat(float x) {
    return (column){x, x, x, x};
}

ALWAYS_INLINE void multiply_affine(const float *parent, const float *local, float *out) {
    column p0 = load_column(parent), p1 = load_column(parent + 4), p2 = load_column(parent + 8),
           p3 = load_column(parent + 12), zero = splat(0.0f);
    for (int c = 0; c < 4; c++) {
        column sum = p0 * splat(local[c * 4 + 0]) + p1 * splat(local[c * 4 + 1]) +
                     p2 * splat(local[c * 4 + 2]) + (c == 3 ? p3 : zero);
        sum[3] = c == 3 ? 1.0f : 0.0f;
        memcpy(out + c * 4, &sum, sizeof sum);
    }
}
#else
static inline void multiply_affine(const float *parent, const float *local, float *out) {
    for (int c = 0; c < 4; c++) {
        float l0 = local[c * 4 + 0], l1 = local[c * 4 + 1], l2 = local[c * 4 + 2];
        for (int r = 0; r < 3; r++)
            out[c * 4 + r] = parent[r] * l0 + parent[4 + r] * l1 + parent[8 + r] * l2 +
                             (c == 3 ? parent[12 + r] : 0.0f);
        out[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
    }
}
#endif

#endif
