/*
 * manager.c — the asset manager: slots, scopes, mounts, the handle map,
 * statistics and the lock-free kiln_asset_get (kiln/manager.h). Loading,
 * the queue and the workers are in manager_load.c.
 *
 * A slot is one loaded cooked file. Its refs count the holds on it (a scope's
 * direct hold, a parent asset's dependency); its reach list says which scopes
 * reach it and by how many paths, so every scope's bytes count each asset it
 * reaches once. A slot whose last hold goes is freed at once, unless a loader
 * has it pinned, and then when the loader unpins it. Freeing bumps the
 * slot's generation, which is what makes old refs stale.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/internal.h"
#include "runtime/manager_dev.h"
#include "runtime/manager_internal.h"
#include "runtime/manager_load.h"

/* ---------------------------------------------------------------------------
 * Allocation
 * ------------------------------------------------------------------------- */

static void *default_alloc(void *user, size_t size, size_t alignment) {
    (void)user;
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    return aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

static void default_free(void *user, void *memory, size_t size) {
    (void)user;
    (void)size;
    free(memory);
}

void *mgr_alloc(kiln_manager *m, size_t size, size_t alignment) {
    return m->allocator.alloc(m->allocator.user, size, alignment);
}

void *mgr_calloc(kiln_manager *m, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    void *p = mgr_alloc(m, count * size, 16);
    if (p != NULL)
        memset(p, 0, count * size);
    return p;
}

void mgr_free(kiln_manager *m, void *memory, size_t size) {
    if (memory != NULL)
        m->allocator.free(m->allocator.user, memory, size);
}

/* Grows an array of `elem`-byte items to hold at least `need`. */
bool mgr_grow(kiln_manager *m, void **array, uint32_t *capacity, uint32_t need, size_t elem) {
    if (need <= *capacity)
        return true;
    uint32_t cap = *capacity < 4 ? 4 : *capacity;
    while (cap < need)
        cap = cap > UINT32_MAX / 2 ? need : cap * 2;
    void *fresh = mgr_calloc(m, cap, elem);
    if (fresh == NULL)
        return false;
    if (*array != NULL) {
        memcpy(fresh, *array, (size_t)*capacity * elem);
        mgr_free(m, *array, (size_t)*capacity * elem);
    }
    *array = fresh;
    *capacity = cap;
    return true;
}

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

static void manifest_free(kiln_manager *m, mgr_manifest *man) {
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
        manifest_free(m, d->manifest);
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
 * Scopes
 * ------------------------------------------------------------------------- */

mgr_scope *mgr_scope_find(kiln_manager *m, kiln_scope scope) {
    uint32_t index = scope & 0xffffu;
    if (scope == 0 || index >= m->scope_capacity)
        return NULL;
    mgr_scope *sc = &m->scopes[index];
    return atomic_load_explicit(&sc->id, memory_order_relaxed) == scope ? sc : NULL;
}

static void scope_start(mgr_scope *sc, uint32_t index, const char *name, uint64_t budget) {
    sc->generation = sc->generation + 1 > 0xffffu ? 1 : sc->generation + 1;
    snprintf(sc->name, sizeof sc->name, "%s", name != NULL ? name : "level");
    sc->budget = budget;
    sc->bytes = 0;
    sc->assets = 0;
    sc->hold_count = 0;
    atomic_store_explicit(&sc->id, sc->generation << 16 | index, memory_order_release);
}

/* Releases every hold of a scope (lock held) and drops its requests. */
static void scope_empty(kiln_manager *m, mgr_scope *sc, uint32_t index, kiln_scope id) {
    for (uint32_t r = 0; r < m->request_count;) {
        if (m->requests[r].scope == id)
            m->requests[r] = m->requests[--m->request_count];
        else
            r++;
    }
    uint32_t count = sc->hold_count;
    sc->hold_count = 0;
    for (uint32_t h = 0; h < count; h++) {
        mgr_reach_remove(m, sc->holds[h], index, true);
        mgr_release(m, sc->holds[h]);
    }
}

static kiln_result scope_gone(kiln_error *err, kiln_scope scope, const char *what) {
    return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                        "%s scope 0x%08" PRIx32 ": not alive (already destroyed, or never created)",
                        what, scope);
}

kiln_result kiln_scope_create(kiln_manager *m, const char *name, uint64_t budget, kiln_scope *scope,
                              kiln_error *err) {
    if (scope != NULL)
        *scope = 0;
    if (m == NULL || scope == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_scope_create needs a manager and a scope");
    pthread_mutex_lock(&m->lock);
    for (uint32_t i = 2; i < m->scope_capacity; i++) {
        mgr_scope *sc = &m->scopes[i];
        if (atomic_load_explicit(&sc->id, memory_order_relaxed) == 0) {
            scope_start(sc, i, name, budget);
            *scope = atomic_load_explicit(&sc->id, memory_order_relaxed);
            pthread_mutex_unlock(&m->lock);
            return runtime_succeed(err);
        }
    }
    pthread_mutex_unlock(&m->lock);
    return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager",
                        "scope '%s': all %" PRIu32 " scopes are in use", name ? name : "",
                        m->scope_capacity);
}

kiln_result kiln_scope_destroy(kiln_manager *m, kiln_scope scope, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "no manager");
    if (scope == KILN_SCOPE_PERMANENT || scope == KILN_SCOPE_TRANSIENT)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "the %s scope cannot be destroyed",
                            scope == KILN_SCOPE_PERMANENT ? "permanent" : "transient");
    pthread_mutex_lock(&m->lock);
    mgr_scope *sc = mgr_scope_find(m, scope);
    if (sc == NULL) {
        pthread_mutex_unlock(&m->lock);
        return scope_gone(err, scope, "destroying");
    }
    atomic_store_explicit(&sc->id, 0, memory_order_release); /* its refs are stale now */
    scope_empty(m, sc, scope & 0xffffu, scope);
    pthread_mutex_unlock(&m->lock);
    return runtime_succeed(err);
}

