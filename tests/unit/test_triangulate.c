/* test_triangulate.c — geometry_triangulate_polygon: every result must be a
 * real triangulation of the polygon. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

#include "cook/drivers/drivers.h"

#define MAX_CORNERS 2048

/* A polygon given in 2D, placed in 3D by an arbitrary rotation and offset. */
typedef struct polygon {
    uint32_t count;
    double xy[2 * MAX_CORNERS];
    float xyz[3 * MAX_CORNERS];
    uint32_t triangles[3 * MAX_CORNERS];
} polygon;

static void place(polygon *poly, double yaw, double pitch, const double offset[3]) {
    double cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch);
    /* Orthonormal rows: x axis, y axis of the plane in 3D. */
    double ux[3] = {cy, sy, 0.0};
    double uy[3] = {-sy * cp, cy * cp, sp};
    for (uint32_t i = 0; i < poly->count; i++)
        for (int k = 0; k < 3; k++)
            poly->xyz[3 * i + k] =
                (float)(offset[k] + poly->xy[2 * i] * ux[k] + poly->xy[2 * i + 1] * uy[k]);
}

static void set_flat(polygon *poly, const double *xy, uint32_t count) {
    poly->count = count;
    memcpy(poly->xy, xy, 2 * count * sizeof *xy);
    static const double origin[3] = {0.0, 0.0, 0.0};
    place(poly, 0.0, 0.0, origin);
}

static void reverse(polygon *poly) {
    for (uint32_t i = 0, j = poly->count - 1; i < j; i++, j--) {
        for (int k = 0; k < 2; k++) {
            double t = poly->xy[2 * i + k];
            poly->xy[2 * i + k] = poly->xy[2 * j + k];
            poly->xy[2 * j + k] = t;
        }
    }
}

static double signed_area(const polygon *poly) {
    double area = 0.0;
    for (uint32_t i = 0; i < poly->count; i++) {
        uint32_t j = (i + 1) % poly->count;
        area += poly->xy[2 * i] * poly->xy[2 * j + 1] - poly->xy[2 * j] * poly->xy[2 * i + 1];
    }
    return 0.5 * area;
}

static double triangle_area(const polygon *poly, const uint32_t *t) {
    const double *a = poly->xy + 2 * t[0], *b = poly->xy + 2 * t[1], *c = poly->xy + 2 * t[2];
    return 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
}

/* Triangulates and checks the result is a triangulation of the polygon:
 * count - 2 triangles over valid corners, none flipped against the
 * polygon's winding, their areas summing to the polygon's, and every
 * polygon edge used once in its direction while every diagonal is used twice,
 * once each way (so the triangles tile the polygon without gaps or overlap).
 * Returns the function's result. */
static uint32_t check_triangulation(polygon *poly, bool allow_slivers) {
    uint32_t n = poly->count;
    uint32_t written = geometry_triangulate_polygon(poly->xyz, n, poly->triangles);
    assert_true(written <= n - 2);
    double area = signed_area(poly);
    double sign = area >= 0.0 ? 1.0 : -1.0;
    double scale = 0.0;
    for (uint32_t i = 0; i < 2 * n; i++)
        scale = fmax(scale, fabs(poly->xy[i]));
    double tolerance = 1e-9 * scale * scale; /* areas use the exact 2D corners */
    double sum = 0.0;
    /* edge_use[a * n + b]: +1 per triangle edge a->b. */
    int *edge_use = calloc((size_t)n * n, sizeof *edge_use);
    assert_non_null(edge_use);
    for (uint32_t t = 0; t < n - 2; t++) {
        const uint32_t *tri = poly->triangles + 3 * t;
        for (int k = 0; k < 3; k++)
            assert_true(tri[k] < n);
        assert_true(tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2]);
        double a = sign * triangle_area(poly, tri);
        if (a < -tolerance)
            fail_msg("triangle %u (%u %u %u) is flipped: area %g", t, tri[0], tri[1], tri[2], a);
        if (!allow_slivers && a <= 1e-12 * scale * scale)
            fail_msg("triangle %u (%u %u %u) has no area", t, tri[0], tri[1], tri[2]);
        sum += a;
        for (int k = 0; k < 3; k++)
            edge_use[tri[k] * n + tri[(k + 1) % 3]]++;
    }
    if (fabs(sum - fabs(area)) > tolerance)
        fail_msg("triangles cover %.9g, the polygon %.9g", sum, fabs(area));
    for (uint32_t a = 0; a < n; a++) {
        for (uint32_t b = 0; b < n; b++) {
            if (a == b)
                continue;
            bool boundary = b == (a + 1) % n; /* triangles keep the input winding */
            bool reverse_boundary = a == (b + 1) % n;
            int forward = edge_use[a * n + b];
            if (boundary && forward != 1)
                fail_msg("polygon edge %u-%u used %d times", a, b, forward);
            if (!boundary && !reverse_boundary && forward != edge_use[b * n + a])
                fail_msg("diagonal %u-%u is not shared by exactly two triangles", a, b);
            if (reverse_boundary && forward != 0)
                fail_msg("edge %u-%u used against the winding", a, b);
        }
    }
    free(edge_use);
    return written;
}

