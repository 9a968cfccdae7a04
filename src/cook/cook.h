/*
 * cook.h — the cooker's stages and their entry points.
 *
 *   discover → import → process → encode → write
 *
 * Each stage lives in its own folder and talks to the next only through the IR
 * (ir.h) and the plain structs below. A grep for import_/process_/encode_/write_
 * shows the pipeline.
 */
#ifndef KILN_COOK_COOK_H
#define KILN_COOK_COOK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/ir.h"
#include "cook/parallel.h"
#include "kiln/kiln.h"

/* Bump with any change to cooked output (3: .kmat, textures; 4: cascaded LODs;
 * 5: mips halve exactly like the area filter, Zstd level 2, cubemaps;
 * 6: GPU block compression by default; 7: cubemaps block-compressed like 2D
 * textures; 8: BC1 normal/best may use the 3-colour mode on opaque blocks;
 * 9: mips sum texel pairs in float, not double: identical on the corpus, at
 * most 1 code apart where one value is over 2^29 times the other;
 * 10: BC7 normal estimates all 64 two-subset partitions, best refits its
 * winner from extended endpoint starts; 11: large submeshes simplified and
 * split into meshlets by spatial chunk). */
#define KILN_ENCODER_VERSION 11u

/* ---------------------------------------------------------------------------
 * Small containers (cook/util.c)
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
void bytebuf_free(bytebuf *buf);

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
/* Whether `text` ends with `suffix`, ASCII letters compared without case;
 * false for a NULL text. */
bool cook_ends_with_ci(const char *text, const char *suffix);

/* "dir/name" without a doubled '/'; a copy of the other when either is empty.
 * NULL on allocation failure. Caller frees. */
char *cook_path_join(const char *dir, const char *name);

/* Reads a whole file into a NUL-terminated heap block. On failure returns false
 * and puts the OS reason into `reason`. Files above max_size are refused. */
bool cook_read_file(const char *path, size_t max_size, uint8_t **out, size_t *size, char *reason,
                    size_t reason_size);

/* ---------------------------------------------------------------------------
 * Diagnostics (cook/diag.c)
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
void diag_warning(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_note(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_free(cook_diag *diag);

/* ---------------------------------------------------------------------------
 * Settings (the configuration vocabulary of DESIGN.md; parsed from kiln.yml by
 * the build-system work, defaults for now)
 * ------------------------------------------------------------------------- */

typedef struct cook_settings {
    bool mesh_merge;
    bool mesh_meshlets;
    uint32_t mesh_meshlet_vertices;
    uint32_t mesh_meshlet_triangles;
    uint32_t mesh_lods;            /* reduced levels, not counting level 0 */
    uint32_t mesh_lod_ratio_count; /* ratios given; later levels halve */
    float mesh_lod_ratios[KILN_MESH_MAX_LODS - 1];
    bool mesh_quantize_positions;
    bool texture_compress;
    char texture_format[16]; /* auto, rgba8, bc1 ... bc7, astc-4x4 ... astc-8x8 */
    char texture_quality[8]; /* fast, normal, best */
    char texture_target[8];  /* desktop (BCn) or mobile (ASTC): what `auto` picks */
    uint32_t texture_max_size;
    bool texture_mipmaps;
    uint32_t texture_max_dimension; /* decode limit per side (default 16384) */
    int texture_zstd_level;         /* Zstd level for KTX2 supercompression (default 2) */
    /* Not settings of the output (left out of the JSON and cache keys): */
    uint32_t threads; /* threads one asset may use (the -j count; cook/parallel.h) */
    /* Triangles per chunk of a large submesh (process/chunks.c); 0 means
     * KILN_MESH_CHUNK_TRIANGLES. It does change the output: only tests set it,
     * to reach the chunked path with small meshes. */
    uint32_t mesh_chunk_triangles;
    char texture_format_origin[160]; /* who set texture.format, for messages ("" = default) */
} cook_settings;

void cook_settings_default(cook_settings *settings);
/* The settings as a JSON object, keys sorted: part of metadata and cache keys. */
void cook_settings_to_json(const cook_settings *settings, bytebuf *out);

