/*
 * settings.h — the settings vocabulary (core/settings.c): its enums, the
 * resolved cook_settings, the table of keys kiln.yml and the settings JSON
 * are read and written by. Part of core.h; exported by cook.h: the build
 * engine resolves settings per asset from kiln.yml and hashes them into
 * cache keys, the CLI lists and checks them.
 */
#ifndef KILN_COOK_CORE_SETTINGS_H
#define KILN_COOK_CORE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/util.h"
#include "kiln/kiln.h"

/* ---------------------------------------------------------------------------
 * Settings (core/settings.c): the configuration vocabulary of DESIGN.md, resolved
 * per asset by the CLI from kiln.yml
 * ------------------------------------------------------------------------- */

/* texture.format: what a texture is stored as; `auto` picks by its usage and
 * texture.target (drivers/texture.c). */
typedef enum cook_texture_format {
    COOK_FORMAT_AUTO,
    COOK_FORMAT_RGBA8, /* uncompressed */
    COOK_FORMAT_BC1,
    COOK_FORMAT_BC3,
    COOK_FORMAT_BC4,
    COOK_FORMAT_BC5,
    COOK_FORMAT_BC6H,
    COOK_FORMAT_BC7,
    COOK_FORMAT_ASTC_4X4,
    COOK_FORMAT_ASTC_5X5,
    COOK_FORMAT_ASTC_6X6,
    COOK_FORMAT_ASTC_8X8,
    COOK_FORMAT_UASTC, /* UASTC 4x4: transcoded at load time to what the GPU takes */
} cook_texture_format;

/* texture.quality: the block encoders' effort. */
typedef enum cook_quality {
    COOK_QUALITY_FAST,
    COOK_QUALITY_NORMAL,
    COOK_QUALITY_BEST,
    /* For iteration: BC7 mode 6 alone (a single subset), the other encoders
     * at their fastest. Last, so the other values keep theirs. */
    COOK_QUALITY_DRAFT,
} cook_quality;

/* texture.target: what `auto` compresses for. */
typedef enum cook_texture_target {
    COOK_TARGET_DESKTOP, /* BCn */
    COOK_TARGET_MOBILE,  /* ASTC */
} cook_texture_target;

/* texture.block_align: what becomes of a block-compressed texture whose top
 * level is not a whole number of blocks (Direct3D and WebGPU refuse it;
 * Vulkan, Metal and OpenGL take it). */
typedef enum cook_block_align {
    COOK_BLOCK_ALIGN_PAD,    /* edge texels repeated up to the next block */
    COOK_BLOCK_ALIGN_RESIZE, /* resampled to the next multiple of the block */
    COOK_BLOCK_ALIGN_NONE,   /* kept at its size */
} cook_block_align;

/* mesh.normals and mesh.tangents (process/mesh.c): what becomes of the
 * source's normals and tangents. The first value of each is the default
 * (kiln's behaviour before the keys existed), left out of the settings JSON. */
typedef enum cook_normals_mode {
    COOK_NORMALS_GENERATE, /* the source's, generated where a mesh has none */
    COOK_NORMALS_KEEP,     /* the source's only: a mesh without stays without */
    COOK_NORMALS_ALWAYS,   /* generated for every mesh, the source's dropped */
} cook_normals_mode;
typedef enum cook_tangents_mode {
    COOK_TANGENTS_GENERATE, /* the source's, generated under a normal map where missing */
    COOK_TANGENTS_KEEP,     /* the source's only */
    COOK_TANGENTS_NONE,     /* none written, the source's dropped */
} cook_tangents_mode;
/* mesh.meshlet_builder (process/meshlets.c): whose greedy meshlet builder
 * runs. The first value is the default, left out of the settings JSON. */
typedef enum cook_meshlet_builder {
    COOK_MESHLET_BUILDER_KILN,    /* kiln's (process/meshlet_build.c) */
    COOK_MESHLET_BUILDER_MESHOPT, /* meshoptimizer's meshopt_buildMeshlets */
} cook_meshlet_builder;
extern const char *const cook_meshlet_builder_names[];
/* mesh.vertex_layout: how VTX0 holds the vertices (kmesh.md); interleaved,
 * the default, is left out of the settings JSON. */
