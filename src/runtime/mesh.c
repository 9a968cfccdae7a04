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

/* Fills `err` with "<name>: <message>" and returns `code`. */
__attribute__((format(printf, 4, 5))) static kiln_result
fail(kiln_error *err, kiln_result code, const char *name, const char *fmt, ...) {
    if (err == NULL)
        return code;
    err->code = code;
    int prefix = snprintf(err->message, sizeof err->message, "%s: ", name);
    if (prefix < 0 || (size_t)prefix >= sizeof err->message)
        return code;
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->message + prefix, sizeof err->message - (size_t)prefix, fmt, args);
    va_end(args);
    return code;
}

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
    case KILN_VFORMAT_INVALID:
    case KILN_VFORMAT_COUNT_:
        break;
    }
    return 0;
}

const char *kiln_vertex_semantic_str(kiln_vertex_semantic semantic) {
    static const char *const names[KILN_SEMANTIC_COUNT_] = {
        "invalid",   "position", "normal",  "tangent",  "texcoord0",
        "texcoord1", "color0",   "joints0", "weights0",
    };
    if ((unsigned)semantic >= KILN_SEMANTIC_COUNT_)
        return "invalid";
    return names[semantic];
}

const char *kiln_vertex_format_str(kiln_vertex_format format) {
    static const char *const names[KILN_VFORMAT_COUNT_] = {
        "invalid",   "f32x2",     "f32x3",     "f32x4", "oct_snorm16x2", "unorm8x4",
        "unorm16x2", "unorm16x4", "snorm16x4", "u8x4",  "u16x4",
    };
    if ((unsigned)format >= KILN_VFORMAT_COUNT_)
        return "invalid";
    return names[format];
}

/* Inverse of the cooker's encode_oct_snorm16: unfold the lower hemisphere
 * (the fold is its own inverse), then rescale from the octahedron
 * |x|+|y|+|z| = 1 to the unit sphere. In double, so the result is the
 * correctly rounded float of the decoded direction (unit length to 1 ulp). */
