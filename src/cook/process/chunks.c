/* chunks.c — large submeshes cut into spatial chunks of triangles.
 *
 * meshoptimizer's per-call cost grows with the whole vertex buffer and its
 * working set outgrows the caches on meshes of millions of triangles. A
 * submesh of at least two chunks' worth of triangles is therefore cut into
 * chunks that the order, LOD and meshlet stages process independently, on
 * the -j threads. The submesh's triangles are sorted along a Morton curve (the
 * order step sorts level 0 itself, LODs and meshlets a copy), so that
 * contiguous ranges are spatially compact, and cut into chunks that depend
 * only on the triangles (never on the thread count): LODs and meshlets at
 * even counts, the order at block boundaries near them. Each chunk
 * runs on a compact copy of its vertices (a "local" mesh), so that a call
 * costs what the chunk holds, not what the mesh holds. */
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

#define MORTON_BITS 10u /* per axis: 30-bit codes, 1024 cells per side */
#define RADIX_BITS 10u
#define RADIX_BUCKETS (1u << RADIX_BITS)

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

uint32_t *mesh_level0_copy(const ir_mesh *mesh) {
    size_t end = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        size_t sub_end = (size_t)mesh->submeshes[s].index_offset + mesh->submeshes[s].index_count;
        end = sub_end > end ? sub_end : end;
    }
    uint32_t *copy = malloc((end ? end : 1) * sizeof *copy);
    if (copy != NULL)
        memcpy(copy, mesh->indices, end * sizeof *copy);
    return copy;
}

bool mesh_sort_level0(const ir_mesh *mesh, uint32_t chunk_triangles, uint32_t *level0) {
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (submesh_chunk_count(sub, chunk_triangles) > 1 &&
            !mesh_sort_spatially(mesh->positions, level0 + sub->index_offset, sub->index_count))
            return false;
    }
    return true;
}

uint32_t *mesh_spatial_level0(const ir_mesh *mesh, uint32_t chunk_triangles) {
    uint32_t *copy = mesh_level0_copy(mesh);
    if (copy != NULL && !mesh_sort_level0(mesh, chunk_triangles, copy)) {
        free(copy);
        return NULL;
    }
    return copy;
}

