/*
 * test_kiln_view.c — unit tests of kiln-view's parts that need no device:
 * matrix products, the automatic camera (docs/viewer.md), the vertex
 * layouts the two programs read, the level of detail chosen by screen size,
 * meshlet index lists (and refused meshlet data), and the per-frame morph
 * data. Rendering itself is tested on lavapipe by
 * tests/integration/test_viewer.sh.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "draw_list.h"
#include "frame_data.h"
#include "lod.h"
#include "meshlets.h"
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

/* A one-submesh mesh 2 units wide (extent 2), its sphere at the origin with
 * radius 1, three levels with errors 0, 0.001 and 0.01 of the extent. */
static const kiln_lod lod_table[3] = {
    {0, 300, 0.0f, 0}, {300, 150, 0.001f, 0}, {450, 75, 0.01f, 0}};
static const kiln_submesh lod_submesh = {.index_count = 300, .sphere = {0, 0, 0, 1}};

static kiln_mesh_view lod_mesh(kiln_mesh_desc *desc) {
    memset(desc, 0, sizeof *desc);
    desc->submesh_count = 1;
    desc->lod_count = 3;
    desc->aabb_min[0] = desc->aabb_min[1] = desc->aabb_min[2] = -1.0f;
    desc->aabb_max[0] = desc->aabb_max[1] = desc->aabb_max[2] = 1.0f;
    return (kiln_mesh_view){.desc = desc, .submeshes = &lod_submesh, .lods = lod_table};
}

/* The camera at distance d + 1 on +Z: the sphere's nearest point is d away. */
static camera camera_at(float d) {
    camera cam = {.position = {0, 0, d + 1.0f}};
    return cam;
}

/* Level l's error in pixels is error * 2 / (2 d tan(22.5 deg)) * height;
 * the chosen level is the coarsest at most one pixel. */
static void test_lod_follows_the_projected_error(void **state) {
    (void)state;
    kiln_mesh_desc desc;
    kiln_mesh_view mesh = lod_mesh(&desc);
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double t = tan(M_PI / 8);
    for (int i = 0; i < 3; i++) {
        float d = (float[]){2.0f, 20.0f, 200.0f}[i];
        camera cam = camera_at(d);
        double expected = 0.01 * 2 / (2 * d * t) * 480;
        assert_float_equal(lod_pixel_error(&mesh, 0, 2, identity, &cam, 480), expected,
                           expected * 1e-5);
    }
    /* 480 pixels high: level 1 is 0.58 px at d = 2 (but level 2 5.8), level 2 0.58 px at 20. */
    camera near = camera_at(0.5f), middle = camera_at(2.0f), far = camera_at(20.0f);
    assert_int_equal(lod_choose(&mesh, 0, identity, &near, 480, LOD_AUTO), 0);
    assert_int_equal(lod_choose(&mesh, 0, identity, &middle, 480, LOD_AUTO), 1);
    assert_int_equal(lod_choose(&mesh, 0, identity, &far, 480, LOD_AUTO), 2);
    /* A node scaled 10 times: ten times the error, level 1 again at 20. */
    const float scaled[16] = {10, 0, 0, 0, 0, 10, 0, 0, 0, 0, 10, 0, 0, 0, 0, 1};
    camera farther = camera_at(29.0f); /* the scaled sphere's nearest point 20 away */
    assert_int_equal(lod_choose(&mesh, 0, scaled, &farther, 480, LOD_AUTO), 1);
    /* Inside the sphere: level 0. Forced: that level, or the last. */
    camera inside = {.position = {0, 0, 0.5f}};
    assert_int_equal(lod_choose(&mesh, 0, identity, &inside, 480, LOD_AUTO), 0);
    assert_int_equal(lod_choose(&mesh, 0, identity, &near, 480, 2), 2);
    assert_int_equal(lod_choose(&mesh, 0, identity, &far, 480, 7), 2);
}

/* Two meshlets over a 5-vertex mesh: MLTR's local indices through MLVX. */
static const uint32_t meshlet_vertices[6] = {4, 3, 2, 0, 1, 2};
static const uint8_t meshlet_triangles[9] = {0, 1, 2, 0, 1, 2, 1, 2, 0};

static kiln_mesh_view meshlet_mesh(kiln_mesh_desc *desc, kiln_meshlet meshlets[2]) {
    memset(desc, 0, sizeof *desc);
    desc->vertex_count = 5;
    desc->meshlet_count = 2;
    desc->meshlet_vertex_count = 6;
    desc->meshlet_triangle_count = 3;
    meshlets[0] = (kiln_meshlet){
        .vertex_offset = 0, .triangle_offset = 0, .vertex_count = 3, .triangle_count = 1};
    meshlets[1] = (kiln_meshlet){
        .vertex_offset = 3, .triangle_offset = 1, .vertex_count = 3, .triangle_count = 2};
    return (kiln_mesh_view){.desc = desc,
                            .meshlets = meshlets,
                            .meshlet_vertices = meshlet_vertices,
                            .meshlet_triangles = meshlet_triangles};
}

