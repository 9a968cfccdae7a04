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

/* Keeps the first of each triangle in indices[0..count) (a multiple of 3),
 * compacted in place; returns how many indices are left. `table` has
 * `slots` entries (a power of two over the triangle count), zeroed by the
 * caller: each holds 1 + the index of a kept triangle's first corner. */
static uint32_t drop_in_range(uint32_t *indices, uint32_t count, uint32_t *table, size_t slots,
                              uint64_t *degenerate, uint64_t *repeated) {
    uint32_t kept = 0;
    for (uint32_t at = 0; at + 3 <= count; at += 3) {
        const uint32_t *t = indices + at;
        if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) {
            (*degenerate)++;
            continue;
        }
        uint32_t key[3];
        canonical(t, key);
        size_t slot = (size_t)key_hash(key) & (slots - 1);
        bool seen = false;
        while (table[slot] != 0) {
            uint32_t other[3];
            canonical(indices + table[slot] - 1, other);
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
        memmove(indices + kept, t, 3 * sizeof *t);
        table[slot] = kept + 1;
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
    size_t slots = 16;
    while (slots < (size_t)largest * 2)
        slots *= 2;
    uint32_t *table = malloc(slots * sizeof *table);
    if (table == NULL)
        return false;
    /* Submeshes are compacted towards the front, in order. */
    uint32_t write = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        ir_submesh *sub = &mesh->submeshes[s];
        uint32_t *range = mesh->indices + sub->index_offset;
        uint32_t count = sub->index_count;
        if (sub->topology == KILN_TOPOLOGY_TRIANGLES) {
            size_t used = 16;
            while (used < (size_t)(count / 3) * 2)
                used *= 2;
            memset(table, 0, used * sizeof *table);
            count = drop_in_range(range, count, table, used, degenerate, repeated);
        }
        memmove(mesh->indices + write, range, (size_t)count * sizeof *range);
        sub->index_offset = write;
        sub->index_count = count;
        write += count;
    }
    mesh->index_count = write;
    free(table);
    return true;
}
