/* meshlet_seed.c — the nearest unused triangle, for a meshlet that has run out
 * of neighbours (meshlet_build.c).
 *
 * A k-d tree over triangle centroids, as in meshoptimizer's clusterizer, but
 * built lazily: a node is split (at the middle of its points' box, along the
 * longest side) only when a search first enters it, and a split leaves the
 * used points out. A build asks for the nearest triangle a few hundred times
 * per million triangles, near where it is working, so most of the tree is
 * never built, and what is built late holds only what is left. A leaf keeps
 * its unused points first and a node knows whether anything is left below it,
 * so a search skips emptied subtrees. The tree keeps its own copy of the
 * points in tree order (memory read front to back); build and search walk
 * explicit stacks, since a skewed mesh can make the tree deep. */
#include <math.h>
#include <stdlib.h>

#include "common/grow.h"
#include "cook/process/meshlet_build.h"

#define SEED_LEAF_POINTS 16u
#define SEED_NONE UINT32_MAX

typedef enum seed_kind { SEED_UNSPLIT, SEED_LEAF, SEED_BRANCH } seed_kind;

typedef struct seed_node {
    seed_kind kind;
    uint32_t parent; /* SEED_NONE at the root */
    uint32_t live;   /* unsplit or leaf: its points not known used; branch: children not empty */
    uint32_t first;  /* unsplit or leaf: its points are order[first .. first + live) */
    uint32_t axis;   /* branch */
    float split;     /* branch: left holds the points below it on axis */
    uint32_t left, right;
    float lo[3], hi[3]; /* unsplit: the box of its points */
} seed_node;

typedef struct seed_point {
    float xyz[3];
    uint32_t point;
} seed_point;

typedef struct seed_visit {
    uint32_t node;
    float bound2; /* no point below is nearer than this (squared) */
} seed_visit;

struct meshlet_seed {
    seed_node *nodes;
    size_t node_count, node_cap;
    seed_visit *visits;
    size_t visit_cap;
    seed_point *order; /* by node, a node's unused ones first */
};

static void box_of(const seed_point *points, uint32_t count, float lo[3], float hi[3]) {
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < count; i++)
        for (int k = 0; k < 3; k++) {
            float x = points[i].xyz[k];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
}

meshlet_seed *meshlet_seed_create(const float *points, size_t stride, uint32_t count) {
    meshlet_seed *seed = calloc(1, sizeof *seed);
    if (seed == NULL)
        return NULL;
    seed->order = malloc((count ? count : 1) * sizeof *seed->order);
    seed->nodes = array_grow(NULL, &seed->node_cap, 1, sizeof *seed->nodes, 256);
    if (seed->order == NULL || seed->nodes == NULL) {
        meshlet_seed_free(seed);
        return NULL;
    }
    for (uint32_t i = 0; i < count; i++) {
        const float *p = points + stride * i;
        seed->order[i] = (seed_point){{p[0], p[1], p[2]}, i};
    }
    seed_node *root = &seed->nodes[0];
    *root = (seed_node){.kind = SEED_UNSPLIT, .parent = SEED_NONE, .live = count, .first = 0};
    box_of(seed->order, count, root->lo, root->hi);
    seed->node_count = 1;
    return seed;
}

/* Marks `node` empty, and its ancestors as far as they become empty. */
static void node_emptied(meshlet_seed *seed, uint32_t node) {
    seed->nodes[node].live = 0;
    for (uint32_t up = seed->nodes[node].parent; up != SEED_NONE; up = seed->nodes[up].parent)
        if (--seed->nodes[up].live > 0)
            break;
}

/* Moves a node's used points behind its unused ones; returns how many are left. */
static uint32_t drop_used(meshlet_seed *seed, seed_node *node, const uint8_t *used) {
    seed_point *points = seed->order + node->first;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < node->live; i++) {
        seed_point p = points[i];
        points[i] = points[kept];
        points[kept] = p;
        kept += used[p.point] == 0;
    }
    return kept;
}

/* Splits an unsplit node in two at the middle of its box's longest side
 * (the halves' boxes measured on the way), leaving its used points out, or
 * makes it a leaf when it is small or no split separates its points (all
 * equal, or NaN). False when memory runs out. */
