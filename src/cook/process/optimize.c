/* optimize.c — welding and the vertex fetch order (meshoptimizer).
 *
 * process_weld merges vertices identical in every stream (the triangle order
 * for the vertex cache and overdraw is order.c's). process_optimize_fetch
 * renumbers vertices in first-use order over the whole index buffer (level 0
 * first, then the reduced levels), so the vertex fetch streams through memory,
 * and renumbers meshlet vertex lists built before it alike. */
#include <meshoptimizer.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "cook/process/process.h"

/* Every optional stream of a mesh, with its element size, for remapping. */
typedef struct mesh_stream_ref {
    void **data;
    size_t element_size;
    void **aside; /* where the remapped copy goes, the old kept; NULL: into *data */
} mesh_stream_ref;

#define MESH_STREAM_MAX 10

static size_t mesh_streams(ir_mesh *mesh, mesh_stream_ref out[MESH_STREAM_MAX]) {
    mesh_stream_ref all[] = {
        {(void **)&mesh->positions, 3 * sizeof(float), NULL},
        {(void **)&mesh->normals, 3 * sizeof(float), NULL},
        {(void **)&mesh->tangents, 4 * sizeof(float), NULL},
        {(void **)&mesh->texcoords[0], 2 * sizeof(float), NULL},
        {(void **)&mesh->texcoords[1], 2 * sizeof(float), NULL},
        {(void **)&mesh->colors, 4 * sizeof(float), NULL},
        {(void **)&mesh->joints, 4 * sizeof(uint16_t), NULL},
        {(void **)&mesh->weights, 4 * sizeof(float), NULL},
        {(void **)&mesh->joints1, 4 * sizeof(uint16_t), NULL},
        {(void **)&mesh->weights1, 4 * sizeof(float), NULL},
    };
    size_t count = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i].data != NULL)
            out[count++] = all[i];
    return count;
}

/* remap_vertices' items: one per stream, then blocks of the indices. */
#define REMAP_INDEX_BLOCK (1u << 20)

typedef struct remap_job {
    mesh_stream_ref *streams; /* the mesh's, then every morph target's */
    size_t stream_count;
    uint32_t *indices;
    size_t index_count;
    size_t old_count, new_count;
    const unsigned int *remap;
    atomic_bool failed;
} remap_job;

static void remap_item(void *ctx, uint32_t item) {
    remap_job *job = ctx;
    if (item < job->stream_count) {
        const mesh_stream_ref *stream = &job->streams[item];
        void *remapped = malloc(job->new_count ? job->new_count * stream->element_size : 1);
        if (remapped == NULL) {
            atomic_store(&job->failed, true);
            return;
        }
        meshopt_remapVertexBuffer(remapped, *stream->data, job->old_count, stream->element_size,
                                  job->remap);
        if (stream->aside != NULL) {
            *stream->aside = remapped;
            return;
        }
        free(*stream->data);
        *stream->data = remapped;
        return;
    }
    /* meshopt_remapIndexBuffer's loop, without its multiple-of-3 assert. */
    size_t begin = (size_t)(item - job->stream_count) * REMAP_INDEX_BLOCK;
    size_t end =
        begin + REMAP_INDEX_BLOCK < job->index_count ? begin + REMAP_INDEX_BLOCK : job->index_count;
    for (size_t i = begin; i < end; i++)
        job->indices[i] = job->remap[job->indices[i]];
}

/* The vertex count and meshlet vertex lists after a remap of the streams.
 * Meshlets may be built before the fetch remap (mesh.c); they only reference
 * level-0 vertices, which every remap keeps. */
static void remap_finish(ir_mesh *mesh, const unsigned int *remap, size_t new_count) {
    for (uint32_t i = 0; i < mesh->meshlet_vertex_count; i++)
        mesh->meshlet_vertices[i] = remap[mesh->meshlet_vertices[i]];
    mesh->vertex_count = (uint32_t)new_count;
}

