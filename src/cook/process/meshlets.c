/* meshlets.c — meshlets with culling data per submesh.
 *
 * Built from each triangle submesh's full-detail triangles by kiln's builder
 * (meshlet_build.c) or meshoptimizer's (mesh.meshlet_builder), bounds and
 * cones by kiln either way (meshlet_bounds.c: meshoptimizer's method on each
 * vertex once instead of every corner). meshoptimizer pads each
 * meshlet's triangle bytes to a multiple of 4; kiln stores them densely (3
 * bytes per triangle, triangle_offset counted in triangles), which the format
 * promises and which saves up to 3 bytes per meshlet. A large submesh's
 * meshlets are built chunk by chunk (chunks.c), in parallel, so no meshlet
 * spans two chunks. */
#include <meshoptimizer.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "cook/process/meshlet_build.h"
#include "cook/process/process.h"

#define MESHLET_CONE_WEIGHT 0.25f /* favour tighter normal cones a little */

typedef struct meshlet_buffers {
    ir_meshlet *meshlets;
    size_t meshlet_count, meshlet_cap;
    uint32_t *vertices;
    size_t vertex_count, vertex_cap;
    uint8_t *triangles;
    size_t triangle_count, triangle_cap; /* in triangles */
} meshlet_buffers;

/* Room for `needed` elements in one of the buffers (array_grow). */
static bool grow(void **data, size_t *cap, size_t needed, size_t element) {
    void *grown = array_grow(*data, cap, needed, element, 64);
    if (grown == NULL)
        return false;
    *data = grown;
    return true;
}

/* meshoptimizer's meshlets over `indices`, in the dense layout of
 * meshlet_build: each meshlet's triangles moved down over meshoptimizer's
 * padding (in place: a dense offset is never past a padded one). */
static bool build_meshopt(meshlet_span **spans_out, uint32_t **vertices_out,
                          uint8_t **triangles_out, size_t *count_out, const float *positions,
                          size_t vertex_count, const uint32_t *indices, size_t index_count,
                          size_t max_vertices, size_t max_triangles) {
    if (!meshopt_meshlet_limits_valid(max_vertices, max_triangles))
        return false; /* meshlets_begin already brought them into range */
    size_t bound = meshopt_buildMeshletsBound(index_count, max_vertices, max_triangles);
    struct meshopt_Meshlet *meshlets = malloc((bound ? bound : 1) * sizeof *meshlets);
    meshlet_span *spans = malloc((bound ? bound : 1) * sizeof *spans);
    unsigned int *vertices = malloc((bound * max_vertices + 1) * sizeof *vertices);
    unsigned char *triangles = malloc(bound * max_triangles * 3 + 1);
    bool ok = meshlets && spans && vertices && triangles;
    size_t count = 0;
    if (ok)
        count = meshopt_buildMeshlets(meshlets, vertices, triangles, indices, index_count,
                                      positions, vertex_count, 3 * sizeof(float), max_vertices,
                                      max_triangles, MESHLET_CONE_WEIGHT);
    uint32_t dense = 0;
    for (size_t m = 0; ok && m < count; m++) {
        const struct meshopt_Meshlet *src = &meshlets[m];
        spans[m] =
            (meshlet_span){src->vertex_offset, dense, src->vertex_count, src->triangle_count};
        memmove(triangles + 3 * (size_t)dense, triangles + src->triangle_offset,
                3 * (size_t)src->triangle_count);
        dense += src->triangle_count;
    }
    free(meshlets);
    if (!ok) {
        free(spans);
        free(vertices);
        free(triangles);
        return false;
    }
    *spans_out = spans;
    *vertices_out = vertices;
    *triangles_out = triangles;
    *count_out = count;
    return true;
}

/* kiln's meshlets over `indices` (meshlet_build.c; `sorted_span`: NULL for
 * a whole submesh, else a chunk of a large one in spatial order whose
 * indices lie in [sorted_span[0], sorted_span[1]]). */
