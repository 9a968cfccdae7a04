/* chunks.c — large submeshes cut into spatial chunks of triangles.
 *
 * meshoptimizer's per-call cost grows with the whole vertex buffer and its
 * working set outgrows the caches on meshes of millions of triangles. A
 * submesh of at least two chunks' worth of triangles is therefore cut into
 * chunks that the order, LOD and meshlet stages process independently, on
 * the -j threads. The submesh's triangles are sorted along a Morton curve (the
 * order step sorts level 0 itself, LODs and meshlets a copy; curve.c), so
 * that contiguous ranges are spatially compact, and cut into chunks that depend
 * only on the triangles (never on the thread count): LODs and meshlets at
 * even counts, the order at block boundaries near them. Each chunk
 * runs on a compact copy of its vertices (a "local" mesh), so that a call
 * costs what the chunk holds, not what the mesh holds. */
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

uint32_t mesh_chunk_size(const cook_settings *settings) {
    return settings->mesh_chunk_triangles ? settings->mesh_chunk_triangles
                                          : KILN_MESH_CHUNK_TRIANGLES;
}

uint32_t mesh_chunk_count(uint32_t triangles, uint32_t chunk_triangles) {
    uint32_t count = triangles / (chunk_triangles ? chunk_triangles : 1);
    return count < 2 ? 1 : count;
}

uint32_t submesh_chunk_count(const ir_submesh *sub, uint32_t chunk_triangles) {
    if (sub->topology != KILN_TOPOLOGY_TRIANGLES)
        return 1; /* nothing per chunk pays for lines or points */
    return mesh_chunk_count(sub->index_count / 3, chunk_triangles);
}

mesh_chunk *mesh_chunks(const ir_mesh *mesh, uint32_t chunk_triangles, uint32_t *count) {
    size_t total = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++)
        total += submesh_chunk_count(&mesh->submeshes[s], chunk_triangles);
    mesh_chunk *chunks = malloc((total ? total : 1) * sizeof *chunks);
    if (chunks == NULL)
        return NULL;
    size_t next = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (sub->topology != KILN_TOPOLOGY_TRIANGLES) {
            chunks[next++] = (mesh_chunk){
                .submesh = s, .index_offset = sub->index_offset, .index_count = sub->index_count};
            continue;
        }
        uint64_t triangles = sub->index_count / 3;
        uint32_t n = mesh_chunk_count((uint32_t)triangles, chunk_triangles);
        /* Even sizes (differing by at most one triangle), no small last chunk. */
        for (uint32_t c = 0; c < n; c++) {
            uint64_t first = triangles * c / n, end = triangles * (c + 1) / n;
            chunks[next++] = (mesh_chunk){.submesh = s,
                                          .index_offset = sub->index_offset + 3 * (uint32_t)first,
                                          .index_count = 3 * (uint32_t)(end - first),
                                          .split = n > 1};
        }
    }
    *count = (uint32_t)total;
    return chunks;
}

size_t mesh_level0_end(const ir_mesh *mesh) {
    size_t end = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        size_t sub_end = (size_t)mesh->submeshes[s].index_offset + mesh->submeshes[s].index_count;
        end = sub_end > end ? sub_end : end;
    }
    return end;
}

uint32_t *mesh_level0_copy(const ir_mesh *mesh) {
    size_t end = mesh_level0_end(mesh);
    uint32_t *copy = malloc((end ? end : 1) * sizeof *copy);
    if (copy != NULL)
        memcpy(copy, mesh->indices, end * sizeof *copy);
    return copy;
}

bool mesh_sort_level0(const ir_mesh *mesh, uint32_t chunk_triangles, unsigned threads,
                      uint32_t *level0) {
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (submesh_chunk_count(sub, chunk_triangles) > 1 &&
            !mesh_sort_spatially_on(threads, mesh->positions, level0 + sub->index_offset,
                                    sub->index_count, NULL, NULL))
            return false;
    }
    return true;
}

uint32_t *mesh_spatial_level0(const ir_mesh *mesh, uint32_t chunk_triangles, unsigned threads) {
    uint32_t *copy = mesh_level0_copy(mesh);
    if (copy != NULL && !mesh_sort_level0(mesh, chunk_triangles, threads, copy)) {
        free(copy);
        return NULL;
    }
    return copy;
}

