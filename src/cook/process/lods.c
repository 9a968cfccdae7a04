/* lods.c — reduced levels of detail per submesh (meshoptimizer's simplifier,
 * or kiln's own, simplify.c, under mesh.simplifier: kiln).
 *
 * Each level simplifies the level before it (cascading: each step works on
 * half the triangles of the previous one, which makes LODs about a third
 * cheaper than simplifying level 0 every time) towards its own target
 * (ratio × level-0 triangles). With meshoptimizer errors add up level over
 * level, so each step gets what is left of the error bound and a level's
 * recorded error is the sum; kiln's simplifier goes on from the level before
 * in one session, its errors counted from level 0 (its quadrics carry over),
 * so each level gets the whole bound. When the attribute-preserving
 * simplifier stalls (topology it may not collapse), the sloppy one is tried; a
 * level neither can reduce is marked reused so the engine keeps drawing the
 * level before.
 *
 * A large submesh is simplified chunk by chunk (chunks.c), chunks in parallel:
 * each chunk's cascade runs on its own compact vertices with its border
 * locked, so the seams between chunks stay watertight and the concatenated
 * level is the same for any thread count. A level whose chunks together stall
 * (the locked seams leave too little to collapse) falls back to simplifying
 * the whole submesh, as small submeshes always are.
 *
 * Point submeshes cascade through meshoptimizer's point simplifier (a grid
 * over the points) towards the same ratios; a step's error is the largest
 * distance from a point of the level before to the nearest point kept. Line
 * submeshes are not reduced: meshoptimizer has no line simplifier, and a
 * debug line or cable dropped at a distance is a visible gap, so every level
 * repeats level 0 (reused). */
#include <math.h>
#include <meshoptimizer.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

#define LOD_TARGET_ERROR 0.02f        /* 2% of the mesh's extent */
#define LOD_SLOPPY_TARGET_ERROR 0.05f /* the fallback may go further */
#define LOD_MIN_REDUCTION 0.9         /* below 10% fewer triangles counts as a stall */
/* The welded fallback (lods_welded.c) on submeshes up to this many triangles:
 * choosing between it and the old fallback measures both against level 0
 * (surface_distance), which on a flat-shaded 69,000-triangle model (every
 * position a seam: kiln's simplifier stalls at once) took 0.9 s against the
 * 0.1 s of the whole cook with meshoptimizer's. */
#define WELDED_MAX_TRIANGLES 8192u

/* The settings' simplifier (mesh.simplifier) on triangles: the count written
 * to dest (0 for none or failure) and its error relative to the extent of the
 * vertex_count positions. */
static size_t simplify_with(const cook_settings *settings, uint32_t *dest, const uint32_t *source,
                            size_t source_count, const float *positions, size_t vertex_count,
                            size_t target, float target_error, bool lock_border,
                            float *result_error) {
    if (settings->mesh_simplifier == COOK_SIMPLIFIER_MESHOPT)
        return meshopt_checked_simplify(dest, source, source_count, positions, vertex_count, target,
                                        target_error, lock_border ? meshopt_SimplifyLockBorder : 0,
                                        result_error);
    size_t count = 0;
    if (!simplify_triangles(dest, source, source_count, positions, vertex_count,
                            target < source_count ? target : source_count, target_error,
                            lock_border, &count, result_error))
        return 0;
    return count;
}

/* meshoptimizer's sloppy simplifier on the vertices `source` draws, into
 * `out`: it gives each grid cell the best vertex of all it is handed, so on
 * the whole vertex buffer a level could draw a vertex of another submesh
 * (that submesh's texcoords and normals: found by fuzz_mesh_process). The
 * errors, in and out, stay relative to the whole mesh's extent (mesh_scale,
 * the job's). 0 when out of memory (the level is then not reduced). */
