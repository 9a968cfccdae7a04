/*
 * manager_reload.c — hot reload: the reload of one asset in place
 * (mgr_reload_slot, kiln_manager_reload), retired data and its grace period,
 * kiln_manager_refresh (re-reading the mounts' manifests and reloading what
 * changed on disk) and the reload status. The folder watch that triggers
 * refreshes from kiln_manager_pump is manager_watch.c.
 *
 * Grace period: kiln_asset_get is lock-free, so a game thread may be using
 * data a reload has just replaced. Replaced data goes on the retired list
 * tagged with the pump count two ahead; kiln_manager_pump counts itself, then
 * frees what is due. Data shown is never written again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/internal.h"
#include "runtime/manager_parts.h"

void mgr_notify(kiln_manager *m, const kiln_reload_event *event) {
    if (m->engine.reloaded != NULL)
        m->engine.reloaded(m->engine.user, event);
}

/* ---------------------------------------------------------------------------
 * Retired data (lock held)
 * ------------------------------------------------------------------------- */

void mgr_retire(kiln_manager *m, mgr_data *d) {
    d->retire_pump = m->pumps + 2;
    d->next_retired = m->retired;
    m->retired = d;
}

/* Frees retired data whose grace period is over (all: every one, for
 * kiln_manager_destroy). Freeing may release dependencies, which never
 * retires anything, so the list is only shortened meanwhile. */
