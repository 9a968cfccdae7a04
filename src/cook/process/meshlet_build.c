/* meshlet_build.c — kiln's meshlet builder (meshlet_build.h).
 *
 * The greedy growth of meshoptimizer's clusterizer (meshopt_buildMeshlets,
 * https://github.com/zeux/meshoptimizer, src/clusterizer.cpp, after
 * Wihlidal, "Optimizing the Graphics Pipeline with Compute", GDC 2016), with
 * the same choice at every step:
 *
 *   1. among the unused triangles that share a vertex with the meshlet (the
 *      candidates), the fewest new vertices win: none, then any triangle
 *      holding a vertex it is the last unused triangle of (left behind, it
 *      would cost a vertex in another meshlet), then 1, 2 or 3 new vertices;
 *   2. among those, the one nearest the meshlet's centre and whose normal
 *      is nearest its mean normal (the cone weight trades one for the other);
 *   3. if the winner does not fit, the candidate of that rank whose vertices
 *      have the fewest unused triangles left starts the next meshlet;
 *   4. with no candidate, the unused triangle nearest the meshlet's centre
 *      (meshlet_seed.c) joins it; the first meshlet starts nearest the origin.
 *
 * meshoptimizer finds the candidates again at every step by walking the
 * triangle list of every vertex of the meshlet and looking each triangle's
 * three vertices up. Here they are kept in one small array, updated only
 * when a vertex joins the meshlet (its unused triangles enter or change rank)
 * or a triangle is used; a step reads that array front to back, its entries
 * carrying their centroid, normal and rank. Ties go to the earlier entry, so
 * the meshlets differ from meshoptimizer's in detail, not in kind. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "cook/process/meshlet_build.h"

#define NOT_IN_MESHLET 0xffu
#define NO_TRIANGLE UINT32_MAX
/* A vertex joining a meshlet makes at most this many of its triangles
 * candidates: past it, a fan around one vertex would make every step read
 * the whole fan (quadratic time). Real meshes stay far below it. */
#define CANDIDATES_PER_VERTEX 64u
#define RANK_NONE 5u /* worse than any rank (0..4) */

typedef struct triangle_cone {
    float centre[3];
    float normal[3]; /* unit, or 0 for a degenerate triangle */
} triangle_cone;

typedef struct candidate {
    triangle_cone cone;
    uint32_t triangle;
    uint8_t extra; /* its vertices not in the meshlet yet */
    uint8_t rank;  /* 0 no new vertex, 1 holds a vertex's last triangle, else extra + 1 */
} candidate;

typedef struct builder {
    const uint32_t *indices;
    uint32_t triangle_count;
    uint32_t max_vertices, max_triangles;
    float cone_weight, distance_scale;
    triangle_cone *cones;
    uint32_t *live;     /* per vertex: its unused triangles (counted per corner) */
    uint32_t *first;    /* per vertex: its list in `adjacent` */
    uint32_t *adjacent; /* per vertex, its unused triangles first */
    uint8_t *local;     /* per vertex: its index in the meshlet, or NOT_IN_MESHLET */
    uint32_t *slot;     /* per triangle: its index in candidates, or NO_TRIANGLE */
    uint8_t *used;      /* per triangle */
    uint32_t used_count, next_unused;
    candidate *candidates;
    size_t candidate_count, candidate_cap;
    meshlet_seed *seed; /* nearest-triangle search, made when first needed */
    /* The meshlet being grown and what it has added up. */
    meshlet_span current;
    float centre_sum[3], normal_sum[3];
    meshlet_span *meshlets;
    size_t meshlet_count;
    uint32_t *vertices;
    uint8_t *triangles;
} builder;

size_t meshlet_build_bound(size_t index_count, size_t max_vertices, size_t max_triangles) {
    size_t triangles = index_count / 3;
    if (max_vertices < 3 || max_triangles < 1)
        return 0;
    /* A meshlet is closed when it holds max_triangles triangles or when a
     * triangle's up to 3 new vertices would not fit (so it holds at least
     * max_vertices - 2, each a distinct corner); each has a triangle. */
    size_t by_vertices = (index_count + max_vertices - 3) / (max_vertices - 2);
    size_t by_triangles = (triangles + max_triangles - 1) / max_triangles;
    size_t bound = by_vertices + by_triangles + 1;
    return bound < triangles ? bound : triangles;
}

/* ---------------------------------------------------------------------------
 * Set-up: triangle lists per vertex, centroids and normals
 * ------------------------------------------------------------------------- */

