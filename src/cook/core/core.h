/*
 * core.h — what every stage and driver of the cooker shares, and nothing more:
 * small containers, diagnostics, the resolved settings, the context of the
 * asset being cooked, and its result.
 *
 *   util.c            bytebuf, string tables, strlist, paths, file reading, clock
 *   diag.c            per-asset diagnostics
 *   settings.c        the settings vocabulary: defaults, JSON, kiln.yml keys
 *   context.c         the asset being cooked: resolving and reading what it names
 *   result.c          what one asset produced: outputs, manifest entries, timings
 *   activity.c        what a cook is doing now, for a progress line
 *   triangulate.c     one polygon into triangles
 *   repair_normals.c  unusable source normals replaced by the faces'
 *   bounds.c          bounding box and sphere of indexed vertices
 *   ir.c, ir.h        the intermediate representation, built and freed
 *   parallel.c, parallel.h       the one thread pool
 *   shader_ir.c, shader_ir.h     a shader program's .kshader tables being built
 *   shader_defines.c, shader_defines.h   the NAME / NAME=VALUE grammar of
 *                     shader.defines and shader.variants
 *
 * core may use common/ and the runtime's public header (include/kiln), never a
 * stage or a driver.
 */
#ifndef KILN_COOK_CORE_CORE_H
#define KILN_COOK_CORE_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ascii.h"
#include "cook/core/ir.h"
#include "cook/core/parallel.h"
#include "kiln/kiln.h"

/* Bump with any change to cooked output (3: .kmat, textures; 4: cascaded LODs;
 * 5: mips halve exactly like the area filter, Zstd level 2, cubemaps;
 * 6: GPU block compression by default; 7: cubemaps block-compressed like 2D
 * textures; 8: BC1 normal/best may use the 3-colour mode on opaque blocks;
 * 9: mips sum texel pairs in float, not double: identical on the corpus, at
 * most 1 code apart where one value is over 2^29 times the other;
 * 10: BC7 normal estimates all 64 two-subset partitions, best refits its
 * winner from extended endpoint starts; 11: large submeshes simplified and
 * split into meshlets by spatial chunk; 12: kmesh version 3, submeshes with a
 * topology: points and lines are cooked; a model's textures are named after
 * their source image, not tex_<index>; Zstd is dropped where it does not make
 * a texture's levels smaller; block-compressed textures in whole blocks;
 * opacity maps merged into the base colour's alpha; every model also
 * writes a .kscene, and a texture named "scene" becomes scene_2;
 * 13: levels cook to a .kscene with an SLNK chunk; .kscene version 2, cameras,
 *     lights and instances;
 *     kmesh version 4: skin weights summing to exactly 65535, eight influences
 *     with mesh.skin_influences: 8; .kscene skin tables;
 *     a model with animations writes a .kanim, and a texture named "anim"
 *     becomes anim_2);
 * 14: kmesh version 5: morph target deltas (MDLT, MNAM); meshes with morph
 *     targets are not baked by mesh.merge; .kanim version 2: channels of a
 *     clip with equal times share them, anim.reduce and anim.quantize, clip
 *     errors; a model whose nodes draw morph targets writes a .kanim;
 *     assimp sources' animations are cooked to a .kanim; a push-constant
 *     block is named by its type, its variable in the new SPSI chunk);
 * 15: assimp sources: morph deltas of a part without that stream are 0 (were
 *     uninitialised), a number material key holding text is ignored, a colour
 *     of fewer than three values is absent, $tex.mapping / $tex.uvwsrc read
 *     their first value; orthographic far planes, vertical fields of view and
 *     node scales stay finite floats; MTL and assimp emissive at most
 *     FLT_MAX; AC3D subdivision past 65,536 faces lowered, not refused past
 *     2^20). */
#define KILN_ENCODER_VERSION 15u

/* Largest source or dependency file a cook reads. */
#define COOK_SOURCE_MAX_BYTES ((size_t)2 << 30) /* 2 GiB */

/* ---------------------------------------------------------------------------
 * Small containers, strings, files (core/util.c)
 * ------------------------------------------------------------------------- */

/* A growable byte buffer. Invariant: data is NULL only while cap == 0. After an
 * allocation failure `failed` is set and further appends are ignored. */
typedef struct bytebuf {
    uint8_t *data;
    size_t size;
    size_t cap;
    bool failed;
} bytebuf;

