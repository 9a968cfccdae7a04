/* topology.c — a mesh's submeshes grouped by topology: triangles, then lines,
 * then points.
 *
 * One mesh may draw triangles, lines and points with one vertex buffer. The
 * steps that only make sense for triangles (normals, tangents, vertex cache
 * and overdraw order, meshlets) then see one contiguous range at the start of
 * the index buffer, and an engine switches pipeline state once per topology.
 * The sort is stable: within a topology, submeshes keep the source's order. */
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

uint32_t mesh_triangle_index_count(const ir_mesh *mesh) {
    uint32_t count = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (sub->topology != KILN_TOPOLOGY_TRIANGLES || sub->index_offset != count)
            break;
        count += sub->index_count;
    }
    return count;
}

bool process_sort_topology(ir_mesh *mesh) {
    bool sorted = true;
    for (uint32_t s = 1; s < mesh->submesh_count; s++)
        sorted &= mesh->submeshes[s - 1].topology <= mesh->submeshes[s].topology;
    if (sorted)
        return true; /* every triangle-only source: nothing moves */
    ir_submesh *submeshes = malloc(mesh->submesh_count * sizeof *submeshes);
    uint32_t *indices = malloc((mesh->index_count ? mesh->index_count : 1) * sizeof *indices);
    if (submeshes == NULL || indices == NULL) {
        free(submeshes);
        free(indices);
        return false;
    }
    uint32_t next = 0, used = 0;
    for (int topology = 0; topology < KILN_TOPOLOGY_COUNT_; topology++) {
        for (uint32_t s = 0; s < mesh->submesh_count; s++) {
            ir_submesh sub = mesh->submeshes[s];
            if ((int)sub.topology != topology)
                continue;
            memcpy(indices + used, mesh->indices + sub.index_offset,
                   sub.index_count * sizeof *indices);
            sub.index_offset = used;
            used += sub.index_count;
            submeshes[next++] = sub;
        }
    }
    free(mesh->submeshes);
    free(mesh->indices);
    mesh->submeshes = submeshes;
    mesh->indices = indices;
    return true;
}
