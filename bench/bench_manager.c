/*
 * bench_manager.c — loading a whole cooked tree through the asset manager
 * (kiln/manager.h) against read() of the same bytes, and the cost of a
 * cached kiln_asset_get.
 *
 *   bench_manager RUNTIME_DIR RUNTIME.kpak
 *
 * RUNTIME_DIR is a cooked tree (bench/run.sh cooks the corpus into it) and
 * RUNTIME.kpak its pack. Every file the manifest names is loaded once per
 * run: a level scope is created, every handle loaded into it (the
 * dependencies come with their assets, so each file is read once), the
 * scope destroyed (everything released). Manager and mounts are made once,
 * outside the timing, as a game makes them once.
 *
 *   read()          open + read() + close of every file into one buffer (grown
 *                   to the largest file, kept from run to run): the floor of
 *                   any loader that copies
 *   read(), kept    the same, every file kept until all are read (the memory a
 *                   loader holds, as the manager does), then freed
 *   read()+inflate  read(), kept, and every KTX2 level inflated by hand
 *                   (kiln_ktx2_view_get, kiln_ktx2_read_level): the floor of
 *                   "+ texels"
 *   sync            kiln_manager_load of every handle on this thread (folder
 *                   files read into manager memory)
 *   sync, mapped    the same with KILN_MANAGER_MAP_FILES: folder files of 64
 *                   KiB and more mapped (populated), the rest read
 *   async N         kiln_manager_request of every handle, N worker threads,
 *                   then kiln_manager_wait (up to 16 ms: a loading screen's
 *                   frame) and kiln_manager_pump on this thread until every
 *                   callback ran: the thread sleeps until the workers are done
 *                   instead of polling (it pumped every 50 us before)
 *   + texels        the same with KILN_MANAGER_KEEP_TEXELS: every texture level
 *                   inflated (Zstd) into manager memory, as for an upload
 *   first load      before everything else, a fresh manager's first folder sync
 *                   load of the process (every file into memory the process
 *                   never had: a game's first level) and its second, once each
 *   get             kiln_asset_get of a loaded ref, averaged over every ref
 *   reload          kiln_manager_reload of every loaded file in place (folder,
 *                   KILN_MANAGER_KEEP_TEXELS so textures inflate as for an
 *                   upload): read, validate, inflate, dependencies relinked,
 *                   new data shown; two pumps after each free the old data.
 *                   Median per kind, and the largest texture's.
 *
 *   bench_manager RUNTIME_DIR RUNTIME.kpak --reload   runs get and reload alone.
 *   bench_manager RUNTIME_DIR RUNTIME.kpak --load     runs the loading cases
 *                   without texels and the comparison below alone.
 *   bench_manager RUNTIME_DIR RUNTIME.kpak --case folder|pack WORKERS RUNS [poll]
 *                   runs one case RUNS times (after a warm-up run), for perf
 *                   stat / perf record / strace -c: wall, this thread's and
 *                   the process's CPU, pumps, and the page faults of each
 *                   thread (this one, then the workers) a run. `poll` pumps
 *                   every 50 us instead of waiting (the async rows' loop
 *                   before kiln_manager_wait).
 *
 * Timing as bench_util.h describes (one warm-up run, then the median). The
 * files stay in the page cache: this is the CPU cost of loading. Then a
 * comparison that a shared machine moves less: the main cases run in turn,
 * round after round (so a burst of other work slows them all alike), each
 * run's wall time, this thread's CPU time and the whole process's (workers
 * included) recorded; and the summary of the goals (<= 1.2x read()
 * synchronously, async on 2 workers faster than sync) with the load average.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "kiln/kiln.h"
#include "kiln/manager.h"

#define MAX_FILES 8192

typedef struct corpus {
    const char *dir;
    const char *pack;
    char *paths[MAX_FILES]; /* distinct files the manifest names, full paths */
    kiln_handle handles[MAX_FILES];
    uint32_t file_kinds[MAX_FILES];
    uint64_t file_bytes[MAX_FILES];
    uint32_t count;
    uint64_t bytes;
    uint32_t kinds[8];
} corpus;

