/*
 * test_kiln_view.c — unit tests of kiln-view's parts that need no device:
 * matrix products, the automatic camera (docs/viewer.md), the orbit camera
 * of the window (drag, zoom, frame), the hot reload lines, the vertex
 * layouts the two programs read, the level of detail chosen by screen size,
 * meshlet index lists (and refused meshlet data), and the per-frame morph
 * data and the morph buffer written only when it changes, the ASTC
 * fallback decode. Rendering itself is tested on lavapipe by
 * tests/integration/test_viewer.sh.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "astc_decode.h"
#include "draw_list.h"
#include "frame_data.h"
#include "live.h"
#include "lod.h"
#include "meshlets.h"
#include "morph_cache.h"
#include "orbit.h"
#include "overlay.h"
#include "pipeline.h"
#include "render.h"
#include "texture_view.h"

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

/* The projection of world point p by `cam`, in normalised device
 * coordinates. */
static void project(const camera *cam, const float p[3], float ndc[3]) {
    float clip[4];
    transform(cam->view_proj, p, clip);
    for (int i = 0; i < 3; i++)
        ndc[i] = clip[i] / clip[3];
}

static const draw_list cube_list = {
    .count = 1, .bounds_min = {1, 2, 3}, .bounds_max = {3, 4, 5}}; /* centre (2, 3, 4) */

/* A drag of -(pi/2) / ORBIT_RADIANS_PER_PIXEL pixels to the left turns the
 * eye a quarter to the target's +X side: what lay towards -Z is now on the
 * right of the frame, at x = f * a / (aspect * d) with f = 1 / tan(22.5 deg). */
static void test_orbit_quarter_turn_puts_the_eye_on_plus_x(void **state) {
    (void)state;
    orbit o;
    orbit_reset(&o, &cube_list, 400, 200);
    float d = o.distance;
    orbit_drag(&o, -(float)(M_PI / 2) / ORBIT_RADIANS_PER_PIXEL, 0.0f);
    float eye[3];
    orbit_eye(&o, eye);
    assert_float_equal(eye[0], 2.0f + d, 1e-4f);
    assert_float_equal(eye[1], 3.0f, 1e-4f);
    assert_float_equal(eye[2], 4.0f, 1e-4f);
    camera cam;
    orbit_camera(&o, 400, 200, &cam);
    float ndc[3];
    project(&cam, (const float[3]){2, 3, 4}, ndc);
    assert_float_equal(ndc[0], 0.0f, 1e-5f);
    assert_float_equal(ndc[1], 0.0f, 1e-5f);
    assert_true(ndc[2] > 0.0f && ndc[2] < 1.0f);
    const double f = 1.0 / tan(M_PI / 8), a = 0.5;
    project(&cam, (const float[3]){2, 3, (float)(4 - a)}, ndc);
    assert_float_equal(ndc[0], f * a / (2.0 * d), 1e-5);
    assert_float_equal(ndc[1], 0.0f, 1e-5f);
    project(&cam, (const float[3]){2, (float)(3 + a), 4}, ndc);
    assert_float_equal(ndc[1], -f * a / d, 1e-5); /* Vulkan: +Y down */
}

/* Dragging down tilts the eye up; it stops short of the up axis, where a
 * look-at with +Y up has no right vector, and the target stays centred. */
static void test_orbit_pitch_stops_at_89_degrees(void **state) {
    (void)state;
    orbit o;
    orbit_reset(&o, &cube_list, 300, 300);
    orbit_drag(&o, 0.0f, 0.3f / ORBIT_RADIANS_PER_PIXEL);
    assert_float_equal(o.pitch, 0.3f, 1e-5f);
    orbit_drag(&o, 0.0f, 1e6f);
    assert_float_equal(o.pitch, 89.0 * M_PI / 180.0, 1e-5);
    float eye[3];
    orbit_eye(&o, eye);
    assert_float_equal(eye[1] - 3.0f, o.distance * sin(89.0 * M_PI / 180.0), 1e-4);
    camera cam;
    orbit_camera(&o, 300, 300, &cam);
    float ndc[3];
    project(&cam, (const float[3]){2, 3, 4}, ndc);
    assert_float_equal(ndc[0], 0.0f, 1e-4f);
    assert_float_equal(ndc[1], 0.0f, 1e-4f);
    /* Seen from above, a point nearer the eye's side (+Z) is lower on screen. */
    project(&cam, (const float[3]){2, 3, 4.5f}, ndc);
    assert_true(ndc[1] > 0.0f);
    orbit_drag(&o, 0.0f, -1e6f);
    assert_float_equal(o.pitch, -89.0 * M_PI / 180.0, 1e-5);
}