void mgr_retired_free(kiln_manager *m, bool all) {
    mgr_data **link = &m->retired;
    while (*link != NULL) {
        mgr_data *d = *link;
        if (all || d->retire_pump <= m->pumps) {
            *link = d->next_retired;
            mgr_data_release(m, d);
        } else {
            link = &d->next_retired;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Refresh (lock held; it unlocks while mapping manifests and reloading)
 * ------------------------------------------------------------------------- */

static bool same_file(const mgr_file_id *a, const mgr_file_id *b) {
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

/* "<dir>/<name>" in manager memory; NULL when out of memory. */
static char *join(kiln_manager *m, const mgr_mount *mt, const char *name, size_t *length) {
    *length = mt->dir_length + 1 + strlen(name) + 1;
    char *path = mgr_alloc(m, *length, 1);
    if (path != NULL)
        snprintf(path, *length, "%s/%s", mt->dir, name);
    return path;
}

static void keep_first(kiln_result *first, kiln_error *err, kiln_result r, const kiln_error *e) {
    if (r == KILN_OK || *first != KILN_OK)
        return;
    *first = r;
    if (err != NULL)
        *err = *e;
}

/* Maps mount `i`'s assets.kman again when it changed on disk (lock held;
 * released while mapping). Also cooking on demand's step after a cook. */
kiln_result mgr_refresh_manifest(kiln_manager *m, uint32_t i, kiln_error *err) {
    mgr_mount *mt = m->mounts[i];
    size_t length;
    char *path = join(m, mt, KILN_MANIFEST_FILE_NAME, &length);
    if (path == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, mt->name, "out of memory");
    struct stat st;
    if (stat(path, &st) != 0) {
        char reason[128];
        int saved = errno;
        mgr_free(m, path, length);
        return runtime_fail(err, KILN_ERR_IO, mt->name, "cannot read %s: %s",
                            KILN_MANIFEST_FILE_NAME,
                            runtime_os_reason(saved, reason, sizeof reason));
    }
    mgr_file_id id;
    mgr_file_id_of(&st, &id);
    /* Only a manifest installed counts as current: while another thread maps
     * this very file (lock released), returning here would let a caller that
     * just had an asset cooked look it up in the manifest before. */
    if (same_file(&id, &mt->manifest_id) && mt->manifest_mapping == 0) {
        mgr_free(m, path, length);
        return KILN_OK;
    }
    mgr_manifest *man = mgr_calloc(m, 1, sizeof *man);
    if (man == NULL) {
        mgr_free(m, path, length);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, mt->name, "out of memory");
    }
    uint64_t refresh = ++mt->manifest_refreshes;
    mt->manifest_mapping++;
    pthread_mutex_unlock(&m->lock);
    kiln_result r = kiln_file_map(&man->file, path, m->open_flags, err);
    if (r == KILN_OK)
        r = kiln_manifest_view_get(&man->file, &man->view, err);
    pthread_mutex_lock(&m->lock);
    mt->manifest_mapping--;
    mgr_free(m, path, length);
    /* A refresh that began later and ended first installed a newer file. */
    bool newest = refresh > mt->manifest_installed;
    if (newest) {
        mt->manifest_installed = refresh;
        mt->manifest_id = id; /* a bad manifest is reported once, not at every refresh */
    }
    if (r != KILN_OK || !newest) {
        kiln_file_close(&man->file);
        mgr_free(m, man, sizeof *man);
        return r;
    }
    /* Data made under the old manifest points into its strings: it lives
     * until the last such data goes. */
    mgr_manifest *old = mt->man;
    mt->man = man;
    old->replaced = true;
    if (old->users == 0) {
        kiln_file_close(&old->file);
        mgr_free(m, old, sizeof *old);
    }
    m->refreshes++;
    return KILN_OK;
}

/* Opens pack mount `i` again when its file was replaced on disk (lock held;
 * released while mapping): `kiln build --pack` writes a new file and renames
 * it over the old one, so a new version is a new inode, size or time. The
 * new pack becomes the mount's (with its manifest); the old one stays mapped
 * while data read from it is alive (its manifest's users). A replacement
 * that does not open (truncated, corrupt, no manifest) is reported, once per
 * version, as a failed reload of every asset loaded from the mount, which
 * keeps its data; the old pack stays the mount's. */
static kiln_result refresh_pack(kiln_manager *m, uint32_t i, kiln_error *err) {
    mgr_mount *mt = m->mounts[i];
    struct stat st;
    mgr_file_id id;
    memset(&id, 0, sizeof id);
    if (stat(mt->pack_path, &st) == 0)
        mgr_file_id_of(&st, &id);
    if (same_file(&id, &mt->manifest_id))
        return KILN_OK;
    mt->manifest_id = id; /* a bad pack is reported once, not at every refresh */
    mgr_manifest *man = mgr_calloc(m, 1, sizeof *man);
    kiln_error why;
    memset(&why, 0, sizeof why);
    kiln_result r = KILN_OK;
    if (man == NULL) {
        r = runtime_fail(&why, KILN_ERR_OUT_OF_MEMORY, mt->name, "out of memory");
    } else {
        pthread_mutex_unlock(&m->lock);
        r = kiln_pack_open(&man->pack, mt->pack_path, &why);
        if (r == KILN_OK)
            r = kiln_pack_manifest(&man->pack, &man->file, m->open_flags, &why);
        if (r == KILN_OK)
            r = kiln_manifest_view_get(&man->file, &man->view, &why);
        pthread_mutex_lock(&m->lock);
    }
    if (r != KILN_OK) {
        if (man != NULL) {
            kiln_file_close(&man->file);
            kiln_pack_close(&man->pack);
            mgr_free(m, man, sizeof *man);
        }
        kiln_error e;
        runtime_fail(&e, r, mt->name,
                     "replaced on disk by a pack that cannot be opened, the old data stays: %s",
                     why.message);
        if (err != NULL)
            *err = e;
        for (uint32_t j = 1; j < m->slots_used; j++) {
            mgr_slot *s = mgr_slot_at(m, j);
            if (mgr_slot_state(s) == SLOT_READY && s->refs > 0 && s->mount == i)
                mgr_reload_fail(m, j, &e, NULL);
        }
        return r;
    }
    mgr_manifest *old = mt->man;
    mt->man = man;
    mt->dev = st.st_dev; /* mounting the path again is still "already mounted" */
    mt->ino = st.st_ino;
    old->replaced = true;
    if (old->users == 0) {
        kiln_file_close(&old->file);
        kiln_pack_close(&old->pack);
        mgr_free(m, old, sizeof *old);
    }
    m->refreshes++;
    return KILN_OK;
}

/* Whether ready slot `s` of a pack mount should be reloaded: the mount's
 * pack is not the one its data came from, and the new pack's entry for its
 * file differs (another path or kind for its ref, no such file, other
 * bytes). The pack's entry table has no checksum, so "differs" is a size,
 * then a byte comparison of the two mapped payloads (as the folder refresh
 * compares file bytes). Unchanged data keeps pointing into the old pack,
 * which stays mapped for it. */
static bool pack_slot_changed(kiln_manager *m, mgr_slot *s) {
    const mgr_mount *mt = mgr_mount_at(m, s->mount);
    const mgr_manifest *had = s->data->manifest, *now = mt->man;
    if (had == now || s->checked_manifest == now)
        return false;
    s->checked = true;
    s->checked_manifest = now;
    const kiln_manifest_entry *e = kiln_manifest_find(&now->view, s->data->asset.handle);
    if (e == NULL || e->kind != s->expected_kind ||
        strcmp(kiln_manifest_path(&now->view, e), s->path) != 0)
        return true; /* the reload says why it keeps the old data */
    kiln_pack_item a, b;
    if (kiln_pack_find(&had->pack, s->path, &a) != KILN_OK ||
        kiln_pack_find(&now->pack, s->path, &b) != KILN_OK)
        return true;
    bool changed = a.size != b.size || memcmp(a.data, b.data, (size_t)a.size) != 0;
    if (!changed)
        s->reload_failed = false; /* what is shown is what the pack says */
    return changed;
}

/* Whether ready slot `s` of a folder mount should be reloaded: its file's
 * version differs from the one last acted on, or its ref no longer names
 * its file in a manifest not yet acted on. */
static bool slot_changed(kiln_manager *m, mgr_slot *s) {
    const mgr_mount *mt = mgr_mount_at(m, s->mount);
    size_t length;
    char *path = join(m, mt, s->path, &length);
    if (path == NULL)
        return false;
    mgr_file_id id;
    struct stat st;
    memset(&id, 0, sizeof id);
    if (stat(path, &st) == 0)
        mgr_file_id_of(&st, &id);
    mgr_free(m, path, length);
    const mgr_file_id *last = s->checked ? &s->checked_id : &s->data->file_id;
    bool changed = !same_file(&id, last);
    if (!changed && s->checked_manifest != mt->man) {
        const kiln_manifest_entry *e = kiln_manifest_find(&mt->man->view, s->data->asset.handle);
        changed = e == NULL || e->kind != s->expected_kind ||
                  strcmp(kiln_manifest_path(&mt->man->view, e), s->path) != 0;
    }
    s->checked = true;
    s->checked_id = id;
    s->checked_manifest = mt->man;
    return changed;
}

kiln_result mgr_refresh(kiln_manager *m, kiln_error *err) {
    kiln_result first = KILN_OK;
    kiln_error e;
    for (uint32_t i = 0; i < m->mount_count; i++) {
        kiln_result r =
            m->mounts[i]->is_pack ? refresh_pack(m, i, &e) : mgr_refresh_manifest(m, i, &e);
        keep_first(&first, err, r, &e);
    }
    /* Dependents first (clips and scenes, meshes, tables, textures): a
     * dependency a reloaded dependent no longer names is released before
     * its turn, and skipped when no scope reaches it any more (only replaced
     * data still holds it), instead of failing for a file its cook removed.
     * A dependency reloaded after its dependent tells it (an event). Clips
     * and scenes hold one another (a clip its scene, a level the scenes it
     * places or names), always from a smaller `nest` to a larger one: they
     * go by `nest`, one pass per value. */
    uint32_t deepest = 0;
    for (uint32_t j = 1; j < m->slots_used; j++) {
        mgr_slot *s = mgr_slot_at(m, j);
        if (mgr_slot_state(s) != SLOT_FREE && s->nest > deepest)
            deepest = s->nest;
    }
    static const kiln_asset_kind order[] = {KILN_ASSET_SCENE, KILN_ASSET_SHADER, KILN_ASSET_MESH,
                                            KILN_ASSET_MATERIAL, KILN_ASSET_TEXTURE};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        for (uint32_t j = 1, nest = 0; nest <= deepest; j++) {
            if (j == m->slots_used) { /* the next nest value (scenes and clips only) */
                j = 0;
                nest = order[k] == KILN_ASSET_SCENE ? nest + 1 : deepest + 1;
                continue;
            }
            mgr_slot *s = mgr_slot_at(m, j);
            bool scene_or_clip =
                s->expected_kind == KILN_ASSET_SCENE || s->expected_kind == KILN_ASSET_ANIMATION;
            bool kind = order[k] == KILN_ASSET_SCENE ? scene_or_clip && s->nest == nest
                                                     : s->expected_kind == order[k];
            if (mgr_slot_state(s) != SLOT_READY || s->refs == 0 || s->reach_count == 0 ||
                s->reloading || !kind)
                continue;
            bool changed =
                mgr_mount_at(m, s->mount)->is_pack ? pack_slot_changed(m, s) : slot_changed(m, s);
            if (!changed)
                continue;
            s->pins++;
            kiln_result r = mgr_reload_slot(m, j, false, &e);
            keep_first(&first, err, r, &e);
            mgr_unpin(m, j);
        }
    }
    return first == KILN_OK ? runtime_succeed(err) : first;
}

kiln_result kiln_manager_refresh(kiln_manager *m, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_refresh needs a manager");
    pthread_mutex_lock(&m->lock);
    kiln_result r = mgr_refresh(m, err);
    pthread_mutex_unlock(&m->lock);
    return r;
}

kiln_result kiln_asset_reload_status(kiln_manager *m, kiln_ref ref, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "no manager");
    pthread_mutex_lock(&m->lock);
    mgr_slot *s = mgr_slot_at(m, ref.slot);
    bool alive = s != NULL && s->generation == ref.generation && ref.generation != 0 &&
                 mgr_slot_state(s) != SLOT_FREE &&
                 (ref.scope == 0 || mgr_scope_find(m, ref.scope) != NULL);
    kiln_result r;
    if (!alive)
        r = runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                         "reload status of a stale ref (slot %" PRIu32 ")", ref.slot);
    else if (s->reload_failed) {
        r = s->reload_error.code;
        if (err != NULL)
            *err = s->reload_error;
    } else
        r = runtime_succeed(err);
    pthread_mutex_unlock(&m->lock);
    return r;
}

