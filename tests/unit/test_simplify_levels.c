/* test_simplify_levels.c — kiln's simplifier past its first level: the
 * quadrics a later level ranks manifold positions and short seams by (the
 * last level's planes plus the error so far), against a computation in
 * double; and a session's levels unmoved by triangles of no area, which its
 * classification (made once for every level) must not see. */
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
#include "simplify_fixture.h"

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
    uint8_t fresh[5];
    simplify_fill_quadrics(quadrics, positions, &s, indices, 12, open, false);
    quadrics[4].c += 7.0; /* anything the position held before */
    memcpy(before, quadrics, sizeof before);
    surface[4].a22 = 2.0; /* the plane z = 0, weight 2 */
    surface[4].weight = 2.0;
    simplify_refresh_quadrics(quadrics, surface, positions, &s, indices, 12, fresh);

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

/* Squared distance of p to the plane through a-b perpendicular to the
 * triangle abc (a seam edge's plane); *length is the edge's length. */
static double edge_plane_distance2(const float *a, const float *b, const float *c, const double *p,
                                   double *length) {
    double e[3], side[3], along = 0.0, e2 = 0.0;
    for (int k = 0; k < 3; k++) {
        e[k] = (double)b[k] - a[k];
        side[k] = (double)c[k] - a[k];
        e2 += e[k] * e[k];
    }
    *length = sqrt(e2);
    for (int k = 0; k < 3; k++)
        along += side[k] * e[k] / e2;
    double s2 = 0.0, d = 0.0;
    for (int k = 0; k < 3; k++) {
        side[k] -= along * e[k];
        s2 += side[k] * side[k];
    }
    for (int k = 0; k < 3; k++)
        d += side[k] * (p[k] - a[k]);
    return d * d / s2;
}

/* Two strips of quads side by side, columns x = 0, 1, 2 and rows y = 0 ..
 * rows, the middle column a texture seam: its vertices twice, one for each
 * strip (so the seam's positions between the rows 0 and `rows`, whose ends
 * are locked, are seam positions, rows - 1 of them in one run). Heights
 * vary so that no two planes are alike; the seam position of row 1 stands
 * `height` high. */
typedef struct seam_strips {
    uint32_t rows, vertex_count, index_count;
    float positions[4 * 16 * 3];
    uint32_t indices[2 * 15 * 6];
} seam_strips;

static uint32_t strip_vertex(const seam_strips *m, uint32_t column, uint32_t row) {
    return column * (m->rows + 1) + row; /* columns: x = 0, seam left, seam right, x = 2 */
}

static void seam_strips_make(seam_strips *m, uint32_t rows, float height) {
    m->rows = rows;
    m->vertex_count = 4 * (rows + 1);
    const float x[4] = {0.0f, 1.0f, 1.0f, 2.0f};
    for (uint32_t c = 0; c < 4; c++)
        for (uint32_t r = 0; r <= rows; r++) {
            float *p = m->positions + 3 * strip_vertex(m, c, r);
            p[0] = x[c] + 0.05f * (float)(r % 3);
            p[1] = (float)r;
            p[2] = 0.1f * x[c] * (float)((r * 7) % 5);
            if (c == 1 || c == 2)
                p[2] = r == 1 ? height : 0.03f * (float)(r % 2);
        }
    m->index_count = 0;
    for (uint32_t strip = 0; strip < 2; strip++)
        for (uint32_t r = 0; r < rows; r++) {
            uint32_t a0 = strip_vertex(m, 2 * strip, r), a1 = strip_vertex(m, 2 * strip, r + 1);
            uint32_t b0 = strip_vertex(m, 2 * strip + 1, r),
                     b1 = strip_vertex(m, 2 * strip + 1, r + 1);
            uint32_t quad[6] = {a0, b0, b1, a0, b1, a1};
            memcpy(m->indices + m->index_count, quad, sizeof quad);
            m->index_count += 6;
        }
}

typedef struct classified {
    simplify_state s;
    uint8_t open[2 * 15 * 6];
} classified;

static void classify(classified *c, const seam_strips *m) {
    size_t n = m->vertex_count;
    c->s = (simplify_state){.vertex_count = n};
    c->s.remap = malloc(n * sizeof *c->s.remap);
    c->s.wedge = malloc(n * sizeof *c->s.wedge);
    c->s.loop = malloc(n * sizeof *c->s.loop);
    c->s.kind = malloc(n);
    c->s.adjacency_first = malloc((n + 1) * sizeof *c->s.adjacency_first);
    c->s.adjacency = malloc(m->index_count * sizeof *c->s.adjacency);
    assert_true(c->s.remap && c->s.wedge && c->s.loop && c->s.kind && c->s.adjacency_first &&
                c->s.adjacency);
    assert_true(simplify_weld(&c->s, m->indices, m->index_count, m->positions));
    simplify_adjacency_build(&c->s, m->indices, m->index_count);
    simplify_classify(&c->s, m->indices, m->index_count, false, c->open);
    for (uint32_t r = 0; r <= m->rows; r++)
        assert_int_equal(c->s.kind[strip_vertex(m, 1, r)],
                         r == 0 || r == m->rows ? SIMPLIFY_LOCKED : SIMPLIFY_SEAM);
}

