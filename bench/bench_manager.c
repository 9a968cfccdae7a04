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
 *   read()          open + read() + close of every file into malloc'd memory,
 *                   then free: the floor of any loader that copies
 *   read(), kept    the same, every file kept until all are read (the memory a
 *                   loader holds, as the manager does), then freed
 *   read()+inflate  read(), kept, and every KTX2 level inflated by hand
 *                   (kiln_ktx2_view_get, kiln_ktx2_read_level): the floor of
 *                   "+ texels"
 *   sync            kiln_manager_load of every handle on this thread
 *   async N         kiln_manager_request of every handle, N worker threads,
 *                   kiln_manager_pump on this thread until every callback ran,
 *                   sleeping 50 us between pumps (a frame loop, not a spin that
 *                   would take a core from the workers)
 *   + texels        the same with KILN_MANAGER_KEEP_TEXELS: every texture level
 *                   inflated (Zstd) into manager memory, as for an upload
 *   get             kiln_asset_get of a loaded ref, averaged over every ref
 *   reload          kiln_manager_reload of every loaded file in place (folder,
 *                   KILN_MANAGER_KEEP_TEXELS so textures inflate as for an
 *                   upload): read, validate, inflate, dependencies relinked,
 *                   new data shown; two pumps after each free the old data.
 *                   Median per kind, and the largest texture's.
 *
 *   bench_manager RUNTIME_DIR RUNTIME.kpak --reload   runs get and reload alone.
 *
 * Timing as bench_util.h describes (one warm-up run, then the median). The
 * files stay in the page cache: this is the CPU cost of loading.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static uint8_t *read_whole(const char *path, size_t *size_out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        bench_die("%s: %s", path, strerror(errno));
    off_t size = lseek(fd, 0, SEEK_END);
    lseek(fd, 0, SEEK_SET);
    uint8_t *data = aligned_alloc(16, ((size_t)size + 15) / 16 * 16);
    size_t done = 0;
    while (done < (size_t)size) {
        ssize_t got = read(fd, data + done, (size_t)size - done);
        if (got <= 0)
            bench_die("%s: short read", path);
        done += (size_t)got;
    }
    close(fd);
    *size_out = (size_t)size;
    return data;
}

static void op_read(void *arg) {
    corpus *c = arg;
    for (uint32_t i = 0; i < c->count; i++) {
        size_t size;
        uint8_t *data = read_whole(c->paths[i], &size);
        sink += data[0];
        free(data);
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
    uint32_t callbacks;
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
        kiln_manager_pump(r->m);
        if (r->callbacks < r->c->count)
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

/* The least CPU time of this thread over `runs` runs: what the loaded machine
 * moves least (for the cases that run on this thread alone). */
static double cpu_min(bench_op op, void *arg, int runs) {
    double best = 1e9;
    op(arg);
    for (int i = 0; i < runs; i++) {
        double start = bench_thread_seconds();
        op(arg);
        double t = bench_thread_seconds() - start;
        best = t < best ? t : best;
    }
    return best;
}

static void report(const char *name, bench_stats s, double baseline) {
    char median[32], min[32];
    bench_format_duration(s.median, median, sizeof median);
    bench_format_duration(s.min, min, sizeof min);
    printf("| %-28s | %10s | %10s | %5.2fx | %3u |\n", name, median, min, s.median / baseline,
           s.reps);
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
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
        qsort(times[k], counts[k], sizeof times[k][0], compare_double);
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

int main(int argc, char **argv) {
    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "--reload") == 0))
        bench_die("usage: %s RUNTIME_DIR RUNTIME.kpak [--reload]", argv[0]);
    static corpus c;
    c.dir = argv[1];
    c.pack = argv[2];
    read_manifest(&c);
    if (argc == 4) {
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
    printf("| case | median | min | / read() | runs |\n|---|---:|---:|---:|---:|\n");
    const uint32_t reps = 200;
    const double budget = 4.0;
    bench_stats base = bench_measure(op_read, &c, reps, budget);
    report("read() every file", base, base.median);
    report("read(), all kept", bench_measure(op_read_kept, &c, reps, budget), base.median);
    report("read(), kept, + inflate", bench_measure(op_read_inflate, &c, reps, budget),
           base.median);

    static run r;
    r.c = &c;
    const char *mounts[2] = {c.dir, c.pack};
    const char *mount_names[2] = {"folder", "pack"};
    for (int flags = 0; flags < 2; flags++) {
        for (int mt = 0; mt < 2; mt++) {
            for (uint32_t workers = 0; workers <= 2; workers++) {
                r.m = make(mounts[mt], workers, flags ? KILN_MANAGER_KEEP_TEXELS : 0);
                r.async = workers > 0;
                char name[64];
                snprintf(name, sizeof name, "%s %s%s", mount_names[mt],
                         workers == 0   ? "sync"
                         : workers == 1 ? "async 1"
                                        : "async 2",
                         flags ? " + texels" : "");
                report(name, bench_measure(op_manager, &r, reps, budget), base.median);
                kiln_manager_destroy(r.m);
            }
        }
    }

    /* Single-threaded cases by this thread's CPU time, less moved by load. */
    double cpu_read = cpu_min(op_read, &c, 15), cpu_kept = cpu_min(op_read_kept, &c, 15);
    r.async = false;
    r.m = make(c.dir, 0, 0);
    double cpu_folder = cpu_min(op_manager, &r, 15);
    kiln_manager_destroy(r.m);
    r.m = make(c.pack, 0, 0);
    double cpu_pack = cpu_min(op_manager, &r, 15);
    kiln_manager_destroy(r.m);
    printf("\nthread CPU, least of 15 runs: read() %.1f ms, read() kept %.1f ms, folder sync %.1f "
           "ms (%.2fx read(), %.2fx kept), pack sync %.2f ms\n",
           cpu_read * 1e3, cpu_kept * 1e3, cpu_folder * 1e3, cpu_folder / cpu_read,
           cpu_folder / cpu_kept, cpu_pack * 1e3);

    get_section(&c);
    reload_section(&c);
    for (uint32_t i = 0; i < c.count; i++)
        free(c.paths[i]);
    return 0;
}