kiln_result kiln_scope_clear(kiln_manager *m, kiln_scope scope, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "no manager");
    pthread_mutex_lock(&m->lock);
    mgr_scope *sc = mgr_scope_find(m, scope);
    if (sc == NULL) {
        pthread_mutex_unlock(&m->lock);
        return scope_gone(err, scope, "clearing");
    }
    scope_empty(m, sc, scope & 0xffffu, scope);
    pthread_mutex_unlock(&m->lock);
    return runtime_succeed(err);
}

/* ---------------------------------------------------------------------------
 * Mounts
 * ------------------------------------------------------------------------- */

static void mount_close(kiln_manager *m, mgr_mount *mt) {
    if (mt == NULL)
        return;
    if (mt->man != NULL)
        manifest_free(m, mt->man);
    if (mt->pack_path != NULL)
        mgr_free(m, mt->pack_path, mt->pack_path_length + 1);
    if (mt->dir != NULL)
        mgr_free(m, mt->dir, mt->dir_length + 1);
    mgr_free(m, mt, sizeof *mt);
}

void mgr_file_id_of(const struct stat *st, mgr_file_id *id) {
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    id->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

kiln_result kiln_manager_mount(kiln_manager *m, const char *path, uint32_t *index,
                               kiln_error *err) {
    if (m == NULL || path == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_mount needs a manager and a path");
    const char *slash = strrchr(path, '/');
    const char *tail = slash != NULL && slash[1] != '\0' ? slash + 1 : path;
    struct stat st;
    if (stat(path, &st) != 0) {
        char reason[128];
        return runtime_fail(err, KILN_ERR_IO, tail, "cannot mount: %s",
                            runtime_os_reason(errno, reason, sizeof reason));
    }
    mgr_mount *mt = mgr_calloc(m, 1, sizeof *mt);
    if (mt == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, tail, "cannot allocate a mount");
    snprintf(mt->name, sizeof mt->name, "%s", tail);
    mt->dev = st.st_dev;
    mt->ino = st.st_ino;
    mt->watch = -1;
    mt->man = mgr_calloc(m, 1, sizeof *mt->man);
    if (mt->man == NULL) {
        mount_close(m, mt);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, tail, "cannot allocate a mount");
    }
    kiln_result result;
    if (S_ISDIR(st.st_mode)) {
        mt->dir_length = strlen(path);
        while (mt->dir_length > 1 && path[mt->dir_length - 1] == '/')
            mt->dir_length--;
        mt->dir = mgr_alloc(m, mt->dir_length + 1, 1);
        if (mt->dir == NULL) {
            mount_close(m, mt);
            return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, tail, "cannot allocate a mount");
        }
        memcpy(mt->dir, path, mt->dir_length);
        mt->dir[mt->dir_length] = '\0';
        size_t length = mt->dir_length + 1 + sizeof KILN_MANIFEST_FILE_NAME;
        char *manifest_path = mgr_alloc(m, length, 1);
        if (manifest_path == NULL) {
            mount_close(m, mt);
            return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, tail, "cannot allocate a mount");
        }
        snprintf(manifest_path, length, "%s/%s", mt->dir, KILN_MANIFEST_FILE_NAME);
        /* Mapped: the manifest is read often and never changes under us
         * (the cooker replaces files by rename). */
        struct stat manifest_st;
        if (stat(manifest_path, &manifest_st) == 0)
            mgr_file_id_of(&manifest_st, &mt->manifest_id);
        result = kiln_file_map(&mt->man->file, manifest_path, m->open_flags, err);
        mgr_free(m, manifest_path, length);
    } else {
        mt->is_pack = true;
        /* Kept to open the pack again when a build replaces it (refresh). */
        mt->pack_path_length = strlen(path);
        mt->pack_path = mgr_alloc(m, mt->pack_path_length + 1, 1);
        if (mt->pack_path == NULL) {
            mount_close(m, mt);
            return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, tail, "cannot allocate a mount");
        }
        memcpy(mt->pack_path, path, mt->pack_path_length + 1);
        mgr_file_id_of(&st, &mt->manifest_id);
        result = kiln_pack_open(&mt->man->pack, path, err);
        if (result == KILN_OK)
            result = kiln_pack_manifest(&mt->man->pack, &mt->man->file, m->open_flags, err);
    }
    if (result == KILN_OK)
        result = kiln_manifest_view_get(&mt->man->file, &mt->man->view, err);
    if (result != KILN_OK) {
        mount_close(m, mt);
        return result;
    }
    pthread_mutex_lock(&m->lock);
    for (uint32_t i = 0; i < m->mount_count; i++) {
        if (m->mounts[i]->dev == mt->dev && m->mounts[i]->ino == mt->ino) {
            pthread_mutex_unlock(&m->lock);
            mount_close(m, mt);
            return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, tail,
                                "already mounted (mount %" PRIu32 ")", i);
        }
    }
    if (m->mount_count == MGR_MAX_MOUNTS) {
        pthread_mutex_unlock(&m->lock);
        mount_close(m, mt);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, tail, "all %u mounts are in use",
                            MGR_MAX_MOUNTS);
    }
    uint32_t at = m->mount_count;
    m->mounts[at] = mt;
    m->mount_count++;
    kiln_error ignored; /* watching is best effort for a mount added later */
    (void)mgr_watch_mount(m, at, &ignored);
    pthread_mutex_unlock(&m->lock);
    if (index != NULL)
        *index = at;
    return runtime_succeed(err);
}

