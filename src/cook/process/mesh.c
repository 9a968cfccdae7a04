/* mesh.c — the mesh process stage: every step, in order, as settings ask. */
#include <stdatomic.h>
#include <stdlib.h>

#include "cook/process/process.h"

/* The texcoord set of the first normal map any triangle submesh's material
 * uses, or -1 when none does: tangents are only worth their bytes under a
 * normal map, and only triangles are lit through one. */
static int normal_map_texcoord(const ir_mesh *mesh, const ir_asset *asset) {
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        if (mesh->submeshes[s].topology != KILN_TOPOLOGY_TRIANGLES)
            continue;
        uint32_t m = mesh->submeshes[s].material;
        int32_t image =
            m < asset->material_count ? asset->materials[m].textures[IR_SLOT_NORMAL].image : -1;
        if (image >= 0 || image == IR_IMAGE_SHARED) /* a standalone material's counts too */
            return (int)asset->materials[m].textures[IR_SLOT_NORMAL].texcoord;
    }
    return -1;
}

/* Order, LODs and meshlets: the items of the three steps one after the
 * other, and the tail, which needs the first two finished. */
typedef struct mesh_steps {
    mesh_step steps[3]; /* order, LODs, meshlets (items of absent ones: 0) */
    ir_mesh *mesh;
    bool lods, fetch;
    atomic_uint unfinished; /* order and LOD items not finished yet */
    /* What the tail did; read once parallel_for has returned. */
    bool tail_ok;
    unsigned int *fetch_remap; /* NULL without fetch or vertices */
    size_t fetch_used;
    float *fetch_positions; /* remapped, put in place after the meshlets */
} mesh_steps;

/* Once level 0 is ordered and every level simplified: the levels joined into
 * the index buffer, then the fetch remap found and applied to the indices
 * and every vertex stream, the positions into a copy set aside. Meshlet
 * items read only the curve-sorted copy of level 0, the positions and the
 * vertex count, which this leaves as they are, so the tail runs alongside
 * them (it was a serial stretch after the parallel_for). */
static void mesh_steps_tail(mesh_steps *all) {
    bool ok = !all->lods || lods_finish(&all->steps[1], all->mesh);
    if (ok && all->fetch && all->mesh->vertex_count > 0) {
        ok = (all->fetch_remap = fetch_remap_indices(all->mesh, &all->fetch_used)) != NULL &&
             fetch_remap_streams(all->mesh, all->fetch_remap, all->fetch_used,
                                 &all->fetch_positions, 1);
    }
    all->tail_ok = ok;
}

static void mesh_steps_item(void *ctx, uint32_t index) {
    mesh_steps *all = ctx;
    for (int k = 0; k < 3; k++) {
        if (index < all->steps[k].items) {
            all->steps[k].item(all->steps[k].job, index);
            /* The last order or LOD item to finish, on whichever thread,
             * runs the tail: it sees every other's writes (acq_rel). */
            if (k < 2 && atomic_fetch_sub(&all->unfinished, 1) == 1)
                mesh_steps_tail(all);
            return;
        }
        index -= all->steps[k].items;
    }
}

/* Order, LODs and meshlets in one parallel_for. None needs another's result:
 * order_begin cuts each large submesh along the Morton curve and makes the
 * curve-sorted copy of level 0 that LODs and meshlets read (the one they
 * would make themselves), while the order items rewrite level 0 chunk by
 * chunk. One wait at the end instead of three. With `fetch`, the vertex
 * fetch order follows (process_optimize_fetch_on), its remap found in the
 * tail. */
static bool order_lods_meshlets(ir_mesh *mesh, const cook_settings *settings, bool fetch) {
    bool lods = settings->mesh_lods > 0, meshlets = settings->mesh_meshlets;
    uint32_t chunk_triangles = mesh_chunk_size(settings);
    mesh_steps all = {.mesh = mesh, .lods = lods, .fetch = fetch};
    order_job *order = order_begin(mesh, chunk_triangles, settings->threads,
                                   settings->mesh_vertex_cache, lods || meshlets, &all.steps[0]);
    const uint32_t *level0 = order != NULL ? order_spatial_level0(order) : NULL;
    bool ok = order != NULL;
    if (ok && lods)
        ok = lods_begin(mesh, settings, level0, &all.steps[1]);
    if (ok && meshlets && !meshlets_begin(mesh, settings, level0, &all.steps[2])) {
        ok = false;
        if (lods)
            all.steps[1].discard(all.steps[1].job);
    }
    if (ok) {
        /* Other threads only for a mesh with chunks: a smaller one is cooked
         * alongside other assets by `kiln build -jN` already, and spreading
         * it only cost CPU (measured on the -j2 scaling set). */
        bool chunked = false;
        for (uint32_t s = 0; s < mesh->submesh_count; s++)
            chunked |= submesh_chunk_count(&mesh->submeshes[s], chunk_triangles) > 1;
        uint32_t before_tail = all.steps[0].items + all.steps[1].items;
        atomic_init(&all.unfinished, before_tail);
        parallel_for(chunked ? settings->threads : 1, before_tail + all.steps[2].items,
                     mesh_steps_item, &all);
        if (before_tail == 0)
            mesh_steps_tail(&all);
        ok = all.tail_ok;
        if (meshlets)
            ok = meshlets_finish(&all.steps[2], mesh) && ok;
    }
    ok = order_end(order) && ok;
    if (ok && all.fetch_remap != NULL) {
        fetch_remap_finish(mesh, all.fetch_remap, all.fetch_used, all.fetch_positions);
        all.fetch_positions = NULL; /* the mesh's now */
    }
    free(all.fetch_positions);
    free(all.fetch_remap);
    return ok;
}

