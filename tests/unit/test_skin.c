/* test_skin.c — skins (issue 14): the .kscene skin table (docs/formats/kscene.md
 * SSKN/SJNT) written and read back, its reader rules R17-R18 refused on
 * hand-damaged files, the runtime's skinning matrices against a double
 * computation, every glTF skin error glTF-Validator reports refused with its
 * path, mesh.skin_influences (the strongest four or eight, weights summing to
 * exactly 65535), assimp bones becoming skins, and the corpus's skinned
 * models: cooked vertices skinned with the runtime's matrices and the
 * quantised weights reproduce the source's skinned positions, computed here
 * from the glTF JSON and buffers. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/inspect/inspect.h"
#include "test_import.h"
#include "test_reference.h"

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

static cook_settings test_settings;

static void write_asset(const ir_asset *asset, bytebuf *bytes) {
    cook_settings_default(&test_settings);
    cook_context ctx = {.input_root = ".",
                        .source_path = "models/rig.gltf",
                        .ref = "models/rig",
                        .source = (const uint8_t *)"{}",
                        .source_size = 2,
                        .settings = &test_settings};
    uint64_t refs[4] = {0x1000, 0x1001, 0x1002, 0x1003};
    assert_true(asset->mesh_count <= 4);
    memset(bytes, 0, sizeof *bytes);
    assert_true(write_kscene(&ctx, asset, refs, 0, "gltf", bytes));
}

static void node_local_d(const ir_node *node, double m[16]) {
    double t[3], q[4], s[3];
    for (int k = 0; k < 3; k++) {
        t[k] = node->translation[k];
        s[k] = node->scale[k];
    }
    for (int k = 0; k < 4; k++)
        q[k] = node->rotation[k];
    ref_mat4_trs(t, q, s, m);
}

/* The world matrix of IR node i, recursively. */
static void ir_world_d(const ir_asset *asset, int32_t i, double out[16]) {
    double local[16];
    node_local_d(&asset->nodes[i], local);
    if (asset->nodes[i].parent < 0) {
        memcpy(out, local, sizeof local);
        return;
    }
    double parent[16];
    ir_world_d(asset, asset->nodes[i].parent, parent);
    ref_mat4_multiply(parent, local, out);
}

/* IR order: 0 root, 1 hips(0), 2 mesh node(0), 3 spine(1), 4 tail(1),
 * 5 head(3), 6 prop (root, not a joint). Skin 0: joints spine, hips, head
 * (hips is the root joint, spine's parent joint is hips, head's is spine);
 * skin 1: tail and prop (two root joints: tail's parent hips is not in it). */
static void rig_asset(ir_asset *asset) {
    memset(asset, 0, sizeof *asset);
    asset->nodes = calloc(7, sizeof *asset->nodes);
    asset->meshes = calloc(1, sizeof *asset->meshes);
    asset->skins = calloc(2, sizeof *asset->skins);
    assert_true(asset->nodes && asset->meshes && asset->skins);
    asset->mesh_count = 1;
    const int32_t parents[7] = {-1, 0, 0, 1, 1, 3, -1};
    const char *names[7] = {"root", "hips", "body", "spine", "tail", "head", "prop"};
    for (int i = 0; i < 7; i++) {
        ir_node *n = &asset->nodes[i];
        ir_node_init(n);
        n->name = cook_strdup(names[i]);
        n->parent = parents[i];
        n->source = 10 + i;
        test_node_set_trs(n, 0.5f * (float)i, 1.0f, -0.25f * (float)i, 0.3f * (float)i,
                          i == 1 ? 2.0f : 1.0f);
    }
    asset->node_count = 7;
    asset->nodes[2].mesh = 0;
    asset->nodes[2].skin = 0;
    asset->skin_count = 2;
    const uint32_t joints0[3] = {3, 1, 5}, joints1[2] = {4, 6};
    const uint32_t *lists[2] = {joints0, joints1};
    const uint32_t counts[2] = {3, 2};
    for (int s = 0; s < 2; s++) {
        ir_skin *skin = &asset->skins[s];
        skin->joint_count = counts[s];
        skin->joints = malloc(counts[s] * sizeof *skin->joints);
        skin->inverse_bind = calloc(16 * (size_t)counts[s], sizeof(float));
        assert_true(skin->joints && skin->inverse_bind);
        memcpy(skin->joints, lists[s], counts[s] * sizeof *skin->joints);
        for (uint32_t j = 0; j < counts[s]; j++) {
            float *m = skin->inverse_bind + 16 * j; /* a translation and a scale */
            m[0] = m[5] = m[10] = 1.0f / (float)(j + 1);
            m[15] = 1.0f;
            m[12] = -0.5f * (float)j;
            m[13] = 0.25f * (float)s;
            m[14] = 1.0f;
        }
        skin->source = s == 0 ? 3 : 1;
        skin->skeleton = s == 0 ? 1 : -1;
    }
    asset->skins[0].name = cook_strdup("body_rig");
}

static uint32_t file_node_of_source(const kiln_scene_view *v, int32_t source) {
    for (uint32_t i = 0; i < v->node_count; i++)
        if (v->nodes[i].source == source)
            return i;
    fail_msg("no node of source %d", source);
    return 0;
}

static const kiln_vertex_attribute *find_attr(const kiln_mesh_view *m, kiln_vertex_semantic s);

/* `kiln check`'s problems with one cooked file, one a line. */
static void collect_problem(void *user, const char *message) {
    bytebuf *lines = user;
    bytebuf_printf(lines, "%s\n", message);
}

static size_t count_lines(const bytebuf *lines) {
    size_t count = 0;
    for (size_t i = 0; i < lines->size; i++)
        count += lines->data[i] == '\n';
    return count;
}

/* ---------------------------------------------------------------------------
 * The skin table and the runtime's matrices
 * ------------------------------------------------------------------------- */

