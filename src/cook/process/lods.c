/* lods.c — reduced levels of detail per submesh (meshoptimizer's simplifier).
 *
 * Each level simplifies the level before it (cascading: each step works on
 * half the triangles of the previous one, which makes LODs about a third
 * cheaper than simplifying level 0 every time) towards its own target
 * (ratio × level-0 triangles). Errors add up level over level, so each step
 * gets what is left of the error bound and a level's recorded error is the
 * sum. When the attribute-preserving simplifier stalls
 * (topology it may not collapse), the sloppy one is tried; a level neither can
 * reduce is marked reused so the engine keeps drawing the level before. */
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"

#define LOD_TARGET_ERROR 0.02f        /* 2% of the mesh's extent */
#define LOD_SLOPPY_TARGET_ERROR 0.05f /* the fallback may go further */
#define LOD_MIN_REDUCTION 0.9         /* below 10% fewer triangles counts as a stall */

/* Simplifies `source` into `out` (room for source_count); returns the new count
 * and the error, or 0 when the level is not worth keeping. */
/* Simplifies the previous level `source` towards `target_count` indices into
 * `out` (room for source_count); returns the new count and the error, now
 * relative to level 0, or 0 when the level is not worth keeping. */
static size_t simplify_level(const ir_mesh *mesh, const uint32_t *source, size_t source_count,
                             float source_error, size_t target_count, uint32_t *out, float *error) {
    size_t target = target_count / 3 * 3;
    if (target < 3)
        target = 3;
    size_t stall = (size_t)((double)source_count * LOD_MIN_REDUCTION);
    float result_error = 0.0f;
    size_t count = 0;
    if (source_error < LOD_TARGET_ERROR)
        count = meshopt_simplify(out, source, source_count, mesh->positions, mesh->vertex_count,
                                 3 * sizeof(float), target, LOD_TARGET_ERROR - source_error, 0,
                                 &result_error);
    if ((count == 0 || count > stall) && source_error < LOD_SLOPPY_TARGET_ERROR) {
        count = meshopt_simplifySloppy(out, source, source_count, mesh->positions,
                                       mesh->vertex_count, 3 * sizeof(float), target,
                                       LOD_SLOPPY_TARGET_ERROR - source_error, &result_error);
    }
    if (count == 0 || count > stall)
        return 0;
    meshopt_optimizeVertexCache(out, out, count, mesh->vertex_count);
    *error = source_error + result_error;
    return count;
}

static double level_ratio(const cook_settings *settings, uint32_t level) {
    if (level - 1 < settings->mesh_lod_ratio_count)
        return settings->mesh_lod_ratios[level - 1];
    double ratio = 1.0;
    for (uint32_t l = 0; l < level; l++)
        ratio *= 0.5;
    return ratio;
}

bool process_build_lods(ir_mesh *mesh, const cook_settings *settings) {
    uint32_t levels = settings->mesh_lods + 1;
    if (levels > KILN_MESH_MAX_LODS)
        levels = KILN_MESH_MAX_LODS;
    size_t lod_entries = (size_t)mesh->submesh_count * levels;
    ir_lod *lods = calloc(lod_entries ? lod_entries : 1, sizeof *lods);
    /* Worst case every level keeps every triangle. */
    size_t capacity = (size_t)mesh->index_count * levels;
    uint32_t *indices = malloc(capacity ? capacity * sizeof *indices : 1);
    if (lods == NULL || indices == NULL) {
        free(lods);
        free(indices);
        return false;
    }
    memcpy(indices, mesh->indices, (size_t)mesh->index_count * sizeof *indices);
    size_t used = mesh->index_count;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        ir_lod *base = &lods[(size_t)s * levels];
        base->index_offset = mesh->submeshes[s].index_offset;
        base->index_count = mesh->submeshes[s].index_count;
    }
    for (uint32_t level = 1; level < levels; level++) {
        for (uint32_t s = 0; s < mesh->submesh_count; s++) {
            ir_lod *previous = &lods[(size_t)s * levels + level - 1];
            ir_lod *lod = &lods[(size_t)s * levels + level];
            /* The previous level's triangles are in `indices` (level 0 was copied). */
            const uint32_t *source = indices + previous->index_offset;
            size_t target =
                (size_t)((double)mesh->submeshes[s].index_count * level_ratio(settings, level));
            float error = 0.0f;
            size_t count = previous->index_count == 0
                               ? 0
                               : simplify_level(mesh, source, previous->index_count,
                                                previous->error, target, indices + used, &error);
            if (count == 0) {
                *lod = *previous;
                lod->reused = true;
                continue;
            }
            lod->index_offset = (uint32_t)used;
            lod->index_count = (uint32_t)count;
            lod->error = error;
            lod->reused = false;
            used += count;
        }
    }
    free(mesh->indices);
    mesh->indices = indices;
    mesh->index_count = (uint32_t)used;
    free(mesh->lods);
    mesh->lods = lods;
    mesh->lod_count = levels;
    return true;
}