static void read_manifest(corpus *c) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", c->dir, KILN_MANIFEST_FILE_NAME);
    kiln_file file;
    kiln_error err;
    kiln_manifest_view view;
    if (kiln_file_map(&file, path, 0, &err) != KILN_OK ||
        kiln_manifest_view_get(&file, &view, &err) != KILN_OK)
        bench_die("%s", err.message);
    for (uint32_t i = 0; i < view.entry_count; i++) {
        const kiln_manifest_entry *e = &view.entries[i];
        const char *file_path = kiln_manifest_path(&view, e);
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", c->dir, file_path);
        bool seen = false; /* the rows of one material table share a file */
        for (uint32_t j = 0; j < c->count && !seen; j++)
            seen = strcmp(c->paths[j], full) == 0;
        if (seen)
            continue;
        if (c->count == MAX_FILES)
            bench_die("more than %d files", MAX_FILES);
        c->paths[c->count] = strdup(full);
        c->handles[c->count] = e->hash;
        c->file_kinds[c->count] = e->kind;
        c->file_bytes[c->count] = bench_file_size(full);
        c->bytes += c->file_bytes[c->count];
        if (e->kind < 8)
            c->kinds[e->kind]++;
        c->count++;
    }
    kiln_file_close(&file);
}

static volatile uint64_t sink;

/* The file whole; dies when it is not there. */
static uint8_t *read_whole(const char *path, size_t *size) {
    uint8_t *data = bench_read_whole(path, size);
    if (data == NULL)
        bench_die("%s: %s", path, strerror(errno));
    return data;
}

/* One buffer for every file, grown to the largest and kept from run to run:
 * the floor does not depend on whether the C library's heap still has the
 * pages the previous run freed (it gives them back to the system or not
 * depending on what else the process allocated in between). */
static uint8_t *read_buffer;
static size_t read_capacity;