/* ---------------------------------------------------------------------------
 * Reloading in place (lock held; the slot is pinned and READY)
 * ------------------------------------------------------------------------- */

kiln_result mgr_reload_fail(kiln_manager *m, uint32_t index, const kiln_error *why,
                            kiln_error *err) {
    mgr_slot *s = mgr_slot_at(m, index);
    s->reload_failed = true;
    s->reload_error = *why;
    if (s->reload_error.code == KILN_OK)
        s->reload_error.code = KILN_ERR_CORRUPT;
    m->reload_failures++;
    kiln_reload_event event = {.kind = KILN_RELOAD_FAILED,
                               .handle = s->data->asset.handle,
                               .asset = &s->data->asset,
                               .result = s->reload_error.code,
                               .error = &s->reload_error};
    mgr_notify(m, &event);
    if (err != NULL)
        *err = s->reload_error;
    return s->reload_error.code;
}

/* Reads the slot's file into `n` (unlocked), links and loads its
 * dependencies, and runs the engine's create callbacks for it (unlocked).
 * KILN_OK, or the failure in `why`; `n` holds whatever it got either way.
 * *unchanged: the file has the old data's bytes, and nothing more was done. */
static kiln_result reload_build(kiln_manager *m, uint32_t index, const mgr_mount *mt, mgr_data *n,
                                bool force, bool *unchanged, kiln_error *why) {
    mgr_slot *s = mgr_slot_at(m, index);
    mgr_slot tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.data = n;
    tmp.path = n->asset.path;
    tmp.expected_kind = s->expected_kind;
    tmp.mount = s->mount;
    pthread_mutex_unlock(&m->lock);
    kiln_result r = mgr_read_asset(m, &tmp, mt, why);
    pthread_mutex_lock(&m->lock);
    if (r != KILN_OK)
        return r;
    /* A folder file rewritten with the same bytes (a recook that changed
     * nothing in it) is not applied: no engine objects are remade. */
    const mgr_data *old = s->data;
    if (!force && n->file_memory != NULL && old->file_memory != NULL &&
        n->file_memory_size == old->file_memory_size &&
        memcmp(n->file_memory, old->file_memory, n->file_memory_size) == 0) {
        *unchanged = true;
        return KILN_OK;
    }
    /* The new data's holds are part of the graph from now on (the caller
     * clears this when it shows or drops the data). */
    s->reload_data = n;
    tmp.priority = s->priority;
    r = mgr_hold_deps(m, index, &tmp, false, why);
    /* New dependencies load here, synchronously (our holds keep them). */
    for (uint32_t i = 0; r == KILN_OK && i < n->asset.dependency_count; i++) {
        uint32_t dep = n->deps[i].ref.slot;
        mgr_slot *d = mgr_slot_at(m, dep);
        d->pins++;
        mgr_ensure_ready(m, dep);
        if (mgr_slot_state(d) != SLOT_READY)
            r = mgr_fail_needs(why, d->error.code, n->asset.path,
                               d->data->asset.ref != NULL ? d->data->asset.ref : "a dependency",
                               d->error.message);
        mgr_unpin(m, dep);
    }
    if (r != KILN_OK)
        return r;
    if (mgr_needs_upload(m, &tmp)) {
        pthread_mutex_unlock(&m->lock);
        kiln_error e;
        e.code = KILN_OK;
        e.message[0] = '\0';
        r = mgr_upload(m, &tmp, &e);
        pthread_mutex_lock(&m->lock);
        if (r != KILN_OK) {
            *why = e;
            why->code = r;
            return r;
        }
        if (n->staging != NULL && n->asset.texels == NULL)
            mgr_data_release_staging(m, n); /* ours, copied by create_texture */
    } else if (n->staging != NULL) {        /* kept texels (KILN_MANAGER_KEEP_TEXELS) */
        n->asset.texels = n->staging;
        n->asset.texel_bytes = n->staging_size;
    }
    n->asset.bytes = n->asset.file_bytes + (n->asset.texels != NULL ? n->staging_size : 0);
    return KILN_OK;
}

