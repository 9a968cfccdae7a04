/*
 * bench_vertex_cache.c — kiln's vertex cache order (process/vertex_cache.c)
 * against meshoptimizer's optimizeVertexCache: CPU time and ACMR.
 *
 *   bench_vertex_cache [--reps N] [--chunk T] [--scores S] SOURCE...
 *   bench_vertex_cache --lods [--reps N] SOURCE...
 *   bench_vertex_cache --reduced [--chunk T] [--scores S] SOURCE...
 *
 * Every SOURCE is imported and given normals and welded as the cooker does;
 * each triangle submesh is then cut as the order step cuts level 0 (a submesh
 * of two chunks' worth of triangles or more sorted along the curve and cut
 * into chunks, process/order.c) and every piece is put on its own compact
 * vertices (mesh_local_build), the input both orders get in the cooker.
 * Each piece is ordered by both, N times (default 5) alternating which runs
 * first; the CPU time is this thread's, the fastest run of each (the machine
 * may be shared). ACMR is meshopt_analyzeVertexCache with a FIFO of 16 (as
 * bench_mesh_quality), over all pieces of a source; "+overdraw" is after
 * meshopt_optimizeOverdraw (threshold 1.05, as the order step runs it), whose
 * CPU time is given too (after meshoptimizer's order), with
 * meshopt_analyzeOverdraw's overdraw (pixels shaded / covered, from its
 * three axis views) of meshoptimizer's order before and after it.
 *
 * --chunk T cuts a submesh of 2T triangles or more into chunks of ~T (the
 * cooker's size otherwise); --scores S orders with other scores than kiln's
 * (vertex_cache_order_scored): 26 numbers, comma-separated, the 17 by age
 * then the 9 by live triangles (bench/tune_vertex_cache.py searches them).
 *
 * With --lods, each SOURCE is processed N times per order as the cooker
 * does up to its LODs (normals, weld, order, LODs: bench_lod_process, one
 * thread), alternating mesh.vertex_cache meshopt and kiln; it prints the ACMR
 * of the reduced levels 1 and 2 (FIFO of 16, over all meshes) and the
 * fastest run's CPU time of those steps.
 *
 * With --reduced (what bench/tune_vertex_cache.py --reduced trains on), each
 * SOURCE is cooked up to its LODs with kiln's order (chunks of T triangles
 * with --chunk), then every reduced level (1 and 2) is ordered again, whole,
 * by meshoptimizer and by kiln with the reduced levels' scores (or S): the
 * table has level 0's first four columns, over the reduced levels, and the
 * CPU time of each order (this thread's, one run each, so noisy).
 */
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lod.h"
#include "bench_util.h"
#include "kiln/kiln.h"

typedef struct totals {
    uint64_t triangles, transformed_meshopt, transformed_kiln, overdraw_meshopt, overdraw_kiln;
    uint64_t covered, shaded_before, shaded_after; /* meshopt_analyzeOverdraw, meshopt's order */
    double cpu_meshopt, cpu_kiln, cpu_overdraw;
} totals;

static uint64_t transformed(const uint32_t *indices, size_t count, size_t vertices) {
    struct meshopt_VertexCacheStatistics stats =
        meshopt_analyzeVertexCache(indices, count, vertices, 16, 0, 0);
    return stats.vertices_transformed;
}

typedef struct options {
    unsigned reps;
    uint32_t chunk; /* 0: the cooker's */
    const vertex_cache_scores *scores;
} options;

