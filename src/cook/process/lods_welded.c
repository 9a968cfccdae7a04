/* lods_welded.c — a fallback of the LOD step (lods.c) where kiln's
 * simplifier stalls on a submesh: the same simplifier on the submesh welded
 * by position.
 *
 * An attribute seam (vertices at one position with different normals or
 * texture coordinates) limits which collapses kiln's simplifier may make;
 * where seams and borders cover most of a submesh (the CesiumMilkTruck's
 * body), too few edges are left to reach a level's target. The other
 * fallback, meshoptimizer's sloppy simplifier, is a vertex grid that
 * ignores attributes as well and moves every kept vertex to its cell's
 * representative. Welding by position instead lets kiln's quadric
 * simplifier collapse across the seams, its error still counted from level
 * 0; welded_choose keeps whichever level is nearer level 0, measured
 * against one grid of level 0's triangles for every level. What it costs is the
 * seams' attributes: each corner of a reduced triangle takes one of the
 * vertices at its position (the grid takes one a cell for all its
 * triangles), chosen by pick_wedges: the normal facing most like the
 * triangle, then texture coordinates from one side of a texture seam. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

struct welded_session {
    simplify_session *session;
    const ir_mesh *mesh;
    uint32_t *group;  /* per vertex: its position's group (~0u: unused) */
    uint32_t *start;  /* per group: first of its vertices in `wedges` (+1 at the end) */
    uint32_t *wedges; /* the vertices of each group, in first-use order */
    /* Level 0 and what welded_choose measures against, made at its first
     * call and kept for the next levels': the box of the positions level 0
     * uses and its grid of triangles. */
    const uint32_t *level0;
    size_t level0_count;
    float lo[3], hi[3];
    triangle_grid level0_grid;
    bool grid_built;
};

void welded_end(welded_session *w) {
    if (w == NULL)
        return;
    if (w->grid_built)
        triangle_grid_free(&w->level0_grid);
    simplify_end(w->session);
    free(w->group);
    free(w->start);
    free(w->wedges);
    free(w);
}

welded_session *welded_begin(const ir_mesh *mesh, const uint32_t *indices, size_t index_count) {
    if (!meshopt_triangles_valid(indices, index_count, mesh->vertex_count))
        return NULL;
    welded_session *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->mesh = mesh;
    w->level0 = indices;
    w->level0_count = index_count;
    size_t vertex_count = mesh->vertex_count;
    w->group = malloc((vertex_count ? vertex_count : 1) * sizeof *w->group);
    weld_stream positions = {(const uint8_t *)mesh->positions, 3 * sizeof(float)};
    size_t groups = w->group == NULL ? SIZE_MAX
                                     : weld_vertex_remap(w->group, indices, index_count,
                                                         vertex_count, &positions, 1);
    uint32_t *fill = NULL, *welded = NULL;
    if (groups != SIZE_MAX) {
        w->start = calloc(groups + 1, sizeof *w->start);
        w->wedges = malloc((vertex_count ? vertex_count : 1) * sizeof *w->wedges);
        fill = malloc((groups ? groups : 1) * sizeof *fill);
        welded = malloc((index_count ? index_count : 1) * sizeof *welded);
    }
    if (groups == SIZE_MAX || w->start == NULL || w->wedges == NULL || fill == NULL ||
        welded == NULL) {
        free(fill);
        free(welded);
        welded_end(w);
        return NULL;
    }
    /* The vertices of each position, by counting sort (in vertex order). */
    for (size_t v = 0; v < vertex_count; v++)
        if (w->group[v] != ~0u)
            w->start[w->group[v] + 1]++;
    for (size_t g = 0; g < groups; g++)
        w->start[g + 1] += w->start[g];
    memcpy(fill, w->start, groups * sizeof *fill);
    for (size_t v = 0; v < vertex_count; v++)
        if (w->group[v] != ~0u)
            w->wedges[fill[w->group[v]]++] = (uint32_t)v;
    /* Every corner at a position becomes that position's first vertex. */
    for (size_t i = 0; i < index_count; i++)
        welded[i] = w->wedges[w->start[w->group[indices[i]]]];
    w->session = simplify_begin(welded, index_count, mesh->positions, vertex_count, false);
    free(fill);
    free(welded);
    if (w->session == NULL) {
        welded_end(w);
        return NULL;
    }
    return w;
}

static void face_normal(const float *positions, const uint32_t tri[3], float n[3]) {
    const float *a = positions + 3 * (size_t)tri[0], *b = positions + 3 * (size_t)tri[1],
                *c = positions + 3 * (size_t)tri[2];
    float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    n[0] = u[1] * v[2] - u[2] * v[1];
    n[1] = u[2] * v[0] - u[0] * v[2];
    n[2] = u[0] * v[1] - u[1] * v[0];
}

#define MAX_TIES 8 /* wedges of one position tried for the texture tie-break */

/* The vertices at corner's position whose normal is nearest the face's
 * direction n (not normalised: only the order of the dot products counts),
 * every one without normals; at most MAX_TIES, in vertex order. */
