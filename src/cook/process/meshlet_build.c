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
 *      (meshlet_seed.c, or meshlet_seed_runs.c for input in spatial order)
 *      joins it; the first meshlet starts nearest the origin.
 *
 * meshoptimizer finds the candidates again at every step by walking the
 * triangle list of every vertex of the meshlet and looking each triangle's
 * three vertices up. Here they are kept in one small list per rank, updated
 * only when a vertex joins the meshlet (its unused triangles enter or change
 * rank) or a triangle is used; a step scores only the best rank's list, and
 * takes a list of one without scoring (half the steps on a grid). A
 * triangle's corners and candidate slot share one 16-byte record, a vertex's
 * list bounds, unused count and place in the meshlet another, so a step's
 * scattered reads touch one cache line each. Used triangles leave a vertex's
 * list lazily, when a walk over it meets them, instead of being searched for
 * at every use. Ties go to the lower triangle number, so the meshlets differ
 * from meshoptimizer's in detail, not in kind. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/meshlet_build.h"

#define NOT_IN_MESHLET 0xffu
#define NO_TRIANGLE UINT32_MAX
/* A vertex joining a meshlet makes at most this many of its triangles
 * candidates: past it, a fan around one vertex would make every step read
 * the whole fan (quadratic time). Real meshes stay far below it. */
#define CANDIDATES_PER_VERTEX 64u
#define RANKS 5u /* 0 no new vertex, 1 holds a vertex's last triangle, else extra + 1 */
/* A candidate's slot: its rank in the top bits, its index in that rank's
 * list below (a meshlet has at most 255 * CANDIDATES_PER_VERTEX). */
#define SLOT_RANK_SHIFT 24u
#define SLOT_INDEX_MASK ((1u << SLOT_RANK_SHIFT) - 1u)
#define SLOT_USED (UINT32_MAX - 1u)     /* NO_TRIANGLE: unused, not a candidate */
#define FLOAT_INFINITY_BITS 0x7f800000u /* +infinity's bits; finite positive floats are below */

typedef struct triangle_cone {
    float centre[3];
    float normal[3]; /* unit, or 0 for a degenerate triangle */
} triangle_cone;

/* The candidates of one rank (triangle numbers): a step scores only the
 * best rank's. Each has room for every candidate a meshlet can have
 * (candidate_bound), so adding one never allocates. */
typedef struct rank_list {
    uint32_t *items;
    size_t count;
} rank_list;

/* What a step reads of a triangle and of a vertex, each in one place (one
 * cache line rather than one per array). */
typedef struct triangle_state {
    uint32_t v[3];
    uint32_t slot; /* rank and index in candidates, NO_TRIANGLE or SLOT_USED */
} triangle_state;

typedef struct vertex_state {
    uint32_t first, end; /* its triangles: adjacent[first .. end), used ones leave lazily */
    uint32_t live;       /* its unused triangles (counted per corner) */
    uint8_t local;       /* its index in the meshlet, or NOT_IN_MESHLET */
} vertex_state;

typedef struct builder {
    uint32_t triangle_count;
    uint32_t max_vertices, max_triangles;
    float cone_weight, distance_scale;
    triangle_cone *cones;
    triangle_state *tris;
    vertex_state *verts;
    uint32_t vertex_count; /* those used, numbered in first-use order */
    uint32_t *globals;     /* per vertex, its number in the input */
    uint32_t *adjacent;    /* per vertex, its triangles (CSR) */
    uint8_t *used;         /* per triangle, for meshlet_seed */
    uint32_t used_count, next_unused;
    rank_list candidates[RANKS];
    uint32_t *candidate_items; /* the lists' room, RANKS * candidate_bound */
    /* Nearest-triangle search, made when first needed: runs for triangles
     * in spatial order, else seed. */
    bool spatial_order;
    meshlet_seed *seed;
    meshlet_runs *runs;
    /* The meshlet being grown and what it has added up. */
    meshlet_span current;
    float centre_sum[3], normal_sum[3];
    /* Its centre (0 while empty) and mean normal scaled to cone_weight, as
     * scoring wants them: worked out when a triangle joins, so the
     * divisions overlap the joining vertices' bookkeeping instead of
     * delaying the next step's scores. */
    float centre[3], axis[3];
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

/* A triangle's centroid and unit normal; returns twice its area. */
static float compute_cone(triangle_cone *cone, const uint32_t *tri, const float *positions) {
    const float *p0 = positions + 3 * (size_t)tri[0], *p1 = positions + 3 * (size_t)tri[1],
                *p2 = positions + 3 * (size_t)tri[2];
    float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                  e1[0] * e2[1] - e1[1] * e2[0]};
    float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    float inverse = length > 0.0f ? 1.0f / length : 0.0f;
    for (int k = 0; k < 3; k++) {
        cone->centre[k] = (p0[k] + p1[k] + p2[k]) / 3.0f;
        cone->normal[k] = n[k] * inverse;
    }
    return length;
}

