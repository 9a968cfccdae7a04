/* test_reference.h — independent reference computations for the scene, skin
 * and animation tests, in double precision and written differently from the
 * runtime (rotations by Hamilton products, world matrices by recursion over
 * the glTF JSON), so that agreement means something. */
#ifndef KILN_TEST_REFERENCE_H
#define KILN_TEST_REFERENCE_H

#include <jansson.h>
#include <stddef.h>

/* Column-major 4x4 product out = a * b (out may alias a or b). */
void ref_mat4_multiply(const double a[16], const double b[16], double out[16]);
/* T * R * S, the quaternion (x y z w, normalised here) applied to each basis
 * vector as q v q*. */
void ref_mat4_trs(const double t[3], const double q[4], const double s[3], double m[16]);
/* m * (p, 1), the first three rows. */
void ref_mat4_point(const double m[16], const double p[3], double out[3]);

/* The glTF JSON of a .gltf, or of a .glb's first (JSON) chunk; fails the
 * test when it cannot be read. */
json_t *ref_gltf_json(const char *path);
/* The first n numbers of a JSON array. */
void ref_numbers(const json_t *array, double *out, size_t n);
/* A glTF node's local matrix: its `matrix` as written, else T * R * S. */
void ref_gltf_local(const json_t *node, double m[16]);
/* world[index] = parent * local(index), then down `children` recursively. */
void ref_gltf_world(const json_t *nodes, size_t index, const double parent[16],
                    double (*world)[16]);

/* A glTF document with its buffers loaded: a .gltf's files and base64 data:
 * URIs, or a .glb's binary chunk. */
typedef struct ref_gltf {
    json_t *root;
    unsigned char **buffers;
    size_t buffer_count;
    unsigned char *glb;
    size_t glb_size;
    char *dir;
} ref_gltf;

void ref_gltf_open(ref_gltf *doc, const char *path);
void ref_gltf_close(ref_gltf *doc);
/* Accessor `index` as doubles, `components` per element (normalised integers
 * divided as glTF 3.11 says), its sparse substitution applied, zeros without
 * a bufferView; *count elements. Caller frees. */
double *ref_gltf_accessor(const ref_gltf *doc, size_t index, int components, size_t *count);

#endif
