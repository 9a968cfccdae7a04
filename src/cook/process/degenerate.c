/*
 * degenerate.c — triangles that draw nothing new, dropped after welding and
 * before the stages whose cost they would multiply (vertex cache order,
 * simplification, meshlets): a triangle with two corners on one welded
 * vertex covers no area, and a repeat of a triangle of its submesh (the same
 * corners in the same winding) covers the same pixels again. A 278-byte glTF
 * of a million vertices at one point, or an OBJ of 33,333 copies of `f 1 2
 * 3`, was minutes in meshoptimizer's meshlet builder; after this it is one
 * pass over the indices. (gltfpack drops degenerate triangles the same way;
 * an exact repeat differs only where it is blended twice, which no source
 * asks for on purpose.)
 */
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

/* A triangle as the same key whichever corner comes first: rotated so the
 * smallest index leads (the winding, and so the facing, is kept). */
static void canonical(const uint32_t *t, uint32_t key[3]) {
    int first = t[0] <= t[1] && t[0] <= t[2] ? 0 : t[1] <= t[2] ? 1 : 2;
    for (int i = 0; i < 3; i++)
        key[i] = t[(first + i) % 3];
}

static uint64_t key_hash(const uint32_t key[3]) {
    uint64_t h = key[0] * 0x9e3779b97f4a7c15ull;
    h ^= (key[1] + 0x7f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
    h ^= (key[2] + 0x94d049bbull) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

#define DROPPED UINT32_MAX           /* in `next`: a triangle not kept */
#define CHAIN_STEPS_PER_TRIANGLE 16u /* the by-vertex pass's budget, then the table */

/* Marks in `next` each triangle of indices[0..count) that is degenerate or a
 * repeat of an earlier one (DROPPED), without moving anything. A repeat has
 * the same smallest corner, so candidates are chained per smallest corner
 * (`head`, vertex_count entries, zeroed by the caller: 1 + the last kept
 * triangle there). After welding, vertices are numbered in first-use order,
 * so a triangle's smallest corner is one used shortly before: the chains are
 * short and their heads, unlike a hash table's slots, are in the cache. A fan
 * of thousands of triangles around one vertex makes one chain long: past a
 * budget linear in the triangles the pass gives up (false) and the caller
 * uses the hash table, so the cost stays linear. */
static bool mark_by_first_vertex(const uint32_t *indices, uint32_t count, uint32_t *head,
                                 uint32_t *next, uint64_t *degenerate, uint64_t *repeated) {
    uint64_t budget = (uint64_t)CHAIN_STEPS_PER_TRIANGLE * (count / 3) + 64;
    uint64_t dropped_degenerate = 0, dropped_repeated = 0;
    for (uint32_t t = 0; t < count / 3; t++) {
        const uint32_t *tri = indices + 3 * (size_t)t;
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) {
            next[t] = DROPPED;
            dropped_degenerate++;
            continue;
        }
        uint32_t key[3];
        canonical(tri, key);
        bool seen = false;
        for (uint32_t other = head[key[0]]; other != 0; other = next[other - 1]) {
            if (budget-- == 0)
                return false;
            uint32_t other_key[3];
            canonical(indices + 3 * (size_t)(other - 1), other_key);
            if (other_key[1] == key[1] && other_key[2] == key[2]) {
                seen = true;
                break;
            }
        }
        if (seen) {
            next[t] = DROPPED;
            dropped_repeated++;
            continue;
        }
        next[t] = head[key[0]];
        head[key[0]] = t + 1;
    }
    *degenerate += dropped_degenerate;
    *repeated += dropped_repeated;
    return true;
}

/* The same marks through an open-addressing table of the kept triangles
 * (`slots` entries, a power of two over twice the triangle count, zeroed by
 * the caller: 1 + a kept triangle's number): linear in any input. */
static void mark_by_table(const uint32_t *indices, uint32_t count, uint32_t *table, size_t slots,
                          uint32_t *next, uint64_t *degenerate, uint64_t *repeated) {
    for (uint32_t t = 0; t < count / 3; t++) {
        const uint32_t *tri = indices + 3 * (size_t)t;
        next[t] = DROPPED;
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) {
            (*degenerate)++;
            continue;
        }
        uint32_t key[3];
        canonical(tri, key);
        size_t slot = (size_t)key_hash(key) & (slots - 1);
        bool seen = false;
        while (table[slot] != 0) {
            uint32_t other[3];
            canonical(indices + 3 * (size_t)(table[slot] - 1), other);
            if (memcmp(other, key, sizeof key) == 0) {
                seen = true;
                break;
            }
            slot = (slot + 1) & (slots - 1);
        }
        if (seen) {
            (*repeated)++;
            continue;
        }
        table[slot] = t + 1;
        next[t] = 0;
    }
}