/* The newest mount whose manifest has `handle` (lock held), or false. */
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
 * Creation and destruction
 * ------------------------------------------------------------------------- */

kiln_result kiln_manager_create(const kiln_manager_desc *desc, kiln_manager **out,
                                kiln_error *err) {
    if (out != NULL)
        *out = NULL;
    if (desc == NULL || out == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_create needs a description and an output");
    if ((desc->allocator.alloc == NULL) != (desc->allocator.free == NULL))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "the allocator needs both alloc and free, or neither");
    if ((desc->flags & ~(uint32_t)(KILN_MANAGER_KEEP_TEXELS | KILN_MANAGER_MAP_FILES)) != 0 ||
        (desc->open_flags & ~(uint32_t)(KILN_OPEN_DEEP | KILN_OPEN_VERIFY_CHECKSUM)) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "unknown flags");
    uint32_t max_assets = desc->max_assets == 0 ? 65536u : desc->max_assets;
    uint32_t max_scopes = desc->max_scopes == 0 ? 256u : desc->max_scopes;
    if (max_assets > (1u << 24) - MGR_PAGE_SLOTS || max_scopes < 2 || max_scopes > 0xffffu ||
        desc->worker_threads > 256)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "max_assets up to 16 Mi, max_scopes 2..65535, at most 256 workers");
    kiln_allocator allocator = desc->allocator;
    if (allocator.alloc == NULL) {
        allocator.alloc = default_alloc;
        allocator.free = default_free;
    }
    kiln_manager *m = allocator.alloc(allocator.user, sizeof *m, 64);
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager", "out of memory");
    memset(m, 0, sizeof *m);
    mgr_file_cache_init(m, desc->allocator.alloc == NULL); /* the default allocator's */
    m->watch_fd = -1;
    m->allocator = allocator;
    m->engine = desc->engine;
    m->open_flags = desc->open_flags;
    m->flags = desc->flags;
    m->slot_capacity = (max_assets + 1 + MGR_PAGE_SLOTS - 1) / MGR_PAGE_SLOTS * MGR_PAGE_SLOTS;
    m->page_count = m->slot_capacity / MGR_PAGE_SLOTS;
    m->slots_used = 1; /* slot 0 is never used: a zero ref is no ref */
    uint32_t map_size = 1;
    while (map_size < m->slot_capacity * 2u)
        map_size *= 2;
    m->map_mask = map_size - 1;
    m->scope_capacity = max_scopes;
    m->pages = mgr_calloc(m, m->page_count, sizeof *m->pages);
    m->map = mgr_calloc(m, map_size, sizeof *m->map);
    m->heap = mgr_calloc(m, m->slot_capacity, sizeof *m->heap);
    m->finish = mgr_calloc(m, m->slot_capacity, sizeof *m->finish);
    m->scopes = mgr_calloc(m, max_scopes, sizeof *m->scopes);
    if (m->pages == NULL || m->map == NULL || m->heap == NULL || m->finish == NULL ||
        m->scopes == NULL) {
        kiln_manager_destroy(m);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager", "out of memory");
    }
    for (uint32_t i = 0; i < m->page_count; i++)
        atomic_init(&m->pages[i], NULL);
    for (uint32_t i = 0; i < max_scopes; i++)
        atomic_init(&m->scopes[i].id, 0);
    scope_start(&m->scopes[0], 0, "permanent", desc->permanent_budget);
    scope_start(&m->scopes[1], 1, "transient", desc->transient_budget);
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->work, NULL);
    pthread_cond_init(&m->done, NULL);
    pthread_condattr_t monotonic; /* kiln_manager_wait's timeout ignores clock changes */
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&m->idle, &monotonic);
    pthread_condattr_destroy(&monotonic);
    kiln_result started = mgr_start_workers(m, desc->worker_threads, err);
    if (started != KILN_OK) {
        kiln_manager_destroy(m);
        return started;
    }
    *out = m;
    return runtime_succeed(err);
}

