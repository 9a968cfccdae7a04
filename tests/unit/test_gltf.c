/* test_gltf.c — the glTF 2.0 importer (import_gltf): accessors of every
 * component type, strides, sparse data, primitive modes, GLB, data URIs,
 * EXT_meshopt_compression, materials, nodes, errors with JSON paths, the
 * corpus's glTF rows, and random mutations of small files. */
#include <math.h>
#include <meshoptimizer.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_import.h"
#include "test_support.h"

#include "cook/drivers/drivers.h"
#include "cook/import/draco_decode.h"  /* the Draco models' reference decode */
#include "cook/import/gltf_internal.h" /* the accessor reader, for matrices */

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* The importer under test, called as the pipeline calls it. */
static void import_bytes(test_import *r, const char *root, const char *source_path,
                         const void *bytes, size_t size) {
    test_import_bytes(r, import_gltf, root, source_path, bytes, size);
}

static void import_file(test_import *r, const char *root, const char *source_path) {
    test_import_file(r, import_gltf, root, source_path);
}

/* The import failed and some error line holds every one of the words. */
static void expect_error(const test_import *r, const char *words) {
    if (r->ok)
        fail_msg("import succeeded, expected an error with \"%s\"\n%s", words,
                 test_import_messages(r));
    assert_true(r->diag.errors > 0);
    const char *text = test_import_messages(r);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char buffer[2048];
        snprintf(buffer, sizeof buffer, "%.*s", (int)length, line);
        if (strstr(buffer, ": error: ") != NULL && strstr(buffer, words) != NULL) {
            assert_int_equal(r->asset.mesh_count, 0);
            assert_null(r->asset.meshes);
            return;
        }
        line += length + (end != NULL);
    }
    fail_msg("no error line holds \"%s\":\n%s", words, text);
}

/* The import succeeded without errors and some warning line holds every one
 * of the words (it names the glTF path of what was tolerated). */
static void expect_warning(const test_import *r, const char *words) {
    test_import_expect_ok(r);
    test_expect_message(r, ": warning: ", words);
}

static char *fresh_dir(const char *name) {
    char label[96];
    snprintf(label, sizeof label, "gltf_%s", name);
    return test_make_temp_dir(label);
}

static char *base64(const void *data, size_t size) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *p = data;
    char *out = malloc(4 * ((size + 2) / 3) + 1);
    assert_non_null(out);
    size_t n = 0;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < size)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < size)
            v |= p[i + 2];
        out[n++] = table[v >> 18 & 63];
        out[n++] = table[v >> 12 & 63];
        out[n++] = i + 1 < size ? table[v >> 6 & 63] : '=';
        out[n++] = i + 2 < size ? table[v & 63] : '=';
    }
    out[n] = '\0';
    return out;
}

/* Builds buffer 0 (one view per accessor) and the accessors. */
typedef struct builder {
    bytebuf bin;
    bytebuf views;
    bytebuf accessors;
    int view_count;
    int accessor_count;
} builder;

static int add_view(builder *b, const void *data, size_t size, unsigned stride, unsigned target) {
    while (b->bin.size % 4 != 0)
        bytebuf_append_zeros(&b->bin, 1);
    size_t offset = b->bin.size;
    bytebuf_append(&b->bin, data, size);
    bytebuf_printf(&b->views, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu",
                   b->view_count ? "," : "", offset, size);
    if (stride)
        bytebuf_printf(&b->views, ",\"byteStride\":%u", stride);
    if (target)
        bytebuf_printf(&b->views, ",\"target\":%u", target);
    bytebuf_printf(&b->views, "}");
    return b->view_count++;
}

/* `extra` (single-quoted JSON members, may be NULL) is appended to the accessor. */
static int add_accessor(builder *b, int view, unsigned component, unsigned count, const char *type,
                        bool normalized, const char *extra) {
    bytebuf_printf(&b->accessors, "%s{\"componentType\":%u,\"count\":%u,\"type\":\"%s\"",
                   b->accessor_count ? "," : "", component, count, type);
    if (view >= 0)
        bytebuf_printf(&b->accessors, ",\"bufferView\":%d", view);
    if (normalized)
        bytebuf_printf(&b->accessors, ",\"normalized\":true");
    if (extra != NULL) {
        size_t start = b->accessors.size + 1;
        bytebuf_printf(&b->accessors, ",%s", extra);
        for (size_t i = start; i < b->accessors.size; i++)
            if (b->accessors.data[i] == '\'')
                b->accessors.data[i] = '"';
    }
    bytebuf_printf(&b->accessors, "}");
    return b->accessor_count++;
}

/* Tightly packed float VEC3 data (positions) gets the min and max glTF
 * requires of positions, from the data ("%.9g" round-trips a float). */
static int add_data(builder *b, const void *data, size_t size, unsigned component, unsigned count,
                    const char *type, bool normalized, unsigned stride, unsigned target) {
    int view = add_view(b, data, size, stride, target);
    char bounds[256] = "";
    if (component == 5126 /* FLOAT */ && strcmp(type, "VEC3") == 0 &&
        (stride == 0 || stride == 12) && count > 0 && size >= (size_t)count * 12) {
        float lo[3], hi[3];
        for (unsigned e = 0; e < count; e++)
            for (int k = 0; k < 3; k++) {
                float v;
                memcpy(&v, (const uint8_t *)data + (size_t)e * 12 + (size_t)k * 4, sizeof v);
                lo[k] = e == 0 || v < lo[k] ? v : lo[k];
                hi[k] = e == 0 || v > hi[k] ? v : hi[k];
            }
        if (isfinite(lo[0] + lo[1] + lo[2] + hi[0] + hi[1] + hi[2]))
            snprintf(bounds, sizeof bounds, "'min':[%.9g,%.9g,%.9g],'max':[%.9g,%.9g,%.9g]",
                     (double)lo[0], (double)lo[1], (double)lo[2], (double)hi[0], (double)hi[1],
                     (double)hi[2]);
    }
    return add_accessor(b, view, component, count, type, normalized,
                        bounds[0] != '\0' ? bounds : NULL);
}

static const char *text_of(const bytebuf *buf) {
    return buf->data ? (const char *)buf->data : "";
}

/* The whole document; `rest` (single-quoted) holds the other top-level members. */
static char *builder_json(builder *b, const char *rest, bool glb) {
    char *buffers;
    if (b->view_count == 0) {
        buffers = test_json_text("");
    } else if (glb) {
        buffers = test_json_text("'buffers':[{'byteLength':%zu}],'bufferViews':[%s],", b->bin.size,
                                 text_of(&b->views));
    } else {
        char *data = base64(b->bin.data, b->bin.size);
        buffers = test_json_text("'buffers':[{'byteLength':%zu,'uri':'data:application/"
                                 "octet-stream;base64,%s'}],'bufferViews':[%s],",
                                 b->bin.size, data, text_of(&b->views));
        free(data);
    }
    char *accessors = b->accessor_count
                          ? test_json_text("'accessors':[%s],", text_of(&b->accessors))
                          : test_json_text("");
    char *body = test_json_text("%s", rest);
    char *json = test_json_text("{'asset':{'version':'2.0'},%s%s%s}", buffers, accessors, body);
    free(buffers);
    free(accessors);
    free(body);
    return json;
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* A GLB of a JSON text and an optional BIN payload. */
static uint8_t *make_glb(const char *json, const void *bin, size_t bin_size, size_t *size) {
    size_t json_length = (strlen(json) + 3) & ~(size_t)3;
    size_t bin_length = (bin_size + 3) & ~(size_t)3;
    size_t total = 12 + 8 + json_length + (bin ? 8 + bin_length : 0);
    uint8_t *glb = calloc(1, total);
    assert_non_null(glb);
    memcpy(glb, "glTF", 4);
    put_u32(glb + 4, 2);
    put_u32(glb + 8, (uint32_t)total);
    put_u32(glb + 12, (uint32_t)json_length);
    memcpy(glb + 16, "JSON", 4);
    memset(glb + 20, ' ', json_length);
    memcpy(glb + 20, json, strlen(json));
    if (bin != NULL) {
        uint8_t *chunk = glb + 20 + json_length;
        put_u32(chunk, (uint32_t)bin_length);
        memcpy(chunk + 4, "BIN\0", 4);
        memcpy(chunk + 8, bin, bin_size);
    }
    *size = total;
    return glb;
}

static void builder_free(builder *b) {
    bytebuf_free(&b->bin);
    bytebuf_free(&b->views);
    bytebuf_free(&b->accessors);
}

static void expect_floats(const float *actual, const float *expected, size_t n, float tolerance) {
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(actual[i] - expected[i]) <= tolerance))
            fail_msg("value %zu: %.9g, expected %.9g", i, (double)actual[i], (double)expected[i]);
}

static void expect_indices(const ir_mesh *mesh, const uint32_t *expected, uint32_t n) {
    assert_int_equal(mesh->index_count, n);
    for (uint32_t i = 0; i < n; i++)
        if (mesh->indices[i] != expected[i])
            fail_msg("index %u: %u, expected %u", i, mesh->indices[i], expected[i]);
}

enum { BYTE = 5120, UBYTE = 5121, SHORT = 5122, USHORT = 5123, UINT = 5125, FLOAT = 5126 };

static const float TRIANGLE[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

/* ---------------------------------------------------------------------------
 * Accessors
 * ------------------------------------------------------------------------- */

static void gltf_decodes_every_component_type(void **state) {
    (void)state;
    char *dir = fresh_dir("components");
    builder b = {0};
    /* 3 vertices per mesh; 8/16-bit VEC3 padded to a 4-byte stride. */
    const int8_t s8[12] = {-128, -127, 0, 0, 127, 64, 1, 0, 0, 0, 0, 0};
    const uint8_t u8[12] = {0, 255, 51, 0, 255, 0, 0, 0, 0, 0, 255, 0};
    const int16_t s16[12] = {-32768, 32767, -16384, 0, 0, 1, 2, 0, 3, 4, 5, 0};
    const uint16_t u16[12] = {65535, 0, 32768, 0, 1, 2, 3, 0, 4, 5, 6, 0};
    const uint8_t idx8[3] = {0, 1, 2};
    const uint16_t idx16[3] = {2, 1, 0};
    const uint32_t idx32[3] = {0, 2, 1};
    int a_s8n = add_data(&b, s8, sizeof s8, BYTE, 3, "VEC3", true, 4, 34962);
    int a_u8n = add_data(&b, u8, sizeof u8, UBYTE, 3, "VEC3", true, 4, 34962);
    int a_s16n = add_data(&b, s16, sizeof s16, SHORT, 3, "VEC3", true, 8, 34962);
    int a_u16n = add_data(&b, u16, sizeof u16, USHORT, 3, "VEC3", true, 8, 34962);
    int a_s16 = add_data(&b, s16, sizeof s16, SHORT, 3, "VEC3", false, 8, 34962);
    int a_u8 = add_data(&b, u8, sizeof u8, UBYTE, 3, "VEC3", false, 4, 34962);
    int a_f = add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    int a_i8 = add_data(&b, idx8, sizeof idx8, UBYTE, 3, "SCALAR", false, 0, 34963);
    int a_i16 = add_data(&b, idx16, sizeof idx16, USHORT, 3, "SCALAR", false, 0, 34963);
    int a_i32 = add_data(&b, idx32, sizeof idx32, UINT, 3, "SCALAR", false, 0, 34963);
    /* TEXCOORD_0 as normalized unsigned short and byte (core glTF) */
    const uint16_t uv16[6] = {0, 65535, 32768, 0, 65535, 65535};
    const uint8_t uv8[8] = {255, 0, 0, 0, 51, 102, 0, 0};
    int a_uv16 = add_data(&b, uv16, sizeof uv16, USHORT, 3, "VEC2", true, 4, 34962);
    int a_uv8 = add_data(&b, uv8, 6, UBYTE, 3, "VEC2", true, 0, 0);
    char rest[2048];
    int positions[7] = {a_s8n, a_u8n, a_s16n, a_u16n, a_s16, a_u8, a_f};
    int indices[3] = {a_i8, a_i16, a_i32};
    size_t n = (size_t)snprintf(rest, sizeof rest,
                                "'extensionsUsed':['KHR_mesh_quantization'],"
                                "'extensionsRequired':['KHR_mesh_quantization'],'meshes':[");
    for (int m = 0; m < 7; m++)
        n += (size_t)snprintf(rest + n, sizeof rest - n,
                              "%s{'primitives':[{'attributes':{'POSITION':%d%s},'indices':%d}]}",
                              m ? "," : "", positions[m],
                              m == 0 ? ",'TEXCOORD_0':10" : (m == 1 ? ",'TEXCOORD_0':11" : ""),
                              indices[m % 3]);
    snprintf(rest + n, sizeof rest - n, "]");
    assert_int_equal(a_uv16, 10);
    assert_int_equal(a_uv8, 11);
    char *json = builder_json(&b, rest, false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.mesh_count, 7);
    const float e_s8n[9] = {-1, -1, 0, 1, 64 / 127.0f, 1 / 127.0f, 0, 0, 0};
    const float e_u8n[9] = {0, 1, 0.2f, 1, 0, 0, 0, 0, 1};
    const float e_s16n[9] = {
        -1,           1,           -16384 / 32767.0f, 0, 1 / 32767.0f, 2 / 32767.0f, 3 / 32767.0f,
        4 / 32767.0f, 5 / 32767.0f};
    const float e_u16n[9] = {1,
                             0,
                             32768 / 65535.0f,
                             1 / 65535.0f,
                             2 / 65535.0f,
                             3 / 65535.0f,
                             4 / 65535.0f,
                             5 / 65535.0f,
                             6 / 65535.0f};
    const float e_s16[9] = {-32768, 32767, -16384, 0, 1, 2, 3, 4, 5};
    const float e_u8[9] = {0, 255, 51, 255, 0, 0, 0, 0, 255};
    const float *expected[7] = {e_s8n, e_u8n, e_s16n, e_u16n, e_s16, e_u8, TRIANGLE};
    const uint32_t index_lists[3][3] = {{0, 1, 2}, {2, 1, 0}, {0, 2, 1}};
    for (int m = 0; m < 7; m++) {
        const ir_mesh *mesh = &r.asset.meshes[m];
        assert_int_equal(mesh->vertex_count, 3);
        expect_floats(mesh->positions, expected[m], 9, 1e-7f);
        expect_indices(mesh, index_lists[m % 3], 3);
        assert_null(mesh->normals);
    }
    const float e_uv16[6] = {0, 1, 32768 / 65535.0f, 0, 1, 1};
    const float e_uv8[6] = {1, 0, 0, 0, 0.2f, 0.4f};
    expect_floats(r.asset.meshes[0].texcoords[0], e_uv16, 6, 1e-7f);
    expect_floats(r.asset.meshes[1].texcoords[0], e_uv8, 6, 1e-7f);
    /* No material anywhere: one default material, used by every submesh. */
    assert_int_equal(r.asset.material_count, 1);
    assert_string_equal(r.asset.materials[0].name, "default");
    test_import_free(&r);
    free(json);

    /* The same file without KHR_mesh_quantization: integer positions are refused. */
    char *plain = builder_json(&b,
                               rest + strlen("'extensionsUsed':['KHR_mesh_quantization'],"
                                             "'extensionsRequired':['KHR_mesh_quantization'],"),
                               false);
    test_import_gltf_json(&r, dir, plain);
    expect_error(&r, "meshes[0].primitives[0].attributes.POSITION: accessor 0 is VEC3 "
                     "normalized BYTE; it must be VEC3 FLOAT");
    test_import_free(&r);
    free(plain);
    builder_free(&b);
    free(dir);
}

static void gltf_reads_interleaved_strides(void **state) {
    (void)state;
    char *dir = fresh_dir("stride");
    builder b = {0};
    /* position xyz, normal xyz, uv, 4 bytes of padding: stride 36 */
    float vertices[3][9];
    for (int v = 0; v < 3; v++) {
        float data[9] = {TRIANGLE[3 * v],
                         TRIANGLE[3 * v + 1],
                         TRIANGLE[3 * v + 2],
                         0,
                         0,
                         2,
                         0.25f * (float)v,
                         1 - 0.25f * (float)v,
                         -1};
        memcpy(vertices[v], data, sizeof data);
    }
    int view = add_view(&b, vertices, sizeof vertices, 36, 34962);
    add_accessor(&b, view, FLOAT, 3, "VEC3", false, NULL);
    add_accessor(&b, view, FLOAT, 3, "VEC3", false, "'byteOffset':12");
    add_accessor(&b, view, FLOAT, 3, "VEC2", false, "'byteOffset':24");
    char *json = builder_json(&b,
                              "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1,"
                              "'TEXCOORD_0':2}}]}]",
                              false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = &r.asset.meshes[0];
    expect_floats(mesh->positions, TRIANGLE, 9, 0);
    const float normals[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1}; /* normalised from (0, 0, 2) */
    expect_floats(mesh->normals, normals, 9, 0);
    const float uv[6] = {0, 1, 0.25f, 0.75f, 0.5f, 0.5f};
    expect_floats(mesh->texcoords[0], uv, 6, 0);
    const uint32_t expected[3] = {0, 1, 2}; /* non-indexed */
    expect_indices(mesh, expected, 3);
    test_import_free(&r);
    free(json);

    /* A stride smaller than the element, and one that is not a multiple of 4. */
    uint8_t zeros[64] = {0};
    char *zero_data = base64(zeros, sizeof zeros);
    char *small =
        test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':64,'uri':"
                       "'data:application/octet-stream;base64,%s'}],'bufferViews':[{'buffer':"
                       "0,'byteLength':64,'byteStride':8}],'accessors':[{'bufferView':0,"
                       "'componentType':5126,'count':2,'type':'VEC3'}],'meshes':[{"
                       "'primitives':[{'attributes':{'POSITION':0}}]}]}",
                       zero_data);
    free(zero_data);
    test_import_gltf_json(&r, dir, small);
    expect_error(&r, "accessors[0]: bufferViews[0].byteStride 8 is smaller than the element "
                     "size 12");
    test_import_free(&r);
    char *p = strstr(small, "\"byteStride\":8");
    assert_non_null(p);
    p[strlen("\"byteStride\":")] = '6';
    test_import_gltf_json(&r, dir, small);
    expect_error(&r, "bufferViews[0].byteStride: 6 is not a multiple of 4");
    test_import_free(&r);
    free(small);
    builder_free(&b);
    free(dir);
}

static void gltf_applies_sparse_accessors(void **state) {
    (void)state;
    char *dir = fresh_dir("sparse");
    builder b = {0};
    const float base[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    const uint16_t sparse_indices[2] = {1, 3};
    const float sparse_values[6] = {5, 0, 0, 7, 7, 0};
    int base_view = add_view(&b, base, sizeof base, 0, 34962);
    int index_view = add_view(&b, sparse_indices, sizeof sparse_indices, 0, 0);
    int value_view = add_view(&b, sparse_values, sizeof sparse_values, 0, 0);
    char sparse[256];
    snprintf(sparse, sizeof sparse,
             "'sparse':{'count':2,'indices':{'bufferView':%d,'componentType':5123},"
             "'values':{'bufferView':%d}}",
             index_view, value_view);
    add_accessor(&b, base_view, FLOAT, 4, "VEC3", false, sparse);
    add_accessor(&b, -1, FLOAT, 4, "VEC3", false, sparse); /* no bufferView: zeros + sparse */
    const uint8_t indices[6] = {0, 1, 2, 2, 1, 3};
    add_data(&b, indices, sizeof indices, UBYTE, 6, "SCALAR", false, 0, 34963);
    char *json =
        builder_json(&b,
                     "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':2}]},"
                     "{'primitives':[{'attributes':{'POSITION':1},'indices':2}]}]",
                     false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const float with_base[12] = {0, 0, 0, 5, 0, 0, 0, 1, 0, 7, 7, 0};
    const float with_zeros[12] = {0, 0, 0, 5, 0, 0, 0, 0, 0, 7, 7, 0};
    expect_floats(r.asset.meshes[0].positions, with_base, 12, 0);
    expect_floats(r.asset.meshes[1].positions, with_zeros, 12, 0);
    test_import_free(&r);
    free(json);
    builder_free(&b);

    /* Sparse indices must increase and stay below the count. */
    builder c = {0};
    const uint16_t bad_indices[2] = {3, 1};
    base_view = add_view(&c, base, sizeof base, 0, 34962);
    index_view = add_view(&c, bad_indices, sizeof bad_indices, 0, 0);
    value_view = add_view(&c, sparse_values, sizeof sparse_values, 0, 0);
    snprintf(sparse, sizeof sparse,
             "'sparse':{'count':2,'indices':{'bufferView':%d,'componentType':5123},"
             "'values':{'bufferView':%d}}",
             index_view, value_view);
    add_accessor(&c, base_view, FLOAT, 4, "VEC3", false, sparse);
    json = builder_json(&c, "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'mode':5}]}]",
                        false);
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "accessors[0].sparse.indices: index 1 (element 1) does not increase");
    test_import_free(&r);
    free(json);
    builder_free(&c);
    free(dir);
}

static void gltf_reports_accessor_ranges_with_json_paths(void **state) {
    (void)state;
    char *dir = fresh_dir("ranges");
    test_import r;
    /* 10 VEC3 floats need 120 bytes from offset 64: the view has 100. (The data
     * URI is 268 base64 '0' characters: 201 bytes.) */
    char *json = test_json_text(
        "{'asset':{'version':'2.0'},'buffers':[{'byteLength':200,'uri':'data:application/"
        "octet-stream;base64,%0*d'}],'bufferViews':[{'buffer':0,'byteLength':8},{'buffer':0,"
        "'byteOffset':100,'byteLength':100}],'accessors':[{'componentType':5126,'count':1,"
        "'type':'SCALAR'},{'componentType':5126,'count':1,'type':'SCALAR'},{'componentType':"
        "5126,'count':1,'type':'SCALAR'},{'bufferView':1,'byteOffset':64,'componentType':5126,"
        "'count':10,'type':'VEC3'}],'meshes':[{'primitives':[{'attributes':{'POSITION':3}}]}]}",
        268, 0);
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "accessors[3]: byteOffset 64 + (count 10 - 1) * stride 12 + element size 12 "
                     "exceeds bufferViews[1].byteLength 100");
    test_import_free(&r);
    free(json);

    /* A view beyond its buffer. */
    json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':4,'uri':'data:"
                          "application/octet-stream;base64,AAAAAA=='}],'bufferViews':[{'buffer':0,"
                          "'byteOffset':2,'byteLength':4}],'accessors':[{'bufferView':0,"
                          "'componentType':5126,'count':1,'type':'VEC3'}],'meshes':[{'primitives':"
                          "[{'attributes':{'POSITION':0}}]}]}");
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "bufferViews[0]: byteOffset 2 + byteLength 4 exceeds buffers[0].byteLength 4");
    test_import_free(&r);
    free(json);

    /* A reference to an accessor that does not exist. */
    builder b = {0};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 0);
    json = builder_json(&b,
                        "'meshes':[{'primitives':[{'attributes':{'POSITION':0}},"
                        "{'attributes':{'POSITION':0},'indices':7}]}]",
                        false);
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "model.gltf: error: meshes[0].primitives[1].indices: accessor 7 does not "
                     "exist");
    test_import_free(&r);
    free(json);

    /* Indices beyond the vertices. */
    const uint16_t indices[3] = {0, 1, 3};
    add_data(&b, indices, sizeof indices, USHORT, 3, "SCALAR", false, 0, 34963);
    json = builder_json(&b, "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':1}]}]",
                        false);
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "meshes[0].primitives[0].indices: index 3 (element 2) is out of range: the "
                     "primitive has 3 vertices");
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

