/*
 * inspect.h — the inspection room: what a cooked file holds and whether it
 * is right, read back through the runtime's views (kiln.h), with the
 * cooker's own decoders where the bytes must be decoded again.
 *
 *   quality.c    a texture's block modes and PSNR against its source
 *                (`kiln info --quality`)
 *   shader.c     a .kshader's SPIR-V validated and reflected again
 *                (`kiln check`); the names of shader interface types
 *   isolate_spirv.c  SPIRV-Tools and SPIRV-Cross in a child process, for
 *                shader.c and the shader driver (isolate_spirv.h)
 *   verify.c     a written file read back deeply, per kind (`kiln build
 *                --verify`, write/emit.c; `kiln check`)
 *   check.c      every check of one cooked file (`kiln check`)
 *   describe.c   what one cooked file holds (`kiln info`)
 *   decode.c     one image of a cooked texture as RGBA8 (`kiln extract`, the
 *                build report's thumbnails); png.c: RGBA8 as PNG bytes
 *
 * Uses the stages (import's image decoders, encode's block decoders,
 * process's SPIR-V reflection), core and common; write/emit.c uses it.
 * The CLI reaches it through cook.h.
 */
#ifndef KILN_COOK_INSPECT_INSPECT_H
#define KILN_COOK_INSPECT_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln.h"

/* ---------------------------------------------------------------------------
 * Shaders (shader.c)
 * ------------------------------------------------------------------------- */

/* Every stage's module through SPIRV-Tools' validator with the file's target,
 * and the reflection tables against the module (each stage's entry point),
 * both libraries in a child process (KILN_ISOLATE=0: here); `name` is the
 * file's, for messages. False with a reason at the first problem. */
bool inspect_shader(const kiln_shader_view *view, const char *name, char *reason,
                    size_t reason_size);

/* One line for `kiln info`'s listing: "2 stages (vertex main, fragment
 * main), 4048 bytes of SPIR-V, 2 bindings, target vulkan1.3"; false with
 * the problem. */
bool inspect_shader_summary(const char *path, char *out, size_t size, char *problem,
                            size_t problem_size);

/* A shader input's or output's type as kiln prints it: "float", "float3",
 * "float4x4" (base type, then vector size, or columns x rows). */
void inspect_shader_io_type(const kiln_shader_io *io, char *out, size_t size);

/* ---------------------------------------------------------------------------
 * Written files read back (verify.c)
 * ------------------------------------------------------------------------- */

/* A kiln container (.kmesh, .kmat, .kscene, .kanim, .kshader) mapped from
 * disk with its checksum verified and its view of `kind` taken deeply.
 * False with *error set otherwise. */
bool inspect_container_file(const char *full_path, kiln_asset_kind kind, kiln_error *error);
/* The same on up to `threads` threads (at most 2): the checksum and the deep
 * read of the view side by side, with the same verdict and the same error. */
bool inspect_container_file_on(unsigned threads, const char *full_path, kiln_asset_kind kind,
                               kiln_error *error);

/* KTX2 bytes under the runtime reader's rules, every level inflated to its
 * declared size in bounded memory. `name` names the file in *error. */
bool inspect_ktx2_bytes(const uint8_t *data, size_t size, const char *name, kiln_error *error);

/* The runtime's message without the "<file>: " it starts with, for printing
 * after "<path>: error: ". */
const char *inspect_error_detail(const kiln_error *error, const char *path);
/* An XTRA entry's object for people: "mesh", "material 2",
 * "texture 2/normal", "scene 0", "asset", "document". */
void inspect_extras_label(kiln_extras_object object, uint32_t index, char *out, size_t size);

/* ---------------------------------------------------------------------------
 * One cooked file checked (check.c)
 * ------------------------------------------------------------------------- */

/* Receives each problem of the file, a message without its path. */
typedef void (*inspect_problem_fn)(void *user, const char *message);

/* Runs the checks of `kind` on the cooked file at full_path: the container
 * and its checksum, every data value through the runtime's deep view, what
 * the reader leaves to tools (a skin's joints distinct, a skinned node draws
 * a mesh), the SPIR-V of a shader, the provenance metadata. A KTX2 is read
 * and every level inflated. Returns how many problems were reported. */
size_t inspect_check_file(const char *full_path, kiln_pack_kind kind, inspect_problem_fn problem,
                          void *user);

/* ---------------------------------------------------------------------------
 * Texture quality (quality.c)
 * ------------------------------------------------------------------------- */

/* What block compression cost one cooked texture (`kiln info --quality`). */
typedef struct cook_texture_quality {
    bool measured;               /* block-compressed: level 0 was examined */
    uint32_t modes[14];          /* BC7 (8) or BC6H (14) blocks of level 0 by mode */
    uint32_t mode_count;         /* 0 for other formats */
    char source[256];            /* the kilnSource the PSNR is against */
    char note[512];              /* why there is no PSNR, "" when there is */
    double psnr_rgb, psnr_alpha; /* < 0: not measured / no alpha channel */
    const char *psnr_channels;   /* what psnr_rgb covers: "RGB", "RG", "R" */
    char target[256];            /* the kilnTarget key: what target_psnr chose, or "" */
} cook_texture_quality;