static bool build_adjacency(builder *b, size_t vertex_count) {
    memset(b->live, 0, vertex_count * sizeof *b->live);
    for (size_t i = 0; i < 3 * (size_t)b->triangle_count; i++)
        b->live[b->indices[i]]++;
    uint32_t offset = 0;
    for (size_t v = 0; v < vertex_count; v++) {
        b->first[v] = offset;
        offset += b->live[v];
    }
    /* Fill with first[] as cursors, then step them back. */
    for (uint32_t t = 0; t < b->triangle_count; t++)
        for (int k = 0; k < 3; k++)
            b->adjacent[b->first[b->indices[3 * (size_t)t + k]]++] = t;
    for (size_t v = 0; v < vertex_count; v++)
        b->first[v] -= b->live[v];
    return true;
}

/* Each triangle's centroid and unit normal; returns the sum of twice their
 * areas. */
static double compute_cones(builder *b, const float *positions) {
    double area2 = 0.0;
    for (uint32_t t = 0; t < b->triangle_count; t++) {
        const uint32_t *tri = b->indices + 3 * (size_t)t;
        const float *p0 = positions + 3 * (size_t)tri[0], *p1 = positions + 3 * (size_t)tri[1],
                    *p2 = positions + 3 * (size_t)tri[2];
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        float inverse = length > 0.0f ? 1.0f / length : 0.0f;
        triangle_cone *cone = &b->cones[t];
        for (int k = 0; k < 3; k++) {
            cone->centre[k] = (p0[k] + p1[k] + p2[k]) / 3.0f;
            cone->normal[k] = n[k] * inverse;
        }
        area2 += length;
    }
    return area2;
}

/* ---------------------------------------------------------------------------
 * Candidates
 * ------------------------------------------------------------------------- */

static const uint32_t *corners(const builder *b, uint32_t triangle) {
    return b->indices + 3 * (size_t)triangle;
}

static uint8_t rank_of(const builder *b, uint32_t triangle, uint32_t extra) {
    if (extra == 0)
        return 0;
    const uint32_t *tri = corners(b, triangle);
    if (b->live[tri[0]] == 1 || b->live[tri[1]] == 1 || b->live[tri[2]] == 1)
        return 1;
    return (uint8_t)(extra + 1);
}

/* A triangle touching a vertex that just joined: enters the candidates or
 * has its count of new vertices brought up to date. */
static bool touch(builder *b, uint32_t triangle) {
    const uint32_t *tri = corners(b, triangle);
    uint32_t extra = (b->local[tri[0]] == NOT_IN_MESHLET) + (b->local[tri[1]] == NOT_IN_MESHLET) +
                     (b->local[tri[2]] == NOT_IN_MESHLET);
    uint32_t slot = b->slot[triangle];
    if (slot == NO_TRIANGLE) {
        candidate *grown = array_grow(b->candidates, &b->candidate_cap, b->candidate_count + 1,
                                      sizeof *grown, 256);
        if (grown == NULL)
            return false;
        b->candidates = grown;
        slot = (uint32_t)b->candidate_count++;
        b->slot[triangle] = slot;
        b->candidates[slot].cone = b->cones[triangle];
        b->candidates[slot].triangle = triangle;
    }
    b->candidates[slot].extra = (uint8_t)extra;
    b->candidates[slot].rank = rank_of(b, triangle, extra);
    return true;
}

static void drop_candidate(builder *b, uint32_t triangle) {
    uint32_t slot = b->slot[triangle];
    if (slot == NO_TRIANGLE)
        return;
    candidate *last = &b->candidates[--b->candidate_count];
    b->candidates[slot] = *last;
    b->slot[last->triangle] = slot;
    b->slot[triangle] = NO_TRIANGLE;
}

static void clear_candidates(builder *b) {
    for (size_t i = 0; i < b->candidate_count; i++)
        b->slot[b->candidates[i].triangle] = NO_TRIANGLE;
    b->candidate_count = 0;
}

/* The best candidate by rank, then by distance and normal (or, `by_live`, by
 * how many unused triangles its vertices have left). */