/* Matrix accessors: every column starts on a 4-byte boundary (glTF 2.0
 * §3.6.2.4), so MAT2 BYTE is 8 bytes, MAT3 BYTE 12 and MAT3 SHORT 24; the
 * padding (0x7f here) is skipped when reading. */
static void gltf_reads_padded_matrix_columns(void **state) {
    (void)state;
    builder b = {0};
    const int8_t mat2[16] = {1, 2, 127, 127, 3, 4, 127, 127, -1, -2, 127, 127, -3, -4, 127, 127};
    const uint8_t mat3[24] = {1, 2,  3,  127, 4,  5,  6,  127, 7,  8,  9,  127,
                              9, 10, 11, 127, 12, 13, 14, 127, 15, 16, 17, 127};
    const int16_t mat3s[24] = {100, 200, 300, 32767, 400, 500, 600, 32767, 700, 800, 900, 32767,
                               -1,  -2,  -3,  32767, -4,  -5,  -6,  32767, -7,  -8,  -9,  32767};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    add_data(&b, mat2, sizeof mat2, BYTE, 2, "MAT2", false, 0, 0);
    add_data(&b, mat3, sizeof mat3, UBYTE, 2, "MAT3", true, 0, 0);
    add_data(&b, mat3s, sizeof mat3s, SHORT, 2, "MAT3", false, 0, 0);
    /* the views are exactly count * element size: a valid file, cooked silently */
    char *json =
        builder_json(&b, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]", false);
    char *dir = fresh_dir("matrices");
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    assert_int_equal(r.diag.warnings, 0);
    test_import_free(&r);

    /* The reader itself (nothing kiln cooks reads matrices of small types yet). */
    json_error_t error;
    json_t *root = json_loads(json, 0, &error);
    assert_non_null(root);
    cook_diag diag = {0};
    cook_context ctx = {.diag = &diag};
    gltf_buffer buffer = {.data = b.bin.data, .length = b.bin.size};
    gltf g = {.ctx = &ctx,
              .path = "matrices.gltf",
              .root = root,
              .buffers = &buffer,
              .n_buffers = 1,
              .budget = 1u << 20};
    g.j_views = json_object_get(root, "bufferViews");
    g.n_views = json_array_size(g.j_views);
    g.j_accessors = json_object_get(root, "accessors");
    g.n_accessors = json_array_size(g.j_accessors);
    assert_true(gltf_prepare_accessors(&g));
    const float e_mat2[8] = {1, 2, 3, 4, -1, -2, -3, -4};
    float e_mat3[18];
    for (int k = 0; k < 18; k++)
        e_mat3[k] = (float)(k < 9 ? k + 1 : k) / 255.0f; /* normalized */
    const float e_mat3s[18] = {100, 200, 300, 400, 500, 600, 700, 800, 900,
                               -1,  -2,  -3,  -4,  -5,  -6,  -7,  -8,  -9};
    const float *expected[3] = {e_mat2, e_mat3, e_mat3s};
    const uint32_t element_size[3] = {8, 12, 24};
    for (uint32_t i = 0; i < 3; i++) {
        assert_true(gltf_accessor_valid(&g, i + 1));
        assert_int_equal(g.accessors[i + 1].element_size, element_size[i]);
        float *values;
        assert_true(gltf_read_floats(&g, i + 1, "test", &values));
        expect_floats(values, expected[i], i ? 18 : 8, 1e-7f);
        free(values);
    }
    assert_int_equal(diag.errors, 0);
    free(g.views);
    free(g.accessors);
    diag_free(&diag);
    json_decref(root);
    free(json);

    /* A view 2 bytes short of the padded size (the last column's padding)
     * is an error once something uses the accessor. */
    builder_free(&b);
    builder c = {0};
    add_data(&c, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    add_data(&c, mat3s, sizeof mat3s - 2, SHORT, 2, "MAT3", false, 0, 0);
    json =
        builder_json(&c, "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'_M':1}}]}]", false);
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "accessors[1]: byteOffset 0 + (count 2 - 1) * stride 24 + element size 24 "
                     "exceeds bufferViews[1].byteLength 46");
    test_import_free(&r);
    free(json);
    builder_free(&c);
    free(dir);
}

/* A bad value in a view, accessor or image that nothing cooked uses is a
 * warning naming it (kiln never reads it); a malformed document (missing
 * required property, unresolved reference) stays an error wherever it is. */
static void gltf_warns_about_bad_values_in_unused_objects(void **state) {
    (void)state;
    char *dir = fresh_dir("unused");
    builder b = {0};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    add_accessor(&b, -1, 5124, 1, "SCALAR", false, NULL);             /* unknown componentType */
    add_accessor(&b, 0, FLOAT, 1, "SCALAR", false, "'byteOffset':2"); /* misaligned */
    bytebuf_printf(&b.views, ",{'buffer':0,'byteLength':8,'byteStride':6}"
                             ",{'buffer':0,'byteOffset':32,'byteLength':8}");
    for (size_t i = 0; i < b.views.size; i++)
        if (b.views.data[i] == '\'')
            b.views.data[i] = '"';
    b.view_count += 2;
    const char *mesh = "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],"
                       "'images':[{'uri':'t.ktx2'}]";
    char *json = builder_json(&b, mesh, false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    expect_warning(&r, "accessors[1].componentType: 5124 is not a glTF component type (not used "
                       "by anything kiln cooks; ignored)");
    expect_warning(&r, "accessors[2].byteOffset: 2 is not a multiple of the component size 4 (not "
                       "used by anything kiln cooks; ignored)");
    expect_warning(&r, "bufferViews[1].byteStride: 6 is not a multiple of 4 (not used");
    expect_warning(&r, "bufferViews[2]: byteOffset 32 + byteLength 8 exceeds buffers[0]");
    expect_warning(&r, "images[0]: unsupported image format ('t.ktx2'); kiln reads PNG and JPEG "
                       "images (not used");
    assert_int_equal(r.diag.warnings, 5);
    test_check_asset(&r.asset);
    expect_floats(r.asset.meshes[0].positions, TRIANGLE, 9, 0);
    test_import_free(&r);
    free(json);

    /* Unknown enum values kiln does not cook (glTF-Validator's VALUE_NOT_IN_LIST is
     * a warning): a sampler's filter and wrap, a used view's target. */
    json = builder_json(&b,
                        "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}],"
                        "'samplers':[{'magFilter':1234,'wrapS':5}]",
                        false);
    char *target = strstr(json, "\"target\":34962");
    assert_non_null(target);
    memcpy(target, "\"target\":34999", strlen("\"target\":34999"));
    test_import_gltf_json(&r, dir, json);
    expect_warning(&r, "samplers[0].magFilter: 1234 is not a valid value; ignored");
    expect_warning(&r, "samplers[0].wrapS: 5 is not a valid value; ignored");
    expect_warning(&r, "bufferViews[0].target: 34999 is neither ARRAY_BUFFER (34962) nor "
                       "ELEMENT_ARRAY_BUFFER (34963); ignored");
    expect_floats(r.asset.meshes[0].positions, TRIANGLE, 9, 0);
    test_import_free(&r);
    free(json);

    /* The same accessors and image used: errors. */
    static const char *const used[][2] = {
        {"'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':1}]}]",
         "accessors[1].componentType: 5124 is not a glTF component type"},
        {"'meshes':[{'primitives':[{'attributes':{'POSITION':0,'_X':2}}]}]",
         "accessors[2].byteOffset: 2 is not a multiple of the component size 4"},
        {"'images':[{'uri':'t.ktx2'}],'textures':[{'source':0}]",
         "images[0]: unsupported image format"},
    };
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++) {
        json = builder_json(&b, used[i][0], false);
        test_import_gltf_json(&r, dir, json);
        expect_error(&r, used[i][1]);
        test_import_free(&r);
        free(json);
    }
    builder_free(&b);

    /* Structure is checked everywhere: a missing required property, an
     * unresolved reference, a URI leaving the input folder. */
    static const char *const malformed[][2] = {
        {"'accessors':[{'count':1,'type':'SCALAR'}]",
         "accessors[0]: required property 'componentType' is missing"},
        {"'accessors':[{'bufferView':3,'componentType':5126,'count':1,'type':'SCALAR'}]",
         "accessors[0].bufferView: bufferView 3 does not exist"},
        {"'images':[{'uri':'../../x.png'}]", "images[0].uri: URI '../../x.png' leaves the input"},
    };
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        json = test_json_text("{'asset':{'version':'2.0'},%s}", malformed[i][0]);
        test_import_gltf_json(&r, dir, json);
        expect_error(&r, malformed[i][1]);
        test_import_free(&r);
        free(json);
    }
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Primitives
 * ------------------------------------------------------------------------- */