/* Every triangle's corners beside its state, its vertices numbered in
 * first-use order through a table over the range [lo, lo + range) the
 * indices span: a chunk of a large mesh costs what it holds, and the
 * records of vertices used together sit together. In the same pass (one
 * read of the indices), each triangle's cone; *area2 is the sum of twice
 * their areas. False when memory runs out or an index lies outside the
 * range. */
static bool read_triangles(builder *b, const uint32_t *indices, const float *positions, uint32_t lo,
                           size_t range, double *area2) {
    uint32_t *table = malloc(range * sizeof *table);
    if (table == NULL)
        return false;
    memset(table, 0xff, range * sizeof *table);
    uint32_t count = 0;
    *area2 = 0.0;
    for (uint32_t t = 0; t < b->triangle_count; t++) {
        triangle_state *tri = &b->tris[t];
        for (int k = 0; k < 3; k++) {
            uint32_t vertex = indices[3 * (size_t)t + k];
            if ((size_t)(vertex - lo) >= range) { /* below lo wraps round */
                free(table);
                return false;
            }
            uint32_t *local = &table[vertex - lo];
            if (*local == UINT32_MAX) {
                *local = count;
                b->globals[count++] = vertex;
            }
            tri->v[k] = *local;
        }
        tri->slot = NO_TRIANGLE;
        *area2 += compute_cone(&b->cones[t], indices + 3 * (size_t)t, positions);
    }
    free(table);
    b->vertex_count = count;
    return true;
}

/* Every vertex's triangles by a counting sort: live counts them, first and
 * end bound each list. */
static void build_adjacency(builder *b) {
    memset(b->verts, 0, b->vertex_count * sizeof *b->verts);
    for (uint32_t t = 0; t < b->triangle_count; t++)
        for (int k = 0; k < 3; k++)
            b->verts[b->tris[t].v[k]].live++;
    uint32_t offset = 0;
    for (size_t v = 0; v < b->vertex_count; v++) {
        vertex_state *vertex = &b->verts[v];
        vertex->first = vertex->end = offset;
        vertex->local = NOT_IN_MESHLET;
        offset += vertex->live;
    }
    for (uint32_t t = 0; t < b->triangle_count; t++)
        for (int k = 0; k < 3; k++)
            b->adjacent[b->verts[b->tris[t].v[k]].end++] = t;
}

/* ---------------------------------------------------------------------------
 * Candidates
 * ------------------------------------------------------------------------- */

static const uint32_t *corners(const builder *b, uint32_t triangle) {
    return b->tris[triangle].v;
}

static uint32_t rank_of(const builder *b, uint32_t triangle, uint32_t extra) {
    if (extra == 0)
        return 0;
    const uint32_t *tri = corners(b, triangle);
    if (b->verts[tri[0]].live == 1 || b->verts[tri[1]].live == 1 || b->verts[tri[2]].live == 1)
        return 1;
    return extra + 1;
}

/* Most candidates a meshlet has at once: each of its vertices lists at most
 * CANDIDATES_PER_VERTEX triangles, and there are only so many triangles. */
static size_t candidate_bound(size_t max_vertices, size_t triangle_count) {
    size_t bound = max_vertices * CANDIDATES_PER_VERTEX;
    return bound < triangle_count ? bound : triangle_count;
}

