/*
 * settings.c — the configuration vocabulary (DESIGN.md): one table of the
 * settings keys, from which the defaults, the settings JSON and the kiln.yml
 * parser (src/build/config.c) all derive.
 */
#include <math.h>
#include <string.h>

#include "cook/core/core.h"

const char *const cook_texture_format_names[] = {
    [COOK_FORMAT_AUTO] = "auto",         [COOK_FORMAT_RGBA8] = "rgba8",
    [COOK_FORMAT_BC1] = "bc1",           [COOK_FORMAT_BC3] = "bc3",
    [COOK_FORMAT_BC4] = "bc4",           [COOK_FORMAT_BC5] = "bc5",
    [COOK_FORMAT_BC6H] = "bc6h",         [COOK_FORMAT_BC7] = "bc7",
    [COOK_FORMAT_ASTC_4X4] = "astc-4x4", [COOK_FORMAT_ASTC_5X5] = "astc-5x5",
    [COOK_FORMAT_ASTC_6X6] = "astc-6x6", [COOK_FORMAT_ASTC_8X8] = "astc-8x8",
    [COOK_FORMAT_UASTC] = "uastc",       [COOK_FORMAT_UASTC + 1] = NULL,
};
const char *const cook_quality_names[] = {
    [COOK_QUALITY_FAST] = "fast",   [COOK_QUALITY_NORMAL] = "normal", [COOK_QUALITY_BEST] = "best",
    [COOK_QUALITY_DRAFT] = "draft", [COOK_QUALITY_DRAFT + 1] = NULL,
};
const char *const cook_texture_target_names[] = {
    [COOK_TARGET_DESKTOP] = "desktop",
    [COOK_TARGET_MOBILE] = "mobile",
    [COOK_TARGET_MOBILE + 1] = NULL,
};

const char *const cook_block_align_names[] = {
    [COOK_BLOCK_ALIGN_PAD] = "pad",
    [COOK_BLOCK_ALIGN_RESIZE] = "resize",
    [COOK_BLOCK_ALIGN_NONE] = "none",
    [COOK_BLOCK_ALIGN_NONE + 1] = NULL,
};

const char *const cook_uastc_rdo_names[] = {
    [COOK_UASTC_RDO_OFF] = "off",       [COOK_UASTC_RDO_LOW] = "low",
    [COOK_UASTC_RDO_NORMAL] = "normal", [COOK_UASTC_RDO_HIGH] = "high",
    [COOK_UASTC_RDO_HIGH + 1] = NULL,
};

const char *const cook_container_compress_names[] = {
    [COOK_CONTAINER_COMPRESS_NONE] = "none",
    [COOK_CONTAINER_COMPRESS_FAST] = "fast",
    [COOK_CONTAINER_COMPRESS_SMALL] = "small",
    [COOK_CONTAINER_COMPRESS_SMALL + 1] = NULL,
};

const char *const cook_shader_target_names[] = {"vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3",
                                                NULL};
const char *const cook_shader_optimize_names[] = {
    [COOK_SHADER_OPTIMIZE_PERFORMANCE] = "performance",
    [COOK_SHADER_OPTIMIZE_SIZE] = "size",
    [COOK_SHADER_OPTIMIZE_NONE] = "none",
    [COOK_SHADER_OPTIMIZE_NONE + 1] = NULL,
};
const char *const cook_shader_language_names[] = {
    [COOK_SHADER_LANGUAGE_AUTO] = "auto",
    [COOK_SHADER_LANGUAGE_GLSL] = "glsl",
    [COOK_SHADER_LANGUAGE_HLSL] = "hlsl",
    [COOK_SHADER_LANGUAGE_HLSL + 1] = NULL,
};
const char *const cook_shader_vertex_layout_names[] = {
    [COOK_SHADER_VERTEX_LAYOUT_NONE] = "none",
    [COOK_SHADER_VERTEX_LAYOUT_KMESH] = "kmesh",
    [COOK_SHADER_VERTEX_LAYOUT_KMESH + 1] = NULL,
};
/* "auto", then kiln_shader_stage's names in order (value = stage + 1). */
const char *const cook_shader_stage_names[] = {
    "auto",     "vertex",       "tess_control", "tess_evaluation",
    "geometry", "fragment",     "compute",      "task",
    "mesh",     "raygen",       "any_hit",      "closest_hit",
    "miss",     "intersection", "callable",     NULL};

