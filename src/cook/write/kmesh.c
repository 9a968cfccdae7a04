/* kmesh.c — serialises an IR mesh as a .kmesh file (docs/formats/kmesh.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"
#include "cook/parallel.h"

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

static void choose_layout(const ir_mesh *mesh, bool quantize_positions, vertex_layout *layout) {
    memset(layout, 0, sizeof *layout);
    layout_add(layout, KILN_SEMANTIC_POSITION,
               quantize_positions ? KILN_VFORMAT_UNORM16X4 : KILN_VFORMAT_F32X3);
    if (mesh->normals)
        layout_add(layout, KILN_SEMANTIC_NORMAL, KILN_VFORMAT_OCT_SNORM16X2);
    if (mesh->tangents)
        layout_add(layout, KILN_SEMANTIC_TANGENT, KILN_VFORMAT_OCT_SIGNED_SNORM16X2);
    if (mesh->texcoords[0])
        layout_add(layout, KILN_SEMANTIC_TEXCOORD0, KILN_VFORMAT_F32X2);
    if (mesh->texcoords[1])
        layout_add(layout, KILN_SEMANTIC_TEXCOORD1, KILN_VFORMAT_F32X2);
    if (mesh->colors)
        layout_add(layout, KILN_SEMANTIC_COLOR0, KILN_VFORMAT_UNORM16X4);
    if (mesh->joints && mesh->weights) {
        layout_add(layout, KILN_SEMANTIC_JOINTS0, KILN_VFORMAT_U16X4);
        layout_add(layout, KILN_SEMANTIC_WEIGHTS0, KILN_VFORMAT_UNORM16X4);
    }
}

static uint16_t unorm16(float value) {
    float clamped = value < 0.0f ? 0.0f : (value > 1.0f ? 1.0f : value);
    return (uint16_t)lrintf(clamped * 65535.0f);
}

/* Positions as unorm16 over the mesh's box: p = offset + scale * q / 65535. */
typedef struct position_quantizer {
    float offset[3];
    float scale[3];
} position_quantizer;

static void quantize_position(const position_quantizer *q, const float p[3], uint16_t out[4]) {
    for (int k = 0; k < 3; k++)
        out[k] = q->scale[k] > 0.0f ? unorm16((p[k] - q->offset[k]) / q->scale[k]) : 0;
    out[3] = 0;
}

static void pack_vertex(const ir_mesh *mesh, const vertex_layout *layout,
                        const position_quantizer *quantizer, uint32_t v, uint8_t *out) {
    for (uint32_t i = 0; i < layout->count; i++) {
        const kiln_vertex_attribute *a = &layout->attributes[i];
        uint8_t *dst = out + a->offset;
        switch ((kiln_vertex_semantic)a->semantic) {
        case KILN_SEMANTIC_POSITION:
            if (a->format == KILN_VFORMAT_UNORM16X4) {
                uint16_t q[4];
                quantize_position(quantizer, mesh->positions + 3 * (size_t)v, q);
                memcpy(dst, q, 8);
            } else {
                memcpy(dst, mesh->positions + 3 * (size_t)v, 12);
            }
            break;
        case KILN_SEMANTIC_NORMAL: {
            int16_t oct[2];
            encode_oct_snorm16(mesh->normals + 3 * (size_t)v, oct);
            memcpy(dst, oct, 4);
            break;
        }
        case KILN_SEMANTIC_TANGENT: {
            const float *t = mesh->tangents + 4 * (size_t)v;
            int16_t oct[2];
            encode_oct_signed_snorm16(t, t[3], oct);
            memcpy(dst, oct, 4);
            break;
        }
        case KILN_SEMANTIC_TEXCOORD0:
        case KILN_SEMANTIC_TEXCOORD1:
            memcpy(dst, mesh->texcoords[a->semantic - KILN_SEMANTIC_TEXCOORD0] + 2 * (size_t)v, 8);
            break;
        case KILN_SEMANTIC_COLOR0: {
            uint16_t rgba[4];
            for (int k = 0; k < 4; k++)
                rgba[k] = unorm16(mesh->colors[4 * (size_t)v + (size_t)k]);
            memcpy(dst, rgba, 8);
            break;
        }
        case KILN_SEMANTIC_JOINTS0:
            memcpy(dst, mesh->joints + 4 * (size_t)v, 8);
            break;
        case KILN_SEMANTIC_WEIGHTS0: {
            uint16_t weights[4];
            for (int k = 0; k < 4; k++)
                weights[k] = unorm16(mesh->weights[4 * (size_t)v + (size_t)k]);
            memcpy(dst, weights, 8);
            break;
        }
        default:
            break;
        }
    }
}