static void gltf_converts_strips_and_fans(void **state) {
    (void)state;
    char *dir = fresh_dir("strips");
    builder b = {0};
    const float positions[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0};
    const uint16_t run[6] = {0, 1, 2, 3, 4, 0};
    const uint16_t stitched[6] = {0, 1, 2, 2, 3, 4};
    add_data(&b, positions, sizeof positions, FLOAT, 5, "VEC3", false, 0, 34962); /* 0 */
    int view = add_view(&b, run, sizeof run, 0, 34963);
    add_accessor(&b, view, USHORT, 5, "SCALAR", false, NULL);                      /* 1 */
    add_data(&b, stitched, sizeof stitched, USHORT, 6, "SCALAR", false, 0, 34963); /* 2 */
    add_accessor(&b, -1, FLOAT, 4, "VEC3", false, NULL);                           /* 3 */
    add_accessor(&b, view, USHORT, 2, "SCALAR", false, NULL);                      /* 4 */
    char *json =
        builder_json(&b,
                     "'meshes':["
                     "{'primitives':[{'attributes':{'POSITION':0},'indices':1,'mode':5}]},"
                     "{'primitives':[{'attributes':{'POSITION':0},'indices':1,'mode':6}]},"
                     "{'primitives':[{'attributes':{'POSITION':0},'indices':2,'mode':5}]},"
                     "{'primitives':[{'attributes':{'POSITION':0},'mode':5}]},"
                     "{'primitives':[{'attributes':{'POSITION':0},'mode':6}]},"
                     "{'primitives':[{'attributes':{'POSITION':0},'mode':1},"
                     "{'attributes':{'POSITION':0},'mode':0}]},"
                     "{'primitives':[{'attributes':{'POSITION':0},'indices':4,'mode':5}]}]",
                     false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.mesh_count, 6); /* the last one's strip has no triangle */
    /* strip triangle i = {v[i], v[i + 1 + i % 2], v[i + 2 - i % 2]} */
    const uint32_t strip[9] = {0, 1, 2, 1, 3, 2, 2, 3, 4};
    /* fan triangle i = {v[i + 1], v[i + 2], v[0]} */
    const uint32_t fan[9] = {1, 2, 0, 2, 3, 0, 3, 4, 0};
    /* the degenerate stitching triangles are dropped */
    const uint32_t stitched_out[6] = {0, 1, 2, 2, 4, 3};
    expect_indices(&r.asset.meshes[0], strip, 9);
    expect_indices(&r.asset.meshes[1], fan, 9);
    expect_indices(&r.asset.meshes[2], stitched_out, 6);
    expect_indices(&r.asset.meshes[3], strip, 9); /* non-indexed: vertex order */
    expect_indices(&r.asset.meshes[4], fan, 9);
    /* every triangle keeps the counter-clockwise winding of the strip's first */
    for (uint32_t m = 0; m < 1; m++) {
        const ir_mesh *mesh = &r.asset.meshes[m];
        for (uint32_t t = 0; t < 3; t++) {
            const float *a = mesh->positions + 3 * mesh->indices[3 * t];
            const float *c = mesh->positions + 3 * mesh->indices[3 * t + 2];
            const float *bb = mesh->positions + 3 * mesh->indices[3 * t + 1];
            float z = (bb[0] - a[0]) * (c[1] - a[1]) - (bb[1] - a[1]) * (c[0] - a[0]);
            assert_true(z > 0);
        }
    }
    /* LINES of 5 vertices: two whole lines, the fifth vertex left over. */
    const uint32_t lines_and_points[9] = {0, 1, 2, 3, 0, 1, 2, 3, 4};
    expect_indices(&r.asset.meshes[5], lines_and_points, 9);
    assert_int_equal(r.asset.meshes[5].submeshes[0].topology, KILN_TOPOLOGY_LINES);
    assert_int_equal(r.asset.meshes[5].submeshes[1].topology, KILN_TOPOLOGY_POINTS);
    assert_non_null(strstr(test_import_messages(&r),
                           "meshes[5].primitives[0]: 1 vertex(es) left over (LINES with 5 "
                           "vertices: whole lines only); ignored"));
    assert_non_null(
        strstr(test_import_messages(&r), "meshes[6].primitives[0]: no triangles; skipped"));
    /* node-less file: meshes still come out; the mesh with nothing to cook is dropped */
    test_import_free(&r);
    free(json);

    /* TRIANGLES with a count that is not a multiple of 3: the whole ones */
    json = builder_json(&b,
                        "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'mode':1},"
                        "{'attributes':{'POSITION':0},'indices':1}]}]",
                        false);
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const uint32_t lines_then_triangle[7] = {0, 1, 2, 3, 0, 1, 2};
    expect_indices(&r.asset.meshes[0], lines_then_triangle, 7);
    assert_int_equal(r.asset.meshes[0].submeshes[1].topology, KILN_TOPOLOGY_TRIANGLES);
    assert_non_null(strstr(test_import_messages(&r),
                           "meshes[0].primitives[1]: 2 index(es) left over (TRIANGLES with 5 "
                           "indices: whole triangles only); ignored"));
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

/* POINTS, LINES, LINE_LOOP and LINE_STRIP as lists, each primitive a submesh
 * with its topology, over 4 indexed vertices and over the plain vertices. */
static void gltf_imports_points_and_lines(void **state) {
    (void)state;
    char *dir = fresh_dir("lines");
    builder b = {0};
    const float positions[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const uint8_t order[4] = {0, 1, 2, 3};
    add_data(&b, positions, sizeof positions, FLOAT, 4, "VEC3", false, 0, 34962); /* 0 */
    add_data(&b, order, sizeof order, UBYTE, 4, "SCALAR", false, 0, 34963);       /* 1 */
    char *json = builder_json(&b,
                              "'meshes':[{'primitives':["
                              "{'attributes':{'POSITION':0},'indices':1,'mode':0},"
                              "{'attributes':{'POSITION':0},'indices':1,'mode':1},"
                              "{'attributes':{'POSITION':0},'indices':1,'mode':2},"
                              "{'attributes':{'POSITION':0},'indices':1,'mode':3},"
                              "{'attributes':{'POSITION':0},'mode':2},"
                              "{'attributes':{'POSITION':0},'mode':3}]}]",
                              false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.mesh_count, 1);
    const ir_mesh *mesh = &r.asset.meshes[0];
    static const uint32_t expected[] = {
        0, 1, 2, 3,             /* POINTS */
        0, 1, 2, 3,             /* LINES */
        0, 1, 1, 2, 2, 3, 3, 0, /* LINE_LOOP: the closing segment 3 0 */
        0, 1, 1, 2, 2, 3,       /* LINE_STRIP */
        0, 1, 1, 2, 2, 3, 3, 0, /* LINE_LOOP without indices */
        0, 1, 1, 2, 2, 3};      /* LINE_STRIP without indices */
    expect_indices(mesh, expected, sizeof expected / sizeof expected[0]);
    static const kiln_topology topologies[6] = {KILN_TOPOLOGY_POINTS, KILN_TOPOLOGY_LINES,
                                                KILN_TOPOLOGY_LINES,  KILN_TOPOLOGY_LINES,
                                                KILN_TOPOLOGY_LINES,  KILN_TOPOLOGY_LINES};
    static const uint32_t counts[6] = {4, 4, 8, 6, 8, 6};
    assert_int_equal(mesh->submesh_count, 6);
    for (uint32_t s = 0; s < 6; s++) {
        assert_int_equal(mesh->submeshes[s].topology, topologies[s]);
        assert_int_equal(mesh->submeshes[s].index_count, counts[s]);
    }
    assert_null(mesh->normals); /* no triangles and no NORMAL: none made up */
    assert_null(strstr(test_import_messages(&r), "warning"));
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

/* Normals follow the triangles: a line without NORMAL next to a triangle
 * with one gets +Z instead of costing the triangle its own. */
static void gltf_lines_without_normals_keep_the_triangles_normals(void **state) {
    (void)state;
    char *dir = fresh_dir("line_normals");
    builder b = {0};
    const float normals[9] = {0, 1, 0, 0, 1, 0, 0, 1, 0};
    const float ends[6] = {5, 5, 5, 6, 5, 5};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962); /* 0 */
    add_data(&b, normals, sizeof normals, FLOAT, 3, "VEC3", false, 0, 34962);   /* 1 */
    add_data(&b, ends, sizeof ends, FLOAT, 2, "VEC3", false, 0, 34962);         /* 2 */
    char *json = builder_json(&b,
                              "'meshes':[{'primitives':["
                              "{'attributes':{'POSITION':2},'mode':1},"
                              "{'attributes':{'POSITION':0,'NORMAL':1}}]}]",
                              false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = &r.asset.meshes[0];
    assert_non_null(mesh->normals);
    assert_int_equal(mesh->submeshes[0].topology, KILN_TOPOLOGY_LINES);
    const float up[3] = {0, 0, 1}, given[3] = {0, 1, 0};
    expect_floats(mesh->normals + 3 * mesh->indices[0], up, 3, 0);
    expect_floats(mesh->normals + 3 * mesh->indices[2], given, 3, 0);
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

static void gltf_merges_primitives_into_submeshes(void **state) {
    (void)state;
    char *dir = fresh_dir("submeshes");
    builder b = {0};
    const float normals[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float quad[12] = {0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    const float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    const uint8_t colors[16] = {255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 51, 51, 51, 0};
    const uint16_t tri[3] = {0, 1, 2}, quad_indices[6] = {0, 1, 2, 0, 2, 3}, back[3] = {2, 1, 0};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);            /* 0 */
    add_data(&b, normals, sizeof normals, FLOAT, 3, "VEC3", false, 0, 34962);              /* 1 */
    add_data(&b, quad, sizeof quad, FLOAT, 4, "VEC3", false, 0, 34962);                    /* 2 */
    add_data(&b, uv, sizeof uv, FLOAT, 4, "VEC2", false, 0, 34962);                        /* 3 */
    add_data(&b, colors, sizeof colors, UBYTE, 4, "VEC3", true, 4, 34962);                 /* 4 */
    add_data(&b, tri, sizeof tri, USHORT, 3, "SCALAR", false, 0, 34963);                   /* 5 */
    add_data(&b, quad_indices, sizeof quad_indices, USHORT, 6, "SCALAR", false, 0, 34963); /* 6 */
    add_data(&b, back, sizeof back, USHORT, 3, "SCALAR", false, 0, 34963);                 /* 7 */
    char *json =
        builder_json(&b,
                     "'materials':[{'name':'first'},{'name':'second'}],"
                     "'meshes':[{'name':'multi','primitives':["
                     "{'attributes':{'POSITION':0,'NORMAL':1},'indices':5,'material':1},"
                     "{'attributes':{'POSITION':2,'TEXCOORD_0':3,'COLOR_0':4},'indices':6},"
                     "{'attributes':{'NORMAL':1,'POSITION':0},'indices':7,'material':0}]}]",
                     false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.mesh_count, 1);
    const ir_mesh *mesh = &r.asset.meshes[0];
    assert_string_equal(mesh->name, "multi");
    /* primitive 2 reads the same accessors as primitive 0: its vertices are shared */
    assert_int_equal(mesh->vertex_count, 7);
    const uint32_t indices[12] = {0, 1, 2, 3, 4, 5, 3, 5, 6, 2, 1, 0};
    expect_indices(mesh, indices, 12);
    assert_int_equal(mesh->submesh_count, 3);
    assert_int_equal(mesh->submeshes[0].material, 1);
    assert_int_equal(mesh->submeshes[1].material, 2); /* the default, appended */
    assert_int_equal(mesh->submeshes[2].material, 0);
    assert_int_equal(mesh->submeshes[1].index_offset, 3);
    assert_int_equal(mesh->submeshes[1].index_count, 6);
    assert_int_equal(r.asset.material_count, 3);
    assert_string_equal(r.asset.materials[0].name, "first");
    assert_string_equal(r.asset.materials[2].name, "default");
    /* one primitive has no NORMAL: none at all, the pipeline generates them */
    assert_null(mesh->normals);
    /* texcoords and colours exist; the triangle's vertices get 0 and white */
    const float expected_uv[14] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1};
    expect_floats(mesh->texcoords[0], expected_uv, 14, 0);
    assert_null(mesh->texcoords[1]);
    const float expected_colors[28] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,    1,    1,    0,
                                       0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0.2f, 0.2f, 0.2f, 1};
    expect_floats(mesh->colors, expected_colors, 28, 1e-7f);
    const float expected_positions[21] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
                                          1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    expect_floats(mesh->positions, expected_positions, 21, 0);
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

static void gltf_reads_skins_tangents_and_missing_positions(void **state) {
    (void)state;
    char *dir = fresh_dir("skin");
    builder b = {0};
    const float tangents[12] = {2, 0, 0, -1, 0, 3, 0, 1, 1, 0, 0, 1};
    const float normals[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    const uint8_t joints[12] = {0, 1, 2, 3, 4, 5, 6, 7, 1, 0, 0, 0};
    const uint8_t weights[12] = {255, 0, 0, 0, 128, 128, 0, 0, 0, 0, 0, 0};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962); /* 0 */
    add_data(&b, normals, sizeof normals, FLOAT, 3, "VEC3", false, 0, 34962);   /* 1 */
    add_data(&b, tangents, sizeof tangents, FLOAT, 3, "VEC4", false, 0, 34962); /* 2 */
    add_data(&b, joints, sizeof joints, UBYTE, 3, "VEC4", false, 0, 34962);     /* 3 */
    add_data(&b, weights, sizeof weights, UBYTE, 3, "VEC4", true, 0, 34962);    /* 4 */
    char *json = builder_json(&b,
                              "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1,"
                              "'TANGENT':2,'JOINTS_0':3,'WEIGHTS_0':4}},"
                              "{'attributes':{'NORMAL':1}}]}]",
                              false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    const ir_mesh *mesh = &r.asset.meshes[0];
    const float expected_tangents[12] = {1, 0, 0, -1, 0, 1, 0, 1, 1, 0, 0, 1};
    expect_floats(mesh->tangents, expected_tangents, 12, 0);
    assert_non_null(mesh->joints);
    assert_int_equal(mesh->joints[0], 0);
    assert_int_equal(mesh->joints[5], 5);
    const float expected_weights[12] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    expect_floats(mesh->weights, expected_weights, 12, 1e-6f);
    assert_non_null(strstr(test_import_messages(&r),
                           "meshes[0].primitives[1]: no POSITION attribute; skipped"));
    test_import_free(&r);
    free(json);

    /* A tangent with w = 0 (no handedness) is repaired as +1 with a warning;
     * any other w that is not a sign is refused. */
    const float bad_w[2] = {0.0f, 0.5f};
    for (int k = 0; k < 2; k++) {
        float bad[12];
        memcpy(bad, tangents, sizeof bad);
        bad[7] = bad_w[k];
        builder c = {0};
        add_data(&c, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
        add_data(&c, normals, sizeof normals, FLOAT, 3, "VEC3", false, 0, 34962);
        add_data(&c, bad, sizeof bad, FLOAT, 3, "VEC4", false, 0, 34962);
        json = builder_json(&c,
                            "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1,"
                            "'TANGENT':2}}]}]",
                            false);
        test_import_gltf_json(&r, dir, json);
        if (k == 0) {
            expect_warning(&r, "meshes[0].primitives[0].attributes.TANGENT: 1 element (the "
                               "first: 1) has w = 0, not 1 or -1 (the bitangent's sign); "
                               "repaired as 1");
            assert_true(r.asset.meshes[0].tangents[4 * 1 + 3] == 1.0f);
        } else {
            expect_error(&r, "meshes[0].primitives[0].attributes.TANGENT: element 1 has w = 0.5");
        }
        test_import_free(&r);
        free(json);
        builder_free(&c);
    }
    builder_free(&b);
    free(dir);
}

/* Data kiln reads that glTF-Validator reports as an error is refused, or
 * repaired with a warning naming its path; never taken silently. */
static void gltf_checks_the_data_it_reads(void **state) {
    (void)state;
    char *dir = fresh_dir("data");
    const float normals[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float uvs[6] = {0, 0, 1, 0, 0, 1};
    const float weights[12] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    const uint8_t joints[12] = {0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    static const char *const names[4] = {"POSITION", "NORMAL", "TEXCOORD_0", "WEIGHTS_0"};
    /* NaN or infinity in each float stream kiln reads. */
    for (int which = 0; which < 4; which++) {
        float p[9], n[9], t[6], w[12];
        memcpy(p, TRIANGLE, sizeof p);
        memcpy(n, normals, sizeof n);
        memcpy(t, uvs, sizeof t);
        memcpy(w, weights, sizeof w);
        float *target[4] = {p, n, t, w};
        const int components[4] = {3, 3, 2, 4};
        target[which][components[which] + 1] = which % 2 ? INFINITY : NAN; /* element 1 */
        builder b = {0};
        add_data(&b, p, sizeof p, FLOAT, 3, "VEC3", false, 0, 34962);
        add_data(&b, n, sizeof n, FLOAT, 3, "VEC3", false, 0, 34962);
        add_data(&b, t, sizeof t, FLOAT, 3, "VEC2", false, 0, 34962);
        add_data(&b, joints, sizeof joints, UBYTE, 3, "VEC4", false, 0, 34962);
        add_data(&b, w, sizeof w, FLOAT, 3, "VEC4", false, 0, 34962);
        char *json = builder_json(&b,
                                  "'meshes':[{'primitives':[{'attributes':{'POSITION':0,"
                                  "'NORMAL':1,'TEXCOORD_0':2,'JOINTS_0':3,'WEIGHTS_0':4}}]}]",
                                  false);
        test_import r;
        test_import_gltf_json(&r, dir, json);
        char words[160];
        snprintf(words, sizeof words,
                 "meshes[0].primitives[0].attributes.%s: accessors[%d] element 1 holds a "
                 "non-finite number",
                 names[which], which == 3 ? 4 : which);
        expect_error(&r, words);
        test_import_free(&r);
        free(json);
        builder_free(&b);
    }

    /* Joints beyond the node's skin, and negative weights: errors. Weights
     * that do not sum to 1 and normals that are not unit: warnings. */
    const uint8_t far_joints[12] = {0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0};
    const float negative[12] = {1, 0, 0, 0, 1.5f, -0.5f, 0, 0, 1, 0, 0, 0};
    const float unnormalised[12] = {1, 0, 0, 0, 0.25f, 0.25f, 0, 0, 1, 0, 0, 0};
    const float long_normals[9] = {0, 0, 2, 0, 0, 1, 0, 0, 1};
    builder b = {0};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962); /* 0 */
    add_data(&b, joints, sizeof joints, UBYTE, 3, "VEC4", false, 0, 34962);     /* 1 */
    add_data(&b, far_joints, sizeof far_joints, UBYTE, 3, "VEC4", false, 0, 34962);
    add_data(&b, weights, sizeof weights, FLOAT, 3, "VEC4", false, 0, 34962); /* 3 */
    add_data(&b, negative, sizeof negative, FLOAT, 3, "VEC4", false, 0, 34962);
    add_data(&b, unnormalised, sizeof unnormalised, FLOAT, 3, "VEC4", false, 0, 34962);
    add_data(&b, long_normals, sizeof long_normals, FLOAT, 3, "VEC3", false, 0, 34962); /* 6 */
    static const struct {
        int joints, weights, normals;
        const char *message;
        bool error;
    } cases[] = {
        {2, 3, -1,
         "meshes[0].primitives[0].attributes.JOINTS_0: element 2 names joint 2, but skins[0] "
         "(of nodes[0]) has 2 joints",
         true},
        {1, 4, -1,
         "meshes[0].primitives[0].attributes.WEIGHTS_0: element 1 has the negative "
         "weight -0.5",
         true},
        {1, 5, -1,
         "meshes[0].primitives[0].attributes.WEIGHTS_0: the weights of 1 vertices (the first: "
         "element 1) do not sum to 1; renormalised",
         false},
        {1, 3, 6,
         "meshes[0].primitives[0].attributes.NORMAL: 1 normals are not unit length; "
         "normalised",
         false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rest[512], normal[32] = "";
        if (cases[i].normals >= 0)
            snprintf(normal, sizeof normal, ",'NORMAL':%d", cases[i].normals);
        snprintf(rest, sizeof rest,
                 "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'JOINTS_0':%d,"
                 "'WEIGHTS_0':%d%s}}]}],'nodes':[{'mesh':0,'skin':0},{'children':[2]},{}],"
                 "'skins':[{'joints':[1,2]}]",
                 cases[i].joints, cases[i].weights, normal);
        char *json = builder_json(&b, rest, false);
        test_import r;
        test_import_gltf_json(&r, dir, json);
        if (cases[i].error) {
            expect_error(&r, cases[i].message);
        } else {
            expect_warning(&r, cases[i].message);
            test_check_asset(&r.asset);
        }
        test_import_free(&r);
        free(json);
    }

    /* byteStride outside 4..252 on a view a primitive reads. */
    static const unsigned strides[] = {2, 256};
    for (size_t i = 0; i < 2; i++) {
        char *json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':36,'uri':"
                                    "'data:application/octet-stream;base64,%0*d'}],'bufferViews':[{"
                                    "'buffer':0,'byteLength':36,'byteStride':%u}],'accessors':[{"
                                    "'bufferView':0,'componentType':5126,'count':1,'type':'VEC3'}],"
                                    "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]}",
                                    48, 0, strides[i]);
        test_import r;
        test_import_gltf_json(&r, dir, json);
        char words[96];
        snprintf(words, sizeof words,
                 "bufferViews[0].byteStride: value %u is out of range [4, 252]", strides[i]);
        expect_error(&r, words);
        test_import_free(&r);
        free(json);
    }

    /* A primitive whose data is in a buffer without data (no uri): skipped
     * with a warning naming it. */
    char *json = test_json_text(
        "{'asset':{'version':'2.0'},'buffers':[{'byteLength':36}],'bufferViews':[{'buffer':0,"
        "'byteLength':36}],'accessors':[{'bufferView':0,'componentType':5126,'count':3,"
        "'type':'VEC3'}],'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]}");
    test_import r;
    test_import_gltf_json(&r, dir, json);
    expect_warning(&r, "meshes[0].primitives[0]: its data is in a buffer without data (no uri); "
                       "skipped");
    assert_int_equal(r.asset.mesh_count, 0);
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Containers and URIs
 * ------------------------------------------------------------------------- */

static void gltf_reads_external_buffers_and_data_uris(void **state) {
    (void)state;
    char *dir = fresh_dir("external");
    builder b = {0};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    /* on disk "tri angle.bin", in the URI percent-encoded */
    test_write_in(dir, "models/bin/tri angle.bin", b.bin.data, b.bin.size);
    char *json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':36,'uri':"
                                "'bin/tri%%20angle.bin'}],'bufferViews':[%s],'accessors':[%s],"
                                "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]}",
                                text_of(&b.views), text_of(&b.accessors));
    test_write_in(dir, "models/model.gltf", json, strlen(json));
    test_import r;
    import_file(&r, dir, "models/model.gltf");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    expect_floats(r.asset.meshes[0].positions, TRIANGLE, 9, 0);
    assert_int_equal(r.dependencies.count, 1);
    assert_string_equal(r.dependencies.items[0], "models/bin/tri angle.bin");
    test_import_free(&r);
    free(json);

    /* The same data as a data: URI (with the base64 of the builder). */
    char *embedded =
        builder_json(&b, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]", false);
    test_import_gltf_json(&r, dir, embedded);
    test_import_expect_ok(&r);
    expect_floats(r.asset.meshes[0].positions, TRIANGLE, 9, 0);
    assert_int_equal(r.dependencies.count, 0);
    test_import_free(&r);
    free(embedded);

    /* A missing .bin, and one shorter than byteLength. */
    json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':36,'uri':"
                          "'missing.bin'}]}");
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "buffers[0].uri: cannot read buffer 'missing.bin'");
    test_import_free(&r);
    free(json);
    test_write_in(dir, "short.bin", "abcd", 4);
    json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':36,'uri':"
                          "'short.bin'}]}");
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "buffers[0]: the data holds 4 bytes, fewer than byteLength 36");
    test_import_free(&r);
    free(json);
    /* Malformed data URIs. */
    json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':3,'uri':"
                          "'data:application/octet-stream;base64,QUJ*'}]}");
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "buffers[0].uri: malformed base64 data");
    test_import_free(&r);
    free(json);
    /* RFC 2397 percent-encoded data (not base64): decoded, with a warning. */
    bytebuf percent = {0};
    for (size_t i = 0; i < b.bin.size; i++)
        bytebuf_printf(&percent, i % 2 ? "%%%02X" : "%%%02x", b.bin.data[i]);
    bytebuf_append(&percent, "", 1);
    json =
        test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':36,'uri':"
                       "'data:application/octet-stream,%s'}],'bufferViews':[%s],'accessors':[%s],"
                       "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]}",
                       (const char *)percent.data, text_of(&b.views), text_of(&b.accessors));
    test_import_gltf_json(&r, dir, json);
    expect_warning(&r, "buffers[0].uri: a percent-encoded data URI (not base64); decoded, 36 "
                       "bytes");
    expect_floats(r.asset.meshes[0].positions, TRIANGLE, 9, 0);
    test_import_free(&r);
    free(json);
    bytebuf_free(&percent);
    /* Unescaped characters are the data's own bytes ("AB" + 0x00 = 3 bytes). */
    json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':3,'uri':"
                          "'data:,AB%%00'}]}");
    test_import_gltf_json(&r, dir, json);
    expect_warning(&r, "buffers[0].uri: a percent-encoded data URI (not base64); decoded, 3 bytes");
    test_import_free(&r);
    free(json);
    json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':3,'uri':"
                          "'data:application/octet-stream,ab%%G1'}]}");
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "buffers[0].uri: malformed percent escape in the data URI (position 2)");
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

