/* kmesh.c — serialises an IR mesh as a .kmesh file (docs/formats/kmesh.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/write/write.h"

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

static void fill_descriptor(const ir_mesh *mesh, const encoded_vertices *vertices,
                            uint32_t material_count, kiln_mesh_desc *desc) {
    memset(desc, 0, sizeof *desc);
    desc->vertex_count = mesh->vertex_count;
    desc->index_count = mesh->index_count;
    /* 16-bit indices whenever every vertex is addressable with them. */
    desc->index_size = mesh->vertex_count <= 65536 ? 2 : 4;
    desc->submesh_count = mesh->submesh_count;
    desc->attribute_count = vertices->attribute_count;
    desc->vertex_stride = vertices->stride;
    desc->flags = vertices->streams ? KILN_MESH_FLAG_STREAMS : 0;
    desc->material_count = material_count;
    /* Bounds of level 0 (every level lies within it), from the encoder. */
    memcpy(desc->aabb_min, vertices->aabb_min, sizeof desc->aabb_min);
    memcpy(desc->aabb_max, vertices->aabb_max, sizeof desc->aabb_max);
    memcpy(desc->sphere, vertices->sphere, sizeof desc->sphere);
    desc->lod_count = mesh->lods ? mesh->lod_count : 1;
    desc->meshlet_count = mesh->meshlet_count;
    desc->meshlet_vertex_count = mesh->meshlet_vertex_count;
    desc->meshlet_triangle_count = mesh->meshlet_triangle_count;
    desc->meshlet_max_vertices = mesh->meshlet_max_vertices;
    desc->meshlet_max_triangles = mesh->meshlet_max_triangles;
    memcpy(desc->position_offset, vertices->position_offset, sizeof desc->position_offset);
    memcpy(desc->position_scale, vertices->position_scale, sizeof desc->position_scale);
    desc->morph_attributes = ir_mesh_morph_attributes(mesh);
    desc->morph_target_count = desc->morph_attributes != 0 ? mesh->target_count : 0;
}

/* The MDLT chunk (kmesh.md): per target, each attribute's deltas as f32x3,
 * target-major, position, normal, tangent. */
static bool morph_deltas(const ir_mesh *mesh, const kiln_mesh_desc *desc, bytebuf *out) {
    for (uint32_t t = 0; t < desc->morph_target_count; t++)
        for (int k = 0; k < 3; k++) {
            float *const *stream = ir_morph_stream(&mesh->targets[t], k);
            if ((desc->morph_attributes >> k & 1u) != 0)
                bytebuf_append(out, *stream, (size_t)mesh->vertex_count * 3 * sizeof(float));
        }
    return !out->failed;
}

static const char *target_name(const ir_mesh *mesh, uint32_t t) {
    return mesh->targets[t].name;
}

static const char *submesh_name(const ir_mesh *mesh, uint32_t s) {
    return mesh->submeshes[s].name;
}

/* A name table, SNAM or MNAM (kmesh.md): per item the offset of its name
 * from the chunk's start (KILN_SUBMESH_UNNAMED for none), then the names;
 * left empty when no item has a name. */
static bool name_table(const ir_mesh *mesh, uint32_t count,
                       const char *(*name_of)(const ir_mesh *, uint32_t), bytebuf *out) {
    bool any = false;
    for (uint32_t i = 0; i < count; i++)
        any |= name_of(mesh, i) != NULL;
    if (!any)
        return true;
    size_t at = (size_t)count * 4;
    for (uint32_t i = 0; i < count; i++) {
        const char *name = name_of(mesh, i);
        uint32_t offset = name != NULL ? (uint32_t)at : KILN_SUBMESH_UNNAMED;
        bytebuf_append(out, &offset, 4);
        if (name != NULL)
            at += strlen(name) + 1;
    }
    for (uint32_t i = 0; i < count; i++)
        if (name_of(mesh, i) != NULL)
            bytebuf_append(out, name_of(mesh, i), strlen(name_of(mesh, i)) + 1);
    return !out->failed && at < UINT32_MAX;
}

/* meshopt's index codec takes triangle lists only; a mesh with lines or
 * points has its indices encoded as a sequence. */
