/*
 * kiln/kiln.h — libkiln, the runtime half of kiln.
 *
 * Maps cooked files and hands out typed pointers into them. Plain C, no
 * third-party headers, no global state: every function is safe to call from
 * several threads on different objects. Nothing read from a file is trusted:
 * every offset, count and size is checked before use.
 *
 * Errors: every fallible function returns a kiln_result (KILN_OK == 0) and, when
 * `err` is not NULL, fills it with a message naming the file and the problem.
 *
 * Ownership: a kiln_file is a caller-owned struct (usually on the stack). The
 * pointers a view hands out point into the file's bytes and stay valid until
 * kiln_file_close(). Nothing else is allocated.
 */
#ifndef KILN_KILN_H
#define KILN_KILN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version (semantic versioning; CMakeLists.txt reads these three
 * lines). KILN_VERSION is one comparable number: 0.1.0 -> 100. */
#define KILN_VERSION_MAJOR 0
#define KILN_VERSION_MINOR 1
#define KILN_VERSION_PATCH 0
#define KILN_VERSION (KILN_VERSION_MAJOR * 10000 + KILN_VERSION_MINOR * 100 + KILN_VERSION_PATCH)
#define KILN_VERSION_STRINGIFY_(x) #x
#define KILN_VERSION_STRINGIFY(x) KILN_VERSION_STRINGIFY_(x)
#define KILN_VERSION_STRING                                                                        \
    KILN_VERSION_STRINGIFY(KILN_VERSION_MAJOR)                                                     \
    "." KILN_VERSION_STRINGIFY(KILN_VERSION_MINOR) "." KILN_VERSION_STRINGIFY(KILN_VERSION_PATCH)

/* ---------------------------------------------------------------------------
 * Results and errors
 * ------------------------------------------------------------------------- */

/* Values are pinned: they may be stored or compared by callers. */
typedef enum kiln_result {
    KILN_OK = 0,
    KILN_ERR_INVALID_ARGUMENT = 1, /* caller passed something unusable */
    KILN_ERR_IO = 2,               /* the operating system refused (open, read, map) */
    KILN_ERR_OUT_OF_MEMORY = 3,
    KILN_ERR_BAD_MAGIC = 4,   /* not a kiln file (or not the expected kind) */
    KILN_ERR_UNSUPPORTED = 5, /* a version or feature this build does not know */
    KILN_ERR_TRUNCATED = 6,   /* the data ends before a structure it declares */
    KILN_ERR_CORRUPT = 7,     /* inconsistent or out-of-range values */
    KILN_ERR_CHECKSUM = 8,    /* stored checksum does not match the bytes */
    KILN_ERR_NOT_FOUND = 9,   /* a looked-up chunk, entry or ref is absent */
    KILN_RESULT_COUNT_ = 10
} kiln_result;

/* A short constant name for a result, e.g. "truncated". Never NULL. */
const char *kiln_result_str(kiln_result result);

#define KILN_ERROR_MESSAGE_MAX 256

/* Caller-owned error report. `message` is always NUL-terminated. */
typedef struct kiln_error {
    kiln_result code;
    char message[KILN_ERROR_MESSAGE_MAX];
} kiln_error;

/* ---------------------------------------------------------------------------
 * Asset refs: a canonical source path and its 64-bit FNV-1a hash
 * ------------------------------------------------------------------------- */

/* FNV-1a, 64-bit, over the bytes of `ref` (offset basis 0xcbf29ce484222325,
 * prime 0x100000001b3). This is the hash assets use to name each other. */
uint64_t kiln_ref_hash(const char *ref);
uint64_t kiln_ref_hash_n(const char *ref, size_t length);

/* Canonicalises `path` (relative to the input root) into a ref: lower-case
 * ASCII, '\\' turned into '/', "./" segments and repeated '/' removed, the last
 * extension of the file name dropped. Writes at most `capacity` bytes including
 * the NUL. Fails with KILN_ERR_INVALID_ARGUMENT for an absolute path, a ".."
 * segment, an empty result or one that does not fit. */
kiln_result kiln_ref_canonicalize(const char *path, char *out, size_t capacity);

/* ---------------------------------------------------------------------------
 * Cooked files (the container)
 * ------------------------------------------------------------------------- */

/* Flags for opening and validating. */
#define KILN_OPEN_VERIFY_CHECKSUM 0x1u /* hash every byte: O(file size) */
#define KILN_OPEN_DEEP 0x2u            /* also check data values (index ranges …) */

/* A cooked file held in memory: mapped, loaded, or borrowed from the caller.
 * Fields are read-only for the caller; kiln_file_close() releases it. */
typedef struct kiln_file {
    const uint8_t *data; /* the whole file */
    size_t size;
    uint32_t kind;         /* header kind fourcc */
    uint16_t kind_version; /* header kind version */
    uint32_t chunk_count;
    const kiln_chunk_entry *chunks; /* validated chunk table */
    char name[128];                 /* for messages: the path's tail or "<memory>" */
    /* private */
    void *owned_;
    size_t owned_size_;
    int owned_how_; /* 0 borrowed, 1 mapped, 2 heap */
} kiln_file;

/* Maps `path` read-only and validates the container (header and chunk table;
 * `flags` may add the checksum). On failure `file` is left closed. */
kiln_result kiln_file_map(kiln_file *file, const char *path, uint32_t flags, kiln_error *err);

/* Reads `path` into a 16-byte-aligned heap block and validates it like
 * kiln_file_map. For systems where mapping is not wanted. */
kiln_result kiln_file_load(kiln_file *file, const char *path, uint32_t flags, kiln_error *err);

/* Validates `size` bytes at `data` as a container without copying them. The
 * caller keeps `data` alive (and 16-byte aligned) until kiln_file_close().
 * `name` (may be NULL) is used in messages. */
kiln_result kiln_file_from_memory(kiln_file *file, const void *data, size_t size, const char *name,
                                  uint32_t flags, kiln_error *err);

/* Releases what the file owns. Safe on a zeroed or already-closed file. */
void kiln_file_close(kiln_file *file);

/* A chunk's payload. */
typedef struct kiln_chunk {
    uint32_t fourcc;
    uint32_t flags;
    const void *data;
    size_t size;
} kiln_chunk;

/* Finds the first chunk with `fourcc`. KILN_ERR_NOT_FOUND when absent,
 * KILN_ERR_UNSUPPORTED when it is encoded (out->flags says how; decode it
 * with kiln_file_decode_chunk). */
kiln_result kiln_file_find_chunk(const kiln_file *file, uint32_t fourcc, kiln_chunk *out);

/* Compressed chunks (container.md, Encoded chunks). A file cooked with
 * `container.compress` has encoded chunks, which the views cannot use in
 * place (they fail with KILN_ERR_UNSUPPORTED saying so). Decode the chunks
 * you need into your own memory, or expand the whole file and open the
 * result with kiln_file_from_memory. Nothing here allocates memory; every
 * size is checked, and a damaged chunk is KILN_ERR_CORRUPT, never a write
 * past the buffer. */

