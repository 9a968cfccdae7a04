/* test_scene_objects.c — cameras, KHR_lights_punctual lights and
 * EXT_mesh_gpu_instancing instances (issue 14): glTF files imported, written
 * as .kscene and read back by the runtime, every value checked against the
 * glTF JSON (and buffer) read independently here; the importer's errors on
 * bad input, each naming the glTF path; the reader's rules R14-R16 on
 * damaged files; the projection helper against points projected by hand. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/isolate.h"
#include "cook/process/process.h"
#include "test_import.h"

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* The import failed and an error line holds `words`. */
static void expect_error(const test_import *r, const char *words) {
    if (r->ok)
        fail_msg("import succeeded, expected an error with \"%s\"\n%s", words,
                 test_import_messages(r));
    test_expect_message(r, "model.gltf: error: ", words);
}

static cook_settings test_settings;

/* A .kscene of `asset`, held 16-byte aligned and opened by the runtime. */
typedef struct held_scene {
    bytebuf bytes;
    void *block;
    kiln_file file;
    kiln_scene_view view;
} held_scene;

static kiln_result open_bytes(held_scene *h, kiln_error *err) {
    assert_int_equal(posix_memalign(&h->block, 16, h->bytes.size), 0);
    memcpy(h->block, h->bytes.data, h->bytes.size);
    kiln_result r =
        kiln_file_from_memory(&h->file, h->block, h->bytes.size, "t.kscene", KILN_OPEN_DEEP, err);
    if (r != KILN_OK)
        return r;
    return kiln_scene_view_get(&h->file, KILN_OPEN_DEEP, &h->view, err);
}

static void close_held(held_scene *h) {
    kiln_file_close(&h->file);
    free(h->block);
    h->block = NULL;
}

static void hold_scene(held_scene *h, const ir_asset *asset) {
    memset(h, 0, sizeof *h);
    cook_settings_default(&test_settings);
    cook_context ctx = {.input_root = ".",
                        .source_path = "model.gltf",
                        .ref = "model",
                        .source = (const uint8_t *)"{}",
                        .source_size = 2,
                        .settings = &test_settings};
    uint64_t refs[8];
    assert_true(asset->mesh_count <= 8);
    for (uint32_t m = 0; m < asset->mesh_count; m++)
        refs[m] = 0x1000 + m;
    assert_true(write_kscene(&ctx, asset, refs, 0, "gltf", &h->bytes));
    kiln_error err;
    if (open_bytes(h, &err) != KILN_OK)
        fail_msg("scene: %s", err.message);
}

static void release_scene(held_scene *h) {
    close_held(h);
    bytebuf_free(&h->bytes);
}

/* The file node whose source is glTF node `source`. */
static uint32_t node_of_source(const kiln_scene_view *v, int32_t source) {
    for (uint32_t i = 0; i < v->node_count; i++)
        if (v->nodes[i].source == source)
            return i;
    fail_msg("no node has source %d", source);
    return 0;
}

static double number(const json_t *obj, const char *key, double fallback) {
    const json_t *value = json_object_get(obj, key);
    return value != NULL ? json_number_value(value) : fallback;
}

/* The cameras of a glTF document against the view's, value by value. */
static void expect_cameras(const json_t *doc, const kiln_scene_view *v) {
    const json_t *cameras = json_object_get(doc, "cameras");
    assert_int_equal(v->camera_count, json_array_size(cameras));
    for (size_t c = 0; c < json_array_size(cameras); c++) {
        const json_t *camera = json_array_get(cameras, c);
        const kiln_scene_camera *k = &v->cameras[c];
        const char *type = json_string_value(json_object_get(camera, "type"));
        const json_t *p = json_object_get(camera, type);
        const json_t *name = json_object_get(camera, "name");
        char fallback[32];
        snprintf(fallback, sizeof fallback, "camera_%zu", c);
        assert_string_equal(kiln_scene_camera_name(v, (uint32_t)c),
                            name ? json_string_value(name) : fallback);
        if (strcmp(type, "perspective") == 0) {
            assert_int_equal(k->type, KILN_CAMERA_PERSPECTIVE);
            assert_true(k->yfov == (float)number(p, "yfov", -1));
            assert_true(k->aspect == (float)number(p, "aspectRatio", 0));
            assert_true(k->xmag == 0.0f && k->ymag == 0.0f);
        } else {
            assert_int_equal(k->type, KILN_CAMERA_ORTHOGRAPHIC);
            assert_true(k->xmag == (float)number(p, "xmag", -1));
            assert_true(k->ymag == (float)number(p, "ymag", -1));
            assert_true(k->yfov == 0.0f && k->aspect == 0.0f);
        }
        assert_true(k->znear == (float)number(p, "znear", -1));
        assert_true(k->zfar == (float)number(p, "zfar", 0));
    }
}

/* Every glTF node's camera index against the file node of that source. */
static void expect_node_cameras(const json_t *doc, const kiln_scene_view *v) {
    const json_t *nodes = json_object_get(doc, "nodes");
    for (size_t n = 0; n < json_array_size(nodes); n++) {
        const json_t *camera = json_object_get(json_array_get(nodes, n), "camera");
        const kiln_scene_node *k = &v->nodes[node_of_source(v, (int32_t)n)];
        assert_int_equal(k->camera, camera ? (int)json_integer_value(camera) : -1);
        if (camera != NULL)
            assert_ptr_equal(kiln_scene_node_camera(v, node_of_source(v, (int32_t)n)),
                             &v->cameras[json_integer_value(camera)]);
    }
}

/* ---------------------------------------------------------------------------
 * The corpus's camera models
 * ------------------------------------------------------------------------- */

static void corpus_cameras_match_the_json(void **state) {
    (void)state;
    static const char *const files[] = {"gltf/Cameras/glTF/Cameras.gltf",
                                        "gltf/MultiUVTest/glTF/MultiUVTest.gltf",
                                        "invalid/gltf-validator/camera/custom_property.gltf"};
    char index[4096];
    snprintf(index, sizeof index, "%s/index.tsv", KILN_TEST_CORPUS_DIR);
    FILE *probe = fopen(index, "rb");
    if (probe == NULL) {
        printf("skipped: shared corpus not found\n");
        return;
    }
    fclose(probe);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        test_import r;
        test_import_file(&r, import_gltf, KILN_TEST_CORPUS_DIR, files[f]);
        test_import_expect_ok(&r);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", KILN_TEST_CORPUS_DIR, files[f]);
        json_error_t jerr;
        json_t *doc = json_load_file(path, 0, &jerr);
        assert_non_null(doc);
        assert_true(r.asset.camera_count > 0);
        held_scene h;
        hold_scene(&h, &r.asset);
        expect_cameras(doc, &h.view);
        expect_node_cameras(doc, &h.view);
        release_scene(&h);
        json_decref(doc);
        test_import_free(&r);
    }
}

/* ---------------------------------------------------------------------------
 * A file with every kind: cameras, lights, instances
 * ------------------------------------------------------------------------- */