/* ENUM values are read and written as int. */
_Static_assert(sizeof(cook_texture_format) == sizeof(int) && sizeof(cook_quality) == sizeof(int) &&
                   sizeof(cook_shader_optimize) == sizeof(int) &&
                   sizeof(cook_texture_target) == sizeof(int) &&
                   sizeof(cook_block_align) == sizeof(int) &&
                   sizeof(cook_uastc_rdo) == sizeof(int) &&
                   sizeof(cook_mesh_simplifier) == sizeof(int) &&
                   sizeof(cook_vertex_cache) == sizeof(int) &&
                   sizeof(cook_container_compress) == sizeof(int),
               "settings enums are int-sized");

int cook_names_find(const char *const *names, const char *name) {
    for (int i = 0; name != NULL && names[i] != NULL; i++) {
        if (strcmp(names[i], name) == 0)
            return i;
    }
    return -1;
}

static const float default_lod_ratios[] = {0.5f, 0.25f};

#define FIELD(field)                                                                               \
    .offset = offsetof(cook_settings, field), .size = sizeof(((cook_settings *)0)->field)
/* A number macro as text, for descriptions that name a limit. */
#define SETTINGS_STRING_OF(x) #x
#define SETTINGS_STRING(x) SETTINGS_STRING_OF(x)
#define SETTING_BOOL(key, field, value, text)                                                      \
    {                                                                                              \
        .name = key, .type = COOK_SETTING_BOOL, FIELD(field), .default_value = value,              \
        .description = text                                                                        \
    }
#define SETTING_UINT(key, field, low, high, value, text)                                           \
    {                                                                                              \
        .name = key, .type = COOK_SETTING_UINT, FIELD(field), .min = low, .max = high,             \
        .default_value = value, .description = text                                                \
    }
#define SETTING_ENUM(key, field, table, value, text)                                               \
    {                                                                                              \
        .name = key, .type = COOK_SETTING_ENUM, FIELD(field), .names = table,                      \
        .default_value = value, .description = text                                                \
    }

/* shader.* keys: left out of the JSON at their defaults. */
#define SHADER_BOOL(key, field, value, text)                                                       \
    {                                                                                              \
        .name = key, .type = COOK_SETTING_BOOL, FIELD(field), .default_value = value,              \
        .description = text, .omit_default = true                                                  \
    }
#define SHADER_ENUM(key, field, table, value, text)                                                \
    {                                                                                              \
        .name = key, .type = COOK_SETTING_ENUM, FIELD(field), .names = table,                      \
        .default_value = value, .description = text, .omit_default = true                          \
    }

const char *const cook_up_axis_names[] = {
    [COOK_UP_Y] = "y",
    [COOK_UP_Z] = "z",
    [COOK_UP_Z + 1] = NULL,
};
const char *const cook_normals_mode_names[] = {
    [COOK_NORMALS_GENERATE] = "generate",
    [COOK_NORMALS_KEEP] = "keep",
    [COOK_NORMALS_ALWAYS] = "always",
    [COOK_NORMALS_ALWAYS + 1] = NULL,
};
const char *const cook_meshlet_builder_names[] = {
    [COOK_MESHLET_BUILDER_KILN] = "kiln",
    [COOK_MESHLET_BUILDER_MESHOPT] = "meshopt",
    [COOK_MESHLET_BUILDER_MESHOPT + 1] = NULL,
};
const char *const cook_mesh_simplifier_names[] = {
    [COOK_SIMPLIFIER_MESHOPT] = "meshopt",
    [COOK_SIMPLIFIER_KILN] = "kiln",
    [COOK_SIMPLIFIER_AUTO] = "auto",
    [COOK_SIMPLIFIER_AUTO + 1] = NULL,
};
const char *const cook_vertex_cache_names[] = {
    [COOK_VERTEX_CACHE_MESHOPT] = "meshopt",
    [COOK_VERTEX_CACHE_KILN] = "kiln",
    [COOK_VERTEX_CACHE_KILN + 1] = NULL,
};
const char *const cook_tangents_mode_names[] = {
    [COOK_TANGENTS_GENERATE] = "generate",
    [COOK_TANGENTS_KEEP] = "keep",
    [COOK_TANGENTS_NONE] = "none",
    [COOK_TANGENTS_NONE + 1] = NULL,
};
const char *const cook_vertex_layout_names[] = {
    [COOK_VERTEX_LAYOUT_INTERLEAVED] = "interleaved",
    [COOK_VERTEX_LAYOUT_STREAMS] = "streams",
    [COOK_VERTEX_LAYOUT_STREAMS + 1] = NULL,
};

