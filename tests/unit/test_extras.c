/* Extras and unknown extensions (container.md XTRA): a crafted glTF with
 * extras and extensions kiln does not interpret on its top level, asset,
 * scene, mesh, material and texture is cooked; each object's text, read back
 * with kiln_file_extras, equals {"extras": ..., "extensions": {...}} built
 * here from the source JSON (the extensions kiln honours left out). A corpus
 * file's node extras still reach the scene; extensionsRequired still refuses
 * an extension kiln cannot honour; a broken XTRA table is refused. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

/* tests/data/extras/extras.gltf: a triangle with UVs and a 1x1 PNG texture,
 * every object carrying extras and an extension kiln does not know beside
 * ones it does. */
static char *crafted_text(void) {
    size_t size;
    return (char *)test_read_file(KILN_TEST_DATA_DIR "/extras/extras.gltf", &size);
}

typedef struct fixture {
    char *root, *out;
    cook_asset_result result;
} fixture;

static bool cook(fixture *f, const char *name, const char *text) {
    memset(f, 0, sizeof *f);
    f->root = test_make_temp_dir(name);
    f->out = test_path_join(f->root, "out");
    mkdir(f->out, 0755);
    char *source = test_path_join(f->root, "model.gltf");
    test_write_file(source, text, strlen(text));
    free(source);
    cook_settings settings;
    cook_settings_default(&settings);
    settings.texture_compress = false;
    cook_request request = {.input_root = f->root,
                            .output_root = f->out,
                            .source_path = "model.gltf",
                            .importer = cook_registry_match("model.gltf"),
                            .settings = &settings};
    return cook_asset(&request, &f->result);
}

static void fixture_free(fixture *f) {
    cook_asset_result_free(&f->result);
    free(f->root);
    free(f->out);
}

/* What the file must hold for `object`: its extras and the extensions not in
 * the NULL-terminated `honoured`, or NULL when neither. */
static json_t *expected_text(const json_t *object, const char *const *honoured) {
    json_t *want = json_object(), *kept = json_object();
    const char *name;
    json_t *value;
    json_object_foreach(json_object_get(object, "extensions"), name, value) {
        bool known = false;
        for (size_t i = 0; honoured != NULL && honoured[i] != NULL; i++)
            known |= strcmp(honoured[i], name) == 0;
        if (!known)
            json_object_set(kept, name, value);
    }
    if (json_object_size(kept) > 0)
        json_object_set(want, "extensions", kept);
    if (json_object_get(object, "extras") != NULL)
        json_object_set(want, "extras", json_object_get(object, "extras"));
    json_decref(kept);
    if (json_object_size(want) == 0) {
        json_decref(want);
        return NULL;
    }
    return want;
}

static void expect_extras(const char *out, const char *file_name, kiln_extras_object object,
                          uint32_t index, const json_t *source_object,
                          const char *const *honoured) {
    char *path = test_path_join(out, file_name);
    kiln_file file;
    kiln_error err;
    if (kiln_file_map(&file, path, 0, &err) != KILN_OK)
        fail_msg("%s", err.message);
    assert_int_equal(kiln_file_extras_check(&file, &err), KILN_OK);
    size_t length = 0;
    const char *text = kiln_file_extras(&file, object, index, &length);
    json_t *want = expected_text(source_object, honoured);
    if (want == NULL) {
        assert_null(text);
    } else {
        if (text == NULL)
            fail_msg("%s: no extras for object %d index %u", file_name, (int)object, index);
        assert_int_equal(strlen(text), length);
        json_t *got = json_loadb(text, length, 0, NULL);
        if (!json_equal(got, want))
            fail_msg("%s object %d: got %s", file_name, (int)object, text);
        json_decref(got);
    }
    json_decref(want);
    kiln_file_close(&file);
    free(path);
}

