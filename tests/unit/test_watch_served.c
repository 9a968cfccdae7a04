/* What `kiln watch --serve` answers without a build (src/cli/watch_served.c):
 * which changes make a published source stale, which sources produce a
 * ref, the COOK answer and the failure a FRESH request names, and how a
 * round's sources merge into the published ones. The sets are written out
 * here by hand; the cooked files are made in a scratch folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/watch_served.h"
#include "test_support.h"

#define OUTPUT KILN_TEST_BINARY_DIR "/tmp/watch_served"

/* One source: LIST is a NULL-terminated list of strings. */
#define LIST(...) ((const char *[]){__VA_ARGS__, NULL})

static void push_all(strlist *list, const char *const *items) {
    for (size_t i = 0; items != NULL && items[i] != NULL; i++)
        assert_true(strlist_push(list, items[i]));
}

static served_source *add(served_set *set, const char *source, const char *own_ref,
                          asset_status status) {
    set->items = realloc(set->items, (set->count + 1) * sizeof *set->items);
    assert_non_null(set->items);
    served_source *s = &set->items[set->count++];
    *s = (served_source){.source = strdup(source), .status = status};
    s->own_ref = own_ref ? strdup(own_ref) : NULL;
    return s;
}

static void entries(served_source *s, const char *const *refs, const char *const *paths) {
    push_all(&s->refs, refs);
    push_all(&s->paths, paths);
    push_all(&s->outputs, paths);
}

static void touch_output(const char *path) {
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", OUTPUT, path);
    char *slash = strrchr(full, '/');
    *slash = '\0';
    mkdir(full, 0755);
    *slash = '/';
    FILE *f = fopen(full, "w");
    assert_non_null(f);
    fclose(f);
}

/* The published sources of a small project, sorted by source, with their
 * cooked files on disk. */
static served_set project(void) {
    mkdir(KILN_TEST_BINARY_DIR "/tmp", 0755);
    mkdir(OUTPUT, 0755);
    served_set set = {0};
    served_source *barrel = add(&set, "props/barrel.obj", "props/barrel", ASSET_FAILED);
    barrel->error = strdup("props/barrel.obj:2: error: face index 9 out of range");
    entries(barrel, LIST("props/barrel"), LIST("props/barrel.kmesh"));
    served_source *crate = add(&set, "props/crate.obj", "props/crate", ASSET_UP_TO_DATE);
    entries(crate, LIST("props/crate", "props/crate/material_0"),
            LIST("props/crate.kmesh", "props/crate.kmat"));
    push_all(&crate->dependencies, LIST("props/crate.mtl", "props/crate.png"));
    push_all(&crate->absent, LIST("props/crate_normal.png"));
    served_source *texture = add(&set, "props/crate.png", "props/crate", ASSET_THROUGH_MODEL);
    texture->through = strdup("props/crate.obj");
    served_source *wall = add(&set, "wall.png", "wall", ASSET_COOKED);
    wall->provisional = true;
    entries(wall, LIST("wall"), LIST("wall.ktx2"));
    const char *files[] = {"props/barrel.kmesh", "props/crate.kmesh", "props/crate.kmat",
                           "wall.ktx2"};
    for (size_t i = 0; i < 4; i++)
        touch_output(files[i]);
    served_set indexed = {0};
    served_merge(&indexed, &set, true); /* as a round's sources become the published ones */
    assert_non_null(indexed.keys);
    return indexed;
}

static served_state check_after(const served_set *set, const char *ref, const char *changed) {
    watch_changes changes[2];
    memset(changes, 0, sizeof changes);
    if (changed != NULL)
        changes_note(&changes[1], changed);
    served_state state = served_check(set, ref, changes, 2, OUTPUT, false);
    changes_free(&changes[1]);
    return state;
}

static void test_changes_make_stale(void **unused) {
    (void)unused;
    served_set set = project();
    assert_int_equal(check_after(&set, "props/crate", NULL), SERVED_FRESH);
    assert_int_equal(check_after(&set, "props/crate/material_0", "wall.png"), SERVED_FRESH);
    /* its source, a file it read, a folder above them, its sidecar, a path
     * it looked for, the input folder ("") */
    const char *stale[] = {"props/crate.obj",          "props/crate.mtl",        "props",
                           "props/crate.obj.kiln.yml", "props/crate_normal.png", ""};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(check_after(&set, "props/crate", stale[i]), SERVED_STALE);
    /* a name that only starts like one of them is another file */
    assert_int_equal(check_after(&set, "props/crate", "props/crate.ob"), SERVED_FRESH);
    assert_int_equal(check_after(&set, "props/crate", "prop"), SERVED_FRESH);
    /* a file a model reads stands or falls with the model */
    assert_int_equal(check_after(&set, "props/crate.png", "props/crate.mtl"), SERVED_STALE);
    assert_int_equal(check_after(&set, "props/crate.png", NULL), SERVED_FRESH);
    /* by cooked path too */
    assert_int_equal(check_after(&set, "props/crate.kmat", "props/crate.mtl"), SERVED_STALE);
    assert_int_equal(check_after(&set, "no/such/ref", NULL), SERVED_UNKNOWN);
    /* a failed source is known: its failure is the answer */
    assert_int_equal(check_after(&set, "props/barrel", NULL), SERVED_FRESH);
    served_free(&set);
}

