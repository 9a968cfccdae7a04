/*
 * level.c — one level file's bytes into a level_doc (level.h), through
 * libyaml's document API so that every message carries the line of the node
 * it is about.
 *
 * Limits: LEVEL_MAX_BYTES of text, the file nested at most
 * LEVEL_MAX_YAML_DEPTH deep (refused by yaml_doc_load before the tree is
 * built), components at most LEVEL_MAX_DEPTH (aliases can nest them deeper
 * than the file is), at most LEVEL_VALUES_PER_BYTE values visited per byte of the file
 * (LEVEL_MIN_VALUES at least; an alias is visited again each time it is
 * used, so a chain of aliases cannot expand without bound) and
 * LEVEL_JSON_PER_BYTE bytes of components' JSON per byte of it
 * (LEVEL_MIN_JSON at least: a long text aliased many times), LEVEL_MAX_ENTITIES
 * entities.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cook/core/yaml_doc.h"
#include "cook/import/level.h"

typedef struct level_state {
    yaml_document_t *doc;
    const char *path;
    cook_diag *diag;
    level_ref_fn resolve;
    void *user;
    uint64_t visited;         /* values emitted as JSON */
    uint64_t max_values;      /* the bound on visited, from the file's size */
    size_t json_done;         /* bytes of JSON of the entities finished */
    size_t max_json;          /* the bound on all of it */
    uint32_t components_line; /* of the entity's components: where aliases are used */
    bool failed;
} level_state;

static uint32_t node_line(const yaml_node_t *node) {
    return (uint32_t)node->start_mark.line + 1;
}

static yaml_node_t *node_at(const level_state *state, int index) {
    return yaml_document_get_node(state->doc, index);
}

