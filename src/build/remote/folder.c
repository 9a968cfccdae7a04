/*
 * folder.c — file:///path: a remote cache in a folder, for a network file
 * system a team already shares (NFS, SMB) or a CI runner's persistent
 * volume. <path>/<key> holds each entry; writes are atomic (a temporary in
 * the same folder, then rename), so readers on other machines see a whole
 * entry or none, and two writers of one key leave one of their (equal)
 * entries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/remote/transport.h"

typedef struct folder_state {
    char *root;
} folder_state;

static char *key_path(const folder_state *folder, const char *key) {
    return cook_path_join(folder->root, key);
}

static remote_status folder_get(void *state, const char *key, size_t max_size, bytebuf *out,
                                char *reason, size_t reason_size) {
    char *path = key_path(state, key);
    struct stat info;
    remote_status status = REMOTE_FAILED;
    if (path == NULL) {
        snprintf(reason, reason_size, "out of memory");
    } else if (stat(path, &info) != 0 && errno == ENOENT) {
        status = REMOTE_MISSING;
    } else if (S_ISREG(info.st_mode) && (uint64_t)info.st_size > max_size) {
        snprintf(reason, reason_size, "an entry is larger than %zu bytes", max_size);
    } else {
        uint8_t *bytes = NULL;
        size_t size = 0;
        char why[200];
        if (cook_read_file(path, max_size, &bytes, &size, why, sizeof why)) {
            bytebuf_append(out, bytes, size);
            status = out->failed ? REMOTE_FAILED : REMOTE_OK;
            if (out->failed)
                snprintf(reason, reason_size, "out of memory");
        } else {
            snprintf(reason, reason_size, "%s", why);
        }
        free(bytes);
    }
    free(path);
    return status;
}

static remote_status folder_exists(void *state, const char *key, char *reason, size_t reason_size) {
    char *path = key_path(state, key);
    struct stat info;
    remote_status status = REMOTE_FAILED;
    if (path == NULL)
        snprintf(reason, reason_size, "out of memory");
    else if (stat(path, &info) == 0 && S_ISREG(info.st_mode))
        status = REMOTE_OK;
    else if (errno == ENOENT || errno == ENOTDIR)
        status = REMOTE_MISSING;
    else
        snprintf(reason, reason_size, "%s", strerror(errno));
    free(path);
    return status;
}

static remote_status folder_put(void *state, const char *key, const uint8_t *data, size_t size,
                                char *reason, size_t reason_size) {
    char *path = key_path(state, key);
    bool ok = path != NULL && write_file_atomic(path, data, size, reason, reason_size);
    if (path == NULL)
        snprintf(reason, reason_size, "out of memory");
    free(path);
    return ok ? REMOTE_OK : REMOTE_FAILED;
}

static void folder_close(void *state) {
    folder_state *folder = state;
    free(folder->root);
    free(folder);
}

bool remote_folder_open(remote_transport *transport, const char *url, char *reason,
                        size_t reason_size) {
    *transport = (remote_transport){0};
    const char *path = url + strlen("file://");
    struct stat info;
    if (path[0] != '/') {
        snprintf(reason, reason_size, "a file:// URL names an absolute path (file:///srv/cache)");
        return false;
    }
    if (stat(path, &info) != 0 || !S_ISDIR(info.st_mode)) {
        snprintf(reason, reason_size, "no folder there");
        return false;
    }
    folder_state *folder = calloc(1, sizeof *folder);
    if (folder == NULL || (folder->root = cook_strdup(path)) == NULL) {
        free(folder);
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    remote_url_label(url, transport->label, sizeof transport->label);
    transport->state = folder;
    transport->get = folder_get;
    transport->exists = folder_exists;
    transport->put = folder_put;
    transport->close = folder_close;
    return true;
}
