/*
 * manager_load.c — a slot's way through its states under the manager's
 * lock: linking what a read file names (its dependencies: found or created,
 * held, queued), READY or FAILED and what that tells the assets waiting, the
 * engine's create callbacks (the upload), and ensure_ready, which drives one
 * slot to the end on the calling thread.
 *
 * A slot goes QUEUED -> LOADING (read, validate, inflate; unlocked, pinned)
 * -> LOADED (dependencies linked; waiting for them) -> UPLOADING (engine
 * create callbacks; unlocked, pinned) -> READY, or FAILED from any step (an
 * asset the engine creates nothing for goes from LOADED to READY as soon as
 * its dependencies are, on the thread that got it there); a
 * failed dependency fails the assets waiting for it. Dependencies go from a
 * kind to a lower one (animation -> scene -> mesh -> material -> texture; a
 * shader has none; the kind is checked against both the manifest and the
 * file), except a level's: its placed scenes and its components' assets,
 * which may be scenes (levels too) or anything. Those could close a cycle,
 * so before a scene or an animation holds a scene or an animation,
 * manager_graph.c checks that the hold closes no cycle and nests scenes at
 * most MGR_MAX_NESTING deep, failing the asset naming the cycle otherwise.
 * The graph of holds therefore stays acyclic and shallow, and a synchronous
 * load can drive its dependencies recursively.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"
#include "runtime/manager_parts.h"

/* ---------------------------------------------------------------------------
 * States (lock held)
 * ------------------------------------------------------------------------- */

/* "<who>: needs <ref>, which failed: <why>". When the dependency's own
 * message does not fit (a long chain of "needs"), its root cause does: the
 * part after its last "which failed: ". */
kiln_result mgr_fail_needs(kiln_error *err, kiln_result code, const char *who, const char *ref,
                           const char *why) {
    static const char needs[] = ", which failed: ";
    const char *cause = why;
    if (strlen(who) + strlen(ref) + strlen(why) + 32 >= sizeof err->message) {
        for (const char *at = strstr(why, needs); at != NULL; at = strstr(at + 1, needs))
            cause = at + sizeof needs - 1;
    }
    return runtime_fail(err, code != KILN_OK ? code : KILN_ERR_CORRUPT, who,
                        "needs %s, which failed: %s%s", ref, cause == why ? "" : "... ", cause);
}

/* s->error is filled; every asset waiting for it fails too. */
void mgr_fail_slot(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (s->in_finish)
        mgr_finish_remove(m, index);
    mgr_drop_data(m, s);
    mgr_set_state(s, SLOT_FAILED);
    m->settled = true; /* a request may wait for it */
    uint32_t count = s->dependent_count;
    s->dependent_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        mgr_slot *d = mgr_slot_at(m, s->dependents[i]);
        if (mgr_slot_state(d) != SLOT_LOADED)
            continue;
        mgr_fail_needs(&d->error, s->error.code, d->path, s->data->asset.ref, s->error.message);
        mgr_fail_slot(m, s->dependents[i]);
    }
    pthread_cond_broadcast(&m->done);
}

static void done_loading(kiln_manager *m, uint32_t index);

static void ready_slot(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    atomic_store_explicit(&s->shown, &s->data->asset, memory_order_relaxed); /* tag releases it */
    mgr_set_state(s, SLOT_READY);
    m->settled = true; /* a request may wait for it */
    uint32_t count = s->dependent_count;
    s->dependent_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        mgr_slot *d = mgr_slot_at(m, s->dependents[i]);
        if (mgr_slot_state(d) == SLOT_LOADED && d->pending > 0 && --d->pending == 0)
            done_loading(m, s->dependents[i]);
    }
    pthread_cond_broadcast(&m->done);
}

/* Whether finishing a slot calls the engine (so waits for a pump or the
 * synchronous loader's thread). */
bool mgr_needs_upload(const kiln_manager *m, const mgr_slot *s) {
    if (s->data->asset.kind == KILN_ASSET_MESH)
        return m->engine.create_buffer != NULL;
    if (s->data->asset.kind == KILN_ASSET_TEXTURE)
        return s->data->staging != NULL && m->engine.create_texture != NULL;
    return false;
}