/* Shows `n` in place of the slot's data and retires the old one; `node` is
 * where the slot's own data moves when it is the one replaced. */
static void reload_apply(kiln_manager *m, uint32_t index, mgr_data *n, mgr_data *node) {
    mgr_slot *s = mgr_slot_at(m, index);
    mgr_data *old = s->data;
    const kiln_asset *previous = atomic_load_explicit(&s->shown, memory_order_relaxed);
    /* Every scope reaching the slot reaches the new dependencies, then no
     * longer the old ones (in this order, so a dependency in both stays
     * reached); the old data keeps its holds until it is freed. */
    bool ok = true;
    for (uint32_t r = 0; r < s->reach_count; r++)
        for (uint32_t i = 0; i < n->asset.dependency_count; i++)
            ok = mgr_reach_add(m, n->deps[i].ref.slot, s->reach[r].scope, false) && ok;
    for (uint32_t r = 0; r < s->reach_count; r++) {
        for (uint32_t i = 0; i < old->asset.dependency_count; i++)
            mgr_reach_remove(m, old->deps[i].ref.slot, s->reach[r].scope, false);
        mgr_scope *sc = &m->scopes[s->reach[r].scope];
        sc->bytes = sc->bytes - old->asset.bytes + n->asset.bytes;
    }
    (void)ok;             /* out of memory here only undercounts a scope's bytes */
    if (old == &s->own) { /* the own data stays as readers see it until the slot is reused */
        *node = s->own;
        node->allocated = true;
        old = node;
    } else {
        mgr_free(m, node, sizeof *node);
    }
    s->data = n;
    s->path = n->asset.path; /* the same path, in the current manifest */
    atomic_store_explicit(&s->shown, &n->asset, memory_order_release);
    s->reloads++;
    s->reload_failed = false;
    m->reloads++;
    kiln_reload_event event = {.kind = KILN_RELOAD_APPLIED,
                               .handle = n->asset.handle,
                               .asset = &n->asset,
                               .previous = previous,
                               .result = KILN_OK};
    mgr_notify(m, &event);
    /* The assets holding it learn that it changed. */
    for (uint32_t j = 1; j < m->slots_used && m->engine.reloaded != NULL; j++) {
        mgr_slot *t = mgr_slot_at(m, j);
        if (mgr_slot_state(t) != SLOT_READY)
            continue;
        for (uint32_t i = 0; i < t->data->asset.dependency_count; i++) {
            if (t->data->deps[i].ref.slot == index) {
                kiln_reload_event dep = {.kind = KILN_RELOAD_DEPENDENCY,
                                         .handle = t->data->asset.handle,
                                         .asset = &t->data->asset,
                                         .dependency = &n->asset,
                                         .result = KILN_OK};
                mgr_notify(m, &dep);
                break;
            }
        }
    }
    mgr_retire(m, old);
}