static void skin_table_round_trips(void **state) {
    (void)state;
    ir_asset asset;
    rig_asset(&asset);
    bytebuf bytes;
    write_asset(&asset, &bytes);
    test_held_scene held;
    kiln_error err;
    if (test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_DEEP, &err) != KILN_OK)
        fail_msg("%s", err.message);
    const kiln_scene_view *v = &held.view;
    assert_int_equal(v->skin_count, 2);
    assert_int_equal(v->joint_count, 5);
    assert_int_equal(v->desc->skin_count, 2);
    /* skin 0 */
    const kiln_scene_skin *s0 = &v->skins[0], *s1 = &v->skins[1];
    assert_int_equal(s0->joint_offset, 0);
    assert_int_equal(s0->joint_count, 3);
    assert_int_equal(s0->source, 3);
    assert_int_equal(s0->skeleton, (int32_t)file_node_of_source(v, 11));
    assert_int_equal(s0->root_joint, 1); /* hips */
    assert_string_equal(v->strings + s0->name_offset, "body_rig");
    assert_int_equal(s1->joint_offset, 3);
    assert_int_equal(s1->joint_count, 2);
    assert_int_equal(s1->source, 1);
    assert_int_equal(s1->skeleton, -1);
    assert_int_equal(s1->root_joint, 0);
    assert_int_equal(s1->name_length, 0);
    uint32_t count;
    const kiln_scene_joint *j0 = kiln_scene_skin_joints(v, 0, &count);
    assert_int_equal(count, 3);
    assert_int_equal(j0[0].node, file_node_of_source(v, 13));
    assert_int_equal(j0[1].node, file_node_of_source(v, 11));
    assert_int_equal(j0[2].node, file_node_of_source(v, 15));
    assert_int_equal(j0[0].parent, 1); /* spine -> hips */
    assert_int_equal(j0[1].parent, -1);
    assert_int_equal(j0[2].parent, 0); /* head -> spine */
    const kiln_scene_joint *j1 = kiln_scene_skin_joints(v, 1, &count);
    assert_int_equal(count, 2);
    assert_int_equal(j1[0].parent, -1); /* tail: hips is not a joint of skin 1 */
    assert_int_equal(j1[1].parent, -1);
    assert_null(kiln_scene_skin_joints(v, 2, &count));
    assert_int_equal(count, 0);
    /* The mesh node names skin 0; others none. */
    uint32_t body = file_node_of_source(v, 12);
    for (uint32_t i = 0; i < v->node_count; i++)
        assert_int_equal(v->nodes[i].skin, i == body ? 0 : -1);

    /* Skinning matrices: world(joint) * inverse bind, against double. */
    void *memory;
    size_t size = kiln_scene_instance_size(v);
    assert_int_equal(posix_memalign(&memory, 16, size), 0);
    kiln_scene_instance instance;
    assert_int_equal(kiln_scene_instance_init(&instance, v, memory, size, &err), KILN_OK);
    /* Move the spine: the head follows. */
    kiln_scene_transform moved = v->transforms[j0[0].node];
    moved.translation[1] += 3.0f;
    assert_int_equal(kiln_scene_set_local(&instance, j0[0].node, &moved, &err), KILN_OK);
    asset.nodes[3].translation[1] += 3.0f;
    kiln_scene_update(&instance);
    float matrices[3 * 16];
    for (uint32_t s = 0; s < 2; s++) {
        const ir_skin *skin = &asset.skins[s];
        assert_int_equal(kiln_scene_skin_matrices(v, &instance, s, matrices, 3, &err), KILN_OK);
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            double world[16], ibm[16], want[16];
            ir_world_d(&asset, (int32_t)skin->joints[j], world);
            for (int e = 0; e < 16; e++)
                ibm[e] = skin->inverse_bind[16 * j + (uint32_t)e];
            ref_mat4_multiply(world, ibm, want);
            for (int e = 0; e < 16; e++)
                if (fabs(matrices[16 * j + (uint32_t)e] - want[e]) > 1e-5 * (1 + fabs(want[e])))
                    fail_msg("skin %u joint %u element %d: %.9g, expected %.9g", s, j, e,
                             (double)matrices[16 * j + (uint32_t)e], want[e]);
        }
    }
    /* Refusals, with nothing written. */
    assert_int_equal(kiln_scene_skin_matrices(v, &instance, 0, matrices, 2, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "room for 2 matrices, skin 0 has 3 joints"));
    assert_int_equal(kiln_scene_skin_matrices(v, &instance, 2, matrices, 3, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_skin_matrices(v, NULL, 0, matrices, 3, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    kiln_scene_view other = *v;
    other.node_count = 0;
    assert_int_equal(kiln_scene_skin_matrices(&other, &instance, 0, matrices, 3, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    free(memory);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* The byte offset of chunk `fourcc`'s payload in a file image. */
static size_t chunk_offset(const bytebuf *bytes, uint32_t fourcc, uint64_t *size) {
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes->data, bytes->size, KILN_OPEN_DEEP, &err),
                     KILN_OK);
    size_t offset = 0;
    for (uint32_t i = 0; i < held.file.chunk_count; i++)
        if (held.file.chunks[i].fourcc == fourcc) {
            offset = (size_t)held.file.chunks[i].offset;
            *size = held.file.chunks[i].size;
        }
    test_scene_release(&held);
    assert_true(offset > 0);
    return offset;
}

typedef void (*damage_fn)(uint8_t *sskn, uint8_t *sjnt);

static void put_u32(uint8_t *at, uint32_t value) {
    memcpy(at, &value, 4);
}
static void put_f32(uint8_t *at, float value) {
    memcpy(at, &value, 4);
}
/* Field offsets: kiln_scene_skin (32 bytes), kiln_scene_joint (80 bytes). */
static void damage_offset(uint8_t *k, uint8_t *j) {
    (void)j;
    put_u32(k + 32 + 0, 2); /* skin 1 starts inside skin 0 */
}
static void damage_empty(uint8_t *k, uint8_t *j) {
    (void)j;
    put_u32(k + 32 + 4, 0);
}
static void damage_count(uint8_t *k, uint8_t *j) {
    (void)j;
    put_u32(k + 32 + 4, 3); /* SJNT holds 5, the skins 6 */
}
static void damage_skeleton(uint8_t *k, uint8_t *j) {
    (void)j;
    put_u32(k + 8, 7);
}
static void damage_source(uint8_t *k, uint8_t *j) {
    (void)j;
    put_u32(k + 12, (uint32_t)-2);
}
static void damage_root_joint(uint8_t *k, uint8_t *j) {
    (void)j;
    put_u32(k + 24, 3);
}
static void damage_skin_reserved(uint8_t *k, uint8_t *j) {
    (void)j;
    put_u32(k + 28, 1);
}
static void damage_skin_name(uint8_t *k, uint8_t *j) {
    (void)j;
    put_u32(k + 20, 100000);
}
static void damage_joint_node(uint8_t *k, uint8_t *j) {
    (void)k;
    put_u32(j + 80 + 0, 7);
}
static void damage_joint_parent_range(uint8_t *k, uint8_t *j) {
    (void)k;
    put_u32(j + 4, 3);
}
static void damage_joint_parent_self(uint8_t *k, uint8_t *j) {
    (void)k;
    put_u32(j + 80 + 4, 1); /* hips is its own parent: not above itself */
}
static void damage_joint_parent_below(uint8_t *k, uint8_t *j) {
    (void)k;
    put_u32(j + 80 + 4, 2); /* hips under head */
}
static void damage_joint_reserved(uint8_t *k, uint8_t *j) {
    (void)k;
    put_u32(j + 12, 1);
}
static void damage_joint_nan(uint8_t *k, uint8_t *j) {
    (void)k;
    put_f32(j + 16 + 4 * 5, NAN);
}
static void damage_joint_affine(uint8_t *k, uint8_t *j) {
    (void)k;
    put_f32(j + 80 + 16 + 4 * 3, 0.5f);
}

static void skin_reader_enforces_r14_r15(void **state) {
    (void)state;
    ir_asset asset;
    rig_asset(&asset);
    bytebuf bytes;
    write_asset(&asset, &bytes);
    uint64_t sskn_size = 0, sjnt_size = 0;
    size_t sskn = chunk_offset(&bytes, KILN_CHUNK_SCENE_SKINS, &sskn_size);
    size_t sjnt = chunk_offset(&bytes, KILN_CHUNK_SCENE_JOINTS, &sjnt_size);
    assert_int_equal(sskn_size, 2 * sizeof(kiln_scene_skin));
    assert_int_equal(sjnt_size, 5 * sizeof(kiln_scene_joint));
    static const struct {
        damage_fn damage;
        const char *message;
    } cases[] = {
        {damage_offset, "skin 1 has joints 2 +2, expected a non-empty range from 3"},
        {damage_empty, "skin 1 has joints 3 +0"},
        {damage_count, "SJNT chunk is 400 bytes, expected 6 x 80"},
        {damage_skeleton, "skin 0 has a field out of range (skeleton 7"},
        {damage_source, "source -2"},
        {damage_root_joint, "root joint 3"},
        {damage_skin_reserved, "skin 0 has a field out of range"},
        {damage_skin_name, "skin 0 has a field out of range"},
        {damage_joint_node, "skin 0 joint 1 names node 7 of 7"},
        {damage_joint_parent_range, "skin 0 joint 0 has parent joint 3"},
        {damage_joint_parent_self, "skin 0 joint 1 has parent joint 1"},
        {damage_joint_parent_below, "skin 0 joint 1 has parent joint 2"},
        {damage_joint_reserved, "skin 0 joint 0 names node"},
        {damage_joint_nan, "skin 0 joint 0 inverse bind matrix is not finite and affine"},
        {damage_joint_affine, "skin 0 joint 1 inverse bind matrix"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t *copy = malloc(bytes.size);
        assert_non_null(copy);
        memcpy(copy, bytes.data, bytes.size);
        cases[c].damage(copy + sskn, copy + sjnt);
        test_held_scene held;
        kiln_error err;
        kiln_result r = test_scene_hold(&held, copy, bytes.size, KILN_OPEN_DEEP, &err);
        if (r != KILN_ERR_CORRUPT || strstr(err.message, cases[c].message) == NULL)
            fail_msg("case %zu: result %d, '%s'; expected CORRUPT with '%s'", c, (int)r,
                     err.message, cases[c].message);
        test_scene_release(&held);
        free(copy);
    }
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* `kiln check` on skins naming a node twice: 200,000 joints, each of
 * 100,000 nodes twice (comparing every pair of joints took 16 s and
 * printed a line per pair), and a node three times. One line per node, 16 a
 * skin, then how many more. */
static void check_names_each_duplicated_joint_once(void **state) {
    (void)state;
    enum { twice = 100000, joint_count = 2 * twice };
    ir_asset asset;
    memset(&asset, 0, sizeof asset);
    asset.node_count = 1 + twice;
    asset.nodes = calloc(asset.node_count, sizeof *asset.nodes);
    asset.skins = calloc(2, sizeof *asset.skins);
    assert_true(asset.nodes && asset.skins);
    for (uint32_t i = 0; i < asset.node_count; i++) {
        ir_node_init(&asset.nodes[i]);
        char name[32];
        snprintf(name, sizeof name, "n%u", i);
        asset.nodes[i].name = cook_strdup(name);
        asset.nodes[i].parent = i == 0 ? -1 : 0;
    }
    asset.skin_count = 2;
    const uint32_t thrice[4] = {1, 2, 1, 1};
    for (int s = 0; s < 2; s++) {
        ir_skin *skin = &asset.skins[s];
        skin->joint_count = s == 0 ? joint_count : 4;
        skin->joints = malloc(skin->joint_count * sizeof *skin->joints);
        skin->inverse_bind = calloc(16 * (size_t)skin->joint_count, sizeof(float));
        assert_true(skin->joints && skin->inverse_bind);
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            skin->joints[j] = s == 0 ? 1 + j / 2 : thrice[j];
            float *m = skin->inverse_bind + 16 * (size_t)j;
            m[0] = m[5] = m[10] = m[15] = 1.0f;
        }
        skin->source = s;
        skin->skeleton = -1;
    }
    bytebuf bytes;
    write_asset(&asset, &bytes);
    char *dir = test_make_temp_dir("skin_check");
    char *path = test_path_join(dir, "rig.kscene");
    test_write_file(path, bytes.data, bytes.size);
    bytebuf lines = {0};
    size_t problems = inspect_check_file(path, KILN_PACK_SCENE, collect_problem, &lines);
    bytebuf_append_zeros(&lines, 1);
    const char *text = (const char *)lines.data;
    assert_int_equal(problems, 16 + 1 + 1);
    assert_int_equal(count_lines(&lines), problems);
    assert_non_null(strstr(text, "skin 0: joints 0 and 1 are both node 1\n"));
    assert_non_null(strstr(text, "skin 0: joints 30 and 31 are both node 16\n"));
    assert_null(strstr(text, "node 17\n"));
    assert_non_null(strstr(text, "skin 0: 99984 more nodes are more than one of its joints\n"));
    assert_non_null(strstr(text, "skin 1: joints 0, 2 and 1 more are all node 1\n"));
    bytebuf_free(&lines);
    free(path);
    free(dir);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* ---------------------------------------------------------------------------
 * glTF skins: every validator error refused with its path
 * ------------------------------------------------------------------------- */

static char *base64(const void *data, size_t size) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *in = data;
    char *out = malloc(4 * ((size + 2) / 3) + 1), *o = out;
    assert_non_null(out);
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < size)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < size)
            v |= in[i + 2];
        *o++ = table[(v >> 18) & 63];
        *o++ = table[(v >> 12) & 63];
        *o++ = i + 1 < size ? table[(v >> 6) & 63] : '=';
        *o++ = i + 2 < size ? table[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* Nodes: 0 root (children 1, 3), 1 arm (child 2), 2 hand, 3 body (mesh 0,
 * skin 0), 4 a separate root. Accessor 0: `matrices` MAT4s (type/component
 * overridable), 1-4 the triangle (positions, joints, weights, indices). */
static char *skin_gltf(const char *skins, const float *matrices, uint32_t matrix_count,
                       const char *ibm_type, int ibm_component) {
    const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint16_t joints[12] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    const float weights[12] = {0.75f, 0.25f, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    size_t ibm_bytes = (size_t)matrix_count * 64;
    size_t size = ibm_bytes + sizeof tri + sizeof joints + sizeof weights;
    uint8_t *buffer = malloc(size);
    assert_non_null(buffer);
    memcpy(buffer, matrices, ibm_bytes);
    memcpy(buffer + ibm_bytes, tri, sizeof tri);
    memcpy(buffer + ibm_bytes + sizeof tri, joints, sizeof joints);
    memcpy(buffer + ibm_bytes + sizeof tri + sizeof joints, weights, sizeof weights);
    char *b64 = base64(buffer, size);
    free(buffer);
    size_t cap = strlen(b64) + strlen(skins) + 4096;
    char *json = malloc(cap);
    assert_non_null(json);
    snprintf(
        json, cap,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,4]}],"
        "\"nodes\":[{\"name\":\"root\",\"children\":[1,3]},"
        "{\"name\":\"arm\",\"children\":[2],\"translation\":[0,1,0]},"
        "{\"name\":\"hand\",\"translation\":[0,1,0]},"
        "{\"name\":\"body\",\"mesh\":0,\"skin\":0},{\"name\":\"other\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":1,\"JOINTS_0\":2,"
        "\"WEIGHTS_0\":3}}]}],"
        "\"skins\":%s,"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":%d,\"count\":%u,\"type\":\"%s\"},"
        "{\"bufferView\":1,\"byteOffset\":0,\"componentType\":5126,\"count\":3,\"type\":"
        "\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
        "{\"bufferView\":1,\"byteOffset\":36,\"componentType\":5123,\"count\":3,\"type\":"
        "\"VEC4\"},"
        "{\"bufferView\":1,\"byteOffset\":60,\"componentType\":5126,\"count\":3,\"type\":"
        "\"VEC4\"}]}",
        skins, size, b64, ibm_bytes ? ibm_bytes : 4, ibm_bytes,
        sizeof tri + sizeof joints + sizeof weights, ibm_component,
        ibm_type[0] == 'M' ? matrix_count : matrix_count * 4, ibm_type);
    free(b64);
    return json;
}

static const float IDENTITY[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

static void import_text(test_import *r, const char *json) {
    static int counter;
    char name[64];
    snprintf(name, sizeof name, "skin_gltf_%d", counter++);
    char *dir = test_make_temp_dir(name);
    test_import_bytes(r, import_gltf, dir, "rig.gltf", json, strlen(json));
    free(dir);
}

static void gltf_skin_imports_every_field(void **state) {
    (void)state;
    float matrices[2 * 16];
    memcpy(matrices, IDENTITY, sizeof IDENTITY);
    memcpy(matrices + 16, IDENTITY, sizeof IDENTITY);
    matrices[13] = -1.0f; /* joint 0: the arm at y = 1 */
    matrices[16 + 13] = -2.0f;
    char *json = skin_gltf("[{\"name\":\"rig\",\"joints\":[1,2],\"skeleton\":1,"
                           "\"inverseBindMatrices\":0}]",
                           matrices, 2, "MAT4", 5126);
    test_import r;
    import_text(&r, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.skin_count, 1);
    const ir_skin *skin = &r.asset.skins[0];
    assert_string_equal(skin->name, "rig");
    assert_int_equal(skin->source, 0);
    assert_int_equal(skin->joint_count, 2);
    assert_int_equal(r.asset.nodes[skin->joints[0]].source, 1);
    assert_int_equal(r.asset.nodes[skin->joints[1]].source, 2);
    assert_int_equal(r.asset.nodes[skin->skeleton].source, 1);
    assert_memory_equal(skin->inverse_bind, matrices, sizeof matrices);
    for (uint32_t i = 0; i < r.asset.node_count; i++)
        assert_int_equal(r.asset.nodes[i].skin, r.asset.nodes[i].source == 3 ? 0 : -1);
    test_import_free(&r);
    free(json);
    /* Without inverseBindMatrices: the identity. */
    json = skin_gltf("[{\"joints\":[1,2]}]", matrices, 0, "MAT4", 5126);
    import_text(&r, json);
    test_import_expect_ok(&r);
    assert_null(r.asset.skins[0].name);
    assert_int_equal(r.asset.skins[0].skeleton, -1);
    assert_memory_equal(r.asset.skins[0].inverse_bind, IDENTITY, sizeof IDENTITY);
    assert_memory_equal(r.asset.skins[0].inverse_bind + 16, IDENTITY, sizeof IDENTITY);
    test_import_free(&r);
    free(json);
    /* More matrices than joints: allowed by the spec, a warning. */
    float three[3 * 16];
    for (int k = 0; k < 3; k++)
        memcpy(three + 16 * k, IDENTITY, sizeof IDENTITY);
    json = skin_gltf("[{\"joints\":[1,2],\"inverseBindMatrices\":0}]", three, 3, "MAT4", 5126);
    import_text(&r, json);
    assert_true(r.ok);
    assert_non_null(strstr(test_import_messages(&r),
                           "skins[0].inverseBindMatrices: accessor 0 has 3 matrices for 2 "
                           "joints; the last 1 are unused"));
    test_import_free(&r);
    free(json);
}

static void gltf_skin_errors_name_the_path(void **state) {
    (void)state;
    float matrices[2 * 16];
    memcpy(matrices, IDENTITY, sizeof IDENTITY);
    memcpy(matrices + 16, IDENTITY, sizeof IDENTITY);
    float nan_matrices[2 * 16], shear[2 * 16];
    memcpy(nan_matrices, matrices, sizeof matrices);
    nan_matrices[16 + 5] = NAN;
    memcpy(shear, matrices, sizeof matrices);
    shear[3] = 0.5f; /* a projective last row */
    static const char *const ok_skin = "[{\"joints\":[1,2],\"inverseBindMatrices\":0}]";
    const struct {
        const char *skins;
        const float *matrices;
        uint32_t count;
        const char *type;
        int component;
        const char *message;
    } cases[] = {
        {"[{\"joints\":[]}]", matrices, 2, "MAT4", 5126, "skins[0].joints: the array is empty"},
        {"[{\"name\":\"x\"}]", matrices, 2, "MAT4", 5126, "skins[0]"},
        {"[{\"joints\":[1,9]}]", matrices, 2, "MAT4", 5126, "skins[0].joints[1]"},
        {"[{\"joints\":[1,2,1]}]", matrices, 2, "MAT4", 5126,
         "skins[0].joints[2]: node 1 is listed twice"},
        {"[{\"joints\":[1,4]}]", matrices, 2, "MAT4", 5126,
         "skins[0].joints: the joints do not have a common root"},
        {"[{\"joints\":[1,2],\"skeleton\":2}]", matrices, 2, "MAT4", 5126,
         "skins[0].skeleton: node 2 is not a common root of the joints"},
        {ok_skin, matrices, 2, "VEC4", 5126,
         "skins[0].inverseBindMatrices: accessor 0 is VEC4 FLOAT; it must be MAT4 FLOAT"},
        {ok_skin, matrices, 2, "MAT4", 5122, "skins[0].inverseBindMatrices: accessor 0 is MAT4"},
        {ok_skin, matrices, 1, "MAT4", 5126,
         "skins[0].inverseBindMatrices: accessor 0 has 1 matrices for 2 joints"},
        {ok_skin, nan_matrices, 2, "MAT4", 5126, "non-finite"},
        {ok_skin, shear, 2, "MAT4", 5126,
         "skins[0].inverseBindMatrices: matrix 0 is not an affine transform"},
        {"[{\"joints\":[1,2],\"inverseBindMatrices\":7}]", matrices, 2, "MAT4", 5126,
         "skins[0].inverseBindMatrices"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *json = skin_gltf(cases[c].skins, cases[c].matrices, cases[c].count, cases[c].type,
                               cases[c].component);
        test_import r;
        import_text(&r, json);
        const char *messages = test_import_messages(&r);
        if (r.ok || strstr(messages, cases[c].message) == NULL ||
            strstr(messages, "rig.gltf") == NULL)
            fail_msg("case %zu: ok %d, messages '%s'; expected an error with '%s'", c, r.ok,
                     messages, cases[c].message);
        test_import_free(&r);
        free(json);
    }
}

/* ---------------------------------------------------------------------------
 * mesh.skin_influences
 * ------------------------------------------------------------------------- */

/* A point with eight influences of weights that are not in order: the
 * strongest four or eight, renormalised, quantised to sum to 65535. */
static void skin_influences_keep_the_strongest(void **state) {
    (void)state;
    static const float source_weights[8] = {0.05f, 0.31f, 0.02f, 0.09f, 0.2f, 0.01f, 0.25f, 0.07f};
    for (int setting = 4; setting <= 8; setting += 4) {
        /* The importer's form: eight, largest first (pack_influences). */
        ir_mesh mesh = {0};
        mesh.vertex_count = 1;
        mesh.positions = calloc(3, sizeof(float));
        mesh.joints = calloc(4, sizeof(uint16_t));
        mesh.weights = calloc(4, sizeof(float));
        mesh.joints1 = calloc(4, sizeof(uint16_t));
        mesh.weights1 = calloc(4, sizeof(float));
        mesh.indices = calloc(1, sizeof(uint32_t));
        mesh.submeshes = calloc(1, sizeof(ir_submesh));
        assert_true(mesh.positions && mesh.joints && mesh.weights && mesh.joints1 &&
                    mesh.weights1 && mesh.indices && mesh.submeshes);
        mesh.index_count = 1;
        mesh.submesh_count = 1;
        mesh.submeshes[0] = (ir_submesh){.index_count = 1, .topology = KILN_TOPOLOGY_POINTS};
        /* sorted here independently: 0.31 (j1) 0.25 (j6) 0.2 (j4) 0.09 (j3)
         * 0.07 (j7) 0.05 (j0) 0.02 (j2) 0.01 (j5) */
        const uint16_t order[8] = {1, 6, 4, 3, 7, 0, 2, 5};
        for (int k = 0; k < 8; k++) {
            uint16_t *jj = k < 4 ? mesh.joints : mesh.joints1;
            float *ww = k < 4 ? mesh.weights : mesh.weights1;
            jj[k % 4] = (uint16_t)(100 + order[k]);
            ww[k % 4] = source_weights[order[k]];
        }
        process_skin_influences(&mesh, (uint32_t)setting);
        encoded_vertices enc;
        assert_true(encode_mesh_vertices(&mesh, false, 1, &enc));
        uint16_t got_joints[8] = {0}, got_weights[8] = {0};
        bool has_second = false;
        for (uint32_t a = 0; a < enc.attribute_count; a++) {
            const kiln_vertex_attribute *attr = &enc.attributes[a];
            const uint8_t *at = enc.data + attr->offset;
            if (attr->semantic == KILN_SEMANTIC_JOINTS0)
                memcpy(got_joints, at, 8);
            if (attr->semantic == KILN_SEMANTIC_WEIGHTS0)
                memcpy(got_weights, at, 8);
            if (attr->semantic == KILN_SEMANTIC_JOINTS1) {
                memcpy(got_joints + 4, at, 8);
                has_second = true;
            }
            if (attr->semantic == KILN_SEMANTIC_WEIGHTS1)
                memcpy(got_weights + 4, at, 8);
        }
        assert_int_equal(has_second, setting == 8);
        /* Expected, computed here: the kept weights over their sum, rounded
         * to 1/65535 (no weight here is half-way), the residue to the
         * largest. */
        double sum = 0;
        for (int k = 0; k < setting; k++)
            sum += source_weights[order[k]];
        uint32_t expected[8] = {0}, total = 0;
        for (int k = 0; k < setting; k++) {
            expected[k] = (uint32_t)lround(source_weights[order[k]] / sum * 65535.0);
            total += expected[k];
        }
        expected[0] += 65535u - total;
        uint32_t got_total = 0;
        for (int k = 0; k < setting; k++) {
            assert_int_equal(got_joints[k], 100 + order[k]);
            assert_int_equal(got_weights[k], expected[k]);
            got_total += got_weights[k];
        }
        assert_int_equal(got_total, 65535);
        printf("mesh.skin_influences %d: weights", setting);
        for (int k = 0; k < setting; k++)
            printf(" %u", got_weights[k]);
        printf("\n");
        encoded_vertices_free(&enc);
        ir_mesh_free(&mesh);
    }
}

/* End to end: a glTF point with JOINTS_0/1 and WEIGHTS_0/1 (eight joints,
 * weights out of order) cooked with mesh.skin_influences 4 and 8; the .kmesh
 * holds the strongest four (renormalised, a warning) or all eight. */
static void gltf_eight_influences_cook_both_ways(void **state) {
    (void)state;
    const float position[3] = {1, 2, 3};
    const uint16_t joints[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const float weights[8] = {0.05f, 0.31f, 0.02f, 0.09f, 0.2f, 0.01f, 0.25f, 0.07f};
    uint8_t buffer[12 + 16 + 32];
    memcpy(buffer, position, 12);
    memcpy(buffer + 12, joints, 16);
    memcpy(buffer + 28, weights, 32);
    char *b64 = base64(buffer, sizeof buffer);
    char json[4096];
    snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0,9]}],\"nodes\":["
        "{\"children\":[1,2,3,4,5,6,7,8]},{},{},{},{},{},{},{},{},"
        "{\"mesh\":0,\"skin\":0}],"
        "\"skins\":[{\"joints\":[1,2,3,4,5,6,7,8]}],"
        "\"meshes\":[{\"primitives\":[{\"mode\":0,\"attributes\":{\"POSITION\":0,"
        "\"JOINTS_0\":1,\"JOINTS_1\":2,\"WEIGHTS_0\":3,\"WEIGHTS_1\":4}}]}],"
        "\"buffers\":[{\"byteLength\":60,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":"
        "\"VEC3\",\"min\":[1,2,3],\"max\":[1,2,3]},"
        "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5123,\"count\":1,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":20,\"componentType\":5123,\"count\":1,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":28,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":44,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"}]"
        "}",
        b64);
    free(b64);
    char *input = test_make_temp_dir("skin_eight_in");
    char *path = test_path_join(input, "eight.gltf");
    test_write_file(path, json, strlen(json));
    free(path);
    /* sorted here: 0.31 (j1) 0.25 (j6) 0.2 (j4) 0.09 (j3) 0.07 (j7) 0.05 (j0) 0.02 (j2) 0.01 (j5)
     */
    const uint16_t order[8] = {1, 6, 4, 3, 7, 0, 2, 5};
    for (uint32_t setting = 4; setting <= 8; setting += 4) {
        char name[64];
        snprintf(name, sizeof name, "skin_eight_out_%u", setting);
        char *output = test_make_temp_dir(name);
        cook_settings settings;
        cook_settings_default(&settings);
        settings.mesh_skin_influences = setting;
        cook_request request = {.input_root = input,
                                .output_root = output,
                                .source_path = "eight.gltf",
                                .importer = cook_registry_match("eight.gltf"),
                                .settings = &settings,
                                .verify = true};
        cook_asset_result result;
        assert_true(cook_asset(&request, &result));
        char *messages = strndup(result.diag.text.data ? (const char *)result.diag.text.data : "",
                                 result.diag.text.size);
        assert_non_null(messages);
        bool warned = strstr(messages, "1 vertices have more than 4 joint influences; the 4 "
                                       "strongest are kept") != NULL;
        free(messages);
        assert_int_equal(warned, setting == 4);
        cook_asset_result_free(&result);
        char *mesh_path = test_path_join(output, "eight.kmesh");
        kiln_file file;
        kiln_mesh_view mesh;
        kiln_error err;
        assert_int_equal(kiln_file_map(&file, mesh_path, 0, &err), KILN_OK);
        assert_int_equal(kiln_mesh_view_get(&file, KILN_OPEN_DEEP, &mesh, &err), KILN_OK);
        assert_int_equal(mesh.desc->vertex_count, 1);
        const kiln_vertex_semantic sems[4] = {KILN_SEMANTIC_JOINTS0, KILN_SEMANTIC_WEIGHTS0,
                                              KILN_SEMANTIC_JOINTS1, KILN_SEMANTIC_WEIGHTS1};
        uint16_t got[4][4] = {{0}};
        for (int k = 0; k < 4; k++) {
            const kiln_vertex_attribute *a = find_attr(&mesh, sems[k]);
            assert_int_equal(a != NULL, k < 2 || setting == 8);
            if (a != NULL)
                memcpy(got[k], (const uint8_t *)mesh.vertices + a->offset, 8);
        }
        double sum = 0;
        for (uint32_t k = 0; k < setting; k++)
            sum += weights[order[k]];
        uint32_t expected[8] = {0}, total = 0;
        for (uint32_t k = 0; k < setting; k++) {
            expected[k] = (uint32_t)lround(weights[order[k]] / sum * 65535.0);
            total += expected[k];
        }
        expected[0] += 65535u - total;
        for (uint32_t k = 0; k < setting; k++) {
            assert_int_equal(got[k < 4 ? 0 : 2][k % 4], order[k]);
            assert_int_equal(got[k < 4 ? 1 : 3][k % 4], expected[k]);
        }
        kiln_file_close(&file);
        free(mesh_path);
        free(output);
    }
    free(input);
}

