/*
 * isolate.c — jobs in a fresh child process (isolate.h).
 *
 * Why servers, and why fork only there
 *   kiln cooks on a pool of threads (core/parallel.c). fork() in a threaded
 *   process copies only the calling thread: a lock another thread held (the
 *   allocator's, assimp's) stays locked forever in the child, where only
 *   async-signal-safe calls are allowed, while an importer allocates. So the
 *   cooking process never forks. It starts *servers* with posix_spawn (safe
 *   from threads: glibc execs straight from a vfork-like clone) of this very
 *   program, /proc/self/exe, with KILN_ISOLATE_SERVER=1 in its environment;
 *   the constructor at the end of this file sees that before main and serves
 *   instead. Serving from a constructor lets every program that links the
 *   cooker serve (the kiln CLI and the unit tests alike) without its main
 *   cooperating, and never runs that main twice.
 *   A server serves one kind of job (the parent keeps its idle servers by
 *   job name) and is reused across assets. How it runs a job is the job's
 *   (isolate_job.reused):
 *   * reused (the decoders: libspng, libjpeg, stb_image, libdraco): the server
 *     runs the job itself, under the job's limits, and stays for the next
 *     asset. A crash, a hang or a limit kills the server; the parent reaps
 *     it, reports its signal or exit status as the job's, and the next asset
 *     of the kind gets a new server. No fork per asset: a decode costs what it
 *     costs in process plus the copies through the pipes (BENCHMARKS.md).
 *   * forked (assimp): a server is single-threaded, so it may fork freely: it
 *     forks one fresh child per job, and the child runs the job and exits. Each
 *   asset gets a new process, so a corrupt file that damaged the heap without
 *   crashing cannot touch the next asset (nor have its later crash blamed on a
 *   good file), and results do not depend on what ran before. Exec and library
 *   loading are paid once per server; a fork per job costs about 3 ms of CPU,
 *   nearly all of it page faults of the fresh address space (BENCHMARKS.md
 *   section 10; running jobs in the server itself would cost what in process
 *   does, without those guarantees). Idle servers are kept and reused: a build
 *   starts at most as many as jobs ran at once (-j). Linux only (/proc/self/exe,
 *   prctl, pidfd).
 *
 * One job
 *   parent                     server (fd 3)                   child
 *   pipe() for the result
 *   request + pipe's write end ─► reads the whole request
 *                                 fork() ─────────────────────► limits, runs the job,
 *   reads the pipe ◄──────────────────────────────────────────── u64 size + response
 *                                 waitpid(), sends the status
 *   reads the status ◄───────────
 *   The response has its own pipe, so a child that dies half-way through
 *   writing it cannot be mistaken for the server's status. The parent polls
 *   both, so a large response never blocks the child.
 *
 * Limits
 *   In the process running the job (the child, or a reused server): RLIMIT_AS
 *   (memory; not under AddressSanitizer, whose shadow already takes terabytes
 *   of address space), RLIMIT_CPU (SIGXCPU; a reused server's soft limit is
 *   the CPU it has used plus the job's), RLIMIT_FSIZE 0 (a job never writes
 *   files: trying raises SIGXFSZ) and RLIMIT_CORE 0. The parent enforces the
 *   wall-clock timeout by killing the server, its own unreaped child (so the
 *   pid cannot have been reused); a forked job's child dies with it
 *   (PR_SET_PDEATHSIG). A server whose parent is gone (kiln killed) sees its
 *   socket close, kills its child and exits; a reused server in a job that
 *   sleeps rather than spins is ended by an alarm a little after the job's
 *   timeout. A reused server opens no file from its first job on: everything
 *   it decodes is handed to it, and Landlock (Linux 5.13 and later) denies it
 *   the filesystem; on a kernel without Landlock RLIMIT_FSIZE still stops
 *   writes. (assimp's children read a model's other files themselves.)
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ, sigabbrev_np */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "cook/import/isolate.h"

extern char **environ;

#define SERVER_ENV "KILN_ISOLATE_SERVER"
#define SERVER_FD 3
#define PROTOCOL_VERSION 2u
#define REQUEST_MAGIC 0x5153494bu /* "KISQ" */
#define STATUS_MAGIC 0x5453494bu  /* "KIST" */
#define ASK_MAGIC 0x4b53494bu     /* "KISK": a reused job's question, u64 size, bytes */
#define QUESTION_MAX_BYTES ((size_t)1 << 20)
/* magic, version, name length, cpu seconds, payload size, memory bytes,
 * wall seconds (a reused server's alarm) */
#define REQUEST_HEADER_BYTES 36u
#define STATUS_BYTES 12u /* magic, how, value */
#define JOB_NAME_MAX 64u
#define RESULT_PIPE_BYTES (1 << 20)
#define FIRST_RESPONSE_BYTES ((size_t)256 << 20)

enum { HOW_EXITED = 0, HOW_SIGNALED = 1, HOW_NOT_STARTED = 2 };

