/* order.c — the vertex cache and overdraw order of level 0, chunk by chunk.
 *
 * meshoptimizer's orders are serial and cost ~180 ms per million triangles.
 * A submesh large enough to be cut into chunks (chunks.c) is sorted along a
 * Morton curve in place and cut at block boundaries of the curve
 * (mesh_curve_cuts), then each chunk is ordered on its own, on a compact copy
 * of its vertices, on the -j threads; the chunks' orders follow each other in
 * curve order. The cuts depend only on the triangles, so the bytes do not
 * depend on the thread count. The cost is the vertices on chunk borders,
 * transformed once per chunk they touch (BENCHMARKS.md, "Vertex cache and
 * size"). Smaller submeshes are ordered whole, as before; lines and points
 * keep the order the source drew them in. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

/* A range of level 0 ordered as one. */
typedef struct order_range {
    uint32_t index_offset;
    uint32_t index_count;
    bool local; /* a chunk of a split submesh: ordered over a local copy */
} order_range;

struct order_job {
    ir_mesh *mesh;
    order_range *ranges;
    uint32_t range_count;
    uint32_t *spatial;       /* the curve-sorted copy of level 0, when asked for */
    cook_vertex_cache cache; /* whose cache order (mesh.vertex_cache) */
    atomic_bool failed;
};

/* A chunk through its local copy, so that the orders cost what the chunk
 * holds, not the whole vertex buffer. False when out of memory. */
static bool order_local(uint32_t *indices, size_t index_count, const float *positions,
                        cook_vertex_cache cache) {
    mesh_local local;
    if (!mesh_local_build(&local, indices, index_count, positions))
        return false;
    /* Like the whole-submesh call, an order that refuses its input leaves
     * the triangles as they are (the driver checked the indices: this does
     * not happen on a valid IR). */
    if (mesh_cache_order(local.indices, local.index_count, local.positions, local.vertex_count,
                         cache, true))
        mesh_local_to_global(&local, local.indices, local.index_count, indices);
    mesh_local_free(&local);
    return true;
}

static void order_item(void *job_, uint32_t index) {
    order_job *job = job_;
    const order_range *range = &job->ranges[index];
    ir_mesh *mesh = job->mesh;
    uint32_t *indices = mesh->indices + range->index_offset;
    if (!range->local)
        mesh_cache_order(indices, range->index_count, mesh->positions, mesh->vertex_count,
                         job->cache, true);
    else if (!order_local(indices, range->index_count, mesh->positions, job->cache))
        atomic_store(&job->failed, true); /* out of memory */
}

/* Sorts each submesh that is cut into chunks along the curve, in place, and
 * plans the ranges of every triangle submesh with triangles: each chunk of a
 * cut submesh, at the cuts its sort's codes give, else the whole submesh.
 * With job->spatial, every submesh's range is also copied there, a sorted
 * one by the sort itself (which gathers it into that copy before writing it
 * back: no second pass over the indices). */
static bool sort_and_plan(order_job *job, uint32_t chunk_triangles, unsigned threads) {
    ir_mesh *mesh = job->mesh;
    size_t total = 0, codes_size = 1;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        total += submesh_chunk_count(sub, chunk_triangles);
        if (submesh_chunk_count(sub, chunk_triangles) > 1 && sub->index_count / 3 > codes_size)
            codes_size = sub->index_count / 3;
    }
    job->ranges = malloc((total ? total : 1) * sizeof *job->ranges);
    uint32_t *cuts = malloc((total + 1) * sizeof *cuts);
    uint32_t *codes = total > mesh->submesh_count ? malloc(codes_size * sizeof *codes) : NULL;
    bool ok = job->ranges != NULL && cuts != NULL && (total == mesh->submesh_count || codes);
    for (uint32_t s = 0; ok && s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        uint32_t *copy = job->spatial != NULL ? job->spatial + sub->index_offset : NULL;
        uint32_t count = submesh_chunk_count(sub, chunk_triangles);
        bool sorted = sub->topology == KILN_TOPOLOGY_TRIANGLES && sub->index_count > 0 && count > 1;
        if (sorted)
            ok = mesh_sort_spatially_on(threads, mesh->positions, mesh->indices + sub->index_offset,
                                        sub->index_count, codes, copy);
        else if (copy != NULL)
            memcpy(copy, mesh->indices + sub->index_offset, sub->index_count * sizeof *copy);
        if (sub->topology != KILN_TOPOLOGY_TRIANGLES || sub->index_count == 0)
            continue;
        if (ok)
            mesh_curve_cuts_of(codes, sub->index_count / 3, count, cuts);
        for (uint32_t c = 0; ok && c < count; c++)
            job->ranges[job->range_count++] =
                (order_range){.index_offset = sub->index_offset + 3 * cuts[c],
                              .index_count = 3 * (cuts[c + 1] - cuts[c]),
                              .local = count > 1};
    }
    free(cuts);
    free(codes);
    return ok;
}

order_job *order_begin(ir_mesh *mesh, uint32_t chunk_triangles, unsigned threads,
                       cook_vertex_cache cache, bool spatial, mesh_step *step) {
    order_job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return NULL;
    job->mesh = mesh;
    job->cache = cache;
    atomic_init(&job->failed, false);
    bool ok = true;
    if (spatial) {
        size_t end = mesh_level0_end(mesh);
        ok = (job->spatial = malloc((end ? end : 1) * sizeof *job->spatial)) != NULL;
    }
    ok = ok && sort_and_plan(job, chunk_triangles, threads);
    if (!ok) {
        order_end(job);
        return NULL;
    }
    *step = (mesh_step){.job = job, .items = job->range_count, .item = order_item};
    return job;
}

const uint32_t *order_spatial_level0(const order_job *job) {
    return job->spatial;
}

bool order_end(order_job *job) {
    if (job == NULL)
        return false;
    bool ok = !atomic_load(&job->failed);
    free(job->ranges);
    free(job->spatial);
    free(job);
    return ok;
}

bool process_optimize_order(ir_mesh *mesh, const cook_settings *settings) {
    mesh_step step;
    order_job *job = order_begin(mesh, mesh_chunk_size(settings), settings->threads,
                                 settings->mesh_vertex_cache, false, &step);
    if (job == NULL)
        return false;
    parallel_for(settings->threads, step.items, step.item, step.job);
    return order_end(job);
}
