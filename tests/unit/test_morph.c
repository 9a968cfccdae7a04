/* test_morph.c — morph targets (issue 14) and KHR_mesh_quantization scene
 * units.
 *
 * Synthetic: welding keeps vertices with different morph deltas apart and
 * merges equal ones, carrying the deltas; a glTF with a sparse morph target,
 * targetNames and a second target attribute the cooker drops imports the
 * deltas the test wrote; mesh.merge leaves a morphed mesh out with a warning;
 * the reader's morph rules (R21-R23) refuse hand-damaged files; the CPU
 * helper kiln_mesh_morph_positions against a sum written here.
 *
 * Corpus (AnimatedMorphCube glTF, GLB and Quantized, SimpleMorph): every
 * cooked vertex's deltas equal an independent read of the glTF accessors
 * (written here: normalised and quantised formats, sparse substitution) for
 * the source vertex with its base position and normal, every source vertex is
 * found, the runtime's weights from the .kanim at several times equal an
 * independent LINEAR evaluation of the glTF sampler, and the runtime's morphed
 * positions equal the source's. Then the quantized sample and its original,
 * cooked with their scenes, give the same world-space positions (scene global
 * matrix x dequantised, morphed kmesh positions) within the quantisation
 * error, at rest and along the clip. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"
#include "test_import.h"
#include "test_reference.h"

/* ---------------------------------------------------------------------------
 * Welding
 * ------------------------------------------------------------------------- */

/* Four triangles over six vertices: 0/1 and 2/3 equal in every base stream;
 * 0/1 have equal deltas (welded), 2/3 different ones (kept apart). */
static void weld_keeps_different_deltas_apart(void **state) {
    (void)state;
    ir_mesh mesh = {0};
    mesh.vertex_count = 6;
    float positions[18] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    mesh.positions = malloc(sizeof positions);
    memcpy(mesh.positions, positions, sizeof positions);
    mesh.target_count = 2;
    mesh.targets = calloc(2, sizeof *mesh.targets);
    for (uint32_t t = 0; t < 2; t++) {
        mesh.targets[t].positions = calloc(18, sizeof(float));
        mesh.targets[t].normals = calloc(18, sizeof(float));
    }
    for (int v = 0; v < 6; v++) { /* target 0: +y by the vertex's x; target 1: distinct */
        mesh.targets[0].positions[3 * v + 1] = positions[3 * v];
        mesh.targets[1].normals[3 * v + 2] = 0.25f;
    }
    mesh.targets[1].normals[3 * 3 + 2] = 0.5f; /* vertex 3 differs from 2 in target 1 only */
    uint32_t indices[12] = {0, 2, 4, 1, 3, 5, 0, 3, 4, 1, 2, 5};
    mesh.index_count = 12;
    mesh.indices = malloc(sizeof indices);
    memcpy(mesh.indices, indices, sizeof indices);
    mesh.submesh_count = 1;
    mesh.submeshes = calloc(1, sizeof *mesh.submeshes);
    mesh.submeshes[0].index_count = 12;
    assert_true(process_weld(&mesh));
    assert_int_equal(mesh.vertex_count, 5); /* 0 and 1 merged, 2 and 3 not */
    /* Every corner keeps its deltas: compare through the indices. */
    for (int i = 0; i < 12; i++) {
        uint32_t v = mesh.indices[i], src = indices[i];
        assert_memory_equal(mesh.positions + 3 * v, positions + 3 * src, 12);
        assert_true(mesh.targets[0].positions[3 * v + 1] == positions[3 * src]);
        float expected = src == 3 ? 0.5f : 0.25f;
        assert_true(mesh.targets[1].normals[3 * v + 2] == expected);
    }
    assert_int_equal(ir_mesh_morph_attributes(&mesh), KILN_MORPH_POSITION | KILN_MORPH_NORMAL);
    ir_mesh_free(&mesh);
}

/* ---------------------------------------------------------------------------
 * glTF import: sparse targets, names, dropped attributes, merge
 * ------------------------------------------------------------------------- */