static uint32_t index_filter(const kiln_submesh *submeshes, uint32_t count) {
    for (uint32_t s = 0; s < count; s++)
        if (submeshes[s].topology != KILN_TOPOLOGY_TRIANGLES)
            return KILN_CHUNK_FILTER_MESHOPT_SEQUENCE;
    return KILN_CHUNK_FILTER_MESHOPT_INDEX;
}

/* The .kmesh's chunks added to `writer` (begun by the caller), the bulk
 * payloads borrowed: from the mesh, the vertices, or `owned`'s blocks, all of
 * which must outlive the writer. False when out of memory (the writer is
 * abandoned). */
static bool kmesh_chunks(const cook_context *ctx, const ir_mesh *mesh,
                         const encoded_vertices *vertices, uint32_t material_count,
                         const char *importer, container_writer *writer, kmesh_owned *owned) {
    /* Bounds and copies over millions of indices go on the asset's threads. */
    unsigned threads = ctx->settings != NULL ? ctx->settings->threads : 1;
    kiln_mesh_desc desc;
    fill_descriptor(mesh, vertices, material_count, &desc);
    size_t index_bytes = (size_t)mesh->index_count * desc.index_size;
    /* Without computed LODs, level 0 (the full index range) is still written per submesh. */
    size_t lod_entries = (size_t)mesh->submesh_count * desc.lod_count;
    /* 32-bit indices are the mesh's own, borrowed; 16-bit ones a narrowed copy. */
    uint8_t *narrowed = owned->narrowed =
        desc.index_size == 2 ? malloc(index_bytes ? index_bytes : 1) : NULL;
    const uint8_t *indices = desc.index_size == 2 ? narrowed : (const uint8_t *)mesh->indices;
    kiln_submesh *submeshes =
        calloc(mesh->submesh_count ? mesh->submesh_count : 1, sizeof *submeshes);
    kiln_lod *lods = calloc(lod_entries ? lod_entries : 1, sizeof *lods);
    kiln_meshlet *meshlets = owned->meshlets =
        calloc(mesh->meshlet_count ? mesh->meshlet_count : 1, sizeof *meshlets);
    bytebuf meta = {0};
    bytebuf names = {0}, target_names = {0};
    bytebuf *deltas = &owned->deltas;
    bool ok = (desc.index_size == 4 || narrowed) && submeshes && lods && meshlets &&
              name_table(mesh, mesh->submesh_count, submesh_name, &names) &&
              morph_deltas(mesh, &desc, deltas) &&
              name_table(mesh, desc.morph_target_count, target_name, &target_names);
    if (ok) {
        for (uint32_t i = 0; narrowed != NULL && i < mesh->index_count; i++) {
            uint16_t index = (uint16_t)mesh->indices[i];
            memcpy(narrowed + 2 * (size_t)i, &index, 2);
        }
        for (uint32_t s = 0; s < mesh->submesh_count; s++) {
            const ir_submesh *src = &mesh->submeshes[s];
            kiln_submesh *dst = &submeshes[s];
            dst->index_offset = src->index_offset;
            dst->index_count = src->index_count;
            dst->material_slot = src->material;
            dst->topology = (uint16_t)src->topology;
            dst->meshlet_offset = src->meshlet_offset;
            dst->meshlet_count = src->meshlet_count;
            /* A lone submesh at offset 0 is the whole level 0: the mesh's
             * bounds, already computed over the same indices. */
            if (mesh->submesh_count == 1 && src->index_offset == 0) {
                memcpy(dst->aabb_min, desc.aabb_min, sizeof dst->aabb_min);
                memcpy(dst->aabb_max, desc.aabb_max, sizeof dst->aabb_max);
                memcpy(dst->sphere, desc.sphere, sizeof dst->sphere);
            } else {
                geometry_bounds_on(threads, mesh->positions, mesh->vertex_count,
                                   mesh->indices + src->index_offset, src->index_count,
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
        container_set_compress(writer, ctx->settings->container_compress);
        container_set_threads(writer, threads);
        /* Small tables first, bulk data last: opening a mesh touches only the
         * first pages of the file. The bulk payloads are borrowed, not copied:
         * they live until the file is made (container_finish) or written
         * (write_kmesh_layout's caller). */
        container_add_chunk(writer, KILN_CHUNK_MESH_DESC, &desc, sizeof desc);
        container_add_chunk(writer, KILN_CHUNK_MESH_ATTRS, vertices->attributes,
                            vertices->attribute_count * sizeof(kiln_vertex_attribute));
        container_add_chunk(writer, KILN_CHUNK_MESH_SUBMESHES, submeshes,
                            mesh->submesh_count * sizeof(kiln_submesh));
        container_add_chunk(writer, KILN_CHUNK_MESH_LODS, lods, lod_entries * sizeof(kiln_lod));
        if (names.size > 0)
            container_add_chunk(writer, KILN_CHUNK_MESH_SUBMESH_NAMES, names.data, names.size);
        if (target_names.size > 0)
            container_add_chunk(writer, KILN_CHUNK_MESH_MORPH_NAMES, target_names.data,
                                target_names.size);
        container_add_chunk(writer, KILN_CHUNK_META, meta.data, meta.size);
        extras_table extras = {0};
        extras_table_add(&extras, KILN_EXTRAS_MESH, 0, mesh->extras);
        ok = extras_table_chunk(&extras, writer);
        extras_table_free(&extras);
        container_add_chunk_borrowed(writer, KILN_CHUNK_MESH_VERTICES, vertices->data,
                                     vertices->size);
        container_set_filter(writer, KILN_CHUNK_FILTER_MESHOPT_VERTEX, desc.vertex_stride);
        container_add_chunk_borrowed(writer, KILN_CHUNK_MESH_INDICES, indices, index_bytes);
        container_set_filter(writer, index_filter(submeshes, mesh->submesh_count), desc.index_size);
        container_add_chunk_borrowed(writer, KILN_CHUNK_MESH_MESHLETS, meshlets,
                                     mesh->meshlet_count * sizeof(kiln_meshlet));
        container_add_chunk_borrowed(writer, KILN_CHUNK_MESH_MESHLET_VERTICES,
                                     mesh->meshlet_vertices,
                                     mesh->meshlet_vertex_count * sizeof(uint32_t));
        container_set_filter(writer, KILN_CHUNK_FILTER_MESHOPT_SEQUENCE, sizeof(uint32_t));
        container_add_chunk_borrowed(writer, KILN_CHUNK_MESH_MESHLET_TRIANGLES,
                                     mesh->meshlet_triangles,
                                     3 * (size_t)mesh->meshlet_triangle_count);
        if (deltas->size > 0) {
            container_add_chunk_borrowed(writer, KILN_CHUNK_MESH_MORPH_DELTAS, deltas->data,
                                         deltas->size);
            /* f32x3 per vertex: the vertex codec's byte columns suit them */
            container_set_filter(writer, KILN_CHUNK_FILTER_MESHOPT_VERTEX, 12);
        }
    }
    if (!ok)
        container_abandon(writer);
    free(submeshes);
    free(lods);
    bytebuf_free(&names);
    bytebuf_free(&target_names);
    bytebuf_free(&meta);
    return ok;
}

static void kmesh_owned_free(kmesh_owned *owned) {
    free(owned->narrowed);
    free(owned->meshlets);
    bytebuf_free(&owned->deltas);
    memset(owned, 0, sizeof *owned);
}

bool write_kmesh(const cook_context *ctx, const ir_mesh *mesh, const encoded_vertices *vertices,
                 uint32_t material_count, const char *importer, bytebuf *out) {
    container_writer writer;
    container_begin(&writer, KILN_KIND_MESH, KILN_MESH_VERSION);
    kmesh_owned owned = {0};
    bool ok = kmesh_chunks(ctx, mesh, vertices, material_count, importer, &writer, &owned) &&
              container_finish(&writer, out);
    kmesh_owned_free(&owned);
    return ok;
}

bool write_kmesh_layout(const cook_context *ctx, const ir_mesh *mesh,
                        const encoded_vertices *vertices, uint32_t material_count,
                        const char *importer, kmesh_layout *out) {
    memset(out, 0, sizeof *out);
    container_writer writer;
    container_begin(&writer, KILN_KIND_MESH, KILN_MESH_VERSION);
    bool ok = kmesh_chunks(ctx, mesh, vertices, material_count, importer, &writer, &out->owned) &&
              container_lay_out(&writer, &out->container);
    if (!ok)
        kmesh_layout_free(out);
    return ok;
}

void kmesh_layout_free(kmesh_layout *layout) {
    container_layout_free(&layout->container);
    kmesh_owned_free(&layout->owned);
}
