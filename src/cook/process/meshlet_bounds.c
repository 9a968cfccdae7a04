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

/* Points as three columns (x, y, z): the loops over them that only do
 * arithmetic lane by lane vectorise (a division per point costs several
 * multiplications; four in one instruction cost one). */
typedef struct point_columns {
    float *x, *y, *z;
} point_columns;

static float distance2(const point_columns *p, size_t i, const float c[3]) {
    float dx = p->x[i] - c[0], dy = p->y[i] - c[1], dz = p->z[i] - c[2];
    return dx * dx + dy * dy + dz * dz;
}

static float distance2_between(const point_columns *p, size_t i, size_t j) {
    float c[3] = {p->x[j], p->y[j], p->z[j]};
    return distance2(p, i, c);
}

/* Ritter's sphere around `count` (>= 1) points. */
static void ritter_sphere(const point_columns *p, size_t count, float centre[3], float *radius) {
    const float *column[3] = {p->x, p->y, p->z};
    /* The extremes' values kept beside their indices: comparing against
     * the point at lo[k] would make every step wait on a load. */
    size_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    float least[3], most[3];
    for (int k = 0; k < 3; k++)
        least[k] = most[k] = column[k][0];
    for (size_t i = 1; i < count; i++)
        for (int k = 0; k < 3; k++) {
            float v = column[k][i];
            lo[k] = v < least[k] ? i : lo[k];
            least[k] = v < least[k] ? v : least[k];
            hi[k] = v > most[k] ? i : hi[k];
            most[k] = v > most[k] ? v : most[k];
        }
    int axis = 0;
    float widest = distance2_between(p, lo[0], hi[0]);
    for (int k = 1; k < 3; k++) {
        float d2 = distance2_between(p, lo[k], hi[k]);
        if (d2 > widest) {
            widest = d2;
            axis = k;
        }
    }
    for (int k = 0; k < 3; k++)
        centre[k] = (column[k][lo[axis]] + column[k][hi[axis]]) * 0.5f;
    float r = sqrtf(widest) * 0.5f;
    for (size_t i = 0; i < count; i++) {
        float d2 = distance2(p, i, centre);
        if (d2 <= r * r)
            continue;
        /* Move the centre towards the point just enough to take it in. */
        float d = sqrtf(d2);
        float keep = 0.5f + 0.5f * (r / d);
        for (int k = 0; k < 3; k++)
            centre[k] = centre[k] * keep + column[k][i] * (1.0f - keep);
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
    float px[MESHLET_BUILD_MAX_VERTICES], py[MESHLET_BUILD_MAX_VERTICES],
        pz[MESHLET_BUILD_MAX_VERTICES];
    /* Per non-degenerate triangle: its normal (first unscaled, with its
     * length), then the two quotients of the apex's test. */
    float nx[MESHLET_BUILD_MAX_TRIANGLES], ny[MESHLET_BUILD_MAX_TRIANGLES],
        nz[MESHLET_BUILD_MAX_TRIANGLES], length[MESHLET_BUILD_MAX_TRIANGLES];
    float to_centre[MESHLET_BUILD_MAX_TRIANGLES], along[MESHLET_BUILD_MAX_TRIANGLES];
    uint8_t first_corner[MESHLET_BUILD_MAX_TRIANGLES];
    memset(out, 0, sizeof *out);
    out->cone_cutoff = 1.0f;
    out->cone_cutoff_s8 = 127;
    if (vertex_count == 0 || vertex_count > MESHLET_BUILD_MAX_VERTICES ||
        triangle_count > MESHLET_BUILD_MAX_TRIANGLES)
        return;
    for (size_t i = 0; i < vertex_count; i++) {
        const float *p = positions + 3 * (size_t)vertices[i];
        px[i] = p[0];
        py[i] = p[1];
        pz[i] = p[2];
    }
    point_columns points = {px, py, pz};
    ritter_sphere(&points, vertex_count, out->center, &out->radius);

    size_t faces = 0;
    for (size_t t = 0; t < triangle_count; t++) {
        const uint8_t *tri = triangles + 3 * t;
        if (tri[0] >= vertex_count || tri[1] >= vertex_count || tri[2] >= vertex_count)
            continue;
        uint8_t a = tri[0], b = tri[1], c = tri[2];
        float e1[3] = {px[b] - px[a], py[b] - py[a], pz[b] - pz[a]};
        float e2[3] = {px[c] - px[a], py[c] - py[a], pz[c] - pz[a]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(l > 0.0f) || !isfinite(l))
            continue; /* degenerate: faces no way */
        nx[faces] = n[0];
        ny[faces] = n[1];
        nz[faces] = n[2];
        length[faces] = l;
        first_corner[faces++] = a;
    }
    if (faces == 0)
        return;
    for (size_t f = 0; f < faces; f++) {
        nx[f] /= length[f];
        ny[f] /= length[f];
        nz[f] /= length[f];
    }

    float axis[3], unused;
    point_columns normals = {nx, ny, nz};
    ritter_sphere(&normals, faces, axis, &unused);
    float axis_length = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!(axis_length > 0.0f))
        return;
    for (int k = 0; k < 3; k++)
        axis[k] /= axis_length;
    float min_dot = 1.0f;
    for (size_t f = 0; f < faces; f++) {
        along[f] = nx[f] * axis[0] + ny[f] * axis[1] + nz[f] * axis[2];
        min_dot = along[f] < min_dot ? along[f] : min_dot;
    }
    if (!(min_dot > CONE_MIN_DOT))
        return;
    /* The apex: centre - axis * t behind every triangle's plane, i.e.
     * dot(centre - t * axis - corner, normal) <= 0 for each. */
    for (size_t f = 0; f < faces; f++) {
        size_t corner = first_corner[f];
        to_centre[f] = (out->center[0] - px[corner]) * nx[f] +
                       (out->center[1] - py[corner]) * ny[f] +
                       (out->center[2] - pz[corner]) * nz[f];
    }
    for (size_t f = 0; f < faces; f++)
        to_centre[f] /= along[f]; /* along >= min_dot > 0 */
    float behind = 0.0f;
    for (size_t f = 0; f < faces; f++)
        behind = to_centre[f] > behind ? to_centre[f] : behind;
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
