/* test_escape.c — file names printed escaped (issue 16): every diagnostic
 * and every text output goes through bytebuf_append_escaped / cook_escape_to
 * / cook_escaped (core/util.c), so a name holding a newline, an escape
 * sequence or invalid UTF-8 can neither drive the terminal nor forge a line
 * of the log. JSON keeps names exact, and stays UTF-8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/core.h"
#include "test_support.h"

static void assert_escaped(const char *text, const char *expected) {
    bytebuf buf = {0};
    bytebuf_append_escaped(&buf, text);
    bytebuf_append(&buf, "", 1);
    assert_false(buf.failed);
    assert_string_equal((const char *)buf.data, expected);
    bytebuf_free(&buf);
    char out[256];
    assert_string_equal(cook_escape_to(out, sizeof out, text), expected);
}

static void controls_and_invalid_utf8_become_hex_escapes(void **state) {
    (void)state;
    assert_escaped("plain/name.obj", "plain/name.obj");
    assert_escaped("two\nlines.obj", "two\\x0Alines.obj");
    assert_escaped("\x1b[31mred\x1b[0m.png", "\\x1B[31mred\\x1B[0m.png");
    assert_escaped("tab\there\rdel\x7f", "tab\\x09here\\x0Ddel\\x7F");
    /* Valid UTF-8 is kept; C1 controls (U+009B is CSI) are not. */
    assert_escaped("caf\xc3\xa9/\xe6\xbc\xa2\xe5\xad\x97/\xf0\x9f\x94\xa5.png",
                   "caf\xc3\xa9/\xe6\xbc\xa2\xe5\xad\x97/\xf0\x9f\x94\xa5.png");
    assert_escaped("\xc2\x9b"
                   "2J",
                   "\\xC2\\x9B2J");
    /* Invalid: a lone continuation, a truncated sequence, an overlong form,
     * a surrogate, beyond U+10FFFF, bytes that never occur. */
    assert_escaped("a\x80z", "a\\x80z");
    assert_escaped("a\xe6\xbcz", "a\\xE6\\xBCz");
    assert_escaped("\xc0\xaf", "\\xC0\\xAF");
    assert_escaped("\xed\xa0\x80", "\\xED\\xA0\\x80");
    assert_escaped("\xf4\x90\x80\x80", "\\xF4\\x90\\x80\\x80");
    assert_escaped("\xfe\xff", "\\xFE\\xFF");
    assert_escaped("end\xe6", "end\\xE6");
}

static void escape_to_never_cuts_an_escape_or_a_character(void **state) {
    (void)state;
    char out[8];
    assert_string_equal(cook_escape_to(out, sizeof out, "abcd\n"), "abcd"); /* "\x0A" won't fit */
    assert_string_equal(cook_escape_to(out, sizeof out, "abcdef\xc3\xa9"), "abcdef");
    assert_string_equal(cook_escape_to(out, 1, "abc"), "");
}

static void escaped_is_a_printf_argument(void **state) {
    (void)state;
    char line[256];
    snprintf(line, sizeof line, "scene '%s', node '%s'", cook_escaped("\x1b[2J"),
             cook_escaped("n\x1b]0;title\x07"
                          "caf\xc3\xa9"));
    assert_string_equal(line, "scene '\\x1B[2J', node 'n\\x1B]0;title\\x07caf\xc3\xa9'");
    /* Escaping twice changes nothing: a name escaped on the way (a message
     * that names it) is shown as it was. */
    char twice[64];
    assert_string_equal(cook_escape_to(twice, sizeof twice, cook_escaped("a\x1b\x80z")),
                        "a\\x1B\\x80z");
}

static void json_strings_stay_utf8(void **state) {
    (void)state;
    bytebuf buf = {0};
    /* Controls as \u escapes, UTF-8 as it is, a byte that is not UTF-8 (a
     * Latin-1 file name) as U+FFFD: the META chunk stays JSON. */
    bytebuf_append_json_string(&buf, "a\x1b\"\\caf\xc3\xa9 lat\xe9 \xf0\x9f\x94\xa5");
    bytebuf_append(&buf, "", 1);
    assert_string_equal((const char *)buf.data,
                        "\"a\\u001b\\\"\\\\caf\xc3\xa9 lat\xef\xbf\xbd \xf0\x9f\x94\xa5\"");
    bytebuf_free(&buf);
}

static void diagnostics_escape_the_path_and_the_message(void **state) {
    (void)state;
    cook_diag diag = {0};
    diag_error(&diag, "evil\n/x.obj: error: forged", 3, "cannot read '%s'", "a\x1b]0;t\x07.mtl");
    diag_warning(&diag, "ok.obj", 0, "fine");
    bytebuf_append(&diag.text, "", 1);
    const char *text = (const char *)diag.text.data;
    assert_non_null(text);
    assert_string_equal(text, "evil\\x0A/x.obj: error: forged:3: error: cannot read "
                              "'a\\x1B]0;t\\x07.mtl'\n"
                              "ok.obj: warning: fine\n");
    diag_free(&diag);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(controls_and_invalid_utf8_become_hex_escapes),
        cmocka_unit_test(escape_to_never_cuts_an_escape_or_a_character),
        cmocka_unit_test(escaped_is_a_printf_argument),
        cmocka_unit_test(json_strings_stay_utf8),
        cmocka_unit_test(diagnostics_escape_the_path_and_the_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
