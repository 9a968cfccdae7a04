/* manager_dev.h — the development runtime's cook-on-demand client (not
 * public; compiled only with KILN_RUNTIME_DEV, the CMake option of the same
 * name). manager_dev.c has the details. */
#ifndef KILN_RUNTIME_MANAGER_DEV_H
#define KILN_RUNTIME_MANAGER_DEV_H

#if defined(KILN_RUNTIME_DEV) && KILN_RUNTIME_DEV

#include "runtime/manager_internal.h"

/* manager_load.c's synchronous load (its `load`). */
typedef kiln_result (*mgr_dev_load_fn)(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                       const char *ref_string, kiln_ref *ref, kiln_error *err);

/* Called (lock not held) when a synchronous load ended with `failed`: when a
 * cook server is connected and the asset is unknown to every manifest or its
 * cooked file could not be read, asks the server to cook it, re-reads the
 * manifest of the mount that is the server's output folder and loads again
 * with `load`. Otherwise returns `failed` with *ref and *err untouched. */
kiln_result mgr_dev_cook_missing(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                 const char *ref_string, kiln_ref *ref, kiln_error *err,
                                 kiln_result failed, mgr_dev_load_fn load);

/* A requested load's step (a worker, lock not held): asks the server to cook
 * `name` (a manifest ref) and maps the server output folder's manifest
 * again. KILN_OK when it did; `failed` untouched when no server is
 * connected; else the failure in *err. */
kiln_result mgr_dev_cook(kiln_manager *m, const char *name, kiln_result failed, kiln_error *err);

/* Before the first read of slot `index`'s file (lock not held; the slot
 * pinned and LOADING): when the file is in the server's output folder, asks
 * the server whether it is that of the sources as they are now (FRESH),
 * which cooks what changed first. KILN_OK when the file may be read as the
 * current version (or nothing could be asked); when the source producing it
 * failed to cook, its code with *why filled, the slot's reload status set to
 * it, and the older file on disk still to be read. */
kiln_result mgr_dev_fresh(kiln_manager *m, uint32_t index, kiln_error *why);

/* kiln_manager_request_ref of a ref no manifest names (lock not held),
 * which ended with `failed`: when a server is connected, sends it `COOK
 * <ref>` without waiting and returns KILN_OK (mgr_dev_pump acts on the
 * reply); otherwise returns `failed` with *err untouched. */
kiln_result mgr_dev_defer(kiln_manager *m, kiln_scope scope, const char *ref_string,
                          int32_t priority, kiln_load_callback callback, void *user,
                          kiln_result failed, kiln_error *err);

/* From kiln_manager_pump (lock not held): reads the replies to deferred
 * requests that came, without waiting; requests each cooked asset by its
 * handle into its scope (if still alive) and calls the callback of each
 * that failed. Returns how many callbacks it called. */
uint32_t mgr_dev_pump(kiln_manager *m);

/* From kiln_manager_destroy, before the workers are stopped: a worker waiting
 * for the server's reply stops waiting, and no new conversation starts. */
void mgr_dev_interrupt(kiln_manager *m);

/* From kiln_manager_destroy, last (slots may point into retired manifests). */
void mgr_dev_destroy(kiln_manager *m);

#endif
#endif /* KILN_RUNTIME_MANAGER_DEV_H */