void bytebuf_append(bytebuf *buf, const void *data, size_t size);
void bytebuf_append_zeros(bytebuf *buf, size_t count);
void bytebuf_printf(bytebuf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bytebuf_append_json_string(bytebuf *buf, const char *text); /* quoted, escaped */
/* Text for a terminal or a log, as every diagnostic prints a file name:
 * control characters (newline, ESC, the C1 range), DEL and bytes that are
 * not valid UTF-8 become "\xNN"; valid UTF-8 is kept. The text stays
 * NUL-terminated past buf->size, as bytebuf_printf keeps it. */
void bytebuf_append_escaped(bytebuf *buf, const char *text);
/* The same into out[out_size] (always terminated, cut before an escape or a
 * character that does not fit); returns out. */
const char *cook_escape_to(char *out, size_t out_size, const char *text);
void bytebuf_free(bytebuf *buf);

/* Appends `text` (NULL: the empty string) and its NUL to a string table of a
 * cooked file (.kscene, .kanim, .kman, .kshader): *offset is where it starts,
 * *length its length without the NUL (length may be NULL). False, the table
 * unchanged, when the table would pass 4 GiB, which 32-bit offsets cannot
 * address. */
bool string_table_add(bytebuf *strings, const char *text, uint32_t *offset, uint32_t *length);

/* A list of owned strings. */
typedef struct strlist {
    char **items;
    size_t count;
    size_t cap;
} strlist;

bool strlist_push(strlist *list, const char *text);        /* copies text */
bool strlist_push_all(strlist *list, const strlist *from); /* copies every item */
bool strlist_contains(const strlist *list, const char *text);
void strlist_sort(strlist *list);
void strlist_free(strlist *list);

char *cook_strdup(const char *text); /* NULL on allocation failure */
/* Narrows a text file's bytes [*begin, *end) to its text: skips a UTF-8
 * byte-order mark and drops trailing DOS end-of-file markers (0x1a). */
void cook_text_trim(const unsigned char **begin, const unsigned char **end);

/* "dir/name" without a doubled '/'; a copy of the other when either is empty.
 * NULL on allocation failure. Caller frees. */
char *cook_path_join(const char *dir, const char *name);

/* Opens a regular file for reading without ever waiting: a FIFO, socket,
 * device or folder is refused ("a FIFO, not a regular file (not read)") before
 * it is read, and *info (may be NULL) receives its fstat. NULL with a reason
 * on failure. */
struct stat;
FILE *cook_open_regular(const char *path, struct stat *info, char *reason, size_t reason_size);

/* Reads a whole file into a NUL-terminated heap block. On failure returns false
 * and puts the OS reason into `reason`. Files above max_size are refused. */
bool cook_read_file(const char *path, size_t max_size, uint8_t **out, size_t *size, char *reason,
                    size_t reason_size);
/* Where an asset's output goes: output_root/<dir of source>/<stem><suffix>,
 * e.g. "models/crate.obj" + ".kmesh" -> "models/crate.kmesh". Caller frees. */
char *cook_output_path(const char *source_path, const char *suffix);

/* ---------------------------------------------------------------------------
 * Diagnostics (core/diag.c)
 *
 * Each asset collects its own messages (jobs run in parallel); the CLI prints
 * them compiler-style once the asset is done:  path:line: error: message
 * ------------------------------------------------------------------------- */

typedef struct cook_diag {
    bytebuf text; /* complete lines, each ending in '\n' */
    uint32_t errors;
    uint32_t warnings;
} cook_diag;

/* line 0 means "no line". `path` is the file the message is about. */
void diag_error(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* diag_error with the arguments in a va_list, for a caller's own variadic
 * reporter. */
void diag_verror(cook_diag *diag, const char *path, uint32_t line, const char *fmt, va_list args)
    __attribute__((format(printf, 4, 0)));
void diag_warning(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_note(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_free(cook_diag *diag);
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
} cook_texture_format;

/* texture.quality: the block encoders' effort. */
typedef enum cook_quality {
    COOK_QUALITY_FAST,
    COOK_QUALITY_NORMAL,
    COOK_QUALITY_BEST,
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

/* The names of the values, indexed by value, NULL-terminated: as written in
 * kiln.yml and in the settings JSON ("astc-6x6", "best", "mobile"). */
extern const char *const cook_texture_format_names[];
extern const char *const cook_quality_names[];
extern const char *const cook_texture_target_names[];
extern const char *const cook_block_align_names[];
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

typedef struct cook_settings {
    cook_anim_tolerance anim_reduce; /* off by default */
    bool anim_quantize;              /* 16-bit keys; off by default */
    bool mesh_merge;
    bool mesh_meshlets;
    uint32_t mesh_meshlet_vertices;
    uint32_t mesh_meshlet_triangles;
    uint32_t mesh_lods;            /* reduced levels, not counting level 0 */
    uint32_t mesh_lod_ratio_count; /* ratios given; later levels halve */
    float mesh_lod_ratios[KILN_MESH_MAX_LODS - 1];
    bool mesh_quantize_positions;
    uint32_t mesh_skin_influences; /* joints per skinned vertex: 4 or 8 */
    bool texture_compress;
    cook_texture_format texture_format;
    cook_quality texture_quality;
    cook_texture_target texture_target;
    cook_block_align texture_block_align;
    uint32_t texture_max_size;
    bool texture_mipmaps;
    uint32_t texture_max_dimension; /* decode limit per side (default 16384) */
    int texture_zstd_level;         /* Zstd level for KTX2 supercompression (default 2) */
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
    /* Not settings of the output (left out of the JSON and cache keys): */
    /* import.timeout, a settings key that does not change the output
     * (cook_setting.not_output): seconds an importer run in a child process
     * (assimp, import/isolate_import.c) may take before it is stopped. */
    uint32_t import_timeout;
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
/* The settings as a JSON object, keys sorted: part of metadata and cache keys. */
void cook_settings_to_json(const cook_settings *settings, bytebuf *out);
/* How a texture is used decides its colour space, channels and mip filter. */
typedef enum cook_texture_usage {
    COOK_TEXTURE_COLOR = 1, /* base colour, emissive, UI: sRGB RGBA8 */
    COOK_TEXTURE_DATA,      /* metallic-roughness / ORM / masks: linear RGBA8 */
    COOK_TEXTURE_NORMAL,    /* tangent-space normal map: linear, renormalised mips */
    COOK_TEXTURE_SINGLE,    /* one channel (AO, height, roughness): linear R8 */
    COOK_TEXTURE_HDR,       /* Radiance .hdr and other float data: RGBA16F */
} cook_texture_usage;

/* ---------------------------------------------------------------------------
 * One asset being cooked (core/context.c)
 * ------------------------------------------------------------------------- */

/* What one cook is doing now, readable from another thread while it runs (the
 * CLI's progress line names the stage of an asset that takes long). Opaque:
 * its stage is an atomic, set by the drivers through the context
 * (cook_stage_enter) and read with one atomic load (cook_activity_stage). */
typedef struct cook_activity cook_activity;

typedef struct cook_context {
    const char *input_root;  /* as given on the command line */
    const char *source_path; /* relative to input_root, '/'-separated */
    const char *ref;         /* canonical ref of source_path */
    const uint8_t *source;   /* the source file's bytes, NUL-terminated */
    size_t source_size;
    /* The buffer behind `source` when the context owns it (cook_asset), so
     * that a driver done with the bytes can free them early
     * (cook_release_source); NULL otherwise. */
    uint8_t *source_buffer;
    const cook_settings *settings;
    cook_diag *diag;
    strlist dependencies;    /* paths relative to input_root, recorded by import */
    strlist references;      /* other source assets it names, cooked on their own */
    strlist absent;          /* paths it looked for that were not there (or not usable) */
    cook_activity *activity; /* the stage it is in, for whoever watches; may be NULL */
} cook_context;

/* Frees the source bytes of a context that owns them (source_buffer) once
 * the driver no longer needs them: a standalone texture after decoding, so
 * the file and the decoded image are not held together. source becomes NULL
 * and source_size 0. Nothing when the context does not own them. */
void cook_release_source(cook_context *ctx);

/* True when `full_path` (under `input_root`) really lies inside the root
 * after following symbolic links (realpath of both); also true when either
 * cannot be resolved (nonexistent: the open that follows reports it). The one
 * rule for dependencies and for the walk's links. */
bool cook_path_inside_root(const char *input_root, const char *full_path);

/* Reads a file a source refers to (an .mtl, a .bin, a texture). `relative` is
 * resolved against the source file's folder and must stay inside the input
 * root: an absolute path or one that climbs out is refused, never opened. On
 * success the dependency is recorded and *root_relative (may be NULL) receives
 * its path relative to the input root (caller frees). On failure an error is
 * NOT reported: the caller decides whether a missing file is fatal. A path
 * inside the root that was looked for and not found (or leads out through a
 * link) is recorded in ctx->absent: the build's cache must know that the
 * asset's output depends on that file not being there. */
bool cook_resolve_dependency(cook_context *ctx, const char *relative, char **root_relative,
                             char *reason, size_t reason_size);
bool cook_read_dependency(cook_context *ctx, const char *relative, uint8_t **data, size_t *size,
                          char *reason, size_t reason_size);

/* Records a dependency or reference that another process resolved (an
 * importer run in a child process, import/isolate_import.c): `root_relative`
 * must be exactly what cook_resolve_dependency returns for it (relative to the
 * input root, normalised, inside the root after links, existing). False with
 * a reason otherwise, and nothing is recorded. */
bool cook_record_dependency(cook_context *ctx, const char *root_relative, char *reason,
                            size_t reason_size);
bool cook_record_reference(cook_context *ctx, const char *root_relative, char *reason,
                           size_t reason_size);

/* Records a reference: another source asset this one names but does not
 * read or bake in (a level's models and prefabs). `relative` resolves like a
 * dependency and must exist inside the input root. `kiln build --roots`
 * follows references to decide what a root reaches; the referenced asset is
 * cooked on its own. False with a reason when it cannot be resolved. */
bool cook_add_reference(cook_context *ctx, const char *relative, char *reason, size_t reason_size);
/* As cook_resolve_dependency and cook_add_reference, but `relative` is
 * resolved against the folder of `base` (a path relative to the input root;
 * "" for the root itself) instead of the source's: a level's includes are
 * relative to the level that names them, its assets to the input root. */
bool cook_resolve_dependency_from(cook_context *ctx, const char *base, const char *relative,
                                  char **root_relative, char *reason, size_t reason_size);
bool cook_add_reference_from(cook_context *ctx, const char *base, const char *relative,
                             char **root_relative, char *reason, size_t reason_size);
/* ---------------------------------------------------------------------------
 * What one asset produced (core/result.c)
 * ------------------------------------------------------------------------- */

/* One ref an asset produced: which file (and row) holds it. */
typedef struct cook_manifest_entry {
    char *ref;     /* canonical ref, e.g. "props/crate/material_0" */
    char *path;    /* the cooked file, relative to the output root */
    uint64_t hash; /* kiln_ref_hash(ref) */
    kiln_asset_kind kind;
    kiln_color_space color_space;
    uint32_t index; /* row within the file (materials), else 0 */
} cook_manifest_entry;

typedef struct cook_manifest_list {
    cook_manifest_entry *items;
    size_t count;
    size_t cap;
} cook_manifest_list;

bool cook_manifest_add(cook_manifest_list *list, const char *ref, const char *path,
                       kiln_asset_kind kind, kiln_color_space color_space, uint32_t index);
/* Appends a copy of every entry of `from`. */
bool cook_manifest_add_all(cook_manifest_list *list, const cook_manifest_list *from);
void cook_manifest_list_free(cook_manifest_list *list);

typedef struct cook_request {
    const char *input_root;               /* folder of sources */
    const char *output_root;              /* folder of cooked files */
    const char *source_path;              /* relative to input_root, '/'-separated */
    const struct cook_importer *importer; /* its registry row (cook.h) */
    const cook_settings *settings;
    bool verify;             /* re-read and validate every file written */
    cook_activity *activity; /* where the cook reports its stage; NULL: nobody watches */
} cook_request;

/* Where a cook spends its time, measured per asset (cook_stage_add). */
typedef enum cook_stage {
    COOK_STAGE_IMPORT,  /* reading the source and its dependencies, parsing */
    COOK_STAGE_PROCESS, /* merge, checks, normals, weld, LODs, meshlets */
    COOK_STAGE_WRITE,   /* encoding the cooked files and writing them */
    COOK_STAGE_TEXTURE, /* texture decode → mips → KTX2, not split further yet */
    COOK_STAGE_COUNT
} cook_stage;

typedef struct cook_asset_result {
    bool ok;
    cook_diag diag;              /* messages about this asset, compiler-style lines */
    strlist outputs;             /* files written, relative to output_root */
    strlist dependencies;        /* files read besides the source, relative to input_root */
    strlist references;          /* source assets it names (cook_add_reference) */
    strlist absent;              /* paths it looked for and did not find (cook_context) */
    cook_manifest_list manifest; /* every ref this asset produced */
    uint64_t bytes_written;
    bool write_failed; /* an output could not be written (disk full, EFBIG): always an error */
    uint32_t meshes;
    uint32_t triangles;
    double stage_seconds[COOK_STAGE_COUNT];
} cook_asset_result;

/* A monotonic timestamp in seconds, and adding the time since one to a stage
 * (which returns the new timestamp, to chain stages). */
double cook_clock(void);
double cook_stage_add(cook_asset_result *result, cook_stage stage, double since);
/* "import", "process", "write", "texture": in reports and the progress line. */
const char *cook_stage_name(cook_stage stage);

/* ---------------------------------------------------------------------------
 * What a cook is doing now (core/activity.c)
 * ------------------------------------------------------------------------- */

/* NULL on allocation failure; a new activity is in no stage. */
cook_activity *cook_activity_create(void);
void cook_activity_destroy(cook_activity *activity);
/* The stage the cook is in, or COOK_STAGE_COUNT when it is in none. */
cook_stage cook_activity_stage(const cook_activity *activity);
/* Sets the stage (COOK_STAGE_COUNT: none); a NULL activity is ignored. */
void cook_activity_set(cook_activity *activity, cook_stage stage);
/* A driver entering a stage: ctx->activity says so from now on.
 * Test hook: KILN_TEST_SLOW_STAGE=<stage name>:<seconds> (e.g. "texture:3")
 * sleeps that long on entering that stage, so that a test can show a slow
 * asset without cooking one. Nothing else reads it. */
void cook_stage_enter(cook_context *ctx, cook_stage stage);

void cook_asset_result_free(cook_asset_result *result);

/* ---------------------------------------------------------------------------
 * Texels: the one 8-bit quantiser, which mips (process) and the uncompressed
 * formats (encode) must agree on to the bit
 * ------------------------------------------------------------------------- */

/* A 0..1 float to 8 bits: lrintf(255 v), clamped (NaN gives 0). Adding and
 * subtracting 1.5 * 2^23 rounds a float below 2^22 to an integer, half to
 * even, as lrintf does in the default rounding mode, without the library
 * call. */
static inline uint8_t image_float_to_unorm8(float v) {
    if (!(v > 0.0f))
        return 0;
    if (v >= 1.0f)
        return 255;
    return (uint8_t)((v * 255.0f + 12582912.0f) - 12582912.0f);
}

/* ---------------------------------------------------------------------------
 * Geometry the stages share (core/triangulate.c, repair_normals.c, bounds.c):
 * importers triangulate polygons and repair normals, the writer bounds what it
 * stores.
 * ------------------------------------------------------------------------- */

/* Triangulates one simple polygon (convex or concave, any winding) given its
 * corner positions (3 floats each). Writes (count - 2) triangles as corner
 * indices 0..count-1 into `triangles` and returns how many were written: fewer
 * only for degenerate input, where a fan fills the rest. */
uint32_t geometry_triangulate_polygon(const float *corners, uint32_t count, uint32_t *triangles);

/* Replaces the normal of every vertex v with bad[v] != 0 by the normalised,
 * area-weighted sum of the normals of the triangles (of the triangle
 * submeshes) using it (+Z when those are degenerate too, or when only lines
 * or points use it): what an importer does with a source's zero or non-finite
 * normals (core/repair_normals.c). */
void geometry_repair_normals(ir_mesh *mesh, const uint8_t *bad);

/* AABB of the vertices referenced by indices[0..count) (zero when empty). */
void geometry_aabb(const float *positions, const uint32_t *indices, uint32_t index_count,
                   float aabb_min[3], float aabb_max[3]);
/* geometry_aabb and a bounding sphere around the box centre. */
void geometry_bounds(const float *positions, const uint32_t *indices, uint32_t index_count,
                     float aabb_min[3], float aabb_max[3], float sphere[4]);

#endif /* KILN_COOK_CORE_CORE_H */
