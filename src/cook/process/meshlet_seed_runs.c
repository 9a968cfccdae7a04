/* meshlet_seed_runs.c — the nearest unused triangle for meshlet_build_sorted,
 * whose triangles come in spatial order.
 *
 * A tree of bounding boxes over runs of consecutive points, in their given
 * order: leaves of SEED_LEAF_POINTS points, each node the box of its two
 * children, stored as an implicit complete binary tree (node n's children
 * are 2n and 2n + 1). The triangles reach the builder in an order that is
 * already spatial (a large submesh's chunks are sorted along a Morton curve,
 * chunks.c; a small one is in vertex cache order, runs of neighbouring
 * triangles), so runs of consecutive centroids make compact boxes and the
 * tree is built in one pass, without the partitioning a k-d tree's splits
 * cost (which, over a build, came to a full tree: most of the search's
 * time). The search is exact whatever the order; only its speed depends on
 * it. Used points are not removed: a leaf found with none left unused is
 * marked empty, and so is a node whose children both are, so a search skips
 * emptied parts. */
#include <math.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cook/process/meshlet_build.h"

#define SEED_LEAF_POINTS 16u /* one SSE2 load holds a leaf's used bytes (unused_points) */
#define SEED_NONE UINT32_MAX
/* A search holds at most one pending node per level plus one: the tree of
 * 2^32 points has 29 levels. */
#define SEED_STACK 64u

typedef struct seed_box {
    float lo[3], hi[3];
} seed_box;

struct meshlet_runs {
    const float *points;
    size_t stride;
    uint32_t count;
    uint32_t first_leaf; /* a power of two: leaf i is node first_leaf + i */
    seed_box *boxes;     /* per node; an empty box (lo > hi) has no point */
    uint8_t *empty;      /* per node: nothing unused below it */
};

static void box_clear(seed_box *box) {
    for (int k = 0; k < 3; k++) {
        box->lo[k] = INFINITY;
        box->hi[k] = -INFINITY;
    }
}

meshlet_runs *meshlet_runs_create(const float *points, size_t stride, uint32_t count) {
    meshlet_runs *seed = calloc(1, sizeof *seed);
    if (seed == NULL)
        return NULL;
    uint32_t leaves = count / SEED_LEAF_POINTS + (count % SEED_LEAF_POINTS != 0);
    uint32_t first_leaf = 1;
    while (first_leaf < leaves)
        first_leaf *= 2;
    size_t nodes = 2 * (size_t)first_leaf;
    *seed = (meshlet_runs){
        .points = points, .stride = stride, .count = count, .first_leaf = first_leaf};
    seed->boxes = malloc(nodes * sizeof *seed->boxes);
    seed->empty = malloc(nodes);
    if (seed->boxes == NULL || seed->empty == NULL) {
        meshlet_runs_free(seed);
        return NULL;
    }
    /* Leaves: the box of their points (NaN coordinates leave it as it is,
     * so an all-NaN leaf has an empty box and is never searched). */
    for (uint32_t leaf = 0; leaf < first_leaf; leaf++) {
        seed_box *box = &seed->boxes[first_leaf + leaf];
        box_clear(box);
        uint32_t first = leaf * SEED_LEAF_POINTS;
        uint32_t end = leaf < leaves ? first + SEED_LEAF_POINTS : first;
        end = end < count ? end : count;
        for (uint32_t i = first; i < end; i++) {
            const float *p = points + stride * i;
            for (int k = 0; k < 3; k++) {
                box->lo[k] = p[k] < box->lo[k] ? p[k] : box->lo[k];
                box->hi[k] = p[k] > box->hi[k] ? p[k] : box->hi[k];
            }
        }
        seed->empty[first_leaf + leaf] = first >= end;
    }
    for (uint32_t node = first_leaf - 1; node >= 1; node--) {
        const seed_box *a = &seed->boxes[2 * node], *b = &seed->boxes[2 * node + 1];
        for (int k = 0; k < 3; k++) {
            seed->boxes[node].lo[k] = a->lo[k] < b->lo[k] ? a->lo[k] : b->lo[k];
            seed->boxes[node].hi[k] = a->hi[k] > b->hi[k] ? a->hi[k] : b->hi[k];
        }
        seed->empty[node] = seed->empty[2 * node] && seed->empty[2 * node + 1];
    }
    seed->empty[0] = 1; /* unused slot */
    return seed;
}