/* Joint parents on a forest where joints are scattered through long chains
 * of plain nodes, listed out of order: each joint's nearest joint ancestor
 * equals a plain walk up computed here, and the walk's memo shares work
 * between joints (a chain of 20,000 nodes stays linear). */
static void joint_parents_match_a_walk_up(void **state) {
    (void)state;
    enum { NODES = 20000, JOINTS = 700 };
    ir_asset asset = {0};
    ir_node *nodes = calloc(NODES, sizeof *nodes);
    assert_non_null(nodes);
    uint32_t seed = 7;
    for (uint32_t n = 0; n < NODES; n++) { /* parents first: a chain, a few new roots */
        seed = seed * 1664525u + 1013904223u;
        nodes[n].parent = n == 0 || (seed >> 24) < 3 ? -1 : (int32_t)(n - 1 - (seed >> 28) % 2);
        if (nodes[n].parent >= 0 && (uint32_t)nodes[n].parent >= n)
            nodes[n].parent = -1;
    }
    asset.nodes = nodes;
    asset.node_count = NODES;
    uint32_t joints[JOINTS];
    for (uint32_t j = 0; j < JOINTS; j++) /* distinct nodes, scrambled order */
        joints[j] = (uint32_t)(((uint64_t)j * 7919u) % NODES);
    ir_skin skin = {.joint_count = JOINTS, .joints = joints, .skeleton = -1, .source = -1};
    int32_t parents[JOINTS];
    assert_true(ir_skin_joint_parents(&asset, &skin, parents));
    int32_t *joint_at = malloc(NODES * sizeof *joint_at); /* node -> joint index */
    assert_non_null(joint_at);
    for (uint32_t n = 0; n < NODES; n++)
        joint_at[n] = -1;
    for (uint32_t j = 0; j < JOINTS; j++)
        joint_at[joints[j]] = (int32_t)j;
    uint32_t roots = 0;
    for (uint32_t j = 0; j < JOINTS; j++) {
        int32_t expected = -1;
        for (int32_t a = nodes[joints[j]].parent; a >= 0 && expected < 0; a = nodes[a].parent)
            expected = joint_at[a];
        assert_int_equal(parents[j], expected);
        roots += expected < 0;
    }
    assert_true(roots > 1 && roots < JOINTS); /* both cases are exercised */
    uint32_t first_root = 0;
    while (parents[first_root] >= 0)
        first_root++;
    assert_int_equal(ir_skin_root_of(parents, JOINTS), first_root);
    free(joint_at);
    free(nodes);
}

