/*
 * ir.h — the cooker's in-memory intermediate representation.
 *
 * Importers produce it (models and decoded images), process steps transform it, writers serialise
 * it. It is plain data: every array is owned by the struct that points to it and freed by the
 * matching ir_*_free(). Streams are kept separate (structure of arrays) so a process step touches
 * only what it needs and optional streams cost nothing.
 */
#ifndef KILN_COOK_CORE_IR_H
#define KILN_COOK_CORE_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln.h"

/* A range of a mesh's index buffer drawn with one material and one topology
 * (kiln_topology: triangle, line or point lists; 0 is triangles). */
typedef struct ir_submesh {
    uint32_t index_offset;
    uint32_t index_count; /* a multiple of the topology's 3, 2 or 1 */
    uint32_t material;    /* index into ir_asset.materials */
    kiln_topology topology;
    char *name; /* the source's name for it (OBJ g / o), owned, or NULL */
    /* Filled by process_build_meshlets: this submesh's meshlets. */
    uint32_t meshlet_offset;
    uint32_t meshlet_count;
} ir_submesh;

/* One reduced level of one submesh (process_build_lods). */
typedef struct ir_lod {
    uint32_t index_offset;
    uint32_t index_count;
    float error; /* relative to the mesh's extent */
    bool reused; /* could not be reduced: the range of the level before */
} ir_lod;

/* A meshlet (process_build_meshlets): a range of meshlet_vertices (indices of
 * mesh vertices) and of meshlet_triangles (byte triples of local indices). */
typedef struct ir_meshlet {
    uint32_t vertex_offset;
    uint32_t triangle_offset; /* in triangles */
    uint32_t vertex_count;
    uint32_t triangle_count;
    float center[3];
    float radius;
    float cone_apex[3];
    float cone_axis[3];
    float cone_cutoff;
    int8_t cone_axis_s8[3];
    int8_t cone_cutoff_s8;
} ir_meshlet;

/* A morph target (glTF mesh.primitives[].targets[i], assimp's aiAnimMesh):
 * per-vertex displacements added, times the target's weight, to the base
 * streams. Every target of a mesh has the same streams (NULL or
 * vertex_count xyz deltas each); the process stage carries them with their
 * vertices like any other stream. */
typedef struct ir_morph_target {
    char *name;       /* glTF mesh.extras.targetNames[i], or NULL */
    float *positions; /* xyz per vertex, or NULL */
    float *normals;   /* xyz per vertex, or NULL */
    float *tangents;  /* xyz per vertex (no handedness), or NULL */
} ir_morph_target;

/* Indexed triangle, line and point lists (per submesh) with per-vertex
 * streams. Invariants: positions is never NULL when vertex_count > 0; every
 * optional stream is either NULL or holds vertex_count elements; every index
 * < vertex_count; submeshes cover the index buffer's level 0 without overlap,
 * in order, each a whole number of its primitives. */
typedef struct ir_mesh {
    char *name;
    char *extras; /* the source's extras and unknown extensions (ir_extras_text), or NULL */
    uint32_t vertex_count;
    float *positions;    /* xyz */
    float *normals;      /* xyz, unit length, or NULL */
    float *tangents;     /* xyzw (w = handedness), or NULL */
    float *texcoords[2]; /* uv, or NULL */
    float *colors;       /* rgba, linear, or NULL */
    uint16_t *joints;    /* 4 joint indices per vertex (skin), or NULL */
    float *weights;      /* 4 weights per vertex summing to 1, or NULL (with joints) */
    /* Influences 5 to 8 (a source with more than four per vertex), or NULL:
     * with them the eight weights sum to 1, largest first across both sets. */
    uint16_t *joints1;
    float *weights1;
    /* Morph targets, in source order (0 and NULL without). */
    uint32_t target_count;
    ir_morph_target *targets;
    uint32_t index_count;
    uint32_t *indices;
    uint32_t submesh_count;
    ir_submesh *submeshes;
    /* Levels of detail: lod_count levels per submesh, level 0 being the
     * submesh itself; lods[s * lod_count + l]. Reduced levels' indices follow
     * every submesh's level 0 in `indices`. lods is NULL until built. */
    uint32_t lod_count;
    ir_lod *lods;
    uint32_t meshlet_count;
    uint32_t meshlet_max_vertices; /* the limits they were built with */
    uint32_t meshlet_max_triangles;
    ir_meshlet *meshlets;
    uint32_t meshlet_vertex_count;
    uint32_t *meshlet_vertices;
    uint32_t meshlet_triangle_count;
    uint8_t *meshlet_triangles; /* 3 bytes per triangle */
} ir_mesh;