static void op_read(void *arg) {
    corpus *c = arg;
    for (uint32_t i = 0; i < c->count; i++) {
        int fd = open(c->paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            bench_die("%s: %s", c->paths[i], strerror(errno));
        size_t size = (size_t)lseek(fd, 0, SEEK_END);
        lseek(fd, 0, SEEK_SET);
        if (size > read_capacity) {
            free(read_buffer);
            read_capacity = (size + 15) / 16 * 16;
            read_buffer = aligned_alloc(16, read_capacity);
            if (read_buffer == NULL)
                bench_die("out of memory");
        }
        size_t done = 0;
        while (done < size) {
            ssize_t got = read(fd, read_buffer + done, size - done);
            if (got <= 0)
                bench_die("%s: short read", c->paths[i]);
            done += (size_t)got;
        }
        close(fd);
        sink += read_buffer[0];
    }
}

static uint8_t *kept[MAX_FILES];

static void op_read_kept(void *arg) {
    corpus *c = arg;
    for (uint32_t i = 0; i < c->count; i++) {
        size_t size;
        kept[i] = read_whole(c->paths[i], &size);
        sink += kept[i][0];
    }
    for (uint32_t i = 0; i < c->count; i++)
        free(kept[i]);
}

static uint8_t *texels[MAX_FILES];

static void op_read_inflate(void *arg) {
    corpus *c = arg;
    for (uint32_t i = 0; i < c->count; i++) {
        size_t size;
        kept[i] = read_whole(c->paths[i], &size);
        texels[i] = NULL;
        if (!bench_has_suffix(c->paths[i], ".ktx2"))
            continue;
        kiln_ktx2_view view;
        kiln_error err;
        if (kiln_ktx2_view_get(&view, kept[i], size, c->paths[i], &err) != KILN_OK)
            bench_die("%s", err.message);
        uint64_t total = 0;
        for (uint32_t l = 0; l < view.levels; l++)
            total += (kiln_ktx2_level_size(&view, l) + 15) / 16 * 16;
        texels[i] = aligned_alloc(16, (size_t)total);
        uint64_t at = 0;
        for (uint32_t l = 0; l < view.levels; l++) {
            uint64_t level = kiln_ktx2_level_size(&view, l);
            if (kiln_ktx2_read_level(&view, l, texels[i] + at, (size_t)level, &err) != KILN_OK)
                bench_die("%s", err.message);
            at += (level + 15) / 16 * 16;
        }
    }
    for (uint32_t i = 0; i < c->count; i++) {
        free(kept[i]);
        free(texels[i]);
    }
}

typedef struct run {
    corpus *c;
    kiln_manager *m;
    bool async;
    bool poll; /* --case ... poll: pump every 50 us instead of kiln_manager_wait */
    uint32_t callbacks;
    uint64_t pumps;      /* kiln_manager_pump calls, over every run */
    double pump_seconds; /* wall time in them */
    kiln_ref refs[MAX_FILES];
} run;

static void on_done(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    run *r = user;
    (void)ref;
    if (result != KILN_OK)
        bench_die("request failed: %s", err->message);
    r->callbacks++;
}

static void op_manager(void *arg) {
    run *r = arg;
    kiln_error err;
    kiln_scope scope;
    if (kiln_scope_create(r->m, "bench", 0, &scope, &err) != KILN_OK)
        bench_die("%s", err.message);
    r->callbacks = 0;
    for (uint32_t i = 0; i < r->c->count; i++) {
        kiln_result result =
            r->async ? kiln_manager_request(r->m, scope, r->c->handles[i], 0, on_done, r,
                                            &r->refs[i], &err)
                     : kiln_manager_load(r->m, scope, r->c->handles[i], &r->refs[i], &err);
        if (result != KILN_OK)
            bench_die("%s", err.message);
    }
    while (r->async && r->callbacks < r->c->count) {
        /* A loading screen at 60 frames a second: wait for the workers to
         * run dry (or a frame's time), then pump. */
        if (!r->poll)
            kiln_manager_wait(r->m, 16);
        double start = bench_now();
        kiln_manager_pump(r->m);
        r->pump_seconds += bench_now() - start;
        r->pumps++;
        if (r->poll && r->callbacks < r->c->count) /* the loop before kiln_manager_wait */
            nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    sink += kiln_asset_get(r->m, r->refs[0]) != NULL;
    kiln_scope_destroy(r->m, scope, &err);
}

static kiln_manager *make(const char *mount, uint32_t workers, uint32_t flags) {
    kiln_manager_desc desc = {0};
    desc.worker_threads = workers;
    desc.flags = flags;
    kiln_manager *m;
    kiln_error err;
    if (kiln_manager_create(&desc, &m, &err) != KILN_OK ||
        kiln_manager_mount(m, mount, NULL, &err) != KILN_OK)
        bench_die("%s: %s", mount, err.message);
    return m;
}

static void report(const char *name, bench_stats s, double baseline) {
    char median[32], min[32];
    bench_format_duration(s.median, median, sizeof median);
    bench_format_duration(s.min, min, sizeof min);
    printf("| %-28s | %10s | %10s | %5.2fx | %7.0f | %3u |\n", name, median, min,
           s.median / baseline, s.minor_faults, s.reps);
}

/* A cached get: every ref of a loaded tree, many times over. */
static void get_section(corpus *c) {
    static run rr;
    run *r = &rr;
    r->c = c;
    r->m = make(c->pack, 0, 0);
    r->async = false;
    kiln_error err;
    kiln_scope scope;
    kiln_scope_create(r->m, "get", 0, &scope, &err);
    for (uint32_t i = 0; i < c->count; i++)
        if (kiln_manager_load(r->m, scope, c->handles[i], &r->refs[i], &err) != KILN_OK)
            bench_die("%s", err.message);
    double best = 1e9;
    for (int round = 0; round < 7; round++) {
        const uint32_t loops = 20000000u / c->count + 1;
        double start = bench_now();
        uint64_t found = 0;
        for (uint32_t l = 0; l < loops; l++)
            for (uint32_t i = 0; i < c->count; i++)
                found += kiln_asset_get(r->m, r->refs[i]) != NULL;
        double per = (bench_now() - start) / ((double)loops * c->count);
        if (found != (uint64_t)loops * c->count)
            bench_die("a loaded ref was not ready");
        best = per < best ? per : best;
        sink += found;
    }
    printf("\nkiln_asset_get of a loaded ref: %.1f ns (best of 7 rounds of 20M gets over %" PRIu32
           " refs)\n",
           best * 1e9, c->count);
    kiln_manager_destroy(r->m);
}

/* Hot reload: every file loaded from the folder, then each reloaded in
 * place, one at a time, with two pumps after each (the replaced data freed,
 * as a game's next two frames would). */
static void reload_section(corpus *c) {
    kiln_manager *m = make(c->dir, 0, KILN_MANAGER_KEEP_TEXELS);
    kiln_error err;
    kiln_scope scope;
    static kiln_ref refs[MAX_FILES];
    if (kiln_scope_create(m, "reload", 0, &scope, &err) != KILN_OK)
        bench_die("%s", err.message);
    for (uint32_t i = 0; i < c->count; i++)
        if (kiln_manager_load(m, scope, c->handles[i], &refs[i], &err) != KILN_OK)
            bench_die("%s", err.message);
    static double times[8][MAX_FILES];
    uint32_t counts[8] = {0};
    static double best[MAX_FILES];
    uint32_t largest = UINT32_MAX;
    for (uint32_t i = 0; i < c->count; i++)
        if (c->file_kinds[i] == KILN_ASSET_TEXTURE &&
            (largest == UINT32_MAX || c->file_bytes[i] > c->file_bytes[largest]))
            largest = i;
    for (int round = 0; round < 3; round++) { /* each file 3 times */
        for (uint32_t i = 0; i < c->count; i++) {
            const kiln_asset *before = kiln_asset_get(m, refs[i]);
            double start = bench_now();
            if (kiln_manager_reload(m, c->handles[i], &err) != KILN_OK)
                bench_die("reload: %s", err.message);
            double took = bench_now() - start;
            if (kiln_asset_get(m, refs[i]) == before)
                bench_die("%s: not replaced", c->paths[i]);
            kiln_manager_pump(m);
            kiln_manager_pump(m);
            uint32_t kind = c->file_kinds[i] < 8 ? c->file_kinds[i] : 0;
            times[kind][counts[kind]++] = took;
            if (round == 0 || took < best[i])
                best[i] = took;
        }
    }
    kiln_manager_stats stats;
    if (kiln_manager_stats_get(m, &stats, &err) != KILN_OK || stats.retired != 0)
        bench_die("replaced data left after two pumps");
    printf("\nkiln_manager_reload, folder, + texels (each file 3 times, two pumps after each): "
           "%" PRIu64 " reloads\n\n| kind | files x 3 | median | max |\n|---|---:|---:|---:|\n",
           stats.reloads);
    static const char *const names[8] = {"?",     "mesh",      "material table", "texture",
                                         "scene", "animation", "shader",         "?"};
    for (int k = 0; k < 8; k++) {
        if (counts[k] == 0)
            continue;
        qsort(times[k], counts[k], sizeof times[k][0], bench_compare_doubles);
        printf("| %s | %" PRIu32 " | %.3f ms | %.3f ms |\n", names[k], counts[k],
               times[k][counts[k] / 2] * 1e3, times[k][counts[k] - 1] * 1e3);
    }
    if (largest != UINT32_MAX) {
        const kiln_asset *a = kiln_asset_get(m, refs[largest]);
        char bytes[32];
        bench_format_bytes(c->file_bytes[largest], bytes, sizeof bytes);
        printf("\nlargest texture %s: %" PRIu32 "x%" PRIu32 ", %" PRIu32
               " levels, %s file, %.1f MB inflated: reload %.2f ms (best of 3)\n",
               a->ref, a->texture.width, a->texture.height, a->texture.levels, bytes,
               (double)a->texel_bytes / 1e6, best[largest] * 1e3);
    }
    kiln_manager_destroy(m);
}

/* "0.52 0.61 0.70": the load average now (1, 5, 15 minutes). */
static void load_average(char *out, size_t capacity) {
    snprintf(out, capacity, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return;
    double a, b, c;
    if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(out, capacity, "%.2f %.2f %.2f", a, b, c);
    fclose(f);
}

static double process_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The summary, printed last so that it can be pasted as it is. */
static char summary[4096];
static size_t summary_length;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(summary + summary_length, sizeof summary - summary_length, fmt, args);
    va_end(args);
    if (n > 0)
        summary_length += (size_t)n < sizeof summary - summary_length
                              ? (size_t)n
                              : sizeof summary - summary_length - 1;
}

#define VERSUS_ROUNDS 41

typedef struct versus_case {
    const char *name;
    bench_op op;
    void *arg;
    run *r; /* manager cases */
    double wall[VERSUS_ROUNDS], thread[VERSUS_ROUNDS], process[VERSUS_ROUNDS];
} versus_case;

static double median_of(const double *values, uint32_t count) {
    double sorted[VERSUS_ROUNDS];
    memcpy(sorted, values, count * sizeof *values);
    return bench_median(sorted, count);
}

static double min_of(const double *values, uint32_t count) {
    double best = values[0];
    for (uint32_t i = 1; i < count; i++)
        best = values[i] < best ? values[i] : best;
    return best;
}

/* The main cases in turn, round after round, then the summary of the goals. */
static void versus_section(corpus *c) {
    static run runs[6];
    static const struct {
        const char *name;
        int pack;
        uint32_t workers;
        uint32_t flags;
    } managers[6] = {
        {"folder sync", 0, 0, 0},    {"folder sync, mapped", 0, 0, KILN_MANAGER_MAP_FILES},
        {"folder async 1", 0, 1, 0}, {"folder async 2", 0, 2, 0},
        {"pack sync", 1, 0, 0},      {"pack async 2", 1, 2, 0},
    };
    static versus_case cases[8];
    uint32_t count = 0;
    cases[count++] = (versus_case){.name = "read() every file", .op = op_read, .arg = c};
    cases[count++] = (versus_case){.name = "read(), all kept", .op = op_read_kept, .arg = c};
    for (int i = 0; i < 6; i++) {
        run *r = &runs[i];
        r->c = c;
        r->async = managers[i].workers > 0;
        r->m = make(managers[i].pack ? c->pack : c->dir, managers[i].workers, managers[i].flags);
        cases[count++] =
            (versus_case){.name = managers[i].name, .op = op_manager, .arg = r, .r = r};
    }
    char before[64], after[64];
    load_average(before, sizeof before);
    for (uint32_t k = 0; k < count; k++) /* warm-up */
        cases[k].op(cases[k].arg);
    for (uint32_t k = 0; k < count; k++)
        if (cases[k].r != NULL)
            cases[k].r->pumps = 0, cases[k].r->pump_seconds = 0;
    uint32_t rounds = 0;
    double start = bench_now();
    while (rounds < VERSUS_ROUNDS && (rounds < 9 || bench_now() - start < 20.0)) {
        for (uint32_t k = 0; k < count; k++) {
            versus_case *v = &cases[k];
            double w = bench_now(), t = bench_thread_seconds(), p = process_seconds();
            v->op(v->arg);
            v->thread[rounds] = bench_thread_seconds() - t;
            v->process[rounds] = process_seconds() - p;
            v->wall[rounds] = bench_now() - w;
        }
        rounds++;
    }
    load_average(after, sizeof after);
    printf("\nthe main cases in turn, %" PRIu32 " rounds (load average %s before, %s after):\n\n"
           "| case | wall median | wall min | thread CPU min | process CPU median | wall / "
           "read() | thread CPU / read() |\n|---|---:|---:|---:|---:|---:|---:|\n",
           rounds, before, after);
    double base_wall = median_of(cases[0].wall, rounds), base_cpu = min_of(cases[0].thread, rounds);
    double wall[8], cpu[8], process[8];
    for (uint32_t k = 0; k < count; k++) {
        versus_case *v = &cases[k];
        wall[k] = median_of(v->wall, rounds);
        cpu[k] = min_of(v->thread, rounds);
        process[k] = median_of(v->process, rounds);
        char w[32], wmin[32], t[32], p[32];
        bench_format_duration(wall[k], w, sizeof w);
        bench_format_duration(min_of(v->wall, rounds), wmin, sizeof wmin);
        bench_format_duration(cpu[k], t, sizeof t);
        bench_format_duration(process[k], p, sizeof p);
        printf("| %s | %s | %s | %s | %s | %.2fx | %.2fx |\n", v->name, w, wmin, t, p,
               wall[k] / base_wall, cpu[k] / base_cpu);
    }
    for (uint32_t k = 0; k < count; k++)
        if (cases[k].r != NULL && cases[k].r->async)
            printf("%s: %.0f pumps a run, %.2f ms a run inside kiln_manager_pump\n", cases[k].name,
                   (double)cases[k].r->pumps / (rounds + 0.0),
                   cases[k].r->pump_seconds * 1e3 / rounds);
    /* Indices: 0 read, 1 kept, 2 folder sync, 3 folder sync mapped, 4 async 1,
     * 5 async 2, 6 pack sync, 7 pack async 2. */
    say("\nSUMMARY of the goals, from the interleaved rounds above (%" PRIu32
        " rounds; load average %s before, %s after; wall: median, thread CPU: least):\n",
        rounds, before, after);
    say("  folder sync           %.2fx read() wall, %.2fx read() thread CPU  (goal <= 1.2x: %s)\n",
        wall[2] / base_wall, cpu[2] / base_cpu,
        wall[2] / base_wall <= 1.2 && cpu[2] / base_cpu <= 1.2 ? "met" : "NOT met");
    say("  folder sync, mapped   %.2fx read() wall, %.2fx read() thread CPU  "
        "(KILN_MANAGER_MAP_FILES)\n",
        wall[3] / base_wall, cpu[3] / base_cpu);
    say("  pack sync             %.2fx read() wall, %.2fx read() thread CPU\n", wall[6] / base_wall,
        cpu[6] / base_cpu);
    for (int k = 4; k <= 5; k++)
        say("  folder async %d        %.2fx read() wall, %.2fx folder sync wall; process CPU "
            "%.2fx sync's%s\n",
            k - 3, wall[k] / base_wall, wall[k] / wall[2], process[k] / process[2],
            k == 5 ? (wall[5] < wall[2] ? "  (goal faster than sync: met)"
                                        : "  (goal faster than sync: NOT met)")
                   : "");
    say("  pack async 2          %.2fx read() wall, %.2fx pack sync wall\n", wall[7] / base_wall,
        wall[7] / wall[6]);
    for (int i = 0; i < 6; i++)
        kiln_manager_destroy(runs[i].m);
}

/* The minor page faults of each thread of this process (/proc/self/task),
 * in the order the directory lists them (this thread first, then the
 * workers by creation); the count of threads. */
static uint32_t thread_faults(uint64_t *faults, uint32_t capacity) {
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL)
        return 0;
    uint32_t count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && count < capacity) {
        if (e->d_name[0] == '.')
            continue;
        char path[320], line[1024];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t got = fread(line, 1, sizeof line - 1, f);
        fclose(f);
        line[got] = '\0';
        const char *after = strrchr(line, ')'); /* the command name may hold spaces */
        unsigned long long minflt = 0;
        if (after != NULL && sscanf(after + 2, "%*c %*d %*d %*d %*d %*d %*u %llu", &minflt) == 1)
            faults[count++] = minflt;
    }
    closedir(dir);
    return count;
}

