/* KILN_HANDLE: a string literal's handle is a constant the compiler folds
 * (this file is built with -O2, see tests/CMakeLists.txt) and equals the run
 * time hash, kiln_ref_hash, for every length, past the 128 bytes it unrolls
 * too. */
#include <stdio.h>
#include <string.h>

#include "kiln/manager.h"
#include "test_support.h"

/* The static check: a file-scope initializer must be a constant expression. */
static const kiln_handle crate = KILN_HANDLE("props/crate");
static const kiln_handle empty = KILN_HANDLE("");

#define LONG_REF                                                                                   \
    "levels/a_very_long_folder_name/with/many/segments/and_a_long_file_name_that_goes_on/"         \
    "and_on_and_on_past_the_one_hundred_and_twenty_eight_bytes_kiln_handle_unrolls/mesh_12"

static void literals_fold_to_the_ref_hash(void **state) {
    (void)state;
    assert_true(crate == kiln_ref_hash("props/crate"));
    assert_true(empty == kiln_ref_hash(""));
    assert_true(KILN_HANDLE("a") == 0xaf63dc4c8601ec8cull); /* FNV-1a 64 of "a" */
    assert_true(KILN_HANDLE("props/crate/material_0") == kiln_ref_hash("props/crate/material_0"));
    assert_true(sizeof LONG_REF - 1 > 128);
    assert_true(KILN_HANDLE(LONG_REF) == kiln_ref_hash(LONG_REF));
#if defined(__OPTIMIZE__)
    /* Folded to a constant, no call and no loop, at -O2. */
    assert_true(__builtin_constant_p(KILN_HANDLE("props/crate/crate_albedo")));
    assert_true(__builtin_constant_p(KILN_HANDLE(
        "exactly/one_hundred_and_twenty_eight_bytes/padding_padding_padding_padding_padding/"
        "padding_padding_padding_padding_padding_pa")));
#endif
}

static void every_length_matches(void **state) {
    (void)state;
    /* Each prefix length of a 128-byte literal, through the macro's steps. */
#define P128                                                                                       \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"                             \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    assert_true(KILN_HANDLE(P128) == kiln_ref_hash(P128));
    assert_true(KILN_HANDLE("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde") ==
                kiln_ref_hash("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"));
    assert_true(KILN_HANDLE(P128 "x") == kiln_ref_hash(P128 "x"));
    char text[200];
    for (size_t n = 0; n < sizeof text - 1; n++) {
        memset(text, 'q', n);
        text[n] = '\0';
        assert_true(kiln_ref_hash_n(text, n) == kiln_ref_hash(text));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(literals_fold_to_the_ref_hash),
        cmocka_unit_test(every_length_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
