/* The manifest: writer, reader, lookup, collisions, validation rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

/* Serialises `list` and opens it; the caller frees *block and closes *file. */
static kiln_result open_manifest(cook_manifest_list *list, void **block, kiln_file *file,
                                 kiln_manifest_view *view, kiln_error *err) {
    cook_diag diag = {0};
    bytebuf bytes = {0};
    assert_true(write_manifest(list, &diag, &bytes));
    assert_int_equal(posix_memalign(block, 16, bytes.size), 0);
    memcpy(*block, bytes.data, bytes.size);
    assert_int_equal(kiln_file_from_memory(file, *block, bytes.size, "assets.kman",
                                           KILN_OPEN_VERIFY_CHECKSUM, err),
                     KILN_OK);
    bytebuf_free(&bytes);
    diag_free(&diag);
    return kiln_manifest_view_get(file, view, err);
}

static void manifest_round_trips_sorted_and_finds_every_ref(void **state) {
    (void)state;
    cook_manifest_list list = {0};
    char ref[64], path[64];
    for (int i = 0; i < 200; i++) {
        snprintf(ref, sizeof ref, "models/m%03d", i);
        snprintf(path, sizeof path, "models/m%03d.kmesh", i);
        assert_true(cook_manifest_add(&list, ref, path, KILN_ASSET_MESH, KILN_COLOR_SPACE_NONE, 0));
    }
    assert_true(cook_manifest_add(&list, "props/crate/tex_0", "props/crate.png.ktx2",
                                  KILN_ASSET_TEXTURE, KILN_COLOR_SPACE_SRGB, 0));
    void *block;
    kiln_file file;
    kiln_manifest_view view;
    kiln_error err;
    assert_int_equal(open_manifest(&list, &block, &file, &view, &err), KILN_OK);
    assert_int_equal(view.entry_count, 201);
    for (uint32_t i = 1; i < view.entry_count; i++)
        assert_true(view.entries[i - 1].hash < view.entries[i].hash);
    const kiln_manifest_entry *e = kiln_manifest_find(&view, kiln_ref_hash("models/m123"));
    assert_non_null(e);
    assert_string_equal(kiln_manifest_path(&view, e), "models/m123.kmesh");
    assert_string_equal(kiln_manifest_ref(&view, e), "models/m123");
    assert_int_equal(e->kind, KILN_ASSET_MESH);
    e = kiln_manifest_find(&view, kiln_ref_hash("props/crate/tex_0"));
    assert_non_null(e);
    assert_int_equal(e->color_space, KILN_COLOR_SPACE_SRGB);
    assert_null(kiln_manifest_find(&view, kiln_ref_hash("nope")));
    kiln_file_close(&file);
    free(block);
    cook_manifest_list_free(&list);
}

static void manifest_is_the_same_whatever_the_order_entries_arrive_in(void **state) {
    (void)state;
    cook_manifest_list a = {0}, b = {0};
    const char *refs[] = {"x/a", "x/b", "y/c", "z"};
    for (int i = 0; i < 4; i++)
        cook_manifest_add(&a, refs[i], refs[i], KILN_ASSET_MESH, KILN_COLOR_SPACE_NONE, 0);
    for (int i = 3; i >= 0; i--)
        cook_manifest_add(&b, refs[i], refs[i], KILN_ASSET_MESH, KILN_COLOR_SPACE_NONE, 0);
    cook_diag diag = {0};
    bytebuf ba = {0}, bb = {0};
    assert_true(write_manifest(&a, &diag, &ba));
    assert_true(write_manifest(&b, &diag, &bb));
    assert_int_equal(ba.size, bb.size);
    assert_memory_equal(ba.data, bb.data, ba.size);
    bytebuf_free(&ba);
    bytebuf_free(&bb);
    diag_free(&diag);
    cook_manifest_list_free(&a);
    cook_manifest_list_free(&b);
}

