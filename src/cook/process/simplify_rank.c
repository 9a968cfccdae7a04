/* simplify_rank.c — kiln's simplifier (simplify.c): ranking a pass's edges.
 *
 * Each pass ranks every edge that may collapse by the quadric error of its
 * cheaper allowed direction (with the border chord and a put-off collapse's
 * distance as floors), keeps the rank per corner so that the next pass ranks
 * again only the edges whose ends changed, and sorts the candidates by a
 * counting sort on the error's top bits. */
#include <math.h>
#include <string.h>

#include "cook/process/simplify_internal.h"

/* The vertex before v along its loop (some corner around v whose loop goes
 * to v), or UINT32_MAX. */
static uint32_t loop_previous(const simplify_state *s, uint32_t v) {
    for (uint32_t i = s->adjacency_first[v]; i < s->adjacency_first[v + 1]; i++) {
        if (s->loop[s->adjacency[i].next] == v)
            return s->adjacency[i].next;
        if (s->loop[s->adjacency[i].prev] == v)
            return s->adjacency[i].prev;
    }
    return UINT32_MAX;
}

/* The edge a -> b in its cheaper allowed direction (from == RANK_NONE when
 * it may not collapse, or is ranked from its other side). */
static candidate rank_edge(const simplifier *z, uint32_t a, uint32_t b) {
    const simplify_state *s = &z->topo;
    const candidate none = {RANK_NONE, RANK_NONE, 0.0f};
    uint32_t ra = s->remap[a], rb = s->remap[b];
    uint8_t ka = s->kind[a], kb = s->kind[b];
    bool a_into_b, b_into_a, along_loop = false;
    if (ra == rb) {
        return none; /* a zero-length edge: left alone */
    } else if (ka == SIMPLIFY_MANIFOLD || kb == SIMPLIFY_MANIFOLD) {
        if (ra > rb)
            return none; /* paired: the other direction is seen too */
        a_into_b = ka == SIMPLIFY_MANIFOLD;
        b_into_a = kb == SIMPLIFY_MANIFOLD;
    } else if (ka == kb && (ka == SIMPLIFY_BORDER || ka == SIMPLIFY_SEAM) && s->loop[a] == b) {
        /* Along its loop; a seam's other side must run the same way back. */
        if (ka == SIMPLIFY_SEAM && s->loop[s->wedge[b]] != s->wedge[a])
            return none;
        a_into_b = b_into_a = along_loop = true;
    } else {
        return none;
    }
    const float *pa = z->positions + 3 * (size_t)a, *pb = z->positions + 3 * (size_t)b;
    float ea = INFINITY, eb = INFINITY;
    if (a_into_b && b_into_a) {
        float both[2];
        quadric_error_pair(&z->quadrics[ra], pb, &z->quadrics[rb], pa, both);
        ea = both[0];
        eb = both[1];
    } else if (a_into_b) {
        ea = quadric_error(&z->quadrics[ra], pb);
    } else {
        eb = quadric_error(&z->quadrics[rb], pa);
    }
    /* Only along a border loop: no loop runs through a manifold position (a
     * border or seam position collapses only into its own kind), so there the
     * walk below would find nothing, at the price of a load of a's
     * triangles; and a seam has triangles on both sides, whose planes in its
     * quadric already weigh how far its removed end goes, where a border has
     * none beyond it. With this cost on seams too, CesiumMilkTruck's wheels
     * were at 1.26x meshoptimizer's maximum distance at level 1 (mean over 16
     * input orders; the farthest point on a triangle from seam to seam across
     * a curved band), 0.94x without; spot's level 2 0.99x, 0.96x without. */
    if (along_loop && ka == SIMPLIFY_BORDER) {
        /* Along a border the quadric's mean can underrate a collapse, as no
         * triangle beyond it holds it: the removed end is as far from the
         * loop as from the chord that replaces its two edges
         * (DamagedHelmet's visor rim: a border collapse of error 3.4e-3 left
         * its position 9.4e-3 away). */
        uint32_t before = loop_previous(s, a), after = s->loop[b];
        if (before != UINT32_MAX) {
            float d2 = segment_distance2(pa, z->positions + 3 * (size_t)before, pb);
            ea = d2 > ea ? d2 : ea;
        }
        if (after != UINT32_MAX) {
            float d2 = segment_distance2(pb, pa, z->positions + 3 * (size_t)after);
            eb = d2 > eb ? d2 : eb;
        }
    }
    /* A collapse put off for its removed position's distance ranks at
     * least there: it sorts where it belongs (perhaps the other way round)
     * rather than as cheap as its quadric says. */
    if (z->deferred_to[a] == b)
        ea = z->deferred_gap[a] > ea ? z->deferred_gap[a] : ea;
    if (z->deferred_to[b] == a)
        eb = z->deferred_gap[b] > eb ? z->deferred_gap[b] : eb;
    return ea <= eb ? (candidate){a, b, ea} : (candidate){b, a, eb};
}

