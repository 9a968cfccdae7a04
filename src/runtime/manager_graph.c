/*
 * manager_graph.c — a level's dependencies and the checks that keep the
 * manager's dependency graph acyclic and shallow.
 *
 * A level's scene (a .kscene with an SLNK chunk, kscene.md) holds the scene
 * each node places and every asset its components' refs name (a "hash" key
 * right after a "ref" key). Those edges may go from a scene to a scene, and a
 * component may name any kind, so unlike every other edge (a clip to its
 * scene, a model's scene to its meshes and tables, a mesh to its table, a
 * table to its textures: always to a lower kind) they can close a cycle: a
 * level naming itself, or A -> B -> A in a hand-edited or hostile file, or
 * two levels whose components name each other (the cooker allows that).
 *
 * Only scenes and animations ("nesting" slots) have dependencies that can
 * lead back to a scene or an animation, so only edges between two of them
 * are checked, and only those slots are walked. Before a slot takes a hold
 * on a nesting dependency (publish, or a reload's new data), the walk from
 * the dependency over the holds already made (each slot's current data and,
 * while it reloads, the data being built) must not reach the slot — else
 * the hold would make a cycle that never releases and a load that waits for
 * itself, and the slot fails naming the cycle — and the longest chain of
 * nesting holds through the new edge must stay within MGR_MAX_NESTING, so
 * that every recursion over dependencies (loading, failing, reaching,
 * releasing) is bounded. Each slot's `nest` is at least the length of the
 * longest chain of nesting holds above it (0 for a direct load); it only
 * grows. Everything here runs with the manager's lock held.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"
#include "runtime/manager_load.h"

/* ---------------------------------------------------------------------------
 * Components: {"ref": PATH, "hash": "<16 hex digits>"} pairs
 * ------------------------------------------------------------------------- */

#define JSON_MAX_DEPTH 256

typedef bool (*ref_fn)(void *user, const char *ref, size_t ref_length, kiln_handle hash);

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
                for (size_t h = 0; h < 4; h++)
                    if (k + 2 + h >= n || hex_digit((char)(json[k + 2 + h] | 0x20)) < 0)
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

/* Calls fn for each ref / hash pair of a components object (iteratively: no
 * recursion, whatever the nesting). KILN_OK; KILN_ERR_CORRUPT with *why and
 * *at (byte offset) when it is not a JSON object, nests deeper than
 * JSON_MAX_DEPTH, or a ref's "hash" is not 16 lower-case hex digits;
 * KILN_ERR_OUT_OF_MEMORY when fn fails. */
static kiln_result scan_components(const char *json, size_t n, ref_fn fn, void *user,
                                   const char **why, size_t *at) {
    enum { WANT_VALUE, WANT_KEY_OR_END, WANT_KEY, WANT_COLON, WANT_COMMA_OR_END, WANT_NOTHING };
    char stack[JSON_MAX_DEPTH];
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
            return KILN_ERR_CORRUPT;
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
            return KILN_ERR_CORRUPT;
        }
        if (c == '{' || c == '[') {
            if (is_hash) {
                *why = "a ref's \"hash\" is not a string";
                return KILN_ERR_CORRUPT;
            }
            if (depth == JSON_MAX_DEPTH) {
                *why = "nested deeper than 256";
                return KILN_ERR_CORRUPT;
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
            kiln_handle hash = 0;
            for (size_t k = 0; string && value_length == 16 && k < 16; k++) {
                int d = hex_digit(value[k]);
                if (d < 0) {
                    value_length = 0;
                    break;
                }
                hash = hash << 4 | (kiln_handle)d;
            }
            if (!string || value_length != 16) {
                *why = "a ref's \"hash\" is not 16 lower-case hex digits";
                return KILN_ERR_CORRUPT;
            }
            if (!fn(user, ref, ref_length, hash))
                return KILN_ERR_OUT_OF_MEMORY;
        }
        after_ref = member && string && key_is(key, key_length, "ref");
        if (after_ref) {
            ref = value;
            ref_length = value_length;
        }
        want = WANT_COMMA_OR_END;
    }
    if (want == WANT_NOTHING)
        return KILN_OK;
    *why = i == n ? "it ends inside a value" : "not valid JSON";
    return KILN_ERR_CORRUPT;
}

