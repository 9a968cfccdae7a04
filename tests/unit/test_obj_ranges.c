/* test_obj_ranges.c — the OBJ importer in byte ranges on the thread pool
 * (import/obj_ranges.c) against the one-pass importer: the same IR and the
 * same messages, on crafted files cut at every size (state changes, negative
 * indices, CRLF, continuations, no final newline, long lines at range
 * boundaries), on files the ranges hand back to one pass (warnings, errors,
 * lines and points), and on every OBJ of the corpus. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_import.h"
#include "test_support.h"

#include "cook/drivers/drivers.h"
#include "cook/import/import.h"

/* The range size and the thread count the importer below uses, and whether
 * the last import was done by the ranges. */
static size_t range_bytes;
static bool in_ranges;

static bool import_in_ranges(cook_context *ctx, ir_asset *out) {
    cook_settings settings = *ctx->settings;
    settings.threads = 3;
    cook_context copy = *ctx;
    copy.settings = &settings;
    bool ok = import_obj_ranges(&copy, out, range_bytes, &in_ranges);
    ctx->dependencies = copy.dependencies;
    ctx->absent = copy.absent;
    ctx->references = copy.references;
    return ok;
}

static bool import_in_one_pass(cook_context *ctx, ir_asset *out) {
    return import_obj_ranges(ctx, out, 0, NULL);
}

static void assert_same_floats(const float *a, const float *b, size_t count) {
    assert_true((a == NULL) == (b == NULL));
    if (a != NULL)
        assert_memory_equal(a, b, count * sizeof *a);
}

static void assert_same_string(const char *a, const char *b) {
    assert_true((a == NULL) == (b == NULL));
    if (a != NULL)
        assert_string_equal(a, b);
}

/* The two imports hold the same asset, stream by stream, and said the same. */
static void assert_same_import(const test_import *one, const test_import *ranges) {
    assert_string_equal(test_import_messages(one), test_import_messages(ranges));
    assert_int_equal(one->ok, ranges->ok);
    const ir_asset *a = &one->asset, *b = &ranges->asset;
    assert_int_equal(a->mesh_count, b->mesh_count);
    assert_int_equal(a->material_count, b->material_count);
    for (uint32_t m = 0; m < a->material_count; m++)
        assert_same_string(a->materials[m].name, b->materials[m].name);
    assert_int_equal(a->image_count, b->image_count);
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ir_mesh *x = &a->meshes[i], *y = &b->meshes[i];
        assert_same_string(x->name, y->name);
        assert_int_equal(x->vertex_count, y->vertex_count);
        size_t n = x->vertex_count;
        assert_same_floats(x->positions, y->positions, 3 * n);
        assert_same_floats(x->normals, y->normals, 3 * n);
        assert_same_floats(x->texcoords[0], y->texcoords[0], 2 * n);
        assert_same_floats(x->texcoords[1], y->texcoords[1], 2 * n);
        assert_same_floats(x->colors, y->colors, 4 * n);
        assert_int_equal(x->index_count, y->index_count);
        if (x->index_count > 0)
            assert_memory_equal(x->indices, y->indices, x->index_count * sizeof *x->indices);
        assert_int_equal(x->submesh_count, y->submesh_count);
        for (uint32_t s = 0; s < x->submesh_count; s++) {
            assert_int_equal(x->submeshes[s].index_offset, y->submeshes[s].index_offset);
            assert_int_equal(x->submeshes[s].index_count, y->submeshes[s].index_count);
            assert_int_equal(x->submeshes[s].material, y->submeshes[s].material);
            assert_int_equal(x->submeshes[s].topology, y->submeshes[s].topology);
            assert_same_string(x->submeshes[s].name, y->submeshes[s].name);
        }
    }
}

/* Imports `text` (under `dir`, as model.obj) in one pass and in ranges of
 * each size up to the whole file; each must match. Returns how many sizes
 * the ranges did themselves (the others went back to one pass). */
static int compare_at_every_size(const char *dir, const char *text, size_t size) {
    test_import one;
    test_import_bytes(&one, import_in_one_pass, dir, "model.obj", text, size);
    int done = 0;
    for (range_bytes = 1; range_bytes <= size + 1; range_bytes++) {
        test_import ranges;
        test_import_bytes(&ranges, import_in_ranges, dir, "model.obj", text, size);
        assert_same_import(&one, &ranges);
        done += in_ranges;
        test_import_free(&ranges);
    }
    test_import_free(&one);
    return done;
}

static int compare_text(const char *dir, const char *text) {
    return compare_at_every_size(dir, text, strlen(text));
}

/* usemtl, o, g and s between faces that use earlier ranges' vertices through
 * negative and positive indices, CRLF and LF mixed, a continued face and
 * texture coordinate, a comment, a warning (its line) after attributes,
 * attributes after the last face, no final newline: cut at every byte, every state change and
 * every index lands at a range boundary somewhere. */
static void state_changes_and_relative_indices_at_every_cut(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("obj_ranges_state");
    const char *mtl = "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n";
    test_write_in(dir, "a.mtl", mtl, strlen(mtl));
    const char *text = "# ranges\r\n"
                       "mtllib a.mtl\r\n"
                       "o first\n"
                       "v 0 0 0\nv 1 0 0\r\nv 1 1 0\nv 0 1 0\n"
                       "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                       "vn 0 0 1\n"
                       "usemtl red\n"
                       "f 1/1/1 2/2/1 3/3/1\n"
                       "f -4/-4/-1 -2/-2/-1 -1/-1/-1\r\n"
                       "g side\n"
                       "vt 0.5 \\\n 0.5\n"
                       "v 2 0 0\nv 2 1 0\n"
                       "usemtl undefined\n"
                       "f 2/2/1 5/2/1 \\\n 6/3/1 3/3/1\n"
                       "usemtl blue\n"
                       "s 1\n"
                       "f -4 -2 -1\n"
                       "o second\n"
                       "usemtl red\n"
                       "f 1//1 3//1 4//1\n"
                       "g\n"
                       "f 1 2 4\n"
                       "v 5 5 5\nvt 1 1";
    int done = compare_text(dir, text);
    print_message("%d of %zu sizes in ranges\n", done, strlen(text) + 1);
    assert_int_equal(done, (int)strlen(text) + 1);
    free(dir);
}

