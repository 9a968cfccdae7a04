/* test_scene.c — scenes (docs/formats/kscene.md): the writer and the runtime
 * view round trip, every reader rule refused on hand-damaged files (and
 * truncations and bit flips survived), the instance's dirty-subtree update
 * against a full recompute, and global transforms of the corpus's glTF models
 * against an independent recursive evaluation of their JSON. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_import.h"
#include "test_reference.h"

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

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

/* An instance in its own aligned block. */
typedef struct held_instance {
    void *memory;
    kiln_scene_instance instance;
} held_instance;

static void instance_open(held_instance *h, const kiln_scene_view *view) {
    size_t size = kiln_scene_instance_size(view);
    assert_true(size > 0);
    assert_int_equal(posix_memalign(&h->memory, 16, size), 0);
    kiln_error err;
    kiln_result r = kiln_scene_instance_init(&h->instance, view, h->memory, size, &err);
    if (r != KILN_OK)
        fail_msg("instance: %s", err.message);
}

static void instance_close(held_instance *h) {
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

/* IR order (parents first, not depth-first): A, B(A), C, D(B), E(A), F(C).
 * Depth-first the file holds A B D E C F. */
static void small_asset(ir_asset *asset) {
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

static void write_asset(const ir_asset *asset, uint64_t material_table, bytebuf *bytes) {
    cook_context ctx = test_context("models/truck.gltf");
    uint64_t *refs = malloc((asset->mesh_count + 1) * sizeof *refs);
    assert_non_null(refs);
    for (uint32_t m = 0; m < asset->mesh_count; m++)
        refs[m] = 0x1000 + m;
    memset(bytes, 0, sizeof *bytes);
    assert_true(write_kscene(&ctx, asset, refs, material_table, "gltf", bytes));
    free(refs);
}

static void expect_close(const float *got, const double *want, double tolerance, const char *what) {
    for (int k = 0; k < 16; k++) {
        double limit = tolerance * fmax(1.0, fabs(want[k]));
        if (!(fabs(got[k] - want[k]) <= limit))
            fail_msg("%s: element %d is %.9g, expected %.9g", what, k, (double)got[k], want[k]);
    }
}

/* ---------------------------------------------------------------------------
 * Writer and view
 * ------------------------------------------------------------------------- */

static void scene_round_trips(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    bytebuf bytes;
    write_asset(&asset, 0x77, &bytes);
    test_held_scene held;
    kiln_error err;
    kiln_result r = test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_VERIFY_CHECKSUM, &err);
    if (r != KILN_OK)
        fail_msg("%s", err.message);
    const kiln_scene_view *v = &held.view;
    assert_int_equal(held.file.kind, KILN_KIND_SCENE);
    assert_int_equal(v->node_count, 6);
    assert_int_equal(v->level_count, 3);
    /* Depth-first pre-order: A B D E C F, each subtree a range. */
    const char *names[] = {"A", "B", "D", "E", "C", "F"};
    const int32_t sources[] = {0, 1, 3, 4, 2, 5};
    const int32_t parents[] = {-1, 0, 1, 0, -1, 4};
    const uint32_t subtree_end[] = {4, 3, 3, 4, 6, 6};
    const int32_t first_child[] = {1, 2, -1, -1, 5, -1};
    const int32_t next_sibling[] = {-1, 3, -1, -1, -1, -1};
    const uint32_t depth[] = {0, 1, 2, 1, 0, 1};
    for (uint32_t i = 0; i < 6; i++) {
        assert_string_equal(kiln_scene_node_name(v, i), names[i]);
        assert_int_equal(v->nodes[i].source, sources[i]);
        assert_int_equal(v->hierarchy[i].parent, parents[i]);
        assert_int_equal(v->hierarchy[i].subtree_end, subtree_end[i]);
        assert_int_equal(v->hierarchy[i].first_child, first_child[i]);
        assert_int_equal(v->hierarchy[i].next_sibling, next_sibling[i]);
        assert_int_equal(v->hierarchy[i].depth, depth[i]);
        assert_int_equal(v->nodes[i].skin, -1);
        assert_int_equal(v->nodes[i].camera, -1);
        assert_int_equal(v->nodes[i].light, -1);
    }
    /* Meshes, the material table, the skinned flag. */
    assert_int_equal(v->desc->mesh_count, 2);
    assert_true(v->meshes[0] == 0x1000 && v->meshes[1] == 0x1001);
    assert_int_equal(v->desc->material_count, 1);
    assert_true(v->materials[0] == 0x77);
    assert_int_equal(v->nodes[1].mesh, 0); /* B */
    assert_int_equal(v->nodes[1].materials, 0);
    assert_int_equal(v->nodes[1].flags, KILN_SCENE_NODE_FLAG_SKINNED);
    assert_int_equal(v->nodes[4].mesh, 1); /* C */
    assert_int_equal(v->nodes[0].mesh, -1);
    assert_int_equal(v->nodes[0].materials, -1);
    uint32_t cursor = 0, node, drawn[3], count = 0;
    while (kiln_scene_next_mesh_node(v, &cursor, &node))
        drawn[count++] = node;
    assert_int_equal(count, 3);
    assert_true(drawn[0] == 1 && drawn[1] == 2 && drawn[2] == 4); /* B, D, C */
    /* Extras, names, scenes. */
    size_t length;
    const char *extras = kiln_scene_node_extras(v, 3, &length);
    assert_non_null(extras);
    assert_string_equal(extras, "{\"tag\":\"door\",\"n\":[1,2]}");
    assert_int_equal(length, strlen(extras));
    assert_null(kiln_scene_node_extras(v, 0, &length));
    assert_int_equal(length, 0);
    assert_int_equal(kiln_scene_find_node(v, "E", &node), KILN_OK);
    assert_int_equal(node, 3);
    assert_int_equal(kiln_scene_find_node(v, "Z", &node), KILN_ERR_NOT_FOUND);
    assert_int_equal(kiln_scene_find_node(v, "", &node), KILN_ERR_NOT_FOUND);
    assert_string_equal(kiln_scene_node_name(v, 99), "");
    assert_int_equal(v->scene_count, 2);
    assert_int_equal(v->desc->default_scene, 1);
    assert_string_equal(kiln_scene_name(v, 0), "first");
    assert_string_equal(kiln_scene_name(v, 1), "second");
    assert_int_equal(v->scenes[0].root_count, 2);
    assert_int_equal(v->roots[v->scenes[0].root_offset], 0);
    assert_int_equal(v->roots[v->scenes[0].root_offset + 1], 4);
    assert_int_equal(v->roots[v->scenes[1].root_offset], 4);
    /* Transforms: unit rotations, values kept. */
    const kiln_scene_transform *a = &v->transforms[0];
    assert_true(a->translation[0] == 1.0f && a->scale[1] == 2.0f);
    assert_true(fabsf(a->rotation[2] - sinf(0.25f)) < 1e-7f);
    assert_true(v->transforms[5].scale[0] == -1.0f); /* F mirrors */
    /* Provenance. */
    size_t meta_size;
    const char *meta = kiln_file_metadata(&held.file, &meta_size);
    assert_non_null(meta);
    assert_non_null(strstr(meta, "\"source\":\"models/truck.gltf\""));
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* A source without scenes gets one of every root, named after its file. */
static void scene_without_source_scenes(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    for (uint32_t s = 0; s < asset.scene_count; s++) {
        free(asset.scenes[s].name);
        free(asset.scenes[s].roots);
    }
    free(asset.scenes);
    asset.scenes = NULL;
    asset.scene_count = 0;
    asset.default_scene = 0;
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_DEEP, &err), KILN_OK);
    assert_int_equal(held.view.scene_count, 1);
    assert_int_equal(held.view.desc->default_scene, 0);
    assert_string_equal(kiln_scene_name(&held.view, 0), "truck");
    assert_int_equal(held.view.scenes[0].root_count, 2);
    assert_int_equal(held.view.desc->material_count, 0);
    assert_int_equal(held.view.nodes[2].materials, -1);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* The writer never writes what the reader refuses: non-finite values and a
 * non-unit rotation are repaired. */
static void scene_writer_repairs_transforms(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    asset.nodes[0].translation[1] = NAN;
    asset.nodes[1].scale[2] = INFINITY;
    asset.nodes[2].rotation[0] = 3.0f;
    asset.nodes[3].rotation[0] = asset.nodes[3].rotation[1] = asset.nodes[3].rotation[2] =
        asset.nodes[3].rotation[3] = 0.0f;
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    kiln_result r = test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_DEEP, &err);
    if (r != KILN_OK)
        fail_msg("%s", err.message);
    assert_true(held.view.transforms[0].translation[1] == 0.0f);
    assert_true(held.view.transforms[2].rotation[3] == 1.0f); /* D: identity */
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* ---------------------------------------------------------------------------
 * Reader rules: one damage each, in place (opened without the checksum)
 * ------------------------------------------------------------------------- */

typedef struct damage {
    const char *name;
    uint32_t chunk; /* fourcc of the chunk to edit */
    size_t offset;  /* byte offset inside it */
    uint32_t value; /* 32-bit value written there */
    kiln_result expected;
    const char *message;
} damage;

#define HIER(node, field)                                                                          \
    ((node) * sizeof(kiln_scene_hierarchy) + offsetof(kiln_scene_hierarchy, field))
#define NODE(node, field) ((node) * sizeof(kiln_scene_node) + offsetof(kiln_scene_node, field))
#define DESC(field) offsetof(kiln_scene_desc, field)

static void scene_reader_enforces_every_rule(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    bytebuf bytes;
    write_asset(&asset, 0x77, &bytes);
    union {
        float f;
        uint32_t u;
    } nan_bits = {.f = NAN}, half = {.f = 0.5f};
    const damage damages[] = {
        {"R5 flags", KILN_CHUNK_SCENE_DESC, DESC(flags), 1, KILN_ERR_UNSUPPORTED, "flags"},
        {"R5 reserved", KILN_CHUNK_SCENE_DESC, DESC(reserved), 1, KILN_ERR_CORRUPT, "reserved"},
        {"R5 default scene", KILN_CHUNK_SCENE_DESC, DESC(default_scene), 2, KILN_ERR_CORRUPT,
         "default scene"},
        {"R5 levels", KILN_CHUNK_SCENE_DESC, DESC(level_count), 7, KILN_ERR_CORRUPT, "levels"},
        {"R6 node count", KILN_CHUNK_SCENE_DESC, DESC(node_count), 5, KILN_ERR_CORRUPT,
         "SHIE chunk"},
        {"R6 mesh count", KILN_CHUNK_SCENE_DESC, DESC(mesh_count), 3, KILN_ERR_CORRUPT,
         "SMSH chunk"},
        {"R6 huge count", KILN_CHUNK_SCENE_DESC, DESC(root_count), UINT32_MAX, KILN_ERR_CORRUPT,
         "SROT chunk"},
        {"R5 levels beyond the deepest", KILN_CHUNK_SCENE_DESC, DESC(level_count), 4,
         KILN_ERR_CORRUPT, "deepest node has depth 2"},
        {"R5 levels below the deepest", KILN_CHUNK_SCENE_DESC, DESC(level_count), 2,
         KILN_ERR_CORRUPT, "beyond the 2 levels"},
        {"R7 subtree past the nodes", KILN_CHUNK_SCENE_HIERARCHY, HIER(4, subtree_end), 7,
         KILN_ERR_CORRUPT, "subtree end 7"},
        {"R7 empty subtree", KILN_CHUNK_SCENE_HIERARCHY, HIER(2, subtree_end), 2, KILN_ERR_CORRUPT,
         "subtree end 2"},
        {"R7 subtree outside the parent's", KILN_CHUNK_SCENE_HIERARCHY, HIER(2, subtree_end), 4,
         KILN_ERR_CORRUPT, "not inside its parent"},
        {"R8 first child not a child", KILN_CHUNK_SCENE_HIERARCHY, HIER(5, parent), (uint32_t)-1,
         KILN_ERR_CORRUPT, "which is not its child"},
        {"R8 next node not a sibling", KILN_CHUNK_SCENE_HIERARCHY, HIER(3, parent), 1,
         KILN_ERR_CORRUPT, "after the subtree of node 1"},
        {"R8 next root not a root", KILN_CHUNK_SCENE_HIERARCHY, HIER(0, subtree_end), 3,
         KILN_ERR_CORRUPT, "after the subtree of node 0"},
        {"R8 root depth", KILN_CHUNK_SCENE_HIERARCHY, HIER(4, depth), 1, KILN_ERR_CORRUPT,
         "root node"},
        {"R8 depth", KILN_CHUNK_SCENE_HIERARCHY, HIER(2, depth), 1, KILN_ERR_CORRUPT,
         "depth 1, its parent"},
        {"R8 cycle: own parent", KILN_CHUNK_SCENE_HIERARCHY, HIER(0, parent), 0, KILN_ERR_CORRUPT,
         "not an earlier node"},
        {"R8 cycle: later parent", KILN_CHUNK_SCENE_HIERARCHY, HIER(0, parent), 5, KILN_ERR_CORRUPT,
         "not an earlier node"},
        {"R8 parent two levels up", KILN_CHUNK_SCENE_HIERARCHY, HIER(2, parent), 0,
         KILN_ERR_CORRUPT, "node 1 subtree holds node 2, which is not its child"},
        {"R8 first child past the end", KILN_CHUNK_SCENE_HIERARCHY, HIER(1, first_child), 6,
         KILN_ERR_CORRUPT, "first child 6, expected 2"},
        {"R8 first child without children", KILN_CHUNK_SCENE_HIERARCHY, HIER(3, first_child), 5,
         KILN_ERR_CORRUPT, "first child"},
        {"R8 sibling", KILN_CHUNK_SCENE_HIERARCHY, HIER(3, next_sibling), 4, KILN_ERR_CORRUPT,
         "sibling"},
        {"R8 reserved", KILN_CHUNK_SCENE_HIERARCHY, HIER(4, reserved), 1, KILN_ERR_CORRUPT,
         "reserved"},
        {"R9 NaN", KILN_CHUNK_SCENE_TRANSFORMS, 3 * sizeof(kiln_scene_transform) + 4, nan_bits.u,
         KILN_ERR_CORRUPT, "non-finite"},
        {"R9 rotation", KILN_CHUNK_SCENE_TRANSFORMS,
         2 * sizeof(kiln_scene_transform) + offsetof(kiln_scene_transform, rotation) + 12, half.u,
         KILN_ERR_CORRUPT, "unit quaternion"},
        {"R10 mesh", KILN_CHUNK_SCENE_NODES, NODE(2, mesh), 2, KILN_ERR_CORRUPT, "out of range"},
        {"R10 materials", KILN_CHUNK_SCENE_NODES, NODE(2, materials), 1, KILN_ERR_CORRUPT,
         "out of range"},
        {"R10 camera", KILN_CHUNK_SCENE_NODES, NODE(0, camera), 0, KILN_ERR_CORRUPT,
         "out of range"},
        {"R10 source", KILN_CHUNK_SCENE_NODES, NODE(0, source), (uint32_t)-2, KILN_ERR_CORRUPT,
         "out of range"},
        {"R10 flags", KILN_CHUNK_SCENE_NODES, NODE(0, flags), 4, KILN_ERR_UNSUPPORTED, "flags"},
        {"R10 name", KILN_CHUNK_SCENE_NODES, NODE(1, name_length), 1000, KILN_ERR_CORRUPT,
         "string table"},
        {"R10 name with a NUL", KILN_CHUNK_SCENE_NODES, NODE(1, name_length), 3, KILN_ERR_CORRUPT,
         "string table"},
        {"R10 extras offset", KILN_CHUNK_SCENE_NODES, NODE(0, extras_offset), 1, KILN_ERR_CORRUPT,
         "string table"},
        {"R11 mesh ref", KILN_CHUNK_SCENE_MESHES, 0, 0, KILN_ERR_CORRUPT, "mesh ref 0 is 0"},
        {"R12 root not a root", KILN_CHUNK_SCENE_ROOTS, 0, 2, KILN_ERR_CORRUPT, "root"},
        {"R12 roots out of order", KILN_CHUNK_SCENE_ROOTS, 0, 4, KILN_ERR_CORRUPT, "root"},
        {"R12 roots outside", KILN_CHUNK_SCENE_SCENES, 8, 3, KILN_ERR_CORRUPT, "outside SROT"},
    };
    for (size_t d = 0; d < sizeof damages / sizeof damages[0]; d++) {
        const damage *dm = &damages[d];
        test_held_scene held;
        kiln_error err;
        assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
        kiln_chunk chunk;
        assert_int_equal(kiln_file_find_chunk(&held.file, dm->chunk, &chunk), KILN_OK);
        assert_true(dm->offset + 4 <= chunk.size);
        memcpy((uint8_t *)held.block + ((const uint8_t *)chunk.data - held.file.data) + dm->offset,
               &dm->value, 4);
        kiln_result r = kiln_scene_view_get(&held.file, 0, &held.view, &err);
        if (r != dm->expected || strstr(err.message, dm->message) == NULL)
            fail_msg("%s: got %s '%s', expected %s containing '%s'", dm->name, kiln_result_str(r),
                     err.message, kiln_result_str(dm->expected), dm->message);
        test_scene_release(&held);
    }
    /* Kind, version and the descriptor's presence. */
    const struct {
        size_t offset;
        uint32_t value;
        kiln_result expected;
    } header[] = {
        {offsetof(kiln_container_header, kind), KILN_KIND_MESH, KILN_ERR_BAD_MAGIC},
        {offsetof(kiln_container_header, kind_version), 2, KILN_ERR_UNSUPPORTED}, /* depth order */
        {offsetof(kiln_container_header, kind_version), 4, KILN_ERR_UNSUPPORTED},
    };
    for (size_t h = 0; h < 3; h++) {
        uint8_t *copy = malloc(bytes.size);
        memcpy(copy, bytes.data, bytes.size);
        if (h == 0)
            memcpy(copy + header[h].offset, &header[h].value, 4);
        else
            memcpy(copy + header[h].offset, &(uint16_t){(uint16_t)header[h].value}, 2);
        test_held_scene held;
        kiln_error err;
        assert_int_equal(test_scene_hold(&held, copy, bytes.size, 0, &err), header[h].expected);
        test_scene_release(&held);
        free(copy);
    }
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* Every truncation and every single-bit flip: refused or accepted, never a
 * crash or an out-of-bounds read (ASan), and what is accepted updates. */
static void scene_reader_survives_truncation_and_bit_flips(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    bytebuf bytes;
    write_asset(&asset, 0x77, &bytes);
    test_held_scene held;
    kiln_error err;
    for (size_t size = 0; size < bytes.size; size++) {
        kiln_result r = test_scene_hold(&held, bytes.data, size, 0, &err);
        assert_int_not_equal(r, KILN_OK);
        test_scene_release(&held);
    }
    uint8_t *copy = malloc(bytes.size);
    assert_non_null(copy);
    size_t accepted = 0;
    for (size_t bit = 0; bit < bytes.size * 8; bit++) {
        memcpy(copy, bytes.data, bytes.size);
        copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_int_not_equal(
            test_scene_hold(&held, copy, bytes.size, KILN_OPEN_VERIFY_CHECKSUM, &err), KILN_OK);
        test_scene_release(&held);
        if (test_scene_hold(&held, copy, bytes.size, 0, &err) == KILN_OK) {
            accepted++;
            held_instance h;
            instance_open(&h, &held.view);
            for (uint32_t n = 0; n < held.view.node_count; n++)
                assert_int_equal(
                    kiln_scene_set_local(&h.instance, n, &held.view.transforms[n], NULL), KILN_OK);
            kiln_scene_update(&h.instance);
            instance_close(&h);
        }
        test_scene_release(&held);
    }
    assert_true(accepted > 0); /* flips in names, floats, META */
    free(copy);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* ---------------------------------------------------------------------------
 * The instance
 * ------------------------------------------------------------------------- */

/* A random forest of n nodes (parents first), random TRS (some mirrored). */
static void random_asset(ir_asset *asset, uint32_t n, uint32_t seed) {
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

/* Global transforms from the instance equal a straightforward recursive
 * product of the IR's local transforms (in double). */
static void double_world(const ir_asset *asset, uint32_t i, double (*world)[16], bool *done) {
    if (done[i])
        return;
    const ir_node *node = &asset->nodes[i];
    double t[3] = {node->translation[0], node->translation[1], node->translation[2]};
    double q[4] = {node->rotation[0], node->rotation[1], node->rotation[2], node->rotation[3]};
    double s[3] = {node->scale[0], node->scale[1], node->scale[2]};
    double local[16];
    ref_mat4_trs(t, q, s, local);
    if (node->parent >= 0) {
        double_world(asset, (uint32_t)node->parent, world, done);
        ref_mat4_multiply(world[node->parent], local, world[i]);
    } else {
        memcpy(world[i], local, sizeof local);
    }
    done[i] = true;
}

static void instance_matches_recursive_product(void **state) {
    (void)state;
    ir_asset asset;
    random_asset(&asset, 400, 7);
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_DEEP, &err), KILN_OK);
    held_instance h;
    instance_open(&h, &held.view);
    double(*world)[16] = calloc(asset.node_count, sizeof *world);
    bool *done = calloc(asset.node_count, sizeof *done);
    for (uint32_t i = 0; i < asset.node_count; i++)
        double_world(&asset, i, world, done);
    for (uint32_t k = 0; k < held.view.node_count; k++) {
        char what[32];
        snprintf(what, sizeof what, "node %u", k);
        expect_close(kiln_scene_world(&h.instance, k), world[held.view.nodes[k].source], 1e-4,
                     what);
    }
    assert_null(kiln_scene_world(&h.instance, held.view.node_count));
    free(world);
    free(done);
    instance_close(&h);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* Changing a few nodes and updating gives exactly (bit for bit) what a full
 * recompute of the same local transforms gives, and recomputes only the
 * changed nodes and their subtrees. */
static void dirty_update_equals_full_recompute(void **state) {
    (void)state;
    ir_asset asset;
    random_asset(&asset, 2000, 11);
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
    const kiln_scene_view *v = &held.view;
    held_instance lazy, full;
    instance_open(&lazy, v);
    instance_open(&full, v);
    uint8_t *in_subtree = malloc(v->node_count);
    srand(3);
    for (int round = 0; round < 20; round++) {
        memset(in_subtree, 0, v->node_count);
        /* Few changes, and some rounds so many that nodes and their ancestors
         * change together (a node must still be recomputed once). */
        uint32_t changes = round == 0 ? 0 : (uint32_t)(rand() % (round % 4 == 0 ? 800 : 40)) + 1;
        for (uint32_t c = 0; c < changes; c++) {
            uint32_t node = (uint32_t)rand() % v->node_count;
            kiln_scene_transform t = *kiln_scene_local(&lazy.instance, node);
            t.translation[0] += 0.25f;
            t.scale[1] *= 1.5f;
            assert_int_equal(kiln_scene_set_local(&lazy.instance, node, &t, &err), KILN_OK);
            *kiln_scene_local(&full.instance, node) = t; /* seen by the full pass */
            in_subtree[node] = 1;
        }
        for (uint32_t i = 0; i < v->node_count; i++) /* parents first */
            if (v->hierarchy[i].parent >= 0 && in_subtree[v->hierarchy[i].parent])
                in_subtree[i] = 1;
        uint32_t expected = 0;
        for (uint32_t i = 0; i < v->node_count; i++)
            expected += in_subtree[i];
        assert_int_equal(kiln_scene_update(&lazy.instance), expected);
        assert_int_equal(kiln_scene_update(&lazy.instance), 0); /* nothing left */
        kiln_scene_update_all(&full.instance);
        assert_memory_equal(lazy.instance.world, full.instance.world,
                            (size_t)v->node_count * 16 * sizeof(float));
    }
    kiln_scene_transform t = v->transforms[0];
    assert_int_equal(kiln_scene_set_local(&lazy.instance, v->node_count, &t, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    free(in_subtree);
    instance_close(&lazy);
    instance_close(&full);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* The world matrices recomputed here from the instance's local transforms,
 * independently of the library's update: node order is parents first, and
 * each product is written out in the order of the library's affine product
 * (the same float operations, so the same bits). */
static void recompute_world(const kiln_scene_view *v, const kiln_scene_transform *local,
                            float *world) {
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

/* The rest pose, the test's own copy of the local transforms it then sets. */
static kiln_scene_transform *rest_pose(const kiln_scene_view *v) {
    kiln_scene_transform *locals = malloc((size_t)v->node_count * sizeof *locals + 1);
    assert_non_null(locals);
    memcpy(locals, v->transforms, (size_t)v->node_count * sizeof *locals);
    return locals;
}

/* Every node's local transform as the instance holds it equals `locals`. */
static void expect_locals(kiln_scene_instance *instance, const kiln_scene_transform *locals) {
    for (uint32_t i = 0; i < instance->node_count; i++) {
        const kiln_scene_transform *got = kiln_scene_local(instance, i);
        assert_non_null(got);
        if (memcmp(got, &locals[i], sizeof *got) != 0)
            fail_msg("node %u: kiln_scene_local differs from the transform set", i);
    }
}

/* Nodes in the subtrees of the marked ones (marks spread to children). */
static uint32_t count_subtrees(const kiln_scene_view *v, uint8_t *marked) {
    uint32_t count = 0;
    for (uint32_t i = 0; i < v->node_count; i++) { /* parents first */
        int32_t parent = v->hierarchy[i].parent;
        marked[i] |= parent >= 0 && marked[parent];
        count += marked[i];
    }
    return count;
}

/* The update against the independent recompute on random forests, with the
 * edge cases: nothing changed, a root, a leaf, a node and its ancestor, the
 * same node twice, every node, and random sets of every size. */
static void update_matches_independent_recompute(void **state) {
    (void)state;
    for (uint32_t seed = 1; seed <= 6; seed++) {
        ir_asset asset;
        random_asset(&asset, 50 + seed * 97, seed);
        bytebuf bytes;
        write_asset(&asset, 0, &bytes);
        test_held_scene held;
        kiln_error err;
        assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
        const kiln_scene_view *v = &held.view;
        uint32_t n = v->node_count;
        test_expect_depth_first(v);
        held_instance h;
        instance_open(&h, v);
        uint8_t *marked = malloc(n);
        float *want = malloc((size_t)n * 16 * sizeof(float));
        kiln_scene_transform *locals = rest_pose(v);
        assert_non_null(marked);
        assert_non_null(want);
        uint32_t leaf = 0, inner = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (v->hierarchy[i].subtree_end == i + 1)
                leaf = i;
            else if (v->hierarchy[i].parent >= 0)
                inner = i;
        }
        srand(seed);
        for (int round = 0; round < 12; round++) {
            memset(marked, 0, n);
            uint32_t picks[4], count = 0;
            switch (round) {
            case 0:
                break; /* nothing */
            case 1:
                picks[count++] = 0;
                break; /* a root (node 0 has depth 0) */
            case 2:
                picks[count++] = leaf;
                break;
            case 3: /* a node, then its parent: one run, each node once */
                picks[count++] = inner;
                picks[count++] = (uint32_t)v->hierarchy[inner].parent;
                break;
            case 4:
                picks[count++] = inner, picks[count++] = inner;
                break;
            default:
                break;
            }
            bool all = round == 5, random = round > 5;
            uint32_t random_count = random ? (uint32_t)rand() % n + 1 : 0;
            for (uint32_t k = 0; k < (all ? n : random ? random_count : count); k++) {
                uint32_t node = all ? n - 1 - k : random ? (uint32_t)rand() % n : picks[k];
                kiln_scene_transform t = locals[node];
                t.translation[k % 3] += 0.5f;
                t.scale[(k + 1) % 3] *= 1.25f;
                assert_int_equal(kiln_scene_set_local(&h.instance, node, &t, &err), KILN_OK);
                locals[node] = t;
                marked[node] = 1;
            }
            uint32_t expected = count_subtrees(v, marked);
            assert_int_equal(kiln_scene_update(&h.instance), expected);
            assert_int_equal(kiln_scene_update(&h.instance), 0);
            expect_locals(&h.instance, locals);
            recompute_world(v, locals, want);
            assert_memory_equal(h.instance.world, want, (size_t)n * 16 * sizeof(float));
        }
        free(locals);
        free(marked);
        free(want);
        instance_close(&h);
        test_scene_release(&held);
        bytebuf_free(&bytes);
        ir_asset_free(&asset);
    }
}

/* Gives `nodes` (repeats allowed) new local transforms, updates, and checks
 * the count and every matrix against the independent recompute; a second
 * update then has nothing left. */
static void change_and_check(held_instance *h, const kiln_scene_view *v, const uint32_t *nodes,
                             uint32_t count, kiln_scene_transform *locals, uint8_t *marked,
                             float *want, const char *what) {
    kiln_error err;
    memset(marked, 0, v->node_count);
    for (uint32_t k = 0; k < count; k++) {
        kiln_scene_transform t = locals[nodes[k]];
        t.translation[k % 3] -= 0.75f;
        t.scale[(k + 2) % 3] *= 0.8f;
        assert_int_equal(kiln_scene_set_local(&h->instance, nodes[k], &t, &err), KILN_OK);
        locals[nodes[k]] = t;
        marked[nodes[k]] = 1;
    }
    uint32_t expected = count_subtrees(v, marked), got = kiln_scene_update(&h->instance);
    if (got != expected)
        fail_msg("%s: %u nodes recomputed, expected %u", what, got, expected);
    assert_int_equal(kiln_scene_update(&h->instance), 0);
    expect_locals(&h->instance, locals);
    recompute_world(v, locals, want);
    for (uint32_t i = 0; i < v->node_count; i++)
        if (memcmp(h->instance.world + (size_t)i * 16, want + (size_t)i * 16, 16 * sizeof(float)))
            fail_msg("%s: node %u's world matrix differs from the recompute", what, i);
}

/* Three shapes that stress the update's bookkeeping: a forest of roots only
 * (all changed: a run per node, the most the scratch words must hold), one
 * chain (any change: a single run to the end), and a random forest; 130 and
 * 128 nodes, so the last bitmap word is partly padding and exactly full, and
 * 9,000, so the bits of words span three summary words. */
static void forest_asset(ir_asset *asset, uint32_t n, int shape) {
    random_asset(asset, n, 7 + (uint32_t)shape);
    for (uint32_t i = 0; i < n && shape != 2; i++)
        asset->nodes[i].parent = shape == 0 || i == 0 ? -1 : (int32_t)i - 1;
}

static void update_edge_cases_match_independent_recompute(void **state) {
    (void)state;
    const uint32_t sizes[3] = {130, 128, 9000};
    const char *names[3] = {"roots only", "a chain", "a random forest"};
    for (int shape = 0; shape < 3; shape++) {
        ir_asset asset;
        forest_asset(&asset, sizes[shape], shape);
        bytebuf bytes;
        write_asset(&asset, 0, &bytes);
        test_held_scene held;
        kiln_error err;
        assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
        const kiln_scene_view *v = &held.view;
        uint32_t n = v->node_count;
        assert_int_equal(n, sizes[shape]);
        held_instance h;
        instance_open(&h, v);
        uint8_t *marked = malloc(n);
        float *want = malloc((size_t)n * 16 * sizeof(float));
        uint32_t *nodes = malloc((size_t)n * 2 * sizeof *nodes);
        kiln_scene_transform *locals = rest_pose(v);
        assert_non_null(marked);
        assert_non_null(want);
        assert_non_null(nodes);
        char what[96];
        for (int c = 0; c < 9; c++) {
            uint32_t count = 0;
            switch (c) {
            case 0: /* the last node: a run at the end of the array */
                nodes[count++] = n - 1;
                break;
            case 1: /* the last three: three bits in one word */
                nodes[count++] = n - 3, nodes[count++] = n - 1, nodes[count++] = n - 2;
                break;
            case 2: /* a whole bitmap word */
                for (uint32_t i = 0; i < 64; i++)
                    nodes[count++] = 63 - i;
                break;
            case 3: /* the first root, then nodes inside the range it takes */
                nodes[count++] = 0;
                for (uint32_t i = 1; i < v->hierarchy[0].subtree_end; i += 3)
                    nodes[count++] = i;
                break;
            case 4: /* one node set five times */
                for (uint32_t i = 0; i < 5; i++)
                    nodes[count++] = n / 2;
                break;
            case 5: /* every node, last first */
                for (uint32_t i = 0; i < n; i++)
                    nodes[count++] = n - 1 - i;
                break;
            case 6: /* every other node */
                for (uint32_t i = 0; i < n; i += 2)
                    nodes[count++] = i;
                break;
            case 7: /* the first and the last: empty words between */
                nodes[count++] = n - 1, nodes[count++] = 0;
                break;
            default: /* every node twice */
                for (uint32_t i = 0; i < 2 * n; i++)
                    nodes[count++] = i % n;
                break;
            }
            snprintf(what, sizeof what, "%s, case %d", names[shape], c);
            change_and_check(&h, v, nodes, count, locals, marked, want, what);
        }
        /* Changes the full pass takes care of leave nothing for the update,
         * and the next change is found again. */
        for (uint32_t k = 0; k < 3; k++) {
            kiln_scene_transform t = locals[k * (n - 1) / 2];
            t.translation[1] += 2.0f;
            assert_int_equal(kiln_scene_set_local(&h.instance, k * (n - 1) / 2, &t, &err), KILN_OK);
            locals[k * (n - 1) / 2] = t;
        }
        kiln_scene_update_all(&h.instance);
        assert_int_equal(kiln_scene_update(&h.instance), 0);
        recompute_world(v, locals, want);
        assert_memory_equal(h.instance.world, want, (size_t)n * 16 * sizeof(float));
        nodes[0] = n / 3;
        snprintf(what, sizeof what, "%s, after the full pass", names[shape]);
        change_and_check(&h, v, nodes, 1, locals, marked, want, what);
        free(locals);
        free(nodes);
        free(marked);
        free(want);
        instance_close(&h);
        test_scene_release(&held);
        bytebuf_free(&bytes);
        ir_asset_free(&asset);
    }
}

/* The scene of a test of the instance's own API: a random forest of `n`. */
typedef struct instance_case {
    ir_asset asset;
    bytebuf bytes;
    test_held_scene held;
    float *want;
    kiln_scene_transform *locals;
} instance_case;

static const kiln_scene_view *instance_case_open(instance_case *c, uint32_t n, uint32_t seed) {
    random_asset(&c->asset, n, seed);
    write_asset(&c->asset, 0, &c->bytes);
    kiln_error err;
    assert_int_equal(test_scene_hold(&c->held, c->bytes.data, c->bytes.size, 0, &err), KILN_OK);
    c->want = malloc((size_t)n * 16 * sizeof(float));
    assert_non_null(c->want);
    c->locals = rest_pose(&c->held.view);
    return &c->held.view;
}

static void instance_case_close(instance_case *c) {
    free(c->want);
    free(c->locals);
    test_scene_release(&c->held);
    bytebuf_free(&c->bytes);
    ir_asset_free(&c->asset);
}

/* The instance's matrices and local transforms are the recompute's of the
 * case's own copy of the local transforms. */
static void expect_recomputed(instance_case *c, kiln_scene_instance *instance) {
    expect_locals(instance, c->locals);
    recompute_world(&c->held.view, c->locals, c->want);
    assert_memory_equal(instance->world, c->want,
                        (size_t)instance->node_count * 16 * sizeof(float));
}

/* A transform unlike `t`, made from `k`. */
static kiln_scene_transform moved(kiln_scene_transform t, uint32_t k) {
    t.translation[k % 3] += 0.5f + (float)(k % 7);
    t.scale[(k + 1) % 3] *= 1.5f;
    return t;
}

/* kiln_scene_local: the rest pose at init, NULL out of range, writes through
 * it seen by the full pass and not by the update; kiln_scene_set_pose: the
 * count checked, then every node recomputed by either update, and changes
 * after it found again. */
static void local_accessor_and_whole_pose(void **state) {
    (void)state;
    instance_case c;
    const kiln_scene_view *v = instance_case_open(&c, 300, 21);
    uint32_t n = v->node_count;
    held_instance h;
    instance_open(&h, v);
    kiln_error err;
    expect_locals(&h.instance, c.locals); /* the rest pose, first to last record */
    assert_null(kiln_scene_local(&h.instance, n));
    assert_null(kiln_scene_local(&h.instance, UINT32_MAX));
    assert_null(kiln_scene_local(NULL, 0));

    const uint32_t ends[3] = {0, n / 2, n - 1}; /* a root, a middle node, the last */
    for (uint32_t k = 0; k < 3; k++)
        *kiln_scene_local(&h.instance, ends[k]) = c.locals[ends[k]] = moved(c.locals[ends[k]], k);
    assert_int_equal(kiln_scene_update(&h.instance), 0); /* nothing was marked */
    kiln_scene_update_all(&h.instance);
    expect_recomputed(&c, &h.instance);

    kiln_scene_transform *pose = malloc((size_t)n * sizeof *pose);
    assert_non_null(pose);
    for (uint32_t i = 0; i < n; i++)
        pose[i] = moved(c.locals[i], i + 3);
    assert_int_equal(kiln_scene_set_pose(&h.instance, pose, n - 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "kiln_scene_set_pose: 299 transforms for 300 nodes"));
    assert_int_equal(kiln_scene_set_pose(&h.instance, pose, n + 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_pose(&h.instance, NULL, n, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_pose(NULL, pose, n, &err), KILN_ERR_INVALID_ARGUMENT);
    expect_recomputed(&c, &h.instance); /* refused: nothing changed */

    /* Marked nodes before and after the pose: the update recomputes all. */
    kiln_scene_transform t = moved(c.locals[7], 1);
    assert_int_equal(kiln_scene_set_local(&h.instance, 7, &t, &err), KILN_OK);
    assert_int_equal(kiln_scene_set_pose(&h.instance, pose, n, &err), KILN_OK);
    memcpy(c.locals, pose, (size_t)n * sizeof *pose);
    c.locals[n - 1] = moved(c.locals[n - 1], 2);
    assert_int_equal(kiln_scene_set_local(&h.instance, n - 1, &c.locals[n - 1], &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&h.instance), n);
    assert_int_equal(kiln_scene_update(&h.instance), 0);
    expect_recomputed(&c, &h.instance);

    /* After it, one change is one subtree again (the last node, a leaf). */
    c.locals[n - 1] = moved(c.locals[n - 1], 5);
    assert_int_equal(kiln_scene_set_local(&h.instance, n - 1, &c.locals[n - 1], &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&h.instance), 1);
    expect_recomputed(&c, &h.instance);

    /* A pose the full pass brings in leaves nothing for the update. */
    for (uint32_t i = 0; i < n; i++)
        pose[i] = c.locals[i] = moved(c.locals[i], i);
    assert_int_equal(kiln_scene_set_pose(&h.instance, pose, n, &err), KILN_OK);
    kiln_scene_update_all(&h.instance);
    assert_int_equal(kiln_scene_update(&h.instance), 0);
    expect_recomputed(&c, &h.instance);
    free(pose);
    instance_close(&h);
    instance_case_close(&c);
}

/* kiln_scene_set_locals against kiln_scene_set_local a node on a second
 * instance and the independent recompute: batches of 0, 1, 17 (one more than
 * it requests ahead) and 400 nodes, with nodes given twice (the last
 * transform kept), the first and the last node; a batch with a node out of
 * range or no arrays refused whole. */
static void batch_of_changes_equals_one_call_a_node(void **state) {
    (void)state;
    instance_case c;
    const kiln_scene_view *v = instance_case_open(&c, 2000, 41);
    uint32_t n = v->node_count;
    held_instance batch, single;
    instance_open(&batch, v);
    instance_open(&single, v);
    kiln_error err;
    enum { MOST = 400 };
    uint32_t nodes[MOST];
    kiln_scene_transform locals[MOST];
    uint8_t *marked = malloc(n);
    assert_non_null(marked);
    const uint32_t sizes[4] = {0, 1, 17, MOST};
    uint32_t state_bits = 12345;
    for (uint32_t s = 0; s < 4; s++) {
        uint32_t count = sizes[s];
        memset(marked, 0, n);
        for (uint32_t k = 0; k < count; k++) {
            state_bits = state_bits * 1664525u + 1013904223u;
            nodes[k] = k == 0 ? n - 1 : k == 1 ? 0 : k % 5 == 0 ? nodes[k - 3] : state_bits % n;
            locals[k] = moved(c.locals[nodes[k]], k + s);
            c.locals[nodes[k]] = locals[k]; /* in order: the last one given stays */
            marked[nodes[k]] = 1;
            assert_int_equal(kiln_scene_set_local(&single.instance, nodes[k], &locals[k], &err),
                             KILN_OK);
        }
        assert_int_equal(kiln_scene_set_locals(&batch.instance, nodes, locals, count, &err),
                         KILN_OK);
        uint32_t stale = count_subtrees(v, marked);
        assert_int_equal(kiln_scene_update(&batch.instance), stale);
        assert_int_equal(kiln_scene_update(&single.instance), stale);
        expect_recomputed(&c, &batch.instance);
        assert_memory_equal(batch.instance.world, single.instance.world,
                            (size_t)n * 16 * sizeof(float));
    }

    /* Refused whole: the node out of range is the batch's last. */
    nodes[0] = 3;
    nodes[1] = n;
    locals[0] = locals[1] = moved(c.locals[3], 9);
    assert_int_equal(kiln_scene_set_locals(&batch.instance, nodes, locals, 2, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "kiln_scene_set_locals: nodes[1] = 2000 of 2000"));
    assert_int_equal(kiln_scene_set_locals(&batch.instance, NULL, locals, 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_locals(&batch.instance, nodes, NULL, 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_locals(NULL, nodes, locals, 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_locals(&batch.instance, NULL, NULL, 0, &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&batch.instance), 0);
    expect_recomputed(&c, &batch.instance);
    free(marked);
    instance_close(&batch);
    instance_close(&single);
    instance_case_close(&c);
}

/* Memory exactly kiln_scene_instance_size bytes long at each 16-byte
 * alignment (the sanitizer catches a byte beyond it): the matrices 64-byte
 * aligned, no node's local transform across two cache lines, and changes to
 * the first and last records updated right. */
static void instance_fits_at_every_alignment(void **state) {
    (void)state;
    instance_case c;
    const kiln_scene_view *v = instance_case_open(&c, 1000, 33);
    uint32_t n = v->node_count;
    size_t size = kiln_scene_instance_size(v);
    kiln_error err;
    for (size_t shift = 0; shift < 64; shift += 16) {
        void *block;
        assert_int_equal(posix_memalign(&block, 64, size + shift), 0);
        kiln_scene_instance instance;
        assert_int_equal(
            kiln_scene_instance_init(&instance, v, (uint8_t *)block + shift, size, &err), KILN_OK);
        assert_int_equal((uintptr_t)instance.world % 64, 0);
        for (uint32_t i = 0; i < n; i++) {
            uintptr_t at = (uintptr_t)kiln_scene_local(&instance, i);
            if (at / 64 != (at + sizeof(kiln_scene_transform) - 1) / 64)
                fail_msg("shift %zu: node %u's local transform spans two lines", shift, i);
        }
        memcpy(c.locals, v->transforms, (size_t)n * sizeof *c.locals);
        expect_recomputed(&c, &instance);
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t node = k == 0 ? 0 : n - 1;
            c.locals[node] = moved(c.locals[node], k + (uint32_t)shift);
            assert_int_equal(kiln_scene_set_local(&instance, node, &c.locals[node], &err), KILN_OK);
        }
        uint32_t root_end = v->hierarchy[0].subtree_end;
        assert_int_equal(kiln_scene_update(&instance), root_end + (n - 1 >= root_end));
        expect_recomputed(&c, &instance);
        free(block);
    }
    instance_case_close(&c);
}

static void instance_refuses_bad_memory(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
    size_t size = kiln_scene_instance_size(&held.view);
    void *memory;
    assert_int_equal(posix_memalign(&memory, 16, size + 16), 0);
    kiln_scene_instance instance;
    assert_int_equal(kiln_scene_instance_init(&instance, &held.view, memory, size - 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        kiln_scene_instance_init(&instance, &held.view, (uint8_t *)memory + 4, size, &err),
        KILN_ERR_INVALID_ARGUMENT);
    kiln_scene_view empty = {0};
    assert_int_equal(kiln_scene_instance_init(&instance, &empty, memory, size, &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&instance), 0);
    assert_int_equal(kiln_scene_instance_init(&instance, &held.view, memory, size, &err), KILN_OK);
    free(memory);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* ---------------------------------------------------------------------------
 * An assimp source: its node graph, one mesh instanced by two nodes
 * ------------------------------------------------------------------------- */

static const char INSTANCED_DAE[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    " <asset><unit name=\"meter\" meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n"
    " <library_geometries><geometry id=\"tri\" name=\"tri\"><mesh>\n"
    "  <source id=\"p\"><float_array id=\"pa\" count=\"9\">0 0 0 1 0 0 0 1 0</float_array>\n"
    "   <technique_common><accessor source=\"#pa\" count=\"3\" stride=\"3\">"
    "<param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>"
    "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
    "  <vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices>\n"
    "  <triangles count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>"
    "<p>0 1 2</p></triangles>\n"
    " </mesh></geometry></library_geometries>\n"
    " <library_visual_scenes><visual_scene id=\"s\" name=\"s\">\n"
    "  <node id=\"parent\" name=\"parent\"><translate>1 2 3</translate>\n"
    "   <node id=\"left\" name=\"left\"><scale>2 2 2</scale>"
    "<instance_geometry url=\"#tri\"/></node>\n"
    "   <node id=\"right\" name=\"right\"><rotate>0 0 1 90</rotate>"
    "<instance_geometry url=\"#tri\"/></node>\n"
    "  </node>\n"
    " </visual_scene></library_visual_scenes>\n"
    " <scene><instance_visual_scene url=\"#s\"/></scene>\n"
    "</COLLADA>\n";

static void assimp_node_graph_becomes_a_scene(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("scene_dae");
    test_import r;
    test_import_bytes(&r, import_assimp, dir, "instanced.dae", INSTANCED_DAE,
                      sizeof INSTANCED_DAE - 1);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.mesh_count, 1); /* one mesh, drawn by two nodes */
    bytebuf bytes;
    write_asset(&r.asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_DEEP, &err), KILN_OK);
    const kiln_scene_view *v = &held.view;
    uint32_t parent, left, right;
    assert_int_equal(kiln_scene_find_node(v, "parent", &parent), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "left", &left), KILN_OK);
    assert_int_equal(kiln_scene_find_node(v, "right", &right), KILN_OK);
    assert_int_equal(v->hierarchy[left].parent, (int32_t)parent);
    assert_int_equal(v->hierarchy[right].parent, (int32_t)parent);
    assert_int_equal(v->nodes[left].mesh, 0);
    assert_int_equal(v->nodes[right].mesh, 0);
    for (uint32_t i = 0; i < v->node_count; i++) /* a depth-first index, distinct */
        for (uint32_t j = 0; j < i; j++)
            assert_int_not_equal(v->nodes[i].source, v->nodes[j].source);
    assert_int_equal(v->scene_count, 1);
    held_instance h;
    instance_open(&h, v);
    const double left_world[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1};
    const double right_world[16] = {0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    expect_close(kiln_scene_world(&h.instance, left), left_world, 1e-6, "left");
    expect_close(kiln_scene_world(&h.instance, right), right_world, 1e-6, "right");
    instance_close(&h);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    test_import_free(&r);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * The corpus: every glTF model's global transforms against its own JSON
 * ------------------------------------------------------------------------- */

/* Imports one corpus model, writes its scene, and compares every node's
 * world matrix with the recursive evaluation. False when it does not import. */
static bool compare_corpus_model(const char *corpus, const char *relative) {
    test_import r;
    test_import_file(&r, import_gltf, corpus, relative);
    if (!r.ok || r.asset.node_count == 0) {
        test_import_free(&r);
        return false;
    }
    test_check_asset(&r.asset);
    char *path = test_path_join(corpus, relative);
    json_t *root = ref_gltf_json(path);
    free(path);
    assert_non_null(root);
    const json_t *nodes = json_object_get(root, "nodes");
    size_t count = json_array_size(nodes);
    assert_int_equal(count, r.asset.node_count);
    double(*world)[16] = calloc(count, sizeof *world);
    bool *child = calloc(count, sizeof *child);
    for (size_t i = 0; i < count; i++) {
        const json_t *children = json_object_get(json_array_get(nodes, i), "children");
        for (size_t c = 0; c < json_array_size(children); c++)
            child[json_integer_value(json_array_get(children, c))] = true;
    }
    const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (size_t i = 0; i < count; i++)
        if (!child[i])
            ref_gltf_world(nodes, i, identity, world);

    bytebuf bytes;
    write_asset(&r.asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    if (test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_DEEP | KILN_OPEN_VERIFY_CHECKSUM,
                        &err) != KILN_OK)
        fail_msg("%s: %s", relative, err.message);
    assert_int_equal(held.view.node_count, count);
    test_expect_depth_first(&held.view); /* Fox, the skins, the trucks: R7-R8 from parents alone */
    held_instance h;
    instance_open(&h, &held.view);
    for (uint32_t k = 0; k < held.view.node_count; k++) {
        int32_t source = held.view.nodes[k].source;
        assert_true(source >= 0 && (size_t)source < count);
        const char *name =
            json_string_value(json_object_get(json_array_get(nodes, (size_t)source), "name"));
        if (name != NULL)
            assert_string_equal(kiln_scene_node_name(&held.view, k), name);
        char what[512];
        snprintf(what, sizeof what, "%s node %d", relative, source);
        expect_close(kiln_scene_world(&h.instance, k), world[source], 1e-5, what);
    }
    /* The file's scenes, in order, default marked. */
    const json_t *scenes = json_object_get(root, "scenes");
    if (json_array_size(scenes) > 0) {
        assert_int_equal(held.view.scene_count, json_array_size(scenes));
        const json_t *scene = json_object_get(root, "scene");
        assert_int_equal(held.view.desc->default_scene,
                         scene != NULL ? (int32_t)json_integer_value(scene) : 0);
        for (uint32_t s = 0; s < held.view.scene_count; s++)
            assert_int_equal(held.view.scenes[s].root_count,
                             json_array_size(json_object_get(json_array_get(scenes, s), "nodes")));
    }
    instance_close(&h);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    free(world);
    free(child);
    json_decref(root);
    test_import_free(&r);
    return true;
}

static void corpus_world_matrices_match_gltf(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_world_matrices_match_gltf"))
        skip();
    test_corpus_row *rows;
    size_t count;
    char *index = test_corpus_index(&rows, &count);
    const char *wanted[] = {"Fox",
                            "RiggedSimple",
                            "SimpleSkin",
                            "BoxAnimated",
                            "CesiumMilkTruck",
                            "InterpolationTest",
                            "AnimatedMorphCube",
                            "SimpleMorph",
                            "Cameras",
                            "SimpleMeshes"};
    bool seen[sizeof wanted / sizeof wanted[0]] = {false};
    size_t compared = 0;
    for (size_t i = 0; i < count; i++) {
        if (strncmp(rows[i].path, "gltf/", 5) != 0 || strcmp(rows[i].expect, "ok") != 0 ||
            (strcmp(rows[i].format, "gltf") != 0 && strcmp(rows[i].format, "glb") != 0))
            continue;
        if (!compare_corpus_model(test_corpus_dir(), rows[i].path))
            continue;
        compared++;
        for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
            char folder[64];
            snprintf(folder, sizeof folder, "gltf/%s/", wanted[w]);
            seen[w] |= strncmp(rows[i].path, folder, strlen(folder)) == 0;
        }
    }
    for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++)
        if (!seen[w])
            fail_msg("corpus model %s was not compared", wanted[w]);
    printf("corpus: %zu glTF models compared\n", compared);
    free(rows);
    free(index);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scene_round_trips),
        cmocka_unit_test(scene_without_source_scenes),
        cmocka_unit_test(scene_writer_repairs_transforms),
        cmocka_unit_test(scene_reader_enforces_every_rule),
        cmocka_unit_test(scene_reader_survives_truncation_and_bit_flips),
        cmocka_unit_test(instance_matches_recursive_product),
        cmocka_unit_test(dirty_update_equals_full_recompute),
        cmocka_unit_test(update_matches_independent_recompute),
        cmocka_unit_test(update_edge_cases_match_independent_recompute),
        cmocka_unit_test(local_accessor_and_whole_pose),
        cmocka_unit_test(batch_of_changes_equals_one_call_a_node),
        cmocka_unit_test(instance_fits_at_every_alignment),
        cmocka_unit_test(instance_refuses_bad_memory),
        cmocka_unit_test(assimp_node_graph_becomes_a_scene),
        cmocka_unit_test(corpus_world_matrices_match_gltf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
