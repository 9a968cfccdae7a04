/*
 * drivers.h — one driver per asset kind, each calling the stages forward:
 *
 *   model.c    glTF / OBJ / assimp → IR → process → .kmesh, .kmat, textures
 *   model_materials.c  a model's material refs and the material.flags setting
 *   model_overrides.c  the material.overrides setting: factors, images, height maps
 *   texture.c  an image → decode → mips → encode → KTX2 (and the texture path
 *              the model and cubemap drivers share)
 *   texture_target.c  texture.target_psnr: the encoding that meets a PSNR
 *   cubemap.c  a "*.env" folder of six faces → one cubemap KTX2
 *   texture_array.c  a "*.array" folder of layers → one array KTX2
 *   lut.c      a ".cube" 3D LUT → a 3D RGBA16F KTX2
 *   level.c    a "*.level" (and what it includes) → .kscene placing models
 *   shader.c   GLSL / HLSL stages → SPIR-V, reflection → .kshader
 *   asset.c    cook_asset: read the source, call the row's driver
 *   registry.c which importer and driver claim which file
 *   output.c   the head and tail of a driver: stage, clock, output name, emit
 *   quality.c  `kiln info --quality`: what block compression cost a texture
 *   shader_check.c  `kiln check` on a .kshader
 *
 * Drivers may use the stages, core and common.
 */
#ifndef KILN_COOK_DRIVERS_DRIVERS_H
#define KILN_COOK_DRIVERS_DRIVERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/cook.h"
#include "cook/core/core.h"
#include "cook/core/shader_ir.h"
#include "cook/discover/discover.h"
#include "cook/encode/encode.h"
#include "cook/import/import.h"
#include "cook/process/process.h"
#include "cook/write/write.h"

/* ---------------------------------------------------------------------------
 * The drivers (the registry's rows name them)
 * ------------------------------------------------------------------------- */

/* A file a driver writes beside its source in one stage (output.c): every
 * driver's head and tail. */
typedef struct driver_output {
    cook_stage stage;
    double clock;   /* when the stage began */
    char *relative; /* the source's path, its extension replaced by the suffix */
} driver_output;

/* Enters `stage`, starts its clock and names the file; false, reported as out
 * of memory, when the name cannot be made (driver_output_end still counts
 * the time). */
bool driver_output_begin(cook_context *ctx, cook_stage stage, const char *suffix,
                         driver_output *out);
/* Emits `bytes` as the file (write_emit): a `kind` asset, its manifest entry
 * `ref` (NULL: the caller adds them), messages naming the source. */
bool driver_output_emit(const cook_request *request, cook_context *ctx, const driver_output *out,
                        kiln_asset_kind kind, const char *ref, const bytebuf *bytes,
                        cook_asset_result *result);
/* driver_output_emit of a file `produce` hands over as it is written, never
 * whole in memory (write_output.produce), `produce_size` bytes (0: not
 * known). */
bool driver_output_emit_produced(const cook_request *request, cook_context *ctx,
                                 const driver_output *out, kiln_asset_kind kind, const char *ref,
                                 write_producer produce, void *produce_arg, uint64_t produce_size,
                                 cook_asset_result *result);
/* Adds the stage's time to `result` and frees the name; returns `ok`. */
bool driver_output_end(driver_output *out, cook_asset_result *result, bool ok);

bool cook_model_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);

/* The parts of a model's scene the model driver writes, for a level that
 * inlines it (level_merge.c), so both give the same scene. After import
 * (and material.overrides): mesh.merge, the "nothing to cook" warning
 * (*has_scene false: no .kscene is written), a node per mesh of a source
 * without nodes, the node checks, scene.scale and scene.up. False after an
 * error. */
bool driver_model_scene(cook_context *ctx, ir_asset *asset, bool *has_scene);
/* The ref of mesh `mesh_index` of a source with `mesh_count` meshes. */
void driver_mesh_ref(const char *source_ref, uint32_t mesh_count, uint32_t mesh_index, char *out,
                     size_t size);
/* The hash of the material table a model's scene names (SMTL), 0 for none. */
uint64_t driver_model_material_table(const char *source_ref, const ir_asset *asset);
/* Whether a node draws a mesh with morph targets (its default weights go to
 * the .kanim, with the clips). */
bool driver_model_has_morph_nodes(const ir_asset *asset);

/* A model's leaves (model_materials.c). The .kmat's own ref is
 * <sourceRef>/materials (row 0 of the table: meshes and scenes find it by
 * it); each row's is <sourceRef>/<leaf>. */
