/*
 * manager_slots.c — the asset manager's tables under its lock: slots and
 * their tags, the map from file to slot, reach (which scopes reach a slot,
 * and their bytes), releasing holds and data, the load queue (a priority
 * heap) and the finish list, and looking up scopes and mounts. Everything
 * above it in manager_parts.h builds on these.
 *
 * A slot is one loaded cooked file. Its refs count the holds on it (a scope's
 * direct hold, a parent asset's dependency); its reach list says which scopes
 * reach it and by how many paths, so every scope's bytes count each asset it
 * reaches once. A slot whose last hold goes is freed at once, unless a loader
 * has it pinned, and then when the loader unpins it. Freeing bumps the
 * slot's generation, which is what makes old refs stale.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"
#include "runtime/manager_parts.h"

/* ---------------------------------------------------------------------------
 * Slots and tags
 * ------------------------------------------------------------------------- */

mgr_slot *mgr_slot_at(const kiln_manager *m, uint32_t index) {
    if (index == 0 || index >= m->slot_capacity)
        return NULL;
    mgr_slot *page = atomic_load_explicit(&m->pages[index >> MGR_PAGE_SHIFT], memory_order_acquire);
    return page != NULL ? &page[index & (MGR_PAGE_SLOTS - 1)] : NULL;
}

uint32_t mgr_slot_state(const mgr_slot *s) {
    return (uint32_t)(atomic_load_explicit(&s->tag, memory_order_relaxed) & 0xffu);
}

void mgr_set_state(mgr_slot *s, uint32_t state) {
    atomic_store_explicit(&s->tag, ((uint64_t)s->generation << 8) | state, memory_order_release);
}

/* A free slot (lock held): from the free list, else the next unused one,
 * allocating its page. Returns 0 when the table is full or out of memory. */
static uint32_t slot_take(kiln_manager *m) {
    uint32_t index = m->free_slots;
    if (index != 0) {
        m->free_slots = mgr_slot_at(m, index)->next_free;
    } else {
        if (m->slots_used >= m->slot_capacity)
            return 0;
        index = m->slots_used;
        uint32_t page = index >> MGR_PAGE_SHIFT;
        if (atomic_load_explicit(&m->pages[page], memory_order_relaxed) == NULL) {
            mgr_slot *fresh = mgr_calloc(m, MGR_PAGE_SLOTS, sizeof(mgr_slot));
            if (fresh == NULL)
                return 0;
            for (uint32_t i = 0; i < MGR_PAGE_SLOTS; i++)
                atomic_init(&fresh[i].tag, 0);
            atomic_store_explicit(&m->pages[page], fresh, memory_order_release);
        }
        m->slots_used++;
    }
    m->live_slots++;
    return index;
}

/* ---------------------------------------------------------------------------
 * The handle map: file key -> slot
 * ------------------------------------------------------------------------- */

static uint64_t file_key(uint32_t mount, const char *path) {
    return kiln_ref_hash(path) ^ ((uint64_t)(mount + 1) * 0x9e3779b97f4a7c15ull);
}

uint32_t mgr_map_find(kiln_manager *m, uint32_t mount, const char *path) {
    uint64_t key = file_key(mount, path);
    for (uint32_t i = (uint32_t)key & m->map_mask;; i = (i + 1) & m->map_mask) {
        uint32_t index = m->map[i];
        if (index == 0)
            return 0;
        mgr_slot *s = mgr_slot_at(m, index);
        if (s->key == key && s->mount == mount && strcmp(s->path, path) == 0)
            return index;
    }
}

static void map_insert(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    uint32_t i = (uint32_t)s->key & m->map_mask;
    while (m->map[i] != 0)
        i = (i + 1) & m->map_mask;
    m->map[i] = index;
}

/* Linear probing's backward-shift deletion: no tombstones. A slot no longer
 * in the map is left alone. */
void mgr_map_remove(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    uint32_t i = (uint32_t)s->key & m->map_mask;
    while (m->map[i] != index) {
        if (m->map[i] == 0)
            return;
        i = (i + 1) & m->map_mask;
    }
    uint32_t hole = i;
    for (uint32_t j = (hole + 1) & m->map_mask; m->map[j] != 0; j = (j + 1) & m->map_mask) {
        uint32_t home = (uint32_t)mgr_slot_at(m, m->map[j])->key & m->map_mask;
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            m->map[hole] = m->map[j];
            hole = j;
        }
    }
    m->map[hole] = 0;
}

/* A new slot for (mount, path) (lock held), state QUEUED, not in the heap;
 * 0 when the table is full. `entry` is the manifest entry that named it. */