static void classified_free(classified *c) {
    free(c->s.remap);
    free(c->s.wedge);
    free(c->s.loop);
    free(c->s.kind);
    free(c->s.adjacency_first);
    free(c->s.adjacency);
}

/* Whether some triangle of m holds the edge b -> a. */
static bool edge_paired(const seam_strips *m, uint32_t a, uint32_t b) {
    for (uint32_t t = 0; t < m->index_count; t += 3)
        for (uint32_t k = 0; k < 3; k++)
            if (m->indices[t + k] == b && m->indices[t + (k + 1) % 3] == a)
                return true;
    return false;
}

/* A seam position on a run of two between locked ends ranks by the planes
 * of its triangles (both sides) and of the seam's edges on both sides
 * (level 0's weights: the square root of the doubled area, the edge's
 * length), plus its error so far, whatever it held before; every other
 * position (borders, the locked ends) keeps its quadric. */
static void a_short_seam_ranks_by_its_planes_and_its_error_so_far(void **state) {
    (void)state;
    const float height = 0.25f;
    seam_strips m;
    seam_strips_make(&m, 3, height);
    classified c;
    classify(&c, &m);
    uint32_t seam = strip_vertex(&m, 1, 1), other_side = strip_vertex(&m, 2, 1);
    assert_int_equal(c.s.remap[other_side], seam);

    quadric quadrics[16] = {{0}}, before[16], surface[16] = {{0}};
    uint8_t fresh[16];
    simplify_fill_quadrics(quadrics, m.positions, &c.s, m.indices, m.index_count, c.open, false);
    quadrics[seam].c += 7.0; /* anything the position held before */
    memcpy(before, quadrics, sizeof before);
    surface[seam].a22 = 2.0; /* the plane z = 0, weight 2 */
    surface[seam].weight = 2.0;
    simplify_refresh_quadrics(quadrics, surface, m.positions, &c.s, m.indices, m.index_count,
                              fresh);

    for (uint32_t v = 0; v < m.vertex_count; v++)
        if (c.s.kind[v] != SIMPLIFY_SEAM)
            assert_memory_equal(&quadrics[v], &before[v], sizeof *quadrics);
    const double so_far = (double)height * height;
    const float moves[4][3] = {
        {1, 0, 0}, {1.05f, 2, 0.03f}, {0.5f, 1.5f, -0.1f}, {1.2f, 0.7f, 0.6f}};
    for (int mv = 0; mv < 4; mv++) {
        double p[3] = {moves[mv][0], moves[mv][1], moves[mv][2]}, sum = 0.0, weights = 0.0;
        for (uint32_t t = 0; t < m.index_count; t += 3) {
            const uint32_t *corner = m.indices + t;
            bool around = false;
            for (int k = 0; k < 3; k++)
                around |= corner[k] == seam || corner[k] == other_side;
            if (!around)
                continue;
            const float *pc[3] = {m.positions + 3 * corner[0], m.positions + 3 * corner[1],
                                  m.positions + 3 * corner[2]};
            double w;
            double d2 = plane_distance2(pc[0], pc[1], pc[2], p, &w);
            sum += sqrt(w) * d2;
            weights += sqrt(w);
            for (int k = 0; k < 3; k++) {
                uint32_t a = corner[k], b = corner[(k + 1) % 3];
                bool touches = a == seam || a == other_side || b == seam || b == other_side;
                if (!touches || edge_paired(&m, a, b))
                    continue;
                /* An unpaired edge at the position: along the seam, on
                 * either side (the strips' outer borders do not reach it). */
                double length;
                double e2 = edge_plane_distance2(m.positions + 3 * a, m.positions + 3 * b,
                                                 pc[(k + 2) % 3], p, &length);
                sum += length * e2;
                weights += length;
            }
        }
        double expected = sum / weights + so_far;
        double got = (double)quadric_error(&quadrics[seam], moves[mv]);
        assert_true(fabs(got - expected) < 1e-5 * expected + 1e-9);
    }
    classified_free(&c);
}

/* A seam run longer than a short one (ten positions between its locked
 * ends) keeps its quadrics since level 0, as borders do. */
