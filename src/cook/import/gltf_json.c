/*
 * gltf_json.c — diagnostics and typed JSON access for the glTF importer.
 *
 * Every getter names the JSON path of what it rejects, so a message reads
 * "materials[0].normalTexture.scale: expected a number, found string".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cook/import/gltf_internal.h"

void gltf_pathf(char *out, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(out, GLTF_PATH_SIZE, fmt, args);
    va_end(args);
}

__attribute__((format(printf, 3, 0))) static void report_error(gltf *g, bool demotable,
                                                               const char *fmt, va_list args) {
    if (g->stopped)
        return;
    char message[1000];
    vsnprintf(message, sizeof message, fmt, args);
    if (demotable && g->unused) {
        /* Nothing cooked reads it: kiln would not read it wrong. */
        diag_warning(g->ctx->diag, g->path, 0, "%s (not used by anything kiln cooks; ignored)",
                     message);
        return;
    }
    g->errors++;
    if (g->errors > GLTF_MAX_ERRORS) {
        g->stopped = true;
        diag_error(g->ctx->diag, g->path, 0, "too many errors; giving up on this file");
        return;
    }
    diag_error(g->ctx->diag, g->path, 0, "%s", message);
}

void gltf_error(gltf *g, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    report_error(g, true, fmt, args);
    va_end(args);
}

void gltf_error_always(gltf *g, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    report_error(g, false, fmt, args);
    va_end(args);
}

void gltf_warning(gltf *g, const char *fmt, ...) {
    char message[1000];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    diag_warning(g->ctx->diag, g->path, 0, "%s", message);
}

bool gltf_out_of_memory(gltf *g) {
    gltf_error_always(g, "out of memory");
    return false;
}

bool gltf_charge(gltf *g, uint64_t bytes, const char *jpath) {
    if (bytes > g->budget) {
        gltf_error(g,
                   "%s: the decoded data would exceed the limit for this file "
                   "(%llu more bytes needed, %llu left; the limit grows with the input size)",
                   jpath, (unsigned long long)bytes, (unsigned long long)g->budget);
        g->budget = 0;
        return false;
    }
    g->budget -= bytes;
    return true;
}

const char *gltf_json_type_name(const json_t *value) {
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "a value";
}

static void member_path(char *out, size_t size, const char *jpath, const char *key) {
    (void)size; /* always GLTF_PATH_SIZE */
    if (jpath[0] != '\0')
        gltf_pathf(out, "%s.%s", jpath, key);
    else
        gltf_pathf(out, "%s", key);
}

/* obj[key], or NULL with an error when required and missing. */
static const json_t *member(gltf *g, const json_t *obj, const char *jpath, const char *key,
                            bool required, bool *ok) {
    const json_t *value = json_object_get(obj, key);
    *ok = true;
    if (value == NULL && required) {
        gltf_error_always(g, "%s: required property '%s' is missing",
                          jpath[0] ? jpath : "top level", key);
        *ok = false;
    }
    return value;
}

static bool type_error(gltf *g, const char *jpath, const char *key, const char *expected,
                       const json_t *value) {
    char path[GLTF_PATH_SIZE];
    member_path(path, sizeof path, jpath, key);
    gltf_error_always(g, "%s: expected %s, found %s", path, expected, gltf_json_type_name(value));
    return false;
}

bool gltf_get_object(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                     const json_t **out) {
    bool ok;
    const json_t *value = member(g, obj, jpath, key, required, &ok);
    *out = NULL;
    if (value == NULL)
        return ok;
    if (!json_is_object(value))
        return type_error(g, jpath, key, "an object", value);
    char path[GLTF_PATH_SIZE];
    member_path(path, sizeof path, jpath, key);
    if (!gltf_check_object(g, value, path))
        return false;
    *out = value;
    return true;
}

bool gltf_get_array(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                    const json_t **out) {
    bool ok;
    const json_t *value = member(g, obj, jpath, key, required, &ok);
    *out = NULL;
    if (value == NULL)
        return ok;
    if (!json_is_array(value))
        return type_error(g, jpath, key, "an array", value);
    if (json_array_size(value) == 0) {
        char path[GLTF_PATH_SIZE];
        member_path(path, sizeof path, jpath, key);
        gltf_error_always(g, "%s: the array is empty (glTF requires at least one element)", path);
        return false;
    }
    *out = value;
    return true;
}

