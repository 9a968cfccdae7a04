/*
 * meshlets.c — meshlet index lists (meshlets.h).
 */
#include "meshlets.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool bad(kiln_error *err, const char *path, uint32_t meshlet, const char *problem) {
    err->code = KILN_ERR_CORRUPT;
    snprintf(err->message, sizeof err->message, "%.180s: meshlet %u: %s", path, meshlet, problem);
    return false;
}

bool meshlet_indices(const kiln_mesh_view *mesh, const char *path, uint32_t *out, kiln_error *err) {
    const kiln_mesh_desc *desc = mesh->desc;
    memset(out, 0, 3 * (size_t)desc->meshlet_triangle_count * sizeof *out);
    for (uint32_t m = 0; m < desc->meshlet_count; m++) {
        const kiln_meshlet *meshlet = &mesh->meshlets[m];
        if (meshlet->vertex_count > desc->meshlet_vertex_count ||
            meshlet->vertex_offset > desc->meshlet_vertex_count - meshlet->vertex_count ||
            meshlet->triangle_count > desc->meshlet_triangle_count ||
            meshlet->triangle_offset > desc->meshlet_triangle_count - meshlet->triangle_count)
            return bad(err, path, m, "its vertices or triangles lie outside MLVX or MLTR");
        const uint32_t *vertices = mesh->meshlet_vertices + meshlet->vertex_offset;
        for (uint32_t i = 0; i < 3 * meshlet->triangle_count; i++) {
            uint8_t local = mesh->meshlet_triangles[3 * (size_t)meshlet->triangle_offset + i];
            if (local >= meshlet->vertex_count)
                return bad(err, path, m, "a triangle names a vertex outside the meshlet");
            uint32_t vertex = vertices[local];
            if (vertex >= desc->vertex_count)
                return bad(err, path, m, "a vertex index is past the mesh's vertices");
            out[3 * (size_t)meshlet->triangle_offset + i] = vertex;
        }
    }
    return true;
}

bool meshlet_range_ok(const kiln_mesh_view *mesh, uint32_t submesh) {
    const kiln_submesh *s = &mesh->submeshes[submesh];
    return s->meshlet_count <= mesh->desc->meshlet_count &&
           s->meshlet_offset <= mesh->desc->meshlet_count - s->meshlet_count;
}

/* The largest length a column of the model matrix's 3x3 part gives. */
static float largest_scale(const float m[16]) {
    float largest = 0.0f;
    for (int column = 0; column < 3; column++) {
        const float *c = m + 4 * column;
        float length = sqrtf(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        largest = length > largest ? length : largest;
    }
    return largest;
}

uint32_t meshlet_bounds_draw(const overlay_image *image, const camera *cam, const draw_list *list) {
    static const uint8_t colour[4] = MESHLET_BOUNDS_RGBA;
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < list->count; i++) {
        const draw_item *item = &list->items[i];
        const kiln_mesh_view *mesh = &item->mesh->mesh;
        if (mesh->meshlets == NULL || !meshlet_range_ok(mesh, item->submesh))
            continue;
        const kiln_submesh *submesh = &mesh->submeshes[item->submesh];
        const float *m = item->model;
        float scale = largest_scale(m);
        for (uint32_t k = submesh->meshlet_offset;
             k < submesh->meshlet_offset + submesh->meshlet_count; k++) {
            const float *c = mesh->meshlets[k].center;
            float world[3];
            for (int row = 0; row < 3; row++)
                world[row] = m[row] * c[0] + m[4 + row] * c[1] + m[8 + row] * c[2] + m[12 + row];
            overlay_sphere(image, cam, world, mesh->meshlets[k].radius * scale, colour);
            drawn++;
        }
    }
    return drawn;
}
