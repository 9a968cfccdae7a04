/* scene.scale and scene.up: the conversion C = s·R (R: Z-up to Y-up, -90
 * degrees about X) in front of the roots. On a corpus model (BoxAnimated: a
 * hierarchy with a clip) every world matrix of the cooked scene equals
 * C times the one cooked without the settings, C written out here as its
 * matrix; on an IR asset a root's TRS, matrix and clip keys (LINEAR and
 * CUBICSPLINE) are converted, a child's are not; keys a root shares with
 * another channel, and a scale that is not a positive number, are errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

/* C for scale s, Z up: rows (s 0 0), (0 0 s), (0 -s 0): y' = s z, z' = -s y. */
static void conversion(float s, float c[16]) {
    memset(c, 0, 16 * sizeof *c);
    c[0] = s;      /* column 0: x -> x */
    c[4 + 2] = -s; /* column 1: y -> -z */
    c[8 + 1] = s;  /* column 2: z -> y */
    c[15] = 1.0f;
}

static void mul(const float a[16], const float b[16], float out[16]) {
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            double sum = 0;
            for (int k = 0; k < 4; k++)
                sum += (double)a[k * 4 + row] * b[col * 4 + k];
            out[col * 4 + row] = (float)sum;
        }
}

static void expect_near(const float *got, const float *want, int count, const char *what) {
    for (int i = 0; i < count; i++)
        if (fabsf(got[i] - want[i]) > 1e-5f * (1.0f + fabsf(want[i])))
            fail_msg("%s[%d]: %g, expected %g", what, i, got[i], want[i]);
}

typedef struct world {
    kiln_file file;
    kiln_scene_view view;
    kiln_scene_instance instance;
    void *memory;
} world;

static void open_world(const char *path, world *w) {
    kiln_error err;
    if (kiln_file_map(&w->file, path, 0, &err) != KILN_OK ||
        kiln_scene_view_get(&w->file, 0, &w->view, &err) != KILN_OK)
        fail_msg("%s", err.message);
    size_t size = kiln_scene_instance_size(&w->view);
    w->memory = aligned_alloc(16, (size + 15) / 16 * 16);
    assert_int_equal(kiln_scene_instance_init(&w->instance, &w->view, w->memory, size, &err),
                     KILN_OK);
}

static void close_world(world *w) {
    free(w->memory);
    kiln_file_close(&w->file);
}

static void cook_box(const char *root, const char *out, const cook_settings *settings) {
    cook_asset_result result = {0};
    cook_request request = {.input_root = root,
                            .output_root = out,
                            .source_path = "BoxAnimated.gltf",
                            .importer = cook_registry_match("BoxAnimated.gltf"),
                            .settings = settings};
    if (!cook_asset(&request, &result))
        fail_msg("%s", result.diag.text.data ? (const char *)result.diag.text.data : "");
    cook_asset_result_free(&result);
}

static void corpus_world_matrices_are_converted(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_world_matrices_are_converted"))
        skip();
    char *root = test_make_temp_dir("scene_units");
    const char *files[] = {"BoxAnimated.gltf", "BoxAnimated0.bin"};
    for (int i = 0; i < 2; i++) {
        char from[128];
        snprintf(from, sizeof from, "gltf/BoxAnimated/glTF/%s", files[i]);
        char *src = test_path_join(test_corpus_dir(), from);
        size_t size;
        uint8_t *bytes = test_read_file(src, &size);
        char *dst = test_path_join(root, files[i]);
        test_write_file(dst, bytes, size);
        free(bytes);
        free(src);
        free(dst);
    }
    char *plain = test_path_join(root, "plain"), *converted = test_path_join(root, "converted");
    mkdir(plain, 0755);
    mkdir(converted, 0755);
    cook_settings settings;
    cook_settings_default(&settings);
    cook_box(root, plain, &settings);
    snprintf(settings.scene_scale, sizeof settings.scene_scale, "0.01");
    settings.scene_up = COOK_UP_Z;
    cook_box(root, converted, &settings);
    char *a_path = test_path_join(plain, "BoxAnimated.kscene");
    char *b_path = test_path_join(converted, "BoxAnimated.kscene");
    world a, b;
    open_world(a_path, &a);
    open_world(b_path, &b);
    assert_int_equal(a.view.node_count, b.view.node_count);
    assert_true(a.view.node_count >= 2);
    float c[16];
    conversion(0.01f, c);
    for (uint32_t n = 0; n < a.view.node_count; n++) {
        float want[16];
        mul(c, kiln_scene_world(&a.instance, n), want);
        expect_near(kiln_scene_world(&b.instance, n), want, 16, "world");
    }
    close_world(&a);
    close_world(&b);
    /* A scale that is not a positive number fails the model, naming it. */
    snprintf(settings.scene_scale, sizeof settings.scene_scale, "-2");
    cook_asset_result result = {0};
    cook_request request = {.input_root = root,
                            .output_root = converted,
                            .source_path = "BoxAnimated.gltf",
                            .importer = cook_registry_match("BoxAnimated.gltf"),
                            .settings = &settings};
    assert_false(cook_asset(&request, &result));
    assert_non_null(
        strstr((const char *)result.diag.text.data, "scene.scale: '-2' is not a positive number"));
    cook_asset_result_free(&result);
    free(a_path);
    free(b_path);
    free(plain);
    free(converted);
    free(root);
}