static const char *scalar_text(const yaml_node_t *node) {
    return node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

/* The text of a non-empty scalar, or NULL with an error naming `what`. */
static const char *expect_text(level_state *state, const yaml_node_t *node, const char *what) {
    const char *text = scalar_text(node);
    if (text == NULL || text[0] == '\0' || memchr(text, '\0', node->data.scalar.length) != NULL) {
        diag_error(state->diag, state->path, node_line(node), "%s: expected a non-empty text",
                   what);
        state->failed = true;
        return NULL;
    }
    return text;
}

static bool is_null_scalar(const yaml_node_t *node) {
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *t = (const char *)node->data.scalar.value;
    return t[0] == '\0' || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 ||
           strcmp(t, "Null") == 0 || strcmp(t, "NULL") == 0;
}

/* A finite number written as a whole plain scalar ("1", "-2.5e3", ".5"). */
static bool scalar_number(const yaml_node_t *node, double *out) {
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *text = (const char *)node->data.scalar.value;
    if (text[0] == '\0' || strspn(text, "+-.0123456789eE") != node->data.scalar.length)
        return false;
    char *end = NULL;
    double value = strtod(text, &end);
    if (end != text + node->data.scalar.length || !isfinite(value))
        return false;
    *out = value;
    return true;
}

/* True when `text` is already a JSON number: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
static bool is_json_number(const char *t) {
    if (*t == '-')
        t++;
    if (*t == '0')
        t++;
    else if (*t >= '1' && *t <= '9')
        while (*t >= '0' && *t <= '9')
            t++;
    else
        return false;
    if (*t == '.') {
        t++;
        if (!(*t >= '0' && *t <= '9'))
            return false;
        while (*t >= '0' && *t <= '9')
            t++;
    }
    if (*t == 'e' || *t == 'E') {
        t++;
        if (*t == '+' || *t == '-')
            t++;
        if (!(*t >= '0' && *t <= '9'))
            return false;
        while (*t >= '0' && *t <= '9')
            t++;
    }
    return *t == '\0';
}

static void fail(level_state *state, const yaml_node_t *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(level_state *state, const yaml_node_t *node, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    diag_verror(state->diag, state->path, node_line(node), fmt, args);
    va_end(args);
    state->failed = true;
}

/* ---------------------------------------------------------------------------
 * Components: any YAML value as compact JSON
 * ------------------------------------------------------------------------- */

static void emit_value(level_state *state, const yaml_node_t *node, uint32_t depth, bytebuf *out);

static void emit_scalar(level_state *state, const yaml_node_t *node, bytebuf *out) {
    const char *text = (const char *)node->data.scalar.value;
    bool plain = node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    double number;
    if (memchr(text, '\0', node->data.scalar.length) != NULL) {
        fail(state, node, "components: a text holds a NUL byte");
    } else if (is_null_scalar(node)) {
        bytebuf_printf(out, "null");
    } else if (plain && (strcmp(text, "true") == 0 || strcmp(text, "True") == 0 ||
                         strcmp(text, "TRUE") == 0)) {
        bytebuf_printf(out, "true");
    } else if (plain && (strcmp(text, "false") == 0 || strcmp(text, "False") == 0 ||
                         strcmp(text, "FALSE") == 0)) {
        bytebuf_printf(out, "false");
    } else if (plain && (strcmp(text, ".inf") == 0 || strcmp(text, "-.inf") == 0 ||
                         strcmp(text, "+.inf") == 0 || strcmp(text, ".nan") == 0 ||
                         strcmp(text, ".Inf") == 0 || strcmp(text, ".NaN") == 0 ||
                         strcmp(text, "-.Inf") == 0)) {
        fail(state, node, "components: '%s' is not a finite number", text);
    } else if (scalar_number(node, &number)) {
        if (is_json_number(text))
            bytebuf_append(out, text, node->data.scalar.length);
        else
            bytebuf_printf(out, "%.17g", number);
    } else {
        bytebuf_append_json_string(out, text);
    }
}

typedef struct named_pair {
    const char *name;
    size_t index;
} named_pair;

static int compare_named_pairs(const void *a, const void *b) {
    const named_pair *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* The index of the first pair (in file order) whose key an earlier pair of
 * the map has too, or the pair count; SIZE_MAX when out of memory. Sorted
 * rather than each key compared with every earlier one: maps of 4096 keys
 * made that 1 µs per byte of the file, a minute for 64 MiB. */
static size_t first_repeated_key(level_state *state, const yaml_node_t *node) {
    size_t count = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
    named_pair *named = malloc((count ? count : 1) * sizeof *named);
    if (named == NULL)
        return SIZE_MAX;
    size_t named_count = 0;
    for (size_t i = 0; i < count; i++) {
        const yaml_node_t *key = node_at(state, node->data.mapping.pairs.start[i].key);
        const char *name = key != NULL ? scalar_text(key) : NULL;
        if (name != NULL)
            named[named_count++] = (named_pair){name, i};
    }
    qsort(named, named_count, sizeof *named, compare_named_pairs);
    size_t first = count;
    for (size_t i = 1; i < named_count; i++)
        if (strcmp(named[i].name, named[i - 1].name) == 0 && named[i].index < first)
            first = named[i].index; /* the second of its run: the first repeat */
    free(named);
    return first;
}

/* A map; one with a `ref` key names an asset: "hash" follows the ref. */
static void emit_mapping(level_state *state, const yaml_node_t *node, uint32_t depth,
                         bytebuf *out) {
    if (node->data.mapping.pairs.top - node->data.mapping.pairs.start > LEVEL_MAX_KEYS) {
        diag_error(state->diag, state->path, node_line(node),
                   "components: a map of more than %u keys", LEVEL_MAX_KEYS);
        state->failed = true;
        return;
    }
    size_t repeated = first_repeated_key(state, node);
    if (repeated == SIZE_MAX) {
        fail(state, node, "out of memory");
        return;
    }
    bytebuf_append(out, "{", 1);
    bool first = true;
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top && !state->failed; pair++) {
        const yaml_node_t *key = node_at(state, pair->key);
        const yaml_node_t *value = node_at(state, pair->value);
        const char *name = key != NULL ? expect_text(state, key, "components: a key") : NULL;
        if (name == NULL || value == NULL) {
            state->failed = true;
            break;
        }
        if ((size_t)(pair - node->data.mapping.pairs.start) == repeated)
            fail(state, key, "components: key '%s' appears twice in one map", name);
        if (strcmp(name, "hash") == 0) {
            for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
                 p < node->data.mapping.pairs.top; p++) {
                const char *other = scalar_text(node_at(state, p->key));
                if (other != NULL && strcmp(other, "ref") == 0)
                    fail(state, key,
                         "components: '%s' beside 'ref' is kiln's (the ref's hash); rename it",
                         name);
            }
        }
        if (state->failed)
            break;
        if (!first)
            bytebuf_append(out, ",", 1);
        first = false;
        bytebuf_append_json_string(out, name);
        bytebuf_append(out, ":", 1);
        if (strcmp(name, "ref") == 0) {
            const char *ref = expect_text(state, value, "ref");
            uint64_t hash = 0;
            if (ref == NULL)
                break;
            if (state->resolve != NULL &&
                !state->resolve(state->user, ref, node_line(value), &hash)) {
                state->failed = true;
                break;
            }
            bytebuf_append_json_string(out, ref);
            bytebuf_printf(out, ",\"hash\":\"%016llx\"", (unsigned long long)hash);
            continue;
        }
        emit_value(state, value, depth + 1, out);
    }
    bytebuf_append(out, "}", 1);
}

