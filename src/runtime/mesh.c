/* mesh.c — typed views into .kmesh files (docs/formats/kmesh.md).
 *
 * kiln_mesh_view_get checks that the descriptor and the chunks agree, rule by
 * rule, each citing kmesh.md's numbered requirement. The container has already
 * been validated (every chunk lies inside the file at a 16-byte-aligned offset
 * of a 16-byte-aligned block), so once a chunk's size matches what the
 * descriptor declares, its payload can be used in place as a typed array. The
 * fast path costs O(chunks + attributes + submeshes); only KILN_OPEN_DEEP reads
 * the index data. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/checked.h"
#include "kiln/kiln.h"
#include "runtime/internal.h"

/* ---------------------------------------------------------------------------
 * Vertex formats and names
 * ------------------------------------------------------------------------- */

uint32_t kiln_vertex_format_size(kiln_vertex_format format) {
    switch (format) {
    case KILN_VFORMAT_F32X2:
        return 8;
    case KILN_VFORMAT_F32X3:
        return 12;
    case KILN_VFORMAT_F32X4:
        return 16;
    case KILN_VFORMAT_OCT_SNORM16X2:
        return 4;
    case KILN_VFORMAT_UNORM8X4:
        return 4;
    case KILN_VFORMAT_UNORM16X2:
        return 4;
    case KILN_VFORMAT_UNORM16X4:
        return 8;
    case KILN_VFORMAT_SNORM16X4:
        return 8;
    case KILN_VFORMAT_U8X4:
        return 4;
    case KILN_VFORMAT_U16X4:
        return 8;
    case KILN_VFORMAT_OCT_SIGNED_SNORM16X2:
        return 4;
    case KILN_VFORMAT_INVALID:
    case KILN_VFORMAT_COUNT_:
        break;
    }
    return 0;
}

const char *kiln_vertex_semantic_str(kiln_vertex_semantic semantic) {
    static const char *const names[KILN_SEMANTIC_COUNT_] = {
        "invalid", "position", "normal",   "tangent", "texcoord0", "texcoord1",
        "color0",  "joints0",  "weights0", "joints1", "weights1",
    };
    if ((unsigned)semantic >= KILN_SEMANTIC_COUNT_)
        return "invalid";
    return names[semantic];
}

const char *kiln_vertex_format_str(kiln_vertex_format format) {
    static const char *const names[KILN_VFORMAT_COUNT_] = {
        "invalid",   "f32x2",     "f32x3",     "f32x4", "oct_snorm16x2", "unorm8x4",
        "unorm16x2", "unorm16x4", "snorm16x4", "u8x4",  "u16x4",         "oct_signed_snorm16x2",
    };
    if ((unsigned)format >= KILN_VFORMAT_COUNT_)
        return "invalid";
    return names[format];
}

uint32_t kiln_topology_index_count(kiln_topology topology) {
    switch (topology) {
    case KILN_TOPOLOGY_TRIANGLES:
        return 3;
    case KILN_TOPOLOGY_LINES:
        return 2;
    case KILN_TOPOLOGY_POINTS:
        return 1;
    case KILN_TOPOLOGY_COUNT_:
        break;
    }
    return 0;
}

const char *kiln_topology_str(kiln_topology topology) {
    static const char *const names[KILN_TOPOLOGY_COUNT_] = {"triangles", "lines", "points"};
    if ((unsigned)topology >= KILN_TOPOLOGY_COUNT_)
        return "invalid";
    return names[topology];
}

/* Inverse of the cooker's encode_oct_snorm16: unfold the lower hemisphere
 * (the fold is its own inverse), then rescale from the octahedron
 * |x|+|y|+|z| = 1 to the unit sphere. In double, so the result is the
 * correctly rounded float of the decoded direction (unit length to 1 ulp). */
static double snorm16_to_double(int16_t value) {
    double v = value / 32767.0;
    return v < -1.0 ? -1.0 : v; /* -32768 means -1, like -32767 */
}

static void oct_decode_xy(double x, double y, float out[3]) {
    double z = 1.0 - fabs(x) - fabs(y);
    if (z < 0.0) {
        double unfolded_x = (1.0 - fabs(y)) * (x >= 0.0 ? 1.0 : -1.0);
        double unfolded_y = (1.0 - fabs(x)) * (y >= 0.0 ? 1.0 : -1.0);
        x = unfolded_x;
        y = unfolded_y;
    }
    /* |x|+|y|+|z| == 1 here, so the length is at least 1/sqrt(3). */
    double length = sqrt(x * x + y * y + z * z);
    out[0] = (float)(x / length);
    out[1] = (float)(y / length);
    out[2] = (float)(z / length);
}

void kiln_oct_decode(const int16_t encoded[2], float out[3]) {
    oct_decode_xy(snorm16_to_double(encoded[0]), snorm16_to_double(encoded[1]), out);
}