/* Whether any chunk of `file` is encoded. */
bool kiln_file_has_encoded_chunks(const kiln_file *file);

typedef struct kiln_chunk_info {
    uint32_t fourcc;
    uint32_t flags;           /* kiln_chunk_entry.flags: 0 when stored as is */
    uint64_t stored_size;     /* bytes in the file */
    uint64_t decoded_size;    /* bytes of the payload once decoded */
    uint64_t decode_capacity; /* the buffer kiln_file_decode_chunk needs: decoded_size, more
                                 for a meshopt filter under Zstd (its intermediate bytes) */
} kiln_chunk_info;

/* Describes the first chunk with `fourcc` (encoded or not). NOT_FOUND when
 * absent. */
kiln_result kiln_file_chunk_info(const kiln_file *file, uint32_t fourcc, kiln_chunk_info *out,
                                 kiln_error *err);

/* Decodes the first chunk with `fourcc` into dst: the first decoded_size
 * bytes are the payload (a stored chunk is copied); dst_size must be at least
 * decode_capacity, and the bytes past decoded_size may be overwritten.
 * Decoded index data is not range-checked: expand and open the file with
 * KILN_OPEN_DEEP for that. */
kiln_result kiln_file_decode_chunk(const kiln_file *file, uint32_t fourcc, void *dst,
                                   size_t dst_size, kiln_error *err);

/* The size of the file with every chunk decoded (*size) and the buffer
 * kiln_file_expand needs to make it (*capacity, may be NULL; at least
 * *size). For a file without encoded chunks, *size is file->size. */
kiln_result kiln_file_expanded_size(const kiln_file *file, size_t *size, size_t *capacity,
                                    kiln_error *err);

/* Writes the file with every chunk decoded into dst (16-byte aligned,
 * dst_size >= the capacity above): the same chunks, laid out as the cooker
 * lays out a file without compression, with a fresh checksum. Open its first
 * `size` bytes with kiln_file_from_memory. */
kiln_result kiln_file_expand(const kiln_file *file, void *dst, size_t dst_size, kiln_error *err);

/* kiln_file_map, except that a file with encoded chunks is expanded into a
 * heap block the file owns (kiln_file_close frees it), so every view works
 * on it. For tools; an engine decodes into memory of its own. */
kiln_result kiln_file_map_expanded(kiln_file *file, const char *path, uint32_t flags,
                                   kiln_error *err);

/* How chunk flags encode a payload, e.g. "meshopt vertex + zstd" ("stored"
 * for 0, "unknown" for bits this build lacks). Never NULL. */
const char *kiln_chunk_encoding_str(uint32_t flags);

/* The JSON provenance text of the META chunk (not NUL-terminated), or NULL
 * with *size = 0 when the file has none. */
const char *kiln_file_metadata(const kiln_file *file, size_t *size);

/* The source's extras and unknown extensions of one object of the file
 * (glTF `extras` and `extensions` kiln does not interpret): a JSON object
 * {"extras": ..., "extensions": {...}} of *length bytes, NUL-terminated, in
 * the file; NULL when the object has none. Which objects each kind carries:
 * kiln_extras_object (container.md, XTRA). Scene nodes keep theirs in the
 * scene itself: kiln_scene_node_extras. */
const char *kiln_file_extras(const kiln_file *file, kiln_extras_object object, uint32_t index,
                             size_t *length);
/* Entry `i` of the file's extras, in (object, index) order, for listing
 * them all: its text as kiln_file_extras gives it, or NULL past the last (or
 * when the entry is out of bounds). */
const char *kiln_file_extras_entry(const kiln_file *file, uint32_t i, kiln_extras_object *object,
                                   uint32_t *index, size_t *length);
/* Checks the whole XTRA chunk (order, bounds, terminators): CORRUPT naming
 * the entry. O(text bytes); kiln_file_extras needs it only for untrusted
 * files, as it bounds-checks what it returns. */
kiln_result kiln_file_extras_check(const kiln_file *file, kiln_error *err);

/* Writes a fourcc as 4 printable characters plus NUL into out[5]. */
void kiln_fourcc_str(uint32_t fourcc, char out[5]);

/* ---------------------------------------------------------------------------
 * Meshes (.kmesh, kind MESH)
 * ------------------------------------------------------------------------- */

/* Typed views into a mapped mesh file; valid while the file is open. */
typedef struct kiln_mesh_view {
    const kiln_mesh_desc *desc;
    const kiln_vertex_attribute *attributes; /* desc->attribute_count entries */
    /* VTX0: desc->vertex_count * vertex_stride bytes interleaved or, with
     * KILN_MESH_FLAG_STREAMS in desc->flags, one stream per attribute; read
     * an attribute through kiln_mesh_attribute_data in either layout. */
    const void *vertices;
    size_t vertex_bytes;
    const void *indices; /* desc->index_count entries of desc->index_size bytes */
    size_t index_bytes;
    const kiln_submesh *submeshes;    /* desc->submesh_count entries (topology: below) */
    const kiln_lod *lods;             /* desc->submesh_count * desc->lod_count entries */
    const kiln_meshlet *meshlets;     /* desc->meshlet_count entries */
    const uint32_t *meshlet_vertices; /* desc->meshlet_vertex_count vertex indices */
    const uint8_t *meshlet_triangles; /* desc->meshlet_triangle_count * 3 local indices */
    const uint8_t *submesh_names;     /* the SNAM chunk, or NULL: kiln_mesh_submesh_name */
    size_t submesh_names_size;
    /* Morph targets (version 5): desc->morph_target_count targets, each with
     * the delta blocks desc->morph_attributes names (kiln_mesh_morph_deltas),
     * or NULL without targets. */
    const float *morph_deltas;
    const uint8_t *morph_names; /* the MNAM chunk, or NULL: kiln_mesh_morph_target_name */
    size_t morph_names_size;
} kiln_mesh_view;

/* Checks that `file` is a mesh whose chunks agree with its descriptor and fills
 * `view`. Cost does not depend on the vertex or index count unless `flags` has
 * KILN_OPEN_DEEP, which also checks every index against the vertex count. */
kiln_result kiln_mesh_view_get(const kiln_file *file, uint32_t flags, kiln_mesh_view *view,
                               kiln_error *err);

/* Level `level` of submesh `submesh` (level 0 is the submesh itself), or NULL
 * when out of range. A level with KILN_LOD_FLAG_REUSED repeats the one before. */
const kiln_lod *kiln_mesh_lod(const kiln_mesh_view *view, uint32_t submesh, uint32_t level);

/* The attribute with `semantic`, or NULL. */
/* Submesh `submesh`'s name from the source (an OBJ group or object), or NULL
 * when it has none or is out of range. Validated by kiln_mesh_view_get. */
const char *kiln_mesh_submesh_name(const kiln_mesh_view *view, uint32_t submesh);

const kiln_vertex_attribute *kiln_mesh_find_attribute(const kiln_mesh_view *view,
                                                      kiln_vertex_semantic semantic);