/* Each wheel step in is 0.9 times the distance, within 1/100 and 100
 * times the framed radius (sqrt(3) for the 2-unit cube). */
static void test_orbit_zoom_steps_and_limits(void **state) {
    (void)state;
    orbit o;
    orbit_reset(&o, &cube_list, 300, 300);
    float d = o.distance;
    assert_float_equal(o.radius, sqrt(3.0), 1e-5);
    orbit_zoom(&o, 2.0f);
    assert_float_equal(o.distance, d * 0.81f, 1e-4f);
    orbit_zoom(&o, -2.0f);
    assert_float_equal(o.distance, d, 1e-4f);
    orbit_zoom(&o, 1000.0f);
    assert_float_equal(o.distance, sqrt(3.0) / 100.0, 1e-6);
    orbit_zoom(&o, -1000.0f);
    assert_float_equal(o.distance, sqrt(3.0) * 100.0, 1e-3);
}

/* F (orbit_frame) re-aims at new bounds and keeps the angles; orbit_reset
 * also faces the front again, where it is the automatic camera. */
static void test_orbit_frame_keeps_the_angles(void **state) {
    (void)state;
    orbit o;
    orbit_reset(&o, &cube_list, 300, 300);
    orbit_drag(&o, 40.0f, 20.0f);
    orbit_zoom(&o, 3.0f);
    draw_list moved = {.count = 1, .bounds_min = {-10, 0, 0}, .bounds_max = {-8, 2, 2}};
    orbit_frame(&o, &moved, 300, 300);
    assert_float_equal(o.yaw, -0.4f, 1e-5f);
    assert_float_equal(o.pitch, 0.2f, 1e-5f);
    assert_float_equal(o.target[0], -9.0f, 1e-6f);
    assert_float_equal(o.distance, sqrt(3.0) / sin(M_PI / 8), 1e-4);
    orbit_reset(&o, &moved, 300, 300);
    camera orbiting, automatic;
    orbit_camera(&o, 300, 300, &orbiting);
    camera_frame(&moved, 300, 300, &automatic);
    assert_memory_equal(&orbiting, &automatic, sizeof orbiting);
}

/* What live_take wrote to a temporary file. */
static char *taken(live *l, uint32_t *applied) {
    static char text[LIVE_MAX_LINES * LIVE_LINE_MAX + 256];
    FILE *out = tmpfile();
    assert_non_null(out);
    *applied = live_take(l, out);
    rewind(out);
    size_t length = fread(text, 1, sizeof text - 1, out);
    text[length] = '\0';
    fclose(out);
    return text;
}

/* The reload callback: an applied reload and a failed one are a line each
 * (a dependency's event is not: the dependency's own is), only the applied
 * one asks for a frame, and the lines go once. */