/* Texture slots a material can use. */
typedef enum ir_texture_slot {
    IR_SLOT_BASE_COLOR = 0,
    IR_SLOT_METALLIC_ROUGHNESS,
    IR_SLOT_NORMAL,
    IR_SLOT_OCCLUSION,
    IR_SLOT_EMISSIVE,
    IR_SLOT_ALPHA, /* a separate opacity map (MTL map_d) */
    IR_SLOT_COUNT
} ir_texture_slot;

/* A material slot's texture: an image of ir_asset.images and how it is
 * sampled (KHR_texture_transform: uv' = T(offset) R(rotation) S(scale) uv). */
/* ir_texture_ref.image of a slot whose texture is a standalone material's
 * (material.replace): textured, but nothing for the model to cook. */
#define IR_IMAGE_SHARED (-2)

typedef struct ir_texture_ref {
    int32_t image;     /* index into ir_asset.images, -1 for none, or IR_IMAGE_SHARED */
    uint32_t texcoord; /* UV set, 0 or 1 */
    float offset[2];   /* identity transform: 0, 0 */
    float rotation;    /* radians; 0 */
    float scale[2];    /* 1, 1 */
    /* The sampler, kiln_wrap / kiln_filter / kiln_mip_filter values; 0 is
     * glTF's default (repeat, linear, linear mips). */
    uint8_t wrap_s, wrap_t, mag_filter, min_filter, mip_filter;
} ir_texture_ref;

/* An image materials use: a file in the input tree, or bytes embedded in the
 * source (a glTF bufferView or data: URI). */
typedef struct ir_image {
    char *name;     /* for messages, e.g. "images[3]" or the file name */
    char *path;     /* relative to the input root, or NULL when embedded */
    char *label;    /* the source's own name for an embedded image (glTF images[i].name,
                       assimp's file name), or NULL: its cooked texture is named after it */
    uint8_t *bytes; /* the embedded encoded file (owned), or NULL */
    size_t size;
} ir_image;

typedef enum ir_alpha_mode { IR_ALPHA_OPAQUE = 0, IR_ALPHA_MASK, IR_ALPHA_BLEND } ir_alpha_mode;

/* A metallic-roughness PBR material (glTF's model; other sources convert). */
typedef struct ir_material {
    char *name;   /* for messages; made up ("material_3") when the source has none */
    bool unnamed; /* the source gave no name: the .kmat keeps none */
    float base_color[4];
    float metallic;
    float roughness;
    float emissive[3];
    float normal_scale;
    float occlusion_strength;
    ir_alpha_mode alpha_mode;
    float alpha_cutoff;
    bool double_sided;
    bool unlit;              /* KHR_materials_unlit: shade with the base colour only */
    float specular_color[3]; /* KHR_materials_specular-style; 1, 1, 1 */
    float specular;          /* strength; 1 */
    /* KILN_MATERIAL_FLAG_* bits a material.flags setting forces on or off,
     * applied after those the source gives (set by the model driver only). */
    uint32_t flags_on, flags_off;
    /* The ref hash of the standalone material (*.mat) this row was taken
     * from by material.replace, 0 for the source's own (set by the model
     * driver only; the .kmat's MSRC). */
    uint64_t source_material;
    ir_texture_ref textures[IR_SLOT_COUNT];
    /* Source extensions kiln does not cook (e.g. "KHR_materials_clearcoat"),
     * space-separated, or NULL: listed by `kiln info` as dropped. */
    char *dropped_extensions;
    /* The material's and each slot's texture's extras and unknown
     * extensions (ir_extras_text), or NULL. */
    char *extras;
    char *texture_extras[IR_SLOT_COUNT];
    char *image_extras[IR_SLOT_COUNT]; /* of the image each slot's texture samples */
} ir_material;