static void crafted_objects_keep_extras(void **state) {
    (void)state;
    fixture f;
    char *crafted = crafted_text();
    if (!cook(&f, "extras_crafted", crafted))
        fail_msg("%s", f.result.diag.text.data ? (const char *)f.result.diag.text.data : "");
    json_t *doc = json_loads(crafted, 0, NULL);
    free(crafted);
    assert_non_null(doc);
    const char *const root_honoured[] = {"KHR_lights_punctual", NULL};
    const char *const material_honoured[] = {"KHR_materials_unlit", NULL};
    expect_extras(f.out, "model.kscene", KILN_EXTRAS_DOCUMENT, 0, doc, root_honoured);
    expect_extras(f.out, "model.kscene", KILN_EXTRAS_ASSET, 0, json_object_get(doc, "asset"), NULL);
    expect_extras(f.out, "model.kscene", KILN_EXTRAS_SCENE, 0,
                  json_array_get(json_object_get(doc, "scenes"), 0), NULL);
    expect_extras(f.out, "model.kmesh", KILN_EXTRAS_MESH, 0,
                  json_array_get(json_object_get(doc, "meshes"), 0), NULL);
    expect_extras(f.out, "model.kmat", KILN_EXTRAS_MATERIAL, 0,
                  json_array_get(json_object_get(doc, "materials"), 0), material_honoured);
    expect_extras(f.out, "model.kmat", KILN_EXTRAS_TEXTURE, KILN_MATERIAL_SLOT_BASE_COLOR,
                  json_array_get(json_object_get(doc, "textures"), 0), NULL);
    expect_extras(f.out, "model.kmat", KILN_EXTRAS_IMAGE, KILN_MATERIAL_SLOT_BASE_COLOR,
                  json_array_get(json_object_get(doc, "images"), 0), NULL);
    /* Slots without a texture and objects a file does not hold have none. */
    json_t *empty = json_object();
    expect_extras(f.out, "model.kmat", KILN_EXTRAS_TEXTURE, KILN_MATERIAL_SLOT_NORMAL, empty, NULL);
    expect_extras(f.out, "model.kmat", KILN_EXTRAS_IMAGE, KILN_MATERIAL_SLOT_NORMAL, empty, NULL);
    expect_extras(f.out, "model.kmesh", KILN_EXTRAS_SCENE, 0, empty, NULL);
    expect_extras(f.out, "model.kscene", KILN_EXTRAS_SCENE, 1, empty, NULL);
    json_decref(empty);
    json_decref(doc);
    fixture_free(&f);
}

/* The corpus's files with extras carry them on nodes: still in the scene,
 * and no XTRA chunk is made up for them. */
static void corpus_node_extras(void **state) {
    (void)state;
    if (test_skip_without_corpus("test_extras"))
        skip();
    const char *source = "invalid/gltf-validator/animation/valid.gltf";
    char *path = test_path_join(test_corpus_dir(), source);
    size_t size;
    char *text = (char *)test_read_file(path, &size);
    free(path);
    fixture f;
    if (!cook(&f, "extras_corpus", text))
        fail_msg("%s", f.result.diag.text.data ? (const char *)f.result.diag.text.data : "");
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    char *scene_path = test_path_join(f.out, "model.kscene");
    kiln_file file;
    kiln_scene_view view;
    kiln_error err;
    if (kiln_file_map(&file, scene_path, 0, &err) != KILN_OK ||
        kiln_scene_view_get(&file, 0, &view, &err) != KILN_OK)
        fail_msg("%s", err.message);
    uint32_t with_extras = 0;
    for (uint32_t n = 0; n < view.node_count; n++) {
        size_t length = 0;
        const char *extras = kiln_scene_node_extras(&view, n, &length);
        if (extras == NULL)
            continue;
        json_t *got = json_loadb(extras, length, 0, NULL);
        const json_t *node =
            json_array_get(json_object_get(doc, "nodes"), (size_t)view.nodes[n].source);
        assert_true(json_equal(got, json_object_get(node, "extras")));
        json_decref(got);
        with_extras++;
    }
    assert_true(with_extras > 0);
    kiln_chunk chunk;
    assert_int_equal(kiln_file_find_chunk(&file, KILN_CHUNK_EXTRAS, &chunk), KILN_ERR_NOT_FOUND);
    kiln_file_close(&file);
    free(scene_path);
    json_decref(doc);
    free(text);
    fixture_free(&f);
}

/* Kept is not honoured: a required unknown extension still fails the cook,
 * naming it. */
static void required_unknown_extension_refused(void **state) {
    (void)state;
    char *crafted = crafted_text();
    char *text = malloc(strlen(crafted) + 64);
    assert_non_null(text);
    sprintf(text, "{\"extensionsRequired\":[\"EXT_mesh_thing\"],%s", strchr(crafted, '{') + 1);
    free(crafted);
    fixture f;
    assert_false(cook(&f, "extras_required", text));
    const char *diag = (const char *)f.result.diag.text.data;
    assert_non_null(diag);
    assert_non_null(strstr(diag, "extensionsRequired[0]: required extension EXT_mesh_thing is not "
                                 "supported"));
    free(text);
    fixture_free(&f);
}