static char *base64(const uint8_t *data, size_t size) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(4 * ((size + 2) / 3) + 1), *o = out;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < size ? (uint32_t)data[i + 1] << 8 : 0) |
                     (i + 2 < size ? data[i + 2] : 0);
        *o++ = table[v >> 18 & 63];
        *o++ = table[v >> 12 & 63];
        *o++ = i + 1 < size ? table[v >> 6 & 63] : '=';
        *o++ = i + 2 < size ? table[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* Mesh 0: a triangle (3 float positions at byte 0) and two targets: target
 * 0's POSITION is sparse over no bufferView (all zero) with vertex 0 set to
 * (-1, 0, 0) and vertex 2 to (0, 0, 2); target 1's POSITION is dense at byte
 * 36, with a TEXCOORD_0 delta the cooker drops. Mesh 1: the triangle without
 * targets. Node 0 draws mesh 0, node 1 mesh 1. */
static char *sparse_gltf(void) {
    uint8_t bin[128] = {0};
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(bin, pos, 36);
    float t1[9] = {0.5f, 0, 0, 0, 0.25f, 0, 0, 0, -0.125f};
    memcpy(bin + 36, t1, 36);
    uint16_t sparse_idx[2] = {0, 2}; /* strictly increasing, as glTF requires */
    memcpy(bin + 72, sparse_idx, 4);
    float sparse_val[6] = {-1, 0, 0, 0, 0, 2};
    memcpy(bin + 76, sparse_val, 24);
    float uv[6] = {0, 0, 1, 0, 0, 1};
    memcpy(bin + 100, uv, 24);
    char *b64 = base64(bin, 124);
    size_t cap = strlen(b64) + 4096;
    char *json = malloc(cap);
    snprintf(json, cap,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
             "\"nodes\":[{\"mesh\":0},{\"mesh\":1}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":4},"
             "\"targets\":[{\"POSITION\":1},{\"POSITION\":2,\"TEXCOORD_0\":4}]}],"
             "\"weights\":[0.5,0.25],\"extras\":{\"targetNames\":[\"%s\",\"smile\"]}},"
             "{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"buffers\":[{\"byteLength\":124,\"uri\":\"data:application/"
             "octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
             "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":36},"
             "{\"buffer\":0,\"byteOffset\":72,\"byteLength\":4},"
             "{\"buffer\":0,\"byteOffset\":76,\"byteLength\":24},"
             "{\"buffer\":0,\"byteOffset\":100,\"byteLength\":24}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":"
             "\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
             "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":2,"
             "\"indices\":{\"bufferView\":2,\"componentType\":5123},\"values\":{\"bufferView\":"
             "3}}},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":4,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}]}",
             "blink", b64);
    free(b64);
    return json;
}

static void gltf_sparse_targets_import(void **state) {
    (void)state;
    char *json = sparse_gltf();
    char *root = test_make_temp_dir("morph_sparse");
    test_import r;
    test_import_bytes(&r, import_gltf, root, "m.gltf", json, strlen(json));
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_non_null(strstr(test_import_messages(&r), "targets[1].TEXCOORD_0"));
    assert_int_equal(r.asset.mesh_count, 2);
    const ir_mesh *m = &r.asset.meshes[0];
    assert_int_equal(m->target_count, 2);
    assert_int_equal(ir_mesh_morph_attributes(m), KILN_MORPH_POSITION);
    assert_string_equal(m->targets[0].name, "blink");
    assert_string_equal(m->targets[1].name, "smile");
    const float sparse[9] = {-1, 0, 0, 0, 0, 0, 0, 0, 2};
    const float dense[9] = {0.5f, 0, 0, 0, 0.25f, 0, 0, 0, -0.125f};
    assert_memory_equal(m->targets[0].positions, sparse, sizeof sparse);
    assert_memory_equal(m->targets[1].positions, dense, sizeof dense);
    assert_int_equal(r.asset.meshes[1].target_count, 0);
    /* Default weights stay on the node (the .kanim's AWGT), not the mesh. */
    assert_int_equal(r.asset.nodes[0].weight_count, 2);
    assert_true(r.asset.nodes[0].weights[0] == 0.5f && r.asset.nodes[0].weights[1] == 0.25f);

    /* mesh.merge: the morphed mesh stays out, the plain one is baked. */
    cook_diag diag = {0};
    assert_true(process_merge_asset(&r.asset, &diag, "m.gltf"));
    assert_int_equal(r.asset.mesh_count, 2); /* merged, then the morphed mesh kept */
    assert_int_equal(r.asset.meshes[0].target_count, 0);
    assert_int_equal(r.asset.meshes[0].vertex_count, 3);
    assert_int_equal(r.asset.meshes[1].target_count, 2);
    assert_memory_equal(r.asset.meshes[1].targets[0].positions, sparse, sizeof sparse);
    assert_int_equal(r.asset.nodes[0].mesh, 1); /* its node still draws it, weights kept */
    assert_int_equal(r.asset.nodes[0].weight_count, 2);
    assert_int_equal(r.asset.nodes[r.asset.node_count - 1].mesh, 0);
    bytebuf_append(&diag.text, "", 1);
    assert_non_null(strstr((const char *)diag.text.data, "1 mesh with morph targets not merged"));
    diag_free(&diag);
    test_import_free(&r);
    free(root);
    free(json);
}

/* ---------------------------------------------------------------------------
 * Runtime: R21-R23 and the CPU helper, on a cooked file
 * ------------------------------------------------------------------------- */

typedef struct cooked {
    char *output;
    char *stem; /* output/stem */
} cooked;