static void test_meshlet_indices_name_mesh_vertices(void **state) {
    (void)state;
    kiln_mesh_desc desc;
    kiln_meshlet meshlets[2];
    kiln_mesh_view mesh = meshlet_mesh(&desc, meshlets);
    uint32_t out[9];
    kiln_error err = {0};
    assert_true(meshlet_indices(&mesh, "m.kmesh", out, &err));
    const uint32_t expected[9] = {4, 3, 2, 0, 1, 2, 1, 2, 0};
    assert_memory_equal(out, expected, sizeof expected);
}

static void test_meshlet_indices_refuse_what_points_outside(void **state) {
    (void)state;
    kiln_mesh_desc desc;
    kiln_meshlet meshlets[2];
    uint32_t out[9];
    kiln_error err = {0};
    kiln_mesh_view mesh = meshlet_mesh(&desc, meshlets);
    meshlets[1].vertex_count = 2; /* triangle (1, 2, 0) names local vertex 2 */
    assert_false(meshlet_indices(&mesh, "m.kmesh", out, &err));
    assert_non_null(strstr(err.message, "m.kmesh: meshlet 1: a triangle names a vertex outside"));
    mesh = meshlet_mesh(&desc, meshlets);
    desc.vertex_count = 4; /* MLVX names vertex 4 */
    assert_false(meshlet_indices(&mesh, "m.kmesh", out, &err));
    assert_non_null(strstr(err.message, "meshlet 0: a vertex index is past"));
    mesh = meshlet_mesh(&desc, meshlets);
    meshlets[1].triangle_offset = UINT32_MAX; /* no wrap-around */
    assert_false(meshlet_indices(&mesh, "m.kmesh", out, &err));
    assert_non_null(strstr(err.message, "outside MLVX or MLTR"));
    mesh = meshlet_mesh(&desc, meshlets);
    kiln_submesh submesh = {.meshlet_offset = 1, .meshlet_count = 2};
    mesh.submeshes = &submesh;
    assert_false(meshlet_range_ok(&mesh, 0));
    submesh.meshlet_count = 1;
    assert_true(meshlet_range_ok(&mesh, 0));
}

/* A morphed draw's block: the shape, its weights, then MDLT as it is; a
 * second submesh of the same node shares it, an undeformed draw reads the
 * zero shape at offset 0. */
static void test_frame_data_lays_out_morphs(void **state) {
    (void)state;
    const float deltas[2 * 2 * 3 * 3] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                         13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
                                         25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36};
    kiln_mesh_desc desc = {.vertex_count = 3,
                           .morph_target_count = 2,
                           .morph_attributes = KILN_MORPH_POSITION | KILN_MORPH_NORMAL};
    kiln_asset morphed = {.mesh = {.desc = &desc, .morph_deltas = deltas}};
    kiln_mesh_desc plain_desc = {.vertex_count = 3};
    kiln_asset plain = {.mesh = {.desc = &plain_desc}};
    float weights[2] = {0.25f, 0.75f};
    draw_list list = {.weights = weights, .weight_count = 2};
    draw_item items[3] = {{.mesh = &morphed, .weight_count = 2},
                          {.mesh = &morphed, .submesh = 1, .weight_count = 2},
                          {.mesh = &plain}};
    vk_context vk = {0};
    vk.properties.limits.minStorageBufferOffsetAlignment = 64;
    draw_offsets offsets[3];
    frame_layout layout;
    frame_data_layout(&vk, items, 3, false, offsets, &layout);
    assert_int_equal(offsets[0].morphs, 64);
    assert_int_equal(offsets[0].morph_bytes, 16 + 4 * (2 + sizeof deltas / 4));
    assert_int_equal(offsets[1].morphs, 64);
    assert_int_equal(offsets[2].morphs, 0);
    assert_int_equal(offsets[2].morph_bytes, FRAME_NO_MORPHS_BYTES);
    assert_true(layout.morph_bytes >= 64 + offsets[0].morph_bytes);
    static uint8_t joints[64], morphs[4096];
    memset(morphs, 0xff, sizeof morphs);
    kiln_error err = {0};
    assert_true(frame_data_fill(&list, items, 3, offsets, joints, morphs, NULL, &err));
    const uint32_t shape[4] = {2, 3, 2, KILN_MORPH_POSITION | KILN_MORPH_NORMAL};
    assert_memory_equal(morphs + 64, shape, sizeof shape);
    assert_memory_equal(morphs + 64 + 16, weights, sizeof weights);
    assert_memory_equal(morphs + 64 + 24, deltas, sizeof deltas);
    static const uint8_t zeros[FRAME_NO_MORPHS_BYTES] = {0};
    assert_memory_equal(morphs, zeros, sizeof zeros);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multiply_applies_the_right_matrix_first),
        cmocka_unit_test(test_camera_fits_the_bounding_sphere),
        cmocka_unit_test(test_layouts_bind_what_each_program_reads),
        cmocka_unit_test(test_layouts_refuse_what_cannot_be_bound),
        cmocka_unit_test(test_lod_follows_the_projected_error),
        cmocka_unit_test(test_meshlet_indices_name_mesh_vertices),
        cmocka_unit_test(test_meshlet_indices_refuse_what_points_outside),
        cmocka_unit_test(test_frame_data_lays_out_morphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
