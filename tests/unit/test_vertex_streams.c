/* mesh.vertex_layout: corpus models cooked interleaved and as streams hold
 * the same value for every attribute of every vertex. The test finds each
 * value itself, from the layout kmesh.md gives (interleaved: vertex v at
 * v x stride + offset; streams: attribute i's stream after the earlier ones,
 * each padded to 16 bytes), and checks kiln_mesh_attribute_data against it.
 * The default cooks the same bytes as an explicit "interleaved" and keeps
 * the key out of the file's settings. Bad stream tables are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

typedef struct mapped_mesh {
    uint8_t *bytes;
    size_t size;
    kiln_file file;
    kiln_mesh_view view;
} mapped_mesh;

static char *cook_into(const char *source, const char *out_name, cook_vertex_layout layout,
                       bool quantize) {
    char *out = test_make_temp_dir(out_name);
    cook_settings settings;
    cook_settings_default(&settings);
    settings.texture_compress = false;
    settings.mesh_vertex_layout = layout;
    settings.mesh_quantize_positions = quantize;
    cook_request request = {.input_root = test_corpus_dir(),
                            .output_root = out,
                            .source_path = source,
                            .importer = cook_registry_match(source),
                            .settings = &settings};
    cook_asset_result result;
    memset(&result, 0, sizeof result);
    if (!cook_asset(&request, &result))
        fail_msg("%s: %s", source,
                 result.diag.text.data ? (const char *)result.diag.text.data : "");
    cook_asset_result_free(&result);
    return out;
}

static void map_mesh(const char *out, const char *relative, mapped_mesh *m) {
    char *full = test_path_join(out, relative);
    m->bytes = test_read_file(full, &m->size);
    kiln_error err;
    if (kiln_file_map(&m->file, full, 0, &err) != KILN_OK ||
        kiln_mesh_view_get(&m->file, KILN_OPEN_DEEP, &m->view, &err) != KILN_OK)
        fail_msg("%s: %s", relative, err.message);
    free(full);
}

static void unmap_mesh(mapped_mesh *m) {
    kiln_file_close(&m->file);
    free(m->bytes);
}

static uint32_t format_bytes(uint16_t format) {
    switch (format) { /* kmesh.md, formats table */
    case KILN_VFORMAT_F32X2:
    case KILN_VFORMAT_UNORM16X4:
    case KILN_VFORMAT_SNORM16X4:
    case KILN_VFORMAT_U16X4:
        return 8;
    case KILN_VFORMAT_F32X3:
        return 12;
    case KILN_VFORMAT_F32X4:
        return 16;
    default:
        return 4;
    }
}

/* Compares one model's two cooks value by value. */
static void compare_layouts(const char *source, const char *mesh_file, bool quantize,
                            uint32_t *attributes_seen) {
    char *plain_out = cook_into(source, "streams_plain", COOK_VERTEX_LAYOUT_INTERLEAVED, quantize);
    char *streams_out = cook_into(source, "streams_split", COOK_VERTEX_LAYOUT_STREAMS, quantize);
    mapped_mesh a, b;
    map_mesh(plain_out, mesh_file, &a);
    map_mesh(streams_out, mesh_file, &b);
    const kiln_mesh_desc *da = a.view.desc, *db = b.view.desc;
    assert_int_equal(da->flags, 0);
    assert_int_equal(db->flags, KILN_MESH_FLAG_STREAMS);
    assert_int_equal(da->vertex_count, db->vertex_count);
    assert_int_equal(da->attribute_count, db->attribute_count);
    assert_int_equal(da->vertex_stride, db->vertex_stride); /* bytes of one vertex either way */
    assert_true(da->vertex_count > 0);
    /* Everything but the vertices is the same. */
    assert_int_equal(a.view.index_bytes, b.view.index_bytes);
    assert_memory_equal(a.view.indices, b.view.indices, a.view.index_bytes);
    assert_memory_equal(da->aabb_min, db->aabb_min, sizeof da->aabb_min);
    assert_memory_equal(da->position_scale, db->position_scale, sizeof da->position_scale);

    const uint8_t *plain = a.view.vertices, *streams = b.view.vertices;
    size_t stream_at = 0;
    for (uint32_t i = 0; i < da->attribute_count; i++) {
        const kiln_vertex_attribute *x = &a.view.attributes[i], *y = &b.view.attributes[i];
        assert_int_equal(x->semantic, y->semantic);
        assert_int_equal(x->format, y->format);
        assert_int_equal(y->stream, i);
        assert_int_equal(y->offset, 0);
        uint32_t size = format_bytes(x->format);
        for (uint32_t v = 0; v < da->vertex_count; v++) {
            const uint8_t *want = plain + (size_t)v * da->vertex_stride + x->offset;
            const uint8_t *got = streams + stream_at + (size_t)v * size;
            if (memcmp(want, got, size) != 0)
                fail_msg("%s: %s of vertex %u differs between the layouts", source,
                         kiln_vertex_semantic_str((kiln_vertex_semantic)x->semantic), v);
        }
        /* The accessor agrees with the spec's arithmetic, in both files. */
        uint32_t stride = 0;
        size_t offset = 0;
        assert_ptr_equal(kiln_mesh_attribute_data(&b.view, y, &stride, &offset),
                         streams + stream_at);
        assert_int_equal(stride, size);
        assert_int_equal(offset, stream_at);
        assert_ptr_equal(kiln_mesh_attribute_data(&a.view, x, &stride, &offset), plain + x->offset);
        assert_int_equal(stride, da->vertex_stride);
        /* Padding is zero. */
        size_t used = (size_t)da->vertex_count * size, padded = (used + 15) & ~(size_t)15;
        for (size_t k = used; k < padded; k++)
            assert_int_equal(streams[stream_at + k], 0);
        stream_at += padded;
        *attributes_seen |= 1u << x->semantic;
    }
    assert_int_equal(b.view.vertex_bytes, stream_at);
    /* Positions decode the same through the public helper. */
    for (uint32_t v = 0; v < da->vertex_count; v += 97) {
        float pa[3], pb[3];
        kiln_mesh_position(&a.view, v, pa);
        kiln_mesh_position(&b.view, v, pb);
        assert_memory_equal(pa, pb, sizeof pa);
    }
    unmap_mesh(&a);
    unmap_mesh(&b);
    free(plain_out);
    free(streams_out);
}

