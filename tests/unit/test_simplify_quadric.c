/* test_simplify_quadric.c — the faster forms of kiln's simplifier's quadric
 * arithmetic give the plain forms' bits: both directions of an edge ranked
 * at once (quadric_error_pair) against quadric_error one at a time; the
 * quadrics simplify_fill_quadrics sums against planes added one by one to a
 * zeroed quadric, in double, in the same order; and the extent errors are
 * measured in against meshopt_simplifyScale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"
#include "cook/process/simplify_internal.h"

static uint32_t rng_state = 12345u;

static float random_unit(void) { /* [-1, 1) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 8388608.0f - 1.0f;
}

/* Three weighted planes through `at` (near which their squared distances
 * cancel to little of their terms: the last bits of the double sums show in
 * the float error there), or a quadric without a positive weight. */
static quadric planes_through(const float at[3], int which) {
    quadric q = {0};
    for (int plane = 0; plane < 3; plane++) {
        double n[3] = {random_unit(), random_unit(), random_unit() + 0.1};
        double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++)
            n[k] /= length;
        double d = -(n[0] * at[0] + n[1] * at[1] + n[2] * at[2]), w = 1.5 + random_unit();
        q.a00 += w * n[0] * n[0];
        q.a01 += w * n[0] * n[1];
        q.a02 += w * n[0] * n[2];
        q.a11 += w * n[1] * n[1];
        q.a12 += w * n[1] * n[2];
        q.a22 += w * n[2] * n[2];
        q.b0 += w * n[0] * d;
        q.b1 += w * n[1] * d;
        q.b2 += w * n[2] * d;
        q.c += w * d * d;
        q.weight += w;
    }
    if (which % 11 == 0)
        q.weight = 0.0; /* no planes: error 0 */
    else if (which % 13 == 0)
        q.weight = -q.weight; /* not positive: error 0 */
    return q;
}

static void the_pair_is_two_single_errors_bit_for_bit(void **state) {
    (void)state;
    for (int i = 0; i < 20000; i++) {
        float at0[3], at1[3], p0[3], p1[3];
        float near = i % 3 == 0 ? 1e-2f : (i % 3 == 1 ? 1e-4f : 1e-6f);
        for (int k = 0; k < 3; k++) {
            at0[k] = random_unit();
            at1[k] = random_unit();
            p0[k] = at0[k] + near * random_unit();
            p1[k] = at1[k] + near * random_unit();
        }
        quadric q0 = planes_through(at0, i), q1 = planes_through(at1, i + 5);
        float pair[2], single[2] = {quadric_error(&q0, p0), quadric_error(&q1, p1)};
        quadric_error_pair(&q0, p0, &q1, p1, pair);
        assert_memory_equal(pair, single, sizeof pair);
    }
}

/* The plane of abc as simplify_quadric.c defines it (float normal and
 * offset, weight the square root of the normal's length), added field by
 * field to `q` in double. */
static void add_face_plane(quadric *q, const float *a, const float *b, const float *c) {
    float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    float n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (length > 0.0f) {
        float inverse = 1.0f / length;
        for (int k = 0; k < 3; k++)
            n[k] *= inverse;
    }
    float d = -(n[0] * a[0] + n[1] * a[1] + n[2] * a[2]);
    double w = sqrtf(length), x = n[0], y = n[1], z = n[2], e = d;
    quadric plane = {0};
    plane.a00 += w * x * x;
    plane.a01 += w * x * y;
    plane.a02 += w * x * z;
    plane.a11 += w * y * y;
    plane.a12 += w * y * z;
    plane.a22 += w * z * z;
    plane.b0 += w * x * e;
    plane.b1 += w * y * e;
    plane.b2 += w * z * e;
    plane.c += w * e * e;
    plane.weight += w;
    double *to = &q->a00;
    const double *from = &plane.a00;
    for (size_t k = 0; k < sizeof *q / sizeof(double); k++)
        to[k] += from[k];
}

/* Closed boxes of 12 triangles (no unpaired edge: face planes alone): one
 * with a corner raised, whose axis-aligned faces' normals have zero
 * components (so their planes' quadrics hold -0.0 products that a zeroed
 * quadric's adds turn into +0.0), then boxes with every corner moved. */
static void filled_quadrics_are_the_planes_added_one_by_one(void **state) {
    (void)state;
    const float cube[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
                            0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1.5f};
    const uint32_t box[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                              1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    const size_t count = 36;
    simplify_state s = {.vertex_count = 8};
    s.remap = malloc(8 * sizeof *s.remap);
    s.wedge = malloc(8 * sizeof *s.wedge);
    s.loop = malloc(8 * sizeof *s.loop);
    s.kind = malloc(8);
    s.adjacency_first = malloc(9 * sizeof *s.adjacency_first);
    s.adjacency = malloc(count * sizeof *s.adjacency);
    assert_true(s.remap && s.wedge && s.loop && s.kind && s.adjacency_first && s.adjacency);
    for (int shape = 0; shape < 200; shape++) {
        float positions[24];
        for (int i = 0; i < 24; i++)
            positions[i] = cube[i] + (shape == 0 ? 0.0f : 0.3f * random_unit());
        uint8_t open[36];
        assert_true(simplify_weld(&s, box, count, positions));
        simplify_adjacency_build(&s, box, count);
        simplify_classify(&s, box, count, false, open);
        for (size_t i = 0; i < count; i++)
            assert_int_equal(open[i], 0);
        quadric filled[8] = {{0}}, expected[8] = {{0}};
        simplify_fill_quadrics(filled, positions, &s, box, count, open, false);
        for (size_t t = 0; t < count; t += 3)
            for (int k = 0; k < 3; k++)
                add_face_plane(&expected[box[t + (size_t)k]], positions + 3 * box[t],
                               positions + 3 * box[t + 1], positions + 3 * box[t + 2]);
        assert_memory_equal(filled, expected, sizeof filled);
    }
    free(s.remap);
    free(s.wedge);
    free(s.loop);
    free(s.kind);
    free(s.adjacency_first);
    free(s.adjacency);
}

static void the_extent_is_meshoptimizers(void **state) {
    (void)state;
    enum { VERTICES = 500 };
    float positions[3 * VERTICES];
    uint32_t indices[3 * (VERTICES - 2)];
    for (int shape = 0; shape < 20; shape++) {
        float scale[3] = {1.0f + 100.0f * (float)(shape % 3), 1e-3f + (float)(shape % 5),
                          (float)shape * 0.37f};
        for (int v = 0; v < VERTICES; v++)
            for (int k = 0; k < 3; k++)
                positions[3 * v + k] = random_unit() * scale[k] + (float)(shape - 10);
        for (uint32_t t = 0; t < VERTICES - 2; t++) {
            indices[3 * t] = 0;
            indices[3 * t + 1] = t + 1;
            indices[3 * t + 2] = t + 2;
        }
        simplify_session *session =
            simplify_begin(indices, 3 * (VERTICES - 2), positions, VERTICES, false);
        assert_non_null(session);
        float extent = simplify_extent(session),
              theirs = meshopt_simplifyScale(positions, VERTICES, 3 * sizeof(float));
        assert_memory_equal(&extent, &theirs, sizeof extent);
        simplify_end(session);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_pair_is_two_single_errors_bit_for_bit),
        cmocka_unit_test(filled_quadrics_are_the_planes_added_one_by_one),
        cmocka_unit_test(the_extent_is_meshoptimizers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
