/* The build report's escaping and data URIs (src/cli/report*.c): names from
 * files are hostile input; the expected strings are written out here. */
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "test_support.h"

static void assert_html(const char *text, const char *expected) {
    bytebuf out = {0};
    report_html_text(&out, text);
    bytebuf_append(&out, "", 1);
    assert_string_equal((const char *)out.data, expected);
    bytebuf_free(&out);
}

static void test_markup_and_quotes(void **state) {
    (void)state;
    assert_html("<script>alert('x')</script>\"",
                "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;");
    assert_html("a & b", "a &amp; b");
    assert_html("&lt;", "&amp;lt;"); /* an entity in a name stays text */
    assert_html("", "");
    assert_html("caf\xc3\xa9/crate", "caf\xc3\xa9/crate"); /* valid UTF-8 kept */
}

/* Control characters and bytes that are not UTF-8 show as \xNN, as in every
 * other kiln output, so the page is valid UTF-8 text. */
static void test_control_and_invalid_bytes(void **state) {
    (void)state;
    assert_html("a\x1b]0;t\x07", "a\\x1B]0;t\\x07");
    assert_html("lat\xe9.png", "lat\\xE9.png");
    assert_html("two\nlines", "two\\x0Alines");
}

static void test_data_uri(void **state) {
    (void)state;
    /* RFC 4648's test vectors, after the prefix. */
    const char *inputs[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *outputs[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (size_t i = 0; i < 7; i++) {
        char *uri = report_png_data_uri((const uint8_t *)inputs[i], strlen(inputs[i]));
        assert_non_null(uri);
        assert_int_equal(strncmp(uri, "data:image/png;base64,", 22), 0);
        assert_string_equal(uri + 22, outputs[i]);
        free(uri);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_markup_and_quotes),
        cmocka_unit_test(test_control_and_invalid_bytes),
        cmocka_unit_test(test_data_uri),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
