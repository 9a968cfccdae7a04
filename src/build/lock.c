/*
 * lock.c — one build at a time per output folder.
 *
 * Two builds writing one output folder interleave their files, and each one
 * removes as stale what the other just wrote. A build holds an exclusive
 * flock(2) on `<output>/.kiln-lock` from before it lists the folder until
 * after its cache is saved, with its pid written in the file for the message
 * another build prints while it waits. The kernel drops the lock when its
 * holder exits, however it dies: a lock file left by a killed build (its
 * pid no longer running) is simply taken over. The file stays (hidden, so
 * no walk lists it); `kiln clean` takes the lock too, so it waits for a
 * build in progress, and then removes the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "build/internal.h"

/* The pid the lock file names, or 0. */
static long read_holder(int fd) {
    char text[32];
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    if (got <= 0)
        return 0;
    text[got] = '\0';
    long pid = strtol(text, NULL, 10);
    return pid > 0 ? pid : 0;
}

int build_lock_output(const build_options *options, const char *output) {
    bool quiet = options->verbosity == PROGRESS_QUIET;
    char *path = cook_path_join(output, BUILD_LOCK_FILE);
    if (path == NULL) {
        build_error(options, "out of memory");
        return -1;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        build_error(options, "cannot open the lock file '%s': %s", path, strerror(errno));
        free(path);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) {
            build_error(options, "cannot lock '%s': %s", path, strerror(errno));
            close(fd);
            free(path);
            return -1;
        }
        long holder = read_holder(fd);
        if (!quiet) {
            char name[512];
            build_say(options, BUILD_STREAM_ERR,
                      "kiln: waiting for another build into '%s' (process %ld) to finish...",
                      cook_escape_to(name, sizeof name, output), holder);
        }
        int locked;
        while ((locked = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
            ;
        if (locked != 0) {
            build_error(options, "cannot lock '%s': %s", path, strerror(errno));
            close(fd);
            free(path);
            return -1;
        }
    } else {
        long holder = read_holder(fd);
        if (holder > 0 && holder != (long)getpid() && kill((pid_t)holder, 0) != 0 &&
            errno == ESRCH && !quiet)
            build_say(options, BUILD_STREAM_ERR,
                      "kiln: note: taking over the lock of process %ld, which is no longer "
                      "running (a build that was killed)",
                      holder);
    }
    char text[32];
    int length = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)length, 0) != length) {
        /* The pid is only for messages: the flock is what excludes. */
    }
    free(path);
    return fd;
}

void build_unlock_output(int fd) {
    if (fd < 0)
        return;
    if (ftruncate(fd, 0) != 0) {
        /* a pid left behind only names a process that is gone */
    }
    close(fd); /* drops the flock */
}
