/* .kpak: writer layout, reader lookups, and that every damaged pack is
 * rejected (write/pack.c, runtime/pack.c). */
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "kiln/kiln.h"
#include "test_support.h"

static void put(const char *dir, const char *name, const void *data, size_t size) {
    char *path = test_path_join(dir, name);
    char reason[256];
    assert_true(write_file_atomic(path, data, size, reason, sizeof reason));
    free(path);
}

/* A tree of three files (one a real manifest) packed into an aligned copy. */
static uint8_t *make_pack(size_t *size) {
    char *dir = test_make_temp_dir("pack");
    cook_manifest_list list = {0};
    assert_true(cook_manifest_add(&list, "props/crate", "props/crate.kmesh", KILN_ASSET_MESH,
                                  KILN_COLOR_SPACE_NONE, 0));
    cook_diag diag = {0};
    bytebuf manifest = {0};
    assert_true(write_manifest(&list, &diag, &manifest));
    put(dir, KILN_MANIFEST_FILE_NAME, manifest.data, manifest.size);
    put(dir, "props/crate.kmesh", "mesh bytes", 10);
    put(dir, "props/notes.txt", "", 0);

    strlist paths = {0};
    strlist_push(&paths, KILN_MANIFEST_FILE_NAME);
    strlist_push(&paths, "props/crate.kmesh");
    strlist_push(&paths, "props/notes.txt");
    bytebuf bytes = {0};
    char reason[256];
    assert_true(write_pack(dir, &paths, &bytes, reason, sizeof reason));
    uint8_t *copy = aligned_alloc(16, (bytes.size + 15) / 16 * 16);
    memcpy(copy, bytes.data, bytes.size);
    *size = bytes.size;
    bytebuf_free(&bytes);
    bytebuf_free(&manifest);
    strlist_free(&paths);
    cook_manifest_list_free(&list);
    diag_free(&diag);
    free(dir);
    return copy;
}

static void pack_round_trips(void **state) {
    (void)state;
    size_t size;
    uint8_t *data = make_pack(&size);
    kiln_pack pack;
    kiln_error err;
    assert_int_equal(kiln_pack_from_memory(&pack, data, size, "t.kpak", &err), KILN_OK);
    assert_int_equal(pack.entry_count, 3);
    assert_int_equal(size % 16, 0);

    kiln_pack_item item;
    assert_int_equal(kiln_pack_find(&pack, "props/crate.kmesh", &item), KILN_OK);
    assert_int_equal(item.size, 10);
    assert_int_equal(item.kind, KILN_PACK_MESH);
    assert_memory_equal(item.data, "mesh bytes", 10);
    assert_int_equal((uintptr_t)item.data % 16, 0);
    assert_int_equal(kiln_pack_find(&pack, "props/notes.txt", &item), KILN_OK);
    assert_int_equal(item.size, 0);
    assert_int_equal(kiln_pack_find(&pack, "props/crate", &item), KILN_ERR_NOT_FOUND);
    assert_int_equal(kiln_pack_find(&pack, "zzz", &item), KILN_ERR_NOT_FOUND);
    assert_int_equal(kiln_pack_find(&pack, "", &item), KILN_ERR_NOT_FOUND);

    uint32_t cursor = 0, meshes = 0;
    while (kiln_pack_next(&pack, KILN_PACK_MESH, &cursor, &item))
        meshes++;
    assert_int_equal(meshes, 1);
    cursor = 0;
    assert_true(kiln_pack_next(&pack, KILN_PACK_OTHER, &cursor, &item));
    assert_string_equal(item.path, "props/notes.txt");

    kiln_file manifest;
    assert_int_equal(kiln_pack_manifest(&pack, &manifest, KILN_OPEN_VERIFY_CHECKSUM, &err),
                     KILN_OK);
    kiln_manifest_view view;
    assert_int_equal(kiln_manifest_view_get(&manifest, &view, &err), KILN_OK);
    assert_non_null(kiln_manifest_find(&view, kiln_ref_hash("props/crate")));
    kiln_file_close(&manifest);
    kiln_pack_close(&pack);
    free(data);
}

static void every_truncation_is_rejected(void **state) {
    (void)state;
    size_t size;
    uint8_t *data = make_pack(&size);
    kiln_pack pack;
    kiln_error err;
    for (size_t cut = 0; cut < size; cut++)
        assert_int_not_equal(kiln_pack_from_memory(&pack, data, cut, "t.kpak", &err), KILN_OK);
    free(data);
}

/* Changes one field and expects the open to fail. */
static void expect_rejected(uint8_t *data, size_t size, size_t at, const void *value,
                            size_t length) {
    uint8_t saved[8];
    memcpy(saved, data + at, length);
    memcpy(data + at, value, length);
    kiln_pack pack;
    kiln_error err;
    if (kiln_pack_from_memory(&pack, data, size, "t.kpak", &err) == KILN_OK)
        fail_msg("a change of %zu bytes at offset %zu was accepted", length, at);
    memcpy(data + at, saved, length);
    assert_int_equal(kiln_pack_from_memory(&pack, data, size, "t.kpak", &err), KILN_OK);
}

