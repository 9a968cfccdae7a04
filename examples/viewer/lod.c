/*
 * lod.c — level of detail by screen size (lod.h).
 */
#include "lod.h"

#include <math.h>

/* The largest factor by which `model` scales a length. */
static float max_scale(const float m[16]) {
    float largest = 0.0f;
    for (int column = 0; column < 3; column++) {
        const float *c = m + 4 * column;
        largest = fmaxf(largest, sqrtf(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]));
    }
    return largest;
}

float lod_pixel_error(const kiln_mesh_view *mesh, uint32_t submesh, uint32_t level,
                      const float model[16], const camera *cam, uint32_t height) {
    const kiln_lod *lod = kiln_mesh_lod(mesh, submesh, level);
    if (lod == NULL || !(lod->error > 0.0f))
        return 0.0f;
    const kiln_mesh_desc *desc = mesh->desc;
    /* The error is relative to the mesh's extent, its bounding box's longest side. */
    float extent = 0.0f;
    for (int axis = 0; axis < 3; axis++)
        extent = fmaxf(extent, desc->aabb_max[axis] - desc->aabb_min[axis]);
    const float *sphere = mesh->submeshes[submesh].sphere;
    float scale = max_scale(model), centre[3], distance = 0.0f;
    for (int axis = 0; axis < 3; axis++) {
        centre[axis] = model[axis] * sphere[0] + model[4 + axis] * sphere[1] +
                       model[8 + axis] * sphere[2] + model[12 + axis];
        float d = centre[axis] - cam->position[axis];
        distance += d * d;
    }
    distance = sqrtf(distance) - sphere[3] * scale; /* to the sphere's nearest point */
    if (!(distance > 0.0f))
        return INFINITY; /* the camera is inside: level 0 */
    float world_error = lod->error * extent * scale;
    return world_error / (2.0f * distance * tanf(0.5f * CAMERA_VERTICAL_FOV)) * (float)height;
}

uint32_t lod_choose(const kiln_mesh_view *mesh, uint32_t submesh, const float model[16],
                    const camera *cam, uint32_t height, int forced) {
    uint32_t levels = mesh->desc->lod_count > 0 ? mesh->desc->lod_count : 1;
    if (forced >= 0)
        return (uint32_t)forced < levels ? (uint32_t)forced : levels - 1;
    uint32_t chosen = 0;
    for (uint32_t level = 1; level < levels; level++)
        if (lod_pixel_error(mesh, submesh, level, model, cam, height) <= LOD_PIXEL_ERROR)
            chosen = level;
    return chosen;
}