static void test_reload_events_become_lines(void **state) {
    (void)state;
    live l;
    live_init(&l, NULL);
    kiln_engine_callbacks callbacks = live_callbacks(&l);
    assert_ptr_equal(callbacks.user, &l.assets); /* the upload callbacks' gpu_assets */
    kiln_asset texture = {.ref = "props/crate/crate", .path = "props/crate/crate.ktx2"};
    kiln_asset table = {.ref = "props/crate.kmat", .path = "props/crate.kmat"};
    kiln_error why = {.code = KILN_ERR_CORRUPT, .message = "bad level"};
    callbacks.reloaded(
        callbacks.user,
        &(kiln_reload_event){.kind = KILN_RELOAD_APPLIED, .asset = &texture, .previous = &texture});
    callbacks.reloaded(callbacks.user, &(kiln_reload_event){.kind = KILN_RELOAD_DEPENDENCY,
                                                            .asset = &table,
                                                            .dependency = &texture});
    callbacks.reloaded(callbacks.user, &(kiln_reload_event){.kind = KILN_RELOAD_FAILED,
                                                            .asset = &table,
                                                            .result = KILN_ERR_CORRUPT,
                                                            .error = &why});
    uint32_t applied;
    assert_string_equal(taken(&l, &applied),
                        "kiln-view: reloaded props/crate/crate (props/crate/crate.ktx2)\n"
                        "kiln-view: reload failed: props/crate.kmat: bad level\n");
    assert_int_equal(applied, 1);
    assert_string_equal(taken(&l, &applied), "");
    assert_int_equal(applied, 0);
    live_destroy(&l);
}

/* More events than lines kept between two pumps: the rest are counted, and
 * every applied one still asks for the frame. */
static void test_reload_lines_are_bounded(void **state) {
    (void)state;
    live l;
    live_init(&l, NULL);
    kiln_engine_callbacks callbacks = live_callbacks(&l);
    kiln_asset mesh = {.ref = "m", .path = "m.kmesh"};
    for (int i = 0; i < LIVE_MAX_LINES + 6; i++)
        callbacks.reloaded(callbacks.user,
                           &(kiln_reload_event){.kind = KILN_RELOAD_APPLIED, .asset = &mesh});
    uint32_t applied;
    const char *text = taken(&l, &applied);
    assert_int_equal(applied, LIVE_MAX_LINES + 6);
    assert_non_null(strstr(text, "kiln-view: and 6 more reload events\n"));
    int lines = 0;
    for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    assert_int_equal(lines, LIVE_MAX_LINES + 1);
    live_destroy(&l);
}

/* The morph cache writes its buffer on the first frame, not again for the
 * same weights (a camera move), again when a weight changes, and after
 * morph_cache_forget (a reload). A preset mapped buffer large enough keeps
 * Vulkan out of it. */
static void test_morph_cache_writes_only_changes(void **state) {
    (void)state;
    const float deltas[2 * 3] = {1, 2, 3, 4, 5, 6};
    kiln_mesh_desc desc = {
        .vertex_count = 1, .morph_target_count = 2, .morph_attributes = KILN_MORPH_POSITION};
    kiln_asset morphed = {.mesh = {.desc = &desc, .morph_deltas = deltas}};
    float weights[2] = {0.5f, 0.0f};
    draw_list list = {.weights = weights, .weight_count = 2};
    draw_item items[1] = {{.mesh = &morphed, .weight_count = 2}};
    vk_context vk = {0};
    vk.properties.limits.minStorageBufferOffsetAlignment = 64;
    draw_offsets offsets[1];
    frame_layout layout;
    frame_data_layout(&vk, items, 1, false, offsets, &layout);
    static uint8_t memory[4096];
    morph_cache cache = {.buffer = {.mapped = memory, .size = sizeof memory}};
    kiln_error err = {0};
    const uint8_t *weights_at = memory + offsets[0].morphs + FRAME_MORPH_HEADER;
    assert_true(
        morph_cache_update(&vk, &cache, &list, items, 1, offsets, layout.morph_bytes, &err));
    assert_int_equal(cache.writes, 1);
    assert_memory_equal(weights_at, weights, sizeof weights);
    assert_memory_equal(weights_at + sizeof weights, deltas, sizeof deltas);
    memset(memory, 0xee, sizeof memory); /* a write would show */
    assert_true(
        morph_cache_update(&vk, &cache, &list, items, 1, offsets, layout.morph_bytes, &err));
    assert_int_equal(cache.writes, 1);
    assert_int_equal(memory[offsets[0].morphs], 0xee);
    weights[1] = 0.25f;
    assert_true(
        morph_cache_update(&vk, &cache, &list, items, 1, offsets, layout.morph_bytes, &err));
    assert_int_equal(cache.writes, 2);
    assert_memory_equal(weights_at, weights, sizeof weights);
    morph_cache_forget(&cache);
    assert_true(
        morph_cache_update(&vk, &cache, &list, items, 1, offsets, layout.morph_bytes, &err));
    assert_int_equal(cache.writes, 3);
    /* Another mesh with the same weights is another buffer's content. */
    kiln_asset other = morphed;
    items[0].mesh = &other;
    assert_true(
        morph_cache_update(&vk, &cache, &list, items, 1, offsets, layout.morph_bytes, &err));
    assert_int_equal(cache.writes, 4);
    morph_cache_forget(&cache);
}