const char *const cook_tolerance_names[] = {"rotation", "scale", "translation", "weights", NULL};

float *cook_tolerance_field(cook_anim_tolerance *tolerance, size_t name) {
    float *fields[] = {&tolerance->rotation, &tolerance->scale, &tolerance->translation,
                       &tolerance->weights};
    return name < 4 ? fields[name] : NULL;
}

bool cook_tolerance_valid(double value) {
    return isfinite(value) && value >= 0.0 && value <= 1e6;
}

/* Sorted by name: cook_settings_to_json writes the keys in this order. */
const cook_setting cook_setting_table[] = {
    {.name = "anim.quantize",
     .type = COOK_SETTING_BOOL,
     FIELD(anim_quantize),
     .default_value = false,
     .omit_default = true,
     .description = "store rotations in 48 bits (smallest three) and translations and scales in "
                    "16 bits a component within the channel's range"},
    {.name = "anim.reduce",
     .type = COOK_SETTING_TOLERANCE,
     FIELD(anim_reduce),
     .default_value = false,
     .omit_default = true,
     .description = "remove animation keys that interpolation reproduces within a tolerance: "
                    "false, true, a number, or {translation, rotation (radians), scale, weights}"},
    {.name = "asset.timeout",
     .type = COOK_SETTING_UINT,
     FIELD(asset_timeout),
     .min = 0,
     .max = COOK_ASSET_TIMEOUT_MAX,
     .default_value = COOK_ASSET_TIMEOUT_DEFAULT,
     .not_output = true,
     .description = "seconds one asset's whole cook may take (import.timeout, the importer's own "
                    "limit, applies within it) before it is stopped and the asset fails; 0: no "
                    "limit"},
    /* Left out of the JSON at none, so files cooked without it keep their bytes. */
    {.name = "container.compress",
     .type = COOK_SETTING_ENUM,
     FIELD(container_compress),
     .names = cook_container_compress_names,
     .default_value = COOK_CONTAINER_COMPRESS_NONE,
     .omit_default = true,
     .description = "compress the chunks of meshes, materials, scenes and animations for "
                    "shipping (meshopt codecs and Zstd; decoded at load): none, fast or small"},
    {.name = "import.timeout",
     .type = COOK_SETTING_UINT,
     FIELD(import_timeout),
     .min = 1,
     .max = COOK_IMPORT_TIMEOUT_MAX,
     .default_value = COOK_IMPORT_TIMEOUT_DEFAULT,
     .not_output = true,
     .description = "seconds an importer run in its own process (assimp) may take reading one "
                    "file before it is stopped and the asset fails"},
    {.name = "level.merge",
     .type = COOK_SETTING_BOOL,
     .omit_default = true,
     FIELD(level_merge),
     .default_value = false,
     .description = "a level's placed models inlined into its scene (one node tree, one mesh "
                    "table) instead of linked; the level's own merge: key wins"},
    {.name = "material.flags",
     .type = COOK_SETTING_TEXT,
     .omit_default = true,
     FIELD(material_flags),
     .description = "force material flags by material name: a list of PATTERN=FLAGS, flags "
                    "cast_shadows, receive_shadows, transparent, double_sided or no_ before one"},
    {.name = "material.overrides",
     .type = COOK_SETTING_TEXT,
     .omit_default = true,
     FIELD(material_overrides),
     .description = "change materials by name: a list of PATTERN: FIELD=VALUE ..., fields "
                    "base_color, metallic, roughness, emissive, normal_scale, "
                    "occlusion_strength, alpha_cutoff, SLOT_texture (an image or none), "
                    "normal_from_height, normal_strength"},
    {.name = "material.replace",
     .type = COOK_SETTING_TEXT,
     .omit_default = true,
     FIELD(material_replace),
     .description = "use standalone materials in place of a model's own by name: a map of "
                    "NAME: PATH.mat (a material name glob; the path relative to the input "
                    "folder)"},
    {.name = "mesh.lod_ratios",
     .type = COOK_SETTING_RATIOS,
     FIELD(mesh_lod_ratios),
     .count_offset = offsetof(cook_settings, mesh_lod_ratio_count),
     .max = KILN_MESH_MAX_LODS - 1,
     .default_value = sizeof default_lod_ratios / sizeof default_lod_ratios[0],
     .default_ratios = default_lod_ratios,
     .description = "triangle count of each reduced level as a fraction of the full mesh; "
                    "later levels halve"},
    SETTING_UINT("mesh.lods", mesh_lods, 0, KILN_MESH_MAX_LODS - 1, 2,
                 "reduced levels of detail built besides the full mesh"),
    SETTING_BOOL("mesh.merge", mesh_merge, false,
                 "bake static node transforms into one world-space mesh"),
    {.name = "mesh.meshlet_builder",
     .type = COOK_SETTING_ENUM,
     FIELD(mesh_meshlet_builder),
     .names = cook_meshlet_builder_names,
     .default_value = COOK_MESHLET_BUILDER_KILN,
     .omit_default = true,
     .description = "whose meshlet builder runs: kiln (kiln's own, about twice as fast) or "
                    "meshopt (meshoptimizer's); the same kind of meshlets"},
    {.name = "mesh.meshlet_triangles",
     .type = COOK_SETTING_UINT,
     FIELD(mesh_meshlet_triangles),
     .min = 4,
     .max = 512,
     .multiple_of = 4, /* meshoptimizer asserts it (meshopt_meshlet_limits_valid) */
     .default_value = 124,
     .description = "most triangles in one meshlet (a multiple of 4)"},
    SETTING_UINT("mesh.meshlet_vertices", mesh_meshlet_vertices, 3, 255, 64,
                 "most vertices in one meshlet"),
    SETTING_BOOL("mesh.meshlets", mesh_meshlets, true,
                 "split meshes into meshlets for mesh shaders and cluster culling"),
    {.name = "mesh.normals",
     .type = COOK_SETTING_ENUM,
     FIELD(mesh_normals),
     .names = cook_normals_mode_names,
     .default_value = COOK_NORMALS_GENERATE,
     .omit_default = true,
     .description = "vertex normals: generate (the source's, generated for a mesh without), "
                    "keep (the source's only) or always (generated for every mesh)"},
    SETTING_BOOL("mesh.quantize_positions", mesh_quantize_positions, false,
                 "store positions as 16-bit integers with a scale, not 32-bit floats"),
    {.name = "mesh.simplifier",
     .type = COOK_SETTING_ENUM,
     FIELD(mesh_simplifier),
     .names = cook_mesh_simplifier_names,
     .default_value = COOK_SIMPLIFIER_AUTO,
     .omit_default = true,
     .description =
         "what reduces the triangles of LODs: auto (kiln on submeshes of " SETTINGS_STRING(
             COOK_SIMPLIFIER_AUTO_TRIANGLES) " triangles or more, "
                                             "meshopt below), kiln (kiln's own quadric edge "
                                             "collapse) or meshopt "
                                             "(meshoptimizer's simplifier)"},
    {.name = "mesh.skin_influences",
     .type = COOK_SETTING_UINT,
     FIELD(mesh_skin_influences),
     .min = 4,
     .max = 8,
     .multiple_of = 4,
     .default_value = 4,
     .description = "joint influences kept per skinned vertex, the strongest: 4 or 8"},
    {.name = "mesh.tangents",
     .type = COOK_SETTING_ENUM,
     FIELD(mesh_tangents),
     .names = cook_tangents_mode_names,
     .default_value = COOK_TANGENTS_GENERATE,
     .omit_default = true,
     .description = "tangents: generate (the source's, generated under a normal map where "
                    "missing), keep (the source's only) or none"},
    {.name = "mesh.vertex_cache",
     .type = COOK_SETTING_ENUM,
     FIELD(mesh_vertex_cache),
     .names = cook_vertex_cache_names,
     .default_value = COOK_VERTEX_CACHE_KILN,
     .omit_default = true,
     .description = "whose vertex cache order level 0 and the LODs get: kiln (kiln's own, "
                    "1.3-2.4 times as fast) or meshopt (meshoptimizer's)"},
    {.name = "mesh.vertex_layout",
     .type = COOK_SETTING_ENUM,
     FIELD(mesh_vertex_layout),
     .names = cook_vertex_layout_names,
     .default_value = COOK_VERTEX_LAYOUT_INTERLEAVED,
     .omit_default = true,
     .description = "vertices in a .kmesh: interleaved (one vertex after another) or streams "
                    "(one tightly packed array per attribute)"},
    {.name = "scene.scale",
     .type = COOK_SETTING_TEXT,
     .omit_default = true,
     FIELD(scene_scale),
     .description = "a model's unit scale, a positive number (0.01: centimetres to metres); its "
                    "scene's root nodes are scaled, its vertices not"},
    {.name = "scene.up",
     .type = COOK_SETTING_ENUM,
     FIELD(scene_up),
     .names = cook_up_axis_names,
     .default_value = COOK_UP_Y,
     .omit_default = true,
     .description = "a model's up axis: y (as it is) or z (turned to Y-up at its scene's root "
                    "nodes)"},
    SHADER_BOOL("shader.debug", shader_debug, false,
                "keep debug information (source lines, names) in the SPIR-V"),
    {.name = "shader.defines",
     .type = COOK_SETTING_TEXT,
     .omit_default = true,
     FIELD(shader_defines),
     .description = "preprocessor definitions: a list of NAME or NAME=VALUE, or a map"},
    {.name = "shader.entry",
     .type = COOK_SETTING_TEXT,
     .omit_default = true,
     FIELD(shader_entry),
     .text_default = "main",
     .description = "entry point, GLSL and HLSL alike (default main)"},
    {.name = "shader.include_dirs",
     .type = COOK_SETTING_TEXT,
     .omit_default = true,
     FIELD(shader_include_dirs),
     .description = "folders (relative to the input root) searched for #include after the "
                    "including file's own"},
    SHADER_ENUM("shader.language", shader_language, cook_shader_language_names,
                COOK_SHADER_LANGUAGE_AUTO, "source language: auto (.hlsl is HLSL), glsl, hlsl"),
    SHADER_ENUM("shader.optimize", shader_optimize, cook_shader_optimize_names,
                COOK_SHADER_OPTIMIZE_PERFORMANCE, "SPIR-V optimisation: performance, size, none"),
    SHADER_ENUM("shader.stage", shader_stage, cook_shader_stage_names, 0,
                "the stage of a shader file: auto (from its name) or a stage name"),
    SHADER_ENUM("shader.target", shader_target, cook_shader_target_names, 3,
                "Vulkan version the SPIR-V is for: vulkan1.0 ... vulkan1.3"),
    {.name = "shader.variants",
     .type = COOK_SETTING_TEXT,
     .omit_default = true,
     FIELD(shader_variants),
     .description = "a list of define sets: one program per set, ref <shader>?<defines>"},
    SHADER_ENUM("shader.vertex_layout", shader_vertex_layout, cook_shader_vertex_layout_names,
                COOK_SHADER_VERTEX_LAYOUT_NONE,
                "check a vertex stage's inputs against: none, or kmesh (kiln's .kmesh attributes "
                "at location semantic - 1)"),
    SHADER_BOOL("shader.warnings_as_errors", shader_warnings_as_errors, false,
                "compiler warnings fail the shader"),
    SETTING_ENUM("texture.block_align", texture_block_align, cook_block_align_names,
                 COOK_BLOCK_ALIGN_PAD,
                 "a block-compressed texture whose size is not a whole number of blocks "
                 "(Direct3D and WebGPU refuse it): pad (repeat the edge), resize, or none"),
    SETTING_BOOL("texture.compress", texture_compress, true,
                 "GPU block compression; false keeps the texels exact (+ Zstd)"),
    {.name = "texture.fast_first",
     .type = COOK_SETTING_BOOL,
     FIELD(texture_fast_first),
     .default_value = true,
     .not_output = true,
     .description = "kiln watch publishes a changed compressed texture at draft quality first, "
                    "then at texture.quality once the watch is idle"},
    SETTING_ENUM("texture.format", texture_format, cook_texture_format_names, COOK_FORMAT_AUTO,
                 "what textures are stored as; auto picks by usage and texture.target"),
    SETTING_UINT("texture.max_dimension", texture_max_dimension, 1, 65536, 16384,
                 "largest width or height a source image may have; bigger ones are refused"),
    SETTING_UINT("texture.max_size", texture_max_size, 1, 65536, 4096,
                 "largest width or height cooked; bigger images are downscaled"),
    SETTING_BOOL("texture.mipmaps", texture_mipmaps, true, "generate the full mip chain"),
    SETTING_ENUM("texture.quality", texture_quality, cook_quality_names, COOK_QUALITY_NORMAL,
                 "block encoder effort: fast, normal, best, or draft (for iteration: BC7 with "
                 "one mode, several times faster than fast)"),
    SETTING_ENUM("texture.target", texture_target, cook_texture_target_names, COOK_TARGET_DESKTOP,
                 "what auto compresses for: desktop (BCn) or mobile (ASTC)"),
    {.name = "texture.target_psnr",
     .type = COOK_SETTING_UINT,
     FIELD(texture_target_psnr),
     .min = 0,
     .max = 99,
     .default_value = 0,
     .omit_default = true,
     .description = "dB of PSNR level 0 must reach: picks the smallest encoding that does (the "
                    "texture.uastc_rdo strength for uastc, else the cheapest texture.quality); "
                    "0: off"},
    {.name = "texture.uastc_rdo",
     .type = COOK_SETTING_ENUM,
     FIELD(texture_uastc_rdo),
     .names = cook_uastc_rdo_names,
     .default_value = COOK_UASTC_RDO_OFF,
     .omit_default = true,
     .description = "uastc: rate-distortion optimisation, smaller Zstd files for a bounded loss "
                    "of PSNR: off, low, normal, high"},
    /* BENCHMARKS.md: 2 is ~20% faster than 3, ~4.5% larger. Zstd reads 0 as
     * "its default" (3), so 0 is no level; negative levels are its fast modes. */
    {.name = "texture.zstd_level",
     .type = COOK_SETTING_INT,
     FIELD(texture_zstd_level),
     .min = -7,
     .max = 22,
     .zero_error = "0 is not a level; use -7 to -1 (fast) or 1 to 22",
     .default_value = 2,
     .description = "Zstd level of the KTX2 supercompression"},
};
const size_t cook_setting_count = sizeof cook_setting_table / sizeof cook_setting_table[0];

