/* lods_welded.c — the LOD step's first fallback when kiln's simplifier
 * stalls on a submesh: the same simplifier on the submesh welded by position.
 *
 * An attribute seam (vertices at one position with different normals or
 * texture coordinates) limits which collapses kiln's simplifier may make;
 * where seams and borders cover most of a submesh (the CesiumMilkTruck's
 * body), too few edges are left to reach a level's target. The fallback
 * after that used to be meshoptimizer's sloppy simplifier, a vertex grid
 * that ignores attributes too, and moves every kept vertex to a grid cell's
 * representative. Welding by position first lets kiln's quadric simplifier
 * collapse across the seams instead: the level keeps the same triangle
 * budget, its error still counts from level 0, and it stays much nearer the
 * surface than the grid. What it costs is the seams' attributes: each corner
 * of a reduced triangle takes one of the vertices at its position, the one
 * whose normal faces most like the triangle (a hard edge keeps each side's
 * normal; across a texture seam the choice can take the other side's
 * coordinates, as the grid's representatives do). */
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
};

void welded_end(welded_session *w) {
    if (w == NULL)
        return;
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

static void face_normal(const float *positions, const uint32_t *tri, float n[3]) {
    const float *a = positions + 3 * (size_t)tri[0], *b = positions + 3 * (size_t)tri[1],
                *c = positions + 3 * (size_t)tri[2];
    float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    n[0] = u[1] * v[2] - u[2] * v[1];
    n[1] = u[2] * v[0] - u[0] * v[2];
    n[2] = u[0] * v[1] - u[1] * v[0];
}

/* The vertex at corner's position whose normal is nearest the face's
 * direction n (not normalised: only the order of the dot products counts);
 * the first one on a tie or without normals. */
static uint32_t pick_wedge(const welded_session *w, uint32_t corner, const float n[3]) {
    const float *normals = w->mesh->normals;
    uint32_t g = w->group[corner], best = w->wedges[w->start[g]];
    if (normals == NULL)
        return best;
    float best_dot = -INFINITY;
    for (uint32_t i = w->start[g]; i < w->start[g + 1]; i++) {
        const float *m = normals + 3 * (size_t)w->wedges[i];
        float d = m[0] * n[0] + m[1] * n[1] + m[2] * n[2];
        if (d > best_dot) {
            best_dot = d;
            best = w->wedges[i];
        }
    }
    return best;
}

size_t welded_continue(welded_session *w, size_t target_index_count, float target_error,
                       uint32_t *dest, float *result_error) {
    size_t count =
        simplify_continue(w->session, target_index_count, target_error, dest, result_error);
    for (size_t t = 0; t + 2 < count; t += 3) {
        float n[3];
        face_normal(w->mesh->positions, dest + t, n);
        for (int k = 0; k < 3; k++)
            dest[t + k] = pick_wedge(w, dest[t + k], n);
    }
    return count;
}
