/* repair_normals.c — a source's unusable normals replaced by its faces'. */
#include <math.h>
#include <stdlib.h>

#include "cook/core/core.h"

/* Adds triangle `tri`'s area-weighted normal to the sums of its bad corners. */
static void add_face(const ir_mesh *mesh, const uint8_t *bad, const uint32_t *tri, double *sums) {
    if (!bad[tri[0]] && !bad[tri[1]] && !bad[tri[2]])
        return;
    const float *a = mesh->positions + 3 * (size_t)tri[0];
    const float *b = mesh->positions + 3 * (size_t)tri[1];
    const float *c = mesh->positions + 3 * (size_t)tri[2];
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)b[k] - a[k];
        e2[k] = (double)c[k] - a[k];
    }
    double face[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
    for (int corner = 0; corner < 3; corner++)
        if (bad[tri[corner]])
            for (int k = 0; k < 3; k++)
                sums[3 * (size_t)tri[corner] + k] += face[k];
}

void geometry_repair_normals(ir_mesh *mesh, const uint8_t *bad) {
    float *normals = mesh->normals;
    /* Sums in double: a vertex shared by many thin triangles would otherwise
     * lose their contributions to rounding. */
    double *sums = calloc((size_t)mesh->vertex_count * 3, sizeof *sums);
    for (uint32_t s = 0; sums != NULL && s < mesh->submesh_count; s++) {
        /* Lines and points have no faces: their vertices keep +Z below. */
        const ir_submesh *sub = &mesh->submeshes[s];
        if (sub->topology != KILN_TOPOLOGY_TRIANGLES)
            continue;
        for (uint32_t t = 0; t + 2 < sub->index_count; t += 3)
            add_face(mesh, bad, mesh->indices + sub->index_offset + t, sums);
    }
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        if (!bad[v])
            continue;
        double *sum = sums ? sums + 3 * v : NULL;
        double length = sum ? sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]) : 0.0;
        bool usable = length > 0.0 && isfinite(length);
        for (int k = 0; k < 3; k++)
            normals[3 * v + k] = usable ? (float)(sum[k] / length) : (k == 2 ? 1.0f : 0.0f);
    }
    free(sums);
}