static void emit_value(level_state *state, const yaml_node_t *node, uint32_t depth, bytebuf *out) {
    if (state->failed)
        return;
    if (depth > LEVEL_MAX_DEPTH) {
        diag_error(state->diag, state->path, node_line(node),
                   "components: nested deeper than %u levels", LEVEL_MAX_DEPTH);
        state->failed = true;
        return;
    }
    if (++state->visited > state->max_values) {
        diag_error(state->diag, state->path, state->components_line,
                   "components: more than %llu values, %u per byte of the file (aliases count "
                   "each time they are used)",
                   (unsigned long long)state->max_values, LEVEL_VALUES_PER_BYTE);
        state->failed = true;
        return;
    }
    if (state->json_done > state->max_json || out->size > state->max_json - state->json_done) {
        diag_error(state->diag, state->path, state->components_line,
                   "components: more than %zu bytes of JSON, %u per byte of the file (aliases "
                   "count each time they are used)",
                   state->max_json, LEVEL_JSON_PER_BYTE);
        state->failed = true;
        return;
    }
    switch (node->type) {
    case YAML_SCALAR_NODE:
        emit_scalar(state, node, out);
        break;
    case YAML_SEQUENCE_NODE:
        bytebuf_append(out, "[", 1);
        for (yaml_node_item_t *item = node->data.sequence.items.start;
             item < node->data.sequence.items.top && !state->failed; item++) {
            const yaml_node_t *child = node_at(state, *item);
            if (child == NULL) {
                state->failed = true;
                break;
            }
            if (item != node->data.sequence.items.start)
                bytebuf_append(out, ",", 1);
            emit_value(state, child, depth + 1, out);
        }
        bytebuf_append(out, "]", 1);
        break;
    case YAML_MAPPING_NODE:
        emit_mapping(state, node, depth, out);
        break;
    default:
        fail(state, node, "components: an empty value");
        break;
    }
}

/* ---------------------------------------------------------------------------
 * Entities
 * ------------------------------------------------------------------------- */

/* `count` finite numbers in a list: [x, y, z]. */
static bool read_numbers(level_state *state, const yaml_node_t *node, const char *what,
                         uint32_t count, float *out) {
    char expected[128];
    snprintf(expected, sizeof expected, "%s: expected a list of %u finite numbers", what,
             (unsigned)count);
    if (node->type != YAML_SEQUENCE_NODE ||
        node->data.sequence.items.top - node->data.sequence.items.start != (ptrdiff_t)count) {
        fail(state, node, "%s", expected);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        const yaml_node_t *item = node_at(state, node->data.sequence.items.start[i]);
        double value;
        if (item == NULL || !scalar_number(item, &value) || !isfinite((float)value)) {
            fail(state, item != NULL ? item : node, "%s", expected);
            return false;
        }
        out[i] = (float)value;
    }
    return true;
}

static bool read_rotation(level_state *state, const yaml_node_t *node, float rotation[4]) {
    if (!read_numbers(state, node, "rotation", 4, rotation))
        return false;
    double length = sqrt((double)rotation[0] * rotation[0] + (double)rotation[1] * rotation[1] +
                         (double)rotation[2] * rotation[2] + (double)rotation[3] * rotation[3]);
    if (!(length > 1e-6)) {
        fail(state, node, "rotation: a zero quaternion is no rotation");
        return false;
    }
    if (fabs(length - 1.0) > 1e-4) {
        diag_warning(state->diag, state->path, node_line(node),
                     "rotation: quaternion of length %g normalised", length);
    }
    for (int k = 0; k < 4; k++)
        rotation[k] = (float)(rotation[k] / length);
    return true;
}

/* rotation_degrees: [x, y, z]: about X, then Y, then Z (axes of the parent),
 * so q = qz * qy * qx. */
