/*
 * bench_simplify.c — kiln's simplifier against meshoptimizer's, as the
 * cooker's LOD step uses them (mesh.simplifier: kiln | meshopt).
 *
 *   bench_simplify [--reps N] [--orders K] [--chunk T] [--min-triangles T] SOURCE...
 *
 * Imports each SOURCE and runs the process stages up to the LODs (normals,
 * weld and the cooker's drop of degenerate and repeated triangles, order
 * untimed; then the LOD step timed, default settings, one thread) N times
 * (default 3) with each simplifier, alternating which goes first, so both see
 * the same load. Prints per mesh the median CPU time of the LOD step with
 * each, and per reduced level both versions' triangles against the target,
 * their recorded errors, and a sampled symmetric distance to level 0 (from
 * every corner and centroid of one to the nearest triangle of the other, both
 * ways, as a fraction of the mesh's extent, the unit of the recorded errors):
 * max and mean. It also prints the CPU the vertex cache order of the reduced
 * levels costs (each level ordered once more, on a copy), the part of the LOD
 * step that is not simplification.
 *
 * A level's maximum distance moves 10-20 % with the input's triangle order
 * alone, so one order cannot say which simplifier is better. --orders K runs
 * both simplifiers on K orders of each mesh: the cooker's own (the one the CPU
 * times are taken on) and K-1 shuffles of it (fixed seeds 1..K-1: triangles of
 * each submesh shuffled, each triangle's corners rotated, winding kept), and
 * prints per level the mean and the max over the orders of each figure, and
 * kiln's over meshopt's ("k/m": of the means, of the maxima). Where kiln's
 * level stops at another triangle count than meshopt's (its error bound
 * counts from level 0, so it may reach further), it also runs kiln's
 * simplifier to meshopt's counts ("kiln=m", "k=m/m"): the same-count
 * comparison. --chunk T simplifies submeshes of at least 2T triangles in
 * chunks of about T (the cooker's mesh_chunk_triangles), so both simplifiers
 * can be compared on the chunked path with borders locked on models smaller
 * than the cooker's chunk size. --min-triangles T reports only submeshes of at
 * least T triangles (e.g. 1024, where `mesh.simplifier: auto` takes kiln's),
 * each under a line with its triangle count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lod.h"
#include "bench_util.h"
#include "kiln/kiln.h"

#define MAX_REPS 15
#define MAX_MESHES 256
#define MAX_ORDERS 64

typedef struct version {
    ir_asset asset;
    double cpu[MAX_REPS][MAX_MESHES]; /* per rep, per mesh, on the cooker's order */
} version;

/* The figures of one reduced level of one submesh, over the orders. */
enum { FIG_TRIANGLES, FIG_ERROR, FIG_MAX_DIST, FIG_MEAN_DIST, FIG_COUNT };
typedef struct level_figures {
    double sum[FIG_COUNT], max[FIG_COUNT];
} level_figures;

static double median_cpu(const version *v, uint32_t reps, uint32_t mesh) {
    double values[MAX_REPS];
    for (uint32_t r = 0; r < reps; r++)
        values[r] = v->cpu[r][mesh];
    qsort(values, reps, sizeof *values, bench_compare_doubles);
    return values[reps / 2];
}

/* splitmix64: a fixed sequence per seed on every machine. */
static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Another input order of the same surface: each triangle submesh's
 * triangles shuffled (Fisher-Yates) and each triangle's corners rotated, so
 * the winding is kept. */
static void shuffle_triangles(ir_mesh *mesh, uint64_t seed) {
    uint64_t state = seed;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (sub->topology != KILN_TOPOLOGY_TRIANGLES)
            continue;
        uint32_t *tri = mesh->indices + sub->index_offset;
        uint32_t n = sub->index_count / 3;
        for (uint32_t i = n; i > 1; i--) {
            uint32_t j = (uint32_t)(next_random(&state) % i), a = 3 * (i - 1), b = 3 * j;
            for (int k = 0; k < 3; k++) {
                uint32_t t = tri[a + k];
                tri[a + k] = tri[b + k];
                tri[b + k] = t;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = (uint32_t)(next_random(&state) % 3), c[3];
            for (uint32_t k = 0; k < 3; k++)
                c[k] = tri[3 * i + (k + r) % 3];
            memcpy(&tri[3 * i], c, sizeof c);
        }
    }
}

/* One run: import, untimed stages (and the shuffle of `order` > 0), the timed
 * LOD step; returns the asset. */
