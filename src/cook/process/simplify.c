/* simplify.c — kiln's own triangle simplifier: quadric error edge collapse.
 *
 * Each position carries the quadric of the planes of its triangles (Garland &
 * Heckbert 1997, "Surface Simplification Using Quadric Error Metrics",
 * section 5, weighted by the square root of the area as meshoptimizer does, so
 * that a curved area of small triangles is not outweighed by its large flat
 * neighbours) and, along a border or seam, of planes through each unpaired
 * edge perpendicular to its triangle (their section 6.2, "preserving
 * boundaries", weighted by the edge's length and up so that borders hold). An edge
 * collapses one end into the other ("half-edge" collapse, the subset
 * placement of their section 4): no new vertex is made, so every vertex keeps
 * its attributes and a level is an index buffer into the same vertices. What
 * may collapse follows simplify_topology.c, so attribute seams and (when asked)
 * borders stay where they are. A collapse along a border costs at least the
 * squared distance of its removed end to the chord that replaces its two
 * edges: there the quadric's weighted mean can say far less. Every collapse
 * also costs at least its removed position's squared distance to the plane
 * of the nearest triangle it leaves (checked as it is taken).
 *
 * The work goes in passes rather than one collapse at a time: each pass ranks
 * every collapsible edge by its error, then takes the cheapest ones whose
 * positions no collapse of the pass touched yet (a maximal independent set, as
 * meshoptimizer does), rejecting those that would turn a triangle over, until
 * the pass's share of triangles is gone; then the index buffer is rewritten
 * and the next pass starts. No heap, no per-collapse update: flat arrays
 * per pass, which is what makes it fast, and sequential, so the result is
 * the same bytes on any machine and -j. A pass ranks again only the edges
 * whose ends the pass before touched; the others keep their rank
 * (simplify_rank.c).
 *
 * Errors are in meshoptimizer's unit: positions scaled so the mesh's largest
 * extent (over every vertex given) is 1; a quadric's error is its weighted
 * mean squared distance, and the reported error is the square root of the
 * largest error a collapse had. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"
#include "cook/process/simplify_internal.h"

#define PASS_ERROR_SLACK 1.5f /* a pass takes edges up to 1.5x its goal's error */
/* Quadrics past this many bytes outgrow the caches: only then do the loops
 * that read them out of order ask for them early (below it the loads are
 * cheap and asking costs instructions). DamagedHelmet's 1.3 MB ran 3-5 %
 * faster without (1 MB of L2 per core), the bunny's 3 MB 20 % slower. */
#define PREFETCH_MIN_BYTES (2u << 20)

static void simplifier_free(simplifier *z) {
    free(z->topo.remap);
    free(z->topo.wedge);
    free(z->topo.loop);
    free(z->topo.kind);
    free(z->topo.adjacency_first);
    free(z->topo.adjacency);
    free(z->positions);
    free(z->quadrics);
    free(z->surface);
    free(z->collapse);
    free(z->touched);
    free(z->changed);
    free(z->deferred_to);
    free(z->deferred_gap);
    free(z->ranked);
    free(z->looped);
    free(z->candidates);
    free(z->sorted);
}

static bool simplifier_alloc(simplifier *z, size_t vertex_count, size_t index_count) {
    memset(z, 0, sizeof *z);
    size_t n = vertex_count ? vertex_count : 1, m = index_count ? index_count : 1;
    z->topo.vertex_count = vertex_count;
    z->topo.remap = malloc(n * sizeof *z->topo.remap);
    z->topo.wedge = malloc(n * sizeof *z->topo.wedge);
    z->topo.loop = malloc(n * sizeof *z->topo.loop);
    z->topo.kind = malloc(n);
    z->topo.adjacency_first = malloc((n + 1) * sizeof *z->topo.adjacency_first);
    z->topo.adjacency = malloc(m * sizeof *z->topo.adjacency);
    z->positions = malloc(3 * n * sizeof *z->positions);
    z->quadrics = calloc(n, sizeof *z->quadrics);
    z->collapse = malloc(n * sizeof *z->collapse);
    z->touched = calloc(n, sizeof *z->touched);
    z->changed = calloc(n, sizeof *z->changed);
    z->deferred_to = malloc(n * sizeof *z->deferred_to);
    z->deferred_gap = malloc(n * sizeof *z->deferred_gap);
    z->ranked = malloc(m * sizeof *z->ranked);
    z->candidates = malloc(m * sizeof *z->candidates);
    z->sorted = malloc(m * sizeof *z->sorted);
    if (z->topo.remap && z->topo.wedge && z->topo.loop && z->topo.kind && z->topo.adjacency_first &&
        z->topo.adjacency && z->positions && z->quadrics && z->collapse && z->touched &&
        z->changed && z->deferred_to && z->deferred_gap && z->ranked && z->candidates &&
        z->sorted) {
        memset(z->deferred_to, 0xff, n * sizeof *z->deferred_to);
        return true;
    }
    simplifier_free(z);
    return false;
}

