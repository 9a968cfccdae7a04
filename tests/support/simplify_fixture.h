/* simplify_fixture.h — the meshes the simplifier tests (test_simplify,
 * test_simplify_error) build: a bumped, jittered quad grid, a seam down its
 * middle, a closed sphere. */
#ifndef KILN_TEST_SIMPLIFY_FIXTURE_H
#define KILN_TEST_SIMPLIFY_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/* An n x n quad grid over (n + 1)^2 vertices, heights from `bump` (0 for a
 * plane); interior vertices moved in the plane by `jitter` (deterministic) so
 * triangles differ. */
typedef struct grid {
    uint32_t n;
    float *positions;
    uint32_t *indices;
    size_t vertex_count, index_count;
} grid;

/* Fills g with an n x n grid (grid_free frees it). */
void grid_make(grid *g, uint32_t n, float bump, float jitter);

/* Frees what grid_make, grid_add_seam or sphere_make allocated. */
void grid_free(grid *g);

/* A seam down the middle column of g: the right half's triangles use copies
 * of the column's vertices (same positions, other attributes). */
void grid_add_seam(grid *g);

/* A closed sphere: rings x segments, the poles one vertex each. */
void sphere_make(grid *g, uint32_t rings, uint32_t segments);

#endif