static bool split_node(meshlet_seed *seed, uint32_t index, const uint8_t *used) {
    seed_node *node = &seed->nodes[index];
    float lo[2][3], hi[2][3];
    uint32_t middle = 0, axis = 0;
    float split = 0.0f;
    /* A node's box was its points' when it was made; with used points gone a
     * side may come out empty: then again with the box of what is left. */
    for (int attempt = 0;; attempt++) {
        if (node->live <= SEED_LEAF_POINTS || attempt == 2) {
            node->kind = SEED_LEAF;
            return true;
        }
        axis = 0;
        for (uint32_t k = 1; k < 3; k++)
            if (node->hi[k] - node->lo[k] > node->hi[axis] - node->lo[axis])
                axis = k;
        split = node->lo[axis] + (node->hi[axis] - node->lo[axis]) * 0.5f;
        /* Without branches: which side a point goes to is a coin toss the
         * branch predictor loses. [1] is the left side, [0] the right. */
        for (int k = 0; k < 3; k++) {
            lo[0][k] = lo[1][k] = INFINITY;
            hi[0][k] = hi[1][k] = -INFINITY;
        }
        /* One pass: [0, middle) left, [middle, kept) right, then the used. */
        seed_point *points = seed->order + node->first;
        uint32_t kept = 0;
        middle = 0;
        for (uint32_t i = 0; i < node->live; i++) {
            seed_point p = points[i];
            if (used[p.point])
                continue;
            bool goes_left = p.xyz[axis] < split;
            points[i] = points[kept];
            points[kept++] = points[middle];
            points[middle] = p;
            middle += goes_left;
            for (int k = 0; k < 3; k++) {
                float x = p.xyz[k];
                lo[1][k] = goes_left && x < lo[1][k] ? x : lo[1][k];
                hi[1][k] = goes_left && x > hi[1][k] ? x : hi[1][k];
                lo[0][k] = !goes_left && x < lo[0][k] ? x : lo[0][k];
                hi[0][k] = !goes_left && x > hi[0][k] ? x : hi[0][k];
            }
        }
        node->live = kept;
        if (middle > 0 && middle < kept)
            break;
        int side = middle > 0; /* the one side that has points */
        for (int k = 0; k < 3; k++) {
            node->lo[k] = lo[side][k];
            node->hi[k] = hi[side][k];
        }
    }
    seed_node *grown =
        array_grow(seed->nodes, &seed->node_cap, seed->node_count + 2, sizeof *grown, 256);
    if (grown == NULL)
        return false;
    seed->nodes = grown;
    node = &seed->nodes[index];
    uint32_t children[2] = {(uint32_t)seed->node_count, (uint32_t)seed->node_count + 1};
    seed->node_count += 2;
    for (int side = 0; side < 2; side++) {
        seed_node *child = &seed->nodes[children[side]];
        *child = (seed_node){.kind = SEED_UNSPLIT, .parent = index};
        child->first = side ? node->first : node->first + middle;
        child->live = side ? middle : node->live - middle;
        for (int k = 0; k < 3; k++) {
            child->lo[k] = lo[side][k];
            child->hi[k] = hi[side][k];
        }
    }
    node->kind = SEED_BRANCH;
    node->axis = axis;
    node->split = split;
    node->left = children[1];
    node->right = children[0];
    node->live = 2;
    return true;
}

static float distance2(const float *a, const float *b) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* The nearest unused point of a leaf, forgetting the used ones it meets. */
static void search_leaf(meshlet_seed *seed, uint32_t index, const float position[3],
                        const uint8_t *used, uint32_t *best, float *best2) {
    seed_node *node = &seed->nodes[index];
    node->live = drop_used(seed, node, used);
    if (node->live == 0) {
        node_emptied(seed, index);
        return;
    }
    for (uint32_t i = node->first; i < node->first + node->live; i++) {
        float d2 = distance2(seed->order[i].xyz, position);
        if (d2 < *best2) {
            *best2 = d2;
            *best = seed->order[i].point;
        }
    }
}

uint32_t meshlet_seed_nearest(meshlet_seed *seed, const float position[3], const uint8_t *used) {
    uint32_t best = SEED_NONE;
    float best2 = INFINITY;
    size_t pending = 0;
    /* The stack holds each node at most once: room for node_count. */
    seed_visit *room =
        array_grow(seed->visits, &seed->visit_cap, seed->node_count, sizeof *room, 256);
    if (room == NULL)
        return SEED_NONE;
    seed->visits = room;
    seed->visits[pending++] = (seed_visit){0, 0.0f};
    while (pending > 0 && best2 > 0.0f) {
        seed_visit visit = seed->visits[--pending];
        if (seed->nodes[visit.node].live == 0 || visit.bound2 >= best2)
            continue;
        if (seed->nodes[visit.node].kind == SEED_UNSPLIT) {
            if (!split_node(seed, visit.node, used))
                return SEED_NONE;
            room = array_grow(seed->visits, &seed->visit_cap, seed->node_count, sizeof *room, 256);
            if (room == NULL)
                return SEED_NONE;
            seed->visits = room;
        }
        const seed_node *node = &seed->nodes[visit.node];
        if (node->kind == SEED_LEAF) {
            search_leaf(seed, visit.node, position, used, &best, &best2);
            continue;
        }
        /* The far side first onto the stack, so the near side is searched
         * first and tightens best2 before the far side is looked at. */
        float delta = position[node->axis] - node->split;
        uint32_t near = delta < 0.0f ? node->left : node->right;
        uint32_t far = near == node->left ? node->right : node->left;
        float far2 = delta * delta;
        seed->visits[pending++] = (seed_visit){far, far2 > visit.bound2 ? far2 : visit.bound2};
        seed->visits[pending++] = (seed_visit){near, visit.bound2};
    }
    return best;
}

void meshlet_seed_free(meshlet_seed *seed) {
    if (seed == NULL)
        return;
    free(seed->nodes);
    free(seed->visits);
    free(seed->order);
    free(seed);
}
