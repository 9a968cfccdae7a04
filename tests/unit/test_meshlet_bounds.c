/* test_meshlet_bounds.c — meshlets' bounding spheres and normal cones
 * (process/meshlet_bounds.c), checked against what they promise, computed
 * independently here in double precision:
 *
 *   - the sphere holds every vertex of its meshlet;
 *   - every non-degenerate triangle's normal is within the cone:
 *     dot(normal, axis) >= sqrt(1 - cutoff^2) (cutoff = sin of the half angle's
 *     complement), and the apex lies behind every triangle's plane;
 *   - a camera that the float test, or the snorm8 test, would cull sees
 *     every triangle from behind (tried from many camera positions);
 *   - a cone that cannot cull (a closed box) says so (cutoff 1);
 *   - and, bit for bit, the result of the method written out step by step
 *     in single precision over each corner's point (reference_bounds), so
 *     that the faster arrangement of the same arithmetic changes no byte.
 *
 * The meshlets come from kiln's builder over a bumpy grid and a sphere. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cook/process/meshlet_build.h"

#define EPSILON 1e-4

static uint32_t next_random(uint32_t *state) { /* xorshift32 */
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static double uniform(uint32_t *state, double lo, double hi) {
    return lo + (hi - lo) * (double)(next_random(state) % 1000000u) / 1e6;
}

typedef struct mesh {
    float *positions;
    size_t vertex_count;
    uint32_t *indices;
    size_t index_count;
} mesh;

/* A (side+1)^2-vertex grid in x/y whose heights follow a smooth bump. */
static mesh bumpy_grid(uint32_t side) {
    mesh m = {0};
    m.vertex_count = (size_t)(side + 1) * (side + 1);
    m.index_count = (size_t)side * side * 6;
    m.positions = malloc(m.vertex_count * 3 * sizeof *m.positions);
    m.indices = malloc(m.index_count * sizeof *m.indices);
    assert_non_null(m.positions);
    assert_non_null(m.indices);
    for (uint32_t y = 0; y <= side; y++)
        for (uint32_t x = 0; x <= side; x++) {
            float *p = m.positions + 3 * ((size_t)y * (side + 1) + x);
            p[0] = (float)x;
            p[1] = (float)y;
            p[2] = 3.0f * sinf((float)x * 0.2f) * cosf((float)y * 0.15f);
        }
    size_t i = 0;
    for (uint32_t y = 0; y < side; y++)
        for (uint32_t x = 0; x < side; x++) {
            uint32_t a = y * (side + 1) + x, b = a + 1, c = a + side + 1, d = c + 1;
            uint32_t quad[6] = {a, b, d, a, d, c};
            memcpy(m.indices + i, quad, sizeof quad);
            i += 6;
        }
    return m;
}

/* A UV sphere of radius 5 around (1, 2, 3), outward-facing. */
static mesh uv_sphere(uint32_t rings, uint32_t segments) {
    mesh m = {0};
    m.vertex_count = (size_t)(rings + 1) * (segments + 1);
    m.index_count = (size_t)rings * segments * 6;
    m.positions = malloc(m.vertex_count * 3 * sizeof *m.positions);
    m.indices = malloc(m.index_count * sizeof *m.indices);
    assert_non_null(m.positions);
    assert_non_null(m.indices);
    for (uint32_t r = 0; r <= rings; r++)
        for (uint32_t s = 0; s <= segments; s++) {
            double theta = M_PI * r / rings, phi = 2.0 * M_PI * s / segments;
            float *p = m.positions + 3 * ((size_t)r * (segments + 1) + s);
            p[0] = 1.0f + (float)(5.0 * sin(theta) * cos(phi));
            p[1] = 2.0f + (float)(5.0 * sin(theta) * sin(phi));
            p[2] = 3.0f + (float)(5.0 * cos(theta));
        }
    size_t i = 0;
    for (uint32_t r = 0; r < rings; r++)
        for (uint32_t s = 0; s < segments; s++) {
            uint32_t a = r * (segments + 1) + s, b = a + 1, c = a + segments + 1, d = c + 1;
            uint32_t quad[6] = {a, c, d, a, d, b};
            memcpy(m.indices + i, quad, sizeof quad);
            i += 6;
        }
    return m;
}

static void free_mesh(mesh *m) {
    free(m->positions);
    free(m->indices);
}