/* A 16-byte-aligned container holding one XTRA chunk `payload`. */
static uint8_t *file_with_extras(const uint8_t *payload, size_t size, size_t *file_size) {
    size_t padded = (size + 15) & ~(size_t)15;
    size_t table = sizeof(kiln_container_header) + sizeof(kiln_chunk_entry);
    size_t at = (table + 15) & ~(size_t)15;
    *file_size = at + padded;
    uint8_t *bytes = aligned_alloc(16, *file_size);
    assert_non_null(bytes);
    memset(bytes, 0, *file_size);
    kiln_container_header h = {.magic = KILN_CONTAINER_MAGIC,
                               .kind = KILN_KIND_MESH,
                               .container_version = KILN_CONTAINER_VERSION,
                               .kind_version = KILN_MESH_VERSION,
                               .chunk_count = 1,
                               .header_size = sizeof h,
                               .file_size = *file_size};
    kiln_chunk_entry e = {.fourcc = KILN_CHUNK_EXTRAS, .offset = at, .size = size};
    memcpy(bytes, &h, sizeof h);
    memcpy(bytes + sizeof h, &e, sizeof e);
    memcpy(bytes + at, payload, size);
    return bytes;
}

static void bad_tables_refused(void **state) {
    (void)state;
    /* Two entries, mesh 0 then material 1, texts "{}" and "{\"a\":1}". */
    uint8_t chunk[4 + 32 + 3 + 8];
    uint32_t count = 2;
    kiln_extras_entry entries[2] = {{KILN_EXTRAS_MESH, 0, 36, 2}, {KILN_EXTRAS_MATERIAL, 1, 39, 7}};
    memcpy(chunk, &count, 4);
    memcpy(chunk + 4, entries, sizeof entries);
    memcpy(chunk + 36, "{}\0{\"a\":1}\0", 11);
    struct {
        size_t at;
        uint32_t value;
        const char *message; /* NULL: valid */
    } cases[] = {
        {0, 2, NULL},
        {0, 3, "too small for its 3 entries"},
        {4, 9, "unknown object kind 9"},
        {20, KILN_EXTRAS_MESH, NULL}, /* mesh 1 after mesh 0: still in order */
        {24, 0, "is not after the one before"},
        {12, 38, "is not a NUL-terminated string"},
        {28, 100, "is not a NUL-terminated string"},
        {32, 6, "is not a NUL-terminated string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t copy[sizeof chunk];
        memcpy(copy, chunk, sizeof chunk);
        if (!(i == 4)) /* case 4 changes the second entry's object to mesh, index 0 */
            memcpy(copy + cases[i].at, &cases[i].value, 4);
        else {
            uint32_t mesh = KILN_EXTRAS_MESH;
            memcpy(copy + 20, &mesh, 4);
            memcpy(copy + 24, &cases[i].value, 4);
        }
        size_t size;
        uint8_t *bytes = file_with_extras(copy, sizeof copy, &size);
        kiln_file file;
        kiln_error err;
        assert_int_equal(kiln_file_from_memory(&file, bytes, size, "x.kmesh", 0, &err), KILN_OK);
        kiln_result r = kiln_file_extras_check(&file, &err);
        if (cases[i].message == NULL) {
            assert_int_equal(r, KILN_OK);
        } else {
            assert_int_equal(r, KILN_ERR_CORRUPT);
            if (strstr(err.message, cases[i].message) == NULL)
                fail_msg("case %zu: '%s' lacks '%s'", i, err.message, cases[i].message);
        }
        /* Lookups stay in bounds whatever the table says. */
        size_t length = 0;
        const char *text = kiln_file_extras(&file, KILN_EXTRAS_MESH, 0, &length);
        if (text != NULL)
            assert_int_equal(text[length], '\0');
        if (i == 0) {
            assert_string_equal(text, "{}");
            assert_string_equal(kiln_file_extras(&file, KILN_EXTRAS_MATERIAL, 1, &length),
                                "{\"a\":1}");
            assert_int_equal(length, 7);
            assert_null(kiln_file_extras(&file, KILN_EXTRAS_MATERIAL, 0, NULL));
        }
        kiln_file_close(&file);
        free(bytes);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crafted_objects_keep_extras),
        cmocka_unit_test(corpus_node_extras),
        cmocka_unit_test(required_unknown_extension_refused),
        cmocka_unit_test(bad_tables_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
