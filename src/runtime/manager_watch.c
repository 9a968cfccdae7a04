/*
 * manager_watch.c — the folder watch of hot reload: an inotify watch on each
 * folder mount (and on the folder of each pack), polled by
 * kiln_manager_pump, which refreshes once the events have been quiet for a
 * moment. Without inotify, kiln_manager_watch reports it unsupported.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/inotify.h>
#endif

#include "runtime/internal.h"
#include "runtime/manager_parts.h"

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
