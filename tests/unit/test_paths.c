/* The one path join every stage and command uses (cook/util.c), and the names
 * of write_file_atomic's temporaries, which the next build deletes
 * (cook/write/atomic.c): a wrong match there would delete a user's file. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

static void expect_join(const char *dir, const char *name, const char *expected) {
    char *joined = cook_path_join(dir, name);
    assert_non_null(joined);
    assert_string_equal(joined, expected);
    free(joined);
}

static void join_puts_one_slash_between(void **state) {
    (void)state;
    expect_join("assets", "models/crate.obj", "assets/models/crate.obj");
    expect_join("assets/", "crate.obj", "assets/crate.obj");
    expect_join("/", "etc", "/etc");
    expect_join("", "crate.obj", "crate.obj"); /* the walk's root-relative start */
    expect_join("assets", "", "assets");
    expect_join("", "", "");
}

static void temporary_names_are_recognised_exactly(void **state) {
    (void)state;
    assert_true(write_is_temporary_name(".crate.kmesh.kiln-a1B2c3"));
    assert_true(write_is_temporary_name(".out.kpak.kiln-XXXXXX"));
    assert_false(write_is_temporary_name("crate.kmesh.kiln-a1B2c3")); /* not hidden */
    assert_false(write_is_temporary_name(".kiln-a1B2c3"));            /* no file name */
    assert_false(write_is_temporary_name(".crate.kmesh.kiln-a1B2c")); /* 5 characters */
    assert_false(write_is_temporary_name(".crate.kmesh.kiln-a1B2c!"));
    assert_false(write_is_temporary_name(".crate.kmesh.tmp-a1B2c3"));
    assert_false(write_is_temporary_name(".kiln-cache"));
    assert_false(write_is_temporary_name(".config.backup"));
}

/* A successful write leaves only the final file: no hidden temporary beside it. */
static void atomic_write_leaves_only_the_file(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("paths");
    char *sub = cook_path_join(dir, "sub");
    char *path = cook_path_join(sub, "out.bin");
    char reason[256];
    assert_true(write_file_atomic(path, "abc", 3, reason, sizeof reason));
    assert_true(write_file_atomic(path, "abcd", 4, reason, sizeof reason)); /* replaces it */
    DIR *folder = opendir(sub);
    assert_non_null(folder);
    size_t entries = 0;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
            assert_string_equal(entry->d_name, "out.bin");
            entries++;
        }
    }
    closedir(folder);
    assert_int_equal(entries, 1);
    unlink(path);
    rmdir(sub);
    free(path);
    free(sub);
    free(dir);
}

/* A file larger than the pieces write() is handed (atomic.c) comes out
 * whole, byte for byte, the last piece a partial one. */
static void a_large_write_keeps_every_byte(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("paths_large");
    char *path = cook_path_join(dir, "large.bin");
    size_t size = ((size_t)3 << 20) + 5;
    uint8_t *bytes = malloc(size);
    assert_non_null(bytes);
    uint32_t x = 2463534242u; /* xorshift32: no two pieces alike */
    for (size_t i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bytes[i] = (uint8_t)x;
    }
    char reason[256];
    assert_true(write_file_atomic(path, bytes, size, reason, sizeof reason));
    size_t read_size = 0;
    uint8_t *read = test_read_file(path, &read_size);
    assert_non_null(read);
    assert_int_equal(read_size, size);
    assert_memory_equal(read, bytes, size);
    free(read);
    free(bytes);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

static void suffixes_compare_without_case(void **state) {
    (void)state;
    assert_true(ascii_ends_with_ci("Model.GLB", ".glb"));
    assert_true(ascii_ends_with_ci("a.tga", ".TGA"));
    assert_true(ascii_ends_with_ci(".png", ".png"));
    assert_false(ascii_ends_with_ci("png", ".png"));
    assert_false(ascii_ends_with_ci("a.jpeg", ".jpg"));
    assert_false(ascii_ends_with_ci(NULL, ".png"));
    assert_true(ascii_ends_with_ci("anything", ""));
}

static void text_trim_drops_a_bom_and_dos_eof_markers(void **state) {
    (void)state;
    const unsigned char text[] = "\xef\xbb\xbfv 1\n\x1a\x1a";
    const unsigned char *begin = text, *end = text + sizeof text - 1;
    cook_text_trim(&begin, &end);
    assert_int_equal(end - begin, 4);
    assert_memory_equal(begin, "v 1\n", 4);
    const unsigned char short_text[] = "\xef\xbb", *b2 = short_text, *e2 = short_text + 2;
    cook_text_trim(&b2, &e2); /* too short for a BOM: unchanged */
    assert_ptr_equal(b2, short_text);
    assert_ptr_equal(e2, short_text + 2);
    const unsigned char only_eof[] = "\x1a", *b3 = only_eof, *e3 = only_eof + 1;
    cook_text_trim(&b3, &e3);
    assert_ptr_equal(e3, b3);
}

static void push_all_copies_every_item(void **state) {
    (void)state;
    strlist from = {0}, to = {0};
    assert_true(strlist_push(&to, "first"));
    assert_true(strlist_push(&from, "a"));
    assert_true(strlist_push(&from, "b"));
    assert_true(strlist_push_all(&to, &from));
    assert_int_equal(to.count, 3);
    assert_string_equal(to.items[2], "b");
    assert_ptr_not_equal(to.items[1], from.items[0]);
    strlist_free(&from);
    strlist_free(&to);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(join_puts_one_slash_between),
        cmocka_unit_test(temporary_names_are_recognised_exactly),
        cmocka_unit_test(atomic_write_leaves_only_the_file),
        cmocka_unit_test(a_large_write_keeps_every_byte),
        cmocka_unit_test(push_all_copies_every_item),
        cmocka_unit_test(suffixes_compare_without_case),
        cmocka_unit_test(text_trim_drops_a_bom_and_dos_eof_markers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
