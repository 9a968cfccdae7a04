/*
 * bench_lod_chunks.c — what simplifying a large mesh chunk by chunk costs in
 * quality, against simplifying it whole.
 *
 *   bench_lod_chunks SOURCE [CHUNK_TRIANGLES]
 *
 * Imports SOURCE and runs the process stages up to the LODs (normals, weld,
 * order, LODs; default settings, one thread) twice per mesh: as the cooker
 * does (submeshes of at least 2 x KILN_MESH_CHUNK_TRIANGLES triangles in
 * chunks, process/chunks.c) and with chunking off (every submesh whole, the
 * cooker's path before chunks). For each reduced level it prints both
 * versions' triangles against the target, their recorded errors, and a
 * sampled symmetric distance between the two surfaces: from every vertex and
 * triangle centroid of one level to the nearest triangle of the other, as a
 * fraction of the mesh's extent (the unit of the recorded errors), max and
 * mean. The CPU time of order + LODs of each version is printed too.
 * CHUNK_TRIANGLES (default KILN_MESH_CHUNK_TRIANGLES) chunks smaller meshes
 * the same way, to see the seams' cost on real models (the corpus has no
 * model large enough to be chunked by default).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_lod.h"
#include "kiln/kiln.h"

/* ---------------------------------------------------------------------------
 * The two versions
 * ------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s SOURCE [CHUNK_TRIANGLES]\n", argv[0]);
        return 2;
    }
    cook_settings chunked, whole;
    cook_settings_default(&chunked);
    chunked.threads = 1;
    if (argc == 3)
        chunked.mesh_chunk_triangles = (uint32_t)strtoul(argv[2], NULL, 10);
    whole = chunked;
    whole.mesh_chunk_triangles = UINT32_MAX; /* never two chunks' worth */
    ir_asset a = bench_lod_import(argv[1], &chunked);
    ir_asset b = bench_lod_import(argv[1], &whole);
    for (uint32_t m = 0; m < a.mesh_count; m++) {
        ir_mesh *ma = &a.meshes[m], *mb = &b.meshes[m];
        double cpu_a, cpu_b;
        bench_lod_process(ma, &chunked, &cpu_a);
        bench_lod_process(mb, &whole, &cpu_b);
        float lo[3], hi[3], sphere[4];
        geometry_bounds(mb->positions, mb->indices, mb->submeshes[0].index_count, lo, hi, sphere);
        double extent = 0.0;
        for (int k = 0; k < 3; k++)
            extent = hi[k] - lo[k] > extent ? hi[k] - lo[k] : extent;
        printf("%s mesh %u: %u triangles, order + LODs CPU %.3f s chunked, %.3f s whole\n", argv[1],
               m, ma->submeshes[0].index_count / 3, cpu_a, cpu_b);
        printf("  %-5s %-8s %10s %8s %9s %12s %12s\n", "level", "version", "triangles", "/target",
               "error", "max dist", "mean dist");
        for (uint32_t level = 1; level < ma->lod_count; level++) {
            /* Submesh 0 only: the generated grids have one. */
            const ir_lod *la = &ma->lods[level], *lb = &mb->lods[level];
            double target =
                (double)(ma->submeshes[0].index_count / 3) * chunked.mesh_lod_ratios[level - 1];
            triangle_grid ga, gb;
            triangle_grid_build(&ga, ma->positions, ma->indices + la->index_offset, la->index_count,
                                lo, hi);
            triangle_grid_build(&gb, mb->positions, mb->indices + lb->index_offset, lb->index_count,
                                lo, hi);
            double max_ab = 0, sum_ab = 0, max_ba = 0, sum_ba = 0;
            uint64_t n_ab = 0, n_ba = 0;
            surface_distance_one_way(ma->positions, ma->indices + la->index_offset, la->index_count,
                                     &gb, &max_ab, &sum_ab, &n_ab);
            surface_distance_one_way(mb->positions, mb->indices + lb->index_offset, lb->index_count,
                                     &ga, &max_ba, &sum_ba, &n_ba);
            printf("  %-5u %-8s %10u %8.3f %9.5f %12.2e %12.2e  (to whole)\n", level, "chunked",
                   la->index_count / 3, la->index_count / 3 / target, (double)la->error,
                   max_ab / extent, sum_ab / (double)n_ab / extent);
            printf("  %-5u %-8s %10u %8.3f %9.5f %12.2e %12.2e  (to chunked)\n", level, "whole",
                   lb->index_count / 3, lb->index_count / 3 / target, (double)lb->error,
                   max_ba / extent, sum_ba / (double)n_ba / extent);
            triangle_grid_free(&ga);
            triangle_grid_free(&gb);
        }
    }
    ir_asset_free(&a);
    ir_asset_free(&b);
    return 0;
}