static void gltf_refuses_uris_outside_the_input_folder(void **state) {
    (void)state;
    char *dir = fresh_dir("escape");
    static const struct {
        const char *uri;
        const char *error;
    } cases[] = {
        {"../../etc/passwd", "buffers[0].uri: URI '../../etc/passwd' leaves the input folder"},
        {"../../outside.bin", "leaves the input folder"},
        {"a/../../../x.bin", "leaves the input folder"},
        {"%2e%2e/%2e%2e/etc/passwd", "leaves the input folder"},
        {"/etc/passwd", "absolute path '/etc/passwd' is not allowed"},
        {"file:///etc/passwd", "has the scheme 'file'"},
        {"http://example.com/a.bin", "has the scheme 'http'"},
        {"C:\\\\Windows\\\\a.bin", "has the scheme 'C'"},
        {"a%zz.bin", "malformed percent escape"},
        {"a%00.bin", "malformed percent escape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':4,'uri':"
                                    "'%s'}]}",
                                    cases[i].uri);
        test_import r;
        test_write_in(dir, "sub/model.gltf", json, strlen(json));
        import_bytes(&r, dir, "sub/model.gltf", json, strlen(json));
        expect_error(&r, cases[i].error);
        assert_int_equal(r.dependencies.count, 0); /* nothing was opened */
        test_import_free(&r);
        free(json);
    }
    /* Images too. */
    char *json = test_json_text("{'asset':{'version':'2.0'},'images':[{'uri':'../../x.png'}]}");
    test_import r;
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "images[0].uri: URI '../../x.png' leaves the input folder");
    test_import_free(&r);
    free(json);
    free(dir);
}

/* Accessors of more than one decoding block (65,536 elements) are decoded
 * in blocks on the asset's threads: 210,000 positions and 32-bit indices come
 * out as written, and of two non-finite positions in later blocks the first
 * is the one named, as on one thread. */
static void gltf_large_accessors_decode_the_same_on_threads(void **state) {
    (void)state;
    char *dir = fresh_dir("large");
    enum { VERTICES = 210000 };
    float *positions = malloc(3 * (size_t)VERTICES * sizeof *positions);
    uint32_t *indices = malloc((size_t)VERTICES * sizeof *indices);
    for (uint32_t v = 0; v < VERTICES; v++) {
        positions[3 * v] = (float)(v % 1000);
        positions[3 * v + 1] = (float)(v / 1000);
        positions[3 * v + 2] = (float)((v * 7) % 13) * 0.25f;
        indices[v] = VERTICES - 1 - v;
    }
    for (int bad = 0; bad < 2; bad++) {
        if (bad)
            positions[3 * 190000 + 2] = positions[3 * 150001 + 1] = NAN;
        builder b = {0};
        add_data(&b, positions, 3 * (size_t)VERTICES * sizeof *positions, FLOAT, VERTICES, "VEC3",
                 false, 0, 34962);
        add_data(&b, indices, (size_t)VERTICES * sizeof *indices, UINT, VERTICES, "SCALAR", false,
                 0, 34963);
        char *json = builder_json(
            &b, "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':1}]}]", true);
        size_t size;
        uint8_t *glb = make_glb(json, b.bin.data, b.bin.size, &size);
        for (unsigned threads = 1; threads <= 4; threads += 3) {
            test_import r = {0};
            cook_settings_default(&r.settings);
            r.settings.threads = threads;
            cook_context ctx = {.input_root = dir,
                                .source_path = "model.glb",
                                .ref = "test",
                                .source = glb,
                                .source_size = size,
                                .settings = &r.settings,
                                .diag = &r.diag};
            r.ok = import_gltf(&ctx, &r.asset);
            r.dependencies = ctx.dependencies;
            r.absent = ctx.absent;
            strlist_free(&ctx.references);
            if (bad) {
                expect_error(&r, "meshes[0].primitives[0].attributes.POSITION: accessors[0] "
                                 "element 150001 holds a non-finite number");
            } else {
                test_import_expect_ok(&r);
                assert_int_equal(r.asset.meshes[0].vertex_count, VERTICES);
                assert_int_equal(r.asset.meshes[0].index_count, VERTICES);
                assert_memory_equal(r.asset.meshes[0].positions, positions,
                                    3 * (size_t)VERTICES * sizeof *positions);
                assert_memory_equal(r.asset.meshes[0].indices, indices,
                                    (size_t)VERTICES * sizeof *indices);
            }
            test_import_free(&r);
        }
        free(glb);
        free(json);
        builder_free(&b);
    }
    free(positions);
    free(indices);
    free(dir);
}

/* A GLB imported as the cooker does, on `threads` threads. */
static void import_glb_on(test_import *r, const char *dir, const uint8_t *glb, size_t size,
                          unsigned threads) {
    cook_settings_default(&r->settings);
    r->settings.threads = threads;
    cook_context ctx = {.input_root = dir,
                        .source_path = "model.glb",
                        .ref = "test",
                        .source = glb,
                        .source_size = size,
                        .settings = &r->settings,
                        .diag = &r->diag};
    r->ok = import_gltf(&ctx, &r->asset);
    r->dependencies = ctx.dependencies;
    r->absent = ctx.absent;
    strlist_free(&ctx.references);
}

/* Two large primitives of one mesh: positions, normals and texcoords read
 * into the mesh's streams, normals normalised, indices checked and rebased
 * in blocks on the threads; the same mesh and messages on 1 and 4 threads,
 * checked against values computed here. Bad indices in two blocks: the
 * first in the accessor is the one named. */
