/* vertex_cache.c — kiln's vertex cache order of triangles (mesh.vertex_cache: kiln).
 *
 * A greedy order after Tom Forsyth, "Linear-Speed Vertex Cache Optimisation"
 * (2006): every vertex has a score from its place in a simulated cache and
 * from how many of its triangles are still to be drawn (few left: draw them
 * now, so that the vertex need not come back); a triangle's score is the sum
 * of its corners'; the next triangle is the best-scoring candidate, else (a
 * dead end) the first one not drawn yet in input order, found by a cursor
 * that only moves forward.
 *
 * Two choices make it cheaper than meshoptimizer's optimizeVertexCache, which
 * simulates an LRU cache and so moves, rescores and rescans every cached
 * vertex's triangles at every step:
 *   - the simulated cache is a FIFO, as in Sander, Nehab and Barczak,
 *     "Fast Triangle Reordering for Vertex Locality and Reduced Overdraw"
 *     (Tipsify, 2007), and as kiln measures it (a FIFO of 16): a vertex's
 *     place is its age, the vertices inserted since it, kept as a time stamp,
 *     so drawing a triangle moves nothing;
 *   - ages are grouped into classes of equal score (vertex_cache_tuned), so
 *     an insertion changes the score of only the few vertices whose age
 *     crosses a class boundary, found in a ring of the last VC_CACHE
 *     insertions.
 * Per step only the drawn triangle's corners and those few vertices are
 * rescored; their live triangles' scores move by the vertex's change
 * (integer scores, so the sums stay exact) and are the candidates. When none
 * has a live triangle left, every cached vertex's triangles are. The scores
 * were found by a search for the lowest ACMR of a FIFO of 16 on training
 * meshes (vertex_cache_tuned below), as meshoptimizer tunes its LRU tables
 * (Kapoulkine, meshoptimizer 0.18's optimizeVertexCache); its tables do not
 * carry over, as a FIFO ages a vertex differently. Reduced levels get
 * scores of their own (vertex_cache_tuned_reduced, mesh_cache_order_reduced),
 * found the same way on the simplifier's output.
 *
 * Its time follows its instruction count (~570 a triangle, callgrind;
 * BENCHMARKS.md), its chains of dependent loads and, on uneven meshes, the
 * mispredicted ends of its short list walks: the working memory puts each
 * vertex's record just before its list, so one load reaches both, and a
 * drawn triangle's corner lists are walked once, to retire it and offer the
 * rest together. GCC 12 leaves the loops over a triangle's three corners
 * rolled, with registers spilled around them; `#pragma GCC unroll 3` (which
 * clang reads too) takes ~4 % of the instructions out. */
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/process/process.h"

#define VC_CACHE VERTEX_CACHE_FIFO
#define VC_VALENCE VERTEX_CACHE_VALENCE
#define VC_UNIT 65536.0
#define VC_MAX 16.0f /* the largest score a part may have (the tuned are below 1.1) */
/* Every step walks the drawn triangle's corners' lists, so a vertex of d
 * triangles costs d² over the order (a fan of 130,000 triangles round one
 * vertex took 9 s). A vertex of more is ordered as several, each with
 * VC_CROWDED of its triangles in input order (vc_split): a cache hit between
 * them counts as a miss, on a vertex far from any real mesh's valence. */
#define VC_CROWDED 256u

/* The scores in use, found by a search on training meshes for the lowest
 * ACMR of a FIFO of 16 (bench/tune_vertex_cache.py, seed 1; BENCHMARKS.md,
 * "kiln's vertex cache order"). Ages come in classes of equal score (the
 * three newest, 3-6, 7-12, 13-14, 15), so that an insertion changes at most
 * five vertices' scores. The three newest share one score, below the older
 * ones, as in Forsyth's scheme (which of the last triangle's corners the next
 * one shares does not matter); the best are ages 7-12, drawn before they get
 * near eviction, and age 15 is worth half; 1-5 live triangles add a bonus
 * that falls with the count (draw a vertex's last triangles now, or it has to
 * come back). */
