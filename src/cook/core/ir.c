/* ir.c — construction and release of the intermediate representation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/ir.h"

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
    for (int i = 0; i < 3; i++)
        material->specular_color[i] = 1.0f;
    material->specular = 1.0f;
    for (int i = 0; i < IR_SLOT_COUNT; i++) {
        material->textures[i].image = -1;
        material->textures[i].scale[0] = 1.0f;
        material->textures[i].scale[1] = 1.0f;
    }
}

bool ir_material_add_dropped(ir_material *material, const char *what) {
    const char *list = material->dropped_extensions ? material->dropped_extensions : "";
    size_t length = strlen(what);
    for (const char *at = list; *at != '\0';) {
        size_t word = strcspn(at, " ");
        if (word == length && strncmp(at, what, length) == 0)
            return true;
        at += word + (at[word] == ' ');
    }
    size_t used = strlen(list);
    char *grown = malloc(used + 1 + length + 1);
    if (grown == NULL)
        return false;
    snprintf(grown, used + 1 + length + 1, "%s%s%s", list, used ? " " : "", what);
    free(material->dropped_extensions);
    material->dropped_extensions = grown;
    return true;
}

static char *copy_text(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy != NULL)
        memcpy(copy, text, size);
    return copy;
}

static int32_t append_image(ir_image **images, uint32_t *count, const ir_image *image) {
    if (*count >= (uint32_t)INT32_MAX)
        return -1;
    ir_image *grown = realloc(*images, ((size_t)*count + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    *images = grown;
    grown[*count] = *image;
    return (int32_t)(*count)++;
}

int32_t ir_image_add_file(ir_image **images, uint32_t *count, const char *path, const char *name) {
    for (uint32_t i = 0; i < *count; i++)
        if ((*images)[i].path != NULL && strcmp((*images)[i].path, path) == 0)
            return (int32_t)i;
    ir_image image = {0};
    image.path = copy_text(path);
    image.name = copy_text(name != NULL ? name : path);
    int32_t index = image.path && image.name ? append_image(images, count, &image) : -1;
    if (index < 0) {
        free(image.path);
        free(image.name);
    }
    return index;
}

int32_t ir_image_add_bytes(ir_image **images, uint32_t *count, const char *name, uint8_t *bytes,
                           size_t size) {
    ir_image image = {0};
    image.name = copy_text(name);
    image.bytes = bytes;
    image.size = size;
    int32_t index = image.name ? append_image(images, count, &image) : -1;
    if (index < 0) {
        free(image.name);
        free(bytes);
    }
    return index;
}

void ir_images_free(ir_image *images, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        free(images[i].name);
        free(images[i].path);
        free(images[i].label);
        free(images[i].bytes);
    }
    free(images);
}

void ir_material_free(ir_material *material) {
    free(material->name);
    free(material->dropped_extensions);
    free(material->extras);
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        free(material->texture_extras[s]);
        free(material->image_extras[s]);
    }
    memset(material, 0, sizeof *material);
}

void ir_node_init(ir_node *node) {
    memset(node, 0, sizeof *node);
    node->parent = -1;
    node->mesh = -1;
    node->skin = -1;
    node->camera = -1;
    node->light = -1;
    node->source = -1;
    node->rotation[3] = 1.0f;
    for (int k = 0; k < 3; k++)
        node->scale[k] = 1.0f;
    for (int k = 0; k < 4; k++)
        node->matrix[5 * k] = 1.0f;
}

void ir_mesh_free(ir_mesh *mesh) {
    free(mesh->name);
    free(mesh->extras);
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->tangents);
    free(mesh->texcoords[0]);
    free(mesh->texcoords[1]);
    free(mesh->colors);
    free(mesh->joints);
    free(mesh->weights);
    free(mesh->joints1);
    free(mesh->weights1);
    for (uint32_t t = 0; mesh->targets != NULL && t < mesh->target_count; t++) {
        free(mesh->targets[t].name);
        free(mesh->targets[t].positions);
        free(mesh->targets[t].normals);
        free(mesh->targets[t].tangents);
    }
    free(mesh->targets);
    free(mesh->indices);
    for (uint32_t s = 0; mesh->submeshes != NULL && s < mesh->submesh_count; s++)
        free(mesh->submeshes[s].name);
    free(mesh->submeshes);
    free(mesh->lods);
    free(mesh->meshlets);
    free(mesh->meshlet_vertices);
    free(mesh->meshlet_triangles);
    memset(mesh, 0, sizeof *mesh);
}

uint32_t ir_mesh_morph_attributes(const ir_mesh *mesh) {
    if (mesh->target_count == 0 || mesh->targets == NULL)
        return 0;
    const ir_morph_target *t = &mesh->targets[0];
    return (t->positions ? 1u : 0u) | (t->normals ? 2u : 0u) | (t->tangents ? 4u : 0u);
}

float **ir_morph_stream(ir_morph_target *target, int k) {
    return k == 0 ? &target->positions : (k == 1 ? &target->normals : &target->tangents);
}

void ir_animation_free(ir_animation *animation) {
    free(animation->name);
    for (uint32_t s = 0; animation->samplers != NULL && s < animation->sampler_count; s++) {
        free(animation->samplers[s].times);
        free(animation->samplers[s].values);
        free(animation->samplers[s].quantized);
    }
    free(animation->samplers);
    free(animation->channels);
    free(animation->dropped);
    memset(animation, 0, sizeof *animation);
}

void ir_asset_free(ir_asset *asset) {
    for (uint32_t i = 0; i < asset->mesh_count; i++)
        ir_mesh_free(&asset->meshes[i]);
    free(asset->meshes);
    for (uint32_t i = 0; i < asset->material_count; i++)
        ir_material_free(&asset->materials[i]);
    free(asset->materials);
    for (uint32_t i = 0; i < asset->node_count; i++) {
        free(asset->nodes[i].name);
        free(asset->nodes[i].extras);
        free(asset->nodes[i].weights);
    }
    free(asset->nodes);
    ir_images_free(asset->images, asset->image_count);
    for (uint32_t i = 0; i < asset->scene_count; i++) {
        free(asset->scenes[i].name);
        free(asset->scenes[i].extras);
        free(asset->scenes[i].roots);
    }
    free(asset->scenes);
    free(asset->asset_extras);
    free(asset->document_extras);
    for (uint32_t i = 0; i < asset->camera_count; i++)
        free(asset->cameras[i].name);
    free(asset->cameras);
    for (uint32_t i = 0; i < asset->light_count; i++)
        free(asset->lights[i].name);
    free(asset->lights);
    free(asset->instances);
    for (uint32_t i = 0; i < asset->skin_count; i++)
        ir_skin_free(&asset->skins[i]);
    free(asset->skins);
    for (uint32_t i = 0; i < asset->animation_count; i++)
        ir_animation_free(&asset->animations[i]);
    free(asset->animations);
    memset(asset, 0, sizeof *asset);
}

void ir_skin_free(ir_skin *skin) {
    free(skin->name);
    free(skin->joints);
    free(skin->inverse_bind);
    memset(skin, 0, sizeof *skin);
}

/* Memo codes of ir_skin_joint_parents' walk: 0 not walked yet, 1 no joint of
 * the skin above, k + 2 joint k nearest above. */