static uint32_t nearest_wedges(const welded_session *w, uint32_t corner, const float n[3],
                               uint32_t ties[MAX_TIES]) {
    const float *normals = w->mesh->normals;
    uint32_t g = w->group[corner], count = 0;
    float best_dot = -INFINITY;
    for (uint32_t i = w->start[g]; i < w->start[g + 1]; i++) {
        float d = 0.0f;
        if (normals != NULL) {
            const float *m = normals + 3 * (size_t)w->wedges[i];
            d = m[0] * n[0] + m[1] * n[1] + m[2] * n[2];
        }
        if (d > best_dot) {
            best_dot = d;
            count = 0;
        }
        if (d == best_dot && count < MAX_TIES)
            ties[count++] = w->wedges[i];
    }
    return count;
}

static float texture_spread(const float *uv, uint32_t a, uint32_t b, uint32_t c) {
    const uint32_t corners[3] = {a, b, c};
    float spread = 0.0f;
    for (int k = 0; k < 3; k++) {
        const float *p = uv + 2 * (size_t)corners[k], *q = uv + 2 * (size_t)corners[(k + 1) % 3];
        spread += (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]);
    }
    return spread;
}

/* A reduced triangle's corners mapped back to vertices of the mesh: at each
 * position one whose normal faces most like the triangle (a hard edge keeps
 * each side's normal); among such ties (a texture seam: the same normal, two
 * texture coordinates), the three whose coordinates lie closest together, so
 * the triangle takes its texture from one side of the seam. */
static void pick_wedges(const welded_session *w, uint32_t tri[3]) {
    float n[3];
    face_normal(w->mesh->positions, tri, n);
    uint32_t ties[3][MAX_TIES], counts[3];
    for (int k = 0; k < 3; k++)
        counts[k] = nearest_wedges(w, tri[k], n, ties[k]);
    const float *uv = w->mesh->texcoords[0];
    uint32_t best[3] = {ties[0][0], ties[1][0], ties[2][0]};
    if (uv != NULL && counts[0] * counts[1] * counts[2] > 1) {
        float least = INFINITY;
        for (uint32_t a = 0; a < counts[0]; a++)
            for (uint32_t b = 0; b < counts[1]; b++)
                for (uint32_t c = 0; c < counts[2]; c++) {
                    float spread = texture_spread(uv, ties[0][a], ties[1][b], ties[2][c]);
                    if (spread < least) {
                        least = spread;
                        best[0] = ties[0][a];
                        best[1] = ties[1][b];
                        best[2] = ties[2][c];
                    }
                }
    }
    memcpy(tri, best, sizeof best);
}

size_t welded_continue(welded_session *w, size_t target_index_count, float target_error,
                       uint32_t *dest, float *result_error) {
    size_t count =
        simplify_continue(w->session, target_index_count, target_error, dest, result_error);
    for (size_t t = 0; t + 2 < count; t += 3)
        pick_wedges(w, dest + t);
    return count;
}

/* The bounds of the positions `indices` use. */
static void used_bounds(const float *positions, const uint32_t *indices, size_t index_count,
                        float lo[3], float hi[3]) {
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < index_count; i++)
        for (int k = 0; k < 3; k++) {
            float x = positions[3 * (size_t)indices[i] + k];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
}

/* The sampled distance of `indices` from level 0: false when out of memory. */
static bool distance_from_level0(welded_session *w, const uint32_t *indices, size_t index_count,
                                 double *max, double *mean) {
    const float *positions = w->mesh->positions;
    if (!w->grid_built) {
        used_bounds(positions, w->level0, w->level0_count, w->lo, w->hi);
        w->grid_built = triangle_grid_build(&w->level0_grid, positions, w->level0, w->level0_count,
                                            w->lo, w->hi);
        if (!w->grid_built)
            return false;
    }
    bool ok;
    surface_distance_on(&w->level0_grid, positions, w->level0, w->level0_count, indices,
                        index_count, w->lo, w->hi, max, mean, &ok);
    return ok;
}

bool welded_choose(welded_session **session, cook_vertex_cache cache, size_t stall, size_t target,
                   float target_error, uint32_t *scratch, uint32_t *dest, size_t *count,
                   float *error) {
    welded_session *w = *session;
    float welded_error = 0.0f;
    size_t welded_count = welded_continue(w, *count > 0 && *count < target ? *count : target,
                                          target_error, scratch, &welded_error);
    bool keep = welded_count > 0 && welded_count <= stall &&
                mesh_cache_order_reduced(scratch, welded_count, w->mesh->vertex_count, cache);
    bool only_one_reaches = *count > target && welded_count <= target;
    if (keep && *count > 0 && !only_one_reaches) {
        double max_w, mean_w, max_f, mean_f;
        if (!distance_from_level0(w, scratch, welded_count, &max_w, &mean_w) ||
            !distance_from_level0(w, dest, *count, &max_f, &mean_f))
            return false;
        keep = max_w <= max_f && mean_w <= mean_f;
    }
    if (!keep) {
        welded_end(w);
        *session = NULL;
        return true;
    }
    memcpy(dest, scratch, welded_count * sizeof *dest);
    *count = welded_count;
    *error = welded_error;
    return true;
}