static bool build_kiln(meshlet_span **spans_out, uint32_t **vertices_out, uint8_t **triangles_out,
                       size_t *count_out, const float *positions, size_t vertex_count,
                       const uint32_t *indices, size_t index_count, size_t max_vertices,
                       size_t max_triangles, const uint32_t *sorted_span) {
    size_t bound = meshlet_build_bound(index_count, max_vertices, max_triangles);
    meshlet_span *spans = malloc((bound ? bound : 1) * sizeof *spans);
    uint32_t *vertices = malloc((index_count ? index_count : 1) * sizeof *vertices);
    uint8_t *triangles = malloc(index_count ? index_count : 1);
    bool ok = spans != NULL && vertices != NULL && triangles != NULL;
    if (ok && sorted_span != NULL)
        ok = meshlet_build_sorted_in(spans, vertices, triangles, count_out, indices, index_count,
                                     positions, vertex_count, max_vertices, max_triangles,
                                     MESHLET_CONE_WEIGHT, sorted_span[0], sorted_span[1]);
    else if (ok)
        ok = meshlet_build(spans, vertices, triangles, count_out, indices, index_count, positions,
                           vertex_count, max_vertices, max_triangles, MESHLET_CONE_WEIGHT);
    if (!ok) {
        free(spans);
        free(vertices);
        free(triangles);
        return false;
    }
    *spans_out = spans;
    *vertices_out = vertices;
    *triangles_out = triangles;
    return true;
}

/* Asks for the positions of `count` vertices: the bounds read them in a
 * scattered order the hardware does not guess. */
static void prefetch_positions(const float *positions, const uint32_t *vertices, size_t count) {
    for (size_t i = 0; i < count; i++)
        __builtin_prefetch(positions + 3 * (size_t)vertices[i]);
}

/* Meshlets of one range into `out`, which is empty: it takes over the
 * builder's vertex and triangle arrays (made dense first, in place) rather
 * than copying them meshlet by meshlet, and gets each meshlet's bounds. */
static bool build_range(const float *positions, size_t vertex_count, const uint32_t *indices,
                        size_t index_count, size_t max_vertices, size_t max_triangles,
                        cook_meshlet_builder builder, const uint32_t *sorted_span,
                        meshlet_buffers *out) {
    meshlet_span *spans = NULL;
    uint32_t *vertices = NULL;
    uint8_t *triangles = NULL;
    size_t count = 0;
    bool ok = builder == COOK_MESHLET_BUILDER_KILN
                  ? build_kiln(&spans, &vertices, &triangles, &count, positions, vertex_count,
                               indices, index_count, max_vertices, max_triangles, sorted_span)
                  : build_meshopt(&spans, &vertices, &triangles, &count, positions, vertex_count,
                                  indices, index_count, max_vertices, max_triangles);
    ok = ok && grow((void **)&out->meshlets, &out->meshlet_cap, count, sizeof *out->meshlets);
    /* Both builders write meshlets in order, each at or after the previous
     * one's end, so moving each down to its dense place is safe in place
     * (kiln's already are there). */
    size_t vertex_total = 0, triangle_total = 0;
    for (size_t m = 0; ok && m < count; m++) {
        meshlet_span *span = &spans[m];
        if (span->vertex_offset != vertex_total)
            memmove(vertices + vertex_total, vertices + span->vertex_offset,
                    span->vertex_count * sizeof *vertices);
        if (span->triangle_offset != triangle_total)
            memmove(triangles + 3 * triangle_total, triangles + 3 * (size_t)span->triangle_offset,
                    3 * (size_t)span->triangle_count);
        span->vertex_offset = (uint32_t)vertex_total;
        span->triangle_offset = (uint32_t)triangle_total;
        vertex_total += span->vertex_count;
        triangle_total += span->triangle_count;
    }
    for (size_t m = 0; ok && m < count; m++) {
        const meshlet_span *src = &spans[m];
        if (m + 1 < count) /* the next meshlet's positions, while this one's are fitted */
            prefetch_positions(positions, vertices + spans[m + 1].vertex_offset,
                               spans[m + 1].vertex_count);
        meshlet_bounds bounds;
        meshlet_bounds_compute(&bounds, vertices + src->vertex_offset, src->vertex_count,
                               triangles + 3 * (size_t)src->triangle_offset, src->triangle_count,
                               positions);
        ir_meshlet *dst = &out->meshlets[m];
        memset(dst, 0, sizeof *dst);
        dst->vertex_offset = src->vertex_offset;
        dst->triangle_offset = src->triangle_offset;
        dst->vertex_count = src->vertex_count;
        dst->triangle_count = src->triangle_count;
        memcpy(dst->center, bounds.center, sizeof dst->center);
        dst->radius = bounds.radius;
        memcpy(dst->cone_apex, bounds.cone_apex, sizeof dst->cone_apex);
        memcpy(dst->cone_axis, bounds.cone_axis, sizeof dst->cone_axis);
        dst->cone_cutoff = bounds.cone_cutoff;
        for (int k = 0; k < 3; k++)
            dst->cone_axis_s8[k] = bounds.cone_axis_s8[k];
        dst->cone_cutoff_s8 = bounds.cone_cutoff_s8;
    }
    free(spans);
    if (!ok) {
        free(vertices);
        free(triangles);
        return false;
    }
    out->meshlet_count = count;
    out->vertices = vertices;
    out->vertex_count = out->vertex_cap = vertex_total;
    out->triangles = triangles;
    out->triangle_count = out->triangle_cap = triangle_total;
    return true;
}