uint32_t mgr_slot_create(kiln_manager *m, uint32_t mount, const kiln_manifest_entry *entry,
                         kiln_handle handle) {
    uint32_t index = slot_take(m);
    if (index == 0)
        return 0;
    mgr_slot *s = mgr_slot_at(m, index);
    const mgr_mount *mt = m->mounts[mount];
    uint32_t generation = s->generation + 1;
    if (generation == 0 || generation > 0xffffffu)
        generation = 1;
    s->data = &s->own;
    memset(&s->own, 0, sizeof s->own);
    atomic_store_explicit(&s->shown, NULL, memory_order_relaxed);
    s->generation = generation;
    s->refs = 0;
    s->pins = 0;
    s->mount = mount;
    s->expected_kind = (kiln_asset_kind)entry->kind;
    s->path = kiln_manifest_path(&mt->man->view, entry);
    s->key = file_key(mount, s->path);
    s->pending = 0;
    s->priority = 0;
    s->heap_index = UINT32_MAX;
    s->in_finish = false;
    s->dependent_count = 0;
    s->reach_count = 0;
    s->reloading = false;
    s->reload_failed = false;
    s->reloads = 0;
    s->checked = false;
    s->reload_data = NULL;
    s->nest = 0;
    s->graph_epoch = 0;
    memset(&s->reload_error, 0, sizeof s->reload_error);
    memset(&s->error, 0, sizeof s->error);
    s->own.manifest = mt->man;
    mt->man->users++;
    s->data->asset.handle = handle;
    s->data->asset.kind = (kiln_asset_kind)entry->kind;
    s->data->asset.ref = kiln_manifest_ref(&mt->man->view, entry);
    s->data->asset.path = s->path;
    s->data->asset.mount = mount;
    map_insert(m, index);
    mgr_set_state(s, SLOT_QUEUED);
    return index;
}

/* ---------------------------------------------------------------------------
 * Reach: which scopes reach a slot, and their bytes
 * ------------------------------------------------------------------------- */

static mgr_reach *reach_find(mgr_slot *s, uint32_t scope) {
    for (uint32_t i = 0; i < s->reach_count; i++)
        if (s->reach[i].scope == scope)
            return &s->reach[i];
    return NULL;
}

/* One more path from scope index `scope` to slot `index`; a first path
 * charges the scope and reaches the slot's dependencies. */
bool mgr_reach_add(kiln_manager *m, uint32_t index, uint32_t scope, bool direct) {
    mgr_slot *s = mgr_slot_at(m, index);
    mgr_reach *r = reach_find(s, scope);
    if (r != NULL) {
        r->count++;
        r->direct = r->direct || direct;
        return true;
    }
    if (!mgr_grow(m, (void **)&s->reach, &s->reach_capacity, s->reach_count + 1, sizeof *s->reach))
        return false;
    s->reach[s->reach_count++] = (mgr_reach){.scope = scope, .count = 1, .direct = direct};
    mgr_scope *sc = &m->scopes[scope];
    sc->bytes += s->data->asset.bytes;
    sc->assets++;
    for (uint32_t d = 0; d < s->data->asset.dependency_count; d++)
        if (!mgr_reach_add(m, s->data->asset.dependencies[d].ref.slot, scope, false))
            return false;
    return true;
}

void mgr_reach_remove(kiln_manager *m, uint32_t index, uint32_t scope, bool direct) {
    mgr_slot *s = mgr_slot_at(m, index);
    mgr_reach *r = reach_find(s, scope);
    if (r == NULL)
        return;
    if (direct)
        r->direct = false;
    if (--r->count > 0)
        return;
    mgr_scope *sc = &m->scopes[scope];
    sc->bytes -= s->data->asset.bytes;
    sc->assets--;
    *r = s->reach[--s->reach_count];
    for (uint32_t d = 0; d < s->data->asset.dependency_count; d++)
        mgr_reach_remove(m, s->data->asset.dependencies[d].ref.slot, scope, false);
}

/* A slot's bytes changed: every scope reaching it follows. */
void mgr_set_bytes(kiln_manager *m, mgr_slot *s, uint64_t bytes) {
    for (uint32_t i = 0; i < s->reach_count; i++) {
        mgr_scope *sc = &m->scopes[s->reach[i].scope];
        sc->bytes = sc->bytes - s->data->asset.bytes + bytes;
    }
    s->data->asset.bytes = bytes;
}

/* ---------------------------------------------------------------------------
 * Releasing
 * ------------------------------------------------------------------------- */

