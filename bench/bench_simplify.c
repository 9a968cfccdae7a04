/*
 * bench_simplify.c — kiln's simplifier against meshoptimizer's, as the
 * cooker's LOD step uses them (mesh.simplifier: kiln | meshopt).
 *
 *   bench_simplify [--reps N] SOURCE...
 *
 * Imports each SOURCE and runs the process stages up to the LODs (normals,
 * weld, order untimed; then the LOD step timed, default settings, one
 * thread) N times (default 3) with each simplifier, alternating which goes
 * first, so both see the same load. Prints per mesh the median CPU time of
 * the LOD step with each, and per reduced level both versions' triangles
 * against the target, their recorded errors, and a sampled symmetric distance
 * to level 0 (from every corner and centroid of one to the nearest triangle
 * of the other, both ways, as a fraction of the mesh's extent, the unit of
 * the recorded errors): max and mean. It also prints the CPU the vertex
 * cache order of the reduced levels costs (each level ordered once more, on a
 * copy), the part of the LOD step that is not simplification.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lod.h"
#include "bench_util.h"
#include "kiln/kiln.h"

#define MAX_REPS 15

typedef struct version {
    ir_asset asset;
    double cpu[MAX_REPS][64]; /* per rep, per mesh (first 64) */
} version;

static double median_cpu(const version *v, uint32_t reps, uint32_t mesh) {
    double values[MAX_REPS];
    for (uint32_t r = 0; r < reps; r++)
        values[r] = v->cpu[r][mesh];
    qsort(values, reps, sizeof *values, bench_compare_doubles);
    return values[reps / 2];
}

/* One run: import, untimed stages, the timed LOD step; keeps the asset of the
 * last run. */
static void run(const char *path, const cook_settings *settings, version *v, uint32_t rep,
                bool keep) {
    cook_settings copy = *settings;
    ir_asset asset = bench_lod_import(path, &copy);
    for (uint32_t m = 0; m < asset.mesh_count; m++) {
        ir_mesh *mesh = &asset.meshes[m];
        if (!process_generate_normals(mesh) || !process_weld(mesh) ||
            !process_optimize_order(mesh, settings))
            bench_die("processing failed");
        double start = bench_cpu_seconds();
        if (!process_build_lods(mesh, settings))
            bench_die("LODs failed");
        if (m < 64)
            v->cpu[rep][m] = bench_cpu_seconds() - start;
    }
    if (keep) {
        ir_asset_free(&v->asset);
        v->asset = asset;
    } else {
        ir_asset_free(&asset);
    }
}

