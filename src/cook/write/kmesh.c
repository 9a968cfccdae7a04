/* kmesh.c — serialises an IR mesh as a .kmesh file (docs/formats/kmesh.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"

/* The cooked vertex layout: which IR streams are present decides which
 * attributes the file declares; the descriptor names each, so engines read the
 * layout instead of assuming one. */
typedef struct vertex_layout {
    kiln_vertex_attribute attributes[KILN_SEMANTIC_COUNT_];
    uint32_t count;
    uint32_t stride;
} vertex_layout;

static void layout_add(vertex_layout *layout, kiln_vertex_semantic semantic,
                       kiln_vertex_format format) {
    kiln_vertex_attribute *a = &layout->attributes[layout->count++];
    a->semantic = (uint16_t)semantic;
    a->format = (uint16_t)format;
    a->stream = 0;
    a->offset = (uint16_t)layout->stride;
    layout->stride += kiln_vertex_format_size(format);
}

static void choose_layout(const ir_mesh *mesh, vertex_layout *layout) {
    memset(layout, 0, sizeof *layout);
    layout_add(layout, KILN_SEMANTIC_POSITION, KILN_VFORMAT_F32X3);
    if (mesh->normals)
        layout_add(layout, KILN_SEMANTIC_NORMAL, KILN_VFORMAT_OCT_SNORM16X2);
    if (mesh->tangents)
        layout_add(layout, KILN_SEMANTIC_TANGENT, KILN_VFORMAT_F32X4);
    if (mesh->texcoords[0])
        layout_add(layout, KILN_SEMANTIC_TEXCOORD0, KILN_VFORMAT_F32X2);
    if (mesh->texcoords[1])
        layout_add(layout, KILN_SEMANTIC_TEXCOORD1, KILN_VFORMAT_F32X2);
    if (mesh->colors)
        layout_add(layout, KILN_SEMANTIC_COLOR0, KILN_VFORMAT_UNORM16X4);
}

static uint16_t unorm16(float value) {
    float clamped = value < 0.0f ? 0.0f : (value > 1.0f ? 1.0f : value);
    return (uint16_t)lrintf(clamped * 65535.0f);
}

static void pack_vertex(const ir_mesh *mesh, const vertex_layout *layout, uint32_t v,
                        uint8_t *out) {
    for (uint32_t i = 0; i < layout->count; i++) {
        const kiln_vertex_attribute *a = &layout->attributes[i];
        uint8_t *dst = out + a->offset;
        switch ((kiln_vertex_semantic)a->semantic) {
        case KILN_SEMANTIC_POSITION:
            memcpy(dst, mesh->positions + 3 * (size_t)v, 12);
            break;
        case KILN_SEMANTIC_NORMAL: {
            int16_t oct[2];
            encode_oct_snorm16(mesh->normals + 3 * (size_t)v, oct);
            memcpy(dst, oct, 4);
            break;
        }
        case KILN_SEMANTIC_TANGENT:
            memcpy(dst, mesh->tangents + 4 * (size_t)v, 16);
            break;
        case KILN_SEMANTIC_TEXCOORD0:
        case KILN_SEMANTIC_TEXCOORD1:
            memcpy(dst, mesh->texcoords[a->semantic - KILN_SEMANTIC_TEXCOORD0] + 2 * (size_t)v,
                   8);
            break;
        case KILN_SEMANTIC_COLOR0: {
            uint16_t rgba[4];
            for (int k = 0; k < 4; k++)
                rgba[k] = unorm16(mesh->colors[4 * (size_t)v + (size_t)k]);
            memcpy(dst, rgba, 8);
            break;
        }
        default:
            break;
        }
    }
}

bool write_kmesh(const cook_context *ctx, const ir_mesh *mesh, uint32_t material_count,
                 const char *importer, bytebuf *out) {
    vertex_layout layout;
    choose_layout(mesh, &layout);

    kiln_mesh_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = mesh->vertex_count;
    desc.index_count = mesh->index_count;
    /* 16-bit indices whenever every vertex is addressable with them. */
    desc.index_size = mesh->vertex_count <= 65536 ? 2 : 4;
    desc.submesh_count = mesh->submesh_count;
    desc.attribute_count = layout.count;
    desc.vertex_stride = layout.stride;
    desc.material_count = material_count;
    process_bounds(mesh->positions, mesh->indices, mesh->index_count, desc.aabb_min,
                   desc.aabb_max, desc.sphere);

    size_t vertex_bytes = (size_t)mesh->vertex_count * layout.stride;
    size_t index_bytes = (size_t)mesh->index_count * desc.index_size;
    uint8_t *vertices = calloc(vertex_bytes ? vertex_bytes : 1, 1);
    uint8_t *indices = malloc(index_bytes ? index_bytes : 1);
    kiln_submesh *submeshes = calloc(mesh->submesh_count ? mesh->submesh_count : 1,
                                     sizeof *submeshes);
    bytebuf meta = {0};
    bool ok = vertices && indices && submeshes;
    if (ok) {
        for (uint32_t v = 0; v < mesh->vertex_count; v++)
            pack_vertex(mesh, &layout, v, vertices + (size_t)v * layout.stride);
        for (uint32_t i = 0; i < mesh->index_count; i++) {
            if (desc.index_size == 2) {
                uint16_t index = (uint16_t)mesh->indices[i];
                memcpy(indices + 2 * (size_t)i, &index, 2);
            } else {
                memcpy(indices + 4 * (size_t)i, &mesh->indices[i], 4);
            }
        }
        for (uint32_t s = 0; s < mesh->submesh_count; s++) {
            const ir_submesh *src = &mesh->submeshes[s];
            kiln_submesh *dst = &submeshes[s];
            dst->index_offset = src->index_offset;
            dst->index_count = src->index_count;
            dst->material_slot = src->material;
            process_bounds(mesh->positions, mesh->indices + src->index_offset,
                           src->index_count, dst->aabb_min, dst->aabb_max, dst->sphere);
        }
        write_metadata_json(ctx, importer, &meta);
        ok = !meta.failed;
    }
    if (ok) {
        container_writer writer;
        container_begin(&writer, KILN_KIND_MESH, KILN_MESH_VERSION);
        container_add_chunk(&writer, KILN_CHUNK_MESH_DESC, &desc, sizeof desc);
        container_add_chunk(&writer, KILN_CHUNK_MESH_ATTRS, layout.attributes,
                            layout.count * sizeof(kiln_vertex_attribute));
        container_add_chunk(&writer, KILN_CHUNK_MESH_VERTICES, vertices, vertex_bytes);
        container_add_chunk(&writer, KILN_CHUNK_MESH_INDICES, indices, index_bytes);
        container_add_chunk(&writer, KILN_CHUNK_MESH_SUBMESHES, submeshes,
                            mesh->submesh_count * sizeof(kiln_submesh));
        container_add_chunk(&writer, KILN_CHUNK_META, meta.data, meta.size);
        ok = container_finish(&writer, out);
    }
    free(vertices);
    free(indices);
    free(submeshes);
    bytebuf_free(&meta);
    return ok;
}