static ir_asset run(const char *path, const cook_settings *settings, uint32_t order,
                    double cpu[MAX_MESHES]) {
    cook_settings copy = *settings;
    ir_asset asset = bench_lod_import(path, &copy);
    for (uint32_t m = 0; m < asset.mesh_count; m++) {
        ir_mesh *mesh = &asset.meshes[m];
        if (!process_generate_normals(mesh) || !bench_lod_weld(mesh) ||
            !process_optimize_order(mesh, settings))
            bench_die("processing failed");
        if (order > 0)
            shuffle_triangles(mesh, order);
        double start = bench_cpu_seconds();
        if (!process_build_lods(mesh, settings))
            bench_die("LODs failed");
        if (m < MAX_MESHES && cpu != NULL)
            cpu[m] = bench_cpu_seconds() - start;
    }
    return asset;
}

/* Symmetric sampled distance of the triangles `level` to `level0`. */
static void level_distance(const ir_mesh *mesh, const uint32_t *level0, size_t level0_count,
                           const uint32_t *level, size_t level_count, const float lo[3],
                           const float hi[3], double *max, double *mean) {
    bool ok;
    surface_distance(mesh->positions, level0, level0_count, level, level_count, lo, hi, max, mean,
                     &ok);
    if (!ok)
        bench_die("out of memory");
}

/* CPU of ordering every reduced level once more, on a copy. */
static double order_cpu(const ir_mesh *mesh) {
    double total = 0.0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++)
        for (uint32_t level = 1; level < mesh->lod_count; level++) {
            const ir_lod *l = &mesh->lods[(size_t)s * mesh->lod_count + level];
            if (l->reused || mesh->submeshes[s].topology != KILN_TOPOLOGY_TRIANGLES)
                continue;
            uint32_t *copy = malloc((l->index_count ? l->index_count : 1) * sizeof *copy);
            if (copy == NULL)
                bench_die("out of memory");
            memcpy(copy, mesh->indices + l->index_offset, l->index_count * sizeof *copy);
            double start = bench_cpu_seconds();
            meshopt_checked_order(copy, l->index_count, mesh->positions, mesh->vertex_count, false);
            total += bench_cpu_seconds() - start;
            free(copy);
        }
    return total;
}

/* Where a (mesh, submesh, level) keeps its figures: levels of every submesh
 * of every mesh, in order. */
static size_t figures_slot(const ir_asset *a, uint32_t mesh, uint32_t s, uint32_t level) {
    size_t slot = 0;
    for (uint32_t m = 0; m < mesh; m++)
        slot += (size_t)a->meshes[m].submesh_count * a->meshes[m].lod_count;
    return slot + (size_t)s * a->meshes[mesh].lod_count + level;
}

static double mesh_extent(const ir_mesh *mesh, float lo[3], float hi[3]) {
    float sphere[4];
    geometry_bounds(mesh->positions, mesh->indices, mesh_triangle_index_count(mesh), lo, hi,
                    sphere);
    double extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = hi[k] - lo[k] > extent ? hi[k] - lo[k] : extent;
    return extent;
}

static void add_figures(level_figures *f, const double value[FIG_COUNT]) {
    for (int k = 0; k < FIG_COUNT; k++) {
        f->sum[k] += value[k];
        f->max[k] = value[k] > f->max[k] ? value[k] : f->max[k];
    }
}

/* kiln's levels of submesh s at meshoptimizer's triangle counts, where its
 * own stopped elsewhere (its error bound counts from level 0, meshopt's is
 * split between the levels): one session from level 0, as the LOD step runs
 * it on a small mesh, each level targeting meshopt's count. Adds their
 * figures to figures[level]; false when the counts were the same (kiln's own figures stand). */