void kiln_oct_decode(const int16_t encoded[2], float out[3]) {
    double x = encoded[0] / 32767.0, y = encoded[1] / 32767.0;
    x = x < -1.0 ? -1.0 : x; /* -32768 means -1, like -32767 */
    y = y < -1.0 ? -1.0 : y;
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

/* The mesh's own chunks, found in one walk over the table. */
typedef struct mesh_chunks {
    const kiln_chunk_entry *desc, *attributes, *vertices, *indices, *submeshes;
} mesh_chunks;

/* kmesh.md R3: every mesh chunk at most once; other chunks are skipped. */
static kiln_result find_mesh_chunks(const kiln_file *file, mesh_chunks *found, kiln_error *err) {
    memset(found, 0, sizeof *found);
    for (uint32_t i = 0; i < file->chunk_count; i++) {
        const kiln_chunk_entry *chunk = &file->chunks[i];
        const kiln_chunk_entry **slot = NULL;
        switch (chunk->fourcc) {
        case KILN_CHUNK_MESH_DESC:
            slot = &found->desc;
            break;
        case KILN_CHUNK_MESH_ATTRS:
            slot = &found->attributes;
            break;
        case KILN_CHUNK_MESH_VERTICES:
            slot = &found->vertices;
            break;
        case KILN_CHUNK_MESH_INDICES:
            slot = &found->indices;
            break;
        case KILN_CHUNK_MESH_SUBMESHES:
            slot = &found->submeshes;
            break;
        default:
            continue; /* kmesh.md R19: not ours, skip */
        }
        if (*slot != NULL) {
            char fourcc[5];
            kiln_fourcc_str(chunk->fourcc, fourcc);
            return fail(err, KILN_ERR_CORRUPT, file->name, "chunk %" PRIu32 " is a second %s chunk",
                        i, fourcc);
        }
        *slot = chunk;
    }
    return KILN_OK;
}

/* A validated chunk's payload; NULL for an absent or empty chunk, which
 * kmesh.md R19 treats alike. */
static const void *payload(const kiln_file *file, const kiln_chunk_entry *chunk) {
    return chunk != NULL && chunk->size > 0 ? file->data + chunk->offset : NULL;
}

static uint64_t payload_size(const kiln_chunk_entry *chunk) {
    return chunk != NULL ? chunk->size : 0;
}

/* A data chunk must hold exactly count * element bytes (kmesh.md R9-R12). */
static kiln_result check_array_size(const kiln_file *file, const kiln_chunk_entry *chunk,
                                    const char *fourcc, uint64_t count, uint64_t element,
                                    const char *what, kiln_error *err) {
    uint64_t expected;
    if (!checked_mul_u64(count, element, &expected) || payload_size(chunk) != expected)
        return fail(err, KILN_ERR_CORRUPT, file->name,
                    "%s chunk is %" PRIu64 " bytes, expected %" PRIu64 " x %" PRIu64 " (%s)",
                    fourcc, payload_size(chunk), count, element, what);
    return KILN_OK;
}

static kiln_result check_descriptor(const kiln_file *file, const kiln_mesh_desc *desc,
                                    kiln_error *err) {
    const char *name = file->name;
    if (desc->flags != 0) /* kmesh.md R5 */
        return fail(err, KILN_ERR_UNSUPPORTED, name, "unknown mesh flags 0x%" PRIx32, desc->flags);
    for (size_t i = 0; i < sizeof desc->reserved / sizeof desc->reserved[0]; i++)
        if (desc->reserved[i] != 0) /* kmesh.md R5 */
            return fail(err, KILN_ERR_CORRUPT, name, "mesh descriptor reserved[%zu] is not 0", i);
    if (desc->index_size != 2 && desc->index_size != 4) /* kmesh.md R6 */
        return fail(err, KILN_ERR_CORRUPT, name, "index_size is %" PRIu32 ", expected 2 or 4",
                    desc->index_size);
    if (desc->index_count % 3 != 0) /* kmesh.md R7 */
        return fail(err, KILN_ERR_CORRUPT, name,
                    "index_count %" PRIu32 " is not a multiple of 3 (triangle lists)",
                    desc->index_count);
    if (desc->vertex_stride % 4 != 0 || (desc->vertex_count > 0 && desc->vertex_stride == 0))
        return fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R8 */
                    "vertex_stride %" PRIu32 " is not a positive multiple of 4",
                    desc->vertex_stride);
    return KILN_OK;
}

static kiln_result check_attributes(const kiln_file *file, const kiln_mesh_desc *desc,
                                    const kiln_vertex_attribute *attributes, kiln_error *err) {
    const char *name = file->name;
    bool seen[KILN_SEMANTIC_COUNT_] = {false};
    for (uint32_t i = 0; i < desc->attribute_count; i++) {
        const kiln_vertex_attribute *a = &attributes[i];
        uint32_t size = kiln_vertex_format_size((kiln_vertex_format)a->format);
        if (a->semantic == KILN_SEMANTIC_INVALID || a->semantic >= KILN_SEMANTIC_COUNT_)
            return fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R13 */
                        "attribute %" PRIu32 " has invalid semantic %u", i, (unsigned)a->semantic);
        if (size == 0) /* kmesh.md R13 */
            return fail(
                err, KILN_ERR_CORRUPT, name, "attribute %" PRIu32 " (%s) has invalid format %u", i,
                kiln_vertex_semantic_str((kiln_vertex_semantic)a->semantic), (unsigned)a->format);
        if (a->stream != 0) /* kmesh.md R13 */
            return fail(err, KILN_ERR_CORRUPT, name,
                        "attribute %" PRIu32 " (%s) uses stream %u; version 1 has only stream 0", i,
                        kiln_vertex_semantic_str((kiln_vertex_semantic)a->semantic),
                        (unsigned)a->stream);
        if (a->offset % 4 != 0 || (uint32_t)a->offset + size > desc->vertex_stride)
            return fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R13 */
                        "attribute %" PRIu32 " (%s, %" PRIu32 " bytes at offset %u) does not fit "
                        "4-aligned in the %" PRIu32 "-byte vertex",
                        i, kiln_vertex_semantic_str((kiln_vertex_semantic)a->semantic), size,
                        (unsigned)a->offset, desc->vertex_stride);
        if (seen[a->semantic]) /* kmesh.md R14 */
            return fail(err, KILN_ERR_CORRUPT, name, "attribute %" PRIu32 " repeats semantic %s", i,
                        kiln_vertex_semantic_str((kiln_vertex_semantic)a->semantic));
        seen[a->semantic] = true;
        if (a->semantic == KILN_SEMANTIC_POSITION && a->format != KILN_VFORMAT_F32X3)
            return fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R15 */
                        "position is %s, version 1 requires f32x3",
                        kiln_vertex_format_str((kiln_vertex_format)a->format));
    }
    if (!seen[KILN_SEMANTIC_POSITION]) /* kmesh.md R15 */
        return fail(err, KILN_ERR_CORRUPT, name, "no position attribute");
    return KILN_OK;
}