static size_t sloppy_on_source(const ir_mesh *mesh, float mesh_scale, const uint32_t *source,
                               size_t source_count, size_t target, float target_error,
                               uint32_t *out, float *error) {
    mesh_local local;
    if (!mesh_local_build(&local, source, source_count, mesh->positions))
        return 0;
    float local_scale =
        meshopt_simplifyScale(local.positions, local.vertex_count, 3 * sizeof *local.positions);
    /* mesh units per local unit (both extents are 0 only together) */
    float to_mesh = mesh_scale > 0.0f && local_scale > 0.0f ? local_scale / mesh_scale : 1.0f;
    float local_error = 0.0f;
    size_t count = meshopt_checked_simplify_sloppy(out, local.indices, local.index_count,
                                                   local.positions, local.vertex_count, target,
                                                   target_error / to_mesh, &local_error);
    mesh_local_to_global(&local, out, count, out);
    mesh_local_free(&local);
    *error = local_error * to_mesh;
    return count;
}

/* Simplifies the previous level `source` towards `target_count` indices into
 * `out` (room for source_count); returns the new count and the error, now
 * relative to level 0 (mesh_scale: the mesh's extent, as the job has it), or
 * 0 when the level is not worth keeping. */
static size_t simplify_level(const cook_settings *settings, const ir_mesh *mesh, float mesh_scale,
                             const uint32_t *source, size_t source_count, float source_error,
                             size_t target_count, uint32_t *out, float *error) {
    /* The target follows level 0's count; a previous level (or the cleaning
     * of degenerate triangles) may already be below it: the checked calls
     * clamp it to the source. */
    size_t target = target_count / 3 * 3;
    if (target < 3)
        target = 3;
    size_t stall = (size_t)((double)source_count * LOD_MIN_REDUCTION);
    float result_error = 0.0f;
    size_t count = 0;
    if (source_error < LOD_TARGET_ERROR)
        count =
            simplify_with(settings, out, source, source_count, mesh->positions, mesh->vertex_count,
                          target, LOD_TARGET_ERROR - source_error, false, &result_error);
    if ((count == 0 || count > stall) && source_error < LOD_SLOPPY_TARGET_ERROR) {
        count = sloppy_on_source(mesh, mesh_scale, source, source_count, target,
                                 LOD_SLOPPY_TARGET_ERROR - source_error, out, &result_error);
    }
    if (count == 0 || count > stall ||
        !mesh_cache_order_reduced(out, count, mesh->vertex_count, settings->mesh_vertex_cache))
        return 0;
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

static size_t level_target(size_t level0_count, const cook_settings *settings, uint32_t level) {
    size_t target = (size_t)((double)level0_count * level_ratio(settings, level)) / 3 * 3;
    return target < 3 ? 3 : target;
}

/* ---------------------------------------------------------------------------
 * Points (their error: lods_points.c)
 * ------------------------------------------------------------------------- */

/* A point level from the level before (`source`, mesh vertex indices) into
 * `out`: the point simplifier on the distinct points, mapped back to the mesh.
 * Returns the count, 0 when out of memory or not worth keeping (the stall
 * rule of triangles), and the step's error relative to the mesh's extent. */
static size_t simplify_points_level(const ir_mesh *mesh, float mesh_scale, const uint32_t *source,
                                    size_t source_count, size_t target, uint32_t *out, float *error,
                                    bool *failed) {
    mesh_local local;
    if (!mesh_local_build(&local, source, source_count, mesh->positions)) {
        *failed = true;
        return 0;
    }
    size_t count = meshopt_checked_simplify_points(out, local.positions, local.vertex_count,
                                                   target < 1 ? 1 : target);
    size_t stall = (size_t)((double)source_count * LOD_MIN_REDUCTION);
    float absolute = 0.0f;
    if (count > 0 && count <= stall) {
        if (!lods_points_error(local.positions, local.indices, local.index_count, out, count,
                               &absolute))
            *failed = true;
        mesh_local_to_global(&local, out, count, out);
    }
    mesh_local_free(&local);
    if (count == 0 || count > stall || *failed)
        return 0;
    *error = mesh_scale > 0.0f ? absolute / mesh_scale : 0.0f;
    return count;
}

/* ---------------------------------------------------------------------------
 * Levels per chunk
 * ------------------------------------------------------------------------- */

/* One chunk's reduced levels: level l (1 ..) at indices + (l - 1) * capacity. */
typedef struct lod_chunk_levels {
    uint32_t *indices;
    size_t capacity;
    size_t counts[KILN_MESH_MAX_LODS]; /* 0: not reduced (whole-submesh chunks only) */
    float errors[KILN_MESH_MAX_LODS];
} lod_chunk_levels;

typedef struct lod_job {
    const ir_mesh *mesh;
    const cook_settings *settings;
    mesh_chunk *chunks;
    uint32_t chunk_count;
    const uint32_t *level0; /* level 0, large submeshes sorted spatially */
    lod_chunk_levels *out;  /* one per chunk */
    uint32_t levels;
    float mesh_scale; /* the simplifier's extent of the whole mesh */
    atomic_bool failed;
} lod_job;

/* A point submesh: the cascade of the point simplifier. */
static void lods_of_points(lod_job *job, const mesh_chunk *chunk, lod_chunk_levels *out) {
    const uint32_t *source = job->level0 + chunk->index_offset;
    size_t source_count = chunk->index_count;
    float source_error = 0.0f;
    bool failed = false;
    for (uint32_t level = 1; level < job->levels && !failed; level++) {
        uint32_t *dest = out->indices + (level - 1) * out->capacity;
        size_t target = (size_t)((double)chunk->index_count * level_ratio(job->settings, level));
        float error = 0.0f;
        size_t count = source_count == 0
                           ? 0
                           : simplify_points_level(job->mesh, job->mesh_scale, source, source_count,
                                                   target, dest, &error, &failed);
        out->counts[level] = count;
        out->errors[level] = source_error + error;
        if (count == 0)
            continue; /* reused: the next level starts from the same one */
        source = dest;
        source_count = count;
        source_error += error;
    }
    if (failed)
        atomic_store(&job->failed, true);
}

/* A whole submesh: the cascade of simplify_level, as for any small mesh.
 * False when out of memory. */
static bool lods_of_submesh(const lod_job *job, const cook_settings *settings,
                            const mesh_chunk *chunk, lod_chunk_levels *out) {
    const uint32_t *level0 = job->level0 + chunk->index_offset;
    const uint32_t *source = level0;
    size_t source_count = chunk->index_count;
    float source_error = 0.0f;
    /* kiln's simplifier goes on from each level (errors from level 0), until
     * it stalls: then simplify_level takes over, sloppy fallback and all,
     * unless the same simplifier welded by position, started again from
     * level 0 (lods_welded.c), makes a level nearer level 0; while it does,
     * it goes on in the next levels, each measured the same way. */
    simplify_session *session = NULL;
    welded_session *welded = NULL;
    uint32_t *scratch = NULL;
    bool ok = true;
    if (settings->mesh_simplifier == COOK_SIMPLIFIER_KILN && source_count > 0)
        session = simplify_begin(source, source_count, job->mesh->positions,
                                 job->mesh->vertex_count, false);
    for (uint32_t level = 1; ok && level < job->levels; level++) {
        uint32_t *dest = out->indices + (level - 1) * out->capacity;
        size_t target = level_target(chunk->index_count, settings, level);
        float error = 0.0f;
        size_t count = 0;
        if (session != NULL) {
            count = simplify_continue(session, target, LOD_TARGET_ERROR, dest, &error);
            if (count == 0 || count > (size_t)((double)source_count * LOD_MIN_REDUCTION)) {
                simplify_end(session);
                session = NULL;
                welded = chunk->index_count <= 3 * (size_t)WELDED_MAX_TRIANGLES
                             ? welded_begin(job->mesh, level0, chunk->index_count)
                             : NULL;
                scratch = malloc(chunk->index_count * sizeof *scratch);
                ok = welded == NULL || scratch != NULL;
            } else if (!mesh_cache_order_reduced(dest, count, job->mesh->vertex_count,
                                                 settings->mesh_vertex_cache)) {
                count = 0;
            }
        }
        if (ok && session == NULL && source_count > 0)
            count = simplify_level(settings, job->mesh, job->mesh_scale, source, source_count,
                                   source_error, target, dest, &error);
        if (ok && session == NULL && welded != NULL)
            ok = welded_choose(&welded, settings->mesh_vertex_cache,
                               (size_t)((double)source_count * LOD_MIN_REDUCTION), target,
                               LOD_TARGET_ERROR, scratch, dest, &count, &error);
        /* A level's error never decreases (kmesh.md): the welded session's
         * counts from level 0, and the level before may be a fallback's with
         * a larger one (found by fuzz_mesh_process). */
        if (error < source_error)
            error = source_error;
        out->counts[level] = count;
        out->errors[level] = error;
        if (count == 0)
            continue; /* reused: the next level starts from the same one */
        source = dest;
        source_count = count;
        source_error = error;
    }
    simplify_end(session);
    welded_end(welded);
    free(scratch);
    return ok;
}

/* One chunk of a large submesh: its border locked, on its own vertices. A
 * level the simplifier cannot reduce keeps the chunk's previous one. */
static bool lods_of_chunk(const lod_job *job, const cook_settings *settings,
                          const mesh_chunk *chunk, lod_chunk_levels *out) {
    mesh_local local;
    if (!mesh_local_build(&local, job->level0 + chunk->index_offset, chunk->index_count,
                          job->mesh->positions))
        return false;
    uint32_t *scratch = malloc(local.index_count * sizeof *scratch);
    if (scratch == NULL) {
        mesh_local_free(&local);
        return false;
    }
    /* kiln's simplifier goes on from each level with what it knows of the
     * chunk (its errors count from level 0 already); meshoptimizer's starts
     * again from the level before, and errors add up. */
    simplify_session *session = NULL;
    if (settings->mesh_simplifier == COOK_SIMPLIFIER_KILN) {
        session = simplify_begin(local.indices, local.index_count, local.positions,
                                 local.vertex_count, true);
        if (session == NULL) {
            free(scratch);
            mesh_local_free(&local);
            return false;
        }
    }
    /* Errors are relative to the extent of the vertices given: convert. */
    float chunk_scale = session != NULL ? simplify_extent(session)
                                        : meshopt_simplifyScale(local.positions, local.vertex_count,
                                                                3 * sizeof(float));
    uint32_t *source = local.indices, *dest = scratch;
    size_t source_count = local.index_count;
    float source_error = 0.0f;
    for (uint32_t level = 1; level < job->levels; level++) {
        float result_error = 0.0f, level_error = source_error;
        size_t count = 0, target = level_target(chunk->index_count, settings, level);
        if (session != NULL && chunk_scale > 0.0f) {
            count =
                simplify_continue(session, target, LOD_TARGET_ERROR * job->mesh_scale / chunk_scale,
                                  dest, &result_error);
            level_error = result_error * chunk_scale / job->mesh_scale;
        } else if (session == NULL && source_error < LOD_TARGET_ERROR && chunk_scale > 0.0f) {
            count = simplify_with(settings, dest, source, source_count, local.positions,
                                  local.vertex_count, target,
                                  (LOD_TARGET_ERROR - source_error) * job->mesh_scale / chunk_scale,
                                  true, &result_error);
            level_error = source_error + result_error * chunk_scale / job->mesh_scale;
        }
        if (count == 0 || count >= source_count ||
            !mesh_cache_order_reduced(dest, count, local.vertex_count,
                                      settings->mesh_vertex_cache)) {
            memcpy(dest, source, source_count * sizeof *dest);
            count = source_count;
        } else {
            source_error = level_error;
        }
        mesh_local_to_global(&local, dest, count, out->indices + (level - 1) * out->capacity);
        out->counts[level] = count;
        out->errors[level] = source_error;
        uint32_t *swap = source;
        source = dest;
        dest = swap;
        source_count = count;
    }
    simplify_end(session);
    free(scratch);
    mesh_local_free(&local);
    return true;
}

/* The settings with mesh.simplifier auto made kiln or meshopt by the whole
 * submesh's size, so that the chunks of a submesh, and the whole-submesh
 * levels made where they stall, use one simplifier. */
static cook_settings settings_for_submesh(const cook_settings *settings,
                                          const ir_submesh *submesh) {
    cook_settings resolved = *settings;
    if (resolved.mesh_simplifier == COOK_SIMPLIFIER_AUTO)
        resolved.mesh_simplifier = submesh->index_count / 3 >= COOK_SIMPLIFIER_AUTO_TRIANGLES
                                       ? COOK_SIMPLIFIER_KILN
                                       : COOK_SIMPLIFIER_MESHOPT;
    return resolved;
}

static void lods_chunk(void *ctx, uint32_t index) {
    lod_job *job = ctx;
    const mesh_chunk *chunk = &job->chunks[index];
    lod_chunk_levels *out = &job->out[index];
    out->capacity = chunk->index_count;
    out->indices =
        malloc((out->capacity ? out->capacity : 1) * (job->levels - 1) * sizeof *out->indices);
    bool ok = out->indices != NULL;
    const ir_submesh *submesh = &job->mesh->submeshes[chunk->submesh];
    cook_settings settings = settings_for_submesh(job->settings, submesh);
    /* Lines: every count stays 0, so every level is reused. */
    if (ok && submesh->topology == KILN_TOPOLOGY_POINTS)
        lods_of_points(job, chunk, out);
    else if (ok && submesh->topology == KILN_TOPOLOGY_TRIANGLES && chunk->split)
        ok = lods_of_chunk(job, &settings, chunk, out);
    else if (ok && submesh->topology == KILN_TOPOLOGY_TRIANGLES)
        ok = lods_of_submesh(job, &settings, chunk, out);
    if (!ok)
        atomic_store(&job->failed, true);
}

/* Appends a submesh's level from its chunks (first .. first + n) to indices +
 * *used; false when it is not worth keeping (together they stall). */
static bool append_chunks(const lod_job *job, uint32_t first, uint32_t n, uint32_t level,
                          const ir_lod *previous, uint32_t *indices, size_t *used, ir_lod *lod) {
    size_t total = 0;
    float error = 0.0f;
    for (uint32_t c = first; c < first + n; c++) {
        total += job->out[c].counts[level];
        error = job->out[c].errors[level] > error ? job->out[c].errors[level] : error;
    }
    if (total == 0 || total > (size_t)((double)previous->index_count * LOD_MIN_REDUCTION))
        return false;
    *lod =
        (ir_lod){.index_offset = (uint32_t)*used, .index_count = (uint32_t)total, .error = error};
    for (uint32_t c = first; c < first + n; c++) {
        const lod_chunk_levels *out = &job->out[c];
        memcpy(indices + *used, out->indices + (level - 1) * out->capacity,
               out->counts[level] * sizeof *indices);
        *used += out->counts[level];
    }
    return true;
}

static uint32_t lod_levels(const cook_settings *settings) {
    uint32_t levels = settings->mesh_lods + 1;
    return levels > KILN_MESH_MAX_LODS ? KILN_MESH_MAX_LODS : levels;
}

static void lods_free_job(void *job_) {
    lod_job *job = job_;
    for (uint32_t c = 0; c < job->chunk_count && job->out; c++)
        free(job->out[c].indices);
    free(job->out);
    free(job->chunks);
    free(job);
}

bool lods_begin(const ir_mesh *mesh, const cook_settings *settings, const uint32_t *level0,
                mesh_step *step) {
    *step = (mesh_step){.item = lods_chunk, .discard = lods_free_job};
    lod_job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return false;
    *job = (lod_job){.mesh = mesh,
                     .settings = settings,
                     .level0 = level0,
                     .levels = lod_levels(settings),
                     .mesh_scale = meshopt_simplifyScale(mesh->positions, mesh->vertex_count,
                                                         3 * sizeof(float))};
    atomic_init(&job->failed, false);
    if (job->levels > 1) {
        job->chunks = mesh_chunks(mesh, mesh_chunk_size(settings), &job->chunk_count);
        job->out = calloc(job->chunk_count ? job->chunk_count : 1, sizeof *job->out);
        if (job->chunks == NULL || job->out == NULL) {
            lods_free_job(job);
            return false;
        }
    }
    step->job = job;
    step->items = job->chunk_count;
    return true;
}

bool lods_finish(mesh_step *step, ir_mesh *mesh) {
    lod_job *job = step->job;
    step->job = NULL;
    if (job == NULL)
        return false;
    const cook_settings *settings = job->settings;
    uint32_t levels = job->levels, chunk_count = job->chunk_count;
    const mesh_chunk *chunks = job->chunks;
    const lod_chunk_levels *out = job->out;
    size_t lod_entries = (size_t)mesh->submesh_count * levels;
    ir_lod *lods = calloc(lod_entries ? lod_entries : 1, sizeof *lods);
    /* Worst case every level keeps every triangle. */
    size_t capacity = (size_t)mesh->index_count * levels;
    uint32_t *indices = malloc(capacity ? capacity * sizeof *indices : 1);
    /* Submeshes whose chunked levels stalled: later levels are whole-submesh too. */
    bool *whole = calloc(mesh->submesh_count ? mesh->submesh_count : 1, sizeof *whole);
    bool ok = lods && indices && whole && !atomic_load(&job->failed);
    size_t used = mesh->index_count;
    if (ok) {
        /* Level 0 as it is now (the order step may have run alongside). */
        memcpy(indices, mesh->indices, (size_t)mesh->index_count * sizeof *indices);
        for (uint32_t s = 0; s < mesh->submesh_count; s++) {
            ir_lod *base = &lods[(size_t)s * levels];
            base->index_offset = mesh->submeshes[s].index_offset;
            base->index_count = mesh->submeshes[s].index_count;
        }
    }
    /* Levels in order, each level's submeshes in order, chunks in order. */
    for (uint32_t level = 1; ok && level < levels; level++) {
        uint32_t first = 0;
        for (uint32_t s = 0; s < mesh->submesh_count; s++) {
            uint32_t n = 0;
            while (first + n < chunk_count && chunks[first + n].submesh == s)
                n++;
            ir_lod *previous = &lods[(size_t)s * levels + level - 1];
            ir_lod *lod = &lods[(size_t)s * levels + level];
            size_t count = 0;
            float error = 0.0f;
            if (n == 1) {
                count = out[first].counts[level];
                error = out[first].errors[level];
                memcpy(indices + used, out[first].indices + (level - 1) * out[first].capacity,
                       count * sizeof *indices);
            } else if (!whole[s] &&
                       append_chunks(job, first, n, level, previous, indices, &used, lod)) {
                first += n;
                continue;
            } else {
                whole[s] = true;
                cook_settings resolved = settings_for_submesh(settings, &mesh->submeshes[s]);
                count = simplify_level(
                    &resolved, mesh, job->mesh_scale, indices + previous->index_offset,
                    previous->index_count, previous->error,
                    level_target(mesh->submeshes[s].index_count, settings, level), indices + used,
                    &error);
            }
            first += n;
            if (count == 0) {
                *lod = *previous;
                lod->reused = true;
                continue;
            }
            *lod = (ir_lod){
                .index_offset = (uint32_t)used, .index_count = (uint32_t)count, .error = error};
            used += count;
        }
    }
    lods_free_job(job);
    free(whole);
    if (!ok) {
        free(lods);
        free(indices);
        return false;
    }
    free(mesh->indices);
    mesh->indices = indices;
    mesh->index_count = (uint32_t)used;
    free(mesh->lods);
    mesh->lods = lods;
    mesh->lod_count = levels;
    return true;
}

bool process_build_lods(ir_mesh *mesh, const cook_settings *settings) {
    uint32_t *level0 = mesh_spatial_level0(mesh, mesh_chunk_size(settings), settings->threads);
    mesh_step step;
    bool ok = level0 && lods_begin(mesh, settings, level0, &step);
    if (ok) {
        parallel_for(settings->threads, step.items, step.item, step.job);
        ok = lods_finish(&step, mesh);
    }
    free(level0);
    return ok;
}