/* Exit statuses of a child that could not run its job at all. */
#define CHILD_EXIT_SETUP 120
#define CHILD_EXIT_NO_JOB 121
#define CHILD_EXIT_NO_MEMORY 122
#define CHILD_EXIT_WRITE 123

/* AddressSanitizer and ThreadSanitizer reserve terabytes of address space
 * for their shadow and allocator: under them RLIMIT_AS is left alone. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ISOLATE_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ISOLATE_UNDER_SANITIZER 1
#endif
#endif
#ifndef ISOLATE_UNDER_SANITIZER
#define ISOLATE_UNDER_SANITIZER 0
#endif

/* ---------------------------------------------------------------------------
 * Little-endian headers and whole reads and writes
 * ------------------------------------------------------------------------- */

static void put_le(uint8_t *at, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; i++)
        at[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_le(const uint8_t *at, int bytes) {
    uint64_t value = 0;
    for (int i = bytes; i-- > 0;)
        value = value << 8 | at[i];
    return value;
}

/* Whole blocking transfers, for the server and the child. Sockets are
 * written with MSG_NOSIGNAL: a parent that went away is an error, not SIGPIPE. */
static bool transfer_all(int fd, uint8_t *p, size_t size, bool writing, bool socket) {
    while (size > 0) {
        ssize_t n = !writing ? read(fd, p, size)
                    : socket ? send(fd, p, size, MSG_NOSIGNAL)
                             : write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
    }
    return true;
}

static bool write_all(int fd, const void *data, size_t size, bool socket) {
    return transfer_all(fd, (uint8_t *)data, size, true, socket);
}

static bool read_all(int fd, void *data, size_t size) {
    return transfer_all(fd, data, size, false, false);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What poll may wait before `deadline` (0: no deadline, wait forever). */
static int poll_wait_ms(double deadline) {
    if (deadline == 0.0)
        return -1;
    double left = ceil((deadline - now_seconds()) * 1000.0);
    return left <= 0.0 ? 0 : left >= 1e9 ? 1000000000 : (int)left;
}

/* ---------------------------------------------------------------------------
 * The child: limits, the job, the response
 * ------------------------------------------------------------------------- */

/* Lowers a limit (never raises one the user set lower, which would fail). */
static void set_limit(int resource, rlim_t soft, rlim_t hard) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0)
        _exit(CHILD_EXIT_SETUP);
    if (hard < limit.rlim_max)
        limit.rlim_max = hard;
    limit.rlim_cur = soft < limit.rlim_max ? soft : limit.rlim_max;
    if (setrlimit(resource, &limit) != 0)
        _exit(CHILD_EXIT_SETUP);
}

#ifdef KILN_TEST_HOOKS
/* The mechanism's own test job (test_isolate): the request is a command.
 * Built only with the tests. */
static bool run_test_job(const uint8_t *request, size_t size, bytebuf *response) {
    const char *command = (const char *)request; /* NUL-terminated by the server */
    (void)size;
    if (strncmp(command, "echo:", 5) == 0) {
        bytebuf_append(response, command + 5, strlen(command + 5));
    } else if (strncmp(command, "ask:", 4) == 0) {
        /* Asks twice: the answers, then "|" and the second. */
        if (!isolate_ask(command + 4, strlen(command + 4), response))
            bytebuf_printf(response, "no answer");
        bytebuf_printf(response, "|");
        if (!isolate_ask(command + 4, strlen(command + 4), response))
            bytebuf_printf(response, "no answer");
    } else if (strcmp(command, "pid") == 0) {
        bytebuf_printf(response, "%ld", (long)getpid());
    } else if (strcmp(command, "crash") == 0) {
        signal(SIGSEGV, SIG_DFL); /* past a sanitizer's handler: die as a release build would */
        raise(SIGSEGV);
    } else if (strcmp(command, "hang") == 0) {
        for (;;)
            pause();
    } else if (strcmp(command, "spin") == 0) {
        for (volatile uint64_t i = 0;; i++)
            ;
    } else if (strncmp(command, "exit:", 5) == 0) {
        _exit(atoi(command + 5));
    } else if (strncmp(command, "write:", 6) == 0) {
        FILE *file = fopen(command + 6, "wb");
        bool wrote = file != NULL && fputc('x', file) != EOF && fflush(file) == 0;
        if (file != NULL)
            fclose(file);
        bytebuf_printf(response, "%s", wrote ? "wrote" : "refused");
    } else if (strncmp(command, "read:", 5) == 0) {
        FILE *file = fopen(command + 5, "rb");
        bytebuf_printf(response, "%s", file != NULL ? "read" : "refused");
        if (file != NULL)
            fclose(file);
    } else if (strncmp(command, "alloc:", 6) == 0) {
        size_t bytes = (size_t)strtoull(command + 6, NULL, 10) << 20;
        uint8_t *block = malloc(bytes);
        if (block != NULL)
            memset(block, 1, bytes);
        bytebuf_printf(response, "%s", block != NULL ? "allocated" : "refused");
        free(block);
    } else if (strncmp(command, "big:", 4) == 0) {
        bytebuf_append_zeros(response, (size_t)strtoull(command + 4, NULL, 10));
    } else if (strcmp(command, "short") == 0) {
        /* Claims more than it sends, then exits 0. */
        uint8_t frame[8];
        put_le(frame, 100, 8);
        if (!write_all(4, frame, sizeof frame, false))
            _exit(CHILD_EXIT_WRITE);
        _exit(0);
    } else {
        return false;
    }
    return true;
}
#endif