static void damaged_tables_are_rejected(void **state) {
    (void)state;
    size_t size;
    uint8_t *data = make_pack(&size);
    size_t e0 = sizeof(kiln_pack_header), e1 = e0 + sizeof(kiln_pack_entry_disk);
    uint64_t huge = UINT64_MAX - 8, odd = 209;
    uint32_t big32 = UINT32_MAX, zero32 = 0;
    uint16_t kind = 99;
    expect_rejected(data, size, 0, "X", 1);                 /* magic */
    expect_rejected(data, size, 8, &(uint32_t){1}, 4);      /* version 1: no scene kind */
    expect_rejected(data, size, 8, &(uint32_t){2}, 4);      /* version 2: no shader or anim kind */
    expect_rejected(data, size, 8, &(uint32_t){4}, 4);      /* version */
    expect_rejected(data, size, 12, &big32, 4);             /* entry count */
    expect_rejected(data, size, 12, &zero32, 4);            /* entry count */
    expect_rejected(data, size, 48, &huge, 8);              /* file size */
    expect_rejected(data, size, 56, &(uint64_t){1}, 8);     /* reserved */
    expect_rejected(data, size, e0 + 0, &huge, 8);          /* offset overflow */
    expect_rejected(data, size, e0 + 8, &huge, 8);          /* size overflow */
    expect_rejected(data, size, e0 + 0, &odd, 8);           /* misaligned */
    expect_rejected(data, size, e1 + 0, &(uint64_t){0}, 8); /* overlaps the header */
    expect_rejected(data, size, e1 + 8, &(uint64_t){4096}, 8); /* runs past the end */
    expect_rejected(data, size, e0 + 16, &big32, 4);           /* path offset */
    expect_rejected(data, size, e0 + 20, &(uint16_t){3}, 2);   /* path length */
    expect_rejected(data, size, e0 + 22, &kind, 2);            /* kind */
    expect_rejected(data, size, e1 + 16, &(uint32_t){0}, 4);   /* unsorted paths */
    /* Issue 16: an entry whose kind no longer matches its name (kpak.md R4):
     * entry 1 is props/crate.kmesh, a mesh; entry 0 the manifest. */
    expect_rejected(data, size, e1 + 22, &(uint16_t){KILN_PACK_TEXTURE}, 2);
    expect_rejected(data, size, e1 + 22, &(uint16_t){KILN_PACK_OTHER}, 2);
    expect_rejected(data, size, e0 + 22, &(uint16_t){KILN_PACK_MESH}, 2);
    free(data);
}

/* kiln_pack_open on what is not a pack file: clear errors, never a read of
 * an unfilled stat (the same checks as kiln_file_map). */
static void opening_a_folder_or_empty_file_fails_clearly(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("pack_open");
    kiln_pack pack;
    kiln_error err;
    assert_int_equal(kiln_pack_open(&pack, dir, &err), KILN_ERR_IO);
    assert_non_null(strstr(err.message, "not a regular file"));
    put(dir, "empty.kpak", "", 0);
    char *empty = test_path_join(dir, "empty.kpak");
    assert_int_equal(kiln_pack_open(&pack, empty, &err), KILN_ERR_TRUNCATED);
    assert_non_null(strstr(err.message, "empty file"));
    char *missing = test_path_join(dir, "missing.kpak");
    assert_int_equal(kiln_pack_open(&pack, missing, &err), KILN_ERR_IO);
    assert_non_null(strstr(err.message, "cannot open"));
    free(missing);
    free(empty);
    free(dir);
}

static void kinds_come_from_file_names(void **state) {
    (void)state;
    assert_int_equal(kiln_pack_kind_of("a/b.kmesh"), KILN_PACK_MESH);
    assert_int_equal(kiln_pack_kind_of("b.kmat"), KILN_PACK_MATERIAL);
    assert_int_equal(kiln_pack_kind_of("t/x.ktx2"), KILN_PACK_TEXTURE);
    assert_int_equal(kiln_pack_kind_of("assets.kman"), KILN_PACK_MANIFEST);
    assert_int_equal(kiln_pack_kind_of("m/truck.kscene"), KILN_PACK_SCENE);
    assert_string_equal(kiln_pack_kind_str(KILN_PACK_SCENE), "scene");
    assert_int_equal(kiln_pack_kind_of("m/truck.kanim"), KILN_PACK_ANIM);
    assert_string_equal(kiln_pack_kind_str(KILN_PACK_ANIM), "anim");
    assert_int_equal(kiln_pack_kind_of("sub/assets.kman"), KILN_PACK_MANIFEST);
    assert_int_equal(kiln_pack_kind_of("readme.txt"), KILN_PACK_OTHER);
    assert_string_equal(kiln_pack_kind_str(KILN_PACK_TEXTURE), "texture");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pack_round_trips),
        cmocka_unit_test(every_truncation_is_rejected),
        cmocka_unit_test(damaged_tables_are_rejected),
        cmocka_unit_test(kinds_come_from_file_names),
        cmocka_unit_test(opening_a_folder_or_empty_file_fails_clearly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
