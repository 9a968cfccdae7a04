/*
 * draco_decode.h — the Draco mesh decoder (Debian's libdraco, C++) behind one
 * plain C function, for the glTF importer's KHR_draco_mesh_compression.
 *
 * draco_decode_mesh_in_process is the only entry into libdraco: third-party
 * code parsing untrusted bytes. Everything it takes and gives is plain data
 * (bytes in, counts and flat arrays out), so draco_decode_mesh runs it in a
 * reused child process (isolate_decode.c) and copies the result back.
 */
#ifndef KILN_COOK_IMPORT_DRACO_DECODE_H
#define KILN_COOK_IMPORT_DRACO_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One attribute to extract: Draco's unique id (the value of the glTF
 * extension's "attributes" map), converted per component to a glTF
 * componentType (5120 BYTE ... 5126 FLOAT), `components` per point. */
typedef struct draco_request {
    uint32_t unique_id;
    uint32_t component_type;
    uint32_t components;
} draco_request;

typedef struct draco_mesh {
    uint32_t point_count;
    uint32_t face_count;
    uint32_t *indices; /* 3 * face_count point indices, each < point_count */
    /* Per request: point_count * components values of its component_type,
     * tightly packed, little-endian (as a glTF accessor without padding). */
    uint8_t **values;
    size_t value_count; /* entries of values (the request count) */
} draco_mesh;

/* Decodes a Draco-compressed triangle mesh and extracts the requested
 * attributes. Refuses (false, with a reason in error[error_size]) malformed
 * data, a point cloud, a missing attribute id, a component count other than
 * requested, values that do not convert, and output above max_bytes in total.
 * Never throws; *out is empty on failure. */
bool draco_decode_mesh_in_process(const uint8_t *data, size_t size, const draco_request *requests,
                                  size_t request_count, uint64_t max_bytes, draco_mesh *out,
                                  char *error, size_t error_size);
/* The same in a child process (KILN_ISOLATE=0: here), within
 * `timeout_seconds` (import.timeout; 0: its default) or what is left of the
 * asset's budget; a crash or hang of libdraco is an error naming
 * `source_name`'s file. */
bool draco_decode_mesh(const uint8_t *data, size_t size, const draco_request *requests,
                       size_t request_count, uint64_t max_bytes, const char *source_name,
                       double timeout_seconds, draco_mesh *out, char *error, size_t error_size);
void draco_mesh_free(draco_mesh *mesh);

#ifdef __cplusplus
}
#endif

#endif /* KILN_COOK_IMPORT_DRACO_DECODE_H */