#define DRIVER_LEAF_MAX 64
#define DRIVER_MATERIAL_TABLE_LEAF "materials"
/* `text` lower-cased, anything but [a-z0-9-] turned into '_', cut to fit. */
void driver_leaf_from_text(const char *text, size_t length, char *out, size_t size);
/* Whether a leaf is one of a source's own: scene, anim, materials, mesh_N,
 * material_N. */
bool driver_leaf_is_reserved(const char *leaf);
/* Each row's leaf: its name made a leaf, unless it has none, another row's
 * name makes the same leaf, it is reserved or one of `taken` (the texture
 * names): then material_<row>. False when out of memory. */
bool driver_material_leaves(const ir_asset *asset, const char *const *taken, size_t taken_count,
                            char (*leaves)[DRIVER_LEAF_MAX]);
/* Applies the material.flags setting to the rows (flags_on / flags_off);
 * false, with an error, for a line that is not PATTERN=FLAGS. */
bool driver_material_flags(cook_context *ctx, ir_asset *asset, char (*leaves)[DRIVER_LEAF_MAX]);
/* Applies the material.overrides setting (model_overrides.c) to the rows
 * of a model just imported, before its meshes are processed (a normal map
 * added there asks for tangents): factors, a slot's image replaced or
 * removed, a normal map made from a height map. False, with an error naming
 * the line, for a line or value that is not valid or an image that cannot
 * be read. */
bool driver_material_overrides(cook_context *ctx, ir_asset *asset);
/* One material.flags word ("cast_shadows", "no_transparent", ...) into
 * on/off bits; false for a word that is not a flag. */
bool driver_material_flag_word(const char *word, size_t length, uint32_t *on, uint32_t *off);

/* A material table and its textures (model.c): <stem>.kmat beside the
 * source, one KTX2 per image a slot uses at <stem>/<name>.ktx2 under ref
 * <sourceRef>/<name>, material.flags applied. */
typedef struct driver_material_table {
    const char *table_ref;        /* the table's manifest ref; NULL: <sourceRef>/materials */
    bool row_refs;                /* each row also as <sourceRef>/<leaf> */
    bool textures_required;       /* a texture that cannot be cooked fails the asset */
    const uint64_t *row_textures; /* NULL, or per row and slot the texture ref hash of a slot
                                     without an image of the asset's own (material.replace) */
} driver_material_table;
bool driver_cook_materials(const cook_request *request, cook_context *ctx, ir_asset *asset,
                           const driver_material_table *table, cook_asset_result *result);
/* The texture ref hashes (rows x KILN_MATERIAL_SLOT_COUNT, 0 for an empty
 * slot) driver_cook_materials gives `asset`'s slots when cooked under
 * `source_ref`, without cooking: what a model sharing a standalone
 * material's textures references. False when out of memory. */
bool driver_material_texture_refs(const char *source_ref, const ir_asset *asset, uint64_t *hashes);

/* Standalone materials (material.c): a "*.mat" file (import/mat.h) → a
 * one-row .kmat under the file's own ref, its textures cooked as a model's
 * are (<stem>/<name>.ktx2, ref <sourceRef>/<name>); an image that is missing
 * or cannot be cooked is an error naming it. */
bool cook_material_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);
/* material.replace for a model: every row whose source name (material_<i>
 * for an unnamed one) a NAME=PATH line matches (a glob; later lines win)
 * takes the standalone material PATH's values (its name kept), and
 * references its textures and, in the .kmat's MSRC, its ref. *shared gets
 * per row and slot the texture hashes to use (NULL when nothing was
 * replaced; the caller frees). False after an error naming the line or the
 * .mat. */
bool driver_material_replace(cook_context *ctx, ir_asset *asset, uint64_t **shared);

/* A .cube 3D LUT as a 3D RGBA16F KTX2 (N x N x N, one level), lut.c. */
bool cook_lut_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);
/* The cubemap driver (cubemap.c): request->source_path is a "*.env" folder
 * holding px/nx/py/ny/pz/nz images (any decodable extension). Cooks one
 * 6-face KTX2 with full mips, faces in KTX2 order +X -X +Y -Y +Z -Z, to
 * <folder without .env>.ktx2 under the folder's ref, in the format a 2D
 * texture gets: HDR usage when the faces are Radiance HDR, else colour
 * (BC7 sRGB by default). The six files become dependencies. */
bool cook_cubemap_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);
/* Its parts that take names and bytes, not the file system (fuzz_cubemap):
 * the face a file name of the folder is (0..5 in KTX2 order), -1 when it is
 * not a face image; the six faces picked from the folder's sorted file names
 * (faces[f] allocated; false with an error for a face given twice or
 * missing); one face decoded with texture.max_dimension and checked against
 * +X (`first`, NULL for +X itself): square, the same size, all HDR or all
 * LDR (false with an error naming `face_path`). */