void kiln_oct_signed_decode(const int16_t encoded[2], float out[4]) {
    /* y' = w * (0.5 + 0.5 * y): the sign is w, the magnitude holds y. */
    double packed = snorm16_to_double(encoded[1]);
    oct_decode_xy(snorm16_to_double(encoded[0]), fabs(packed) * 2.0 - 1.0, out);
    out[3] = encoded[1] < 0 ? -1.0f : 1.0f;
}

/* ---------------------------------------------------------------------------
 * The view
 * ------------------------------------------------------------------------- */

const kiln_vertex_attribute *kiln_mesh_find_attribute(const kiln_mesh_view *view,
                                                      kiln_vertex_semantic semantic) {
    if (view == NULL || view->desc == NULL || view->attributes == NULL)
        return NULL;
    for (uint32_t i = 0; i < view->desc->attribute_count; i++)
        if (view->attributes[i].semantic == (uint16_t)semantic)
            return &view->attributes[i];
    return NULL;
}

const kiln_lod *kiln_mesh_lod(const kiln_mesh_view *view, uint32_t submesh, uint32_t level) {
    if (view == NULL || view->desc == NULL || view->lods == NULL ||
        submesh >= view->desc->submesh_count || level >= view->desc->lod_count)
        return NULL;
    return &view->lods[(size_t)submesh * view->desc->lod_count + level];
}

/* Bytes a stream of `size`-byte values takes in VTX0 with
 * KILN_MESH_FLAG_STREAMS: padded so the next one starts 16-byte aligned
 * (kmesh.md VTX0). */
static uint64_t padded_stream_bytes(uint32_t vertex_count, uint32_t size) {
    return ((uint64_t)vertex_count * size + 15u) & ~(uint64_t)15u;
}

const uint8_t *kiln_mesh_attribute_data(const kiln_mesh_view *view,
                                        const kiln_vertex_attribute *attribute, uint32_t *stride,
                                        size_t *offset) {
    if (view == NULL || view->desc == NULL || attribute == NULL || attribute < view->attributes ||
        attribute >= view->attributes + view->desc->attribute_count)
        return NULL;
    const kiln_mesh_desc *desc = view->desc;
    size_t at = attribute->offset;
    uint32_t step = desc->vertex_stride;
    if ((desc->flags & KILN_MESH_FLAG_STREAMS) != 0) {
        /* Streams in attribute order, each after the padded ones before. */
        at = 0;
        for (const kiln_vertex_attribute *a = view->attributes; a < attribute; a++)
            at += (size_t)padded_stream_bytes(
                desc->vertex_count, kiln_vertex_format_size((kiln_vertex_format)a->format));
        step = kiln_vertex_format_size((kiln_vertex_format)attribute->format);
    }
    if (stride != NULL)
        *stride = step;
    if (offset != NULL)
        *offset = at;
    return view->vertices != NULL ? (const uint8_t *)view->vertices + at : NULL;
}

void kiln_mesh_position(const kiln_mesh_view *view, uint32_t vertex, float out[3]) {
    const kiln_vertex_attribute *a = kiln_mesh_find_attribute(view, KILN_SEMANTIC_POSITION);
    out[0] = out[1] = out[2] = 0.0f;
    uint32_t stride = 0;
    const uint8_t *base = kiln_mesh_attribute_data(view, a, &stride, NULL);
    if (base == NULL || vertex >= view->desc->vertex_count)
        return;
    const uint8_t *src = base + (size_t)vertex * stride;
    if (a->format == KILN_VFORMAT_UNORM16X4) {
        uint16_t q[4];
        memcpy(q, src, sizeof q);
        for (int k = 0; k < 3; k++)
            out[k] = view->desc->position_offset[k] +
                     view->desc->position_scale[k] * (float)(q[k] / 65535.0);
    } else {
        memcpy(out, src, 3 * sizeof(float));
    }
}

static uint32_t name_offset(const kiln_mesh_view *view, uint32_t submesh) {
    uint32_t offset;
    memcpy(&offset, view->submesh_names + (size_t)submesh * 4, 4);
    return offset;
}

/* kmesh.md R20: SNAM, when present, has an offset per submesh, each unnamed
 * or at a NUL-terminated string inside the chunk after the offsets. */
static kiln_result check_submesh_names(const kiln_file *file, const kiln_mesh_desc *desc,
                                       const kiln_mesh_view *view, kiln_error *err) {
    if (view->submesh_names == NULL)
        return KILN_OK;
    size_t table = (size_t)desc->submesh_count * 4;
    if (view->submesh_names_size < table)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "SNAM chunk is %zu bytes, too small for %" PRIu32 " name offsets",
                            view->submesh_names_size, desc->submesh_count);
    for (uint32_t s = 0; s < desc->submesh_count; s++) {
        uint32_t offset = name_offset(view, s);
        if (offset == KILN_SUBMESH_UNNAMED)
            continue;
        if (offset < table || offset >= view->submesh_names_size ||
            memchr(view->submesh_names + offset, '\0', view->submesh_names_size - offset) == NULL)
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "submesh %" PRIu32 "'s name (offset %" PRIu32
                                ") is not a string inside the SNAM chunk",
                                s, offset);
    }
    return KILN_OK;
}