/* One case, many runs: for profiling (perf stat, perf record, strace -c). */
static void case_section(corpus *c, const char *mount, uint32_t workers, uint32_t runs, bool poll) {
    static run r;
    r.c = c;
    r.async = workers > 0;
    r.poll = poll;
    r.m = make(strcmp(mount, "pack") == 0 ? c->pack : c->dir, workers, 0);
    op_manager(&r); /* warm-up */
    r.pumps = 0;
    r.pump_seconds = 0;
    double *wall = calloc(runs, sizeof *wall), *thread = calloc(runs, sizeof *thread),
           *process = calloc(runs, sizeof *process);
    uint64_t before[16], after[16];
    uint32_t threads = thread_faults(before, 16);
    for (uint32_t i = 0; i < runs; i++) {
        double w = bench_now(), t = bench_thread_seconds(), p = process_seconds();
        op_manager(&r);
        thread[i] = bench_thread_seconds() - t;
        process[i] = process_seconds() - p;
        wall[i] = bench_now() - w;
    }
    uint32_t threads_after = thread_faults(after, 16);
    qsort(wall, runs, sizeof *wall, bench_compare_doubles);
    qsort(thread, runs, sizeof *thread, bench_compare_doubles);
    qsort(process, runs, sizeof *process, bench_compare_doubles);
    printf("%s%s, %" PRIu32 " workers, %" PRIu32 " runs: wall median %.2f ms (min %.2f), this "
           "thread's CPU median %.2f ms, process CPU median %.2f ms, %.1f pumps a run (%.3f ms "
           "in them)\npage faults a run, per thread:",
           mount, poll ? " (polling)" : "", workers, runs, wall[runs / 2] * 1e3, wall[0] * 1e3,
           thread[runs / 2] * 1e3, process[runs / 2] * 1e3, (double)r.pumps / runs,
           r.pump_seconds * 1e3 / runs);
    for (uint32_t i = 0; i < threads && i < threads_after; i++)
        printf(" %.0f", (double)(after[i] - before[i]) / runs);
    printf("\n");
    free(wall);
    free(thread);
    free(process);
    kiln_manager_destroy(r.m);
}

