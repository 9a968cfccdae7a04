/* manager_parts.h — the asset manager's files and what each offers the ones
 * above it (not public). "lock held" means the manager's mutex is held by
 * the caller.
 *
 * The files call each other one way only, each calling those listed before
 * it and none after:
 *
 *   manager_memory.c    allocation through the hooks, mgr_grow
 *   manager_files.c     a folder file's bytes, the file-memory cache
 *   manager_slots.c     slots, the map, reach, releasing, the queue, lookups
 *   manager_watch.c     the inotify watch of the mounts
 *   manager_graph.c     a level's dependencies, cycle and nesting checks
 *   manager_read.c      reading one asset kind by kind, what it names
 *   manager_load.c      a slot's states: dependencies held, upload, ready
 *   manager_reload.c    hot reload of one asset, refresh, retired data
 *   manager_workers.c   the loader threads, kiln_manager_wait
 *   manager_request.c   kiln_manager_load/request, holds, kiln_manager_pump
 *   manager.c           create/destroy, scopes, mounts, kiln_asset_get, stats
 *   manager_dev.c       cooking on demand (KILN_RUNTIME_DEV builds only)
 *
 * manager_dev.c is called by no file below it by name: kiln_manager_connect_cooker
 * registers its hooks (mgr_dev_hooks) in the manager, and manager_read.c,
 * manager_request.c and manager.c call them when they are set. A shipping
 * libkiln, built without manager_dev.c, never sets them. */
#ifndef KILN_RUNTIME_MANAGER_PARTS_H
#define KILN_RUNTIME_MANAGER_PARTS_H

#include "runtime/manager_internal.h"

/* manager_memory.c: memory through the allocator hooks. */
void *mgr_default_alloc(void *user, size_t size, size_t alignment);
void mgr_default_free(void *user, void *memory, size_t size);
void *mgr_alloc(kiln_manager *m, size_t size, size_t alignment);
void *mgr_calloc(kiln_manager *m, size_t count, size_t size);
void mgr_free(kiln_manager *m, void *memory, size_t size);
bool mgr_grow(kiln_manager *m, void **array, uint32_t *capacity, uint32_t need, size_t elem);

/* manager_files.c: a folder file's bytes, and the file-memory cache. */
struct stat;
void mgr_file_id_of(const struct stat *st, mgr_file_id *id);
kiln_result mgr_read_file(kiln_manager *m, const char *name, const char *path, void **data,
                          size_t *size, bool *mapped, mgr_file_id *id, kiln_error *err);
void mgr_file_memory_free(kiln_manager *m, mgr_data *d);
/* A block for a file's bytes, which mgr_file_memory_free gives back (its
 * size in file_memory_size, file_mapped false). */
void *mgr_file_alloc(kiln_manager *m, size_t size);
void mgr_file_cache_init(kiln_manager *m, bool enabled);
void mgr_file_cache_drain(kiln_manager *m); /* frees every kept block (destroy) */
/* The bytes kept for reuse, and the bound on in-use plus kept bytes. */
void mgr_file_cache_counts(kiln_manager *m, uint64_t *kept, uint64_t *bound);

/* manager_slots.c: slots, the map, reach, releasing (lock held). */
mgr_slot *mgr_slot_at(const kiln_manager *m, uint32_t index);
uint32_t mgr_slot_state(const mgr_slot *s);
void mgr_set_state(mgr_slot *s, uint32_t state);
uint32_t mgr_map_find(kiln_manager *m, uint32_t mount, const char *path);
void mgr_map_remove(kiln_manager *m, uint32_t index);
uint32_t mgr_slot_create(kiln_manager *m, uint32_t mount, const kiln_manifest_entry *entry,
                         kiln_handle handle);
bool mgr_reach_add(kiln_manager *m, uint32_t index, uint32_t scope, bool direct);
void mgr_reach_remove(kiln_manager *m, uint32_t index, uint32_t scope, bool direct);
void mgr_set_bytes(kiln_manager *m, mgr_slot *s, uint64_t bytes);
void mgr_manifest_free(kiln_manager *m, mgr_manifest *man);
void mgr_release(kiln_manager *m, uint32_t index);
void mgr_data_release(kiln_manager *m, mgr_data *d);
void mgr_data_release_staging(kiln_manager *m, mgr_data *d);
void mgr_unpin(kiln_manager *m, uint32_t index);
mgr_scope *mgr_scope_find(kiln_manager *m, kiln_scope scope);
bool mgr_resolve(kiln_manager *m, kiln_handle handle, uint32_t *mount,
                 const kiln_manifest_entry **entry);