const char *kiln_mesh_submesh_name(const kiln_mesh_view *view, uint32_t submesh) {
    if (view == NULL || view->submesh_names == NULL || submesh >= view->desc->submesh_count)
        return NULL;
    uint32_t offset = name_offset(view, submesh);
    return offset == KILN_SUBMESH_UNNAMED ? NULL : (const char *)view->submesh_names + offset;
}

/* The mesh's own chunks, found in one walk over the table. */
typedef struct mesh_chunks {
    const kiln_chunk_entry *desc, *attributes, *vertices, *indices, *submeshes, *lods, *meshlets,
        *meshlet_vertices, *meshlet_triangles, *submesh_names, *morph_deltas, *morph_names;
} mesh_chunks;

static const kiln_chunk_entry **chunk_slot(mesh_chunks *found, uint32_t fourcc) {
    switch (fourcc) {
    case KILN_CHUNK_MESH_DESC:
        return &found->desc;
    case KILN_CHUNK_MESH_ATTRS:
        return &found->attributes;
    case KILN_CHUNK_MESH_VERTICES:
        return &found->vertices;
    case KILN_CHUNK_MESH_INDICES:
        return &found->indices;
    case KILN_CHUNK_MESH_SUBMESHES:
        return &found->submeshes;
    case KILN_CHUNK_MESH_LODS:
        return &found->lods;
    case KILN_CHUNK_MESH_MESHLETS:
        return &found->meshlets;
    case KILN_CHUNK_MESH_MESHLET_VERTICES:
        return &found->meshlet_vertices;
    case KILN_CHUNK_MESH_MESHLET_TRIANGLES:
        return &found->meshlet_triangles;
    case KILN_CHUNK_MESH_SUBMESH_NAMES:
        return &found->submesh_names;
    case KILN_CHUNK_MESH_MORPH_DELTAS:
        return &found->morph_deltas;
    case KILN_CHUNK_MESH_MORPH_NAMES:
        return &found->morph_names;
    default:
        return NULL;
    }
}

/* kmesh.md R3: every mesh chunk at most once; other chunks are skipped. */
static kiln_result find_mesh_chunks(const kiln_file *file, mesh_chunks *found, kiln_error *err) {
    memset(found, 0, sizeof *found);
    for (uint32_t i = 0; i < file->chunk_count; i++) {
        const kiln_chunk_entry *chunk = &file->chunks[i];
        const kiln_chunk_entry **slot = chunk_slot(found, chunk->fourcc);
        if (slot == NULL)
            continue; /* kmesh.md R3: not ours, skip */
        if (*slot != NULL) {
            char fourcc[5];
            kiln_fourcc_str(chunk->fourcc, fourcc);
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "chunk %" PRIu32 " is a second %s chunk", i, fourcc);
        }
        *slot = chunk;
    }
    return KILN_OK;
}

/* A validated chunk's payload; NULL for an absent or empty chunk, which
 * kmesh.md R3 treats alike. */
static const void *payload(const kiln_file *file, const kiln_chunk_entry *chunk) {
    return chunk != NULL && chunk->size > 0 ? file->data + chunk->offset : NULL;
}

static uint64_t payload_size(const kiln_chunk_entry *chunk) {
    return chunk != NULL ? chunk->size : 0;
}

/* A data chunk must hold exactly count * element bytes (kmesh.md R9). */
static kiln_result check_array_size(const kiln_file *file, const kiln_chunk_entry *chunk,
                                    const char *fourcc, uint64_t count, uint64_t element,
                                    const char *what, kiln_error *err) {
    uint64_t expected;
    if (!checked_mul_u64(count, element, &expected) || payload_size(chunk) != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "%s chunk is %" PRIu64 " bytes, expected %" PRIu64 " x %" PRIu64
                            " (%s)",
                            fourcc, payload_size(chunk), count, element, what);
    return KILN_OK;
}

static kiln_result check_descriptor(const kiln_file *file, const kiln_mesh_desc *desc,
                                    kiln_error *err) {
    const char *name = file->name;
    if ((desc->flags & ~KILN_MESH_FLAGS_KNOWN_) != 0) /* kmesh.md R5 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name, "unknown mesh flags 0x%" PRIx32,
                            desc->flags & ~KILN_MESH_FLAGS_KNOWN_);
    if ((desc->morph_attributes & ~KILN_MORPH_ALL_) != 0 ||
        (desc->morph_target_count == 0) != (desc->morph_attributes == 0)) /* kmesh.md R21 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "%" PRIu32 " morph targets with morph attributes 0x%" PRIx32
                            " (known bits 0x7, none exactly when there are no targets)",
                            desc->morph_target_count, desc->morph_attributes);
    if (desc->index_size != 2 && desc->index_size != 4) /* kmesh.md R6 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "index_size is %" PRIu32 ", expected 2 or 4", desc->index_size);
    if (desc->vertex_stride % 4 != 0 || (desc->vertex_count > 0 && desc->vertex_stride == 0))
        return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R7 */
                            "vertex_stride %" PRIu32 " is not a positive multiple of 4",
                            desc->vertex_stride);
    if (desc->lod_count < 1 || desc->lod_count > KILN_MESH_MAX_LODS) /* kmesh.md R8 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "lod_count %" PRIu32 " is outside 1..%u",
                            desc->lod_count, KILN_MESH_MAX_LODS);
    if (desc->meshlet_count > 0 &&
        (desc->meshlet_max_vertices < 3 ||
         desc->meshlet_max_vertices > KILN_MESH_MAX_MESHLET_VERTICES ||
         desc->meshlet_max_triangles < 1 ||
         desc->meshlet_max_triangles > KILN_MESH_MAX_MESHLET_TRIANGLES)) /* kmesh.md R8 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "meshlet limits %" PRIu32 " vertices / %" PRIu32
                            " triangles are outside 3..%u / 1..%u",
                            desc->meshlet_max_vertices, desc->meshlet_max_triangles,
                            KILN_MESH_MAX_MESHLET_VERTICES, KILN_MESH_MAX_MESHLET_TRIANGLES);
    if (!runtime_all_finite(desc->position_offset, 3) ||
        !runtime_all_finite(desc->position_scale, 3))
        return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R8 */
                            "position offset or scale is not finite");
    return KILN_OK;
}