static uint32_t best_candidate(const builder *b, bool by_live, uint32_t *rank_out) {
    float count = (float)b->current.triangle_count;
    float centre[3], axis[3], axis_length2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        centre[k] = count > 0.0f ? b->centre_sum[k] / count : 0.0f;
        axis[k] = b->normal_sum[k];
        axis_length2 += axis[k] * axis[k];
    }
    float axis_scale = axis_length2 > 0.0f ? 1.0f / sqrtf(axis_length2) : 0.0f;
    for (int k = 0; k < 3; k++)
        axis[k] *= axis_scale * b->cone_weight;

    /* The best rank first, so that only its candidates are scored. */
    uint32_t best_rank = RANK_NONE;
    for (size_t i = 0; i < b->candidate_count; i++)
        best_rank = b->candidates[i].rank < best_rank ? b->candidates[i].rank : best_rank;
    uint32_t best = NO_TRIANGLE;
    float best_score = INFINITY;
    for (size_t i = 0; i < b->candidate_count; i++) {
        const candidate *c = &b->candidates[i];
        if (c->rank != best_rank)
            continue;
        float score;
        if (by_live) {
            const uint32_t *tri = corners(b, c->triangle);
            score = (float)(b->live[tri[0]] + b->live[tri[1]] + b->live[tri[2]]);
        } else {
            float dx = c->cone.centre[0] - centre[0], dy = c->cone.centre[1] - centre[1],
                  dz = c->cone.centre[2] - centre[2];
            float spread = c->cone.normal[0] * axis[0] + c->cone.normal[1] * axis[1] +
                           c->cone.normal[2] * axis[2];
            float cone = 1.0f - spread;
            score = (1.0f + sqrtf(dx * dx + dy * dy + dz * dz) * b->distance_scale) *
                    (cone < 1e-3f ? 1e-3f : cone);
        }
        if (best == NO_TRIANGLE || score < best_score) {
            best = c->triangle;
            best_score = score;
        }
    }
    *rank_out = best_rank;
    return best;
}

/* ---------------------------------------------------------------------------
 * Growing meshlets
 * ------------------------------------------------------------------------- */

static void close_meshlet(builder *b) {
    if (b->current.triangle_count == 0)
        return;
    b->meshlets[b->meshlet_count++] = b->current;
    for (uint32_t i = 0; i < b->current.vertex_count; i++)
        b->local[b->vertices[b->current.vertex_offset + i]] = NOT_IN_MESHLET;
    clear_candidates(b);
    b->current.vertex_offset += b->current.vertex_count;
    b->current.triangle_offset += b->current.triangle_count;
    b->current.vertex_count = 0;
    b->current.triangle_count = 0;
    memset(b->centre_sum, 0, sizeof b->centre_sum);
    memset(b->normal_sum, 0, sizeof b->normal_sum);
}

static bool add_vertex(builder *b, uint32_t vertex) {
    b->local[vertex] = (uint8_t)b->current.vertex_count;
    b->vertices[b->current.vertex_offset + b->current.vertex_count++] = vertex;
    uint32_t count =
        b->live[vertex] < CANDIDATES_PER_VERTEX ? b->live[vertex] : CANDIDATES_PER_VERTEX;
    for (uint32_t i = 0; i < count; i++)
        if (!touch(b, b->adjacent[b->first[vertex] + i]))
            return false;
    return true;
}

/* Marks `triangle` used: off its vertices' lists and the candidates. */
static void retire(builder *b, uint32_t triangle) {
    b->used[triangle] = 1;
    b->used_count++;
    drop_candidate(b, triangle);
    const uint32_t *tri = corners(b, triangle);
    for (int k = 0; k < 3; k++) {
        uint32_t v = tri[k], *list = b->adjacent + b->first[v];
        for (uint32_t i = 0; i < b->live[v]; i++) {
            if (list[i] == triangle) {
                list[i] = list[--b->live[v]];
                list[b->live[v]] = triangle;
                break;
            }
        }
        /* Its last triangle now ranks as one not to leave behind. */
        if (b->live[v] == 1) {
            uint32_t slot = b->slot[list[0]];
            if (slot != NO_TRIANGLE && b->candidates[slot].extra > 0)
                b->candidates[slot].rank = 1;
        }
    }
}

/* Adds `triangle` to the meshlet, closing it first if it does not fit. */
static bool emit(builder *b, uint32_t triangle) {
    const uint32_t *tri = corners(b, triangle);
    uint32_t extra = (b->local[tri[0]] == NOT_IN_MESHLET) + (b->local[tri[1]] == NOT_IN_MESHLET) +
                     (b->local[tri[2]] == NOT_IN_MESHLET);
    if (b->current.vertex_count + extra > b->max_vertices ||
        b->current.triangle_count >= b->max_triangles)
        close_meshlet(b);
    retire(b, triangle);
    for (int k = 0; k < 3; k++)
        if (b->local[tri[k]] == NOT_IN_MESHLET && !add_vertex(b, tri[k]))
            return false;
    uint8_t *out =
        b->triangles + 3 * ((size_t)b->current.triangle_offset + b->current.triangle_count);
    for (int k = 0; k < 3; k++) {
        out[k] = b->local[tri[k]];
        b->centre_sum[k] += b->cones[triangle].centre[k];
        b->normal_sum[k] += b->cones[triangle].normal[k];
    }
    b->current.triangle_count++;
    return true;
}

