/*
 * manager_graph.c — a level's dependencies and the checks that keep the
 * manager's dependency graph acyclic and shallow.
 *
 * A level's scene (a .kscene with an SLNK chunk, kscene.md) holds the scene
 * each node places and every asset its components' refs name (a "hash" key
 * right after a "ref" key, common/components.c). Those edges may go from a
 * scene to a scene, and a component may name any kind, so unlike every
 * other edge (a clip to its scene, a model's scene to its meshes and
 * tables, a mesh to its table, a table to its textures: always to a lower
 * kind) they can close a cycle: a level naming itself, or A -> B -> A in a
 * hand-edited or hostile file, or two levels whose components name each
 * other (the cooker allows that; kiln check reports it).
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
 * longest chain of nesting holds above it (0 for a direct load). A hold
 * raises it (mgr_graph_linked); one let go (its holder released, or
 * reloaded into data that names fewer scenes) leaves it as it was, which
 * keeps every use of `nest` sound (a holder's is always below its
 * dependencies', the order a refresh reloads in) but may overstate the
 * chain above a slot. So before refusing a hold for its length, the check
 * computes every nesting slot's `nest` again from the holds there are now
 * (renest): a chain a release or a reload shortened is not refused.
 * Everything here runs with the manager's lock held.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/components.h"
#include "runtime/internal.h"
#include "runtime/manager_parts.h"

/* ---------------------------------------------------------------------------
 * A level's dependencies
 * ------------------------------------------------------------------------- */

typedef struct add_state {
    kiln_manager *m;
    mgr_dep_fn add;
    void *list;
} add_state;

static bool add_component(void *user, const char *ref, size_t ref_length, uint64_t hash) {
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
        int r = components_scan(json, length, add_component, &st, &why, &at);
        if (r == COMPONENTS_STOPPED)
            return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, a->path, "out of memory");
        if (r != COMPONENTS_OK)
            return runtime_fail(err, KILN_ERR_CORRUPT, a->path,
                                "node %" PRIu32 " '%s': components: %s (byte %zu)", i,
                                kiln_scene_node_name(v, i), why, at);
    }
    return KILN_OK;
}

typedef struct origin_state {
    kiln_handle hash;
    const char *ref;
    size_t ref_length;
} origin_state;

static bool find_component(void *user, const char *ref, size_t ref_length, uint64_t hash) {
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
            components_scan(json, length, find_component, &st, &why, &at) == COMPONENTS_OK &&
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

static void relax(kiln_manager *m, uint32_t index, uint32_t nest);

/* Every nesting slot's `nest` from scratch: the longest chain of nesting
 * holds above it, over the holds made now (current data, and the data of a
 * reload under way). Relaxing from every holder converges on the longest
 * chains because the graph is acyclic; each slot's value only rises, at most
 * to MGR_MAX_NESTING, so the work is bounded by that many passes over the
 * holds. */
static void renest(kiln_manager *m) {
    for (uint32_t i = 1; i < m->slots_used; i++) {
        mgr_slot *s = mgr_slot_at(m, i);
        if (mgr_slot_state(s) != SLOT_FREE && nesting(s))
            s->nest = 0;
    }
    for (uint32_t i = 1; i < m->slots_used; i++) {
        mgr_slot *s = mgr_slot_at(m, i);
        if (mgr_slot_state(s) == SLOT_FREE || !nesting(s))
            continue;
        for (int which = 0; which < 2; which++) {
            const mgr_data *d = held_by(s, which);
            for (uint32_t k = 0; d != NULL && k < d->asset.dependency_count; k++) {
                uint32_t dep = d->deps[k].ref.slot;
                if (nesting(mgr_slot_at(m, dep)))
                    relax(m, dep, s->nest + 1);
            }
        }
    }
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
        renest(m); /* `nest` may be left from holds since let go */
        chain = s->nest + 1 + d->graph_height;
    }
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