/* A loaded slot whose dependencies are all ready (lock held): ready at once
 * when the engine has nothing to create for it (on whatever thread got here,
 * a worker included), else on the finish list for the upload. */
static void done_loading(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (mgr_needs_upload(m, s)) {
        mgr_finish_push(m, index);
        return;
    }
    if (s->data->staging != NULL) { /* kept texels (KILN_MANAGER_KEEP_TEXELS) */
        s->data->asset.texels = s->data->staging;
        s->data->asset.texel_bytes = s->data->staging_size;
    }
    ready_slot(m, index);
}

/* Takes back a dependency slot find_or_create made that nothing holds. */
static void drop_unheld(kiln_manager *m, uint32_t dep) {
    mgr_slot *d = mgr_slot_at(m, dep);
    if (d->refs == 0 && d->pins == 0) {
        d->refs = 1;
        mgr_release(m, dep);
    }
}

/* The slot for a dependency or a direct load of `handle` wanted as `kind`
 * (KILN_ASSET_INVALID: any kind), created and queued at `priority` when new.
 * 0 with `err` filled when it cannot be. */
uint32_t mgr_find_or_create(kiln_manager *m, kiln_handle handle, kiln_asset_kind kind,
                            int32_t priority, bool queue, kiln_error *err, const char *who,
                            const char *ref_string) {
    uint32_t mount;
    const kiln_manifest_entry *entry;
    if (!mgr_resolve(m, handle, &mount, &entry)) {
        if (ref_string != NULL)
            runtime_fail(err, KILN_ERR_NOT_FOUND, who,
                         "unknown handle 0x%016" PRIx64 " ('%s'): no mounted manifest has it",
                         handle, ref_string);
        else if (kind != KILN_ASSET_INVALID)
            runtime_fail(err, KILN_ERR_NOT_FOUND, who,
                         "needs %s 0x%016" PRIx64 ", which no mounted manifest has",
                         kiln_asset_kind_str(kind), handle);
        else
            runtime_fail(err, KILN_ERR_NOT_FOUND, who,
                         "unknown handle 0x%016" PRIx64 ": no mounted manifest has it", handle);
        return 0;
    }
    const char *path = kiln_manifest_path(&mgr_mount_at(m, mount)->man->view, entry);
    if (kind != KILN_ASSET_INVALID && entry->kind != kind) {
        runtime_fail(err, KILN_ERR_CORRUPT, who, "'%s' is a %s in the manifest, not a %s",
                     kiln_manifest_ref(&mgr_mount_at(m, mount)->man->view, entry),
                     kiln_asset_kind_str((kiln_asset_kind)entry->kind), kiln_asset_kind_str(kind));
        return 0;
    }
    uint32_t index = mgr_map_find(m, mount, path);
    if (index != 0 && mgr_slot_at(m, index)->refs == 0 &&
        mgr_slot_state(mgr_slot_at(m, index)) == SLOT_FAILED) {
        /* A load cancelled when its last hold went, kept only by a pin (a
         * thread waiting on it, a reload looking it up) until the pin goes:
         * dead, so it leaves the map and a new slot loads the file. */
        mgr_map_remove(m, index);
        index = 0;
    }
    if (index != 0) {
        mgr_slot *s = mgr_slot_at(m, index);
        if (s->expected_kind != entry->kind) {
            runtime_fail(err, KILN_ERR_CORRUPT, who,
                         "%s is named as a %s and as a %s by the manifest", path,
                         kiln_asset_kind_str(s->expected_kind),
                         kiln_asset_kind_str((kiln_asset_kind)entry->kind));
            return 0;
        }
        if (queue)
            mgr_heap_raise(m, index, priority);
        return index;
    }
    index = mgr_slot_create(m, mount, entry, handle);
    if (index == 0) {
        runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, who,
                     "cannot load %s: the asset table is full (max_assets) or out of memory", path);
        return 0;
    }
    mgr_slot *s = mgr_slot_at(m, index);
    s->priority = priority;
    if (queue) {
        mgr_heap_push(m, index, priority);
        pthread_cond_signal(&m->work);
    }
    return index;
}