/* A node of the source's scene graph. Transforms are local (relative to the
 * parent); `matrix` is the TRS composed, column-major as in glTF, so both the
 * decomposed and the composed form are at hand. */
typedef struct ir_node {
    char *name;
    int32_t parent; /* index into ir_asset.nodes, or -1 for a root */
    int32_t mesh;   /* index into ir_asset.meshes, or -1 */
    int32_t skin;   /* index into ir_asset.skins, or -1 */
    int32_t camera; /* index into ir_asset.cameras, or -1 */
    int32_t light;  /* index into ir_asset.lights, or -1 */
    /* EXT_mesh_gpu_instancing: ir_asset.instances[instance_offset ..
     * instance_offset + instance_count), placed relative to this node. */
    uint32_t instance_offset;
    uint32_t instance_count;
    float translation[3];
    float rotation[4]; /* quaternion x, y, z, w */
    float scale[3];
    float matrix[16]; /* column-major local transform */
    /* The node's index in the source file (glTF nodes[i]; assimp: its place in
     * a depth-first walk), distinct per node, or -1 (ir_node_init) for a node
     * the cooker made (an OBJ's, mesh.merge's). */
    int32_t source;
    char *extras; /* the source's extras as JSON text (glTF node.extras), or NULL */
    /* Morph weights: one per morph target of the node's mesh (0 without),
     * the defaults (glTF node.weights, else mesh.weights, else zeros). */
    uint32_t weight_count;
    float *weights;
} ir_node;

/* A camera (glTF cameras[i], assimp's aiCamera). It looks down its node's
 * -Z axis with +Y up, as in glTF. */
typedef enum ir_camera_type {
    IR_CAMERA_PERSPECTIVE = 0,
    IR_CAMERA_ORTHOGRAPHIC = 1
} ir_camera_type;

typedef struct ir_camera {
    char *name;
    ir_camera_type type;
    float yfov;   /* perspective: vertical field of view, radians (> 0) */
    float aspect; /* perspective: width / height; 0 = unset (the viewport's) */
    float xmag;   /* orthographic: half width (not 0) */
    float ymag;   /* orthographic: half height (not 0) */
    float znear;  /* perspective > 0; orthographic >= 0 */
    float zfar;   /* > znear; 0 = infinite (perspective only) */
} ir_camera;

/* A KHR_lights_punctual light (or assimp's aiLight). It shines down its
 * node's -Z axis (directional, spot). */
typedef enum ir_light_type {
    IR_LIGHT_DIRECTIONAL = 0,
    IR_LIGHT_POINT = 1,
    IR_LIGHT_SPOT = 2
} ir_light_type;

typedef struct ir_light {
    char *name;
    ir_light_type type;
    float color[3];   /* linear RGB */
    float intensity;  /* candela (point, spot) or lux (directional), >= 0 */
    float range;      /* 0 = infinite */
    float inner_cone; /* spot: radians, 0 <= inner < outer <= pi/2; 0 otherwise */
    float outer_cone;
} ir_light;

/* One EXT_mesh_gpu_instancing instance: a TRS relative to its node. */
typedef struct ir_instance {
    float translation[3];
    float rotation[4]; /* unit quaternion x, y, z, w */
    float scale[3];
} ir_instance;

/* A scene of the source (glTF scenes[i]): the root nodes it shows. */
typedef struct ir_scene {
    char *name;
    char *extras;    /* ir_extras_text, or NULL */
    uint32_t *roots; /* indices into ir_asset.nodes, each a root */
    uint32_t root_count;
} ir_scene;

/* A skin (glTF skins[i], an assimp mesh's bone set): the joints that place a
 * skinned mesh's vertices. A mesh's joint index j names joints[j]. */
typedef struct ir_skin {
    char *name;           /* the source's name, or NULL */
    uint32_t joint_count; /* at least 1 */
    uint32_t *joints;     /* joint_count indices into ir_asset.nodes, distinct */
    float *inverse_bind;  /* 16 floats per joint, column-major; identity when the source has none */
    int32_t skeleton;     /* index into ir_asset.nodes (glTF skin.skeleton), or -1 */
    int32_t source;       /* the skin's index in the source (glTF skins[i]), or -1 */
} ir_skin;

