/*
 * manager_reload.c — hot reload's bookkeeping around the asset manager:
 * retired data and its grace period, kiln_manager_refresh (re-reading the
 * folder mounts' manifests and reloading what changed on disk), the folder
 * watch (inotify, polled by kiln_manager_pump) and the reload status. The
 * reload of one asset is mgr_reload_slot in manager_load.c.
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
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/inotify.h>
#endif

#include "runtime/internal.h"
#include "runtime/manager_load.h"

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
    if (same_file(&id, &mt->manifest_id)) {
        mgr_free(m, path, length);
        return KILN_OK;
    }
    mt->manifest_id = id; /* a bad manifest is reported once, not at every refresh */
    mgr_manifest *man = mgr_calloc(m, 1, sizeof *man);
    if (man == NULL) {
        mgr_free(m, path, length);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, mt->name, "out of memory");
    }
    pthread_mutex_unlock(&m->lock);
    kiln_result r = kiln_file_map(&man->file, path, m->open_flags, err);
    if (r == KILN_OK)
        r = kiln_manifest_view_get(&man->file, &man->view, err);
    pthread_mutex_lock(&m->lock);
    mgr_free(m, path, length);
    if (r != KILN_OK) {
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
 * Watching the folder mounts
 * ------------------------------------------------------------------------- */

#define WATCH_QUIET_NS 100000000ull /* 100 ms without events before a refresh */

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

#ifdef __linux__

/* The name a pack mount's file has in its folder. */
static const char *pack_base(const mgr_mount *mt) {
    const char *slash = strrchr(mt->pack_path, '/');
    return slash != NULL ? slash + 1 : mt->pack_path;
}

/* A folder mount's folder, or the folder holding a pack mount's file (the
 * pack is replaced by a rename into it). One mask for both: a second watch
 * of the same folder replaces the first one's mask. */
kiln_result mgr_watch_mount(kiln_manager *m, uint32_t i, kiln_error *err) {
    mgr_mount *mt = m->mounts[i];
    if (m->watch_fd < 0 || mt->watch >= 0)
        return KILN_OK;
    char folder[4096];
    const char *dir = mt->dir;
    if (mt->is_pack) {
        const char *base = pack_base(mt);
        size_t length = (size_t)(base - mt->pack_path);
        if (length >= sizeof folder)
            return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, mt->name,
                                "cannot watch: path too long");
        if (length == 0)
            snprintf(folder, sizeof folder, ".");
        else if (length == 1)
            snprintf(folder, sizeof folder, "/");
        else
            snprintf(folder, sizeof folder, "%.*s", (int)(length - 1), mt->pack_path);
        dir = folder;
    }
    int wd = inotify_add_watch(
        m->watch_fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE);
    if (wd < 0) {
        char reason[128];
        return runtime_fail(err, KILN_ERR_IO, mt->name, "cannot watch: %s",
                            runtime_os_reason(errno, reason, sizeof reason));
    }
    mt->watch = wd;
    return KILN_OK;
}

void mgr_watch_close(kiln_manager *m) {
    if (m->watch_fd >= 0)
        close(m->watch_fd);
    m->watch_fd = -1;
    m->watch_dirty = false;
    for (uint32_t i = 0; i < m->mount_count; i++)
        m->mounts[i]->watch = -1;
}

bool mgr_watch_poll(kiln_manager *m) {
    if (m->watch_fd < 0)
        return false;
    bool manifest = false;
    _Alignas(struct inotify_event) char buffer[4096];
    for (;;) {
        ssize_t got = read(m->watch_fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; /* EAGAIN: nothing more */
        for (char *p = buffer; p < buffer + got;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            /* Whose folder it is: a pack's (only the pack's own name counts,
             * a finished write or a rename onto it), a folder mount's. */
            bool folder = false, pack = false;
            for (uint32_t i = 0; i < m->mount_count; i++) {
                const mgr_mount *mt = m->mounts[i];
                if (mt->watch != ev->wd)
                    continue;
                if (!mt->is_pack)
                    folder = true;
                else if (ev->len > 0 && strcmp(ev->name, pack_base(mt)) == 0 &&
                         (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) != 0)
                    pack = true;
            }
            if ((ev->mask & IN_Q_OVERFLOW) != 0) {
                m->watch_dirty = true;
                m->watch_last_ns = now_ns();
            } else if (pack ||
                       (folder && ev->len > 0 && strcmp(ev->name, KILN_MANIFEST_FILE_NAME) == 0 &&
                        (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) != 0))
                manifest = true;
            else if (folder && (ev->len == 0 || ev->name[0] != '.')) {
                m->watch_dirty = true; /* a temporary file of the cooker (".name") is not */
                m->watch_last_ns = now_ns();
            }
            p += sizeof *ev + ev->len;
        }
    }
    if (manifest || (m->watch_dirty && now_ns() - m->watch_last_ns >= WATCH_QUIET_NS)) {
        m->watch_dirty = false;
        return true;
    }
    return false;
}

kiln_result kiln_manager_watch(kiln_manager *m, bool enable, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_watch needs a manager");
    pthread_mutex_lock(&m->lock);
    kiln_result r = KILN_OK;
    if (!enable) {
        mgr_watch_close(m);
    } else if (m->watch_fd < 0) {
        m->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (m->watch_fd < 0) {
            char reason[128];
            r = runtime_fail(err, KILN_ERR_IO, "kiln manager", "cannot start watching: %s",
                             runtime_os_reason(errno, reason, sizeof reason));
        }
        for (uint32_t i = 0; r == KILN_OK && i < m->mount_count; i++)
            r = mgr_watch_mount(m, i, err);
        if (r != KILN_OK)
            mgr_watch_close(m);
    }
    pthread_mutex_unlock(&m->lock);
    return r == KILN_OK ? runtime_succeed(err) : r;
}

#else /* no inotify */

kiln_result mgr_watch_mount(kiln_manager *m, uint32_t i, kiln_error *err) {
    (void)m;
    (void)i;
    (void)err;
    return KILN_OK;
}

void mgr_watch_close(kiln_manager *m) {
    m->watch_fd = -1;
}

bool mgr_watch_poll(kiln_manager *m) {
    (void)m;
    (void)now_ns;
    return false;
}

kiln_result kiln_manager_watch(kiln_manager *m, bool enable, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_watch needs a manager");
    if (!enable)
        return runtime_succeed(err);
    return runtime_fail(err, KILN_ERR_UNSUPPORTED, "kiln manager",
                        "watching folders needs inotify (Linux); call kiln_manager_refresh");
}

#endif