#define CUBEMAP_FACES 6u
typedef struct cubemap_face_shape {
    uint32_t size; /* width = height */
    bool hdr;
} cubemap_face_shape;
int cubemap_face_of(const char *name);
bool cubemap_pick_faces(cook_context *ctx, const strlist *names, char *faces[CUBEMAP_FACES]);
bool cubemap_decode_face(cook_context *ctx, const uint8_t *bytes, size_t size,
                         const char *face_path, uint32_t f, const cubemap_face_shape *first,
                         ir_decoded_image *out);
/* The texture array driver (texture_array.c): request->source_path is a
 * "*.array" folder whose image files, or whose "*.env" cubemap folders, are
 * the layers, in byte order of their names. Cooks one KTX2 array texture
 * (layerCount = layers; a cubemap array when the layers are cubemaps) to
 * <folder without .array>.ktx2 under the folder's ref, in the format a 2D
 * texture named like the folder gets (HDR when the layers are Radiance HDR).
 * The layer files become dependencies. */
#define TEXTURE_ARRAY_MAX_LAYERS 2048u
bool cook_texture_array_asset(const cook_request *request, cook_context *ctx,
                              cook_asset_result *result);
/* Its parts that take names, not the file system (test_texture_array): the
 * layers among the folder's sorted file list (`files`, relative to it):
 * image files directly in it, or the "*.env" folders the files are in
 * (*cubes true), sorted bytewise into `layers`; other files are warned about
 * and left out. Returns the layer count, or -1 with an error (no layers,
 * images and cubemaps mixed, more than TEXTURE_ARRAY_MAX_LAYERS). A decoded
 * layer checked against the first: the same size and both HDR or both LDR,
 * else false with an error naming `layer_path`, `first_path` and both
 * sizes. */
int texture_array_layer_names(cook_context *ctx, const strlist *files, strlist *layers,
                              bool *cubes);
bool texture_array_check_layer(cook_context *ctx, const char *layer_path,
                               const ir_decoded_image *image, const char *first_path,
                               const ir_decoded_image *first);
/* The level driver (level.c): a "*.level" YAML file (import/level.h) and the
 * levels it includes into <stem>.kscene, ref <sourceRef>/scene: one node per
 * entity linking its model's scene, components as JSON (kscene.md, SLNK). */
bool cook_level_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);
/* A merged level (level_merge.c: level.merge, or `merge: true`): the
 * entity nodes (`count`, parents first) with each placed model's nodes
 * inlined below its entity, one mesh table, as a .kscene into `out`.
 * `placed[k]` names node k's model (NULL: none) and where the level places
 * it; `links[k]` is node k's link, cleared for each model inlined (one that
 * cannot be is warned about and keeps its link). False after an error. */
typedef struct level_placement {
    const char *model; /* the model's source, relative to the input folder, or NULL */
    const char *file;  /* the level file placing it, and the line */
    uint32_t line;
} level_placement;
bool level_merge_scene(const cook_request *request, cook_context *ctx, const ir_node *nodes,
                       uint32_t count, write_scene_link *links, const level_placement *placed,
                       bytebuf *out);
/* The shader driver (shader.c): a stage file or a "*.shader" folder → one
 * .kshader per variant (docs/formats/kshader.md). */
bool cook_shader_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);

/* ---------------------------------------------------------------------------
 * Textures (texture.c): decode → process (resize, mips) → encode → KTX2
 * ------------------------------------------------------------------------- */

typedef struct cook_texture_source {
    const char *name;     /* for messages: a path, or "scene.glb image 3" */
    const uint8_t *bytes; /* the encoded image file (PNG, JPEG, TGA, BMP, HDR), or NULL
                             with an opacity image: white, the opacity image's size */
    size_t size;
    cook_texture_usage usage;
    float alpha_cutoff; /* > 0: keep alpha-test coverage at this cutoff in every mip */
    /* A separate opacity map (MTL map_d, assimp's opacity texture) merged into
     * the alpha channel, or NULL: its alpha where it has one that is not all
     * opaque, else its luminance, resampled to the image's size. */
    const char *opacity_name;
    const uint8_t *opacity_bytes;
    size_t opacity_size;
    /* bytes is ctx->source: cook_texture frees it (cook_release_source) once
     * decoded. src->bytes must not be read after cook_texture returns. */
    bool release_source;
} cook_texture_source;

/* Decodes, processes and writes one texture as KTX2 to output_root/out_path
 * (atomically, verified when `verify`), and records the output and a manifest
 * entry (`ref`, KILN_ASSET_TEXTURE, the usage's colour space) in `result`. On
 * failure reports to ctx->diag naming src->name and returns false; the caller
 * decides whether that fails the asset (a model's missing texture does not). */
