/*
 * draw_list.h — what kiln-view draws of a loaded asset: every triangle
 * submesh of a mesh, or of every mesh node of a scene's default scene (node
 * world matrices from libkiln's scene instance, EXT_mesh_gpu_instancing
 * instances, a level's placed scenes, skinned meshes with their joint
 * matrices, morphed meshes with their node's weights), with its material
 * row, and the world-space bounds the automatic camera frames (skinned and
 * morphed vertices placed on the CPU for them).
 */
#ifndef KILN_VIEW_DRAW_LIST_H
#define KILN_VIEW_DRAW_LIST_H

#include "kiln/manager.h"

#define DRAW_TEXTURES 5 /* material slots drawn: KILN_MATERIAL_SLOT_BASE_COLOR .. EMISSIVE */

typedef struct draw_item {
    const kiln_asset *mesh;
    uint32_t submesh;
    float model[16];             /* column-major */
    const kiln_asset *materials; /* the material table, or NULL: the default material */
    const kiln_material *material;
    /* The material's textures by kiln_material_slot (base colour,
     * metallic-roughness, normal, occlusion, emissive), NULL where it has
     * none (white is bound; no normal map is then applied). */
    const kiln_asset *textures[DRAW_TEXTURES];
    /* Skinned: joint_count matrices at draw_list.joints[16 * joint_offset];
     * `model` is then the parent's matrix, the joints' already world space. */
    uint32_t joint_offset, joint_count;
    /* Morphed: the node's weight_count (the mesh's target count) weights at
     * draw_list.weights[weight_offset]; weight_count 0 draws the base shape. */
    uint32_t weight_offset, weight_count;
} draw_item;

typedef struct draw_list {
    draw_item *items;
    uint32_t count, capacity;
    float bounds_min[3], bounds_max[3]; /* world space; min > max when empty */
    uint32_t skipped_primitives;        /* line and point submeshes (not drawn) */
    float *joints;                      /* every skinned draw's joint matrices */
    uint32_t joint_count, joint_capacity;
    float *weights; /* every morphed draw's weights */
    uint32_t weight_count, weight_capacity;
} draw_list;

/* A pose of the drawn scene: clip `clip` of `anim` sampled at `time`
 * seconds (clamped to the clip's keys), or with clip DRAW_POSE_REST the
 * rest pose with the clip file's default morph weights. */
#define DRAW_POSE_REST UINT32_MAX
typedef struct draw_pose {
    const kiln_anim_view *anim;
    uint32_t clip;
    float time;
} draw_pose;

/* Collects the draws of `asset` (a mesh or a scene; a scene in its rest
 * pose, or in `pose` when not NULL). Fails with a message for other kinds, a
 * missing dependency, a clip of another scene, or out of memory. */
kiln_result draw_list_build(const kiln_manager *manager, const kiln_asset *asset,
                            const draw_pose *pose, draw_list *out, kiln_error *err);
void draw_list_free(draw_list *list);

/* The dependency of `asset` whose handle is `handle`, when loaded; NULL otherwise. */
const kiln_asset *dependency_of(const kiln_manager *manager, const kiln_asset *asset,
                                kiln_handle handle);

/* out = a * b (column-major 4x4). */
void mat4_multiply(const float a[16], const float b[16], float out[16]);

#endif