/* kmesh.md R17: finite bounds, min <= max, non-negative radius. */
static bool bounds_valid(const float aabb_min[3], const float aabb_max[3], const float sphere[4]) {
    for (int k = 0; k < 3; k++)
        if (!isfinite(aabb_min[k]) || !isfinite(aabb_max[k]) || !(aabb_min[k] <= aabb_max[k]))
            return false;
    for (int k = 0; k < 4; k++)
        if (!isfinite(sphere[k]))
            return false;
    return sphere[3] >= 0.0f;
}

static kiln_result check_submeshes(const kiln_file *file, const kiln_mesh_desc *desc,
                                   const kiln_submesh *submeshes, kiln_error *err) {
    const char *name = file->name;
    for (uint32_t i = 0; i < desc->submesh_count; i++) {
        const kiln_submesh *s = &submeshes[i];
        if (s->index_offset % 3 != 0 || s->index_count % 3 != 0) /* kmesh.md R16 */
            return fail(err, KILN_ERR_CORRUPT, name,
                        "submesh %" PRIu32 " index range %" PRIu32 "+%" PRIu32
                        " does not start and end on a triangle",
                        i, s->index_offset, s->index_count);
        if (!range_inside(s->index_offset, s->index_count, desc->index_count)) /* kmesh.md R16 */
            return fail(err, KILN_ERR_CORRUPT, name,
                        "submesh %" PRIu32 " indices %" PRIu32 "+%" PRIu32
                        " run past index_count %" PRIu32,
                        i, s->index_offset, s->index_count, desc->index_count);
        if (s->material_slot >= desc->material_count) /* kmesh.md R16 */
            return fail(err, KILN_ERR_CORRUPT, name,
                        "submesh %" PRIu32 " uses material slot %" PRIu32
                        " but the mesh has %" PRIu32,
                        i, s->material_slot, desc->material_count);
        if (s->flags != 0) /* kmesh.md R16 */
            return fail(err, KILN_ERR_UNSUPPORTED, name,
                        "submesh %" PRIu32 " has unknown flags 0x%" PRIx32, i, s->flags);
        if (s->reserved[0] != 0 || s->reserved[1] != 0) /* kmesh.md R16 */
            return fail(err, KILN_ERR_CORRUPT, name, "submesh %" PRIu32 " reserved field is not 0",
                        i);
        if (!bounds_valid(s->aabb_min, s->aabb_max, s->sphere)) /* kmesh.md R17 */
            return fail(err, KILN_ERR_CORRUPT, name,
                        "submesh %" PRIu32 " bounds are not finite or not ordered", i);
    }
    return KILN_OK;
}

/* kmesh.md R18 (KILN_OPEN_DEEP): every index names a vertex. O(index_count). */
static kiln_result check_indices(const kiln_file *file, const kiln_mesh_view *view,
                                 kiln_error *err) {
    const kiln_mesh_desc *desc = view->desc;
    for (uint32_t i = 0; i < desc->index_count; i++) {
        uint32_t index = desc->index_size == 2 ? ((const uint16_t *)view->indices)[i]
                                               : ((const uint32_t *)view->indices)[i];
        if (index >= desc->vertex_count)
            return fail(err, KILN_ERR_CORRUPT, file->name,
                        "index %" PRIu32 " is %" PRIu32 ", not below vertex_count %" PRIu32, i,
                        index, desc->vertex_count);
    }
    return KILN_OK;
}