static void triangulate_triangle_is_itself(void **state) {
    (void)state;
    polygon poly;
    static const double xy[] = {0, 0, 1, 0, 0, 1};
    set_flat(&poly, xy, 3);
    assert_int_equal(check_triangulation(&poly, false), 1);
    assert_int_equal(poly.triangles[0], 0);
    assert_int_equal(poly.triangles[1], 1);
    assert_int_equal(poly.triangles[2], 2);
}

static void triangulate_refuses_fewer_than_three_corners(void **state) {
    (void)state;
    float xyz[6] = {0};
    uint32_t triangles[3] = {7, 7, 7};
    assert_int_equal(geometry_triangulate_polygon(xyz, 2, triangles), 0);
    assert_int_equal(geometry_triangulate_polygon(xyz, 0, triangles), 0);
    assert_int_equal(triangles[0], 7);
}

static void triangulate_convex_quad_in_either_winding(void **state) {
    (void)state;
    polygon poly;
    static const double xy[] = {0, 0, 2, 0, 2, 1, 0, 1};
    set_flat(&poly, xy, 4);
    assert_int_equal(check_triangulation(&poly, false), 2);
    reverse(&poly);
    static const double origin[3] = {0, 0, 0};
    place(&poly, 0.0, 0.0, origin);
    assert_int_equal(check_triangulation(&poly, false), 2);
}

static void triangulate_concave_quad_splits_at_the_reflex_corner(void **state) {
    (void)state;
    /* An arrowhead: the reflex corner is each of the four corners in turn. */
    static const double dart[] = {0, 0, 4, 2, 0, 4, 1, 2};
    for (uint32_t rotation = 0; rotation < 4; rotation++) {
        double xy[8];
        for (uint32_t i = 0; i < 4; i++) {
            xy[2 * i] = dart[2 * ((i + rotation) % 4)];
            xy[2 * i + 1] = dart[2 * ((i + rotation) % 4) + 1];
        }
        polygon poly;
        set_flat(&poly, xy, 4);
        assert_int_equal(check_triangulation(&poly, false), 2);
        uint32_t reflex = (3 + 4 - rotation) % 4; /* corner (1,2) */
        /* Both triangles use the reflex corner: the diagonal starts there. */
        for (int t = 0; t < 2; t++) {
            const uint32_t *tri = poly.triangles + 3 * t;
            assert_true(tri[0] == reflex || tri[1] == reflex || tri[2] == reflex);
        }
        reverse(&poly);
        static const double offset[3] = {1000, -20, 5};
        place(&poly, 0.7, 1.1, offset);
        assert_int_equal(check_triangulation(&poly, false), 2);
    }
}

static void triangulate_concave_polygons_cover_their_area_exactly(void **state) {
    (void)state;
    static const double l_shape[] = {0, 0, 3, 0, 3, 1, 1, 1, 1, 3, 0, 3};
    static const double u_shape[] = {0, 0, 3, 0, 3, 3, 2, 3, 2, 1, 1, 1, 1, 3, 0, 3};
    static const double zigzag[] = {0, 0, 6, 0, 6, 3, 5, 1, 4, 3, 3, 1, 2, 3, 1, 1, 0, 3};
    double star[20], spiral[2 * 40];
    for (int i = 0; i < 10; i++) {
        double r = i % 2 ? 0.4 : 1.0, a = 2.0 * M_PI * i / 10.0;
        star[2 * i] = r * cos(a);
        star[2 * i + 1] = r * sin(a);
    }
    /* A spiral band: outward along one arm, back along an inner one. */
    for (int i = 0; i < 20; i++) {
        double a = 0.3 * i, r = 1.0 + 0.25 * i;
        spiral[2 * i] = r * cos(a);
        spiral[2 * i + 1] = r * sin(a);
        spiral[2 * (39 - i)] = (r - 0.5) * cos(a);
        spiral[2 * (39 - i) + 1] = (r - 0.5) * sin(a);
    }
    const struct {
        const double *xy;
        uint32_t count;
    } shapes[] = {{l_shape, 6}, {u_shape, 8}, {zigzag, 9}, {star, 10}, {spiral, 40}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int winding = 0; winding < 2; winding++) {
            polygon poly;
            set_flat(&poly, shapes[s].xy, shapes[s].count);
            if (winding)
                reverse(&poly);
            static const double far_away[3] = {14678.0, -9605.0, 300.0};
            place(&poly, 0.3 * (double)s, 0.5 + 0.2 * winding, far_away);
            assert_int_equal(check_triangulation(&poly, false), shapes[s].count - 2);
        }
    }
}