/* The tables registered before main (isolate_register_jobs): the process
 * layer names no job itself, so it calls nothing of the files above it. */
typedef struct job_table {
    const isolate_job *jobs;
    size_t count;
} job_table;
static job_table registered[ISOLATE_MAX_TABLES];
static size_t registered_count;

void isolate_register_jobs(const isolate_job *jobs, size_t count) {
    if (registered_count < ISOLATE_MAX_TABLES) /* two files register one each */
        registered[registered_count++] = (job_table){jobs, count};
}

const isolate_job *isolate_find_job(const char *name) {
#ifdef KILN_TEST_HOOKS
    static const isolate_job test_jobs[] = {{"isolate-test", run_test_job, false},
                                            {"isolate-test-reused", run_test_job, true}};
    for (size_t i = 0; i < sizeof test_jobs / sizeof test_jobs[0]; i++)
        if (strcmp(test_jobs[i].name, name) == 0)
            return &test_jobs[i];
#endif
    for (size_t t = 0; t < registered_count; t++)
        for (size_t i = 0; i < registered[t].count; i++)
            if (strcmp(registered[t].jobs[i].name, name) == 0)
                return &registered[t].jobs[i];
    return NULL;
}

/* Runs the job and writes its response, framed, to fd 4 (the result pipe).
 * Returns the exit status a child would have: 0 or a CHILD_EXIT_*. */
static int run_job_to_result(const isolate_job *job, const uint8_t *request, size_t size) {
    bytebuf response = {0};
    job->run(request, size, &response);
    int status = 0;
    uint8_t frame[8];
    put_le(frame, response.size, 8);
    if (response.failed)
        status = CHILD_EXIT_NO_MEMORY;
    else if (!write_all(4, frame, sizeof frame, false) ||
             !write_all(4, response.data, response.size, false))
        status = CHILD_EXIT_WRITE;
    bytebuf_free(&response);
    return status;
}

/* Moves the result pipe to fd 4, a fixed number so the test job can break
 * the framing on purpose. False when it cannot. */
static bool result_to_fd4(int result_fd) {
    return result_fd == 4 || (dup2(result_fd, 4) == 4 && close(result_fd) == 0);
}

/* Runs in the forked child; never returns. */
__attribute__((noreturn)) static void run_child(int control_fd, int result_fd, pid_t server,
                                                const char *name, const uint8_t *request,
                                                size_t size, uint32_t cpu_seconds,
                                                uint64_t memory_bytes) {
    close(control_fd); /* only the server speaks to the parent */
    if (!result_to_fd4(result_fd))
        _exit(CHILD_EXIT_SETUP);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server)
        _exit(CHILD_EXIT_SETUP); /* the server died before the line above */
    set_limit(RLIMIT_FSIZE, 0, 0);
    set_limit(RLIMIT_CORE, 0, 0);
    if (cpu_seconds > 0) /* SIGXCPU at the soft limit, SIGKILL a second later */
        set_limit(RLIMIT_CPU, cpu_seconds, (rlim_t)cpu_seconds + 1);
    if (memory_bytes > 0 && !ISOLATE_UNDER_SANITIZER)
        set_limit(RLIMIT_AS, (rlim_t)memory_bytes, (rlim_t)memory_bytes);
    const isolate_job *job = isolate_find_job(name);
    if (job == NULL)
        _exit(CHILD_EXIT_NO_JOB);
    _exit(run_job_to_result(job, request, size));
}

/* The control socket while a reused job runs: isolate_ask writes on it. */
static int ask_fd = -1;

bool isolate_ask(const void *question, size_t size, bytebuf *answer) {
    uint8_t frame[STATUS_BYTES], length[8];
    put_le(frame, ASK_MAGIC, 4);
    put_le(frame + 4, size, 8);
    if (ask_fd < 0 || size > QUESTION_MAX_BYTES || !write_all(ask_fd, frame, sizeof frame, true) ||
        !write_all(ask_fd, question, size, true) || !read_all(ask_fd, length, sizeof length))
        return false;
    uint64_t answer_size = get_le(length, 8);
    size_t at = answer->size;
    if (answer_size > SIZE_MAX - at)
        return false;
    bytebuf_append_zeros(answer, (size_t)answer_size);
    return !answer->failed && read_all(ask_fd, answer->data + at, (size_t)answer_size);
}

/* Sets a soft limit (raising it up to the hard one is allowed). */
static void set_soft_limit(int resource, rlim_t soft) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0)
        _exit(CHILD_EXIT_SETUP);
    limit.rlim_cur = soft < limit.rlim_max ? soft : limit.rlim_max;
    if (setrlimit(resource, &limit) != 0)
        _exit(CHILD_EXIT_SETUP);
}