/* ---------------------------------------------------------------------------
 * A level's dependencies
 * ------------------------------------------------------------------------- */

typedef struct add_state {
    kiln_manager *m;
    mgr_dep_fn add;
    void *list;
} add_state;

static bool add_component(void *user, const char *ref, size_t ref_length, kiln_handle hash) {
    (void)ref;
    (void)ref_length;
    add_state *st = user;
    return st->add(st->m, st->list, hash, KILN_ASSET_INVALID);
}

kiln_result mgr_level_deps(kiln_manager *m, const kiln_asset *a, mgr_dep_fn add, void *list,
                           kiln_error *err) {
    const kiln_scene_view *v = &a->scene;
    if (a->kind != KILN_ASSET_SCENE || v->links == NULL)
        return KILN_OK;
    for (uint32_t i = 0; i < v->node_count; i++)
        if (!add(m, list, kiln_scene_node_link(v, i, NULL), KILN_ASSET_SCENE))
            return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, a->path, "out of memory");
    add_state st = {m, add, list};
    for (uint32_t i = 0; i < v->node_count; i++) {
        size_t length;
        const char *json = kiln_scene_node_components(v, i, &length);
        if (json == NULL)
            continue;
        const char *why;
        size_t at;
        kiln_result r = scan_components(json, length, add_component, &st, &why, &at);
        if (r == KILN_ERR_OUT_OF_MEMORY)
            return runtime_fail(err, r, a->path, "out of memory");
        if (r != KILN_OK)
            return runtime_fail(err, r, a->path, "node %" PRIu32 " '%s': components: %s (byte %zu)",
                                i, kiln_scene_node_name(v, i), why, at);
    }
    return KILN_OK;
}

typedef struct origin_state {
    kiln_handle hash;
    const char *ref;
    size_t ref_length;
} origin_state;

static bool find_component(void *user, const char *ref, size_t ref_length, kiln_handle hash) {
    origin_state *st = user;
    if (hash == st->hash && st->ref == NULL) {
        st->ref = ref;
        st->ref_length = ref_length;
    }
    return true;
}

bool mgr_level_dep_origin(const kiln_asset *a, kiln_handle handle, char *out, size_t size) {
    const kiln_scene_view *v = &a->scene;
    if (a->kind != KILN_ASSET_SCENE || v->links == NULL)
        return false;
    for (uint32_t i = 0; i < v->node_count; i++) {
        const char *ref;
        if (kiln_scene_node_link(v, i, &ref) == handle) {
            snprintf(out, size, "node '%s' places '%s'", kiln_scene_node_name(v, i), ref);
            return true;
        }
    }
    for (uint32_t i = 0; i < v->node_count; i++) {
        size_t length;
        const char *json = kiln_scene_node_components(v, i, &length);
        origin_state st = {handle, NULL, 0};
        const char *why;
        size_t at;
        if (json != NULL &&
            scan_components(json, length, find_component, &st, &why, &at) == KILN_OK &&
            st.ref != NULL) {
            int shown = st.ref_length > 96 ? 96 : (int)st.ref_length;
            snprintf(out, size, "a component of node '%s' refs '%.*s'", kiln_scene_node_name(v, i),
                     shown, st.ref);
            return true;
        }
    }
    return false;
}

/* ---------------------------------------------------------------------------
 * The nesting graph
 * ------------------------------------------------------------------------- */

static bool nesting(const mgr_slot *s) {
    return s->expected_kind == KILN_ASSET_SCENE || s->expected_kind == KILN_ASSET_ANIMATION;
}

/* The holds a slot has made: its current data's and, while it reloads, the
 * new data's. `which` 0 or 1. */
static const mgr_data *held_by(const mgr_slot *s, int which) {
    return which == 0 ? s->data : s->reload_data;
}