static void gltf_large_primitives_read_in_place_on_threads(void **state) {
    (void)state;
    char *dir = fresh_dir("large_in_place");
    enum { V = 140000, N = 300000 }; /* vertices and indices per primitive */
    float *positions = malloc(2 * 3 * (size_t)V * sizeof *positions);
    float *normals = malloc(2 * 3 * (size_t)V * sizeof *normals);
    float *uvs = malloc(2 * 2 * (size_t)V * sizeof *uvs);
    uint32_t *indices = malloc(2 * (size_t)N * sizeof *indices);
    uint16_t *short_indices = malloc((size_t)N * sizeof *short_indices);
    uint32_t non_unit[2] = {0, 0};
    for (uint32_t v = 0; v < 2 * V; v++) {
        positions[3 * v] = (float)(v % 700);
        positions[3 * v + 1] = (float)(v / 700);
        positions[3 * v + 2] = (float)(v % 11) * 0.5f;
        float scale = v % 3 == 0 ? 2.0f : 1.0f; /* every third not unit length */
        bool zero = v % V == 5 || v % V == V - 1;
        normals[3 * v] = zero ? 0.0f : 0.6f * scale;
        normals[3 * v + 1] = 0.0f;
        normals[3 * v + 2] = zero ? 0.0f : 0.8f * scale;
        non_unit[v / V] += !zero && scale != 1.0f;
        uvs[2 * v] = (float)v / (float)V;
        uvs[2 * v + 1] = 0.25f;
    }
    for (uint32_t i = 0; i < 2 * N; i++)
        indices[i] = (uint32_t)(((uint64_t)(i % N) * 7919u + i / N) % V);
    for (uint32_t i = 0; i < N; i++)
        short_indices[i] = (uint16_t)(i % 60000);
    /* case 0: good; 1: out of range in blocks 0 and 1 of primitive 1's
     * indices; 2: primitive-restart 65535 in 16-bit indices (in range,
     * the primitive having more vertices) */
    for (int bad = 0; bad < 3; bad++) {
        uint32_t *second = indices + N;
        uint32_t saved[2] = {second[100], second[270000]};
        if (bad == 1) {
            second[270000] = V + 6;
            second[100] = V + 5;
        }
        if (bad == 2)
            short_indices[280001] = 0xffff;
        builder b = {0};
        for (int p = 0; p < 2; p++) {
            add_data(&b, positions + 3 * (size_t)V * p, 3 * (size_t)V * sizeof *positions, FLOAT, V,
                     "VEC3", false, 0, 34962);
            add_data(&b, normals + 3 * (size_t)V * p, 3 * (size_t)V * sizeof *normals, FLOAT, V,
                     "VEC3", false, 0, 34962);
            add_data(&b, uvs + 2 * (size_t)V * p, 2 * (size_t)V * sizeof *uvs, FLOAT, V, "VEC2",
                     false, 0, 34962);
        }
        add_data(&b, indices, (size_t)N * sizeof *indices, UINT, N, "SCALAR", false, 0, 34963);
        if (bad == 2)
            add_data(&b, short_indices, (size_t)N * sizeof *short_indices, USHORT, N, "SCALAR",
                     false, 0, 34963);
        else
            add_data(&b, indices + N, (size_t)N * sizeof *indices, UINT, N, "SCALAR", false, 0,
                     34963);
        char *json =
            builder_json(&b,
                         "'meshes':[{'primitives':["
                         "{'attributes':{'POSITION':0,'NORMAL':1,'TEXCOORD_0':2},'indices':6},"
                         "{'attributes':{'POSITION':3,'NORMAL':4,'TEXCOORD_0':5},'indices':7}]}]",
                         true);
        size_t size;
        uint8_t *glb = make_glb(json, b.bin.data, b.bin.size, &size);
        for (unsigned threads = 1; threads <= 4; threads += 3) {
            test_import r = {0};
            import_glb_on(&r, dir, glb, size, threads);
            if (bad == 1) {
                expect_error(&r, "meshes[0].primitives[1].indices: index 140005 (element 100) is "
                                 "out of range: the primitive has 140000 vertices");
            } else if (bad == 2) {
                expect_error(&r, "meshes[0].primitives[1].indices: element 280001 is the "
                                 "primitive-restart value 65535, which glTF does not allow");
            } else {
                test_import_expect_ok(&r);
                const ir_mesh *mesh = &r.asset.meshes[0];
                assert_int_equal(mesh->vertex_count, 2 * V);
                assert_int_equal(mesh->submesh_count, 2);
                assert_memory_equal(mesh->positions, positions,
                                    2 * 3 * (size_t)V * sizeof *positions);
                assert_memory_equal(mesh->texcoords[0], uvs, 2 * 2 * (size_t)V * sizeof *uvs);
                for (uint32_t i = 0; i < 2 * N; i++)
                    if (mesh->indices[i] != indices[i] + (i < N ? 0 : V))
                        fail_msg("index %u: %u, expected %u", i, mesh->indices[i],
                                 indices[i] + (i < N ? 0 : V));
                for (uint32_t v = 0; v < 2 * V; v++) {
                    if (v % V == 5 || v % V == V - 1)
                        continue; /* repaired from the faces: test_repair_normals */
                    expect_floats(mesh->normals + 3 * (size_t)v, (const float[3]){0.6f, 0, 0.8f}, 3,
                                  1e-6f);
                }
                for (int p = 0; p < 2; p++) {
                    char words[160];
                    snprintf(words, sizeof words,
                             "meshes[0].primitives[%d].attributes.NORMAL: %u normals are not "
                             "unit length; normalised",
                             p, non_unit[p]);
                    test_expect_message(&r, ": warning: ", words);
                }
                test_expect_message(&r, ": warning: ",
                                    "meshes[0]: 4 zero or invalid normals replaced by the normal "
                                    "of their faces");
            }
            test_import_free(&r);
        }
        second[100] = saved[0];
        second[270000] = saved[1];
        short_indices[280001] = (uint16_t)(280001 % 60000);
        free(glb);
        free(json);
        builder_free(&b);
    }
    free(positions);
    free(normals);
    free(uvs);
    free(indices);
    free(short_indices);
    free(dir);
}

/* The check of an accessor's declared min and max against its data, over
 * blocks on the threads: the extreme named is the data's. */
static void gltf_large_accessor_bounds_are_checked_on_threads(void **state) {
    (void)state;
    char *dir = fresh_dir("large_bounds");
    enum { V = 300000 };
    float *positions = malloc(3 * (size_t)V * sizeof *positions);
    for (uint32_t v = 0; v < V; v++) {
        positions[3 * v] = (float)(v % 1000);
        positions[3 * v + 1] = (float)(v % 777) * 0.5f;
        positions[3 * v + 2] = 1.0f;
    }
    positions[3 * 250001 + 1] = 900.25f; /* the largest y, in a late block */
    positions[3 * 70000 + 1] = -3.5f;    /* the smallest y, in an early one */
    builder b = {0};
    int view = add_view(&b, positions, 3 * (size_t)V * sizeof *positions, 0, 34962);
    add_accessor(&b, view, FLOAT, V, "VEC3", false, "'min':[0,0,1],'max':[999,388,1]");
    char *json =
        builder_json(&b, "'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]", true);
    size_t size;
    uint8_t *glb = make_glb(json, b.bin.data, b.bin.size, &size);
    for (unsigned threads = 1; threads <= 4; threads += 3) {
        test_import r = {0};
        import_glb_on(&r, dir, glb, size, threads);
        test_import_expect_ok(&r);
        test_expect_message(&r, ": warning: ",
                            "accessors[0].min[1]: 0, but the smallest element value is -3.5 (an "
                            "element lies outside the bound)");
        test_expect_message(&r, ": warning: ",
                            "accessors[0].max[1]: 388, but the largest element value is 900.25 (an "
                            "element lies outside the bound)");
        test_import_free(&r);
    }
    free(glb);
    free(json);
    builder_free(&b);
    free(positions);
    free(dir);
}

static void gltf_reads_glb(void **state) {
    (void)state;
    char *dir = fresh_dir("glb");
    builder b = {0};
    const uint16_t indices[3] = {0, 1, 2};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    add_data(&b, indices, sizeof indices, USHORT, 3, "SCALAR", false, 0, 34963);
    char *json =
        builder_json(&b,
                     "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':1}]}],"
                     "'nodes':[{'mesh':0}],'scenes':[{'nodes':[0]}],'scene':0",
                     true);
    size_t size;
    uint8_t *glb = make_glb(json, b.bin.data, b.bin.size, &size);
    test_write_in(dir, "model.glb", glb, size);
    test_import r;
    import_bytes(&r, dir, "model.glb", glb, size);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    expect_floats(r.asset.meshes[0].positions, TRIANGLE, 9, 0);
    assert_int_equal(r.asset.node_count, 1);
    assert_int_equal(r.asset.nodes[0].mesh, 0);
    test_import_free(&r);

    static const struct {
        size_t offset;
        uint32_t value;
        const char *error;
    } corruptions[] = {
        {4, 1, "GLB version 1 is not supported"},
        {8, 4, "the GLB header declares 4 bytes"},
        {12, 0x7fffffff, "GLB chunk 0 at byte 12 declares 2147483647 bytes"},
        {12, 6, "has length 6, not a multiple of 4"},
        {16, 0x004e4942, "the first GLB chunk must be JSON (found type 0x004e4942)"},
    };
    for (size_t i = 0; i < sizeof corruptions / sizeof corruptions[0]; i++) {
        uint8_t *copy = malloc(size);
        assert_non_null(copy);
        memcpy(copy, glb, size);
        put_u32(copy + corruptions[i].offset, corruptions[i].value);
        import_bytes(&r, dir, "model.glb", copy, size);
        expect_error(&r, corruptions[i].error);
        test_import_free(&r);
        free(copy);
    }
    /* Bytes after the declared length (GLB_EXTRA_DATA, a validator warning):
     * ignored with a warning; a declared length beyond the file is an error. */
    uint8_t *longer = calloc(1, size + 16);
    assert_non_null(longer);
    memcpy(longer, glb, size);
    memset(longer + size, 0xee, 16);
    import_bytes(&r, dir, "model.glb", longer, size + 16);
    char words[128];
    snprintf(words, sizeof words,
             "the GLB header declares %zu bytes but the file has %zu; the 16 bytes after the "
             "declared end are ignored",
             size, size + 16);
    expect_warning(&r, words);
    expect_floats(r.asset.meshes[0].positions, TRIANGLE, 9, 0);
    test_import_free(&r);
    put_u32(longer + 8, (uint32_t)size + 20);
    import_bytes(&r, dir, "model.glb", longer, size + 16);
    snprintf(words, sizeof words, "the GLB header declares %zu bytes but the file has %zu",
             size + 20, size + 16);
    expect_error(&r, words);
    test_import_free(&r);
    free(longer);
    import_bytes(&r, dir, "model.glb", glb, 10);
    expect_error(&r, "truncated GLB: 10 bytes");
    test_import_free(&r);
    import_bytes(&r, dir, "model.glb", "{\"asset\":{}}", 12);
    expect_error(&r, "not a GLB file");
    test_import_free(&r);
    /* A BOM at the start of the JSON chunk. */
    char *bom = test_json_text("\xef\xbb\xbf{'asset':{'version':'2.0'}}");
    uint8_t *bom_glb = make_glb(bom, NULL, 0, &size);
    import_bytes(&r, dir, "model.glb", bom_glb, size);
    expect_error(&r, "the GLB JSON chunk starts with a UTF-8 byte-order mark");
    test_import_free(&r);
    free(bom);
    free(bom_glb);
    /* A BIN chunk shorter than buffer 0. */
    uint8_t *small = make_glb(json, b.bin.data, 4, &size);
    import_bytes(&r, dir, "model.glb", small, size);
    char expected[128];
    snprintf(expected, sizeof expected,
             "buffers[0]: byteLength %zu exceeds the GLB BIN chunk's "
             "4 bytes",
             b.bin.size);
    expect_error(&r, expected);
    test_import_free(&r);
    free(small);
    free(glb);
    free(json);
    builder_free(&b);
    free(dir);
}

/* EXT_meshopt_compression: positions (ATTRIBUTES), normals with the
 * OCTAHEDRAL filter (KHR_mesh_quantization bytes) and indices (TRIANGLES),
 * compressed with meshoptimizer's own encoder. */
