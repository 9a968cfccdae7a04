/* fuzz_components.c — libFuzzer harness: components_scan (src/common/components.c), the
 * reader of a level entity's components JSON that the runtime's asset manager and kiln check
 * share, on arbitrary bytes as a .kscene's SLNK chunk would hold them.
 *
 * Checked against an independent recursive JSON validator written here (RFC 8259's grammar
 * without UTF-8 validation, objects at the top, nesting at most COMPONENTS_MAX_DEPTH):
 *   - what the scan accepts is valid JSON; what is valid JSON is accepted unless a ref's
 *     "hash" is bad (the only other refusal);
 *   - every ref it reports lies inside the input, and a second scan whose callback stops at the
 *     first ref returns COMPONENTS_STOPPED exactly when the first reported one;
 *   - a refusal says why and where (an offset inside the input). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/components.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the independent validator ---- */

typedef struct reader {
    const char *s;
    size_t n, i;
} reader;

static void skip_space(reader *r) {
    while (r->i < r->n &&
           (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r'))
        r->i++;
}

static bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

static bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool valid_string(reader *r) {
    if (r->i >= r->n || r->s[r->i] != '"')
        return false;
    r->i++;
    while (r->i < r->n) {
        unsigned char c = (unsigned char)r->s[r->i];
        if (c == '"') {
            r->i++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c != '\\') {
            r->i++;
            continue;
        }
        if (r->i + 1 >= r->n)
            return false;
        char e = r->s[r->i + 1];
        if (e == 'u') {
            if (r->i + 6 > r->n)
                return false;
            for (size_t k = 2; k < 6; k++)
                if (!is_hex(r->s[r->i + k]))
                    return false;
            r->i += 6;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                   e == 'r' || e == 't') {
            r->i += 2;
        } else {
            return false;
        }
    }
    return false;
}

static bool valid_number(reader *r) {
    if (r->i < r->n && r->s[r->i] == '-')
        r->i++;
    if (r->i >= r->n || !is_digit(r->s[r->i]))
        return false;
    if (r->s[r->i] == '0')
        r->i++;
    else
        while (r->i < r->n && is_digit(r->s[r->i]))
            r->i++;
    if (r->i < r->n && r->s[r->i] == '.') {
        r->i++;
        if (r->i >= r->n || !is_digit(r->s[r->i]))
            return false;
        while (r->i < r->n && is_digit(r->s[r->i]))
            r->i++;
    }
    if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
        r->i++;
        if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-'))
            r->i++;
        if (r->i >= r->n || !is_digit(r->s[r->i]))
            return false;
        while (r->i < r->n && is_digit(r->s[r->i]))
            r->i++;
    }
    return true;
}

static bool valid_word(reader *r, const char *word) {
    size_t length = strlen(word);
    if (r->n - r->i < length || memcmp(r->s + r->i, word, length) != 0)
        return false;
    r->i += length;
    return true;
}

/* A value at nesting `depth` (the containers around it). */
static bool valid_value(reader *r, unsigned depth) {
    skip_space(r);
    if (r->i >= r->n)
        return false;
    char c = r->s[r->i];
    if (c == '{' || c == '[') {
        if (depth == COMPONENTS_MAX_DEPTH)
            return false;
        char close = c == '{' ? '}' : ']';
        r->i++;
        skip_space(r);
        if (r->i < r->n && r->s[r->i] == close) {
            r->i++;
            return true;
        }
        for (;;) {
            if (c == '{') {
                skip_space(r);
                if (!valid_string(r))
                    return false;
                skip_space(r);
                if (r->i >= r->n || r->s[r->i] != ':')
                    return false;
                r->i++;
            }
            if (!valid_value(r, depth + 1))
                return false;
            skip_space(r);
            if (r->i >= r->n)
                return false;
            if (r->s[r->i] == close) {
                r->i++;
                return true;
            }
            if (r->s[r->i] != ',')
                return false;
            r->i++;
        }
    }
    if (c == '"')
        return valid_string(r);
    if (c == 't')
        return valid_word(r, "true");
    if (c == 'f')
        return valid_word(r, "false");
    if (c == 'n')
        return valid_word(r, "null");
    return valid_number(r);
}

static bool valid_components(const char *s, size_t n) {
    reader r = {s, n, 0};
    skip_space(&r);
    if (r.i >= n || s[r.i] != '{')
        return false;
    if (!valid_value(&r, 0))
        return false;
    skip_space(&r);
    return r.i == n;
}

/* ---- the harness ---- */

typedef struct scan_state {
    const char *begin;
    size_t size;
    size_t refs;
    bool stop;
} scan_state;

static bool on_ref(void *user, const char *ref, size_t ref_length, uint64_t hash) {
    scan_state *st = user;
    (void)hash;
    if (ref < st->begin || ref_length > st->size ||
        ref - st->begin > (ptrdiff_t)(st->size - ref_length))
        abort(); /* a ref outside the input */
    st->refs++;
    return !st->stop;
}

static bool is_hash_problem(const char *why) {
    return why != NULL && strstr(why, "\"hash\"") != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A copy of exactly `size` bytes, so ASan sees a read past the end. */
    char *json = malloc(size ? size : 1);
    if (json == NULL)
        return 0;
    memcpy(json, data, size);
    scan_state st = {json, size, 0, false};
    const char *why = NULL;
    size_t at = 0;
    int result = components_scan(json, size, on_ref, &st, &why, &at);
    bool valid = valid_components(json, size);
    if (result == COMPONENTS_OK) {
        if (!valid || why != NULL)
            abort(); /* accepted what is not JSON */
    } else if (result == COMPONENTS_MALFORMED) {
        if (why == NULL || at > size)
            abort(); /* a refusal that does not say why or where */
        if (valid && !is_hash_problem(why))
            abort(); /* refused valid JSON for another reason than a hash */
    } else {
        abort(); /* STOPPED without a callback that stops */
    }
    /* Stopping at the first ref. */
    scan_state stop = {json, size, 0, true};
    int stopped = components_scan(json, size, on_ref, &stop, &why, &at);
    if ((stopped == COMPONENTS_STOPPED) != (st.refs > 0) || stop.refs != (st.refs > 0))
        abort();
    if (st.refs == 0 && stopped != result)
        abort();
    free(json);
    return 0;
}
