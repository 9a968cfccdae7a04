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
 * 0; lods.c keeps whichever level is nearer level 0. What it costs is the
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
