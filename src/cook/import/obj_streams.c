/*
 * obj_streams.c — the mesh's vertex streams from the unique vertices' keys
 * (obj_internal.h): positions, texture coordinates, normals and colours
 * gathered from the file's pools, in blocks of vertices on the -j threads.
 *
 * Which streams there are is decided on the whole mesh: texture coordinates
 * when any vertex has one; the file's normals when every vertex a face uses
 * has one (else they are generated, with a warning). Only when some vertex
 * has no normal does it matter which vertices faces use: then that is found
 * out (one pass over the indices) before the normals are decided.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/parallel.h"
#include "cook/import/obj_internal.h"

#define STREAM_BLOCK 65536u /* vertices per item */

typedef struct streams_job {
    const obj_parser *ps;
    ir_mesh *mesh;
    size_t count;
    uint8_t *any_uv;       /* per block */
    uint8_t *every_normal; /* per block: each vertex has a vn */
    size_t *unusable;      /* per block: normals zero or not finite */
} streams_job;

static void block_range(const streams_job *job, uint32_t block, size_t *first, size_t *end) {
    *first = (size_t)block * STREAM_BLOCK;
    *end = *first + STREAM_BLOCK < job->count ? *first + STREAM_BLOCK : job->count;
}

/* Positions, and what the block's vertices have. */
static void positions_block(void *job_, uint32_t block) {
    streams_job *job = job_;
    const uint32_t *keys = job->ps->keys.data;
    const float *pool = job->ps->positions.data;
    size_t first, end;
    block_range(job, block, &first, &end);
    bool any_uv = false, every_normal = true;
    for (size_t v = first; v < end; v++) {
        memcpy(job->mesh->positions + 3 * v, pool + 3 * (size_t)keys[3 * v], 3 * sizeof(float));
        any_uv |= keys[3 * v + 1] != OBJ_NONE;
        every_normal &= keys[3 * v + 2] != OBJ_NONE;
    }
    job->any_uv[block] = any_uv;
    job->every_normal[block] = every_normal;
}

/* Texture coordinates (flipped: OBJ's v runs up) and normals (unit length;
 * zero where unusable, counted), for the streams the mesh has. */
static void attributes_block(void *job_, uint32_t block) {
    streams_job *job = job_;
    const uint32_t *keys = job->ps->keys.data;
    size_t first, end;
    block_range(job, block, &first, &end);
    float *uv = job->mesh->texcoords[0];
    const float *uv_pool = job->ps->texcoords.data;
    for (size_t v = first; uv != NULL && v < end; v++) {
        uint32_t t = keys[3 * v + 1];
        uv[2 * v + 0] = t == OBJ_NONE ? 0.0f : uv_pool[2 * (size_t)t];
        uv[2 * v + 1] = t == OBJ_NONE ? 0.0f : 1.0f - uv_pool[2 * (size_t)t + 1];
    }
    float *normals = job->mesh->normals;
    const float *normal_pool = job->ps->normals.data;
    size_t unusable = 0;
    for (size_t v = first; normals != NULL && v < end; v++) {
        if (keys[3 * v + 2] == OBJ_NONE) { /* only lines or points use it */
            normals[3 * v] = normals[3 * v + 1] = 0.0f;
            normals[3 * v + 2] = 1.0f;
            continue;
        }
        const float *src = normal_pool + 3 * (size_t)keys[3 * v + 2];
        double length =
            sqrt((double)src[0] * src[0] + (double)src[1] * src[1] + (double)src[2] * src[2]);
        bool usable = length > 0.0 && isfinite(length);
        for (int k = 0; k < 3; k++)
            normals[3 * v + k] = usable ? (float)(src[k] / length) : 0.0f;
        unusable += !usable;
    }
    job->unusable[block] = unusable;
}

/* Whether the file's normals are the mesh's, when some vertex has none:
 * only the vertices of faces count (a line's or point's vertex rarely has a
 * vn, and must not cost the faces theirs); without faces, every vertex. */
static bool face_vertices_have_normals(obj_parser *ps, const ir_mesh *mesh, bool *any_normal,
                                       bool *oom) {
    size_t n = ps->keys.count;
    const uint32_t *keys = ps->keys.data;
    uint8_t *on_face = ps->faces > 0 ? calloc(n ? n : 1, 1) : NULL;
    if (ps->faces > 0 && on_face == NULL) {
        *oom = true;
        return false;
    }
    for (uint32_t s = 0; on_face != NULL && s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        for (uint32_t i = 0; sub->topology == KILN_TOPOLOGY_TRIANGLES && i < sub->index_count; i++)
            on_face[mesh->indices[sub->index_offset + i]] = 1;
    }
    bool all = true;
    *any_normal = false;
    for (size_t v = 0; v < n; v++) {
        bool counts = on_face == NULL || on_face[v];
        all &= keys[3 * v + 2] != OBJ_NONE || !counts;
        *any_normal |= keys[3 * v + 2] != OBJ_NONE && counts;
    }
    free(on_face);
    return all && (*any_normal || n == 0);
}