/* Applies `remap` (old vertex -> new vertex) to every stream (morph target
 * deltas included) and, with `indices`, the indices, on up to `threads`
 * threads; with positions_aside, the remapped positions go there and
 * mesh->positions stays as it was. remap_finish follows. */
static bool remap_streams(ir_mesh *mesh, const unsigned int *remap, size_t new_count, bool indices,
                          float **positions_aside, unsigned threads) {
    remap_job job = {.indices = mesh->indices,
                     .index_count = indices ? mesh->index_count : 0,
                     .old_count = mesh->vertex_count,
                     .new_count = new_count,
                     .remap = remap};
    atomic_init(&job.failed, false);
    job.streams = malloc((MESH_STREAM_MAX + 3 * (size_t)mesh->target_count) * sizeof *job.streams);
    if (job.streams == NULL)
        return false;
    job.stream_count = mesh_streams(mesh, job.streams);
    for (size_t i = 0; i < job.stream_count; i++)
        if (job.streams[i].data == (void **)&mesh->positions)
            job.streams[i].aside = (void **)positions_aside;
    for (uint32_t t = 0; t < mesh->target_count; t++)
        for (int k = 0; k < 3; k++) {
            float **stream = ir_morph_stream(&mesh->targets[t], k);
            if (*stream != NULL)
                job.streams[job.stream_count++] =
                    (mesh_stream_ref){(void **)stream, 3 * sizeof(float), NULL};
        }
    size_t index_blocks = (job.index_count + REMAP_INDEX_BLOCK - 1) / REMAP_INDEX_BLOCK;
    parallel_for(threads, (uint32_t)(job.stream_count + index_blocks), remap_item, &job);
    free(job.streams);
    return !atomic_load(&job.failed);
}

/* A vertex's morph deltas, for hashing and comparing: every target's
 * streams at vertex v. */
typedef struct morph_key {
    uint64_t hash;
    uint32_t vertex;
} morph_key;

static int compare_morph_keys(const void *a, const void *b) {
    const morph_key *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->vertex > y->vertex) - (x->vertex < y->vertex);
}

static bool same_morph_deltas(const ir_mesh *mesh, uint32_t a, uint32_t b) {
    for (uint32_t t = 0; t < mesh->target_count; t++)
        for (int k = 0; k < 3; k++) {
            const float *s = *ir_morph_stream(&mesh->targets[t], k);
            if (s != NULL && memcmp(s + 3 * (size_t)a, s + 3 * (size_t)b, 3 * sizeof(float)) != 0)
                return false;
        }
    return true;
}

/* One id per vertex, equal exactly when two vertices have the same deltas in
 * every morph target (bitwise, as meshoptimizer compares streams): an extra
 * 4-byte weld stream standing for any number of targets, which
 * meshopt_generateVertexRemapMulti (at most 16 streams of 256 bytes) could
 * not take directly. O(n log n) plus the comparisons of equal hashes. */
static uint32_t *morph_class_ids(const ir_mesh *mesh) {
    uint32_t n = mesh->vertex_count;
    morph_key *keys = malloc((size_t)n * sizeof *keys);
    uint32_t *ids = malloc((size_t)n * sizeof *ids);
    if (keys == NULL || ids == NULL) {
        free(keys);
        free(ids);
        return NULL;
    }
    for (uint32_t v = 0; v < n; v++) {
        uint64_t h = FNV1A64_OFFSET_BASIS; /* over the delta bytes */
        for (uint32_t t = 0; t < mesh->target_count; t++)
            for (int k = 0; k < 3; k++) {
                const float *s = *ir_morph_stream(&mesh->targets[t], k);
                if (s != NULL)
                    h = fnv1a64_update(h, s + 3 * (size_t)v, 3 * sizeof(float));
            }
        keys[v] = (morph_key){h, v};
    }
    qsort(keys, n, sizeof *keys, compare_morph_keys);
    /* Within a run of equal hashes, a vertex takes the id of the first
     * earlier vertex with the same deltas, else its own number. */
    for (uint32_t i = 0, run = 0; i < n; i++) {
        if (i > 0 && keys[i].hash != keys[i - 1].hash)
            run = i;
        uint32_t v = keys[i].vertex;
        ids[v] = v;
        for (uint32_t j = run; j < i; j++)
            if (ids[keys[j].vertex] == keys[j].vertex &&
                same_morph_deltas(mesh, keys[j].vertex, v)) {
                ids[v] = keys[j].vertex;
                break;
            }
    }
    free(keys);
    return ids;
}