static void manifest_rejects_one_ref_produced_twice(void **state) {
    (void)state;
    cook_manifest_list list = {0};
    cook_manifest_add(&list, "models/cube", "models/cube.kmesh", KILN_ASSET_MESH, 0, 0);
    cook_manifest_add(&list, "models/cube", "models/Cube.kmesh", KILN_ASSET_MESH, 0, 0);
    cook_diag diag = {0};
    bytebuf out = {0};
    assert_false(write_manifest(&list, &diag, &out));
    assert_int_equal(diag.errors, 1);
    assert_non_null(strstr((const char *)diag.text.data, "ref 'models/cube' is produced twice"));
    assert_int_equal(out.size, 0);
    diag_free(&diag);
    cook_manifest_list_free(&list);
}

static void manifest_rejects_a_hash_collision(void **state) {
    (void)state;
    /* Two refs forced onto one hash: the writer compares refs, not only hashes. */
    cook_manifest_list list = {0};
    cook_manifest_add(&list, "a", "a.kmesh", KILN_ASSET_MESH, 0, 0);
    cook_manifest_add(&list, "b", "b.kmesh", KILN_ASSET_MESH, 0, 0);
    list.items[1].hash = list.items[0].hash;
    cook_diag diag = {0};
    bytebuf out = {0};
    assert_false(write_manifest(&list, &diag, &out));
    assert_non_null(strstr((const char *)diag.text.data, "have the same hash"));
    diag_free(&diag);
    cook_manifest_list_free(&list);
}

static void manifest_reader_rejects_unsorted_and_stray_strings(void **state) {
    (void)state;
    cook_manifest_list list = {0};
    cook_manifest_add(&list, "a", "a.kmesh", KILN_ASSET_MESH, 0, 0);
    cook_manifest_add(&list, "b", "b.kmesh", KILN_ASSET_MESH, 0, 0);
    void *block;
    kiln_file file;
    kiln_manifest_view view;
    kiln_error err;
    assert_int_equal(open_manifest(&list, &block, &file, &view, &err), KILN_OK);
    kiln_manifest_entry *entries = (kiln_manifest_entry *)(uintptr_t)view.entries;
    kiln_manifest_entry saved = entries[0];
    entries[0].hash = entries[1].hash; /* duplicated */
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "not sorted or duplicated"));
    entries[0] = saved;
    entries[0].path_length += 1; /* the NUL is no longer where it says */
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "outside MSTR"));
    entries[0] = saved;
    entries[0].ref_offset = UINT32_MAX;
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_ERR_CORRUPT);
    entries[0] = saved;
    entries[0].kind = 0;
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_ERR_CORRUPT);
    entries[0] = saved;
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_OK);
    kiln_file_close(&file);
    free(block);
    cook_manifest_list_free(&list);
}

static void manifest_reader_survives_every_truncation(void **state) {
    (void)state;
    cook_manifest_list list = {0};
    cook_manifest_add(&list, "a/b", "a/b.kmesh", KILN_ASSET_MESH, 0, 0);
    cook_diag diag = {0};
    bytebuf bytes = {0};
    assert_true(write_manifest(&list, &diag, &bytes));
    for (size_t length = 0; length < bytes.size; length++) {
        void *block = NULL;
        assert_int_equal(posix_memalign(&block, 16, length ? length : 1), 0);
        memcpy(block, bytes.data, length);
        kiln_file file;
        kiln_error err;
        assert_int_not_equal(kiln_file_from_memory(&file, block, length, "t.kman", 0, &err),
                             KILN_OK);
        free(block);
    }
    bytebuf_free(&bytes);
    diag_free(&diag);
    cook_manifest_list_free(&list);
}

/* Marks entries of `list` from `first` on as one asset's (id, main entry). */
static void give_id(cook_manifest_list *list, size_t first, size_t count, kiln_asset_id id,
                    size_t main) {
    for (size_t i = first; i < first + count; i++) {
        list->items[i].asset_id = id;
        list->items[i].main = i == main;
    }
}