/* The unit normal of a triangle in double; false when degenerate. */
static bool normal_of(const float *p0, const float *p1, const float *p2, double n[3]) {
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)p1[k] - p0[k];
        e2[k] = (double)p2[k] - p0[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (length < 1e-12)
        return false;
    for (int k = 0; k < 3; k++)
        n[k] /= length;
    return true;
}

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Whether the cone test (float axis and cutoff, or snorm8 ones) culls a camera at c. */
static bool culled(const meshlet_bounds *b, const double c[3], bool s8) {
    double view[3] = {b->cone_apex[0] - c[0], b->cone_apex[1] - c[1], b->cone_apex[2] - c[2]};
    double length = sqrt(dot3(view, view));
    if (length == 0.0)
        return false;
    double axis[3], cutoff;
    for (int k = 0; k < 3; k++)
        axis[k] = s8 ? b->cone_axis_s8[k] / 127.0 : b->cone_axis[k];
    cutoff = s8 ? b->cone_cutoff_s8 / 127.0 : b->cone_cutoff;
    if (cutoff >= 1.0)
        return false;
    return dot3(view, axis) / length >= cutoff;
}

/* Checks one meshlet's bounds; returns whether it has a usable cone. */
static bool check_meshlet(const uint32_t *vertices, size_t vertex_count, const uint8_t *triangles,
                          size_t triangle_count, const float *positions, uint32_t *random) {
    meshlet_bounds b;
    meshlet_bounds_compute(&b, vertices, vertex_count, triangles, triangle_count, positions);
    assert_true(b.radius >= 0.0f);
    for (size_t i = 0; i < vertex_count; i++) {
        const float *p = positions + 3 * (size_t)vertices[i];
        double d[3] = {(double)p[0] - b.center[0], (double)p[1] - b.center[1],
                       (double)p[2] - b.center[2]};
        assert_true(sqrt(dot3(d, d)) <= b.radius * (1.0 + EPSILON) + EPSILON);
    }
    if (b.cone_cutoff >= 1.0f) {
        assert_int_equal(b.cone_cutoff_s8, 127);
        return false;
    }
    double axis[3] = {b.cone_axis[0], b.cone_axis[1], b.cone_axis[2]};
    assert_true(fabs(sqrt(dot3(axis, axis)) - 1.0) < EPSILON);
    double min_dot = sqrt(1.0 - (double)b.cone_cutoff * b.cone_cutoff);
    for (size_t t = 0; t < triangle_count; t++) {
        const uint8_t *tri = triangles + 3 * t;
        const float *p0 = positions + 3 * (size_t)vertices[tri[0]],
                    *p1 = positions + 3 * (size_t)vertices[tri[1]],
                    *p2 = positions + 3 * (size_t)vertices[tri[2]];
        double n[3];
        if (!normal_of(p0, p1, p2, n))
            continue;
        assert_true(dot3(n, axis) >= min_dot - EPSILON);
        double apex[3] = {(double)b.cone_apex[0] - p0[0], (double)b.cone_apex[1] - p0[1],
                          (double)b.cone_apex[2] - p0[2]};
        assert_true(dot3(apex, n) <= EPSILON * (1.0 + b.radius));
    }
    /* Cameras around the meshlet, from near to far: whatever a test culls
     * must face away from it. */
    for (int i = 0; i < 400; i++) {
        double c[3];
        double reach = (i % 4 + 1) * 2.0 * (b.radius + 1.0);
        for (int k = 0; k < 3; k++)
            c[k] = b.center[k] + uniform(random, -reach, reach);
        bool by_float = culled(&b, c, false), by_s8 = culled(&b, c, true);
        if (!by_float && !by_s8)
            continue;
        for (size_t t = 0; t < triangle_count; t++) {
            const uint8_t *tri = triangles + 3 * t;
            const float *p0 = positions + 3 * (size_t)vertices[tri[0]];
            double n[3];
            if (!normal_of(p0, positions + 3 * (size_t)vertices[tri[1]],
                           positions + 3 * (size_t)vertices[tri[2]], n))
                continue;
            double to_camera[3] = {c[0] - p0[0], c[1] - p0[1], c[2] - p0[2]};
            assert_true(dot3(to_camera, n) <= EPSILON * (1.0 + reach));
        }
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * The method step by step (meshlet_bounds.c's header), in floats and in the
 * order of operations the format's numbers come from.
 * ------------------------------------------------------------------------- */

static float reference_distance2(const float *a, const float *b) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Ritter: the widest pair of axis extremes (first least, first greatest) as
 * a diameter, then grown point by point. */
static void reference_ritter(const float (*p)[3], size_t count, float centre[3], float *radius) {
    size_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (size_t i = 1; i < count; i++)
        for (int k = 0; k < 3; k++) {
            if (p[i][k] < p[lo[k]][k])
                lo[k] = i;
            if (p[i][k] > p[hi[k]][k])
                hi[k] = i;
        }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (reference_distance2(p[lo[k]], p[hi[k]]) > reference_distance2(p[lo[axis]], p[hi[axis]]))
            axis = k;
    for (int k = 0; k < 3; k++)
        centre[k] = (p[lo[axis]][k] + p[hi[axis]][k]) * 0.5f;
    float r = sqrtf(reference_distance2(p[lo[axis]], p[hi[axis]])) * 0.5f;
    for (size_t i = 0; i < count; i++) {
        float d2 = reference_distance2(p[i], centre);
        if (d2 <= r * r)
            continue;
        float d = sqrtf(d2);
        float keep = 0.5f + 0.5f * (r / d);
        for (int k = 0; k < 3; k++)
            centre[k] = centre[k] * keep + p[i][k] * (1.0f - keep);
        r = (r + d) * 0.5f;
    }
    *radius = r;
}

static int8_t reference_snorm8(float v) {
    v = v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v);
    return (int8_t)(int)(v * 127.0f + (v >= 0.0f ? 0.5f : -0.5f));
}

static void reference_bounds(meshlet_bounds *out, const uint32_t *vertices, size_t vertex_count,
                             const uint8_t *triangles, size_t triangle_count,
                             const float *positions) {
    static float points[MESHLET_BUILD_MAX_VERTICES][3], normals[MESHLET_BUILD_MAX_TRIANGLES][3];
    static uint8_t first[MESHLET_BUILD_MAX_TRIANGLES];
    memset(out, 0, sizeof *out);
    out->cone_cutoff = 1.0f;
    out->cone_cutoff_s8 = 127;
    for (size_t i = 0; i < vertex_count; i++)
        memcpy(points[i], positions + 3 * (size_t)vertices[i], sizeof points[i]);
    reference_ritter((const float(*)[3])points, vertex_count, out->center, &out->radius);
    size_t faces = 0;
    for (size_t t = 0; t < triangle_count; t++) {
        const float *p0 = points[triangles[3 * t]], *p1 = points[triangles[3 * t + 1]],
                    *p2 = points[triangles[3 * t + 2]];
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(length > 0.0f) || !isfinite(length))
            continue;
        for (int k = 0; k < 3; k++)
            normals[faces][k] = n[k] / length;
        first[faces++] = triangles[3 * t];
    }
    if (faces == 0)
        return;
    float axis[3], unused;
    reference_ritter((const float(*)[3])normals, faces, axis, &unused);
    float axis_length = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!(axis_length > 0.0f))
        return;
    for (int k = 0; k < 3; k++)
        axis[k] /= axis_length;
    float min_dot = 1.0f, behind = 0.0f;
    for (size_t f = 0; f < faces; f++) {
        float dot = normals[f][0] * axis[0] + normals[f][1] * axis[1] + normals[f][2] * axis[2];
        min_dot = dot < min_dot ? dot : min_dot;
    }
    if (!(min_dot > 0.1f))
        return;
    for (size_t f = 0; f < faces; f++) {
        const float *c = points[first[f]], *n = normals[f];
        float t = ((out->center[0] - c[0]) * n[0] + (out->center[1] - c[1]) * n[1] +
                   (out->center[2] - c[2]) * n[2]) /
                  (axis[0] * n[0] + axis[1] * n[1] + axis[2] * n[2]);
        behind = t > behind ? t : behind;
    }
    float error = 0.0f;
    for (int k = 0; k < 3; k++) {
        out->cone_apex[k] = out->center[k] - axis[k] * behind;
        out->cone_axis[k] = axis[k];
        out->cone_axis_s8[k] = reference_snorm8(axis[k]);
        error += fabsf((float)out->cone_axis_s8[k] / 127.0f - axis[k]);
    }
    out->cone_cutoff = sqrtf(1.0f - min_dot * min_dot);
    int cutoff = (int)(127.0f * (out->cone_cutoff + error) + 1.0f);
    out->cone_cutoff_s8 = (int8_t)(cutoff > 127 ? 127 : cutoff);
}