/* A candidate's bucket in simplify_sort_candidates: the error's exponent and top
 * mantissa bits (errors are never negative, so their bits sort as
 * integers). */
static inline uint32_t sort_key(float error) {
    uint32_t bits;
    memcpy(&bits, &error, sizeof bits);
    return (bits << 1) >> (32 - SORT_BITS);
}

/* Every edge that may collapse, once, in its cheaper allowed direction:
 * stale edges ranked again, the others as they were; z->histogram counts
 * their sort keys. */
size_t simplify_pick_candidates(simplifier *z, const uint32_t *indices, size_t index_count) {
    size_t count = 0;
    memset(z->histogram, 0, sizeof z->histogram);
    for (size_t t = 0; t < index_count; t += 3) {
        uint32_t corners[4] = {indices[t], indices[t + 1], indices[t + 2], indices[t]};
#pragma GCC unroll 3
        for (size_t k = 0; k < 3; k++) {
            uint32_t rank = z->ranked[t + k];
            candidate c;
            if (rank == RANK_STALE) {
                /* The quadric a later corner's ranking will read, asked for
                 * early: the ranking waits on these loads more than it
                 * computes. Stale corners come in runs (all of them in a
                 * level's first pass, those round the last pass's collapses
                 * after), so one a stale corner ahead is likely stale too. */
                size_t ahead = t + k + PREFETCH_AHEAD;
                if (z->prefetch && ahead < index_count) {
                    const quadric *q = &z->quadrics[z->topo.remap[indices[ahead]]];
                    __builtin_prefetch(q);
                    __builtin_prefetch((const char *)q + 64);
                }
                c = rank_edge(z, corners[k], corners[k + 1]);
                uint32_t bits;
                memcpy(&bits, &c.error, sizeof bits);
                z->ranked[t + k] = c.from == RANK_NONE    ? RANK_NONE
                                   : c.from == corners[k] ? bits
                                                          : bits | RANK_BACKWARD;
            } else if (rank == RANK_NONE) {
                continue;
            } else {
                bool backward = rank & RANK_BACKWARD;
                uint32_t bits = rank & ~RANK_BACKWARD;
                c.from = corners[k + (backward ? 1 : 0)];
                c.to = corners[k + (backward ? 0 : 1)];
                memcpy(&c.error, &bits, sizeof bits);
            }
            if (c.from != RANK_NONE) {
                z->candidates[count++] = c;
                z->histogram[sort_key(c.error)]++;
            }
        }
    }
    return count;
}

/* Candidates by error, cheapest first, into z->sorted: a counting sort on
 * sort_key (z->histogram, counted by simplify_pick_candidates); equal keys keep their
 * order, which keeps the result deterministic. Copied rather than indexed:
 * the collapses then read them in order. */
void simplify_sort_candidates(simplifier *z, size_t count) {
    uint32_t *histogram = z->histogram, sum = 0;
    for (size_t k = 0; k < (1u << SORT_BITS); k++) {
        uint32_t n = histogram[k];
        histogram[k] = sum;
        sum += n;
    }
    for (size_t i = 0; i < count; i++) {
        const candidate *c = &z->candidates[i];
        z->sorted[histogram[sort_key(c->error)]++] = *c;
    }
}

/* The ranks a refresh of the quadrics can change, stale: an edge with an
 * end whose quadric was made afresh (fresh[v] nonzero). An edge that may not
 * collapse stays so (that follows the positions' kinds and loops, not their
 * quadrics), and one between two positions that kept their quadrics keeps
 * the rank it had. (Every edge ranked again also ranked the twin corner of
 * each manifold edge, whose rank is none: half the corners of a grid's chunk
 * at its second level.) */
void simplify_mark_refreshed_stale(simplifier *z, const uint32_t *indices, size_t index_count,
                                   const uint8_t *fresh) {
    for (size_t t = 0; t + 2 < index_count; t += 3) {
        bool changed[3];
        for (int k = 0; k < 3; k++)
            changed[k] = fresh[indices[t + (size_t)k]] != 0;
        for (int k = 0; k < 3; k++)
            if (z->ranked[t + (size_t)k] != RANK_NONE && (changed[k] || changed[(k + 1) % 3]))
                z->ranked[t + (size_t)k] = RANK_STALE;
    }
}