static void manifest_maps_ids_to_main_refs_and_back(void **state) {
    (void)state;
    cook_manifest_list list = {0};
    kiln_asset_id crate = {0x1111, 0x2222}, level = {0x0fff, 0xffff0000ffff0000ull};
    cook_manifest_add(&list, "props/crate", "props/crate.kmesh", KILN_ASSET_MESH, 0, 0);
    cook_manifest_add(&list, "props/crate/wood", "props/crate.kmat", KILN_ASSET_MATERIAL, 0, 0);
    cook_manifest_add(&list, "levels/town/scene", "levels/town.kscene", KILN_ASSET_SCENE, 0, 0);
    cook_manifest_add(&list, "shaders/lit", "shaders/lit.kshader", KILN_ASSET_SHADER, 0, 0);
    give_id(&list, 0, 2, crate, 0);
    give_id(&list, 2, 1, level, 2); /* the shader has none */
    void *block;
    kiln_file file;
    kiln_manifest_view view;
    kiln_error err;
    assert_int_equal(open_manifest(&list, &block, &file, &view, &err), KILN_OK);
    assert_int_equal(file.kind_version, 2);
    assert_int_equal(view.id_count, 2);
    /* MIDS: sorted by ID (the level's hi is lower), each row naming its main
     * entry's index in the hash-sorted MENT. */
    kiln_chunk mids;
    assert_int_equal(kiln_file_find_chunk(&file, KILN_CHUNK_MANIFEST_IDS, &mids), KILN_OK);
    assert_int_equal(mids.size, 2 * 24);
    const kiln_manifest_id *rows = mids.data;
    assert_true(rows[0].id_hi == 0x0fff && rows[0].id_lo == 0xffff0000ffff0000ull);
    assert_true(rows[1].id_hi == 0x1111 && rows[1].id_lo == 0x2222);
    assert_int_equal(rows[0].reserved, 0);
    assert_string_equal(kiln_manifest_ref(&view, &view.entries[rows[0].entry]),
                        "levels/town/scene");
    assert_string_equal(kiln_manifest_ref(&view, &view.entries[rows[1].entry]), "props/crate");
    const kiln_manifest_entry *e = kiln_manifest_find_id(&view, crate);
    assert_non_null(e);
    assert_string_equal(kiln_manifest_ref(&view, e), "props/crate");
    assert_null(kiln_manifest_find_id(&view, (kiln_asset_id){0x1111, 0x2223}));
    kiln_asset_id back;
    assert_true(kiln_manifest_id_of(
        &view, kiln_manifest_find(&view, kiln_ref_hash("props/crate/wood")), &back));
    assert_true(back.hi == crate.hi && back.lo == crate.lo);
    assert_false(
        kiln_manifest_id_of(&view, kiln_manifest_find(&view, kiln_ref_hash("shaders/lit")), &back));
    assert_true(back.hi == 0 && back.lo == 0);
    /* R9: a MEID row that does not name the ID's row back is refused. */
    kiln_chunk meid;
    assert_int_equal(kiln_file_find_chunk(&file, KILN_CHUNK_MANIFEST_ENTRY_IDS, &meid), KILN_OK);
    uint32_t *owners = (uint32_t *)(uintptr_t)meid.data;
    uint32_t saved = owners[rows[1].entry];
    owners[rows[1].entry] = 0;
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "not one of its asset's"));
    owners[rows[1].entry] = 7;
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_ERR_CORRUPT);
    owners[rows[1].entry] = saved;
    /* R8: IDs out of order are refused. */
    kiln_manifest_id *mutable_rows = (kiln_manifest_id *)(uintptr_t)mids.data;
    mutable_rows[0].id_hi = 0x2000;
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_ERR_CORRUPT);
    mutable_rows[0].id_hi = 0x0fff;
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_OK);
    kiln_file_close(&file);
    free(block);
    cook_manifest_list_free(&list);
}