/* Text: each glyph bit a scale x scale square of the colour, the rest of
 * its cell the background, glyphs side by side; lowercase drawn as
 * capitals, bytes without a glyph as '?'. */
static void test_overlay_text_places_glyph_bits(void **state) {
    (void)state;
    enum { W = 40, H = 24 };
    static uint8_t pixels[W * H * 4];
    memset(pixels, 7, sizeof pixels);
    const uint8_t ink[4] = {255, 0, 0, 255}, box[4] = {0, 0, 255, 255};
    overlay_image image = {pixels, W, H};
    overlay_text(&image, 1, 2, 2, "Hi", ink, box);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = pixels + 4 * (y * W + x);
            int gx = (x - 1) / 2, gy = (y - 2) / 2;
            if (x < 1 || y < 2 || gx >= 16 || gy >= 8) {
                assert_int_equal(p[0], 7); /* outside the two cells: untouched */
                continue;
            }
            const uint8_t *glyph = overlay_glyph(gx < 8 ? 'H' : 'I');
            bool on = glyph[gy] & (0x80u >> (gx % 8));
            assert_memory_equal(p, on ? ink : box, 4);
        }
    assert_ptr_equal(overlay_glyph('i'), overlay_glyph('I'));
    assert_ptr_equal(overlay_glyph('\x7f'), overlay_glyph('?'));
    assert_ptr_equal(overlay_glyph('\n'), overlay_glyph('?'));
    /* 'H': two full-height columns and the bar across its middle. */
    const uint8_t *h = overlay_glyph('H');
    assert_int_equal(h[0], 0x44);
    assert_int_equal(h[3], 0x7c);
}

static void test_astc_formats_give_their_block_sizes(void **state) {
    (void)state;
    astc_format f;
    assert_true(astc_format_of(157, &f)); /* VK_FORMAT_ASTC_4x4_UNORM_BLOCK */
    assert_int_equal(f.block_width, 4);
    assert_int_equal(f.block_height, 4);
    assert_false(f.srgb);
    assert_false(f.hdr);
    assert_int_equal(f.decoded_vk_format, VK_FORMAT_R8G8B8A8_UNORM);
    assert_int_equal(f.decoded_texel_bytes, 4);
    assert_true(astc_format_of(VK_FORMAT_ASTC_6x5_SRGB_BLOCK, &f));
    assert_int_equal(f.block_width, 6);
    assert_int_equal(f.block_height, 5);
    assert_true(f.srgb);
    assert_int_equal(f.decoded_vk_format, VK_FORMAT_R8G8B8A8_SRGB);
    assert_true(astc_format_of(VK_FORMAT_ASTC_12x12_SRGB_BLOCK, &f));
    assert_int_equal(f.block_width, 12);
    assert_int_equal(f.block_height, 12);
    /* HDR: VK_EXT_texture_compression_astc_hdr's SFLOAT formats, to RGBA16F. */
    assert_true(astc_format_of(VK_FORMAT_ASTC_8x6_SFLOAT_BLOCK, &f));
    assert_int_equal(f.block_width, 8);
    assert_int_equal(f.block_height, 6);
    assert_true(f.hdr);
    assert_false(f.srgb);
    assert_int_equal(f.decoded_vk_format, VK_FORMAT_R16G16B16A16_SFLOAT);
    assert_int_equal(f.decoded_texel_bytes, 8);
    assert_true(astc_format_of(VK_FORMAT_ASTC_12x12_SFLOAT_BLOCK, &f));
    assert_false(astc_format_of(VK_FORMAT_ASTC_12x12_SFLOAT_BLOCK + 1, &f));
    assert_false(astc_format_of(VK_FORMAT_ASTC_12x12_SRGB_BLOCK + 1, &f));
    assert_false(astc_format_of(VK_FORMAT_BC7_SRGB_BLOCK, &f));
}