kiln_result mgr_reload_slot(kiln_manager *m, uint32_t index, bool force, kiln_error *err) {
    mgr_slot *s = mgr_slot_at(m, index);
    while (s->reloading) /* one reload of a slot at a time */
        pthread_cond_wait(&m->done, &m->lock);
    if (mgr_slot_state(s) != SLOT_READY || s->refs == 0)
        return runtime_succeed(err); /* unloaded meanwhile: nothing to reload */
    s->reloading = true;
    const mgr_mount *mt = mgr_mount_at(m, s->mount);
    kiln_error why;
    memset(&why, 0, sizeof why);
    kiln_result r = KILN_OK;
    const char *ref = s->data->asset.ref;
    const kiln_manifest_entry *entry = kiln_manifest_find(&mt->man->view, s->data->asset.handle);
    if (entry == NULL)
        r = runtime_fail(&why, KILN_ERR_NOT_FOUND, s->path,
                         "'%s' is no longer in the manifest of %s: the old data stays", ref,
                         mt->name);
    else if (strcmp(kiln_manifest_path(&mt->man->view, entry), s->path) != 0 ||
             entry->kind != s->expected_kind)
        r = runtime_fail(&why, KILN_ERR_INVALID_ARGUMENT, s->path,
                         "'%s' now names %s (a %s): the old data stays; unload and load it "
                         "again to follow it",
                         ref, kiln_manifest_path(&mt->man->view, entry),
                         kiln_asset_kind_str((kiln_asset_kind)entry->kind));
    mgr_data *n = NULL, *node = NULL;
    bool unchanged = false;
    if (r == KILN_OK) {
        n = mgr_calloc(m, 1, sizeof *n);
        node = mgr_calloc(m, 1, sizeof *node);
        if (n == NULL || node == NULL)
            r = runtime_fail(&why, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
    }
    if (r == KILN_OK) {
        n->allocated = true;
        n->manifest = mt->man;
        mt->man->users++;
        n->asset.handle = s->data->asset.handle;
        n->asset.kind = s->expected_kind;
        n->asset.ref = kiln_manifest_ref(&mt->man->view, entry);
        n->asset.path = kiln_manifest_path(&mt->man->view, entry);
        n->asset.mount = s->mount;
        r = reload_build(m, index, mt, n, force, &unchanged, &why);
        s->reload_data = NULL; /* shown (then s->data) or dropped below, under the lock */
    }
    bool wanted = s->refs > 0 && mgr_slot_state(s) == SLOT_READY;
    if (r == KILN_OK && unchanged)
        s->reload_failed = false; /* what is shown is what the file says */
    if (r == KILN_OK && wanted && !unchanged) {
        reload_apply(m, index, n, node);
    } else {
        if (n != NULL) {
            n->allocated = true;
            mgr_data_release(m, n);
        }
        mgr_free(m, node, sizeof *node);
        if (r != KILN_OK && wanted)
            mgr_reload_fail(m, index, &why, err);
        else
            r = KILN_OK;
    }
    s->reloading = false;
    pthread_cond_broadcast(&m->done);
    return r == KILN_OK ? runtime_succeed(err) : r;
}

kiln_result kiln_manager_reload(kiln_manager *m, kiln_handle handle, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_reload needs a manager");
    pthread_mutex_lock(&m->lock);
    uint32_t index = 0;
    for (uint32_t i = m->mount_count; index == 0 && i-- > 0;) {
        const kiln_manifest_view *view = &mgr_mount_at(m, i)->man->view;
        const kiln_manifest_entry *entry = kiln_manifest_find(view, handle);
        if (entry != NULL)
            index = mgr_map_find(m, i, kiln_manifest_path(view, entry));
    }
    if (index == 0) { /* not loaded: nothing to reload */
        pthread_mutex_unlock(&m->lock);
        return runtime_succeed(err);
    }
    mgr_slot *s = mgr_slot_at(m, index);
    s->pins++;
    mgr_ensure_ready(m, index); /* one still loading is finished first */
    kiln_result r;
    if (s->refs == 0) /* unloaded (or its load cancelled) meanwhile */
        r = runtime_succeed(err);
    else if (mgr_slot_state(s) == SLOT_FAILED)
        r = runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, s->path,
                         "'%s' failed to load (%s): destroy its scope and load it again",
                         s->data->asset.ref, s->error.message);
    else
        r = mgr_reload_slot(m, index, true, err);
    mgr_unpin(m, index);
    pthread_mutex_unlock(&m->lock);
    return r;
}
