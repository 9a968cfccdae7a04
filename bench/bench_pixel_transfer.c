/*
 * bench_pixel_transfer.c — what it costs to get a decoded image from a child
 * process into kiln (BENCHMARKS.md section 10, docs/reliability.md): the ways
 * a reused decoder server could hand back its pixels, timed alone, without a
 * decoder, so that only the transfer differs.
 *
 *   bench_pixel_transfer [MIB [ROUNDS]]      (default 64 MiB, 10 rounds)
 *
 * Use more than 32 MiB: below, glibc may serve a buffer from heap pages a
 * round before freed (already mapped), which no real decode gets.
 *
 * Each way, per round: a child writes MIB MiB of pixels (as a decoder fills
 * its output) and kiln's side reads every cache line of them (as the
 * texture cook does), run in alternation, way after way, round after round.
 * Reported: CPU time (user + system, the parent and its children) per MiB,
 * median over the rounds, and its excess over "in process".
 *
 *   in process       the pixels written and read in one process (KILN_ISOLATE=0)
 *   pipe             the child writes its buffer to a pipe, kiln reads it into
 *                    a fresh buffer (what kiln does: isolate.c, 1 MiB pipe)
 *   memfd, copied    kiln creates a sealed-size memfd, the child maps it and
 *                    copies its buffer in, kiln seals it against writes and
 *                    maps it (a child limited by RLIMIT_FSIZE 0 cannot size it)
 *   memfd, direct    the same with the decoder writing straight into the
 *                    mapping (needs a decoder that writes into a caller's
 *                    buffer and the size before decoding)
 *   process_vm_readv kiln copies from the child's buffer (one copy; needs the
 *                    right to ptrace the child)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

enum { IN_PROCESS, PIPE, MEMFD_COPIED, MEMFD_DIRECT, VM_READV, WAY_COUNT };
static const char *const way_names[WAY_COUNT] = {"in process", "pipe", "memfd, copied",
                                                 "memfd, direct", "process_vm_readv"};

static double cpu_seconds(void) {
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    const struct timeval *t[4] = {&self.ru_utime, &self.ru_stime, &children.ru_utime,
                                  &children.ru_stime};
    double sum = 0.0;
    for (int i = 0; i < 4; i++)
        sum += (double)t[i]->tv_sec + (double)t[i]->tv_usec * 1e-6;
    return sum;
}

/* What the cook does with the pixels: reads them (one byte a cache line). */
static unsigned long read_pixels(const uint8_t *pixels, size_t size) {
    unsigned long sum = 0;
    for (size_t i = 0; i < size; i += 64)
        sum += pixels[i];
    return sum;
}

/* Kiln's side once `got` of the `size` bytes arrived in its heap buffer. */
static unsigned long use_and_free(uint8_t *pixels, size_t size, size_t got, const char *failure) {
    if (got != size)
        bench_die("%s", failure);
    unsigned long sum = read_pixels(pixels, size);
    free(pixels);
    return sum;
}

/* A decoder's output: a fresh buffer filled. */
static uint8_t *decode(size_t size, int seed) {
    uint8_t *pixels = malloc(size);
    if (pixels == NULL)
        bench_die("out of memory");
    memset(pixels, seed, size);
    return pixels;
}

static void wait_for(pid_t child) {
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        bench_die("the child failed");
}