static void gltf_decodes_meshopt_compression(void **state) {
    (void)state;
    char *dir = fresh_dir("meshopt");
    const float positions[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const float normals[16] = {0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.6f, 0, 0.8f, 0};
    uint8_t octahedral[16];
    meshopt_encodeFilterOct(octahedral, 4, 4, 8, normals);
    uint8_t compressed[1024];
    size_t pos_size = meshopt_encodeVertexBuffer(compressed, sizeof compressed, positions, 4, 12);
    assert_true(pos_size > 0);
    size_t nrm_offset = (pos_size + 3) & ~(size_t)3;
    size_t nrm_size = meshopt_encodeVertexBuffer(compressed + nrm_offset,
                                                 sizeof compressed - nrm_offset, octahedral, 4, 4);
    assert_true(nrm_size > 0);
    size_t idx_offset = (nrm_offset + nrm_size + 3) & ~(size_t)3;
    unsigned int indices32[6] = {0, 1, 2, 0, 2, 3};
    size_t idx_size = meshopt_encodeIndexBuffer(compressed + idx_offset,
                                                sizeof compressed - idx_offset, indices32, 6);
    assert_true(idx_size > 0);
    size_t total = idx_offset + idx_size;
    for (int corrupt = 0; corrupt < 2; corrupt++) {
        uint8_t copy[1024];
        memcpy(copy, compressed, total);
        if (corrupt)
            copy[0] ^= 0xff; /* the vertex codec's header byte */
        char *data = base64(copy, total);
        char *json = test_json_text(
            "{'asset':{'version':'2.0'},"
            "'extensionsUsed':['EXT_meshopt_compression','KHR_mesh_quantization'],"
            "'extensionsRequired':['EXT_meshopt_compression','KHR_mesh_quantization'],"
            "'buffers':[{'byteLength':%zu,'uri':'data:application/octet-stream;base64,%s'},"
            "{'byteLength':76,'extensions':{'EXT_meshopt_compression':{'fallback':true}}}],"
            "'bufferViews':["
            "{'buffer':1,'byteLength':48,'byteStride':12,'target':34962,'extensions':{"
            "'EXT_meshopt_compression':{'buffer':0,'byteLength':%zu,'byteStride':12,'count':4,"
            "'mode':'ATTRIBUTES'}}},"
            "{'buffer':1,'byteOffset':48,'byteLength':16,'byteStride':4,'target':34962,"
            "'extensions':{'EXT_meshopt_compression':{'buffer':0,'byteOffset':%zu,'byteLength':%zu,"
            "'byteStride':4,'count':4,'mode':'ATTRIBUTES','filter':'OCTAHEDRAL'}}},"
            "{'buffer':1,'byteOffset':64,'byteLength':12,'target':34963,'extensions':{"
            "'EXT_meshopt_compression':{'buffer':0,'byteOffset':%zu,'byteLength':%zu,"
            "'byteStride':2,'count':6,'mode':'TRIANGLES'}}}],"
            "'accessors':[{'bufferView':0,'componentType':5126,'count':4,'type':'VEC3'},"
            "{'bufferView':1,'componentType':5120,'normalized':true,'count':4,'type':'VEC3'},"
            "{'bufferView':2,'componentType':5123,'count':6,'type':'SCALAR'}],"
            "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1},'indices':2}]}]}",
            total, data, pos_size, nrm_offset, nrm_size, idx_offset, idx_size);
        test_import r;
        test_import_gltf_json(&r, dir, json);
        if (corrupt) {
            expect_error(&r, "bufferViews[0].extensions.EXT_meshopt_compression: the compressed "
                             "data is corrupt");
        } else {
            test_import_expect_ok(&r);
            test_check_asset(&r.asset);
            const ir_mesh *mesh = &r.asset.meshes[0];
            expect_floats(mesh->positions, positions, 12, 0);
            const uint32_t expected[6] = {0, 1, 2, 0, 2, 3};
            expect_indices(mesh, expected, 6);
            for (int v = 0; v < 4; v++)
                expect_floats(mesh->normals + 3 * v, normals + 4 * v, 3, 0.02f);
        }
        test_import_free(&r);
        free(json);
        free(data);
    }
    free(dir);
}

static void gltf_reports_syntax_errors_with_the_line(void **state) {
    (void)state;
    char *dir = fresh_dir("syntax");
    test_import r;
    test_import_gltf_json(&r, dir,
                          "{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [ {,} ]\n}\n");
    expect_error(&r, "model.gltf:3: error: invalid JSON");
    test_import_free(&r);
    test_import_gltf_json(&r, dir, "\xef\xbb\xbf{\"asset\":{\"version\":\"2.0\"}}");
    expect_error(&r, "invalid JSON: the file starts with a UTF-8 byte-order mark");
    test_import_free(&r);
    test_import_gltf_json(&r, dir, "[1, 2]");
    expect_error(&r, "the top-level JSON value is an array");
    test_import_free(&r);
    test_import_gltf_json(&r, dir, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scene\":1}");
    expect_error(&r, "duplicate");
    test_import_free(&r);
    test_import_gltf_json(&r, dir, "");
    expect_error(&r, "invalid JSON");
    test_import_free(&r);
    free(dir);
}

static void gltf_rejects_wrong_types_with_their_path(void **state) {
    (void)state;
    char *dir = fresh_dir("types");
    static const struct {
        const char *json;
        const char *error;
    } cases[] = {
        {"{'asset':{'version':2}}", "asset.version: expected a string, found an integer"},
        {"{'asset':{'version':'1.0'}}", "asset.version: glTF 1.0 is not supported"},
        {"{}", "top level: required property 'asset' is missing"},
        {"{'asset':{'version':'2.0'},'materials':[{'normalTexture':{'index':0,'scale':'x'}}],"
         "'textures':[{}]}",
         "materials[0].normalTexture.scale: expected a number, found a string"},
        {"{'asset':{'version':'2.0'},'meshes':{}}", "meshes: expected an array, found an object"},
        {"{'asset':{'version':'2.0'},'meshes':[]}", "meshes: the array is empty"},
        {"{'asset':{'version':'2.0'},'meshes':[{'primitives':[{'attributes':{'POSITION':-1}}]}]}",
         "meshes[0].primitives[0].attributes.POSITION: accessor index -1 is negative"},
        {"{'asset':{'version':'2.0'},'meshes':[{'primitives':[{'attributes':{'POSITION':0.5}}]}]}",
         "meshes[0].primitives[0].attributes.POSITION: expected an index (of a accessor), "
         "found a number"},
        {"{'asset':{'version':'2.0'},'scenes':[{'name':42}]}",
         "scenes[0].name: expected a string, found an integer"},
        {"{'asset':{'version':'2.0'},'scene':'x','scenes':[{}]}",
         "scene: expected an index (of a scene), found a string"},
        /* no scenes: any index is only warned about, but one past 2^53 would
         * not convert to an integer */
        {"{'asset':{'version':'2.0'},'scene':1e19}",
         "scene: scene index 10000000000000000000 is too large"},
        {"{'asset':{'version':'2.0'},'nodes':[{'matrix':[1,0,0]}]}",
         "nodes[0].matrix: expected an array of 16 numbers"},
        {"{'asset':{'version':'2.0'},'materials':[{'alphaMode':'CUTOUT'}]}",
         "materials[0].alphaMode: 'CUTOUT' is not OPAQUE, MASK or BLEND"},
        {"{'asset':{'version':'2.0'},'materials':[{'pbrMetallicRoughness':{'metallicFactor':2}}]}",
         "materials[0].pbrMetallicRoughness.metallicFactor: value 2 is out of range [0, 1]"},
        {"{'asset':{'version':'2.0'},'extensions':{'X':1}}",
         "extensions.X: expected an object, found an integer"},
        {"{'asset':{'version':'2.0'},'accessors':[{'componentType':5124,'count':1,"
         "'type':'VEC3'}],'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]}",
         "accessors[0].componentType: 5124 is not a glTF component type"},
        {"{'asset':{'version':'2.0'},'accessors':[{'componentType':5126,'normalized':true,"
         "'count':1,'type':'VEC3'}],'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]}",
         "accessors[0].normalized: FLOAT components cannot be normalized"},
        {"{'asset':{'version':'2.0'},'accessors':[{'componentType':5126,'count':0,"
         "'type':'VEC3'}],'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]}",
         "accessors[0].count: value 0 is out of range"},
        {"{'asset':{'version':'2.0'},'extensionsRequired':['KHR_texture_basisu'],"
         "'extensionsUsed':['KHR_texture_basisu']}",
         "required extension KHR_texture_basisu is not supported"},
        {"{'asset':{'version':'2.0'},'extensionsUsed':['A','B','A']}",
         "extensionsUsed[2]: 'A' is listed twice"},
        {"{'asset':{'version':'2.0'},'nodes':[{'children':[1]},{'children':[0]}]}", "node loop"},
        {"{'asset':{'version':'2.0'},'nodes':[{'children':[0]}]}", "lists itself as a child"},
        {"{'asset':{'version':'2.0'},'nodes':[{'children':[2]},{'children':[2]},{}]}",
         "nodes[1].children[0]: node 2 already has the parent node 0"},
        {"{'asset':{'version':'2.0'},'nodes':[{'children':[1]},{}],'scenes':[{'nodes':[1]}]}",
         "scenes[0].nodes[0]: node 1 is not a root"},
        {"{'asset':{'version':'2.0'},'nodes':[{'matrix':[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],"
         "'scale':[1,1,1]}]}",
         "nodes[0].matrix: a node has either a matrix or translation/rotation/scale"},
        {"{'asset':{'version':'2.0'},'cameras':[{'type':'perspective','perspective':{'yfov':1,"
         "'znear':2,'zfar':1}}]}",
         "cameras[0].perspective: zfar 1 must be greater than znear 2"},
        {"{'asset':{'version':'2.0'},'images':[{}]}",
         "images[0]: exactly one of 'uri' and 'bufferView' must be given"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = test_json_text("%s", cases[i].json);
        test_import r;
        test_import_gltf_json(&r, dir, json);
        expect_error(&r, cases[i].error);
        test_import_free(&r);
        free(json);
    }
    /* An unsupported extension that is only used is one warning. */
    char *json =
        test_json_text("{'asset':{'version':'2.0'},'extensionsUsed':['KHR_materials_sheen',"
                       "'KHR_texture_transform','EXT_foo']}");
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    assert_int_equal(r.diag.warnings, 1);
    assert_non_null(strstr(test_import_messages(&r), "extensionsUsed: not supported, ignored: "
                                                     "KHR_materials_sheen, EXT_foo"));
    test_import_free(&r);
    free(json);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Materials and nodes
 * ------------------------------------------------------------------------- */

static void gltf_maps_materials_and_textures(void **state) {
    (void)state;
    char *dir = fresh_dir("materials");
    test_write_in(dir, "models/textures/albedo.png", "\x89PNG\r\n\x1a\n", 8);
    test_write_in(dir, "models/textures/rough", "\xff\xd8\xff\xe0", 4); /* JPEG, no extension */
    char *json = test_json_text(
        "{'asset':{'version':'2.0'},"
        "'images':[{'uri':'textures/albedo.png'},{'uri':'data:image/png;base64,iVBORw0KGgo='},"
        "{'uri':'textures/rough'},{'uri':'textures/missing.jpg'}],"
        "'samplers':[{'magFilter':9729,'wrapS':33071}],"
        "'textures':[{'source':0,'sampler':0},{'source':1},{'source':2},{'source':3}],"
        "'materials':[{'name':'painted',"
        "'pbrMetallicRoughness':{'baseColorFactor':[0.5,0.25,1,0.75],'metallicFactor':0.1,"
        "'roughnessFactor':0.2,'baseColorTexture':{'index':0,'texCoord':1},"
        "'metallicRoughnessTexture':{'index':2}},"
        "'normalTexture':{'index':1,'scale':0.5},"
        "'occlusionTexture':{'index':0,'strength':0.3,'extensions':{'KHR_texture_transform':"
        "{'offset':[0.5,0],'texCoord':1}}},"
        "'emissiveTexture':{'index':3},"
        "'emissiveFactor':[1,0.5,0],'alphaMode':'MASK','alphaCutoff':0.25,'doubleSided':true,"
        "'extensions':{'KHR_materials_emissive_strength':{'emissiveStrength':2}}},"
        "{}],"
        "'extensionsUsed':['KHR_texture_transform','KHR_materials_emissive_strength']}");
    test_write_in(dir, "models/scene.gltf", json, strlen(json));
    test_import r;
    import_file(&r, dir, "models/scene.gltf");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.material_count, 2);
    const ir_material *m = &r.asset.materials[0];
    assert_string_equal(m->name, "painted");
    const float base[4] = {0.5f, 0.25f, 1, 0.75f};
    expect_floats(m->base_color, base, 4, 0);
    assert_true(m->metallic == 0.1f && m->roughness == 0.2f);
    const float emissive[3] = {2, 1, 0}; /* times emissiveStrength */
    expect_floats(m->emissive, emissive, 3, 0);
    assert_true(m->normal_scale == 0.5f);
    assert_true(m->occlusion_strength == 0.3f);
    assert_int_equal(m->alpha_mode, IR_ALPHA_MASK);
    assert_true(m->alpha_cutoff == 0.25f);
    assert_true(m->double_sided);
    const ir_image *images = r.asset.images;
    assert_int_equal(r.asset.image_count, 3); /* albedo, the data: URI, rough; once each */
    assert_string_equal(images[m->textures[IR_SLOT_BASE_COLOR].image].path,
                        "models/textures/albedo.png");
    assert_int_equal(m->textures[IR_SLOT_BASE_COLOR].texcoord, 1);
    assert_string_equal(images[m->textures[IR_SLOT_METALLIC_ROUGHNESS].image].path,
                        "models/textures/rough");
    const ir_image *embedded = &images[m->textures[IR_SLOT_NORMAL].image];
    assert_null(embedded->path); /* a data: URI: its bytes */
    assert_int_equal(embedded->size, 8);
    assert_memory_equal(embedded->bytes, "\x89PNG\r\n\x1a\n", 8);
    assert_int_equal(m->textures[IR_SLOT_OCCLUSION].image, m->textures[IR_SLOT_BASE_COLOR].image);
    assert_int_equal(m->textures[IR_SLOT_OCCLUSION].texcoord, 1); /* KHR_texture_transform */
    assert_true(m->textures[IR_SLOT_OCCLUSION].offset[0] == 0.5f &&
                m->textures[IR_SLOT_OCCLUSION].scale[0] == 1.0f &&
                m->textures[IR_SLOT_OCCLUSION].rotation == 0.0f);
    assert_int_equal(m->textures[IR_SLOT_EMISSIVE].image, -1); /* missing: a warning */
    assert_non_null(strstr(test_import_messages(&r),
                           "material 'painted': texture image "
                           "'textures/missing.jpg' (images[3]) is missing"));
    assert_int_equal(r.diag.warnings, 1);
    /* the second material has glTF's defaults and a generated name */
    const ir_material *d = &r.asset.materials[1];
    assert_string_equal(d->name, "material_1");
    assert_true(d->metallic == 1.0f && d->roughness == 1.0f && d->base_color[3] == 1.0f);
    assert_int_equal(d->alpha_mode, IR_ALPHA_OPAQUE);
    assert_true(strlist_contains(&r.dependencies, "models/textures/albedo.png"));
    test_import_free(&r);
    free(json);

    /* Images kiln cannot read are errors naming the image. */
    static const char *const unsupported[] = {
        "{'uri':'t.ktx2'}",
        "{'uri':'t.webp','mimeType':'image/webp'}",
        "{'uri':'data:image/gif;base64,R0lGODlh'}",
        "{'bufferView':0,'mimeType':'image/ktx2'}",
    };
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        json = test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':4,'uri':"
                              "'data:application/octet-stream;base64,AAAAAA=='}],"
                              "'bufferViews':[{'buffer':0,'byteLength':4}],"
                              "'images':[{'uri':'ok.png'},%s],'textures':[{'source':1}]}",
                              unsupported[i]);
        test_import_gltf_json(&r, dir, json);
        expect_error(&r, "images[1]: unsupported image format");
        test_import_free(&r);
        free(json);
    }
    /* A material reading TEXCOORD_1 on a primitive that has none. */
    builder b = {0};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    json = builder_json(&b,
                        "'images':[{'uri':'ok.png'}],'textures':[{'source':0}],"
                        "'materials':[{'emissiveTexture':{'index':0,'texCoord':1}}],"
                        "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'material':0}]}]",
                        false);
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "meshes[0].primitives[0].material: materials[0] reads TEXCOORD_1, which the "
                     "primitive lacks");
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

/* Images on one bufferView share one copy of its bytes (and one cooked
 * texture): thousands of images naming one large view must not copy it
 * thousands of times. */
static void gltf_images_sharing_a_view_share_one_image(void **state) {
    (void)state;
    char *dir = fresh_dir("shared_view");
    char *json =
        test_json_text("{'asset':{'version':'2.0'},'buffers':[{'byteLength':8,'uri':"
                       "'data:application/octet-stream;base64,iVBORw0KGgo='}],"
                       "'bufferViews':[{'buffer':0,'byteLength':8}],"
                       "'images':[{'bufferView':0,'mimeType':'image/"
                       "png'},{'bufferView':0,'mimeType':'image/png'}],"
                       "'textures':[{'source':0},{'source':1}],"
                       "'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{'index':0}},"
                       "'emissiveTexture':{'index':1}}]}");
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    const ir_material *m = &r.asset.materials[0];
    assert_int_equal(r.asset.image_count, 1);
    assert_int_equal(m->textures[IR_SLOT_BASE_COLOR].image, 0);
    assert_int_equal(m->textures[IR_SLOT_EMISSIVE].image, 0);
    assert_int_equal(r.asset.images[0].size, 8);
    assert_memory_equal(r.asset.images[0].bytes, "\x89PNG\r\n\x1a\n", 8);
    test_import_free(&r);
    free(json);
    free(dir);
}

static void gltf_uses_fallbacks_of_unsupported_extensions(void **state) {
    (void)state;
    char *dir = fresh_dir("fallbacks");
    test_write_in(dir, "a.png", "\x89PNG\r\n\x1a\n", 8);
    /* KHR_texture_basisu next to a PNG source: the PNG is used, the KTX2 ignored. */
    char *json =
        test_json_text("{'asset':{'version':'2.0'},'extensionsUsed':['KHR_texture_basisu'],"
                       "'images':[{'uri':'a.png'},{'uri':'a.ktx2'}],"
                       "'textures':[{'source':0,'extensions':{'KHR_texture_basisu':{'source':1}}},"
                       "{'extensions':{'KHR_texture_basisu':{'source':1}}}],"
                       "'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{'index':0}},"
                       "'emissiveTexture':{'index':1}}]}");
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    assert_true(r.asset.materials[0].textures[IR_SLOT_BASE_COLOR].image >= 0);
    assert_string_equal(
        r.asset.images[r.asset.materials[0].textures[IR_SLOT_BASE_COLOR].image].path, "a.png");
    assert_int_equal(r.asset.materials[0].textures[IR_SLOT_EMISSIVE].image, -1);
    assert_non_null(strstr(test_import_messages(&r),
                           "textures[1]: only a KHR_texture_basisu image and no "
                           "PNG/JPEG fallback"));
    test_import_free(&r);
    free(json);
    /* Required, it is an error. */
    json = test_json_text("{'asset':{'version':'2.0'},'extensionsUsed':['KHR_texture_basisu'],"
                          "'extensionsRequired':['KHR_texture_basisu']}");
    test_import_gltf_json(&r, dir, json);
    expect_error(&r, "extensionsRequired[0]: required extension KHR_texture_basisu is not "
                     "supported");
    test_import_free(&r);
    free(json);
    /* KHR_draco_mesh_compression, even only used, is decoded in preference to
     * the uncompressed fallback (the extension's spec: "the Draco geometry
     * compression must be used"), so a view that is not Draco data is an
     * error; Draco decodes triangle lists of an indexed primitive. */
    builder b = {0};
    const uint16_t indices[3] = {0, 1, 2};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    add_data(&b, indices, sizeof indices, USHORT, 3, "SCALAR", false, 0, 34963);
    static const char *const draco_cases[][2] = {
        {"'indices':1", "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression: "
                        "bufferViews[0]: corrupt or unsupported Draco data"},
        {"'indices':1,'mode':5", "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression: "
                                 "Draco data decodes to indexed triangles; the primitive must be "
                                 "TRIANGLES"},
        {"'mode':4", "the primitive must be indexed ('indices')"},
    };
    for (size_t i = 0; i < sizeof draco_cases / sizeof draco_cases[0]; i++) {
        char rest[512];
        snprintf(rest, sizeof rest,
                 "'extensionsUsed':['KHR_draco_mesh_compression'],"
                 "'meshes':[{'primitives':[{'attributes':{'POSITION':0},%s,'extensions':{"
                 "'KHR_draco_mesh_compression':{'bufferView':0,'attributes':{'POSITION':0}}}}]}]",
                 draco_cases[i][0]);
        json = builder_json(&b, rest, false);
        test_import_gltf_json(&r, dir, json);
        expect_error(&r, draco_cases[i][1]);
        test_import_free(&r);
        free(json);
    }
    builder_free(&b);
    free(dir);
}

