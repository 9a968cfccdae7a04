/* simplify_quadric.c — the quadrics of kiln's simplifier (simplify.c): each
 * position's sum of its triangles' planes and, along a border or seam, of
 * planes through its unpaired edges (Garland & Heckbert 1997, sections 5
 * and 6.2), and the unit scale errors are measured in. */
#include <math.h>
#include <string.h>

#include "cook/process/process.h"
#include "cook/process/simplify_internal.h"

#define BORDER_WEIGHT 10.0f /* a border plane weighs as 10 faces: borders hold */
#define SEAM_WEIGHT 1.0f    /* a seam only steers the collapses along it */

/* The quadric of one plane n.x + d = 0, weighted. Written directly rather
 * than added to a zeroed quadric: the same sums wherever it is added (x + 0.0
 * is x but for -0.0, and a quadric, started at +0.0, stays +0.0 after adding
 * either zero), for about half the instructions of the fill. */
static inline quadric plane_quadric(const float nf[3], float df, float weight) {
    double n[3] = {nf[0], nf[1], nf[2]}, d = df, w = weight;
    return (quadric){.a00 = w * n[0] * n[0],
                     .a01 = w * n[0] * n[1],
                     .a02 = w * n[0] * n[2],
                     .a11 = w * n[1] * n[1],
                     .a12 = w * n[1] * n[2],
                     .a22 = w * n[2] * n[2],
                     .b0 = w * n[0] * d,
                     .b1 = w * n[1] * d,
                     .b2 = w * n[2] * d,
                     .c = w * d * d,
                     .weight = w};
}

static float normalize3(float *v) {
    float length = sqrtf(dot3(v, v));
    if (length > 0.0f) {
        float inverse = 1.0f / length;
        for (int k = 0; k < 3; k++)
            v[k] *= inverse;
    }
    return length;
}

float simplify_scale_positions(float *out, const float *positions, size_t vertex_count) {
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (size_t v = 0; v < vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            float x = positions[3 * v + (size_t)k];
            lo[k] = v == 0 || x < lo[k] ? x : lo[k];
            hi[k] = v == 0 || x > hi[k] ? x : hi[k];
        }
    float extent = 0.0f;
    for (int k = 0; k < 3; k++)
        extent = hi[k] - lo[k] > extent ? hi[k] - lo[k] : extent;
    float scale = extent > 0.0f ? 1.0f / extent : 0.0f;
    for (size_t v = 0; v < vertex_count; v++)
        for (int k = 0; k < 3; k++)
            out[3 * v + (size_t)k] = (positions[3 * v + (size_t)k] - lo[k]) * scale;
    return extent;
}

/* Both cache lines an 88-byte quadric may span, to be written. */
static inline void prefetch_quadric(const quadric *q) {
    __builtin_prefetch(q, 1);
    __builtin_prefetch((const char *)q + sizeof *q - 1, 1);
}

/* The plane of the triangle on `corner`, weighted by the square root of its
 * area. */
static quadric triangle_quadric(const float *positions, const uint32_t corner[3]) {
    const float *p[3];
    for (int k = 0; k < 3; k++)
        p[k] = positions + 3 * (size_t)corner[k];
    float u[3], v[3], n[3];
    sub3(p[1], p[0], u);
    sub3(p[2], p[0], v);
    cross3(u, v, n);
    float area = normalize3(n);
    return plane_quadric(n, -dot3(n, p[0]), sqrtf(area));
}

/* Face planes on every corner's position; edge planes on both ends of each
 * unpaired edge (open: per index, classification's), so that a border
 * keeps its shape up to its locked corners too. */
void simplify_fill_quadrics(quadric *quadrics, const float *positions, const simplify_state *s,
                            const uint32_t *indices, size_t index_count, const uint8_t *open,
                            bool prefetch) {
    for (size_t t = 0; t + 2 < index_count; t += 3) {
        /* The quadrics a later triangle adds to, asked for early: adding
         * waits on their loads more than it computes. */
        if (prefetch && t + 3 * PREFETCH_AHEAD + 2 < index_count)
            for (size_t k = 0; k < 3; k++)
                prefetch_quadric(&quadrics[s->remap[indices[t + 3 * PREFETCH_AHEAD + k]]]);
        /* One plane's quadric, added to each corner (the same sums as adding
         * the plane to each). */
        quadric face = triangle_quadric(positions, indices + t);
        for (int k = 0; k < 3; k++)
            quadric_add(&quadrics[s->remap[indices[t + (size_t)k]]], &face);
        for (int k = 0; k < 3; k++) {
            if (!open[t + (size_t)k])
                continue;
            uint32_t a = indices[t + (size_t)k], b = indices[t + (size_t)(k + 1) % 3];
            bool seam = s->kind[a] == SIMPLIFY_SEAM || s->kind[b] == SIMPLIFY_SEAM;
            /* The plane through a-b perpendicular to the triangle: the edge's
             * direction removed from the way to the third corner. */
            const float *pa = positions + 3 * (size_t)a, *pb = positions + 3 * (size_t)b;
            const float *pc = positions + 3 * (size_t)indices[t + (size_t)(k + 2) % 3];
            float edge[3], side[3];
            sub3(pb, pa, edge);
            float length = normalize3(edge);
            sub3(pc, pa, side);
            float along = dot3(side, edge);
            for (int j = 0; j < 3; j++)
                side[j] -= edge[j] * along;
            normalize3(side);
            float weight = length * (seam ? SEAM_WEIGHT : BORDER_WEIGHT);
            quadric edge_plane = plane_quadric(side, -dot3(side, pa), weight);
            quadric_add(&quadrics[s->remap[a]], &edge_plane);
            quadric_add(&quadrics[s->remap[b]], &edge_plane);
        }
    }
}

void simplify_refresh_manifold_quadrics(quadric *quadrics, const quadric *surface,
                                        const float *positions, const simplify_state *s,
                                        const uint32_t *indices, size_t index_count) {
    size_t n = s->vertex_count;
    /* A manifold position has one vertex (it has no wedges): its own. */
    for (size_t v = 0; v < n; v++)
        if (s->kind[v] == SIMPLIFY_MANIFOLD)
            memset(&quadrics[v], 0, sizeof quadrics[v]);
    for (size_t t = 0; t + 2 < index_count; t += 3) {
        quadric face = triangle_quadric(positions, indices + t);
        for (int k = 0; k < 3; k++) {
            uint32_t corner = indices[t + (size_t)k];
            if (s->kind[corner] == SIMPLIFY_MANIFOLD)
                quadric_add(&quadrics[corner], &face);
        }
    }
    /* What the levels so far cost around the position (its distance to the
     * planes it absorbed since level 0) comes first in any move of it. */
    for (size_t v = 0; v < n; v++)
        if (s->kind[v] == SIMPLIFY_MANIFOLD)
            quadrics[v].c +=
                (double)quadric_error(&surface[v], positions + 3 * v) * quadrics[v].weight;
}