static void list_append(builder *b, uint32_t rank, uint32_t triangle) {
    rank_list *list = &b->candidates[rank];
    list->items[list->count] = triangle;
    /* Scoring reads its centre and normal, a few steps from now. */
    __builtin_prefetch(&b->cones[triangle]);
    b->tris[triangle].slot = rank << SLOT_RANK_SHIFT | (uint32_t)list->count++;
}

/* Takes the candidate at `slot` out of its list (the last one moves in). */
static void list_remove(builder *b, uint32_t slot) {
    rank_list *list = &b->candidates[slot >> SLOT_RANK_SHIFT];
    uint32_t index = slot & SLOT_INDEX_MASK;
    uint32_t taken = list->items[index];
    uint32_t last = list->items[--list->count];
    list->items[index] = last;
    b->tris[last].slot = slot;
    b->tris[taken].slot = NO_TRIANGLE;
}

/* Moves a candidate to another rank's list. */
static void change_rank(builder *b, uint32_t triangle, uint32_t rank) {
    uint32_t slot = b->tris[triangle].slot;
    if (slot >> SLOT_RANK_SHIFT == rank)
        return;
    list_remove(b, slot);
    list_append(b, rank, triangle);
}

/* A triangle touching a vertex that just joined: enters the candidates or
 * has its rank brought up to date. */
static void touch(builder *b, uint32_t triangle) {
    const uint32_t *tri = corners(b, triangle);
    uint32_t extra = (b->verts[tri[0]].local == NOT_IN_MESHLET) +
                     (b->verts[tri[1]].local == NOT_IN_MESHLET) +
                     (b->verts[tri[2]].local == NOT_IN_MESHLET);
    uint32_t rank = rank_of(b, triangle, extra);
    if (b->tris[triangle].slot == NO_TRIANGLE)
        list_append(b, rank, triangle);
    else
        change_rank(b, triangle, rank);
}

static void drop_candidate(builder *b, uint32_t triangle) {
    if (b->tris[triangle].slot != NO_TRIANGLE)
        list_remove(b, b->tris[triangle].slot);
}

static void clear_candidates(builder *b) {
    for (uint32_t r = 0; r < RANKS; r++) {
        rank_list *list = &b->candidates[r];
        for (size_t i = 0; i < list->count; i++)
            b->tris[list->items[i]].slot = NO_TRIANGLE;
        list->count = 0;
    }
}

/* A candidate's score, lower is better: its distance from the meshlet's
 * centre and how far its normal turns from `axis` (the mean normal scaled
 * by the cone weight). Never negative. */
static inline float score_of(const triangle_cone *c, const float centre[3], const float axis[3],
                             float distance_scale) {
    float dx = c->centre[0] - centre[0], dy = c->centre[1] - centre[1],
          dz = c->centre[2] - centre[2];
    float cone = 1.0f - (c->normal[0] * axis[0] + c->normal[1] * axis[1] + c->normal[2] * axis[2]);
    return (1.0f + sqrtf(dx * dx + dy * dy + dz * dz) * distance_scale) *
           (cone < 1e-3f ? 1e-3f : cone);
}

/* The best candidate by rank, then by distance and normal (or, `by_live`, by
 * how many unused triangles its vertices have left). */