kiln_result kiln_mesh_view_get(const kiln_file *file, uint32_t flags, kiln_mesh_view *view,
                               kiln_error *err) {
    if (view != NULL)
        memset(view, 0, sizeof *view);
    if (file == NULL || file->data == NULL || view == NULL)
        return fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                    "kiln_mesh_view_get needs an open file and a view");
    if ((flags & ~(uint32_t)(KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP)) != 0)
        return fail(err, KILN_ERR_INVALID_ARGUMENT, file->name, "unknown flags 0x%" PRIx32, flags);
    const char *name = file->name;
    char fourcc[5];

    if (file->kind != KILN_KIND_MESH) { /* kmesh.md R1 */
        kiln_fourcc_str(file->kind, fourcc);
        return fail(err, KILN_ERR_BAD_MAGIC, name, "not a mesh (kind '%s', expected 'MESH')",
                    fourcc);
    }
    if (file->kind_version != KILN_MESH_VERSION) /* kmesh.md R2 */
        return fail(err, KILN_ERR_UNSUPPORTED, name,
                    "mesh version %u is not supported (this build reads version %u)",
                    (unsigned)file->kind_version, KILN_MESH_VERSION);

    mesh_chunks chunks;
    kiln_result result = find_mesh_chunks(file, &chunks, err); /* kmesh.md R3 */
    if (result != KILN_OK)
        return result;
    if (chunks.desc == NULL) /* kmesh.md R4 */
        return fail(err, KILN_ERR_CORRUPT, name, "no MDSC (mesh descriptor) chunk");
    if (chunks.desc->size != sizeof(kiln_mesh_desc)) /* kmesh.md R4 */
        return fail(err, KILN_ERR_CORRUPT, name, "MDSC chunk is %" PRIu64 " bytes, expected %zu",
                    chunks.desc->size, sizeof(kiln_mesh_desc));
    const kiln_mesh_desc *desc = payload(file, chunks.desc);
    result = check_descriptor(file, desc, err); /* kmesh.md R5-R8 */

    /* Sizes before contents: after these, each payload is exactly its array. */
    if (result == KILN_OK)
        result = check_array_size(file, chunks.attributes, "MATR", desc->attribute_count,
                                  sizeof(kiln_vertex_attribute), "attribute_count",
                                  err); /* kmesh.md R9 */
    if (result == KILN_OK)
        result =
            check_array_size(file, chunks.vertices, "VTX0", desc->vertex_count, desc->vertex_stride,
                             "vertex_count x vertex_stride", err); /* kmesh.md R10 */
    if (result == KILN_OK)
        result = check_array_size(file, chunks.indices, "IDX ", desc->index_count, desc->index_size,
                                  "index_count x index_size", err); /* kmesh.md R11 */
    if (result == KILN_OK)
        result = check_array_size(file, chunks.submeshes, "SUBM", desc->submesh_count,
                                  sizeof(kiln_submesh), "submesh_count", err); /* kmesh.md R12 */
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

    result = check_attributes(file, desc, v.attributes, err); /* kmesh.md R13-R15 */
    if (result == KILN_OK)
        result = check_submeshes(file, desc, v.submeshes, err); /* kmesh.md R16-R17 */
    if (result == KILN_OK && !bounds_valid(desc->aabb_min, desc->aabb_max, desc->sphere))
        result = fail(err, KILN_ERR_CORRUPT, name, /* kmesh.md R17 */
                      "mesh bounds are not finite or not ordered");
    if (result == KILN_OK && (flags & KILN_OPEN_DEEP) != 0)
        result = check_indices(file, &v, err); /* kmesh.md R18 */
    if (result != KILN_OK)
        return result;

    *view = v;
    if (err != NULL) {
        err->code = KILN_OK;
        err->message[0] = '\0';
    }
    return KILN_OK;
}