static void a_long_seam_keeps_its_quadrics_since_level_0(void **state) {
    (void)state;
    seam_strips m;
    seam_strips_make(&m, 11, 0.25f);
    classified c;
    classify(&c, &m);
    quadric quadrics[48] = {{0}}, before[48], surface[48] = {{0}};
    uint8_t fresh[48];
    simplify_fill_quadrics(quadrics, m.positions, &c.s, m.indices, m.index_count, c.open, false);
    for (uint32_t v = 0; v < m.vertex_count; v++) {
        quadrics[v].c += 7.0;
        surface[v].a22 = surface[v].weight = 1.0;
    }
    memcpy(before, quadrics, sizeof before);
    simplify_refresh_quadrics(quadrics, surface, m.positions, &c.s, m.indices, m.index_count,
                              fresh);
    assert_memory_equal(quadrics, before, m.vertex_count * sizeof *quadrics);
    classified_free(&c);
}

/* Two levels of one session (half, then a quarter of `triangles`) into
 * levels[0] and [1], with their index counts and errors. */
static void two_levels(const uint32_t *indices, size_t index_count, const float *positions,
                       size_t vertex_count, size_t triangles, uint32_t *levels[2], size_t counts[2],
                       float errors[2]) {
    simplify_session *session =
        simplify_begin(indices, index_count, positions, vertex_count, false);
    assert_non_null(session);
    for (int level = 0; level < 2; level++)
        counts[level] = simplify_continue(session, 3 * (triangles / 2 >> level), 1.0f,
                                          levels[level], &errors[level]);
    simplify_end(session);
}

/* A bumped grid, each tenth triangle (a, b, c) followed by a triangle of no
 * area: every twentieth (a, a', b), a' a new vertex at a's position (a
 * sliver along a seam: the same point, other attributes), the others
 * (a, b, b). Both levels are the clean grid's, index for index, and so are
 * their errors. Classified with the rest, the sliver's open edges a -> a'
 * and a' -> b locked a's and b's positions for the whole session. */
static void triangles_of_no_area_change_no_level(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 24, 2.0f, 0.3f);
    size_t triangles = g.index_count / 3, extra = triangles / 10;
    float *positions = malloc(3 * (g.vertex_count + extra) * sizeof *positions);
    uint32_t *with = malloc(3 * (triangles + extra) * sizeof *with);
    assert_true(positions != NULL && with != NULL);
    memcpy(positions, g.positions, 3 * g.vertex_count * sizeof *positions);
    size_t count = 0, vertex_count = g.vertex_count, slivers = 0;
    for (size_t t = 0; t < triangles; t++) {
        const uint32_t *tri = g.indices + 3 * t;
        memcpy(with + count, tri, 3 * sizeof *with);
        count += 3;
        if (t % 10 != 9)
            continue;
        uint32_t other = tri[1];
        if (t % 20 == 19) { /* a copy of a's position */
            memcpy(positions + 3 * vertex_count, g.positions + 3 * (size_t)tri[0],
                   3 * sizeof *positions);
            other = (uint32_t)vertex_count++;
            slivers++;
        }
        uint32_t no_area[3] = {tri[0], other, tri[1]};
        memcpy(with + count, no_area, sizeof no_area);
        count += 3;
    }
    assert_true(slivers > 30);
    uint32_t *clean[2], *dirty[2];
    for (int level = 0; level < 2; level++) {
        clean[level] = malloc(g.index_count * sizeof *clean[level]);
        dirty[level] = malloc(count * sizeof *dirty[level]);
        assert_true(clean[level] != NULL && dirty[level] != NULL);
    }
    size_t clean_counts[2], dirty_counts[2];
    float clean_errors[2], dirty_errors[2];
    two_levels(g.indices, g.index_count, g.positions, g.vertex_count, triangles, clean,
               clean_counts, clean_errors);
    two_levels(with, count, positions, vertex_count, triangles, dirty, dirty_counts, dirty_errors);
    for (int level = 0; level < 2; level++) {
        assert_true(clean_counts[level] <= g.index_count / 2 >> level); /* it simplified */
        assert_int_equal(dirty_counts[level], clean_counts[level]);
        assert_memory_equal(dirty[level], clean[level], clean_counts[level] * sizeof *clean[level]);
        assert_true(dirty_errors[level] == clean_errors[level]);
        free(clean[level]);
        free(dirty[level]);
    }
    free(with);
    free(positions);
    grid_free(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_manifold_position_ranks_by_its_triangles_and_its_error_so_far),
        cmocka_unit_test(a_short_seam_ranks_by_its_planes_and_its_error_so_far),
        cmocka_unit_test(a_long_seam_keeps_its_quadrics_since_level_0),
        cmocka_unit_test(triangles_of_no_area_change_no_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