static kiln_result check_attributes(const kiln_file *file, const kiln_mesh_desc *desc,
                                    const kiln_vertex_attribute *attributes, kiln_error *err) {
    const char *name = file->name;
    bool seen[KILN_SEMANTIC_COUNT_] = {false};
    bool streams = (desc->flags & KILN_MESH_FLAG_STREAMS) != 0;
    uint32_t packed = 0; /* bytes of every attribute of one vertex */
    for (uint32_t i = 0; i < desc->attribute_count; i++) {
        const kiln_vertex_attribute *a = &attributes[i];
        uint32_t size = kiln_vertex_format_size((kiln_vertex_format)a->format);
        const char *semantic = kiln_vertex_semantic_str((kiln_vertex_semantic)a->semantic);
        if (a->semantic == KILN_SEMANTIC_INVALID || a->semantic >= KILN_SEMANTIC_COUNT_)
            return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R10 */
                                "attribute %" PRIu32 " has invalid semantic %u", i,
                                (unsigned)a->semantic);
        if (size == 0) /* kmesh.md R10 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "attribute %" PRIu32 " (%s) has invalid format %u", i, semantic,
                                (unsigned)a->format);
        if (streams && (a->stream != i || a->offset != 0)) /* kmesh.md R10 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "attribute %" PRIu32 " (%s) has stream %u and offset %u; with "
                                "separate streams it must be stream %" PRIu32 " at offset 0",
                                i, semantic, (unsigned)a->stream, (unsigned)a->offset, i);
        if (!streams && a->stream != 0) /* kmesh.md R10 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "attribute %" PRIu32 " (%s) uses stream %u in an interleaved mesh",
                                i, semantic, (unsigned)a->stream);
        packed += size;
        if (a->offset % 4 != 0 || (uint32_t)a->offset + size > desc->vertex_stride)
            return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R10 */
                                "attribute %" PRIu32 " (%s, %" PRIu32
                                " bytes at offset %u) does not fit 4-aligned in the %" PRIu32
                                "-byte vertex",
                                i, semantic, size, (unsigned)a->offset, desc->vertex_stride);
        if (seen[a->semantic]) /* kmesh.md R11 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "attribute %" PRIu32 " repeats semantic %s", i, semantic);
        seen[a->semantic] = true;
        if (a->semantic == KILN_SEMANTIC_POSITION && a->format != KILN_VFORMAT_F32X3 &&
            a->format != KILN_VFORMAT_UNORM16X4)
            return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R12 */
                                "position is %s; it must be f32x3 or unorm16x4",
                                kiln_vertex_format_str((kiln_vertex_format)a->format));
    }
    if (!seen[KILN_SEMANTIC_POSITION]) /* kmesh.md R12 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "no position attribute");
    if (streams && packed != desc->vertex_stride) /* kmesh.md R10 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "vertex_stride %" PRIu32 " is not the %" PRIu32
                            " bytes of the attributes' streams",
                            desc->vertex_stride, packed);
    return KILN_OK;
}

/* kmesh.md R9 for VTX0 with KILN_MESH_FLAG_STREAMS (after R10, which makes
 * every format size known): each stream padded to 16 bytes, back to back. */
static kiln_result check_stream_bytes(const kiln_file *file, const kiln_chunk_entry *vertices,
                                      const kiln_mesh_desc *desc,
                                      const kiln_vertex_attribute *attributes, kiln_error *err) {
    uint64_t expected = 0;
    for (uint32_t i = 0; i < desc->attribute_count; i++)
        expected += padded_stream_bytes(
            desc->vertex_count, kiln_vertex_format_size((kiln_vertex_format)attributes[i].format));
    if (payload_size(vertices) != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "VTX0 chunk is %" PRIu64 " bytes, expected %" PRIu64 " (%" PRIu32
                            " attribute streams of %" PRIu32 " vertices, each padded to 16 bytes)",
                            payload_size(vertices), expected, desc->attribute_count,
                            desc->vertex_count);
    return KILN_OK;
}

