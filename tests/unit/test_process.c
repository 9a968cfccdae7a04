/* process/ and encode/: normals, bounds, octahedral encoding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

static float dot3(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* A unit cube as 8 shared corners and 12 outward-facing triangles. */
static void make_shared_cube(ir_mesh *mesh) {
    static const float corners[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                        {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    static const uint32_t triangles[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                           3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = 8;
    mesh->positions = malloc(sizeof corners);
    memcpy(mesh->positions, corners, sizeof corners);
    mesh->index_count = 36;
    mesh->indices = malloc(sizeof triangles);
    memcpy(mesh->indices, triangles, sizeof triangles);
}

static void normals_of_a_cube_corner_point_along_the_diagonal(void **state) {
    (void)state;
    ir_mesh mesh;
    make_shared_cube(&mesh);
    assert_true(process_generate_normals(&mesh));
    assert_non_null(mesh.normals);
    /* Angle weighting makes every corner's normal the exact diagonal, however
     * each face was split into triangles. */
    for (uint32_t v = 0; v < 8; v++) {
        const float *p = mesh.positions + 3 * v;
        const float *n = mesh.normals + 3 * v;
        float expected[3] = {p[0] / sqrtf(3.0f), p[1] / sqrtf(3.0f), p[2] / sqrtf(3.0f)};
        assert_true(fabsf(dot3(n, n) - 1.0f) < 1e-5f);
        assert_true(dot3(n, expected) > 0.99999f);
    }
    ir_mesh_free(&mesh);
}

static void normals_are_shared_across_uv_seams(void **state) {
    (void)state;
    /* Two triangles of one plane whose shared edge is split into two vertex
     * copies (as a UV seam would): both copies get the same normal. */
    static const float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0.5f};
    static const uint32_t indices[] = {0, 1, 2, 3, 5, 4};
    ir_mesh mesh = {0};
    mesh.vertex_count = 6;
    mesh.positions = malloc(sizeof positions);
    memcpy(mesh.positions, positions, sizeof positions);
    mesh.index_count = 6;
    mesh.indices = malloc(sizeof indices);
    memcpy(mesh.indices, indices, sizeof indices);
    assert_true(process_generate_normals(&mesh));
    assert_memory_equal(mesh.normals + 3 * 1, mesh.normals + 3 * 3, 3 * sizeof(float));
    assert_memory_equal(mesh.normals + 3 * 2, mesh.normals + 3 * 4, 3 * sizeof(float));
    ir_mesh_free(&mesh);
}

static void normals_keep_existing_normals(void **state) {
    (void)state;
    ir_mesh mesh;
    make_shared_cube(&mesh);
    float *existing = calloc(24, sizeof(float));
    mesh.normals = existing;
    assert_true(process_generate_normals(&mesh));
    assert_ptr_equal(mesh.normals, existing);
    ir_mesh_free(&mesh);
}

static void bounds_contain_every_vertex(void **state) {
    (void)state;
    ir_mesh mesh;
    make_shared_cube(&mesh);
    float lo[3], hi[3], sphere[4];
    geometry_bounds(mesh.positions, mesh.indices, mesh.index_count, lo, hi, sphere);
    for (int k = 0; k < 3; k++) {
        assert_true(lo[k] == -1.0f);
        assert_true(hi[k] == 1.0f);
        assert_true(sphere[k] == 0.0f);
    }
    assert_true(sphere[3] >= sqrtf(3.0f));
    assert_true(sphere[3] < sqrtf(3.0f) * 1.0001f);
    /* Bounds of a subset: only the referenced vertices count. */
    geometry_bounds(mesh.positions, mesh.indices + 6, 6, lo, hi, sphere);
    assert_true(lo[2] == 1.0f && hi[2] == 1.0f);
    ir_mesh_free(&mesh);
}

static void bounds_of_nothing_are_zero(void **state) {
    (void)state;
    float lo[3], hi[3], sphere[4];
    geometry_bounds(NULL, NULL, 0, lo, hi, sphere);
    assert_true(lo[0] == 0.0f && hi[2] == 0.0f && sphere[3] == 0.0f);
}

/* On threads, over ranges: the box and sphere of one pass, bit for bit,
 * a NaN coordinate skipped alike; the extremes checked by hand too. */
static void bounds_on_threads_match_one_pass(void **state) {
    (void)state;
    const uint32_t vertices = 50000, count = 700001; /* three ranges and a bit */
    float *positions = malloc(3 * sizeof(float) * vertices);
    uint32_t *indices = malloc(sizeof(uint32_t) * count);
    srand(3);
    for (uint32_t v = 0; v < 3 * vertices; v++)
        positions[v] = (float)(rand() % 20001 - 10000) * 0.001f;
    positions[3 * 777 + 1] = NAN;
    for (uint32_t i = 0; i < count; i++)
        indices[i] = (uint32_t)rand() % vertices;
    indices[count - 1] = 12345; /* the far corner, used once, in the last range */
    positions[3 * 12345] = 11.0f;
    positions[3 * 12345 + 1] = -12.0f;
    positions[3 * 12345 + 2] = 13.0f;
    float lo[3], hi[3], sphere[4];
    geometry_bounds(positions, indices, count, lo, hi, sphere);
    assert_true(hi[0] == 11.0f && lo[1] == -12.0f && hi[2] == 13.0f);
    for (unsigned threads = 1; threads <= 3; threads++) {
        float lo_t[3], hi_t[3], sphere_t[4];
        geometry_bounds_on(threads, positions, vertices, indices, count, lo_t, hi_t, sphere_t);
        assert_memory_equal(lo, lo_t, sizeof lo);
        assert_memory_equal(hi, hi_t, sizeof hi);
        assert_memory_equal(sphere, sphere_t, sizeof sphere);
    }
    free(positions);
    free(indices);
}

/* Over the vertices the indices use (more indices than vertices): a vertex
 * no index names does not widen the box, and where -0.0 and +0.0 are both an
 * extreme the one the index walk meets first is kept, as geometry_bounds
 * does, whichever comes first in vertex order. */
static void bounds_on_used_vertices_keep_the_index_walks_zero(void **state) {
    (void)state;
    const uint32_t vertices = 1000, count = 300000; /* more than one range of indices */
    float *positions = malloc(3 * sizeof(float) * vertices);
    uint32_t *indices = malloc(sizeof(uint32_t) * count);
    for (uint32_t v = 0; v < vertices; v++) {
        positions[3 * v] = (float)(v % 7) + 1.0f;       /* x in [1, 7] */
        positions[3 * v + 1] = -(float)(v % 5) - 1.0f;  /* y in [-5, -1] */
        positions[3 * v + 2] = (float)(v % 11) * 0.25f; /* z in [0, 2.5] */
    }
    positions[3 * 10 + 2] = -0.0f; /* z's minimum is 0 with both signs */
    positions[3 * 20 + 2] = 0.0f;
    positions[3 * 30 + 1] = -0.0f; /* y's maximum too */
    positions[3 * 40 + 1] = 0.0f;
    positions[3 * 999] = 100.0f; /* never named: not in the box */
    for (uint32_t i = 0; i < count; i++)
        indices[i] = (i * 7919u) % (vertices - 1);
    /* In index order +0.0 comes first for both (vertex 20 for z, 40 for y),
     * in vertex order -0.0 (vertex 10, vertex 30). */
    indices[0] = 20;
    indices[1] = 40;
    float lo[3], hi[3], sphere[4];
    geometry_bounds(positions, indices, count, lo, hi, sphere);
    assert_true(hi[0] == 7.0f && lo[1] == -5.0f && hi[2] == 2.5f);
    assert_true(lo[2] == 0.0f && !signbit(lo[2]) && hi[1] == 0.0f && !signbit(hi[1]));
    for (unsigned threads = 1; threads <= 2; threads++) {
        float lo_t[3], hi_t[3], sphere_t[4];
        geometry_bounds_on(threads, positions, vertices, indices, count, lo_t, hi_t, sphere_t);
        assert_memory_equal(lo, lo_t, sizeof lo);
        assert_memory_equal(hi, hi_t, sizeof hi);
        assert_memory_equal(sphere, sphere_t, sizeof sphere);
    }
    free(positions);
    free(indices);
}

static void oct_encoding_pins_the_axes(void **state) {
    (void)state;
    int16_t out[2];
    encode_oct_snorm16((const float[3]){0, 0, 1}, out);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
    encode_oct_snorm16((const float[3]){1, 0, 0}, out);
    assert_int_equal(out[0], 32767);
    assert_int_equal(out[1], 0);
    encode_oct_snorm16((const float[3]){0, -1, 0}, out);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], -32767);
    encode_oct_snorm16((const float[3]){0, 0, -1}, out);
    assert_int_equal(out[0], 32767);
    assert_int_equal(out[1], 32767);
    encode_oct_snorm16((const float[3]){NAN, 0, 0}, out);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
}