/* The unused triangle nearest the meshlet's centre (the origin for the first
 * meshlet, as meshoptimizer does); the first unused one in index order if no
 * distance compares (NaN positions). */
static uint32_t seed_triangle(builder *b) {
    if (b->seed == NULL) {
        b->seed = meshlet_seed_create(b->cones[0].centre, sizeof *b->cones / sizeof(float),
                                      b->triangle_count);
        if (b->seed == NULL)
            return NO_TRIANGLE;
    }
    float centre[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < 3 && b->current.triangle_count > 0; k++)
        centre[k] = b->centre_sum[k] / (float)b->current.triangle_count;
    uint32_t nearest = meshlet_seed_nearest(b->seed, centre, b->used);
    if (nearest != NO_TRIANGLE)
        return nearest;
    while (b->used[b->next_unused])
        b->next_unused++;
    return b->next_unused;
}

static bool grow_meshlets(builder *b) {
    while (b->used_count < b->triangle_count) {
        uint32_t rank;
        uint32_t next = best_candidate(b, false, &rank);
        if (next != NO_TRIANGLE && (b->current.vertex_count + rank > b->max_vertices ||
                                    b->current.triangle_count >= b->max_triangles))
            next = best_candidate(b, true, &rank);
        if (next == NO_TRIANGLE) {
            next = seed_triangle(b);
            if (next == NO_TRIANGLE)
                return false; /* out of memory */
        }
        if (!emit(b, next))
            return false;
    }
    close_meshlet(b);
    return true;
}

static void free_builder(builder *b) {
    free(b->cones);
    free(b->live);
    free(b->first);
    free(b->adjacent);
    free(b->local);
    free(b->slot);
    free(b->used);
    free(b->candidates);
    meshlet_seed_free(b->seed);
}

bool meshlet_build(meshlet_span *meshlets, uint32_t *vertices, uint8_t *triangles,
                   size_t *meshlet_count, const uint32_t *indices, size_t index_count,
                   const float *positions, size_t vertex_count, size_t max_vertices,
                   size_t max_triangles, float cone_weight) {
    *meshlet_count = 0;
    if (index_count % 3 != 0 || index_count / 3 >= UINT32_MAX || vertex_count >= UINT32_MAX ||
        max_vertices < 3 || max_vertices > MESHLET_BUILD_MAX_VERTICES || max_triangles < 1 ||
        max_triangles > MESHLET_BUILD_MAX_TRIANGLES ||
        !(cone_weight >= 0.0f && cone_weight <= 1.0f))
        return false;
    for (size_t i = 0; i < index_count; i++)
        if (indices[i] >= vertex_count)
            return false;
    if (index_count == 0)
        return true;
    size_t triangle_count = index_count / 3;
    builder b = {.indices = indices,
                 .triangle_count = (uint32_t)triangle_count,
                 .max_vertices = (uint32_t)max_vertices,
                 .max_triangles = (uint32_t)max_triangles,
                 .cone_weight = cone_weight,
                 .meshlets = meshlets,
                 .vertices = vertices,
                 .triangles = triangles};
    b.cones = malloc(triangle_count * sizeof *b.cones);
    b.live = malloc(vertex_count * sizeof *b.live);
    b.first = malloc(vertex_count * sizeof *b.first);
    b.adjacent = malloc(index_count * sizeof *b.adjacent);
    b.local = malloc(vertex_count);
    b.slot = malloc(triangle_count * sizeof *b.slot);
    b.used = calloc(triangle_count, 1);
    bool ok = b.cones && b.live && b.first && b.adjacent && b.local && b.slot && b.used;
    if (ok) {
        build_adjacency(&b, vertex_count);
        memset(b.local, NOT_IN_MESHLET, vertex_count);
        memset(b.slot, 0xff, triangle_count * sizeof *b.slot);
        /* meshoptimizer's scale: a meshlet as a square patch of max_triangles
         * triangles of the mean area has about this radius. */
        double mean_area = compute_cones(&b, positions) / (double)triangle_count * 0.5;
        double radius = sqrt(mean_area * (double)max_triangles) * 0.5;
        b.distance_scale =
            radius > 0.0 && isfinite(radius) ? (float)((1.0 - cone_weight) / radius) : 0.0f;
        ok = grow_meshlets(&b);
    }
    *meshlet_count = b.meshlet_count;
    free_builder(&b);
    return ok;
}
