/* simplify_topology.c — what kiln's simplifier (simplify.c) may collapse:
 * vertices welded by position, each position classified once.
 *
 * Vertices sharing a position are "wedges" of it (an attribute seam gives a
 * position two). A position is manifold when its one wedge has every edge
 * paired; on a border when its one wedge has exactly one unpaired edge out
 * and one in (the border's loop passes through it once); on a seam when its
 * two wedges each have one unpaired edge out and in and the two sides of the
 * seam run between the same positions; locked otherwise (corners of
 * several loops, more wedges, non-manifold fans), and borders too when the
 * caller locks them (a chunk's border, shared with its neighbours). These
 * are the classes meshoptimizer's simplifier uses, so the two keep the same
 * topology. */
#include <stdlib.h>
#include <string.h>

#include "cook/process/simplify_internal.h"

/* FNV-style mix of a position's three bit patterns (-0 and 0 differ, as
 * meshoptimizer's welding; a cooked mesh has no use for the difference). */
static uint32_t position_hash(const float *p) {
    uint32_t bits[3];
    memcpy(bits, p, sizeof bits);
    uint32_t h = 2166136261u;
    for (int k = 0; k < 3; k++)
        h = (h ^ bits[k]) * 16777619u;
    return h ^ (h >> 15);
}

/* Whether two positions are the same bits (the hash's equality). */
static bool same_position(const float *a, const float *b) {
    uint32_t x[3], y[3];
    memcpy(x, a, sizeof x);
    memcpy(y, b, sizeof y);
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

bool simplify_weld(simplify_state *s, const uint32_t *indices, size_t index_count,
                   const float *positions) {
    size_t n = s->vertex_count;
    bool *used = calloc(n ? n : 1, sizeof *used);
    /* At most one entry per vertex used (and no more of those than corners):
     * a table sized by the corners alone was 256 KB on spot, most of the
     * weld's page faults in a fresh heap. The size changes only the probes,
     * not which vertex is first at a position. */
    size_t entries = n < index_count ? n : index_count;
    size_t slots = 1;
    while (slots < 2 * entries + 2)
        slots *= 2;
    uint32_t *table = malloc(slots * sizeof *table);
    if (used == NULL || table == NULL) {
        free(used);
        free(table);
        return false;
    }
    for (size_t i = 0; i < index_count; i++)
        used[indices[i]] = true;
    memset(table, 0xff, slots * sizeof *table);
    for (size_t v = 0; v < n; v++) {
        s->remap[v] = (uint32_t)v;
        s->wedge[v] = (uint32_t)v;
        if (!used[v])
            continue;
        const float *p = positions + 3 * v;
        size_t slot = position_hash(p) & (slots - 1);
        while (table[slot] != UINT32_MAX && !same_position(positions + 3 * (size_t)table[slot], p))
            slot = (slot + 1) & (slots - 1);
        if (table[slot] == UINT32_MAX) {
            table[slot] = (uint32_t)v;
            continue;
        }
        /* Join the first wedge's ring, after it. */
        uint32_t first = table[slot];
        s->remap[v] = first;
        s->wedge[v] = s->wedge[first];
        s->wedge[first] = (uint32_t)v;
    }
    free(used);
    free(table);
    return true;
}

void simplify_adjacency_build(simplify_state *s, const uint32_t *indices, size_t index_count) {
    uint32_t *first = s->adjacency_first;
    memset(first, 0, (s->vertex_count + 1) * sizeof *first);
    for (size_t i = 0; i < index_count; i++)
        first[indices[i]]++;
    simplify_adjacency_fill(s, indices, index_count);
}

void simplify_adjacency_fill(simplify_state *s, const uint32_t *indices, size_t index_count) {
    size_t n = s->vertex_count;
    uint32_t *first = s->adjacency_first;
    /* first[v] counts up to the end of v's triangles, then each triangle,
     * last first, takes the slot before it: first[v] ends at v's start, and
     * each vertex's triangles stay in index order. */
    uint32_t end = 0;
    for (size_t v = 0; v < n; v++) {
        end += first[v];
        first[v] = end;
    }
    first[n] = end;
    for (size_t t = index_count - index_count % 3; t > 0; t -= 3) {
        uint32_t a = indices[t - 3], b = indices[t - 2], c = indices[t - 1];
        s->adjacency[--first[c]] = (simplify_corner){a, b};
        s->adjacency[--first[b]] = (simplify_corner){c, a};
        s->adjacency[--first[a]] = (simplify_corner){b, c};
    }
}

/* A vertex's list longer than this is paired through a sorted copy of its
 * `prev` ends: the walk below costs the list's length squared (a fan of
 * 130,000 triangles round one vertex took seconds). Real valences are far
 * below it, so they keep the walk, which is cheaper on short lists. */
#define PAIR_SORTED_FROM 32u

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static bool sorted_holds(const uint32_t *sorted, uint32_t count, uint32_t value) {
    uint32_t low = 0, high = count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (sorted[middle] < value)
            low = middle + 1;
        else
            high = middle;
    }
    return low < count && sorted[low] == value;
}

