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
 * same way from the worker thread that read it (manager_load.c,
 * cook_and_read), never from the game's thread; the server cooks it ahead
 * of the changes it has queued.
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
#include "runtime/manager_dev.h"
#include "runtime/manager_load.h"

#define COOK_WAIT_SECONDS 300

struct mgr_dev {
    pthread_mutex_t talk;    /* one request at a time */
    pthread_mutex_t fd_lock; /* `fd` and `stopping` against mgr_dev_interrupt */
    bool stopping;           /* the manager is being destroyed: no new connection */
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    dev_t folder_dev; /* the server's output folder */
    ino_t folder_ino;
    int fd; /* -1: not connected */
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
    if (result == KILN_OK && pthread_mutex_init(&dev->talk, NULL) != 0)
        result = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "cook server", "cannot make a mutex");
    if (result != KILN_OK) {
        close_connection(dev);
        pthread_mutex_destroy(&dev->fd_lock);
        mgr_free(m, dev, sizeof *dev);
        return result;
    }
    pthread_mutex_lock(&m->lock);
    bool raced = m->dev != NULL;
    if (!raced)
        m->dev = dev;
    pthread_mutex_unlock(&m->lock);
    if (raced) {
        close_connection(dev);
        pthread_mutex_destroy(&dev->talk);
        pthread_mutex_destroy(&dev->fd_lock);
        mgr_free(m, dev, sizeof *dev);
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "cook server",
                            "this manager is already connected to a cook server");
    }
    return runtime_succeed(err);
}

void mgr_dev_destroy(kiln_manager *m) {
    struct mgr_dev *dev = m->dev;
    if (dev == NULL)
        return;
    close_connection(dev);
    pthread_mutex_destroy(&dev->talk);
    pthread_mutex_destroy(&dev->fd_lock);
    mgr_free(m, dev, sizeof *dev);
    m->dev = NULL;
}

void mgr_dev_interrupt(kiln_manager *m) {
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
 * out or sent a line too long. */
static bool read_line(int fd, char *line, size_t size) {
    size_t used = 0;
    for (;;) {
        char byte;
        ssize_t got = recv(fd, &byte, 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got != 1)
            return false;
        if (byte == '\n') {
            line[used] = '\0';
            return true;
        }
        if (used + 1 >= size)
            return false;
        line[used++] = byte;
    }
}

/* Sends COOK <ref> and reads the reply; reconnects once when the connection
 * broke (the watch was restarted). */
static kiln_result ask(struct mgr_dev *dev, const char *ref, char *reply, size_t size,
                       kiln_error *err) {
    char request[COOK_SERVER_LINE_MAX];
    int length = snprintf(request, sizeof request, COOK_SERVER_REQUEST "%s\n", ref);
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
    kiln_result result = ask(dev, name, reply, sizeof reply, err);
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

kiln_result mgr_dev_cook_missing(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                 const char *ref_string, kiln_ref *ref, kiln_error *err,
                                 kiln_result failed, mgr_dev_load_fn load) {
    if (m == NULL || ref == NULL || (failed != KILN_ERR_NOT_FOUND && failed != KILN_ERR_IO))
        return failed;
    /* The ref string: given, or the manifest's for a known handle. */
    char name[COOK_SERVER_LINE_MAX];
    name[0] = '\0';
    pthread_mutex_lock(&m->lock);
    struct mgr_dev *dev = m->dev;
    if (dev != NULL && ref_string != NULL) {
        snprintf(name, sizeof name, "%s", ref_string);
    } else if (dev != NULL) {
        uint32_t mount;
        const kiln_manifest_entry *entry;
        if (mgr_resolve(m, handle, &mount, &entry))
            snprintf(name, sizeof name, "%s",
                     kiln_manifest_ref(&mgr_mount_at(m, mount)->man->view, entry));
    }
    if (dev == NULL || name[0] == '\0') {
        pthread_mutex_unlock(&m->lock);
        return failed; /* no server, or nothing to name the asset by */
    }
    release_failed(m, ref);
    pthread_mutex_unlock(&m->lock);
    memset(ref, 0, sizeof *ref);

    kiln_result result = cook(m, dev, name, failed, err);
    if (result != KILN_OK)
        return result;
    return load(m, scope, handle, ref_string, ref, err);
}

kiln_result mgr_dev_cook(kiln_manager *m, const char *name, kiln_result failed, kiln_error *err) {
    pthread_mutex_lock(&m->lock);
    struct mgr_dev *dev = m->dev;
    pthread_mutex_unlock(&m->lock);
    if (dev == NULL)
        return failed;
    return cook(m, dev, name, failed, err);
}
