/* Dependencies a source names are resolved inside the input root, never outside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

typedef struct fixture {
    char *root;
    cook_diag diag;
    cook_settings settings;
    cook_context ctx;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->root = test_make_temp_dir("context");
    char *models = test_path_join(f->root, "models");
    char *textures = test_path_join(f->root, "textures");
    mkdir(models, 0755);
    mkdir(textures, 0755);
    char *mtl = test_path_join(models, "crate.mtl");
    char *png = test_path_join(textures, "wood.png");
    test_write_file(mtl, "newmtl a\n", 9);
    test_write_file(png, "png", 3);
    free(models);
    free(textures);
    free(mtl);
    free(png);
    cook_settings_default(&f->settings);
    f->ctx.input_root = f->root;
    f->ctx.source_path = "models/crate.obj";
    f->ctx.ref = "models/crate";
    f->ctx.settings = &f->settings;
    f->ctx.diag = &f->diag;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    strlist_free(&f->ctx.dependencies);
    strlist_free(&f->ctx.references);
    strlist_free(&f->ctx.absent);
    diag_free(&f->diag);
    free(f->root);
    free(f);
    return 0;
}

static void dependency_resolves_next_to_the_source(void **state) {
    fixture *f = *state;
    uint8_t *data;
    size_t size;
    char reason[256];
    assert_true(cook_read_dependency(&f->ctx, "crate.mtl", &data, &size, reason, sizeof reason));
    assert_int_equal(size, 9);
    assert_memory_equal(data, "newmtl a\n", 9);
    free(data);
    assert_int_equal(f->ctx.dependencies.count, 1);
    assert_string_equal(f->ctx.dependencies.items[0], "models/crate.mtl");
}

static void dependency_may_climb_within_the_root(void **state) {
    fixture *f = *state;
    char *path = NULL;
    char reason[256];
    assert_true(
        cook_resolve_dependency(&f->ctx, "../textures/wood.png", &path, reason, sizeof reason));
    assert_string_equal(path, "textures/wood.png");
    free(path);
    assert_true(cook_resolve_dependency(&f->ctx, ".\\..\\textures\\.\\wood.png", &path, reason,
                                        sizeof reason));
    assert_string_equal(path, "textures/wood.png");
    free(path);
    /* Recorded once however often it is named. */
    assert_int_equal(f->ctx.dependencies.count, 1);
}

static void dependency_outside_the_root_is_refused(void **state) {
    fixture *f = *state;
    char *path = NULL;
    char reason[256];
    assert_false(
        cook_resolve_dependency(&f->ctx, "../../etc/passwd", &path, reason, sizeof reason));
    assert_null(path);
    assert_non_null(strstr(reason, "leaves the input folder"));
    assert_false(cook_resolve_dependency(&f->ctx, "/etc/passwd", &path, reason, sizeof reason));
    assert_non_null(strstr(reason, "absolute"));
    assert_false(
        cook_resolve_dependency(&f->ctx, "C:\\Windows\\win.ini", &path, reason, sizeof reason));
    assert_int_equal(f->ctx.dependencies.count, 0);
    assert_int_equal(f->ctx.absent.count, 0); /* refused by its spelling: no file to watch */
}

static void dependency_through_a_symlink_out_of_the_root_is_refused(void **state) {
    fixture *f = *state;
    char *link = test_path_join(f->root, "models/escape.txt");
    assert_int_equal(symlink("/etc/hostname", link), 0);
    char reason[256];
    assert_false(cook_resolve_dependency(&f->ctx, "escape.txt", NULL, reason, sizeof reason));
    assert_non_null(strstr(reason, "outside the input folder"));
    /* It exists, so a build never reuses a cook that depended on its absence. */
    assert_int_equal(f->ctx.absent.count, 1);
    assert_string_equal(f->ctx.absent.items[0], "models/escape.txt");
    free(link);
}

/* Issue 16: a FIFO named as a dependency hung the build in the existence
 * check (fopen waits for a writer). Only regular files are read; anything
 * else is refused at once, naming it. */
