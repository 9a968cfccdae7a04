/* test_components.c — components_scan (src/common/components.c), the reader of
 * a level entity's components JSON shared by the asset manager and kiln
 * check: refs and hashes found in order, and malformed text refused with
 * where, including what fuzz_components found. */
#include <stdio.h>
#include <string.h>

#include "test_support.h"

#include "common/components.h"

typedef struct found {
    char refs[8][64];
    uint64_t hashes[8];
    int count;
} found;

static bool collect(void *user, const char *ref, size_t length, uint64_t hash) {
    found *f = user;
    if (f->count < 8) {
        snprintf(f->refs[f->count], sizeof f->refs[0], "%.*s", (int)length, ref);
        f->hashes[f->count] = hash;
    }
    f->count++;
    return true;
}

static int scan(const char *json, size_t length, found *f, const char **why, size_t *at) {
    memset(f, 0, sizeof *f);
    return components_scan(json, length, collect, f, why, at);
}

static void refs_and_hashes_in_order(void **state) {
    (void)state;
    const char *json = "{\"a\":{\"ref\":\"x.png\",\"hash\":\"00000000000000ff\"},"
                       "\"b\":[{\"ref\":\"y\\u00e9.wav\",\"hash\":\"8c3f5d0e2a1b4c77\"}],"
                       "\"hash\":\"0000000000000001\"}";
    found f;
    const char *why;
    size_t at;
    assert_int_equal(scan(json, strlen(json), &f, &why, &at), COMPONENTS_OK);
    assert_int_equal(f.count, 2);
    assert_string_equal(f.refs[0], "x.png");
    assert_true(f.hashes[0] == 0xff);
    assert_string_equal(f.refs[1], "y\\u00e9.wav"); /* raw bytes, escapes kept */
    assert_true(f.hashes[1] == 0x8c3f5d0e2a1b4c77ull);
}

/* A \u escape is four hex digits of either case, nothing else: found by
 * fuzz_components (tests/fuzz/regressions/components/), where the bytes
 * 0x10-0x19 passed for digits. */
static void unicode_escapes_take_four_hex_digits(void **state) {
    (void)state;
    found f;
    const char *why;
    size_t at;
    static const char ok[] = "{\"a\":\"\\u00E9\\uABcd\"}";
    assert_int_equal(scan(ok, sizeof ok - 1, &f, &why, &at), COMPONENTS_OK);
    for (int c = 0; c < 256; c++) {
        char json[32];
        int n = snprintf(json, sizeof json, "{\"a\":\"\\u%c0e9\"}", 'x');
        json[8] = (char)c; /* the first digit */
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        int r = scan(json, (size_t)n, &f, &why, &at);
        if (hex)
            assert_int_equal(r, COMPONENTS_OK);
        else if (r != COMPONENTS_MALFORMED)
            fail_msg("byte 0x%02x taken for a hex digit", c);
    }
}

static void malformed_text_is_refused_with_where(void **state) {
    (void)state;
    found f;
    const char *why;
    size_t at;
    static const char *const bad[] = {
        "",
        "[]",
        "{\"a\":1,}",
        "{\"a\":01}",
        "{\"a\":\"x\n\"}",
        "{\"a\":tru}",
        "{} x",
        "{\"a\":1.}",
        "{\"ref\":\"x\",\"hash\":\"0123\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (scan(bad[i], strlen(bad[i]), &f, &why, &at) != COMPONENTS_MALFORMED)
            fail_msg("accepted '%s'", bad[i]);
        assert_non_null(why);
        assert_true(at <= strlen(bad[i]));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refs_and_hashes_in_order),
        cmocka_unit_test(unicode_escapes_take_four_hex_digits),
        cmocka_unit_test(malformed_text_is_refused_with_where),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
