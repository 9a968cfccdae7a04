/*
 * manager_dev.c — cooking on demand, in a development runtime only
 * (KILN_RUNTIME_DEV; a shipping libkiln is built without this file).
 *
 * kiln_manager_connect_cooker names the socket of a running
 * `kiln watch --serve` (protocol: src/common/cook_server.h). When a
 * synchronous load (kiln_manager_load, kiln_manager_load_ref) fails because
 * no mounted manifest knows the asset or its cooked file cannot be read, the
 * manager
 *
 *   1. lets go of the failed ref it just made (so the next load starts afresh),
 *   2. sends `COOK <ref>` and waits for the reply (COOK_WAIT_SECONDS at most),
 *   3. on `OK`, maps again the manifest of the folder mount that is the
 *      server's output folder (the socket's folder), and loads again;
 *      on `ERR`, fails the load with the server's message.
 *
 * The manifest is mapped again by the hot-reload refresh's own step
 * (mgr_refresh_manifest), which keeps a replaced manifest while data made
 * under it points into its strings.
 *
 * A requested (asynchronous) load whose cooked file cannot be read asks the
 * same way from the thread that read it (manager_read.c, cook_and_read): a
 * worker, or, in a manager without workers, the thread calling
 * kiln_manager_pump (which does the loading there); the server cooks it
 * ahead of the changes it has queued. A synchronous load of an asset a
 * manifest names takes the same step on its own thread, so only an asset no
 * manifest names is left to mgr_dev_cook_missing.
 *
 * Stale files (mgr_dev_fresh): before the first read of a slot's file (each
 * time an asset is loaded from disk, not for assets already loaded, which
 * hot reload keeps current) from the folder mount that is the server's
 * output folder, the reader sends `FRESH <ref>`. The server answers from
 * what the watch knows, without a build when nothing changed (SAME); when a
 * change was waiting for its round, that round runs first (OK: the manifest
 * is mapped again before the read); when the source producing the ref
 * failed its last cook (ERR), the file on disk is an older version: it is
 * loaded all the same, as a failed reload keeps the old data, and
 * kiln_asset_reload_status reports the server's message until a reload
 * succeeds. Packs and other folders are never asked about.
 *
 * Requests by ref string that no manifest knows (mgr_dev_defer, from
 * kiln_manager_request_ref): no slot can be made before the manifest names
 * the asset, and the game's thread must not wait for a cook, so they go on a
 * second connection of their own (`async`, non-blocking, its own lock) as
 * `COOK <ref>` lines at once, and kiln_manager_pump reads the replies
 * without waiting (mgr_dev_pump): OK maps the manifest again and requests
 * the asset by its handle, so the usual queue and workers load it and the
 * next pumps call its callback; ERR calls the callback with the server's
 * message. A request whose scope was destroyed meanwhile is dropped without
 * a callback, like a cancelled one.
 *
 * One connection per manager, one conversation on it at a time (the `talk`
 * lock): the server answers each connection's requests in order and cooks
 * one request at a time whichever connection it came on, so a connection per
 * worker would make no cook start sooner; it would only cost a connect and a
 * descriptor per request. Workers asking at once wait their turn. `fd` is
 * written only with both `talk` and `fd_lock` held, so kiln_manager_destroy
 * can shut the connection down (mgr_dev_interrupt, `fd_lock` alone) to wake a
 * worker waiting for a reply instead of waiting for its cook.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/cook_server.h"
#include "runtime/internal.h"
#include "runtime/manager_parts.h"

#define COOK_WAIT_SECONDS 300

/* A request by ref waiting for its cook (mgr_dev_defer). */
typedef struct dev_deferred {
    kiln_scope scope;
    int32_t priority;
    kiln_load_callback callback;
    void *user;
    size_t sent; /* bytes of its line on the connection */
    size_t line_length;
    char line[COOK_SERVER_LINE_MAX]; /* "COOK <ref>\n" */
} dev_deferred;