/* What an animation channel drives. */
typedef enum ir_anim_path {
    IR_ANIM_TRANSLATION = 0,
    IR_ANIM_ROTATION = 1,
    IR_ANIM_SCALE = 2,
    IR_ANIM_WEIGHTS = 3
} ir_anim_path;

/* How values between keys are found (glTF 2.0 Appendix C). */
typedef enum ir_interpolation {
    IR_INTERP_LINEAR = 0,
    IR_INTERP_STEP = 1,
    IR_INTERP_CUBICSPLINE = 2
} ir_interpolation;

/* Keys: times strictly increasing, non-negative, finite; per key
 * `components` values (3 T/S, 4 R as x y z w, the morph target count for
 * weights), or for CUBICSPLINE three groups per key in glTF's order: in
 * tangent, value, out tangent. Every value finite. */
typedef struct ir_anim_sampler {
    uint32_t key_count; /* at least 1 */
    uint32_t components;
    ir_interpolation interpolation;
    float *times;  /* key_count */
    float *values; /* key_count * components * (CUBICSPLINE ? 3 : 1) */
    /* Set only by the process stage (process_animations, anim.quantize),
     * importers leave them 0: key_count x 3 u16 (kanim.md encoding 1; values
     * then holds the same keys decoded), and for a translation or scale its
     * range (min xyz, step xyz). */
    uint16_t *quantized;
    float range[6];
} ir_anim_sampler;

typedef struct ir_anim_channel {
    uint32_t node; /* index into ir_asset.nodes */
    ir_anim_path path;
    uint32_t sampler; /* index into the clip's samplers */
} ir_anim_channel;

/* An animation clip (glTF animations[i]); at most one channel per node and
 * path. */
typedef struct ir_animation {
    char *name;
    ir_anim_sampler *samplers;
    uint32_t sampler_count;
    ir_anim_channel *channels;
    uint32_t channel_count;
    /* What the source's clip holds that kiln does not cook (JSON paths,
     * space-separated: KHR_animation_pointer channels, extensions), or NULL:
     * listed by `kiln info`. */
    char *dropped;
    /* Set only by the process stage (process_animations): the worst
     * difference of the processed keys from the imported ones, translation
     * (distance), rotation (radians), scale, weights; importers leave 0. */
    float error[4];
    /* Set only by the process stage when it removed keys: the clip's time
     * range before (a clip keeps its length); else the writer takes it from
     * the keys. */
    bool has_range;
    float start, end;
} ir_animation;

/* Everything one source file produced. Nodes are ordered so that a parent
 * always comes before its children. */
typedef struct ir_asset {
    ir_mesh *meshes;
    uint32_t mesh_count;
    ir_material *materials;
    uint32_t material_count;
    ir_node *nodes;
    uint32_t node_count;
    ir_image *images;
    uint32_t image_count;
    /* The source's scenes; none (0) stands for one scene of every root. */
    ir_scene *scenes;
    uint32_t scene_count;
    uint32_t default_scene; /* index into scenes (glTF `scene`, else 0) */
    ir_camera *cameras;
    uint32_t camera_count;
    ir_light *lights;
    uint32_t light_count;
    ir_instance *instances; /* every node's, in ranges (ir_node.instance_offset) */
    uint32_t instance_count;
    /* Every skin of the source, in source order; ir_node.skin indexes it. */
    ir_skin *skins;
    uint32_t skin_count;
    /* Animation clips in source order. */
    ir_animation *animations;
    uint32_t animation_count;
    /* Extras and unknown extensions (ir_extras_text) of the glTF `asset`
     * object and of the document's top level, or NULL. */
    char *asset_extras;
    char *document_extras;
} ir_asset;

/* Extras text: what a source object carries that kiln does not interpret,
 * kept for the engine as a compact JSON object {"extras": <the object's
 * extras>, "extensions": {<name>: <value>, ...}} with either member only when
 * there is one (docs/formats/container.md, XTRA). */

/* A material with glTF's defaults (white, metallic 1, roughness 1, opaque,
 * no textures, identity texture transforms). */