/* Decodes level 0 of `view` and compares it with its source under
 * input_root. Never fails: what could not be measured is said in out->note. */
void inspect_texture_quality(const kiln_ktx2_view *view, const char *input_root,
                             cook_texture_quality *out);

/* ---------------------------------------------------------------------------
 * A cooked texture decoded (decode.c, png.c)
 * ------------------------------------------------------------------------- */

/* Which image of a texture: mip level, array layer (0 when not an array),
 * cubemap face (0..5, +X -X +Y -Y +Z -Z; 0 when not a cubemap). */
typedef struct inspect_texture_image {
    uint32_t level, layer, face;
    /* A UASTC texture's path to RGBA8: decoded directly (RGBA8, the zero
     * value), or transcoded to a GPU format and that decoded (`kiln extract
     * --via`). Ignored for other formats. */
    kiln_transcode_target via;
} inspect_texture_image;

/* width * height RGBA texels, rows top to bottom; owned. */
typedef struct inspect_rgba8_image {
    uint32_t width, height;
    uint8_t *rgba;
} inspect_rgba8_image;

/* Decodes one image of `view` to RGBA8, every format kiln writes: 8-bit
 * formats as stored (R8 gives (r,0,0,255), RG8 (r,g,0,255)); BC1-BC5, BC7
 * and ASTC LDR through the cooker's decoders; UASTC through
 * kiln_uastc_decode_rgba8 with UNORM8 interpolation (as Basis Universal's
 * unpack and --quality decode it), or with `which->via` transcoded by
 * kiln_uastc_transcode and decoded as that format (the texture's sRGB-ness
 * choosing ASTC's interpolation); sRGB values kept as stored (no
 * conversion to linear); float formats (RGBA16F, BC6H, ASTC HDR) with RGB
 * tone-mapped as block_tonemap does (Reinhard, gamma 1/2.2) and alpha
 * clamped to 0..1. A 3D texture's slices are stacked top to bottom. False
 * with a reason for an unknown format ("unsupported format: ..."), an image
 * out of range (naming how many levels, faces or layers there are), an
 * image larger than kiln decodes or bytes that do not inflate. */
bool inspect_texture_decode(const kiln_ktx2_view *view, const inspect_texture_image *which,
                            inspect_rgba8_image *out, char *reason, size_t reason_size);
void inspect_rgba8_image_free(inspect_rgba8_image *image);

/* `image` shrunk so its longer side is at most max_side (each texel the
 * average of the box it covers; a smaller image is copied). False when out of
 * memory. */
bool inspect_rgba8_thumbnail(const inspect_rgba8_image *image, uint32_t max_side,
                             inspect_rgba8_image *out);

/* The image as PNG bytes (8-bit RGBA), malloc'd into *png. */
bool inspect_png_encode(const inspect_rgba8_image *image, uint8_t **png, size_t *png_size,
                        char *reason, size_t reason_size);

/* ---------------------------------------------------------------------------
 * The description of one cooked file (describe.c)
 * ------------------------------------------------------------------------- */

/* One clip of a .kanim. */
#define INSPECT_MAX_CLIPS 32 /* listed one by one; the file's totals count them all */
typedef struct inspect_clip {
    char name[128];
    uint32_t channels;
    uint64_t keys;
    float start, duration;
    uint32_t interpolations;    /* bit k: kiln_anim_interpolation k used */
    uint64_t bytes;             /* its channel records, times and values */
    char dropped[256];          /* what the source held that was not cooked */
    uint32_t quantized;         /* channels stored quantized */
    bool has_error;             /* the file records its error (version 2) */
    kiln_anim_clip_error error; /* worst error against the source */
} inspect_clip;

/* One scene of a .kscene: what its roots reach. */
#define INSPECT_MAX_SCENES 16 /* listed one by one; the file's totals count them all */
typedef struct inspect_scene_summary {
    char name[64];
    bool is_default;
    uint32_t roots, nodes, depth, mesh_nodes, cameras, lights, instances;
    uint32_t skinned; /* nodes whose mesh is skinned */
} inspect_scene_summary;

/* One skeleton (skin) of a .kscene: its joints' names, NUL-separated, as
 * many as fit. */
#define INSPECT_MAX_SKINS 16
typedef struct inspect_skin {
    char name[64];
    int32_t source;
    uint32_t joints, root_joint;
    uint32_t names_listed; /* joint names in `names` */
    char names[1024];
} inspect_skin;

/* One entity of a level's scene (kscene.md SLNK). */
typedef struct inspect_entity {
    char *name;
    char *parent; /* NULL for a root */
    float translation[3];
    char *places;     /* the ref of the scene it places, or NULL */
    char *components; /* JSON the cooker wrote, or NULL */
} inspect_entity;