/* Denies this process every filesystem access from now on (Landlock's first
 * ABI: reading, writing, executing, making and removing files). Nothing
 * where the kernel lacks Landlock. */
static void forbid_files(void) {
#ifdef SYS_landlock_create_ruleset
    struct landlock_ruleset_attr attr = {
        .handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                             LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                             LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                             LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                             LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                             LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                             LANDLOCK_ACCESS_FS_MAKE_SYM};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (ruleset < 0)
        return;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
        syscall(SYS_landlock_restrict_self, ruleset, 0);
    close(ruleset);
#endif
}

/* A reused job, run by the server itself. The limits are lifted again
 * after it, so that reading the next request is not bound by this one's. */
static int run_here(const isolate_job *job, int control_fd, int result_fd, const uint8_t *request,
                    size_t size, uint32_t cpu_seconds, uint64_t memory_bytes,
                    uint32_t wall_seconds) {
    if (!result_to_fd4(result_fd)) {
        close(result_fd);
        return CHILD_EXIT_SETUP;
    }
    static bool files_forbidden;
    if (!files_forbidden) { /* for good: this server only ever runs this job */
        set_limit(RLIMIT_FSIZE, 0, 0);
        set_limit(RLIMIT_CORE, 0, 0);
        forbid_files();
        files_forbidden = true;
    }
    if (cpu_seconds > 0) {
        struct rusage usage = {0};
        getrusage(RUSAGE_SELF, &usage);
        rlim_t used = (rlim_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1;
        set_soft_limit(RLIMIT_CPU, used + cpu_seconds);
    }
    if (memory_bytes > 0 && !ISOLATE_UNDER_SANITIZER)
        set_soft_limit(RLIMIT_AS, (rlim_t)memory_bytes);
    /* A job that sleeps uses no CPU: if kiln is gone and cannot kill it,
     * this ends it. */
    alarm(wall_seconds > 0 ? wall_seconds + 5 : 0);
    ask_fd = control_fd;
    int status = run_job_to_result(job, request, size);
    ask_fd = -1;
    alarm(0);
    close(4);
    set_soft_limit(RLIMIT_CPU, RLIM_INFINITY);
    set_soft_limit(RLIMIT_AS, RLIM_INFINITY);
    return status;
}

/* ---------------------------------------------------------------------------
 * The server
 * ------------------------------------------------------------------------- */

/* The request header and the result pipe's write end passed with it.
 * 1: a request, 0: the parent closed the socket, -1: anything else. */
static int receive_header(int fd, uint8_t header[REQUEST_HEADER_BYTES], int *passed_fd) {
    *passed_fd = -1;
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = {header, REQUEST_HEADER_BYTES};
    struct msghdr message = {.msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = control.bytes,
                             .msg_controllen = sizeof control.bytes};
    ssize_t n;
    do
        n = recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return n == 0 ? 0 : -1;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&message);
    if (cmsg != NULL && cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS &&
        cmsg->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(passed_fd, CMSG_DATA(cmsg), sizeof(int));
    if (*passed_fd < 0 || (message.msg_flags & MSG_CTRUNC) ||
        !read_all(fd, header + n, REQUEST_HEADER_BYTES - (size_t)n)) {
        if (*passed_fd >= 0)
            close(*passed_fd);
        return -1;
    }
    return 1;
}

/* Waits for the child while watching the socket: the parent never writes
 * during a job, so the socket turning readable means it closed (kiln is
 * gone). False then, with the child killed. */
static bool wait_child(int fd, pid_t child, int *status) {
#ifdef SYS_pidfd_open
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    if (pidfd >= 0) {
        struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
        for (;;) {
            int n = poll(fds, 2, -1);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 || fds[0].revents != 0) {
                kill(child, SIGKILL);
                waitpid(child, status, 0);
                close(pidfd);
                return false;
            }
            if (fds[1].revents != 0)
                break;
        }
        close(pidfd);
    }
#endif
    pid_t got;
    do
        got = waitpid(child, status, 0);
    while (got < 0 && errno == EINTR);
    return got == child;
}