/* Where `attribute` (an entry of view->attributes) is, in either vertex
 * layout: vertex v's value starts at the returned pointer + v * *stride, and
 * the pointer is view->vertices + *offset, so an engine binds its one vertex
 * buffer at *offset with *stride per attribute. NULL when the attribute is
 * not one of the view's (outputs untouched) or the mesh has no vertices.
 * stride and offset may be NULL. */
const uint8_t *kiln_mesh_attribute_data(const kiln_mesh_view *view,
                                        const kiln_vertex_attribute *attribute, uint32_t *stride,
                                        size_t *offset);

/* Morph target `target`'s deltas of `attribute` (KILN_MORPH_POSITION,
 * KILN_MORPH_NORMAL or KILN_MORPH_TANGENT): desc->vertex_count xyz floats in
 * the file, zero-copy; NULL when out of range or the mesh has no such
 * deltas. Bind them as a GPU buffer, or add weight x delta to the base. */
const float *kiln_mesh_morph_deltas(const kiln_mesh_view *view, uint32_t target,
                                    uint32_t attribute);
/* Morph target `target`'s name from the source (glTF
 * mesh.extras.targetNames), or NULL. */
const char *kiln_mesh_morph_target_name(const kiln_mesh_view *view, uint32_t target);
/* Every vertex's morphed position, base + sum of weights[t] x position delta
 * of target t, into out[3 * vertex_count] (out_floats: its size in floats).
 * weight_count must equal desc->morph_target_count (0 gives the base
 * positions). A CPU reference for tools and tests; no allocation. */
kiln_result kiln_mesh_morph_positions(const kiln_mesh_view *view, const float *weights,
                                      uint32_t weight_count, float *out, size_t out_floats,
                                      kiln_error *err);

/* Bytes one element of `format` takes; 0 for an invalid format. */
uint32_t kiln_vertex_format_size(kiln_vertex_format format);

/* Decodes an octahedral snorm16x2 unit vector into xyz (unit length). */
void kiln_oct_decode(const int16_t encoded[2], float out[3]);

/* Decodes KILN_VFORMAT_OCT_SIGNED_SNORM16X2 (tangents): xyz unit, w = ±1. */
void kiln_oct_signed_decode(const int16_t encoded[2], float out[4]);

/* A vertex's position as floats, whatever its stored format (f32x3, or
 * unorm16x4 with the descriptor's offset and scale). */
void kiln_mesh_position(const kiln_mesh_view *view, uint32_t vertex, float out[3]);

/* Short names for printing, e.g. "position", "oct_snorm16x2". Never NULL. */
const char *kiln_vertex_semantic_str(kiln_vertex_semantic semantic);
const char *kiln_vertex_format_str(kiln_vertex_format format);

/* What submesh s draws is (kiln_topology)view.submeshes[s].topology, a known
 * value in a valid view: triangle, line or point lists. Indices per primitive
 * of a topology: 3, 2 or 1; 0 for an unknown one. */
uint32_t kiln_topology_index_count(kiln_topology topology);
/* "triangles", "lines", "points", or "invalid". Never NULL. */
const char *kiln_topology_str(kiln_topology topology);

/* ---------------------------------------------------------------------------
 * The manifest (assets.kman, kind MANI): which file holds each ref
 * ------------------------------------------------------------------------- */

#define KILN_MANIFEST_FILE_NAME "assets.kman"

typedef struct kiln_manifest_view {
    const kiln_manifest_entry *entries; /* sorted by hash, strictly increasing */
    uint32_t entry_count;
    const char *strings; /* MSTR: every string NUL-terminated */
    size_t strings_size;
    const kiln_manifest_id *ids; /* MIDS: sorted by ID; NULL when the manifest has none */
    uint32_t id_count;
    const uint32_t *entry_ids; /* MEID: entry_count rows into ids, or NULL */
} kiln_manifest_view;

/* Checks a manifest file (entries sorted, strings inside MSTR and
 * NUL-terminated, kinds valid) and fills `view`. O(entries). */
kiln_result kiln_manifest_view_get(const kiln_file *file, kiln_manifest_view *view,
                                   kiln_error *err);

/* The entry for `hash` (binary search), or NULL. */
const kiln_manifest_entry *kiln_manifest_find(const kiln_manifest_view *view, uint64_t hash);

/* An entry's runtime path and ref as NUL-terminated strings in the file. */
const char *kiln_manifest_path(const kiln_manifest_view *view, const kiln_manifest_entry *entry);
const char *kiln_manifest_ref(const kiln_manifest_view *view, const kiln_manifest_entry *entry);

/* A stable asset ID: 128 bits kept in the source's sidecar (or derived from
 * the source's first path), so an asset keeps it when its source moves. The
 * all-zero ID is no ID. Written as 32 lower-case hex digits, hi then lo. */
typedef struct kiln_asset_id {
    uint64_t hi, lo;
} kiln_asset_id;
#define KILN_ASSET_ID_TEXT_SIZE 33 /* 32 hex digits and the NUL */

/* Reads 32 hex digits (either case; nothing before or after) into *id.
 * KILN_ERR_INVALID_ARGUMENT for anything else, or the all-zero ID. */
kiln_result kiln_asset_id_parse(const char *text, kiln_asset_id *id, kiln_error *err);
/* Writes `id` as 32 lower-case hex digits and a NUL. */
void kiln_asset_id_format(kiln_asset_id id, char text[KILN_ASSET_ID_TEXT_SIZE]);

/* The main entry of the asset with ID `id` (binary search): the entry of
 * its source's own ref, or of <ref>/scene for a model of several meshes or
 * a level; NULL when the manifest has no such ID. */
const kiln_manifest_entry *kiln_manifest_find_id(const kiln_manifest_view *view, kiln_asset_id id);
/* The ID of the asset that made `entry` (an entry of `view`): false, and
 * *id zero, when it has none (a version 1 manifest). O(1). */
bool kiln_manifest_id_of(const kiln_manifest_view *view, const kiln_manifest_entry *entry,
                         kiln_asset_id *id);

/* Short names, e.g. "mesh", "srgb". Never NULL. */
const char *kiln_asset_kind_str(kiln_asset_kind kind);
const char *kiln_color_space_str(kiln_color_space space);

/* ---------------------------------------------------------------------------
 * Materials (.kmat, kind MATL): row i is the material of mesh slot i
 * ------------------------------------------------------------------------- */

typedef struct kiln_material_view {
    const kiln_material_desc *desc;
    const kiln_material *materials; /* material_count rows, usable in place */
    uint32_t material_count;
    const char *names; /* MTNM: the rows' names (kiln_material.name offsets), or NULL */
    uint64_t names_size;
    /* MSRC: per row, the ref hash of the standalone material (*.mat) the row
     * is (material.replace), 0 for the source's own; NULL when no row is. */
    const uint64_t *sources;
} kiln_material_view;

/* Checks that `file` is a material table (kmat.md R1-R10) and fills `view`.
 * O(rows); `flags` as for meshes (none changes the checks today). */
