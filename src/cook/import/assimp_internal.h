/*
 * assimp_internal.h — the conversion state the files of the assimp importer
 * share (assimp.c documents the importer as a whole).
 *
 *   assimp.c           the entry (import_assimp): assimp's file system, the
 *                      import under its lock, assimp's messages
 *   assimp_scene.c     the whole scene, in order (assimp_convert_scene)
 *   assimp_mesh.c      a node's aiMeshes into one ir_mesh, instancing
 *   assimp_skin.c      bones into skins and per-vertex influences
 *   assimp_morph.c     aiAnimMeshes into morph targets, default weights
 *   assimp_camera.c    cameras and lights on their nodes
 *   assimp_material.c  materials and their textures
 *   assimp_nodes.c     the node graph and its transforms
 *   assimp_common.c    strings, the node name table, checked arrays
 *   assimp_anim.c      animations (import.h), assimp_precheck.c the bytes
 *                      before assimp reads them (import.h)
 *
 * Calls go down this list only (scripts/check_cycles.sh checks it).
 */
#ifndef KILN_COOK_IMPORT_ASSIMP_INTERNAL_H
#define KILN_COOK_IMPORT_ASSIMP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/import/import.h"

struct aiMesh;
struct aiNode;
struct aiScene;
struct aiString;

#define AIMP_MAX_NODES (1u << 24)
#define AIMP_MAX_NOTES 16u
#define AIMP_NONE UINT32_MAX

/* ---- the conversion state ------------------------------------------------ */

typedef struct node_entry {
    const struct aiNode *node;
    int32_t parent;
} node_entry;

/* Node names → first node index, open addressing, at most half full. */
typedef struct name_slot {
    const char *name; /* NULL: empty; points into the scene */
    size_t length;
    uint32_t node;
} name_slot;

typedef struct aimp_state {
    cook_context *ctx;
    const char *path;
    const struct aiScene *scene;
    ir_asset *out;

    node_entry *nodes;
    uint32_t node_count;
    name_slot *names;
    size_t names_cap;

    uint32_t *slot_of_material; /* per aiMaterial: IR slot, or AIMP_NONE */
    uint32_t *used_materials;   /* per IR slot: aiMaterial index */
    uint32_t used_count;

    uint32_t *group_first;            /* per aiMesh: first group starting with it, or NONE */
    uint32_t *group_next;             /* per group: next group with the same first aiMesh */
    uint32_t *group_mesh;             /* per group: ir mesh index, or NONE (nothing cooked) */
    const struct aiNode **group_node; /* per group: the node that created it */
    uint32_t group_count;
    size_t group_cap;

    bool *mesh_used;    /* per aiMesh: placed by a cooked node */
    int32_t *mesh_skin; /* per ir mesh: index into out->skins, or -1 */
    size_t mesh_skin_cap;

    uint32_t skipped_meshes; /* aiMeshes with nothing kiln cooks */
    bool warned_shear, warned_matrix, warned_embedded, warned_texcoord, warned_uv_set;
    uint32_t textures_reported;
} aimp_state;

/* ---- assimp_common.c ------------------------------------------------------- */

/* Reports "out of memory" for the source; returns false. */
bool aimp_out_of_memory(aimp_state *st);
/* An aiString's text, bounded by its buffer whatever `length` claims. */
size_t aimp_string_length(const struct aiString *s);
/* A malloc'd, NUL-terminated copy of an aiString's text; NULL when out of
 * memory. */
char *aimp_string_dup(const struct aiString *s);
/* st->names from st->nodes (the first node of a name wins); false when out
 * of memory (not reported). */
bool aimp_build_name_table(aimp_state *st);
/* The first node named `name`, or AIMP_NONE. */
uint32_t aimp_find_node(const aimp_state *st, const struct aiString *name);
/* malloc of `count` (at least 1) items of `size`, the product checked. */
void *aimp_alloc_array(size_t count, size_t size);
/* The part of `path` after its last slash or backslash. */
const char *aimp_base_name(const char *path);

/* ---- assimp_nodes.c -------------------------------------------------------- */

/* st->nodes: every aiNode depth-first, parents first, with an explicit stack
 * (no recursion). */