/* The smallest of a triangle's corners. */
static uint32_t smallest_corner(const uint32_t *t) {
    uint32_t a = t[0] < t[1] ? t[0] : t[1];
    return a < t[2] ? a : t[2];
}

/* Keeps the first of each triangle in indices[0..count) (a multiple of 3),
 * compacted in place; returns how many indices are left, or UINT32_MAX when
 * out of memory. `head` has an entry per vertex, all zero, and is left so;
 * `next` has an entry per triangle. */
static uint32_t drop_in_range(uint32_t *indices, uint32_t count, uint32_t *head, uint32_t *next,
                              uint64_t *degenerate, uint64_t *repeated) {
    uint32_t triangles = count / 3;
    uint64_t first_degenerate = *degenerate, first_repeated = *repeated;
    bool marked = mark_by_first_vertex(indices, count, head, next, degenerate, repeated);
    /* Zero again only the heads this range set, not every vertex's: a mesh
     * of many submeshes must not cost submeshes x vertices. */
    for (uint32_t t = 0; t < triangles; t++)
        head[smallest_corner(indices + 3 * (size_t)t)] = 0;
    if (!marked) {
        *degenerate = first_degenerate;
        *repeated = first_repeated;
        size_t slots = 16;
        while (slots < (size_t)triangles * 2)
            slots *= 2;
        uint32_t *table = calloc(slots, sizeof *table);
        if (table == NULL)
            return UINT32_MAX;
        mark_by_table(indices, count, table, slots, next, degenerate, repeated);
        free(table);
    }
    /* Nothing moves before the first dropped triangle, usually none. */
    uint32_t first = 0;
    while (first < triangles && next[first] != DROPPED)
        first++;
    uint32_t kept = 3 * first;
    for (uint32_t t = first; t < triangles; t++) {
        if (next[t] == DROPPED)
            continue;
        memmove(indices + kept, indices + 3 * (size_t)t, 3 * sizeof *indices);
        kept += 3;
    }
    return kept;
}

bool process_drop_degenerate(ir_mesh *mesh, uint64_t *degenerate, uint64_t *repeated) {
    *degenerate = *repeated = 0;
    uint32_t largest = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        if (mesh->submeshes[s].topology == KILN_TOPOLOGY_TRIANGLES &&
            mesh->submeshes[s].index_count / 3 > largest)
            largest = mesh->submeshes[s].index_count / 3;
    }
    /* Compaction moves each submesh's range towards the front: the ranges
     * must follow one another in submesh order, as the importers lay them
     * out. Anything else is left as it is. */
    uint64_t end = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (sub->index_offset < end)
            return true;
        end = (uint64_t)sub->index_offset + sub->index_count;
    }
    if (largest == 0 || end > mesh->index_count)
        return true;
    uint32_t *head = calloc(mesh->vertex_count ? mesh->vertex_count : 1, sizeof *head);
    uint32_t *next = malloc((size_t)largest * sizeof *next);
    if (head == NULL || next == NULL) {
        free(head);
        free(next);
        return false;
    }
    /* Submeshes are compacted towards the front, in order. */
    uint32_t write = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        ir_submesh *sub = &mesh->submeshes[s];
        uint32_t *range = mesh->indices + sub->index_offset;
        uint32_t count = sub->index_count;
        if (sub->topology == KILN_TOPOLOGY_TRIANGLES &&
            (count = drop_in_range(range, count, head, next, degenerate, repeated)) == UINT32_MAX) {
            free(head);
            free(next);
            return false;
        }
        if (write != sub->index_offset) /* else in place already */
            memmove(mesh->indices + write, range, (size_t)count * sizeof *range);
        sub->index_offset = write;
        sub->index_count = count;
        write += count;
    }
    mesh->index_count = write;
    free(head);
    free(next);
    return true;
}
