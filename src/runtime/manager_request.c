/*
 * manager_request.c — the public loading calls: kiln_manager_load and
 * kiln_manager_request (and their _ref forms), the scopes' holds and budgets
 * they make, and kiln_manager_pump, which runs the uploads and the
 * completion callbacks on the game's thread.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/internal.h"
#include "runtime/manager_parts.h"

static uint64_t file_size_estimate(kiln_manager *m, kiln_handle handle) {
    uint32_t mount;
    const kiln_manifest_entry *entry;
    if (!mgr_resolve(m, handle, &mount, &entry))
        return 0;
    const mgr_mount *mt = mgr_mount_at(m, mount);
    const char *path = kiln_manifest_path(&mt->man->view, entry);
    kiln_pack_item item;
    if (mt->is_pack)
        return kiln_pack_find(&mt->man->pack, path, &item) == KILN_OK ? item.size : 0;
    return 0; /* a folder file's size is known once read */
}

/* Adds `scope`'s hold on `handle` (a no-op when it already holds it):
 * the slot index, or 0 with `err` filled. *added says whether it is new. */
static uint32_t hold(kiln_manager *m, kiln_scope scope, kiln_handle handle, int32_t priority,
                     bool queue, const char *ref_string, bool *added, kiln_error *err) {
    *added = false;
    mgr_scope *sc = mgr_scope_find(m, scope);
    if (sc == NULL) {
        runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                     "loading into scope 0x%08" PRIx32
                     ": not alive (already destroyed, or never created)",
                     scope);
        return 0;
    }
    uint32_t scope_index = scope & 0xffffu;
    if (sc->budget != 0) {
        uint64_t estimate = file_size_estimate(m, handle);
        if (sc->bytes + estimate > sc->budget) {
            runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, sc->name,
                         "budget of %" PRIu64 " bytes: the scope holds %" PRIu64
                         ", '%s' needs %" PRIu64 " more",
                         sc->budget, sc->bytes, ref_string ? ref_string : "the asset", estimate);
            return 0;
        }
    }
    const char *who = ref_string != NULL ? ref_string : "kiln manager";
    uint32_t index =
        mgr_find_or_create(m, handle, KILN_ASSET_INVALID, priority, queue, err, who, ref_string);
    if (index == 0)
        return 0;
    mgr_slot *s = mgr_slot_at(m, index);
    for (uint32_t i = 0; i < s->reach_count; i++)
        if (s->reach[i].scope == scope_index && s->reach[i].direct)
            return index; /* already held by this scope */
    if (!mgr_grow(m, (void **)&sc->holds, &sc->hold_capacity, sc->hold_count + 1,
                  sizeof *sc->holds) ||
        !mgr_reach_add(m, index, scope_index, true)) {
        if (s->refs == 0 && s->pins == 0) {
            s->refs = 1;
            mgr_release(m, index);
        }
        runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, who, "out of memory");
        return 0;
    }
    s->refs++;
    sc->holds[sc->hold_count++] = index;
    *added = true;
    return index;
}

/* Takes back a hold `hold` added, for a budget refusal (lock held). */
static void unhold(kiln_manager *m, kiln_scope scope, uint32_t index) {
    mgr_scope *sc = mgr_scope_find(m, scope);
    if (sc == NULL)
        return;
    for (uint32_t i = sc->hold_count; i-- > 0;) {
        if (sc->holds[i] == index) {
            sc->holds[i] = sc->holds[--sc->hold_count];
            mgr_reach_remove(m, index, scope & 0xffffu, true);
            mgr_release(m, index);
            return;
        }
    }
}

static bool over_budget(kiln_manager *m, kiln_scope scope, kiln_error *err, const char *ref) {
    mgr_scope *sc = mgr_scope_find(m, scope);
    if (sc == NULL || sc->budget == 0 || sc->bytes <= sc->budget)
        return false;
    runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, sc->name,
                 "budget of %" PRIu64 " bytes: loading '%s' would take it to %" PRIu64, sc->budget,
                 ref, sc->bytes);
    return true;
}

/* ---------------------------------------------------------------------------
 * Public loading calls
 * ------------------------------------------------------------------------- */