static void triangulate_handles_collinear_corners(void **state) {
    (void)state;
    /* A square with a corner in the middle of every side. */
    static const double xy[] = {0, 0, 1, 0, 2, 0, 2, 1, 2, 2, 1, 2, 0, 2, 0, 1};
    polygon poly;
    set_flat(&poly, xy, 8);
    assert_int_equal(check_triangulation(&poly, true), 6);
    /* One corner on a side: a proper triangulation without slivers exists. */
    static const double pentagon[] = {0, 0, 1, 0, 2, 0, 2, 2, 0, 2};
    set_flat(&poly, pentagon, 5);
    assert_int_equal(check_triangulation(&poly, false), 3);
}

static void triangulate_handles_duplicate_corners(void **state) {
    (void)state;
    static const double xy[] = {0, 0, 2, 0, 2, 0, 2, 2, 1, 1, 0, 2, 0, 2};
    polygon poly;
    set_flat(&poly, xy, 7);
    check_triangulation(&poly, true);
}

static void triangulate_degenerate_polygon_falls_back_to_a_fan(void **state) {
    (void)state;
    float xyz[3 * 5];
    for (int i = 0; i < 5; i++) {
        xyz[3 * i] = (float)i;
        xyz[3 * i + 1] = 2.0f * (float)i;
        xyz[3 * i + 2] = 0.0f;
    }
    uint32_t triangles[9];
    assert_int_equal(geometry_triangulate_polygon(xyz, 5, triangles), 0);
    for (uint32_t t = 0; t < 3; t++) {
        assert_int_equal(triangles[3 * t], 0);
        assert_int_equal(triangles[3 * t + 1], t + 1);
        assert_int_equal(triangles[3 * t + 2], t + 2);
    }
    /* All corners at one point. */
    memset(xyz, 0, sizeof xyz);
    assert_int_equal(geometry_triangulate_polygon(xyz, 5, triangles), 0);
}

static void push_xy(polygon *poly, double x, double y) {
    poly->xy[2 * poly->count] = x;
    poly->xy[2 * poly->count + 1] = y;
    poly->count++;
}

/* Gap floors on a parabola: no three floor corners of different gaps are
 * even nearly collinear (float rounding would make such a triple a sliver). */
static double gap_floor(int t) {
    return 1.0 + 4.0 * (t / 200.0) * (t / 200.0);
}

static void triangulate_large_comb_uses_the_heap_path(void **state) {
    (void)state;
    /* A comb of 200 teeth (x in [2t, 2t+1], height 10, gap floors at
     * uneven heights so no three floor corners line up), counter-clockwise: along the
     * base, then right to left over the teeth. */
    polygon *poly = malloc(sizeof *poly);
    assert_non_null(poly);
    const int teeth = 200;
    const double width = 2.0 * teeth - 1.0;
    poly->count = 0;
    push_xy(poly, 0, 0);
    push_xy(poly, width, 0);
    for (int t = teeth - 1; t >= 0; t--) {
        if (t < teeth - 1)
            push_xy(poly, 2.0 * t + 1, gap_floor(t + 1));
        push_xy(poly, 2.0 * t + 1, 10);
        push_xy(poly, 2.0 * t, 10);
        if (t > 0)
            push_xy(poly, 2.0 * t, gap_floor(t));
    }
    assert_int_equal(poly->count, 4 * teeth);
    assert_true(signed_area(poly) > 0);
    static const double offset[3] = {-50, 3, 7};
    place(poly, 1.2, 0.4, offset);
    assert_int_equal(check_triangulation(poly, false), poly->count - 2);
    reverse(poly);
    place(poly, 2.2, -0.4, offset);
    assert_int_equal(check_triangulation(poly, false), poly->count - 2);
    free(poly);
}

