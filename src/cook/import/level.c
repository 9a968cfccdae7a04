/*
 * level.c — one level file's bytes into a level_doc (level.h), streamed:
 * libyaml's events go into a compact tree one entity at a time
 * (level_tree.h), which becomes the entity's IR and is forgotten, so peak
 * memory is the IR plus one entity's nodes; every message carries the line
 * of the node it is about.
 *
 * Limits: LEVEL_MAX_BYTES of text, the file nested at most
 * LEVEL_MAX_YAML_DEPTH deep (refused, like invalid YAML, by yaml_doc_check's
 * pass before any entity is read, so a bad file reports nothing else), components at most
 * LEVEL_MAX_DEPTH (aliases can nest them deeper than the file is), at most LEVEL_VALUES_PER_BYTE
 * values visited per byte of the file (LEVEL_MIN_VALUES at least; an alias is visited again each
 * time it is used, so a chain of aliases cannot expand without bound) and LEVEL_JSON_PER_BYTE bytes
 * of components' JSON per byte of it (LEVEL_MIN_JSON at least: a long text aliased many times),
 * LEVEL_MAX_ENTITIES entities.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/grow.h"
#include "cook/core/yaml_doc.h"
#include "cook/import/level.h"
#include "cook/import/level_tree.h"

typedef struct level_state {
    level_tree *tree;
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

static uint32_t node_line(const level_node *node) {
    return node->line;
}

/* Child i of a collection (a map's pairs are key, value, key, value, ...). */
static const level_node *kid(const level_state *state, const level_node *node, uint32_t i) {
    return level_tree_kid(state->tree, node, i);
}

static const char *scalar_text_of(const level_state *state, const level_node *node) {
    return level_tree_text(state->tree, node);
}

/* The text of a non-empty scalar, or NULL with an error naming `what`. */
static const char *expect_text(level_state *state, const level_node *node, const char *what) {
    const char *text = scalar_text_of(state, node);
    if (text == NULL || text[0] == '\0' || memchr(text, '\0', node->count) != NULL) {
        diag_error(state->diag, state->path, node_line(node), "%s: expected a non-empty text",
                   what);
        state->failed = true;
        return NULL;
    }
    return text;
}

static bool is_null_scalar(const level_state *state, const level_node *node) {
    if (node->type != LEVEL_NODE_SCALAR || !node->plain)
        return false;
    const char *t = scalar_text_of(state, node);
    return t[0] == '\0' || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 ||
           strcmp(t, "Null") == 0 || strcmp(t, "NULL") == 0;
}