static void gltf_orders_nodes_parents_first(void **state) {
    (void)state;
    char *dir = fresh_dir("nodes");
    builder b = {0};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);
    char *json = builder_json(&b,
                              "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'mode':1}]},"
                              "{'primitives':[{'attributes':{'POSITION':0}}]}],"
                              "'nodes':[{'name':'leaf','scale':[2,2,2],'mesh':1},"
                              "{'name':'solo','matrix':[0,2,0,0, -3,0,0,0, 0,0,4,0, 5,6,7,1]},"
                              "{'name':'top','children':[0],'translation':[1,2,3],"
                              "'rotation':[0,0,0.70710678,0.70710678],'mesh':0}],"
                              "'scenes':[{'nodes':[2]}]",
                              false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.asset.mesh_count, 2); /* mesh 0 is a line (and a vertex left over) */
    assert_int_equal(r.asset.node_count, 3); /* 'solo' is in no scene and still test_import */
    const ir_node *solo = &r.asset.nodes[0], *top = &r.asset.nodes[1], *leaf = &r.asset.nodes[2];
    assert_string_equal(solo->name, "solo");
    assert_string_equal(top->name, "top");
    assert_string_equal(leaf->name, "leaf");
    assert_int_equal(solo->parent, -1);
    assert_int_equal(top->parent, -1);
    assert_int_equal(leaf->parent, 1);
    assert_int_equal(top->mesh, 0);
    assert_int_equal(leaf->mesh, 1);
    assert_int_equal(leaf->skin, -1);
    /* matrix kept, decomposed: a 90° turn about z with scale (2, 3, 4) */
    const float t[3] = {5, 6, 7}, s[3] = {2, 3, 4}, q[4] = {0, 0, 0.70710678f, 0.70710678f};
    expect_floats(solo->translation, t, 3, 0);
    expect_floats(solo->scale, s, 3, 1e-6f);
    expect_floats(solo->rotation, q, 4, 1e-6f);
    assert_true(solo->matrix[4] == -3.0f);
    /* TRS composed, column-major */
    const float m[16] = {0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    expect_floats(top->matrix, m, 16, 1e-6f);
    const float leaf_m[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1};
    expect_floats(leaf->matrix, leaf_m, 16, 0);
    test_import_free(&r);
    free(json);
    builder_free(&b);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Corpus
 * ------------------------------------------------------------------------- */

/* gltf-validator rows that expect an error for semantic reasons kiln accepts
 * with a warning (corpus README: "a lenient loader may accept them"). Keep
 * this short. */
static const struct {
    const char *path;
    const char *reason;
} lenient[] = {
    {"invalid/gltf-validator/accessor_data/out_of_range_elements_float.gltf",
     "min/max mismatch: a warning naming accessors[0].min/max; kiln uses the data"},
    {"invalid/gltf-validator/accessor_data/out_of_range_elements_sint8.gltf",
     "min/max mismatch: a warning naming accessors[0].min/max; kiln uses the data"},
    {"invalid/gltf-validator/accessor_data/out_of_range_elements_uint32.gltf",
     "min/max mismatch: a warning naming accessors[0].min/max; kiln uses the data"},
    {"invalid/gltf-validator/mesh_data/normals_tangents_non_unit_invalid_sign.gltf",
     "normals and tangents normalised and a tangent's w = 0 repaired as 1, with warnings"},
    {"invalid/gltf-validator/mesh_data/colors_non_clamped.gltf",
     "float colours outside [0, 1] are clamped with a warning (DCC float colour attributes)"},
/* Bad values in views, accessors and images that nothing cooked uses are
 * warnings (kiln never reads them); the same in a used one is an error. */
#define UNUSED_OBJECT "a bad value in an object nothing cooked uses: a warning"
    {"invalid/gltf-validator/accessor/alignment.gltf", UNUSED_OBJECT},
    {"invalid/gltf-validator/accessor/invalid_sparse_count_and_stride.gltf", UNUSED_OBJECT},
    {"invalid/gltf-validator/accessor/small_stride.gltf", UNUSED_OBJECT},
    {"invalid/gltf-validator/buffer_view/invalid_stride_multiple.gltf", UNUSED_OBJECT},
    {"invalid/gltf-validator/buffer_view/invalid_stride_wrong_target.gltf", UNUSED_OBJECT},
    {"invalid/gltf-validator/image/buffer_view_bytestride.gltf", UNUSED_OBJECT},
    {"invalid/gltf-validator/image/invalid_data_uri_mime_type.gltf", UNUSED_OBJECT},
#undef UNUSED_OBJECT
};

/* Rows index.tsv still marks as errors that kiln now cooks: the Draco files
 * (the index predates KHR_draco_mesh_compression support and will be
 * updated). They are treated as "ok" rows: imported and fully cooked. */
static const char *const now_supported[] = {
    "gltf/Box/glTF-Draco/Box.gltf",
    "gltf/RiggedSimple/glTF-Draco/RiggedSimple.gltf",
};

static bool is_now_supported(const char *path) {
    for (size_t i = 0; i < sizeof now_supported / sizeof now_supported[0]; i++)
        if (strcmp(now_supported[i], path) == 0)
            return true;
    return false;
}

static bool is_lenient(const char *path) {
    for (size_t i = 0; i < sizeof lenient / sizeof lenient[0]; i++)
        if (strcmp(lenient[i].path, path) == 0)
            return true;
    return false;
}

static void gltf_corpus_rows_import_as_expected(void **state) {
    (void)state;
    if (test_skip_without_corpus("gltf_corpus_rows_import_as_expected"))
        skip();
    const char *corpus = test_corpus_dir();
    test_corpus_row *index;
    size_t index_rows;
    char *index_text = test_corpus_index(&index, &index_rows);
    char *output = fresh_dir("corpus_out");
    int rows = 0, failures = 0, now_seen = 0;
    for (size_t row = 0; row < index_rows; row++) {
        const char *fields[4] = {index[row].path, index[row].format, index[row].category,
                                 index[row].expect};
        if (strcmp(fields[1], "gltf") != 0 && strcmp(fields[1], "glb") != 0)
            continue;
        const char *path = fields[0];
        bool expect_ok_row = strcmp(fields[3], "ok") == 0 || is_now_supported(path);
        now_seen += is_now_supported(path);
        rows++;
        test_import r;
        import_file(&r, corpus, path);
        bool ok = r.ok && r.diag.errors == 0;
        if (ok)
            test_check_asset(&r.asset);
        if (expect_ok_row && !ok) {
            printf("unexpected failure: %s\n%s", path, test_import_messages(&r));
            failures++;
        } else if (!expect_ok_row && ok && !is_lenient(path)) {
            printf("unexpected success: %s\n%s", path, test_import_messages(&r));
            failures++;
        } else if (!expect_ok_row && ok &&
                   strstr(test_import_messages(&r), ": warning: ") == NULL) {
            /* accepted, but never silently: a warning names what was wrong */
            printf("accepted without a warning: %s\n%s", path, test_import_messages(&r));
            failures++;
        } else if (!expect_ok_row && !ok) {
            /* at least one error line naming the file */
            char prefix[1024];
            snprintf(prefix, sizeof prefix, "%s", path);
            const char *text = test_import_messages(&r);
            if (strncmp(text, prefix, strlen(prefix)) != 0 || strstr(text, "error: ") == NULL) {
                printf("error without the file's name: %s\n%s", path, text);
                failures++;
            }
        }
        test_import_free(&r);
        if (expect_ok_row) {
            /* the whole pipeline: import, process, write, verify */
            cook_settings settings;
            cook_settings_default(&settings);
            settings.texture_max_size = 64; /* textures are cooked too; keep them small */
            settings.texture_quality = COOK_QUALITY_FAST; /* and quick to block-encode */
            cook_request request = {
                .input_root = corpus,
                .output_root = output,
                .source_path = path,
                .importer = cook_registry_match(path),
                .settings = &settings,
                .verify = true,
            };
            assert_non_null(request.importer);
            assert_string_equal(request.importer->name, "gltf");
            cook_asset_result result;
            if (!cook_asset(&request, &result)) {
                printf("cook failed: %s\n%.*s", path, (int)result.diag.text.size,
                       result.diag.text.data ? (const char *)result.diag.text.data : "");
                failures++;
            }
            cook_asset_result_free(&result);
        }
    }
    printf("gltf corpus: %d rows, %d unexpected\n", rows, failures);
    assert_true(rows > 100);
    assert_int_equal(now_seen, sizeof now_supported / sizeof now_supported[0]); /* none stale */
    assert_int_equal(failures, 0);
    free(output);
    free(index);
    free(index_text);
}

static void import_corpus(test_import *r, const char *path) {
    import_file(r, test_corpus_dir(), path);
    test_import_expect_ok(r);
    test_check_asset(&r->asset);
}

static void gltf_corpus_models_have_the_expected_content(void **state) {
    (void)state;
    if (test_skip_without_corpus("gltf_corpus_models_have_the_expected_content"))
        skip();
    static const char *const boxes[] = {"gltf/Box/glTF/Box.gltf", "gltf/Box/glTF-Binary/Box.glb",
                                        "gltf/Box/glTF-Embedded/Box.gltf"};
    for (size_t i = 0; i < 3; i++) {
        test_import r;
        import_corpus(&r, boxes[i]);
        assert_int_equal(r.asset.mesh_count, 1);
        const ir_mesh *mesh = &r.asset.meshes[0];
        assert_int_equal(mesh->vertex_count, 24);
        assert_int_equal(mesh->index_count, 36);
        assert_int_equal(mesh->submesh_count, 1);
        assert_non_null(mesh->normals);
        assert_int_equal(r.asset.material_count, 1);
        assert_int_equal(r.asset.node_count, 2);
        assert_int_equal(r.asset.nodes[1].parent, 0);
        assert_int_equal(r.asset.nodes[1].mesh, 0);
        test_import_free(&r);
    }
    static const char *const triangles[] = {"gltf/Triangle/glTF/Triangle.gltf",
                                            "gltf/Triangle/glTF-Embedded/Triangle.gltf",
                                            "gltf/TriangleWithoutIndices/glTF/"
                                            "TriangleWithoutIndices.gltf"};
    for (size_t i = 0; i < 3; i++) {
        test_import r;
        import_corpus(&r, triangles[i]);
        const ir_mesh *mesh = &r.asset.meshes[0];
        assert_int_equal(mesh->vertex_count, 3);
        const uint32_t expected[3] = {0, 1, 2};
        expect_indices(mesh, expected, 3);
        expect_floats(mesh->positions, TRIANGLE, 9, 0);
        assert_int_equal(r.asset.material_count, 1); /* the default */
        assert_string_equal(r.asset.materials[0].name, "default");
        test_import_free(&r);
    }
    static const char *const sparse[] = {
        "gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
        "gltf/SimpleSparseAccessor/glTF-Embedded/SimpleSparseAccessor.gltf"};
    for (size_t i = 0; i < 2; i++) {
        test_import r;
        import_corpus(&r, sparse[i]);
        const ir_mesh *mesh = &r.asset.meshes[0];
        assert_int_equal(mesh->vertex_count, 14);
        assert_int_equal(mesh->index_count, 36);
        const float expected[42] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 5, 0, 0, 6, 0, 0,
                                    0, 1, 0, 1, 2, 0, 2, 1, 0, 3, 3, 0, 4, 1, 0, 5, 4, 0, 6, 1, 0};
        expect_floats(mesh->positions, expected, 42, 0);
        test_import_free(&r);
    }
    test_import r;
    import_corpus(&r, "gltf/MultiUVTest/glTF/MultiUVTest.gltf");
    assert_non_null(r.asset.meshes[0].texcoords[0]);
    assert_non_null(r.asset.meshes[0].texcoords[1]);
    assert_non_null(r.asset.meshes[0].tangents);
    assert_int_equal(r.asset.materials[0].textures[IR_SLOT_EMISSIVE].texcoord, 1);
    test_import_free(&r);

    import_corpus(&r, "gltf/VertexColorTest/glTF-Binary/VertexColorTest.glb");
    bool colors = false;
    for (uint32_t m = 0; m < r.asset.mesh_count; m++)
        colors |= r.asset.meshes[m].colors != NULL;
    assert_true(colors);
    test_import_free(&r);

    static const char *const foxes[] = {"gltf/Fox/glTF/Fox.gltf", "gltf/Fox/glTF-Binary/Fox.glb"};
    for (size_t i = 0; i < 2; i++) {
        import_corpus(&r, foxes[i]);
        const ir_mesh *mesh = &r.asset.meshes[0];
        assert_non_null(mesh->joints);
        assert_non_null(mesh->weights);
        uint16_t max_joint = 0;
        for (size_t k = 0; k < 4 * (size_t)mesh->vertex_count; k++)
            if (mesh->joints[k] > max_joint)
                max_joint = mesh->joints[k];
        assert_true(max_joint < 24 && max_joint > 0); /* 24 joints */
        assert_int_equal(r.asset.node_count, 26);
        bool skinned = false;
        for (uint32_t n = 0; n < r.asset.node_count; n++)
            skinned |= r.asset.nodes[n].skin == 0 && r.asset.nodes[n].mesh == 0;
        assert_true(skinned);
        /* external image: a root-relative texture path */
        if (i == 0)
            assert_string_equal(
                r.asset.images[r.asset.materials[0].textures[IR_SLOT_BASE_COLOR].image].path,
                "gltf/Fox/glTF/Texture.png");
        test_import_free(&r);
    }

    import_file(&r, test_corpus_dir(),
                "gltf/AnisotropyBarnLamp/glTF-KTX2-Basisu/AnisotropyBarnLamp.gltf");
    expect_error(&r, "images[0]: unsupported image format");
    test_import_free(&r);
}

/* ---------------------------------------------------------------------------
 * KHR_draco_mesh_compression
 * ------------------------------------------------------------------------- */

/* A corpus glTF file parsed; *prim receives mesh 0's primitive 0. */
static json_t *corpus_json(const char *path, const json_t **prim) {
    char *full = test_path_join(test_corpus_dir(), path);
    json_error_t error;
    json_t *root = json_load_file(full, 0, &error);
    if (root == NULL)
        fail_msg("%s: %s", full, error.text);
    free(full);
    *prim = json_array_get(
        json_object_get(json_array_get(json_object_get(root, "meshes"), 0), "primitives"), 0);
    return root;
}

/* The corpus's Draco box: Box.gltf parsed, and Box.bin's bytes. */
static json_t *draco_box(uint8_t **bin, size_t *bin_size) {
    char *bin_path = test_path_join(test_corpus_dir(), "gltf/Box/glTF-Draco/Box.bin");
    *bin = test_read_file(bin_path, bin_size);
    free(bin_path);
    const json_t *prim;
    return corpus_json("gltf/Box/glTF-Draco/Box.gltf", &prim);
}

/* min/max/count of mesh 0 primitive 0's `semantic` accessor in a corpus file:
 * the exporter wrote them from the values it encoded, so they record the
 * decoded bounds independently of kiln. */
static void corpus_accessor_bounds(const char *path, const char *semantic, float min[3],
                                   float max[3], uint32_t *count) {
    const json_t *prim;
    json_t *root = corpus_json(path, &prim);
    const json_t *index = json_object_get(json_object_get(prim, "attributes"), semantic);
    const json_t *accessor =
        json_array_get(json_object_get(root, "accessors"), (size_t)json_integer_value(index));
    assert_non_null(accessor);
    for (size_t k = 0; k < 3; k++) {
        min[k] = (float)json_number_value(json_array_get(json_object_get(accessor, "min"), k));
        max[k] = (float)json_number_value(json_array_get(json_object_get(accessor, "max"), k));
    }
    *count = (uint32_t)json_integer_value(json_object_get(accessor, "count"));
    json_decref(root);
}

static bool near3(const float *a, const float *b, float tolerance) {
    return fabsf(a[0] - b[0]) <= tolerance && fabsf(a[1] - b[1]) <= tolerance &&
           fabsf(a[2] - b[2]) <= tolerance;
}

/* Whether triangle t of `a` is, within `tolerance` per coordinate and up to
 * a rotation of its corners (same winding), a triangle of `b`. */
static bool has_triangle(const ir_mesh *a, uint32_t t, const ir_mesh *b, float tolerance) {
    const float *p[3];
    for (int k = 0; k < 3; k++)
        p[k] = a->positions + 3 * (size_t)a->indices[3 * t + k];
    for (uint32_t u = 0; u < b->index_count / 3; u++) {
        const uint32_t *q = b->indices + 3 * (size_t)u;
        for (int r = 0; r < 3; r++) {
            bool same = true;
            for (int k = 0; k < 3 && same; k++)
                same = near3(p[k], b->positions + 3 * (size_t)q[(k + r) % 3], tolerance);
            if (same)
                return true;
        }
    }
    return false;
}

/* The POSITION values and faces of a corpus model's Draco bufferView, decoded
 * straight from the file's bytes (the extension's attribute id, the view's
 * range) without the glTF importer. */
static void draco_reference(const char *path, draco_mesh *out) {
    const json_t *prim;
    json_t *root = corpus_json(path, &prim);
    const json_t *ext =
        json_object_get(json_object_get(prim, "extensions"), "KHR_draco_mesh_compression");
    const json_t *view =
        json_array_get(json_object_get(root, "bufferViews"),
                       (size_t)json_integer_value(json_object_get(ext, "bufferView")));
    const json_t *buffer =
        json_array_get(json_object_get(root, "buffers"),
                       (size_t)json_integer_value(json_object_get(view, "buffer")));
    char *folder = test_path_join(test_corpus_dir(), path);
    *strrchr(folder, '/') = '\0';
    char *bin_path = test_path_join(folder, json_string_value(json_object_get(buffer, "uri")));
    size_t size;
    uint8_t *bin = test_read_file(bin_path, &size);
    size_t offset = (size_t)json_integer_value(json_object_get(view, "byteOffset"));
    size_t length = (size_t)json_integer_value(json_object_get(view, "byteLength"));
    assert_true(offset + length <= size);
    draco_request position = {(uint32_t)json_integer_value(
                                  json_object_get(json_object_get(ext, "attributes"), "POSITION")),
                              5126, 3};
    char reason[256];
    if (!draco_decode_mesh(bin + offset, length, &position, 1, UINT64_MAX, path, 0.0, out, reason,
                           sizeof reason))
        fail_msg("%s: %s", path, reason);
    free(bin);
    free(bin_path);
    free(folder);
    json_decref(root);
}

/* The corpus's two Draco models: the positions and triangles are exactly the
 * decoder's (mapped through the extension's attribute ids), the counts are
 * the accessors', the bounds those the exporter recorded in min/max (its
 * quantisation range, within one step), and every triangle is one of the
 * uncompressed version's within the quantisation step. */