static int32_t walk_result(uint32_t code) {
    return code == 1 ? -1 : (int32_t)code - 2;
}

bool ir_skin_joint_parents(const ir_asset *asset, const ir_skin *skin, int32_t *parents) {
    size_t nodes = asset->node_count ? asset->node_count : 1;
    /* joint_of[n]: k + 1 when node n is joint k; memo: walk codes; path: the
     * nodes of one walk, given its result once it ends. calloc'd pages are
     * only touched where a walk goes, so a skin costs what its walks visit. */
    uint32_t *joint_of = calloc(nodes, sizeof *joint_of);
    uint32_t *memo = calloc(nodes, sizeof *memo);
    uint32_t *path = malloc(nodes * sizeof *path);
    bool ok = joint_of != NULL && memo != NULL && path != NULL;
    for (uint32_t j = 0; ok && j < skin->joint_count; j++)
        if (skin->joints[j] < asset->node_count)
            joint_of[skin->joints[j]] = j + 1;
    for (uint32_t j = 0; ok && j < skin->joint_count; j++) {
        uint32_t code = 1, length = 0;
        if (skin->joints[j] < asset->node_count) {
            for (int32_t a = asset->nodes[skin->joints[j]].parent;
                 a >= 0 && length < asset->node_count; a = asset->nodes[a].parent) {
                if (joint_of[a] != 0) {
                    code = joint_of[a] + 1;
                    break;
                }
                if (memo[a] != 0) {
                    code = memo[a];
                    break;
                }
                path[length++] = (uint32_t)a;
            }
        }
        for (uint32_t i = 0; i < length; i++) /* every node walked is known from now on */
            memo[path[i]] = code;
        parents[j] = walk_result(code);
    }
    free(joint_of);
    free(memo);
    free(path);
    return ok;
}