static kiln_result load(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                        const char *ref_string, kiln_ref *ref, kiln_error *err) {
    if (ref != NULL)
        memset(ref, 0, sizeof *ref);
    if (m == NULL || ref == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "loading needs a manager and a ref");
    pthread_mutex_lock(&m->lock);
    bool added;
    kiln_error local;
    kiln_error *e = err != NULL ? err : &local;
    uint32_t index = hold(m, scope, handle, 0, false, ref_string, &added, e);
    if (index == 0) {
        pthread_mutex_unlock(&m->lock);
        return e->code;
    }
    mgr_slot *s = mgr_slot_at(m, index);
    s->pins++;
    mgr_ensure_ready(m, index);
    kiln_result result = KILN_OK;
    if (mgr_slot_state(s) == SLOT_FAILED) {
        *e = s->error;
        result = s->error.code != KILN_OK ? s->error.code : KILN_ERR_CORRUPT;
        *ref = (kiln_ref){scope, index, s->generation};
    } else if (mgr_slot_state(s) == SLOT_READY && added &&
               over_budget(m, scope, e, s->data->asset.ref)) {
        result = KILN_ERR_OUT_OF_MEMORY;
        unhold(m, scope, index);
    } else if (mgr_slot_state(s) == SLOT_READY) {
        *ref = (kiln_ref){scope, index, s->generation};
        runtime_succeed(err);
    } else { /* released under us: the scope went while loading */
        result = runtime_fail(e, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                              "scope 0x%08" PRIx32 " was destroyed during the load", scope);
    }
    mgr_unpin(m, index);
    pthread_mutex_unlock(&m->lock);
    return result;
}

/* A development runtime connected to a cook server asks it for what it
 * cannot load (manager_dev.c); a shipping one has no such step. */
static kiln_result load_or_cook(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                const char *ref_string, kiln_ref *ref, kiln_error *err) {
    kiln_result result = load(m, scope, handle, ref_string, ref, err);
    const mgr_dev_hooks *dev = result != KILN_OK ? mgr_cook_server_hooks(m) : NULL;
    if (dev != NULL)
        result = dev->cook_missing(m, scope, handle, ref_string, ref, err, result, load);
    return result;
}

kiln_result kiln_manager_load(kiln_manager *m, kiln_scope scope, kiln_handle handle, kiln_ref *ref,
                              kiln_error *err) {
    return load_or_cook(m, scope, handle, NULL, ref, err);
}

kiln_result kiln_manager_load_ref(kiln_manager *m, kiln_scope scope, const char *ref_string,
                                  kiln_ref *ref, kiln_error *err) {
    if (ref_string == NULL) {
        if (ref != NULL)
            memset(ref, 0, sizeof *ref);
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "no ref string");
    }
    return load_or_cook(m, scope, kiln_ref_hash(ref_string), ref_string, ref, err);
}