/* model.bin: TRANSLATION 3 x VEC3 float (0), ROTATION 3 x VEC4 normalized
 * short (36), SCALE 3 x VEC3 float (60), a triangle's POSITION (96), 2 x VEC3
 * float for count mismatches (132): 156 bytes. */
static const float bin_translation[9] = {1, 2, 3, 4, 5, 6, -1, 0, 0.5f};
static const int16_t bin_rotation[12] = {0, 0, 0, 32767, 0, 23170, 0, 23170, -32767, 0, 0, 0};
static const float bin_scale[9] = {1, 1, 1, 2, 2, 2, 0.5f, 1, 3};
static const float bin_triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

static void write_bin(const char *dir) {
    uint8_t bin[168];
    memset(bin, 0, sizeof bin);
    memcpy(bin, bin_translation, 36);
    memcpy(bin + 36, bin_rotation, 24);
    memcpy(bin + 60, bin_scale, 36);
    memcpy(bin + 96, bin_triangle, 36);
    memcpy(bin + 132, bin_translation, 24);
    test_write_in(dir, "model.bin", bin, sizeof bin);
}

#define ACCESSORS                                                                                  \
    "'buffers':[{'uri':'model.bin','byteLength':168}],"                                            \
    "'bufferViews':[{'buffer':0,'byteLength':168}],"                                               \
    "'accessors':[{'bufferView':0,'componentType':5126,'count':3,'type':'VEC3'},"                  \
    "{'bufferView':0,'byteOffset':36,'componentType':5122,'normalized':true,'count':3,"            \
    "'type':'VEC4'},"                                                                              \
    "{'bufferView':0,'byteOffset':60,'componentType':5126,'count':3,'type':'VEC3'},"               \
    "{'bufferView':0,'byteOffset':96,'componentType':5126,'count':3,'type':'VEC3',"                \
    "'min':[0,0,0],'max':[1,1,0]},"                                                                \
    "{'bufferView':0,'byteOffset':132,'componentType':5126,'count':2,'type':'VEC3'},"              \
    "{'bufferView':0,'byteOffset':36,'componentType':5122,'count':3,'type':'VEC4'},"               \
    "{'bufferView':0,'byteOffset':0,'componentType':5126,'count':2,'type':'VEC4'}],"               \
    "'meshes':[{'primitives':[{'attributes':{'POSITION':3}}]}],"

static const char everything_json[] =
    "{'asset':{'version':'2.0'},"
    "'extensionsUsed':['KHR_lights_punctual','EXT_mesh_gpu_instancing'],"
    "'extensions':{'KHR_lights_punctual':{'lights':["
    "{'type':'directional','name':'sun','color':[1,0.9,0.75],'intensity':3.5},"
    "{'type':'point','range':12.5},"
    "{'type':'spot','name':'torch','intensity':40,'spot':{'innerConeAngle':0.2,"
    "'outerConeAngle':0.6}},"
    "{'type':'spot','spot':{}}]}},"
    "'cameras':[{'type':'perspective','name':'eye','perspective':{'yfov':0.8,'znear':0.05,"
    "'aspectRatio':1.7777}},"
    "{'type':'orthographic','orthographic':{'xmag':3,'ymag':-2,'znear':0,'zfar':50}},"
    "{'type':'perspective','perspective':{'yfov':1.2,'znear':0.1,'zfar':1000}}]," ACCESSORS
    "'nodes':[{'name':'rig','children':[1,2,3]},"
    "{'name':'cam','camera':0,'translation':[0,1,5]},"
    "{'name':'lamp','extensions':{'KHR_lights_punctual':{'light':2}}},"
    "{'name':'trees','mesh':0,'extensions':{'EXT_mesh_gpu_instancing':{'attributes':"
    "{'TRANSLATION':0,'ROTATION':1,'SCALE':2,'_ID':4}}}},"
    "{'name':'sun','camera':2,'extensions':{'KHR_lights_punctual':{'light':0}}},"
    "{'name':'rocks','mesh':0,'extensions':{'EXT_mesh_gpu_instancing':{'attributes':"
    "{'TRANSLATION':4}}}}],"
    "'scenes':[{'nodes':[0,4,5]}]}";

/* A normalized short as glTF decodes it: max(c / 32767, -1). */
static double snorm16(int16_t c) {
    double v = c / 32767.0;
    return v < -1.0 ? -1.0 : v;
}