/* Vertices packed block by block on the asset's threads (disjoint outputs). */
#define PACK_BLOCK_VERTICES 65536u

typedef struct pack_job {
    const ir_mesh *mesh;
    const vertex_layout *layout;
    const position_quantizer *quantizer;
    uint8_t *vertices;
} pack_job;

static void pack_block(void *ctx, uint32_t block) {
    const pack_job *job = ctx;
    uint32_t first = block * PACK_BLOCK_VERTICES;
    uint32_t end = job->mesh->vertex_count - first < PACK_BLOCK_VERTICES
                       ? job->mesh->vertex_count
                       : first + PACK_BLOCK_VERTICES;
    for (uint32_t v = first; v < end; v++)
        pack_vertex(job->mesh, job->layout, job->quantizer, v,
                    job->vertices + (size_t)v * job->layout->stride);
}

static void fill_lods(const ir_mesh *mesh, kiln_lod *out) {
    for (size_t i = 0; i < (size_t)mesh->submesh_count * mesh->lod_count; i++) {
        out[i].index_offset = mesh->lods[i].index_offset;
        out[i].index_count = mesh->lods[i].index_count;
        out[i].error = mesh->lods[i].error;
        out[i].flags = mesh->lods[i].reused ? KILN_LOD_FLAG_REUSED : 0;
    }
}

static void fill_meshlets(const ir_mesh *mesh, kiln_meshlet *out) {
    for (uint32_t i = 0; i < mesh->meshlet_count; i++) {
        const ir_meshlet *src = &mesh->meshlets[i];
        kiln_meshlet *dst = &out[i];
        dst->vertex_offset = src->vertex_offset;
        dst->triangle_offset = src->triangle_offset;
        dst->vertex_count = src->vertex_count;
        dst->triangle_count = src->triangle_count;
        memcpy(dst->center, src->center, sizeof dst->center);
        dst->radius = src->radius;
        memcpy(dst->cone_apex, src->cone_apex, sizeof dst->cone_apex);
        dst->cone_cutoff = src->cone_cutoff;
        memcpy(dst->cone_axis, src->cone_axis, sizeof dst->cone_axis);
        memcpy(dst->cone_axis_s8, src->cone_axis_s8, sizeof dst->cone_axis_s8);
        dst->cone_cutoff_s8 = src->cone_cutoff_s8;
    }
}

static void fill_descriptor(const ir_mesh *mesh, const vertex_layout *layout,
                            uint32_t material_count, kiln_mesh_desc *desc) {
    memset(desc, 0, sizeof *desc);
    desc->vertex_count = mesh->vertex_count;
    desc->index_count = mesh->index_count;
    /* 16-bit indices whenever every vertex is addressable with them. */
    desc->index_size = mesh->vertex_count <= 65536 ? 2 : 4;
    desc->submesh_count = mesh->submesh_count;
    desc->attribute_count = layout->count;
    desc->vertex_stride = layout->stride;
    desc->material_count = material_count;
    /* Bounds of level 0: every level lies within it. */
    uint32_t level0_count = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++)
        level0_count += mesh->submeshes[s].index_count;
    process_bounds(mesh->positions, mesh->indices, level0_count, desc->aabb_min, desc->aabb_max,
                   desc->sphere);
    desc->lod_count = mesh->lods ? mesh->lod_count : 1;
    desc->meshlet_count = mesh->meshlet_count;
    desc->meshlet_vertex_count = mesh->meshlet_vertex_count;
    desc->meshlet_triangle_count = mesh->meshlet_triangle_count;
    desc->meshlet_max_vertices = mesh->meshlet_max_vertices;
    desc->meshlet_max_triangles = mesh->meshlet_max_triangles;
    desc->position_scale[0] = desc->position_scale[1] = desc->position_scale[2] = 1.0f;
}