#if defined(__SSE2__)
#define PAIR_LANES 8u
/* pair_edges for a list of at most PAIR_LANES triangles: its `prev` ends in
 * two registers (the spare lanes hold UINT32_MAX, which no vertex is), each
 * `next` compared with all of them at once (the same answers as the walk; a
 * grid's valence of 6 walked 20 steps a slot). */
static void pair_edges_x8(const simplify_corner *list, uint32_t length, uint8_t *paired) {
    uint32_t prev[PAIR_LANES];
    for (uint32_t j = 0; j < PAIR_LANES; j++)
        prev[j] = j < length ? list[j].prev : UINT32_MAX;
    __m128i low = _mm_loadu_si128((const __m128i *)(const void *)prev),
            high = _mm_loadu_si128((const __m128i *)(const void *)(prev + 4));
    for (uint32_t i = 0; i < length; i++) {
        __m128i next = _mm_set1_epi32((int)list[i].next);
        __m128i same = _mm_or_si128(_mm_cmpeq_epi32(low, next), _mm_cmpeq_epi32(high, next));
        paired[i] = _mm_movemask_epi8(same) != 0;
    }
}
#endif

/* Per slot of the adjacency (paired[i]): whether the edge from its vertex v
 * to its `next` is paired, some triangle holding next -> v. Such a triangle
 * is around v too, with `next` as its `prev`: so each vertex's own list
 * answers for its edges, read in order, rather than a walk of a neighbour's
 * list per index. `scratch` holds the longest list. */
static void pair_edges(const simplify_state *s, uint8_t *paired, uint32_t *scratch) {
    for (size_t v = 0; v < s->vertex_count; v++) {
        uint32_t begin = s->adjacency_first[v], end = s->adjacency_first[v + 1];
        if (end - begin > PAIR_SORTED_FROM) {
            for (uint32_t i = begin; i < end; i++)
                scratch[i - begin] = s->adjacency[i].prev;
            qsort(scratch, end - begin, sizeof *scratch, compare_u32);
            for (uint32_t i = begin; i < end; i++)
                paired[i] = sorted_holds(scratch, end - begin, s->adjacency[i].next);
            continue;
        }
#if defined(__SSE2__)
        if (end - begin <= PAIR_LANES) {
            pair_edges_x8(s->adjacency + begin, end - begin, paired + begin);
            continue;
        }
#endif
        for (uint32_t i = begin; i < end; i++) {
            uint32_t next = s->adjacency[i].next;
            bool found = false;
            for (uint32_t j = begin; j < end && !found; j++)
                found = s->adjacency[j].prev == next;
            paired[i] = found;
        }
    }
}

/* The longest of the vertices' lists. */
static uint32_t longest_list(const simplify_state *s) {
    uint32_t most = 0;
    for (size_t v = 0; v < s->vertex_count; v++) {
        uint32_t length = s->adjacency_first[v + 1] - s->adjacency_first[v];
        most = length > most ? length : most;
    }
    return most;
}