static bool record_at_meshopt_counts(const ir_mesh *mk, const ir_mesh *mm, uint32_t s,
                                     const float lo[3], const float hi[3], double extent,
                                     level_figures *figures) {
    bool differ = false;
    for (uint32_t level = 1; level < mk->lod_count; level++)
        differ |= mk->lods[(size_t)s * mk->lod_count + level].index_count !=
                  mm->lods[(size_t)s * mm->lod_count + level].index_count;
    if (!differ)
        return false;
    const ir_lod *l0 = &mk->lods[(size_t)s * mk->lod_count];
    const uint32_t *level0 = mk->indices + l0->index_offset;
    uint32_t *dest = malloc((l0->index_count ? l0->index_count : 1) * sizeof *dest);
    simplify_session *session =
        simplify_begin(level0, l0->index_count, mk->positions, mk->vertex_count, false);
    if (dest == NULL || session == NULL)
        bench_die("out of memory");
    for (uint32_t level = 1; level < mk->lod_count; level++) {
        size_t target = mm->lods[(size_t)s * mm->lod_count + level].index_count;
        float error = 0.0f;
        size_t count = simplify_continue(session, target, 0.02f, dest, &error);
        const uint32_t *indices = dest;
        if (count > target) {
            /* The session stops short (the cook then goes on with meshopt's
             * simplifiers): kiln's own level, as the cook made it. */
            const ir_lod *l = &mk->lods[(size_t)s * mk->lod_count + level];
            indices = mk->indices + l->index_offset;
            count = l->index_count;
            error = l->error;
        }
        double max, mean;
        level_distance(mk, level0, l0->index_count, indices, count, lo, hi, &max, &mean);
        double value[FIG_COUNT] = {[FIG_TRIANGLES] = (double)(count / 3),
                                   [FIG_ERROR] = error,
                                   [FIG_MAX_DIST] = max / extent,
                                   [FIG_MEAN_DIST] = mean / extent};
        add_figures(&figures[level], value);
    }
    simplify_end(session);
    free(dest);
    return true;
}

/* Adds one order's figures of every reduced level of meshopt's (v[0]) and
 * kiln's (v[1]) to figures[0] and [1], and kiln's at meshopt's counts to
 * figures[2] (kiln's own where the counts are the same). */
static void record(const ir_asset v[2], level_figures *const figures[3]) {
    for (uint32_t m = 0; m < v[0].mesh_count && m < MAX_MESHES; m++) {
        if (mesh_triangle_index_count(&v[0].meshes[m]) == 0 || v[0].meshes[m].lod_count < 2)
            continue;
        float lo[3], hi[3];
        double extent = mesh_extent(&v[0].meshes[m], lo, hi);
        for (uint32_t s = 0; s < v[0].meshes[m].submesh_count; s++) {
            if (v[0].meshes[m].submeshes[s].topology != KILN_TOPOLOGY_TRIANGLES)
                continue;
            bool at_counts =
                record_at_meshopt_counts(&v[1].meshes[m], &v[0].meshes[m], s, lo, hi, extent,
                                         &figures[2][figures_slot(&v[0], m, s, 0)]);
            for (int k = 0; k < 2; k++) {
                const ir_mesh *mesh = &v[k].meshes[m];
                const ir_lod *l0 = &mesh->lods[(size_t)s * mesh->lod_count];
                for (uint32_t level = 1; level < mesh->lod_count; level++) {
                    const ir_lod *l = &mesh->lods[(size_t)s * mesh->lod_count + level];
                    double max, mean;
                    level_distance(mesh, mesh->indices + l0->index_offset, l0->index_count,
                                   mesh->indices + l->index_offset, l->index_count, lo, hi, &max,
                                   &mean);
                    double value[FIG_COUNT] = {[FIG_TRIANGLES] = l->index_count / 3,
                                               [FIG_ERROR] = l->error,
                                               [FIG_MAX_DIST] = max / extent,
                                               [FIG_MEAN_DIST] = mean / extent};
                    size_t slot = figures_slot(&v[0], m, s, level);
                    add_figures(&figures[k][slot], value);
                    if (k == 1 && !at_counts)
                        add_figures(&figures[2][slot], value);
                }
            }
        }
    }
}

static void print_figures(uint32_t s, uint32_t level, const char *name, const level_figures *f,
                          uint32_t orders, double target, bool reused) {
    double mean[FIG_COUNT];
    for (int i = 0; i < FIG_COUNT; i++)
        mean[i] = f->sum[i] / orders;
    const char *note = reused ? " (reused)" : "";
    double of_target = target > 0 ? mean[FIG_TRIANGLES] / target : 0.0;
    if (orders == 1)
        printf("  %-3u %-3u %-8s %9.0f %8.3f %9.5f %10.2e %10.2e%s\n", s, level, name,
               mean[FIG_TRIANGLES], of_target, mean[FIG_ERROR], mean[FIG_MAX_DIST],
               mean[FIG_MEAN_DIST], note);
    else
        printf("  %-3u %-3u %-8s %7.1f %7.0f %8.3f %9.5f %9.2e %9.2e %9.2e %9.2e%s\n", s, level,
               name, mean[FIG_TRIANGLES], f->max[FIG_TRIANGLES], of_target, mean[FIG_ERROR],
               mean[FIG_MAX_DIST], f->max[FIG_MAX_DIST], mean[FIG_MEAN_DIST], f->max[FIG_MEAN_DIST],
               note);
}

