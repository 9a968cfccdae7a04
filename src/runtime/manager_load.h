/* manager_load.h — what manager.c and manager_load.c share (not public).
 * "lock held" means the manager's mutex is held by the caller. */
#ifndef KILN_RUNTIME_MANAGER_LOAD_H
#define KILN_RUNTIME_MANAGER_LOAD_H

#include "runtime/manager_internal.h"

/* manager.c: memory through the allocator hooks. */
void *mgr_alloc(kiln_manager *m, size_t size, size_t alignment);
void *mgr_calloc(kiln_manager *m, size_t count, size_t size);
void mgr_free(kiln_manager *m, void *memory, size_t size);
bool mgr_grow(kiln_manager *m, void **array, uint32_t *capacity, uint32_t need, size_t elem);

/* manager.c: slots, the map, reach, releasing (lock held). */
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
void mgr_release(kiln_manager *m, uint32_t index);
void mgr_data_release(kiln_manager *m, mgr_data *d);
void mgr_unpin(kiln_manager *m, uint32_t index);
mgr_scope *mgr_scope_find(kiln_manager *m, kiln_scope scope);
bool mgr_resolve(kiln_manager *m, kiln_handle handle, uint32_t *mount,
                 const kiln_manifest_entry **entry);
const mgr_mount *mgr_mount_at(const kiln_manager *m, uint32_t index);
struct stat;
void mgr_file_id_of(const struct stat *st, mgr_file_id *id);

/* manager_files.c: a folder file's bytes, and the file-memory cache. */
kiln_result mgr_read_file(kiln_manager *m, const char *name, const char *path, void **data,
                          size_t *size, bool *mapped, mgr_file_id *id, kiln_error *err);
void mgr_file_memory_free(kiln_manager *m, mgr_data *d);
void mgr_file_cache_init(kiln_manager *m, bool enabled);
void mgr_file_cache_drain(kiln_manager *m); /* frees every kept block (destroy) */
/* The bytes kept for reuse, and the bound on in-use plus kept bytes. */
void mgr_file_cache_counts(kiln_manager *m, uint64_t *kept, uint64_t *bound);

/* manager_load.c: the queue, the finish list, staging, workers. */
void mgr_heap_remove(kiln_manager *m, uint32_t index);
void mgr_finish_remove(kiln_manager *m, uint32_t index);
void mgr_release_staging(kiln_manager *m, mgr_slot *s);
void mgr_data_release_staging(kiln_manager *m, mgr_data *d);
kiln_result mgr_start_workers(kiln_manager *m, uint32_t count, kiln_error *err);
void mgr_stop_workers(kiln_manager *m);
void mgr_free_dctx_pool(kiln_manager *m);

/* manager_load.c: reloads slot `index` in place (lock held, the caller has
 * it pinned; it may unlock meanwhile). KILN_OK when applied, no longer
 * wanted, or (unless `force`) the folder file has the same bytes as the data
 * shown; else the failure, reported to the slot and the engine. */
kiln_result mgr_reload_slot(kiln_manager *m, uint32_t index, bool force, kiln_error *err);
/* Reports a failed reload of ready slot `index` (lock held): its status, the
 * count, the engine's KILN_RELOAD_FAILED event; the old data stays. Returns
 * why->code (KILN_ERR_CORRUPT when it is KILN_OK); *err (may be NULL) gets it. */
kiln_result mgr_reload_fail(kiln_manager *m, uint32_t index, const kiln_error *why,
                            kiln_error *err);

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

/* manager_reload.c: retired data, the folder watch. */
void mgr_notify(kiln_manager *m, const kiln_reload_event *event);
void mgr_retire(kiln_manager *m, mgr_data *d);
void mgr_retired_free(kiln_manager *m, bool all);
kiln_result mgr_refresh(kiln_manager *m, kiln_error *err);
/* Maps mount `mount`'s assets.kman again when it changed on disk (lock held,
 * released while mapping). */
kiln_result mgr_refresh_manifest(kiln_manager *m, uint32_t mount, kiln_error *err);
void mgr_watch_close(kiln_manager *m);
bool mgr_watch_poll(kiln_manager *m);
kiln_result mgr_watch_mount(kiln_manager *m, uint32_t mount, kiln_error *err);

#endif /* KILN_RUNTIME_MANAGER_LOAD_H */
