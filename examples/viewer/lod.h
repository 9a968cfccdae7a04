/*
 * lod.h — which level of detail of a submesh kiln-view draws (docs/viewer.md):
 * the coarsest level whose simplification error, projected at the
 * submesh's distance from the camera, covers at most LOD_PIXEL_ERROR pixels
 * of the image's height; or a level forced by --lod.
 */
#ifndef KILN_VIEW_LOD_H
#define KILN_VIEW_LOD_H

#include "render.h"

#define LOD_PIXEL_ERROR 1.0f
#define LOD_AUTO (-1)

/* The level of `submesh` of `mesh` to draw when placed by `model` and seen
 * by `cam` in an image `height` pixels high; `forced` >= 0 picks that level
 * (the mesh's last when it has fewer). */
uint32_t lod_choose(const kiln_mesh_view *mesh, uint32_t submesh, const float model[16],
                    const camera *cam, uint32_t height, int forced);

/* The projected error of a level, in pixels (what lod_choose compares). */
float lod_pixel_error(const kiln_mesh_view *mesh, uint32_t submesh, uint32_t level,
                      const float model[16], const camera *cam, uint32_t height);

#endif