/* Star-shaped polygons with random radii: simple, often very concave. */
static void triangulate_random_star_polygons(void **state) {
    (void)state;
    polygon *poly = malloc(sizeof *poly);
    assert_non_null(poly);
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (int round = 0; round < 400; round++) {
        uint32_t n = 3 + (uint32_t)(round % 97);
        for (uint32_t i = 0; i < n; i++) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            double r = 0.05 + (double)(seed % 10000) / 10000.0;
            double a = 2.0 * M_PI * i / n;
            poly->xy[2 * i] = r * cos(a);
            poly->xy[2 * i + 1] = r * sin(a);
        }
        poly->count = n;
        if (round % 2)
            reverse(poly);
        double offset[3] = {(double)(round % 7) * 100.0, 0.0, -(double)round};
        place(poly, 0.1 * round, 0.05 * round, offset);
        check_triangulation(poly, true);
    }
    free(poly);
}

/* Random points are not a simple polygon: the result need not tile anything,
 * but it is count - 2 triangles over valid corners, in bounded time. */
static void triangulate_self_intersecting_polygon_still_gives_every_triangle(void **state) {
    (void)state;
    const uint32_t n = 8192;
    float *xyz = malloc(3 * sizeof(float) * n);
    uint32_t *triangles = malloc(3 * sizeof(uint32_t) * n);
    assert_non_null(xyz);
    assert_non_null(triangles);
    uint64_t seed = 0x853c49e6748fea9bull;
    for (uint32_t i = 0; i < 3 * n; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        xyz[i] = i % 3 == 2 ? 0.0f : (float)(seed % 100000) / 100.0f;
    }
    memset(triangles, 0xff, 3 * sizeof(uint32_t) * n);
    uint32_t written = geometry_triangulate_polygon(xyz, n, triangles);
    assert_true(written <= n - 2);
    for (uint32_t i = 0; i < 3 * (n - 2); i++)
        assert_true(triangles[i] < n);
    free(xyz);
    free(triangles);
}

/* A quad's diagonal the long way, as the projection picks it: the Newell
 * normal of the corners about their centroid, an orthonormal basis of its
 * plane, the corners projected, and the diagonal whose two triangles have the
 * larger smaller area (a fan from corner 0 when the normal is zero). The
 * shortcut the importer takes for most quads must agree with it bit for bit,
 * ties and near ties included: a cooked mesh's bytes depend on it. */
static void quad_by_projection(const float *corners, uint32_t *triangles) {
    double centre[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++)
            centre[k] += (double)corners[3 * i + k];
    for (int k = 0; k < 3; k++)
        centre[k] /= 4.0;
    double normal[3] = {0.0, 0.0, 0.0}, extent = 0.0;
    for (int i = 0; i < 4; i++) {
        int j = (i + 1) % 4;
        double p[3], q[3];
        for (int k = 0; k < 3; k++) {
            p[k] = (double)corners[3 * i + k] - centre[k];
            q[k] = (double)corners[3 * j + k] - centre[k];
            extent = fabs(p[k]) > extent ? fabs(p[k]) : extent;
        }
        normal[0] += (p[1] - q[1]) * (p[2] + q[2]);
        normal[1] += (p[2] - q[2]) * (p[0] + q[0]);
        normal[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
    double length = sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
    static const uint32_t split_02[6] = {0, 1, 2, 0, 2, 3};
    static const uint32_t split_13[6] = {0, 1, 3, 1, 2, 3};
    if (!(length > extent * extent * 1e-12) || !isfinite(length)) {
        memcpy(triangles, split_02, sizeof split_02);
        return;
    }
    for (int k = 0; k < 3; k++)
        normal[k] /= length;
    int smallest = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(normal[k]) < fabs(normal[smallest]))
            smallest = k;
    double axis[3] = {0.0, 0.0, 0.0};
    axis[smallest] = 1.0;
    double u[3] = {axis[1] * normal[2] - axis[2] * normal[1],
                   axis[2] * normal[0] - axis[0] * normal[2],
                   axis[0] * normal[1] - axis[1] * normal[0]};
    double u_length = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++)
        u[k] /= u_length;
    double v[3] = {normal[1] * u[2] - normal[2] * u[1], normal[2] * u[0] - normal[0] * u[2],
                   normal[0] * u[1] - normal[1] * u[0]};
    double xy[8];
    for (int i = 0; i < 4; i++) {
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = (double)corners[3 * i + k] - centre[k];
        xy[2 * i + 0] = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
        xy[2 * i + 1] = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
    }
#define ORIENT(a, b, c)                                                                            \
    ((xy[2 * (b)] - xy[2 * (a)]) * (xy[2 * (c) + 1] - xy[2 * (a) + 1]) -                           \
     (xy[2 * (b) + 1] - xy[2 * (a) + 1]) * (xy[2 * (c)] - xy[2 * (a)]))
    double a1 = ORIENT(0, 1, 2), a2 = ORIENT(0, 2, 3), b1 = ORIENT(0, 1, 3), b2 = ORIENT(1, 2, 3);
#undef ORIENT
    double min_a = a2 < a1 ? a2 : a1, min_b = b2 < b1 ? b2 : b1;
    memcpy(triangles, min_b > min_a ? split_13 : split_02, sizeof split_02);
}