bool gltf_get_string(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                     const char **out) {
    bool ok;
    const json_t *value = member(g, obj, jpath, key, required, &ok);
    *out = NULL;
    if (value == NULL)
        return ok;
    if (!json_is_string(value))
        return type_error(g, jpath, key, "a string", value);
    *out = json_string_value(value);
    return true;
}

bool gltf_get_bool(gltf *g, const json_t *obj, const char *jpath, const char *key, bool *out) {
    const json_t *value = json_object_get(obj, key);
    if (value == NULL)
        return true;
    if (!json_is_boolean(value))
        return type_error(g, jpath, key, "a boolean", value);
    *out = json_is_true(value);
    return true;
}

/* An integral JSON number as a double (exact up to 2^53), or false. */
static bool integral_value(const json_t *value, double *out) {
    if (json_is_integer(value)) {
        *out = (double)json_integer_value(value);
        return true;
    }
    if (json_is_real(value)) {
        double v = json_real_value(value);
        if (isfinite(v) && floor(v) == v) {
            *out = v;
            return true;
        }
    }
    return false;
}

bool gltf_get_uint(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                   uint64_t min, uint64_t max, uint64_t *out) {
    bool ok;
    const json_t *value = member(g, obj, jpath, key, required, &ok);
    if (value == NULL)
        return ok;
    double v;
    if (!json_is_number(value))
        return type_error(g, jpath, key, "an integer", value);
    char path[GLTF_PATH_SIZE];
    member_path(path, sizeof path, jpath, key);
    if (!integral_value(value, &v)) {
        gltf_error_always(g, "%s: expected an integer, found %g", path, json_number_value(value));
        return false;
    }
    if (v < (double)min || v > (double)max) {
        gltf_error(g, "%s: value %.0f is out of range [%llu, %llu]", path, v,
                   (unsigned long long)min, (unsigned long long)max);
        return false;
    }
    *out = (uint64_t)v;
    return true;
}

bool gltf_get_number(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                     double min, double max, double *out) {
    bool ok;
    const json_t *value = member(g, obj, jpath, key, required, &ok);
    if (value == NULL)
        return ok;
    if (!json_is_number(value))
        return type_error(g, jpath, key, "a number", value);
    double v = json_number_value(value);
    if (!isfinite(v) || v < min || v > max) {
        char path[GLTF_PATH_SIZE];
        member_path(path, sizeof path, jpath, key);
        gltf_error(g, "%s: value %g is out of range [%g, %g]", path, v, min, max);
        return false;
    }
    *out = v;
    return true;
}

bool gltf_index_value(gltf *g, const json_t *value, const char *jpath, const char *what,
                      size_t count, int64_t *out) {
    double v;
    if (!json_is_number(value) || !integral_value(value, &v)) {
        gltf_error_always(g, "%s: expected an index (of a %s), found %s", jpath, what,
                          gltf_json_type_name(value));
        return false;
    }
    if (v < 0) {
        gltf_error_always(g, "%s: %s index %.0f is negative", jpath, what, v);
        return false;
    }
    if (v >= 9007199254740992.0) { /* 2^53: beyond exact integers (and int64 below) */
        gltf_error_always(g, "%s: %s index %.0f is too large", jpath, what, v);
        return false;
    }
    if (v >= (double)count) {
        if (count == 0)
            gltf_error_always(g, "%s: %s %.0f does not exist (the file defines none)", jpath, what,
                              v);
        else
            gltf_error_always(g, "%s: %s %.0f does not exist (the file defines %zu)", jpath, what,
                              v, count);
        return false;
    }
    *out = (int64_t)v;
    return true;
}

bool gltf_get_index(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                    const char *what, size_t count, int64_t *out) {
    bool ok;
    const json_t *value = member(g, obj, jpath, key, required, &ok);
    *out = -1;
    if (value == NULL)
        return ok;
    char path[GLTF_PATH_SIZE];
    member_path(path, sizeof path, jpath, key);
    return gltf_index_value(g, value, path, what, count, out);
}