const mgr_mount *mgr_mount_at(const kiln_manager *m, uint32_t index);
/* manager_slots.c: the queue and the finish list (lock held). */
void mgr_heap_push(kiln_manager *m, uint32_t index, int32_t priority);
void mgr_heap_raise(kiln_manager *m, uint32_t index, int32_t priority);
void mgr_heap_remove(kiln_manager *m, uint32_t index);
void mgr_finish_push(kiln_manager *m, uint32_t index);
void mgr_finish_remove(kiln_manager *m, uint32_t index);
/* Nothing queued, nothing being read; mgr_note_idle wakes kiln_manager_wait then. */
bool mgr_loaders_idle(const kiln_manager *m);
void mgr_note_idle(kiln_manager *m);

/* manager_watch.c: the folder watch. */
void mgr_watch_close(kiln_manager *m);
bool mgr_watch_poll(kiln_manager *m);
kiln_result mgr_watch_mount(kiln_manager *m, uint32_t mount, kiln_error *err);

/* manager_graph.c: a level's dependencies, and the checks that keep the
 * dependency graph acyclic with chains of nested scenes at most
 * MGR_MAX_NESTING long (lock held). */
#define MGR_MAX_NESTING 32u
typedef bool (*mgr_dep_fn)(kiln_manager *m, void *list, kiln_handle handle, kiln_asset_kind kind);
/* Adds a level scene's dependencies (an asset with an SLNK chunk; nothing
 * for any other): every node's placed scene, and every asset its components'
 * refs name (any kind). KILN_OK, or the failure in `err` (a node's components
 * not JSON, a ref's hash malformed, out of memory). */
kiln_result mgr_level_deps(kiln_manager *m, const kiln_asset *a, mgr_dep_fn add, void *list,
                           kiln_error *err);
/* Where level `a` names `handle` ("node 'crate' places 'props/crate/scene'"),
 * into `out`; false when `a` is no level or does not name it. */
bool mgr_level_dep_origin(const kiln_asset *a, kiln_handle handle, char *out, size_t size);
/* Whether slot `from` may hold slot `to`: false, with `err` naming the cycle
 * or the chain, when `to` already reaches `from` or the hold would nest
 * scenes deeper than MGR_MAX_NESTING. mgr_graph_linked records the hold
 * once made. */
bool mgr_graph_check(kiln_manager *m, uint32_t from, uint32_t to, kiln_error *err);
void mgr_graph_linked(kiln_manager *m, uint32_t from, uint32_t to);

/* manager_read.c: reading a slot's file (lock not held; the slot pinned and
 * LOADING, or a reload's stand-in slot). mgr_read_slot is a first load's
 * read, with the cook server's steps when one is connected. */
kiln_result mgr_read_asset(kiln_manager *m, mgr_slot *s, const mgr_mount *mt, kiln_error *err);
kiln_result mgr_read_slot(kiln_manager *m, uint32_t index, const mgr_mount *mt);
void mgr_free_dctx_pool(kiln_manager *m);
/* Frees a failed slot's file and texels (lock held). */
void mgr_drop_data(kiln_manager *m, mgr_slot *s);
/* The handles a read file names, with the kind each must be. */
typedef struct mgr_dep_list {
    kiln_handle handles[64];
    kiln_asset_kind kinds[64];
    uint32_t count;
    kiln_handle *more; /* beyond 64 */
    kiln_asset_kind *more_kinds;
    uint32_t more_count, more_capacity, more_kinds_capacity;
} mgr_dep_list;
void mgr_dep_list_init(mgr_dep_list *list);
uint32_t mgr_dep_count(const mgr_dep_list *list);
void mgr_dep_get(const mgr_dep_list *list, uint32_t i, kiln_handle *handle, kiln_asset_kind *kind);
void mgr_dep_list_free(kiln_manager *m, mgr_dep_list *list);
/* What `s`'s data names (lock held): KILN_OK, or the failure in `err`. */
kiln_result mgr_collect_deps(kiln_manager *m, mgr_slot *s, mgr_dep_list *list, kiln_error *err);
/* A level's missing dependency: adds to `err` which node names it. */
void mgr_note_origin(const mgr_slot *s, kiln_handle handle, kiln_error *err);

/* manager_load.c: a slot's states (lock held). */
kiln_result mgr_fail_needs(kiln_error *err, kiln_result code, const char *who, const char *ref,
                           const char *why);
void mgr_fail_slot(kiln_manager *m, uint32_t index); /* s->error filled */
bool mgr_needs_upload(const kiln_manager *m, const mgr_slot *s);
/* The slot for `handle` wanted as `kind` (KILN_ASSET_INVALID: any), created
 * (and queued when `queue`) when new; 0 with `err` filled when it cannot be. */