kiln_result kiln_material_view_get(const kiln_file *file, uint32_t flags, kiln_material_view *view,
                                   kiln_error *err);

/* Row `index`, or NULL when out of range. */
const kiln_material *kiln_material_row(const kiln_material_view *view, uint32_t index);

/* Row `index`'s name in its source (glTF name, MTL newmtl, ...), "" when it
 * has none or `index` is out of range. Never NULL. */
const char *kiln_material_name(const kiln_material_view *view, uint32_t index);

/* The ref hash of the standalone material (*.mat) row `index` was replaced
 * by (kiln.yml material.replace): the manifest maps it to that material's
 * own .kmat. 0 for a row of the source's own, or `index` out of range. */
uint64_t kiln_material_source(const kiln_material_view *view, uint32_t index);

/* Short names, e.g. "mask", "base_color", "clamp_to_edge". Never NULL. */
const char *kiln_alpha_mode_str(kiln_alpha_mode mode);
const char *kiln_material_slot_str(kiln_material_slot slot);
const char *kiln_wrap_str(kiln_wrap wrap);
const char *kiln_filter_str(kiln_filter filter);
const char *kiln_mip_filter_str(kiln_mip_filter filter);

/* ---------------------------------------------------------------------------
 * Scenes (.kscene, kind SCEN): a node graph in depth-first order (docs/formats/kscene.md)
 * ------------------------------------------------------------------------- */

/* Typed views into a mapped scene file; valid while the file is open. Node i
 * is hierarchy[i], transforms[i] (its rest pose) and nodes[i]; its subtree is
 * nodes i .. hierarchy[i].subtree_end - 1, its children from first_child on
 * along next_sibling. */
typedef struct kiln_scene_view {
    const kiln_scene_desc *desc;
    uint32_t node_count;
    uint32_t level_count; /* the deepest node's depth + 1 (0 without nodes) */
    const kiln_scene_hierarchy *hierarchy;
    const kiln_scene_transform *transforms;
    const kiln_scene_node *nodes;
    const uint64_t *meshes;    /* desc->mesh_count ref hashes of .kmesh files */
    const uint64_t *materials; /* desc->material_count ref hashes: row 0 of a .kmat */
    const kiln_scene_entry *scenes;
    uint32_t scene_count;
    const uint32_t *roots; /* desc->root_count node indices, each scene's a range */
    const char *strings;   /* SSTR: every string NUL-terminated */
    size_t strings_size;
    const kiln_scene_link *links;     /* SLNK: node_count entries (a level's), or NULL */
    const kiln_scene_camera *cameras; /* SCAM: camera_count cameras */
    uint32_t camera_count;
    const kiln_scene_light *lights; /* SLGT: light_count lights */
    uint32_t light_count;
    const kiln_scene_transform *instances; /* SINS: every node's instances, in node order */
    uint32_t instance_count;
    /* SINR: per node its range of `instances`; NULL when instance_count is 0. */
    const kiln_scene_instance_range *instance_ranges;
    const kiln_scene_skin *skins; /* skin_count skins, each a range of joints */
    uint32_t skin_count;
    uint32_t joint_count;
    const kiln_scene_joint *joints; /* every skin's joints, skin by skin */
} kiln_scene_view;

/* Checks that `file` is a scene (kscene.md R1-R18: every count against its
 * chunk, every index in range, the hierarchy in depth-first order and
 * therefore acyclic, subtree ranges nested, transforms finite with unit rotations,
 * strings inside the table, a level's links hashing their refs) and fills
 * `view`. O(nodes + string bytes) whatever
 * `flags` say. */
kiln_result kiln_scene_view_get(const kiln_file *file, uint32_t flags, kiln_scene_view *view,
                                kiln_error *err);

/* A node's name, a scene's name, as NUL-terminated strings in the file; ""
 * when out of range. */
const char *kiln_scene_node_name(const kiln_scene_view *view, uint32_t node);
const char *kiln_scene_name(const kiln_scene_view *view, uint32_t scene);
/* A node's source extras (glTF `extras`) as JSON text of *length bytes
 * (NUL-terminated), or NULL when it has none. */
const char *kiln_scene_node_extras(const kiln_scene_view *view, uint32_t node, size_t *length);

/* The scene a node places below itself (a level's entity placing a model):
 * the ref hash of that .kscene (look it up in the manifest), 0 when the node
 * places none; *ref (may be NULL) receives its ref ("models/truck/scene"), or
 * NULL. */
uint64_t kiln_scene_node_link(const kiln_scene_view *view, uint32_t node, const char **ref);
/* A level entity's components as compact JSON text of *length bytes
 * (NUL-terminated; each {"ref": PATH} carries "hash": "<16 hex digits>"), or
 * NULL when it has none. */
const char *kiln_scene_node_components(const kiln_scene_view *view, uint32_t node, size_t *length);

/* The first node (in file order) named exactly `name`: KILN_ERR_NOT_FOUND when
 * none is. O(nodes). */
kiln_result kiln_scene_find_node(const kiln_scene_view *view, const char *name, uint32_t *node);

/* Iterates the nodes that draw a mesh: the first at or after *cursor; on
 * success *cursor moves past it. Start with *cursor = 0; false at the end. */
bool kiln_scene_next_mesh_node(const kiln_scene_view *view, uint32_t *cursor, uint32_t *node);

/* A node's camera or light, or NULL when it has none (or `node` is out of
 * range). */
const kiln_scene_camera *kiln_scene_node_camera(const kiln_scene_view *view, uint32_t node);
const kiln_scene_light *kiln_scene_node_light(const kiln_scene_view *view, uint32_t node);
/* A camera's or a light's name (NUL-terminated, in the file); "" when out of
 * range. */
const char *kiln_scene_camera_name(const kiln_scene_view *view, uint32_t camera);
const char *kiln_scene_light_name(const kiln_scene_view *view, uint32_t light);
/* A node's instances (EXT_mesh_gpu_instancing): *count local transforms,
 * each relative to the node (instance world = node world * compose(t)), or
 * NULL with *count 0 when it has none. */
const kiln_scene_transform *kiln_scene_node_instances(const kiln_scene_view *view, uint32_t node,
                                                      uint32_t *count);

/* Clip-space conventions for kiln_camera_projection. Both take view space as
 * glTF defines it (right-handed, the camera looking down -Z, +Y up). */
typedef enum kiln_projection {
    /* The glTF 2.0 specification's matrices (§3.10.3): OpenGL clip space,
     * depth -1 (near) .. 1 (far), +Y up. */
    KILN_PROJECTION_GLTF = 0,
    /* Vulkan clip space: depth 0 (near) .. 1 (far), +Y down (y negated). */
    KILN_PROJECTION_VULKAN = 1
} kiln_projection;

/* The camera's projection matrix (column-major 4x4). A perspective camera
 * without an aspect ratio uses `viewport_aspect` (width / height; else it is
 * ignored); zfar 0 gives the infinite projection. KILN_ERR_INVALID_ARGUMENT
 * when no aspect ratio is positive or an argument is unusable. */
