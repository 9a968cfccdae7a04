/*
 * bench_lod.h — what the LOD benchmarks share: importing a source and
 * processing it up to its LODs (the sampled distance between triangle
 * surfaces is the cooker's: process.h, surface_distance.c).
 */
#ifndef KILN_BENCH_LOD_H
#define KILN_BENCH_LOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/cook.h"
#include "cook/process/process.h"

/* CPU seconds of the whole process (every thread). */
double bench_cpu_seconds(void);
/* SOURCE's asset, imported as the cooker would (exits on failure). */
ir_asset bench_lod_import(const char *path, cook_settings *settings);
/* The weld as the cooker runs it: vertices welded, then the triangles with
 * two corners on one vertex and repeated triangles dropped (the cooker never
 * hands them to a simplifier). False when out of memory. */
bool bench_lod_weld(ir_mesh *mesh);
/* Normals, weld, order and LODs as the cooker runs them; *cpu: their CPU
 * seconds (exits on failure). */
void bench_lod_process(ir_mesh *mesh, const cook_settings *settings, double *cpu);

#endif