/* Marks, in this walk, every nesting slot below `index` with its height
 * (the longest chain of nesting holds below it) and whether it reaches
 * `target`, and through which dependency (graph_next). The graph is acyclic
 * and its chains at most MGR_MAX_NESTING long, so the recursion is bounded;
 * `depth` bounds it even if that were broken. */
static void visit(kiln_manager *m, uint32_t index, uint32_t target, uint32_t depth) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (s->graph_epoch == m->graph_epoch)
        return;
    s->graph_epoch = m->graph_epoch;
    s->graph_height = 0;
    s->graph_next = 0;
    s->graph_reaches = index == target;
    if (s->graph_reaches || depth > MGR_MAX_NESTING + 1)
        return;
    for (int which = 0; which < 2; which++) {
        const mgr_data *d = held_by(s, which);
        for (uint32_t i = 0; d != NULL && i < d->asset.dependency_count; i++) {
            uint32_t dep = d->deps[i].ref.slot;
            mgr_slot *c = mgr_slot_at(m, dep);
            if (!nesting(c))
                continue;
            visit(m, dep, target, depth + 1);
            if (c->graph_height + 1 > s->graph_height)
                s->graph_height = c->graph_height + 1;
            if (c->graph_reaches && !s->graph_reaches) {
                s->graph_reaches = true;
                s->graph_next = dep;
            }
        }
    }
}

static void append(char *out, size_t size, size_t *used, const char *text) {
    if (*used + 1 >= size)
        return;
    int n = snprintf(out + *used, size - *used, "%s", text);
    if (n > 0)
        *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

bool mgr_graph_check(kiln_manager *m, uint32_t from, uint32_t to, kiln_error *err) {
    mgr_slot *s = mgr_slot_at(m, from), *d = mgr_slot_at(m, to);
    if (!nesting(s) || !nesting(d))
        return true;
    const char *name = s->data->asset.ref;
    if (from == to) {
        runtime_fail(err, KILN_ERR_CORRUPT, s->path, "dependency cycle: %s -> %s (it names itself)",
                     name, name);
        return false;
    }
    m->graph_epoch++;
    visit(m, to, from, 0);
    if (d->graph_reaches) {
        char chain[KILN_ERROR_MESSAGE_MAX];
        size_t used = 0;
        chain[0] = '\0';
        append(chain, sizeof chain, &used, name);
        uint32_t at = to;
        for (uint32_t step = 0; at != 0 && at != from && step <= MGR_MAX_NESTING + 1; step++) {
            append(chain, sizeof chain, &used, " -> ");
            append(chain, sizeof chain, &used, mgr_slot_at(m, at)->data->asset.ref);
            at = mgr_slot_at(m, at)->graph_next;
        }
        append(chain, sizeof chain, &used, " -> ");
        append(chain, sizeof chain, &used, name);
        runtime_fail(err, KILN_ERR_CORRUPT, s->path, "dependency cycle: %s", chain);
        return false;
    }
    uint32_t chain = s->nest + 1 + d->graph_height;
    if (chain > MGR_MAX_NESTING) {
        runtime_fail(err, KILN_ERR_CORRUPT, s->path,
                     "holding %s makes a chain of %" PRIu32
                     " nested scenes (levels naming levels), more than %u",
                     d->data->asset.ref, chain, MGR_MAX_NESTING);
        return false;
    }
    return true;
}

static void relax(kiln_manager *m, uint32_t index, uint32_t nest) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (s->nest >= nest || nest > MGR_MAX_NESTING)
        return;
    s->nest = nest;
    for (int which = 0; which < 2; which++) {
        const mgr_data *d = held_by(s, which);
        for (uint32_t i = 0; d != NULL && i < d->asset.dependency_count; i++)
            if (nesting(mgr_slot_at(m, d->deps[i].ref.slot)))
                relax(m, d->deps[i].ref.slot, nest + 1);
    }
}

void mgr_graph_linked(kiln_manager *m, uint32_t from, uint32_t to) {
    mgr_slot *s = mgr_slot_at(m, from), *d = mgr_slot_at(m, to);
    if (nesting(s) && nesting(d) && s->nest < MGR_MAX_NESTING)
        relax(m, to, s->nest + 1);
}
