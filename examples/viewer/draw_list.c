/*
 * draw_list.c — a loaded mesh or scene as a list of draws (draw_list.h).
 */
#include "draw_list.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVEL_NESTING 8 /* levels placing levels: deeper ones are a warning */

void mat4_multiply(const float a[16], const float b[16], float out[16]) {
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = sum;
        }
    memcpy(out, r, sizeof r);
}

static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

const kiln_asset *dependency_of(const kiln_manager *manager, const kiln_asset *asset,
                                kiln_handle handle) {
    for (uint32_t i = 0; i < asset->dependency_count; i++)
        if (asset->dependencies[i].handle == handle)
            return kiln_asset_get(manager, asset->dependencies[i].ref);
    return NULL;
}

static void grow_bounds(draw_list *list, const kiln_submesh *submesh, const float m[16]) {
    for (int corner = 0; corner < 8; corner++) {
        float p[3] = {corner & 1 ? submesh->aabb_max[0] : submesh->aabb_min[0],
                      corner & 2 ? submesh->aabb_max[1] : submesh->aabb_min[1],
                      corner & 4 ? submesh->aabb_max[2] : submesh->aabb_min[2]};
        for (int axis = 0; axis < 3; axis++) {
            float w = m[axis] * p[0] + m[4 + axis] * p[1] + m[8 + axis] * p[2] + m[12 + axis];
            list->bounds_min[axis] = fminf(list->bounds_min[axis], w);
            list->bounds_max[axis] = fmaxf(list->bounds_max[axis], w);
        }
    }
}

static const kiln_asset *texture_of(const kiln_manager *manager, const kiln_asset *materials,
                                    const kiln_material *material, kiln_material_slot slot) {
    if (material == NULL || material->textures[slot].texture == 0)
        return NULL;
    return dependency_of(manager, materials, material->textures[slot].texture);
}

static kiln_result out_of_memory(kiln_error *err) {
    err->code = KILN_ERR_OUT_OF_MEMORY;
    snprintf(err->message, sizeof err->message, "out of memory for draws");
    return KILN_ERR_OUT_OF_MEMORY;
}

/* Skinning: where a skinned mesh's joints and weights are, when kiln-view
 * can read them (the cooker's u16x4 joints and unorm16x4 weights). */
typedef struct skin_streams {
    const uint8_t *joints, *weights;
    uint32_t joint_stride, weight_stride;
} skin_streams;

static bool skin_attributes(const kiln_mesh_view *mesh, skin_streams *out) {
    const kiln_vertex_attribute *j = kiln_mesh_find_attribute(mesh, KILN_SEMANTIC_JOINTS0);
    const kiln_vertex_attribute *w = kiln_mesh_find_attribute(mesh, KILN_SEMANTIC_WEIGHTS0);
    if (j == NULL || w == NULL || j->format != KILN_VFORMAT_U16X4 ||
        w->format != KILN_VFORMAT_UNORM16X4)
        return false;
    out->joints = kiln_mesh_attribute_data(mesh, j, &out->joint_stride, NULL);
    out->weights = kiln_mesh_attribute_data(mesh, w, &out->weight_stride, NULL);
    return out->joints != NULL && out->weights != NULL;
}

/* The bounds of a skinned or morphed mesh's vertices as the vertex stage
 * places them: `positions` (morphed, 3 floats a vertex) or the stored ones,
 * then blended by the skin's `joint_count` matrices when `matrices` is not
 * NULL, then through `model`. */