kiln_result kiln_camera_projection(const kiln_scene_camera *camera, float viewport_aspect,
                                   kiln_projection convention, float out[16], kiln_error *err);

/* The matrix of a transform, T * R * S, column-major 4x4 as in glTF. */
void kiln_scene_compose(const kiln_scene_transform *transform, float out[16]);

/* A scene's live state: local transforms the caller changes and the global
 * (world) matrices kept up to date from them. It lives in memory the caller
 * provides (kiln_scene_instance_size bytes); nothing is allocated, and it
 * reads the view's hierarchy, so the file stays open while it is used.
 * Fields are read-only for the caller. `world` is one contiguous array of
 * matrices (copy it to the GPU as it is); the local transforms are private,
 * each kept beside its node's parent and subtree (one cache line a node, what
 * the update reads of it): read them with kiln_scene_local, change a node with
 * kiln_scene_set_local, a whole pose with kiln_scene_set_pose. */
struct kiln_scene_record_;
typedef struct kiln_scene_instance {
    uint32_t node_count;
    const kiln_scene_hierarchy *hierarchy;
    float *world; /* node_count column-major 4x4 matrices, 64-byte aligned */
    /* private */
    struct kiln_scene_record_ *records_; /* per node: local transform, parent, subtree end */
    uint64_t *changed_;      /* a bit per node changed since the last update, then per word */
    uint32_t *changed_list_; /* the update's scratch: the changed nodes in order */
    uint32_t first_changed_; /* lowest and highest set bit (first > last: none) */
    uint32_t last_changed_;  /* UINT32_MAX after kiln_scene_set_pose: every node */
} kiln_scene_instance;

/* Bytes of caller memory an instance of `view` needs; 0 when the view is
 * unusable or the size does not fit in size_t. */
size_t kiln_scene_instance_size(const kiln_scene_view *view);

/* Sets `instance` up in `memory` (16-byte aligned, at least
 * kiln_scene_instance_size bytes): local transforms = the rest pose, every
 * world matrix computed. */
kiln_result kiln_scene_instance_init(kiln_scene_instance *instance, const kiln_scene_view *view,
                                     void *memory, size_t size, kiln_error *err);

/* A node's current local transform, or NULL when `node` is out of range.
 * Writing through the pointer is seen by kiln_scene_update_all only; to have
 * kiln_scene_update recompute the node, change it with kiln_scene_set_local. */
kiln_scene_transform *kiln_scene_local(kiln_scene_instance *instance, uint32_t node);

/* Replaces a node's local transform (rotation a unit quaternion) and marks it
 * and its subtree for the next update. KILN_ERR_INVALID_ARGUMENT when `node`
 * is out of range. */
kiln_result kiln_scene_set_local(kiln_scene_instance *instance, uint32_t node,
                                 const kiln_scene_transform *local, kiln_error *err);

/* kiln_scene_set_local for nodes[k] and locals[k], k < count, in that order
 * (a node given twice keeps its last transform), each node's memory requested
 * a few nodes ahead: a batch of changes scattered over a large scene costs
 * about a quarter less here than one call a node. KILN_ERR_INVALID_ARGUMENT, and
 * nothing changed, when a node is out of range. */
kiln_result kiln_scene_set_locals(kiln_scene_instance *instance, const uint32_t *nodes,
                                  const kiln_scene_transform *locals, uint32_t count,
                                  kiln_error *err);

/* Replaces every node's local transform with pose[0 .. count - 1] (a whole
 * animated pose, kiln_anim_pose.local) and marks every node for the next
 * update, kiln_scene_update or kiln_scene_update_all, which then both run the
 * full pass. KILN_ERR_INVALID_ARGUMENT when `count` is not the node count. */
kiln_result kiln_scene_set_pose(kiln_scene_instance *instance, const kiln_scene_transform *pose,
                                uint32_t count, kiln_error *err);

/* Recomputes the world matrices of the nodes changed since the last update and
 * of their subtrees, each subtree once and front to back as the full pass
 * does, touching nothing else. Returns how many nodes it recomputed. */
uint32_t kiln_scene_update(kiln_scene_instance *instance);

/* kiln_scene_set_locals(nodes, locals, count) then kiln_scene_update, in one
 * call, with the same matrices bit for bit; `recomputed` (may be NULL) gets
 * the update's count. Given nodes in increasing order (repeats allowed, the
 * last transform of a node kept) and nothing else changed since the last
 * update, each transform is written as the update reaches its node, so the
 * writes overlap the update's arithmetic: a batch of an animation's or a
 * simulation's changes scattered over a large scene costs less than the two
 * calls (BENCHMARKS.md 11). Otherwise it makes the two calls.
 * KILN_ERR_INVALID_ARGUMENT, and nothing changed or updated, when a node is
 * out of range. */
kiln_result kiln_scene_update_with(kiln_scene_instance *instance, const uint32_t *nodes,
                                   const kiln_scene_transform *locals, uint32_t count,
                                   uint32_t *recomputed, kiln_error *err);

/* Recomputes every world matrix from the local transforms in one forward pass
 * (when most nodes changed, or after writes through kiln_scene_local). */
void kiln_scene_update_all(kiln_scene_instance *instance);

/* A node's world matrix (column-major 4x4) as of the last update, or NULL
 * when `node` is out of range. */
const float *kiln_scene_world(const kiln_scene_instance *instance, uint32_t node);

/* Skin `skin`'s joints (node, parent joint, inverse bind matrix) and their
 * count, or NULL (count 0) when `skin` is out of range. A skinned vertex's
 * joint index j names joints[j]. */
const kiln_scene_joint *kiln_scene_skin_joints(const kiln_scene_view *view, uint32_t skin,
                                               uint32_t *count);

/* The skinning matrices of `skin` as of the instance's last update: for each
 * joint j, out[16 j .. 16 j + 15] = world(joint node) * inverse bind matrix,
 * column-major. `out` holds `capacity` matrices, at least the skin's joint
 * count. No allocation; KILN_ERR_INVALID_ARGUMENT for a skin out of range,
 * too little room or an instance of another view. */
kiln_result kiln_scene_skin_matrices(const kiln_scene_view *view,
                                     const kiln_scene_instance *instance, uint32_t skin, float *out,
                                     uint32_t capacity, kiln_error *err);

/* ---------------------------------------------------------------------------
 * Animation clips (.kanim, kind ANIM; docs/formats/kanim.md)
 * ------------------------------------------------------------------------- */

/* Typed views into a mapped .kanim; valid while the file is open. Clip c's
 * channels are channels[clips[c].first_channel ..] (clips[c].channel_count). */
