/*
 * meshlet_build.h — kiln's own meshlet builder for triangle lists
 * (meshlet_build.c, with the nearest-triangle search of meshlet_seed.c).
 *
 * The same greedy growth as meshoptimizer's meshopt_buildMeshlets (0.18):
 * a meshlet takes, among the unused triangles touching its vertices, the one
 * adding the fewest vertices (none first, then one holding a vertex's last
 * unused triangle), then the one nearest its centre whose normal is closest
 * to its mean normal; when none is left it takes the unused triangle nearest
 * its centre. What differs is the bookkeeping: the candidates live in small
 * lists by rank, updated as vertices join, instead of being found again from
 * every vertex's triangle list at every step, which costs well under half
 * the CPU time (BENCHMARKS.md, "Meshlets").
 *
 * Output is dense: a meshlet's triangles are 3 bytes each (local vertex
 * indices) and its triangle_offset counts triangles, not bytes.
 */
#ifndef KILN_COOK_PROCESS_MESHLET_BUILD_H
#define KILN_COOK_PROCESS_MESHLET_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One meshlet: ranges of the vertex and triangle outputs. */
typedef struct meshlet_span {
    uint32_t vertex_offset;   /* into meshlet_vertices */
    uint32_t triangle_offset; /* in triangles: bytes 3 * triangle_offset.. */
    uint32_t vertex_count;
    uint32_t triangle_count;
} meshlet_span;

#define MESHLET_BUILD_MAX_VERTICES 255u /* local indices are bytes */
#define MESHLET_BUILD_MAX_TRIANGLES 512u

/* Most meshlets meshlet_build can make from index_count indices. */
size_t meshlet_build_bound(size_t index_count, size_t max_vertices, size_t max_triangles);

/* Splits the triangle list `indices` (index_count a multiple of 3, every index
 * below vertex_count, positions 3 floats per vertex) into meshlets of at most
 * max_vertices (3..255) vertices and max_triangles (1..512) triangles.
 * Writes up to meshlet_build_bound spans to `meshlets`, at most index_count
 * vertex numbers to `vertices` and exactly index_count bytes to `triangles`;
 * every triangle lands in exactly one meshlet. cone_weight in [0, 1] trades
 * compact meshlets (0) for narrow normal cones. False (outputs undefined) on
 * limits or indices out of range, or when memory runs out. Deterministic. */
bool meshlet_build(meshlet_span *meshlets, uint32_t *vertices, uint8_t *triangles,
                   size_t *meshlet_count, const uint32_t *indices, size_t index_count,
                   const float *positions, size_t vertex_count, size_t max_vertices,
                   size_t max_triangles, float cone_weight);
/* meshlet_build for triangles in spatial order (a chunk sorted along a
 * Morton curve, chunks.c): the same meshlets, its nearest-triangle search
 * made for that order (meshlet_seed_runs.c). */
bool meshlet_build_sorted(meshlet_span *meshlets, uint32_t *vertices, uint8_t *triangles,
                          size_t *meshlet_count, const uint32_t *indices, size_t index_count,
                          const float *positions, size_t vertex_count, size_t max_vertices,
                          size_t max_triangles, float cone_weight);
/* meshlet_build_sorted for indices the caller has already bounded, every
 * one in [lo, hi] with hi < vertex_count (index_span_narrow's answer): the
 * builder skips its own pass over the indices to find the range. False as
 * well when an index lies outside [lo, hi]. */
bool meshlet_build_sorted_in(meshlet_span *meshlets, uint32_t *vertices, uint8_t *triangles,
                             size_t *meshlet_count, const uint32_t *indices, size_t index_count,
                             const float *positions, size_t vertex_count, size_t max_vertices,
                             size_t max_triangles, float cone_weight, uint32_t lo, uint32_t hi);

/* A meshlet's culling data (meshlet_bounds.c), the fields of kiln_meshlet. */
typedef struct meshlet_bounds {
    float center[3], radius; /* a sphere holding every vertex */
    float cone_apex[3], cone_axis[3];
    float cone_cutoff; /* 1 (axis and apex 0): no cone worth testing */
    int8_t cone_axis_s8[3], cone_cutoff_s8;
} meshlet_bounds;

/* The bounding sphere of a meshlet's vertices (positions[3 * vertices[i]])
 * and the cone of its non-degenerate triangles' normals (`triangles`: 3
 * local indices each): every triangle faces away from a camera c with
 * dot(normalize(cone_apex - c), cone_axis) >= cone_cutoff, and from one
 * passing the same test on the snorm8 axis and cutoff. Counts above the
 * builder's limits give all zeros and no cone; local indices out of range
 * are skipped. */
void meshlet_bounds_compute(meshlet_bounds *out, const uint32_t *vertices, size_t vertex_count,
                            const uint8_t *triangles, size_t triangle_count,
                            const float *positions);

/* The nearest-triangle search (meshlet_seed.c): a k-d tree over triangle
 * centroids that forgets used triangles as it meets them. */
typedef struct meshlet_seed meshlet_seed;

/* A tree over `count` points (x, y, z at points + stride * i); NULL when
 * memory runs out. */
meshlet_seed *meshlet_seed_create(const float *points, size_t stride, uint32_t count);
/* The point nearest `position` among those with used[point] == 0 (ties: any,
 * deterministically), or UINT32_MAX when none is left or no distance
 * compares (NaN). A point once seen used is never looked at again. */
uint32_t meshlet_seed_nearest(meshlet_seed *seed, const float position[3], const uint8_t *used);
void meshlet_seed_free(meshlet_seed *seed);

/* The same search for points in spatial order (meshlet_seed_runs.c): a tree
 * of boxes over runs of consecutive points, built in one pass; exact on any
 * order, fast only on a spatial one. Same contract as meshlet_seed_*. */
typedef struct meshlet_runs meshlet_runs;
meshlet_runs *meshlet_runs_create(const float *points, size_t stride, uint32_t count);
uint32_t meshlet_runs_nearest(meshlet_runs *seed, const float position[3], const uint8_t *used);
void meshlet_runs_free(meshlet_runs *seed);

#endif