/* kmesh.md R14: finite bounds, min <= max, non-negative radius. */
static bool bounds_valid(const float aabb_min[3], const float aabb_max[3], const float sphere[4]) {
    for (int k = 0; k < 3; k++)
        if (!isfinite(aabb_min[k]) || !isfinite(aabb_max[k]) || !(aabb_min[k] <= aabb_max[k]))
            return false;
    return runtime_all_finite(sphere, 4) && sphere[3] >= 0.0f;
}

/* An index range of whole primitives (`size` indices each) inside the index
 * buffer (kmesh.md R13, R15). Ranges of lines and points put the ones after
 * them anywhere, so the offset has no alignment. */
static bool primitive_range_valid(uint32_t offset, uint32_t count, uint32_t size,
                                  uint32_t index_count) {
    return count % size == 0 && range_inside(offset, count, index_count);
}

static kiln_result check_submeshes(const kiln_file *file, const kiln_mesh_desc *desc,
                                   const kiln_submesh *submeshes, kiln_error *err) {
    const char *name = file->name;
    for (uint32_t i = 0; i < desc->submesh_count; i++) {
        const kiln_submesh *s = &submeshes[i];
        kiln_topology topology = (kiln_topology)s->topology;
        uint32_t size = kiln_topology_index_count(topology);
        if (size == 0) /* kmesh.md R13 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "submesh %" PRIu32 " has unknown topology %u", i,
                                (unsigned)s->topology);
        if (!primitive_range_valid(s->index_offset, s->index_count, size, desc->index_count))
            return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R13 */
                                "submesh %" PRIu32 " indices %" PRIu32 "+%" PRIu32
                                " are not whole %s inside index_count %" PRIu32,
                                i, s->index_offset, s->index_count, kiln_topology_str(topology),
                                desc->index_count);
        if (s->material_slot >= desc->material_count) /* kmesh.md R13 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "submesh %" PRIu32 " uses material slot %" PRIu32
                                " but the mesh has %" PRIu32,
                                i, s->material_slot, desc->material_count);
        if (s->flags != 0) /* kmesh.md R13 */
            return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                                "submesh %" PRIu32 " has unknown flags 0x%x", i,
                                (unsigned)s->flags);
        if (!range_inside(s->meshlet_offset, s->meshlet_count, desc->meshlet_count))
            return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R13 */
                                "submesh %" PRIu32 " meshlets %" PRIu32 "+%" PRIu32
                                " run past meshlet_count %" PRIu32,
                                i, s->meshlet_offset, s->meshlet_count, desc->meshlet_count);
        if (topology != KILN_TOPOLOGY_TRIANGLES && s->meshlet_count != 0)
            return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R13 */
                                "submesh %" PRIu32 " draws %s but has %" PRIu32
                                " meshlets; meshlets hold triangles",
                                i, kiln_topology_str(topology), s->meshlet_count);
        if (!bounds_valid(s->aabb_min, s->aabb_max, s->sphere)) /* kmesh.md R14 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "submesh %" PRIu32 " bounds are not finite or not ordered", i);
    }
    return KILN_OK;
}

static kiln_result check_lods(const kiln_file *file, const kiln_mesh_desc *desc,
                              const kiln_submesh *submeshes, const kiln_lod *lods,
                              kiln_error *err) {
    const char *name = file->name;
    for (uint32_t s = 0; s < desc->submesh_count; s++) {
        /* check_submeshes ran first: the topology is known. */
        kiln_topology topology = (kiln_topology)submeshes[s].topology;
        uint32_t size = kiln_topology_index_count(topology);
        for (uint32_t level = 0; level < desc->lod_count; level++) {
            const kiln_lod *lod = &lods[(size_t)s * desc->lod_count + level];
            if (!primitive_range_valid(lod->index_offset, lod->index_count, size,
                                       desc->index_count))
                return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R15 */
                                    "submesh %" PRIu32 " level %" PRIu32 " indices %" PRIu32
                                    "+%" PRIu32 " are not whole %s inside the buffer",
                                    s, level, lod->index_offset, lod->index_count,
                                    kiln_topology_str(topology));
            if ((lod->flags & ~KILN_LOD_FLAG_REUSED) != 0) /* kmesh.md R15 */
                return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                                    "submesh %" PRIu32 " level %" PRIu32
                                    " has unknown flags 0x%" PRIx32,
                                    s, level, lod->flags);
            if (!isfinite(lod->error) || lod->error < 0.0f) /* kmesh.md R15 */
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "submesh %" PRIu32 " level %" PRIu32
                                    " error is negative or not finite",
                                    s, level);
            bool matches_submesh = lod->index_offset == submeshes[s].index_offset &&
                                   lod->index_count == submeshes[s].index_count;
            if (level == 0 && (!matches_submesh || lod->flags != 0)) /* kmesh.md R15 */
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "submesh %" PRIu32 " level 0 is not the submesh's range", s);
        }
    }
    return KILN_OK;
}