static cooked cook_file(const char *dir, const char *file, const char *tag) {
    char tmpname[160];
    snprintf(tmpname, sizeof tmpname, "morph_%s", tag);
    cooked c;
    c.output = test_make_temp_dir(tmpname);
    cook_settings settings;
    cook_settings_default(&settings);
    settings.texture_compress = false;
    cook_request request = {.input_root = dir,
                            .output_root = c.output,
                            .source_path = file,
                            .importer = cook_registry_match(file),
                            .settings = &settings,
                            .verify = true};
    cook_asset_result result;
    if (!cook_asset(&request, &result)) {
        bytebuf_append(&result.diag.text, "", 1);
        fail_msg("cooking %s failed: %s", file, (const char *)result.diag.text.data);
    }
    cook_asset_result_free(&result);
    char stem[256];
    snprintf(stem, sizeof stem, "%s/%s", c.output, file);
    *strrchr(stem, '.') = '\0';
    c.stem = strdup(stem);
    return c;
}

static void cooked_free(cooked *c) {
    free(c->output);
    free(c->stem);
}

static kiln_result open_bytes(const uint8_t *bytes, size_t size, void **block, kiln_file *file,
                              kiln_mesh_view *view, kiln_error *err) {
    assert_int_equal(posix_memalign(block, 16, size), 0);
    memcpy(*block, bytes, size);
    kiln_result r = kiln_file_from_memory(file, *block, size, "m.kmesh", 0, err);
    if (r == KILN_OK)
        r = kiln_mesh_view_get(file, KILN_OPEN_DEEP, view, err);
    return r;
}

/* The chunk entry of `fourcc` in a container's bytes. */
static kiln_chunk_entry *chunk_of(uint8_t *bytes, uint32_t fourcc) {
    const kiln_container_header *h = (const kiln_container_header *)bytes;
    kiln_chunk_entry *entries = (kiln_chunk_entry *)(bytes + sizeof *h); /* container.md */
    for (uint32_t i = 0; i < h->chunk_count; i++)
        if (entries[i].fourcc == fourcc)
            return &entries[i];
    return NULL;
}

/* Damages a copy, restamps the checksum-free file (opened without
 * VERIFY_CHECKSUM) and expects `fragment`. */
static void expect_damaged(const uint8_t *bytes, size_t size, void (*damage)(uint8_t *),
                           const char *fragment) {
    uint8_t *copy = malloc(size);
    memcpy(copy, bytes, size);
    damage(copy);
    void *block;
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
    kiln_result r = open_bytes(copy, size, &block, &file, &view, &err);
    if (r == KILN_OK || strstr(err.message, fragment) == NULL)
        fail_msg("expected an error with \"%s\", got %s \"%s\"", fragment, kiln_result_str(r),
                 err.message);
    kiln_file_close(&file);
    free(block);
    free(copy);
}

static void nan_delta(uint8_t *bytes) {
    kiln_chunk_entry *c = chunk_of(bytes, KILN_CHUNK_MESH_MORPH_DELTAS);
    float nan = NAN;
    memcpy(bytes + c->offset + 8, &nan, 4);
}

static void bad_name_offset(uint8_t *bytes) {
    kiln_chunk_entry *c = chunk_of(bytes, KILN_CHUNK_MESH_MORPH_NAMES);
    uint32_t past = (uint32_t)c->size;
    memcpy(bytes + c->offset + 4, &past, 4);
}

static void more_targets_than_deltas(uint8_t *bytes) {
    kiln_chunk_entry *c = chunk_of(bytes, KILN_CHUNK_MESH_DESC);
    ((kiln_mesh_desc *)(bytes + c->offset))->morph_target_count = 3;
}

static void unknown_attribute(uint8_t *bytes) {
    kiln_chunk_entry *c = chunk_of(bytes, KILN_CHUNK_MESH_DESC);
    kiln_mesh_desc *d = (kiln_mesh_desc *)(bytes + c->offset);
    d->morph_attributes |= 8;
}

