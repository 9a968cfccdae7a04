/* test_scene_format.c — scenes (docs/formats/kscene.md): the writer and the
 * runtime view round trip, every reader rule refused on hand-damaged files
 * (and truncations and bit flips survived), an assimp node graph made a
 * scene, and global transforms of the corpus's glTF models against an
 * independent recursive evaluation of their JSON. The instance's update is
 * in test_scene_update.c, its API in test_scene_instance.c. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_fixture.h"
#include "test_reference.h"

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
        cmocka_unit_test(assimp_node_graph_becomes_a_scene),
        cmocka_unit_test(corpus_world_matrices_match_gltf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