static float random_coordinate(uint64_t *seed, double scale) {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    return (float)(((double)(*seed >> 11) / 9007199254740992.0 - 0.5) * scale);
}

/* Quads of every kind: random ones (many concave or twisted), grid squares
 * of height fields (nearly planar: the four areas all but equal), exactly
 * flat squares and rectangles (ties), slivers, far from the origin. */
static void triangulate_quads_pick_the_projections_diagonal(void **state) {
    (void)state;
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (int round = 0; round < 400000; round++) {
        float q[12];
        int kind = round % 5;
        double scale = kind == 4 ? 1e-3 : 10.0;
        float offset = kind == 4 ? 1000.0f : random_coordinate(&seed, 100.0);
        for (int i = 0; i < 12; i++)
            q[i] = random_coordinate(&seed, scale);
        if (kind == 1 || kind == 2 || kind == 4) { /* a grid cell of z = f(x, y) */
            static const int cell[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            float x0 = random_coordinate(&seed, 4.0), y0 = random_coordinate(&seed, 4.0);
            float h = kind == 4 ? 0.001f : (float)(1 + round % 50) / 256.0f;
            for (int i = 0; i < 4; i++) {
                float x = x0 + h * (float)cell[i][0], y = y0 + h * (float)cell[i][1];
                q[3 * i + 0] = x + offset;
                q[3 * i + 1] = y;
                q[3 * i + 2] = sinf(3.0f * x) * cosf(2.0f * y) * 0.1f;
            }
            if (kind == 2) { /* a flat square in a tilted plane: its ties are rounding noise */
                polygon square = {.count = 4};
                for (int i = 0; i < 4; i++) {
                    square.xy[2 * i] = x0 + h * cell[i][0];
                    square.xy[2 * i + 1] = y0 + h * cell[i][1];
                }
                double origin[3] = {offset, 0.0, 0.0};
                place(&square, round * 0.001, round * 0.0007, origin);
                memcpy(q, square.xyz, sizeof q);
            }
        } else if (kind == 3) { /* a sliver: two corners nearly on one line */
            for (int k = 0; k < 3; k++)
                q[6 + k] = (q[3 + k] + q[9 + k]) * 0.5f + q[6 + k] * 1e-6f;
        }
        uint32_t got[6], want[6];
        geometry_triangulate_polygon(q, 4, got);
        quad_by_projection(q, want);
        if (memcmp(got, want, sizeof got) != 0)
            fail_msg("round %d (kind %d): %u %u %u %u %u %u, the projection picks %u %u %u %u %u "
                     "%u",
                     round, kind, got[0], got[1], got[2], got[3], got[4], got[5], want[0], want[1],
                     want[2], want[3], want[4], want[5]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(triangulate_triangle_is_itself),
        cmocka_unit_test(triangulate_refuses_fewer_than_three_corners),
        cmocka_unit_test(triangulate_convex_quad_in_either_winding),
        cmocka_unit_test(triangulate_quads_pick_the_projections_diagonal),
        cmocka_unit_test(triangulate_concave_quad_splits_at_the_reflex_corner),
        cmocka_unit_test(triangulate_concave_polygons_cover_their_area_exactly),
        cmocka_unit_test(triangulate_handles_collinear_corners),
        cmocka_unit_test(triangulate_handles_duplicate_corners),
        cmocka_unit_test(triangulate_degenerate_polygon_falls_back_to_a_fan),
        cmocka_unit_test(triangulate_large_comb_uses_the_heap_path),
        cmocka_unit_test(triangulate_random_star_polygons),
        cmocka_unit_test(triangulate_self_intersecting_polygon_still_gives_every_triangle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