static void gltf_cameras_lights_instances_round_trip(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("scene_objects_all");
    write_bin(dir);
    char *json = test_json_text("%s", everything_json);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    /* The custom attribute is named, not dropped silently. */
    assert_non_null(strstr(test_import_messages(&r),
                           "nodes[3].extensions.EXT_mesh_gpu_instancing.attributes._ID: custom "
                           "instance attribute not cooked"));
    assert_null(strstr(test_import_messages(&r), "extensionsUsed"));
    json_error_t jerr;
    json_t *doc = json_loads(json, 0, &jerr);
    assert_non_null(doc);
    held_scene h;
    hold_scene(&h, &r.asset);
    const kiln_scene_view *v = &h.view;
    assert_int_equal(h.file.kind_version, KILN_SCENE_VERSION);
    expect_cameras(doc, v);
    expect_node_cameras(doc, v);
    assert_string_equal(kiln_scene_camera_name(v, 0), "eye");
    assert_string_equal(kiln_scene_camera_name(v, 1), "camera_1");
    /* Lights against the JSON, defaults as KHR_lights_punctual states them. */
    const json_t *lights = json_object_get(
        json_object_get(json_object_get(doc, "extensions"), "KHR_lights_punctual"), "lights");
    assert_int_equal(v->light_count, json_array_size(lights));
    static const char *const types[] = {"directional", "point", "spot"};
    for (size_t l = 0; l < json_array_size(lights); l++) {
        const json_t *light = json_array_get(lights, l);
        const kiln_scene_light *k = &v->lights[l];
        assert_string_equal(types[k->type], json_string_value(json_object_get(light, "type")));
        const json_t *color = json_object_get(light, "color");
        for (size_t c = 0; c < 3; c++)
            assert_true(k->color[c] ==
                        (float)(color ? json_number_value(json_array_get(color, c)) : 1.0));
        assert_true(k->intensity == (float)number(light, "intensity", 1.0));
        assert_true(k->range == (float)number(light, "range", 0.0));
        const json_t *spot = json_object_get(light, "spot");
        assert_true(k->inner_cone == (float)(spot ? number(spot, "innerConeAngle", 0) : 0));
        assert_true(k->outer_cone ==
                    (float)(spot ? number(spot, "outerConeAngle", 0.78539816339744831) : 0));
        const json_t *name = json_object_get(light, "name");
        char fallback[32];
        snprintf(fallback, sizeof fallback, "light_%zu", l);
        assert_string_equal(kiln_scene_light_name(v, (uint32_t)l),
                            name ? json_string_value(name) : fallback);
    }
    const json_t *nodes = json_object_get(doc, "nodes");
    for (size_t n = 0; n < json_array_size(nodes); n++) {
        const json_t *ext = json_object_get(json_array_get(nodes, n), "extensions");
        const json_t *light = json_object_get(json_object_get(ext, "KHR_lights_punctual"), "light");
        uint32_t k = node_of_source(v, (int32_t)n);
        assert_int_equal(v->nodes[k].light, light ? (int)json_integer_value(light) : -1);
        const kiln_scene_light *got = kiln_scene_node_light(v, k);
        assert_true(light ? got == &v->lights[json_integer_value(light)] : got == NULL);
    }
    /* Instances: node 3 from the buffer (rotations decoded and normalised
     * here), node 5 translations only, the others none. */
    assert_int_equal(v->instance_count, 5);
    uint32_t count;
    const kiln_scene_transform *inst = kiln_scene_node_instances(v, node_of_source(v, 3), &count);
    assert_int_equal(count, 3);
    for (uint32_t e = 0; e < 3; e++) {
        double q[4], length = 0;
        for (int c = 0; c < 4; c++) {
            q[c] = snorm16(bin_rotation[4 * e + c]);
            length += q[c] * q[c];
        }
        length = sqrt(length);
        for (int c = 0; c < 3; c++) {
            assert_true(inst[e].translation[c] == bin_translation[3 * e + c]);
            assert_true(inst[e].scale[c] == bin_scale[3 * e + c]);
        }
        for (int c = 0; c < 4; c++)
            assert_true(fabs(inst[e].rotation[c] - q[c] / length) < 1e-6);
    }
    inst = kiln_scene_node_instances(v, node_of_source(v, 5), &count);
    assert_int_equal(count, 2);
    for (uint32_t e = 0; e < 2; e++) {
        for (int c = 0; c < 3; c++) {
            assert_true(inst[e].translation[c] == bin_translation[3 * e + c]);
            assert_true(inst[e].scale[c] == 1.0f);
        }
        assert_true(inst[e].rotation[0] == 0 && inst[e].rotation[1] == 0 &&
                    inst[e].rotation[2] == 0 && inst[e].rotation[3] == 1);
    }
    for (int32_t n = 0; n < 5; n++) {
        if (n == 3)
            continue;
        assert_null(kiln_scene_node_instances(v, node_of_source(v, n), &count));
        assert_int_equal(count, 0);
    }
    release_scene(&h);
    json_decref(doc);
    test_import_free(&r);
    free(json);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Bad input: one error each, naming the glTF path
 * ------------------------------------------------------------------------- */

static void gltf_refuses_bad_cameras_lights_and_instances(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("scene_objects_bad");
    write_bin(dir);
#define CAM(x) "{'asset':{'version':'2.0'},'cameras':[" x "]}"
#define LIGHT(x)                                                                                   \
    "{'asset':{'version':'2.0'},'extensions':{'KHR_lights_punctual':{'lights':[" x "]}}}"
#define INST(x)                                                                                    \
    "{'asset':{'version':'2.0'}," ACCESSORS "'nodes':[{'mesh':0,'extensions':{"                    \
    "'EXT_mesh_gpu_instancing':{'attributes':{" x "}}}}]}"
    static const struct {
        const char *json;
        const char *error;
    } cases[] = {
        {CAM("{'perspective':{'yfov':1,'znear':1}}"),
         "cameras[0]: required property 'type' is missing"},
        {CAM("{'type':'perspective'}"), "cameras[0]: required property 'perspective' is missing"},
        {CAM("{'type':'perspective','perspective':{'yfov':1,'znear':1},"
             "'orthographic':{'xmag':1,'ymag':1,'znear':0,'zfar':1}}"),
         "cameras[0].orthographic: the camera's type is perspective"},
        {CAM("{'type':'fisheye'}"), "cameras[0].type: 'fisheye' is neither"},
        {CAM("{'type':'perspective','perspective':{'yfov':1,'znear':2,'zfar':2}}"),
         "cameras[0].perspective: zfar 2 must be greater than znear 2"},
        {CAM("{'type':'orthographic','orthographic':{'xmag':1,'ymag':1,'znear':5,'zfar':1}}"),
         "cameras[0].orthographic: zfar 1 must be greater than znear 5"},
        {CAM("{'type':'perspective','perspective':{'yfov':0,'znear':1}}"),
         "cameras[0].perspective.yfov: value 0 is out of range"},
        {CAM("{'type':'perspective','perspective':{'yfov':-1,'znear':1}}"),
         "cameras[0].perspective.yfov: value -1 is out of range"},
        {CAM("{'type':'perspective','perspective':{'yfov':1,'znear':1,'aspectRatio':0}}"),
         "cameras[0].perspective.aspectRatio: value 0 is out of range"},
        {CAM("{'type':'perspective','perspective':{'yfov':1,'znear':1,'aspectRatio':-2}}"),
         "cameras[0].perspective.aspectRatio: value -2 is out of range"},
        {CAM("{'type':'orthographic','orthographic':{'xmag':0,'ymag':1,'znear':0,'zfar':1}}"),
         "cameras[0].orthographic.xmag: must not be 0"},
        {CAM("{'type':'orthographic','orthographic':{'xmag':1,'ymag':0,'znear':0,'zfar':1}}"),
         "cameras[0].orthographic.ymag: must not be 0"},
        {CAM("{'type':'orthographic','orthographic':{'xmag':1,'ymag':1,'znear':-1,'zfar':1}}"),
         "cameras[0].orthographic.znear: value -1 is out of range"},
        {CAM("{'type':'perspective','perspective':{'yfov':1,'znear':0}}"),
         "cameras[0].perspective.znear: value 0 is out of range"},
        {CAM("{'type':'orthographic','orthographic':{'xmag':1,'ymag':1,'znear':0}}"),
         "cameras[0].orthographic: required property 'zfar' is missing"},
        {LIGHT("{'type':'area'}"),
         "extensions.KHR_lights_punctual.lights[0].type: 'area' is not directional, point or "
         "spot"},
        {LIGHT("{'intensity':1}"),
         "extensions.KHR_lights_punctual.lights[0]: required property 'type' is missing"},
        {LIGHT("{'type':'point','intensity':-1}"),
         "extensions.KHR_lights_punctual.lights[0].intensity: value -1 is out of range"},
        {LIGHT("{'type':'point','range':-3}"),
         "extensions.KHR_lights_punctual.lights[0].range: value -3 is out of range"},
        {LIGHT("{'type':'point','range':0}"),
         "extensions.KHR_lights_punctual.lights[0].range: value 0 is out of range"},
        {LIGHT("{'type':'point','color':[1,2,0]}"),
         "extensions.KHR_lights_punctual.lights[0].color[1]: value 2 is out of range"},
        {LIGHT("{'type':'spot'}"),
         "extensions.KHR_lights_punctual.lights[0].spot: a spot light needs a 'spot' object"},
        {LIGHT("{'type':'point','spot':{}}"),
         "extensions.KHR_lights_punctual.lights[0].spot: only a spot light has"},
        {LIGHT("{'type':'spot','spot':{'innerConeAngle':0.5,'outerConeAngle':0.4}}"),
         "extensions.KHR_lights_punctual.lights[0].spot: innerConeAngle 0.5 must be less than "
         "outerConeAngle 0.4"},
        {LIGHT("{'type':'spot','spot':{'innerConeAngle':0.3,'outerConeAngle':0.3}}"),
         "innerConeAngle 0.3 must be less than outerConeAngle 0.3"},
        {LIGHT("{'type':'spot','spot':{'outerConeAngle':1.6}}"),
         "extensions.KHR_lights_punctual.lights[0].spot.outerConeAngle: value 1.6 is out of "
         "range"},
        {LIGHT("{'type':'spot','spot':{'innerConeAngle':-0.1}}"),
         "extensions.KHR_lights_punctual.lights[0].spot.innerConeAngle: value -0.1 is out of "
         "range"},
        {"{'asset':{'version':'2.0'},'extensions':{'KHR_lights_punctual':{'lights':"
         "[{'type':'point'}]}},'nodes':[{'extensions':{'KHR_lights_punctual':{'light':1}}}]}",
         "nodes[0].extensions.KHR_lights_punctual.light: light 1 does not exist (the file defines "
         "1)"},
        {"{'asset':{'version':'2.0'},'nodes':[{'extensions':{'KHR_lights_punctual':"
         "{'light':0}}}]}",
         "nodes[0].extensions.KHR_lights_punctual.light: light 0 does not exist (the file defines "
         "none)"},
        {INST("'TRANSLATION':0,'SCALE':4"),
         "nodes[0].extensions.EXT_mesh_gpu_instancing.attributes.SCALE: accessor 4 has 2 "
         "elements, but TRANSLATION has 3"},
        {INST("'TRANSLATION':6"),
         "nodes[0].extensions.EXT_mesh_gpu_instancing.attributes.TRANSLATION: accessor 6 is "
         "VEC4 FLOAT; TRANSLATION must be VEC3 FLOAT"},
        {INST("'ROTATION':5"),
         "nodes[0].extensions.EXT_mesh_gpu_instancing.attributes.ROTATION: accessor 5 is VEC4 "
         "SHORT; ROTATION must be VEC4 FLOAT or normalized BYTE or SHORT"},
        {INST("'ROTATION':0"), "attributes.ROTATION: accessor 0 is VEC3 FLOAT"},
        {INST("'SCALE':1"), "attributes.SCALE: accessor 1 is VEC4 normalized SHORT"},
        {INST("'TRANSLATION':9"), "nodes[0].extensions.EXT_mesh_gpu_instancing.attributes."
                                  "TRANSLATION: accessor 9 does not exist"},
        {INST("'POSITION':0"),
         "nodes[0].extensions.EXT_mesh_gpu_instancing.attributes.POSITION: not TRANSLATION, "
         "ROTATION, SCALE or a custom _NAME"},
        {INST(""), "nodes[0].extensions.EXT_mesh_gpu_instancing.attributes: needs at least one of"},
        {"{'asset':{'version':'2.0'}," ACCESSORS
         "'nodes':[{'extensions':{'EXT_mesh_gpu_instancing':{'attributes':{'TRANSLATION':0}}}}]}",
         "nodes[0].extensions.EXT_mesh_gpu_instancing: a node with instances needs a mesh"},
        /* ROTATION as floats that are not unit quaternions: the translations. */
        {"{'asset':{'version':'2.0'}," ACCESSORS
         "'nodes':[{'mesh':0,'extensions':{'EXT_mesh_gpu_instancing':{'attributes':"
         "{'ROTATION':6}}}}]}",
         "attributes.ROTATION: instance 0 is not a unit quaternion"},
    };
#undef CAM
#undef LIGHT
#undef INST
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = test_json_text("%s", cases[i].json);
        test_import r;
        test_import_gltf_json(&r, dir, json);
        expect_error(&r, cases[i].error);
        test_import_free(&r);
        free(json);
    }
    /* The corpus's validator files: refused with the path of the problem. */
    static const struct {
        const char *file;
        const char *error;
    } corpus[] = {
        {"invalid/gltf-validator/camera/empty_objects.gltf",
         "cameras[0]: required property 'type' is missing"},
        {"invalid/gltf-validator/camera/orthographic_z.gltf", "cameras[0].orthographic: zfar"},
        {"invalid/gltf-validator/camera/perspective_z.gltf", "cameras[0].perspective: zfar"},
        {"invalid/gltf-validator/camera/infinite_znear.gltf", "znear"},
    };
    char index[4096];
    snprintf(index, sizeof index, "%s/index.tsv", KILN_TEST_CORPUS_DIR);
    FILE *probe = fopen(index, "rb");
    for (size_t i = 0; probe != NULL && i < sizeof corpus / sizeof corpus[0]; i++) {
        test_import r;
        test_import_file(&r, import_gltf, KILN_TEST_CORPUS_DIR, corpus[i].file);
        assert_false(r.ok);
        assert_non_null(strstr(test_import_messages(&r), corpus[i].error));
        test_import_free(&r);
    }
    if (probe != NULL)
        fclose(probe);
    else
        printf("skipped: shared corpus not found (validator files)\n");
    /* A negative magnification is only a warning. */
    char *json = test_json_text(
        "{'asset':{'version':'2.0'},'cameras':[{'type':'orthographic','orthographic':"
        "{'xmag':-1,'ymag':2,'znear':0,'zfar':1}}]}");
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    assert_non_null(strstr(test_import_messages(&r),
                           "model.gltf: warning: cameras[0].orthographic: xmag -1, ymag 2"));
    assert_true(r.asset.cameras[0].xmag == -1.0f);
    test_import_free(&r);
    free(json);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * The reader's rules R14-R16 on damaged files
 * ------------------------------------------------------------------------- */

static void set_word(held_scene *h, uint32_t fourcc, size_t offset, const void *value) {
    for (uint32_t i = 0; i < h->file.chunk_count; i++) {
        if (h->file.chunks[i].fourcc == fourcc) {
            assert_true(offset + 4 <= h->file.chunks[i].size);
            memcpy(h->bytes.data + h->file.chunks[i].offset + offset, value, 4);
            return;
        }
    }
    fail_msg("no such chunk");
}

static void reader_enforces_camera_light_instance_rules(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("scene_objects_rules");
    write_bin(dir);
    char *json = test_json_text("%s", everything_json);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    held_scene h;
    hold_scene(&h, &r.asset);
    /* instance ranges of nodes: file order is rig, cam, lamp, trees, sun, rocks */
    uint32_t rocks = node_of_source(&h.view, 5), trees = node_of_source(&h.view, 3);
    close_held(&h);
    const float zero = 0.0f, minus = -1.0f, big = 2.0f, nan = NAN, cone = 1.6f;
    const uint32_t three = 3, one = 1, two = 2;
    const struct {
        const char *name;
        uint32_t fourcc;
        size_t offset;
        const void *value;
        kiln_result expected;
        const char *message;
    } damage[] = {
        {"R14 type", KILN_CHUNK_SCENE_CAMERAS, 0, &three, KILN_ERR_UNSUPPORTED, "camera 0"},
        {"R14 yfov", KILN_CHUNK_SCENE_CAMERAS, 12, &zero, KILN_ERR_CORRUPT, "camera 0"},
        {"R14 aspect", KILN_CHUNK_SCENE_CAMERAS, 16, &minus, KILN_ERR_CORRUPT, "camera 0"},
        {"R14 xmag on perspective", KILN_CHUNK_SCENE_CAMERAS, 20, &big, KILN_ERR_CORRUPT,
         "camera 0"},
        {"R14 znear", KILN_CHUNK_SCENE_CAMERAS, 28, &zero, KILN_ERR_CORRUPT, "camera 0"},
        {"R14 zfar below znear", KILN_CHUNK_SCENE_CAMERAS, 48 + 32, &zero, KILN_ERR_CORRUPT,
         "camera 1"},
        {"R14 xmag 0", KILN_CHUNK_SCENE_CAMERAS, 48 + 20, &zero, KILN_ERR_CORRUPT, "camera 1"},
        {"R14 nan", KILN_CHUNK_SCENE_CAMERAS, 96 + 32, &nan, KILN_ERR_CORRUPT, "camera 2"},
        {"R14 reserved", KILN_CHUNK_SCENE_CAMERAS, 40, &one, KILN_ERR_CORRUPT, "camera 0"},
        {"R14 name", KILN_CHUNK_SCENE_CAMERAS, 8, &(uint32_t){100000}, KILN_ERR_CORRUPT,
         "camera 0"},
        {"R15 type", KILN_CHUNK_SCENE_LIGHTS, 0, &three, KILN_ERR_UNSUPPORTED, "light 0"},
        {"R15 colour", KILN_CHUNK_SCENE_LIGHTS, 12, &big, KILN_ERR_CORRUPT, "light 0"},
        {"R15 intensity", KILN_CHUNK_SCENE_LIGHTS, 24, &minus, KILN_ERR_CORRUPT, "light 0"},
        {"R15 range", KILN_CHUNK_SCENE_LIGHTS, 28, &minus, KILN_ERR_CORRUPT, "light 0"},
        {"R15 cone on a directional", KILN_CHUNK_SCENE_LIGHTS, 36, &cone, KILN_ERR_CORRUPT,
         "light 0"},
        {"R15 spot outer", KILN_CHUNK_SCENE_LIGHTS, 96 + 36, &cone, KILN_ERR_CORRUPT, "light 2"},
        {"R15 spot order", KILN_CHUNK_SCENE_LIGHTS, 96 + 32, &big, KILN_ERR_CORRUPT, "light 2"},
        {"R15 reserved", KILN_CHUNK_SCENE_LIGHTS, 44, &one, KILN_ERR_CORRUPT, "light 0"},
        {"R16 first", KILN_CHUNK_SCENE_INSTANCE_RANGES, 8 * (size_t)rocks, &one, KILN_ERR_CORRUPT,
         "has instances"},
        {"R16 count", KILN_CHUNK_SCENE_INSTANCE_RANGES, 8 * (size_t)trees + 4, &two,
         KILN_ERR_CORRUPT, "instances"},
        {"R16 empty with first", KILN_CHUNK_SCENE_INSTANCE_RANGES, 0, &one, KILN_ERR_CORRUPT,
         "node 0 has instances"},
        {"R16 rotation", KILN_CHUNK_SCENE_INSTANCES, 12, &big, KILN_ERR_CORRUPT, "instance 0"},
        {"R16 nan", KILN_CHUNK_SCENE_INSTANCES, 40 + 28, &nan, KILN_ERR_CORRUPT, "instance 1"},
        {"R5 instance count", KILN_CHUNK_SCENE_DESC, 48, &three, KILN_ERR_CORRUPT, "SINS"},
        {"R10 camera index", KILN_CHUNK_SCENE_NODES, 12, &three, KILN_ERR_CORRUPT, "camera 3"},
        {"R10 light index", KILN_CHUNK_SCENE_NODES, 16, &(int32_t){4}, KILN_ERR_CORRUPT, "light 4"},
    };
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        bytebuf saved = {0};
        bytebuf_append(&saved, h.bytes.data, h.bytes.size);
        kiln_error err;
        /* chunk offsets from a clean open */
        assert_int_equal(open_bytes(&h, &err), KILN_OK);
        kiln_file layout = h.file;
        kiln_chunk_entry chunks[32];
        assert_true(layout.chunk_count <= 32);
        memcpy(chunks, layout.chunks, layout.chunk_count * sizeof *chunks);
        close_held(&h);
        h.file.chunks = chunks;
        h.file.chunk_count = layout.chunk_count;
        set_word(&h, damage[i].fourcc, damage[i].offset, damage[i].value);
        kiln_result got = open_bytes(&h, &err);
        if (got != damage[i].expected || strstr(err.message, damage[i].message) == NULL)
            fail_msg("%s: got %s '%s', expected %s with '%s'", damage[i].name, kiln_result_str(got),
                     err.message, kiln_result_str(damage[i].expected), damage[i].message);
        close_held(&h);
        memcpy(h.bytes.data, saved.data, saved.size);
        bytebuf_free(&saved);
    }
    /* Versions 1 and 2 (nodes in depth order) are refused, saying what to do. */
    ir_asset plain;
    memset(&plain, 0, sizeof plain);
    held_scene old;
    hold_scene(&old, &plain);
    close_held(&old);
    for (uint16_t version = 1; version <= 2; version++) {
        memcpy(old.bytes.data + offsetof(kiln_container_header, kind_version), &version, 2);
        kiln_error err;
        assert_int_equal(open_bytes(&old, &err), KILN_ERR_UNSUPPORTED);
        assert_non_null(strstr(err.message, "cook the source again"));
        close_held(&old);
    }
    bytebuf_free(&old.bytes);
    bytebuf_free(&h.bytes);
    test_import_free(&r);
    free(json);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Projection
 * ------------------------------------------------------------------------- */

/* clip = M * (x, y, z, 1), M column-major; returns NDC. */
static void project(const float m[16], const double p[3], double ndc[3]) {
    double clip[4];
    for (int r = 0; r < 4; r++)
        clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    for (int k = 0; k < 3; k++)
        ndc[k] = clip[k] / clip[3];
}

static void projection_maps_the_frustum_corners(void **state) {
    (void)state;
    const double n = 0.5, f = 40.0, yfov = 0.9, aspect = 1.5;
    kiln_scene_camera perspective = {.type = KILN_CAMERA_PERSPECTIVE,
                                     .yfov = (float)yfov,
                                     .aspect = 0.0f,
                                     .znear = (float)n,
                                     .zfar = (float)f};
    kiln_scene_camera ortho = {.type = KILN_CAMERA_ORTHOGRAPHIC,
                               .xmag = 3.0f,
                               .ymag = 2.0f,
                               .znear = (float)n,
                               .zfar = (float)f};
    kiln_error err;
    float m[16];
    /* The top-right corner of the near and far planes, computed from the
     * frustum's geometry: x = z tan(yfov / 2) aspect, y = z tan(yfov / 2). */
    for (int vulkan = 0; vulkan < 2; vulkan++) {
        kiln_projection convention = vulkan ? KILN_PROJECTION_VULKAN : KILN_PROJECTION_GLTF;
        double near_depth = vulkan ? 0.0 : -1.0, up = vulkan ? -1.0 : 1.0;
        assert_int_equal(kiln_camera_projection(&perspective, (float)aspect, convention, m, &err),
                         KILN_OK);
        for (int plane = 0; plane < 2; plane++) {
            double z = plane ? f : n, t = tan(yfov / 2);
            double corner[3] = {z * t * aspect, z * t, -z}, ndc[3];
            project(m, corner, ndc);
            assert_true(fabs(ndc[0] - 1.0) < 1e-5);
            assert_true(fabs(ndc[1] - up) < 1e-5);
            assert_true(fabs(ndc[2] - (plane ? 1.0 : near_depth)) < 1e-4);
        }
        /* The infinite projection: the near plane at the near depth, far
         * points approach 1. */
        kiln_scene_camera infinite = perspective;
        infinite.zfar = 0.0f;
        assert_int_equal(kiln_camera_projection(&infinite, (float)aspect, convention, m, &err),
                         KILN_OK);
        double near_point[3] = {0, 0, -n}, far_point[3] = {0, 0, -1e6}, ndc[3];
        project(m, near_point, ndc);
        assert_true(fabs(ndc[2] - near_depth) < 1e-5);
        project(m, far_point, ndc);
        assert_true(fabs(ndc[2] - 1.0) < 1e-5);
        /* Orthographic: (xmag, ymag) at the near and far planes. */
        assert_int_equal(kiln_camera_projection(&ortho, 0.0f, convention, m, &err), KILN_OK);
        for (int plane = 0; plane < 2; plane++) {
            double corner[3] = {3.0, 2.0, plane ? -f : -n};
            project(m, corner, ndc);
            assert_true(fabs(ndc[0] - 1.0) < 1e-6);
            assert_true(fabs(ndc[1] - up) < 1e-6);
            assert_true(fabs(ndc[2] - (plane ? 1.0 : near_depth)) < 1e-5);
        }
    }
    /* The camera's own aspect ratio wins over the viewport's. */
    perspective.aspect = 2.0f;
    assert_int_equal(kiln_camera_projection(&perspective, 1.0f, KILN_PROJECTION_GLTF, m, &err),
                     KILN_OK);
    assert_true(fabs(m[0] - 1.0 / (2.0 * tan(yfov / 2))) < 1e-6);
    /* No aspect ratio anywhere, a bad convention, no camera. */
    perspective.aspect = 0.0f;
    assert_int_equal(kiln_camera_projection(&perspective, 0.0f, KILN_PROJECTION_GLTF, m, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "aspect"));
    assert_int_equal(kiln_camera_projection(&perspective, 1.0f, (kiln_projection)7, m, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_camera_projection(NULL, 1.0f, KILN_PROJECTION_GLTF, m, &err),
                     KILN_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------
 * assimp: a COLLADA file's camera and lights
 * ------------------------------------------------------------------------- */

static const char camera_dae[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    "  <asset><unit meter=\"1\" name=\"meter\"/><up_axis>Y_UP</up_axis></asset>\n"
    "  <library_cameras>\n"
    "    <camera id=\"eye-camera\" name=\"eye\">\n"
    "      <optics><technique_common><perspective>\n"
    "        <xfov>60</xfov><aspect_ratio>1.5</aspect_ratio><znear>0.25</znear><zfar>250</zfar>\n"
    "      </perspective></technique_common></optics>\n"
    "    </camera>\n"
    "  </library_cameras>\n"
    "  <library_lights>\n"
    "    <light id=\"sun-light\" name=\"sun\"><technique_common><directional><color>0.5 0.25 "
    "0.125</color></directional></technique_common></light>\n"
    "    <light id=\"bulb-light\" name=\"bulb\"><technique_common><point><color>2 1 "
    "1</color><constant_attenuation>1</constant_attenuation><linear_attenuation>0</"
    "linear_attenuation><quadratic_attenuation>0</quadratic_attenuation></point></"
    "technique_common></light>\n"
    "    <light id=\"torch-light\" name=\"torch\"><technique_common><spot><color>0 1 "
    "0.5</color><constant_attenuation>0</constant_attenuation><linear_attenuation>0</"
    "linear_attenuation><quadratic_attenuation>1</quadratic_attenuation><falloff_angle>40</"
    "falloff_angle><falloff_exponent>0</falloff_exponent></spot></technique_common></light>\n"
    "    <light id=\"amb-light\" name=\"amb\"><technique_common><ambient><color>0.1 0.1 "
    "0.1</color></ambient></technique_common></light>\n"
    "  </library_lights>\n"
    "  <library_geometries>\n"
    "    <geometry id=\"tri\" name=\"tri\"><mesh>\n"
    "      <source id=\"tri-pos\"><float_array id=\"tri-pos-array\" count=\"9\">0 0 0 1 0 0 0 1 "
    "0</float_array>\n"
    "        <technique_common><accessor source=\"#tri-pos-array\" count=\"3\" stride=\"3\"><param "
    "name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/><param name=\"Z\" "
    "type=\"float\"/></accessor></technique_common></source>\n"
    "      <vertices id=\"tri-vtx\"><input semantic=\"POSITION\" source=\"#tri-pos\"/></vertices>\n"
    "      <triangles count=\"1\"><input semantic=\"VERTEX\" source=\"#tri-vtx\" "
    "offset=\"0\"/><p>0 1 2</p></triangles>\n"
    "    </mesh></geometry>\n"
    "  </library_geometries>\n"
    "  <library_visual_scenes>\n"
    "    <visual_scene id=\"scene\" name=\"scene\">\n"
    "      <node id=\"Mesh\" name=\"Mesh\"><instance_geometry url=\"#tri\"/></node>\n"
    "      <node id=\"Eye\" name=\"Eye\"><translate>0 1 5</translate><instance_camera "
    "url=\"#eye-camera\"/></node>\n"
    "      <node id=\"Sun\" name=\"Sun\"><rotate>1 0 0 -90</rotate><instance_light "
    "url=\"#sun-light\"/></node>\n"
    "      <node id=\"Bulb\" name=\"Bulb\"><translate>2 3 4</translate><instance_light "
    "url=\"#bulb-light\"/></node>\n"
    "      <node id=\"Torch\" name=\"Torch\"><instance_light url=\"#torch-light\"/></node>\n"
    "      <node id=\"Amb\" name=\"Amb\"><instance_light url=\"#amb-light\"/></node>\n"
    "    </visual_scene>\n"
    "  </library_visual_scenes>\n"
    "  <scene><instance_visual_scene url=\"#scene\"/></scene>\n"
    "</COLLADA>\n";

static void assimp_cameras_and_lights(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("scene_objects_dae");
    test_import r;
    test_import_bytes(&r, import_assimp, dir, "scene.dae", camera_dae, sizeof camera_dae - 1);
    test_import_expect_ok(&r);
    const char *messages = test_import_messages(&r);
    /* What does not map is named. */
    assert_non_null(strstr(messages, "light 'Amb': ambient lights are not cooked"));
    assert_non_null(strstr(messages, "light 'Bulb': attenuation constants (constant 1, linear 0, "
                                     "quadratic 0) are not cooked"));
    assert_null(strstr(messages, "light 'Torch': attenuation"));
    assert_non_null(strstr(messages, "light 'Torch': outer cone angle"));
    /* Through the isolation wire format and into a .kscene. */
    bytebuf wire = {0};
    assert_true(ir_wire_write(&r.asset, &wire));
    wire_reader in = {.data = wire.data, .size = wire.size};
    ir_asset back;
    char reason[256];
    if (!ir_wire_read(&in, &back, reason, sizeof reason))
        fail_msg("wire: %s", reason);
    held_scene h;
    hold_scene(&h, &back);
    const kiln_scene_view *v = &h.view;
    /* The COLLADA values: xfov 60 degrees (whole), aspect 1.5. */
    const double pi = 3.14159265358979323846;
    assert_int_equal(v->camera_count, 1);
    const kiln_scene_camera *c = &v->cameras[0];
    assert_int_equal(c->type, KILN_CAMERA_PERSPECTIVE);
    assert_string_equal(kiln_scene_camera_name(v, 0), "Eye");
    assert_true(fabs(c->yfov - 2.0 * atan(tan(60.0 * pi / 360.0) / 1.5)) < 1e-6);
    assert_true(c->aspect == 1.5f && c->znear == 0.25f && c->zfar == 250.0f);
    uint32_t eye, sun, bulb, torch, amb;
    assert_int_equal(kiln_scene_find_node(v, "Eye", &eye), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "Sun", &sun), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "Bulb", &bulb), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "Torch", &torch), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "Amb", &amb), KILN_OK);
    assert_ptr_equal(kiln_scene_node_camera(v, eye), c);
    assert_int_equal(v->light_count, 3);
    assert_int_equal(v->nodes[amb].light, -1);
    const kiln_scene_light *l = kiln_scene_node_light(v, sun);
    assert_non_null(l);
    assert_int_equal(l->type, KILN_LIGHT_DIRECTIONAL);
    assert_true(l->intensity == 0.5f && l->color[0] == 1.0f && l->color[1] == 0.5f &&
                l->color[2] == 0.25f);
    l = kiln_scene_node_light(v, bulb);
    assert_non_null(l);
    assert_int_equal(l->type, KILN_LIGHT_POINT);
    assert_true(l->intensity == 2.0f && l->color[0] == 1.0f && l->color[1] == 0.5f &&
                l->color[2] == 0.5f && l->range == 0.0f);
    l = kiln_scene_node_light(v, torch);
    assert_non_null(l);
    assert_int_equal(l->type, KILN_LIGHT_SPOT);
    assert_true(l->intensity == 1.0f && l->color[0] == 0.0f && l->color[1] == 1.0f &&
                l->color[2] == 0.5f);
    assert_true(fabs(l->inner_cone - 40.0 * pi / 180.0) < 1e-6);
    assert_true(l->outer_cone == (float)(pi / 2));
    assert_string_equal(kiln_scene_light_name(v, 2), "Torch");
    release_scene(&h);
    ir_asset_free(&back);
    bytebuf_free(&wire);
    test_import_free(&r);
    free(dir);
}

/* mesh.merge bakes every instance: the triangle once per instance, at
 * node world * T * R * S of the instance (evaluated here in double). */
static void merge_bakes_every_instance(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("scene_objects_merge");
    write_bin(dir);
    char *json = test_json_text("%s", everything_json);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    assert_true(process_merge_asset(&r.asset, &r.diag, "model.gltf"));
    assert_int_equal(r.asset.mesh_count, 1);
    const ir_mesh *merged = &r.asset.meshes[0];
    /* IR order: rig, cam, lamp, trees (3 instances), sun, rocks (2). */
    assert_int_equal(merged->vertex_count, 3 * 5);
    for (uint32_t e = 0; e < 5; e++) {
        double t[3], q[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1};
        uint32_t k = e < 3 ? e : e - 3;
        for (int c = 0; c < 3; c++)
            t[c] = bin_translation[3 * k + c];
        if (e < 3) {
            double length = 0;
            for (int c = 0; c < 4; c++) {
                q[c] = snorm16(bin_rotation[4 * k + c]);
                length += q[c] * q[c];
            }
            for (int c = 0; c < 4; c++)
                q[c] /= sqrt(length);
            for (int c = 0; c < 3; c++)
                sc[c] = bin_scale[3 * k + c];
        }
        double x = q[0], y = q[1], z = q[2], w = q[3];
        const double rot[3][3] = {
            {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
        for (uint32_t v = 0; v < 3; v++) {
            const float *p = bin_triangle + 3 * v;
            for (int row = 0; row < 3; row++) {
                double want = t[row];
                for (int c = 0; c < 3; c++)
                    want += rot[row][c] * sc[c] * p[c];
                double got = merged->positions[3 * (3 * e + v) + (uint32_t)row];
                if (fabs(got - want) > 1e-5)
                    fail_msg("instance %u vertex %u row %d: %g, expected %g", e, v, row, got, want);
            }
        }
    }
    for (uint32_t n = 0; n < r.asset.node_count; n++)
        assert_int_equal(r.asset.nodes[n].instance_count, 0);
    test_import_free(&r);
    free(json);
    free(dir);
}

/* A 3DS file: its camera and light sit away from their node's origin (and the
 * camera looks along +X-Z), so each gets a "_frame" child node carrying that. */
static void put_chunk(bytebuf *out, uint16_t id, const bytebuf *payload) {
    uint32_t size = (uint32_t)(6 + payload->size);
    bytebuf_append(out, &id, 2);
    bytebuf_append(out, &size, 4);
    bytebuf_append(out, payload->data, payload->size);
}

static void put_floats(bytebuf *out, const float *values, size_t count) {
    bytebuf_append(out, values, count * sizeof *values);
}

static void make_3ds(bytebuf *file) {
    bytebuf cam = {0}, cam_chunk = {0}, cam_obj = {0}, light = {0}, color = {0}, color_chunk = {0},
            light_chunk = {0}, light_obj = {0}, verts = {0}, faces = {0}, tri = {0},
            tri_chunk = {0}, mesh_obj = {0}, version = {0}, edit = {0}, edit_chunk = {0},
            main = {0};
    /* camera: position 1 2 3, target 4 2 0, bank 0, lens 35 */
    put_floats(&cam, (const float[8]){1, 2, 3, 4, 2, 0, 0, 35}, 8);
    put_chunk(&cam_chunk, 0x4700, &cam);
    bytebuf_append(&cam_obj, "Cam", 4);
    bytebuf_append(&cam_obj, cam_chunk.data, cam_chunk.size);
    put_floats(&light, (const float[3]){4, 5, 6}, 3);
    put_floats(&color, (const float[3]){1, 0.5f, 0.25f}, 3);
    put_chunk(&color_chunk, 0x0010, &color);
    bytebuf_append(&light, color_chunk.data, color_chunk.size);
    put_chunk(&light_chunk, 0x4600, &light);
    bytebuf_append(&light_obj, "Lamp", 5);
    bytebuf_append(&light_obj, light_chunk.data, light_chunk.size);
    uint16_t three = 3, one = 1;
    bytebuf_append(&verts, &three, 2);
    put_floats(&verts, bin_triangle, 9);
    bytebuf_append(&faces, &one, 2);
    bytebuf_append(&faces, (const uint16_t[4]){0, 1, 2, 0}, 8);
    put_chunk(&tri, 0x4110, &verts);
    put_chunk(&tri, 0x4120, &faces);
    put_chunk(&tri_chunk, 0x4100, &tri);
    bytebuf_append(&mesh_obj, "Tri", 4);
    bytebuf_append(&mesh_obj, tri_chunk.data, tri_chunk.size);
    bytebuf_append(&version, &(uint32_t){3}, 4);
    put_chunk(&edit, 0x3D3E, &version);
    put_chunk(&edit, 0x4000, &cam_obj);
    put_chunk(&edit, 0x4000, &light_obj);
    put_chunk(&edit, 0x4000, &mesh_obj);
    put_chunk(&main, 0x0002, &version);
    put_chunk(&edit_chunk, 0x3D3D, &edit);
    bytebuf_append(&main, edit_chunk.data, edit_chunk.size);
    memset(file, 0, sizeof *file);
    put_chunk(file, 0x4D4D, &main);
    bytebuf *all[] = {&cam,         &cam_chunk, &cam_obj, &light,      &color, &color_chunk,
                      &light_chunk, &light_obj, &verts,   &faces,      &tri,   &tri_chunk,
                      &mesh_obj,    &version,   &edit,    &edit_chunk, &main};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        bytebuf_free(all[i]);
}

/* m * (x, y, z, w), column-major. */
static void transform4(const float *m, const double v[4], double out[3]) {
    for (int r = 0; r < 3; r++)
        out[r] = m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * v[3];
}

static void assimp_frames_place_cameras_and_lights(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("scene_objects_3ds");
    bytebuf file;
    make_3ds(&file);
    test_import r;
    test_import_bytes(&r, import_assimp, dir, "cam.3ds", file.data, file.size);
    test_import_expect_ok(&r);
    const char *messages = test_import_messages(&r);
    assert_non_null(strstr(messages, "camera 'Cam' has no aspect ratio"));
    assert_non_null(strstr(messages, "light 'Lamp': attenuation constants (constant 0, linear 1, "
                                     "quadratic 0) are not cooked"));
    held_scene h;
    hold_scene(&h, &r.asset);
    const kiln_scene_view *v = &h.view;
    uint32_t cam, cam_frame, lamp, lamp_frame;
    assert_int_equal(kiln_scene_find_node(v, "Cam", &cam), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "Cam_frame", &cam_frame), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "Lamp", &lamp), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "Lamp_frame", &lamp_frame), KILN_OK);
    assert_int_equal(v->hierarchy[cam_frame].parent, (int32_t)cam);
    assert_int_equal(v->hierarchy[lamp_frame].parent, (int32_t)lamp);
    assert_int_equal(v->nodes[cam].camera, -1);
    assert_int_equal(v->nodes[cam_frame].camera, 0);
    assert_int_equal(v->nodes[lamp_frame].light, 0);
    assert_int_equal(v->nodes[cam_frame].source, -1);
    /* 3DS lens 35 mm: assimp's horizontal angle, used as the vertical one. */
    assert_true(fabs(v->cameras[0].yfov - 0.610865235) < 1e-6);
    assert_true(v->lights[0].type == KILN_LIGHT_POINT && v->lights[0].intensity == 1.0f &&
                v->lights[0].color[1] == 0.5f && v->lights[0].color[2] == 0.25f);
    size_t size = kiln_scene_instance_size(v);
    void *memory;
    assert_int_equal(posix_memalign(&memory, 16, size), 0);
    kiln_scene_instance inst;
    kiln_error err;
    assert_int_equal(kiln_scene_instance_init(&inst, v, memory, size, &err), KILN_OK);
    /* In the parent's space: the camera at (1, 2, 3) looking along (3, 0, -3)
     * with +Y up; the lamp at (4, 5, 6). */
    const float *parent = kiln_scene_world(&inst, cam), *frame = kiln_scene_world(&inst, cam_frame);
    const double s = sqrt(0.5);
    const struct {
        double local[4], frame[4];
    } pairs[] = {
        {{1, 2, 3, 1}, {0, 0, 0, 1}},   /* position */
        {{s, 0, -s, 0}, {0, 0, -1, 0}}, /* forward: the frame's -Z */
        {{0, 1, 0, 0}, {0, 1, 0, 0}},   /* up */
    };
    for (size_t k = 0; k < 3; k++) {
        double want[3], got[3];
        transform4(parent, pairs[k].local, want);
        transform4(frame, pairs[k].frame, got);
        for (int c = 0; c < 3; c++)
            if (fabs(got[c] - want[c]) > 1e-5)
                fail_msg("camera frame %zu axis %d: %g, expected %g", k, c, got[c], want[c]);
    }
    double want[3], got[3];
    transform4(kiln_scene_world(&inst, lamp), (const double[4]){4, 5, 6, 1}, want);
    transform4(kiln_scene_world(&inst, lamp_frame), (const double[4]){0, 0, 0, 1}, got);
    for (int c = 0; c < 3; c++)
        assert_true(fabs(got[c] - want[c]) < 1e-5);
    free(memory);
    release_scene(&h);
    test_import_free(&r);
    bytebuf_free(&file);
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gltf_cameras_lights_instances_round_trip),
        cmocka_unit_test(corpus_cameras_match_the_json),
        cmocka_unit_test(gltf_refuses_bad_cameras_lights_and_instances),
        cmocka_unit_test(reader_enforces_camera_light_instance_rules),
        cmocka_unit_test(projection_maps_the_frustum_corners),
        cmocka_unit_test(assimp_cameras_and_lights),
        cmocka_unit_test(merge_bakes_every_instance),
        cmocka_unit_test(assimp_frames_place_cameras_and_lights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
