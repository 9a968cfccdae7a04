/* test_reference.c — see test_reference.h. */
#include "test_reference.h"

#include <math.h>
#include <stdbool.h>
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

/* ---------------------------------------------------------------------------
 * glTF documents
 * ------------------------------------------------------------------------- */

static int b64_value(char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : (c == '/' ? 63 : -1);
}

void ref_gltf_open(ref_gltf *s, const char *path) {
    memset(s, 0, sizeof *s);
    s->dir = strdup(path);
    *strrchr(s->dir, '/') = '\0';
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    json_error_t error;
    if (size >= 20 && memcmp(bytes, "glTF", 4) == 0) {
        uint32_t length, bin_length;
        memcpy(&length, bytes + 12, 4);
        s->root = json_loadb((const char *)bytes + 20, length, 0, &error);
        size_t bin = 20 + ((length + 3u) & ~3u);
        memcpy(&bin_length, bytes + bin, 4);
        s->glb = malloc(bin_length);
        memcpy(s->glb, bytes + bin + 8, bin_length);
        s->glb_size = bin_length;
    } else {
        s->root = json_loadb((const char *)bytes, size, 0, &error);
    }
    free(bytes);
    assert_non_null(s->root);
    const json_t *buffers = json_object_get(s->root, "buffers");
    s->buffer_count = json_array_size(buffers);
    s->buffers = calloc(s->buffer_count, sizeof *s->buffers);
    for (size_t b = 0; b < s->buffer_count; b++) {
        const char *uri = json_string_value(json_object_get(json_array_get(buffers, b), "uri"));
        if (uri == NULL) {
            s->buffers[b] = malloc(s->glb_size);
            memcpy(s->buffers[b], s->glb, s->glb_size);
        } else if (strncmp(uri, "data:", 5) == 0) {
            const char *data = strstr(uri, ";base64,") + 8;
            size_t n = strlen(data);
            uint8_t *out = malloc(n), *o = out;
            uint32_t acc = 0;
            int bits = 0;
            for (size_t k = 0; k < n; k++) {
                int v = b64_value(data[k]);
                if (v < 0)
                    continue;
                acc = (acc << 6) | (uint32_t)v;
                bits += 6;
                if (bits >= 8) {
                    bits -= 8;
                    *o++ = (uint8_t)(acc >> bits);
                }
            }
            s->buffers[b] = out;
        } else {
            char *p = test_path_join(s->dir, uri);
            size_t n;
            s->buffers[b] = test_read_file(p, &n);
            free(p);
        }
    }
}

void ref_gltf_close(ref_gltf *s) {
    for (size_t b = 0; b < s->buffer_count; b++)
        free(s->buffers[b]);
    free(s->buffers);
    free(s->glb);
    free(s->dir);
    json_decref(s->root);
}

static size_t component_size(int type) {
    return type == 5126 || type == 5125 ? 4 : (type == 5123 || type == 5122 ? 2 : 1);
}

/* One component per the glTF spec (3.11, normalized integers). */
static double component(const uint8_t *p, int type, bool normalized) {
    switch (type) {
    case 5126: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case 5125: {
        uint32_t u;
        memcpy(&u, p, 4);
        return u;
    }
    case 5123: {
        uint16_t u;
        memcpy(&u, p, 2);
        return normalized ? u / 65535.0 : u;
    }
    case 5122: {
        int16_t i;
        memcpy(&i, p, 2);
        return normalized ? fmax(i / 32767.0, -1.0) : i;
    }
    case 5121:
        return normalized ? *p / 255.0 : *p;
    default: {
        int8_t i = (int8_t)*p;
        return normalized ? fmax(i / 127.0, -1.0) : i;
    }
    }
}

static const uint8_t *view_bytes(const ref_gltf *s, size_t view, size_t *stride) {
    const json_t *v = json_array_get(json_object_get(s->root, "bufferViews"), view);
    if (stride != NULL)
        *stride = (size_t)json_integer_value(json_object_get(v, "byteStride"));
    return s->buffers[json_integer_value(json_object_get(v, "buffer"))] +
           json_integer_value(json_object_get(v, "byteOffset"));
}

double *ref_gltf_accessor(const ref_gltf *s, size_t index, int components, size_t *count) {
    const json_t *a = json_array_get(json_object_get(s->root, "accessors"), index);
    int type = (int)json_integer_value(json_object_get(a, "componentType"));
    bool normalized = json_is_true(json_object_get(a, "normalized"));
    *count = (size_t)json_integer_value(json_object_get(a, "count"));
    size_t size = component_size(type);
    double *out = calloc(*count * (size_t)components + 1, sizeof *out);
    const json_t *view = json_object_get(a, "bufferView");
    if (view != NULL) {
        size_t stride;
        const uint8_t *base = view_bytes(s, (size_t)json_integer_value(view), &stride) +
                              json_integer_value(json_object_get(a, "byteOffset"));
        if (stride == 0)
            stride = size * (size_t)components;
        for (size_t e = 0; e < *count; e++)
            for (int c = 0; c < components; c++)
                out[e * (size_t)components + (size_t)c] =
                    component(base + e * stride + (size_t)c * size, type, normalized);
    }
    const json_t *sparse = json_object_get(a, "sparse");
    if (sparse != NULL) {
        size_t n = (size_t)json_integer_value(json_object_get(sparse, "count"));
        const json_t *ji = json_object_get(sparse, "indices");
        const json_t *jv = json_object_get(sparse, "values");
        int itype = (int)json_integer_value(json_object_get(ji, "componentType"));
        const uint8_t *ib =
            view_bytes(s, (size_t)json_integer_value(json_object_get(ji, "bufferView")), NULL) +
            json_integer_value(json_object_get(ji, "byteOffset"));
        const uint8_t *vb =
            view_bytes(s, (size_t)json_integer_value(json_object_get(jv, "bufferView")), NULL) +
            json_integer_value(json_object_get(jv, "byteOffset"));
        for (size_t k = 0; k < n; k++) {
            size_t e = (size_t)component(ib + k * component_size(itype), itype, false);
            for (int c = 0; c < components; c++)
                out[e * (size_t)components + (size_t)c] =
                    component(vb + (k * (size_t)components + (size_t)c) * size, type, normalized);
        }
    }
    return out;
}