/* ---------------------------------------------------------------------------
 * One asset being cooked
 * ------------------------------------------------------------------------- */

typedef struct cook_context {
    const char *input_root;  /* as given on the command line */
    const char *source_path; /* relative to input_root, '/'-separated */
    const char *ref;         /* canonical ref of source_path */
    const uint8_t *source;   /* the source file's bytes, NUL-terminated */
    size_t source_size;
    const cook_settings *settings;
    cook_diag *diag;
    strlist dependencies; /* paths relative to input_root, recorded by import */
    strlist references;   /* other source assets it names, cooked on their own */
} cook_context;

/* Reads a file a source refers to (an .mtl, a .bin, a texture). `relative` is
 * resolved against the source file's folder and must stay inside the input
 * root: an absolute path or one that climbs out is refused, never opened. On
 * success the dependency is recorded and *root_relative (may be NULL) receives
 * its path relative to the input root (caller frees). On failure an error is
 * NOT reported: the caller decides whether a missing file is fatal. */
bool cook_resolve_dependency(cook_context *ctx, const char *relative, char **root_relative,
                             char *reason, size_t reason_size);
bool cook_read_dependency(cook_context *ctx, const char *relative, uint8_t **data, size_t *size,
                          char *reason, size_t reason_size);

/* Records a reference: another source asset this one names but does not
 * read or bake in (a level's models and prefabs). `relative` resolves like a
 * dependency and must exist inside the input root. `kiln build --roots`
 * follows references to decide what a root reaches; the referenced asset is
 * cooked on its own. False with a reason when it cannot be resolved. */
bool cook_add_reference(cook_context *ctx, const char *relative, char *reason, size_t reason_size);

/* ---------------------------------------------------------------------------
 * discover/ — importer registry and tree walk
 * ------------------------------------------------------------------------- */

typedef enum cook_asset_kind {
    COOK_KIND_MODEL = 1,
    COOK_KIND_TEXTURE = 2, /* standalone texture by naming convention (texture.c) */
    COOK_KIND_CUBEMAP = 3, /* a "*.env" folder of six faces (texture_cubemap.c) */
} cook_asset_kind;

/* Returns true on success; on failure it has reported errors to ctx->diag. */
typedef bool (*cook_import_fn)(cook_context *ctx, ir_asset *out);

typedef struct cook_importer {
    const char *name;            /* "obj" */
    const char *const *patterns; /* globs on the file name, NULL-terminated */
    cook_asset_kind kind;
    cook_import_fn import;
} cook_importer;

/* The importer for a path (matched on its file name, case-insensitively), or
 * NULL when no importer claims it. */
const cook_importer *discover_match(const char *relative_path);
/* The registry, for listing. */
const cook_importer *discover_importers(size_t *count);

/* Glob on one path component: '*' any run, '?' one char, case-insensitive. */
bool discover_glob_match(const char *pattern, const char *name);

/* Lists every regular file under `root` (relative paths, '/'-separated, sorted
 * bytewise), skipping hidden entries and any path under `exclude` (may be NULL,
 * relative to the working directory like root). */
bool discover_walk(const char *root, const char *exclude, strlist *files, char *reason,
                   size_t reason_size);
/* discover_walk for a build's sources: an asset folder (discover_is_asset_folder)
 * is listed as one entry, its own path, and its files are not listed. */
bool discover_walk_sources(const char *root, const char *exclude, strlist *files, char *reason,
                           size_t reason_size);
/* True when a folder's path names an asset folder: "*.env" (a cubemap). */
bool discover_is_asset_folder(const char *relative_path);

/* ---------------------------------------------------------------------------
 * import/
 * ------------------------------------------------------------------------- */

bool import_obj(cook_context *ctx, ir_asset *out);

/* glTF 2.0, .gltf (JSON with external or data: buffers) and .glb (import/gltf.c). */
bool import_gltf(cook_context *ctx, ir_asset *out);

/* Every other model format assimp reads: FBX, DAE, 3DS, PLY, STL … (import/assimp.c). */
bool import_assimp(cook_context *ctx, ir_asset *out);

/* Parses MTL text into materials appended to `materials`. `mtl_path` is for
 * messages and for resolving texture paths (relative to the input root). The
 * texture files become images of `images` (one per file, appended when new),
 * which the materials' texture refs index. */