bool write_kmesh(const cook_context *ctx, const ir_mesh *mesh, uint32_t material_count,
                 const char *importer, bytebuf *out) {
    vertex_layout layout;
    choose_layout(mesh, ctx->settings->mesh_quantize_positions, &layout);
    kiln_mesh_desc desc;
    fill_descriptor(mesh, &layout, material_count, &desc);
    position_quantizer quantizer = {{0, 0, 0}, {1, 1, 1}};
    if (layout.attributes[0].format == KILN_VFORMAT_UNORM16X4) {
        for (int k = 0; k < 3; k++) {
            quantizer.offset[k] = desc.aabb_min[k];
            quantizer.scale[k] = desc.aabb_max[k] - desc.aabb_min[k];
            desc.position_offset[k] = quantizer.offset[k];
            desc.position_scale[k] = quantizer.scale[k];
        }
    }

    size_t vertex_bytes = (size_t)mesh->vertex_count * layout.stride;
    size_t index_bytes = (size_t)mesh->index_count * desc.index_size;
    /* Without computed LODs, level 0 (the full index range) is still written per submesh. */
    size_t lod_entries = (size_t)mesh->submesh_count * desc.lod_count;
    uint8_t *vertices = calloc(vertex_bytes ? vertex_bytes : 1, 1);
    uint8_t *indices = malloc(index_bytes ? index_bytes : 1);
    kiln_submesh *submeshes =
        calloc(mesh->submesh_count ? mesh->submesh_count : 1, sizeof *submeshes);
    kiln_lod *lods = calloc(lod_entries ? lod_entries : 1, sizeof *lods);
    kiln_meshlet *meshlets =
        calloc(mesh->meshlet_count ? mesh->meshlet_count : 1, sizeof *meshlets);
    bytebuf meta = {0};
    bool ok = vertices && indices && submeshes && lods && meshlets;
    if (ok) {
        pack_job job = {mesh, &layout, &quantizer, vertices};
        uint32_t blocks = (uint32_t)(((uint64_t)mesh->vertex_count + PACK_BLOCK_VERTICES - 1) /
                                     PACK_BLOCK_VERTICES);
        parallel_for(ctx->settings->threads, blocks, pack_block, &job);
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
            dst->meshlet_offset = src->meshlet_offset;
            dst->meshlet_count = src->meshlet_count;
            /* A lone submesh at offset 0 is the whole level 0: the mesh's
             * bounds, already computed over the same indices. */
            if (mesh->submesh_count == 1 && src->index_offset == 0) {
                memcpy(dst->aabb_min, desc.aabb_min, sizeof dst->aabb_min);
                memcpy(dst->aabb_max, desc.aabb_max, sizeof dst->aabb_max);
                memcpy(dst->sphere, desc.sphere, sizeof dst->sphere);
            } else {
                process_bounds(mesh->positions, mesh->indices + src->index_offset, src->index_count,
                               dst->aabb_min, dst->aabb_max, dst->sphere);
            }
        }
        if (mesh->lods)
            fill_lods(mesh, lods);
        else
            for (uint32_t s = 0; s < mesh->submesh_count; s++) {
                lods[s].index_offset = submeshes[s].index_offset;
                lods[s].index_count = submeshes[s].index_count;
            }
        fill_meshlets(mesh, meshlets);
        write_metadata_json(ctx, importer, &meta);
        ok = !meta.failed;
    }
    if (ok) {
        container_writer writer;
        container_begin(&writer, KILN_KIND_MESH, KILN_MESH_VERSION);
        /* Small tables first, bulk data last: opening a mesh touches only the
         * first pages of the file. */
        container_add_chunk(&writer, KILN_CHUNK_MESH_DESC, &desc, sizeof desc);
        container_add_chunk(&writer, KILN_CHUNK_MESH_ATTRS, layout.attributes,
                            layout.count * sizeof(kiln_vertex_attribute));
        container_add_chunk(&writer, KILN_CHUNK_MESH_SUBMESHES, submeshes,
                            mesh->submesh_count * sizeof(kiln_submesh));
        container_add_chunk(&writer, KILN_CHUNK_MESH_LODS, lods, lod_entries * sizeof(kiln_lod));
        container_add_chunk(&writer, KILN_CHUNK_META, meta.data, meta.size);
        container_add_chunk(&writer, KILN_CHUNK_MESH_VERTICES, vertices, vertex_bytes);
        container_add_chunk(&writer, KILN_CHUNK_MESH_INDICES, indices, index_bytes);
        container_add_chunk(&writer, KILN_CHUNK_MESH_MESHLETS, meshlets,
                            mesh->meshlet_count * sizeof(kiln_meshlet));
        container_add_chunk(&writer, KILN_CHUNK_MESH_MESHLET_VERTICES, mesh->meshlet_vertices,
                            mesh->meshlet_vertex_count * sizeof(uint32_t));
        container_add_chunk(&writer, KILN_CHUNK_MESH_MESHLET_TRIANGLES, mesh->meshlet_triangles,
                            3 * (size_t)mesh->meshlet_triangle_count);
        ok = container_finish(&writer, out);
    }
    free(vertices);
    free(indices);
    free(submeshes);
    free(lods);
    free(meshlets);
    bytebuf_free(&meta);
    return ok;
}