struct mgr_dev {
    pthread_mutex_t talk;    /* one request at a time */
    pthread_mutex_t fd_lock; /* `fd` and `stopping` against mgr_dev_interrupt */
    bool stopping;           /* the manager is being destroyed: no new connection */
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    dev_t folder_dev; /* the server's output folder */
    ino_t folder_ino;
    int fd; /* -1: not connected */
    /* Requests by ref no manifest knew: their own connection, in order. */
    pthread_mutex_t async; /* the fields below */
    int async_fd;          /* -1: not connected */
    dev_deferred *deferred;
    uint32_t deferred_count, deferred_capacity;
    size_t reply_used; /* a reply line being received */
    char reply[COOK_SERVER_LINE_MAX];
};

/* The calls the loading files make through m->dev_hooks (manager_parts.h),
 * registered when a server is connected: manager_dev.c is above every other
 * file of the manager, and none of them names it. */
static kiln_result mgr_dev_cook_missing(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                        const char *ref_string, kiln_ref *ref, kiln_error *err,
                                        kiln_result failed, mgr_load_fn load);
static kiln_result mgr_dev_cook(kiln_manager *m, const char *name, kiln_result failed,
                                kiln_error *err);
static kiln_result mgr_dev_fresh(kiln_manager *m, uint32_t index, kiln_error *why);
static kiln_result mgr_dev_defer(kiln_manager *m, kiln_scope scope, const char *ref_string,
                                 int32_t priority, kiln_load_callback callback, void *user,
                                 kiln_result failed, kiln_error *err);
static uint32_t mgr_dev_pump(kiln_manager *m);
static void mgr_dev_interrupt(kiln_manager *m);
static void mgr_dev_destroy(kiln_manager *m);

static const mgr_dev_hooks dev_hooks = {
    .cook_missing = mgr_dev_cook_missing,
    .cook = mgr_dev_cook,
    .fresh = mgr_dev_fresh,
    .defer = mgr_dev_defer,
    .pump = mgr_dev_pump,
    .interrupt = mgr_dev_interrupt,
    .destroy = mgr_dev_destroy,
};

static kiln_result open_connection(struct mgr_dev *dev, kiln_error *err) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    memcpy(address.sun_path, dev->socket_path, sizeof address.sun_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)&address, sizeof address) != 0) {
        char reason[128];
        int saved = errno;
        if (fd >= 0)
            close(fd);
        return runtime_fail(err, KILN_ERR_IO, "cook server", "cannot connect to %s: %s",
                            dev->socket_path, runtime_os_reason(saved, reason, sizeof reason));
    }
    struct timeval wait = {.tv_sec = COOK_WAIT_SECONDS};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
    pthread_mutex_lock(&dev->fd_lock);
    bool stopping = dev->stopping;
    if (!stopping)
        dev->fd = fd;
    pthread_mutex_unlock(&dev->fd_lock);
    if (stopping) {
        close(fd);
        return runtime_fail(err, KILN_ERR_IO, "cook server",
                            "the manager is being destroyed: no cook asked");
    }
    return KILN_OK;
}

static void close_connection(struct mgr_dev *dev) {
    pthread_mutex_lock(&dev->fd_lock);
    if (dev->fd >= 0)
        close(dev->fd);
    dev->fd = -1;
    pthread_mutex_unlock(&dev->fd_lock);
}