/* A void-extent block (ASTC spec, "Void-Extent Blocks"): 0x1FC in bits 0-8,
 * bit 9 the dynamic range (0 LDR, 1 HDR), both extent bits 10-11 set, every
 * extent coordinate all ones (no extent), then R, G, B, A in bits 64-127:
 * UNORM16 for LDR, FP16 for HDR. */
static void void_extent_block(const uint16_t rgba[4], bool hdr, uint8_t out[16]) {
    memset(out, 0xff, 8);
    out[0] = 0xfc;
    out[1] = hdr ? 0xff : 0xfd; /* bit 8 set (0x1FC), bit 9 the range, bits 10-15 set */
    for (int c = 0; c < 4; c++) {
        out[8 + 2 * c] = (uint8_t)(rgba[c] & 0xff);
        out[9 + 2 * c] = (uint8_t)(rgba[c] >> 8);
    }
}

static void test_astc_decodes_blocks_in_place(void **state) {
    (void)state;
    /* A 6x5 image of 4x4 blocks: 2x2 blocks, the right and bottom ones cut. */
    const uint16_t colours[4][4] = {{0xffff, 0, 0, 0xffff},
                                    {0, 0x8080, 0, 0xffff},
                                    {0, 0, 0xffff, 0x4040},
                                    {0x2020, 0x2020, 0x2020, 0xffff}};
    uint8_t blocks[4 * 16];
    for (int b = 0; b < 4; b++)
        void_extent_block(colours[b], false, blocks + 16 * b);
    uint8_t rgba[6 * 5 * 4];
    char reason[160];
    astc_decoder *decoder = astc_decoder_open(157, reason, sizeof reason);
    assert_non_null(decoder);
    /* Twice through the one decoder: each image decodes whole. */
    for (int round = 0; round < 2; round++) {
        memset(rgba, 0x55, sizeof rgba);
        assert_true(astc_decode(decoder, blocks, sizeof blocks, 6, 5, rgba, reason, sizeof reason));
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 6; x++) {
                const uint16_t *want = colours[(y >= 4) * 2 + (x >= 4)];
                for (int c = 0; c < 4; c++)
                    assert_int_equal(rgba[(y * 6 + x) * 4 + c], want[c] >> 8);
            }
    }
    /* One block short: refused, with why. */
    assert_false(astc_decode(decoder, blocks, 3 * 16, 6, 5, rgba, reason, sizeof reason));
    assert_non_null(strstr(reason, "48 bytes of blocks for 6x5 texels"));
    astc_decoder_close(decoder);
    assert_null(astc_decoder_open(VK_FORMAT_BC7_SRGB_BLOCK, reason, sizeof reason));
    assert_non_null(strstr(reason, "not an ASTC format"));
}

static void test_astc_hdr_blocks_decode_to_half_floats(void **state) {
    (void)state;
    /* FP16 values above 1 (4.0 = 0x4400, 2.5 = 0x4100) and below (0.5 =
     * 0x3800, 0.25 = 0x3400): an HDR texel keeps them. */
    const uint16_t colour[4] = {0x4400, 0x3800, 0x3400, 0x3c00};
    const uint16_t other[4] = {0x4100, 0x0000, 0x3c00, 0x3c00};
    uint8_t blocks[2 * 16];
    void_extent_block(colour, true, blocks);
    void_extent_block(other, true, blocks + 16);
    uint16_t texels[5 * 4 * 4];
    char reason[160];
    astc_decoder *decoder =
        astc_decoder_open(VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK, reason, sizeof reason);
    assert_non_null(decoder);
    assert_true(astc_decode(decoder, blocks, sizeof blocks, 5, 4, texels, reason, sizeof reason));
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 5; x++)
            assert_memory_equal(&texels[(y * 5 + x) * 4], x < 4 ? colour : other, 8);
    astc_decoder_close(decoder);
}