const vertex_cache_scores vertex_cache_tuned = {
    .cache = {0.741f, 0.741f, 0.741f,                 /* ages 0-2 */
              0.946f, 0.946f, 0.946f, 0.946f,         /* 3-6 */
              1.078f, 1.078f, 1.078f, 1.078f, 1.078f, /* 7-11 */
              1.078f, 0.979f, 0.979f, 0.531f,         /* 12, 13-14, 15 */
              0.0f},                                  /* not cached */
    .live = {0.0f, 0.7f, 0.544f, 0.389f, 0.158f, 0.078f, 0.0f, 0.0f, 0.0f},
};

/* The scores for reduced levels, the simplifier's output (its triangles
 * fewer, longer, of uneven valence): the same search from vertex_cache_tuned
 * on the reduced levels of the training meshes (bench/tune_vertex_cache.py
 * --reduced, seed 1). With level 0's scores kiln's order was 1.5-2.5 % behind
 * meshoptimizer's there; with these it is within 0.2 %. The newest ages are
 * worth more, the middle ones less (the three newest 0.86, 3-6 0.947, 7-13
 * 0.967 against 0.741, 0.946, 1.078), and one live triangle less (0.609). */
const vertex_cache_scores vertex_cache_tuned_reduced = {
    .cache = {0.860f, 0.860f, 0.860f,                 /* ages 0-2 */
              0.947f, 0.947f, 0.947f, 0.947f,         /* 3-6 */
              0.967f, 0.967f, 0.967f, 0.967f, 0.967f, /* 7-11 */
              0.967f, 0.967f, 0.871f, 0.586f,         /* 12-13, 14, 15 */
              0.0f},                                  /* not cached */
    .live = {0.0f, 0.609f, 0.544f, 0.389f, 0.158f, 0.045f, 0.0f, 0.0f, 0.0f},
};

/* Scores in fixed point by age (VC_CACHE: not in the cache) and live
 * triangles (0..VC_VALENCE). */
typedef struct vc_table {
    int32_t score[VC_CACHE + 1][VC_VALENCE + 1];
} vc_table;

/* A score in fixed point, each part clamped to 0..VC_MAX so that sums of
 * three stay far from overflow. */
static double vc_part(float score) {
    return score > 0.0f ? (score < VC_MAX ? score : VC_MAX) : 0.0;
}

/* A vertex with no live triangles scores 0: it is never a candidate. */
static void vc_table_make(vc_table *table, const vertex_cache_scores *scores) {
    for (int age = 0; age <= VC_CACHE; age++) {
        table->score[age][0] = 0;
        for (int live = 1; live <= VC_VALENCE; live++)
            table->score[age][live] =
                (int32_t)((vc_part(scores->cache[age]) + vc_part(scores->live[live])) * VC_UNIT +
                          0.5);
    }
}

/* A vertex's record, 16 bytes, followed in the same array by its triangles
 * (so that reaching a vertex brings its list into the cache with it, instead
 * of a second dependent load from an array apart). A vertex is known by the
 * place of its record in that array. */
typedef struct vc_vertex {
    uint32_t live;  /* its triangles not drawn yet, listed first */
    int32_t score;  /* the table's, at its age and live count */
    uint32_t stamp; /* the clock when it entered the cache */
    uint32_t id;    /* its index in the input */
} vc_vertex;

#define VC_HEAD (sizeof(vc_vertex) / sizeof(uint32_t)) /* a record in words */
#define VC_DRAWN INT32_MIN                             /* live triangles' scores are >= 0 */
#define VC_NONE UINT32_MAX                             /* no triangle */

/* The working state of one order; all arrays share one allocation. */
typedef struct vc_state {
    /* Per vertex: its record, then its live triangles, then the drawn. */
    uint32_t *vertices;
    /* Per triangle: the sum of its corners' scores, VC_DRAWN once drawn.
     * Apart from the corners, as offering a vertex's triangles touches only
     * these: 4 bytes a triangle keep more of them in cache than 16. */
    int32_t *score;
    uint32_t *corners; /* 3 per triangle: its vertices' places in `vertices` */
    vc_table table;
    uint32_t clock; /* insertions so far, plus VC_CACHE */
    /* The last VC_CACHE inserted vertices, by clock; at first the sentinel,
     * a record past the last list that has no triangles and is never cached,
     * so that its rescore changes nothing. */
    uint32_t ring[VC_CACHE];
} vc_state;