/* Symmetric sampled distance of a mesh's level to its level 0 (submesh s). */
static void level_distance(const ir_mesh *mesh, uint32_t s, uint32_t level, const float lo[3],
                           const float hi[3], double *max, double *mean) {
    const ir_lod *l0 = &mesh->lods[(size_t)s * mesh->lod_count];
    const ir_lod *ln = &mesh->lods[(size_t)s * mesh->lod_count + level];
    triangle_grid g0, gn;
    triangle_grid_build(&g0, mesh->positions, mesh->indices + l0->index_offset, l0->index_count, lo,
                        hi);
    triangle_grid_build(&gn, mesh->positions, mesh->indices + ln->index_offset, ln->index_count, lo,
                        hi);
    double max_a = 0, sum_a = 0, max_b = 0, sum_b = 0;
    uint64_t n_a = 0, n_b = 0;
    surface_distance_one_way(mesh->positions, mesh->indices + ln->index_offset, ln->index_count,
                             &g0, &max_a, &sum_a, &n_a);
    surface_distance_one_way(mesh->positions, mesh->indices + l0->index_offset, l0->index_count,
                             &gn, &max_b, &sum_b, &n_b);
    *max = max_a > max_b ? max_a : max_b;
    *mean = (sum_a + sum_b) / (double)(n_a + n_b ? n_a + n_b : 1);
    triangle_grid_free(&g0);
    triangle_grid_free(&gn);
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

static void report(const char *path, const cook_settings *settings, version *v, uint32_t reps) {
    const ir_asset *a = &v[0].asset, *b = &v[1].asset;
    for (uint32_t m = 0; m < a->mesh_count && m < 64; m++) {
        const ir_mesh *ma = &a->meshes[m], *mb = &b->meshes[m];
        uint32_t triangles = mesh_triangle_index_count(ma) / 3;
        if (triangles == 0 || ma->lod_count < 2)
            continue;
        float lo[3], hi[3], sphere[4];
        geometry_bounds(ma->positions, ma->indices, mesh_triangle_index_count(ma), lo, hi, sphere);
        double extent = 0.0;
        for (int k = 0; k < 3; k++)
            extent = hi[k] - lo[k] > extent ? hi[k] - lo[k] : extent;
        double ca = median_cpu(&v[0], reps, m), cb = median_cpu(&v[1], reps, m);
        printf("%s mesh %u (%s): %u triangles; LOD CPU meshopt %.1f ms, kiln %.1f ms (%.2fx); "
               "ordering the levels: %.1f ms\n",
               path, m, ma->name ? ma->name : "", triangles, 1e3 * ca, 1e3 * cb,
               cb > 0 ? ca / cb : 0.0, 1e3 * order_cpu(ma));
        printf("  %-3s %-3s %-8s %9s %8s %9s %10s %10s\n", "sub", "lvl", "version", "triangles",
               "/target", "error", "max dist", "mean dist");
        for (uint32_t s = 0; s < ma->submesh_count; s++) {
            if (ma->submeshes[s].topology != KILN_TOPOLOGY_TRIANGLES)
                continue;
            for (uint32_t level = 1; level < ma->lod_count; level++) {
                double ratio = level - 1 < settings->mesh_lod_ratio_count
                                   ? settings->mesh_lod_ratios[level - 1]
                                   : 0.0;
                double target = (double)(ma->submeshes[s].index_count / 3) * ratio;
                const ir_mesh *meshes[2] = {ma, mb};
                const char *names[2] = {"meshopt", "kiln"};
                for (int k = 0; k < 2; k++) {
                    const ir_lod *l = &meshes[k]->lods[(size_t)s * meshes[k]->lod_count + level];
                    double max, mean;
                    level_distance(meshes[k], s, level, lo, hi, &max, &mean);
                    printf("  %-3u %-3u %-8s %9u %8.3f %9.5f %10.2e %10.2e%s\n", s, level, names[k],
                           l->index_count / 3, target > 0 ? l->index_count / 3 / target : 0.0,
                           (double)l->error, max / extent, mean / extent,
                           l->reused ? " (reused)" : "");
                }
            }
        }
    }
}

int main(int argc, char **argv) {
    uint32_t reps = 3;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--reps") == 0) {
        reps = (uint32_t)strtoul(argv[2], NULL, 10);
        first = 3;
    }
    if (first >= argc || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: %s [--reps N (1..%d)] SOURCE...\n", argv[0], MAX_REPS);
        return 2;
    }
    cook_settings settings[2];
    cook_settings_default(&settings[0]);
    settings[0].threads = 1;
    settings[0].mesh_simplifier = COOK_SIMPLIFIER_MESHOPT;
    settings[1] = settings[0];
    settings[1].mesh_simplifier = COOK_SIMPLIFIER_KILN;
    for (int i = first; i < argc; i++) {
        version *v = calloc(2, sizeof *v);
        if (v == NULL)
            bench_die("out of memory");
        for (uint32_t r = 0; r < reps; r++)
            for (int k = 0; k < 2; k++) {
                int which = (int)(r % 2) ^ k; /* alternate who goes first */
                run(argv[i], &settings[which], &v[which], r, r == reps - 1);
            }
        report(argv[i], &settings[0], v, reps);
        ir_asset_free(&v[0].asset);
        ir_asset_free(&v[1].asset);
        free(v);
    }
    return 0;
}