/* Two nodes, a root and its child, and one clip: the root's translation
 * (CUBICSPLINE: in-tangent, value, out-tangent) and rotation, the child's
 * translation. */
static void make_asset(ir_asset *asset) {
    memset(asset, 0, sizeof *asset);
    asset->nodes = calloc(2, sizeof *asset->nodes);
    asset->node_count = 2;
    for (int n = 0; n < 2; n++) {
        ir_node_init(&asset->nodes[n]);
        asset->nodes[n].name = cook_strdup(n ? "child" : "root");
        asset->nodes[n].translation[0] = 1.0f;
        asset->nodes[n].translation[1] = 2.0f;
        asset->nodes[n].translation[2] = 3.0f;
        asset->nodes[n].matrix[12] = 1.0f;
        asset->nodes[n].matrix[13] = 2.0f;
        asset->nodes[n].matrix[14] = 3.0f;
    }
    asset->nodes[1].parent = 0;
    asset->animations = calloc(1, sizeof *asset->animations);
    asset->animation_count = 1;
    ir_animation *anim = &asset->animations[0];
    anim->name = cook_strdup("clip");
    anim->samplers = calloc(3, sizeof *anim->samplers);
    anim->sampler_count = 3;
    anim->channels = calloc(3, sizeof *anim->channels);
    anim->channel_count = 3;
    const ir_anim_path paths[3] = {IR_ANIM_TRANSLATION, IR_ANIM_ROTATION, IR_ANIM_TRANSLATION};
    for (uint32_t i = 0; i < 3; i++) {
        ir_anim_sampler *s = &anim->samplers[i];
        s->key_count = 1;
        s->components = paths[i] == IR_ANIM_ROTATION ? 4 : 3;
        s->interpolation = i == 0 ? IR_INTERP_CUBICSPLINE : IR_INTERP_LINEAR;
        s->times = calloc(1, sizeof *s->times);
        size_t values = (size_t)s->components * (i == 0 ? 3 : 1);
        s->values = calloc(values, sizeof *s->values);
        for (size_t v = 0; v < values; v++)
            s->values[v] = (float)(v % 3 + 1); /* 1 2 3 per triple */
        if (paths[i] == IR_ANIM_ROTATION) {
            memset(s->values, 0, 4 * sizeof *s->values);
            s->values[3] = 1.0f; /* identity */
        }
        anim->channels[i] =
            (ir_anim_channel){.node = i < 2 ? 0u : 1u, .path = paths[i], .sampler = i};
    }
}

static void roots_and_their_keys_are_converted_children_not(void **state) {
    (void)state;
    ir_asset asset;
    make_asset(&asset);
    scene_units units = {.scale = 2.0f, .z_up = true};
    char problem[256];
    assert_true(process_scene_units(&asset, &units, problem, sizeof problem));
    const float t_root[3] = {2, 6, -4}; /* 2 * (1, 3, -2) */
    const float t_child[3] = {1, 2, 3};
    expect_near(asset.nodes[0].translation, t_root, 3, "root translation");
    expect_near(asset.nodes[1].translation, t_child, 3, "child translation");
    expect_near(asset.nodes[0].matrix + 12, t_root, 3, "root matrix translation");
    const float q[4] = {-0.70710678f, 0, 0, 0.70710678f}; /* -90 degrees about X */
    expect_near(asset.nodes[0].rotation, q, 4, "root rotation");
    const float s_root[3] = {2, 2, 2};
    expect_near(asset.nodes[0].scale, s_root, 3, "root scale");
    /* The root's linear part: C itself (the root was the identity). */
    float c[16];
    conversion(2.0f, c);
    expect_near(asset.nodes[0].matrix, c, 12, "root matrix");
    const ir_animation *anim = &asset.animations[0];
    for (int k = 0; k < 3; k++) /* in-tangent, value, out-tangent */
        expect_near(anim->samplers[0].values + 3 * k, t_root, 3, "root translation key");
    expect_near(anim->samplers[1].values, q, 4, "root rotation key");
    expect_near(anim->samplers[2].values, t_child, 3, "child translation key");
    ir_asset_free(&asset);
    /* A root's keys shared with the child's channel cannot be converted apart. */
    make_asset(&asset);
    asset.animations[0].channels[2].sampler = 0;
    assert_false(process_scene_units(&asset, &units, problem, sizeof problem));
    assert_non_null(strstr(problem, "root node 'root' shares its keys"));
    ir_asset_free(&asset);
    /* Scale 1 and Y up: nothing to do, nothing touched. */
    make_asset(&asset);
    scene_units none = {.scale = 1.0f};
    assert_true(process_scene_units(&asset, &none, problem, sizeof problem));
    const float t[3] = {1, 2, 3};
    expect_near(asset.nodes[0].translation, t, 3, "unconverted");
    ir_asset_free(&asset);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_world_matrices_are_converted),
        cmocka_unit_test(roots_and_their_keys_are_converted_children_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