/* Every edge ranked again (a new level's topology or quadrics). */
static void mark_all_stale(simplifier *z, size_t index_count) {
    for (size_t i = 0; i < index_count; i++)
        z->ranked[i] = RANK_STALE;
}

/* Every vertex at v's position, as changed in `pass` (its edges are ranked
 * again, a collapse put off from it afresh). */
static void mark_changed(simplifier *z, uint32_t v, uint32_t pass) {
    uint32_t w = v;
    do {
        z->changed[w] = pass;
        z->deferred_to[w] = UINT32_MAX;
        w = z->topo.wedge[w];
    } while (w != v);
}

/* Whether moving `from` (every wedge of it) onto `to` turns over a triangle
 * that survives the collapse; corners already moved this pass count where
 * they went. Else *gap is the squared distance from `from`'s position to the
 * plane of the nearest triangle it leaves around `to` (0 when none survives). */
static bool collapse_flips(const simplifier *z, uint32_t from, uint32_t to, float *gap) {
    const simplify_state *s = &z->topo;
    const float *target = z->positions + 3 * (size_t)to;
    uint32_t to_position = s->remap[to];
    /* The nearest triangle's height and area, as simplify_fan gives them:
     * its plane's distance is divided out once, at the end. */
    float nearest = INFINITY, nearest_height = 0.0f, nearest_area2 = 0.0f;
    uint32_t w = from;
    do {
        const float *origin = z->positions + 3 * (size_t)w;
        /* The surviving triangles four at a time, in the walk's order. */
        const float *corner_b[4], *corner_c[4];
        unsigned held = 0;
        uint32_t i = s->adjacency_first[w], end = s->adjacency_first[w + 1];
        for (;;) {
            bool walked = i == end;
            if (!walked) {
                uint32_t b = z->collapse[s->adjacency[i].next];
                uint32_t c = z->collapse[s->adjacency[i].prev];
                i++;
                if (s->remap[b] == to_position || s->remap[c] == to_position)
                    continue; /* collapses with the edge */
                corner_b[held] = z->positions + 3 * (size_t)b;
                corner_c[held] = z->positions + 3 * (size_t)c;
                held++;
                if (held < 4)
                    continue;
            } else if (held == 0) {
                break;
            }
            for (unsigned l = held; l < 4; l++) { /* spare lanes: a copy of the first */
                corner_b[l] = corner_b[0];
                corner_c[l] = corner_c[0];
            }
            simplify_fan fan;
            if (simplify_fan_x4(origin, target, corner_b, corner_c, &fan) != 0)
                return true;
            for (unsigned l = 0; l < held; l++)
                if (fan.distance2[l] < nearest) {
                    nearest = fan.distance2[l];
                    nearest_height = fan.height[l];
                    nearest_area2 = fan.area2[l];
                }
            held = 0;
            if (walked)
                break;
        }
        w = s->wedge[w];
    } while (w != from && s->kind[from] == SIMPLIFY_SEAM);
    /* Across the nearest triangle's plane only: within the surface, a
     * neighbour moved this pass may leave the old position outside the fan
     * with the surface still on it. */
    if (nearest_area2 > 0.0f)
        *gap = nearest_height * nearest_height / nearest_area2;
    else
        *gap = nearest < INFINITY ? nearest : 0.0f;
    return false;
}

