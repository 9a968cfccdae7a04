/*
 * info.h — the pieces of `kiln info` (cmd_info.c): every file of the output
 * folder is inspected once into a file_report (info_inspect.c), then printed
 * as text (info_text.c) or appended to one JSON document (info_json.c); the
 * last build's messages come from the build cache (info_last_build.c).
 */
#ifndef KILN_CLI_INFO_H
#define KILN_CLI_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli.h"

struct json_t;

typedef struct info_options {
    const char *output;
    const char *input; /* --quality: where the textures' sources are */
    bool json;
    bool quiet; /* -q: totals (and unreadable files) only */
    bool unreferenced;
    bool quality;
    const char *file; /* `kiln info FILE`: that cooked file alone */
} info_options;

/* One clip of a .kanim. */
#define INFO_MAX_CLIPS 32 /* listed one by one; the file's totals count them all */
typedef struct clip_summary {
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
} clip_summary;

/* One scene of a .kscene: what its roots reach. */
#define INFO_MAX_SCENES 16 /* listed one by one; the file's totals count them all */
typedef struct scene_summary {
    char name[64];
    bool is_default;
    uint32_t roots, nodes, depth, mesh_nodes, cameras, lights, instances;
    uint32_t skinned; /* nodes whose mesh is skinned */
} scene_summary;

/* One skeleton (skin) of a .kscene: its joints' names, NUL-separated, as
 * many as fit. */
#define INFO_MAX_SKINS 16
typedef struct skin_summary {
    char name[64];
    int32_t source;
    uint32_t joints, root_joint;
    uint32_t names_listed; /* joint names in `names` */
    char names[1024];
} skin_summary;

/* One file of the output folder, as inspected. */
typedef struct file_report {
    const char *path; /* relative to the output folder */
    kiln_pack_kind kind;
    uint64_t bytes;
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
    /* KILN_PACK_MATERIAL: rows, textured slots per slot, alpha modes. */
    uint32_t material_count;
    uint32_t slot_textures[KILN_MATERIAL_SLOT_COUNT];
    uint32_t alpha_modes[KILN_ALPHA_MODE_COUNT_];
    uint32_t double_sided;
    char dropped[512]; /* "KHR_materials_clearcoat (2), ..." from MDRP, "" when none */
    /* KILN_PACK_TEXTURE: the KTX2 header. */
    uint32_t tex_width, tex_height, tex_depth, tex_faces, tex_levels, tex_vk_format,
        tex_supercompression;
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
    scene_summary scenes[INFO_MAX_SCENES];
    /* A level's scene (it has SLNK): one line per entity, and as JSON.
     * Freed after the file is printed. */
    bytebuf entities_text;
    struct json_t *entities; /* JSON array, NULL when not a level */
    /* KILN_PACK_SHADER: one line (cli_shader_summary). */
    char shader[512];
    skin_summary skins[INFO_MAX_SKINS];
    /* KILN_PACK_ANIM: the file's counts, then per clip. */
    kiln_anim_desc anim;
    clip_summary clips[INFO_MAX_CLIPS];
} file_report;

typedef struct info_totals {
    size_t files;
    uint64_t bytes;
    uint64_t vertices;
    uint64_t primitives[KILN_TOPOLOGY_COUNT_]; /* triangles, lines, points */
    size_t per_kind[KILN_PACK_KIND_COUNT_];
    size_t problems;
    size_t warned_assets, warnings; /* the last build's, from its cache */
} info_totals;

enum { OPTION_JSON = 256, OPTION_QUALITY, OPTION_UNREFERENCED };

/* Fills *report for the file `relative` of options->output (or, when
 * options->file is set, for that file itself, `relative` being its path);
 * an unreadable file is named on stderr. */
void info_inspect_file(const info_options *options, const char *relative, file_report *report);
void info_add_to_totals(info_totals *totals, const file_report *report);
/* "linear+step" style list of a clip's interpolation kinds. */
void info_interpolation_list(uint32_t bits, char *out, size_t size);

void info_print_file_text(const file_report *report);
void info_print_totals_text(const info_totals *totals, bool quiet);

/* A file_report as the JSON object of its file, and the totals (info_json.c). */
struct json_t *info_file_json(const file_report *report);
struct json_t *info_totals_json(const info_totals *totals);

struct kiln_cache; /* the build cache (cache.h) */

/* The output folder's build cache into *cache; false without one (no build
 * yet, or kiln clean), and with a note on stderr when it cannot be read. */
bool info_read_build_cache(const char *output, struct kiln_cache *cache);
/* The diagnostics of every cooked asset that has some, as text or, when
 * `last_build` (a JSON array) is given, appended to it as
 * {"source":..., "lines":[...]}. */
void info_list_build_diagnostics(const struct kiln_cache *cache, bool quiet,
                                 struct json_t *last_build, info_totals *totals);

#endif /* KILN_CLI_INFO_H */