static vc_vertex *vc_at(const vc_state *s, uint32_t place) {
    return (vc_vertex *)&s->vertices[place];
}

static uint32_t *vc_list(const vc_state *s, uint32_t place) {
    return &s->vertices[place + VC_HEAD];
}

/* One allocation: the records and lists (4 words per vertex, 3 per triangle,
 * then the sentinel's record), the triangles' scores and corners (1 + 3 per
 * triangle), and `places`, a vertex's place by its input index (1 per
 * vertex), used by the build only. False when out of memory or when a place
 * would not fit 32 bits. */
static bool vc_alloc(vc_state *s, size_t triangles, size_t vertex_count, uint32_t **places) {
    size_t records = 0, words = 0, total = 0;
    if (!checked_mad_size(vertex_count + 1, VC_HEAD, 3 * triangles, &records) ||
        records >= UINT32_MAX || !checked_mad_size(triangles, 4, records, &words) ||
        !checked_add_size(words, vertex_count, &words) ||
        !checked_mul_size(words, sizeof(uint32_t), &total))
        return false;
    uint32_t *next = malloc(total);
    if (next == NULL)
        return false;
    s->vertices = next;
    s->score = (int32_t *)(next += records);
    s->corners = next += triangles;
    *places = next + 3 * triangles;
    return true;
}

/* The vertex's score at the clock `now` (the step's last insertion). */
static int32_t vc_score(const vc_state *s, const vc_vertex *vertex, uint32_t now) {
    uint32_t age = now - vertex->stamp;
    uint32_t live = vertex->live;
    return s->table.score[age < VC_CACHE ? age : VC_CACHE][live < VC_VALENCE ? live : VC_VALENCE];
}

/* Each vertex's record and triangles (a degenerate triangle is listed once
 * per corner, as its score counts the vertex once per corner), the corners
 * as places, and the first scores, in three passes: count each vertex's
 * corners (and check the indices), lay out the records, fill the lists. False
 * for an index out of range, before anything is written but `places`.
 * `original` names each vertex's input index (NULL: its own); `crowded` is
 * set when a vertex has more than VC_CROWDED corners. */
static bool vc_build(vc_state *s, const uint32_t *indices, size_t triangles, size_t vertex_count,
                     const uint32_t *original, uint32_t *places, bool *crowded) {
    memset(places, 0, vertex_count * sizeof *places);
    for (size_t i = 0; i < 3 * triangles; i++) {
        if (indices[i] >= vertex_count)
            return false;
        places[indices[i]]++;
    }
    /* Stamps of 0 at a clock of VC_CACHE + 1: every vertex out of the cache. */
    s->clock = VC_CACHE + 1;
    uint32_t place = 0;
    uint32_t most = 0;
    for (size_t v = 0; v < vertex_count; v++) {
        uint32_t corners = places[v];
        most = corners > most ? corners : most;
        vc_vertex *vertex = vc_at(s, place);
        /* live counts the fill below, which ends at `corners` */
        uint32_t id = original != NULL ? original[v] : (uint32_t)v;
        *vertex = (vc_vertex){.live = 0, .stamp = 0, .id = id};
        vertex->score = s->table.score[VC_CACHE][corners < VC_VALENCE ? corners : VC_VALENCE];
        places[v] = place;
        place += (uint32_t)VC_HEAD + corners;
    }
    *crowded = most > VC_CROWDED;
    *vc_at(s, place) = (vc_vertex){.live = 0, .score = 0, .stamp = 0, .id = 0};
    for (int i = 0; i < VC_CACHE; i++)
        s->ring[i] = place;
    for (size_t t = 0; t < triangles; t++) {
        int32_t sum = 0;
#pragma GCC unroll 3
        for (size_t i = 3 * t; i < 3 * t + 3; i++) {
            uint32_t at = places[indices[i]];
            vc_vertex *vertex = vc_at(s, at);
            vc_list(s, at)[vertex->live++] = (uint32_t)t;
            s->corners[i] = at;
            sum += vertex->score;
        }
        s->score[t] = sum;
    }
    return true;
}

