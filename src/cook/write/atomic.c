/* atomic.c — all-or-nothing file writes.
 *
 * Data goes to a hidden temporary file in the destination folder, which is then
 * renamed over the final name: rename() within one file system is atomic, so a
 * build killed at any point leaves either the old file or the new one, never a
 * half-written one. (No fsync: surviving power loss is not worth the cost of a
 * sync per cooked file; the cache rebuilds anything lost.) */
#define _GNU_SOURCE /* fallocate, FALLOC_FL_KEEP_SIZE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cook/write/write.h"

/* mkdir -p for the folders above `path`. */
static bool make_parent_dirs(const char *path, char *reason, size_t reason_size) {
    char *copy = cook_strdup(path);
    if (copy == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    for (char *p = copy + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
            snprintf(reason, reason_size, "cannot create folder '%s': %s", copy, strerror(errno));
            free(copy);
            return false;
        }
        *p = '/';
    }
    free(copy);
    return true;
}

#define TEMP_TAG ".kiln-"
#define TEMP_RANDOM 6 /* the XXXXXX mkstemp fills in */

bool write_is_temporary_name(const char *name) {
    size_t length = strlen(name);
    size_t tail = strlen(TEMP_TAG) + TEMP_RANDOM;
    if (name[0] != '.' || length < 2 + tail ||
        memcmp(name + length - tail, TEMP_TAG, strlen(TEMP_TAG)) != 0)
        return false;
    for (size_t i = length - TEMP_RANDOM; i < length; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
    }
    return true;
}

typedef struct fd_sink {
    int fd;
    int error; /* errno of the failed write, 0 */
} fd_sink;

/* The most one write() hands the kernel. Linux gives a buffered write page
 * cache folios as large as the write (ext4 large folios). On the VM this
 * was measured on (free page reporting on), 2 MB folios were often slow to
 * fill, as if first touched at the host: likely the free 2 MB blocks the
 * balloon hands back. A 40 MB test write took 8-10 ms of CPU in 1 MB pieces every
 * time, and 8-90 ms whole (BENCHMARKS.md, "Whole-process overhead of a
 * large cook"). */
#define WRITE_PIECE ((size_t)1 << 20)

static bool write_to_fd(void *arg, const void *data, size_t size) {
    fd_sink *s = arg;
    const uint8_t *bytes = data;
    while (size > 0) {
        ssize_t written = write(s->fd, bytes, size < WRITE_PIECE ? size : WRITE_PIECE);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            s->error = written < 0 ? errno : EIO;
            return false;
        }
        bytes += written;
        size -= (size_t)written;
    }
    return true;
}

/* Files from this size on get their space reserved before they are written. */
#define RESERVE_MIN_BYTES ((uint64_t)1 << 20)

/* Reserves the blocks of `size` bytes at once (ext4 otherwise reserves and
 * maps them page by page as the write goes: a 40 MB .kmesh took a third
 * less CPU and about half the wall time with them reserved, BENCHMARKS.md,
 * "Encode and write of a large mesh"). KEEP_SIZE: the file's size is only
 * ever what was written, so a wrong guess cannot change its bytes. A hint
 * only: any failure (a file system without it) is ignored. */
static void reserve_space(int fd, uint64_t size) {
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    if (size >= RESERVE_MIN_BYTES && size <= (uint64_t)INT64_MAX)
        (void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)size);
#else
    (void)fd;
    (void)size;
#endif
}

bool write_file_staged_stream(const char *path, uint64_t expected_size, write_producer produce,
                              void *arg, char **staged, char *reason, size_t reason_size) {
    *staged = NULL;
    if (!make_parent_dirs(path, reason, reason_size))
        return false;
    const char *slash = strrchr(path, '/');
    size_t dir_length = slash ? (size_t)(slash - path) + 1 : 0;
    const char *name = path + dir_length;
    size_t temp_size = strlen(path) + 16;
    char *temp = malloc(temp_size);
    if (temp == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    /* Hidden (leading '.') so tree walks never pick up a leftover, and
     * tagged so the next build can tell it from anything else. */
    snprintf(temp, temp_size, "%.*s.%s" TEMP_TAG "XXXXXX", (int)dir_length, path, name);
    int fd = mkstemp(temp);
    if (fd < 0) {
        snprintf(reason, reason_size, "cannot create a temporary file next to '%s': %s", path,
                 strerror(errno));
        free(temp);
        return false;
    }
    fd_sink sink = {.fd = fd};
    bool ok = fchmod(fd, 0644) == 0;
    if (!ok)
        sink.error = errno;
    reserve_space(fd, expected_size);
    reason[0] = '\0';
    ok = ok && produce(arg, write_to_fd, &sink, reason, reason_size);
    if (!ok && (sink.error != 0 || reason[0] == '\0'))
        snprintf(reason, reason_size, "cannot write '%s': %s", path,
                 strerror(sink.error != 0 ? sink.error : EIO));
    if (close(fd) != 0 && ok) {
        snprintf(reason, reason_size, "cannot write '%s': %s", path, strerror(errno));
        ok = false;
    }
    if (!ok) {
        unlink(temp);
        free(temp);
        return false;
    }
    *staged = temp;
    return true;
}

bool write_file_publish(char *staged, const char *path, char *reason, size_t reason_size) {
    bool ok = rename(staged, path) == 0;
    if (!ok) {
        snprintf(reason, reason_size, "cannot rename into '%s': %s", path, strerror(errno));
        unlink(staged);
    }
    free(staged);
    return ok;
}

bool write_file_atomic_stream(const char *path, uint64_t expected_size, write_producer produce,
                              void *arg, char *reason, size_t reason_size) {
    char *staged;
    return write_file_staged_stream(path, expected_size, produce, arg, &staged, reason,
                                    reason_size) &&
           write_file_publish(staged, path, reason, reason_size);
}

typedef struct whole_buffer {
    const void *data;
    size_t size;
} whole_buffer;

static bool produce_whole(void *arg, write_sink sink, void *sink_arg, char *reason,
                          size_t reason_size) {
    (void)reason;
    (void)reason_size;
    const whole_buffer *b = arg;
    return sink(sink_arg, b->data, b->size);
}

bool write_file_atomic(const char *path, const void *data, size_t size, char *reason,
                       size_t reason_size) {
    whole_buffer b = {data, size};
    return write_file_atomic_stream(path, size, produce_whole, &b, reason, reason_size);
}

/* True when the file at `path` has exactly `size` bytes equal to `data`. */
static bool file_holds(const char *path, const void *data, size_t size) {
    struct stat info;
    if (stat(path, &info) != 0 || !S_ISREG(info.st_mode) || (uint64_t)info.st_size != size)
        return false;
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return false;
    const unsigned char *expected = data;
    unsigned char chunk[65536];
    size_t at = 0;
    bool same = true;
    while (same && at < size) {
        size_t want = size - at < sizeof chunk ? size - at : sizeof chunk;
        size_t got = fread(chunk, 1, want, file);
        same = got == want && memcmp(chunk, expected + at, got) == 0;
        at += got;
    }
    same = same && fgetc(file) == EOF;
    fclose(file);
    return same;
}

bool write_file_if_changed(const char *path, const void *data, size_t size, char *reason,
                           size_t reason_size) {
    if (file_holds(path, data, size))
        return true;
    return write_file_atomic(path, data, size, reason, reason_size);
}