void mgr_manifest_free(kiln_manager *m, mgr_manifest *man) {
    kiln_file_close(&man->file);
    kiln_pack_close(&man->pack); /* a pack mount's: its data went with the manifest's users */
    mgr_free(m, man, sizeof *man);
}

/* Frees one version of a slot's data (lock held): the engine's objects
 * (destroy callbacks), texels, file bytes, its holds on its dependencies and
 * on its manifest; the mgr_data itself when a reload allocated it, else
 * zeroes it. */
void mgr_data_release(kiln_manager *m, mgr_data *d) {
    const kiln_engine_callbacks *e = &m->engine;
    for (int b = 0; b < 2; b++)
        if (d->asset.engine_buffers[b] != NULL && e->destroy_buffer != NULL)
            e->destroy_buffer(e->user, &d->asset, d->asset.engine_buffers[b]);
    if (d->asset.engine_texture != NULL && e->destroy_texture != NULL)
        e->destroy_texture(e->user, &d->asset, d->asset.engine_texture);
    mgr_data_release_staging(m, d);
    mgr_file_memory_free(m, d);
    uint32_t deps = d->asset.dependency_count;
    d->asset.dependency_count = 0;
    for (uint32_t i = 0; i < deps; i++)
        mgr_release(m, d->deps[i].ref.slot);
    mgr_free(m, d->deps, (size_t)d->dep_capacity * sizeof *d->deps);
    if (d->manifest != NULL && --d->manifest->users == 0 && d->manifest->replaced)
        mgr_manifest_free(m, d->manifest);
    if (d->allocated)
        mgr_free(m, d, sizeof *d);
    else
        memset(d, 0, sizeof *d);
}

/* Frees what a slot holds (lock held): engine objects, memory, its holds on
 * dependencies; bumps its generation. */
static void slot_free(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    /* Stale first: no reader gets the asset once its memory starts to go. */
    s->generation = s->generation + 1 > 0xffffffu ? 1 : s->generation + 1;
    atomic_store_explicit(&s->tag, (uint64_t)s->generation << 8 | SLOT_FREE, memory_order_release);
    if (s->heap_index != UINT32_MAX)
        mgr_heap_remove(m, index);
    if (s->in_finish)
        mgr_finish_remove(m, index);
    mgr_map_remove(m, index);
    /* A slot freed while it waited for a dependency leaves that
     * dependency's list of waiters: else the index, once reused, would be
     * told of (or failed by) a dependency the new asset never had. */
    for (uint32_t d = 0; d < s->data->asset.dependency_count; d++) {
        mgr_slot *dep = mgr_slot_at(m, s->data->deps[d].ref.slot);
        for (uint32_t k = dep->dependent_count; k-- > 0;)
            if (dep->dependents[k] == index)
                dep->dependents[k] = dep->dependents[--dep->dependent_count];
    }
    /* This slot reaches nothing any more (refs == 0 means no scope reaches
     * it), so only the dependencies' holds go with its data. */
    atomic_store_explicit(&s->shown, NULL, memory_order_relaxed);
    mgr_data_release(m, s->data);
    s->data = &s->own;
    mgr_free(m, s->dependents, (size_t)s->dependent_capacity * sizeof *s->dependents);
    s->dependents = NULL;
    s->dependent_capacity = s->dependent_count = 0;
    mgr_free(m, s->reach, (size_t)s->reach_capacity * sizeof *s->reach);
    s->reach = NULL;
    s->reach_capacity = s->reach_count = 0;
    s->next_free = m->free_slots;
    m->free_slots = index;
    m->live_slots--;
}

/* One hold less (lock held); the last one frees the slot unless pinned. */
void mgr_release(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (s == NULL || s->refs == 0)
        return;
    if (--s->refs == 0 && s->pins == 0)
        slot_free(m, index);
}

void mgr_unpin(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (--s->pins == 0 && s->refs == 0)
        slot_free(m, index);
}

/* ---------------------------------------------------------------------------
 * Looking up scopes and mounts
 * ------------------------------------------------------------------------- */

mgr_scope *mgr_scope_find(kiln_manager *m, kiln_scope scope) {
    uint32_t index = scope & 0xffffu;
    if (scope == 0 || index >= m->scope_capacity)
        return NULL;
    mgr_scope *sc = &m->scopes[index];
    return atomic_load_explicit(&sc->id, memory_order_relaxed) == scope ? sc : NULL;
}