/* Local numbers through a table indexed by mesh vertex - lo: a chunk of a
 * spatially sorted submesh usually spans a vertex range not much wider than
 * its corners, and a direct lookup there beats hashing (fewer cache misses,
 * half the table). */
static void number_direct(mesh_local *local, const uint32_t *indices, size_t index_count,
                          uint32_t lo, uint32_t *table) {
    for (size_t i = 0; i < index_count; i++) {
        uint32_t *slot = &table[indices[i] - lo];
        if (*slot == UINT32_MAX) {
            *slot = (uint32_t)local->vertex_count;
            local->vertices[local->vertex_count++] = indices[i];
        }
        local->indices[i] = *slot;
    }
}

/* The same numbering through open addressing, global vertex -> local vertex,
 * for ranges too wide to index: more slots than indices so the table never
 * fills (a chunk has at most index_count vertices). */
static void number_hashed(mesh_local *local, const uint32_t *indices, size_t index_count,
                          uint32_t *keys, uint32_t *values, size_t slots) {
    for (size_t i = 0; i < index_count; i++) {
        uint32_t v = indices[i];
        size_t slot = (size_t)((v * 2654435761u) & (slots - 1));
        while (keys[slot] != v && keys[slot] != UINT32_MAX)
            slot = (slot + 1) & (slots - 1);
        if (keys[slot] == UINT32_MAX) {
            keys[slot] = v;
            values[slot] = (uint32_t)local->vertex_count;
            local->vertices[local->vertex_count++] = v;
        }
        local->indices[i] = values[slot];
    }
}

bool index_span_narrow(const uint32_t *indices, size_t index_count, uint32_t *lo, uint32_t *hi) {
    /* Kept in locals: through the pointers, which may alias the indices,
     * every step would store and reload them (and nothing vectorises). */
    uint32_t least = UINT32_MAX, most = 0;
    for (size_t i = 0; i < index_count; i++) {
        least = indices[i] < least ? indices[i] : least;
        most = indices[i] > most ? indices[i] : most;
    }
    *lo = least;
    *hi = most;
    return index_count == 0 || (size_t)most - least + 1 <= 2 * index_count;
}

bool mesh_local_build(mesh_local *local, const uint32_t *indices, size_t index_count,
                      const float *positions) {
    memset(local, 0, sizeof *local);
    uint32_t lo, hi;
    /* Both ways number vertices in first-use order: the same local mesh. */
    bool direct = index_span_narrow(indices, index_count, &lo, &hi);
    size_t range = index_count ? (size_t)hi - lo + 1 : 0;
    size_t slots = 1;
    while (!direct && slots <= index_count)
        slots *= 2;
    uint32_t *table = malloc((direct ? range + 1 : 2 * slots) * sizeof *table);
    local->indices = malloc((index_count ? index_count : 1) * sizeof *local->indices);
    local->vertices = malloc((index_count ? index_count : 1) * sizeof *local->vertices);
    bool ok = table && local->indices && local->vertices;
    if (ok) {
        memset(table, 0xff, (direct ? range : slots) * sizeof *table);
        if (direct)
            number_direct(local, indices, index_count, lo, table);
        else
            number_hashed(local, indices, index_count, table, table + slots, slots);
        local->index_count = index_count;
        local->positions =
            malloc((local->vertex_count ? local->vertex_count : 1) * 3 * sizeof *local->positions);
        ok = local->positions != NULL;
    }
    for (size_t v = 0; ok && v < local->vertex_count; v++)
        memcpy(local->positions + 3 * v, positions + 3 * (size_t)local->vertices[v],
               3 * sizeof *positions);
    free(table);
    if (!ok)
        mesh_local_free(local);
    return ok;
}

void mesh_local_to_global(const mesh_local *local, const uint32_t *in, size_t count,
                          uint32_t *out) {
    for (size_t i = 0; i < count; i++)
        out[i] = local->vertices[in[i]];
}

void mesh_local_free(mesh_local *local) {
    free(local->indices);
    free(local->vertices);
    free(local->positions);
    memset(local, 0, sizeof *local);
}