/* Holds what `s`'s data names (lock held): each dependency found or created
 * (queued when `queue`) at s->priority, checked against the nesting graph,
 * held by the data, and reached by every scope reaching `s`. `s` is slot
 * `index`, or a reload's stand-in for it holding the new data. KILN_OK, or
 * the failure in `err`; the holds made so far stay in the data either way. */
kiln_result mgr_hold_deps(kiln_manager *m, uint32_t index, mgr_slot *s, bool queue,
                          kiln_error *err) {
    mgr_data *data = s->data;
    mgr_dep_list list;
    mgr_dep_list_init(&list);
    kiln_result r = mgr_collect_deps(m, s, &list, err);
    uint32_t total = mgr_dep_count(&list);
    if (r == KILN_OK && total > 0 &&
        !mgr_grow(m, (void **)&data->deps, &data->dep_capacity, total, sizeof *data->deps))
        r = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
    for (uint32_t i = 0; r == KILN_OK && i < total; i++) {
        kiln_handle handle;
        kiln_asset_kind kind;
        mgr_dep_get(&list, i, &handle, &kind);
        uint32_t dep = mgr_find_or_create(m, handle, kind, s->priority, queue, err, s->path, NULL);
        if (dep == 0) {
            mgr_note_origin(s, handle, err);
            r = err->code != KILN_OK ? err->code : KILN_ERR_NOT_FOUND;
            break;
        }
        if (!mgr_graph_check(m, index, dep, err)) {
            drop_unheld(m, dep);
            r = err->code != KILN_OK ? err->code : KILN_ERR_CORRUPT;
            break;
        }
        mgr_slot *d = mgr_slot_at(m, dep);
        d->refs++;
        data->deps[data->asset.dependency_count++] =
            (kiln_asset_dependency){handle, {0, dep, d->generation}};
        data->asset.dependencies = data->deps;
        mgr_graph_linked(m, index, dep);
        for (uint32_t k = 0; r == KILN_OK && k < s->reach_count; k++)
            if (!mgr_reach_add(m, dep, s->reach[k].scope, false))
                r = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
    }
    mgr_dep_list_free(m, &list);
    return r;
}

/* After a read (lock held): link the dependencies, charge the bytes, and
 * move to LOADED (finish list when nothing is pending) or FAILED. */
void mgr_publish(kiln_manager *m, uint32_t index, kiln_result read) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (read != KILN_OK || mgr_hold_deps(m, index, s, true, &s->error) != KILN_OK) {
        mgr_fail_slot(m, index);
        return;
    }
    uint64_t bytes =
        s->data->asset.file_bytes + (s->data->staging != NULL ? s->data->staging_size : 0);
    mgr_set_bytes(m, s, bytes);
    mgr_set_state(s, SLOT_LOADED);
    s->pending = 0;
    for (uint32_t i = 0; i < s->data->asset.dependency_count; i++) {
        uint32_t dep = s->data->deps[i].ref.slot;
        mgr_slot *d = mgr_slot_at(m, dep);
        uint32_t state = mgr_slot_state(d);
        if (state == SLOT_READY)
            continue;
        if (state == SLOT_FAILED) {
            mgr_fail_needs(&s->error, d->error.code, s->path, d->data->asset.ref, d->error.message);
            mgr_fail_slot(m, index);
            return;
        }
        if (!mgr_grow(m, (void **)&d->dependents, &d->dependent_capacity, d->dependent_count + 1,
                      sizeof *d->dependents)) {
            runtime_fail(&s->error, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
            mgr_fail_slot(m, index);
            return;
        }
        d->dependents[d->dependent_count++] = index;
        s->pending++;
    }
    if (s->pending == 0)
        done_loading(m, index);
    pthread_cond_broadcast(&m->done);
}

/* ---------------------------------------------------------------------------
 * The engine's upload (unlocked: the slot is pinned and UPLOADING)
 * ------------------------------------------------------------------------- */