/* The positions before and after `from` (on a border or seam) along its
 * loop stay where they are this pass, and their edges are ranked again next
 * pass (the chord their collapse would leave has changed). Two collapses of one pass are each
 * ranked as if the other's ends did not move; along a curved border, removing
 * two neighbouring positions at once replaces the curve by one long chord,
 * farther from it than either collapse's error said (DamagedHelmet's visor
 * rim, a strip between a border and a seam: 1.3x meshoptimizer's maximum
 * distance at its first level). */
static void touch_loop_neighbours(simplifier *z, uint32_t from, uint32_t pass) {
    const simplify_state *s = &z->topo;
    uint32_t w = from;
    do {
        for (uint32_t i = s->adjacency_first[w]; i < s->adjacency_first[w + 1]; i++) {
            uint32_t around[2] = {s->adjacency[i].next, s->adjacency[i].prev};
            for (int k = 0; k < 2; k++)
                if (s->loop[around[k]] == w || s->loop[w] == around[k]) {
                    z->touched[s->remap[around[k]]] = pass;
                    mark_changed(z, around[k], pass); /* its loop neighbour changes */
                }
        }
        w = s->wedge[w];
    } while (w != from);
}

/* What the collapse of a later candidate will read first, asked for early:
 * candidates go in error order, so their vertices are anywhere in memory. */
static inline void prefetch_collapse(const simplifier *z, size_t i, size_t candidate_count) {
    const simplify_state *s = &z->topo;
    if (z->prefetch && i + PREFETCH_AHEAD < candidate_count) {
        uint32_t from = z->sorted[i + PREFETCH_AHEAD].from;
        __builtin_prefetch(&s->adjacency[s->adjacency_first[from]]);
    }
}

/* One pass's collapses into z->collapse; returns how many.
 *
 * Each collapse blocks a few others this pass, so a pass goes on past the
 * goal's own error (the error of the edge the goal would end on, were every
 * other one taken) only by PASS_ERROR_SLACK: further, it would spend the
 * error on edges a later pass could do more cheaply. Edges that would turn a
 * triangle over do not count towards that goal: a pass skipping many of them
 * moves its goal on instead of stalling on the same cheap edges pass after
 * pass. */
static size_t perform_collapses(simplifier *z, size_t candidate_count, uint32_t pass,
                                size_t triangle_goal, float error_limit, float *max_error) {
    const simplify_state *s = &z->topo;
    size_t collapses = 0, triangles = 0, goal_edge = triangle_goal / 2;
    for (size_t i = 0; i < candidate_count && triangles < triangle_goal; i++) {
        prefetch_collapse(z, i, candidate_count);
        const candidate *c = &z->sorted[i];
        if (c->error > error_limit)
            break;
        float pass_limit =
            goal_edge < candidate_count ? PASS_ERROR_SLACK * z->sorted[goal_edge].error : INFINITY;
        /* A pass that took few (about one in six blocks the rest) goes on. */
        if (c->error > pass_limit && triangles > triangle_goal / 6)
            break;
        uint32_t r0 = s->remap[c->from], r1 = s->remap[c->to];
        if (z->touched[r0] == pass || z->touched[r1] == pass)
            continue;
        float gap;
        if (collapse_flips(z, c->from, c->to, &gap)) {
            goal_edge++;
            continue;
        }
        /* The removed position's own distance to what is left around it:
         * the quadric's weighted mean of its planes can say far less (Fox's
         * flank: a collapse of error 1.07e-2 left its position 1.49e-2 from
         * the level). Beyond the pass's bound it waits for a later pass,
         * ranked there at that distance (its edges go stale): ranked at its
         * quadric alone it came first again and was put off pass after pass,
         * and where every collapse is put off so (a sphere) the passes took
         * a sixth of their goal each. */
        float error = gap > c->error ? gap : c->error;
        if (error > error_limit || (error > pass_limit && triangles > triangle_goal / 6)) {
            mark_changed(z, c->from, pass);
            z->deferred_to[c->from] = c->to;
            z->deferred_gap[c->from] = gap;
            continue;
        }
        quadric_add(&z->quadrics[r1], &z->quadrics[r0]);
        if (z->surface != NULL)
            quadric_add(&z->surface[r1], &z->surface[r0]);
        z->collapse[c->from] = c->to;
        if (s->kind[c->from] == SIMPLIFY_SEAM)
            z->collapse[s->wedge[c->from]] = s->wedge[c->to];
        z->touched[r0] = z->touched[r1] = pass;
        if (s->kind[c->from] != SIMPLIFY_MANIFOLD)
            touch_loop_neighbours(z, c->from, pass);
        mark_changed(z, c->from, pass);
        mark_changed(z, c->to, pass);
        *max_error = error > *max_error ? error : *max_error;
        triangles += s->kind[c->from] == SIMPLIFY_BORDER ? 1 : 2;
        collapses++;
    }
    return collapses;
}