bool import_mtl(cook_context *ctx, const char *mtl_path, const char *text, size_t size,
                ir_material **materials, uint32_t *material_count, ir_image **images,
                uint32_t *image_count);

/* A Phong-style material as MTL and most DCC formats describe it; each has_*
 * says whether the source gave that value (non-finite values count as absent).
 * MTL statement names in the comments. */
typedef struct import_phong {
    bool has_diffuse, has_emissive, has_opacity, has_transparency, has_shininess, has_roughness,
        has_metallic;
    double diffuse[3];   /* Kd */
    double emissive[3];  /* Ke */
    double opacity;      /* d */
    double transparency; /* Tr, used only without d */
    double shininess;    /* Ns, a Blinn-Phong exponent, used only without Pr */
    double roughness;    /* Pr */
    double metallic;     /* Pm */
    bool map_roughness;  /* textures[METALLIC_ROUGHNESS] carries roughness */
    bool map_metallic;   /* ... and metallic */
} import_phong;

/* The MTL → metallic-roughness conversion documented in import/mtl.c: sets
 * base_color, alpha_mode, roughness, metallic and emissive of `material`,
 * whose textures must already be set (an ALPHA map makes it BLEND; an EMISSIVE
 * map without an emissive colour makes emissive white). Shared by import_mtl
 * and import_assimp. */
void import_phong_to_pbr(const import_phong *phong, ir_material *material);

/* Scans the longest number at *cursor (before `end`) as OBJ/MTL text writes
 * it: optional sign, digits with optional fraction and exponent (".5", "-.5",
 * "1e-3"), or the nan/inf spellings exporters emit ("nan", "-inf", "1.#IND").
 * Correctly rounded. Returns false when no number starts there; on success
 * advances *cursor, and the caller checks that a separator follows. */
bool import_scan_number(const char **cursor, const char *end, double *out);

/* ---------------------------------------------------------------------------
 * process/
 * ------------------------------------------------------------------------- */

/* Triangulates one simple polygon (convex or concave, any winding) given its
 * corner positions (3 floats each). Writes (count - 2) triangles as corner
 * indices 0..count-1 into `triangles` and returns how many were written: fewer
 * only for degenerate input, where a fan fills the rest. */
uint32_t process_triangulate_polygon(const float *corners, uint32_t count, uint32_t *triangles);

/* Fills mesh->normals with angle-weighted smooth normals when it has none. */
bool process_generate_normals(ir_mesh *mesh);

/* Fills mesh->tangents (xyzw, bitangent = w * cross(normal, tangent)) with
 * MikkTSpace-compatible tangents from the normals and texcoords[texcoord_set],
 * when it has none and both streams exist (else leaves it NULL). May split
 * vertices whose corners need different frames (mirrored UVs): vertex_count
 * grows, every stream is copied and indices are rewritten. False only on
 * allocation failure, leaving the mesh valid. (process/tangents.c) */
bool process_generate_tangents(ir_mesh *mesh, uint32_t texcoord_set);

/* mesh.merge: replaces the asset's meshes with one world-space mesh baked from
 * every node that draws a (non-skinned) mesh, one submesh per material
 * (merge.c). An asset without such nodes is left as it is. */
bool process_merge_asset(ir_asset *asset, cook_diag *diag, const char *path);

/* Chunks (process/chunks.c): a submesh of at least two chunks' worth of
 * triangles is cut into spatially compact chunks of about
 * KILN_MESH_CHUNK_TRIANGLES triangles that the LOD and meshlet stages process
 * independently, in parallel. */
#define KILN_MESH_CHUNK_TRIANGLES 65536u

/* One chunk: a contiguous range of one submesh's level-0 indices. */
typedef struct mesh_chunk {
    uint32_t submesh;
    uint32_t index_offset;
    uint32_t index_count;
    bool split; /* the submesh has more than one chunk */
} mesh_chunk;

/* Triangles per LOD and meshlet chunk: settings->mesh_chunk_triangles or
 * KILN_MESH_CHUNK_TRIANGLES. */