static void order_piece(const mesh_local *local, const options *opt, totals *sum) {
    size_t bytes = local->index_count * sizeof(uint32_t);
    uint32_t *a = malloc(bytes), *b = malloc(bytes);
    if (a == NULL || b == NULL)
        bench_die("out of memory");
    double best_meshopt = 1e30, best_kiln = 1e30, best_overdraw = 1e30;
    for (unsigned r = 0; r < opt->reps; r++) {
        for (unsigned turn = 0; turn < 2; turn++) {
            bool kiln_turn = (turn + r) % 2 == 0;
            uint32_t *out = kiln_turn ? b : a;
            memcpy(out, local->indices, bytes);
            double start = bench_thread_seconds();
            if (kiln_turn) {
                if (!vertex_cache_order_scored(out, local->index_count, local->vertex_count,
                                               opt->scores))
                    bench_die("vertex_cache_order failed");
            } else {
                meshopt_optimizeVertexCache(out, out, local->index_count, local->vertex_count);
            }
            double spent = bench_thread_seconds() - start;
            double *best = kiln_turn ? &best_kiln : &best_meshopt;
            *best = spent < *best ? spent : *best;
        }
    }
    sum->triangles += local->index_count / 3;
    sum->transformed_meshopt += transformed(a, local->index_count, local->vertex_count);
    sum->transformed_kiln += transformed(b, local->index_count, local->vertex_count);
    struct meshopt_OverdrawStatistics before = meshopt_analyzeOverdraw(
        a, local->index_count, local->positions, local->vertex_count, 3 * sizeof(float));
    double start = bench_thread_seconds();
    meshopt_optimizeOverdraw(a, a, local->index_count, local->positions, local->vertex_count,
                             3 * sizeof(float), 1.05f);
    best_overdraw = bench_thread_seconds() - start;
    meshopt_optimizeOverdraw(b, b, local->index_count, local->positions, local->vertex_count,
                             3 * sizeof(float), 1.05f);
    struct meshopt_OverdrawStatistics after = meshopt_analyzeOverdraw(
        a, local->index_count, local->positions, local->vertex_count, 3 * sizeof(float));
    sum->covered += before.pixels_covered;
    sum->shaded_before += before.pixels_shaded;
    sum->shaded_after += after.pixels_shaded;
    sum->overdraw_meshopt += transformed(a, local->index_count, local->vertex_count);
    sum->overdraw_kiln += transformed(b, local->index_count, local->vertex_count);
    sum->cpu_meshopt += best_meshopt;
    sum->cpu_kiln += best_kiln;
    sum->cpu_overdraw += best_overdraw;
    free(a);
    free(b);
}

/* The pieces of one submesh as the order step cuts them. */
static void order_submesh(const ir_mesh *mesh, const ir_submesh *sub, uint32_t chunk_triangles,
                          const options *opt, totals *sum) {
    uint32_t triangles = sub->index_count / 3;
    uint32_t count = submesh_chunk_count(sub, chunk_triangles);
    uint32_t *indices = malloc(sub->index_count * sizeof *indices);
    uint32_t *cuts = malloc((count + 1) * sizeof *cuts);
    if (indices == NULL || cuts == NULL)
        bench_die("out of memory");
    memcpy(indices, mesh->indices + sub->index_offset, sub->index_count * sizeof *indices);
    cuts[0] = 0;
    cuts[1] = triangles;
    if (count > 1 && (!mesh_sort_spatially(mesh->positions, indices, sub->index_count) ||
                      !mesh_curve_cuts(mesh->positions, indices, sub->index_count, count, cuts)))
        bench_die("out of memory");
    for (uint32_t c = 0; c < count; c++) {
        mesh_local local;
        if (!mesh_local_build(&local, indices + 3 * cuts[c], 3 * (cuts[c + 1] - cuts[c]),
                              mesh->positions))
            bench_die("out of memory");
        order_piece(&local, opt, sum);
        mesh_local_free(&local);
    }
    free(cuts);
    free(indices);
}

/* Levels 1 and 2 of one cook of SOURCE up to its LODs with `cache`: ACMR
 * sums into transformed[level - 1] and triangles[level - 1]; returns the CPU
 * seconds of the steps. */
static double lods_once(const char *path, cook_vertex_cache cache, uint64_t transformed_sum[2],
                        uint64_t triangles[2]) {
    cook_settings settings;
    cook_settings_default(&settings);
    settings.threads = 1;
    settings.mesh_vertex_cache = cache;
    ir_asset asset = bench_lod_import(path, &settings);
    double cpu_sum = 0.0;
    for (uint32_t m = 0; m < asset.mesh_count; m++) {
        ir_mesh *mesh = &asset.meshes[m];
        double cpu;
        bench_lod_process(mesh, &settings, &cpu);
        cpu_sum += cpu;
        for (uint32_t level = 1; level < mesh->lod_count && level <= 2; level++) {
            const ir_lod *lod = &mesh->lods[level];
            if (lod->index_count % 3 != 0)
                continue; /* lines or points */
            transformed_sum[level - 1] += transformed(mesh->indices + lod->index_offset,
                                                      lod->index_count, mesh->vertex_count);
            triangles[level - 1] += lod->index_count / 3;
        }
    }
    ir_asset_free(&asset);
    return cpu_sum;
}