/* A line far longer than a range (a 300-corner face and a long comment),
 * BOM and DOS end-of-file bytes. */
static void long_lines_and_file_marks(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("obj_ranges_long");
    size_t cap = 64 * 1024, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text + n, cap - n, "\xef\xbb\xbfo ring\n# ");
    for (int i = 0; i < 2000; i++)
        text[n++] = 'x';
    text[n++] = '\n';
    for (int i = 0; i < 300; i++) {
        double angle = 2.0 * M_PI * i / 300.0;
        n += (size_t)snprintf(text + n, cap - n, "v %.6f %.6f 0\n", cos(angle), sin(angle));
    }
    n += (size_t)snprintf(text + n, cap - n, "f");
    for (int i = 1; i <= 300; i++)
        n += (size_t)snprintf(text + n, cap - n, " %d", i);
    n += (size_t)snprintf(text + n, cap - n, "\nf 1 2 3\n\x1a\x1a");
    test_import one;
    test_import_bytes(&one, import_in_one_pass, dir, "model.obj", text, n);
    test_import_expect_ok(&one);
    const size_t sizes[] = {1, 7, 100, 1000, 3000, 5000, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        range_bytes = sizes[i];
        test_import ranges;
        test_import_bytes(&ranges, import_in_ranges, dir, "model.obj", text, n);
        assert_true(in_ranges);
        assert_same_import(&one, &ranges);
        test_import_free(&ranges);
    }
    test_import_free(&one);
    free(text);
    free(dir);
}

/* What one pass warns or fails about in attributes and faces goes back to
 * one pass, which says it as always (file and line); so do l and p. A bad
 * statement run in file order fails as in one pass. */
static void warnings_errors_lines_and_points_match_one_pass(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("obj_ranges_problems");
    const char *fallback[] = {
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/5 2/5 3/5\n",          /* vt beyond: warning */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n",                /* index out of range */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n",             /* before the first */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n",                /* index 0 */
        "v 0 0 0\nv 1 x 0\nv 0 1 0\nf 1 2 3\n",                /* not a number */
        "v 0 0 0\nv 1 0 0\nv 0 1 nan\nf 1 2 3\nf 1 2 1\n",     /* not finite */
        "v 0 0 0 1 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",          /* colours */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nl 1 2\np 3\n",    /* lines, points */
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n",                  /* two corners */
        "v 0 0 0\nv 1 0 0\n# a \x01 byte\nv 0 1 0\nf 1 2 3\n", /* binary comment */
    };
    for (size_t i = 0; i < sizeof fallback / sizeof fallback[0]; i++) {
        int done = compare_text(dir, fallback[i]);
        assert_int_equal(done, 0);
    }
    /* Done by the ranges: a missing library, an unknown statement, a usemtl
     * no library defines (warnings of statements run in file order), and an
     * error in one (a usemtl holding a byte no text has). */
    const char *in_order[] = {
        "mtllib none.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl x\nf 1 2 3\nbevel on\nf 3 2 1\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nusemtl a\x02z\nf 3 2 1\n",
    };
    for (size_t i = 0; i < sizeof in_order / sizeof in_order[0]; i++)
        assert_true(compare_text(dir, in_order[i]) > 0);
    test_import last;
    range_bytes = 9;
    test_import_bytes(&last, import_in_ranges, dir, "model.obj", in_order[1], strlen(in_order[1]));
    test_expect_message(&last, ": error: ", "model.obj:5");
    test_import_free(&last);
    free(dir);
}

/* Every OBJ of the corpus, in ranges of 4 KiB and 64 KiB, as in one pass. */
static void corpus_objs_import_the_same_in_ranges(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_objs_import_the_same_in_ranges"))
        skip();
    test_corpus_row *index;
    size_t rows;
    char *index_text = test_corpus_index(&index, &rows);
    const char *corpus = test_corpus_dir();
    int files = 0, done = 0;
    for (size_t row = 0; row < rows; row++) {
        if (strcmp(index[row].format, "obj") != 0)
            continue;
        char *path = test_path_join(corpus, index[row].path);
        size_t size;
        uint8_t *bytes = test_read_file(path, &size);
        test_import one;
        test_import_bytes(&one, import_in_one_pass, corpus, index[row].path, bytes, size);
        const size_t sizes[] = {4096, 65536};
        for (size_t i = 0; i < 2; i++) {
            range_bytes = sizes[i];
            test_import ranges;
            test_import_bytes(&ranges, import_in_ranges, corpus, index[row].path, bytes, size);
            assert_same_import(&one, &ranges);
            done += in_ranges;
            test_import_free(&ranges);
        }
        files++;
        test_import_free(&one);
        free(bytes);
        free(path);
    }
    print_message("%d corpus OBJs, %d of %d imports done in ranges\n", files, done, 2 * files);
    assert_true(files >= 30);
    assert_true(done >= files); /* most real files need no one-pass rescue */
    free(index);
    free(index_text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(state_changes_and_relative_indices_at_every_cut),
        cmocka_unit_test(long_lines_and_file_marks),
        cmocka_unit_test(warnings_errors_lines_and_points_match_one_pass),
        cmocka_unit_test(corpus_objs_import_the_same_in_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