kiln_result kiln_manager_connect_cooker(kiln_manager *m, const char *socket_path, kiln_error *err) {
    if (m == NULL || socket_path == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_connect_cooker needs a manager and a socket path");
    if (strlen(socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "cook server",
                            "socket path too long for a Unix socket (%zu bytes at most): %s",
                            sizeof(((struct sockaddr_un *)0)->sun_path) - 1, socket_path);
    pthread_mutex_lock(&m->lock);
    bool connected = m->dev != NULL;
    pthread_mutex_unlock(&m->lock);
    if (connected)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "cook server",
                            "this manager is already connected to a cook server");
    struct mgr_dev *dev = mgr_calloc(m, 1, sizeof *dev);
    if (dev == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "cook server", "out of memory");
    snprintf(dev->socket_path, sizeof dev->socket_path, "%s", socket_path);
    dev->fd = -1;
    dev->async_fd = -1;
    /* The output folder: the socket's. */
    char folder[sizeof dev->socket_path];
    snprintf(folder, sizeof folder, "%s", socket_path);
    char *slash = strrchr(folder, '/');
    if (slash == NULL)
        snprintf(folder, sizeof folder, ".");
    else if (slash == folder)
        folder[1] = '\0';
    else
        *slash = '\0';
    if (pthread_mutex_init(&dev->fd_lock, NULL) != 0) {
        mgr_free(m, dev, sizeof *dev);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "cook server", "cannot make a mutex");
    }
    struct stat st;
    kiln_result result = KILN_OK;
    if (stat(folder, &st) != 0) {
        char reason[128];
        result = runtime_fail(err, KILN_ERR_IO, "cook server", "cannot read the folder of %s: %s",
                              socket_path, runtime_os_reason(errno, reason, sizeof reason));
    } else {
        dev->folder_dev = st.st_dev;
        dev->folder_ino = st.st_ino;
        result = open_connection(dev, err);
    }
    bool talk_made = false;
    if (result == KILN_OK && !(talk_made = pthread_mutex_init(&dev->talk, NULL) == 0))
        result = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "cook server", "cannot make a mutex");
    if (result == KILN_OK && pthread_mutex_init(&dev->async, NULL) != 0)
        result = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "cook server", "cannot make a mutex");
    if (result != KILN_OK) {
        close_connection(dev);
        if (talk_made)
            pthread_mutex_destroy(&dev->talk);
        pthread_mutex_destroy(&dev->fd_lock);
        mgr_free(m, dev, sizeof *dev);
        return result;
    }
    pthread_mutex_lock(&m->lock);
    bool raced = m->dev != NULL;
    if (!raced) {
        m->dev = dev;
        atomic_store_explicit(&m->dev_hooks, &dev_hooks, memory_order_release);
    }
    pthread_mutex_unlock(&m->lock);
    if (raced) {
        close_connection(dev);
        pthread_mutex_destroy(&dev->async);
        pthread_mutex_destroy(&dev->talk);
        pthread_mutex_destroy(&dev->fd_lock);
        mgr_free(m, dev, sizeof *dev);
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "cook server",
                            "this manager is already connected to a cook server");
    }
    return runtime_succeed(err);
}

static void mgr_dev_destroy(kiln_manager *m) {
    struct mgr_dev *dev = m->dev;
    if (dev == NULL)
        return;
    close_connection(dev);
    if (dev->async_fd >= 0)
        close(dev->async_fd);
    mgr_free(m, dev->deferred, (size_t)dev->deferred_capacity * sizeof *dev->deferred);
    pthread_mutex_destroy(&dev->async);
    pthread_mutex_destroy(&dev->talk);
    pthread_mutex_destroy(&dev->fd_lock);
    mgr_free(m, dev, sizeof *dev);
    m->dev = NULL;
}

static void mgr_dev_interrupt(kiln_manager *m) {
    struct mgr_dev *dev = m->dev;
    if (dev == NULL)
        return;
    pthread_mutex_lock(&dev->fd_lock);
    dev->stopping = true;
    if (dev->fd >= 0)
        shutdown(dev->fd, SHUT_RDWR); /* a worker waiting for a reply gets EOF now */
    pthread_mutex_unlock(&dev->fd_lock);
}

/* ---------------------------------------------------------------------------
 * The conversation
 * ------------------------------------------------------------------------- */

static bool send_all(int fd, const char *data, size_t size) {
    while (size > 0) {
        ssize_t sent = send(fd, data, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent <= 0)
            return false;
        data += sent;
        size -= (size_t)sent;
    }
    return true;
}

/* One reply line, without its '\n'; false when the connection broke, timed
 * out or sent a line too long. Read in chunks: a request is sent only when
 * the one before was answered (the `talk` lock), so nothing follows the
 * reply's '\n' on the connection (one recv per reply, not one per byte). */