bool process_order_lods_meshlets(ir_mesh *mesh, const cook_settings *settings) {
    return order_lods_meshlets(mesh, settings, false);
}

bool process_order_lods_meshlets_fetch(ir_mesh *mesh, const cook_settings *settings) {
    return order_lods_meshlets(mesh, settings, true);
}

/* Normals (and tangents under a normal map) from the triangles, which the
 * topology sort put first: the index count is narrowed to them meanwhile, so
 * line and point indices are neither read as triangles nor rewritten. A mesh
 * without triangles keeps the normals its source gave it, or none.
 * mesh.normals and mesh.tangents decide what the source's become: `always`
 * drops its normals first (and, with tangents generated, its tangents, which
 * were made for them); tangents `none` drops them; `keep` generates nothing. */
static bool generate_frames(cook_context *ctx, ir_mesh *mesh, const ir_asset *asset) {
    const char *path = ctx->source_path;
    const char *name = mesh->name ? mesh->name : "";
    cook_normals_mode normals = ctx->settings->mesh_normals;
    cook_tangents_mode tangents = ctx->settings->mesh_tangents;
    uint32_t all = mesh->index_count;
    mesh->index_count = mesh_triangle_index_count(mesh);
    if (normals == COOK_NORMALS_ALWAYS && mesh->index_count > 0) {
        free(mesh->normals);
        mesh->normals = NULL;
        if (tangents == COOK_TANGENTS_GENERATE) {
            free(mesh->tangents);
            mesh->tangents = NULL;
        }
    }
    if (tangents == COOK_TANGENTS_NONE) {
        free(mesh->tangents);
        mesh->tangents = NULL;
    }
    bool ok = true;
    if (normals != COOK_NORMALS_KEEP && mesh->index_count > 0 && !process_generate_normals(mesh)) {
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory generating normals", name);
        ok = false;
    }
    int texcoord = normal_map_texcoord(mesh, asset);
    if (ok && tangents == COOK_TANGENTS_GENERATE && mesh->index_count > 0 &&
        mesh->normals != NULL && mesh->tangents == NULL && texcoord >= 0 && texcoord < 2 &&
        !process_generate_tangents(mesh, (uint32_t)texcoord)) {
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory generating tangents", name);
        ok = false;
    }
    mesh->index_count = all;
    return ok;
}

uint32_t process_skin_influences(ir_mesh *mesh, uint32_t influences) {
    if (mesh->joints1 == NULL || mesh->weights1 == NULL || influences >= 8)
        return 0;
    uint32_t reduced = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        reduced += mesh->weights1[4 * (size_t)v] > 0.0f; /* largest first: the first says it */
        float *w = mesh->weights + 4 * (size_t)v;
        float sum = w[0] + w[1] + w[2] + w[3]; /* the strongest four: never 0 after binding */
        if (sum > 0.0f)
            for (int k = 0; k < 4; k++)
                w[k] /= sum;
    }
    free(mesh->joints1);
    free(mesh->weights1);
    mesh->joints1 = NULL;
    mesh->weights1 = NULL;
    return reduced;
}

bool process_mesh(cook_context *ctx, ir_mesh *mesh, const ir_asset *asset) {
    const cook_settings *settings = ctx->settings;
    const char *path = ctx->source_path;
    const char *name = mesh->name ? mesh->name : "";
    if (!process_sort_topology(mesh)) {
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory sorting submeshes", name);
        return false;
    }
    if (!generate_frames(ctx, mesh, asset))
        return false;
    /* Weld before ordering: the cache optimiser needs shared vertices to see
     * adjacency. LODs and meshlets are built before the fetch remap so that
     * one remap orders vertices for all levels together (and renumbers the
     * meshlets' vertex lists). */
    uint32_t reduced = process_skin_influences(mesh, settings->mesh_skin_influences);
    if (reduced > 0)
        diag_warning(ctx->diag, path, 0,
                     "mesh '%s': %u vertices have more than 4 joint influences; the 4 strongest "
                     "are kept (mesh.skin_influences: 8 keeps 8)",
                     name, reduced);
    uint64_t degenerate = 0, repeated = 0;
    bool ok = process_weld_on(mesh, settings->threads) &&
              process_drop_degenerate(mesh, &degenerate, &repeated);
    if (ok && degenerate + repeated > 0)
        diag_warning(ctx->diag, path, 0,
                     "mesh '%s': %llu triangle%s with two corners on one vertex and %llu repeated "
                     "triangle%s dropped (they draw nothing new)",
                     name, (unsigned long long)degenerate, degenerate == 1 ? "" : "s",
                     (unsigned long long)repeated, repeated == 1 ? "" : "s");
    ok = ok && process_order_lods_meshlets_fetch(mesh, settings);
    if (!ok)
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory optimising", name);
    return ok;
}
