/*
 * source_paths_gltf.c — the files a glTF names (cook_source_paths): each
 * buffers[i].uri and images[i].uri that is a relative path (a data: URI or
 * one with a scheme names none), percent-decoded as gltf.c reads it. The
 * JSON is walked here, not parsed into values, for the bytes each string
 * spans: a rewrite changes only them. A .glb's JSON chunk is walked too,
 * but its paths are fixed (rewriting would move the binary chunk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ascii.h"
#include "common/path.h"
#include "cook/import/gltf_internal.h"
#include "cook/import/source_paths.h"

#define JSON_MAX_DEPTH 512 /* far above any glTF; bounds the recursion */

typedef struct json_walk {
    const uint8_t *bytes;
    size_t size, at, base; /* base: where the JSON starts in the file (a .glb's chunk) */
    uint32_t line;
    bool failed, fixed;
    cook_named_paths *out;
} json_walk;

static void skip_blanks(json_walk *w) {
    while (w->at < w->size && strchr(" \t\r\n", w->bytes[w->at]) != NULL && w->bytes[w->at])
        w->line += w->bytes[w->at++] == '\n';
}

/* A string at w->at: its content [*start, *end) and whether it has escapes. */
static bool string_span(json_walk *w, size_t *start, size_t *end, bool *escaped) {
    skip_blanks(w);
    if (w->at >= w->size || w->bytes[w->at] != '"')
        return false;
    *start = ++w->at;
    *escaped = false;
    while (w->at < w->size && w->bytes[w->at] != '"') {
        if (w->bytes[w->at] == '\\') {
            *escaped = true;
            w->at++;
        }
        w->at++;
    }
    if (w->at >= w->size)
        return false;
    *end = w->at++;
    return true;
}

/* One member of an object or an array, handed to a walk's visit. */
typedef struct json_member {
    const uint8_t *key; /* an object's: its name's bytes (escapes kept); an array's: NULL */
    size_t key_length;
    size_t index; /* its place in its object or array */
    int depth;    /* its value's */
} json_member;

/* Reads or skips the member's value at w->at; false ends the walk. */
typedef bool (*json_visit)(json_walk *w, const json_member *member, const void *context);

static bool skip_value(json_walk *w, int depth);

/* The object or array whose bracket is at w->at (at depth), member by
 * member: visit reads each value (NULL skips them all). The one loop every
 * walk here uses. */
static bool walk_members(json_walk *w, int depth, json_visit visit, const void *context) {
    char open = (char)w->bytes[w->at++], close = open == '{' ? '}' : ']';
    skip_blanks(w);
    if (w->at < w->size && w->bytes[w->at] == close) {
        w->at++;
        return true;
    }
    for (size_t index = 0;; index++) {
        json_member member = {.index = index, .depth = depth + 1};
        if (open == '{') {
            size_t start, end;
            bool escaped;
            if (!string_span(w, &start, &end, &escaped))
                return false;
            member.key = w->bytes + start;
            member.key_length = end - start;
            skip_blanks(w);
            if (w->at >= w->size || w->bytes[w->at++] != ':')
                return false;
        }
        if (!(visit != NULL ? visit(w, &member, context) : skip_value(w, member.depth)))
            return false;
        skip_blanks(w);
        if (w->at >= w->size)
            return false;
        char c = (char)w->bytes[w->at++];
        if (c == close)
            return true;
        if (c != ',')
            return false;
    }
}

static bool key_is(const json_member *member, const char *name) {
    size_t length = strlen(name);
    return member->key != NULL && member->key_length == length &&
           memcmp(member->key, name, length) == 0;
}

/* Past blanks, w->at is at open: an object's '{' or an array's '['. */
static bool at_container(json_walk *w, char open) {
    skip_blanks(w);
    return w->at < w->size && w->bytes[w->at] == open;
}

static bool skip_value(json_walk *w, int depth) {
    skip_blanks(w);
    if (w->at >= w->size || depth > JSON_MAX_DEPTH)
        return false;
    char c = (char)w->bytes[w->at];
    if (c == '{' || c == '[')
        return walk_members(w, depth, NULL, NULL);
    if (c == '"') {
        size_t start, end;
        bool escaped;
        return string_span(w, &start, &end, &escaped);
    }
    while (w->at < w->size && strchr(",]} \t\r\n", w->bytes[w->at]) == NULL)
        w->at++; /* a number, true, false or null */
    return true;
}