const cook_setting *cook_setting_find(const char *name) {
    for (size_t i = 0; i < cook_setting_count; i++) {
        if (strcmp(cook_setting_table[i].name, name) == 0)
            return &cook_setting_table[i];
    }
    return NULL;
}

bool cook_setting_is_group(const char *name) {
    size_t length = strlen(name);
    for (size_t i = 0; i < cook_setting_count; i++) {
        const char *key = cook_setting_table[i].name;
        if (strncmp(key, name, length) == 0 && key[length] == '.')
            return true;
    }
    return false;
}

long cook_setting_get(const cook_setting *key, const cook_settings *settings) {
    const void *value = (const char *)settings + key->offset;
    switch (key->type) {
    case COOK_SETTING_BOOL:
        return *(const bool *)value;
    case COOK_SETTING_TOLERANCE:
        return ((const cook_anim_tolerance *)value)->on;
    case COOK_SETTING_UINT:
        return (long)*(const uint32_t *)value;
    case COOK_SETTING_INT:
    case COOK_SETTING_ENUM:
        return *(const int *)value;
    case COOK_SETTING_RATIOS:
    case COOK_SETTING_TEXT:
        break;
    }
    return 0;
}

void cook_setting_set(const cook_setting *key, cook_settings *settings, long value) {
    void *field = (char *)settings + key->offset;
    switch (key->type) {
    case COOK_SETTING_BOOL:
        *(bool *)field = value != 0;
        break;
    case COOK_SETTING_TOLERANCE:
        *(cook_anim_tolerance *)field = (cook_anim_tolerance){
            .on = value != 0,
            .translation = COOK_ANIM_REDUCE_TRANSLATION,
            .rotation = COOK_ANIM_REDUCE_ROTATION,
            .scale = COOK_ANIM_REDUCE_SCALE,
            .weights = COOK_ANIM_REDUCE_WEIGHTS,
        };
        break;
    case COOK_SETTING_UINT:
        *(uint32_t *)field = (uint32_t)value;
        break;
    case COOK_SETTING_INT:
    case COOK_SETTING_ENUM:
        *(int *)field = (int)value;
        break;
    case COOK_SETTING_RATIOS:
    case COOK_SETTING_TEXT:
        break;
    }
}