/* A weightless vertex binds to its skin's root joint (not joint 0). */
static void weightless_vertices_bind_to_the_root_joint(void **state) {
    (void)state;
    float matrices[2 * 16];
    memcpy(matrices, IDENTITY, sizeof IDENTITY);
    memcpy(matrices + 16, IDENTITY, sizeof IDENTITY);
    /* Joint 0 is the hand, joint 1 its parent arm: the root joint is 1. */
    char *json = skin_gltf("[{\"joints\":[2,1]}]", matrices, 0, "MAT4", 5126);
    test_import r;
    import_text(&r, json);
    test_import_expect_ok(&r);
    const ir_skin *skin = &r.asset.skins[0];
    int32_t parents[2];
    assert_true(ir_skin_joint_parents(&r.asset, skin, parents));
    assert_int_equal(parents[0], 1);
    assert_int_equal(parents[1], -1);
    assert_int_equal(ir_skin_root_of(parents, 2), 1);
    free(json);
    /* Make vertex 1 weightless in the IR and bind again. */
    ir_mesh *mesh = &r.asset.meshes[0];
    uint32_t v = 0;
    mesh->weights[4 * v] = mesh->weights[4 * v + 1] = 0.0f;
    mesh->weights[4 * v + 2] = mesh->weights[4 * v + 3] = 0.0f;
    mesh->joints[4 * v] = 0;
    ir_bind_weightless(&r.asset);
    assert_int_equal(mesh->joints[4 * v], 1);
    assert_true(mesh->weights[4 * v] == 1.0f);
    test_import_free(&r);
}