/* kiln's figures over meshopt's: of the means and of the maxima over the
 * orders; "kiln worse" where either distance's mean is higher. */
static void print_ratios(uint32_t s, uint32_t level, const char *name, const level_figures *k,
                         const level_figures *m) {
    double r[FIG_COUNT][2];
    for (int i = 0; i < FIG_COUNT; i++) {
        r[i][0] = m->sum[i] > 0 ? k->sum[i] / m->sum[i] : 0.0;
        r[i][1] = m->max[i] > 0 ? k->max[i] / m->max[i] : 0.0;
    }
    bool worse = r[FIG_MAX_DIST][0] > 1.0 || r[FIG_MEAN_DIST][0] > 1.0;
    printf("  %-3u %-3u %-8s %7.3f %7.3f %8s %9s %9.3f %9.3f %9.3f %9.3f%s\n", s, level, name,
           r[FIG_TRIANGLES][0], r[FIG_TRIANGLES][1], "", "", r[FIG_MAX_DIST][0], r[FIG_MAX_DIST][1],
           r[FIG_MEAN_DIST][0], r[FIG_MEAN_DIST][1], worse ? "  kiln worse" : "");
}

static bool reported_submesh(const ir_submesh *submesh, uint32_t min_triangles) {
    return submesh->topology == KILN_TOPOLOGY_TRIANGLES &&
           submesh->index_count / 3 >= min_triangles;
}

static bool has_reported_submesh(const ir_mesh *mesh, uint32_t min_triangles) {
    for (uint32_t s = 0; s < mesh->submesh_count; s++)
        if (reported_submesh(&mesh->submeshes[s], min_triangles))
            return true;
    return false;
}

/* Per mesh: the LOD step's CPU on the cooker's order, then per reduced level
 * meshopt's and kiln's figures over the orders; with several orders, kiln's
 * over meshopt's, and where kiln's counts differ its levels at meshopt's
 * counts ("kiln=m") and those over meshopt's. */
static void report(const char *path, const cook_settings *settings, version *v, uint32_t reps,
                   uint32_t orders, uint32_t min_triangles, level_figures *const figures[3]) {
    const ir_asset *a = &v[0].asset;
    if (a->mesh_count > MAX_MESHES)
        fprintf(stderr, "%s: %u meshes, only the first %d reported\n", path, a->mesh_count,
                MAX_MESHES);
    for (uint32_t m = 0; m < a->mesh_count && m < MAX_MESHES; m++) {
        const ir_mesh *ma = &a->meshes[m];
        uint32_t triangles = mesh_triangle_index_count(ma) / 3;
        if (triangles == 0 || ma->lod_count < 2 || !has_reported_submesh(ma, min_triangles))
            continue;
        double ca = median_cpu(&v[0], reps, m), cb = median_cpu(&v[1], reps, m);
        printf("%s mesh %u (%s): %u triangles; LOD CPU meshopt %.1f ms, kiln %.1f ms (%.2fx); "
               "ordering the levels: %.1f ms\n",
               path, m, ma->name ? ma->name : "", triangles, 1e3 * ca, 1e3 * cb,
               cb > 0 ? ca / cb : 0.0, 1e3 * order_cpu(ma));
        if (orders == 1)
            printf("  %-3s %-3s %-8s %9s %8s %9s %10s %10s\n", "sub", "lvl", "version", "triangles",
                   "/target", "error", "max dist", "mean dist");
        else
            printf("  %-3s %-3s %-8s %-15s %8s %9s %-19s %-19s  (%u orders: mean / max)\n", "sub",
                   "lvl", "version", "triangles", "/target", "error", "max dist", "mean dist",
                   orders);
        for (uint32_t s = 0; s < ma->submesh_count; s++) {
            if (!reported_submesh(&ma->submeshes[s], min_triangles))
                continue;
            if (min_triangles > 0)
                printf("  submesh %u: %u triangles\n", s, ma->submeshes[s].index_count / 3);
            for (uint32_t level = 1; level < ma->lod_count; level++) {
                double ratio = level - 1 < settings->mesh_lod_ratio_count
                                   ? settings->mesh_lod_ratios[level - 1]
                                   : 0.0;
                double target = (double)(ma->submeshes[s].index_count / 3) * ratio;
                size_t slot = figures_slot(a, m, s, level);
                const level_figures *f[3] = {&figures[0][slot], &figures[1][slot],
                                             &figures[2][slot]};
                const char *names[2] = {"meshopt", "kiln"};
                for (int k = 0; k < 2; k++) {
                    const ir_mesh *mk = &v[k].asset.meshes[m];
                    print_figures(s, level, names[k], f[k], orders, target,
                                  mk->lods[(size_t)s * mk->lod_count + level].reused);
                }
                if (orders == 1)
                    continue;
                print_ratios(s, level, "k/m", f[1], f[0]);
                if (f[2]->sum[FIG_TRIANGLES] != f[1]->sum[FIG_TRIANGLES]) {
                    print_figures(s, level, "kiln=m", f[2], orders, target, false);
                    print_ratios(s, level, "k=m/m", f[2], f[0]);
                }
            }
        }
    }
}

