/* test_reference.c — see test_reference.h. */
#include "test_reference.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

void ref_mat4_multiply(const double a[16], const double b[16], double out[16]) {
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double sum = 0;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = sum;
        }
    memcpy(out, r, sizeof r);
}

/* v' = v + w t + cross(q.xyz, t) with t = 2 cross(q.xyz, v): q v q*. */
static void rotate(const double q[4], const double v[3], double out[3]) {
    double t[3] = {2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]),
                   2 * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

void ref_mat4_trs(const double t[3], const double q_in[4], const double s[3], double m[16]) {
    double length =
        sqrt(q_in[0] * q_in[0] + q_in[1] * q_in[1] + q_in[2] * q_in[2] + q_in[3] * q_in[3]);
    double q[4] = {q_in[0] / length, q_in[1] / length, q_in[2] / length, q_in[3] / length};
    memset(m, 0, 16 * sizeof *m);
    for (int c = 0; c < 3; c++) {
        double axis[3] = {c == 0, c == 1, c == 2}, r[3];
        rotate(q, axis, r);
        for (int row = 0; row < 3; row++)
            m[c * 4 + row] = r[row] * s[c];
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

void ref_mat4_point(const double m[16], const double p[3], double out[3]) {
    for (int r = 0; r < 3; r++)
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

json_t *ref_gltf_json(const char *path) {
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    const char *text = (const char *)bytes;
    size_t length = size;
    if (size >= 20 && memcmp(bytes, "glTF", 4) == 0) {
        length = (size_t)bytes[12] | (size_t)bytes[13] << 8 | (size_t)bytes[14] << 16 |
                 (size_t)bytes[15] << 24;
        assert_true(length <= size - 20);
        text = (const char *)bytes + 20;
    }
    json_error_t error;
    json_t *doc = json_loadb(text, length, 0, &error);
    free(bytes);
    if (doc == NULL)
        fail_msg("%s: %s", path, error.text);
    return doc;
}

void ref_numbers(const json_t *array, double *out, size_t n) {
    for (size_t k = 0; k < n; k++)
        out[k] = json_number_value(json_array_get(array, k));
}

void ref_gltf_local(const json_t *node, double m[16]) {
    const json_t *matrix = json_object_get(node, "matrix");
    if (matrix != NULL) {
        ref_numbers(matrix, m, 16);
        return;
    }
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    if (json_object_get(node, "translation"))
        ref_numbers(json_object_get(node, "translation"), t, 3);
    if (json_object_get(node, "rotation"))
        ref_numbers(json_object_get(node, "rotation"), q, 4);
    if (json_object_get(node, "scale"))
        ref_numbers(json_object_get(node, "scale"), s, 3);
    ref_mat4_trs(t, q, s, m);
}

void ref_gltf_world(const json_t *nodes, size_t index, const double parent[16],
                    double (*world)[16]) {
    const json_t *node = json_array_get(nodes, index);
    double local[16];
    ref_gltf_local(node, local);
    ref_mat4_multiply(parent, local, world[index]);
    const json_t *children = json_object_get(node, "children");
    for (size_t c = 0; c < json_array_size(children); c++)
        ref_gltf_world(nodes, (size_t)json_integer_value(json_array_get(children, c)), world[index],
                       world);
}
