/* mesh.c — the mesh process stage: every step, in order, as settings ask. */
#include "cook/cook.h"

/* The texcoord set of the first normal map any submesh's material uses, or -1
 * when none does: tangents are only worth their bytes under a normal map. */
static int normal_map_texcoord(const ir_mesh *mesh, const ir_asset *asset) {
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        uint32_t m = mesh->submeshes[s].material;
        if (m < asset->material_count && asset->materials[m].textures[IR_SLOT_NORMAL].image >= 0)
            return (int)asset->materials[m].textures[IR_SLOT_NORMAL].texcoord;
    }
    return -1;
}

bool process_mesh(cook_context *ctx, ir_mesh *mesh, const ir_asset *asset) {
    const cook_settings *settings = ctx->settings;
    const char *path = ctx->source_path;
    const char *name = mesh->name ? mesh->name : "";
    if (!process_generate_normals(mesh)) {
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory generating normals", name);
        return false;
    }
    int texcoord = normal_map_texcoord(mesh, asset);
    if (mesh->tangents == NULL && texcoord >= 0 && texcoord < 2 &&
        !process_generate_tangents(mesh, (uint32_t)texcoord)) {
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory generating tangents", name);
        return false;
    }
    /* Weld before ordering: the cache optimiser needs shared vertices to see
     * adjacency. LODs are built before the fetch remap so that one remap
     * orders vertices for all levels together. */
    bool ok = process_weld(mesh) && process_optimize_order(mesh, settings) &&
              (settings->mesh_lods == 0 || process_build_lods(mesh, settings)) &&
              process_optimize_fetch(mesh) &&
              (!settings->mesh_meshlets || process_build_meshlets(mesh, settings));
    if (!ok)
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory optimising", name);
    return ok;
}