static kiln_result check_meshlets(const kiln_file *file, const kiln_mesh_desc *desc,
                                  const kiln_meshlet *meshlets, kiln_error *err) {
    const char *name = file->name;
    for (uint32_t i = 0; i < desc->meshlet_count; i++) {
        const kiln_meshlet *m = &meshlets[i];
        if (m->vertex_count > desc->meshlet_max_vertices ||
            m->triangle_count > desc->meshlet_max_triangles) /* kmesh.md R16 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "meshlet %" PRIu32 " has %" PRIu32 " vertices and %" PRIu32
                                " triangles, above the limits %" PRIu32 "/%" PRIu32,
                                i, m->vertex_count, m->triangle_count, desc->meshlet_max_vertices,
                                desc->meshlet_max_triangles);
        if (!range_inside(m->vertex_offset, m->vertex_count, desc->meshlet_vertex_count) ||
            !range_inside(m->triangle_offset, m->triangle_count, desc->meshlet_triangle_count))
            return runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R16 */
                                "meshlet %" PRIu32 " ranges run past MLVX or MLTR", i);
        float sphere[4] = {m->center[0], m->center[1], m->center[2], m->radius};
        if (!runtime_all_finite(sphere, 4) || m->radius < 0.0f ||
            !runtime_all_finite(m->cone_apex, 3) || !runtime_all_finite(m->cone_axis, 3) ||
            !isfinite(m->cone_cutoff)) /* kmesh.md R16 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "meshlet %" PRIu32 " bounds or cone are not finite", i);
    }
    return KILN_OK;
}

/* kmesh.md R17 (KILN_OPEN_DEEP): every index names a vertex; every meshlet
 * vertex names a vertex and every local index a meshlet vertex. O(n). */
static kiln_result check_indices(const kiln_file *file, const kiln_mesh_view *view,
                                 kiln_error *err) {
    const kiln_mesh_desc *desc = view->desc;
    for (uint32_t i = 0; i < desc->index_count; i++) {
        uint32_t index = desc->index_size == 2 ? ((const uint16_t *)view->indices)[i]
                                               : ((const uint32_t *)view->indices)[i];
        if (index >= desc->vertex_count)
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "index %" PRIu32 " is %" PRIu32 ", not below vertex_count %" PRIu32,
                                i, index, desc->vertex_count);
    }
    for (uint32_t i = 0; i < desc->meshlet_vertex_count; i++)
        if (view->meshlet_vertices[i] >= desc->vertex_count)
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "meshlet vertex %" PRIu32 " is %" PRIu32
                                ", not below vertex_count %" PRIu32,
                                i, view->meshlet_vertices[i], desc->vertex_count);
    for (uint32_t m = 0; m < desc->meshlet_count; m++) {
        const kiln_meshlet *meshlet = &view->meshlets[m];
        const uint8_t *local = view->meshlet_triangles + 3 * (size_t)meshlet->triangle_offset;
        for (uint32_t t = 0; t < 3 * meshlet->triangle_count; t++)
            if (local[t] >= meshlet->vertex_count)
                return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                    "meshlet %" PRIu32 " local index %u is not below its %" PRIu32
                                    " vertices",
                                    m, (unsigned)local[t], meshlet->vertex_count);
    }
    return KILN_OK;
}

static uint32_t morph_attribute_count(const kiln_mesh_desc *desc) {
    uint32_t a = desc->morph_attributes & KILN_MORPH_ALL_;
    return (a & 1u) + (a >> 1 & 1u) + (a >> 2 & 1u);
}

/* kmesh.md R23 (KILN_OPEN_DEEP): every morph delta is finite. */
static kiln_result check_morph_deltas(const kiln_file *file, const kiln_mesh_view *view,
                                      kiln_error *err) {
    const kiln_mesh_desc *desc = view->desc;
    size_t block = (size_t)desc->vertex_count * 3;
    uint32_t per_target = morph_attribute_count(desc);
    for (uint32_t t = 0; t < desc->morph_target_count; t++)
        for (uint32_t a = 0; a < per_target; a++) {
            const float *d = view->morph_deltas + ((size_t)t * per_target + a) * block;
            for (size_t i = 0; i < block; i++)
                if (!isfinite(d[i]))
                    return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                        "morph target %" PRIu32 " delta of vertex %zu is not "
                                        "finite",
                                        t, i / 3);
        }
    return KILN_OK;
}

/* kmesh.md R22: MNAM as SNAM, one offset per morph target. */
static kiln_result check_morph_names(const kiln_file *file, const kiln_mesh_desc *desc,
                                     const kiln_mesh_view *view, kiln_error *err) {
    if (view->morph_names == NULL)
        return KILN_OK;
    size_t table = (size_t)desc->morph_target_count * 4;
    if (view->morph_names_size < table)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "MNAM chunk is %zu bytes, too small for %" PRIu32 " name offsets",
                            view->morph_names_size, desc->morph_target_count);
    for (uint32_t t = 0; t < desc->morph_target_count; t++) {
        uint32_t offset;
        memcpy(&offset, view->morph_names + (size_t)t * 4, 4);
        if (offset == KILN_SUBMESH_UNNAMED)
            continue;
        if (offset < table || offset >= view->morph_names_size ||
            memchr(view->morph_names + offset, '\0', view->morph_names_size - offset) == NULL)
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "morph target %" PRIu32 "'s name (offset %" PRIu32
                                ") is not a string inside the MNAM chunk",
                                t, offset);
    }
    return KILN_OK;
}