static void lods_table(int count, char **paths, unsigned reps) {
    printf("| model | level 1 triangles | ACMR meshopt | ACMR kiln | level 2 triangles | ACMR "
           "meshopt | ACMR kiln | CPU meshopt | CPU kiln |\n");
    printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int i = 0; i < count; i++) {
        uint64_t sums[2][2] = {{0}}, tris[2][2] = {{0}};
        double best[2] = {1e30, 1e30};
        for (unsigned r = 0; r < reps; r++) {
            for (unsigned turn = 0; turn < 2; turn++) {
                unsigned v = (turn + r) % 2; /* 0 meshopt, 1 kiln */
                uint64_t s[2] = {0}, t[2] = {0};
                double cpu = lods_once(
                    paths[i], v ? COOK_VERTEX_CACHE_KILN : COOK_VERTEX_CACHE_MESHOPT, s, t);
                best[v] = cpu < best[v] ? cpu : best[v];
                memcpy(sums[v], s, sizeof s);
                memcpy(tris[v], t, sizeof t);
            }
        }
        const char *name = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
        double t1 = (double)(tris[0][0] ? tris[0][0] : 1),
               t2 = (double)(tris[0][1] ? tris[0][1] : 1);
        double k1 = (double)(tris[1][0] ? tris[1][0] : 1),
               k2 = (double)(tris[1][1] ? tris[1][1] : 1);
        printf("| `%s` | %llu | %.3f | %.3f | %llu | %.3f | %.3f | %.0f ms | %.0f ms |\n", name,
               (unsigned long long)tris[0][0], (double)sums[0][0] / t1, (double)sums[1][0] / k1,
               (unsigned long long)tris[0][1], (double)sums[0][1] / t2, (double)sums[1][1] / k2,
               best[0] * 1e3, best[1] * 1e3);
        fflush(stdout);
    }
}

/* --reduced: the reduced levels of each source ordered again by both. */
static void reduced_table(int count, char **paths, const options *opt) {
    printf("| model | reduced triangles | ACMR meshopt | ACMR kiln | CPU meshopt | CPU kiln |\n"
           "|---|--:|--:|--:|--:|--:|\n");
    for (int i = 0; i < count; i++) {
        cook_settings settings;
        cook_settings_default(&settings);
        settings.threads = 1;
        settings.mesh_vertex_cache = COOK_VERTEX_CACHE_KILN;
        settings.mesh_chunk_triangles = opt->chunk;
        ir_asset asset = bench_lod_import(paths[i], &settings);
        uint64_t triangles = 0, meshopt_sum = 0, kiln_sum = 0;
        double cpu_meshopt = 0.0, cpu_kiln = 0.0;
        for (uint32_t m = 0; m < asset.mesh_count; m++) {
            ir_mesh *mesh = &asset.meshes[m];
            double cpu;
            bench_lod_process(mesh, &settings, &cpu);
            for (uint32_t level = 1; level < mesh->lod_count && level <= 2; level++) {
                const ir_lod *lod = &mesh->lods[level];
                if (lod->index_count % 3 != 0 || lod->index_count == 0)
                    continue; /* lines or points */
                size_t bytes = lod->index_count * sizeof(uint32_t);
                uint32_t *a = malloc(bytes), *b = malloc(bytes);
                if (a == NULL || b == NULL)
                    bench_die("out of memory");
                memcpy(a, mesh->indices + lod->index_offset, bytes);
                memcpy(b, a, bytes);
                double start = bench_thread_seconds();
                meshopt_optimizeVertexCache(a, a, lod->index_count, mesh->vertex_count);
                double middle = bench_thread_seconds();
                if (!vertex_cache_order_scored(b, lod->index_count, mesh->vertex_count,
                                               opt->scores))
                    bench_die("vertex_cache_order failed");
                cpu_kiln += bench_thread_seconds() - middle;
                cpu_meshopt += middle - start;
                triangles += lod->index_count / 3;
                meshopt_sum += transformed(a, lod->index_count, mesh->vertex_count);
                kiln_sum += transformed(b, lod->index_count, mesh->vertex_count);
                free(a);
                free(b);
            }
        }
        double t = (double)(triangles ? triangles : 1);
        const char *name = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
        printf("| `%s` | %llu | %.4f | %.4f | %.1f ms | %.1f ms |\n", name,
               (unsigned long long)triangles, (double)meshopt_sum / t, (double)kiln_sum / t,
               cpu_meshopt * 1e3, cpu_kiln * 1e3);
        fflush(stdout);
        ir_asset_free(&asset);
    }
}

