/* test_discover.c — the importer registry (globs, matching) and the tree walk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "test_support.h"

#include "cook/drivers/drivers.h"

/* ---------------------------------------------------------------------------
 * discover_glob_match
 * ------------------------------------------------------------------------- */

static void glob_star_matches_any_run_including_empty(void **state) {
    (void)state;
    assert_true(discover_glob_match("*.obj", "crate.obj"));
    assert_true(discover_glob_match("*.obj", ".obj"));
    assert_true(discover_glob_match("*", ""));
    assert_true(discover_glob_match("*", "anything at all"));
    assert_true(discover_glob_match("a*b*c", "abc"));
    assert_true(discover_glob_match("a*b*c", "a-xb-yb-c"));
    assert_false(discover_glob_match("*.obj", "crate.obj.bak"));
    assert_false(discover_glob_match("*.obj", "crateobj"));
    assert_false(discover_glob_match("a*b*c", "acb"));
}

static void glob_star_backtracks(void **state) {
    (void)state;
    assert_true(discover_glob_match("*ab", "aab"));
    assert_true(discover_glob_match("*.tar.gz", "x.tar.tar.gz"));
    assert_true(discover_glob_match("**x", "abcx"));
    assert_false(discover_glob_match("*ab", "aba"));
}

static void glob_question_mark_matches_exactly_one_character(void **state) {
    (void)state;
    assert_true(discover_glob_match("a?c", "abc"));
    assert_true(discover_glob_match("???", "xyz"));
    assert_false(discover_glob_match("a?c", "ac"));
    assert_false(discover_glob_match("a?c", "abbc"));
    assert_false(discover_glob_match("?", ""));
}

static void glob_is_case_insensitive(void **state) {
    (void)state;
    assert_true(discover_glob_match("*.obj", "CRATE.OBJ"));
    assert_true(discover_glob_match("*.OBJ", "crate.obj"));
    assert_true(discover_glob_match("Crate.Obj", "cRATE.oBJ"));
    assert_false(discover_glob_match("*.obj", "crate.ob"));
}

static void glob_literal_and_empty_patterns(void **state) {
    (void)state;
    assert_true(discover_glob_match("", ""));
    assert_false(discover_glob_match("", "a"));
    assert_true(discover_glob_match("readme.txt", "readme.txt"));
    assert_false(discover_glob_match("readme.txt", "readme.txt2"));
    assert_false(discover_glob_match(NULL, "a"));
    assert_false(discover_glob_match("a", NULL));
}

