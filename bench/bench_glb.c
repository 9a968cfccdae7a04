/*
 * bench_glb.c — the benchmark grid as a binary glTF 2.0 file (GLB).
 *
 * Layout, from the glTF 2.0 specification ("GLB File Format Specification"),
 * every integer little-endian:
 *
 *   header      magic "glTF", version 2, total file length     (12 bytes)
 *   JSON chunk  length, type "JSON", the text padded with spaces to 4 bytes
 *   BIN chunk   length, type "BIN\0", the data padded with zeros to 4 bytes
 *
 * The BIN chunk holds four tightly packed arrays, one buffer view and one
 * accessor each: positions (f32x3), normals (f32x3), texcoords (f32x2) and
 * indices (u32). Each array's size is a multiple of 4 bytes, so the views are
 * 4-byte aligned without padding between them, and so is the chunk's end.
 * Separate arrays rather than one interleaved view: it is what most exporters
 * (Blender's among them) write.
 */
#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"

#define GLB_MAGIC 0x46546c67u /* "glTF" */
#define GLB_VERSION 2u
#define GLB_CHUNK_JSON 0x4e4f534au /* "JSON" */
#define GLB_CHUNK_BIN 0x004e4942u  /* "BIN\0" */
#define GLB_HEADER_BYTES 12u
#define GLB_CHUNK_HEADER_BYTES 8u

#define GLTF_FLOAT 5126u
#define GLTF_UNSIGNED_INT 5125u
#define GLTF_ARRAY_BUFFER 34962u
#define GLTF_ELEMENT_ARRAY_BUFFER 34963u

/* Sizes of everything in the file, worked out before a byte is written: the
 * header and the JSON both state lengths. */
typedef struct glb_layout {
    uint32_t quads;
    uint64_t vertex_count;
    uint64_t index_count;
    uint64_t position_bytes, normal_bytes, texcoord_bytes, index_bytes;
    uint64_t bin_bytes;
    float position_min[3], position_max[3]; /* the POSITION accessor must state them */
} glb_layout;

static void write_u32(FILE *out, uint32_t value) {
    uint8_t bytes[4] = {(uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16),
                        (uint8_t)(value >> 24)};
    fwrite(bytes, 1, sizeof bytes, out);
}

/* Floats go through their bit pattern so the file is little-endian on any host. */
static void write_f32(FILE *out, double value) {
    float f = (float)value;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    write_u32(out, bits);
}

/* The bounds of the positions as they are stored, i.e. after rounding to float,
 * so that min/max match the data exactly as the specification asks. */
static void compute_bounds(glb_layout *layout) {
    for (int axis = 0; axis < 3; axis++) {
        layout->position_min[axis] = FLT_MAX;
        layout->position_max[axis] = -FLT_MAX;
    }
    bench_grid_vertex v;
    for (uint32_t row = 0; row <= layout->quads; row++) {
        for (uint32_t col = 0; col <= layout->quads; col++) {
            bench_grid_vertex_at(layout->quads, row, col, &v);
            for (int axis = 0; axis < 3; axis++) {
                float p = (float)v.position[axis];
                if (p < layout->position_min[axis])
                    layout->position_min[axis] = p;
                if (p > layout->position_max[axis])
                    layout->position_max[axis] = p;
            }
        }
    }
}

static void plan_layout(uint32_t quads, glb_layout *layout) {
    memset(layout, 0, sizeof *layout);
    layout->quads = quads;
    layout->vertex_count = (uint64_t)(quads + 1) * (quads + 1);
    layout->index_count = 6ull * quads * quads;
    layout->position_bytes = layout->vertex_count * 12;
    layout->normal_bytes = layout->vertex_count * 12;
    layout->texcoord_bytes = layout->vertex_count * 8;
    layout->index_bytes = layout->index_count * 4;
    layout->bin_bytes = layout->position_bytes + layout->normal_bytes + layout->texcoord_bytes +
                        layout->index_bytes;
    compute_bounds(layout);
}

/* The glTF JSON. %.9g prints a float exactly, so the bounds survive the text. */
static int format_json(const glb_layout *l, char *out, size_t capacity) {
    unsigned long long vertices = l->vertex_count, indices = l->index_count;
    unsigned long long normal_offset = l->position_bytes;
    unsigned long long texcoord_offset = normal_offset + l->normal_bytes;
    unsigned long long index_offset = texcoord_offset + l->texcoord_bytes;
    return snprintf(out, capacity,
                    "{\"asset\":{\"version\":\"2.0\",\"generator\":\"kiln bench_gen_mesh\"},"
                    "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                    "\"nodes\":[{\"name\":\"grid\",\"mesh\":0}],"
                    "\"meshes\":[{\"name\":\"grid\",\"primitives\":[{\"attributes\":"
                    "{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"indices\":3,\"mode\":4}]}],"
                    "\"accessors\":["
                    "{\"bufferView\":0,\"componentType\":%u,\"count\":%llu,\"type\":\"VEC3\","
                    "\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]},"
                    "{\"bufferView\":1,\"componentType\":%u,\"count\":%llu,\"type\":\"VEC3\"},"
                    "{\"bufferView\":2,\"componentType\":%u,\"count\":%llu,\"type\":\"VEC2\"},"
                    "{\"bufferView\":3,\"componentType\":%u,\"count\":%llu,\"type\":\"SCALAR\"}],"
                    "\"bufferViews\":["
                    "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%llu,\"target\":%u},"
                    "{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,\"target\":%u},"
                    "{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,\"target\":%u},"
                    "{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,\"target\":%u}],"
                    "\"buffers\":[{\"byteLength\":%llu}]}",
                    GLTF_FLOAT, vertices, (double)l->position_min[0], (double)l->position_min[1],
                    (double)l->position_min[2], (double)l->position_max[0],
                    (double)l->position_max[1], (double)l->position_max[2], GLTF_FLOAT, vertices,
                    GLTF_FLOAT, vertices, GLTF_UNSIGNED_INT, indices,
                    (unsigned long long)l->position_bytes, GLTF_ARRAY_BUFFER, normal_offset,
                    (unsigned long long)l->normal_bytes, GLTF_ARRAY_BUFFER, texcoord_offset,
                    (unsigned long long)l->texcoord_bytes, GLTF_ARRAY_BUFFER, index_offset,
                    (unsigned long long)l->index_bytes, GLTF_ELEMENT_ARRAY_BUFFER,
                    (unsigned long long)l->bin_bytes);
}