/* ---------------------------------------------------------------------------
 * assimp: bones become a skin
 * ------------------------------------------------------------------------- */

/* A triangle skinned by two joints (COLLADA controller): vertex 0 to "root"
 * fully, vertex 1 to "tip" fully, vertex 2 half and half. Inverse bind
 * matrices: root at the origin, tip at x = 2 (the inverse: x - 2). */
static const char SKINNED_DAE[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    " <asset><unit name=\"meter\" meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n"
    " <library_geometries><geometry id=\"tri\" name=\"tri\"><mesh>\n"
    "  <source id=\"p\"><float_array id=\"pa\" count=\"9\">0 0 0 2 0 0 1 1 0</float_array>\n"
    "   <technique_common><accessor source=\"#pa\" count=\"3\" stride=\"3\">"
    "<param name=\"X\" type=\"float\"/><param name=\"Y\" type=\"float\"/>"
    "<param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
    "  <vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices>\n"
    "  <triangles count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>"
    "<p>0 1 2</p></triangles>\n"
    " </mesh></geometry></library_geometries>\n"
    " <library_controllers><controller id=\"skin\"><skin source=\"#tri\">\n"
    "  <bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>\n"
    "  <source id=\"j\"><Name_array id=\"ja\" count=\"2\">root tip</Name_array>\n"
    "   <technique_common><accessor source=\"#ja\" count=\"2\" stride=\"1\">"
    "<param name=\"JOINT\" type=\"name\"/></accessor></technique_common></source>\n"
    "  <source id=\"ib\"><float_array id=\"iba\" count=\"32\">"
    "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 1 0 0 -2 0 1 0 0 0 0 1 0 0 0 0 1</float_array>\n"
    "   <technique_common><accessor source=\"#iba\" count=\"2\" stride=\"16\">"
    "<param name=\"TRANSFORM\" type=\"float4x4\"/></accessor></technique_common></source>\n"
    "  <source id=\"w\"><float_array id=\"wa\" count=\"3\">1 0.5 0.5</float_array>\n"
    "   <technique_common><accessor source=\"#wa\" count=\"3\" stride=\"1\">"
    "<param name=\"WEIGHT\" type=\"float\"/></accessor></technique_common></source>\n"
    "  <joints><input semantic=\"JOINT\" source=\"#j\"/>"
    "<input semantic=\"INV_BIND_MATRIX\" source=\"#ib\"/></joints>\n"
    "  <vertex_weights count=\"3\"><input semantic=\"JOINT\" source=\"#j\" offset=\"0\"/>"
    "<input semantic=\"WEIGHT\" source=\"#w\" offset=\"1\"/>"
    "<vcount>1 1 2</vcount><v>0 0 1 0 0 1 1 2</v></vertex_weights>\n"
    " </skin></controller></library_controllers>\n"
    " <library_visual_scenes><visual_scene id=\"s\" name=\"s\">\n"
    "  <node id=\"root\" name=\"root\" sid=\"root\" type=\"JOINT\">\n"
    "   <node id=\"tip\" name=\"tip\" sid=\"tip\" type=\"JOINT\"><translate>2 0 "
    "0</translate></node>\n"
    "  </node>\n"
    "  <node id=\"body\" name=\"body\"><instance_controller url=\"#skin\">"
    "<skeleton>#root</skeleton></instance_controller></node>\n"
    " </visual_scene></library_visual_scenes>\n"
    " <scene><instance_visual_scene url=\"#s\"/></scene>\n"
    "</COLLADA>\n";

static void assimp_bones_become_a_skin(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("skin_dae");
    test_import r;
    test_import_bytes(&r, import_assimp, dir, "rig.dae", SKINNED_DAE, sizeof SKINNED_DAE - 1);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.mesh_count, 1);
    assert_int_equal(r.asset.skin_count, 1);
    const ir_skin *skin = &r.asset.skins[0];
    assert_int_equal(skin->joint_count, 2);
    assert_int_equal(skin->source, 0);
    const char *want[2] = {"root", "tip"};
    for (uint32_t j = 0; j < 2; j++) {
        const char *name = r.asset.nodes[skin->joints[j]].name;
        uint32_t k = strcmp(name, "root") == 0 ? 0 : 1;
        assert_string_equal(name, want[k]);
        float expected[16];
        memcpy(expected, IDENTITY, sizeof IDENTITY);
        expected[12] = k == 1 ? -2.0f : 0.0f; /* COLLADA rows: column-major x - 2 */
        assert_memory_equal(skin->inverse_bind + 16 * j, expected, sizeof expected);
    }
    int32_t drawing = -1;
    for (uint32_t i = 0; i < r.asset.node_count; i++)
        if (r.asset.nodes[i].mesh == 0)
            drawing = (int32_t)i;
    assert_true(drawing >= 0);
    assert_int_equal(r.asset.nodes[drawing].skin, 0);
    /* Each vertex's influences, by position. */
    const ir_mesh *mesh = &r.asset.meshes[0];
    assert_non_null(mesh->joints);
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        const float *p = mesh->positions + 3 * v;
        const uint16_t *jv = mesh->joints + 4 * v;
        const float *wv = mesh->weights + 4 * v;
        const char *first = r.asset.nodes[skin->joints[jv[0]]].name;
        if (p[0] == 0.0f && p[1] == 0.0f) {
            assert_string_equal(first, "root");
            assert_true(wv[0] == 1.0f);
        } else if (p[0] == 2.0f) {
            assert_string_equal(first, "tip");
            assert_true(wv[0] == 1.0f);
        } else {
            assert_true(wv[0] == 0.5f && wv[1] == 0.5f);
            assert_int_not_equal(jv[0], jv[1]);
        }
    }
    /* Through the scene: at the rest pose the skinning matrices are the
     * identity (root at 0, tip at x = 2), so skinned = source positions. */
    bytebuf bytes;
    write_asset(&r.asset, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_DEEP, &err), KILN_OK);
    assert_int_equal(held.view.skin_count, 1);
    void *memory;
    size_t size = kiln_scene_instance_size(&held.view);
    assert_int_equal(posix_memalign(&memory, 16, size), 0);
    kiln_scene_instance instance;
    assert_int_equal(kiln_scene_instance_init(&instance, &held.view, memory, size, &err), KILN_OK);
    float matrices[32];
    assert_int_equal(kiln_scene_skin_matrices(&held.view, &instance, 0, matrices, 2, &err),
                     KILN_OK);
    for (int e = 0; e < 32; e++)
        assert_true(fabsf(matrices[e] - IDENTITY[e % 16]) < 1e-6f);
    free(memory);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    test_import_free(&r);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * The corpus: skinned vertices at the rest pose
 * ------------------------------------------------------------------------- */