static bool read_line(int fd, char *line, size_t size) {
    size_t used = 0;
    for (;;) {
        ssize_t got = recv(fd, line + used, size - 1 - used, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        char *end = memchr(line + used, '\n', (size_t)got);
        used += (size_t)got;
        if (end != NULL) {
            if (end != line + used - 1)
                return false; /* more than one line: not this protocol */
            *end = '\0';
            return true;
        }
        if (used + 1 >= size)
            return false;
    }
}

/* Sends `verb` <ref> (COOK or FRESH) and reads the reply; reconnects once
 * when the connection broke (the watch was restarted). */
static kiln_result ask(struct mgr_dev *dev, const char *verb, const char *ref, char *reply,
                       size_t size, kiln_error *err) {
    char request[COOK_SERVER_LINE_MAX];
    int length = snprintf(request, sizeof request, "%s%s\n", verb, ref);
    if (length < 0 || (size_t)length >= sizeof request || strchr(ref, '\n') != NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, ref,
                            "cannot ask the cook server: ref too long or holds a newline");
    for (int attempt = 0; attempt < 2; attempt++) {
        if (dev->fd < 0) {
            kiln_result result = open_connection(dev, err);
            if (result != KILN_OK)
                return result;
        }
        if (send_all(dev->fd, request, (size_t)length) && read_line(dev->fd, reply, size))
            return KILN_OK;
        close_connection(dev);
        pthread_mutex_lock(&dev->fd_lock);
        bool stopping = dev->stopping;
        pthread_mutex_unlock(&dev->fd_lock);
        if (stopping)
            return runtime_fail(err, KILN_ERR_IO, ref,
                                "the manager was destroyed while the cook server cooked it");
    }
    return runtime_fail(err, KILN_ERR_IO, ref, "the cook server at %s did not answer",
                        dev->socket_path);
}

/* ---------------------------------------------------------------------------
 * After a cook
 * ------------------------------------------------------------------------- */

/* Maps the manifest of the folder mount that is the server's output folder
 * again (lock not held). */
static kiln_result reread_manifest(kiln_manager *m, struct mgr_dev *dev, kiln_error *err) {
    pthread_mutex_lock(&m->lock);
    kiln_result result = KILN_ERR_NOT_FOUND;
    bool found = false;
    for (uint32_t i = m->mount_count; i-- > 0 && !found;) {
        const mgr_mount *mt = m->mounts[i];
        if (!mt->is_pack && mt->dev == dev->folder_dev && mt->ino == dev->folder_ino) {
            found = true;
            result = mgr_refresh_manifest(m, i, err);
        }
    }
    pthread_mutex_unlock(&m->lock);
    if (!found)
        return runtime_fail(err, KILN_ERR_NOT_FOUND, "cook server",
                            "no folder mount is the output folder of %s", dev->socket_path);
    return result;
}

/* Takes back the hold a failed load left on `ref` (lock held), as
 * destroying its scope would for this one asset. */
static void release_failed(kiln_manager *m, const kiln_ref *ref) {
    mgr_scope *sc = mgr_scope_find(m, ref->scope);
    if (sc == NULL || ref->slot == 0)
        return;
    mgr_slot *s = mgr_slot_at(m, ref->slot);
    if (s == NULL || s->generation != ref->generation || mgr_slot_state(s) != SLOT_FAILED)
        return;
    for (uint32_t i = sc->hold_count; i-- > 0;) {
        if (sc->holds[i] == ref->slot) {
            sc->holds[i] = sc->holds[--sc->hold_count];
            mgr_reach_remove(m, ref->slot, ref->scope & 0xffffu, true);
            mgr_release(m, ref->slot);
            return;
        }
    }
}

/* Asks the server to cook `name` and maps the output folder's manifest
 * again (lock not held). */
static kiln_result cook(kiln_manager *m, struct mgr_dev *dev, const char *name, kiln_result failed,
                        kiln_error *err) {
    char reply[COOK_SERVER_LINE_MAX];
    pthread_mutex_lock(&dev->talk);
    kiln_result result = ask(dev, COOK_SERVER_REQUEST, name, reply, sizeof reply, err);
    pthread_mutex_unlock(&dev->talk);
    if (result != KILN_OK)
        return result;
    if (strncmp(reply, COOK_SERVER_ERR, strlen(COOK_SERVER_ERR)) == 0)
        return runtime_fail(err, failed, name, "the cook server could not cook it: %s",
                            reply + strlen(COOK_SERVER_ERR));
    if (strncmp(reply, COOK_SERVER_OK, strlen(COOK_SERVER_OK)) != 0)
        return runtime_fail(err, KILN_ERR_IO, name, "the cook server answered '%.200s'", reply);
    return reread_manifest(m, dev, err);
}

static kiln_result mgr_dev_cook_missing(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                        const char *ref_string, kiln_ref *ref, kiln_error *err,
                                        kiln_result failed, mgr_load_fn load) {
    if (m == NULL || ref == NULL || ref_string == NULL || failed != KILN_ERR_NOT_FOUND)
        return failed;
    /* Only an asset no manifest names: a named one whose file could not be
     * read was asked for by the load itself (read_slot). */
    char name[COOK_SERVER_LINE_MAX];
    snprintf(name, sizeof name, "%s", ref_string);
    pthread_mutex_lock(&m->lock);
    struct mgr_dev *dev = m->dev;
    uint32_t mount;
    const kiln_manifest_entry *entry;
    if (dev == NULL || mgr_resolve(m, handle, &mount, &entry)) {
        pthread_mutex_unlock(&m->lock);
        return failed; /* no server, or the manifest names it */
    }
    release_failed(m, ref);
    pthread_mutex_unlock(&m->lock);
    memset(ref, 0, sizeof *ref);

    kiln_result result = cook(m, dev, name, failed, err);
    if (result != KILN_OK)
        return result;
    return load(m, scope, handle, ref_string, ref, err);
}

static kiln_result mgr_dev_cook(kiln_manager *m, const char *name, kiln_result failed,
                                kiln_error *err) {
    pthread_mutex_lock(&m->lock);
    struct mgr_dev *dev = m->dev;
    pthread_mutex_unlock(&m->lock);
    if (dev == NULL)
        return failed;
    return cook(m, dev, name, failed, err);
}

/* ---------------------------------------------------------------------------
 * Stale files: FRESH before a slot's first read
 * ------------------------------------------------------------------------- */

static kiln_result mgr_dev_fresh(kiln_manager *m, uint32_t index, kiln_error *why) {
    char name[COOK_SERVER_LINE_MAX];
    pthread_mutex_lock(&m->lock);
    struct mgr_dev *dev = m->dev;
    mgr_slot *s = mgr_slot_at(m, index);
    const mgr_mount *mt = mgr_mount_at(m, s->mount);
    bool ask_it = dev != NULL && s->refs > 0 && !mt->is_pack && mt->dev == dev->folder_dev &&
                  mt->ino == dev->folder_ino && s->data->asset.ref != NULL &&
                  strlen(s->data->asset.ref) + strlen(COOK_SERVER_FRESH) + 2 < sizeof name;
    if (ask_it)
        snprintf(name, sizeof name, "%s", s->data->asset.ref);
    pthread_mutex_unlock(&m->lock);
    if (!ask_it)
        return KILN_OK;
    char reply[COOK_SERVER_LINE_MAX];
    kiln_error ignored;
    pthread_mutex_lock(&dev->talk);
    kiln_result result = ask(dev, COOK_SERVER_FRESH, name, reply, sizeof reply, &ignored);
    pthread_mutex_unlock(&dev->talk);
    if (result != KILN_OK)
        return KILN_OK; /* no answer (the watch stopped): the file is read as it is */
    if (strncmp(reply, COOK_SERVER_OK, strlen(COOK_SERVER_OK)) == 0) {
        /* A failure to map it leaves the one mapped: the read finds what it finds. */
        (void)reread_manifest(m, dev, &ignored);
        return KILN_OK;
    }
    if (strncmp(reply, COOK_SERVER_ERR, strlen(COOK_SERVER_ERR)) == 0) {
        kiln_result code = runtime_fail(why, KILN_ERR_CORRUPT, name,
                                        "its source failed to cook (the cook server: %s): what "
                                        "%s holds, if anything, is an older version",
                                        reply + strlen(COOK_SERVER_ERR), mt->name);
        pthread_mutex_lock(&m->lock);
        s->reload_failed = true;
        s->reload_error = *why;
        pthread_mutex_unlock(&m->lock);
        return code;
    }
    return KILN_OK; /* SAME: up to date */
}

/* ---------------------------------------------------------------------------
 * Requests by a ref no manifest knows: cooked first, without waiting
 * ------------------------------------------------------------------------- */

/* Sends what is unsent of the deferred lines, without blocking (async
 * held). false when the connection broke. */
static bool send_deferred(struct mgr_dev *dev) {
    for (uint32_t i = 0; i < dev->deferred_count; i++) {
        dev_deferred *d = &dev->deferred[i];
        while (d->sent < d->line_length) {
            ssize_t sent = send(dev->async_fd, d->line + d->sent, d->line_length - d->sent,
                                MSG_NOSIGNAL | MSG_DONTWAIT);
            if (sent < 0 && errno == EINTR)
                continue;
            if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return true; /* the rest at the next pump */
            if (sent <= 0)
                return false;
            d->sent += (size_t)sent;
        }
    }
    return true;
}

/* True when the server closed the request connection (`async` held, nothing
 * waiting on it): a server closes a connection silent for a while, or gives
 * its place to a new client. Anything else there (a stray byte) is as bad. */
static bool async_connection_closed(const struct mgr_dev *dev) {
    char byte;
    ssize_t got = recv(dev->async_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return !(got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR));
}

static kiln_result mgr_dev_defer(kiln_manager *m, kiln_scope scope, const char *ref_string,
                                 int32_t priority, kiln_load_callback callback, void *user,
                                 kiln_result failed, kiln_error *err) {
    pthread_mutex_lock(&m->lock);
    struct mgr_dev *dev = m->dev;
    pthread_mutex_unlock(&m->lock);
    if (dev == NULL || failed != KILN_ERR_NOT_FOUND)
        return failed;
    dev_deferred d;
    memset(&d, 0, sizeof d);
    int length = snprintf(d.line, sizeof d.line, COOK_SERVER_REQUEST "%s\n", ref_string);
    if (length < 0 || (size_t)length >= sizeof d.line || strchr(ref_string, '\n') != NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, ref_string,
                            "cannot ask the cook server: ref too long or holds a newline");
    d.line_length = (size_t)length;
    d.scope = scope;
    d.priority = priority;
    d.callback = callback;
    d.user = user;
    kiln_result result = KILN_OK;
    pthread_mutex_lock(&dev->async);
    if (dev->async_fd >= 0 && dev->deferred_count == 0 && async_connection_closed(dev)) {
        /* Closed while nothing waited on it: a new connection, nothing lost. */
        close(dev->async_fd);
        dev->async_fd = -1;
        dev->reply_used = 0;
    }
    if (dev->async_fd < 0) {
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        memcpy(address.sun_path, dev->socket_path, sizeof address.sun_path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || connect(fd, (const struct sockaddr *)&address, sizeof address) != 0) {
            char reason[128];
            int saved = errno;
            if (fd >= 0)
                close(fd);
            result =
                runtime_fail(err, KILN_ERR_IO, ref_string,
                             "no manifest names it, and the cook server at %s cannot be "
                             "reached: %s",
                             dev->socket_path, runtime_os_reason(saved, reason, sizeof reason));
        } else {
            dev->async_fd = fd;
            dev->reply_used = 0;
        }
    }
    if (result == KILN_OK && !mgr_grow(m, (void **)&dev->deferred, &dev->deferred_capacity,
                                       dev->deferred_count + 1, sizeof *dev->deferred))
        result = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, ref_string, "out of memory");
    if (result == KILN_OK) {
        dev->deferred[dev->deferred_count++] = d;
        send_deferred(dev); /* a broken connection is found by the next pump */
        runtime_succeed(err);
    }
    pthread_mutex_unlock(&dev->async);
    return result;
}

