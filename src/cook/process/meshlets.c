/* meshlets.c — meshlets with culling data per submesh (meshoptimizer).
 *
 * Built from each submesh's full-detail triangles. meshoptimizer pads each
 * meshlet's triangle bytes to a multiple of 4; kiln stores them densely (3
 * bytes per triangle, triangle_offset counted in triangles), which the format
 * promises and which saves up to 3 bytes per meshlet. */
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"

#define MESHLET_CONE_WEIGHT 0.25f /* favour tighter normal cones a little */

typedef struct meshlet_buffers {
    ir_meshlet *meshlets;
    size_t meshlet_count, meshlet_cap;
    uint32_t *vertices;
    size_t vertex_count, vertex_cap;
    uint8_t *triangles;
    size_t triangle_count, triangle_cap; /* in triangles */
} meshlet_buffers;

static bool grow(void **data, size_t *cap, size_t needed, size_t element) {
    if (needed <= *cap)
        return true;
    size_t new_cap = *cap ? *cap : 64;
    while (new_cap < needed)
        new_cap *= 2;
    void *grown = realloc(*data, new_cap * element);
    if (grown == NULL)
        return false;
    *data = grown;
    *cap = new_cap;
    return true;
}

static bool build_submesh(const ir_mesh *mesh, const uint32_t *indices, size_t index_count,
                          size_t max_vertices, size_t max_triangles, meshlet_buffers *out) {
    size_t bound = meshopt_buildMeshletsBound(index_count, max_vertices, max_triangles);
    struct meshopt_Meshlet *meshlets = malloc(bound * sizeof *meshlets);
    unsigned int *vertices = malloc(bound * max_vertices * sizeof *vertices);
    unsigned char *triangles = malloc(bound * max_triangles * 3);
    bool ok = meshlets && vertices && triangles;
    size_t count = 0;
    if (ok)
        count = meshopt_buildMeshlets(meshlets, vertices, triangles, indices, index_count,
                                      mesh->positions, mesh->vertex_count, 3 * sizeof(float),
                                      max_vertices, max_triangles, MESHLET_CONE_WEIGHT);
    for (size_t m = 0; ok && m < count; m++) {
        const struct meshopt_Meshlet *src = &meshlets[m];
        ok = grow((void **)&out->meshlets, &out->meshlet_cap, out->meshlet_count + 1,
                  sizeof *out->meshlets) &&
             grow((void **)&out->vertices, &out->vertex_cap, out->vertex_count + src->vertex_count,
                  sizeof *out->vertices) &&
             grow((void **)&out->triangles, &out->triangle_cap,
                  out->triangle_count + src->triangle_count, 3);
        if (!ok)
            break;
        struct meshopt_Bounds bounds = meshopt_computeMeshletBounds(
            vertices + src->vertex_offset, triangles + src->triangle_offset, src->triangle_count,
            mesh->positions, mesh->vertex_count, 3 * sizeof(float));
        ir_meshlet *dst = &out->meshlets[out->meshlet_count++];
        memset(dst, 0, sizeof *dst);
        dst->vertex_offset = (uint32_t)out->vertex_count;
        dst->triangle_offset = (uint32_t)out->triangle_count;
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
        memcpy(out->vertices + out->vertex_count, vertices + src->vertex_offset,
               src->vertex_count * sizeof *vertices);
        memcpy(out->triangles + 3 * out->triangle_count, triangles + src->triangle_offset,
               3 * (size_t)src->triangle_count);
        out->vertex_count += src->vertex_count;
        out->triangle_count += src->triangle_count;
    }
    free(meshlets);
    free(vertices);
    free(triangles);
    return ok;
}

bool process_build_meshlets(ir_mesh *mesh, const cook_settings *settings) {
    size_t max_vertices = settings->mesh_meshlet_vertices;
    size_t max_triangles = settings->mesh_meshlet_triangles;
    if (max_vertices < 3 || max_vertices > KILN_MESH_MAX_MESHLET_VERTICES)
        max_vertices = 64;
    /* meshoptimizer wants a multiple of 4 triangles. */
    max_triangles &= ~(size_t)3;
    if (max_triangles < 4 || max_triangles > KILN_MESH_MAX_MESHLET_TRIANGLES)
        max_triangles = 124;
    meshlet_buffers out = {0};
    bool ok = true;
    for (uint32_t s = 0; ok && s < mesh->submesh_count; s++) {
        ir_submesh *sub = &mesh->submeshes[s];
        sub->meshlet_offset = (uint32_t)out.meshlet_count;
        if (sub->index_count > 0)
            ok = build_submesh(mesh, mesh->indices + sub->index_offset, sub->index_count,
                               max_vertices, max_triangles, &out);
        sub->meshlet_count = (uint32_t)out.meshlet_count - sub->meshlet_offset;
    }
    if (!ok || out.meshlet_count > UINT32_MAX || out.vertex_count > UINT32_MAX) {
        free(out.meshlets);
        free(out.vertices);
        free(out.triangles);
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