typedef struct source_vertex {
    double position[3];
    double skinned[3];
    double reach; /* the largest |joint matrix * position|: the error scale */
} source_vertex;

/* Every vertex of glTF mesh `mesh` skinned by skin `skin` from the JSON. */
static source_vertex *source_skinned(const ref_gltf *doc, size_t mesh, size_t skin,
                                     double (*world)[16], size_t *count) {
    const json_t *root = doc->root;
    const json_t *s = json_array_get(json_object_get(root, "skins"), skin);
    const json_t *joints = json_object_get(s, "joints");
    size_t joint_count = json_array_size(joints);
    double(*matrix)[16] = calloc(joint_count, sizeof *matrix);
    double *ibm = NULL;
    size_t ibm_count = 0;
    if (json_object_get(s, "inverseBindMatrices"))
        ibm = ref_gltf_accessor(
            doc, (size_t)json_integer_value(json_object_get(s, "inverseBindMatrices")), 16,
            &ibm_count);
    for (size_t j = 0; j < joint_count; j++) {
        double inverse[16];
        memcpy(inverse,
               ibm ? ibm + 16 * j
                   : (const double[16]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
               sizeof inverse);
        ref_mat4_multiply(world[json_integer_value(json_array_get(joints, j))], inverse, matrix[j]);
    }
    free(ibm);
    const json_t *prims =
        json_object_get(json_array_get(json_object_get(root, "meshes"), mesh), "primitives");
    source_vertex *out = NULL;
    *count = 0;
    for (size_t p = 0; p < json_array_size(prims); p++) {
        const json_t *attrs = json_object_get(json_array_get(prims, p), "attributes");
        size_t n, nj, nw;
        double *pos = ref_gltf_accessor(
            doc, (size_t)json_integer_value(json_object_get(attrs, "POSITION")), 3, &n);
        double *jo = ref_gltf_accessor(
            doc, (size_t)json_integer_value(json_object_get(attrs, "JOINTS_0")), 4, &nj);
        double *we = ref_gltf_accessor(
            doc, (size_t)json_integer_value(json_object_get(attrs, "WEIGHTS_0")), 4, &nw);
        assert_true(nj == n && nw == n);
        out = realloc(out, (*count + n) * sizeof *out);
        for (size_t v = 0; v < n; v++) {
            source_vertex *sv = &out[*count + v];
            memcpy(sv->position, pos + 3 * v, sizeof sv->position);
            double sum = 0, acc[3] = {0, 0, 0};
            sv->reach = 0;
            for (int k = 0; k < 4; k++)
                sum += we[4 * v + (size_t)k];
            for (int k = 0; k < 4; k++) {
                double w = we[4 * v + (size_t)k] / sum, t[3];
                ref_mat4_point(matrix[(size_t)jo[4 * v + (size_t)k]], sv->position, t);
                for (int c = 0; c < 3; c++)
                    acc[c] += w * t[c];
                double r = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
                if (w > 0 && r > sv->reach)
                    sv->reach = r;
            }
            memcpy(sv->skinned, acc, sizeof acc);
        }
        *count += n;
        free(pos);
        free(jo);
        free(we);
    }
    free(matrix);
    return out;
}

static const kiln_vertex_attribute *find_attr(const kiln_mesh_view *m, kiln_vertex_semantic s) {
    for (uint32_t a = 0; a < m->desc->attribute_count; a++)
        if (m->attributes[a].semantic == s)
            return &m->attributes[a];
    return NULL;
}

/* Cooks `relative` (under the corpus) with the model driver and checks every
 * skinned mesh's cooked vertices, skinned by the runtime, against the source. */
static void check_corpus_model(const char *relative, double *worst_out, size_t *vertices_out) {
    char *source = test_path_join(test_corpus_dir(), relative);
    char *dir = strdup(source);
    *strrchr(dir, '/') = '\0';
    const char *file = strrchr(source, '/') + 1;
    char tmpname[128];
    snprintf(tmpname, sizeof tmpname, "skin_corpus_%s", file);
    char *output = test_make_temp_dir(tmpname);
    cook_settings settings;
    cook_settings_default(&settings);
    settings.texture_compress = false; /* the meshes are what is tested */
    cook_request request = {.input_root = dir,
                            .output_root = output,
                            .source_path = file,
                            .importer = cook_registry_match(file),
                            .settings = &settings,
                            .verify = true};
    cook_asset_result result;
    assert_true(cook_asset(&request, &result));
    cook_asset_result_free(&result);

    ref_gltf doc;
    ref_gltf_open(&doc, source);
    const json_t *root = doc.root;
    const json_t *nodes = json_object_get(root, "nodes");
    size_t node_count = json_array_size(nodes);
    double(*world)[16] = calloc(node_count, sizeof *world);
    bool *child = calloc(node_count, sizeof *child);
    for (size_t i = 0; i < node_count; i++) {
        const json_t *children = json_object_get(json_array_get(nodes, i), "children");
        for (size_t c = 0; c < json_array_size(children); c++)
            child[json_integer_value(json_array_get(children, c))] = true;
    }
    const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (size_t i = 0; i < node_count; i++)
        if (!child[i])
            ref_gltf_world(nodes, i, identity, world);

    char stem[128];
    snprintf(stem, sizeof stem, "%s", file);
    *strrchr(stem, '.') = '\0';
    char scene_name[256];
    snprintf(scene_name, sizeof scene_name, "%s/%s.kscene", output, stem);
    kiln_file scene_file;
    kiln_scene_view scene;
    kiln_error err;
    assert_int_equal(kiln_file_map(&scene_file, scene_name, 0, &err), KILN_OK);
    assert_int_equal(kiln_scene_view_get(&scene_file, KILN_OPEN_DEEP, &scene, &err), KILN_OK);
    assert_int_equal(scene.skin_count, json_array_size(json_object_get(root, "skins")));
    size_t size = kiln_scene_instance_size(&scene);
    void *memory;
    assert_int_equal(posix_memalign(&memory, 16, size), 0);
    kiln_scene_instance instance;
    assert_int_equal(kiln_scene_instance_init(&instance, &scene, memory, size, &err), KILN_OK);
    size_t mesh_total = json_array_size(json_object_get(root, "meshes"));
    double worst = 0;
    size_t checked = 0;
    for (uint32_t n = 0; n < scene.node_count; n++) {
        if (scene.nodes[n].skin < 0)
            continue;
        const json_t *gnode = json_array_get(nodes, (size_t)scene.nodes[n].source);
        size_t gmesh = (size_t)json_integer_value(json_object_get(gnode, "mesh"));
        size_t gskin = (size_t)json_integer_value(json_object_get(gnode, "skin"));
        assert_int_equal(scene.skins[scene.nodes[n].skin].source, (int32_t)gskin);
        size_t source_count;
        source_vertex *src = source_skinned(&doc, gmesh, gskin, world, &source_count);
        uint32_t joint_count = scene.skins[scene.nodes[n].skin].joint_count;
        float *matrices = malloc((size_t)joint_count * 64);
        assert_int_equal(kiln_scene_skin_matrices(&scene, &instance, (uint32_t)scene.nodes[n].skin,
                                                  matrices, joint_count, &err),
                         KILN_OK);
        char mesh_name[300];
        if (mesh_total == 1)
            snprintf(mesh_name, sizeof mesh_name, "%s/%s.kmesh", output, stem);
        else
            snprintf(mesh_name, sizeof mesh_name, "%s/%s.mesh%zu.kmesh", output, stem, gmesh);
        kiln_file mesh_file;
        kiln_mesh_view mesh;
        assert_int_equal(kiln_file_map(&mesh_file, mesh_name, 0, &err), KILN_OK);
        assert_int_equal(kiln_mesh_view_get(&mesh_file, KILN_OPEN_DEEP, &mesh, &err), KILN_OK);
        const kiln_vertex_attribute *ja = find_attr(&mesh, KILN_SEMANTIC_JOINTS0);
        const kiln_vertex_attribute *wa = find_attr(&mesh, KILN_SEMANTIC_WEIGHTS0);
        assert_non_null(ja);
        assert_non_null(wa);
        assert_int_equal(ja->format, KILN_VFORMAT_U16X4);
        assert_int_equal(wa->format, KILN_VFORMAT_UNORM16X4);
        const uint8_t *vtx = mesh.vertices;
        for (uint32_t v = 0; v < mesh.desc->vertex_count; v++) {
            float p[3];
            kiln_mesh_position(&mesh, v, p);
            uint16_t jj[4], ww[4];
            memcpy(jj, vtx + (size_t)v * mesh.desc->vertex_stride + ja->offset, 8);
            memcpy(ww, vtx + (size_t)v * mesh.desc->vertex_stride + wa->offset, 8);
            assert_int_equal((uint32_t)ww[0] + ww[1] + ww[2] + ww[3], 65535);
            double skinned[3] = {0, 0, 0};
            for (int k = 0; k < 4; k++) {
                assert_true(jj[k] < joint_count);
                const float *m = matrices + 16 * (size_t)jj[k];
                for (int r = 0; r < 3; r++)
                    skinned[r] += ww[k] / 65535.0 *
                                  ((double)m[r] * p[0] + (double)m[4 + r] * p[1] +
                                   (double)m[8 + r] * p[2] + m[12 + r]);
            }
            /* The source vertex at this position that skins closest. */
            double best = INFINITY, best_tolerance = 0;
            for (size_t s = 0; s < source_count; s++) {
                const source_vertex *sv = &src[s];
                if (fabs(sv->position[0] - p[0]) > 1e-6 * (1 + fabs(p[0])) ||
                    fabs(sv->position[1] - p[1]) > 1e-6 * (1 + fabs(p[1])) ||
                    fabs(sv->position[2] - p[2]) > 1e-6 * (1 + fabs(p[2])))
                    continue;
                double d = 0;
                for (int c = 0; c < 3; c++)
                    d = fmax(d, fabs(sv->skinned[c] - skinned[c]));
                if (d < best) {
                    best = d;
                    /* 4 weights, each within 2.5/65535, times the reach; and
                     * single-precision matrices. */
                    best_tolerance = 10.0 / 65535.0 * sv->reach + 1e-5 * (1 + sv->reach);
                }
            }
            if (!(best <= best_tolerance))
                fail_msg("%s vertex %u: skinned position off by %g (tolerance %g)", relative, v,
                         best, best_tolerance);
            if (best > worst)
                worst = best;
            checked++;
        }
        kiln_file_close(&mesh_file);
        free(matrices);
        free(src);
    }
    assert_true(checked > 0);
    *worst_out = worst;
    *vertices_out = checked;
    free(memory);
    kiln_file_close(&scene_file);
    free(world);
    free(child);
    ref_gltf_close(&doc);
    free(output);
    free(dir);
    free(source);
}

static void corpus_skinned_vertices_match_the_source(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_skinned_vertices_match_the_source"))
        skip();
    test_corpus_row *rows;
    size_t count;
    char *index = test_corpus_index(&rows, &count);
    const char *wanted[] = {"gltf/SimpleSkin/", "gltf/RiggedSimple/", "gltf/Fox/",
                            "gltf/RiggedFigure/", "gltf/CesiumMan/"};
    size_t models = 0;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(rows[i].expect, "ok") != 0 ||
            (strcmp(rows[i].format, "gltf") != 0 && strcmp(rows[i].format, "glb") != 0))
            continue;
        bool want = false;
        for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++)
            want |= strncmp(rows[i].path, wanted[w], strlen(wanted[w])) == 0;
        if (!want)
            continue;
        /* This reference reads accessors only: a Draco-compressed mesh has
         * none to read (and its decoded positions are quantized). The
         * uncompressed sibling of the same model is checked instead. */
        if (strcmp(rows[i].category, "draco") == 0) {
            printf("%s: skipped: the reference reads no Draco data\n", rows[i].path);
            continue;
        }
        double worst;
        size_t vertices;
        check_corpus_model(rows[i].path, &worst, &vertices);
        printf("%s: %zu cooked vertices skinned, worst difference %.3g\n", rows[i].path, vertices,
               worst);
        models++;
    }
    assert_true(models >= 3);
    free(rows);
    free(index);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skin_table_round_trips),
        cmocka_unit_test(skin_reader_enforces_r14_r15),
        cmocka_unit_test(check_names_each_duplicated_joint_once),
        cmocka_unit_test(gltf_skin_imports_every_field),
        cmocka_unit_test(gltf_skin_errors_name_the_path),
        cmocka_unit_test(skin_influences_keep_the_strongest),
        cmocka_unit_test(gltf_eight_influences_cook_both_ways),
        cmocka_unit_test(joint_parents_match_a_walk_up),
        cmocka_unit_test(weightless_vertices_bind_to_the_root_joint),
        cmocka_unit_test(assimp_bones_become_a_skin),
        cmocka_unit_test(corpus_skinned_vertices_match_the_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