/* The vertices whose file normal was unusable (zeroed above), for
 * geometry_repair_normals; NULL when out of memory. */
static uint8_t *unusable_normals(const obj_parser *ps, const ir_mesh *mesh) {
    size_t n = ps->keys.count;
    const uint32_t *keys = ps->keys.data;
    uint8_t *bad = calloc(n ? n : 1, 1);
    for (size_t v = 0; bad != NULL && v < n; v++) {
        const float *normal = mesh->normals + 3 * v;
        bad[v] = keys[3 * v + 2] != OBJ_NONE && normal[0] == 0.0f && normal[1] == 0.0f &&
                 normal[2] == 0.0f; /* a unit vector has a component of 1/sqrt(3) or more */
    }
    return bad;
}

static bool streams_free(streams_job *job, bool ok) {
    free(job->any_uv);
    free(job->every_normal);
    free(job->unusable);
    return ok;
}

bool obj_build_streams(obj_parser *ps, ir_mesh *mesh) {
    size_t n = ps->keys.count;
    unsigned threads = ps->ctx->settings != NULL ? ps->ctx->settings->threads : 1;
    uint32_t blocks = (uint32_t)((n + STREAM_BLOCK - 1) / STREAM_BLOCK);
    streams_job job = {.ps = ps,
                       .mesh = mesh,
                       .count = n,
                       .any_uv = calloc(blocks ? blocks : 1, 1),
                       .every_normal = calloc(blocks ? blocks : 1, 1),
                       .unusable = calloc(blocks ? blocks : 1, sizeof(size_t))};
    mesh->vertex_count = (uint32_t)n;
    mesh->positions = malloc(n * 3 * sizeof(float));
    if (mesh->positions == NULL || job.any_uv == NULL || job.every_normal == NULL ||
        job.unusable == NULL)
        return streams_free(&job, obj_out_of_memory(ps));
    parallel_for(threads, blocks, positions_block, &job);
    bool any_uv = false, every_normal = true;
    for (uint32_t b = 0; b < blocks; b++) {
        any_uv |= job.any_uv[b];
        every_normal &= job.every_normal[b];
    }
    bool any_normal = n > 0, oom = false;
    bool all_normals = every_normal || face_vertices_have_normals(ps, mesh, &any_normal, &oom);
    if (oom)
        return streams_free(&job, obj_out_of_memory(ps));
    if (any_normal && !all_normals)
        diag_warning(ps->ctx->diag, ps->path, 0,
                     "some face corners have no normal; normals are generated for the whole "
                     "mesh");
    if ((any_uv && (mesh->texcoords[0] = malloc(n * 2 * sizeof(float))) == NULL) ||
        (all_normals && (mesh->normals = malloc(n * 3 * sizeof(float))) == NULL))
        return streams_free(&job, obj_out_of_memory(ps));
    parallel_for(threads, blocks, attributes_block, &job);
    size_t unusable = 0;
    for (uint32_t b = 0; b < blocks; b++)
        unusable += job.unusable[b];
    if (unusable > 0) {
        uint8_t *bad = unusable_normals(ps, mesh);
        if (bad == NULL)
            return streams_free(&job, obj_out_of_memory(ps));
        diag_warning(ps->ctx->diag, ps->path, 0,
                     "%zu vertex normal%s zero or not a finite number; replaced by the "
                     "normal of the faces around them",
                     unusable, unusable == 1 ? " is" : "s are");
        geometry_repair_normals(mesh, bad);
        free(bad);
    }
    if (ps->colors.count > 0) {
        float *colors = mesh->colors = malloc(n * 4 * sizeof(float));
        if (colors == NULL)
            return streams_free(&job, obj_out_of_memory(ps));
        const uint32_t *keys = ps->keys.data;
        for (size_t v = 0; v < n; v++)
            memcpy(colors + 4 * v, (const float *)ps->colors.data + 4 * (size_t)keys[3 * v],
                   4 * sizeof(float));
    }
    return streams_free(&job, true);
}