static void grow_vertex_bounds(draw_list *list, const kiln_mesh_view *mesh, const float *positions,
                               const float *matrices, uint32_t joint_count, const float model[16]) {
    skin_streams skin = {0};
    if (matrices != NULL && !skin_attributes(mesh, &skin))
        matrices = NULL; /* not reached: a skin is used only when its attributes are readable */
    for (uint32_t v = 0; v < mesh->desc->vertex_count; v++) {
        float p[3];
        if (positions != NULL)
            memcpy(p, positions + 3 * (size_t)v, sizeof p);
        else
            kiln_mesh_position(mesh, v, p);
        if (matrices != NULL) {
            uint16_t joint[4], weight[4];
            memcpy(joint, skin.joints + (size_t)v * skin.joint_stride, sizeof joint);
            memcpy(weight, skin.weights + (size_t)v * skin.weight_stride, sizeof weight);
            float skinned[3] = {0, 0, 0};
            for (int i = 0; i < 4; i++) {
                if (joint[i] >= joint_count || weight[i] == 0)
                    continue;
                const float *m = matrices + 16 * (size_t)joint[i];
                float w = weight[i] / 65535.0f;
                for (int axis = 0; axis < 3; axis++)
                    skinned[axis] += w * (m[axis] * p[0] + m[4 + axis] * p[1] + m[8 + axis] * p[2] +
                                          m[12 + axis]);
            }
            memcpy(p, skinned, sizeof p);
        }
        for (int axis = 0; axis < 3; axis++) {
            float world = model[axis] * p[0] + model[4 + axis] * p[1] + model[8 + axis] * p[2] +
                          model[12 + axis];
            list->bounds_min[axis] = fminf(list->bounds_min[axis], world);
            list->bounds_max[axis] = fmaxf(list->bounds_max[axis], world);
        }
    }
}

/* Room for `count` more joint matrices; their offset (in matrices) in *at. */
static kiln_result reserve_joints(draw_list *list, uint32_t count, uint32_t *at, kiln_error *err) {
    if (count > UINT32_MAX / 16 - list->joint_count)
        return out_of_memory(err);
    if (list->joint_count + count > list->joint_capacity) {
        uint32_t capacity = (list->joint_count + count) * 2;
        float *joints = realloc(list->joints, (size_t)capacity * 16 * sizeof *joints);
        if (joints == NULL)
            return out_of_memory(err);
        list->joints = joints;
        list->joint_capacity = capacity;
    }
    *at = list->joint_count;
    list->joint_count += count;
    return KILN_OK;
}

/* Room for `count` more morph weights, copied from `values`; their offset in *at. */
static kiln_result add_weights(draw_list *list, const float *values, uint32_t count, uint32_t *at,
                               kiln_error *err) {
    if (count > UINT32_MAX / 2 - list->weight_count)
        return out_of_memory(err);
    if (list->weight_count + count > list->weight_capacity) {
        uint32_t capacity = (list->weight_count + count) * 2;
        float *weights = realloc(list->weights, (size_t)capacity * sizeof *weights);
        if (weights == NULL)
            return out_of_memory(err);
        list->weights = weights;
        list->weight_capacity = capacity;
    }
    memcpy(list->weights + list->weight_count, values, (size_t)count * sizeof *values);
    *at = list->weight_count;
    list->weight_count += count;
    return KILN_OK;
}

/* How a node deforms its mesh: skin matrices and morph weights in the list. */
typedef struct deform {
    uint32_t joint_offset, joint_count;   /* joint_count 0: not skinned */
    uint32_t weight_offset, weight_count; /* weight_count 0: base shape */
} deform;

/* The bounds of a deformed mesh, its vertices placed on the CPU. */
static kiln_result grow_deformed_bounds(draw_list *list, const kiln_mesh_view *mesh, deform d,
                                        const float model[16], kiln_error *err) {
    float *positions = NULL;
    if (d.weight_count > 0) {
        size_t floats = 3 * (size_t)mesh->desc->vertex_count;
        positions = malloc(floats * sizeof *positions + 1);
        if (positions == NULL)
            return out_of_memory(err);
        kiln_result r = kiln_mesh_morph_positions(mesh, list->weights + d.weight_offset,
                                                  d.weight_count, positions, floats, err);
        if (r != KILN_OK) {
            free(positions);
            return r;
        }
    }
    grow_vertex_bounds(list, mesh, positions,
                       d.joint_count > 0 ? list->joints + 16 * (size_t)d.joint_offset : NULL,
                       d.joint_count, model);
    free(positions);
    return KILN_OK;
}