static uint32_t best_candidate(const builder *b, bool by_live, uint32_t *rank_out) {
    uint32_t rank = 0;
    while (rank < RANKS && b->candidates[rank].count == 0)
        rank++;
    *rank_out = rank;
    if (rank == RANKS)
        return NO_TRIANGLE;
    const uint32_t *items = b->candidates[rank].items;
    size_t count = b->candidates[rank].count;
    /* Ties go to the lower triangle number: the choice depends on the set of
     * candidates, not on where they sit in the list. */
    uint32_t best = items[0];
    if (count == 1) /* half the steps: nothing to compare */
        return best;
    if (by_live) {
        uint64_t best_live = UINT64_MAX;
        for (size_t i = 0; i < count; i++) {
            uint32_t triangle = items[i];
            const uint32_t *tri = corners(b, triangle);
            uint64_t live =
                (uint64_t)b->verts[tri[0]].live + b->verts[tri[1]].live + b->verts[tri[2]].live;
            if (live < best_live || (live == best_live && triangle < best)) {
                best_live = live;
                best = triangle;
            }
        }
        return best;
    }
    const float *centre = b->centre, *axis = b->axis;
    /* The least (score, triangle) pair as one 64-bit key: a score is never
     * negative, so its bits order as it does, and the comparison needs no
     * branch (they mispredict). */
    uint64_t best_key = UINT64_MAX;
    for (size_t i = 0; i < count; i++) {
        uint32_t triangle = items[i];
        float score = score_of(&b->cones[triangle], centre, axis, b->distance_scale);
        uint32_t bits;
        memcpy(&bits, &score, sizeof bits);
        uint64_t key = (uint64_t)bits << 32 | triangle;
        best_key = key < best_key ? key : best_key;
    }
    if ((uint32_t)(best_key >> 32) < FLOAT_INFINITY_BITS)
        return (uint32_t)best_key;
    /* No finite score (NaN or infinite positions): the rule spelled out,
     * NaN never wins and ties go to the lower triangle. */
    float best_score = INFINITY;
    for (size_t i = 0; i < count; i++) {
        uint32_t triangle = items[i];
        float score = score_of(&b->cones[triangle], centre, axis, b->distance_scale);
        if (score < best_score || (score == best_score && triangle < best)) {
            best = triangle;
            best_score = score;
        }
    }
    return best;
}

/* ---------------------------------------------------------------------------
 * Growing meshlets
 * ------------------------------------------------------------------------- */

/* The meshlet's centre and scaled axis from its sums (see builder). */
static void update_centre(builder *b) {
    float triangles = (float)b->current.triangle_count, axis_length2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        b->centre[k] = triangles > 0.0f ? b->centre_sum[k] / triangles : 0.0f;
        b->axis[k] = b->normal_sum[k];
        axis_length2 += b->axis[k] * b->axis[k];
    }
    float axis_scale = axis_length2 > 0.0f ? b->cone_weight / sqrtf(axis_length2) : 0.0f;
    for (int k = 0; k < 3; k++)
        b->axis[k] *= axis_scale;
}

static void close_meshlet(builder *b) {
    if (b->current.triangle_count == 0)
        return;
    b->meshlets[b->meshlet_count++] = b->current;
    for (uint32_t i = 0; i < b->current.vertex_count; i++)
        b->verts[b->vertices[b->current.vertex_offset + i]].local = NOT_IN_MESHLET;
    clear_candidates(b);
    b->current.vertex_offset += b->current.vertex_count;
    b->current.triangle_offset += b->current.triangle_count;
    b->current.vertex_count = 0;
    b->current.triangle_count = 0;
    memset(b->centre_sum, 0, sizeof b->centre_sum);
    memset(b->normal_sum, 0, sizeof b->normal_sum);
    update_centre(b);
}

/* Takes a used triangle out of `vertex`'s list (the list's last moves in). */
static void unlist(builder *b, uint32_t vertex, uint32_t at) {
    b->adjacent[at] = b->adjacent[--b->verts[vertex].end];
}

static void add_vertex(builder *b, uint32_t vertex) {
    b->verts[vertex].local = (uint8_t)b->current.vertex_count;
    b->vertices[b->current.vertex_offset + b->current.vertex_count++] = vertex;
    uint32_t touched = 0;
    /* Its triangles' records, all asked for before the first is read; the
     * used ones are told by the byte array, denser than the records. */
    for (uint32_t i = b->verts[vertex].first; i < b->verts[vertex].end; i++)
        __builtin_prefetch(&b->tris[b->adjacent[i]]);
    for (uint32_t i = b->verts[vertex].first;
         i < b->verts[vertex].end && touched < CANDIDATES_PER_VERTEX;) {
        uint32_t triangle = b->adjacent[i];
        if (b->used[triangle]) {
            unlist(b, vertex, i);
            continue;
        }
        touch(b, triangle);
        touched++;
        i++;
    }
}

/* The one unused triangle left on `vertex` (live[vertex] == 1). */
static uint32_t last_triangle(builder *b, uint32_t vertex) {
    for (uint32_t i = b->verts[vertex].first; i < b->verts[vertex].end;) {
        uint32_t triangle = b->adjacent[i];
        if (b->tris[triangle].slot != SLOT_USED)
            return triangle;
        unlist(b, vertex, i);
    }
    return NO_TRIANGLE;
}