static kiln_result request(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                           const char *ref_string, int32_t priority, kiln_load_callback callback,
                           void *user, kiln_ref *ref, kiln_error *err) {
    if (ref != NULL)
        memset(ref, 0, sizeof *ref);
    if (m == NULL || ref == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_request needs a manager and a ref");
    kiln_error local;
    kiln_error *e = err != NULL ? err : &local;
    pthread_mutex_lock(&m->lock);
    if (callback != NULL && !mgr_grow(m, (void **)&m->requests, &m->request_capacity,
                                      m->request_count + 1, sizeof *m->requests)) {
        pthread_mutex_unlock(&m->lock);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager", "out of memory");
    }
    bool added;
    uint32_t index = hold(m, scope, handle, priority, true, ref_string, &added, e);
    if (index == 0) {
        pthread_mutex_unlock(&m->lock);
        return e->code;
    }
    mgr_slot *s = mgr_slot_at(m, index);
    *ref = (kiln_ref){scope, index, s->generation};
    if (callback != NULL) {
        m->requests[m->request_count++] = (mgr_request){scope, *ref, callback, user};
        uint32_t state = mgr_slot_state(s);
        if (state == SLOT_READY || state == SLOT_FAILED)
            m->settled = true; /* nothing will settle it: the next pump delivers it */
    }
    pthread_mutex_unlock(&m->lock);
    return runtime_succeed(err);
}

/* A completion callback taken off the request list, to call unlocked. */
#define MGR_DELIVERY_BATCH 16u
typedef struct mgr_delivery {
    mgr_request request;
    kiln_result result;
    kiln_error err;
} mgr_delivery;

/* Whether a request's scope is alive and still holds the slot it names
 * (callable unlocked: atomic loads only). */
static bool request_alive(const kiln_manager *m, const mgr_request *q) {
    uint32_t index = q->scope & 0xffffu;
    if (index >= m->scope_capacity ||
        atomic_load_explicit(&m->scopes[index].id, memory_order_acquire) != q->scope)
        return false;
    const mgr_slot *s = mgr_slot_at(m, q->ref.slot);
    return s != NULL &&
           atomic_load_explicit(&s->tag, memory_order_acquire) >> 8 == q->ref.generation;
}

kiln_result kiln_manager_request(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                 int32_t priority, kiln_load_callback callback, void *user,
                                 kiln_ref *ref, kiln_error *err) {
    return request(m, scope, handle, NULL, priority, callback, user, ref, err);
}

kiln_result kiln_manager_request_ref(kiln_manager *m, kiln_scope scope, const char *ref_string,
                                     int32_t priority, kiln_load_callback callback, void *user,
                                     kiln_ref *ref, kiln_error *err) {
    if (ref_string == NULL) {
        if (ref != NULL)
            memset(ref, 0, sizeof *ref);
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "no ref string");
    }
    kiln_result result = request(m, scope, kiln_ref_hash(ref_string), ref_string, priority,
                                 callback, user, ref, err);
    /* No manifest names it: a connected cook server cooks it first. */
    const mgr_dev_hooks *dev = mgr_cook_server_hooks(m);
    if (result == KILN_ERR_NOT_FOUND && ref != NULL && dev != NULL)
        result = dev->defer(m, scope, ref_string, priority, callback, user, result, err);
    return result;
}

/* The handle and ref of the main entry of asset `id` in the mounted
 * manifests, the last mounted first; false (with `err`) when none names it.
 * The ref is copied: a refresh may replace the manifest it is in. */
static bool resolve_id(kiln_manager *m, kiln_asset_id id, kiln_handle *handle, char *ref,
                       size_t capacity, kiln_error *err) {
    char text[KILN_ASSET_ID_TEXT_SIZE];
    kiln_asset_id_format(id, text);
    if (m == NULL) {
        runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "no manager");
        return false;
    }
    pthread_mutex_lock(&m->lock);
    const kiln_manifest_entry *entry = NULL;
    const mgr_mount *mount = NULL;
    for (uint32_t i = m->mount_count; entry == NULL && i-- > 0;) {
        mount = mgr_mount_at(m, i);
        entry = kiln_manifest_find_id(&mount->man->view, id);
    }
    if (entry != NULL) {
        *handle = entry->hash;
        const char *found = kiln_manifest_ref(&mount->man->view, entry);
        if (strlen(found) < capacity)
            memcpy(ref, found, strlen(found) + 1);
        else
            ref[0] = '\0'; /* too long to copy: the handle alone names it */
    }
    pthread_mutex_unlock(&m->lock);
    if (entry == NULL)
        runtime_fail(err, KILN_ERR_NOT_FOUND, text, "no mounted manifest has this asset ID");
    return entry != NULL;
}

/* A longer ref is loaded by its handle alone (messages then lack its name). */
#define ID_REF_MAX 1024

kiln_result kiln_manager_load_id(kiln_manager *m, kiln_scope scope, kiln_asset_id id, kiln_ref *ref,
                                 kiln_error *err) {
    kiln_handle handle = 0;
    char ref_string[ID_REF_MAX];
    if (ref != NULL)
        memset(ref, 0, sizeof *ref);
    if (!resolve_id(m, id, &handle, ref_string, sizeof ref_string, err))
        return err != NULL ? err->code : KILN_ERR_NOT_FOUND;
    return load_or_cook(m, scope, handle, ref_string[0] ? ref_string : NULL, ref, err);
}