bool aimp_collect_nodes(aimp_state *st);
/* Quaternion (x, y, z, w) of a rotation matrix given column-major. */
void aimp_quaternion_from_matrix(const double r[9], double q[4]);
/* out->nodes from st->nodes: names, parents, transforms. */
bool aimp_build_nodes(aimp_state *st);

/* ---- assimp_skin.c --------------------------------------------------------- */

/* The bones of one ir_mesh: distinct nodes in order of first appearance. */
typedef struct aimp_bone_set {
    uint32_t *nodes;
    float *inverse_bind; /* 16 per bone, column-major */
    uint32_t count;
    size_t cap;
    int32_t source; /* the first aiMesh with bones */
} aimp_bone_set;

/* The skin of one ir_mesh while its vertices are read: eight influences a
 * vertex, of which the IR keeps four or eight. Zero it, with bones.source -1. */
typedef struct aimp_skin_builder {
    uint16_t *joints8; /* eight per vertex */
    float *weights8;
    uint8_t *influences; /* per vertex: how many bones reach it (saturated) */
    aimp_bone_set bones;
    size_t unknown_bones; /* bones naming no node (warned once) */
} aimp_skin_builder;

/* For a mesh of `n` vertices with bones: its joints and weights, and the
 * builder's buffers. False when out of memory (reported). */
bool aimp_skin_begin(aimp_state *st, aimp_skin_builder *b, ir_mesh *mesh, size_t n);
/* The weights of aiMesh `mesh_index` (`m`), whose vertices start at `base`
 * in the ir_mesh. False after an error: out of memory, or a bone whose offset
 * matrix is not finite. */
bool aimp_skin_add_bones(aimp_state *st, aimp_skin_builder *b, const struct aiMesh *m,
                         unsigned mesh_index, size_t base);
/* After the last aiMesh: the influences into the mesh's streams and the
 * mesh's skin (one with the same joints and matrices, or a new one; none
 * without bones). Frees the builder. False after an error. */
bool aimp_skin_finish(aimp_state *st, aimp_skin_builder *b, ir_mesh *mesh, size_t n);
/* Frees what the builder holds (after an error). */
void aimp_skin_free(aimp_skin_builder *b);

/* ---- assimp_morph.c -------------------------------------------------------- */

/* Morph targets from the aiMeshes' aiAnimMeshes (FBX blend shapes, DAE
 * morph controllers, glTF targets): an aiAnimMesh replaces streams, so a
 * delta is its value minus the base's. Kept when every aiMesh of the group
 * has the same number of them, each with the aiMesh's vertex count; else
 * dropped with a warning. Positions, normals and tangents (the ones the
 * mesh has) are cooked; replaced colours or texture coordinates are named in
 * a warning. Non-finite deltas become 0 with a warning. */
bool aimp_read_anim_meshes(aimp_state *st, const unsigned *meshes, uint32_t count, ir_mesh *mesh);
/* A node drawing a mesh with morph targets: its default weights, the
 * aiAnimMeshes' mWeight of the group's first aiMesh (ir.h: one per target). */
bool aimp_set_node_weights(aimp_state *st, uint32_t node_index, unsigned first_mesh);

/* ---- assimp_mesh.c --------------------------------------------------------- */

/* A mesh kiln cooks: triangles, lines or points (SortByPType gives each
 * aiMesh one kind; faces are still classified one by one), or vertices with
 * no faces at all, which are a point cloud (assimp's PLY reader without a
 * face element; only a scene imported again without validation has them). */
bool aimp_is_cooked_mesh(const struct aiMesh *mesh);
/* The group (ir mesh) for a node's list of triangle aiMeshes: an existing one
 * when another node placed exactly the same list. */
bool aimp_node_meshes(aimp_state *st, uint32_t node_index, unsigned *scratch);

/* ---- assimp_material.c ----------------------------------------------------- */

/* out->materials: the aiMaterials cooked submeshes use, in slot order
 * (st->used_materials). */
bool aimp_build_materials(aimp_state *st);

/* ---- assimp_camera.c ------------------------------------------------------- */

/* After the nodes: aiCameras and aiLights (see the header comment). New
 * "_frame" nodes are appended, after their parents. */
bool aimp_build_cameras_lights(aimp_state *st);

#endif /* KILN_COOK_IMPORT_ASSIMP_INTERNAL_H */