/* The 26 numbers of --scores; false when there are not exactly 26. */
static bool parse_scores(const char *text, vertex_cache_scores *scores) {
    float *slot[VERTEX_CACHE_FIFO + 1 + VERTEX_CACHE_VALENCE + 1];
    size_t slots = 0;
    for (int i = 0; i <= VERTEX_CACHE_FIFO; i++)
        slot[slots++] = &scores->cache[i];
    for (int i = 0; i <= VERTEX_CACHE_VALENCE; i++)
        slot[slots++] = &scores->live[i];
    for (size_t i = 0; i < slots; i++) {
        char *end;
        *slot[i] = strtof(text, &end);
        if (end == text || *end != (i + 1 < slots ? ',' : '\0'))
            return false;
        text = end + (i + 1 < slots);
    }
    return true;
}

int main(int argc, char **argv) {
    options opt = {.reps = 5, .chunk = 0, .scores = &vertex_cache_tuned};
    vertex_cache_scores scores;
    int first = 1;
    bool lods = false, reduced = false, usage = false;
    if (argc > first && strcmp(argv[first], "--lods") == 0) {
        lods = true;
        first++;
    } else if (argc > first && strcmp(argv[first], "--reduced") == 0) {
        reduced = true;
        opt.scores = &vertex_cache_tuned_reduced;
        first++;
    }
    while (!usage && argc > first + 1 && strncmp(argv[first], "--", 2) == 0) {
        const char *name = argv[first], *value = argv[first + 1];
        if (strcmp(name, "--reps") == 0)
            opt.reps = (unsigned)strtoul(value, NULL, 10);
        else if (strcmp(name, "--chunk") == 0 && !lods)
            opt.chunk = (uint32_t)strtoul(value, NULL, 10);
        else if (strcmp(name, "--scores") == 0 && !lods && parse_scores(value, &scores))
            opt.scores = &scores;
        else
            usage = true;
        first += 2;
    }
    if (usage || first >= argc || opt.reps == 0) {
        fprintf(stderr,
                "usage: %s [--reps N] [--chunk T] [--scores S] SOURCE...\n"
                "       %s --lods [--reps N] SOURCE...\n"
                "       %s --reduced [--chunk T] [--scores S] SOURCE...\n",
                argv[0], argv[0], argv[0]);
        return 2;
    }
    if (lods) {
        lods_table(argc - first, argv + first, opt.reps);
        return 0;
    }
    if (reduced) {
        reduced_table(argc - first, argv + first, &opt);
        return 0;
    }
    printf(
        "| model | triangles | ACMR meshopt | ACMR kiln | +overdraw meshopt | +overdraw kiln "
        "| CPU meshopt | CPU kiln | meshopt / kiln | CPU overdraw | overdraw before / after |\n");
    printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int i = first; i < argc; i++) {
        cook_settings settings;
        cook_settings_default(&settings);
        settings.threads = 1;
        ir_asset asset = bench_lod_import(argv[i], &settings);
        totals sum = {0};
        for (uint32_t m = 0; m < asset.mesh_count; m++) {
            ir_mesh *mesh = &asset.meshes[m];
            if (!process_generate_normals(mesh) || !bench_lod_weld(mesh))
                bench_die("%s: processing failed", argv[i]);
            for (uint32_t s = 0; s < mesh->submesh_count; s++) {
                const ir_submesh *sub = &mesh->submeshes[s];
                if (sub->topology == KILN_TOPOLOGY_TRIANGLES && sub->index_count >= 3)
                    order_submesh(mesh, sub, opt.chunk ? opt.chunk : mesh_chunk_size(&settings),
                                  &opt, &sum);
            }
        }
        double t = (double)(sum.triangles ? sum.triangles : 1);
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        double covered = (double)(sum.covered ? sum.covered : 1);
        printf("| `%s` | %llu | %.3f | %.3f | %.3f | %.3f | %.1f ms | %.1f ms | %.2f | %.1f ms | "
               "%.3f / %.3f |\n",
               name, (unsigned long long)sum.triangles, (double)sum.transformed_meshopt / t,
               (double)sum.transformed_kiln / t, (double)sum.overdraw_meshopt / t,
               (double)sum.overdraw_kiln / t, sum.cpu_meshopt * 1e3, sum.cpu_kiln * 1e3,
               sum.cpu_meshopt / (sum.cpu_kiln > 0 ? sum.cpu_kiln : 1e-9), sum.cpu_overdraw * 1e3,
               (double)sum.shaded_before / covered, (double)sum.shaded_after / covered);
        fflush(stdout);
        ir_asset_free(&asset);
    }
    return 0;
}