static int serve(int fd) {
    pid_t self = getpid();
    for (;;) {
        uint8_t header[REQUEST_HEADER_BYTES];
        int result_fd;
        int got = receive_header(fd, header, &result_fd);
        if (got <= 0)
            return got == 0 ? 0 : 1;
        uint32_t name_length = (uint32_t)get_le(header + 8, 4);
        uint32_t cpu_seconds = (uint32_t)get_le(header + 12, 4);
        uint64_t size = get_le(header + 16, 8);
        uint64_t memory_bytes = get_le(header + 24, 8);
        uint32_t wall_seconds = (uint32_t)get_le(header + 32, 4);
        char name[JOB_NAME_MAX + 1];
        uint8_t *request = NULL;
        if (get_le(header, 4) != REQUEST_MAGIC || get_le(header + 4, 4) != PROTOCOL_VERSION ||
            name_length > JOB_NAME_MAX || size >= SIZE_MAX || !read_all(fd, name, name_length) ||
            (request = malloc((size_t)size + 1)) == NULL || !read_all(fd, request, (size_t)size)) {
            /* A parent that breaks the protocol (or no memory for the
             * request): closing makes it see a failed server. */
            close(result_fd);
            free(request);
            return 1;
        }
        name[name_length] = '\0';
        request[size] = '\0';
        const isolate_job *job = isolate_find_job(name);
        if (job != NULL && job->reused) {
            int exit_code = run_here(job, fd, result_fd, request, (size_t)size, cpu_seconds,
                                     memory_bytes, wall_seconds);
            free(request);
            uint8_t reply[STATUS_BYTES];
            put_le(reply, STATUS_MAGIC, 4);
            put_le(reply + 4, HOW_EXITED, 4);
            put_le(reply + 8, (uint32_t)exit_code, 4);
            if (!write_all(fd, reply, sizeof reply, true))
                return 0;
            continue;
        }
        pid_t child = fork();
        if (child == 0)
            run_child(fd, result_fd, self, name, request, (size_t)size, cpu_seconds, memory_bytes);
        int fork_error = errno;
        close(result_fd);
        free(request);
        int status = 0;
        uint8_t reply[STATUS_BYTES];
        put_le(reply, STATUS_MAGIC, 4);
        if (child < 0) {
            put_le(reply + 4, HOW_NOT_STARTED, 4);
            put_le(reply + 8, (uint32_t)fork_error, 4);
        } else if (!wait_child(fd, child, &status)) {
            return 0;
        } else if (WIFSIGNALED(status)) {
            put_le(reply + 4, HOW_SIGNALED, 4);
            put_le(reply + 8, (uint32_t)WTERMSIG(status), 4);
        } else {
            put_le(reply + 4, HOW_EXITED, 4);
            put_le(reply + 8, (uint32_t)WEXITSTATUS(status), 4);
        }
        if (!write_all(fd, reply, sizeof reply, true))
            return 0;
    }
}

static void close_fds_above(int fd) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)fd + 1, ~0u, 0) == 0)
        return;
#endif
    for (int i = fd + 1; i < 1024; i++)
        close(i);
}

/* Before main: a process started by server_start serves and exits. */
__attribute__((constructor)) static void serve_if_asked(void) {
    const char *flag = getenv(SERVER_ENV);
    if (flag == NULL || strcmp(flag, "1") != 0)
        return;
    unsetenv(SERVER_ENV); /* what this process starts is no server */
    struct stat st;
    if (fstat(SERVER_FD, &st) != 0 || !S_ISSOCK(st.st_mode))
        return;                 /* not started by server_start: run main as usual */
    close_fds_above(SERVER_FD); /* whatever leaked from the parent's other threads */
    _exit(serve(SERVER_FD));
}

/* ---------------------------------------------------------------------------
 * The parent: servers
 * ------------------------------------------------------------------------- */

typedef struct server {
    pid_t pid;
    int fd;                     /* non-blocking */
    char job[JOB_NAME_MAX + 1]; /* the kind of job it serves */
    struct server *next;
} server;

static pthread_mutex_t servers_lock = PTHREAD_MUTEX_INITIALIZER;
static server *idle_servers;
static bool stop_registered;

/* At exit, idle servers see their socket close and exit; they are reaped so
 * none outlives the program (a test harness waits for its output pipes). */
static void stop_servers(void) {
    pthread_mutex_lock(&servers_lock);
    server *list = idle_servers;
    idle_servers = NULL;
    pthread_mutex_unlock(&servers_lock);
    while (list != NULL) {
        server *next = list->next;
        close(list->fd);
        while (waitpid(list->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        free(list);
        list = next;
    }
}

/* Kills and reaps the server; returns its wait status (how it ended, when
 * it had ended on its own before the kill). */
static int server_discard(server *s) {
    kill(s->pid, SIGKILL);
    int status = 0;
    while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(s->fd);
    free(s);
    return status;
}

static void server_release(server *s) {
    pthread_mutex_lock(&servers_lock);
    s->next = idle_servers;
    idle_servers = s;
    pthread_mutex_unlock(&servers_lock);
}

/* The environment with SERVER_ENV=1 (the array is freed, not the strings). */
static char **server_environment(void) {
    static char flag[] = SERVER_ENV "=1";
    size_t count = 0;
    while (environ[count] != NULL)
        count++;
    char **env = malloc((count + 2) * sizeof *env);
    if (env == NULL)
        return NULL;
    size_t used = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], SERVER_ENV "=", sizeof SERVER_ENV) != 0)
            env[used++] = environ[i];
    env[used++] = flag;
    env[used] = NULL;
    return env;
}

