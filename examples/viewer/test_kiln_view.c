/*
 * test_kiln_view.c — unit tests of kiln-view's parts that need no device:
 * matrix products, the automatic camera (docs/viewer.md), and the vertex
 * layouts the two programs read. Rendering itself is tested on lavapipe by
 * tests/integration/test_viewer.sh.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "draw_list.h"
#include "pipeline.h"
#include "render.h"

static void transform(const float m[16], const float p[3], float out[4]) {
    for (int row = 0; row < 4; row++)
        out[row] = m[row] * p[0] + m[4 + row] * p[1] + m[8 + row] * p[2] + m[12 + row];
}

static void test_multiply_applies_the_right_matrix_first(void **state) {
    (void)state;
    const float translate[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 6, 7, 1};
    const float scale[16] = {2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1};
    float m[16], p[4];
    mat4_multiply(translate, scale, m); /* scale, then translate */
    transform(m, (const float[3]){1, 1, 1}, p);
    assert_float_equal(p[0], 7.0f, 1e-6f);
    assert_float_equal(p[1], 9.0f, 1e-6f);
    assert_float_equal(p[2], 11.0f, 1e-6f);
    assert_float_equal(p[3], 1.0f, 1e-6f);
}

/* A flat square of half size `a` seen by the automatic camera in a square
 * image: its corner lands at cos(22.5 deg) / sqrt(2) of the half-frame, the
 * centre in the middle, depth inside 0..1. */
static void test_camera_fits_the_bounding_sphere(void **state) {
    (void)state;
    const float a = 3.0f;
    draw_list list = {.count = 1, .bounds_min = {10 - a, -a, 0}, .bounds_max = {10 + a, a, 0}};
    camera cam;
    camera_frame(&list, 400, 400, &cam);
    float corner[4], centre[4];
    transform(cam.view_proj, (const float[3]){10 + a, a, 0}, corner);
    transform(cam.view_proj, (const float[3]){10, 0, 0}, centre);
    double expected = cos(M_PI / 8) / sqrt(2.0);
    assert_float_equal(corner[0] / corner[3], expected, 1e-5);
    assert_float_equal(corner[1] / corner[3], -expected, 1e-5); /* Vulkan: +Y down */
    assert_float_equal(centre[0] / centre[3], 0.0, 1e-6);
    assert_true(centre[2] / centre[3] > 0.0f && centre[2] / centre[3] < 1.0f);
    assert_float_equal(cam.position[0], 10.0f, 1e-6f);
    assert_float_equal(cam.position[2], a * sqrtf(2.0f) / sinf((float)M_PI / 8), 1e-4f);
}

static const kiln_vertex_attribute skinned_attributes[] = {
    {KILN_SEMANTIC_POSITION, KILN_VFORMAT_F32X3, 0, 0},
    {KILN_SEMANTIC_NORMAL, KILN_VFORMAT_OCT_SNORM16X2, 0, 12},
    {KILN_SEMANTIC_TEXCOORD0, KILN_VFORMAT_F32X2, 0, 16},
    {KILN_SEMANTIC_JOINTS0, KILN_VFORMAT_U16X4, 0, 24},
    {KILN_SEMANTIC_WEIGHTS0, KILN_VFORMAT_UNORM16X4, 0, 32},
};

static kiln_mesh_view mesh_of(kiln_mesh_desc *desc, const kiln_vertex_attribute *attributes,
                              uint32_t count) {
    memset(desc, 0, sizeof *desc);
    desc->attribute_count = count;
    desc->vertex_stride = 40;
    return (kiln_mesh_view){.desc = desc, .attributes = attributes};
}

static void test_layouts_bind_what_each_program_reads(void **state) {
    (void)state;
    kiln_mesh_desc desc;
    kiln_mesh_view mesh = mesh_of(&desc, skinned_attributes, 5);
    vertex_layout plain, skinned;
    kiln_error err;
    assert_true(vertex_layout_of(&mesh, false, &plain, &err));
    assert_int_equal(plain.stride, 40);
    assert_int_equal(plain.format[0], KILN_VFORMAT_F32X3);
    assert_int_equal(plain.offset[3], 16);
    assert_int_equal(plain.format[4], 0); /* no texcoord1: fed a default */
    assert_int_equal(plain.format[6], 0); /* joints: not read by the plain program */
    assert_true(vertex_layout_of(&mesh, true, &skinned, &err));
    assert_int_equal(skinned.format[6], KILN_VFORMAT_U16X4);
    assert_int_equal(skinned.offset[7], 32);
    assert_memory_not_equal(&plain, &skinned, sizeof plain); /* two pipelines */
}

static void test_layouts_refuse_what_cannot_be_bound(void **state) {
    (void)state;
    kiln_mesh_desc desc;
    kiln_error err;
    vertex_layout layout;
    kiln_mesh_view unskinned = mesh_of(&desc, skinned_attributes, 3);
    assert_false(vertex_layout_of(&unskinned, true, &layout, &err));
    assert_non_null(strstr(err.message, "without joints or weights"));
    const kiln_vertex_attribute odd[] = {
        {KILN_SEMANTIC_POSITION, KILN_VFORMAT_OCT_SIGNED_SNORM16X2, 0, 0}};
    kiln_mesh_view bad = mesh_of(&desc, odd, 1);
    assert_false(vertex_layout_of(&bad, false, &layout, &err));
    assert_non_null(strstr(err.message, "position"));
    const kiln_vertex_attribute none[] = {{KILN_SEMANTIC_NORMAL, KILN_VFORMAT_OCT_SNORM16X2, 0, 0}};
    kiln_mesh_view positionless = mesh_of(&desc, none, 1);
    assert_false(vertex_layout_of(&positionless, false, &layout, &err));
    assert_non_null(strstr(err.message, "no positions"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multiply_applies_the_right_matrix_first),
        cmocka_unit_test(test_camera_fits_the_bounding_sphere),
        cmocka_unit_test(test_layouts_bind_what_each_program_reads),
        cmocka_unit_test(test_layouts_refuse_what_cannot_be_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