/* The indices through z->collapse, without the triangles that vanished; the
 * ranked edges move with their triangles, stale where `pass` changed an end.
 * On its way it counts each vertex's triangles into adjacency_first, for
 * simplify_adjacency_fill (one sweep over the indices less per pass). */
static size_t apply_collapses(simplifier *z, uint32_t *indices, size_t index_count, uint32_t pass) {
    uint32_t *triangles_around = z->topo.adjacency_first;
    memset(triangles_around, 0, (z->topo.vertex_count + 1) * sizeof *triangles_around);
    size_t kept = 0;
    for (size_t t = 0; t < index_count; t += 3) {
        uint32_t a = z->collapse[indices[t]], b = z->collapse[indices[t + 1]],
                 c = z->collapse[indices[t + 2]];
        if (a == b || b == c || a == c)
            continue;
        bool changed[3];
        for (int k = 0; k < 3; k++)
            changed[k] = z->changed[indices[t + (size_t)k]] == pass;
        for (int k = 0; k < 3; k++) {
            z->ranked[kept + (size_t)k] = z->ranked[t + (size_t)k];
            if (changed[k] || changed[(k + 1) % 3])
                z->ranked[kept + (size_t)k] = RANK_STALE;
        }
        indices[kept] = a;
        indices[kept + 1] = b;
        indices[kept + 2] = c;
        triangles_around[a]++;
        triangles_around[b]++;
        triangles_around[c]++;
        kept += 3;
    }
    return kept;
}

/* One call's state kept between levels: continuing from a level keeps its
 * quadrics at border positions and along long seams, so their errors count
 * from the original surface; see refresh_quadrics for the others. */
struct simplify_session {
    simplifier z;
    uint32_t *indices; /* the current level */
    size_t count;
    uint32_t pass; /* passes so far (touched stamps) */
    /* z.topo's adjacency is of `indices` (else only its counts are) */
    bool adjacency_current;
    float max_error; /* the largest collapse error so far (squared) */
    float extent;    /* the positions' largest extent (the unit of errors) */
    bool rank_all;   /* every edge ranked every pass (tests) */
};

void simplify_session_rank_all(simplify_session *session) {
    session->rank_all = true;
}

bool simplify_session_adjacency_current(const simplify_session *session) {
    const simplify_state *s = &session->z.topo;
    size_t n = s->vertex_count, count = session->count;
    simplify_state fresh = *s;
    fresh.adjacency_first = malloc((n + 1) * sizeof *fresh.adjacency_first);
    fresh.adjacency = malloc((count ? count : 1) * sizeof *fresh.adjacency);
    bool same = fresh.adjacency_first != NULL && fresh.adjacency != NULL;
    if (same && session->adjacency_current) {
        simplify_adjacency_build(&fresh, session->indices, count);
        same = memcmp(fresh.adjacency_first, s->adjacency_first, (n + 1) * sizeof(uint32_t)) == 0 &&
               memcmp(fresh.adjacency, s->adjacency, count * sizeof *fresh.adjacency) == 0;
    } else if (same) { /* only counted so far */
        memset(fresh.adjacency_first, 0, (n + 1) * sizeof *fresh.adjacency_first);
        for (size_t i = 0; i < count; i++)
            fresh.adjacency_first[session->indices[i]]++;
        same = memcmp(fresh.adjacency_first, s->adjacency_first, n * sizeof(uint32_t)) == 0;
    }
    free(fresh.adjacency_first);
    free(fresh.adjacency);
    return same;
}

uint32_t simplify_session_passes(const simplify_session *session) {
    return session->pass;
}