static kiln_result add_mesh(const kiln_manager *manager, draw_list *list, const kiln_asset *mesh,
                            const kiln_asset *materials, const float model[16], deform d,
                            kiln_error *err) {
    bool warned_tangents = false;
    for (uint32_t s = 0; s < mesh->mesh.desc->submesh_count; s++) {
        const kiln_submesh *submesh = &mesh->mesh.submeshes[s];
        if (submesh->topology != KILN_TOPOLOGY_TRIANGLES) {
            list->skipped_primitives++;
            continue;
        }
        if (list->count == list->capacity) {
            uint32_t capacity = list->capacity ? list->capacity * 2 : 64;
            draw_item *items = realloc(list->items, capacity * sizeof *items);
            if (items == NULL)
                return out_of_memory(err);
            list->items = items;
            list->capacity = capacity;
        }
        draw_item *item = &list->items[list->count++];
        item->mesh = mesh;
        item->submesh = s;
        memcpy(item->model, model, sizeof item->model);
        item->materials = materials;
        item->material = materials != NULL
                             ? kiln_material_row(&materials->materials, submesh->material_slot)
                             : NULL;
        for (int slot = 0; slot < DRAW_TEXTURES; slot++)
            item->textures[slot] =
                texture_of(manager, materials, item->material, (kiln_material_slot)slot);
        if (item->textures[KILN_MATERIAL_SLOT_NORMAL] != NULL && !warned_tangents &&
            kiln_mesh_find_attribute(&mesh->mesh, KILN_SEMANTIC_TANGENT) == NULL) {
            fprintf(stderr, "kiln-view: warning: %s: no tangents; its normal map is not drawn\n",
                    mesh->path);
            warned_tangents = true;
        }
        item->joint_offset = d.joint_offset;
        item->joint_count = d.joint_count;
        item->weight_offset = d.weight_offset;
        item->weight_count = d.weight_count;
        if (d.joint_count == 0 && d.weight_count == 0)
            grow_bounds(list, submesh, model);
    }
    if (d.joint_count > 0 || d.weight_count > 0)
        return grow_deformed_bounds(list, &mesh->mesh, d, model, err);
    return KILN_OK;
}

static kiln_result missing(kiln_error *err, const kiln_asset *scene, const char *what,
                           uint32_t node) {
    err->code = KILN_ERR_NOT_FOUND;
    snprintf(err->message, sizeof err->message, "%s: node %u ('%s'): its %s is not loaded",
             scene->path, node, kiln_scene_node_name(&scene->scene, node), what);
    return KILN_ERR_NOT_FOUND;
}

/* Whether `node` belongs to the scene's default scene (all nodes when the
 * file has none). */
static bool in_default_scene(const kiln_scene_view *view, uint32_t node) {
    if (view->desc->default_scene < 0 || (uint32_t)view->desc->default_scene >= view->scene_count)
        return true;
    while (view->hierarchy[node].parent >= 0)
        node = (uint32_t)view->hierarchy[node].parent;
    const kiln_scene_entry *entry = &view->scenes[view->desc->default_scene];
    for (uint32_t r = 0; r < entry->root_count; r++)
        if (view->roots[entry->root_offset + r] == node)
            return true;
    return false;
}

static kiln_result add_scene(const kiln_manager *manager, draw_list *list, const kiln_asset *scene,
                             const float parent[16], int depth, const draw_pose *pose,
                             kiln_error *err);

/* A posed scene's morph weights: every morph node's, as libkiln sampled them. */
typedef struct node_weights {
    const kiln_anim_view *anim;
    const float *values; /* anim->weight_count */
} node_weights;

/* The weights of node `n` for `mesh` into the list (d->weight_count 0 when
 * the mesh has no targets or the node no weights: the base shape). */