typedef struct kiln_anim_view {
    const kiln_anim_desc *desc;
    const kiln_anim_clip *clips;
    uint32_t clip_count;
    const kiln_anim_channel *channels;
    uint32_t channel_count;
    const float *times;            /* every channel's key times */
    const float *values;           /* every channel's key values */
    const kiln_anim_morph *morphs; /* nodes with morph weights, by node */
    uint32_t morph_count;
    const float *weights;  /* weight_count default weights (AWGT) */
    uint32_t weight_count; /* morph weights in a pose */
    uint32_t node_count;   /* nodes of the scene the clips animate */
    const char *strings;
    size_t strings_size;
    /* Version 2: */
    const uint16_t *quantized;          /* AQNT: quantized channels' keys */
    uint32_t quant_count;               /* u16 words in it */
    const kiln_anim_clip_error *errors; /* AERR: clip_count entries, or NULL */
} kiln_anim_view;

/* Checks that `file` is an animation file (versions 1 and 2; kanim.md
 * R1-R14: counts against
 * chunks, clip and channel ranges, targets below node_count, paths,
 * interpolations and component counts, key times finite and increasing, morph
 * records, strings) and fills `view`. O(clips + channels + keys); with
 * KILN_OPEN_DEEP also every value is checked finite (O(values)). */
kiln_result kiln_anim_view_get(const kiln_file *file, uint32_t flags, kiln_anim_view *view,
                               kiln_error *err);

/* A clip's name; what its source held that was not cooked (space-separated
 * glTF paths, "" when nothing). "" when out of range. */
const char *kiln_anim_clip_name(const kiln_anim_view *view, uint32_t clip);
const char *kiln_anim_clip_dropped(const kiln_anim_view *view, uint32_t clip);
/* The first clip named exactly `name`: KILN_ERR_NOT_FOUND when none is. */
kiln_result kiln_anim_find_clip(const kiln_anim_view *view, const char *name, uint32_t *clip);

/* Local transforms of every node of the scene (node_count) and every morph
 * weight (weight_count; node morphs[m].node's are weights +
 * morphs[m].weight_offset), in memory the caller owns. */
typedef struct kiln_anim_pose {
    kiln_scene_transform *local;
    float *weights;
} kiln_anim_pose;

/* The rest pose: the scene's local transforms and the default morph weights.
 * KILN_ERR_INVALID_ARGUMENT when the scene's node count is not the clip
 * file's. */
kiln_result kiln_anim_pose_rest(const kiln_anim_view *view, const kiln_scene_view *scene,
                                kiln_anim_pose *pose, kiln_error *err);

/* One channel at `time` (seconds, clamped to its first and last key) into
 * out[components]: STEP holds a key, LINEAR interpolates (rotations slerp on
 * the shortest arc), CUBICSPLINE is glTF's Hermite spline with tangents scaled
 * by the key interval (rotations normalised). `cursor` (or NULL) remembers
 * the key interval between calls: playing forward costs O(1) per call; start
 * it at 0. The channel index must be below view->channel_count. */
void kiln_anim_sample_channel(const kiln_anim_view *view, uint32_t channel, float time,
                              uint32_t *cursor, float *out);

/* Samples every channel of `clip` at `time` into the pose (nodes and weights
 * no channel drives keep what the pose held). `cursors`: NULL, or the clip's
 * channel_count key cursors, zeroed before the first call and kept between
 * calls. No allocation. KILN_ERR_INVALID_ARGUMENT for a clip out of range. */
kiln_result kiln_anim_sample(const kiln_anim_view *view, uint32_t clip, float time,
                             uint32_t *cursors, kiln_anim_pose *pose, kiln_error *err);

/* A clip prepared for sampling every frame (docs/libkiln.md, Animation): its
 * LINEAR float translation, rotation and scale channels grouped by key times
 * and path into arrays (one key search per group, rotations slerped four at
 * a time), the rest kept as in kiln_anim_sample, and a key cursor per group
 * kept between calls. It gives the same pose as kiln_anim_sample, bit for
 * bit. It lives in memory the caller provides (kiln_anim_sampler_size bytes,
 * aligned to 8) and reads the file of `view`, which must stay open; it holds
 * a copy of the view itself. One sampler per playing instance of a clip. */
typedef struct kiln_anim_sampler kiln_anim_sampler;

/* Bytes a sampler of `clip` needs; 0 for a clip out of range. */
size_t kiln_anim_sampler_size(const kiln_anim_view *view, uint32_t clip);
/* Prepares a sampler of `clip` in `memory` (`size` bytes, at least
 * kiln_anim_sampler_size, aligned to 8) and sets *sampler. No allocation.
 * KILN_ERR_INVALID_ARGUMENT for a clip out of range, memory too small or
 * misaligned. */
kiln_result kiln_anim_sampler_init(const kiln_anim_view *view, uint32_t clip, void *memory,
                                   size_t size, kiln_anim_sampler **sampler, kiln_error *err);
/* Samples the clip at `time` into the pose, as kiln_anim_sample with the
 * clip's cursors would; any time (forward, backward, a jump, a loop's wrap)
 * is valid, playing forward costs least. Never fails. */
void kiln_anim_sampler_sample(kiln_anim_sampler *sampler, float time, kiln_anim_pose *pose);

/* out = a blended towards b by t in [0, 1] (translations, scales and weights
 * linearly, rotations by slerp on the shortest arc) over node_count nodes and
 * weight_count weights; out may be a or b. */
void kiln_anim_pose_blend(const kiln_anim_pose *a, const kiln_anim_pose *b, float t,
                          uint32_t node_count, uint32_t weight_count, kiln_anim_pose *out);

/* Sets the local transform of every node `clip` animates from the pose
 * (kiln_scene_set_local), so the next kiln_scene_update recomputes them and
 * their subtrees. KILN_ERR_INVALID_ARGUMENT when the instance's node count is
 * not the clip file's or the clip is out of range. */
kiln_result kiln_anim_apply(const kiln_anim_view *view, uint32_t clip, const kiln_anim_pose *pose,
                            kiln_scene_instance *instance, kiln_error *err);

/* Short names: "translation", "rotation", "scale", "weights"; "linear",
 * "step", "cubicspline". Never NULL. */
const char *kiln_anim_path_str(kiln_anim_path path);
const char *kiln_anim_interpolation_str(kiln_anim_interpolation interpolation);

/* ---------------------------------------------------------------------------
 * Textures (.ktx2, the Khronos KTX 2.0 container; docs/formats/ktx2.md)
 * ------------------------------------------------------------------------- */

#define KILN_KTX2_SUPERCOMPRESSION_NONE 0u
#define KILN_KTX2_SUPERCOMPRESSION_ZSTD 2u