kiln_result kiln_manager_request_id(kiln_manager *m, kiln_scope scope, kiln_asset_id id,
                                    int32_t priority, kiln_load_callback callback, void *user,
                                    kiln_ref *ref, kiln_error *err) {
    kiln_handle handle = 0;
    char ref_string[ID_REF_MAX];
    if (ref != NULL)
        memset(ref, 0, sizeof *ref);
    if (!resolve_id(m, id, &handle, ref_string, sizeof ref_string, err))
        return err != NULL ? err->code : KILN_ERR_NOT_FOUND;
    return request(m, scope, handle, ref_string[0] ? ref_string : NULL, priority, callback, user,
                   ref, err);
}

uint32_t kiln_manager_pump(kiln_manager *m) {
    if (m == NULL)
        return 0;
    uint32_t called = 0;
    const mgr_dev_hooks *dev = mgr_cook_server_hooks(m);
    if (dev != NULL)
        called += dev->pump(m); /* requests by ref whose cook was answered */
    pthread_mutex_lock(&m->lock);
    /* Hot reload: this pump ends the grace period of data replaced two
     * pumps ago; a watched folder whose manifest changed is refreshed. */
    m->pumps++;
    mgr_retired_free(m, false);
    if (mgr_watch_poll(m)) {
        kiln_error ignored; /* reported through the reloaded callback and the status */
        mgr_refresh(m, &ignored);
    }
    /* Without workers, the queue is loaded here. */
    while (m->thread_count == 0 && m->heap_count > 0) {
        uint32_t index = m->heap[0];
        mgr_slot_at(m, index)->pins++;
        mgr_ensure_ready(m, index);
        mgr_unpin(m, index);
    }
    /* Uploads, dependencies first: finishing one may put its dependents on
     * the list. */
    while (m->finish_count > 0) {
        uint32_t index = m->finish[m->finish_count - 1];
        mgr_slot_at(m, index)->pins++;
        mgr_ensure_ready(m, index); /* takes it off the list, uploads */
        mgr_slot *s = mgr_slot_at(m, index);
        if (s->in_finish) /* finished by another thread meanwhile */
            mgr_finish_remove(m, index);
        mgr_unpin(m, index);
    }
    /* Completion callbacks, only when a slot settled since the last look
     * (m->settled), in batches: the deliverable requests are taken off the
     * list under the lock, then called with one unlock per batch. */
    bool look = m->settled;
    m->settled = false;
    for (uint32_t i = 0; look;) {
        mgr_delivery batch[MGR_DELIVERY_BATCH];
        uint32_t n = 0;
        while (i < m->request_count && n < MGR_DELIVERY_BATCH) {
            mgr_request q = m->requests[i];
            mgr_slot *s = mgr_slot_at(m, q.ref.slot);
            bool alive = s != NULL && s->generation == q.ref.generation &&
                         mgr_scope_find(m, q.scope) != NULL;
            uint32_t state = alive ? mgr_slot_state(s) : SLOT_FREE;
            if (alive && state != SLOT_READY && state != SLOT_FAILED) {
                i++;
                continue;
            }
            m->requests[i] = m->requests[--m->request_count]; /* entry i: look again */
            if (!alive)
                continue;
            mgr_delivery *d = &batch[n++];
            d->request = q;
            if (state == SLOT_FAILED) {
                d->err = s->error;
                d->result = d->err.code != KILN_OK ? d->err.code : KILN_ERR_CORRUPT;
            } else if (over_budget(m, q.scope, &d->err, s->data->asset.ref)) {
                d->result = KILN_ERR_OUT_OF_MEMORY;
                unhold(m, q.scope, q.ref.slot);
            } else {
                d->result = runtime_succeed(&d->err);
            }
        }
        look = i < m->request_count; /* a full batch: more to look at */
        if (n == 0)
            break;
        pthread_mutex_unlock(&m->lock);
        for (uint32_t k = 0; k < n; k++) {
            const mgr_request *q = &batch[k].request;
            /* An earlier callback of the batch may have destroyed its scope
             * (or cleared it, unloading the asset): then its callback is
             * dropped, as the scope's others are (the scope's id and the
             * slot's generation are atomic). */
            if (!request_alive(m, q))
                continue;
            q->callback(q->user, q->ref, batch[k].result, &batch[k].err);
            called++;
        }
        pthread_mutex_lock(&m->lock);
        /* While unlocked the list may have changed under i (a scope
         * destroyed, requests added): what this pass misses, the next pump
         * looks at. */
        m->settled = true;
    }
    pthread_mutex_unlock(&m->lock);
    return called;
}
