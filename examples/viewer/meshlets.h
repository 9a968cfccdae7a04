/*
 * meshlets.h — a mesh's meshlets as an index list kiln-view draws them by
 * (--meshlets): MLTR's local triangles turned into vertex indices through
 * MLVX, so meshlet m is the range from 3 * triangle_offset, drawn with m as
 * its instance index (the MESHLETS=1 shaders tint by it).
 */
#ifndef KILN_VIEW_MESHLETS_H
#define KILN_VIEW_MESHLETS_H

#include <stdbool.h>

#include "kiln/kiln.h"

/* Fills out[3 * desc->meshlet_triangle_count]. False, with `err` naming
 * `path`, when a meshlet's ranges fall outside MLVX or MLTR, or an index
 * outside the meshlet's vertices or the mesh's: the GPU never reads past
 * the vertex buffer. */
bool meshlet_indices(const kiln_mesh_view *mesh, const char *path, uint32_t *out, kiln_error *err);

/* Whether submesh `submesh`'s meshlet range lies inside MLET. */
bool meshlet_range_ok(const kiln_mesh_view *mesh, uint32_t submesh);

#endif