/* Moves `triangle` from the live front of the vertex's list to the drawn
 * back: for a triangle with a repeated corner (vc_rescore_retire does it for
 * the others). */
static inline void vc_retire(vc_state *s, uint32_t place, uint32_t triangle) {
    uint32_t *list = vc_list(s, place);
    uint32_t last = --vc_at(s, place)->live;
    uint32_t at = last; /* its first place, found without a branch to mispredict */
    for (uint32_t i = last; i-- > 0;)
        at = list[i] == triangle ? i : at;
    list[at] = list[last];
    list[last] = triangle;
}

/* The ages, after an insertion, at which a vertex's score changes. */
static uint32_t vc_crossings(const vc_table *table, uint32_t crossing[VC_CACHE]) {
    uint32_t count = 0;
    for (uint32_t age = 1; age <= VC_CACHE; age++) {
        if (memcmp(table->score[age - 1], table->score[age], sizeof table->score[age]) != 0)
            crossing[count++] = age;
    }
    return count;
}

typedef struct vc_best {
    uint32_t triangle; /* VC_NONE: none yet */
    int32_t score;
} vc_best;

/* Moves the vertex's live triangles' scores by `change` and offers them as
 * candidates; among equals the last offered wins (no branch to mispredict). */
static inline void vc_offer(vc_state *s, uint32_t place, int32_t change, vc_best *best) {
    const uint32_t *list = vc_list(s, place);
    uint32_t triangle = best->triangle;
    int32_t top = best->score;
    for (uint32_t k = 0, live = vc_at(s, place)->live; k < live; k++) {
        uint32_t t = list[k];
        int32_t value = s->score[t] + change;
        s->score[t] = value;
        /* Both selects on one flag, of values already in registers: GCC 12
         * makes them two cmovs (a select that reloaded list[k] was a branch,
         * mispredicted; a mask took 3 more instructions). */
        bool better = value >= top;
        top = better ? value : top;
        triangle = better ? t : triangle;
    }
    *best = (vc_best){triangle, top};
}

/* Rescores the vertex; its triangles are candidates when `always` or when its
 * score changed. */
static inline void vc_rescore(vc_state *s, uint32_t place, uint32_t now, bool always,
                              vc_best *best) {
    vc_vertex *vertex = vc_at(s, place);
    int32_t score = vc_score(s, vertex, now);
    int32_t change = score - vertex->score;
    vertex->score = score;
    if (change != 0 || always)
        vc_offer(s, place, change, best);
}

/* A corner of the drawn triangle `drawn`, whose live count has been taken
 * down already: vc_retire and vc_rescore's offer in one walk of its list,
 * which offers the triangles in the order they have after the retire (the
 * last live one in the drawn one's place), so the order is the same. Only for
 * a triangle of distinct corners, listed once in each corner's list. */
static inline void vc_rescore_retire(vc_state *s, uint32_t place, uint32_t now, uint32_t drawn,
                                     vc_best *best) {
    vc_vertex *vertex = vc_at(s, place);
    int32_t score = vc_score(s, vertex, now);
    int32_t change = score - vertex->score;
    vertex->score = score;
    uint32_t *list = vc_list(s, place);
    uint32_t last = vertex->live;
    uint32_t moved = list[last]; /* to take the drawn one's place */
    uint32_t at = last;
    uint32_t triangle = best->triangle;
    int32_t top = best->score;
    for (uint32_t k = 0; k < last; k++) {
        uint32_t t = list[k];
        bool is_drawn = t == drawn;
        at = is_drawn ? k : at;
        t = is_drawn ? moved : t;
        int32_t value = s->score[t] + change;
        s->score[t] = value;
        bool better = value >= top;
        top = better ? value : top;
        triangle = better ? t : triangle;
    }
    list[at] = moved;
    list[last] = drawn;
    *best = (vc_best){triangle, top};
}

static inline void vc_prefetch(const void *address) {
#if defined(__GNUC__)
    __builtin_prefetch(address);
#else
    (void)address;
#endif
}

