/*
 * assimp_scene.c — the conversion of a whole aiScene (assimp_convert_scene,
 * assimp_convert.h): nodes, meshes, cameras and lights, materials and
 * animations, in that order, by the files below it.
 */
#include <stdlib.h>
#include <string.h>

#include <assimp/scene.h>

#include "cook/import/assimp_convert.h"
#include "cook/import/assimp_internal.h"

static bool convert_scene(aimp_state *st) {
    const struct aiScene *scene = st->scene;
    if (scene->mRootNode == NULL) {
        diag_error(st->ctx->diag, st->path, 0, "assimp could not read this file: no root node");
        return false;
    }
    if (scene->mNumMeshes > 0 && scene->mMeshes == NULL) {
        diag_error(st->ctx->diag, st->path, 0, "assimp could not read this file: no mesh array");
        return false;
    }
    if (scene->mNumMaterials > 0 && scene->mMaterials == NULL) {
        diag_error(st->ctx->diag, st->path, 0,
                   "assimp could not read this file: no material array");
        return false;
    }
    if (!aimp_collect_nodes(st) || !aimp_build_nodes(st))
        return false;
    if (!aimp_build_name_table(st))
        return aimp_out_of_memory(st);
    size_t meshes = scene->mNumMeshes, materials = scene->mNumMaterials;
    st->slot_of_material = aimp_alloc_array(materials, sizeof(uint32_t));
    st->used_materials = aimp_alloc_array(materials, sizeof(uint32_t));
    st->group_first = aimp_alloc_array(meshes, sizeof(uint32_t));
    st->mesh_used = calloc(meshes ? meshes : 1, sizeof(bool));
    uint32_t max_per_node = 0;
    for (uint32_t i = 0; i < st->node_count; i++)
        if (st->nodes[i].node->mNumMeshes > max_per_node)
            max_per_node = st->nodes[i].node->mNumMeshes;
    unsigned *scratch = aimp_alloc_array(max_per_node, sizeof(unsigned));
    if (st->slot_of_material == NULL || st->used_materials == NULL || st->group_first == NULL ||
        st->mesh_used == NULL || scratch == NULL) {
        free(scratch);
        return aimp_out_of_memory(st);
    }
    for (size_t i = 0; i < materials; i++)
        st->slot_of_material[i] = AIMP_NONE;
    for (size_t i = 0; i < meshes; i++)
        st->group_first[i] = AIMP_NONE;

    bool ok = true;
    for (uint32_t i = 0; ok && i < st->node_count; i++)
        ok = aimp_node_meshes(st, i, scratch);
    free(scratch);
    if (!ok)
        return false;
    for (uint32_t i = 0; i < st->out->node_count; i++) { /* nodes name their mesh's skin */
        ir_node *node = &st->out->nodes[i];
        if (node->mesh >= 0 && (size_t)node->mesh < st->mesh_skin_cap)
            node->skin = st->mesh_skin[node->mesh];
    }
    if (!ir_bind_weightless(st->out))
        return aimp_out_of_memory(st);

    uint32_t unplaced = 0;
    for (size_t i = 0; i < meshes; i++)
        unplaced += !st->mesh_used[i] && aimp_is_cooked_mesh(scene->mMeshes[i]);
    for (size_t i = 0; i < meshes; i++)
        if (!st->mesh_used[i] && scene->mMeshes[i] != NULL &&
            !aimp_is_cooked_mesh(scene->mMeshes[i]))
            st->skipped_meshes++;
    if (unplaced > 0)
        diag_warning(st->ctx->diag, st->path, 0, "%u mesh%s not placed by any node; not cooked",
                     unplaced, unplaced == 1 ? " is" : "es are");
    if (st->skipped_meshes > 0)
        diag_warning(st->ctx->diag, st->path, 0,
                     "%u mesh%s without vertices, or without triangles, lines or points, not "
                     "cooked",
                     st->skipped_meshes, st->skipped_meshes == 1 ? "" : "es");
    if (!aimp_build_cameras_lights(st) || !aimp_build_materials(st) ||
        !import_assimp_animations(st->ctx, st->path, scene, st->out))
        return false;
    /* Cameras, lights or clips without meshes still cook (a .kscene, a .kanim). */
    if (st->skipped_meshes == 0 && meshes == 0 && st->out->camera_count == 0 &&
        st->out->light_count == 0 && st->out->animation_count == 0)
        diag_warning(st->ctx->diag, st->path, 0, "nothing to cook: the scene has no meshes");
    return true;
}

static void state_free(aimp_state *st) {
    free(st->nodes);
    free(st->names);
    free(st->slot_of_material);
    free(st->used_materials);
    free(st->group_first);
    free(st->group_next);
    free(st->group_mesh);
    free(st->group_node);
    free(st->mesh_used);
    free(st->mesh_skin);
}

bool assimp_convert_scene(cook_context *ctx, const struct aiScene *scene, ir_asset *out) {
    memset(out, 0, sizeof *out);
    aimp_state st = {.ctx = ctx, .path = ctx->source_path, .scene = scene, .out = out};
    bool ok = convert_scene(&st);
    state_free(&st);
    if (!ok)
        ir_asset_free(out);
    return ok;
}
