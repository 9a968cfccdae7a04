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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(manifest_round_trips_sorted_and_finds_every_ref),
        cmocka_unit_test(manifest_is_the_same_whatever_the_order_entries_arrive_in),
        cmocka_unit_test(manifest_rejects_one_ref_produced_twice),
        cmocka_unit_test(manifest_rejects_a_hash_collision),
        cmocka_unit_test(manifest_reader_rejects_unsorted_and_stray_strings),
        cmocka_unit_test(manifest_reader_survives_every_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