static void free_buffers(meshlet_buffers *b) {
    free(b->meshlets);
    free(b->vertices);
    free(b->triangles);
}

typedef struct meshlet_job {
    const ir_mesh *mesh;
    mesh_chunk *chunks;
    uint32_t chunk_count;
    const uint32_t *level0; /* level 0, large submeshes sorted spatially */
    meshlet_buffers *out;   /* one per chunk */
    size_t max_vertices, max_triangles;
    cook_meshlet_builder builder;
    atomic_bool failed;
} meshlet_job;

/* A chunk of a large submesh over a wide span (index_span_narrow) runs on its own compact vertices
 * (bounds and cones only read positions, so they come out the same). */
static void meshlets_chunk(void *ctx, uint32_t index) {
    meshlet_job *job = ctx;
    const mesh_chunk *chunk = &job->chunks[index];
    meshlet_buffers *out = &job->out[index];
    const uint32_t *indices = job->level0 + chunk->index_offset;
    /* Meshlets are triangle clusters for mesh shaders: lines and points get
     * none (their submesh's meshlet range stays empty). */
    if (chunk->index_count == 0 ||
        job->mesh->submeshes[chunk->submesh].topology != KILN_TOPOLOGY_TRIANGLES)
        return;
    bool ok = true;
    uint32_t span[2]; /* kiln's builder numbers through a table over a narrow span */
    if (!chunk->split) {
        ok = build_range(job->mesh->positions, job->mesh->vertex_count, indices, chunk->index_count,
                         job->max_vertices, job->max_triangles, job->builder, NULL, out);
    } else if (job->builder == COOK_MESHLET_BUILDER_KILN &&
               index_span_narrow(indices, chunk->index_count, &span[0], &span[1])) {
        ok = build_range(job->mesh->positions, job->mesh->vertex_count, indices, chunk->index_count,
                         job->max_vertices, job->max_triangles, job->builder, span, out);
    } else {
        mesh_local local;
        ok = mesh_local_build(&local, indices, chunk->index_count, job->mesh->positions);
        if (ok) {
            span[0] = 0;
            span[1] = (uint32_t)local.vertex_count - 1; /* numbered 0.. in first use */
            ok = build_range(local.positions, local.vertex_count, local.indices, local.index_count,
                             job->max_vertices, job->max_triangles, job->builder, span, out);
            if (ok)
                mesh_local_to_global(&local, out->vertices, out->vertex_count, out->vertices);
            mesh_local_free(&local);
        }
    }
    if (!ok)
        atomic_store(&job->failed, true);
}

/* Appends one chunk's meshlets to `all`, shifting their offsets. */
static bool append_buffers(meshlet_buffers *all, const meshlet_buffers *chunk) {
    if (!grow((void **)&all->meshlets, &all->meshlet_cap, all->meshlet_count + chunk->meshlet_count,
              sizeof *all->meshlets) ||
        !grow((void **)&all->vertices, &all->vertex_cap, all->vertex_count + chunk->vertex_count,
              sizeof *all->vertices) ||
        !grow((void **)&all->triangles, &all->triangle_cap,
              all->triangle_count + chunk->triangle_count, 3))
        return false;
    for (size_t m = 0; m < chunk->meshlet_count; m++) {
        ir_meshlet *dst = &all->meshlets[all->meshlet_count + m];
        *dst = chunk->meshlets[m];
        dst->vertex_offset += (uint32_t)all->vertex_count;
        dst->triangle_offset += (uint32_t)all->triangle_count;
    }
    if (chunk->vertex_count)
        memcpy(all->vertices + all->vertex_count, chunk->vertices,
               chunk->vertex_count * sizeof *all->vertices);
    if (chunk->triangle_count)
        memcpy(all->triangles + 3 * all->triangle_count, chunk->triangles,
               3 * chunk->triangle_count);
    all->meshlet_count += chunk->meshlet_count;
    all->vertex_count += chunk->vertex_count;
    all->triangle_count += chunk->triangle_count;
    return true;
}

