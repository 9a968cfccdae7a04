/*
 * bench_commands.c — wall-clock time of whole commands, run in alternation.
 *
 *   bench_commands [--rounds N] [--warmup N] [--prepare SHELL] NAME SHELL [NAME SHELL ...]
 *
 * Each round runs every command once (through /bin/sh -c, output discarded),
 * preceded by the --prepare command (e.g. removing the output folder), which
 * is not timed. --warmup rounds (default 1) run first and are discarded; then
 * --rounds rounds (default 3) are timed. A command that fails stops the
 * benchmark: timing a failure would report nonsense.
 *
 * Why not hyperfine, which does the same for one command at a time: on a
 * shared virtual machine the speed of the host drifts by tens of percent over
 * a minute. Timing all runs of A and then all runs of B puts that drift into
 * the A/B ratio; alternating A, B, A, B … (and alternating which goes first)
 * exposes both to the same conditions, so the ratio of medians is fair even
 * when the absolute times move.
 *
 * Reported per command: the median, min and max wall time, and the median CPU
 * time (user + system of the command and its children, from wait4). CPU /
 * wall is how many cores the command kept busy on average, which is what a
 * parallel speed-up is made of. "others" is how many cores everything else on
 * the machine kept busy meanwhile (all CPU time /proc/stat counts, minus the
 * command's own, per second of wall time; median over the runs): near 0 for a
 * quiet machine, and the first thing to check when numbers look wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_COMMANDS 8
#define MAX_ROUNDS 50

typedef struct command {
    const char *name;
    const char *shell;
    double wall[MAX_ROUNDS];
    double cpu[MAX_ROUNDS];
    double others[MAX_ROUNDS]; /* cores other processes used during the run */
} command;

typedef struct options {
    uint32_t rounds;
    uint32_t warmup;
    const char *prepare; /* may be NULL */
    command commands[MAX_COMMANDS];
    uint32_t command_count;
} options;

/* ---------------------------------------------------------------------------
 * Running one command
 * ------------------------------------------------------------------------- */

/* CPU seconds the whole machine has spent busy since boot (every CPU's user,
 * nice, system, irq, softirq and steal time), or -1 when /proc/stat cannot be
 * read. */
static double machine_busy_seconds(void) {
    FILE *stat = fopen("/proc/stat", "r");
    if (stat == NULL)
        return -1.0;
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
    int fields = fscanf(stat, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system,
                        &idle, &iowait, &irq, &softirq, &steal);
    fclose(stat);
    if (fields != 8)
        return -1.0;
    return (double)(user + nice + system + irq + softirq + steal) / (double)sysconf(_SC_CLK_TCK);
}

static double timeval_seconds(struct timeval tv) {
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* Runs `shell` with /bin/sh, stdout to /dev/null (stderr stays, so errors
 * show). Returns the exit status; *wall and *cpu receive its times. */
static int run_shell(const char *shell, double *wall, double *cpu) {
    double start = bench_now();
    pid_t pid = fork();
    if (pid < 0)
        bench_die("fork: %s", strerror(errno));
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        execl("/bin/sh", "sh", "-c", shell, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR)
            bench_die("wait4: %s", strerror(errno));
    }
    *wall = bench_now() - start;
    *cpu = timeval_seconds(usage.ru_utime) + timeval_seconds(usage.ru_stime);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void run_or_die(const char *shell, double *wall, double *cpu) {
    int status = run_shell(shell, wall, cpu);
    if (status != 0)
        bench_die("'%s' exited with status %d", shell, status);
}

/* One round: every command once, the order reversed on odd rounds so that no
 * command always runs right after the same other one. */
static void run_round(options *opts, uint32_t round, bool timed) {
    for (uint32_t k = 0; k < opts->command_count; k++) {
        uint32_t i = round % 2 == 0 ? k : opts->command_count - 1 - k;
        command *c = &opts->commands[i];
        double wall, cpu;
        if (opts->prepare != NULL)
            run_or_die(opts->prepare, &wall, &cpu);
        double busy_before = machine_busy_seconds();
        run_or_die(c->shell, &wall, &cpu);
        double busy = machine_busy_seconds() - busy_before;
        if (timed) {
            c->wall[round] = wall;
            c->cpu[round] = cpu;
            /* Clock ticks are 10 ms: a short run can come out slightly negative. */
            double others = busy_before < 0.0 ? 0.0 : (busy - cpu) / wall;
            c->others[round] = others > 0.0 ? others : 0.0;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Statistics and report
 * ------------------------------------------------------------------------- */

static void print_report(options *opts) {
    printf("%-14s %6s %9s %9s %9s %9s %8s %7s\n", "command", "runs", "median", "min", "max", "cpu",
           "cpu/wall", "others");
    double first_median = 0.0;
    for (uint32_t i = 0; i < opts->command_count; i++) {
        command *c = &opts->commands[i];
        double wall = bench_median(c->wall, opts->rounds); /* sorted from here on */
        double cpu = bench_median(c->cpu, opts->rounds);
        double others = bench_median(c->others, opts->rounds);
        printf("%-14s %6u %8.3fs %8.3fs %8.3fs %8.3fs %8.2f %7.2f\n", c->name, opts->rounds, wall,
               c->wall[0], c->wall[opts->rounds - 1], cpu, cpu / wall, others);
        if (i == 0)
            first_median = wall;
        else
            printf("  %s vs %s (medians): %.2fx the time = %.2fx the speed\n", c->name,
                   opts->commands[0].name, wall / first_median, first_median / wall);
    }
    for (uint32_t i = 0; i < opts->command_count; i++)
        printf("  %-12s %s\n", opts->commands[i].name, opts->commands[i].shell);
}

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

static uint32_t parse_count(const char *text, uint32_t min, uint32_t max, const char *what) {
    char *end = NULL;
    unsigned long value = strtoul(text, &end, 10);
    if (end == text || *end != '\0' || value < min || value > max)
        bench_die("%s must be %u..%u, not '%s'", what, min, max, text);
    return (uint32_t)value;
}

static void usage_and_exit(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--rounds N] [--warmup N] [--prepare SHELL] NAME SHELL [NAME SHELL ...]\n",
            argv0);
    exit(2);
}

static void parse_options(int argc, char **argv, options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->rounds = 3;
    opts->warmup = 1;
    int i = 1;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--rounds") == 0)
            opts->rounds = parse_count(argv[i + 1], 1, MAX_ROUNDS, "--rounds");
        else if (strcmp(argv[i], "--warmup") == 0)
            opts->warmup = parse_count(argv[i + 1], 0, MAX_ROUNDS, "--warmup");
        else if (strcmp(argv[i], "--prepare") == 0)
            opts->prepare = argv[i + 1];
        else
            usage_and_exit(argv[0]);
    }
    int left = argc - i;
    if (left < 2 || left % 2 != 0 || left / 2 > MAX_COMMANDS)
        usage_and_exit(argv[0]);
    for (; i < argc; i += 2) {
        command *c = &opts->commands[opts->command_count++];
        c->name = argv[i];
        c->shell = argv[i + 1];
    }
}

int main(int argc, char **argv) {
    options *opts = calloc(1, sizeof *opts);
    if (opts == NULL)
        bench_die("out of memory");
    parse_options(argc, argv, opts);
    for (uint32_t r = 0; r < opts->warmup; r++)
        run_round(opts, r, false);
    for (uint32_t r = 0; r < opts->rounds; r++)
        run_round(opts, r, true);
    print_report(opts);
    free(opts);
    return 0;
}