static unsigned long by_pipe(size_t size, int seed) {
    int fds[2];
    if (pipe(fds) != 0)
        bench_die("pipe");
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    pid_t child = fork();
    if (child == 0) {
        uint8_t *pixels = decode(size, seed);
        for (size_t done = 0; done < size;) {
            ssize_t n = write(fds[1], pixels + done, size - done);
            if (n <= 0)
                _exit(1);
            done += (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    uint8_t *pixels = malloc(size);
    size_t done = 0;
    for (ssize_t n; pixels != NULL && done < size; done += (size_t)n)
        if ((n = read(fds[0], pixels + done, size - done)) <= 0)
            break;
    close(fds[0]);
    wait_for(child);
    return use_and_free(pixels, size, done, "short read");
}

static unsigned long by_memfd(size_t size, int seed, bool direct) {
    int fd = memfd_create("kiln-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK) != 0)
        bench_die("memfd");
    pid_t child = fork();
    if (child == 0) {
        uint8_t *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (shared == MAP_FAILED)
            _exit(1);
        if (direct) {
            memset(shared, seed, size);
        } else {
            uint8_t *pixels = decode(size, seed);
            memcpy(shared, pixels, size);
            free(pixels);
        }
        munmap(shared, size);
        _exit(0);
    }
    wait_for(child);
    /* No writable mapping is left anywhere: the pixels cannot change now. */
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) != 0)
        bench_die("seal");
    uint8_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    close(fd);
    if (pixels == MAP_FAILED)
        bench_die("mmap");
    unsigned long sum = read_pixels(pixels, size);
    munmap(pixels, size);
    return sum;
}

static unsigned long by_vm_readv(size_t size, int seed) {
    int address[2], done_pipe[2];
    if (pipe(address) != 0 || pipe(done_pipe) != 0)
        bench_die("pipe");
    pid_t child = fork();
    if (child == 0) {
        uint8_t *pixels = decode(size, seed);
        char done;
        _exit(write(address[1], &pixels, sizeof pixels) == sizeof pixels &&
                      read(done_pipe[0], &done, 1) == 1
                  ? 0
                  : 1);
    }
    uint8_t *remote = NULL;
    if (read(address[0], &remote, sizeof remote) != sizeof remote)
        bench_die("no address");
    uint8_t *pixels = malloc(size);
    size_t done = 0;
    for (ssize_t n; pixels != NULL && done < size; done += (size_t)n) {
        struct iovec local = {pixels + done, size - done}, there = {remote + done, size - done};
        if ((n = process_vm_readv(child, &local, 1, &there, 1, 0)) <= 0)
            break;
    }
    if (write(done_pipe[1], "x", 1) != 1)
        bench_die("pipe");
    wait_for(child);
    for (int i = 0; i < 2; i++) {
        close(address[i]);
        close(done_pipe[i]);
    }
    return use_and_free(pixels, size, done,
                        "process_vm_readv: cannot read the child (ptrace rights?)");
}

static unsigned long transfer(int way, size_t size, int seed) {
    switch (way) {
    case IN_PROCESS:
        return use_and_free(decode(size, seed), size, size, "");
    case PIPE:
        return by_pipe(size, seed);
    case MEMFD_COPIED:
        return by_memfd(size, seed, false);
    case MEMFD_DIRECT:
        return by_memfd(size, seed, true);
    default:
        return by_vm_readv(size, seed);
    }
}

int main(int argc, char **argv) {
    unsigned mib = argc > 1 ? (unsigned)atoi(argv[1]) : 64;
    unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
    if (mib == 0 || mib > 4096 || rounds == 0 || rounds > 1000)
        bench_die("usage: bench_pixel_transfer [MIB (1..4096) [ROUNDS (1..1000)]]");
    size_t size = (size_t)mib << 20;
    double *cpu = calloc((size_t)WAY_COUNT * rounds, sizeof *cpu);
    if (cpu == NULL)
        bench_die("out of memory");
    unsigned long expected = 0;
    for (unsigned r = 0; r <= rounds; r++) { /* round 0 warms up */
        for (int k = 0; k < WAY_COUNT; k++) {
            int way = (int)((r + (unsigned)k) % WAY_COUNT); /* each way first in turn */
            double start = cpu_seconds();
            unsigned long sum = transfer(way, size, (int)(r % 200) + 1);
            if (k == 0)
                expected = sum;
            else if (sum != expected)
                bench_die("%s read other pixels", way_names[way]);
            if (r > 0)
                cpu[(size_t)way * rounds + r - 1] = (cpu_seconds() - start) * 1e3 / mib;
        }
    }
    printf("%u MiB, %u rounds: CPU per MiB (ms), median\n", mib, rounds);
    double base = 0.0;
    for (int way = 0; way < WAY_COUNT; way++) {
        double *row = cpu + (size_t)way * rounds;
        qsort(row, rounds, sizeof *row, bench_compare_doubles);
        double median = row[rounds / 2];
        if (way == IN_PROCESS)
            base = median;
        printf("  %-17s %6.3f  (+%.3f)\n", way_names[way], median, median - base);
    }
    free(cpu);
    return 0;
}
