/*
 * meshlets.h — a mesh's meshlets as an index list kiln-view draws them by
 * (--meshlets): MLTR's local triangles turned into vertex indices through
 * MLVX, so meshlet m is the range from 3 * triangle_offset, drawn with m as
 * its instance index (the MESHLETS=1 shaders tint by it); and their
 * bounding spheres drawn over the frame.
 */
#ifndef KILN_VIEW_MESHLETS_H
#define KILN_VIEW_MESHLETS_H

#include <stdbool.h>

#include "draw_list.h"
#include "kiln/kiln.h"
#include "overlay.h"

/* Fills out[3 * desc->meshlet_triangle_count]. False, with `err` naming
 * `path`, when a meshlet's ranges fall outside MLVX or MLTR, or an index
 * outside the meshlet's vertices or the mesh's: the GPU never reads past
 * the vertex buffer. */
bool meshlet_indices(const kiln_mesh_view *mesh, const char *path, uint32_t *out, kiln_error *err);

/* Whether submesh `submesh`'s meshlet range lies inside MLET. */
bool meshlet_range_ok(const kiln_mesh_view *mesh, uint32_t submesh);

/* --meshlet-bounds: every drawn submesh's meshlets' bounding spheres (the
 * .kmesh MLET rows, through the draw's model matrix, the radius by its
 * largest scale; skinned and morphed meshes show their rest-pose spheres)
 * as outlines in MESHLET_BOUNDS_RGBA over `image`; returns how many. */
#define MESHLET_BOUNDS_RGBA                                                                        \
    { 255, 255, 0, 255 }
uint32_t meshlet_bounds_draw(const overlay_image *image, const camera *cam, const draw_list *list);

#endif