bool process_weld_on(ir_mesh *mesh, unsigned threads) {
    if (mesh->vertex_count == 0)
        return true;
    mesh_stream_ref streams[MESH_STREAM_MAX];
    size_t stream_count = mesh_streams(mesh, streams);
    weld_stream weld_streams[MESH_STREAM_MAX + 1];
    for (size_t i = 0; i < stream_count; i++)
        weld_streams[i] = (weld_stream){*streams[i].data, streams[i].element_size};
    /* Two vertices with different morph deltas stay apart. */
    uint32_t *morph_ids = NULL;
    if (ir_mesh_morph_attributes(mesh) != 0) {
        if ((morph_ids = morph_class_ids(mesh)) == NULL)
            return false;
        weld_streams[stream_count++] = (weld_stream){(const uint8_t *)morph_ids, sizeof(uint32_t)};
    }
    unsigned int *remap = malloc((size_t)mesh->vertex_count * sizeof *remap);
    if (remap == NULL) {
        free(morph_ids);
        return false;
    }
    size_t unique = weld_vertex_remap_on(threads, remap, mesh->indices, mesh->index_count,
                                         mesh->vertex_count, weld_streams, stream_count);
    bool ok = unique != SIZE_MAX && remap_streams(mesh, remap, unique, true, NULL, threads);
    if (ok)
        remap_finish(mesh, remap, unique);
    free(remap);
    free(morph_ids);
    return ok;
}

bool process_weld(ir_mesh *mesh) {
    return process_weld_on(mesh, 1);
}

unsigned int *fetch_remap_indices(ir_mesh *mesh, size_t *used) {
    unsigned int *remap = malloc((mesh->vertex_count ? mesh->vertex_count : 1) * sizeof *remap);
    if (remap == NULL)
        return NULL;
    /* Vertices no index uses are dropped (remap ~0u). */
    *used =
        meshopt_checked_fetch_remap(remap, mesh->indices, mesh->index_count, mesh->vertex_count);
    if (*used == SIZE_MAX) {
        free(remap);
        return NULL;
    }
    for (size_t i = 0; i < mesh->index_count; i++)
        mesh->indices[i] = remap[mesh->indices[i]];
    return remap;
}

bool fetch_remap_streams(ir_mesh *mesh, const unsigned int *remap, size_t used, float **positions,
                         unsigned threads) {
    *positions = NULL;
    if (remap_streams(mesh, remap, used, false, positions, threads))
        return true;
    free(*positions);
    *positions = NULL;
    return false;
}

void fetch_remap_finish(ir_mesh *mesh, const unsigned int *remap, size_t used, float *positions) {
    free(mesh->positions);
    mesh->positions = positions;
    remap_finish(mesh, remap, used);
}

bool process_optimize_fetch_on(ir_mesh *mesh, unsigned threads) {
    if (mesh->vertex_count == 0)
        return true;
    size_t used = 0;
    float *positions = NULL;
    unsigned int *remap = fetch_remap_indices(mesh, &used);
    bool ok = remap != NULL && fetch_remap_streams(mesh, remap, used, &positions, threads);
    if (ok)
        fetch_remap_finish(mesh, remap, used, positions);
    free(remap);
    return ok;
}

bool process_optimize_fetch(ir_mesh *mesh) {
    return process_optimize_fetch_on(mesh, 1);
}