static void cooked_targets_read_back(void **state) {
    (void)state;
    char *json = sparse_gltf();
    char *root = test_make_temp_dir("morph_sparse_cook");
    test_write_in(root, "m.gltf", json, strlen(json));
    cooked c = cook_file(root, "m.gltf", "sparse_out");
    size_t size;
    char path[400];
    snprintf(path, sizeof path, "%s.mesh0.kmesh", c.stem);
    uint8_t *bytes = test_read_file(path, &size);
    void *block;
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
    assert_int_equal(open_bytes(bytes, size, &block, &file, &view, &err), KILN_OK);
    assert_int_equal(view.desc->morph_target_count, 2);
    assert_int_equal(view.desc->morph_attributes, KILN_MORPH_POSITION);
    assert_string_equal(kiln_mesh_morph_target_name(&view, 0), "blink");
    assert_string_equal(kiln_mesh_morph_target_name(&view, 1), "smile");
    assert_null(kiln_mesh_morph_target_name(&view, 2));
    assert_null(kiln_mesh_morph_deltas(&view, 0, KILN_MORPH_NORMAL));
    assert_null(kiln_mesh_morph_deltas(&view, 2, KILN_MORPH_POSITION));
    /* Per cooked vertex (matched by base position): the deltas written above. */
    const float base[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const float d0[9] = {-1, 0, 0, 0, 0, 0, 0, 0, 2};
    const float d1[9] = {0.5f, 0, 0, 0, 0.25f, 0, 0, 0, -0.125f};
    const float weights[2] = {0.75f, -2.0f};
    float morphed[9];
    assert_int_equal(kiln_mesh_morph_positions(&view, weights, 2, morphed, 9, &err), KILN_OK);
    assert_int_equal(view.desc->vertex_count, 3);
    for (uint32_t v = 0; v < 3; v++) {
        float p[3];
        kiln_mesh_position(&view, v, p);
        int s = 0;
        while (s < 3 && memcmp(base + 3 * s, p, 12) != 0)
            s++;
        assert_true(s < 3);
        const float *a = kiln_mesh_morph_deltas(&view, 0, KILN_MORPH_POSITION) + 3 * v;
        const float *b = kiln_mesh_morph_deltas(&view, 1, KILN_MORPH_POSITION) + 3 * v;
        assert_memory_equal(a, d0 + 3 * s, 12);
        assert_memory_equal(b, d1 + 3 * s, 12);
        for (int k = 0; k < 3; k++)
            assert_float_equal(morphed[3 * v + (uint32_t)k],
                               base[3 * s + k] + 0.75 * d0[3 * s + k] - 2.0 * d1[3 * s + k], 1e-6);
    }
    /* Bad arguments: a weight count that is not the target count, a short
     * output. */
    assert_int_equal(kiln_mesh_morph_positions(&view, weights, 1, morphed, 9, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_mesh_morph_positions(&view, weights, 2, morphed, 8, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    kiln_file_close(&file);
    free(block);
    expect_damaged(bytes, size, nan_delta, "not finite");                   /* R23 */
    expect_damaged(bytes, size, bad_name_offset, "MNAM");                   /* R22 */
    expect_damaged(bytes, size, more_targets_than_deltas, "MDLT chunk is"); /* R9 */
    expect_damaged(bytes, size, unknown_attribute, "morph attributes 0x9"); /* R21 */
    free(bytes);
    cooked_free(&c);
    free(root);
    free(json);
}

/* ---------------------------------------------------------------------------
 * The corpus: an independent reader of glTF accessors
 * ------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------
 * The corpus: one model
 * ------------------------------------------------------------------------- */

typedef struct src_vertex {
    double position[3], normal[3];
    bool has_normal;
    double *deltas; /* targets x 3 attributes x 3 (0 where absent) */
    bool found;
} src_vertex;

#define TIMES 7

typedef struct model_result {
    uint32_t vertex_count;
    double *world[TIMES]; /* per cooked vertex and time: world position */
    double *world_normal; /* per cooked vertex: world normal at rest */
    double unit;          /* world length of one mesh unit (the mesh node's scale) */
    double *delta_world;  /* per cooked vertex and target: world length of its position delta */
    double weights[TIMES][8];
    uint32_t targets;
    double worst_delta, worst_morph;
} model_result;

static const double time_fractions[TIMES] = {-1, 0, 0.13, 0.5, 0.77, 1.0, 2.0};

/* glTF's LINEAR sampler of weights at t (clamped), independently. */
static void sample_weights(const ref_gltf *s, const json_t *sampler, uint32_t targets, double t,
                           double *out) {
    size_t keys, n;
    double *times = ref_gltf_accessor(
        s, (size_t)json_integer_value(json_object_get(sampler, "input")), 1, &keys);
    double *values =
        ref_gltf_accessor(s, (size_t)json_integer_value(json_object_get(sampler, "output")), 1, &n);
    assert_int_equal(n, keys * targets);
    size_t k = 0;
    while (k + 1 < keys && times[k + 1] <= t)
        k++;
    double u = 0;
    if (k + 1 < keys && t > times[k])
        u = (t - times[k]) / (times[k + 1] - times[k]);
    for (uint32_t w = 0; w < targets; w++) {
        double a = values[k * targets + w];
        double b = k + 1 < keys ? values[(k + 1) * targets + w] : a;
        out[w] = t <= times[0] ? values[w] : a + (b - a) * u;
    }
    free(times);
    free(values);
}

static double clip_duration(const ref_gltf *s, const json_t *sampler) {
    size_t keys;
    double *times = ref_gltf_accessor(
        s, (size_t)json_integer_value(json_object_get(sampler, "input")), 1, &keys);
    double d = times[keys - 1];
    free(times);
    return d;
}

static void check_model(const char *relative, model_result *res) {
    memset(res, 0, sizeof *res);
    char *path = test_path_join(test_corpus_dir(), relative);
    ref_gltf s;
    ref_gltf_open(&s, path);
    const char *file = strrchr(path, '/') + 1;
    char tag[200];
    snprintf(tag, sizeof tag, "%s_%s", strchr(relative, '/') + 1, file);
    for (char *c = tag; *c; c++)
        if (*c == '/')
            *c = '_';
    cooked c = cook_file(s.dir, file, tag);

    /* The source: every primitive of mesh 0, its vertices and deltas. */
    const json_t *mesh = json_array_get(json_object_get(s.root, "meshes"), 0);
    const json_t *prims = json_object_get(mesh, "primitives");
    uint32_t targets =
        (uint32_t)json_array_size(json_object_get(json_array_get(prims, 0), "targets"));
    assert_true(targets > 0 && targets <= 8);
    res->targets = targets;
    static const char *const names[3] = {"POSITION", "NORMAL", "TANGENT"};
    uint32_t attributes = 0;
    src_vertex *src = NULL;
    size_t src_count = 0;
    for (size_t p = 0; p < json_array_size(prims); p++) {
        const json_t *prim = json_array_get(prims, p);
        const json_t *attrs = json_object_get(prim, "attributes");
        size_t n, nn = 0;
        double *pos = ref_gltf_accessor(
            &s, (size_t)json_integer_value(json_object_get(attrs, "POSITION")), 3, &n);
        double *nor =
            json_object_get(attrs, "NORMAL")
                ? ref_gltf_accessor(
                      &s, (size_t)json_integer_value(json_object_get(attrs, "NORMAL")), 3, &nn)
                : NULL;
        src = realloc(src, (src_count + n) * sizeof *src);
        for (size_t v = 0; v < n; v++) {
            src_vertex *sv = &src[src_count + v];
            memset(sv, 0, sizeof *sv);
            memcpy(sv->position, pos + 3 * v, sizeof sv->position);
            if (nor != NULL) {
                double l = sqrt(nor[3 * v] * nor[3 * v] + nor[3 * v + 1] * nor[3 * v + 1] +
                                nor[3 * v + 2] * nor[3 * v + 2]);
                for (int k = 0; k < 3; k++)
                    sv->normal[k] = nor[3 * v + (size_t)k] / l;
                sv->has_normal = true;
            }
            sv->deltas = calloc((size_t)targets * 9, sizeof(double));
        }
        const json_t *tlist = json_object_get(prim, "targets");
        for (uint32_t t = 0; t < targets; t++)
            for (int k = 0; k < 3; k++) {
                const json_t *acc = json_object_get(json_array_get(tlist, t), names[k]);
                if (acc == NULL)
                    continue;
                attributes |= 1u << k;
                size_t dn;
                double *d = ref_gltf_accessor(&s, (size_t)json_integer_value(acc), 3, &dn);
                assert_int_equal(dn, n);
                for (size_t v = 0; v < n; v++)
                    memcpy(src[src_count + v].deltas + (t * 3 + (size_t)k) * 3, d + 3 * v,
                           3 * sizeof(double));
                free(d);
            }
        src_count += n;
        free(pos);
        free(nor);
    }

    /* The cooked mesh. */
    char mesh_path[400];
    snprintf(mesh_path, sizeof mesh_path, "%s.kmesh", c.stem);
    kiln_file mesh_file;
    kiln_mesh_view view;
    kiln_error err;
    assert_int_equal(kiln_file_map(&mesh_file, mesh_path, KILN_OPEN_VERIFY_CHECKSUM, &err),
                     KILN_OK);
    assert_int_equal(kiln_mesh_view_get(&mesh_file, KILN_OPEN_DEEP, &view, &err), KILN_OK);
    assert_int_equal(view.desc->morph_target_count, targets);
    assert_int_equal(view.desc->morph_attributes, attributes);
    const kiln_vertex_attribute *na = kiln_mesh_find_attribute(&view, KILN_SEMANTIC_NORMAL);
    uint32_t nv = view.desc->vertex_count;
    res->vertex_count = nv;
    size_t *match = calloc(nv, sizeof *match);
    for (uint32_t v = 0; v < nv; v++) {
        float p[3], n[3] = {0, 0, 0};
        kiln_mesh_position(&view, v, p);
        if (na != NULL) {
            int16_t e[2];
            memcpy(e,
                   (const uint8_t *)view.vertices + (size_t)v * view.desc->vertex_stride +
                       na->offset,
                   4);
            kiln_oct_decode(e, n);
        }
        size_t found = SIZE_MAX;
        double worst_here = 0;
        for (size_t i = 0; i < src_count && found == SIZE_MAX; i++) {
            const src_vertex *sv = &src[i];
            bool same = true;
            for (int k = 0; k < 3; k++)
                same &= fabs(sv->position[k] - p[k]) <= 1e-6 * (1 + fabs(p[k]));
            if (same && sv->has_normal && na != NULL)
                same = sv->normal[0] * n[0] + sv->normal[1] * n[1] + sv->normal[2] * n[2] > 0.999;
            double worst = 0;
            for (uint32_t t = 0; same && t < targets; t++)
                for (int k = 0; k < 3; k++) {
                    const float *d = kiln_mesh_morph_deltas(&view, t, 1u << k);
                    if (d == NULL)
                        continue;
                    for (int q = 0; q < 3; q++) {
                        double want = sv->deltas[(t * 3 + (size_t)k) * 3 + (size_t)q];
                        double diff = fabs(d[3 * (size_t)v + (size_t)q] - want);
                        /* exact in float: the source's value rounded once */
                        same &= diff <= 1e-7 * (1 + fabs(want));
                        worst = fmax(worst, diff);
                    }
                }
            if (same) {
                found = i;
                worst_here = worst;
            }
        }
        if (found == SIZE_MAX)
            fail_msg("%s: cooked vertex %u (%g %g %g) has no source vertex with its base and "
                     "morph deltas",
                     relative, v, (double)p[0], (double)p[1], (double)p[2]);
        src[found].found = true;
        match[v] = found;
        res->worst_delta = fmax(res->worst_delta, worst_here);
    }
    for (size_t i = 0; i < src_count; i++)
        if (!src[i].found)
            fail_msg("%s: source vertex %zu is in no cooked vertex (welded away?)", relative, i);

    /* The scene and the clip: weights and morphed positions along it. */
    char scene_path[400], anim_path[400];
    snprintf(scene_path, sizeof scene_path, "%s.kscene", c.stem);
    snprintf(anim_path, sizeof anim_path, "%s.kanim", c.stem);
    kiln_file scene_file, anim_file;
    kiln_scene_view scene;
    kiln_anim_view anim;
    assert_int_equal(kiln_file_map(&scene_file, scene_path, 0, &err), KILN_OK);
    assert_int_equal(kiln_scene_view_get(&scene_file, KILN_OPEN_DEEP, &scene, &err), KILN_OK);
    assert_int_equal(kiln_file_map(&anim_file, anim_path, 0, &err), KILN_OK);
    assert_int_equal(kiln_anim_view_get(&anim_file, KILN_OPEN_DEEP, &anim, &err), KILN_OK);
    size_t isize = kiln_scene_instance_size(&scene);
    void *memory;
    assert_int_equal(posix_memalign(&memory, 16, isize), 0);
    kiln_scene_instance instance;
    assert_int_equal(kiln_scene_instance_init(&instance, &scene, memory, isize, &err), KILN_OK);
    uint32_t mesh_node = UINT32_MAX;
    for (uint32_t n = 0; n < scene.node_count; n++)
        if (scene.nodes[n].mesh >= 0)
            mesh_node = n;
    assert_true(mesh_node != UINT32_MAX);
    const kiln_anim_morph *morph = NULL;
    for (uint32_t m = 0; m < anim.morph_count; m++)
        if (anim.morphs[m].node == mesh_node)
            morph = &anim.morphs[m];
    assert_non_null(morph);
    assert_int_equal(morph->weight_count, targets);
    const json_t *animation = json_array_get(json_object_get(s.root, "animations"), 0);
    const json_t *channel = json_array_get(json_object_get(animation, "channels"), 0);
    const json_t *sampler =
        json_array_get(json_object_get(animation, "samplers"),
                       (size_t)json_integer_value(json_object_get(channel, "sampler")));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(channel, "target"), "path")), "weights");
    double duration = clip_duration(&s, sampler);
    kiln_anim_pose pose = {malloc(scene.node_count * sizeof *pose.local),
                           malloc((anim.weight_count + 1) * sizeof(float))};
    float *morphed = malloc(3 * (size_t)nv * sizeof *morphed);
    res->world_normal = calloc(3 * (size_t)nv, sizeof(double));
    res->delta_world = calloc((size_t)nv * targets, sizeof(double));
    for (int ti = 0; ti < TIMES; ti++) {
        double t = time_fractions[ti] < 0 ? -1.0 : time_fractions[ti] * duration;
        assert_int_equal(kiln_anim_pose_rest(&anim, &scene, &pose, &err), KILN_OK);
        if (ti > 0) /* ti 0: the rest pose (default weights) */
            assert_int_equal(kiln_anim_sample(&anim, 0, (float)t, NULL, &pose, &err), KILN_OK);
        assert_int_equal(kiln_anim_apply(&anim, 0, &pose, &instance, &err), KILN_OK);
        kiln_scene_update(&instance);
        const float *w = pose.weights + morph->weight_offset;
        double expected_w[8] = {0};
        if (ti == 0) {
            const json_t *jw = json_object_get(mesh, "weights");
            for (uint32_t k = 0; k < targets; k++)
                expected_w[k] = json_number_value(json_array_get(jw, k));
        } else {
            sample_weights(&s, sampler, targets, t, expected_w);
        }
        for (uint32_t k = 0; k < targets; k++) {
            if (fabs(w[k] - expected_w[k]) > 1e-5)
                fail_msg("%s at t=%g: weight %u is %g, the glTF sampler gives %g", relative, t, k,
                         (double)w[k], expected_w[k]);
            res->weights[ti][k] = w[k];
        }
        assert_int_equal(
            kiln_mesh_morph_positions(&view, w, targets, morphed, 3 * (size_t)nv, &err), KILN_OK);
        const float *m = kiln_scene_world(&instance, mesh_node);
        res->unit = sqrt((double)m[0] * m[0] + (double)m[1] * m[1] + (double)m[2] * m[2]);
        res->world[ti] = malloc(3 * (size_t)nv * sizeof(double));
        for (uint32_t v = 0; v < nv; v++) {
            const src_vertex *sv = &src[match[v]];
            double expected[3], scale = 1;
            for (int k = 0; k < 3; k++) {
                expected[k] = sv->position[k];
                scale += fabs(sv->position[k]);
                for (uint32_t tg = 0; tg < targets; tg++) {
                    expected[k] += expected_w[tg] * sv->deltas[(tg * 3) * 3 + (size_t)k];
                    scale += fabs(sv->deltas[(tg * 3) * 3 + (size_t)k]);
                }
            }
            for (int k = 0; k < 3; k++) {
                double diff = fabs(morphed[3 * v + (uint32_t)k] - expected[k]);
                if (diff > 1e-5 * scale)
                    fail_msg("%s at t=%g: vertex %u morphed %c is %g, expected %g", relative, t, v,
                             "xyz"[k], (double)morphed[3 * v + (uint32_t)k], expected[k]);
                res->worst_morph = fmax(res->worst_morph, diff / scale);
            }
            const float *q = morphed + 3 * v;
            for (int r = 0; r < 3; r++)
                res->world[ti][3 * v + (uint32_t)r] = (double)m[r] * q[0] +
                                                      (double)m[4 + r] * q[1] +
                                                      (double)m[8 + r] * q[2] + m[12 + r];
            if (ti == 0) {
                double l = 0;
                for (int r = 0; r < 3; r++) {
                    double nn = 0;
                    for (int k = 0; k < 3; k++)
                        nn += (double)m[4 * k + r] * sv->normal[k];
                    res->world_normal[3 * v + (uint32_t)r] = nn;
                    l += nn * nn;
                }
                for (int r = 0; r < 3; r++)
                    res->world_normal[3 * v + (uint32_t)r] /= l > 0 ? sqrt(l) : 1;
                for (uint32_t tg = 0; tg < targets; tg++) {
                    const double *d = sv->deltas + (tg * 3) * 3;
                    res->delta_world[(size_t)v * targets + tg] =
                        res->unit * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                }
            }
        }
    }
    free(pose.local);
    free(pose.weights);
    free(morphed);
    free(memory);
    kiln_file_close(&anim_file);
    kiln_file_close(&scene_file);
    kiln_file_close(&mesh_file);
    free(match);
    for (size_t i = 0; i < src_count; i++)
        free(src[i].deltas);
    free(src);
    ref_gltf_close(&s);
    cooked_free(&c);
    free(path);
}

static void model_result_free(model_result *r) {
    for (int t = 0; t < TIMES; t++)
        free(r->world[t]);
    free(r->world_normal);
    free(r->delta_world);
}

static void corpus_morph_targets_match_the_source(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_morph_targets_match_the_source"))
        skip();
    const char *models[] = {"gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
                            "gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
                            "gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
                            "gltf/SimpleMorph/glTF/SimpleMorph.gltf"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        model_result r;
        check_model(models[i], &r);
        printf("%s: %u cooked vertices, %u targets; deltas off by at most %.3g, morphed "
               "positions by %.3g (relative)\n",
               models[i], r.vertex_count, r.targets, r.worst_delta, r.worst_morph);
        model_result_free(&r);
    }
}

/* KHR_mesh_quantization: the quantized sample and its original, each cooked
 * with its scene, place every vertex at the same world position, at rest and
 * morphed along the clip, within the quantisation error: positions and
 * position deltas are integers of one mesh unit (the quantized mesh node's
 * scale; a rounding of at most half a unit, one allowed), weights 8-bit
 * (at most half a step, 1/255 allowed, times the delta's length). */
static void quantized_sample_matches_its_original_in_world_space(void **state) {
    (void)state;
    if (test_skip_without_corpus("quantized_sample_matches_its_original_in_world_space"))
        skip();
    model_result original, quantized;
    check_model("gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", &original);
    check_model("gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf", &quantized);
    assert_int_equal(original.vertex_count, quantized.vertex_count);
    assert_int_equal(original.targets, quantized.targets);
    uint32_t n = quantized.vertex_count, targets = quantized.targets;
    double worst = 0, worst_ratio = 0;
    for (uint32_t v = 0; v < n; v++) {
        /* Its original: the vertex at the same place with the same normal, at rest. */
        uint32_t best = UINT32_MAX;
        double best_d = INFINITY;
        for (uint32_t o = 0; o < n; o++) {
            double d = 0, dot = 0;
            for (int k = 0; k < 3; k++) {
                d = fmax(d, fabs(quantized.world[0][3 * v + (uint32_t)k] -
                                 original.world[0][3 * o + (uint32_t)k]));
                dot += quantized.world_normal[3 * v + (uint32_t)k] *
                       original.world_normal[3 * o + (uint32_t)k];
            }
            if (dot > 0.99 && d < best_d) {
                best_d = d;
                best = o;
            }
        }
        assert_true(best != UINT32_MAX);
        for (int ti = 0; ti < TIMES; ti++) {
            double tolerance = quantized.unit * 1.0 + 1e-6;
            for (uint32_t t = 0; t < targets; t++)
                tolerance += quantized.unit * fabs(quantized.weights[ti][t]) +
                             (1.0 / 255.0) * original.delta_world[(size_t)best * targets + t];
            double d = 0;
            for (int k = 0; k < 3; k++)
                d = fmax(d, fabs(quantized.world[ti][3 * v + (uint32_t)k] -
                                 original.world[ti][3 * best + (uint32_t)k]));
            if (d > tolerance)
                fail_msg("quantized vertex %u at time %d is %g from its original in world space "
                         "(tolerance %g)",
                         v, ti, d, tolerance);
            worst = fmax(worst, d);
            worst_ratio = fmax(worst_ratio, d / tolerance);
        }
    }
    printf("AnimatedMorphCube quantized vs original: %u vertices x %d times, worst world "
           "distance %.3g (%.0f%% of the quantisation bound), mesh unit %.3g\n",
           n, TIMES, worst, 100 * worst_ratio, quantized.unit);
    model_result_free(&original);
    model_result_free(&quantized);
}

/* assimp's aiAnimMesh (here from its own glTF reader) becomes the same morph
 * targets as kiln's glTF importer reads: per vertex, matched by base
 * position and normal, the same deltas; the node gets one default weight per
 * target. */
static void assimp_anim_meshes_become_targets(void **state) {
    (void)state;
    if (test_skip_without_corpus("assimp_anim_meshes_become_targets"))
        skip();
    const char *models[] = {"gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
                            "gltf/SimpleMorph/glTF/SimpleMorph.gltf"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char *path = test_path_join(test_corpus_dir(), models[i]);
        char *dir = strdup(path);
        *strrchr(dir, '/') = '\0';
        const char *file = strrchr(path, '/') + 1;
        test_import a, g;
        test_import_file(&a, import_assimp, dir, file);
        test_import_file(&g, import_gltf, dir, file);
        test_import_expect_ok(&a);
        test_import_expect_ok(&g);
        test_check_asset(&a.asset);
        assert_int_equal(a.asset.mesh_count, 1);
        const ir_mesh *am = &a.asset.meshes[0], *gm = &g.asset.meshes[0];
        assert_int_equal(am->target_count, gm->target_count);
        uint32_t attributes = ir_mesh_morph_attributes(am);
        assert_true(attributes & KILN_MORPH_POSITION);
        uint32_t matched = 0;
        for (uint32_t v = 0; v < am->vertex_count; v++)
            for (uint32_t w = 0; w < gm->vertex_count; w++) {
                bool same = true;
                for (int k = 0; k < 3; k++) {
                    same &= fabsf(am->positions[3 * v + (uint32_t)k] -
                                  gm->positions[3 * w + (uint32_t)k]) < 1e-6f;
                    if (am->normals != NULL && gm->normals != NULL)
                        same &= fabsf(am->normals[3 * v + (uint32_t)k] -
                                      gm->normals[3 * w + (uint32_t)k]) < 1e-4f;
                }
                for (uint32_t t = 0; same && t < am->target_count; t++)
                    for (int k = 0; k < 3; k++) {
                        const float *x = *ir_morph_stream(&am->targets[t], k);
                        const float *y = *ir_morph_stream(&gm->targets[t], k);
                        for (int c = 0; x != NULL && y != NULL && c < 3; c++)
                            same &= fabsf(x[3 * v + (uint32_t)c] - y[3 * w + (uint32_t)c]) <
                                    1e-5f * (1 + fabsf(y[3 * w + (uint32_t)c]));
                    }
                if (same) {
                    matched++;
                    break;
                }
            }
        if (matched != am->vertex_count)
            fail_msg("%s: %u of %u assimp vertices have the glTF importer's deltas", models[i],
                     matched, am->vertex_count);
        bool weighted = false;
        for (uint32_t n = 0; n < a.asset.node_count; n++)
            if (a.asset.nodes[n].mesh == 0) {
                assert_int_equal(a.asset.nodes[n].weight_count, am->target_count);
                weighted = true;
            }
        assert_true(weighted);
        printf("%s through assimp: %u vertices, %u targets, attributes 0x%x\n", models[i],
               am->vertex_count, am->target_count, attributes);
        test_import_free(&a);
        test_import_free(&g);
        free(dir);
        free(path);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weld_keeps_different_deltas_apart),
        cmocka_unit_test(gltf_sparse_targets_import),
        cmocka_unit_test(cooked_targets_read_back),
        cmocka_unit_test(corpus_morph_targets_match_the_source),
        cmocka_unit_test(quantized_sample_matches_its_original_in_world_space),
        cmocka_unit_test(assimp_anim_meshes_become_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