/* Draws `current`, updates the cache and the scores, and returns the next
 * triangle, or VC_NONE when no cached vertex has a live triangle. */
static uint32_t vc_step(vc_state *s, uint32_t current, const uint32_t *crossing,
                        uint32_t crossing_count) {
    const uint32_t *corner = &s->corners[3 * (size_t)current];
    s->score[current] = VC_DRAWN;
    uint32_t aged[3 * VC_CACHE], aged_count = 0;
    /* In a local: for the compiler a store to a list might change s->clock. */
    uint32_t clock = s->clock;
    bool distinct = (corner[0] != corner[1]) & (corner[0] != corner[2]) & (corner[1] != corner[2]);
    if (!distinct) {
        for (int k = 0; k < 3; k++)
            vc_retire(s, corner[k], current);
    }
#pragma GCC unroll 3
    for (int k = 0; k < 3; k++) {
        uint32_t v = corner[k];
        vc_vertex *vertex = vc_at(s, v);
        vertex->live -= distinct; /* else vc_retire took it down; the list is walked below */
        if (clock - 1 - vertex->stamp < VC_CACHE)
            continue; /* a hit: a FIFO does not move it */
        /* An insertion ages every cached vertex by one. */
        for (uint32_t j = 0; j < crossing_count; j++) {
            uint32_t w = s->ring[(clock - crossing[j]) % VC_CACHE];
            aged[aged_count] = w;
            aged_count += vc_at(s, w)->live != 0; /* else its score is 0 and stays 0 */
        }
        s->ring[clock % VC_CACHE] = v;
        vertex->stamp = clock++;
    }
    s->clock = clock;
    uint32_t now = clock - 1;
    vc_best best = {VC_NONE, INT32_MIN};
    if (distinct) {
#pragma GCC unroll 3
        for (int k = 0; k < 3; k++)
            vc_rescore_retire(s, corner[k], now, current, &best);
    } else {
#pragma GCC unroll 3
        for (int k = 0; k < 3; k++)
            vc_rescore(s, corner[k], now, true, &best);
    }
    if (best.triangle != VC_NONE) /* most often the next: fetch its corners meanwhile */
        vc_prefetch(&s->corners[3 * (size_t)best.triangle]);
    for (uint32_t i = 0; i < aged_count; i++)
        vc_rescore(s, aged[i], now, false, &best);
    for (int i = 0; best.triangle == VC_NONE && i < VC_CACHE; i++) {
        uint32_t v = s->ring[i];
        if (now - vc_at(s, v)->stamp < VC_CACHE)
            vc_offer(s, v, 0, &best);
    }
    return best.triangle;
}

/* Orders the triangles of `indices` into `out` (which may be `indices`: the
 * build copies what the order reads). *crowded: a vertex had more than
 * VC_CROWDED corners, and nothing was ordered. */
static bool vc_order(uint32_t *out, const uint32_t *indices, size_t triangles, size_t vertex_count,
                     const uint32_t *original, const vertex_cache_scores *scores, bool *crowded) {
    vc_state *s = malloc(sizeof *s);
    uint32_t *places = NULL;
    if (s == NULL || !vc_alloc(s, triangles, vertex_count, &places)) {
        free(s);
        return false;
    }
    vc_table_make(&s->table, scores);
    bool valid = vc_build(s, indices, triangles, vertex_count, original, places, crowded);
    bool order = valid && (original != NULL || !*crowded);
    uint32_t crossing[VC_CACHE];
    uint32_t crossing_count = vc_crossings(&s->table, crossing);
    size_t cursor = 0;
    uint32_t current = 0;
    for (size_t done = 0; order && done < triangles; done++) {
        const uint32_t *corner = &s->corners[3 * (size_t)current];
#pragma GCC unroll 3
        for (int k = 0; k < 3; k++)
            out[3 * done + k] = vc_at(s, corner[k])->id;
        current = vc_step(s, current, crossing, crossing_count);
        if (current == VC_NONE) { /* dead end: the first triangle not drawn */
            while (cursor < triangles && s->score[cursor] == VC_DRAWN)
                cursor++;
            current = (uint32_t)cursor;
        }
    }
    free(s->vertices);
    free(s);
    return valid;
}

