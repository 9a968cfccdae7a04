/* meshlet_bounds.c — a meshlet's bounding sphere and normal cone
 * (meshlet_build.h).
 *
 * The method of meshoptimizer's meshopt_computeMeshletBounds (0.18,
 * https://github.com/zeux/meshoptimizer, src/clusterizer.cpp), after
 * Wihlidal, "Optimizing the Graphics Pipeline with Compute", GDC 2016:
 *
 *   - the sphere: Ritter's ("An Efficient Bounding Sphere", Graphics Gems,
 *     1990): the widest of the three pairs of extreme points along the axes
 *     as a diameter, then grown to take in each point left outside;
 *   - the cone: the unit normals of the non-degenerate triangles taken as
 *     points, Ritter's sphere around them gives the axis, the least dot
 *     product with it the half angle; the apex is the point on the axis
 *     through the sphere's centre behind every triangle's plane, so that a
 *     camera inside the inverted cone sees only back faces.
 *
 * What differs is what it reads: the sphere is fitted to the meshlet's
 * vertices (each once, copied next to each other first) rather than to
 * every triangle corner, three times fewer points, and nothing is
 * allocated. A cone wider than about 168 degrees is not worth testing
 * (cutoff 1: never culled), as in meshoptimizer. */
#include <math.h>
#include <string.h>

#include "cook/process/meshlet_build.h"

/* A normal cone whose least dot product is at most this is treated as a
 * full sphere: the apex would be far away and unstable. */
#define CONE_MIN_DOT 0.1f

static float distance2(const float *a, const float *b) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Ritter's sphere around `count` (>= 1) points of 3 floats. */
static void ritter_sphere(const float (*points)[3], size_t count, float centre[3], float *radius) {
    /* The extremes' values kept beside their indices: comparing against
     * points[lo[k]] would make every step wait on a load. */
    size_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    float least[3], most[3];
    for (int k = 0; k < 3; k++)
        least[k] = most[k] = points[0][k];
    for (size_t i = 1; i < count; i++)
        for (int k = 0; k < 3; k++) {
            float v = points[i][k];
            lo[k] = v < least[k] ? i : lo[k];
            least[k] = v < least[k] ? v : least[k];
            hi[k] = v > most[k] ? i : hi[k];
            most[k] = v > most[k] ? v : most[k];
        }
    int axis = 0;
    float widest = distance2(points[lo[0]], points[hi[0]]);
    for (int k = 1; k < 3; k++) {
        float d2 = distance2(points[lo[k]], points[hi[k]]);
        if (d2 > widest) {
            widest = d2;
            axis = k;
        }
    }
    for (int k = 0; k < 3; k++)
        centre[k] = (points[lo[axis]][k] + points[hi[axis]][k]) * 0.5f;
    float r = sqrtf(widest) * 0.5f;
    for (size_t i = 0; i < count; i++) {
        float d2 = distance2(points[i], centre);
        if (d2 <= r * r)
            continue;
        /* Move the centre towards the point just enough to take it in. */
        float d = sqrtf(d2);
        float keep = 0.5f + 0.5f * (r / d);
        for (int k = 0; k < 3; k++)
            centre[k] = centre[k] * keep + points[i][k] * (1.0f - keep);
        r = (r + d) * 0.5f;
    }
    *radius = r;
}

static int8_t snorm8(float v) {
    v = v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v);
    return (int8_t)(int)(v * 127.0f + (v >= 0.0f ? 0.5f : -0.5f));
}

/* The cone's snorm8 form, its cutoff raised by the axis' rounding error so
 * that the 8-bit test never culls what the float test keeps. */
static void quantise_cone(meshlet_bounds *out) {
    float error = 0.0f;
    for (int k = 0; k < 3; k++) {
        out->cone_axis_s8[k] = snorm8(out->cone_axis[k]);
        error += fabsf((float)out->cone_axis_s8[k] / 127.0f - out->cone_axis[k]);
    }
    int cutoff = (int)(127.0f * (out->cone_cutoff + error) + 1.0f); /* rounded up */
    out->cone_cutoff_s8 = (int8_t)(cutoff > 127 ? 127 : cutoff);
}

void meshlet_bounds_compute(meshlet_bounds *out, const uint32_t *vertices, size_t vertex_count,
                            const uint8_t *triangles, size_t triangle_count,
                            const float *positions) {
    float points[MESHLET_BUILD_MAX_VERTICES][3];
    float normals[MESHLET_BUILD_MAX_TRIANGLES][3];
    uint8_t first_corner[MESHLET_BUILD_MAX_TRIANGLES];
    memset(out, 0, sizeof *out);
    out->cone_cutoff = 1.0f;
    out->cone_cutoff_s8 = 127;
    if (vertex_count == 0 || vertex_count > MESHLET_BUILD_MAX_VERTICES ||
        triangle_count > MESHLET_BUILD_MAX_TRIANGLES)
        return;
    for (size_t i = 0; i < vertex_count; i++)
        memcpy(points[i], positions + 3 * (size_t)vertices[i], sizeof points[i]);
    ritter_sphere((const float(*)[3])points, vertex_count, out->center, &out->radius);

    size_t faces = 0;
    for (size_t t = 0; t < triangle_count; t++) {
        const uint8_t *tri = triangles + 3 * t;
        if (tri[0] >= vertex_count || tri[1] >= vertex_count || tri[2] >= vertex_count)
            continue;
        const float *p0 = points[tri[0]], *p1 = points[tri[1]], *p2 = points[tri[2]];
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(length > 0.0f) || !isfinite(length))
            continue; /* degenerate: faces no way */
        for (int k = 0; k < 3; k++)
            normals[faces][k] = n[k] / length;
        first_corner[faces++] = tri[0];
    }
    if (faces == 0)
        return;

    float axis[3], unused;
    ritter_sphere((const float(*)[3])normals, faces, axis, &unused);
    float axis_length = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!(axis_length > 0.0f))
        return;
    for (int k = 0; k < 3; k++)
        axis[k] /= axis_length;
    float min_dot = 1.0f;
    for (size_t f = 0; f < faces; f++) {
        float dot = normals[f][0] * axis[0] + normals[f][1] * axis[1] + normals[f][2] * axis[2];
        min_dot = dot < min_dot ? dot : min_dot;
    }
    if (!(min_dot > CONE_MIN_DOT))
        return;
    /* The apex: centre - axis * t behind every triangle's plane, i.e.
     * dot(centre - t * axis - corner, normal) <= 0 for each. */
    float behind = 0.0f;
    for (size_t f = 0; f < faces; f++) {
        const float *corner = points[first_corner[f]], *n = normals[f];
        float to_centre = (out->center[0] - corner[0]) * n[0] +
                          (out->center[1] - corner[1]) * n[1] + (out->center[2] - corner[2]) * n[2];
        float along = axis[0] * n[0] + axis[1] * n[1] + axis[2] * n[2];
        float t = to_centre / along; /* along >= min_dot > 0 */
        behind = t > behind ? t : behind;
    }
    for (int k = 0; k < 3; k++) {
        out->cone_apex[k] = out->center[k] - axis[k] * behind;
        out->cone_axis[k] = axis[k];
    }
    /* Normals within acos(min_dot) of the axis: every face is turned away
     * from a camera within 90 - acos(min_dot) degrees of the axis behind the
     * apex, cos of which is sin(acos(min_dot)). */
    out->cone_cutoff = sqrtf(1.0f - min_dot * min_dot);
    quantise_cone(out);
}