static server *server_start(const char *job, char *reason, size_t reason_size) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        snprintf(reason, reason_size, "socketpair: %s", strerror(errno));
        return NULL;
    }
    if (fds[1] == SERVER_FD) { /* dup2 onto itself would keep close-on-exec */
        int moved = fcntl(fds[1], F_DUPFD_CLOEXEC, SERVER_FD + 1);
        close(fds[1]);
        fds[1] = moved;
    }
    server *s = calloc(1, sizeof *s);
    char **env = server_environment();
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    /* stdin from /dev/null; stdout to stderr, since kiln's stdout may be a
     * JSON report that a library's stray print must not corrupt. Signals as
     * a fresh program has them. */
    posix_spawn_file_actions_adddup2(&actions, fds[1], SERVER_FD);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGCHLD);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char name[] = "kiln-isolate-server";
    char *argv[] = {name, NULL};
    int error = fds[1] < 0 || s == NULL || env == NULL
                    ? ENOMEM
                    : posix_spawn(&s->pid, "/proc/self/exe", &actions, &attr, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    free(env);
    if (fds[1] >= 0)
        close(fds[1]);
    if (error != 0 || fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
        snprintf(reason, reason_size, "cannot start /proc/self/exe: %s",
                 strerror(error ? error : errno));
        if (error == 0)
            server_discard(s); /* closes fds[0] */
        else {
            close(fds[0]);
            free(s);
        }
        return NULL;
    }
    s->fd = fds[0];
    snprintf(s->job, sizeof s->job, "%s", job);
    pthread_mutex_lock(&servers_lock);
    if (!stop_registered)
        stop_registered = atexit(stop_servers) == 0;
    pthread_mutex_unlock(&servers_lock);
    return s;
}

/* An idle server of `job`'s kind, or a new one; *reused says which. */
static server *server_acquire(const char *job, bool *reused, char *reason, size_t reason_size) {
    pthread_mutex_lock(&servers_lock);
    server **link = &idle_servers;
    while (*link != NULL && strcmp((*link)->job, job) != 0)
        link = &(*link)->next;
    server *s = *link;
    if (s != NULL)
        *link = s->next;
    pthread_mutex_unlock(&servers_lock);
    *reused = s != NULL;
    return s != NULL ? s : server_start(job, reason, reason_size);
}

/* ---------------------------------------------------------------------------
 * The parent: one job
 * ------------------------------------------------------------------------- */

typedef enum io_result { IO_OK, IO_TIMEOUT, IO_BROKEN } io_result;

/* Sends on the non-blocking socket before `deadline`; the first call passes
 * `passed_fd` along with its first byte. */
static io_result send_before(int fd, const void *data, size_t size, int passed_fd,
                             double deadline) {
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t n;
        if (passed_fd >= 0) {
            union {
                struct cmsghdr align;
                char bytes[CMSG_SPACE(sizeof(int))];
            } control;
            memset(&control, 0, sizeof control);
            struct iovec iov = {(void *)p, size};
            struct msghdr message = {.msg_iov = &iov,
                                     .msg_iovlen = 1,
                                     .msg_control = control.bytes,
                                     .msg_controllen = sizeof control.bytes};
            struct cmsghdr *cmsg = CMSG_FIRSTHDR(&message);
            cmsg->cmsg_level = SOL_SOCKET;
            cmsg->cmsg_type = SCM_RIGHTS;
            cmsg->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(cmsg), &passed_fd, sizeof(int));
            n = sendmsg(fd, &message, MSG_NOSIGNAL);
        } else {
            n = send(fd, p, size, MSG_NOSIGNAL);
        }
        if (n > 0) {
            p += n;
            size -= (size_t)n;
            passed_fd = -1;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            return IO_BROKEN;
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int wait = poll_wait_ms(deadline);
        if (wait == 0)
            return IO_TIMEOUT;
        if (poll(&pfd, 1, wait) < 0 && errno != EINTR)
            return IO_BROKEN;
    }
    return IO_OK;
}