static int hex_digit(uint8_t c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The JSON string's value (simple escapes decoded; \u only below 0x80). */
static char *string_value(const json_walk *w, size_t start, size_t end) {
    char *text = malloc(end - start + 1);
    if (text == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = start; i < end; i++) {
        char c = (char)w->bytes[i];
        if (c == '\\' && i + 1 < end) {
            char e = (char)w->bytes[++i];
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *at = strchr(from, e);
            unsigned code = 0;
            bool hex = e == 'u' && i + 4 < end;
            for (size_t k = 1; hex && k <= 4; k++) {
                int digit = hex_digit(w->bytes[i + k]);
                hex = digit >= 0;
                code = code * 16 + (unsigned)(hex ? digit : 0);
            }
            if (hex && code > 0 && code < 0x80) {
                c = (char)code;
                i += 4;
            } else if (at != NULL && e != '\0') {
                c = to[at - from];
            } else {
                free(text);
                return NULL; /* a character kiln would not write back: no path to rewrite */
            }
        }
        text[n++] = c;
    }
    text[n] = '\0';
    return text;
}

/* A uri's string at w->at: added when it names a file in the input folder. */
static bool uri_value(json_walk *w, const char *what, int depth) {
    skip_blanks(w);
    uint32_t line = w->line;
    size_t start, end;
    bool escaped;
    size_t value_at = w->at;
    if (w->at >= w->size || w->bytes[w->at] != '"')
        return skip_value(w, depth);
    if (!string_span(w, &start, &end, &escaped))
        return false;
    char *uri = string_value(w, start, end);
    if (uri == NULL)
        return true;
    size_t scheme = strcspn(uri, ":/?#\\");
    char *decoded = malloc(strlen(uri) + 1);
    size_t n = 0, bad = 0;
    bool ok = true;
    if (decoded == NULL) {
        ok = false;
    } else if (uri[scheme] != ':' && uri[0] != '\0' && !path_is_absolute(uri) &&
               gltf_percent_decode(uri, false, (uint8_t *)decoded, &n, &bad)) {
        ok = cook_named_paths_add(w->out, decoded, n, w->base + value_at, w->base + end + 1, line,
                                  COOK_PATH_JSON_URI, what);
        if (ok)
            w->out->items[w->out->count - 1].fixed = w->fixed || escaped;
    }
    free(decoded);
    free(uri);
    if (!ok)
        w->failed = true;
    return ok;
}

static bool uri_member(json_walk *w, const json_member *member, const void *what) {
    return key_is(member, "uri") ? uri_value(w, what, member->depth) : skip_value(w, member->depth);
}

/* An element of "buffers" or "images": {"uri": ..., ...}, or skipped. */
static bool uri_element(json_walk *w, const json_member *member, const void *array_name) {
    if (!at_container(w, '{'))
        return skip_value(w, member->depth);
    char what[64];
    snprintf(what, sizeof what, "%s[%zu].uri", (const char *)array_name, member->index);
    return walk_members(w, member->depth, uri_member, what);
}

static bool root_member(json_walk *w, const json_member *member, const void *unused) {
    (void)unused;
    const char *array_name = key_is(member, "buffers")  ? "buffers"
                             : key_is(member, "images") ? "images"
                                                        : NULL;
    if (array_name != NULL && at_container(w, '['))
        return walk_members(w, member->depth, uri_element, array_name);
    return skip_value(w, member->depth);
}

static bool walk_root(json_walk *w) {
    return at_container(w, '{') && walk_members(w, 0, root_member, NULL);
}

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool source_paths_gltf(const char *relative, const uint8_t *bytes, size_t size,
                       cook_named_paths *out, char *reason, size_t reason_size) {
    json_walk w = {.bytes = bytes, .size = size, .line = 1, .out = out};
    if (size >= 4 && memcmp(bytes, "glTF", 4) == 0) {
        /* header (12 bytes), then the JSON chunk: length, type, bytes */
        uint32_t length = size >= 20 ? read_u32(bytes + 12) : 0;
        if (size < 20 || memcmp(bytes + 16, "JSON", 4) != 0 || length > size - 20) {
            snprintf(reason, reason_size, "not a GLB with a JSON chunk");
            return false;
        }
        w.bytes = bytes + 20;
        w.size = length;
        w.base = 20;
        w.fixed = true;
    }
    if (!walk_root(&w)) {
        cook_named_paths_free(out);
        if (w.failed)
            snprintf(reason, reason_size, "out of memory");
        else
            snprintf(reason, reason_size, "invalid JSON near byte %zu", w.base + w.at);
        return false;
    }
    return true;
}