static void test_missing_output_and_drafts(void **unused) {
    (void)unused;
    served_set set = project();
    watch_changes none[1];
    memset(none, 0, sizeof none);
    assert_int_equal(served_check(&set, "wall", none, 1, OUTPUT, false), SERVED_FRESH);
    /* while a round cooks the drafts in full */
    assert_int_equal(served_check(&set, "wall", none, 1, OUTPUT, true), SERVED_STALE);
    assert_int_equal(unlink(OUTPUT "/props/crate.kmat"), 0);
    assert_int_equal(served_check(&set, "props/crate", none, 1, OUTPUT, false), SERVED_STALE);
    served_free(&set);
}

static void assert_answer(const served_set *set, const char *ref, bool ok, const char *expected) {
    char text[1024];
    assert_int_equal(served_answer(set, ref, false, text, sizeof text), ok);
    assert_string_equal(text, expected);
}

/* The same answers through the index and by reading every source (what is
 * left when the index could not be built). */
static void cook_answers(bool indexed) {
    served_set set = project();
    if (!indexed) {
        free(set.keys);
        set.keys = NULL;
        set.key_count = 0;
    }
    assert_int_equal(check_after(&set, "props/crate.png", "props/crate.mtl"), SERVED_STALE);
    assert_int_equal(check_after(&set, "wall", NULL), SERVED_FRESH);
    assert_int_equal(check_after(&set, "wall.ktx", NULL), SERVED_UNKNOWN);
    assert_answer(&set, "props/crate", true, "props/crate.kmesh");
    assert_answer(&set, "props/crate/material_0", true, "props/crate.kmat");
    assert_answer(&set, "props/crate.obj", true, "props/crate.kmesh");
    assert_answer(&set, "props/crate.png", true, "props/crate.kmesh"); /* the model's */
    assert_answer(&set, "wall.ktx2", true, "wall.ktx2");
    /* a failed source's old files are not an answer: its error is */
    assert_answer(&set, "props/barrel", false,
                  "props/barrel.obj:2: error: face index 9 out of range");
    assert_answer(&set, "props/barrel.kmesh", false,
                  "props/barrel.obj:2: error: face index 9 out of range");
    assert_answer(&set, "no/such/ref", false,
                  "no source under the input folder produces 'no/such/ref'");
    /* FRESH: the failure of the source whose own ref is the longest folder */
    assert_string_equal(served_failure(&set, "props/barrel/mesh0"),
                        "props/barrel.obj:2: error: face index 9 out of range");
    assert_null(served_failure(&set, "props/barrelx"));
    assert_null(served_failure(&set, "props/crate"));
    served_free(&set);
}

static void test_cook_answers(void **unused) {
    (void)unused;
    cook_answers(true);
    cook_answers(false);
}

static void test_merge(void **unused) {
    (void)unused;
    served_set set = project();
    /* A focused round: barrel fixed, a new source added. */
    served_set round = {0};
    served_source *barrel = add(&round, "props/barrel.obj", "props/barrel", ASSET_COOKED);
    entries(barrel, LIST("props/barrel"), LIST("props/barrel.kmesh"));
    served_source *box = add(&round, "props/box.obj", "props/box", ASSET_COOKED);
    entries(box, LIST("props/box"), LIST("props/box.kmesh"));
    touch_output("props/box.kmesh");
    served_merge(&set, &round, false);
    assert_int_equal(round.count, 0);
    assert_int_equal(set.count, 5);
    for (size_t i = 1; i < set.count; i++)
        assert_true(strcmp(set.items[i - 1].source, set.items[i].source) < 0);
    assert_answer(&set, "props/barrel", true, "props/barrel.kmesh");
    assert_answer(&set, "props/box", true, "props/box.kmesh");
    assert_answer(&set, "wall", true, "wall.ktx2"); /* kept */
    /* A whole round: what it checked is all there is. */
    add(&round, "wall.png", "wall", ASSET_FAILED)->error = strdup("wall.png: error: truncated");
    served_merge(&set, &round, true);
    assert_int_equal(set.count, 1);
    assert_answer(&set, "wall", false, "wall.png: error: truncated");
    assert_answer(&set, "props/box", false,
                  "no source under the input folder produces 'props/box'");
    served_free(&set);
}

static void test_changes_move(void **unused) {
    (void)unused;
    watch_changes a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    changes_note(&a, "x.png");
    changes_note(&a, "x.png");
    assert_int_equal(a.paths.count, 1);
    changes_note(&b, "y.png");
    changes_move(&a, &b);
    assert_int_equal(a.paths.count, 2);
    assert_int_equal(b.paths.count, 0);
    assert_false(a.everything);
    changes_note(&b, "");
    changes_move(&a, &b);
    assert_true(a.everything);
    assert_false(b.everything);
    changes_free(&a);
    assert_false(a.everything);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_changes_make_stale), cmocka_unit_test(test_missing_output_and_drafts),
        cmocka_unit_test(test_cook_answers),       cmocka_unit_test(test_merge),
        cmocka_unit_test(test_changes_move),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