/* Receives exactly `size` bytes on the non-blocking socket before `deadline`. */
static io_result recv_before(int fd, uint8_t *data, size_t size, double deadline) {
    while (size > 0) {
        ssize_t n = recv(fd, data, size, 0);
        if (n > 0) {
            data += n;
            size -= (size_t)n;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return IO_BROKEN;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int wait = poll_wait_ms(deadline);
        if (wait == 0)
            return IO_TIMEOUT;
        if (poll(&pfd, 1, wait) < 0 && errno != EINTR)
            return IO_BROKEN;
    }
    return IO_OK;
}

/* A reused job's question (its frame in `frame`): read, answered by `asker`,
 * the answer sent. *refused when there is nobody to ask or the question is
 * too long (the server is then discarded). */
static io_result answer_question(int fd, const uint8_t frame[STATUS_BYTES],
                                 const isolate_asker *asker, double deadline, bool *refused) {
    uint64_t size = get_le(frame + 4, 8);
    *refused = asker == NULL || size > QUESTION_MAX_BYTES;
    if (*refused)
        return IO_BROKEN;
    uint8_t *question = malloc(size > 0 ? (size_t)size : 1);
    bytebuf answer = {0};
    bytebuf_append_zeros(&answer, 8); /* the answer's length, filled in below */
    io_result got =
        question != NULL && !answer.failed ? recv_before(fd, question, size, deadline) : IO_BROKEN;
    if (got == IO_OK &&
        (!asker->answer(asker->user, question, (size_t)size, &answer) || answer.failed)) {
        *refused = true;
        got = IO_BROKEN;
    }
    if (got == IO_OK) {
        put_le(answer.data, answer.size - 8, 8);
        got = send_before(fd, answer.data, answer.size, -1, deadline);
    }
    free(question);
    bytebuf_free(&answer);
    return got;
}

/* The response as it arrives on the result pipe: u64 size, then the bytes. */
typedef struct response_reader {
    uint8_t frame[8];
    size_t frame_got;
    uint64_t size;
    uint8_t *data;
    size_t cap, got;
    uint64_t limit;
    bool done; /* end of file */
    bool bad;  /* more than announced, or over the limit: reason set */
} response_reader;

static void read_response(int fd, response_reader *r, char *reason, size_t reason_size) {
    for (;;) {
        uint8_t scratch[1];
        uint8_t *into;
        size_t room;
        if (r->frame_got < sizeof r->frame) {
            into = r->frame + r->frame_got;
            room = sizeof r->frame - r->frame_got;
        } else {
            if (r->got == r->cap && r->cap < r->size) {
                /* All at once up to the largest decoded image (no copies
                 * as it grows, which a sanitizer's realloc makes); beyond,
                 * only as the bytes arrive. */
                size_t cap = r->cap ? r->cap : FIRST_RESPONSE_BYTES;
                while (cap - r->got < RESULT_PIPE_BYTES && cap < r->size)
                    cap *= 2;
                if (cap > r->size)
                    cap = (size_t)r->size;
                uint8_t *grown = realloc(r->data, cap);
                if (grown == NULL) {
                    snprintf(reason, reason_size, "out of memory for a %llu-byte response",
                             (unsigned long long)r->size);
                    r->bad = true;
                    return;
                }
                r->data = grown;
                r->cap = cap;
            }
            /* Past the announced size, one more byte tells a protocol break. */
            into = r->got < r->cap ? r->data + r->got : scratch;
            room = r->got < r->cap ? r->cap - r->got : 1;
        }
        ssize_t n = read(fd, into, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return; /* EAGAIN: wait for more */
        if (n == 0) {
            r->done = true;
            return;
        }
        if (r->frame_got < sizeof r->frame) {
            r->frame_got += (size_t)n;
            if (r->frame_got == sizeof r->frame) {
                r->size = get_le(r->frame, 8);
                if ((r->limit != 0 && r->size > r->limit) || r->size >= SIZE_MAX) {
                    snprintf(reason, reason_size, "a response of %llu bytes is over the limit",
                             (unsigned long long)r->size);
                    r->bad = true;
                    return;
                }
            }
        } else if (into == scratch) {
            snprintf(reason, reason_size, "more response than the %llu bytes announced",
                     (unsigned long long)r->size);
            r->bad = true;
            return;
        } else {
            r->got += (size_t)n;
        }
    }
}

/* One attempt on server `s`. Returns false when the server must be
 * discarded; *retry says the failure came before the server saw anything
 * (a reused server that had died while idle). */
static bool run_on(server *s, const char *job, const isolate_part *parts, size_t part_count,
                   const isolate_limits *limits, const isolate_asker *asker, double deadline,
                   isolate_outcome *outcome, bool *retry, bool *died) {
    *retry = false;
    *died = false;
    int result[2];
    if (pipe2(result, O_CLOEXEC) != 0) {
        outcome->status = ISOLATE_FAILED;
        snprintf(outcome->reason, sizeof outcome->reason, "pipe: %s", strerror(errno));
        return true;
    }
    fcntl(result[0], F_SETFL, O_NONBLOCK);
    fcntl(result[1], F_SETPIPE_SZ, RESULT_PIPE_BYTES); /* fewer wake-ups; only speed */

    size_t name_length = strlen(job);
    uint64_t size = 0;
    for (size_t i = 0; i < part_count; i++)
        size += parts[i].size;
    uint8_t header[REQUEST_HEADER_BYTES];
    put_le(header, REQUEST_MAGIC, 4);
    put_le(header + 4, PROTOCOL_VERSION, 4);
    put_le(header + 8, name_length, 4);
    put_le(header + 12, limits->cpu_seconds, 4);
    put_le(header + 16, size, 8);
    put_le(header + 24, limits->memory_bytes, 8);
    put_le(header + 32, (uint32_t)ceil(fmin(limits->timeout_seconds, 1e9)), 4);
    io_result sent = send_before(s->fd, header, sizeof header, result[1], deadline);
    close(result[1]);
    *retry = sent == IO_BROKEN;
    if (sent == IO_OK)
        sent = send_before(s->fd, job, name_length, -1, deadline);
    for (size_t i = 0; sent == IO_OK && i < part_count; i++)
        sent = send_before(s->fd, parts[i].data, parts[i].size, -1, deadline);

    response_reader response = {.limit = limits->max_response_bytes};
    uint8_t status[STATUS_BYTES];
    size_t status_got = 0;
    bool server_closed = false, refused = false;
    while (sent == IO_OK && !response.bad && !server_closed &&
           !(response.done && status_got == STATUS_BYTES)) {
        struct pollfd fds[2] = {{.fd = response.done ? -1 : result[0], .events = POLLIN},
                                {.fd = status_got == STATUS_BYTES ? -1 : s->fd, .events = POLLIN}};
        int wait = poll_wait_ms(deadline);
        if (wait == 0) {
            sent = IO_TIMEOUT;
            break;
        }
        int n = poll(fds, 2, wait);
        if (n < 0 && errno != EINTR)
            sent = IO_BROKEN;
        if (n <= 0)
            continue;
        if (fds[0].revents != 0)
            read_response(result[0], &response, outcome->reason, sizeof outcome->reason);
        if (fds[1].revents != 0) {
            ssize_t got = recv(s->fd, status + status_got, STATUS_BYTES - status_got, 0);
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
                server_closed = true;
            else if (got > 0)
                status_got += (size_t)got;
            if (status_got == STATUS_BYTES && get_le(status, 4) == ASK_MAGIC) {
                sent = answer_question(s->fd, status, asker, deadline, &refused);
                status_got = 0;
            }
        }
    }
    close(result[0]);

    bool keep = false;
    if (sent == IO_TIMEOUT) {
        outcome->status = ISOLATE_TIMED_OUT;
    } else if (refused) {
        outcome->status = ISOLATE_FAILED;
        snprintf(outcome->reason, sizeof outcome->reason,
                 "the child asked a question that has no answer");
    } else if (sent == IO_BROKEN || server_closed) {
        /* A reused server running the job itself, crashed or stopped by a
         * limit: isolate_run reaps it and reports how it ended. */
        *died = true;
        outcome->status = ISOLATE_FAILED;
        snprintf(outcome->reason, sizeof outcome->reason, "the server process stopped");
    } else if (response.bad) {
        outcome->status = ISOLATE_FAILED;
    } else if (get_le(status, 4) != STATUS_MAGIC) {
        outcome->status = ISOLATE_FAILED;
        snprintf(outcome->reason, sizeof outcome->reason, "the server process broke the protocol");
    } else {
        keep = true;
        uint32_t how = (uint32_t)get_le(status + 4, 4);
        int value = (int)get_le(status + 8, 4);
        if (how == HOW_SIGNALED) {
            outcome->status = ISOLATE_SIGNALED;
            outcome->signal = value;
        } else if (how == HOW_NOT_STARTED) {
            outcome->status = ISOLATE_FAILED;
            snprintf(outcome->reason, sizeof outcome->reason, "fork: %s", strerror(value));
        } else if (value != 0) {
            outcome->status = ISOLATE_EXITED;
            outcome->exit_code = value;
        } else if (response.frame_got < sizeof response.frame || response.got != response.size) {
            outcome->status = ISOLATE_FAILED;
            snprintf(outcome->reason, sizeof outcome->reason,
                     "the child exited without its whole response");
        } else {
            outcome->status = ISOLATE_DONE;
            outcome->response = response.data;
            outcome->response_size = response.got;
            response.data = NULL;
        }
    }
    free(response.data);
    return keep;
}

void isolate_run(const char *job, const isolate_part *parts, size_t part_count,
                 const isolate_limits *limits, isolate_outcome *outcome) {
    isolate_run_asking(job, parts, part_count, limits, NULL, outcome);
}

void isolate_run_asking(const char *job, const isolate_part *parts, size_t part_count,
                        const isolate_limits *limits, const isolate_asker *asker,
                        isolate_outcome *outcome) {
    memset(outcome, 0, sizeof *outcome);
    double deadline = limits->timeout_seconds > 0.0 ? now_seconds() + limits->timeout_seconds : 0.0;
    if (strlen(job) > JOB_NAME_MAX) {
        outcome->status = ISOLATE_FAILED;
        snprintf(outcome->reason, sizeof outcome->reason, "job name too long");
        return;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        bool reused, retry, died;
        server *s = server_acquire(job, &reused, outcome->reason, sizeof outcome->reason);
        if (s == NULL) {
            outcome->status = ISOLATE_FAILED;
            return;
        }
        memset(outcome, 0, sizeof *outcome);
        if (run_on(s, job, parts, part_count, limits, asker, deadline, outcome, &retry, &died)) {
            server_release(s);
            return;
        }
        int status = server_discard(s);
        if (retry && reused)
            continue; /* it had died while idle: once more on a new one */
        if (died && WIFSIGNALED(status)) {
            outcome->status = ISOLATE_SIGNALED;
            outcome->signal = WTERMSIG(status);
        } else if (died && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
            outcome->status = ISOLATE_EXITED;
            outcome->exit_code = WEXITSTATUS(status);
        } else if (died) {
            snprintf(outcome->reason, sizeof outcome->reason,
                     "the process exited during the job without its whole response");
        }
        return;
    }
}

const char *isolate_signal_name(int signal) {
    const char *name = sigabbrev_np(signal);
    return name != NULL ? name : "unknown";
}