const char *kiln_mesh_morph_target_name(const kiln_mesh_view *view, uint32_t target) {
    if (view == NULL || view->desc == NULL || view->morph_names == NULL ||
        target >= view->desc->morph_target_count)
        return NULL;
    uint32_t offset;
    memcpy(&offset, view->morph_names + (size_t)target * 4, 4);
    return offset == KILN_SUBMESH_UNNAMED ? NULL : (const char *)view->morph_names + offset;
}

const float *kiln_mesh_morph_deltas(const kiln_mesh_view *view, uint32_t target,
                                    uint32_t attribute) {
    if (view == NULL || view->desc == NULL || view->morph_deltas == NULL ||
        target >= view->desc->morph_target_count ||
        (attribute != KILN_MORPH_POSITION && attribute != KILN_MORPH_NORMAL &&
         attribute != KILN_MORPH_TANGENT) ||
        (view->desc->morph_attributes & attribute) == 0)
        return NULL;
    uint32_t per_target = morph_attribute_count(view->desc);
    uint32_t slot = 0; /* blocks of the attributes before this one */
    for (uint32_t bit = 1; bit < attribute; bit <<= 1)
        slot += (view->desc->morph_attributes & bit) != 0;
    return view->morph_deltas +
           ((size_t)target * per_target + slot) * (size_t)view->desc->vertex_count * 3;
}

kiln_result kiln_mesh_morph_positions(const kiln_mesh_view *view, const float *weights,
                                      uint32_t weight_count, float *out, size_t out_floats,
                                      kiln_error *err) {
    if (view == NULL || view->desc == NULL || out == NULL || (weight_count > 0 && weights == NULL))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_mesh_morph_positions needs a view, weights and an output");
    const kiln_mesh_desc *desc = view->desc;
    if (weight_count != desc->morph_target_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "%" PRIu32 " weights for a mesh with %" PRIu32 " morph targets",
                            weight_count, desc->morph_target_count);
    if (out_floats / 3 < desc->vertex_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "the output holds %zu floats; %" PRIu32 " vertices need 3 each",
                            out_floats, desc->vertex_count);
    for (uint32_t v = 0; v < desc->vertex_count; v++)
        kiln_mesh_position(view, v, out + 3 * (size_t)v);
    for (uint32_t t = 0; t < weight_count; t++) {
        const float *d = kiln_mesh_morph_deltas(view, t, KILN_MORPH_POSITION);
        float w = weights[t];
        if (d == NULL || w == 0.0f)
            continue;
        for (size_t i = 0; i < 3 * (size_t)desc->vertex_count; i++)
            out[i] += w * d[i];
    }
    return runtime_succeed(err);
}

/* kmesh.md R9: each data chunk holds exactly what the descriptor declares. */
static kiln_result check_chunk_sizes(const kiln_file *file, const mesh_chunks *c,
                                     const kiln_mesh_desc *d, kiln_error *err) {
    kiln_result r = check_array_size(file, c->attributes, "MATR", d->attribute_count,
                                     sizeof(kiln_vertex_attribute), "attribute_count", err);
    if (r == KILN_OK && (d->flags & KILN_MESH_FLAG_STREAMS) == 0) /* streams: after R10 */
        r = check_array_size(file, c->vertices, "VTX0", d->vertex_count, d->vertex_stride,
                             "vertex_count x vertex_stride", err);
    if (r == KILN_OK)
        r = check_array_size(file, c->indices, "IDX ", d->index_count, d->index_size,
                             "index_count x index_size", err);
    if (r == KILN_OK)
        r = check_array_size(file, c->submeshes, "SUBM", d->submesh_count, sizeof(kiln_submesh),
                             "submesh_count", err);
    if (r == KILN_OK)
        r = check_array_size(file, c->lods, "LODS", (uint64_t)d->submesh_count * d->lod_count,
                             sizeof(kiln_lod), "submesh_count x lod_count", err);
    if (r == KILN_OK)
        r = check_array_size(file, c->meshlets, "MLET", d->meshlet_count, sizeof(kiln_meshlet),
                             "meshlet_count", err);
    if (r == KILN_OK)
        r = check_array_size(file, c->meshlet_vertices, "MLVX", d->meshlet_vertex_count,
                             sizeof(uint32_t), "meshlet_vertex_count", err);
    if (r == KILN_OK)
        r = check_array_size(file, c->meshlet_triangles, "MLTR", d->meshlet_triangle_count, 3,
                             "meshlet_triangle_count x 3", err);
    if (r == KILN_OK) /* kmesh.md R9, R21 */
        r = check_array_size(file, c->morph_deltas, "MDLT",
                             (uint64_t)d->morph_target_count * morph_attribute_count(d),
                             (uint64_t)d->vertex_count * 12,
                             "morph_target_count x attributes x vertex_count x 12", err);
    return r;
}