/* Marks `triangle` used: off the candidates; its vertices count one less. */
static void retire(builder *b, uint32_t triangle) {
    drop_candidate(b, triangle);
    b->tris[triangle].slot = SLOT_USED;
    b->used[triangle] = 1;
    b->used_count++;
    const uint32_t *tri = corners(b, triangle);
    for (int k = 0; k < 3; k++) {
        if (--b->verts[tri[k]].live != 1)
            continue;
        /* Its last triangle now ranks as one not to leave behind. */
        uint32_t last = last_triangle(b, tri[k]);
        uint32_t slot = last == NO_TRIANGLE ? NO_TRIANGLE : b->tris[last].slot;
        if (slot != NO_TRIANGLE && slot >> SLOT_RANK_SHIFT > 1)
            change_rank(b, last, 1);
    }
}

/* Adds `triangle` to the meshlet, closing it first if it does not fit. */
static void emit(builder *b, uint32_t triangle) {
    const uint32_t *tri = corners(b, triangle);
    uint32_t extra = (b->verts[tri[0]].local == NOT_IN_MESHLET) +
                     (b->verts[tri[1]].local == NOT_IN_MESHLET) +
                     (b->verts[tri[2]].local == NOT_IN_MESHLET);
    if (b->current.vertex_count + extra > b->max_vertices ||
        b->current.triangle_count >= b->max_triangles)
        close_meshlet(b);
    retire(b, triangle);
    uint8_t *out =
        b->triangles + 3 * ((size_t)b->current.triangle_offset + b->current.triangle_count);
    for (int k = 0; k < 3; k++) {
        b->centre_sum[k] += b->cones[triangle].centre[k];
        b->normal_sum[k] += b->cones[triangle].normal[k];
    }
    b->current.triangle_count++;
    update_centre(b);
    for (int k = 0; k < 3; k++)
        if (b->verts[tri[k]].local == NOT_IN_MESHLET)
            add_vertex(b, tri[k]);
    for (int k = 0; k < 3; k++)
        out[k] = b->verts[tri[k]].local;
}

/* The unused triangle nearest the meshlet's centre (the origin for the first
 * meshlet, as meshoptimizer does); the first unused one in index order if no
 * distance compares (NaN positions). */
static uint32_t seed_triangle(builder *b) {
    size_t stride = sizeof *b->cones / sizeof(float);
    if (b->spatial_order && b->runs == NULL)
        b->runs = meshlet_runs_create(b->cones[0].centre, stride, b->triangle_count);
    else if (!b->spatial_order && b->seed == NULL)
        b->seed = meshlet_seed_create(b->cones[0].centre, stride, b->triangle_count);
    if (b->runs == NULL && b->seed == NULL)
        return NO_TRIANGLE;
    uint32_t nearest = b->runs ? meshlet_runs_nearest(b->runs, b->centre, b->used)
                               : meshlet_seed_nearest(b->seed, b->centre, b->used);
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
        emit(b, next);
    }
    close_meshlet(b);
    return true;
}

static void free_builder(builder *b) {
    free(b->cones);
    free(b->tris);
    free(b->verts);
    free(b->globals);
    free(b->adjacent);
    free(b->used);
    free(b->candidate_items);
    meshlet_seed_free(b->seed);
    meshlet_runs_free(b->runs);
}

/* `span`: the least and greatest index when the caller knows them, else
 * NULL (found here, with each index checked against vertex_count). */