uint32_t mesh_chunk_size(const cook_settings *settings);
/* How many chunks of about chunk_triangles a submesh of `triangles` triangles
 * is cut into (1: none, when it has less than two chunks' worth). */
uint32_t mesh_chunk_count(uint32_t triangles, uint32_t chunk_triangles);
/* Every submesh's chunks in submesh order (one per small submesh); caller
 * frees. NULL when out of memory. */
mesh_chunk *mesh_chunks(const ir_mesh *mesh, uint32_t chunk_triangles, uint32_t *count);
/* A copy of level 0 (every submesh's range) in which each submesh that is cut
 * into chunks is sorted spatially (mesh_sort_spatially); caller frees. */
uint32_t *mesh_spatial_level0(const ir_mesh *mesh, uint32_t chunk_triangles);
/* Reorders triangles along a Morton curve of their centroids (stable), so
 * contiguous ranges are spatially compact. False when out of memory. */
bool mesh_sort_spatially(const float *positions, uint32_t *indices, size_t index_count);

/* A chunk's triangles over a compact copy of the vertices they use. */
typedef struct mesh_local {
    uint32_t *indices; /* local vertex numbers */
    size_t index_count;
    uint32_t *vertices; /* local -> mesh vertex, in first-use order */
    float *positions;   /* xyz per local vertex */
    size_t vertex_count;
} mesh_local;

bool mesh_local_build(mesh_local *local, const uint32_t *indices, size_t index_count,
                      const float *positions);
/* Maps local vertex numbers back to the mesh's (in may equal out). */
void mesh_local_to_global(const mesh_local *local, const uint32_t *in, size_t count, uint32_t *out);
void mesh_local_free(mesh_local *local);

/* A step of the mesh stage cut into independent items, so that several steps
 * can share one parallel_for (process_mesh): *_begin plans (false when out of
 * memory), item(job, i) runs on any thread, *_finish assembles the items'
 * results in a fixed order, frees the job and returns false on failure. */
typedef struct mesh_step {
    void *job;
    uint32_t items;
    parallel_fn item;
    void (*discard)(void *job); /* frees a job that will not be finished */
} mesh_step;

/* LODs: one item per chunk; simplifies `level0` (mesh_spatial_level0, kept
 * alive until finish); finish takes level 0 itself from mesh->indices. */
bool lods_begin(const ir_mesh *mesh, const cook_settings *settings, const uint32_t *level0,
                mesh_step *step);
bool lods_finish(mesh_step *step, ir_mesh *mesh);
/* Meshlets of level 0 (`level0` as for LODs): one item per chunk. */
bool meshlets_begin(const ir_mesh *mesh, const cook_settings *settings, const uint32_t *level0,
                    mesh_step *step);
bool meshlets_finish(mesh_step *step, ir_mesh *mesh);
/* The order step's item: vertex cache then overdraw order of submesh `index`
 * of the ir_mesh `mesh`, in place. */
void order_submesh(void *mesh, uint32_t index);

/* Merges vertices that are identical in every stream (optimize.c). */
bool process_weld(ir_mesh *mesh);
/* Reorders each submesh's triangles for the vertex cache, then overdraw
 * (submeshes on settings->threads threads). */
bool process_optimize_order(ir_mesh *mesh, const cook_settings *settings);
/* Renumbers vertices in first-use order over all indices; drops unused ones
 * (meshlet vertex lists are renumbered too). */
bool process_optimize_fetch(ir_mesh *mesh);

/* Appends settings->mesh_lods reduced levels per submesh (lods.c). */
bool process_build_lods(ir_mesh *mesh, const cook_settings *settings);

/* Splits each submesh's level 0 into meshlets with bounds and cones (meshlets.c). */
bool process_build_meshlets(ir_mesh *mesh, const cook_settings *settings);

/* Order, LODs and meshlets (as the settings ask) in one parallel pass over
 * the welded mesh (mesh.c): LODs and meshlets come from level 0 as the weld
 * left it, while the order step reorders level 0 itself. Run
 * process_optimize_fetch after it. */
bool process_order_lods_meshlets(ir_mesh *mesh, const cook_settings *settings);