void kiln_manager_destroy(kiln_manager *m) {
    if (m == NULL)
        return;
    bool initialised = m->scopes != NULL && m->pages != NULL && m->map != NULL && m->heap != NULL &&
                       m->finish != NULL;
    if (initialised) {
#if defined(KILN_RUNTIME_DEV) && KILN_RUNTIME_DEV
        mgr_dev_interrupt(m); /* a worker waiting for a cook stops waiting */
#endif
        mgr_stop_workers(m);
        mgr_watch_close(m);
        pthread_mutex_lock(&m->lock);
        mgr_retired_free(m, true);
        for (uint32_t i = 0; i < m->scope_capacity; i++) {
            mgr_scope *sc = &m->scopes[i];
            kiln_scope id = atomic_load_explicit(&sc->id, memory_order_relaxed);
            if (id != 0) {
                atomic_store_explicit(&sc->id, 0, memory_order_release);
                scope_empty(m, sc, i, id);
            }
        }
        pthread_mutex_unlock(&m->lock);
        pthread_mutex_destroy(&m->lock);
        pthread_cond_destroy(&m->work);
        pthread_cond_destroy(&m->done);
        pthread_cond_destroy(&m->idle);
    }
    if (m->scopes != NULL)
        for (uint32_t i = 0; i < m->scope_capacity; i++)
            mgr_free(m, m->scopes[i].holds, (size_t)m->scopes[i].hold_capacity * sizeof(uint32_t));
    if (m->pages != NULL)
        for (uint32_t i = 0; i < m->page_count; i++)
            mgr_free(m, atomic_load_explicit(&m->pages[i], memory_order_relaxed),
                     MGR_PAGE_SLOTS * sizeof(mgr_slot));
    for (uint32_t i = 0; i < m->mount_count; i++)
        mount_close(m, m->mounts[i]);
    mgr_free_dctx_pool(m);
    mgr_file_cache_drain(m);
    mgr_free(m, m->requests, (size_t)m->request_capacity * sizeof *m->requests);
    mgr_free(m, m->pages, (size_t)m->page_count * sizeof *m->pages);
    mgr_free(m, m->map, ((size_t)m->map_mask + 1) * sizeof *m->map);
    mgr_free(m, m->heap, (size_t)m->slot_capacity * sizeof *m->heap);
    mgr_free(m, m->finish, (size_t)m->slot_capacity * sizeof *m->finish);
    mgr_free(m, m->scopes, (size_t)m->scope_capacity * sizeof *m->scopes);
#if defined(KILN_RUNTIME_DEV) && KILN_RUNTIME_DEV
    mgr_dev_destroy(m);
#endif
    kiln_allocator allocator = m->allocator;
    allocator.free(allocator.user, m, sizeof *m);
}