/* kiln.yml's rules match whole source-relative paths with the same glob. */
static void glob_star_spans_folders_and_question_mark_is_one_char(void **state) {
    (void)state;
    assert_true(discover_glob_match("*", "a/b/c.png"));
    assert_true(discover_glob_match("ui/*", "ui/icons/x.png"));
    assert_true(discover_glob_match("*.png", "deep/down/x.png"));
    assert_true(discover_glob_match("*_normal.png", "rock/rock_normal.png"));
    assert_false(discover_glob_match("*_normal.png", "rock/rock_normal.jpg"));
    assert_true(discover_glob_match("a?c", "abc"));
    assert_true(discover_glob_match("a?c", "a/c")); /* ? is any one character */
    assert_false(discover_glob_match("a?c", "ac"));
    assert_false(discover_glob_match("a?c", "abbc"));
    assert_true(discover_glob_match("levels/**/*.obj", "levels/a/b/map.obj"));
    assert_false(discover_glob_match("levels/*", "props/levels/x.obj")); /* anchored */
    assert_true(discover_glob_match("UI/*.PNG", "ui/a.png"));            /* case-insensitive */
    assert_true(discover_glob_match("", ""));
    assert_false(discover_glob_match("", "a"));
    assert_true(discover_glob_match("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"));
    assert_false(discover_glob_match("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

static void glob_with_many_stars_is_fast(void **state) {
    (void)state;
    char name[4097];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    /* A naive recursive matcher takes exponential time on this. */
    assert_false(discover_glob_match("*a*a*a*a*a*a*a*a*a*a*b", name));
    assert_true(discover_glob_match("*a*a*a*a*a*a*a*a*a*a*", name));
}

/* ---------------------------------------------------------------------------
 * Registry
 * ------------------------------------------------------------------------- */

static void registry_lists_complete_importers(void **state) {
    (void)state;
    size_t count = 0;
    const cook_importer *importers = cook_registry_rows(&count);
    assert_non_null(importers);
    assert_true(count >= 1);
    for (size_t i = 0; i < count; i++) {
        assert_non_null(importers[i].name);
        assert_non_null(importers[i].patterns);
        assert_non_null(importers[i].patterns[0]);
        assert_non_null(importers[i].driver);
        /* Models are imported into the IR; other kinds have drivers of their own. */
        assert_true((importers[i].kind == COOK_KIND_MODEL) == (importers[i].import != NULL));
        /* Folder assets: cubemaps ("*.env"), texture arrays ("*.array") and
         * shader programs ("*.shader"). */
        if (importers[i].kind == COOK_KIND_CUBEMAP || importers[i].kind == COOK_KIND_TEXTURE_ARRAY)
            assert_true(importers[i].folder);
        if (importers[i].folder)
            assert_true(importers[i].kind == COOK_KIND_CUBEMAP ||
                        importers[i].kind == COOK_KIND_TEXTURE_ARRAY ||
                        importers[i].kind == COOK_KIND_SHADER);
    }
}

static void registry_matches_obj_by_file_name_case_insensitively(void **state) {
    (void)state;
    const cook_importer *importer = cook_registry_match("Models/Crate.OBJ");
    assert_non_null(importer);
    assert_string_equal(importer->name, "obj");
    assert_int_equal(importer->kind, COOK_KIND_MODEL);
    assert_ptr_equal(importer->import, import_obj);
    assert_ptr_equal(cook_registry_match("crate.obj"), importer);
    assert_ptr_equal(cook_registry_match("a/b/c/deep.Obj"), importer);
}

static void registry_claims_nothing_else(void **state) {
    (void)state;
    assert_null(cook_registry_match("docs/readme.txt"));
    assert_null(cook_registry_match("models/crate.mtl"));
    /* Shader headers are read through #include, never cooked alone. */
    assert_null(cook_registry_match("shaders/common/lighting.glsl"));
    assert_null(cook_registry_match("shaders/common.hlsli"));
    assert_null(cook_registry_match("shaders/shared.h"));
    assert_null(cook_registry_match("models.obj/readme")); /* the folder's name does not count */
    assert_null(cook_registry_match("models/"));
    assert_null(cook_registry_match(""));
    assert_null(cook_registry_match(NULL));
}

/* ---------------------------------------------------------------------------
 * discover_walk
 * ------------------------------------------------------------------------- */

static void make_folder(const char *root, const char *relative) {
    char *path = test_path_join(root, relative);
    assert_int_equal(mkdir(path, 0755), 0);
    free(path);
}

static void make_file(const char *root, const char *relative) {
    char *path = test_path_join(root, relative);
    test_write_file(path, "x\n", 2);
    free(path);
}

static void make_symlink(const char *root, const char *relative, const char *target) {
    char *path = test_path_join(root, relative);
    assert_int_equal(symlink(target, path), 0);
    free(path);
}

/* root/
 *   A.txt  b.obj  link.obj -> b.obj  loop -> .  dangling -> nowhere
 *   a/z.obj  a/.hidden.obj  a-b/c.obj  .git/config  out/x.kmesh */
static char *make_sample_tree(const char *name) {
    char *root = test_make_temp_dir(name);
    make_file(root, "A.txt");
    make_file(root, "b.obj");
    make_folder(root, "a");
    make_file(root, "a/z.obj");
    make_file(root, "a/.hidden.obj");
    make_folder(root, "a-b");
    make_file(root, "a-b/c.obj");
    make_folder(root, ".git");
    make_file(root, ".git/config");
    make_folder(root, "out");
    make_file(root, "out/x.kmesh");
    make_symlink(root, "link.obj", "b.obj");
    make_symlink(root, "loop", ".");
    make_symlink(root, "dangling", "nowhere");
    return root;
}

static void assert_listing(const strlist *files, const char *const *expected, size_t count) {
    for (size_t i = 0; i < files->count && i < count; i++)
        assert_string_equal(files->items[i], expected[i]);
    assert_int_equal(files->count, count);
}

static void walk_sorts_bytewise_and_skips_hidden_and_folder_links(void **state) {
    (void)state;
    char *root = make_sample_tree("discover_walk_sorted");
    char *exclude = test_path_join(root, "out");
    strlist files = {0};
    char reason[256];
    assert_true(discover_walk(root, exclude, &files, reason, sizeof reason));
    static const char *const expected[] = {"A.txt", "a-b/c.obj", "a/z.obj", "b.obj", "link.obj"};
    assert_listing(&files, expected, sizeof expected / sizeof expected[0]);
    strlist_free(&files);
    free(exclude);
    free(root);
}

static void walk_without_exclude_lists_the_output_folder(void **state) {
    (void)state;
    char *root = make_sample_tree("discover_walk_no_exclude");
    strlist files = {0};
    char reason[256];
    assert_true(discover_walk(root, NULL, &files, reason, sizeof reason));
    static const char *const expected[] = {"A.txt", "a-b/c.obj", "a/z.obj",
                                           "b.obj", "link.obj",  "out/x.kmesh"};
    assert_listing(&files, expected, sizeof expected / sizeof expected[0]);
    strlist_free(&files);
    free(root);
}

static void walk_recognises_the_excluded_folder_by_any_spelling(void **state) {
    (void)state;
    char *root = make_sample_tree("discover_walk_exclude_spelling");
    char *exclude = test_path_join(root, "a/../out/.");
    strlist files = {0};
    char reason[256];
    assert_true(discover_walk(root, exclude, &files, reason, sizeof reason));
    assert_int_equal(files.count, 5);
    assert_false(strlist_contains(&files, "out/x.kmesh"));
    strlist_free(&files);
    free(exclude);
    free(root);
}

static void walk_of_an_excluded_root_is_empty(void **state) {
    (void)state;
    char *root = make_sample_tree("discover_walk_root_excluded");
    strlist files = {0};
    char reason[256];
    assert_true(discover_walk(root, root, &files, reason, sizeof reason));
    assert_int_equal(files.count, 0);
    strlist_free(&files);
    free(root);
}

static void walk_accepts_a_root_with_a_trailing_slash(void **state) {
    (void)state;
    char *root = make_sample_tree("discover_walk_trailing_slash");
    char *slashed = test_path_join(root, "");
    strlist files = {0};
    char reason[256];
    assert_true(discover_walk(slashed, NULL, &files, reason, sizeof reason));
    assert_int_equal(files.count, 6);
    assert_string_equal(files.items[0], "A.txt");
    strlist_free(&files);
    free(slashed);
    free(root);
}

static void walk_of_a_missing_root_fails_with_a_reason(void **state) {
    (void)state;
    char *root = test_make_temp_dir("discover_walk_missing");
    char *missing = test_path_join(root, "nope");
    strlist files = {0};
    char reason[256];
    assert_false(discover_walk(missing, NULL, &files, reason, sizeof reason));
    assert_non_null(strstr(reason, "nope"));
    strlist_free(&files);
    free(missing);
    free(root);
}

static void walk_of_a_file_fails(void **state) {
    (void)state;
    char *root = test_make_temp_dir("discover_walk_file_root");
    make_file(root, "plain.txt");
    char *file = test_path_join(root, "plain.txt");
    strlist files = {0};
    char reason[256];
    assert_false(discover_walk(file, NULL, &files, reason, sizeof reason));
    assert_non_null(strstr(reason, "not a folder"));
    strlist_free(&files);
    free(file);
    free(root);
}

static void walk_of_an_empty_folder_lists_nothing(void **state) {
    (void)state;
    char *root = test_make_temp_dir("discover_walk_empty");
    strlist files = {0};
    char reason[256];
    assert_true(discover_walk(root, NULL, &files, reason, sizeof reason));
    assert_int_equal(files.count, 0);
    strlist_free(&files);
    free(root);
}

/* Issue 16: what a build's walk does not list is named, and the walk goes
 * on. A link at the top of the tree out of it was read as a source (the
 * audit cooked /etc/passwd as an OBJ); a FIFO is never opened; a folder that
 * cannot be read or a path longer than PATH_MAX fails only itself. */
static void walk_sources_names_what_it_does_not_list_and_goes_on(void **state) {
    (void)state;
    char *root = test_make_temp_dir("discover_walk_hostile");
    char *outside = test_make_temp_dir("discover_walk_hostile_outside");
    make_file(outside, "secret.obj");
    char *secret = test_path_join(outside, "secret.obj");
    make_file(root, "good.obj");
    make_symlink(root, "escape.obj", secret);
    make_symlink(root, "outdir", outside);
    make_symlink(root, "self.obj", "self.obj");
    make_symlink(root, "broken.obj", "nowhere.obj");
    make_symlink(root, "inside.obj", "good.obj");
    char *fifo = test_path_join(root, "pipe.obj");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    make_symlink(root, "to_pipe.obj", "pipe.obj");
    /* A socket, bound by path (relative: sun_path is short). */
    char *cwd = getcwd(NULL, 0);
    assert_int_equal(chdir(root), 0);
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(sock >= 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strcpy(address.sun_path, "sock.png");
    assert_int_equal(bind(sock, (struct sockaddr *)&address, sizeof address), 0);
    /* A tree deeper than PATH_MAX, made one folder at a time. */
    make_folder(root, "deep");
    assert_int_equal(chdir("deep"), 0);
    char name[201];
    memset(name, 'd', 200);
    name[200] = '\0';
    for (int i = 0; i < 22; i++) {
        assert_int_equal(mkdir(name, 0755), 0);
        assert_int_equal(chdir(name), 0);
    }
    test_write_file("far.obj", "x\n", 2);
    assert_int_equal(chdir(cwd), 0);
    free(cwd);
    make_folder(root, "zz");
    make_file(root, "zz/last.obj");

    strlist files = {0};
    cook_diag problems = {0};
    char reason[256];
    assert_true(discover_walk_sources(root, NULL, NULL, &files, &problems, reason, sizeof reason));
    static const char *const expected[] = {"good.obj", "inside.obj", "zz/last.obj"};
    assert_listing(&files, expected, sizeof expected / sizeof expected[0]);
    const char *text = (const char *)problems.text.data;
    assert_non_null(text);
    static const char *const lines[] = {
        "broken.obj: warning: broken symbolic link",
        "\ndeep/dddd",
        "error: path is ",
        "\nescape.obj: warning: symbolic link leads outside the input folder (not followed)\n",
        "\noutdir: warning: symbolic link to a folder (not followed)\n",
        "\npipe.obj: error: a FIFO, not a regular file (not read)\n",
        "\nself.obj: warning: symbolic link loop (not followed)\n",
        "\nsock.png: error: a socket, not a regular file (not read)\n",
        "\nto_pipe.obj: error: symbolic link to a FIFO, not a regular file (not read)\n",
    };
    const char *at = text;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *found = strstr(at, lines[i]);
        if (found == NULL)
            fail_msg("expected \"%s\" (in path order) in:\n%s", lines[i], text);
        at = found;
    }
    assert_int_equal(problems.errors, 4);
    assert_int_equal(problems.warnings, 4);
    /* discover_walk (no report: the output and cubemap folders) skips links
     * and special files silently and stops at a read failure. */
    strlist plain = {0};
    assert_false(discover_walk(root, NULL, &plain, reason, sizeof reason));
    assert_non_null(strstr(reason, "deep/dddd")); /* the rest is cut: the path is long */
    close(sock);
    strlist_free(&plain);
    strlist_free(&files);
    diag_free(&problems);
    free(fifo);
    free(secret);
    free(outside);
    free(root);
}

/* A sub-folder that cannot be read is an error of its own; the rest is
 * listed. Root reads every folder, so the test needs another user. */
static void walk_sources_goes_on_past_an_unreadable_folder(void **state) {
    (void)state;
    if (geteuid() == 0) {
        printf("skipped: running as root, which can read any folder\n");
        return;
    }
    char *root = test_make_temp_dir("discover_walk_unreadable");
    make_file(root, "a.obj");
    make_folder(root, "locked");
    make_file(root, "locked/hidden.obj");
    make_folder(root, "open");
    make_file(root, "open/b.obj");
    char *locked = test_path_join(root, "locked");
    assert_int_equal(chmod(locked, 0), 0);
    strlist files = {0};
    cook_diag problems = {0};
    char reason[256];
    bool ok = discover_walk_sources(root, NULL, NULL, &files, &problems, reason, sizeof reason);
    assert_int_equal(chmod(locked, 0755), 0);
    assert_true(ok);
    static const char *const expected[] = {"a.obj", "open/b.obj"};
    assert_listing(&files, expected, sizeof expected / sizeof expected[0]);
    assert_int_equal(problems.errors, 1);
    assert_non_null(strstr((const char *)problems.text.data,
                           "locked: error: cannot read the folder: Permission denied"));
    strlist_free(&files);
    diag_free(&problems);
    free(locked);
    free(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(glob_star_matches_any_run_including_empty),
        cmocka_unit_test(glob_star_backtracks),
        cmocka_unit_test(glob_question_mark_matches_exactly_one_character),
        cmocka_unit_test(glob_is_case_insensitive),
        cmocka_unit_test(glob_literal_and_empty_patterns),
        cmocka_unit_test(glob_star_spans_folders_and_question_mark_is_one_char),
        cmocka_unit_test(glob_with_many_stars_is_fast),
        cmocka_unit_test(registry_lists_complete_importers),
        cmocka_unit_test(registry_matches_obj_by_file_name_case_insensitively),
        cmocka_unit_test(registry_claims_nothing_else),
        cmocka_unit_test(walk_sorts_bytewise_and_skips_hidden_and_folder_links),
        cmocka_unit_test(walk_without_exclude_lists_the_output_folder),
        cmocka_unit_test(walk_recognises_the_excluded_folder_by_any_spelling),
        cmocka_unit_test(walk_of_an_excluded_root_is_empty),
        cmocka_unit_test(walk_accepts_a_root_with_a_trailing_slash),
        cmocka_unit_test(walk_of_a_missing_root_fails_with_a_reason),
        cmocka_unit_test(walk_of_a_file_fails),
        cmocka_unit_test(walk_of_an_empty_folder_lists_nothing),
        cmocka_unit_test(walk_sources_names_what_it_does_not_list_and_goes_on),
        cmocka_unit_test(walk_sources_goes_on_past_an_unreadable_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
