/*
 * components.c — reading a level entity's components (kscene.md SLNK): the
 * asset each {"ref": PATH, "hash": "<16 hex digits>"} map names, the way
 * the runtime's manager loads them and kiln check verifies them.
 */
#include <string.h>

#include "common/components.h"

static bool json_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static bool is_hex_digit(char c) {
    return hex_digit(c) >= 0 || (c >= 'A' && c <= 'F');
}

/* The string starting at json[*i] (a '"'): its raw bytes between the quotes
 * in *start / *length, *i past the closing quote; false when malformed. */
static bool json_string(const char *json, size_t n, size_t *i, const char **start, size_t *length) {
    size_t k = *i + 1;
    *start = json + k;
    while (k < n && json[k] != '"') {
        unsigned char c = (unsigned char)json[k];
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (k + 1 >= n)
                return false;
            char e = json[k + 1];
            if (e == 'u') {
                /* Four hex digits of either case (not `| 0x20`, which also
                 * made the control bytes 0x10-0x19 digits). */
                for (size_t h = 0; h < 4; h++)
                    if (k + 2 + h >= n || !is_hex_digit(json[k + 2 + h]))
                        return false;
                k += 6;
                continue;
            }
            if (strchr("\"\\/bfnrt", e) == NULL || e == '\0')
                return false;
            k += 2;
            continue;
        }
        k++;
    }
    if (k >= n)
        return false;
    *length = (size_t)(json + k - *start);
    *i = k + 1;
    return true;
}

/* A number or true / false / null at json[*i]; *i past it. */
static bool json_scalar(const char *json, size_t n, size_t *i) {
    static const char *const words[] = {"true", "false", "null"};
    for (size_t w = 0; w < 3; w++) {
        size_t length = strlen(words[w]);
        if (n - *i >= length && memcmp(json + *i, words[w], length) == 0) {
            *i += length;
            return true;
        }
    }
    size_t k = *i;
    if (k < n && json[k] == '-')
        k++;
    size_t digits = k;
    while (k < n && json[k] >= '0' && json[k] <= '9')
        k++;
    if (k == digits || (json[digits] == '0' && k - digits > 1))
        return false;
    if (k < n && json[k] == '.') {
        size_t frac = ++k;
        while (k < n && json[k] >= '0' && json[k] <= '9')
            k++;
        if (k == frac)
            return false;
    }
    if (k < n && (json[k] == 'e' || json[k] == 'E')) {
        k++;
        if (k < n && (json[k] == '+' || json[k] == '-'))
            k++;
        size_t exp = k;
        while (k < n && json[k] >= '0' && json[k] <= '9')
            k++;
        if (k == exp)
            return false;
    }
    *i = k;
    return true;
}

static bool key_is(const char *key, size_t length, const char *word) {
    return length == strlen(word) && memcmp(key, word, length) == 0;
}

int components_scan(const char *json, size_t n, components_ref_fn fn, void *user, const char **why,
                    size_t *at) {
    enum { WANT_VALUE, WANT_KEY_OR_END, WANT_KEY, WANT_COLON, WANT_COMMA_OR_END, WANT_NOTHING };
    char stack[COMPONENTS_MAX_DEPTH];
    uint32_t depth = 0;
    int want = WANT_VALUE;
    bool first_element = false; /* just after '[': ']' may end it */
    const char *key = NULL, *ref = NULL;
    size_t key_length = 0, ref_length = 0;
    bool after_ref = false; /* the object's previous member was "ref": a string */
    size_t i = 0;
    *why = NULL;
    for (;;) {
        while (i < n && json_space(json[i]))
            i++;
        *at = i;
        if (i == n)
            break;
        char c = json[i];
        if (want == WANT_NOTHING) {
            *why = "text after the object";
            return COMPONENTS_MALFORMED;
        }
        if (want == WANT_COLON) {
            if (c != ':')
                break;
            i++;
            want = WANT_VALUE;
            continue;
        }
        if (want == WANT_COMMA_OR_END || (want == WANT_KEY_OR_END && c == '}') ||
            (want == WANT_VALUE && first_element && c == ']')) {
            if (c == ',' && want == WANT_COMMA_OR_END) {
                i++;
                want = stack[depth - 1] == '{' ? WANT_KEY : WANT_VALUE;
                first_element = false;
                continue;
            }
            if (c != (stack[depth - 1] == '{' ? '}' : ']'))
                break;
            i++;
            depth--;
            first_element = false;
            after_ref = false; /* the member that held it had an object or array value */
            want = depth == 0 ? WANT_NOTHING : WANT_COMMA_OR_END;
            continue;
        }
        if (want == WANT_KEY_OR_END || want == WANT_KEY) {
            if (c != '"' || !json_string(json, n, &i, &key, &key_length))
                break;
            want = WANT_COLON;
            continue;
        }
        /* A value: an object member's when the innermost container is an
         * object (the key read last applies), else an element or the top. */
        bool member = depth > 0 && stack[depth - 1] == '{';
        bool is_hash = member && after_ref && key_is(key, key_length, "hash");
        first_element = false;
        if (depth == 0 && c != '{') {
            *why = "not a JSON object";
            return COMPONENTS_MALFORMED;
        }
        if (c == '{' || c == '[') {
            if (is_hash) {
                *why = "a ref's \"hash\" is not a string";
                return COMPONENTS_MALFORMED;
            }
            if (depth == COMPONENTS_MAX_DEPTH) {
                *why = "nested deeper than 256";
                return COMPONENTS_MALFORMED;
            }
            stack[depth++] = c;
            i++;
            after_ref = false;
            first_element = c == '[';
            want = c == '{' ? WANT_KEY_OR_END : WANT_VALUE;
            continue;
        }
        bool string = c == '"';
        const char *value = NULL;
        size_t value_length = 0;
        if (string ? !json_string(json, n, &i, &value, &value_length) : !json_scalar(json, n, &i))
            break;
        if (is_hash) {
            uint64_t hash = 0;
            for (size_t k = 0; string && value_length == 16 && k < 16; k++) {
                int d = hex_digit(value[k]);
                if (d < 0) {
                    value_length = 0;
                    break;
                }
                hash = hash << 4 | (uint64_t)d;
            }
            if (!string || value_length != 16) {
                *why = "a ref's \"hash\" is not 16 lower-case hex digits";
                return COMPONENTS_MALFORMED;
            }
            if (!fn(user, ref, ref_length, hash))
                return COMPONENTS_STOPPED;
        }
        after_ref = member && string && key_is(key, key_length, "ref");
        if (after_ref) {
            ref = value;
            ref_length = value_length;
        }
        want = WANT_COMMA_OR_END;
    }
    if (want == WANT_NOTHING)
        return COMPONENTS_OK;
    *why = i == n ? "it ends inside a value" : "not valid JSON";
    return COMPONENTS_MALFORMED;
}
