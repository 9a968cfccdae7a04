/*
 * named_paths.c — the list of paths a source names and how a new path is
 * spelled where one stands (named_paths.h); the scanners that fill the list
 * are the import room's (import/source_paths*.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ascii.h"
#include "common/grow.h"
#include "cook/core/named_paths.h"

bool cook_named_paths_add(cook_named_paths *out, const char *path, size_t path_length, size_t start,
                          size_t end, uint32_t line, cook_path_syntax syntax, const char *what) {
    cook_named_path *items = array_grow(out->items, &out->cap, out->count + 1, sizeof *items, 8);
    if (items == NULL)
        return false;
    out->items = items;
    cook_named_path *named = &items[out->count];
    *named = (cook_named_path){.start = start, .end = end, .line = line, .syntax = syntax};
    snprintf(named->what, sizeof named->what, "%s", what);
    named->path = malloc(path_length + 1);
    if (named->path == NULL)
        return false;
    memcpy(named->path, path, path_length);
    named->path[path_length] = '\0';
    out->count++;
    return true;
}

void cook_named_paths_free(cook_named_paths *paths) {
    for (size_t i = 0; i < paths->count; i++)
        free(paths->items[i].path);
    free(paths->items);
    *paths = (cook_named_paths){0};
}

/* Characters a URI path may hold as they are (RFC 3986's unreserved, the
 * sub-delimiters a file name commonly has, and UTF-8 as exporters write it,
 * an IRI); the rest is percent-encoded. */
static bool uri_plain(unsigned char c) {
    return c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || strchr("-._~/!$&'()*+,;=@", c) != NULL;
}

/* A plain YAML scalar that reads back as the same string. */
static bool yaml_plain_safe(const char *path) {
    if (path[0] == '\0' || strchr("-?:,[]{}#&*!|>'\"%@`", path[0]) != NULL)
        return false;
    for (const char *p = path; *p != '\0'; p++)
        if (!uri_plain((unsigned char)*p) || *p == ',')
            return false;
    return true;
}

bool cook_named_path_spell(const cook_named_path *named, const char *path, bytebuf *out,
                           char *reason, size_t reason_size) {
    switch (named->syntax) {
    case COOK_PATH_TEXT: {
        bool mtllib = strcmp(named->what, "mtllib") == 0;
        bool include = strcmp(named->what, "#include") == 0;
        const char *problem =
            strpbrk(path, "\n\r\\") != NULL          ? "a line break or a backslash"
            : include && strchr(path, '"') != NULL   ? "a quote"
            : !include && strchr(path, '\t') != NULL ? "a tab"
            : mtllib && strchr(path, ' ') != NULL && !ascii_ends_with_ci(path, ".mtl")
                ? "a space, and does not end in \".mtl\""
            : !include && !mtllib && path[0] == '-' ? "a leading '-' (it reads as an option)"
                                                    : NULL;
        if (problem != NULL) {
            snprintf(reason, reason_size, "a %s statement cannot name '%s': it has %s", named->what,
                     path, problem);
            return false;
        }
        bytebuf_append(out, path, strlen(path));
        break;
    }
    case COOK_PATH_YAML_PLAIN:
        if (yaml_plain_safe(path)) {
            bytebuf_append(out, path, strlen(path));
            break;
        }
        bytebuf_append_json_string(out, path); /* quoted, as it needs */
        break;
    case COOK_PATH_YAML_DOUBLE:
        bytebuf_append_json_string(out, path); /* JSON strings are YAML double-quoted ones */
        break;
    case COOK_PATH_YAML_SINGLE:
        bytebuf_append(out, "'", 1);
        for (const char *p = path; *p != '\0'; p++) /* a quote is written twice */
            bytebuf_append(out, *p == '\'' ? "''" : p, *p == '\'' ? 2 : 1);
        bytebuf_append(out, "'", 1);
        break;
    case COOK_PATH_JSON_URI:
        bytebuf_append(out, "\"", 1);
        for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++)
            if (uri_plain(*p))
                bytebuf_append(out, p, 1);
            else
                bytebuf_printf(out, "%%%02X", *p);
        bytebuf_append(out, "\"", 1);
        break;
    }
    if (out->failed)
        snprintf(reason, reason_size, "out of memory");
    return !out->failed;
}