/* Spreads the low 10 bits of v to every third bit. */
static uint32_t morton_spread(uint32_t v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

static float triangle_centroid(const float *positions, const uint32_t *tri, int axis) {
    return (positions[3 * (size_t)tri[0] + axis] + positions[3 * (size_t)tri[1] + axis] +
            positions[3 * (size_t)tri[2] + axis]) *
           (1.0f / 3.0f);
}

/* The cells of the curve over a set of triangles: their centroids' box. */
typedef struct curve_frame {
    float lo[3];
    float scale;
} curve_frame;

static curve_frame curve_frame_of(const float *positions, const uint32_t *indices,
                                  size_t triangles) {
    curve_frame frame;
    float hi[3];
    for (int a = 0; a < 3; a++)
        frame.lo[a] = hi[a] = triangle_centroid(positions, indices, a);
    for (size_t t = 1; t < triangles; t++)
        for (int a = 0; a < 3; a++) {
            float c = triangle_centroid(positions, indices + 3 * t, a);
            frame.lo[a] = c < frame.lo[a] ? c : frame.lo[a];
            hi[a] = c > hi[a] ? c : hi[a];
        }
    /* One scale for all axes keeps cells cubic, so chunks stay compact. */
    float extent = 0.0f;
    for (int a = 0; a < 3; a++)
        extent = hi[a] - frame.lo[a] > extent ? hi[a] - frame.lo[a] : extent;
    frame.scale = extent > 0.0f ? (float)((1u << MORTON_BITS) - 1) / extent : 0.0f;
    return frame;
}

/* The 30-bit Morton code of a triangle's centroid's cell. */
static uint32_t curve_code(const float *positions, const uint32_t *tri, const curve_frame *frame) {
    uint32_t cell[3];
    for (int a = 0; a < 3; a++) {
        float q = (triangle_centroid(positions, tri, a) - frame->lo[a]) * frame->scale;
        /* NaN and out-of-range centroids land in cell 0 or the last cell. */
        cell[a] =
            q > 0.0f ? (q < (float)(1u << MORTON_BITS) ? (uint32_t)q : (1u << MORTON_BITS) - 1) : 0;
    }
    return morton_spread(cell[0]) | morton_spread(cell[1]) << 1 | morton_spread(cell[2]) << 2;
}

bool mesh_sort_spatially(const float *positions, uint32_t *indices, size_t index_count) {
    size_t triangles = index_count / 3;
    if (triangles < 2)
        return true;
    curve_frame frame = curve_frame_of(positions, indices, triangles);

    /* Keys: Morton code above, triangle number below; a stable LSD radix
     * sort of the code keeps equal codes in source order (deterministic). */
    uint64_t *keys = malloc(2 * triangles * sizeof *keys);
    uint32_t *sorted = malloc(index_count * sizeof *sorted);
    if (keys == NULL || sorted == NULL) {
        free(keys);
        free(sorted);
        return false;
    }
    for (size_t t = 0; t < triangles; t++)
        keys[t] = (uint64_t)curve_code(positions, indices + 3 * t, &frame) << 32 | t;
    uint64_t *from = keys, *to = keys + triangles;
    for (uint32_t shift = 32; shift < 32 + 3 * MORTON_BITS; shift += RADIX_BITS) {
        size_t offsets[RADIX_BUCKETS] = {0};
        for (size_t t = 0; t < triangles; t++)
            offsets[(from[t] >> shift) & (RADIX_BUCKETS - 1)]++;
        size_t sum = 0;
        for (uint32_t b = 0; b < RADIX_BUCKETS; b++) {
            size_t n = offsets[b];
            offsets[b] = sum;
            sum += n;
        }
        for (size_t t = 0; t < triangles; t++)
            to[offsets[(from[t] >> shift) & (RADIX_BUCKETS - 1)]++] = from[t];
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    for (size_t t = 0; t < triangles; t++)
        memcpy(sorted + 3 * t, indices + 3 * (from[t] & 0xffffffffu), 3 * sizeof *sorted);
    memcpy(indices, sorted, triangles * 3 * sizeof *sorted);
    free(keys);
    free(sorted);
    return true;
}

/* The larger, the coarser the curve's block boundary between codes a and b
 * (0: the same cell). */
static int boundary_level(uint32_t a, uint32_t b) {
    uint32_t x = a ^ b;
    int level = 0;
    while (x != 0) {
        level++;
        x >>= 1;
    }
    return level;
}

bool mesh_curve_cuts(const float *positions, const uint32_t *indices, size_t index_count,
                     uint32_t count, uint32_t *cuts) {
    size_t triangles = index_count / 3;
    cuts[0] = 0;
    cuts[count] = (uint32_t)triangles;
    if (count < 2 || triangles < 2) {
        for (uint32_t c = 1; c < count; c++)
            cuts[c] = (uint32_t)(triangles * c / count);
        return true;
    }
    uint32_t *codes = malloc(triangles * sizeof *codes);
    if (codes == NULL)
        return false;
    curve_frame frame = curve_frame_of(positions, indices, triangles);
    for (size_t t = 0; t < triangles; t++)
        codes[t] = curve_code(positions, indices + 3 * t, &frame);
    /* Each cut moves, within half a chunk of the even cut, to the coarsest
     * block boundary (then the nearest one, then the earlier): a chunk is
     * then a few whole blocks of the curve, compact, instead of a block and
     * ragged pieces of its neighbours, whose borders cost the vertex cache. */
    size_t window = triangles / count / 2;
    for (uint32_t c = 1; c < count; c++) {
        size_t even = triangles * c / count, best = even;
        int best_level = -1;
        size_t first = even > window ? even - window : 1, last = even + window;
        for (size_t t = first < 1 ? 1 : first; t <= last && t < triangles; t++) {
            int level = boundary_level(codes[t - 1], codes[t]);
            size_t distance = t > even ? t - even : even - t;
            size_t best_distance = best > even ? best - even : even - best;
            if (level > best_level || (level == best_level && distance < best_distance)) {
                best_level = level;
                best = t;
            }
        }
        cuts[c] = (uint32_t)(best > cuts[c - 1] ? best : cuts[c - 1]);
    }
    free(codes);
    return true;
}

bool mesh_local_build(mesh_local *local, const uint32_t *indices, size_t index_count,
                      const float *positions) {
    memset(local, 0, sizeof *local);
    /* Open addressing, global vertex -> local vertex; more slots than indices
     * so the table never fills (a chunk has at most index_count vertices). */
    size_t slots = 1;
    while (slots <= index_count)
        slots *= 2;
    uint32_t *keys = malloc(slots * sizeof *keys);
    uint32_t *values = malloc(slots * sizeof *values);
    local->indices = malloc((index_count ? index_count : 1) * sizeof *local->indices);
    local->vertices = malloc((index_count ? index_count : 1) * sizeof *local->vertices);
    bool ok = keys && values && local->indices && local->vertices;
    if (ok) {
        memset(keys, 0xff, slots * sizeof *keys);
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
        local->index_count = index_count;
        local->positions =
            malloc((local->vertex_count ? local->vertex_count : 1) * 3 * sizeof *local->positions);
        ok = local->positions != NULL;
    }
    for (size_t v = 0; ok && v < local->vertex_count; v++)
        memcpy(local->positions + 3 * v, positions + 3 * (size_t)local->vertices[v],
               3 * sizeof *positions);
    free(keys);
    free(values);
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
