/*
 * json.c — the commands' JSON through jansson: numbers as they were printed
 * before (%g-style, whole numbers without a fraction) and one document
 * layout (cli_json_print).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* Flags for every value below the top level: compact, keys in the order set,
 * reals to 9 significant digits (exact for a float; cli_json_number rounds
 * the rest beforehand). */
#define CLI_JSON_FLAGS                                                                             \
    (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY | JSON_REAL_PRECISION(9))

json_t *cli_json_number(double value, int significant) {
    if (!isfinite(value))
        return json_null();
    if (value == floor(value) && fabs(value) <= 9007199254740992.0)
        return json_integer((json_int_t)value);
    char text[64];
    snprintf(text, sizeof text, "%.*g", significant, value);
    return json_real(strtod(text, NULL));
}

json_t *cli_json_string(const char *text) {
    json_t *string = json_string(text);
    if (string != NULL || text == NULL)
        return string != NULL ? string : json_null();
    /* Not UTF-8 (a file name can be any bytes): each byte above 0x7f becomes
     * U+FFFD, so that the document stays JSON. */
    size_t length = strlen(text);
    char *fixed = malloc(3 * length + 1), *at = fixed;
    if (fixed == NULL)
        return json_null();
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p < 0x80) {
            *at++ = (char)*p;
        } else {
            memcpy(at, "\xef\xbf\xbd", 3);
            at += 3;
        }
    }
    *at = '\0';
    string = json_string(fixed);
    free(fixed);
    return string != NULL ? string : json_null();
}

static bool is_array_of_objects(const json_t *value) {
    if (!json_is_array(value) || json_array_size(value) == 0)
        return false;
    for (size_t i = 0; i < json_array_size(value); i++) {
        if (!json_is_object(json_array_get(value, i)))
            return false;
    }
    return true;
}

bool cli_json_print(FILE *out, const json_t *document) {
    bool ok = true;
    if (!json_is_object(document)) {
        ok = json_dumpf(document, out, CLI_JSON_FLAGS) == 0;
        fputc('\n', out);
        return ok && !ferror(out);
    }
    fputs("{", out);
    const char *key;
    json_t *value;
    bool first = true;
    json_object_foreach((json_t *)document, key, value) {
        fputs(first ? "\n  " : ",\n  ", out);
        first = false;
        json_t *name = cli_json_string(key);
        ok = json_dumpf(name, out, CLI_JSON_FLAGS) == 0 && ok;
        json_decref(name);
        fputc(':', out);
        if (is_array_of_objects(value)) {
            for (size_t i = 0; i < json_array_size(value); i++) {
                fputs(i == 0 ? "[\n    " : ",\n    ", out);
                ok = json_dumpf(json_array_get(value, i), out, CLI_JSON_FLAGS) == 0 && ok;
            }
            fputs("\n  ]", out);
        } else {
            ok = json_dumpf(value, out, CLI_JSON_FLAGS) == 0 && ok;
        }
    }
    fputs(first ? "}\n" : "\n}\n", out);
    fflush(out);
    return ok && !ferror(out);
}

bool cli_json_print_line(FILE *out, const json_t *document) {
    bool ok = json_dumpf(document, out, CLI_JSON_FLAGS) == 0;
    fputc('\n', out);
    fflush(out);
    return ok && !ferror(out);
}