uint32_t mgr_find_or_create(kiln_manager *m, kiln_handle handle, kiln_asset_kind kind,
                            int32_t priority, bool queue, kiln_error *err, const char *who,
                            const char *ref_string);
kiln_result mgr_hold_deps(kiln_manager *m, uint32_t index, mgr_slot *s, bool queue,
                          kiln_error *err);
void mgr_publish(kiln_manager *m, uint32_t index, kiln_result read);
/* The engine's create callbacks (lock not held; the slot pinned). */
kiln_result mgr_upload(kiln_manager *m, mgr_slot *s, kiln_error *err);
/* Drives slot `index` to READY or FAILED on this thread (slot pinned). */
void mgr_ensure_ready(kiln_manager *m, uint32_t index);

/* manager_reload.c: hot reload (lock held). */
void mgr_notify(kiln_manager *m, const kiln_reload_event *event);
void mgr_retire(kiln_manager *m, mgr_data *d);
void mgr_retired_free(kiln_manager *m, bool all);
kiln_result mgr_refresh(kiln_manager *m, kiln_error *err);
/* Maps mount `mount`'s assets.kman again when it changed on disk (lock held,
 * released while mapping). */
kiln_result mgr_refresh_manifest(kiln_manager *m, uint32_t mount, kiln_error *err);
/* Reloads slot `index` in place (lock held, the caller has it pinned; it may
 * unlock meanwhile). KILN_OK when applied, no longer wanted, or (unless
 * `force`) the folder file has the same bytes as the data shown; else the
 * failure, reported to the slot and the engine. */
kiln_result mgr_reload_slot(kiln_manager *m, uint32_t index, bool force, kiln_error *err);
/* Reports a failed reload of ready slot `index` (lock held): its status, the
 * count, the engine's KILN_RELOAD_FAILED event; the old data stays. Returns
 * why->code (KILN_ERR_CORRUPT when it is KILN_OK); *err (may be NULL) gets it. */
kiln_result mgr_reload_fail(kiln_manager *m, uint32_t index, const kiln_error *why,
                            kiln_error *err);

/* manager_workers.c: the loader threads. */
kiln_result mgr_start_workers(kiln_manager *m, uint32_t count, kiln_error *err);
void mgr_stop_workers(kiln_manager *m);

/* manager_dev.c's calls, registered by kiln_manager_connect_cooker (lock not
 * held for any of them). */
typedef kiln_result (*mgr_load_fn)(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                   const char *ref_string, kiln_ref *ref, kiln_error *err);
struct mgr_dev_hooks {
    /* A synchronous load ended with `failed`: when the asset is unknown to
     * every manifest or its cooked file could not be read, asks the server to
     * cook it, maps the output folder's manifest again and loads again with
     * `load`. Otherwise returns `failed` with *ref and *err untouched. */
    kiln_result (*cook_missing)(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                const char *ref_string, kiln_ref *ref, kiln_error *err,
                                kiln_result failed, mgr_load_fn load);
    /* A load's read failed: asks the server to cook `name` (a manifest ref)
     * and maps the output folder's manifest again. KILN_OK when it did;
     * else the failure in *err (`failed` when nothing could be asked). */
    kiln_result (*cook)(kiln_manager *m, const char *name, kiln_result failed, kiln_error *err);
    /* Before the first read of slot `index`'s file (pinned, LOADING): asks
     * whether the file is that of the sources as they are now. KILN_OK, or
     * the code of the source's failed cook with *why filled (the older file
     * is still read). */
    kiln_result (*fresh)(kiln_manager *m, uint32_t index, kiln_error *why);
    /* kiln_manager_request_ref of a ref no manifest names: sends `COOK <ref>`
     * without waiting and returns KILN_OK (pump acts on the reply). */
    kiln_result (*defer)(kiln_manager *m, kiln_scope scope, const char *ref_string,
                         int32_t priority, kiln_load_callback callback, void *user,
                         kiln_result failed, kiln_error *err);
    /* From kiln_manager_pump: acts on the replies to deferred requests;
     * returns how many callbacks it called. */
    uint32_t (*pump)(kiln_manager *m);
    /* From kiln_manager_destroy, before the workers stop, and last. */
    void (*interrupt)(kiln_manager *m);
    void (*destroy)(kiln_manager *m);
};
/* The hooks of a connected cook server, or NULL (any thread). */
static inline const mgr_dev_hooks *mgr_cook_server_hooks(kiln_manager *m) {
    return atomic_load_explicit(&m->dev_hooks, memory_order_acquire);
}

#endif /* KILN_RUNTIME_MANAGER_PARTS_H */