static void gltf_decodes_draco_corpus_models(void **state) {
    (void)state;
    if (test_skip_without_corpus("gltf_decodes_draco_corpus_models"))
        skip();
    static const struct {
        const char *draco, *plain;
        uint32_t vertices, triangles;
        float tolerance; /* the positions' quantisation step, with margin */
    } models[] = {
        {"gltf/Box/glTF-Draco/Box.gltf", "gltf/Box/glTF/Box.gltf", 24, 12, 0.002f},
        {"gltf/RiggedSimple/glTF-Draco/RiggedSimple.gltf",
         "gltf/RiggedSimple/glTF/RiggedSimple.gltf", 160, 188, 0.01f},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        test_import draco, plain;
        import_corpus(&draco, models[i].draco);
        import_corpus(&plain, models[i].plain);
        assert_int_equal(draco.asset.mesh_count, 1);
        const ir_mesh *mesh = &draco.asset.meshes[0], *reference = &plain.asset.meshes[0];
        float min[3], max[3];
        uint32_t count;
        corpus_accessor_bounds(models[i].draco, "POSITION", min, max, &count);
        assert_int_equal(mesh->vertex_count, count);
        assert_int_equal(mesh->vertex_count, models[i].vertices);
        assert_int_equal(mesh->index_count, 3 * models[i].triangles);
        assert_int_equal(reference->index_count, 3 * models[i].triangles);
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t v = 0; v < mesh->vertex_count; v++)
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], mesh->positions[3 * (size_t)v + k]);
                hi[k] = fmaxf(hi[k], mesh->positions[3 * (size_t)v + k]);
            }
        expect_floats(lo, min, 3, models[i].tolerance);
        expect_floats(hi, max, 3, models[i].tolerance);
        draco_mesh reference_decode;
        draco_reference(models[i].draco, &reference_decode);
        assert_int_equal(reference_decode.point_count, mesh->vertex_count);
        assert_int_equal(3 * reference_decode.face_count, mesh->index_count);
        assert_memory_equal(mesh->positions, reference_decode.values[0],
                            3 * sizeof(float) * mesh->vertex_count);
        assert_memory_equal(mesh->indices, reference_decode.indices,
                            sizeof(uint32_t) * mesh->index_count);
        draco_mesh_free(&reference_decode);
        for (uint32_t t = 0; t < models[i].triangles; t++)
            if (!has_triangle(mesh, t, reference, models[i].tolerance))
                fail_msg("%s: triangle %u has no counterpart in %s", models[i].draco, t,
                         models[i].plain);
        assert_non_null(mesh->normals);
        if (reference->joints != NULL) {
            /* RiggedSimple: two joints, weights as uncompressed (sum 1) */
            assert_non_null(mesh->joints);
            for (size_t k = 0; k < 4 * (size_t)mesh->vertex_count; k++)
                assert_true(mesh->joints[k] < 2);
        }
        assert_int_equal(draco.asset.node_count, plain.asset.node_count);
        test_import_free(&draco);
        test_import_free(&plain);
    }
}

/* Draco with a fallback (extension only in extensionsUsed, accessors with
 * bufferViews): Draco is read, the fallback (zeros here) is not. A primitive
 * whose Draco extension is not declared in extensionsUsed is skipped when it
 * has no fallback. */
static void gltf_prefers_draco_to_the_fallback(void **state) {
    (void)state;
    if (test_skip_without_corpus("gltf_prefers_draco_to_the_fallback"))
        skip();
    char *dir = fresh_dir("draco_fallback");
    uint8_t *bin;
    size_t bin_size;
    json_t *root = draco_box(&bin, &bin_size);
    test_write_in(dir, "Box.bin", bin, bin_size);
    json_object_del(root, "extensionsRequired");
    /* buffer 1: 24 * 12 * 2 + 36 * 2 bytes of zeros, the fallback */
    uint8_t zeros[648] = {0};
    char *data = base64(zeros, sizeof zeros);
    char uri[1024];
    snprintf(uri, sizeof uri, "data:application/octet-stream;base64,%s", data);
    free(data);
    json_array_append_new(json_object_get(root, "buffers"),
                          json_pack("{s:i,s:s}", "byteLength", 648, "uri", uri));
    json_t *views = json_object_get(root, "bufferViews");
    json_array_append_new(
        views, json_pack("{s:i,s:i,s:i}", "buffer", 1, "byteOffset", 0, "byteLength", 72));
    json_array_append_new(
        views, json_pack("{s:i,s:i,s:i}", "buffer", 1, "byteOffset", 72, "byteLength", 576));
    json_t *accessors = json_object_get(root, "accessors");
    json_object_set_new(json_array_get(accessors, 0), "bufferView", json_integer(1));
    for (size_t a = 1; a <= 2; a++) {
        json_object_set_new(json_array_get(accessors, a), "bufferView", json_integer(2));
        json_object_set_new(json_array_get(accessors, a), "byteOffset",
                            json_integer((json_int_t)(a - 1) * 288));
    }
    char *text = json_dumps(root, JSON_COMPACT);
    test_import r;
    test_import_gltf_json(&r, dir, text);
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    float lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < 3 * (size_t)r.asset.meshes[0].vertex_count; k++) {
        lo = fminf(lo, r.asset.meshes[0].positions[k]);
        hi = fmaxf(hi, r.asset.meshes[0].positions[k]);
    }
    assert_true(lo < -0.49f && hi > 0.49f); /* the Draco box, not the zeros */
    test_import_free(&r);
    free(text);
    /* Without extensionsUsed the extension is not honoured: the fallback (all
     * zeros, degenerate) is what there is. */
    json_object_del(root, "extensionsUsed");
    for (size_t a = 0; a <= 2; a++) {
        json_object_del(json_array_get(accessors, a), "bufferView");
        json_object_del(json_array_get(accessors, a), "byteOffset");
    }
    text = json_dumps(root, JSON_COMPACT);
    test_import_gltf_json(&r, dir, text);
    expect_warning(&r, "meshes[0].primitives[0]: Draco-compressed, but KHR_draco_mesh_compression "
                       "is not in extensionsUsed, and there is no uncompressed fallback; skipped");
    assert_int_equal(r.asset.mesh_count, 0);
    test_import_free(&r);
    free(text);
    json_decref(root);
    free(bin);
    free(dir);
}

/* Truncated and bit-flipped Draco data: a clear error naming the extension,
 * or (a flip the format does not notice) a valid asset; never a crash or a
 * sanitizer report. */
static void gltf_refuses_corrupt_draco_data(void **state) {
    (void)state;
    if (test_skip_without_corpus("gltf_refuses_corrupt_draco_data"))
        skip();
    char *dir = fresh_dir("draco_corrupt");
    uint8_t *bin;
    size_t bin_size;
    json_t *root = draco_box(&bin, &bin_size);
    json_t *view = json_array_get(json_object_get(root, "bufferViews"), 0);
    const uint32_t draco_length = (uint32_t)json_integer_value(json_object_get(view, "byteLength"));
    const char *where = "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression";
    uint32_t refused = 0, decoded = 0;
    /* every truncation of the Draco bufferView */
    for (uint32_t length = 1; length < draco_length; length++) {
        test_write_in(dir, "Box.bin", bin, bin_size);
        json_object_set_new(view, "byteLength", json_integer(length));
        char *text = json_dumps(root, JSON_COMPACT);
        test_import r;
        test_import_gltf_json(&r, dir, text);
        if (r.ok) {
            test_check_asset(&r.asset);
            decoded++;
        } else {
            if (strstr(test_import_messages(&r), where) == NULL)
                fail_msg("truncated to %u: %s", length, test_import_messages(&r));
            refused++;
        }
        if (length <= draco_length / 2)
            assert_false(r.ok);
        test_import_free(&r);
        free(text);
    }
    /* random bit flips inside it */
    json_object_set_new(view, "byteLength", json_integer(draco_length));
    char *text = json_dumps(root, JSON_COMPACT);
    uint8_t *copy = malloc(bin_size);
    assert_non_null(copy);
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (int trial = 0; trial < 800; trial++) {
        memcpy(copy, bin, bin_size);
        int flips = 1 + trial % 3;
        for (int f = 0; f < flips; f++) {
            seed ^= seed << 13; /* xorshift64, apart from rng() of the mutation test */
            seed ^= seed >> 7;
            seed ^= seed << 17;
            uint32_t bit = (uint32_t)(seed >> 16) % (draco_length * 8);
            copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        test_write_in(dir, "Box.bin", copy, bin_size);
        test_import r;
        test_import_gltf_json(&r, dir, text);
        if (r.ok) {
            test_check_asset(&r.asset);
            decoded++;
        } else {
            if (strstr(test_import_messages(&r), where) == NULL &&
                strstr(test_import_messages(&r), "meshes[0].primitives[0]") == NULL)
                fail_msg("flip trial %d: %s", trial, test_import_messages(&r));
            refused++;
        }
        test_import_free(&r);
    }
    printf("corrupt Draco data: %u refused, %u still decode to a valid mesh\n", refused, decoded);
    assert_true(refused > draco_length / 2);
    free(copy);
    free(text);
    json_decref(root);
    free(bin);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Random mutations: never a crash, a hang or a sanitizer report
 * ------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Half the edits of binary input land at or after `hot` (the BIN chunk). */
static void mutate_and_import(const char *dir, const char *name, const uint8_t *original,
                              size_t size, size_t hot, int rounds, bool text) {
    static const char interesting[] = "0123456789-.,:[]{}\"eE+ ";
    uint8_t *copy = malloc(size + 1);
    assert_non_null(copy);
    int accepted = 0;
    for (int round = 0; round < rounds; round++) {
        memcpy(copy, original, size);
        size_t length = size;
        int kind = (int)(rng() % 4);
        if (kind == 0) {
            length = rng() % (size + 1); /* truncation */
        } else {
            int edits = 1 + (int)(rng() % 4);
            for (int e = 0; e < edits; e++) {
                size_t at = rng() % size;
                if (!text && hot < size && rng() % 2 == 0)
                    at = hot + rng() % (size - hot);
                if (text || kind == 1)
                    copy[at] = (uint8_t)interesting[rng() % (sizeof interesting - 1)];
                else if (kind == 2)
                    copy[at] ^= (uint8_t)(1u << (rng() % 8));
                else
                    copy[at] = (uint8_t)rng();
            }
        }
        test_import r;
        import_bytes(&r, dir, name, copy, length);
        if (r.ok) {
            test_check_asset(&r.asset);
            accepted++;
        } else {
            assert_true(r.diag.errors > 0); /* a failure always says why */
        }
        test_import_free(&r);
    }
    printf("%s: %d of %d mutations still import\n", name, accepted, rounds);
    free(copy);
}

static void gltf_survives_random_mutations(void **state) {
    (void)state;
    char *dir = fresh_dir("mutations");
    builder b = {0};
    const uint16_t indices[6] = {0, 1, 2, 2, 1, 0};
    const uint8_t joints[12] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    const float weights[12] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0};
    const float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                           1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float times[2] = {0, 1};
    const float rotations[8] = {0, 0, 0, 1, 0, 0, 1, 0};
    const uint16_t sparse_index[1] = {1};
    const float sparse_value[3] = {2, 2, 2};
    add_data(&b, TRIANGLE, sizeof TRIANGLE, FLOAT, 3, "VEC3", false, 0, 34962);  /* 0 */
    add_data(&b, indices, sizeof indices, USHORT, 6, "SCALAR", false, 0, 34963); /* 1 */
    add_data(&b, joints, sizeof joints, UBYTE, 3, "VEC4", false, 0, 34962);      /* 2 */
    add_data(&b, weights, sizeof weights, FLOAT, 3, "VEC4", false, 0, 34962);    /* 3 */
    add_data(&b, ibm, sizeof ibm, FLOAT, 2, "MAT4", false, 0, 0);                /* 4 */
    int tv = add_view(&b, times, sizeof times, 0, 0);
    add_accessor(&b, tv, FLOAT, 2, "SCALAR", false, "'min':[0],'max':[1]");   /* 5 */
    add_data(&b, rotations, sizeof rotations, FLOAT, 2, "VEC4", false, 0, 0); /* 6 */
    int si = add_view(&b, sparse_index, sizeof sparse_index, 0, 0);
    int sv = add_view(&b, sparse_value, sizeof sparse_value, 0, 0);
    char sparse[256];
    snprintf(sparse, sizeof sparse,
             "'sparse':{'count':1,'indices':{'bufferView':%d,'componentType':5123},"
             "'values':{'bufferView':%d}}",
             si, sv);
    add_accessor(&b, -1, FLOAT, 3, "VEC3", false, sparse); /* 7 */
    const char *rest =
        "'materials':[{'pbrMetallicRoughness':{'baseColorFactor':[1,0,0,1]}}],"
        "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'JOINTS_0':2,'WEIGHTS_0':3},"
        "'indices':1,'material':0},{'attributes':{'POSITION':7},'mode':5}]}],"
        "'nodes':[{'children':[1,2],'translation':[1,2,3]},{'mesh':0,'skin':0},{}],"
        "'skins':[{'joints':[0,2],'inverseBindMatrices':4}],"
        "'animations':[{'samplers':[{'input':5,'output':6}],"
        "'channels':[{'sampler':0,'target':{'node':2,'path':'rotation'}}]}],"
        "'scenes':[{'nodes':[0]}],'scene':0";
    char *json = builder_json(&b, rest, false);
    test_import r;
    test_import_gltf_json(&r, dir, json);
    test_import_expect_ok(&r);
    test_import_free(&r);
    char *glb_json = builder_json(&b, rest, true);
    size_t glb_size;
    uint8_t *glb = make_glb(glb_json, b.bin.data, b.bin.size, &glb_size);
    import_bytes(&r, dir, "model.glb", glb, glb_size);
    test_import_expect_ok(&r);
    test_import_free(&r);

    size_t bin_start = glb_size - ((b.bin.size + 3) & ~(size_t)3);
    mutate_and_import(dir, "model.glb", glb, glb_size, bin_start, 4000, false);
    mutate_and_import(dir, "model.gltf", (const uint8_t *)json, strlen(json), 0, 3000, true);
    /* every truncation of the GLB */
    for (size_t length = 0; length < glb_size; length++) {
        import_bytes(&r, dir, "model.glb", glb, length);
        assert_false(r.ok);
        test_import_free(&r);
    }
    free(glb);
    free(glb_json);
    free(json);
    builder_free(&b);
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gltf_decodes_every_component_type),
        cmocka_unit_test(gltf_reads_interleaved_strides),
        cmocka_unit_test(gltf_applies_sparse_accessors),
        cmocka_unit_test(gltf_reports_accessor_ranges_with_json_paths),
        cmocka_unit_test(gltf_reads_padded_matrix_columns),
        cmocka_unit_test(gltf_warns_about_bad_values_in_unused_objects),
        cmocka_unit_test(gltf_converts_strips_and_fans),
        cmocka_unit_test(gltf_imports_points_and_lines),
        cmocka_unit_test(gltf_lines_without_normals_keep_the_triangles_normals),
        cmocka_unit_test(gltf_merges_primitives_into_submeshes),
        cmocka_unit_test(gltf_reads_skins_tangents_and_missing_positions),
        cmocka_unit_test(gltf_checks_the_data_it_reads),
        cmocka_unit_test(gltf_reads_external_buffers_and_data_uris),
        cmocka_unit_test(gltf_refuses_uris_outside_the_input_folder),
        cmocka_unit_test(gltf_reads_glb),
        cmocka_unit_test(gltf_large_accessors_decode_the_same_on_threads),
        cmocka_unit_test(gltf_large_primitives_read_in_place_on_threads),
        cmocka_unit_test(gltf_large_accessor_bounds_are_checked_on_threads),
        cmocka_unit_test(gltf_decodes_meshopt_compression),
        cmocka_unit_test(gltf_reports_syntax_errors_with_the_line),
        cmocka_unit_test(gltf_rejects_wrong_types_with_their_path),
        cmocka_unit_test(gltf_maps_materials_and_textures),
        cmocka_unit_test(gltf_uses_fallbacks_of_unsupported_extensions),
        cmocka_unit_test(gltf_images_sharing_a_view_share_one_image),
        cmocka_unit_test(gltf_orders_nodes_parents_first),
        cmocka_unit_test(gltf_corpus_rows_import_as_expected),
        cmocka_unit_test(gltf_corpus_models_have_the_expected_content),
        cmocka_unit_test(gltf_decodes_draco_corpus_models),
        cmocka_unit_test(gltf_prefers_draco_to_the_fallback),
        cmocka_unit_test(gltf_refuses_corrupt_draco_data),
        cmocka_unit_test(gltf_survives_random_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
