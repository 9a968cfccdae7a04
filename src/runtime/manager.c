/*
 * manager.c — the asset manager's lifetime calls (kiln/manager.h): creating
 * and destroying the manager, scopes, mounts, the lock-free kiln_asset_get,
 * asset states and statistics. The top of the manager's files (the order is
 * in manager_parts.h): the tables are manager_slots.c, loading
 * manager_load.c and manager_request.c.
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
#include "runtime/manager_internal.h"
#include "runtime/manager_parts.h"

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
        mgr_manifest_free(m, mt->man);
    if (mt->pack_path != NULL)
        mgr_free(m, mt->pack_path, mt->pack_path_length + 1);
    if (mt->dir != NULL)
        mgr_free(m, mt->dir, mt->dir_length + 1);
    mgr_free(m, mt, sizeof *mt);
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
        (desc->open_flags & ~(uint32_t)(KILN_OPEN_DEEP | KILN_OPEN_VERIFY_CHECKSUM)) != 0 ||
        (desc->gpu_formats &
         ~(uint32_t)(KILN_GPU_BC7 | KILN_GPU_ASTC_4X4 | KILN_GPU_ETC2 | KILN_GPU_BC1_BC3)) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "unknown flags");
    uint32_t max_assets = desc->max_assets == 0 ? 65536u : desc->max_assets;
    uint32_t max_scopes = desc->max_scopes == 0 ? 256u : desc->max_scopes;
    if (max_assets > (1u << 24) - MGR_PAGE_SLOTS || max_scopes < 2 || max_scopes > 0xffffu ||
        desc->worker_threads > 256)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "max_assets up to 16 Mi, max_scopes 2..65535, at most 256 workers");
    kiln_allocator allocator = desc->allocator;
    if (allocator.alloc == NULL) {
        allocator.alloc = mgr_default_alloc;
        allocator.free = mgr_default_free;
    }
    kiln_manager *m = allocator.alloc(allocator.user, sizeof *m, 64);
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager", "out of memory");
    memset(m, 0, sizeof *m);
    mgr_file_cache_init(m, desc->allocator.alloc == NULL); /* the default allocator's */
    m->watch_fd = -1;
    atomic_init(&m->dev_hooks, NULL);
    m->allocator = allocator;
    m->engine = desc->engine;
    m->open_flags = desc->open_flags;
    m->flags = desc->flags;
    m->gpu_formats = desc->gpu_formats;
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
    const mgr_dev_hooks *dev = mgr_cook_server_hooks(m);
    bool initialised = m->scopes != NULL && m->pages != NULL && m->map != NULL && m->heap != NULL &&
                       m->finish != NULL;
    if (initialised) {
        if (dev != NULL)
            dev->interrupt(m); /* a worker waiting for a cook stops waiting */
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
    if (dev != NULL)
        dev->destroy(m);
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