static kiln_result morph_weights(draw_list *list, const node_weights *weights, uint32_t n,
                                 const kiln_asset *mesh, deform *d, kiln_error *err) {
    uint32_t targets = mesh->mesh.desc->morph_target_count;
    if (targets == 0 || weights == NULL)
        return KILN_OK;
    for (uint32_t m = 0; m < weights->anim->morph_count; m++) {
        const kiln_anim_morph *morph = &weights->anim->morphs[m];
        if (morph->node != n)
            continue;
        if (morph->weight_count != targets) {
            fprintf(stderr,
                    "kiln-view: warning: %s: %u morph weights for %u targets; drawn in its "
                    "base shape\n",
                    mesh->path, morph->weight_count, targets);
            return KILN_OK;
        }
        d->weight_count = targets;
        return add_weights(list, weights->values + morph->weight_offset, targets, &d->weight_offset,
                           err);
    }
    return KILN_OK;
}

static kiln_result add_node(const kiln_manager *manager, draw_list *list, const kiln_asset *scene,
                            const kiln_scene_instance *instance, const node_weights *weights,
                            uint32_t n, const float parent[16], int depth, kiln_error *err) {
    const kiln_scene_view *view = &scene->scene;
    float world[16];
    mat4_multiply(parent, kiln_scene_world(instance, n), world);
    uint64_t placed = kiln_scene_node_link(view, n, NULL);
    if (placed != 0) {
        const kiln_asset *child = dependency_of(manager, scene, placed);
        if (child == NULL)
            return missing(err, scene, "placed scene", n);
        kiln_result placed_r = add_scene(manager, list, child, world, depth + 1, NULL, err);
        if (placed_r != KILN_OK)
            return placed_r;
    }
    const kiln_scene_node *node = &view->nodes[n];
    if (node->mesh < 0)
        return KILN_OK;
    const kiln_asset *mesh = dependency_of(manager, scene, view->meshes[node->mesh]);
    if (mesh == NULL)
        return missing(err, scene, "mesh", n);
    const kiln_asset *materials = NULL;
    if (node->materials >= 0) {
        materials = dependency_of(manager, scene, view->materials[node->materials]);
        if (materials == NULL)
            return missing(err, scene, "material table", n);
    }
    deform d = {0, 0, 0, 0};
    skin_streams skin;
    if (node->skin >= 0 && (node->flags & KILN_SCENE_NODE_FLAG_SKINNED)) {
        if (!skin_attributes(&mesh->mesh, &skin)) {
            fprintf(stderr,
                    "kiln-view: warning: %s: its skin's joints or weights are not in "
                    "a layout kiln-view reads; drawn unskinned\n",
                    mesh->path);
        } else {
            if (kiln_mesh_find_attribute(&mesh->mesh, KILN_SEMANTIC_JOINTS1) != NULL)
                fprintf(stderr, "kiln-view: warning: %s: skin influences 5 to 8 are not read\n",
                        mesh->path);
            kiln_scene_skin_joints(view, (uint32_t)node->skin, &d.joint_count);
            kiln_result r = reserve_joints(list, d.joint_count, &d.joint_offset, err);
            if (r == KILN_OK)
                r = kiln_scene_skin_matrices(view, instance, (uint32_t)node->skin,
                                             list->joints + 16 * (size_t)d.joint_offset,
                                             d.joint_count, err);
            if (r != KILN_OK)
                return r;
            memcpy(world, parent, sizeof world); /* the joints are in the scene's space */
        }
    }
    kiln_result r = morph_weights(list, weights, n, mesh, &d, err);
    if (r != KILN_OK)
        return r;
    uint32_t instances = 0;
    const kiln_scene_transform *local = kiln_scene_node_instances(view, n, &instances);
    if (instances == 0 || d.joint_count > 0)
        return add_mesh(manager, list, mesh, materials, world, d, err);
    for (uint32_t i = 0; i < instances; i++) {
        float m[16], placed_world[16];
        kiln_scene_compose(&local[i], m);
        mat4_multiply(world, m, placed_world);
        r = add_mesh(manager, list, mesh, materials, placed_world, d, err);
        if (r != KILN_OK)
            return r;
    }
    return KILN_OK;
}

/* Samples the pose into `sampled` (libkiln's sampler; the rest pose and
 * default weights for DRAW_POSE_REST) and moves the instance's nodes there. */