static long minor_faults(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

/* The first folder load of the process, before anything else ran: every byte
 * lands in memory the process never had (what a game's first level pays),
 * where the timed runs below reuse what the previous run freed. Then the
 * second load, for comparison. */
static double first_loads[2][3]; /* wall, thread CPU, page faults */

static void first_load_section(corpus *c) {
    static run r;
    r.c = c;
    r.m = make(c->dir, 0, 0);
    r.async = false;
    for (int i = 0; i < 2; i++) {
        long faults = minor_faults();
        double wall = bench_now(), thread = bench_thread_seconds();
        op_manager(&r);
        thread = bench_thread_seconds() - thread;
        wall = bench_now() - wall;
        faults = minor_faults() - faults;
        first_loads[i][0] = wall;
        first_loads[i][1] = thread;
        first_loads[i][2] = (double)faults;
        printf("%s folder sync load of the process: wall %.1f ms, thread CPU %.1f ms, "
               "%ld page faults\n",
               i == 0 ? "first " : "second", wall * 1e3, thread * 1e3, faults);
    }
    kiln_manager_destroy(r.m);
    printf("\n");
}

int main(int argc, char **argv) {
    bool load_only = argc == 4 && strcmp(argv[3], "--load") == 0;
    bool reload_only = argc == 4 && strcmp(argv[3], "--reload") == 0;
    bool poll = argc == 8 && strcmp(argv[7], "poll") == 0;
    bool one_case = (argc == 7 || poll) && strcmp(argv[3], "--case") == 0 &&
                    (strcmp(argv[4], "folder") == 0 || strcmp(argv[4], "pack") == 0) &&
                    atoi(argv[5]) >= 0 && atoi(argv[6]) > 0;
    if (argc != 3 && !load_only && !reload_only && !one_case)
        bench_die("usage: %s RUNTIME_DIR RUNTIME.kpak [--load | --reload | --case folder|pack "
                  "WORKERS RUNS [poll]]",
                  argv[0]);
    static corpus c;
    c.dir = argv[1];
    c.pack = argv[2];
    read_manifest(&c);
    if (one_case) {
        case_section(&c, argv[4], (uint32_t)atoi(argv[5]), (uint32_t)atoi(argv[6]), poll);
        return 0;
    }
    if (reload_only) {
        get_section(&c);
        reload_section(&c);
        return 0;
    }
    char bytes[32];
    bench_format_bytes(c.bytes, bytes, sizeof bytes);
    printf("%" PRIu32 " files, %s: %" PRIu32 " meshes, %" PRIu32 " material tables, %" PRIu32
           " textures, %" PRIu32 " scenes\n\n",
           c.count, bytes, c.kinds[KILN_ASSET_MESH], c.kinds[KILN_ASSET_MATERIAL],
           c.kinds[KILN_ASSET_TEXTURE], c.kinds[KILN_ASSET_SCENE]);
    first_load_section(&c);
    printf("| case | median | min | / read() | page faults | runs |\n"
           "|---|---:|---:|---:|---:|---:|\n");
    const uint32_t reps = 200;
    const double budget = 4.0;
    bench_stats base = bench_measure(op_read, &c, reps, budget);
    report("read() every file", base, base.median);
    report("read(), all kept", bench_measure(op_read_kept, &c, reps, budget), base.median);
    if (!load_only)
        report("read(), kept, + inflate", bench_measure(op_read_inflate, &c, reps, budget),
               base.median);

    static run r;
    r.c = &c;
    const char *mounts[2] = {c.dir, c.pack};
    const char *mount_names[2] = {"folder", "pack"};
    for (int flags = 0; flags < (load_only ? 1 : 2); flags++) {
        for (int mt = 0; mt < 2; mt++) {
            for (uint32_t workers = 0; workers <= 2; workers++) {
                for (int read_files = 0; read_files < (mt == 0 && workers == 0 ? 2 : 1);
                     read_files++) {
                    r.m = make(mounts[mt], workers,
                               (flags ? KILN_MANAGER_KEEP_TEXELS : 0) |
                                   (read_files ? KILN_MANAGER_MAP_FILES : 0));
                    r.async = workers > 0;
                    char name[64];
                    snprintf(name, sizeof name, "%s %s%s%s", mount_names[mt],
                             workers == 0   ? "sync"
                             : workers == 1 ? "async 1"
                                            : "async 2",
                             read_files ? ", mapped" : "", flags ? " + texels" : "");
                    report(name, bench_measure(op_manager, &r, reps, budget), base.median);
                    kiln_manager_destroy(r.m);
                }
            }
        }
    }

    versus_section(&c);
    for (int i = 0; i < 2; i++)
        say("  %s folder sync      %.1f ms wall, %.1f ms thread CPU, %.0f page faults (the "
            "process's %s load)\n",
            i == 0 ? "first " : "second", first_loads[i][0] * 1e3, first_loads[i][1] * 1e3,
            first_loads[i][2], i == 0 ? "first" : "second");
    if (!load_only) {
        get_section(&c);
        reload_section(&c);
    }
    fputs(summary, stdout);
    for (uint32_t i = 0; i < c.count; i++)
        free(c.paths[i]);
    return 0;
}
