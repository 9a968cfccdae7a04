/* mesh.c — the mesh process stage: every step, in order, as settings ask. */
#include "cook/cook.h"

bool process_mesh(cook_context *ctx, ir_mesh *mesh, const ir_asset *asset) {
    (void)asset; /* materials decide tangent generation once tangents land */
    const cook_settings *settings = ctx->settings;
    const char *path = ctx->source_path;
    const char *name = mesh->name ? mesh->name : "";
    if (!process_generate_normals(mesh)) {
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory generating normals", name);
        return false;
    }
    /* Weld before ordering: the cache optimiser needs shared vertices to see
     * adjacency. LODs are built before the fetch remap so that one remap
     * orders vertices for all levels together. */
    bool ok = process_weld(mesh) && process_optimize_order(mesh) &&
              (settings->mesh_lods == 0 || process_build_lods(mesh, settings)) &&
              process_optimize_fetch(mesh) &&
              (!settings->mesh_meshlets || process_build_meshlets(mesh, settings));
    if (!ok)
        diag_error(ctx->diag, path, 0, "mesh '%s': out of memory optimising", name);
    return ok;
}