static void check_meshlet_exact(const uint32_t *vertices, size_t vertex_count,
                                const uint8_t *triangles, size_t triangle_count,
                                const float *positions) {
    meshlet_bounds got, expected;
    meshlet_bounds_compute(&got, vertices, vertex_count, triangles, triangle_count, positions);
    reference_bounds(&expected, vertices, vertex_count, triangles, triangle_count, positions);
    assert_memory_equal(&got, &expected, sizeof got);
}

/* Builds meshlets over `m` and checks every one's bounds; returns how many
 * had a usable cone. */
static size_t check_all(const mesh *m) {
    size_t bound = meshlet_build_bound(m->index_count, 64, 124);
    meshlet_span *spans = malloc((bound + 1) * sizeof *spans);
    uint32_t *vertices = malloc((m->index_count + 1) * sizeof *vertices);
    uint8_t *triangles = malloc(m->index_count + 1);
    assert_non_null(spans);
    assert_non_null(vertices);
    assert_non_null(triangles);
    size_t count = 0, with_cone = 0;
    assert_true(meshlet_build(spans, vertices, triangles, &count, m->indices, m->index_count,
                              m->positions, m->vertex_count, 64, 124, 0.25f));
    assert_true(count > 1);
    uint32_t random = 12345u;
    for (size_t i = 0; i < count; i++) {
        check_meshlet_exact(vertices + spans[i].vertex_offset, spans[i].vertex_count,
                            triangles + 3 * (size_t)spans[i].triangle_offset,
                            spans[i].triangle_count, m->positions);
        with_cone += check_meshlet(vertices + spans[i].vertex_offset, spans[i].vertex_count,
                                   triangles + 3 * (size_t)spans[i].triangle_offset,
                                   spans[i].triangle_count, m->positions, &random);
    }
    free(spans);
    free(vertices);
    free(triangles);
    return with_cone;
}

