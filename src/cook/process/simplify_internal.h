/*
 * simplify_internal.h — the state kiln's simplifier (simplify.c) shares with
 * its topology half (simplify_topology.c), its quadrics (simplify_quadric.c)
 * and its walk's arithmetic (simplify_fan.c). Not for other files: they call
 * simplify_triangles (process.h).
 */
#ifndef KILN_COOK_PROCESS_SIMPLIFY_INTERNAL_H
#define KILN_COOK_PROCESS_SIMPLIFY_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Three-float vector arithmetic of the simplifier's files, in one place: the
 * SSE2 walk (simplify_fan.c) must do the scalar code's operations in its
 * order to give the same bits. */
static inline void sub3(const float *a, const float *b, float *out) {
    for (int k = 0; k < 3; k++)
        out[k] = a[k] - b[k];
}

static inline void cross3(const float *a, const float *b, float *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline float dot3(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Squared distance from p to the segment a-b (the border chord cost, and
 * the scalar point-triangle distance of simplify_fan.c). */
static inline float segment_distance2(const float *p, const float *a, const float *b) {
    float ab[3], ap[3];
    sub3(b, a, ab);
    sub3(p, a, ap);
    float length2 = dot3(ab, ab);
    float t = length2 > 0.0f ? dot3(ap, ab) / length2 : 0.0f;
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    float d[3];
    for (int k = 0; k < 3; k++)
        d[k] = ap[k] - t * ab[k];
    return dot3(d, d);
}

/* What a position may do (meshoptimizer's classes): a manifold position
 * collapses into any neighbour, a border or seam one only along its loop into
 * another of its kind (a seam's two wedges together), a locked one never. */
typedef enum simplify_kind {
    SIMPLIFY_MANIFOLD,
    SIMPLIFY_BORDER,
    SIMPLIFY_SEAM,
    SIMPLIFY_LOCKED,
} simplify_kind;

/* A triangle around a vertex v: its other two corners in winding order
 * (v, next, prev), so that walking v's triangles reads no index buffer. */
typedef struct simplify_corner {
    uint32_t next, prev;
} simplify_corner;

typedef struct simplify_state {
    size_t vertex_count;
    uint32_t *remap; /* per vertex: the first vertex at its position */
    uint32_t *wedge; /* per vertex: the next vertex at its position (a ring) */
    uint32_t *loop;  /* per vertex: the next vertex along its unpaired edge, or UINT32_MAX */
    uint8_t *kind;   /* per vertex: simplify_kind, the same for every wedge */
    /* The triangles around each vertex: adjacency[adjacency_first[v] ..
     * adjacency_first[v + 1]), rebuilt every pass. */
    uint32_t *adjacency_first;  /* vertex_count + 1 */
    simplify_corner *adjacency; /* one per index */
} simplify_state;

/* remap and wedge from positions bit for bit, over the vertices `indices`
 * use (others stay alone). False when out of memory. */
bool simplify_weld(simplify_state *s, const uint32_t *indices, size_t index_count,
                   const float *positions);
/* The triangles around each vertex of `indices`. */
void simplify_adjacency_build(simplify_state *s, const uint32_t *indices, size_t index_count);
/* The same, with adjacency_first[v] already holding how many of `indices`
 * are v (and adjacency_first[vertex_count] anything): the counts a sweep
 * that writes `indices` can take on its way. */
void simplify_adjacency_fill(simplify_state *s, const uint32_t *indices, size_t index_count);
/* kind and loop from the adjacency (built for `indices`), and per index
 * whether the edge from it to the next corner is unpaired (open[i]);
 * `lock_border` makes borders locked. Out of memory locks everything. */
void simplify_classify(simplify_state *s, const uint32_t *indices, size_t index_count,
                       bool lock_border, uint8_t *open);
/* loop after a pass's collapses (collapse: per vertex, where it went), for
 * the vertices `looped` lists in increasing order: those classification gave
 * a loop (no vertex gains one later; a grid's chunk has a few hundred of its
 * tens of thousands). */
void simplify_loops_remap(simplify_state *s, const uint32_t *collapse, const uint32_t *looped,
                          size_t looped_count);

/* Four triangles b[l] c[l] around a position `from` that moves to `to`
 * (simplify_fan.c): per triangle after the move, `from`'s distance to it
 * (squared), its height over the triangle's plane times the doubled area, and
 * that doubled area squared (so the plane's squared distance is
 * height^2 / area2). */
typedef struct simplify_fan {
    float distance2[4], height[4], area2[4];
} simplify_fan;
/* Which of the four triangles turn over, as a mask (bit l: triangle l's
 * normal turns by a right angle or more, meshoptimizer's rule; one
 * degenerate before never counts); when none does, *out is filled. */
int simplify_fan_x4(const float *from, const float *to, const float *const b[4],
                    const float *const c[4], simplify_fan *out);

/* For tests: the session ranks every edge every pass, not only those around
 * the last pass's collapses (the result must be the same). */
struct simplify_session;
void simplify_session_rank_all(struct simplify_session *session);
/* For tests: whether the session's adjacency is that of its current level
 * (a fresh simplify_adjacency_build), or, after a pass, holds its count of
 * triangles per vertex for simplify_adjacency_fill. */
bool simplify_session_adjacency_current(const struct simplify_session *session);
/* For tests: the passes the session has made so far. */
uint32_t simplify_session_passes(const struct simplify_session *session);
/* For tests: whether no loop runs through a manifold position (a manifold
 * vertex has no loop and no loop leads to one), which lets the ranking skip
 * the chord cost on manifold edges. */
bool simplify_session_loops_avoid_manifold(const struct simplify_session *session);

/* Corners, triangles' corners or candidates ahead that a loop asks for;
 * a multiple of 3, as pick_candidates asks a whole triangle ahead. */
#define PREFETCH_AHEAD 12

/* A symmetric 4x4 quadric (upper triangle of A, b, c) and its total weight.
 * In double: a position's quadric sums the planes of every triangle it
 * absorbed, and on a finely made surface the errors that order the
 * collapses (1e-10 of the unit extent, squared) are far below single
 * precision's rounding of those sums, which then chose collapses at random
 * (twice meshoptimizer's maximum distance on a 1M-triangle grid). */
typedef struct quadric {
    double a00, a01, a02, a11, a12, a22;
    double b0, b1, b2, c;
    double weight;
} quadric;

static inline void quadric_add(quadric *q, const quadric *r) {
    double *a = &q->a00;
    const double *b = &r->a00;
    for (size_t k = 0; k < sizeof *q / sizeof(double); k++)
        a[k] += b[k];
}

/* The weighted mean squared distance of p to q's planes. */
static inline float quadric_error(const quadric *q, const float *p) {
    double x = p[0], y = p[1], z = p[2];
    double r = q->a00 * x * x + q->a11 * y * y + q->a22 * z * z +
               2.0 * (q->a01 * x * y + q->a02 * x * z + q->a12 * y * z) +
               2.0 * (q->b0 * x + q->b1 * y + q->b2 * z) + q->c;
    return q->weight > 0.0 ? (float)(fabs(r) / q->weight) : 0.0f;
}

/* quadric_error(q0, p0) and quadric_error(q1, p1) at once: a manifold edge
 * ranks both of its directions. With SSE2 the two go in the lanes of double
 * registers, each lane the scalar's operations in its order (SSE2 has no
 * fused multiply-add), so the bits are the scalar's. */
static inline void quadric_error_pair(const quadric *q0, const float *p0, const quadric *q1,
                                      const float *p1, float out[2]) {
#if defined(__SSE2__)
#define QUADRIC_LANES(field) _mm_loadh_pd(_mm_load_sd(&q0->field), &q1->field)
    __m128d x = _mm_set_pd(p1[0], p0[0]), y = _mm_set_pd(p1[1], p0[1]),
            z = _mm_set_pd(p1[2], p0[2]), two = _mm_set1_pd(2.0);
    __m128d r = _mm_add_pd(_mm_mul_pd(_mm_mul_pd(QUADRIC_LANES(a00), x), x),
                           _mm_mul_pd(_mm_mul_pd(QUADRIC_LANES(a11), y), y));
    r = _mm_add_pd(r, _mm_mul_pd(_mm_mul_pd(QUADRIC_LANES(a22), z), z));
    __m128d cross = _mm_add_pd(_mm_mul_pd(_mm_mul_pd(QUADRIC_LANES(a01), x), y),
                               _mm_mul_pd(_mm_mul_pd(QUADRIC_LANES(a02), x), z));
    cross = _mm_add_pd(cross, _mm_mul_pd(_mm_mul_pd(QUADRIC_LANES(a12), y), z));
    r = _mm_add_pd(r, _mm_mul_pd(two, cross));
    __m128d linear = _mm_add_pd(_mm_mul_pd(QUADRIC_LANES(b0), x), _mm_mul_pd(QUADRIC_LANES(b1), y));
    linear = _mm_add_pd(linear, _mm_mul_pd(QUADRIC_LANES(b2), z));
    r = _mm_add_pd(r, _mm_mul_pd(two, linear));
    r = _mm_add_pd(r, QUADRIC_LANES(c));
    __m128d weight = QUADRIC_LANES(weight);
#undef QUADRIC_LANES
    __m128d magnitude = _mm_andnot_pd(_mm_set1_pd(-0.0), r); /* fabs */
    __m128d error =
        _mm_and_pd(_mm_cmpgt_pd(weight, _mm_setzero_pd()), _mm_div_pd(magnitude, weight));
    __m128 narrow = _mm_cvtpd_ps(error);
    out[0] = _mm_cvtss_f32(narrow);
    out[1] = _mm_cvtss_f32(_mm_shuffle_ps(narrow, narrow, 1));
#else
    out[0] = quadric_error(q0, p0);
    out[1] = quadric_error(q1, p1);
#endif
}

/* Positions minus the lower corner, over the largest extent (as
 * meshopt_simplifyScale measures it, the same value for finite positions):
 * errors become relative. Returns that extent. */
float simplify_scale_positions(float *out, const float *positions, size_t vertex_count);

/* A later level's quadrics at manifold positions and at seam positions on
 * short runs between locked ends: the planes of the current level's
 * triangles (and of its seam edges) alone, plus each position's error so far
 * (its distance to `surface`, its quadric since level 0, at its position) in
 * every move. Border positions and longer seams keep theirs
 * (simplify_quadric.c). `fresh`: room for a byte per vertex; on return it is
 * nonzero where the vertex's quadric was made afresh. */
void simplify_refresh_quadrics(quadric *quadrics, const quadric *surface, const float *positions,
                               const simplify_state *s, const uint32_t *indices, size_t index_count,
                               uint8_t *fresh);

/* Each position's quadric (at its first vertex, s->remap) from its triangles'
 * face planes and its unpaired edges' planes (simplify_quadric.c). */
void simplify_fill_quadrics(quadric *quadrics, const float *positions, const simplify_state *s,
                            const uint32_t *indices, size_t index_count, const uint8_t *open,
                            bool prefetch);

/* ---------------------------------------------------------------------------
 * The simplifier's working state (simplify.c), and the ranking of its
 * passes' edges (simplify_rank.c)
 * ------------------------------------------------------------------------- */

#define SORT_BITS 11 /* the error's exponent and top mantissa bits */

typedef struct candidate {
    uint32_t from, to; /* `from` collapses into `to` */
    float error;
} candidate;

/* A corner's ranked edge (simplifier.ranked): the error's bits, with
 * RANK_BACKWARD set when the edge collapses from its end into its corner;
 * RANK_NONE without a collapse, RANK_STALE when not ranked since its ends
 * changed (both NaNs, which no error is). Four bytes, not a candidate's
 * twelve: the ends are the corner's and the next's. */
#define RANK_BACKWARD 0x80000000u
#define RANK_NONE UINT32_MAX
#define RANK_STALE (UINT32_MAX - 1)

/* Everything one call allocates. */
typedef struct simplifier {
    simplify_state topo;
    float *positions;  /* scaled to the unit extent */
    quadric *quadrics; /* per position (at its first vertex): what ranks its moves */
    /* Per position, its quadric since level 0 (made when a session goes on
     * past its first level, whose manifold quadrics are then refreshed). */
    quadric *surface;
    uint32_t *collapse; /* per vertex, this pass: where it goes */
    uint32_t *touched;  /* per position: the last pass that moved it or into it */
    uint32_t *changed;  /* per vertex: the last pass that touched its position */
    /* Per vertex: the collapse from it a pass put off because its removed
     * position's distance to what it leaves passed the pass's bound (into
     * deferred_to[v], UINT32_MAX for none), ranked at that distance
     * (deferred_gap[v]) until the position changes. */
    uint32_t *deferred_to;
    float *deferred_gap;
    /* Per index: the edge from its corner to the next, as last ranked (its
     * cheaper direction's error and RANK_BACKWARD, or RANK_NONE, or
     * RANK_STALE). An edge's rank only
     * changes when a collapse touches one of its ends (moves it, or adds to
     * its quadric), so a pass ranks again only the edges around the last
     * pass's collapses and copies the others. */
    uint32_t *ranked;
    uint32_t *looped; /* the vertices with a loop, in increasing order */
    size_t looped_count;
    bool prefetch;         /* the quadrics outgrow the caches (PREFETCH_MIN_BYTES) */
    candidate *candidates; /* this pass's, in index order */
    candidate *sorted;     /* the same, cheapest first */
    /* Per sort key (sort_key): how many candidates have it, counted as they
     * are picked. */
    uint32_t histogram[1u << SORT_BITS];
} simplifier;

/* Every edge that may collapse, once, in its cheaper allowed direction, into
 * z->candidates: stale edges ranked again, the others as they were;
 * z->histogram counts their sort keys. Returns how many. */
size_t simplify_pick_candidates(simplifier *z, const uint32_t *indices, size_t index_count);
/* z->candidates (count of them) by error, cheapest first, into z->sorted. */
void simplify_sort_candidates(simplifier *z, size_t count);
/* After a refresh of the quadrics: the edges with an end made afresh
 * (fresh[v] nonzero) marked to be ranked again. */
void simplify_mark_refreshed_stale(simplifier *z, const uint32_t *indices, size_t index_count,
                                   const uint8_t *fresh);

#endif
