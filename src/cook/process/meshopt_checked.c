/*
 * meshopt_checked.c — the calls into meshoptimizer whose input a stage makes
 * up as it goes (LOD levels, chunk-local buffers, reordered ranges) go
 * through here, after the preconditions its header documents (and its asserts
 * enforce, aborting the whole build) are checked: a whole number of
 * triangles, every index below the vertex count, a simplification target no
 * larger than the input (triangles and points), meshlet limits in range. A call whose input breaks
 * one does nothing and reports it (0 or false), so a malformed or degenerate
 * mesh fails one step of one asset, never the process. The IR's own index
 * buffer is checked once, by the model driver before the process stage
 * (check_mesh_invariants); fetch comes here only because lines and
 * points make its length other than a multiple of 3, which meshoptimizer
 * 0.18 asserts even where it reads the indices one by one.
 */
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

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

size_t meshopt_checked_simplify_points(uint32_t *dest, const float *positions, size_t vertex_count,
                                       size_t target) {
    /* meshoptimizer asserts target <= vertex_count (and returns 0 for a target
     * of 0); the positions it normalises must be finite, as the model driver
     * checked every IR position. */
    if (target > vertex_count)
        target = vertex_count;
    if (vertex_count == 0 || target == 0 || positions == NULL)
        return 0;
        /* 0.20 added a colour stream to the signature (Debian 12 ships 0.18). */
#if MESHOPTIMIZER_VERSION >= 200
    return meshopt_simplifyPoints(dest, positions, vertex_count, POSITION_STRIDE, NULL, 0, 0.0f,
                                  target);
#else
    return meshopt_simplifyPoints(dest, positions, vertex_count, POSITION_STRIDE, target);
#endif
}

bool meshopt_checked_order(uint32_t *indices, size_t index_count, const float *positions,
                           size_t vertex_count, bool overdraw) {
    if (!meshopt_triangles_valid(indices, index_count, vertex_count))
        return false;
    if (index_count == 0)
        return true;
    meshopt_optimizeVertexCache(indices, indices, index_count, vertex_count);
    return !overdraw || meshopt_checked_overdraw(indices, index_count, positions, vertex_count);
}

bool meshopt_checked_overdraw(uint32_t *indices, size_t index_count, const float *positions,
                              size_t vertex_count) {
    if (!meshopt_triangles_valid(indices, index_count, vertex_count))
        return false;
    /* 1.05: allow 5% worse vertex cache use for better overdraw. */
    if (index_count > 0)
        meshopt_optimizeOverdraw(indices, indices, index_count, positions, vertex_count,
                                 POSITION_STRIDE, 1.05f);
    return true;
}

/* `indices` as a count meshoptimizer accepts: itself when it is a multiple of
 * 3, else a copy padded with its last index (*owned, freed by the caller), which
 * changes nothing for a remap in order of first use. NULL when out of memory. */
static const uint32_t *padded_to_triangles(const uint32_t *indices, size_t *count,
                                           uint32_t **owned) {
    *owned = NULL;
    if (*count % 3 == 0)
        return indices;
    size_t padded = *count + (3 - *count % 3);
    *owned = malloc(padded * sizeof **owned);
    if (*owned == NULL)
        return NULL;
    memcpy(*owned, indices, *count * sizeof **owned);
    for (size_t i = *count; i < padded; i++)
        (*owned)[i] = indices[*count - 1];
    *count = padded;
    return *owned;
}

size_t meshopt_checked_fetch_remap(unsigned int *remap, const uint32_t *indices, size_t index_count,
                                   size_t vertex_count) {
    uint32_t *owned;
    const uint32_t *list = padded_to_triangles(indices, &index_count, &owned);
    if (list == NULL)
        return SIZE_MAX;
    size_t used = meshopt_optimizeVertexFetchRemap(remap, list, index_count, vertex_count);
    free(owned);
    return used;
}

bool meshopt_meshlet_limits_valid(size_t max_vertices, size_t max_triangles) {
    /* meshoptimizer: 3 <= max_vertices <= 255, 1 <= max_triangles <= 512, and
     * max_triangles a multiple of 4. */
    return max_vertices >= 3 && max_vertices <= 255 && max_triangles >= 4 && max_triangles <= 512 &&
           max_triangles % 4 == 0;
}
