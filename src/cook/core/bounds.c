/* bounds.c — axis-aligned box and bounding sphere of indexed vertices. */
#include <math.h>

#include "cook/core/core.h"

void geometry_aabb(const float *positions, const uint32_t *indices, uint32_t index_count,
                   float aabb_min[3], float aabb_max[3]) {
    if (index_count == 0) {
        for (int k = 0; k < 3; k++)
            aabb_min[k] = aabb_max[k] = 0.0f;
        return;
    }
    for (int k = 0; k < 3; k++) {
        aabb_min[k] = INFINITY;
        aabb_max[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < index_count; i++) {
        const float *p = positions + 3 * (size_t)indices[i];
        /* Plain comparisons, not fminf/fmaxf: those are libm calls here
         * (NaN rules); a NaN coordinate is skipped by both forms alike. */
        for (int k = 0; k < 3; k++) {
            aabb_min[k] = p[k] < aabb_min[k] ? p[k] : aabb_min[k];
            aabb_max[k] = p[k] > aabb_max[k] ? p[k] : aabb_max[k];
        }
    }
}

void geometry_bounds(const float *positions, const uint32_t *indices, uint32_t index_count,
                     float aabb_min[3], float aabb_max[3], float sphere[4]) {
    geometry_aabb(positions, indices, index_count, aabb_min, aabb_max);
    if (index_count == 0) {
        for (int k = 0; k < 4; k++)
            sphere[k] = 0.0f;
        return;
    }
    /* Sphere around the box centre: not minimal, but cheap, stable and
     * deterministic, and never tighter than the true extent. */
    double centre[3];
    for (int k = 0; k < 3; k++)
        centre[k] = 0.5 * ((double)aabb_min[k] + (double)aabb_max[k]);
    double radius_squared = 0.0;
    for (uint32_t i = 0; i < index_count; i++) {
        const float *p = positions + 3 * (size_t)indices[i];
        double dx = p[0] - centre[0], dy = p[1] - centre[1], dz = p[2] - centre[2];
        double d = dx * dx + dy * dy + dz * dz;
        if (d > radius_squared)
            radius_squared = d;
    }
    for (int k = 0; k < 3; k++)
        sphere[k] = (float)centre[k];
    /* Round the radius up so float rounding never leaves a vertex outside. */
    sphere[3] = nextafterf((float)sqrt(radius_squared), INFINITY);
}
