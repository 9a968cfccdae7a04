/* optimize.c — welding and GPU-friendly ordering (meshoptimizer).
 *
 * process_weld merges vertices identical in every stream. process_optimize_order
 * reorders each submesh's triangles for the post-transform vertex cache and then
 * for overdraw (keeping cache efficiency within 5%); a large submesh is first
 * sorted spatially and then ordered chunk by chunk (chunks.c), in parallel. process_optimize_fetch
 * renumbers vertices in first-use order over the whole index buffer (level 0
 * first, then the reduced levels), so the vertex fetch streams through memory. */
#include <meshoptimizer.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"
#include "cook/parallel.h"

/* Every optional stream of a mesh, with its element size, for remapping. */
typedef struct mesh_stream_ref {
    void **data;
    size_t element_size;
} mesh_stream_ref;

static size_t mesh_streams(ir_mesh *mesh, mesh_stream_ref out[8]) {
    mesh_stream_ref all[] = {
        {(void **)&mesh->positions, 3 * sizeof(float)},
        {(void **)&mesh->normals, 3 * sizeof(float)},
        {(void **)&mesh->tangents, 4 * sizeof(float)},
        {(void **)&mesh->texcoords[0], 2 * sizeof(float)},
        {(void **)&mesh->texcoords[1], 2 * sizeof(float)},
        {(void **)&mesh->colors, 4 * sizeof(float)},
        {(void **)&mesh->joints, 4 * sizeof(uint16_t)},
        {(void **)&mesh->weights, 4 * sizeof(float)},
    };
    size_t count = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i].data != NULL)
            out[count++] = all[i];
    return count;
}

/* Applies `remap` (old vertex -> new vertex) to every stream and the indices. */
static bool remap_vertices(ir_mesh *mesh, const unsigned int *remap, size_t new_count) {
    mesh_stream_ref streams[8];
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
    meshopt_remapIndexBuffer(mesh->indices, mesh->indices, mesh->index_count, remap);
    mesh->vertex_count = (uint32_t)new_count;
    return true;
}

bool process_weld(ir_mesh *mesh) {
    if (mesh->vertex_count == 0)
        return true;
    mesh_stream_ref streams[8];
    size_t stream_count = mesh_streams(mesh, streams);
    struct meshopt_Stream meshopt_streams[8];
    for (size_t i = 0; i < stream_count; i++) {
        meshopt_streams[i].data = *streams[i].data;
        meshopt_streams[i].size = streams[i].element_size;
        meshopt_streams[i].stride = streams[i].element_size;
    }
    unsigned int *remap = malloc((size_t)mesh->vertex_count * sizeof *remap);
    if (remap == NULL)
        return false;
    size_t unique = meshopt_generateVertexRemapMulti(
        remap, mesh->indices, mesh->index_count, mesh->vertex_count, meshopt_streams, stream_count);
    bool ok = remap_vertices(mesh, remap, unique);
    free(remap);
    return ok;
}

/* Vertex cache order, then overdraw order, of one index range. */
static void order_range(uint32_t *indices, size_t count, const float *positions,
                        size_t vertex_count) {
    meshopt_optimizeVertexCache(indices, indices, count, vertex_count);
    /* 1.05: allow 5% worse vertex cache use for better overdraw. */
    meshopt_optimizeOverdraw(indices, indices, count, positions, vertex_count, 3 * sizeof(float),
                             1.05f);
}

typedef struct order_job {
    ir_mesh *mesh;
    const mesh_chunk *chunks;
    atomic_bool failed;
} order_job;

static void order_chunk(void *ctx, uint32_t index) {
    order_job *job = ctx;
    const mesh_chunk *chunk = &job->chunks[index];
    uint32_t *range = job->mesh->indices + chunk->index_offset;
    if (chunk->index_count == 0)
        return;
    if (!chunk->split) {
        order_range(range, chunk->index_count, job->mesh->positions, job->mesh->vertex_count);
        return;
    }
    mesh_local local;
    if (!mesh_local_build(&local, range, chunk->index_count, job->mesh->positions)) {
        atomic_store(&job->failed, true);
        return;
    }
    order_range(local.indices, local.index_count, local.positions, local.vertex_count);
    mesh_local_to_global(&local, local.indices, local.index_count, range);
    mesh_local_free(&local);
}

bool process_optimize_order(ir_mesh *mesh, const cook_settings *settings) {
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (mesh_chunk_count(sub->index_count / 3, settings) > 1 &&
            !mesh_sort_spatially(mesh->positions, mesh->indices + sub->index_offset,
                                 sub->index_count))
            return false;
    }
    uint32_t chunk_count = 0;
    mesh_chunk *chunks = mesh_chunks(mesh, settings, &chunk_count);
    if (chunks == NULL)
        return false;
    order_job job = {.mesh = mesh, .chunks = chunks};
    atomic_init(&job.failed, false);
    parallel_for(mesh_threads(settings), chunk_count, order_chunk, &job);
    free(chunks);
    return !atomic_load(&job.failed);
}

bool process_optimize_fetch(ir_mesh *mesh) {
    if (mesh->vertex_count == 0)
        return true;
    unsigned int *remap = malloc((size_t)mesh->vertex_count * sizeof *remap);
    if (remap == NULL)
        return false;
    /* Vertices no index uses are dropped (remap ~0u). */
    size_t used = meshopt_optimizeVertexFetchRemap(remap, mesh->indices, mesh->index_count,
                                                   mesh->vertex_count);
    bool ok = remap_vertices(mesh, remap, used);
    free(remap);
    return ok;
}