/* The squared distance from `p` to the box (0 inside; infinite for an empty
 * box or NaN). */
static float box_distance2(const seed_box *box, const float p[3]) {
    float sum = 0.0f;
    for (int k = 0; k < 3; k++) {
        float below = box->lo[k] - p[k], above = p[k] - box->hi[k];
        float d = below > 0.0f ? below : (above > 0.0f ? above : 0.0f);
        sum += d * d;
    }
    return box->lo[0] <= box->hi[0] && sum == sum ? sum : INFINITY;
}

/* Marks a leaf empty, and each ancestor whose children both are. */
static void leaf_emptied(meshlet_runs *seed, uint32_t node) {
    seed->empty[node] = 1;
    for (node /= 2; node >= 1 && seed->empty[2 * node] && seed->empty[2 * node + 1]; node /= 2)
        seed->empty[node] = 1;
}

/* Bit i set: point first + i of a leaf is unused. A full leaf's 16 used
 * bytes in one comparison: the point-by-point test mispredicts on leaves
 * that are partly used, which are most of those searched. */
static uint32_t unused_points(const uint8_t *used, uint32_t first, uint32_t end) {
#if defined(__SSE2__)
    _Static_assert(SEED_LEAF_POINTS == 16, "a leaf's used bytes are one 16-byte load");
    if (end - first == SEED_LEAF_POINTS) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(const void *)(used + first));
        return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128()));
    }
#endif
    uint32_t mask = 0;
    for (uint32_t i = first; i < end; i++)
        mask |= (uint32_t)(used[i] == 0) << (i - first);
    return mask;
}

/* The nearest unused point of a leaf into best/best2 (ties: the first met,
 * the lower-numbered within a leaf). */
static void search_leaf(meshlet_runs *seed, uint32_t node, const float position[3],
                        const uint8_t *used, uint32_t *best, float *best2) {
    uint32_t first = (node - seed->first_leaf) * SEED_LEAF_POINTS;
    uint32_t end = first + SEED_LEAF_POINTS < seed->count ? first + SEED_LEAF_POINTS : seed->count;
    uint32_t unused = unused_points(used, first, end);
    if (unused == 0)
        leaf_emptied(seed, node);
    for (; unused != 0; unused &= unused - 1) {
        uint32_t i = first + (uint32_t)__builtin_ctz(unused);
        const float *p = seed->points + seed->stride * i;
        float dx = p[0] - position[0], dy = p[1] - position[1], dz = p[2] - position[2];
        float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < *best2) {
            *best2 = d2;
            *best = i;
        }
    }
}

typedef struct seed_visit {
    uint32_t node;
    float bound2; /* no point below is nearer than this (squared) */
} seed_visit;

uint32_t meshlet_runs_nearest(meshlet_runs *seed, const float position[3], const uint8_t *used) {
    uint32_t best = SEED_NONE;
    float best2 = INFINITY;
    seed_visit stack[SEED_STACK];
    size_t pending = 0;
    if (!seed->empty[1])
        stack[pending++] = (seed_visit){1, box_distance2(&seed->boxes[1], position)};
    while (pending > 0 && best2 > 0.0f) {
        seed_visit visit = stack[--pending];
        if (seed->empty[visit.node] || !(visit.bound2 < best2))
            continue;
        if (visit.node >= seed->first_leaf) {
            search_leaf(seed, visit.node, position, used, &best, &best2);
            continue;
        }
        /* The nearer child last onto the stack, so it is searched first and
         * tightens best2 before the farther one is looked at. */
        uint32_t near = 2 * visit.node, far = near + 1;
        float near2 = box_distance2(&seed->boxes[near], position);
        float far2 = box_distance2(&seed->boxes[far], position);
        if (far2 < near2) {
            uint32_t node = near;
            float d2 = near2;
            near = far;
            near2 = far2;
            far = node;
            far2 = d2;
        }
        if (!seed->empty[far] && far2 < best2)
            stack[pending++] = (seed_visit){far, far2};
        if (!seed->empty[near] && near2 < best2)
            stack[pending++] = (seed_visit){near, near2};
    }
    return best;
}

void meshlet_runs_free(meshlet_runs *seed) {
    if (seed == NULL)
        return;
    free(seed->boxes);
    free(seed->empty);
    free(seed);
}
