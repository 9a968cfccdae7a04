/* normals.c — angle-weighted smooth vertex normals for meshes without them.
 *
 * Each triangle adds its unit face normal weighted by its corner angle to the
 * vertices it touches (Thürmer & Wüthrich), so a vertex's normal does not depend
 * on how a flat region happens to be tessellated. Vertices at one position share
 * their sum, so texture-coordinate seams do not show up as lighting seams. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

static void sub3(const float *a, const float *b, double out[3]) {
    for (int k = 0; k < 3; k++)
        out[k] = (double)a[k] - (double)b[k];
}

static double length3(const double v[3]) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static double corner_angle(const double e1[3], const double e2[3]) {
    double l1 = length3(e1), l2 = length3(e2);
    if (l1 == 0.0 || l2 == 0.0)
        return 0.0;
    double c = (e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2]) / (l1 * l2);
    return acos(c < -1.0 ? -1.0 : (c > 1.0 ? 1.0 : c));
}

/* canonical[v] = the lowest vertex index with v's exact position. */
static uint32_t *map_equal_positions(const ir_mesh *mesh) {
    uint32_t n = mesh->vertex_count;
    uint32_t *order = malloc((size_t)n * sizeof *order);
    uint32_t *canonical = malloc((size_t)n * sizeof *canonical);
    if (order == NULL || canonical == NULL) {
        free(order);
        free(canonical);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    /* Bottom-up merge sort keyed on (position bytes, index): C11's qsort has no
     * context argument, and this runs in several jobs at once. */
    uint32_t *scratch = malloc((size_t)n * sizeof *scratch);
    if (scratch == NULL) {
        free(order);
        free(canonical);
        return NULL;
    }
    const float *pos = mesh->positions;
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int c = memcmp(pos + 3 * (size_t)order[i], pos + 3 * (size_t)order[j],
                               3 * sizeof(float));
                scratch[k++] = (c < 0 || (c == 0 && order[i] < order[j])) ? order[i++] : order[j++];
            }
            while (i < mid)
                scratch[k++] = order[i++];
            while (j < hi)
                scratch[k++] = order[j++];
        }
        uint32_t *swap = order;
        order = scratch;
        scratch = swap;
    }
    free(scratch);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && memcmp(pos + 3 * (size_t)order[i], pos + 3 * (size_t)order[j],
                               3 * sizeof(float)) == 0)
            j++;
        for (uint32_t k = i; k < j; k++)
            canonical[order[k]] = order[i]; /* order[i] is the lowest index of the run */
        i = j;
    }
    free(order);
    return canonical;
}

bool process_generate_normals(ir_mesh *mesh) {
    if (mesh->normals != NULL || mesh->vertex_count == 0)
        return true;
    uint32_t n = mesh->vertex_count;
    double *sums = calloc((size_t)n * 3, sizeof *sums);
    float *normals = malloc((size_t)n * 3 * sizeof *normals);
    uint32_t *canonical = map_equal_positions(mesh);
    if (sums == NULL || normals == NULL || canonical == NULL) {
        free(sums);
        free(normals);
        free(canonical);
        return false;
    }
    for (uint32_t t = 0; t + 2 < mesh->index_count; t += 3) {
        const uint32_t *tri = mesh->indices + t;
        const float *p[3];
        for (int c = 0; c < 3; c++)
            p[c] = mesh->positions + 3 * (size_t)tri[c];
        double e01[3], e02[3];
        sub3(p[1], p[0], e01);
        sub3(p[2], p[0], e02);
        double face[3] = {e01[1] * e02[2] - e01[2] * e02[1], e01[2] * e02[0] - e01[0] * e02[2],
                          e01[0] * e02[1] - e01[1] * e02[0]};
        double face_length = length3(face);
        if (face_length == 0.0)
            continue; /* degenerate triangles carry no direction */
        for (int c = 0; c < 3; c++) {
            double a[3], b[3];
            sub3(p[(c + 1) % 3], p[c], a);
            sub3(p[(c + 2) % 3], p[c], b);
            double weight = corner_angle(a, b) / face_length;
            double *sum = sums + 3 * (size_t)canonical[tri[c]];
            for (int k = 0; k < 3; k++)
                sum[k] += face[k] * weight;
        }
    }
    for (uint32_t v = 0; v < n; v++) {
        const double *sum = sums + 3 * (size_t)canonical[v];
        double length = length3(sum);
        float *out = normals + 3 * (size_t)v;
        if (length > 0.0 && isfinite(length)) {
            for (int k = 0; k < 3; k++)
                out[k] = (float)(sum[k] / length);
        } else {
            out[0] = 0.0f; /* unreferenced or only degenerate faces: any unit vector */
            out[1] = 0.0f;
            out[2] = 1.0f;
        }
    }
    free(sums);
    free(canonical);
    mesh->normals = normals;
    return true;
}