static void meshlets_free_job(void *job_) {
    meshlet_job *job = job_;
    for (uint32_t c = 0; job->out && c < job->chunk_count; c++)
        free_buffers(&job->out[c]);
    free(job->out);
    free(job->chunks);
    free(job);
}

bool meshlets_begin(const ir_mesh *mesh, const cook_settings *settings, const uint32_t *level0,
                    mesh_step *step) {
    *step = (mesh_step){.item = meshlets_chunk, .discard = meshlets_free_job};
    meshlet_job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return false;
    job->mesh = mesh;
    job->level0 = level0;
    job->max_vertices = settings->mesh_meshlet_vertices;
    job->max_triangles = settings->mesh_meshlet_triangles;
    job->builder = settings->mesh_meshlet_builder;
    if (job->max_vertices < 3 || job->max_vertices > KILN_MESH_MAX_MESHLET_VERTICES)
        job->max_vertices = 64;
    /* meshoptimizer wants a multiple of 4 triangles. */
    job->max_triangles &= ~(size_t)3;
    if (job->max_triangles < 4 || job->max_triangles > KILN_MESH_MAX_MESHLET_TRIANGLES)
        job->max_triangles = 124;
    atomic_init(&job->failed, false);
    job->chunks = mesh_chunks(mesh, mesh_chunk_size(settings), &job->chunk_count);
    job->out = calloc(job->chunk_count ? job->chunk_count : 1, sizeof *job->out);
    if (job->chunks == NULL || job->out == NULL) {
        meshlets_free_job(job);
        return false;
    }
    step->job = job;
    step->items = job->chunk_count;
    return true;
}

bool meshlets_finish(mesh_step *step, ir_mesh *mesh) {
    meshlet_job *job = step->job;
    step->job = NULL;
    if (job == NULL)
        return false;
    bool ok = !atomic_load(&job->failed);
    /* Chunks are in submesh order: a submesh's meshlets are its chunks'. */
    meshlet_buffers out = {0};
    for (uint32_t c = 0; ok && c < job->chunk_count; c++) {
        ir_submesh *sub = &mesh->submeshes[job->chunks[c].submesh];
        if (c == 0 || job->chunks[c - 1].submesh != job->chunks[c].submesh)
            sub->meshlet_offset = (uint32_t)out.meshlet_count;
        ok = append_buffers(&out, &job->out[c]) && out.meshlet_count <= UINT32_MAX &&
             out.vertex_count <= UINT32_MAX;
        sub->meshlet_count = (uint32_t)out.meshlet_count - sub->meshlet_offset;
    }
    size_t max_vertices = job->max_vertices, max_triangles = job->max_triangles;
    meshlets_free_job(job);
    if (!ok) {
        free_buffers(&out);
        return false;
    }
    free(mesh->meshlets);
    free(mesh->meshlet_vertices);
    free(mesh->meshlet_triangles);
    mesh->meshlets = out.meshlets;
    mesh->meshlet_count = (uint32_t)out.meshlet_count;
    mesh->meshlet_vertices = out.vertices;
    mesh->meshlet_vertex_count = (uint32_t)out.vertex_count;
    mesh->meshlet_triangles = out.triangles;
    mesh->meshlet_triangle_count = (uint32_t)out.triangle_count;
    mesh->meshlet_max_vertices = (uint32_t)max_vertices;
    mesh->meshlet_max_triangles = (uint32_t)max_triangles;
    return true;
}

bool process_build_meshlets(ir_mesh *mesh, const cook_settings *settings) {
    uint32_t *level0 = mesh_spatial_level0(mesh, mesh_chunk_size(settings), settings->threads);
    mesh_step step;
    bool ok = level0 && meshlets_begin(mesh, settings, level0, &step);
    if (ok) {
        parallel_for(settings->threads, step.items, step.item, step.job);
        ok = meshlets_finish(&step, mesh);
    }
    free(level0);
    return ok;
}