bool mgr_resolve(kiln_manager *m, kiln_handle handle, uint32_t *mount,
                 const kiln_manifest_entry **entry) {
    for (uint32_t i = m->mount_count; i-- > 0;) {
        const kiln_manifest_entry *e = kiln_manifest_find(&m->mounts[i]->man->view, handle);
        if (e != NULL) {
            *mount = i;
            *entry = e;
            return true;
        }
    }
    return false;
}

const mgr_mount *mgr_mount_at(const kiln_manager *m, uint32_t index) {
    return m->mounts[index];
}

/* ---------------------------------------------------------------------------
 * The queue: a max-heap by priority, first come first served within one
 * ------------------------------------------------------------------------- */

static bool heap_above(kiln_manager *m, uint32_t a, uint32_t b) {
    const mgr_slot *x = mgr_slot_at(m, a), *y = mgr_slot_at(m, b);
    return x->priority != y->priority ? x->priority > y->priority : x->sequence < y->sequence;
}

static void heap_set(kiln_manager *m, uint32_t at, uint32_t index) {
    m->heap[at] = index;
    mgr_slot_at(m, index)->heap_index = at;
}

static void heap_fix(kiln_manager *m, uint32_t at) {
    uint32_t index = m->heap[at];
    while (at > 0 && heap_above(m, index, m->heap[(at - 1) / 2])) {
        heap_set(m, at, m->heap[(at - 1) / 2]);
        at = (at - 1) / 2;
    }
    for (;;) {
        uint32_t child = 2 * at + 1;
        if (child >= m->heap_count)
            break;
        if (child + 1 < m->heap_count && heap_above(m, m->heap[child + 1], m->heap[child]))
            child++;
        if (!heap_above(m, m->heap[child], index))
            break;
        heap_set(m, at, m->heap[child]);
        at = child;
    }
    heap_set(m, at, index);
}

void mgr_heap_push(kiln_manager *m, uint32_t index, int32_t priority) {
    mgr_slot *s = mgr_slot_at(m, index);
    s->priority = priority;
    s->sequence = m->sequence++;
    m->heap[m->heap_count] = index;
    s->heap_index = m->heap_count++;
    heap_fix(m, s->heap_index);
}

/* The loaders have nothing left to do (lock held): nothing queued, nothing
 * being read. kiln_manager_wait returns then. */
bool mgr_loaders_idle(const kiln_manager *m) {
    return m->heap_count == 0 && m->loading == 0;
}

/* Wakes the threads in kiln_manager_wait once the loaders are idle (lock
 * held); no system call when nobody waits. */
void mgr_note_idle(kiln_manager *m) {
    if (m->idle_waiters > 0 && mgr_loaders_idle(m))
        pthread_cond_broadcast(&m->idle);
}

void mgr_heap_remove(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    uint32_t at = s->heap_index;
    s->heap_index = UINT32_MAX;
    uint32_t last = m->heap[--m->heap_count];
    if (at < m->heap_count) {
        m->heap[at] = last;
        mgr_slot_at(m, last)->heap_index = at;
        heap_fix(m, at);
    }
    mgr_note_idle(m); /* a cancelled load may have been the last one queued */
}

void mgr_heap_raise(kiln_manager *m, uint32_t index, int32_t priority) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (s->heap_index != UINT32_MAX && priority > s->priority) {
        s->priority = priority;
        heap_fix(m, s->heap_index);
    }
}

/* ---------------------------------------------------------------------------
 * The finish list: loaded slots whose dependencies are all ready
 * ------------------------------------------------------------------------- */

void mgr_finish_push(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (!s->in_finish) {
        s->in_finish = true;
        m->finish[m->finish_count++] = index;
    }
}

void mgr_finish_remove(kiln_manager *m, uint32_t index) {
    for (uint32_t i = 0; i < m->finish_count; i++) {
        if (m->finish[i] == index) {
            m->finish[i] = m->finish[--m->finish_count];
            break;
        }
    }
    mgr_slot_at(m, index)->in_finish = false;
}

/* ---------------------------------------------------------------------------
 * Staging: a texture's inflated levels, the engine's memory or ours
 * ------------------------------------------------------------------------- */

void mgr_data_release_staging(kiln_manager *m, mgr_data *d) {
    if (d->staging == NULL)
        return;
    if (d->staging_engine) {
        if (m->engine.release_staging != NULL)
            m->engine.release_staging(m->engine.user, d->staging, d->staging_size);
    } else {
        mgr_free(m, d->staging, d->staging_size);
    }
    d->staging = NULL;
    d->staging_size = 0;
    d->staging_engine = false;
    d->asset.texels = NULL;
    d->asset.texel_bytes = 0;
}
