/* scene_fixture.c — what the scene tests share (scene_fixture.h). */
#include "scene_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The context write_asset writes with: default settings, a glTF source. */
static cook_settings test_settings;

static cook_context test_context(const char *source_path) {
    cook_settings_default(&test_settings);
    cook_context ctx = {.input_root = ".",
                        .source_path = source_path,
                        .ref = "models/truck",
                        .source = (const uint8_t *)"{}",
                        .source_size = 2,
                        .settings = &test_settings};
    return ctx;
}

void instance_open(held_instance *h, const kiln_scene_view *view) {
    size_t size = kiln_scene_instance_size(view);
    assert_true(size > 0);
    assert_int_equal(posix_memalign(&h->memory, 16, size), 0);
    kiln_error err;
    kiln_result r = kiln_scene_instance_init(&h->instance, view, h->memory, size, &err);
    if (r != KILN_OK)
        fail_msg("instance: %s", err.message);
}

void instance_close(held_instance *h) {
    free(h->memory);
}

static ir_node *add_node(ir_asset *asset, const char *name, int32_t parent, int32_t mesh,
                         int32_t source) {
    ir_node *node = &asset->nodes[asset->node_count++];
    ir_node_init(node);
    node->name = cook_strdup(name);
    node->parent = parent;
    node->mesh = mesh;
    node->source = source;
    return node;
}

void small_asset(ir_asset *asset) {
    memset(asset, 0, sizeof *asset);
    asset->nodes = calloc(6, sizeof *asset->nodes);
    asset->meshes = calloc(2, sizeof *asset->meshes);
    assert_non_null(asset->nodes);
    assert_non_null(asset->meshes);
    asset->mesh_count = 2;
    test_node_set_trs(add_node(asset, "A", -1, -1, 0), 1, 0, 0, 0.5f, 2.0f);
    test_node_set_trs(add_node(asset, "B", 0, 0, 1), 0, 1, 0, -0.25f, 1.0f);
    test_node_set_trs(add_node(asset, "C", -1, 1, 2), 0, 0, 3, 1.0f, 1.0f);
    test_node_set_trs(add_node(asset, "D", 1, 0, 3), 2, 0, 0, 0.0f, 0.5f);
    test_node_set_trs(add_node(asset, "E", 0, -1, 4), 0, 0, 1, 0.1f, 1.0f);
    test_node_set_trs(add_node(asset, "F", 2, -1, 5), 0, 2, 0, 0.0f, -1.0f);
    asset->nodes[1].skin = 0;
    asset->nodes[4].extras = cook_strdup("{\"tag\":\"door\",\"n\":[1,2]}");
    asset->scenes = calloc(2, sizeof *asset->scenes);
    assert_non_null(asset->scenes);
    asset->scene_count = 2;
    asset->default_scene = 1;
    asset->scenes[0].name = cook_strdup("first");
    asset->scenes[0].roots = malloc(2 * sizeof(uint32_t));
    asset->scenes[0].roots[0] = 2; /* C, A: stored increasing */
    asset->scenes[0].roots[1] = 0;
    asset->scenes[0].root_count = 2;
    asset->scenes[1].name = cook_strdup("second");
    asset->scenes[1].roots = malloc(sizeof(uint32_t));
    asset->scenes[1].roots[0] = 2;
    asset->scenes[1].root_count = 1;
}

void write_asset(const ir_asset *asset, uint64_t material_table, bytebuf *bytes) {
    cook_context ctx = test_context("models/truck.gltf");
    uint64_t *refs = malloc((asset->mesh_count + 1) * sizeof *refs);
    assert_non_null(refs);
    for (uint32_t m = 0; m < asset->mesh_count; m++)
        refs[m] = 0x1000 + m;
    memset(bytes, 0, sizeof *bytes);
    assert_true(write_kscene(&ctx, asset, refs, material_table, "gltf", bytes));
    free(refs);
}

void expect_close(const float *got, const double *want, double tolerance, const char *what) {
    for (int k = 0; k < 16; k++) {
        double limit = tolerance * fmax(1.0, fabs(want[k]));
        if (!(fabs(got[k] - want[k]) <= limit))
            fail_msg("%s: element %d is %.9g, expected %.9g", what, k, (double)got[k], want[k]);
    }
}

void random_asset(ir_asset *asset, uint32_t n, uint32_t seed) {
    memset(asset, 0, sizeof *asset);
    asset->nodes = calloc(n, sizeof *asset->nodes);
    assert_non_null(asset->nodes);
    srand(seed);
    for (uint32_t i = 0; i < n; i++) {
        int32_t parent = i == 0 || rand() % 16 == 0 ? -1 : rand() % (int32_t)i;
        char name[32];
        snprintf(name, sizeof name, "n%u", i);
        ir_node *node = add_node(asset, name, parent, -1, (int32_t)i);
        for (int k = 0; k < 3; k++) {
            node->translation[k] = (float)(rand() % 2000 - 1000) / 500.0f;
            node->scale[k] = 0.5f + (float)(rand() % 100) / 100.0f;
        }
        if (rand() % 8 == 0)
            node->scale[rand() % 3] *= -1.0f;
        double q[4], length = 0;
        for (int k = 0; k < 4; k++) {
            q[k] = (double)(rand() % 2001 - 1000);
            length += q[k] * q[k];
        }
        length = sqrt(length) + 1e-9;
        for (int k = 0; k < 4; k++)
            node->rotation[k] = (float)(q[k] / length);
    }
}

void recompute_world(const kiln_scene_view *v, const kiln_scene_transform *local, float *world) {
    for (uint32_t i = 0; i < v->node_count; i++) {
        float m[16], *out = world + (size_t)i * 16;
        kiln_scene_compose(&local[i], m);
        int32_t parent = v->hierarchy[i].parent;
        if (parent < 0) {
            memcpy(out, m, sizeof m);
            continue;
        }
        const float *p = world + (size_t)parent * 16;
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 3; r++)
                out[c * 4 + r] = p[r] * m[c * 4] + p[4 + r] * m[c * 4 + 1] +
                                 p[8 + r] * m[c * 4 + 2] + (c == 3 ? p[12 + r] : 0.0f);
            out[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
        }
    }
}

kiln_scene_transform *rest_pose(const kiln_scene_view *v) {
    kiln_scene_transform *locals = malloc((size_t)v->node_count * sizeof *locals + 1);
    assert_non_null(locals);
    memcpy(locals, v->transforms, (size_t)v->node_count * sizeof *locals);
    return locals;
}

void expect_locals(kiln_scene_instance *instance, const kiln_scene_transform *locals) {
    for (uint32_t i = 0; i < instance->node_count; i++) {
        const kiln_scene_transform *got = kiln_scene_local(instance, i);
        assert_non_null(got);
        if (memcmp(got, &locals[i], sizeof *got) != 0)
            fail_msg("node %u: kiln_scene_local differs from the transform set", i);
    }
}

uint32_t count_subtrees(const kiln_scene_view *v, uint8_t *marked) {
    uint32_t count = 0;
    for (uint32_t i = 0; i < v->node_count; i++) { /* parents first */
        int32_t parent = v->hierarchy[i].parent;
        marked[i] |= parent >= 0 && marked[parent];
        count += marked[i];
    }
    return count;
}