static kiln_result apply_pose(const kiln_asset *scene, const draw_pose *pose,
                              kiln_anim_pose *sampled, kiln_scene_instance *instance,
                              kiln_error *err) {
    kiln_result r = kiln_anim_pose_rest(pose->anim, &scene->scene, sampled, err);
    if (r != KILN_OK || pose->clip == DRAW_POSE_REST)
        return r;
    r = kiln_anim_sample(pose->anim, pose->clip, pose->time, NULL, sampled, err);
    if (r == KILN_OK)
        r = kiln_anim_apply(pose->anim, pose->clip, sampled, instance, err);
    if (r == KILN_OK)
        kiln_scene_update(instance);
    return r;
}

static kiln_result add_scene(const kiln_manager *manager, draw_list *list, const kiln_asset *scene,
                             const float parent[16], int depth, const draw_pose *pose,
                             kiln_error *err) {
    if (depth > MAX_LEVEL_NESTING) {
        fprintf(stderr, "kiln-view: warning: %s: levels nested deeper than %d are not drawn\n",
                scene->path, MAX_LEVEL_NESTING);
        return KILN_OK;
    }
    const kiln_scene_view *view = &scene->scene;
    size_t size = kiln_scene_instance_size(view);
    void *memory = size > 0 ? aligned_alloc(16, (size + 15) & ~(size_t)15) : NULL;
    if (memory == NULL) {
        err->code = KILN_ERR_OUT_OF_MEMORY;
        snprintf(err->message, sizeof err->message, "%s: out of memory for its instance",
                 scene->path);
        return KILN_ERR_OUT_OF_MEMORY;
    }
    kiln_scene_instance instance;
    kiln_anim_pose sampled = {0};
    node_weights weights = {0};
    kiln_result r = kiln_scene_instance_init(&instance, view, memory, size, err);
    if (r == KILN_OK && pose != NULL) {
        sampled.local = malloc((size_t)view->node_count * sizeof *sampled.local + 1);
        sampled.weights = malloc((size_t)pose->anim->weight_count * sizeof(float) + 1);
        if (sampled.local == NULL || sampled.weights == NULL) {
            r = err->code = KILN_ERR_OUT_OF_MEMORY;
            snprintf(err->message, sizeof err->message, "%s: out of memory for a pose",
                     scene->path);
        } else {
            r = apply_pose(scene, pose, &sampled, &instance, err);
            weights = (node_weights){pose->anim, sampled.weights};
        }
    }
    for (uint32_t n = 0; r == KILN_OK && n < view->node_count; n++)
        if (depth > 0 || in_default_scene(view, n))
            r = add_node(manager, list, scene, &instance, pose != NULL ? &weights : NULL, n, parent,
                         depth, err);
    free(sampled.local);
    free(sampled.weights);
    free(memory);
    return r;
}

kiln_result draw_list_build(const kiln_manager *manager, const kiln_asset *asset,
                            const draw_pose *pose, draw_list *out, kiln_error *err) {
    memset(out, 0, sizeof *out);
    for (int axis = 0; axis < 3; axis++) {
        out->bounds_min[axis] = INFINITY;
        out->bounds_max[axis] = -INFINITY;
    }
    if (asset->kind == KILN_ASSET_SCENE)
        return add_scene(manager, out, asset, identity, 0, pose, err);
    if (asset->kind == KILN_ASSET_MESH) {
        const kiln_asset *materials = NULL;
        for (uint32_t i = 0; i < asset->dependency_count && materials == NULL; i++) {
            const kiln_asset *d = kiln_asset_get(manager, asset->dependencies[i].ref);
            if (d != NULL && d->kind == KILN_ASSET_MATERIAL)
                materials = d;
        }
        return add_mesh(manager, out, asset, materials, identity, (deform){0, 0, 0, 0}, err);
    }
    err->code = KILN_ERR_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message, "%s is a %s; kiln-view draws meshes and scenes",
             asset->ref, kiln_asset_kind_str(asset->kind));
    return KILN_ERR_INVALID_ARGUMENT;
}

void draw_list_free(draw_list *list) {
    free(list->items);
    free(list->joints);
    free(list->weights);
    memset(list, 0, sizeof *list);
}