typedef enum grid_stream { STREAM_POSITION, STREAM_NORMAL, STREAM_TEXCOORD } grid_stream;

/* One vertex attribute for every grid point, row-major: vertex r * (n + 1) + c. */
static void write_vertex_stream(FILE *out, uint32_t quads, grid_stream stream) {
    bench_grid_vertex v;
    for (uint32_t row = 0; row <= quads; row++) {
        for (uint32_t col = 0; col <= quads; col++) {
            bench_grid_vertex_at(quads, row, col, &v);
            const double *values = stream == STREAM_POSITION ? v.position
                                   : stream == STREAM_NORMAL ? v.normal
                                                             : v.uv;
            int components = stream == STREAM_TEXCOORD ? 2 : 3;
            for (int i = 0; i < components; i++)
                write_f32(out, values[i]);
        }
    }
}

/* Two triangles per cell with the corners and winding of the OBJ's quad
 * a-b-c-d (bench_util.c), split along a-c as a triangulating exporter would. */
static void write_indices(FILE *out, uint32_t quads) {
    uint32_t points = quads + 1;
    for (uint32_t row = 0; row < quads; row++) {
        for (uint32_t col = 0; col < quads; col++) {
            uint32_t a = row * points + col;
            uint32_t b = a + points;
            uint32_t c = b + 1;
            uint32_t d = a + 1;
            uint32_t triangles[6] = {a, b, c, a, c, d};
            for (int i = 0; i < 6; i++)
                write_u32(out, triangles[i]);
        }
    }
}

static void write_glb(FILE *out, const glb_layout *layout, const char *json, uint32_t json_bytes) {
    uint32_t padded_json = (json_bytes + 3u) & ~3u;
    uint64_t total =
        GLB_HEADER_BYTES + 2 * GLB_CHUNK_HEADER_BYTES + padded_json + layout->bin_bytes;
    write_u32(out, GLB_MAGIC);
    write_u32(out, GLB_VERSION);
    write_u32(out, (uint32_t)total);

    write_u32(out, padded_json);
    write_u32(out, GLB_CHUNK_JSON);
    fwrite(json, 1, json_bytes, out);
    for (uint32_t i = json_bytes; i < padded_json; i++)
        fputc(' ', out); /* the specification's padding for the JSON chunk */

    /* bin_bytes is already a multiple of 4: no zero padding needed. */
    write_u32(out, (uint32_t)layout->bin_bytes);
    write_u32(out, GLB_CHUNK_BIN);
    write_vertex_stream(out, layout->quads, STREAM_POSITION);
    write_vertex_stream(out, layout->quads, STREAM_NORMAL);
    write_vertex_stream(out, layout->quads, STREAM_TEXCOORD);
    write_indices(out, layout->quads);
}

bool bench_write_grid_glb(const char *path, uint32_t quads_per_side, char *reason,
                          size_t reason_size) {
    if (quads_per_side == 0 || quads_per_side > 20000) {
        snprintf(reason, reason_size, "grid size %u is out of range 1..20000", quads_per_side);
        return false;
    }
    glb_layout layout;
    plan_layout(quads_per_side, &layout);
    /* GLB stores the total length in 32 bits; the JSON is well under 4 KiB. */
    if (layout.bin_bytes > UINT32_MAX - 4096) {
        snprintf(reason, reason_size, "a %u-quad grid does not fit in a GLB (4 GiB limit)",
                 quads_per_side);
        return false;
    }
    char json[4096];
    int json_bytes = format_json(&layout, json, sizeof json);
    if (json_bytes < 0 || (size_t)json_bytes >= sizeof json) {
        snprintf(reason, reason_size, "the glTF JSON does not fit its buffer");
        return false;
    }

    char temp_path[4096];
    snprintf(temp_path, sizeof temp_path, "%s.tmp", path);
    FILE *out = fopen(temp_path, "wb");
    if (out == NULL) {
        snprintf(reason, reason_size, "cannot create '%s': %s", temp_path, strerror(errno));
        return false;
    }
    write_glb(out, &layout, json, (uint32_t)json_bytes);
    bool ok = !ferror(out);
    if (fclose(out) != 0)
        ok = false;
    if (ok && rename(temp_path, path) != 0)
        ok = false;
    if (!ok) {
        snprintf(reason, reason_size, "cannot write '%s': %s", path, strerror(errno));
        remove(temp_path);
    }
    return ok;
}
