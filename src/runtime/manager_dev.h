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

/* From kiln_manager_destroy, before the workers are stopped: a worker waiting
 * for the server's reply stops waiting, and no new conversation starts. */
void mgr_dev_interrupt(kiln_manager *m);

/* From kiln_manager_destroy, last (slots may point into retired manifests). */
void mgr_dev_destroy(kiln_manager *m);

#endif
#endif /* KILN_RUNTIME_MANAGER_DEV_H */