static bool read_degrees(level_state *state, const yaml_node_t *node, float rotation[4]) {
    float degrees[3];
    if (!read_numbers(state, node, "rotation_degrees", 3, degrees))
        return false;
    double half[3], c[3], s[3];
    for (int k = 0; k < 3; k++) {
        half[k] = (double)degrees[k] * (3.14159265358979323846 / 360.0);
        c[k] = cos(half[k]);
        s[k] = sin(half[k]);
    }
    /* qz * qy, then that times qx (Hamilton products written out). */
    double zy[4] = {-s[2] * s[1], c[2] * s[1], s[2] * c[1], c[2] * c[1]}; /* x y z w */
    rotation[0] = (float)(zy[3] * s[0] + zy[0] * c[0]);
    rotation[1] = (float)(zy[1] * c[0] + zy[2] * s[0]);
    rotation[2] = (float)(zy[2] * c[0] - zy[1] * s[0]);
    rotation[3] = (float)(zy[3] * c[0] - zy[0] * s[0]);
    return true;
}

static char *copy_text(level_state *state, const yaml_node_t *node, const char *what) {
    const char *text = expect_text(state, node, what);
    if (text == NULL)
        return NULL;
    char *copy = cook_strdup(text);
    if (copy == NULL) {
        fail(state, node, "out of memory");
    }
    return copy;
}

static void read_entity(level_state *state, const yaml_node_t *node, level_entity *e) {
    memset(e, 0, sizeof *e);
    e->rotation[3] = 1.0f;
    e->scale[0] = e->scale[1] = e->scale[2] = 1.0f;
    e->line = node_line(node);
    bool rotated = false;
    unsigned seen = 0; /* known keys given, one bit each */
    if (node->type != YAML_MAPPING_NODE) {
        fail(state, node, "entities: each entity is a map of keys (name, asset, ...)");
        return;
    }
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        const yaml_node_t *key = node_at(state, pair->key);
        const yaml_node_t *value = node_at(state, pair->value);
        const char *name = key != NULL ? scalar_text(key) : NULL;
        if (name == NULL || value == NULL) {
            if (key != NULL)
                fail(state, key, "entity: a key must be a text");
            continue;
        }
        static const char *const known[] = {"name",        "asset",     "parent",
                                            "translation", "rotation",  "rotation_degrees",
                                            "scale",       "components"};
        for (unsigned k = 0; k < sizeof known / sizeof known[0]; k++) {
            if (strcmp(name, known[k]) != 0)
                continue;
            if (seen & (1u << k))
                fail(state, key, "entity: key '%s' appears twice", name);
            seen |= 1u << k;
        }
        if (strcmp(name, "name") == 0) {
            free(e->name);
            e->name = copy_text(state, value, "name");
            e->line = node_line(value);
        } else if (strcmp(name, "asset") == 0) {
            free(e->asset);
            e->asset = copy_text(state, value, "asset");
            e->asset_line = node_line(value);
        } else if (strcmp(name, "parent") == 0) {
            free(e->parent);
            e->parent = copy_text(state, value, "parent");
            e->parent_line = node_line(value);
        } else if (strcmp(name, "translation") == 0) {
            read_numbers(state, value, "translation", 3, e->translation);
        } else if (strcmp(name, "rotation") == 0 || strcmp(name, "rotation_degrees") == 0) {
            if (rotated)
                fail(state, key, "entity: give one of rotation and rotation_degrees, once");
            else if (name[8] == '\0')
                read_rotation(state, value, e->rotation);
            else
                read_degrees(state, value, e->rotation);
            rotated = true;
        } else if (strcmp(name, "scale") == 0) {
            read_numbers(state, value, "scale", 3, e->scale);
        } else if (strcmp(name, "components") == 0) {
            if (is_null_scalar(value))
                continue;
            if (value->type != YAML_MAPPING_NODE) {
                fail(state, value, "components: expected a map of components");
                continue;
            }
            bytebuf json = {0};
            state->components_line = node_line(value);
            emit_value(state, value, 0, &json);
            state->json_done += json.size;
            bytebuf_append_zeros(&json, 1);
            if (json.failed) {
                fail(state, value, "out of memory");
            } else if (!state->failed) {
                free(e->components);
                e->components = (char *)json.data;
                json = (bytebuf){0};
            }
            bytebuf_free(&json);
        } else {
            diag_warning(state->diag, state->path, node_line(key),
                         "unknown entity key '%s' (ignored)", name);
        }
    }
    if (e->name == NULL && !state->failed)
        fail(state, node, "entity: 'name' is required");
}