/* A validated KTX2 file held in memory (the caller keeps the bytes alive). */
typedef struct kiln_ktx2_view {
    const uint8_t *data;
    size_t size;
    uint32_t vk_format; /* VkFormat value, e.g. 43 = R8G8B8A8_SRGB */
    uint32_t type_size;
    uint32_t width, height;
    uint32_t depth;                         /* 0 for 1D/2D textures */
    uint32_t layers;                        /* 0 when not an array */
    uint32_t faces;                         /* 1, or 6 for a cubemap */
    uint32_t levels;                        /* mip levels stored (>= 1) */
    uint32_t supercompression;              /* KILN_KTX2_SUPERCOMPRESSION_* */
    uint32_t block_bytes;                   /* bytes per texel (block) of vk_format */
    uint32_t block_width, block_height;     /* 1 x 1 unless block-compressed (4 x 4 for BCn) */
    kiln_color_space color_space;           /* from the DFD transfer function */
    uint32_t dfd_color_model, dfd_transfer; /* the DFD's own values */
    uint32_t dfd_channel;                   /* the DFD's first channel id (UASTC: 0 RGB, 3 RGBA) */
    const uint8_t *kvd;                     /* key/value data, kvd_size bytes */
    uint32_t kvd_size;
    char name[128]; /* for messages */
} kiln_ktx2_view;

/* Validates a KTX2 file: identifier, header, level index (every range inside
 * the file, sizes consistent with the dimensions), DFD present and matching
 * vkFormat, known supercompression, well-formed key/value data. Supports the
 * vkFormats kiln writes: R8, RG8, RGBA8 UNORM/SRGB, RGBA16F, and the block
 * formats BC1 (RGB/RGBA), BC3, BC4, BC5, BC6H_UFLOAT, BC7 (UNORM/SRGB) and
 * ASTC 4x4/5x5/6x6/8x8 (UNORM/SRGB/SFLOAT), whose levels are whole blocks
 * (block_width x block_height texels, block_bytes each). O(levels). */
kiln_result kiln_ktx2_view_get(kiln_ktx2_view *view, const void *data, size_t size,
                               const char *name, kiln_error *err);

/* A KTX2 file opened by path: mapped read-only and validated as
 * kiln_ktx2_view_get does; `view` stays valid until kiln_ktx2_close(). (Kiln's
 * own formats open by path with kiln_file_map / kiln_file_load.) */
typedef struct kiln_ktx2_file {
    kiln_ktx2_view view;
    void *mapping_; /* private */
    size_t mapping_size_;
} kiln_ktx2_file;

kiln_result kiln_ktx2_map(kiln_ktx2_file *file, const char *path, kiln_error *err);
/* Releases the mapping. Safe on a zeroed or already-closed file. */
void kiln_ktx2_close(kiln_ktx2_file *file);

/* Bytes level `level` takes once inflated (all layers, faces and slices);
 * 0 when out of range. */
uint64_t kiln_ktx2_level_size(const kiln_ktx2_view *view, uint32_t level);

/* Width/height/depth of a level (depth 1 for 2D). */
void kiln_ktx2_level_extent(const kiln_ktx2_view *view, uint32_t level, uint32_t *width,
                            uint32_t *height, uint32_t *depth);

/* Where one image of a level lies inside the inflated level: the bytes of
 * array layer `layer` (0 when not an array) and cubemap face `face` (0..5 in
 * KTX2 order +X -X +Y -Y +Z -Z; 0 when faces == 1), all of its depth slices.
 * KTX2 stores a level as layers, each of faces, each of slices. */
kiln_result kiln_ktx2_image_range(const kiln_ktx2_view *view, uint32_t level, uint32_t layer,
                                  uint32_t face, uint64_t *offset, uint64_t *size);

/* Copies (or inflates, for Zstd) level `level` into `dst`, which must hold at
 * least kiln_ktx2_level_size() bytes: e.g. a mapped staging buffer. */
kiln_result kiln_ktx2_read_level(const kiln_ktx2_view *view, uint32_t level, void *dst,
                                 size_t dst_size, kiln_error *err);

/* Checks that level `level` inflates to exactly its size, in bounded memory
 * (nothing is kept): what tools use to validate a file they will not upload. */
kiln_result kiln_ktx2_check_level(const kiln_ktx2_view *view, uint32_t level, kiln_error *err);
/* Checks every level as kiln_ktx2_check_level does, first to last, stopping
 * at the first that fails (its error names it), through one Zstd stream and
 * one scratch buffer for the whole file: what `kiln check` and the cooker's
 * verification use. KILN_OK for a file without levels to inflate. */
kiln_result kiln_ktx2_check_levels(const kiln_ktx2_view *view, kiln_error *err);

/* The value of key `key` in the key/value data (NUL-terminated inside the
 * file when the writer followed the spec), or NULL. */
const char *kiln_ktx2_find_value(const kiln_ktx2_view *view, const char *key, uint32_t *value_size);

/* Short names, e.g. "rgba8_srgb", "bc7_srgb", "astc_6x6_unorm", "zstd"; "uastc" for
 * vkFormat 0 (UNDEFINED), the only format kiln reads without one. Never NULL. */
const char *kiln_ktx2_format_str(uint32_t vk_format);
const char *kiln_ktx2_supercompression_str(uint32_t scheme);

/* UASTC (a view with vk_format 0 and dfd_color_model 166, docs/formats/ktx2.md):
 * one level's blocks (`blocks_size` = ceil(width / 4) * ceil(height / 4) * 16 bytes,
 * rows of blocks top to bottom, as kiln_ktx2_read_level gives them) decoded into
 * `dst`, width * height RGBA8 texels, rows top to bottom (`dst_size` at least
 * width * height * 4). `srgb` interpolates as an ASTC sRGB decoder does (the
 * view's color_space), else as a UNORM8 one. Bit-exact, no allocation,
 * thread-safe. An invalid block is KILN_ERR_CORRUPT naming `name` and the
 * block, with dst partly written. */
kiln_result kiln_uastc_decode_rgba8(const void *blocks, size_t blocks_size, uint32_t width,
                                    uint32_t height, bool srgb, void *dst, size_t dst_size,
                                    const char *name, kiln_error *err);

/* What a UASTC level is transcoded into at load time (docs/runtime.md,
 * "Transcoding UASTC"): the block format the engine's GPU samples. */
typedef enum kiln_transcode_target {
    KILN_TRANSCODE_RGBA8 = 0,      /* width * height texels, 4 bytes each (any GPU) */
    KILN_TRANSCODE_BC7 = 1,        /* 16 bytes per 4x4 block (desktop GPUs) */
    KILN_TRANSCODE_ASTC_4X4 = 2,   /* 16 bytes per 4x4 block (mobile GPUs), bit-exact */
    KILN_TRANSCODE_ETC1_RGB = 3,   /* 8 bytes per 4x4 block, also valid ETC2 RGB (opaque) */
    KILN_TRANSCODE_ETC2_RGBA8 = 4, /* 16 bytes per 4x4 block: ETC2 colour + EAC alpha */
    KILN_TRANSCODE_BC1 = 5,        /* 8 bytes per 4x4 block (opaque; BC1 RGB) */
    KILN_TRANSCODE_BC3 = 6,        /* 16 bytes per 4x4 block: BC1 colour + BC4 alpha */
} kiln_transcode_target;

/* Bytes a width x height level takes as `target` (whole 4x4 blocks for block
 * formats); 0 for a target this build does not transcode to, a zero side or a
 * size past SIZE_MAX. */
size_t kiln_uastc_transcoded_size(kiln_transcode_target target, uint32_t width, uint32_t height);

