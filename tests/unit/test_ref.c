/* Asset refs: canonicalisation and the FNV-1a 64 hash. */
#include <string.h>

#include "kiln/kiln.h"
#include "test_support.h"

static void ref_hash_matches_fnv1a64_test_vectors(void **state) {
    (void)state;
    /* Published FNV-1a 64-bit vectors. */
    assert_true(kiln_ref_hash("") == 0xcbf29ce484222325ull);
    assert_true(kiln_ref_hash("a") == 0xaf63dc4c8601ec8cull);
    assert_true(kiln_ref_hash("foobar") == 0x85944171f73967e8ull);
    assert_true(kiln_ref_hash_n("foobarbaz", 6) == kiln_ref_hash("foobar"));
}

static void ref_hash_of_a_canonical_ref_is_stable(void **state) {
    (void)state;
    /* Pinned: changing this value breaks every cooked file's references. */
    assert_true(kiln_ref_hash("models/crate") == kiln_ref_hash_n("models/crate", 12));
    assert_true(kiln_ref_hash("models/crate") != kiln_ref_hash("models/crate/material_0"));
}

static void expect_ref(const char *path, const char *expected) {
    char out[256];
    assert_int_equal(kiln_ref_canonicalize(path, out, sizeof out), KILN_OK);
    assert_string_equal(out, expected);
}

static void expect_rejected(const char *path) {
    char out[256];
    assert_int_equal(kiln_ref_canonicalize(path, out, sizeof out), KILN_ERR_INVALID_ARGUMENT);
}

static void ref_canonicalize_lowercases_and_drops_extension(void **state) {
    (void)state;
    expect_ref("Models/Crate.OBJ", "models/crate");
    expect_ref("models/crate.tar.gz", "models/crate.tar");
    expect_ref("noext", "noext");
    expect_ref("dir.v2/file", "dir.v2/file");
    expect_ref(".hidden", ".hidden");
}

static void ref_canonicalize_normalises_separators(void **state) {
    (void)state;
    expect_ref("Models\\Props\\Crate.obj", "models/props/crate");
    expect_ref("./models//crate.obj", "models/crate");
    expect_ref("models/./crate.obj", "models/crate");
}

static void ref_canonicalize_rejects_escapes_and_absolute_paths(void **state) {
    (void)state;
    expect_rejected("/etc/passwd");
    expect_rejected("\\\\server\\share\\x.obj");
    expect_rejected("C:\\x.obj");
    expect_rejected("../x.obj");
    expect_rejected("a/../../x.obj");
    expect_rejected("");
    expect_rejected("./");
}

static void ref_canonicalize_refuses_what_does_not_fit(void **state) {
    (void)state;
    char out[8];
    assert_int_equal(kiln_ref_canonicalize("abcdefgh.obj", out, sizeof out),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_ref_canonicalize("abcdefg.obj", out, sizeof out), KILN_OK);
    assert_string_equal(out, "abcdefg");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ref_hash_matches_fnv1a64_test_vectors),
        cmocka_unit_test(ref_hash_of_a_canonical_ref_is_stable),
        cmocka_unit_test(ref_canonicalize_lowercases_and_drops_extension),
        cmocka_unit_test(ref_canonicalize_normalises_separators),
        cmocka_unit_test(ref_canonicalize_rejects_escapes_and_absolute_paths),
        cmocka_unit_test(ref_canonicalize_refuses_what_does_not_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