static void bounds_hold_every_vertex_and_normal_on_a_bumpy_grid(void **state) {
    (void)state;
    mesh m = bumpy_grid(48);
    /* Each meshlet covers a small, gently curved patch: all have cones. */
    size_t bound = meshlet_build_bound(m.index_count, 64, 124);
    size_t with_cone = check_all(&m);
    assert_true(with_cone > 0 && with_cone <= bound);
    free_mesh(&m);
}

static void bounds_hold_on_a_sphere(void **state) {
    (void)state;
    mesh m = uv_sphere(40, 60);
    assert_true(check_all(&m) > 0);
    free_mesh(&m);
}

/* Triangles facing every way (a closed box): no cone can cull, the sphere
 * is still one that holds the corners. */
static void a_closed_box_has_no_cone(void **state) {
    (void)state;
    static const float corners[8 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
                                         0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    static const uint32_t vertices[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const uint8_t triangles[12 * 3] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                              3, 6, 2, 3, 7, 6, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    uint32_t random = 7u;
    assert_false(check_meshlet(vertices, 8, triangles, 12, corners, &random));
    check_meshlet_exact(vertices, 8, triangles, 12, corners);
    meshlet_bounds b;
    meshlet_bounds_compute(&b, vertices, 8, triangles, 12, corners);
    assert_true(b.cone_cutoff == 1.0f);
    assert_true(b.radius >= (float)(sqrt(3.0) / 2.0) - 1e-6f);
}

/* Degenerate triangles give no normal: a meshlet of only those has a
 * sphere and no cone; nothing out of range is read. */
static void degenerate_triangles_and_bad_counts(void **state) {
    (void)state;
    static const float points[3 * 3] = {0, 0, 0, 1, 1, 1, 2, 2, 2}; /* on a line */
    static const uint32_t vertices[3] = {0, 1, 2};
    static const uint8_t triangles[2 * 3] = {0, 1, 2, 2, 2, 2};
    meshlet_bounds b;
    meshlet_bounds_compute(&b, vertices, 3, triangles, 2, points);
    check_meshlet_exact(vertices, 3, triangles, 2, points);
    assert_true(b.cone_cutoff == 1.0f);
    assert_int_equal(b.cone_cutoff_s8, 127);
    assert_true(fabsf(b.center[0] - 1.0f) < 1e-5f && fabsf(b.radius - sqrtf(3.0f)) < 1e-5f);
    /* Over the limits: all zeros, no cone. */
    meshlet_bounds_compute(&b, vertices, MESHLET_BUILD_MAX_VERTICES + 1, triangles, 2, points);
    assert_true(b.radius == 0.0f && b.cone_cutoff == 1.0f);
    meshlet_bounds_compute(&b, vertices, 0, triangles, 0, points);
    assert_true(b.radius == 0.0f && b.cone_cutoff == 1.0f);
    /* A local index past the vertex count is skipped, not read. */
    static const uint8_t bad[3] = {0, 1, 9};
    meshlet_bounds_compute(&b, vertices, 3, bad, 1, points);
    assert_true(b.cone_cutoff == 1.0f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounds_hold_every_vertex_and_normal_on_a_bumpy_grid),
        cmocka_unit_test(bounds_hold_on_a_sphere),
        cmocka_unit_test(a_closed_box_has_no_cone),
        cmocka_unit_test(degenerate_triangles_and_bad_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
