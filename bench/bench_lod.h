/*
 * bench_lod.h — what the LOD benchmarks share: importing a source and
 * processing it up to its LODs, and the sampled distance between triangle
 * surfaces: points of one (corners and centroids) to the nearest triangle of
 * the other, found through a uniform grid.
 */
#ifndef KILN_BENCH_LOD_H
#define KILN_BENCH_LOD_H

#include <stddef.h>
#include <stdint.h>

#include "cook/cook.h"
#include "cook/process/process.h"

typedef struct triangle_grid {
    const float *positions;
    const uint32_t *indices;
    float lo[3], cell;
    uint32_t dims[3];
    uint32_t *starts; /* per cell, into items; dims product + 1 entries */
    uint32_t *items;  /* triangle numbers */
} triangle_grid;

/* A grid over the triangles `indices` (kept by reference, with positions)
 * covering the box lo..hi, cells about a triangle's size. */
void triangle_grid_build(triangle_grid *g, const float *positions, const uint32_t *indices,
                         size_t index_count, const float lo[3], const float hi[3]);
/* Distance from p to the nearest triangle within the 27 cells around it; a
 * point with none there is at least one cell away (reported as that). */
double triangle_grid_distance(const triangle_grid *g, const float *p);
void triangle_grid_free(triangle_grid *g);
void surface_distance_one_way(const float *positions, const uint32_t *indices, size_t index_count,
                              const triangle_grid *g, double *max, double *sum, uint64_t *samples);

/* CPU seconds of the whole process (every thread). */
double bench_cpu_seconds(void);
/* SOURCE's asset, imported as the cooker would (exits on failure). */
ir_asset bench_lod_import(const char *path, cook_settings *settings);
/* Normals, weld, order and LODs as the cooker runs them; *cpu: their CPU
 * seconds (exits on failure). */
void bench_lod_process(ir_mesh *mesh, const cook_settings *settings, double *cpu);

#endif