static void oct_round_trip_is_within_a_hundredth_of_a_degree(void **state) {
    (void)state;
    /* Directions spread over the sphere (a Fibonacci lattice), both hemispheres. */
    double worst = 0.0;
    for (int i = 0; i < 20000; i++) {
        double z = 1.0 - (2.0 * i + 1.0) / 20000.0;
        double r = sqrt(1.0 - z * z);
        double phi = i * 2.399963229728653;
        float v[3] = {(float)(r * cos(phi)), (float)(r * sin(phi)), (float)z};
        int16_t encoded[2];
        float decoded[3];
        encode_oct_snorm16(v, encoded);
        kiln_oct_decode(encoded, decoded);
        /* atan2(|v x d|, v . d) stays accurate for tiny angles, unlike acos. */
        double cx = (double)v[1] * decoded[2] - (double)v[2] * decoded[1];
        double cy = (double)v[2] * decoded[0] - (double)v[0] * decoded[2];
        double cz = (double)v[0] * decoded[1] - (double)v[1] * decoded[0];
        double angle = atan2(sqrt(cx * cx + cy * cy + cz * cz), dot3(v, decoded)) * 180.0 / M_PI;
        if (angle > worst)
            worst = angle;
    }
    assert_true(worst < 0.01);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(normals_of_a_cube_corner_point_along_the_diagonal),
        cmocka_unit_test(normals_are_shared_across_uv_seams),
        cmocka_unit_test(normals_keep_existing_normals),
        cmocka_unit_test(bounds_contain_every_vertex),
        cmocka_unit_test(bounds_of_nothing_are_zero),
        cmocka_unit_test(bounds_on_threads_match_one_pass),
        cmocka_unit_test(bounds_on_used_vertices_keep_the_index_walks_zero),
        cmocka_unit_test(oct_encoding_pins_the_axes),
        cmocka_unit_test(oct_round_trip_is_within_a_hundredth_of_a_degree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