void ir_material_init(ir_material *material);
/* The index of the image file `path` (relative to the input root) in
 * images[0..*count), appended (named `name`, copied) when not yet there: one
 * image per source file. -1 on allocation failure. */
int32_t ir_image_add_file(ir_image **images, uint32_t *count, const char *path, const char *name);
/* Appends an embedded image, taking ownership of `bytes` (freed on failure
 * too). Its index, or -1 on allocation failure. */
int32_t ir_image_add_bytes(ir_image **images, uint32_t *count, const char *name, uint8_t *bytes,
                           size_t size);
/* Frees images[0..count) and the array. */
void ir_images_free(ir_image *images, uint32_t count);
/* A root node with the identity transform and no mesh. */
void ir_node_init(ir_node *node);
void ir_material_free(ir_material *material);
/* Appends `what` (an extension or a map kiln does not cook, no spaces) to
 * dropped_extensions unless it is there; false when out of memory. */
bool ir_material_add_dropped(ir_material *material, const char *what);
void ir_mesh_free(ir_mesh *mesh);
/* The morph delta streams every target of `mesh` has: bit 0 positions, bit 1
 * normals, bit 2 tangents (KILN_MORPH_POSITION... in kiln/format.h); 0
 * without targets. */
uint32_t ir_mesh_morph_attributes(const ir_mesh *mesh);
/* Stream `k` (0 positions, 1 normals, 2 tangents) of a target. */
float **ir_morph_stream(ir_morph_target *target, int k);
void ir_animation_free(ir_animation *animation);
void ir_asset_free(ir_asset *asset);
void ir_skin_free(ir_skin *skin);
/* Per joint of the skin, the nearest ancestor of its node that is a joint of
 * the same skin (its index in the skin), or -1: `parents` has joint_count
 * entries. Each node is walked once per skin. False when out of memory. */
bool ir_skin_joint_parents(const ir_asset *asset, const ir_skin *skin, int32_t *parents);
/* The skin's root joint from ir_skin_joint_parents' answer: the first joint
 * (in joint order) with no ancestor among the skin's joints; 0 for none. */
uint32_t ir_skin_root_of(const int32_t *parents, uint32_t joint_count);
/* Binds every vertex without weight (all four 0) to the root joint of the
 * skin of the first node drawing its mesh (joint 0 without one), weight 1.
 * False when out of memory. */
bool ir_bind_weightless(ir_asset *asset);

/* A decoded image (import/image.c decodes, process/mips.c filters): the IR of
 * textures. Always four channels (RGBA), rows top to bottom. Exactly
 * one of rgba8 / rgbaf is set: rgbaf for Radiance HDR (linear floats),
 * rgba8 for everything else (16-bit sources are rounded to 8 bits). */
typedef struct ir_decoded_image {
    uint32_t width;
    uint32_t height;
    uint8_t *rgba8;
    float *rgbaf;
    uint32_t source_channels; /* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA */
    uint32_t source_bits;     /* bits per channel in the file: 1..16, 32 for HDR */
    const char *format;       /* "png", "jpeg", "tga", "bmp", "hdr" */
} ir_decoded_image;

void ir_decoded_image_free(ir_decoded_image *image);

/* A mesh's vertices in their cooked encoding (docs/formats/kmesh.md), from
 * encode_mesh_vertices to write_kmesh: which IR streams exist decides which
 * attributes the layout declares. */
typedef struct encoded_vertices {
    kiln_vertex_attribute attributes[KILN_SEMANTIC_COUNT_];
    uint32_t attribute_count;
    uint32_t stride; /* bytes per vertex, of all attributes */
    bool streams;    /* KILN_MESH_FLAG_STREAMS: one stream per attribute */
    /* Positions as unorm16 (mesh.quantize_positions) decode to
     * offset + scale * q / 65535 over level 0's box; floats: 0 and 1. */
    float position_offset[3];
    float position_scale[3];
    /* Level 0's box and sphere (geometry_bounds_on), for the quantiser and
     * the mesh descriptor: one pass over the indices serves both. */
    float aabb_min[3], aabb_max[3], sphere[4];
    uint8_t *data; /* vertex_count * stride bytes, interleaved or streams */
    size_t size;
} encoded_vertices;

#endif /* KILN_COOK_CORE_IR_H */