kiln_result kiln_mesh_view_get(const kiln_file *file, uint32_t flags, kiln_mesh_view *view,
                               kiln_error *err) {
    if (view != NULL)
        memset(view, 0, sizeof *view);
    if (file == NULL || file->data == NULL || view == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_mesh_view_get needs an open file and a view");
    if ((flags & ~(uint32_t)(KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP)) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, file->name, "unknown flags 0x%" PRIx32,
                            flags);
    const char *name = file->name;
    char fourcc[5];

    if (file->kind != KILN_KIND_MESH) { /* kmesh.md R1 */
        kiln_fourcc_str(file->kind, fourcc);
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, name,
                            "not a mesh (kind '%s', expected 'MESH')", fourcc);
    }
    if (runtime_require_plain(file, err) != KILN_OK) /* container.md R24 */
        return KILN_ERR_UNSUPPORTED;
    if (file->kind_version != KILN_MESH_VERSION) /* kmesh.md R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "mesh version %u is not supported (this build reads version %u)",
                            (unsigned)file->kind_version, KILN_MESH_VERSION);

    mesh_chunks chunks;
    kiln_result result = find_mesh_chunks(file, &chunks, err); /* kmesh.md R3 */
    if (result != KILN_OK)
        return result;
    if (chunks.desc == NULL) /* kmesh.md R4 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "no MDSC (mesh descriptor) chunk");
    if (chunks.desc->size != sizeof(kiln_mesh_desc)) /* kmesh.md R4 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "MDSC chunk is %" PRIu64 " bytes, expected %zu", chunks.desc->size,
                            sizeof(kiln_mesh_desc));
    const kiln_mesh_desc *desc = payload(file, chunks.desc);
    result = check_descriptor(file, desc, err); /* kmesh.md R5-R8 */
    /* Sizes before contents: after these, each payload is exactly its array. */
    if (result == KILN_OK)
        result = check_chunk_sizes(file, &chunks, desc, err); /* kmesh.md R9 */
    if (result != KILN_OK)
        return result;

    kiln_mesh_view v;
    v.desc = desc;
    v.attributes = payload(file, chunks.attributes);
    v.vertices = payload(file, chunks.vertices);
    v.vertex_bytes = (size_t)payload_size(chunks.vertices);
    v.indices = payload(file, chunks.indices);
    v.index_bytes = (size_t)payload_size(chunks.indices);
    v.submeshes = payload(file, chunks.submeshes);
    v.lods = payload(file, chunks.lods);
    v.meshlets = payload(file, chunks.meshlets);
    v.meshlet_vertices = payload(file, chunks.meshlet_vertices);
    v.meshlet_triangles = payload(file, chunks.meshlet_triangles);
    v.submesh_names = payload(file, chunks.submesh_names);
    v.submesh_names_size = v.submesh_names ? (size_t)payload_size(chunks.submesh_names) : 0;
    v.morph_deltas = payload(file, chunks.morph_deltas);
    v.morph_names = payload(file, chunks.morph_names);
    v.morph_names_size = v.morph_names ? (size_t)payload_size(chunks.morph_names) : 0;

    result = check_attributes(file, desc, v.attributes, err); /* kmesh.md R10-R12 */
    if (result == KILN_OK && (desc->flags & KILN_MESH_FLAG_STREAMS) != 0)
        result = check_stream_bytes(file, chunks.vertices, desc, v.attributes, err); /* R9 */
    if (result == KILN_OK)
        result = check_submeshes(file, desc, v.submeshes, err); /* kmesh.md R13-R14 */
    if (result == KILN_OK)
        result = check_lods(file, desc, v.submeshes, v.lods, err); /* kmesh.md R15 */
    if (result == KILN_OK)
        result = check_submesh_names(file, desc, &v, err); /* kmesh.md R20 */
    if (result == KILN_OK)
        result = check_morph_names(file, desc, &v, err); /* kmesh.md R22 */
    if (result == KILN_OK && !bounds_valid(desc->aabb_min, desc->aabb_max, desc->sphere))
        result = runtime_fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R14 */
                              "mesh bounds are not finite or not ordered");
    /* Meshlet entries are data like indices: checked with them, so a load
     * costs the same for a 1k- and a 1M-triangle mesh. */
    if (result == KILN_OK && (flags & KILN_OPEN_DEEP) != 0)
        result = check_meshlets(file, desc, v.meshlets, err); /* kmesh.md R16 */
    if (result == KILN_OK && (flags & KILN_OPEN_DEEP) != 0)
        result = check_indices(file, &v, err); /* kmesh.md R17 */
    if (result == KILN_OK && (flags & KILN_OPEN_DEEP) != 0)
        result = check_morph_deltas(file, &v, err); /* kmesh.md R23 */
    if (result != KILN_OK)
        return result;

    *view = v;
    return runtime_succeed(err);
}