void simplify_classify(simplify_state *s, const uint32_t *indices, size_t index_count,
                       bool lock_border, uint8_t *open) {
    size_t n = s->vertex_count;
    /* Unpaired edges per vertex: out (the loop's next vertex) and in. */
    uint8_t *open_out = calloc(n ? n : 1, 1), *open_in = calloc(n ? n : 1, 1);
    uint32_t *loop_in = malloc((n ? n : 1) * sizeof *loop_in);
    /* Per vertex, its next slot: its triangles come in index order in the
     * adjacency as in the sweep below. */
    uint32_t *slot = malloc((n ? n : 1) * sizeof *slot);
    uint8_t *paired = malloc(index_count ? index_count : 1);
    uint32_t longest = longest_list(s);
    uint32_t *scratch =
        longest > PAIR_SORTED_FROM ? malloc((size_t)longest * sizeof *scratch) : NULL;
    if (open_out == NULL || open_in == NULL || loop_in == NULL || slot == NULL || paired == NULL ||
        (longest > PAIR_SORTED_FROM && scratch == NULL)) {
        /* Without the counts every position is locked: nothing collapses. */
        memset(s->kind, SIMPLIFY_LOCKED, n);
        memset(open, 0, index_count);
        free(open_out);
        free(open_in);
        free(loop_in);
        free(slot);
        free(paired);
        free(scratch);
        return;
    }
    pair_edges(s, paired, scratch);
    free(scratch);
    for (size_t v = 0; v < n; v++) {
        s->loop[v] = loop_in[v] = UINT32_MAX;
        slot[v] = s->adjacency_first[v];
    }
    for (size_t t = 0; t + 2 < index_count; t += 3) {
        uint32_t corners[4] = {indices[t], indices[t + 1], indices[t + 2], indices[t]};
        for (size_t k = 0; k < 3; k++) {
            uint32_t a = corners[k], b = corners[k + 1];
            open[t + k] = !paired[slot[a]++];
            if (!open[t + k])
                continue;
            open_out[a] += open_out[a] < 255;
            open_in[b] += open_in[b] < 255;
            s->loop[a] = b;
            loop_in[b] = a;
        }
    }
    for (size_t v = 0; v < n; v++) {
        uint32_t w = s->wedge[v];
        simplify_kind kind = SIMPLIFY_LOCKED;
        bool one_loop = open_out[v] == 1 && open_in[v] == 1;
        if (w == v && open_out[v] == 0 && open_in[v] == 0)
            kind = SIMPLIFY_MANIFOLD;
        else if (w == v && one_loop)
            kind = lock_border ? SIMPLIFY_LOCKED : SIMPLIFY_BORDER;
        else if (w != v && s->wedge[w] == v && one_loop && open_out[w] == 1 && open_in[w] == 1 &&
                 s->remap[s->loop[v]] == s->remap[loop_in[w]] &&
                 s->remap[s->loop[w]] == s->remap[loop_in[v]])
            kind = SIMPLIFY_SEAM; /* two wedges whose sides run between the same positions */
        s->kind[v] = (uint8_t)kind;
    }
    free(open_out);
    free(open_in);
    free(loop_in);
    free(slot);
    free(paired);
}

void simplify_loops_remap(simplify_state *s, const uint32_t *collapse, const uint32_t *looped,
                          size_t looped_count) {
    for (size_t i = 0; i < looped_count; i++) {
        uint32_t v = looped[i], next = s->loop[v];
        if (next == UINT32_MAX)
            continue;
        uint32_t moved = collapse[next];
        /* v's next vertex collapsed into v (the loop shortened from v's side):
         * v now continues where that vertex went. */
        uint32_t after = s->loop[next];
        s->loop[v] = moved != v ? moved : (after == UINT32_MAX ? UINT32_MAX : collapse[after]);
    }
}
