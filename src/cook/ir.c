/* ir.c — construction and release of the intermediate representation. */
#include <stdlib.h>
#include <string.h>

#include "cook/ir.h"

void ir_material_init(ir_material *material) {
    memset(material, 0, sizeof *material);
    for (int i = 0; i < 4; i++)
        material->base_color[i] = 1.0f;
    material->metallic = 1.0f;
    material->roughness = 1.0f;
    material->normal_scale = 1.0f;
    material->occlusion_strength = 1.0f;
    material->alpha_mode = IR_ALPHA_OPAQUE;
    material->alpha_cutoff = 0.5f;
}

void ir_material_free(ir_material *material) {
    free(material->name);
    for (int i = 0; i < IR_SLOT_COUNT; i++)
        free(material->textures[i].path);
    memset(material, 0, sizeof *material);
}

void ir_mesh_free(ir_mesh *mesh) {
    free(mesh->name);
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->tangents);
    free(mesh->texcoords[0]);
    free(mesh->texcoords[1]);
    free(mesh->colors);
    free(mesh->indices);
    free(mesh->submeshes);
    memset(mesh, 0, sizeof *mesh);
}

void ir_asset_free(ir_asset *asset) {
    for (uint32_t i = 0; i < asset->mesh_count; i++)
        ir_mesh_free(&asset->meshes[i]);
    free(asset->meshes);
    for (uint32_t i = 0; i < asset->material_count; i++)
        ir_material_free(&asset->materials[i]);
    free(asset->materials);
    memset(asset, 0, sizeof *asset);
}