static bool build(meshlet_span *meshlets, uint32_t *vertices, uint8_t *triangles,
                  size_t *meshlet_count, const uint32_t *indices, size_t index_count,
                  const float *positions, size_t vertex_count, size_t max_vertices,
                  size_t max_triangles, float cone_weight, bool spatial_order,
                  const uint32_t *span) {
    *meshlet_count = 0;
    if (index_count % 3 != 0 || index_count / 3 >= UINT32_MAX || vertex_count >= UINT32_MAX ||
        max_vertices < 3 || max_vertices > MESHLET_BUILD_MAX_VERTICES || max_triangles < 1 ||
        max_triangles > MESHLET_BUILD_MAX_TRIANGLES ||
        !(cone_weight >= 0.0f && cone_weight <= 1.0f))
        return false;
    if (index_count == 0)
        return true;
    uint32_t lo = UINT32_MAX, hi = 0;
    if (span != NULL) {
        lo = span[0];
        hi = span[1];
        if (lo > hi || hi >= vertex_count)
            return false;
    } else {
        for (size_t i = 0; i < index_count; i++) {
            if (indices[i] >= vertex_count)
                return false;
            lo = indices[i] < lo ? indices[i] : lo;
            hi = indices[i] > hi ? indices[i] : hi;
        }
    }
    size_t range = (size_t)hi - lo + 1;
    size_t most_vertices = range < index_count ? range : index_count;
    size_t triangle_count = index_count / 3;
    builder b = {.triangle_count = (uint32_t)triangle_count,
                 .max_vertices = (uint32_t)max_vertices,
                 .max_triangles = (uint32_t)max_triangles,
                 .cone_weight = cone_weight,
                 .spatial_order = spatial_order,
                 .meshlets = meshlets,
                 .vertices = vertices,
                 .triangles = triangles};
    b.cones = malloc(triangle_count * sizeof *b.cones);
    b.tris = malloc(triangle_count * sizeof *b.tris);
    b.verts = malloc(most_vertices * sizeof *b.verts);
    b.globals = malloc(most_vertices * sizeof *b.globals);
    b.adjacent = malloc(index_count * sizeof *b.adjacent);
    b.used = calloc(triangle_count, 1);
    size_t room = candidate_bound(max_vertices, triangle_count);
    b.candidate_items = malloc(RANKS * room * sizeof *b.candidate_items);
    for (uint32_t r = 0; b.candidate_items && r < RANKS; r++)
        b.candidates[r].items = b.candidate_items + r * room;
    double area2;
    bool ok = b.cones && b.tris && b.verts && b.globals && b.adjacent && b.used &&
              b.candidate_items && read_triangles(&b, indices, positions, lo, range, &area2);
    if (ok) {
        build_adjacency(&b);
        /* meshoptimizer's scale: a meshlet as a square patch of max_triangles
         * triangles of the mean area has about this radius. */
        double mean_area = area2 / (double)triangle_count * 0.5;
        double radius = sqrt(mean_area * (double)max_triangles) * 0.5;
        b.distance_scale =
            radius > 0.0 && isfinite(radius) ? (float)((1.0 - cone_weight) / radius) : 0.0f;
        ok = grow_meshlets(&b);
    }
    /* The meshlets' vertex lists back in the input's numbers. */
    for (size_t i = 0; ok && i < b.current.vertex_offset; i++)
        vertices[i] = b.globals[vertices[i]];
    *meshlet_count = b.meshlet_count;
    free_builder(&b);
    return ok;
}

bool meshlet_build(meshlet_span *meshlets, uint32_t *vertices, uint8_t *triangles,
                   size_t *meshlet_count, const uint32_t *indices, size_t index_count,
                   const float *positions, size_t vertex_count, size_t max_vertices,
                   size_t max_triangles, float cone_weight) {
    return build(meshlets, vertices, triangles, meshlet_count, indices, index_count, positions,
                 vertex_count, max_vertices, max_triangles, cone_weight, false, NULL);
}

bool meshlet_build_sorted(meshlet_span *meshlets, uint32_t *vertices, uint8_t *triangles,
                          size_t *meshlet_count, const uint32_t *indices, size_t index_count,
                          const float *positions, size_t vertex_count, size_t max_vertices,
                          size_t max_triangles, float cone_weight) {
    return build(meshlets, vertices, triangles, meshlet_count, indices, index_count, positions,
                 vertex_count, max_vertices, max_triangles, cone_weight, true, NULL);
}

bool meshlet_build_sorted_in(meshlet_span *meshlets, uint32_t *vertices, uint8_t *triangles,
                             size_t *meshlet_count, const uint32_t *indices, size_t index_count,
                             const float *positions, size_t vertex_count, size_t max_vertices,
                             size_t max_triangles, float cone_weight, uint32_t lo, uint32_t hi) {
    uint32_t span[2] = {lo, hi};
    return build(meshlets, vertices, triangles, meshlet_count, indices, index_count, positions,
                 vertex_count, max_vertices, max_triangles, cone_weight, true, span);
}