/* What a reply decided for one deferred request, acted on without locks. */
typedef struct dev_outcome {
    dev_deferred request;
    bool ok;
    kiln_error err;
} dev_outcome;

static uint32_t mgr_dev_pump(kiln_manager *m) {
    pthread_mutex_lock(&m->lock);
    struct mgr_dev *dev = m->dev;
    pthread_mutex_unlock(&m->lock);
    if (dev == NULL)
        return 0;
    /* Collect the answered requests (in order: one reply per line sent). */
    dev_outcome done[16];
    uint32_t done_count = 0;
    pthread_mutex_lock(&dev->async);
    bool broken = dev->async_fd < 0 && dev->deferred_count > 0;
    if (dev->async_fd >= 0 && dev->deferred_count > 0)
        broken = !send_deferred(dev);
    while (!broken && dev->async_fd >= 0 && dev->deferred_count > 0 &&
           dev->deferred[0].sent == dev->deferred[0].line_length && done_count < 16) {
        char byte;
        ssize_t got = recv(dev->async_fd, &byte, 1, MSG_DONTWAIT);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break; /* not answered yet */
        if (got != 1 || (byte != '\n' && dev->reply_used + 1 >= sizeof dev->reply)) {
            broken = true;
            break;
        }
        if (byte != '\n') {
            dev->reply[dev->reply_used++] = byte;
            continue;
        }
        dev->reply[dev->reply_used] = '\0';
        dev->reply_used = 0;
        dev_outcome *o = &done[done_count++];
        o->request = dev->deferred[0];
        memmove(dev->deferred, dev->deferred + 1,
                (size_t)(--dev->deferred_count) * sizeof *dev->deferred);
        const char *ref = o->request.line + strlen(COOK_SERVER_REQUEST);
        o->request.line[o->request.line_length - 1] = '\0'; /* the ref, without '\n' */
        o->ok = strncmp(dev->reply, COOK_SERVER_OK, strlen(COOK_SERVER_OK)) == 0;
        if (strncmp(dev->reply, COOK_SERVER_ERR, strlen(COOK_SERVER_ERR)) == 0)
            runtime_fail(&o->err, KILN_ERR_NOT_FOUND, ref, "the cook server could not cook it: %s",
                         dev->reply + strlen(COOK_SERVER_ERR));
        else if (!o->ok)
            runtime_fail(&o->err, KILN_ERR_IO, ref, "the cook server answered '%.200s'",
                         dev->reply);
    }
    uint32_t first_failed = done_count;
    if (broken) { /* every request still waiting fails */
        for (uint32_t i = 0; i < dev->deferred_count && done_count < 16; i++) {
            dev_outcome *o = &done[done_count++];
            o->request = dev->deferred[i];
            o->request.line[o->request.line_length - 1] = '\0';
            o->ok = false;
            runtime_fail(&o->err, KILN_ERR_IO, o->request.line + strlen(COOK_SERVER_REQUEST),
                         "the connection to the cook server at %s broke before it answered",
                         dev->socket_path);
        }
        uint32_t taken = done_count - first_failed;
        memmove(dev->deferred, dev->deferred + taken,
                (size_t)(dev->deferred_count - taken) * sizeof *dev->deferred);
        dev->deferred_count -= taken; /* more than fit: failed by the next pumps */
        if (dev->async_fd >= 0)
            close(dev->async_fd);
        dev->async_fd = -1;
        dev->reply_used = 0;
    }
    pthread_mutex_unlock(&dev->async);

    uint32_t called = 0;
    bool reread = false;
    for (uint32_t i = 0; i < done_count; i++) {
        dev_outcome *o = &done[i];
        const char *ref = o->request.line + strlen(COOK_SERVER_REQUEST);
        pthread_mutex_lock(&m->lock);
        bool alive = mgr_scope_find(m, o->request.scope) != NULL;
        pthread_mutex_unlock(&m->lock);
        if (!alive)
            continue; /* its scope went while it cooked: dropped, as a cancel */
        kiln_ref r;
        memset(&r, 0, sizeof r);
        kiln_result result = o->ok ? KILN_OK : o->err.code;
        if (o->ok && !reread) {
            result = reread_manifest(m, dev, &o->err);
            reread = result == KILN_OK;
        }
        if (result == KILN_OK)
            result =
                kiln_manager_request(m, o->request.scope, kiln_ref_hash(ref), o->request.priority,
                                     o->request.callback, o->request.user, &r, &o->err);
        if (result == KILN_OK)
            continue; /* requested by handle now: a later pump calls back */
        pthread_mutex_lock(&m->lock);
        alive = mgr_scope_find(m, o->request.scope) != NULL;
        pthread_mutex_unlock(&m->lock);
        if (!alive)
            continue;                              /* destroyed just now, by another thread */
        if (result == KILN_ERR_NOT_FOUND && o->ok) /* not deferred again: it would cook forever */
            runtime_fail(&o->err, KILN_ERR_NOT_FOUND, ref,
                         "cooked on demand, but no mounted manifest names it (request the ref "
                         "the manifest gives, not a source or cooked path)");
        if (o->request.callback != NULL) {
            o->request.callback(o->request.user, r, result, &o->err);
            called++;
        }
    }
    return called;
}