/* One cooked file, as inspected (`kiln info`). */
typedef struct inspect_report {
    const char *path; /* as the caller names it */
    kiln_pack_kind kind;
    uint64_t bytes;
    /* A container with compressed chunks: how many, and its size with them
     * decoded (kiln_file_expanded_size); 0 and 0 otherwise. */
    uint32_t encoded_chunks;
    uint64_t decoded_bytes;
    bool readable;
    char problem[KILN_ERROR_MESSAGE_MAX + 64]; /* when !readable */
    kiln_mesh_desc mesh;                       /* KILN_PACK_MESH */
    kiln_vertex_attribute attributes[KILN_SEMANTIC_COUNT_];
    uint32_t attribute_count;
    char source[512]; /* from the META chunk; "" when absent */
    /* Summed over the submeshes of each topology: triangles, lines and points
     * per level of detail (level 0 first), and the submeshes. */
    uint64_t lod_primitives[KILN_TOPOLOGY_COUNT_][KILN_MESH_MAX_LODS];
    uint32_t topology_submeshes[KILN_TOPOLOGY_COUNT_];
    uint32_t lods_reused; /* levels that could not be reduced */
    uint64_t vertex_bytes, index_bytes, meshlet_bytes, morph_bytes;
    /* Morph target names, NUL-separated ("" for an unnamed target), for the
     * first morph_names_shown targets: as many as fit. */
    char morph_names[1024];
    uint32_t morph_names_shown;
    /* KILN_PACK_MANIFEST: refs per asset kind and per texture colour space. */
    uint32_t refs_per_kind[KILN_ASSET_KIND_COUNT_];
    uint32_t refs_per_color_space[KILN_COLOR_SPACE_COUNT_];
    uint32_t ref_count;
    uint32_t asset_id_count; /* assets with a stable ID (MIDS rows) */
    /* KILN_PACK_MATERIAL: rows, textured slots per slot, alpha modes. */
    uint32_t material_count;
    uint32_t slot_textures[KILN_MATERIAL_SLOT_COUNT];
    uint32_t alpha_modes[KILN_ALPHA_MODE_COUNT_];
    uint32_t double_sided;
    uint32_t cast_shadows, receive_shadows, transparent; /* rows with the flag */
    char material_names[1024]; /* "wood, glass, #2" (#row: no name); as many as fit */
    /* Rows material.replace took from a standalone material (MSRC), named like those. */
    uint32_t standalone_count;
    char standalone_names[512];
    /* "KHR_materials_clearcoat (2 materials: glass, #3), ..." from MDRP, "" when none */
    char dropped[1024];
    /* KILN_PACK_TEXTURE: the KTX2 header. */
    uint32_t tex_width, tex_height, tex_depth, tex_faces, tex_levels, tex_vk_format,
        tex_supercompression;
    uint32_t tex_layers;                            /* the KTX2 layerCount: 0 when not an array */
    uint64_t tex_uncompressed;                      /* all levels inflated */
    uint32_t tex_content_width, tex_content_height; /* kilnContentSize, else the size */
    uint32_t tex_block_width, tex_block_height;
    bool tex_whole_blocks; /* Direct3D and WebGPU can create it */
    double tex_bits_per_pixel;
    /* --quality, block-compressed textures: modes of level 0's blocks (BC7:
     * 0..7, BC6H: 0..13) and PSNR against the source when it is found. */
    cook_texture_quality tex; /* --quality */
    /* KILN_PACK_SCENE: the file's counts, then per scene of the file. */
    kiln_scene_desc scene;
    uint32_t scene_mesh_nodes; /* nodes that draw a mesh */
    inspect_scene_summary scenes[INSPECT_MAX_SCENES];
    /* A level's scene (it has SLNK): its entities, freed by
     * inspect_report_free. */
    inspect_entity *entities;
    uint32_t entity_count;
    /* KILN_PACK_SHADER: one line (inspect_shader_summary). */
    char shader[512];
    inspect_skin skins[INSPECT_MAX_SKINS];
    /* KILN_PACK_ANIM: the file's counts, then per clip. */
    kiln_anim_desc anim;
    inspect_clip clips[INSPECT_MAX_CLIPS];
    /* The XTRA chunk: "material 0 (extras, EXT_x), ..." as fits, and every
     * entry as a JSON object {label: its JSON} (NULL without extras; freed
     * by inspect_report_free). */
    uint32_t extras_count;
    char extras[512];
    char *extras_json;
} inspect_report;

/* Fills *report (zeroed first) for the cooked file at full_path, of `kind`
 * (KILN_PACK_OTHER: nothing is opened); `shown_path` becomes report->path.
 * With quality_input, a block-compressed texture's quality is measured
 * against its source under that folder. An unreadable file has
 * report->readable false and the reason in report->problem. */
void inspect_describe(const char *full_path, const char *shown_path, kiln_pack_kind kind,
                      const char *quality_input, inspect_report *report);
/* Frees what inspect_describe allocated (a level's entities). */
void inspect_report_free(inspect_report *report);
/* "linear+step" style list of a clip's interpolation kinds. */
void inspect_interpolation_list(uint32_t bits, char *out, size_t size);

#endif /* KILN_COOK_INSPECT_INSPECT_H */