typedef enum cook_vertex_layout {
    COOK_VERTEX_LAYOUT_INTERLEAVED, /* one vertex after another */
    COOK_VERTEX_LAYOUT_STREAMS,     /* one tightly packed stream per attribute */
} cook_vertex_layout;
/* scene.up: the source's up axis (kiln's, glTF's, is +Y). */
typedef enum cook_up_axis {
    COOK_UP_Y, /* as it is */
    COOK_UP_Z, /* turned -90 degrees about X: +Z becomes +Y */
} cook_up_axis;
extern const char *const cook_up_axis_names[];
/* mesh.simplifier: which simplifier reduces triangle LODs (process/lods.c). */
typedef enum cook_mesh_simplifier {
    COOK_SIMPLIFIER_MESHOPT, /* meshoptimizer's meshopt_simplify */
    COOK_SIMPLIFIER_KILN,    /* kiln's own (process/simplify.c) */
    COOK_SIMPLIFIER_AUTO,    /* kiln's on submeshes of COOK_SIMPLIFIER_AUTO_TRIANGLES
                                triangles or more, meshoptimizer's below */
} cook_mesh_simplifier;
/* Where mesh.simplifier auto turns to kiln's simplifier. On submeshes of a
 * few dozen triangles (the corpus's spider model) kiln's levels were up to
 * half again as far from the source as meshoptimizer's, and there the LOD
 * step's time is nothing; from a few hundred triangles on (Fox, 576) they
 * were as near or nearer on every corpus model, and from thousands on kiln's
 * takes less CPU (BENCHMARKS.md, "LODs"). */
#define COOK_SIMPLIFIER_AUTO_TRIANGLES 1024
extern const char *const cook_mesh_simplifier_names[];
/* mesh.vertex_cache: whose vertex cache order level 0 and the LOD levels get
 * (process/vertex_cache.c). */
typedef enum cook_vertex_cache {
    COOK_VERTEX_CACHE_MESHOPT, /* meshoptimizer's meshopt_optimizeVertexCache */
    COOK_VERTEX_CACHE_KILN,    /* kiln's own (process/vertex_cache.c) */
} cook_vertex_cache;
extern const char *const cook_vertex_cache_names[];
extern const char *const cook_normals_mode_names[];
extern const char *const cook_tangents_mode_names[];
extern const char *const cook_vertex_layout_names[];
/* texture.uastc_rdo: the strength of UASTC rate-distortion optimisation
 * (encode/uastc_rdo.c; uastc_rdo_lambda gives each its lambda). */
typedef enum cook_uastc_rdo {
    COOK_UASTC_RDO_OFF,
    COOK_UASTC_RDO_LOW,
    COOK_UASTC_RDO_NORMAL,
    COOK_UASTC_RDO_HIGH,
} cook_uastc_rdo;

/* container.compress: whether .kmesh, .kmat, .kscene and .kanim chunks are
 * written encoded (write/container_encode.c), and at which Zstd effort. */
typedef enum cook_container_compress {
    COOK_CONTAINER_COMPRESS_NONE,  /* as they are: mapped and used in place */
    COOK_CONTAINER_COMPRESS_FAST,  /* Zstd level 3 */
    COOK_CONTAINER_COMPRESS_SMALL, /* Zstd level 19 */
} cook_container_compress;
extern const char *const cook_container_compress_names[];

/* The names of the values, indexed by value, NULL-terminated: as written in
 * kiln.yml and in the settings JSON ("astc-6x6", "best", "mobile"). */
extern const char *const cook_texture_format_names[];
extern const char *const cook_quality_names[];
extern const char *const cook_texture_target_names[];
extern const char *const cook_block_align_names[];
extern const char *const cook_uastc_rdo_names[];
/* The value named `name` in a NULL-terminated `names` table, or -1. */
int cook_names_find(const char *const *names, const char *name);

/* shader.optimize and shader.language (drivers/shader.c). */
typedef enum cook_shader_optimize {
    COOK_SHADER_OPTIMIZE_PERFORMANCE,
    COOK_SHADER_OPTIMIZE_SIZE,
    COOK_SHADER_OPTIMIZE_NONE,
} cook_shader_optimize;
typedef enum cook_shader_language {
    COOK_SHADER_LANGUAGE_AUTO, /* .hlsl is HLSL, the rest GLSL */
    COOK_SHADER_LANGUAGE_GLSL,
    COOK_SHADER_LANGUAGE_HLSL,
} cook_shader_language;
extern const char *const cook_shader_target_names[];
extern const char *const cook_shader_optimize_names[];
extern const char *const cook_shader_language_names[];
extern const char *const cook_shader_stage_names[]; /* "auto", then kiln_shader_stage's */
/* shader.vertex_layout: what a vertex stage's inputs are checked against. */
typedef enum cook_shader_vertex_layout {
    COOK_SHADER_VERTEX_LAYOUT_NONE, /* not checked */
    COOK_SHADER_VERTEX_LAYOUT_KMESH /* kiln's .kmesh attributes at location semantic - 1 */
} cook_shader_vertex_layout;
extern const char *const cook_shader_vertex_layout_names[];

#define COOK_SHADER_NAME_MAX 64
#define COOK_SHADER_TEXT_MAX 1024