/* The indices with each crowded vertex's corners, in input order, VC_CROWDED
 * to a vertex: the first VC_CROWDED keep it, each next group names a new
 * vertex after the last (*split_count vertices in all); `original` names
 * every vertex's input index. The indices are known to be in range. */
static bool vc_split(const uint32_t *indices, size_t index_count, size_t vertex_count,
                     uint32_t **split, uint32_t **original, size_t *split_count) {
    uint32_t *seen = calloc(vertex_count ? vertex_count : 1, sizeof *seen);
    uint32_t *copy = malloc(index_count * sizeof *copy);
    /* At most one new vertex per VC_CROWDED corners. */
    size_t most = vertex_count + index_count / VC_CROWDED;
    uint32_t *names = malloc(most * sizeof *names);
    uint32_t *first_new = malloc((vertex_count ? vertex_count : 1) * sizeof *first_new);
    if (seen == NULL || copy == NULL || names == NULL || first_new == NULL) {
        free(seen);
        free(copy);
        free(names);
        free(first_new);
        return false;
    }
    for (size_t i = 0; i < index_count; i++)
        seen[indices[i]]++;
    size_t count = vertex_count;
    for (size_t v = 0; v < vertex_count; v++) {
        names[v] = (uint32_t)v;
        first_new[v] = (uint32_t)count;
        for (uint32_t group = 1; group < (seen[v] + VC_CROWDED - 1) / VC_CROWDED; group++)
            names[count++] = (uint32_t)v;
        seen[v] = 0;
    }
    for (size_t i = 0; i < index_count; i++) {
        uint32_t v = indices[i], group = seen[v]++ / VC_CROWDED;
        copy[i] = group == 0 ? v : first_new[v] + group - 1;
    }
    free(seen);
    free(first_new);
    *split = copy;
    *original = names;
    *split_count = count;
    return true;
}

bool vertex_cache_order_scored(uint32_t *indices, size_t index_count, size_t vertex_count,
                               const vertex_cache_scores *scores) {
    if (index_count % 3 != 0 || (index_count > 0 && indices == NULL))
        return false;
    size_t triangles = index_count / 3;
    /* Triangle numbers, places and the insertion clock (at most 3 per
     * triangle) are 32-bit. */
    if (triangles > (UINT32_MAX - 2 * VC_CACHE) / 3)
        return false;
    if (triangles < 2) /* nothing to order, but the indices are checked */
        return meshopt_triangles_valid(indices, index_count, vertex_count);
    bool crowded = false;
    if (!vc_order(indices, indices, triangles, vertex_count, NULL, scores, &crowded))
        return false;
    if (!crowded)
        return true;
    uint32_t *split = NULL, *original = NULL;
    size_t split_count = 0;
    if (!vc_split(indices, index_count, vertex_count, &split, &original, &split_count))
        return false;
    bool ordered = vc_order(indices, split, triangles, split_count, original, scores, &crowded);
    free(split);
    free(original);
    return ordered;
}

bool vertex_cache_order(uint32_t *indices, size_t index_count, size_t vertex_count) {
    return vertex_cache_order_scored(indices, index_count, vertex_count, &vertex_cache_tuned);
}

bool mesh_cache_order(uint32_t *indices, size_t index_count, const float *positions,
                      size_t vertex_count, cook_vertex_cache cache, bool overdraw) {
    if (cache == COOK_VERTEX_CACHE_MESHOPT)
        return meshopt_checked_order(indices, index_count, positions, vertex_count, overdraw);
    if (!vertex_cache_order(indices, index_count, vertex_count))
        return false;
    return !overdraw || meshopt_checked_overdraw(indices, index_count, positions, vertex_count);
}

bool mesh_cache_order_reduced(uint32_t *indices, size_t index_count, size_t vertex_count,
                              cook_vertex_cache cache) {
    if (cache == COOK_VERTEX_CACHE_MESHOPT)
        return meshopt_checked_order(indices, index_count, NULL, vertex_count, false);
    return vertex_cache_order_scored(indices, index_count, vertex_count,
                                     &vertex_cache_tuned_reduced);
}