kiln_result mgr_upload(kiln_manager *m, mgr_slot *s, kiln_error *err) {
    const kiln_engine_callbacks *e = &m->engine;
    kiln_asset *a = &s->data->asset;
    if (a->kind == KILN_ASSET_MESH && e->create_buffer != NULL) {
        kiln_result r = e->create_buffer(e->user, a, KILN_BUFFER_VERTICES, a->mesh.vertices,
                                         a->mesh.vertex_bytes, &a->engine_buffers[0], err);
        if (r == KILN_OK)
            r = e->create_buffer(e->user, a, KILN_BUFFER_INDICES, a->mesh.indices,
                                 a->mesh.index_bytes, &a->engine_buffers[1], err);
        if (r != KILN_OK && err->message[0] == '\0')
            runtime_fail(err, r, s->path, "the engine's create_buffer failed");
        return r;
    }
    if (a->kind == KILN_ASSET_TEXTURE && s->data->staging != NULL) {
        if (e->create_texture != NULL) {
            kiln_result r = e->create_texture(e->user, a, s->data->staging, s->data->staging_size,
                                              &a->engine_texture, err);
            if (r != KILN_OK) {
                if (err->message[0] == '\0')
                    runtime_fail(err, r, s->path, "the engine's create_texture failed");
                return r;
            }
            if (s->data->staging_engine) { /* the engine's memory is the engine's again */
                s->data->staging = NULL;
                s->data->staging_size = 0;
                s->data->staging_engine = false;
            }
            /* Our own staging is freed under the lock (the bytes change). */
        } else {
            a->texels = s->data->staging;
            a->texel_bytes = s->data->staging_size;
        }
    }
    return KILN_OK;
}

/* ---------------------------------------------------------------------------
 * Driving a slot to READY or FAILED (lock held, slot pinned by the caller)
 * ------------------------------------------------------------------------- */

void mgr_ensure_ready(kiln_manager *m, uint32_t index) {
    for (;;) {
        mgr_slot *s = mgr_slot_at(m, index);
        switch (mgr_slot_state(s)) {
        case SLOT_READY:
        case SLOT_FAILED:
        case SLOT_FREE:
            return;
        case SLOT_QUEUED: {
            m->loading++;
            if (s->heap_index != UINT32_MAX)
                mgr_heap_remove(m, index);
            mgr_set_state(s, SLOT_LOADING);
            const mgr_mount *mt = mgr_mount_at(m, s->mount);
            pthread_mutex_unlock(&m->lock);
            kiln_result r = mgr_read_slot(m, index, mt);
            pthread_mutex_lock(&m->lock);
            mgr_publish(m, index, r);
            m->loading--;
            mgr_note_idle(m);
            break;
        }
        case SLOT_LOADING:
        case SLOT_UPLOADING:
            pthread_cond_wait(&m->done, &m->lock);
            break;
        case SLOT_LOADED:
            if (s->pending > 0) {
                for (uint32_t i = 0; i < s->data->asset.dependency_count; i++) {
                    uint32_t dep = s->data->deps[i].ref.slot;
                    mgr_slot_at(m, dep)->pins++;
                    mgr_ensure_ready(m, dep);
                    mgr_unpin(m, dep);
                    if (mgr_slot_state(s) != SLOT_LOADED)
                        break; /* a dependency failed, and so did this */
                }
                break;
            }
            if (s->in_finish)
                mgr_finish_remove(m, index);
            mgr_set_state(s, SLOT_UPLOADING);
            pthread_mutex_unlock(&m->lock);
            kiln_error err;
            err.code = KILN_OK;
            err.message[0] = '\0';
            kiln_result r = mgr_upload(m, s, &err);
            pthread_mutex_lock(&m->lock);
            if (r != KILN_OK) {
                s->error = err;
                s->error.code = r;
                mgr_fail_slot(m, index);
            } else {
                if (s->data->staging != NULL && s->data->asset.texels == NULL) {
                    mgr_data_release_staging(m, s->data); /* ours, copied by create_texture */
                }
                mgr_set_bytes(m, s,
                              s->data->asset.file_bytes +
                                  (s->data->asset.texels != NULL ? s->data->staging_size : 0));
                ready_slot(m, index);
            }
            break;
        }
    }
}