static void manifest_refuses_one_id_for_two_assets(void **state) {
    (void)state;
    cook_manifest_list list = {0};
    kiln_asset_id id = {1, 2};
    cook_manifest_add(&list, "props/a", "props/a.kmesh", KILN_ASSET_MESH, 0, 0);
    cook_manifest_add(&list, "props/b", "props/b.kmesh", KILN_ASSET_MESH, 0, 0);
    give_id(&list, 0, 1, id, 0);
    give_id(&list, 1, 1, id, 1);
    cook_diag diag = {0};
    bytebuf out = {0};
    assert_false(write_manifest(&list, &diag, &out));
    bytebuf_append(&diag.text, "", 1);
    assert_non_null(strstr((const char *)diag.text.data,
                           "asset ID 00000000000000010000000000000002 is the ID of both"));
    assert_non_null(strstr((const char *)diag.text.data, "'props/a'"));
    assert_non_null(strstr((const char *)diag.text.data, "'props/b'"));
    bytebuf_free(&out);
    diag_free(&diag);
    cook_manifest_list_free(&list);
}

static void manifest_version_1_reads_without_ids(void **state) {
    (void)state;
    kiln_manifest_entry entry = {.hash = kiln_ref_hash("a"),
                                 .path_offset = 0,
                                 .path_length = 7,
                                 .ref_offset = 8,
                                 .ref_length = 1,
                                 .kind = KILN_ASSET_MESH};
    static const char strings[] = "a.kmesh\0a";
    container_writer writer;
    container_begin(&writer, KILN_KIND_MANIFEST, 1);
    container_add_chunk(&writer, KILN_CHUNK_MANIFEST_ENTRIES, &entry, sizeof entry);
    container_add_chunk(&writer, KILN_CHUNK_MANIFEST_STRINGS, strings, sizeof strings);
    bytebuf bytes = {0};
    assert_true(container_finish(&writer, &bytes));
    void *block;
    assert_int_equal(posix_memalign(&block, 16, bytes.size), 0);
    memcpy(block, bytes.data, bytes.size);
    kiln_file file;
    kiln_manifest_view view;
    kiln_error err;
    assert_int_equal(kiln_file_from_memory(&file, block, bytes.size, "old.kman", 0, &err), KILN_OK);
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_OK);
    assert_int_equal(view.entry_count, 1);
    assert_null(view.ids);
    kiln_asset_id id;
    assert_false(kiln_manifest_id_of(&view, &view.entries[0], &id));
    assert_null(kiln_manifest_find_id(&view, (kiln_asset_id){1, 1}));
    kiln_file_close(&file);
    free(block);
    bytebuf_free(&bytes);
}

static void asset_ids_read_and_write_as_32_hex_digits(void **state) {
    (void)state;
    kiln_asset_id id;
    kiln_error err;
    assert_int_equal(kiln_asset_id_parse("0123456789ABCDEFfedcba9876543210", &id, &err), KILN_OK);
    assert_true(id.hi == 0x0123456789abcdefull && id.lo == 0xfedcba9876543210ull);
    char text[KILN_ASSET_ID_TEXT_SIZE];
    kiln_asset_id_format(id, text);
    assert_string_equal(text, "0123456789abcdeffedcba9876543210");
    assert_int_equal(kiln_asset_id_parse("0123456789abcdeffedcba987654321", &id, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_asset_id_parse("0123456789abcdeffedcba98765432100", &id, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_asset_id_parse("0123456789abcdeffedcba987654321g", &id, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_asset_id_parse("00000000000000000000000000000000", &id, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_true(id.hi == 0 && id.lo == 0);
    assert_int_equal(kiln_asset_id_parse(NULL, &id, &err), KILN_ERR_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(manifest_round_trips_sorted_and_finds_every_ref),
        cmocka_unit_test(manifest_is_the_same_whatever_the_order_entries_arrive_in),
        cmocka_unit_test(manifest_rejects_one_ref_produced_twice),
        cmocka_unit_test(manifest_rejects_a_hash_collision),
        cmocka_unit_test(manifest_reader_rejects_unsorted_and_stray_strings),
        cmocka_unit_test(manifest_reader_survives_every_truncation),
        cmocka_unit_test(manifest_maps_ids_to_main_refs_and_back),
        cmocka_unit_test(manifest_refuses_one_id_for_two_assets),
        cmocka_unit_test(manifest_version_1_reads_without_ids),
        cmocka_unit_test(asset_ids_read_and_write_as_32_hex_digits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