/* The whole mesh process stage in order: normals, weld, then order, LODs and
 * meshlets together, then fetch, as the settings ask (process/mesh.c).
 * Reports to ctx->diag. */
bool process_mesh(cook_context *ctx, ir_mesh *mesh, const ir_asset *asset);

/* AABB and bounding sphere of the vertices referenced by indices[0..count). */
void process_bounds(const float *positions, const uint32_t *indices, uint32_t index_count,
                    float aabb_min[3], float aabb_max[3], float sphere[4]);

/* ---------------------------------------------------------------------------
 * encode/
 * ------------------------------------------------------------------------- */

/* Octahedral encoding of a unit vector into snorm16 x/y. */
void encode_oct_snorm16(const float v[3], int16_t out[2]);
/* The same with a sign folded into y (KILN_VFORMAT_OCT_SIGNED_SNORM16X2):
 * tangent direction plus handedness w. */
void encode_oct_signed_snorm16(const float v[3], float w, int16_t out[2]);

/* ---------------------------------------------------------------------------
 * write/
 * ------------------------------------------------------------------------- */

/* Builds a container in memory: add chunks in order, then finish. */
typedef struct container_writer {
    uint32_t kind;
    uint16_t kind_version;
    uint32_t chunk_count;
    uint32_t chunk_cap;
    struct container_pending_chunk *chunks;
    bool failed;
} container_writer;

void container_begin(container_writer *writer, uint32_t kind, uint16_t kind_version);
/* Copies `size` bytes of `data` as a chunk payload. */
void container_add_chunk(container_writer *writer, uint32_t fourcc, const void *data, size_t size);
/* Lays out the file (header, table, 16-byte aligned payloads, zeroed padding,
 * checksum) into `out`. Returns false on allocation failure. Frees the writer. */
bool container_finish(container_writer *writer, bytebuf *out);
void container_abandon(container_writer *writer);

/* The provenance JSON of the META chunk. */
void write_metadata_json(const cook_context *ctx, const char *importer, bytebuf *out);

/* Serialises one mesh as a .kmesh file image. */
bool write_kmesh(const cook_context *ctx, const ir_mesh *mesh, uint32_t material_count,
                 const char *importer, bytebuf *out);

/* Serialises materials[0..count) as a .kmat file image (row i = material i).
 * `textures` (may be NULL: none) holds count * KILN_MATERIAL_SLOT_COUNT
 * texture ref hashes, 0 for an empty slot. Unsupported extensions named in
 * each material's dropped_extensions go to the MDRP chunk (write/kmat.c). */
bool write_kmat(const cook_context *ctx, const ir_material *materials, uint32_t count,
                const uint64_t *textures, const char *importer, bytebuf *out);
/* One row: factors clamped into kmat.md's ranges, non-finite ones defaulted. */
void write_kmat_row(const ir_material *material, const uint64_t textures[KILN_MATERIAL_SLOT_COUNT],
                    kiln_material *row);

/* Writes bytes to `path` atomically: a temporary file in the same folder, then
 * rename. Creates missing parent folders. */
bool write_file_atomic(const char *path, const void *data, size_t size, char *reason,
                       size_t reason_size);
/* True for a file name write_file_atomic uses for its temporaries
 * (".<name>.XXXXXX"): what a killed process may leave behind. */
bool write_is_temporary_name(const char *name);

/* Lays out a .kpak (docs/formats/kpak.md) of the files `paths` (relative to
 * `root`, sorted bytewise, unique) into `out` (write/pack.c). */
bool write_pack(const char *root, const strlist *paths, bytebuf *out, char *reason,
                size_t reason_size);

/* ---------------------------------------------------------------------------
 * write/manifest.c — every ref a build produced, and assets.kman
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

/* Sorts `entries` by hash and serialises them as a manifest file. Two
 * different refs with one hash, or one ref produced twice, are errors reported
 * to `diag` (against the manifest file name), and nothing is written. */
bool write_manifest(cook_manifest_list *entries, cook_diag *diag, bytebuf *out);

/* ---------------------------------------------------------------------------
 * pipeline.c — one asset through every stage
 * ------------------------------------------------------------------------- */

