/* test_simplify_levels.c — kiln's simplifier past its first level: the
 * quadrics a later level ranks manifold positions by (the last level's face
 * planes plus the error so far), against a computation in double. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"
#include "cook/process/simplify_internal.h"

/* Squared distance of p to the plane of abc; *weight is the doubled area
 * (its square root weighs the plane, as the simplifier does). */
static double plane_distance2(const float *a, const float *b, const float *c, const double *p,
                              double *weight) {
    double u[3], v[3];
    for (int k = 0; k < 3; k++) {
        u[k] = (double)b[k] - a[k];
        v[k] = (double)c[k] - a[k];
    }
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    *weight = length;
    double d = (n[0] * (p[0] - a[0]) + n[1] * (p[1] - a[1]) + n[2] * (p[2] - a[2])) / length;
    return d * d;
}

/* A raised point (manifold) in a square of four border corners, one of them
 * raised too. After the refresh its quadric is its four triangles' planes
 * alone, whatever it held before, plus its distance to `surface` (here one
 * plane z = 0, weight 2: its height squared) in every move; the corners
 * keep theirs. */
static void a_manifold_position_ranks_by_its_triangles_and_its_error_so_far(void **state) {
    (void)state;
    const float height = 0.2f;
    float positions[15] = {0, 0, 0, 1, 0, 0, 1, 1, 0.3f, 0, 1, 0, 0.4f, 0.55f, height};
    uint32_t indices[12] = {4, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0};
    simplify_state s = {.vertex_count = 5};
    s.remap = malloc(5 * sizeof *s.remap);
    s.wedge = malloc(5 * sizeof *s.wedge);
    s.loop = malloc(5 * sizeof *s.loop);
    s.kind = malloc(5);
    s.adjacency_first = malloc(6 * sizeof *s.adjacency_first);
    s.adjacency = malloc(12 * sizeof *s.adjacency);
    assert_true(s.remap && s.wedge && s.loop && s.kind && s.adjacency_first && s.adjacency);
    uint8_t open[12];
    assert_true(simplify_weld(&s, indices, 12, positions));
    simplify_adjacency_build(&s, indices, 12);
    simplify_classify(&s, indices, 12, false, open);
    assert_int_equal(s.kind[4], SIMPLIFY_MANIFOLD);
    for (int v = 0; v < 4; v++)
        assert_int_equal(s.kind[v], SIMPLIFY_BORDER);

    quadric quadrics[5] = {{0}}, before[5], surface[5] = {{0}};
    simplify_fill_quadrics(quadrics, positions, &s, indices, 12, open, false);
    quadrics[4].c += 7.0; /* anything the position held before */
    memcpy(before, quadrics, sizeof before);
    surface[4].a22 = 2.0; /* the plane z = 0, weight 2 */
    surface[4].weight = 2.0;
    simplify_refresh_manifold_quadrics(quadrics, surface, positions, &s, indices, 12);

    assert_memory_equal(quadrics, before, 4 * sizeof *quadrics);
    const double so_far = (double)height * height;
    const float moves[4][3] = {{0, 0, 0}, {1, 1, 0.3f}, {0.5f, 0.5f, -0.1f}, {0.9f, 0.2f, 0.6f}};
    for (int m = 0; m < 4; m++) {
        double p[3] = {moves[m][0], moves[m][1], moves[m][2]}, sum = 0.0, weights = 0.0;
        for (int t = 0; t < 4; t++) {
            double w;
            double d2 =
                plane_distance2(positions + 3 * indices[3 * t], positions + 3 * indices[3 * t + 1],
                                positions + 3 * indices[3 * t + 2], p, &w);
            sum += sqrt(w) * d2;
            weights += sqrt(w);
        }
        double expected = sum / weights + so_far;
        double got = (double)quadric_error(&quadrics[4], moves[m]);
        assert_true(fabs(got - expected) < 1e-5 * expected + 1e-9);
    }

    free(s.remap);
    free(s.wedge);
    free(s.loop);
    free(s.kind);
    free(s.adjacency_first);
    free(s.adjacency);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_manifold_position_ranks_by_its_triangles_and_its_error_so_far),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