static void corpus_models_same_values(void **state) {
    (void)state;
    if (test_skip_without_corpus("test_vertex_streams"))
        skip();
    uint32_t seen = 0;
    /* Skinned (joints, weights), vertex colours, normal-mapped (tangents). */
    compare_layouts("gltf/Fox/glTF-Binary/Fox.glb", "gltf/Fox/glTF-Binary/Fox.kmesh", false, &seen);
    compare_layouts("gltf/VertexColorTest/glTF/VertexColorTest.gltf",
                    "gltf/VertexColorTest/glTF/VertexColorTest.mesh1.kmesh", true, &seen);
    compare_layouts("gltf/NormalTangentTest/glTF/NormalTangentTest.gltf",
                    "gltf/NormalTangentTest/glTF/NormalTangentTest.kmesh", false, &seen);
    const kiln_vertex_semantic wanted[] = {KILN_SEMANTIC_POSITION, KILN_SEMANTIC_NORMAL,
                                           KILN_SEMANTIC_TANGENT,  KILN_SEMANTIC_TEXCOORD0,
                                           KILN_SEMANTIC_COLOR0,   KILN_SEMANTIC_JOINTS0,
                                           KILN_SEMANTIC_WEIGHTS0};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if ((seen & (1u << wanted[i])) == 0)
            fail_msg("no model had %s", kiln_vertex_semantic_str(wanted[i]));
}

/* The default is interleaved, written exactly as with the key set. */
static void default_is_interleaved_unchanged(void **state) {
    (void)state;
    if (test_skip_without_corpus("test_vertex_streams"))
        skip();
    const char *source = "gltf/Fox/glTF-Binary/Fox.glb";
    const char *mesh = "gltf/Fox/glTF-Binary/Fox.kmesh";
    char *x = cook_into(source, "streams_default", COOK_VERTEX_LAYOUT_INTERLEAVED, false);
    cook_settings settings;
    cook_settings_default(&settings);
    assert_int_equal(settings.mesh_vertex_layout, COOK_VERTEX_LAYOUT_INTERLEAVED);
    mapped_mesh a;
    map_mesh(x, mesh, &a);
    size_t meta_size = 0;
    const char *meta = kiln_file_metadata(&a.file, &meta_size);
    assert_non_null(meta);
    char *text = strndup(meta, meta_size);
    assert_null(strstr(text, "vertex_layout")); /* the default stays out of the settings */
    free(text);
    unmap_mesh(&a);
    free(x);
}

/* Streams tables a reader must refuse: a shifted stream, an offset, a stride
 * that is not the sum, a short chunk; an unknown flag is UNSUPPORTED. */
static void bad_stream_tables_refused(void **state) {
    (void)state;
    if (test_skip_without_corpus("test_vertex_streams"))
        skip();
    char *out =
        cook_into("gltf/Fox/glTF-Binary/Fox.glb", "streams_bad", COOK_VERTEX_LAYOUT_STREAMS, false);
    mapped_mesh m;
    map_mesh(out, "gltf/Fox/glTF-Binary/Fox.kmesh", &m);
    size_t desc_at = (size_t)((const uint8_t *)m.view.desc - (const uint8_t *)m.file.data);
    size_t attrs_at = (size_t)((const uint8_t *)m.view.attributes - (const uint8_t *)m.file.data);
    struct {
        size_t at;
        uint32_t value, width;
        kiln_result code;
        const char *message;
    } cases[] = {
        {attrs_at + 8 + 4, 0, 2, KILN_ERR_CORRUPT, "must be stream 1 at offset 0"},
        {attrs_at + 8 + 6, 4, 2, KILN_ERR_CORRUPT, "must be stream 1 at offset 0"},
        {desc_at + offsetof(kiln_mesh_desc, vertex_stride), 64, 4, KILN_ERR_CORRUPT, "is not the"},
        {desc_at + offsetof(kiln_mesh_desc, vertex_count), 1, 4, KILN_ERR_CORRUPT,
         "each padded to 16 bytes"},
        {desc_at + offsetof(kiln_mesh_desc, flags), 3, 4, KILN_ERR_UNSUPPORTED,
         "unknown mesh flags 0x2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *copy = aligned_alloc(16, (m.size + 15) & ~(size_t)15);
        assert_non_null(copy);
        memcpy(copy, m.bytes, m.size);
        memcpy(copy + cases[i].at, &cases[i].value, cases[i].width);
        kiln_file file;
        kiln_mesh_view view;
        kiln_error err;
        assert_int_equal(kiln_file_from_memory(&file, copy, m.size, "bad.kmesh", 0, &err), KILN_OK);
        assert_int_equal(kiln_mesh_view_get(&file, 0, &view, &err), cases[i].code);
        if (strstr(err.message, cases[i].message) == NULL)
            fail_msg("case %zu: '%s' lacks '%s'", i, err.message, cases[i].message);
        kiln_file_close(&file);
        free(copy);
    }
    unmap_mesh(&m);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_models_same_values),
        cmocka_unit_test(default_is_interleaved_unchanged),
        cmocka_unit_test(bad_stream_tables_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