static size_t figures_count(const ir_asset *a) {
    return figures_slot(a, a->mesh_count, 0, 0);
}

static void compare(const char *path, const cook_settings settings[2], uint32_t reps,
                    uint32_t orders, uint32_t min_triangles) {
    version *v = calloc(2, sizeof *v);
    if (v == NULL)
        bench_die("out of memory");
    /* The cooker's order: timed, alternating who goes first. */
    for (uint32_t r = 0; r < reps; r++)
        for (int k = 0; k < 2; k++) {
            int which = (int)(r % 2) ^ k;
            ir_asset asset = run(path, &settings[which], 0, v[which].cpu[r]);
            if (r == reps - 1) {
                ir_asset_free(&v[which].asset);
                v[which].asset = asset;
            } else {
                ir_asset_free(&asset);
            }
        }
    level_figures *figures[3];
    size_t count = figures_count(&v[0].asset);
    for (int k = 0; k < 3; k++) {
        figures[k] = calloc(count ? count : 1, sizeof *figures[k]);
        if (figures[k] == NULL)
            bench_die("out of memory");
    }
    ir_asset both[2] = {v[0].asset, v[1].asset};
    record(both, figures);
    /* The shuffled orders: once each, for the figures. */
    for (uint32_t order = 1; order < orders; order++) {
        for (int k = 0; k < 2; k++) {
            both[k] = run(path, &settings[k], order, NULL);
            if (figures_count(&both[k]) != count)
                bench_die("a shuffled order changed the asset's shape");
        }
        record(both, figures);
        for (int k = 0; k < 2; k++)
            ir_asset_free(&both[k]);
    }
    report(path, &settings[0], v, reps, orders, min_triangles, figures);
    for (int k = 0; k < 3; k++)
        free(figures[k]);
    for (int k = 0; k < 2; k++)
        ir_asset_free(&v[k].asset);
    free(v);
}

int main(int argc, char **argv) {
    uint32_t reps = 3, orders = 1, chunk = 0, min_triangles = 0;
    int first = 1;
    bool ok = true;
    while (ok && first + 1 < argc && strncmp(argv[first], "--", 2) == 0) {
        unsigned long value = strtoul(argv[first + 1], NULL, 10);
        if (strcmp(argv[first], "--reps") == 0)
            reps = (uint32_t)value;
        else if (strcmp(argv[first], "--orders") == 0)
            orders = (uint32_t)value;
        else if (strcmp(argv[first], "--min-triangles") == 0 && value <= UINT32_MAX)
            min_triangles = (uint32_t)value;
        else if (strcmp(argv[first], "--chunk") == 0 && value >= 64 && value <= UINT32_MAX / 2)
            chunk = (uint32_t)value;
        else
            ok = false;
        first += 2;
    }
    if (!ok || first >= argc || reps < 1 || reps > MAX_REPS || orders < 1 || orders > MAX_ORDERS) {
        fprintf(stderr,
                "usage: %s [--reps N (1..%d)] [--orders K (1..%d)] [--chunk T (>= 64)] "
                "[--min-triangles T] SOURCE...\n",
                argv[0], MAX_REPS, MAX_ORDERS);
        return 2;
    }
    cook_settings settings[2];
    cook_settings_default(&settings[0]);
    settings[0].threads = 1;
    settings[0].mesh_simplifier = COOK_SIMPLIFIER_MESHOPT;
    if (chunk != 0)
        settings[0].mesh_chunk_triangles = chunk;
    settings[1] = settings[0];
    settings[1].mesh_simplifier = COOK_SIMPLIFIER_KILN;
    for (int i = first; i < argc; i++)
        compare(argv[i], settings, reps, orders, min_triangles);
    return 0;
}