bool simplify_session_loops_avoid_manifold(const simplify_session *session) {
    const simplify_state *s = &session->z.topo;
    for (size_t v = 0; v < s->vertex_count; v++) {
        uint32_t next = s->loop[v];
        if (next == UINT32_MAX)
            continue;
        if (s->kind[v] == SIMPLIFY_MANIFOLD || s->kind[next] == SIMPLIFY_MANIFOLD)
            return false;
    }
    return true;
}

static void run_passes(simplify_session *session, size_t target, float error_limit) {
    simplifier *z = &session->z;
    uint32_t *indices = session->indices;
    while (session->count > target) {
        uint32_t pass = ++session->pass;
        size_t count = session->count;
        if (!session->adjacency_current) /* counted by apply_collapses */
            simplify_adjacency_fill(&z->topo, indices, count);
        session->adjacency_current = true;
        if (session->rank_all)
            mark_all_stale(z, count);
        size_t candidate_count = simplify_pick_candidates(z, indices, count);
        if (candidate_count == 0)
            break;
        simplify_sort_candidates(z, candidate_count);
        size_t triangle_goal = (count - target) / 3;
        for (size_t v = 0; v < z->topo.vertex_count; v++)
            z->collapse[v] = (uint32_t)v;
        size_t done = perform_collapses(z, candidate_count, pass, triangle_goal, error_limit,
                                        &session->max_error);
        if (done == 0)
            break;
        session->count = apply_collapses(z, indices, count, pass);
        session->adjacency_current = false;
        simplify_loops_remap(&z->topo, z->collapse, z->looped, z->looped_count);
    }
}

/* z->looped from the classification's loops. False when out of memory. */
static bool list_looped(simplifier *z) {
    const simplify_state *s = &z->topo;
    size_t count = 0;
    for (size_t v = 0; v < s->vertex_count; v++)
        count += s->loop[v] != UINT32_MAX;
    z->looped = malloc((count ? count : 1) * sizeof *z->looped);
    if (z->looped == NULL)
        return false;
    for (size_t v = 0; v < s->vertex_count; v++)
        if (s->loop[v] != UINT32_MAX)
            z->looped[z->looped_count++] = (uint32_t)v;
    return true;
}

/* Keeps, in place, the triangles of `indices` whose corners lie at three
 * positions (remap: each vertex's position); returns how many indices. The
 * others have no area: two corners on one vertex (the cook drops those
 * before its LOD step, a welded fallback makes them) or on two vertices at one
 * position with other attributes, a sliver along a seam. Classified with the
 * rest, such a triangle (a, a', b) adds the open edges a -> a' and a' -> b,
 * which lock a's and b's positions for the whole session, levels after the
 * first included, where meshoptimizer classifies each level afresh (pirate.obj
 * with such a sliver after every tenth face: its second level's mean distance
 * was 1.030x meshoptimizer's over 16 input orders, 0.95x without slivers). */
static size_t keep_three_positions(uint32_t *indices, size_t index_count, const uint32_t *remap) {
    size_t kept = 0;
    for (size_t t = 0; t + 2 < index_count; t += 3) {
        uint32_t a = indices[t], b = indices[t + 1], c = indices[t + 2];
        uint32_t pa = remap[a], pb = remap[b], pc = remap[c];
        if (pa == pb || pb == pc || pa == pc)
            continue;
        indices[kept] = a;
        indices[kept + 1] = b;
        indices[kept + 2] = c;
        kept += 3;
    }
    return kept;
}