float *cook_setting_ratios(const cook_setting *key, cook_settings *settings, uint32_t **count) {
    *count = (uint32_t *)(void *)((char *)settings + key->count_offset);
    return (float *)(void *)((char *)settings + key->offset);
}

void cook_setting_copy(const cook_setting *key, cook_settings *to, const cook_settings *from) {
    memcpy((char *)to + key->offset, (const char *)from + key->offset, key->size);
    if (key->type == COOK_SETTING_RATIOS)
        memcpy((char *)to + key->count_offset, (const char *)from + key->count_offset,
               sizeof(uint32_t));
}

void cook_settings_default(cook_settings *settings) {
    memset(settings, 0, sizeof *settings);
    for (size_t i = 0; i < cook_setting_count; i++) {
        const cook_setting *key = &cook_setting_table[i];
        if (key->type == COOK_SETTING_RATIOS) {
            uint32_t *count;
            float *ratios = cook_setting_ratios(key, settings, &count);
            *count = (uint32_t)key->default_value;
            memcpy(ratios, key->default_ratios, *count * sizeof *ratios);
        } else if (key->type != COOK_SETTING_TEXT) { /* TEXT: "" (memset) */
            cook_setting_set(key, settings, key->default_value);
        }
    }
}

void cook_setting_to_json(const cook_setting *key, const cook_settings *s, bytebuf *out) {
    long value = cook_setting_get(key, s);
    switch (key->type) {
    case COOK_SETTING_BOOL:
        bytebuf_printf(out, "%s", value ? "true" : "false");
        break;
    case COOK_SETTING_TOLERANCE: {
        cook_anim_tolerance t =
            *(const cook_anim_tolerance *)(const void *)((const char *)s + key->offset);
        if (!t.on) {
            bytebuf_printf(out, "false");
            break;
        }
        for (size_t n = 0; cook_tolerance_names[n] != NULL; n++)
            bytebuf_printf(out, "%s\"%s\":%.9g", n ? "," : "{", cook_tolerance_names[n],
                           (double)*cook_tolerance_field(&t, n));
        bytebuf_printf(out, "}");
        break;
    }
    case COOK_SETTING_UINT:
        bytebuf_printf(out, "%u", (unsigned)value);
        break;
    case COOK_SETTING_INT:
        bytebuf_printf(out, "%d", (int)value);
        break;
    case COOK_SETTING_ENUM:
        bytebuf_append_json_string(out, key->names[value]);
        break;
    case COOK_SETTING_TEXT:
        bytebuf_append_json_string(out, (const char *)s + key->offset);
        break;
    case COOK_SETTING_RATIOS: {
        const float *ratios = (const float *)(const void *)((const char *)s + key->offset);
        uint32_t count = *(const uint32_t *)(const void *)((const char *)s + key->count_offset);
        bytebuf_printf(out, "[");
        for (uint32_t r = 0; r < count; r++)
            bytebuf_printf(out, "%s%.9g", r ? "," : "", (double)ratios[r]);
        bytebuf_printf(out, "]");
        break;
    }
    }
}

void cook_settings_to_json(const cook_settings *s, bytebuf *out) {
    /* Keys sorted, fixed formatting: the text is part of cache keys. */
    bool first = true;
    for (size_t i = 0; i < cook_setting_count; i++) {
        const cook_setting *key = &cook_setting_table[i];
        long value = cook_setting_get(key, s);
        if (key->not_output)
            continue;
        if (key->omit_default &&
            (key->type == COOK_SETTING_TEXT ? ((const char *)s + key->offset)[0] == '\0'
                                            : value == key->default_value))
            continue;
        bytebuf_printf(out, "%s\"%s\":", first ? "{" : ",", key->name);
        first = false;
        cook_setting_to_json(key, s, out);
    }
    bytebuf_printf(out, first ? "{}" : "}");
}