/* ---------------------------------------------------------------------------
 * Reading refs
 * ------------------------------------------------------------------------- */

const kiln_asset *kiln_asset_get(const kiln_manager *m, kiln_ref ref) {
    if (m == NULL)
        return NULL;
    if (ref.scope != 0) {
        uint32_t index = ref.scope & 0xffffu;
        if (index >= m->scope_capacity ||
            atomic_load_explicit(&m->scopes[index].id, memory_order_acquire) != ref.scope)
            return NULL;
    }
    const mgr_slot *s = mgr_slot_at(m, ref.slot);
    if (s == NULL || atomic_load_explicit(&s->tag, memory_order_acquire) !=
                         ((uint64_t)ref.generation << 8 | SLOT_READY))
        return NULL;
    /* Shown data is never written again: a reload shows new data and
     * retires the old to be freed two pumps later. */
    return atomic_load_explicit(&s->shown, memory_order_acquire);
}

const char *kiln_asset_state_str(kiln_asset_state state) {
    static const char *const names[] = {"none", "queued", "loading", "ready", "failed"};
    return (unsigned)state < sizeof names / sizeof names[0] ? names[state] : "invalid";
}

kiln_asset_state kiln_asset_state_of(kiln_manager *m, kiln_ref ref, kiln_error *err) {
    runtime_succeed(err);
    if (m == NULL)
        return KILN_ASSET_NONE;
    pthread_mutex_lock(&m->lock);
    kiln_asset_state state = KILN_ASSET_NONE;
    mgr_slot *s = mgr_slot_at(m, ref.slot);
    bool scope_ok = ref.scope == 0 || mgr_scope_find(m, ref.scope) != NULL;
    if (s != NULL && scope_ok && s->generation == ref.generation) {
        switch (mgr_slot_state(s)) {
        case SLOT_QUEUED:
            state = KILN_ASSET_QUEUED;
            break;
        case SLOT_LOADING:
        case SLOT_LOADED:
        case SLOT_UPLOADING:
            state = KILN_ASSET_LOADING;
            break;
        case SLOT_READY:
            state = KILN_ASSET_READY;
            break;
        case SLOT_FAILED:
            state = KILN_ASSET_FAILED;
            if (err != NULL)
                *err = s->error;
            break;
        default:
            break;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return state;
}

/* ---------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------- */

kiln_result kiln_manager_stats_get(kiln_manager *m, kiln_manager_stats *stats, kiln_error *err) {
    if (m == NULL || stats == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_stats_get needs a manager and stats");
    memset(stats, 0, sizeof *stats);
    pthread_mutex_lock(&m->lock);
    for (uint32_t i = 1; i < m->slots_used; i++) {
        mgr_slot *s = mgr_slot_at(m, i);
        switch (mgr_slot_state(s)) {
        case SLOT_FREE:
            continue;
        case SLOT_QUEUED:
            stats->queued++;
            break;
        case SLOT_READY:
            stats->ready++;
            break;
        case SLOT_FAILED:
            stats->failed++;
            break;
        default:
            stats->loading++;
            break;
        }
        stats->assets++;
        stats->bytes += s->data->asset.bytes;
        /* A loader fills the file fields unlocked while LOADING; they are
         * charged (asset.bytes) only once it is past that. */
        if (mgr_slot_state(s) != SLOT_LOADING && s->data->file_mapped)
            stats->mapped_bytes += s->data->file_memory_size;
    }
    stats->mounts = m->mount_count;
    stats->reloads = m->reloads;
    stats->reload_failures = m->reload_failures;
    stats->refreshes = m->refreshes;
    mgr_file_cache_counts(m, &stats->file_cache_bytes, &stats->file_cache_bound);
    for (const mgr_data *d = m->retired; d != NULL; d = d->next_retired)
        stats->retired++;
    for (uint32_t i = 0; i < m->scope_capacity; i++) {
        mgr_scope *sc = &m->scopes[i];
        kiln_scope id = atomic_load_explicit(&sc->id, memory_order_relaxed);
        if (id == 0)
            continue;
        if (stats->scope_count < KILN_STATS_MAX_SCOPES) {
            kiln_scope_stats *out = &stats->scopes[stats->scope_count];
            out->scope = id;
            memcpy(out->name, sc->name, sizeof out->name);
            out->bytes = sc->bytes;
            out->budget = sc->budget;
            out->assets = sc->assets;
            out->holds = sc->hold_count;
        }
        stats->scope_count++;
    }
    pthread_mutex_unlock(&m->lock);
    return runtime_succeed(err);
}
