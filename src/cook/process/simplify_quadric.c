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
/* A later level's seam positions on runs of at most this many between
 * locked ends rank by fresh planes (simplify_refresh_quadrics). */
#define SHORT_SEAM_RUN 8u

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

/* The plane through the edge a-b perpendicular to its triangle (third
 * corner c), weighted by the edge's length times `weight`. */
static quadric edge_quadric(const float *positions, uint32_t a, uint32_t b, uint32_t c,
                            float weight) {
    /* The edge's direction removed from the way to the third corner. */
    const float *pa = positions + 3 * (size_t)a, *pb = positions + 3 * (size_t)b;
    const float *pc = positions + 3 * (size_t)c;
    float edge[3], side[3];
    sub3(pb, pa, edge);
    float length = normalize3(edge);
    sub3(pc, pa, side);
    float along = dot3(side, edge);
    for (int j = 0; j < 3; j++)
        side[j] -= edge[j] * along;
    normalize3(side);
    return plane_quadric(side, -dot3(side, pa), length * weight);
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
            quadric edge_plane = edge_quadric(positions, a, b, indices[t + (size_t)(k + 2) % 3],
                                              seam ? SEAM_WEIGHT : BORDER_WEIGHT);
            quadric_add(&quadrics[s->remap[a]], &edge_plane);
            quadric_add(&quadrics[s->remap[b]], &edge_plane);
        }
    }
}

/* Whether the seam through position v runs between two non-seam (locked)
 * ends at most SHORT_SEAM_RUN positions long at the current level: each
 * side's loop followed forward (the two sides run opposite ways). A closed
 * loop is long. */
static bool seam_run_short(const simplify_state *s, uint32_t v) {
    uint32_t run = 1;
    uint32_t sides[2] = {v, s->wedge[v]};
    for (int k = 0; k < 2; k++)
        for (uint32_t w = s->loop[sides[k]]; w != UINT32_MAX && s->kind[w] == SIMPLIFY_SEAM;
             w = s->loop[w]) {
            if (s->remap[w] == s->remap[v] || ++run > SHORT_SEAM_RUN)
                return false;
        }
    return true;
}

/* Whether the edge a -> b of a triangle is a seam's unpaired edge: a seam
 * wedge's one unpaired edge out is its loop; into a seam wedge from a locked
 * position, it comes from where the other wedge's loop goes (the two sides
 * run between the same positions, simplify_classify). */
static bool seam_edge(const simplify_state *s, uint32_t a, uint32_t b) {
    if (s->kind[a] == SIMPLIFY_SEAM)
        return s->loop[a] == b;
    if (s->kind[b] != SIMPLIFY_SEAM)
        return false;
    uint32_t other = s->loop[s->wedge[b]];
    return other != UINT32_MAX && s->remap[a] == s->remap[other];
}

/* What simplify_refresh_quadrics does at a vertex: keeps its position's
 * quadric, makes it afresh at the vertex itself (manifold: no wedges), or
 * at its position's first vertex (a seam's wedges). */
enum {
    REFRESH_KEEP = 0 /* the quadric since level 0 (the header says 0) */,
    REFRESH_OWN,
    REFRESH_SEAM
};

void simplify_refresh_quadrics(quadric *quadrics, const quadric *surface, const float *positions,
                               const simplify_state *s, const uint32_t *indices, size_t index_count,
                               uint8_t *fresh) {
    size_t n = s->vertex_count;
    bool seams = false;
    for (size_t v = 0; v < n; v++) {
        if (s->kind[v] == SIMPLIFY_MANIFOLD) {
            fresh[v] = REFRESH_OWN;
        } else if (s->kind[v] != SIMPLIFY_SEAM) {
            fresh[v] = REFRESH_KEEP;
        } else if (s->remap[v] != v) {
            fresh[v] = fresh[s->remap[v]]; /* a later wedge: as the first (a lower number) */
            continue;
        } else {
            fresh[v] = seam_run_short(s, (uint32_t)v) ? REFRESH_SEAM : REFRESH_KEEP;
            seams |= fresh[v] == REFRESH_SEAM;
        }
        if (fresh[v] != REFRESH_KEEP)
            memset(&quadrics[v], 0, sizeof quadrics[v]);
    }
    for (size_t t = 0; t + 2 < index_count; t += 3) {
        quadric face = triangle_quadric(positions, indices + t);
        for (int k = 0; k < 3; k++) {
            uint32_t corner = indices[t + (size_t)k];
            if (fresh[corner] != REFRESH_KEEP)
                quadric_add(&quadrics[fresh[corner] == REFRESH_OWN ? corner : s->remap[corner]],
                            &face);
        }
    }
    /* The seam edges' planes, on both sides (as level 0's). */
    for (size_t t = 0; seams && t + 2 < index_count; t += 3)
        for (int k = 0; k < 3; k++) {
            uint32_t a = indices[t + (size_t)k], b = indices[t + (size_t)(k + 1) % 3];
            if ((fresh[a] != REFRESH_SEAM && fresh[b] != REFRESH_SEAM) || !seam_edge(s, a, b))
                continue;
            quadric edge_plane =
                edge_quadric(positions, a, b, indices[t + (size_t)(k + 2) % 3], SEAM_WEIGHT);
            if (fresh[a] == REFRESH_SEAM)
                quadric_add(&quadrics[s->remap[a]], &edge_plane);
            if (fresh[b] == REFRESH_SEAM)
                quadric_add(&quadrics[s->remap[b]], &edge_plane);
        }
    /* What the levels so far cost around the position (its distance to the
     * planes it absorbed since level 0) comes first in any move of it. */
    for (size_t v = 0; v < n; v++)
        if (fresh[v] == REFRESH_OWN || (fresh[v] == REFRESH_SEAM && s->remap[v] == v))
            quadrics[v].c +=
                (double)quadric_error(&surface[v], positions + 3 * v) * quadrics[v].weight;
}