static void test_texture_rect_fits_and_centres(void **state) {
    (void)state;
    float rect[4];
    /* 8x8 into 256x192: scaled by 24 to 192x192, 32 pixels either side. */
    texture_rect(8, 8, 256, 192, rect);
    assert_float_equal(rect[0], -0.75f, 1e-6f);
    assert_float_equal(rect[1], -1.0f, 1e-6f);
    assert_float_equal(rect[2], 0.75f, 1e-6f);
    assert_float_equal(rect[3], 1.0f, 1e-6f);
    /* 64x16 into 100x100: the width fits, a quarter of the height is used. */
    texture_rect(64, 16, 100, 100, rect);
    assert_float_equal(rect[0], -1.0f, 1e-6f);
    assert_float_equal(rect[1], -0.25f, 1e-6f);
    assert_float_equal(rect[3], 0.25f, 1e-6f);
}

static void test_texture_program_follows_the_shape(void **state) {
    (void)state;
    kiln_ktx2_view flat = {.width = 4, .height = 4, .faces = 1, .levels = 1};
    kiln_ktx2_view array = flat, cube = flat, cube_array = flat, volume = flat;
    array.layers = 3;
    cube.faces = 6;
    cube_array.faces = 6;
    cube_array.layers = 2;
    volume.depth = 4;
    assert_int_equal(texture_program_of(&flat), TEXTURE_PROGRAM_2D);
    assert_int_equal(texture_program_of(&array), TEXTURE_PROGRAM_2D);
    assert_int_equal(texture_program_of(&cube), TEXTURE_PROGRAM_CUBE);
    assert_int_equal(texture_program_of(&cube_array), TEXTURE_PROGRAM_CUBE);
    assert_int_equal(texture_program_of(&volume), TEXTURE_PROGRAM_VOLUME);
    assert_string_equal(texture_program_refs[TEXTURE_PROGRAM_CUBE], "kiln-view/texture?CUBE=1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multiply_applies_the_right_matrix_first),
        cmocka_unit_test(test_camera_fits_the_bounding_sphere),
        cmocka_unit_test(test_orbit_quarter_turn_puts_the_eye_on_plus_x),
        cmocka_unit_test(test_orbit_pitch_stops_at_89_degrees),
        cmocka_unit_test(test_orbit_zoom_steps_and_limits),
        cmocka_unit_test(test_orbit_frame_keeps_the_angles),
        cmocka_unit_test(test_reload_events_become_lines),
        cmocka_unit_test(test_reload_lines_are_bounded),
        cmocka_unit_test(test_layouts_bind_what_each_program_reads),
        cmocka_unit_test(test_layouts_refuse_what_cannot_be_bound),
        cmocka_unit_test(test_lod_follows_the_projected_error),
        cmocka_unit_test(test_meshlet_indices_name_mesh_vertices),
        cmocka_unit_test(test_meshlet_indices_refuse_what_points_outside),
        cmocka_unit_test(test_frame_data_lays_out_morphs),
        cmocka_unit_test(test_morph_cache_writes_only_changes),
        cmocka_unit_test(test_overlay_text_places_glyph_bits),
        cmocka_unit_test(test_astc_formats_give_their_block_sizes),
        cmocka_unit_test(test_astc_decodes_blocks_in_place),
        cmocka_unit_test(test_astc_hdr_blocks_decode_to_half_floats),
        cmocka_unit_test(test_texture_rect_fits_and_centres),
        cmocka_unit_test(test_texture_program_follows_the_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
