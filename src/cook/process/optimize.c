/* optimize.c — welding and GPU-friendly ordering (meshoptimizer).
 *
 * process_weld merges vertices identical in every stream. process_optimize_order
 * reorders each triangle submesh's triangles for the post-transform vertex cache and then
 * for overdraw (keeping cache efficiency within 5%), submeshes in parallel. process_optimize_fetch
 * renumbers vertices in first-use order over the whole index buffer (level 0
 * first, then the reduced levels), so the vertex fetch streams through memory,
 * and renumbers meshlet vertex lists built before it alike. */
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

/* Every optional stream of a mesh, with its element size, for remapping. */
typedef struct mesh_stream_ref {
    void **data;
    size_t element_size;
} mesh_stream_ref;

#define MESH_STREAM_MAX 10

static size_t mesh_streams(ir_mesh *mesh, mesh_stream_ref out[MESH_STREAM_MAX]) {
    mesh_stream_ref all[] = {
        {(void **)&mesh->positions, 3 * sizeof(float)},
        {(void **)&mesh->normals, 3 * sizeof(float)},
        {(void **)&mesh->tangents, 4 * sizeof(float)},
        {(void **)&mesh->texcoords[0], 2 * sizeof(float)},
        {(void **)&mesh->texcoords[1], 2 * sizeof(float)},
        {(void **)&mesh->colors, 4 * sizeof(float)},
        {(void **)&mesh->joints, 4 * sizeof(uint16_t)},
        {(void **)&mesh->weights, 4 * sizeof(float)},
        {(void **)&mesh->joints1, 4 * sizeof(uint16_t)},
        {(void **)&mesh->weights1, 4 * sizeof(float)},
    };
    size_t count = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i].data != NULL)
            out[count++] = all[i];
    return count;
}

/* Applies `remap` (old vertex -> new vertex) to every stream and the indices. */
static bool remap_vertices(ir_mesh *mesh, const unsigned int *remap, size_t new_count) {
    mesh_stream_ref streams[MESH_STREAM_MAX];
    size_t stream_count = mesh_streams(mesh, streams);
    for (size_t i = 0; i < stream_count; i++) {
        void *remapped = malloc(new_count ? new_count * streams[i].element_size : 1);
        if (remapped == NULL)
            return false;
        meshopt_remapVertexBuffer(remapped, *streams[i].data, mesh->vertex_count,
                                  streams[i].element_size, remap);
        free(*streams[i].data);
        *streams[i].data = remapped;
    }
    /* meshopt_remapIndexBuffer's loop, without its multiple-of-3 assert. */
    for (uint32_t i = 0; i < mesh->index_count; i++)
        mesh->indices[i] = remap[mesh->indices[i]];
    /* Meshlets may be built before the fetch remap (mesh.c); they only
     * reference level-0 vertices, which every remap keeps. */
    for (uint32_t i = 0; i < mesh->meshlet_vertex_count; i++)
        mesh->meshlet_vertices[i] = remap[mesh->meshlet_vertices[i]];
    mesh->vertex_count = (uint32_t)new_count;
    return true;
}

bool process_weld(ir_mesh *mesh) {
    if (mesh->vertex_count == 0)
        return true;
    mesh_stream_ref streams[MESH_STREAM_MAX];
    size_t stream_count = mesh_streams(mesh, streams);
    struct meshopt_Stream meshopt_streams[MESH_STREAM_MAX];
    for (size_t i = 0; i < stream_count; i++) {
        meshopt_streams[i].data = *streams[i].data;
        meshopt_streams[i].size = streams[i].element_size;
        meshopt_streams[i].stride = streams[i].element_size;
    }
    unsigned int *remap = malloc((size_t)mesh->vertex_count * sizeof *remap);
    if (remap == NULL)
        return false;
    size_t unique = meshopt_checked_vertex_remap(remap, mesh->indices, mesh->index_count,
                                                 mesh->vertex_count, meshopt_streams, stream_count);
    bool ok = unique != SIZE_MAX && remap_vertices(mesh, remap, unique);
    free(remap);
    return ok;
}

/* Vertex cache order, then overdraw order, of one index range. */
static void order_range(uint32_t *indices, size_t count, const float *positions,
                        size_t vertex_count) {
    meshopt_checked_order(indices, count, positions, vertex_count, true);
}

void order_submesh(void *mesh_, uint32_t index) {
    ir_mesh *mesh = mesh_;
    const ir_submesh *sub = &mesh->submeshes[index];
    /* The vertex cache and overdraw orders are about triangles; lines and
     * points keep the order the source drew them in. */
    if (sub->index_count > 0 && sub->topology == KILN_TOPOLOGY_TRIANGLES)
        order_range(mesh->indices + sub->index_offset, sub->index_count, mesh->positions,
                    mesh->vertex_count);
}

/* Whole submeshes, not chunks: ordering chunks separately costs vertex cache
 * efficiency (ACMR 0.656 -> 0.672 with 3 chunks, 0.682 with 15 on the 1M
 * grid; BENCHMARKS.md), which every frame drawn would pay. */
bool process_optimize_order(ir_mesh *mesh, const cook_settings *settings) {
    parallel_for(settings->threads, mesh->submesh_count, order_submesh, mesh);
    return true;
}

bool process_optimize_fetch(ir_mesh *mesh) {
    if (mesh->vertex_count == 0)
        return true;
    unsigned int *remap = malloc((size_t)mesh->vertex_count * sizeof *remap);
    if (remap == NULL)
        return false;
    /* Vertices no index uses are dropped (remap ~0u). */
    size_t used =
        meshopt_checked_fetch_remap(remap, mesh->indices, mesh->index_count, mesh->vertex_count);
    bool ok = used != SIZE_MAX && remap_vertices(mesh, remap, used);
    free(remap);
    return ok;
}