static void read_includes(level_state *state, const yaml_node_t *node, level_doc *out) {
    if (is_null_scalar(node))
        return;
    const yaml_node_item_t *start = NULL, *top = NULL;
    int single = 0;
    if (node->type == YAML_SCALAR_NODE) { /* include: common.level */
        single = (int)(node - state->doc->nodes.start) + 1;
        start = &single;
        top = start + 1;
    } else if (node->type == YAML_SEQUENCE_NODE) {
        start = node->data.sequence.items.start;
        top = node->data.sequence.items.top;
    } else {
        fail(state, node, "include: expected a list of level paths");
        return;
    }
    size_t count = (size_t)(top - start);
    out->includes = calloc(count ? count : 1, sizeof *out->includes);
    if (out->includes == NULL) {
        fail(state, node, "out of memory");
        return;
    }
    for (const yaml_node_item_t *item = start; item < top; item++) {
        const yaml_node_t *entry = node_at(state, *item);
        if (entry == NULL)
            continue;
        char *path = copy_text(state, entry, "include");
        if (path != NULL)
            out->includes[out->include_count++] = (level_include){path, node_line(entry)};
    }
}

static void read_entities(level_state *state, const yaml_node_t *node, level_doc *out) {
    if (is_null_scalar(node))
        return;
    if (node->type != YAML_SEQUENCE_NODE) {
        fail(state, node, "entities: expected a list of entities");
        return;
    }
    size_t count = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (count > LEVEL_MAX_ENTITIES) {
        diag_error(state->diag, state->path, node_line(node),
                   "entities: more than %u entities in one file", LEVEL_MAX_ENTITIES);
        state->failed = true;
        return;
    }
    out->entities = calloc(count ? count : 1, sizeof *out->entities);
    if (out->entities == NULL) {
        fail(state, node, "out of memory");
        return;
    }
    for (size_t i = 0; i < count; i++) {
        const yaml_node_t *entry = node_at(state, node->data.sequence.items.start[i]);
        if (entry == NULL)
            continue;
        read_entity(state, entry, &out->entities[out->entity_count++]);
    }
}

bool level_parse(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag,
                 level_ref_fn resolve, void *user, level_doc *out) {
    memset(out, 0, sizeof *out);
    if (size > LEVEL_MAX_BYTES) {
        diag_error(diag, path, 0, "a level file is at most %zu bytes; this one is %zu",
                   LEVEL_MAX_BYTES, size);
        return false;
    }
    const unsigned char *begin = bytes, *end = bytes + size;
    if (size > 0)
        cook_text_trim(&begin, &end);
    yaml_document_t doc;
    if (!yaml_doc_load(path, begin, (size_t)(end - begin), LEVEL_MAX_YAML_DEPTH, &doc, diag))
        return false;
    level_state state = {.doc = &doc, .path = path, .diag = diag, .resolve = resolve, .user = user};
    /* size <= LEVEL_MAX_BYTES (64 MiB): neither product overflows. */
    state.max_values = (uint64_t)size * LEVEL_VALUES_PER_BYTE;
    if (state.max_values < LEVEL_MIN_VALUES)
        state.max_values = LEVEL_MIN_VALUES;
    state.max_json = size * LEVEL_JSON_PER_BYTE;
    if (state.max_json < LEVEL_MIN_JSON)
        state.max_json = LEVEL_MIN_JSON;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root != NULL && !is_null_scalar(root)) {
        if (root->type != YAML_MAPPING_NODE) {
            fail(&state, root, "a level is a map with 'entities' (and 'include')");
        } else {
            for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
                 pair < root->data.mapping.pairs.top; pair++) {
                const yaml_node_t *key = node_at(&state, pair->key);
                const yaml_node_t *value = node_at(&state, pair->value);
                const char *name = key != NULL ? scalar_text(key) : NULL;
                if (name == NULL || value == NULL)
                    continue;
                if (strcmp(name, "include") == 0 && out->includes == NULL)
                    read_includes(&state, value, out);
                else if (strcmp(name, "entities") == 0 && out->entities == NULL)
                    read_entities(&state, value, out);
                else if (strcmp(name, "include") == 0 || strcmp(name, "entities") == 0)
                    fail(&state, key, "'%s' appears twice", name);
                else
                    diag_warning(diag, path, node_line(key), "unknown key '%s' (ignored)", name);
            }
        }
    }
    yaml_document_delete(&doc);
    return !state.failed;
}

void level_doc_free(level_doc *doc) {
    for (uint32_t i = 0; i < doc->include_count; i++)
        free(doc->includes[i].path);
    for (uint32_t i = 0; i < doc->entity_count; i++) {
        level_entity *e = &doc->entities[i];
        free(e->name);
        free(e->asset);
        free(e->parent);
        free(e->components);
    }
    free(doc->includes);
    free(doc->entities);
    memset(doc, 0, sizeof *doc);
}