uint32_t ir_skin_root_of(const int32_t *parents, uint32_t joint_count) {
    for (uint32_t j = 0; j < joint_count; j++)
        if (parents[j] < 0)
            return j;
    return 0;
}

static bool skin_root_joint(const ir_asset *asset, const ir_skin *skin, uint32_t *root) {
    *root = 0;
    if (skin->joint_count == 0)
        return true;
    int32_t *parents = malloc(skin->joint_count * sizeof *parents);
    bool ok = parents != NULL && ir_skin_joint_parents(asset, skin, parents);
    if (ok)
        *root = ir_skin_root_of(parents, skin->joint_count);
    free(parents);
    return ok;
}

void ir_decoded_image_free(ir_decoded_image *image) {
    if (image == NULL)
        return;
    free(image->rgbaf);
    if (image->rgba8 != NULL) {
        /* stb allocates with malloc too (STBI_MALLOC default), so free() fits. */
        free(image->rgba8);
    }
    image->rgba8 = NULL;
    image->rgbaf = NULL;
}

bool ir_bind_weightless(ir_asset *asset) {
    /* The skin of the first node drawing each mesh, in one pass over the
     * nodes; each skin's root found once (a mesh x node or skin x mesh scan
     * would grow with their product). */
    int32_t *skin_of = malloc((asset->mesh_count ? asset->mesh_count : 1) * sizeof *skin_of);
    uint32_t *root_of = malloc((asset->skin_count ? asset->skin_count : 1) * sizeof *root_of);
    if (skin_of == NULL || root_of == NULL) {
        free(skin_of);
        free(root_of);
        return false;
    }
    for (uint32_t m = 0; m < asset->mesh_count; m++)
        skin_of[m] = -1;
    for (uint32_t s = 0; s < asset->skin_count; s++)
        root_of[s] = UINT32_MAX;
    for (uint32_t n = 0; n < asset->node_count; n++) {
        int32_t mesh = asset->nodes[n].mesh, skin = asset->nodes[n].skin;
        if (mesh >= 0 && (uint32_t)mesh < asset->mesh_count && skin_of[mesh] < 0 && skin >= 0 &&
            (uint32_t)skin < asset->skin_count)
            skin_of[mesh] = skin;
    }
    bool ok = true;
    for (uint32_t m = 0; ok && m < asset->mesh_count; m++) {
        ir_mesh *mesh = &asset->meshes[m];
        if (mesh->joints == NULL || mesh->weights == NULL)
            continue;
        int32_t skin = skin_of[m];
        if (skin >= 0 && root_of[skin] == UINT32_MAX)
            ok = skin_root_joint(asset, &asset->skins[skin], &root_of[skin]);
        uint16_t root = skin >= 0 && ok ? (uint16_t)root_of[skin] : 0;
        for (uint32_t v = 0; v < mesh->vertex_count; v++) {
            float *w = mesh->weights + 4 * (size_t)v;
            float *w1 = mesh->weights1 != NULL ? mesh->weights1 + 4 * (size_t)v : NULL;
            if (w[0] > 0.0f || w[1] > 0.0f || w[2] > 0.0f || w[3] > 0.0f ||
                (w1 != NULL && (w1[0] > 0.0f || w1[1] > 0.0f || w1[2] > 0.0f || w1[3] > 0.0f)))
                continue;
            uint16_t *j = mesh->joints + 4 * (size_t)v;
            j[0] = root;
            j[1] = j[2] = j[3] = 0;
            w[0] = 1.0f;
            w[1] = w[2] = w[3] = 0.0f;
        }
    }
    free(skin_of);
    free(root_of);
    return ok;
}
