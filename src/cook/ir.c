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

void ir_node_init(ir_node *node) {
    memset(node, 0, sizeof *node);
    node->parent = -1;
    node->mesh = -1;
    node->skin = -1;
    node->rotation[3] = 1.0f;
    for (int k = 0; k < 3; k++)
        node->scale[k] = 1.0f;
    for (int k = 0; k < 4; k++)
        node->matrix[5 * k] = 1.0f;
}

void ir_mesh_free(ir_mesh *mesh) {
    free(mesh->name);
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->tangents);
    free(mesh->texcoords[0]);
    free(mesh->texcoords[1]);
    free(mesh->colors);
    free(mesh->joints);
    free(mesh->weights);
    free(mesh->indices);
    free(mesh->submeshes);
    free(mesh->lods);
    free(mesh->meshlets);
    free(mesh->meshlet_vertices);
    free(mesh->meshlet_triangles);
    memset(mesh, 0, sizeof *mesh);
}

void ir_asset_free(ir_asset *asset) {
    for (uint32_t i = 0; i < asset->mesh_count; i++)
        ir_mesh_free(&asset->meshes[i]);
    free(asset->meshes);
    for (uint32_t i = 0; i < asset->material_count; i++)
        ir_material_free(&asset->materials[i]);
    free(asset->materials);
    for (uint32_t i = 0; i < asset->node_count; i++)
        free(asset->nodes[i].name);
    free(asset->nodes);
    for (uint32_t i = 0; i < asset->image_count; i++) {
        free(asset->images[i].name);
        free(asset->images[i].path);
        free(asset->images[i].bytes);
    }
    free(asset->images);
    memset(asset, 0, sizeof *asset);
}