/* anim.reduce: off, or the largest error a removed key may cause per path. */
typedef struct cook_anim_tolerance {
    bool on;
    float translation; /* distance, scene units */
    float rotation;    /* angle, radians */
    float scale;       /* per component */
    float weights;     /* per morph weight */
} cook_anim_tolerance;
/* The tolerances `anim.reduce: true` means (README.md). */
#define COOK_ANIM_REDUCE_TRANSLATION 0.0001f
#define COOK_ANIM_REDUCE_ROTATION 0.0005f
#define COOK_ANIM_REDUCE_SCALE 0.0001f
#define COOK_ANIM_REDUCE_WEIGHTS 0.001f
/* import.timeout (seconds): its default and largest value (a day). */
#define COOK_IMPORT_TIMEOUT_DEFAULT 600
#define COOK_IMPORT_TIMEOUT_MAX 86400
/* asset.timeout (seconds; 0: none): its default and largest value. The
 * default leaves room for the slowest legitimate cook known, a 4096^2
 * texture at texture.quality best (about 14 CPU minutes, one core). */
#define COOK_ASSET_TIMEOUT_DEFAULT 1800
#define COOK_ASSET_TIMEOUT_MAX 86400

typedef struct cook_settings {
    cook_anim_tolerance anim_reduce; /* off by default */
    bool anim_quantize;              /* 16-bit keys; off by default */
    bool mesh_merge;
    bool level_merge; /* a level's placed models inlined (drivers/level_merge.c) */
    bool mesh_meshlets;
    cook_meshlet_builder mesh_meshlet_builder;
    uint32_t mesh_meshlet_vertices;
    uint32_t mesh_meshlet_triangles;
    uint32_t mesh_lods;            /* reduced levels, not counting level 0 */
    uint32_t mesh_lod_ratio_count; /* ratios given; later levels halve */
    float mesh_lod_ratios[KILN_MESH_MAX_LODS - 1];
    bool mesh_quantize_positions;
    cook_normals_mode mesh_normals;
    cook_tangents_mode mesh_tangents;
    cook_mesh_simplifier mesh_simplifier;
    cook_vertex_cache mesh_vertex_cache;
    cook_vertex_layout mesh_vertex_layout;
    cook_up_axis scene_up;
    char scene_scale[32]; /* a positive number as text ("0.01"); "" is 1 (drivers/model.c) */
    uint32_t mesh_skin_influences; /* joints per skinned vertex: 4 or 8 */
    cook_container_compress container_compress;
    bool texture_compress;
    cook_texture_format texture_format;
    cook_quality texture_quality;
    cook_texture_target texture_target;
    cook_block_align texture_block_align;
    uint32_t texture_max_size;
    bool texture_mipmaps;
    uint32_t texture_max_dimension;   /* decode limit per side (default 16384) */
    int texture_zstd_level;           /* Zstd level for KTX2 supercompression (default 2) */
    cook_uastc_rdo texture_uastc_rdo; /* UASTC rate-distortion strength (off) */
    uint32_t texture_target_psnr;     /* dB level 0 must reach; 0: off (drivers/target_psnr.c) */
    /* shader.* (drivers/shader.c) */
    int shader_target;        /* kiln_shader_target: vulkan1.0 .. vulkan1.3 */
    int shader_optimize;      /* cook_shader_optimize */
    int shader_language;      /* cook_shader_language */
    int shader_stage;         /* cook_shader_stage_setting: auto, or a kiln_shader_stage + 1 */
    int shader_vertex_layout; /* cook_shader_vertex_layout */
    bool shader_debug;
    bool shader_warnings_as_errors;
    char shader_entry[COOK_SHADER_NAME_MAX];        /* "" : main */
    char shader_defines[COOK_SHADER_TEXT_MAX];      /* NAME or NAME=VALUE, one per line */
    char shader_variants[COOK_SHADER_TEXT_MAX];     /* one define set per line, space-separated */
    char shader_include_dirs[COOK_SHADER_TEXT_MAX]; /* folders under the input root, per line */
    char material_flags[COOK_SHADER_TEXT_MAX];      /* PATTERN=FLAGS, one per line */
    /* PATTERN=FIELD=VALUE FIELD=VALUE..., one per line (drivers/model_overrides.c) */
    char material_overrides[COOK_SHADER_TEXT_MAX];
    char material_replace[COOK_SHADER_TEXT_MAX]; /* NAME=PATH.mat, one per line */
    /* Not settings of the output (left out of the JSON and cache keys): */
    /* import.timeout, a settings key that does not change the output
     * (cook_setting.not_output): seconds an importer run in a child process
     * (assimp, import/isolate_import.c) may take before it is stopped. */
    uint32_t import_timeout;
    /* texture.fast_first, also not_output: how `kiln watch` schedules a
     * texture's encodes (build/run.c), not what a cook writes. */
    bool texture_fast_first;
    /* asset.timeout, not an output setting either: the seconds one asset's
     * whole cook may take (core/budget.h); 0: no budget. */
    uint32_t asset_timeout;
    uint32_t threads; /* threads one asset may use (the -j count; core/parallel.h) */
    /* Triangles per chunk of a large submesh (process/chunks.c); 0 means
     * KILN_MESH_CHUNK_TRIANGLES. It does change the output: only tests set it,
     * to reach the chunked path with small meshes. */
    uint32_t mesh_chunk_triangles;
    char texture_format_origin[160]; /* who set texture.format, for messages ("" = default) */
} cook_settings;