simplify_session *simplify_begin(const uint32_t *indices, size_t index_count,
                                 const float *positions, size_t vertex_count, bool lock_border) {
    if (!meshopt_triangles_valid(indices, index_count, vertex_count) || vertex_count >= UINT32_MAX)
        return NULL;
    simplify_session *session = calloc(1, sizeof *session);
    if (session == NULL)
        return NULL;
    session->indices = malloc((index_count ? index_count : 1) * sizeof *session->indices);
    if (session->indices == NULL || !simplifier_alloc(&session->z, vertex_count, index_count)) {
        free(session->indices);
        free(session);
        return NULL;
    }
    simplifier *z = &session->z;
    memcpy(session->indices, indices, index_count * sizeof *indices);
    bool welded = simplify_weld(&z->topo, session->indices, index_count, positions);
    size_t kept = welded ? keep_three_positions(session->indices, index_count, z->topo.remap) : 0;
    /* Welded again without them: a vertex only they drew leaves its position's ring. */
    if (!welded ||
        (kept != index_count && !simplify_weld(&z->topo, session->indices, kept, positions))) {
        simplify_end(session);
        return NULL;
    }
    index_count = kept;
    session->count = index_count;
    session->extent = simplify_scale_positions(z->positions, positions, vertex_count);
    z->prefetch = vertex_count * sizeof *z->quadrics > PREFETCH_MIN_BYTES;
    /* The open edges reuse the candidates' room, unused until the first pass. */
    uint8_t *open = (uint8_t *)z->candidates;
    simplify_adjacency_build(&z->topo, session->indices, index_count);
    simplify_classify(&z->topo, session->indices, index_count, lock_border, open);
    if (!list_looped(z)) {
        simplify_end(session);
        return NULL;
    }
    simplify_fill_quadrics(z->quadrics, z->positions, &z->topo, session->indices, index_count, open,
                           z->prefetch);
    mark_all_stale(z, index_count);
    session->adjacency_current = true;
    return session;
}

/* A level after the first ranks a manifold position's moves by the planes
 * of the last level's triangles around it (as meshoptimizer's cascade,
 * which simplifies each level afresh), plus what the levels so far cost
 * there (its distance to its planes since level 0). By its quadric since
 * level 0 alone, the second level's largest distance on Fox was 1.07x
 * meshoptimizer's (mean over 16 input orders); by the last level's planes
 * alone the teapot's mean distance was 1.01x, the error so far keeping it
 * from collapses where the first level already strayed. So do seam
 * positions on short runs between locked corners (DamagedHelmet's, most
 * a few positions long): by their quadrics since level 0 its second level's
 * mean distance was 1.010x meshoptimizer's, 0.935x so. Border positions and
 * longer seams keep theirs: refreshed on every seam, the truck's wheels'
 * second level (seams round their 24-sided rims, where the last level's
 * chords no longer know the circle) was 1.04x meshoptimizer's mean
 * distance. False when out of memory. */
static bool refresh_quadrics(simplify_session *session) {
    simplifier *z = &session->z;
    size_t n = z->topo.vertex_count;
    if (z->surface == NULL) {
        z->surface = malloc((n ? n : 1) * sizeof *z->surface);
        if (z->surface == NULL)
            return false;
        memcpy(z->surface, z->quadrics, n * sizeof *z->surface);
    }
    /* Per vertex, the collapse targets are unused until the next pass. */
    uint8_t *fresh = (uint8_t *)z->collapse;
    simplify_refresh_quadrics(z->quadrics, z->surface, z->positions, &z->topo, session->indices,
                              session->count, fresh);
    simplify_mark_refreshed_stale(z, session->indices, session->count, fresh);
    return true;
}

size_t simplify_continue(simplify_session *session, size_t target_index_count, float target_error,
                         uint32_t *dest, float *result_error) {
    *result_error = 0.0f;
    if (session->pass > 0 && !refresh_quadrics(session))
        return 0;
    run_passes(session, target_index_count / 3 * 3, target_error * target_error);
    memcpy(dest, session->indices, session->count * sizeof *dest);
    *result_error = sqrtf(session->max_error);
    return session->count;
}

float simplify_extent(const simplify_session *session) {
    return session->extent;
}

void simplify_end(simplify_session *session) {
    if (session == NULL)
        return;
    simplifier_free(&session->z);
    free(session->indices);
    free(session);
}

bool simplify_triangles(uint32_t *dest, const uint32_t *indices, size_t index_count,
                        const float *positions, size_t vertex_count, size_t target_index_count,
                        float target_error, bool lock_border, size_t *result_count,
                        float *result_error) {
    *result_count = 0;
    *result_error = 0.0f;
    simplify_session *session =
        simplify_begin(indices, index_count, positions, vertex_count, lock_border);
    if (session == NULL)
        return false;
    *result_count =
        simplify_continue(session, target_index_count, target_error, dest, result_error);
    simplify_end(session);
    return true;
}