/* The VkFormat a level transcoded to `target` is uploaded as: e.g. BC7 gives
 * 146 (BC7_SRGB_BLOCK) when `srgb`, else 145 (BC7_UNORM_BLOCK); 0 for a
 * target this build does not transcode to. */
uint32_t kiln_uastc_transcode_vk_format(kiln_transcode_target target, bool srgb);

/* One UASTC level (`blocks` as for kiln_uastc_decode_rgba8) transcoded into
 * `dst` (`dst_size` at least kiln_uastc_transcoded_size()): blocks in rows top
 * to bottom for block targets, texels for RGBA8 (kiln_uastc_decode_rgba8).
 * `srgb` is the file's colour space: RGBA8, ETC and BC1/BC3 fit what the
 * UASTC block decodes to in it; BC7 and ASTC re-pack the block as it is.
 * ASTC 4x4 decodes to exactly the UASTC texels; BC7 follows the UASTC
 * specification's mode mapping and stays within a few steps of them; ETC1,
 * ETC2 RGBA8, BC1 and BC3 are fitted per block, guided by the block's
 * transcoding hints. For every block target `dst` may be `blocks`
 * (transcoding in place).
 * No allocation, thread-safe. An invalid block is KILN_ERR_CORRUPT naming
 * `name` and the block (dst partly written); a target this build does not
 * transcode to is KILN_ERR_UNSUPPORTED; sizes as kiln_uastc_decode_rgba8. */
kiln_result kiln_uastc_transcode(const void *blocks, size_t blocks_size, uint32_t width,
                                 uint32_t height, bool srgb, kiln_transcode_target target,
                                 void *dst, size_t dst_size, const char *name, kiln_error *err);

/* ---------------------------------------------------------------------------
 * Shaders (.kshader, kind SHDR): SPIR-V per stage with reflection
 * (docs/formats/kshader.md)
 * ------------------------------------------------------------------------- */

/* Typed views into a mapped shader file; valid while the file is open. */
typedef struct kiln_shader_view {
    const kiln_shader_desc *desc;
    uint32_t stage_count;
    const kiln_shader_stage_desc *stages; /* pipeline order */
    const uint32_t *code;                 /* every stage's SPIR-V words */
    const kiln_shader_io *io;             /* stage inputs and outputs */
    const kiln_shader_binding *bindings;  /* sorted by set, then binding */
    uint32_t binding_count;
    const kiln_shader_push_constant *push_constants;
    const kiln_shader_spec_constant *spec_constants;
    const char *strings; /* SHST: every string NUL-terminated */
    size_t strings_size;
    /* SPSI: per push-constant block its instance name; NULL when the file has
     * none (cooked before document revision 2, or no push constants). */
    const kiln_shader_push_instance *push_instances;
} kiln_shader_view;

/* Checks that `file` is a shader program (kshader.md R1-R12: every count
 * against its chunk, every range inside its table, each stage's module
 * starting with the SPIR-V magic, strings NUL-terminated inside the table,
 * bindings sorted and unique, enums known) and fills `view`, zero-copy.
 * O(stages + table entries); the SPIR-V itself is validated by `kiln check`. */
kiln_result kiln_shader_view_get(const kiln_file *file, uint32_t flags, kiln_shader_view *view,
                                 kiln_error *err);
/* The index of `stage` in view->stages, or -1 when the program lacks it. */
int kiln_shader_find_stage(const kiln_shader_view *view, kiln_shader_stage stage);
/* Stage `index`'s SPIR-V (*word_count words, 4-byte aligned: pass to
 * vkCreateShaderModule with codeSize = 4 * words), or NULL out of range. */
const uint32_t *kiln_shader_stage_code(const kiln_shader_view *view, uint32_t index,
                                       uint32_t *word_count);
/* A string of the table (an entry point, a name): "" when out of range. */
const char *kiln_shader_string(const kiln_shader_view *view, uint32_t offset);
/* Short names: "vertex", "uniform_buffer", "float", "vulkan1.3". Never NULL. */
const char *kiln_shader_stage_str(kiln_shader_stage stage);
const char *kiln_binding_type_str(kiln_binding_type type);
const char *kiln_shader_base_type_str(kiln_shader_base_type type);
const char *kiln_shader_target_str(kiln_shader_target target);

/* ---------------------------------------------------------------------------
 * Packs (.kpak): a whole runtime tree in one mapped file (docs/formats/kpak.md)
 * ------------------------------------------------------------------------- */

/* An open pack. Fields are read-only; kiln_pack_close() releases it. */
typedef struct kiln_pack {
    const uint8_t *data;
    size_t size;
    uint32_t entry_count;
    const kiln_pack_entry_disk *entries; /* validated, sorted by path */
    const char *strings;
    char name[128]; /* for messages */
    /* private */
    void *owned_;
    size_t owned_size_;
} kiln_pack;

/* One entry: a file of the packed tree. `data` is 16-byte aligned and stays
 * valid until kiln_pack_close(). */
typedef struct kiln_pack_item {
    const char *path; /* NUL-terminated, '/'-separated, relative */
    uint32_t path_length;
    kiln_pack_kind kind;
    const void *data;
    uint64_t size;
    uint32_t index; /* in path order */
} kiln_pack_item;

/* Maps and fully validates a pack in O(entries + path bytes): header, bounds
 * (overflow-safe), sorted unique paths, aligned non-overlapping payloads. */
kiln_result kiln_pack_open(kiln_pack *pack, const char *path, kiln_error *err);
/* The same over caller-owned bytes (16-byte aligned, alive until close). */
kiln_result kiln_pack_from_memory(kiln_pack *pack, const void *data, size_t size, const char *name,
                                  kiln_error *err);
void kiln_pack_close(kiln_pack *pack);

/* Entry `index` (0..entry_count-1). */
kiln_result kiln_pack_entry(const kiln_pack *pack, uint32_t index, kiln_pack_item *item);
/* The entry whose path is exactly `path` (binary search): KILN_ERR_NOT_FOUND if none. */
kiln_result kiln_pack_find(const kiln_pack *pack, const char *path, kiln_pack_item *item);
/* Iterates by kind: the first entry of `kind` at or after index *cursor; on
 * success *cursor moves past it. Start with *cursor = 0; returns false at the end. */
bool kiln_pack_next(const kiln_pack *pack, kiln_pack_kind kind, uint32_t *cursor,
                    kiln_pack_item *item);
/* The manifest (assets.kman) as a kiln_file over the pack's bytes; use it
 * with kiln_manifest_view_get and close it with kiln_file_close. */
kiln_result kiln_pack_manifest(const kiln_pack *pack, kiln_file *file, uint32_t flags,
                               kiln_error *err);
/* The kind of a file name ("a/b.kmesh" -> KILN_PACK_MESH). */
kiln_pack_kind kiln_pack_kind_of(const char *path);
/* "mesh", "material", "texture", "manifest", "other". Never NULL. */
const char *kiln_pack_kind_str(kiln_pack_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KILN_H */