bool gltf_get_floats(gltf *g, const json_t *obj, const char *jpath, const char *key, size_t n,
                     double min, double max, float *out) {
    const json_t *value = json_object_get(obj, key);
    if (value == NULL)
        return true;
    char path[GLTF_PATH_SIZE];
    member_path(path, sizeof path, jpath, key);
    if (!json_is_array(value) || json_array_size(value) != n) {
        gltf_error_always(g, "%s: expected an array of %zu numbers, found %s", path, n,
                          json_is_array(value) ? "an array of another length"
                                               : gltf_json_type_name(value));
        return false;
    }
    float values[16];
    for (size_t i = 0; i < n && i < 16; i++) {
        const json_t *item = json_array_get(value, i);
        if (!json_is_number(item)) {
            gltf_error_always(g, "%s[%zu]: expected a number, found %s", path, i,
                              gltf_json_type_name(item));
            return false;
        }
        double v = json_number_value(item);
        if (!isfinite(v) || v < min || v > max) {
            gltf_error(g, "%s[%zu]: value %g is out of range [%g, %g]", path, i, v, min, max);
            return false;
        }
        values[i] = (float)v;
    }
    memcpy(out, values, n * sizeof *out);
    return true;
}

bool gltf_check_object(gltf *g, const json_t *value, const char *jpath) {
    const json_t *name = json_object_get(value, "name");
    if (name != NULL && !json_is_string(name))
        return type_error(g, jpath, "name", "a string", name);
    const json_t *extensions = json_object_get(value, "extensions");
    if (extensions == NULL)
        return true;
    if (!json_is_object(extensions))
        return type_error(g, jpath, "extensions", "an object", extensions);
    const char *key;
    const json_t *ext;
    bool ok = true;
    json_object_foreach((json_t *)extensions, key, ext) {
        if (!json_is_object(ext)) {
            char path[GLTF_PATH_SIZE];
            member_path(path, sizeof path, jpath, "extensions");
            gltf_error_always(g, "%s.%.64s: expected an object, found %s", path, key,
                              gltf_json_type_name(ext));
            ok = false;
        }
    }
    return ok;
}

const json_t *gltf_element(gltf *g, const json_t *array, const char *name, size_t i) {
    const json_t *value = json_array_get(array, i);
    char path[GLTF_PATH_SIZE];
    gltf_pathf(path, "%s[%zu]", name, i);
    if (!json_is_object(value)) {
        gltf_error_always(g, "%s: expected an object, found %s", path, gltf_json_type_name(value));
        return NULL;
    }
    return gltf_check_object(g, value, path) ? value : NULL;
}

const json_t *gltf_extension(const json_t *obj, const char *name) {
    const json_t *extensions = json_object_get(obj, "extensions");
    const json_t *ext = json_is_object(extensions) ? json_object_get(extensions, name) : NULL;
    return json_is_object(ext) ? ext : NULL;
}

static bool named(const char *const *known, const char *name) {
    for (size_t i = 0; known != NULL && known[i] != NULL; i++)
        if (strcmp(known[i], name) == 0)
            return true;
    return false;
}

bool gltf_extras_text(gltf *g, const json_t *obj, const char *const *known, char **out) {
    *out = NULL;
    const json_t *extras = json_object_get(obj, "extras");
    const json_t *extensions = json_object_get(obj, "extensions");
    json_t *kept = json_object();
    json_t *text = json_object();
    bool ok = kept != NULL && text != NULL;
    const char *name;
    json_t *value;
    if (ok && json_is_object(extensions))
        json_object_foreach((json_t *)extensions, name, value) {
            if (!named(known, name))
                ok = ok && json_object_set(kept, name, value) == 0;
        }
    if (ok && extras != NULL)
        ok = json_object_set(text, "extras", (json_t *)extras) == 0;
    if (ok && json_object_size(kept) > 0)
        ok = json_object_set(text, "extensions", kept) == 0;
    if (ok && json_object_size(text) > 0)
        ok = (*out = json_dumps(text, JSON_COMPACT | JSON_SORT_KEYS)) != NULL;
    json_decref(kept);
    json_decref(text);
    return ok || gltf_out_of_memory(g);
}

/* A copy of the glTF name, or "<prefix>_<index>" when it has none. */
char *gltf_name(gltf *g, const json_t *obj, const char *prefix, size_t index) {
    const json_t *name = json_object_get(obj, "name");
    char fallback[64];
    const char *text = json_string_value(name);
    if (text == NULL || text[0] == '\0') {
        snprintf(fallback, sizeof fallback, "%s_%zu", prefix, index);
        text = fallback;
    }
    char *copy = cook_strdup(text);
    if (copy == NULL)
        gltf_out_of_memory(g);
    return copy;
}