static void dependency_that_is_a_fifo_is_refused_without_waiting(void **state) {
    fixture *f = *state;
    char *fifo = test_path_join(f->root, "models/pipe.mtl");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    char reason[256];
    uint8_t *data = NULL;
    size_t size = 0;
    assert_false(cook_read_dependency(&f->ctx, "pipe.mtl", &data, &size, reason, sizeof reason));
    assert_non_null(strstr(reason, "models/pipe.mtl': a FIFO, not a regular file"));
    assert_false(cook_resolve_dependency(&f->ctx, "pipe.mtl", NULL, reason, sizeof reason));
    assert_int_equal(f->ctx.dependencies.count, 0);
    /* cook_read_file itself, as every source is read, refuses it too. */
    assert_false(cook_read_file(fifo, 1024, &data, &size, reason, sizeof reason));
    assert_non_null(strstr(reason, "a FIFO"));
    char *folder = test_path_join(f->root, "models");
    assert_false(cook_read_file(folder, 1024, &data, &size, reason, sizeof reason));
    assert_non_null(strstr(reason, "a folder"));
    free(folder);
    free(fifo);
}

/* A missing file is no dependency, but it is recorded as absent (once): a
 * build must cook the asset again when it appears. */
static void missing_dependency_is_reported_and_recorded_as_absent(void **state) {
    fixture *f = *state;
    char reason[256];
    uint8_t *data;
    size_t size;
    assert_false(cook_read_dependency(&f->ctx, "nope.mtl", &data, &size, reason, sizeof reason));
    assert_non_null(strstr(reason, "models/nope.mtl"));
    assert_false(cook_resolve_dependency(&f->ctx, "./nope.mtl", NULL, reason, sizeof reason));
    assert_int_equal(f->ctx.dependencies.count, 0);
    assert_int_equal(f->ctx.absent.count, 1);
    assert_string_equal(f->ctx.absent.items[0], "models/nope.mtl");
    assert_int_equal(f->diag.errors, 0); /* the caller decides how bad that is */
}

static void reference_is_recorded_apart_from_dependencies(void **state) {
    fixture *f = *state;
    char reason[256];
    assert_true(cook_add_reference(&f->ctx, "../textures/wood.png", reason, sizeof reason));
    assert_true(cook_add_reference(&f->ctx, "../textures/./wood.png", reason, sizeof reason));
    assert_int_equal(f->ctx.references.count, 1); /* once, however it is spelled */
    assert_string_equal(f->ctx.references.items[0], "textures/wood.png");
    assert_int_equal(f->ctx.dependencies.count, 0);
    assert_false(cook_add_reference(&f->ctx, "../../etc/passwd", reason, sizeof reason));
    assert_false(cook_add_reference(&f->ctx, "nope.obj", reason, sizeof reason));
    assert_non_null(strstr(reason, "models/nope.obj"));
    assert_int_equal(f->ctx.references.count, 1);
}

/* A source larger than one 8 MB piece is read in pieces on several threads:
 * every byte in its place (a pattern that differs piece to piece and byte to
 * byte, over a size that is no multiple of a piece), NUL-terminated; the
 * same as on one thread. */
static void large_file_reads_the_same_on_several_threads(void **state) {
    fixture *f = *state;
    const size_t length = ((size_t)21 << 20) + 12345;
    uint8_t *bytes = malloc(length);
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < length; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bytes[i] = (uint8_t)x;
    }
    char *path = test_path_join(f->root, "large.bin");
    test_write_file(path, (const char *)bytes, length);
    for (unsigned threads = 1; threads <= 4; threads += 3) {
        uint8_t *data = NULL;
        size_t size = 0;
        char reason[256];
        assert_true(cook_read_file_on(threads, path, length, &data, &size, reason, sizeof reason));
        assert_int_equal(size, length);
        assert_memory_equal(data, bytes, length);
        assert_int_equal(data[length], 0);
        free(data);
        /* One byte under its size is above the limit: refused, not cut. */
        assert_false(
            cook_read_file_on(threads, path, length - 1, &data, &size, reason, sizeof reason));
        assert_non_null(strstr(reason, "above the limit"));
    }
    free(bytes);
    free(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(dependency_resolves_next_to_the_source, setup, teardown),
        cmocka_unit_test_setup_teardown(dependency_may_climb_within_the_root, setup, teardown),
        cmocka_unit_test_setup_teardown(dependency_outside_the_root_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(dependency_through_a_symlink_out_of_the_root_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(large_file_reads_the_same_on_several_threads, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(dependency_that_is_a_fifo_is_refused_without_waiting, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(missing_dependency_is_reported_and_recorded_as_absent,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(reference_is_recorded_apart_from_dependencies, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