/* How a settings key's value is written and stored. */
typedef enum cook_setting_type {
    COOK_SETTING_BOOL,   /* bool: true / false */
    COOK_SETTING_UINT,   /* uint32_t: a whole number from min to max */
    COOK_SETTING_INT,    /* int: a whole number from min to max */
    COOK_SETTING_RATIOS, /* float[]: up to max fractions in (0, 1], their count at count_offset */
    COOK_SETTING_ENUM,   /* an enum: one of names, the value is its index */
    COOK_SETTING_TEXT,   /* char[size]: text, lines separated by '\n' (config.c) */
    COOK_SETTING_TOLERANCE, /* cook_anim_tolerance: false, true, a number or a map (config.c) */
} cook_setting_type;

/* One key of the configuration vocabulary. */
typedef struct cook_setting {
    const char *name; /* "mesh.merge": in kiln.yml, the JSON, messages */
    cook_setting_type type;
    size_t offset;               /* of the value in cook_settings */
    size_t size;                 /* of the value (RATIOS: the whole array) */
    size_t count_offset;         /* RATIOS: of the uint32_t count of ratios */
    long min, max;               /* UINT, INT: the range; RATIOS: max is the most ratios */
    const char *zero_error;      /* UINT, INT: why 0 is refused though in range, else NULL */
    long multiple_of;            /* UINT: values must be multiples of it (0: any) */
    const char *const *names;    /* ENUM: the value names */
    long default_value;          /* BOOL (0/1), UINT, INT, ENUM; RATIOS: how many */
    const float *default_ratios; /* RATIOS */
    const char *description;     /* one line */
    /* TEXT: what the empty value means ("main" for shader.entry), which
     * kiln.yml may also spell out: it is read as the empty value, so writing
     * the default changes no setting. NULL: none. */
    const char *text_default;
    /* Left out of the settings JSON (so of metadata and cache keys) while at
     * its default: a group added later changes no other asset's output. */
    bool omit_default;
    /* Left out of the settings JSON at any value: a limit on how the asset is
     * cooked (import.timeout) that never changes what is written, so changing
     * it recooks nothing. */
    bool not_output;
} cook_setting;

/* Every settings key, sorted by name (the JSON's key order). Only these are
 * settings: threads, mesh_chunk_triangles and texture_format_origin are not.
 * import.timeout is a key but not in the JSON (not_output). */
extern const cook_setting cook_setting_table[];
extern const size_t cook_setting_count;

/* TOLERANCE: the tolerance names a map may hold ("translation", "rotation",
 * "scale", "weights"), NULL-terminated, and the field of each; false when
 * `value` is not a valid tolerance (finite, at least 0, at most 1e6). */
extern const char *const cook_tolerance_names[];
float *cook_tolerance_field(cook_anim_tolerance *tolerance, size_t name);
bool cook_tolerance_valid(double value);

/* The key named `name` ("mesh.lods"), or NULL. */
const cook_setting *cook_setting_find(const char *name);
/* True when `name` is the part before the dot of some key ("mesh"): kiln.yml
 * may nest a group's keys under it. */
bool cook_setting_is_group(const char *name);
/* BOOL, UINT, INT, ENUM: the value of `key` in `settings`, and setting it. */
long cook_setting_get(const cook_setting *key, const cook_settings *settings);
void cook_setting_set(const cook_setting *key, cook_settings *settings, long value);
/* RATIOS: the array of `key` in `settings` and its count. */
float *cook_setting_ratios(const cook_setting *key, cook_settings *settings, uint32_t **count);
/* Copies the value of `key` (for RATIOS, the count and the whole array). */
void cook_setting_copy(const cook_setting *key, cook_settings *to, const cook_settings *from);

/* Every key at its table default; everything else zero. */
void cook_settings_default(cook_settings *settings);
/* The value of `key` in `settings` as JSON (also a YAML flow value). */
void cook_setting_to_json(const cook_setting *key, const cook_settings *settings, bytebuf *out);
/* The settings as a JSON object, keys sorted: part of metadata and cache keys. */
void cook_settings_to_json(const cook_settings *settings, bytebuf *out);

#endif /* KILN_COOK_CORE_SETTINGS_H */