typedef struct cook_request {
    const char *input_root;  /* folder of sources */
    const char *output_root; /* folder of cooked files */
    const char *source_path; /* relative to input_root, '/'-separated */
    const cook_importer *importer;
    const cook_settings *settings;
    bool verify; /* re-read and validate every file written */
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
    cook_manifest_list manifest; /* every ref this asset produced */
    uint64_t bytes_written;
    uint32_t meshes;
    uint32_t triangles;
    double stage_seconds[COOK_STAGE_COUNT];
} cook_asset_result;

/* A monotonic timestamp in seconds, and adding the time since one to a stage
 * (which returns the new timestamp, to chain stages). */
double cook_clock(void);
double cook_stage_add(cook_asset_result *result, cook_stage stage, double since);

/* Cooks one asset. Never stops the process: every failure becomes a message
 * in result->diag and result->ok == false. Thread-safe for distinct results. */
bool cook_asset(const cook_request *request, cook_asset_result *result);
void cook_asset_result_free(cook_asset_result *result);

/* ---------------------------------------------------------------------------
 * Textures: decode → process (resize, mips) → encode → KTX2 (texture.c and
 * import/image.c, process/mips.c, write/ktx2.c)
 * ------------------------------------------------------------------------- */

/* How a texture is used decides its colour space, channels and mip filter. */
typedef enum cook_texture_usage {
    COOK_TEXTURE_COLOR = 1, /* base colour, emissive, UI: sRGB RGBA8 */
    COOK_TEXTURE_DATA,      /* metallic-roughness / ORM / masks: linear RGBA8 */
    COOK_TEXTURE_NORMAL,    /* tangent-space normal map: linear, renormalised mips */
    COOK_TEXTURE_SINGLE,    /* one channel (AO, height, roughness): linear R8 */
    COOK_TEXTURE_HDR,       /* Radiance .hdr and other float data: RGBA16F */
} cook_texture_usage;

typedef struct cook_texture_source {
    const char *name;     /* for messages: a path, or "scene.glb image 3" */
    const uint8_t *bytes; /* the encoded image file (PNG, JPEG, TGA, BMP, HDR) */
    size_t size;
    cook_texture_usage usage;
    float alpha_cutoff; /* > 0: keep alpha-test coverage at this cutoff in every mip */
} cook_texture_source;

/* Decodes, processes and writes one texture as KTX2 to output_root/out_path
 * (atomically, verified when `verify`), and records the output and a manifest
 * entry (`ref`, KILN_ASSET_TEXTURE, the usage's colour space) in `result`. On
 * failure reports to ctx->diag naming src->name and returns false; the caller
 * decides whether that fails the asset (a model's missing texture does not). */
bool cook_texture(cook_context *ctx, const char *output_root, const cook_texture_source *src,
                  const char *ref, const char *out_path, bool verify, cook_asset_result *result);

/* Standalone textures (COOK_KIND_TEXTURE): the usage a file name asks for —
 * "*.n.*" normal, "*.ao.*" / "*.h.*" / "*.r.*" single-channel, "*.hdr" HDR,
 * anything else colour. cook_texture_asset cooks request->source_path (bytes
 * in ctx->source) to <dir>/<stem>.ktx2 ("crate.n.png" -> "crate.n.ktx2") under
 * the source's own ref. */
cook_texture_usage cook_texture_usage_for_path(const char *path);
bool cook_texture_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);

/* Cubemaps (COOK_KIND_CUBEMAP): request->source_path is a "*.env" folder
 * holding px/nx/py/ny/pz/nz images (any decodable extension). Cooks one
 * 6-face KTX2 with full mips, faces in KTX2 order +X -X +Y -Y +Z -Z, to
 * <folder without .env>.ktx2 under the folder's ref, in the format a 2D
 * texture gets: HDR usage when the faces are Radiance HDR, else colour
 * (BC7 sRGB by default). The six files become dependencies. */
bool cook_cubemap_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result);

/* Where an asset's output goes: output_root/<dir of source>/<stem><suffix>,
 * e.g. "models/crate.obj" + ".kmesh" -> "models/crate.kmesh". Caller frees. */
char *cook_output_path(const char *source_path, const char *suffix);

#endif /* KILN_COOK_COOK_H */
