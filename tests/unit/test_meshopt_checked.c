/* meshopt_checked.c: meshoptimizer is only called with input it accepts; what
 * it would abort on (assert) is refused or clamped instead. */
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

/* A 4x4-vertex grid of 18 triangles in the z = 0 plane. */
static void grid(float positions[48], uint32_t indices[54]) {
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            float *p = positions + 3 * (y * 4 + x);
            p[0] = (float)x;
            p[1] = (float)y;
            p[2] = 0.0f;
        }
    int n = 0;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            uint32_t a = (uint32_t)(y * 4 + x), b = a + 1, c = a + 4, d = a + 5;
            uint32_t quad[6] = {a, b, d, a, d, c};
            memcpy(indices + n, quad, sizeof quad);
            n += 6;
        }
}

static void triangles_valid_checks_count_and_range(void **state) {
    (void)state;
    uint32_t ok[6] = {0, 1, 2, 2, 1, 3};
    assert_true(meshopt_triangles_valid(ok, 6, 4));
    assert_true(meshopt_triangles_valid(NULL, 0, 0));
    assert_false(meshopt_triangles_valid(ok, 5, 4)); /* not whole triangles */
    assert_false(meshopt_triangles_valid(ok, 6, 3)); /* index 3 of 3 vertices */
    assert_false(meshopt_triangles_valid(NULL, 3, 4));
}

static void simplify_clamps_a_target_above_the_input(void **state) {
    (void)state;
    float positions[48];
    uint32_t indices[54], out[54];
    grid(positions, indices);
    float error = -1.0f;
    /* meshopt_simplify asserts target <= index_count: a target of 300 indices
     * for 54 is clamped (nothing to remove), never an abort. */
    size_t count = meshopt_checked_simplify(out, indices, 54, positions, 16, 300, 0.01f, 0, &error);
    assert_true(count <= 54);
    assert_int_equal(count % 3, 0);
    assert_true(error >= 0.0f);
    count = meshopt_checked_simplify_sloppy(out, indices, 54, positions, 16, 300, 0.01f, &error);
    assert_true(count <= 54);
    /* A reachable target still simplifies: the flat grid collapses to 2 triangles. */
    count = meshopt_checked_simplify(out, indices, 54, positions, 16, 6, 0.01f, 0, &error);
    assert_int_equal(count, 6);
    assert_true(meshopt_triangles_valid(out, count, 16));
}

static void simplify_refuses_invalid_input(void **state) {
    (void)state;
    float positions[48];
    uint32_t indices[54], out[54];
    grid(positions, indices);
    float error = -1.0f;
    indices[10] = 16; /* one past the last vertex */
    assert_int_equal(meshopt_checked_simplify(out, indices, 54, positions, 16, 6, 0.01f, 0, &error),
                     0);
    assert_true(error == 0.0f);
    indices[10] = 0;
    assert_int_equal(meshopt_checked_simplify(out, indices, 53, positions, 16, 6, 0.01f, 0, &error),
                     0);
    assert_int_equal(
        meshopt_checked_simplify_sloppy(out, indices, 0, positions, 16, 6, 0.01f, &error), 0);
}

static void order_keeps_triangles_and_refuses_invalid_input(void **state) {
    (void)state;
    float positions[48];
    uint32_t indices[54], before[54];
    grid(positions, indices);
    memcpy(before, indices, sizeof before);
    assert_true(meshopt_checked_order(indices, 54, positions, 16, true));
    assert_true(meshopt_triangles_valid(indices, 54, 16));
    /* The same vertices are used, as many times each. */
    unsigned uses[2][16] = {{0}};
    for (int i = 0; i < 54; i++) {
        uses[0][before[i]]++;
        uses[1][indices[i]]++;
    }
    assert_memory_equal(uses[0], uses[1], sizeof uses[0]);
    memcpy(before, indices, sizeof before);
    indices[0] = 99;
    assert_false(meshopt_checked_order(indices, 54, positions, 16, true));
    assert_int_equal(indices[0], 99); /* left as it was */
    assert_memory_equal(indices + 1, before + 1, sizeof before - sizeof before[0]);
}

static void meshlet_limits_are_meshoptimizers(void **state) {
    (void)state;
    assert_true(meshopt_meshlet_limits_valid(64, 124));
    assert_true(meshopt_meshlet_limits_valid(255, 512));
    assert_true(meshopt_meshlet_limits_valid(3, 4));
    assert_false(meshopt_meshlet_limits_valid(64, 5)); /* meshoptimizer: multiple of 4 */
    assert_false(meshopt_meshlet_limits_valid(64, 516));
    assert_false(meshopt_meshlet_limits_valid(256, 124));
    assert_false(meshopt_meshlet_limits_valid(2, 124));
    assert_false(meshopt_meshlet_limits_valid(64, 0));
}

/* meshoptimizer asserts target <= vertex count: a larger one is clamped, and
 * an empty cloud or a 0 target gives nothing. */
static void simplify_points_clamps_its_target(void **state) {
    (void)state;
    float positions[48];
    uint32_t indices[54];
    grid(positions, indices);
    uint32_t kept[16];
    size_t count = meshopt_checked_simplify_points(kept, positions, 16, 1000);
    assert_true(count > 0 && count <= 16);
    for (size_t i = 0; i < count; i++)
        assert_true(kept[i] < 16);
    count = meshopt_checked_simplify_points(kept, positions, 16, 4);
    assert_true(count > 0 && count <= 4);
    assert_int_equal(meshopt_checked_simplify_points(kept, positions, 16, 0), 0);
    assert_int_equal(meshopt_checked_simplify_points(kept, positions, 0, 4), 0);
    assert_int_equal(meshopt_checked_simplify_points(kept, NULL, 16, 4), 0);
}

/* Line and point lists have any length: the remaps are those of first use. */
static void remaps_take_any_index_count(void **state) {
    (void)state;
    const uint32_t lines[4] = {3, 1, 1, 3}; /* 4 indices: not whole triangles */
    unsigned int remap[5];
    assert_int_equal(meshopt_checked_fetch_remap(remap, lines, 4, 5), 2);
    assert_int_equal(remap[3], 0);
    assert_int_equal(remap[1], 1);
    assert_int_equal(remap[0], ~0u);
    const float positions[15] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0};
    /* The welding remap (weld.c) is kiln's own and takes any count too. */
    weld_stream stream = {(const uint8_t *)positions, 12};
    const uint32_t points[5] = {0, 1, 2, 3, 4};
    assert_int_equal(weld_vertex_remap(remap, points, 5, 5, &stream, 1), 3);
    assert_int_equal(remap[2], remap[0]);
    assert_int_equal(remap[3], remap[1]);
    assert_int_equal(remap[4], 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(triangles_valid_checks_count_and_range),
        cmocka_unit_test(simplify_clamps_a_target_above_the_input),
        cmocka_unit_test(simplify_refuses_invalid_input),
        cmocka_unit_test(order_keeps_triangles_and_refuses_invalid_input),
        cmocka_unit_test(meshlet_limits_are_meshoptimizers),
        cmocka_unit_test(simplify_points_clamps_its_target),
        cmocka_unit_test(remaps_take_any_index_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