bool cook_texture(cook_context *ctx, const char *output_root, const cook_texture_source *src,
                  const char *ref, const char *out_path, bool verify, cook_asset_result *result);

/* How one texture's levels are encoded: texture.quality and the UASTC RDO
 * lambda of its settings, or what texture.target_psnr chose. */
typedef struct texture_encoding {
    block_quality quality;
    float uastc_rdo;
    bool searched;  /* the target search ran (on the set's first image) */
    bool met;       /* it found a setting that meets the target */
    char note[256]; /* what it chose and why (KTX2 key kilnTarget), or "" */
} texture_encoding;

/* texture.target_psnr (texture_target.c): searches the encodings of
 * `level0` (format, size, 8-bit texels, threads) for the smallest one whose
 * PSNR against those texels meets the target, and sets enc's quality or
 * lambda and note; warns naming `name` when no setting meets it (the best
 * is kept). False, with an error, when out of memory. */
bool texture_meet_target(cook_context *ctx, const char *name, const block_image_desc *level0,
                         texture_encoding *enc);

/* Level `blocks` (size bytes) compressed as the KTX2 writer does at
 * zstd_level: its bytes; 0 when out of memory (texture_target.c). */
size_t texture_zstd_bytes(const uint8_t *blocks, size_t size, int zstd_level);

/* Standalone textures (the texture driver): the usage a file name asks for —
 * "*.n.*" normal, "*.ao.*" / "*.h.*" / "*.r.*" single-channel, "*.hdr" HDR,
 * anything else colour. cook_texture_asset cooks request->source_path (bytes
 * in ctx->source) to <dir>/<stem>.ktx2 ("crate.n.png" -> "crate.n.ktx2") under
 * the source's own ref. */
cook_texture_usage cook_texture_usage_for_path(const char *path);
bool cook_texture_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);

/* The decode limits the settings ask for (texture.max_dimension). */
image_limits texture_image_limits(const cook_settings *settings);

/* A texture image set: the images one KTX2 file holds, cooked through one
 * path (cook_texture_set). One image for a 2D texture, six for a cubemap's
 * faces in KTX2 order +X -X +Y -Y +Z -Z, one per layer of an array (six per
 * layer of a cubemap array, layer after layer), all the same size and all
 * HDR or all LDR (the caller checks). */
typedef struct texture_set {
    const char *name;   /* for messages: a path, or "scene.glb image 3" */
    const char *source; /* the KTX2 kilnSource key; NULL for none */
    cook_texture_usage usage;
    float alpha_cutoff; /* COLOR: > 0 keeps alpha-test coverage in every mip */
    ir_decoded_image *images;
    uint32_t count;  /* images: layers (at least 1) x faces (1 or 6) */
    uint32_t layers; /* the KTX2 layerCount: 0 when not an array */
    /* Optional: each image decoded when its turn comes, so one is held at a
     * time (a cubemap's faces). `images` then hold what the format is
     * chosen from (texture_image_outline), and `load` fills image `index`,
     * or reports and returns false. */
    bool (*load)(void *user, uint32_t index, ir_decoded_image *out);
    void *load_user;
} texture_set;

/* What cook_texture_set chooses a format from, without the texels: a 1x1
 * image as opaque as `image` (one texel, alpha 255 or 0; none for HDR),
 * with its channel count and format. False when out of memory. */
bool texture_image_outline(const ir_decoded_image *image, ir_decoded_image *out);

/* Chooses one format for all images (texture.format/target/quality/compress:
 * opacity over all of them), builds each image's mip chain, encodes every
 * level of every image (block or uncompressed) and writes one KTX2 to
 * output_root/out_path (atomically, verified when `verify`), recording the
 * output and its manifest entry (`ref`, the format's colour space). Takes
 * the images' pixels (freed as each image is done; cook_image_free on them
 * stays safe). On failure reports to ctx->diag naming set->name. */
bool cook_texture_set(cook_context *ctx, const char *output_root, texture_set *set, const char *ref,
                      const char *out_path, bool verify, cook_asset_result *result);

/* Serialises `desc` as KTX2 and emits it (write_emit) under `ref` with colour
 * space `space`: the one write path of every texture (2D, cubemap, 3D LUT).
 * Messages name `name`. */
bool texture_write_file(cook_context *ctx, const ktx2_image_desc *desc, const char *name,
                        const char *output_root, const char *ref, const char *out_path, bool verify,
                        kiln_color_space space, cook_asset_result *result);

#endif /* KILN_COOK_DRIVERS_DRIVERS_H */