/* A finite number written as a whole plain scalar ("1", "-2.5e3", ".5"). */
static bool scalar_number(const level_state *state, const level_node *node, double *out) {
    if (node->type != LEVEL_NODE_SCALAR || !node->plain)
        return false;
    const char *text = scalar_text_of(state, node);
    if (text[0] == '\0' || strspn(text, "+-.0123456789eE") != node->count)
        return false;
    char *end = NULL;
    double value = strtod(text, &end);
    if (end != text + node->count || !isfinite(value))
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

static void fail(level_state *state, const level_node *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(level_state *state, const level_node *node, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    diag_verror(state->diag, state->path, node_line(node), fmt, args);
    va_end(args);
    state->failed = true;
}

/* ---------------------------------------------------------------------------
 * Components: any YAML value as compact JSON
 * ------------------------------------------------------------------------- */

static void emit_value(level_state *state, const level_node *node, uint32_t depth, bytebuf *out);

static void emit_scalar(level_state *state, const level_node *node, bytebuf *out) {
    const char *text = scalar_text_of(state, node);
    bool plain = node->plain;
    double number;
    if (memchr(text, '\0', node->count) != NULL) {
        fail(state, node, "components: a text holds a NUL byte");
    } else if (is_null_scalar(state, node)) {
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
    } else if (scalar_number(state, node, &number)) {
        if (is_json_number(text))
            bytebuf_append(out, text, node->count);
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
static size_t first_repeated_key(level_state *state, const level_node *node) {
    size_t count = node->count / 2;
    named_pair *named = malloc((count ? count : 1) * sizeof *named);
    if (named == NULL)
        return SIZE_MAX;
    size_t named_count = 0;
    for (size_t i = 0; i < count; i++) {
        const level_node *key = kid(state, node, 2 * (uint32_t)i);
        const char *name = scalar_text_of(state, key);
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
static void emit_mapping(level_state *state, const level_node *node, uint32_t depth, bytebuf *out) {
    if (node->count / 2 > LEVEL_MAX_KEYS) {
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
    for (uint32_t pair = 0; pair < node->count / 2 && !state->failed; pair++) {
        const level_node *key = kid(state, node, 2 * pair);
        const level_node *value = kid(state, node, 2 * pair + 1);
        const char *name = expect_text(state, key, "components: a key");
        if (name == NULL) {
            state->failed = true;
            break;
        }
        if (pair == repeated)
            fail(state, key, "components: key '%s' appears twice in one map", name);
        if (strcmp(name, "hash") == 0) {
            for (uint32_t p = 0; p < node->count / 2; p++) {
                const char *other = scalar_text_of(state, kid(state, node, 2 * p));
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

static void emit_value(level_state *state, const level_node *node, uint32_t depth, bytebuf *out) {
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
    case LEVEL_NODE_SCALAR:
        emit_scalar(state, node, out);
        break;
    case LEVEL_NODE_SEQUENCE:
        bytebuf_append(out, "[", 1);
        for (uint32_t i = 0; i < node->count && !state->failed; i++) {
            if (i > 0)
                bytebuf_append(out, ",", 1);
            emit_value(state, kid(state, node, i), depth + 1, out);
        }
        bytebuf_append(out, "]", 1);
        break;
    default:
        emit_mapping(state, node, depth, out);
        break;
    }
}

/* ---------------------------------------------------------------------------
 * Entities
 * ------------------------------------------------------------------------- */

/* `count` finite numbers in a list: [x, y, z]. */
static bool read_numbers(level_state *state, const level_node *node, const char *what,
                         uint32_t count, float *out) {
    char expected[128];
    snprintf(expected, sizeof expected, "%s: expected a list of %u finite numbers", what,
             (unsigned)count);
    if (node->type != LEVEL_NODE_SEQUENCE || node->count != count) {
        fail(state, node, "%s", expected);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        const level_node *item = kid(state, node, i);
        double value;
        if (!scalar_number(state, item, &value) || !isfinite((float)value)) {
            fail(state, item, "%s", expected);
            return false;
        }
        out[i] = (float)value;
    }
    return true;
}

static bool read_rotation(level_state *state, const level_node *node, float rotation[4]) {
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
static bool read_degrees(level_state *state, const level_node *node, float rotation[4]) {
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

static char *copy_text(level_state *state, const level_node *node, const char *what) {
    const char *text = expect_text(state, node, what);
    if (text == NULL)
        return NULL;
    char *copy = cook_strdup(text);
    if (copy == NULL) {
        fail(state, node, "out of memory");
    }
    return copy;
}

static void read_entity(level_state *state, const level_node *node, level_entity *e) {
    memset(e, 0, sizeof *e);
    e->rotation[3] = 1.0f;
    e->scale[0] = e->scale[1] = e->scale[2] = 1.0f;
    e->line = node_line(node);
    bool rotated = false;
    unsigned seen = 0; /* known keys given, one bit each */
    if (node->type != LEVEL_NODE_MAPPING) {
        fail(state, node, "entities: each entity is a map of keys (name, asset, ...)");
        return;
    }
    for (uint32_t pair = 0; pair < node->count / 2; pair++) {
        const level_node *key = kid(state, node, 2 * pair);
        const level_node *value = kid(state, node, 2 * pair + 1);
        const char *name = scalar_text_of(state, key);
        if (name == NULL) {
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
            if (is_null_scalar(state, value))
                continue;
            if (value->type != LEVEL_NODE_MAPPING) {
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

static void read_includes(level_state *state, const level_node *node, level_doc *out) {
    if (is_null_scalar(state, node))
        return;
    /* include: common.level, or a list of them */
    bool single = node->type == LEVEL_NODE_SCALAR;
    if (!single && node->type != LEVEL_NODE_SEQUENCE) {
        fail(state, node, "include: expected a list of level paths");
        return;
    }
    uint32_t count = single ? 1 : node->count;
    out->includes = calloc(count ? count : 1, sizeof *out->includes);
    if (out->includes == NULL) {
        fail(state, node, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        const level_node *entry = single ? node : kid(state, node, i);
        char *path = copy_text(state, entry, "include");
        if (path != NULL)
            out->includes[out->include_count++] = (level_include){path, node_line(entry)};
    }
}

/* Room for one more entity; false (reported) past LEVEL_MAX_ENTITIES. */
static bool entity_room(level_state *state, uint32_t list_line, level_doc *out, size_t *capacity) {
    if (out->entity_count >= LEVEL_MAX_ENTITIES) {
        diag_error(state->diag, state->path, list_line,
                   "entities: more than %u entities in one file", LEVEL_MAX_ENTITIES);
        state->failed = true;
        return false;
    }
    level_entity *grown =
        array_grow(out->entities, capacity, out->entity_count + 1, sizeof *grown, 64);
    if (grown == NULL) {
        diag_error(state->diag, state->path, list_line, "out of memory");
        state->failed = true;
        return false;
    }
    out->entities = grown;
    return true;
}

/* `entities:` given as a whole node (an alias of a list, or not a list). */
static void read_entities(level_state *state, const level_node *node, level_doc *out) {
    if (is_null_scalar(state, node))
        return;
    if (node->type != LEVEL_NODE_SEQUENCE) {
        fail(state, node, "entities: expected a list of entities");
        return;
    }
    size_t capacity = 0;
    for (uint32_t i = 0; i < node->count; i++) {
        if (!entity_room(state, node_line(node), out, &capacity))
            return;
        read_entity(state, kid(state, node, i), &out->entities[out->entity_count++]);
    }
    if (out->entities == NULL && !entity_room(state, node_line(node), out, &capacity))
        return;
}

/* The streamed path: `entities:` as a list in the file, read entity by
 * entity from the events after its start (`start`), each entity's nodes
 * forgotten once it is in the IR. */
static bool stream_entities(level_state *state, yaml_parser_t *parser, const yaml_event_t *start,
                            level_doc *out) {
    uint32_t list_line = (uint32_t)start->start_mark.line + 1;
    size_t capacity = 0;
    if (!entity_room(state, list_line, out, &capacity)) /* an empty list is a list */
        return false;
    for (;;) {
        yaml_event_t event;
        if (!level_tree_next(parser, &event, state->path, state->diag))
            return false;
        if (event.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&event);
            return true;
        }
        uint32_t node;
        if (!level_tree_read(state->tree, parser, &event, state->path, state->diag, &node))
            return false;
        if (!entity_room(state, list_line, out, &capacity))
            return false;
        read_entity(state, &state->tree->nodes[node], &out->entities[out->entity_count++]);
        level_tree_forget(state->tree);
    }
}

/* merge: true or false, once. */
static void read_merge(level_state *state, const level_node *key, const level_node *value,
                       level_doc *out) {
    if (out->merge_line != 0) {
        fail(state, key, "'merge' appears twice");
        return;
    }
    const char *text = value->type == LEVEL_NODE_SCALAR ? scalar_text_of(state, value) : NULL;
    if (text == NULL || (strcmp(text, "true") != 0 && strcmp(text, "false") != 0)) {
        fail(state, value, "merge: expected true or false");
        return;
    }
    out->merge = strcmp(text, "true") == 0;
    out->merge_line = node_line(key);
}

/* One pair of the root map. */
static void read_pair(level_state *state, const level_node *key, const level_node *value,
                      level_doc *out) {
    const char *name = scalar_text_of(state, key);
    if (name == NULL)
        return;
    bool entities = strcmp(name, "entities") == 0, include = strcmp(name, "include") == 0;
    if (strcmp(name, "merge") == 0)
        read_merge(state, key, value, out);
    else if (include && out->includes == NULL)
        read_includes(state, value, out);
    else if (entities && out->entities == NULL)
        read_entities(state, value, out);
    else if (include || entities)
        fail(state, key, "'%s' appears twice", name);
    else
        diag_warning(state->diag, state->path, node_line(key), "unknown key '%s' (ignored)", name);
}

/* The root map's pairs, in file order. */
static bool read_root(level_state *state, yaml_parser_t *parser, level_doc *out) {
    for (;;) {
        yaml_event_t event;
        uint32_t key_node, value_node;
        if (!level_tree_next(parser, &event, state->path, state->diag))
            return false;
        if (event.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&event);
            return true;
        }
        if (!level_tree_read(state->tree, parser, &event, state->path, state->diag, &key_node) ||
            !level_tree_next(parser, &event, state->path, state->diag))
            return false;
        const char *name = scalar_text_of(state, &state->tree->nodes[key_node]);
        /* A list of entities without an anchor (which later aliases could
         * name) is streamed. */
        if (name != NULL && strcmp(name, "entities") == 0 && out->entities == NULL &&
            event.type == YAML_SEQUENCE_START_EVENT && event.data.sequence_start.anchor == NULL) {
            bool ok = stream_entities(state, parser, &event, out);
            yaml_event_delete(&event);
            if (!ok)
                return false;
            continue;
        }
        if (!level_tree_read(state->tree, parser, &event, state->path, state->diag, &value_node))
            return false;
        /* (the read may have moved the nodes and their text) */
        read_pair(state, &state->tree->nodes[key_node], &state->tree->nodes[value_node], out);
        level_tree_forget(state->tree);
    }
}

/* The first document: nothing, a null, or the root map. */
static bool read_document(level_state *state, yaml_parser_t *parser, level_doc *out) {
    yaml_event_t event;
    if (!level_tree_next(parser, &event, state->path, state->diag))
        return false;
    yaml_event_type_t type = event.type;
    yaml_event_delete(&event);
    if (type != YAML_STREAM_START_EVENT)
        return false;
    if (!level_tree_next(parser, &event, state->path, state->diag))
        return false;
    type = event.type;
    yaml_event_delete(&event);
    if (type != YAML_DOCUMENT_START_EVENT) /* no document */
        return true;
    if (!level_tree_next(parser, &event, state->path, state->diag))
        return false;
    if (event.type == YAML_MAPPING_START_EVENT && event.data.mapping_start.anchor == NULL) {
        yaml_event_delete(&event);
        return read_root(state, parser, out);
    }
    uint32_t root_node;
    if (!level_tree_read(state->tree, parser, &event, state->path, state->diag, &root_node))
        return false;
    const level_node *root = &state->tree->nodes[root_node];
    if (root->type == LEVEL_NODE_MAPPING) /* an anchored root */
        for (uint32_t pair = 0; pair < root->count / 2; pair++)
            read_pair(state, kid(state, root, 2 * pair), kid(state, root, 2 * pair + 1), out);
    else if (!is_null_scalar(state, root))
        fail(state, root, "a level is a map with 'entities' (and 'include')");
    return true;
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
    if (!yaml_doc_check(path, begin, (size_t)(end - begin), LEVEL_MAX_YAML_DEPTH, diag))
        return false;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        diag_error(diag, path, 0, "out of memory");
        return false;
    }
    yaml_parser_set_input_string(&parser, begin, (size_t)(end - begin));
    level_tree tree = {0};
    level_state state = {
        .tree = &tree, .path = path, .diag = diag, .resolve = resolve, .user = user};
    /* size <= LEVEL_MAX_BYTES (64 MiB): neither product overflows. */
    state.max_values = (uint64_t)size * LEVEL_VALUES_PER_BYTE;
    if (state.max_values < LEVEL_MIN_VALUES)
        state.max_values = LEVEL_MIN_VALUES;
    state.max_json = size * LEVEL_JSON_PER_BYTE;
    if (state.max_json < LEVEL_MIN_JSON)
        state.max_json = LEVEL_MIN_JSON;
    if (!read_document(&state, &parser, out))
        state.failed = true;
    out->yaml_peak_bytes = tree.peak_bytes;
    level_tree_free(&tree);
    yaml_parser_delete(&parser);
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
