/*
 * meshopt_checked.c — the calls into meshoptimizer whose input a stage makes
 * up as it goes (LOD levels, chunk-local buffers, reordered ranges) go
 * through here, after the preconditions its header documents (and its asserts
 * enforce, aborting the whole build) are checked: a whole number of
 * triangles, every index below the vertex count, a simplification target no
 * larger than the input, meshlet limits in range. A call whose input breaks
 * one does nothing and reports it (0 or false), so a malformed or degenerate
 * mesh fails one step of one asset, never the process. The IR's own index
 * buffer is checked once, by the model driver before the process stage
 * (check_mesh_invariants), so weld and fetch call meshoptimizer directly.
 */
#include <meshoptimizer.h>

#include "cook/process/process.h"

#define POSITION_STRIDE (3 * sizeof(float)) /* kiln's positions: 12 bytes, 4-aligned */

bool meshopt_triangles_valid(const uint32_t *indices, size_t index_count, size_t vertex_count) {
    if (index_count % 3 != 0 || (index_count > 0 && indices == NULL))
        return false;
    uint32_t largest = 0;
    for (size_t i = 0; i < index_count; i++)
        largest = indices[i] > largest ? indices[i] : largest;
    return index_count == 0 || (size_t)largest < vertex_count;
}

/* The target a simplifier may be given: whole triangles, at most the input. */
static size_t simplify_target(size_t target, size_t index_count) {
    if (target > index_count)
        target = index_count;
    return target / 3 * 3;
}

size_t meshopt_checked_simplify(uint32_t *dest, const uint32_t *indices, size_t index_count,
                                const float *positions, size_t vertex_count, size_t target,
                                float target_error, unsigned options, float *result_error) {
    *result_error = 0.0f;
    if (index_count == 0 || !meshopt_triangles_valid(indices, index_count, vertex_count))
        return 0;
    return meshopt_simplify(dest, indices, index_count, positions, vertex_count, POSITION_STRIDE,
                            simplify_target(target, index_count), target_error, options,
                            result_error);
}

size_t meshopt_checked_simplify_sloppy(uint32_t *dest, const uint32_t *indices, size_t index_count,
                                       const float *positions, size_t vertex_count, size_t target,
                                       float target_error, float *result_error) {
    *result_error = 0.0f;
    if (index_count == 0 || !meshopt_triangles_valid(indices, index_count, vertex_count))
        return 0;
    return meshopt_simplifySloppy(dest, indices, index_count, positions, vertex_count,
                                  POSITION_STRIDE, simplify_target(target, index_count),
                                  target_error, result_error);
}

bool meshopt_checked_order(uint32_t *indices, size_t index_count, const float *positions,
                           size_t vertex_count, bool overdraw) {
    if (!meshopt_triangles_valid(indices, index_count, vertex_count))
        return false;
    if (index_count == 0)
        return true;
    meshopt_optimizeVertexCache(indices, indices, index_count, vertex_count);
    /* 1.05: allow 5% worse vertex cache use for better overdraw. */
    if (overdraw)
        meshopt_optimizeOverdraw(indices, indices, index_count, positions, vertex_count,
                                 POSITION_STRIDE, 1.05f);
    return true;
}

bool meshopt_meshlet_limits_valid(size_t max_vertices, size_t max_triangles) {
    /* meshoptimizer: 3 <= max_vertices <= 255, 1 <= max_triangles <= 512, and
     * max_triangles a multiple of 4. */
    return max_vertices >= 3 && max_vertices <= 255 && max_triangles >= 4 && max_triangles <= 512 &&
           max_triangles % 4 == 0;
}
