/*
 * gltf_internal.h — shared state of the glTF 2.0 importer (import/gltf*.c).
 *
 *   gltf.c           entry point, GLB container, root checks, extensions,
 *                    buffers and URIs, images, textures, samplers, materials
 *   gltf_json.c      diagnostics with JSON paths, typed JSON access, names
 *   gltf_accessor.c  buffer views (with EXT_meshopt_compression), accessors
 *                    (strides, sparse, normalisation) and their decoding
 *   gltf_mesh.c      meshes and primitives into ir_mesh (and the default
 *                    material of primitives without one)
 *   gltf_scene.c     nodes and scenes into ir_node, skins into ir_skin;
 *                    animations validated
 *   gltf_camera.c    cameras, KHR_lights_punctual lights and
 *                    EXT_mesh_gpu_instancing instances
 *   gltf_anim.c      animations into ir_animation, default morph weights
 *
 * Calls go one way (scripts/check_cycles.sh checks it): gltf.c, the entry,
 * calls the middle files (mesh, scene, camera, anim), which call the accessor
 * and JSON files at the bottom; no file calls one above it.
 *
 * Every message names the JSON path of the problem ("meshes[2].primitives[0]
 * .indices: accessor 7 does not exist"). Nothing read from the file sizes an
 * allocation unless bytes in the file back it; decoded data is also charged to
 * a budget proportional to the input size, so shared accessors or meshopt
 * streams cannot expand without bound.
 */
#ifndef KILN_COOK_IMPORT_GLTF_INTERNAL_H
#define KILN_COOK_IMPORT_GLTF_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/import/gltf_component.h"
#include "cook/import/import.h"

#define GLTF_MAX_ERRORS 32u /* then "too many errors" and the import stops */
#define GLTF_PATH_SIZE 256  /* a JSON path for messages */

enum { GLTF_ARRAY_BUFFER = 34962, GLTF_ELEMENT_ARRAY_BUFFER = 34963 };

/* How a buffer view is used, for the "one view, one kind of data" rule. */
enum {
    GLTF_USE_VERTEX = 1u, /* attribute or morph target data */
    GLTF_USE_INDEX = 2u,  /* primitive indices */
    GLTF_USE_OTHER = 4u,  /* images, skins, animations, sparse data */
};

enum { MESHOPT_ATTRIBUTES, MESHOPT_TRIANGLES, MESHOPT_INDICES };
enum { MESHOPT_NONE, MESHOPT_OCTAHEDRAL, MESHOPT_QUATERNION, MESHOPT_EXPONENTIAL };

typedef struct gltf_buffer {
    const uint8_t *data; /* NULL when the buffer has no data (placeholder) */
    uint8_t *owned;
    uint64_t length; /* declared byteLength; data holds at least this */
} gltf_buffer;

/* Views and accessors are validated when first used (lazily): a problem in
 * one that something kiln reads is an error; one that nothing reads is
 * validated at the end with warnings (gltf_check_unused). */
enum { GLTF_UNCHECKED, GLTF_VALID, GLTF_INVALID };

typedef struct gltf_view {
    uint8_t state; /* GLTF_UNCHECKED / GLTF_VALID / GLTF_INVALID */
    uint32_t buffer;
    uint64_t offset;
    uint64_t length;
    uint32_t stride; /* 0: not given (tightly packed) */
    uint32_t target; /* 0 when not given */
    uint8_t usage;   /* GLTF_USE_* seen so far */
    /* EXT_meshopt_compression: the view's bytes are decoded from here. */
    bool meshopt;
    uint32_t mo_buffer;
    uint64_t mo_offset;
    uint64_t mo_length;
    uint32_t mo_stride;
    uint32_t mo_count;
    int mo_mode;
    int mo_filter;
    uint8_t *decoded; /* view->length bytes once decoded */
    bool decode_failed;
    /* The IR image made from this view's bytes, plus 1 (0: none yet): images
     * sharing a view share one copy and one cooked texture. */
    int32_t image_ir_plus1;
} gltf_view;

typedef struct gltf_accessor {
    uint8_t state; /* GLTF_UNCHECKED / GLTF_VALID / GLTF_INVALID */
    int64_t view;  /* -1: no buffer view (zeros, maybe sparse) */
    uint64_t offset;
    uint32_t component_type;
    uint32_t component_size;
    uint32_t components; /* per element: 1..4, 4 (MAT2), 9 (MAT3), 16 (MAT4) */
    uint32_t columns;    /* 1 for scalars and vectors */
    uint32_t rows;
    uint32_t column_stride; /* bytes between matrix columns (4-byte aligned) */
    uint32_t element_size;  /* bytes of one element, with column padding */
    uint32_t stride;        /* bytes between elements */
    uint32_t count;
    bool normalized;
    bool has_min;
    bool has_max;
    const char *type; /* "SCALAR", "VEC3", ... */
    /* sparse */
    uint32_t sparse_count;
    uint32_t sparse_index_view;
    uint64_t sparse_index_offset;
    uint32_t sparse_index_type;
    uint32_t sparse_value_view;
    uint64_t sparse_value_offset;
    uint8_t data_checked; /* animation checks already done on this accessor's data */
    /* KHR_draco_mesh_compression: the decoded values (count elements of
     * element_size bytes, owned), read instead of the bufferView (the
     * uncompressed fallback), or NULL. */
    uint8_t *decoded;
    uint32_t decoded_view; /* the bufferView of the Draco data decoded */
} gltf_accessor;

typedef struct gltf_image {
    char *path; /* root-relative path of an external file, or NULL */
    bool resolved;
    int64_t view;   /* bufferView of an embedded image, or -1 */
    uint8_t *bytes; /* a decoded data: URI (owned), or NULL */
    size_t size;
    const char *uri; /* as written (in the JSON document), or NULL */
    int32_t ir;      /* index in ir_asset.images once a material used it, else -1 */
} gltf_image;

/* The largest joint a glTF mesh's skinned primitives name (for the check
 * against the skins of the nodes using it). */
typedef struct gltf_joint_use {
    uint32_t max_plus1; /* 0: no joints read */
    uint32_t primitive;
    uint32_t set; /* JOINTS_<set> */
    uint32_t element;
} gltf_joint_use;

typedef struct gltf {
    cook_context *ctx;
    const char *path; /* the source, for messages */
    json_t *root;
    bool glb;
    const uint8_t *bin; /* GLB BIN chunk, or NULL */
    uint64_t bin_size;

    /* top-level collections (NULL when absent) and their sizes */
    json_t *j_accessors, *j_animations, *j_buffers, *j_views, *j_cameras, *j_images, *j_materials,
        *j_meshes, *j_nodes, *j_samplers, *j_scenes, *j_skins, *j_textures;
    size_t n_accessors, n_animations, n_buffers, n_views, n_cameras, n_images, n_materials,
        n_meshes, n_nodes, n_samplers, n_scenes, n_skins, n_textures;

    bool ext_quantization; /* KHR_mesh_quantization in extensionsUsed */
    bool ext_meshopt;      /* EXT_meshopt_compression in extensionsUsed */
    bool ext_draco;        /* KHR_draco_mesh_compression in extensionsUsed */

    gltf_buffer *buffers;
    gltf_view *views;
    gltf_accessor *accessors;
    gltf_image *images;

    int32_t *texture_image;     /* per texture: its usable image, or -1 */
    uint32_t *material_uv_sets; /* per material: bit k = a texture reads TEXCOORD_k */
    int64_t default_material;   /* ir index of the appended default, or -1 */

    int32_t *node_parent; /* per glTF node */
    uint32_t *node_mark;  /* per glTF node: last gltf_next_mark() that saw it */
    int32_t *node_root;   /* per glTF node: the root of its tree */
    uint32_t *node_pre;   /* depth-first entry and exit numbers: a is an */
    uint32_t *node_post;  /* ancestor of b iff pre[a] <= pre[b] && post[b] <= post[a] */
    uint32_t mark;
    int32_t *mesh_map;           /* glTF mesh -> ir mesh, or -1 */
    uint32_t *mesh_targets;      /* morph targets per glTF mesh */
    gltf_joint_use *mesh_joints; /* per glTF mesh */

    /* While set, gltf_error reports warnings: the object being checked is
     * used by nothing kiln cooks (gltf_check_unused). */
    bool unused;
    uint64_t budget; /* bytes of decoded data still allowed */
    uint32_t errors;
    bool stopped; /* too many errors */
} gltf;

/* ---- gltf.c ------------------------------------------------------------ */

/* Decodes the "%XX" escapes of `text` into out (room for strlen(text) + 1
 * bytes); other characters are copied. False at a malformed escape (or %00
 * unless allow_nul), with *bad at its position. */
bool gltf_percent_decode(const char *text, bool allow_nul, uint8_t *out, size_t *n, size_t *bad);

/* ---- gltf_json.c -------------------------------------------------------- */

/* Formats a JSON path into out[GLTF_PATH_SIZE], truncating silently. */
void gltf_pathf(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error; a warning while g->unused is set (a bad value in an object
 * nothing cooked uses). */
void gltf_error(gltf *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error even in an unused object: a malformed document (wrong JSON type,
 * missing required property, unresolved reference) or a refused URI. */
void gltf_error_always(gltf *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gltf_warning(gltf *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool gltf_out_of_memory(gltf *g);
/* Takes `bytes` from the decode budget; false (with an error) when exhausted. */
bool gltf_charge(gltf *g, uint64_t bytes, const char *jpath);
const char *gltf_json_type_name(const json_t *value);

/* The accessors below look up obj[key] at JSON path `jpath` (of obj). A
 * missing optional member leaves the default; a wrong type or range is an
 * error naming "<jpath>.<key>". They return false after reporting an error. */
bool gltf_get_object(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                     const json_t **out);
bool gltf_get_array(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                    const json_t **out);
bool gltf_get_string(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                     const char **out);
bool gltf_get_bool(gltf *g, const json_t *obj, const char *jpath, const char *key, bool *out);
/* An integer in [min, max]. */
bool gltf_get_uint(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                   uint64_t min, uint64_t max, uint64_t *out);
/* A number in [min, max]. */
bool gltf_get_number(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                     double min, double max, double *out);
/* An index into a collection of `count` `what`s ("accessor"); -1 when absent. */
bool gltf_get_index(gltf *g, const json_t *obj, const char *jpath, const char *key, bool required,
                    const char *what, size_t count, int64_t *out);
/* The same for a value already at hand (an array element) at `jpath`. */
bool gltf_index_value(gltf *g, const json_t *value, const char *jpath, const char *what,
                      size_t count, int64_t *out);
/* An array of exactly n numbers in [min, max]. */
bool gltf_get_floats(gltf *g, const json_t *obj, const char *jpath, const char *key, size_t n,
                     double min, double max, float *out);
/* Checks the members every glTF object may have: name (string), extensions
 * (object of objects), extras (anything). */
bool gltf_check_object(gltf *g, const json_t *value, const char *jpath);
/* Element `i` of collection array `array` named `name` must be an object. */
const json_t *gltf_element(gltf *g, const json_t *array, const char *name, size_t i);
/* obj.extensions[name], when present and an object. */
const json_t *gltf_extension(const json_t *obj, const char *name);
/* `obj`'s extras and the extensions the NULL-terminated `known` does not name
 * (known may be NULL), as ir_extras_text (ir.h) into *out; *out stays NULL
 * when there is neither. False when out of memory (reported). */
bool gltf_extras_text(gltf *g, const json_t *obj, const char *const *known, char **out);
/* A copy of the glTF name, or "<prefix>_<index>" when it has none. */
char *gltf_name(gltf *g, const json_t *obj, const char *prefix, size_t index);

/* ---- gltf_accessor.c ---------------------------------------------------- */

/* Allocates the view and accessor tables; nothing is validated yet. */
bool gltf_prepare_accessors(gltf *g);
/* Validates a view or an accessor (and the views it reads) on first use;
 * false when it is invalid (reported once, by the first use). */
bool gltf_view_valid(gltf *g, uint32_t view);
bool gltf_accessor_valid(gltf *g, uint32_t accessor);
/* Validates the views and accessors nothing used, as warnings. */
void gltf_check_unused(gltf *g);
/* Compares every valid accessor's min and max with its data (raw values, as
 * glTF defines them): a bound some element passes, or one no element
 * reaches, is a warning naming accessors[i].min or .max (kiln computes its
 * own bounds). Sparse accessors are left out. */
void gltf_check_accessor_bounds(gltf *g);
/* Bytes of a buffer view, decoded when it is meshopt-compressed. */
bool gltf_view_bytes(gltf *g, uint32_t view, const uint8_t **data);
/* Whether every buffer the accessor's data comes from holds data (a buffer
 * without uri in a .gltf, or a GLB without BIN chunk, has none). */
bool gltf_accessor_readable(const gltf *g, uint32_t accessor);
/* Whether the accessor stores values (a bufferView or sparse), as opposed to
 * being all zeros. */
bool gltf_accessor_stored(const gltf *g, uint32_t accessor);
/* Records that `jpath` uses the accessor's buffer view as `use`; reports a
 * view used both for vertices and indices or against its declared target. */
bool gltf_use_accessor_view(gltf *g, uint32_t accessor, uint8_t use, const char *jpath);
/* Decodes a whole accessor into count * components floats (normalised
 * integers converted per the spec, sparse substitution applied). `jpath`
 * names the referencing property. Caller frees *out. */
bool gltf_read_floats(gltf *g, uint32_t accessor, const char *jpath, float **out);
/* The same as unsigned integers (indices, joints): integer types only. */
bool gltf_read_uints(gltf *g, uint32_t accessor, const char *jpath, uint32_t **out);
/* Both into the caller's count * components values (a mesh's own stream:
 * no copy, nothing charged to the budget again). False on an error. */
bool gltf_read_floats_into(gltf *g, uint32_t accessor, const char *jpath, float *out);
bool gltf_read_uints_into(gltf *g, uint32_t accessor, const char *jpath, uint32_t *out);
/* The asset's threads, for work spread over a mesh's elements. */
unsigned gltf_threads(const gltf *g);
/* "{VEC3, FLOAT}" style text for messages. */
const char *gltf_component_name(uint32_t component_type);

/* ---- gltf_scene.c helpers ---- */

/* A fresh value for node_mark: "seen in this list" without clearing. */
uint32_t gltf_next_mark(gltf *g);

/* ---- gltf_mesh.c -------------------------------------------------------- */

bool gltf_import_meshes(gltf *g, ir_asset *out);

/* ---- gltf_scene.c ------------------------------------------------------- */

bool gltf_import_nodes(gltf *g, ir_asset *out);
bool gltf_check_scenes(gltf *g);
bool gltf_import_scenes(gltf *g, ir_asset *out);
bool gltf_import_skins(gltf *g, ir_asset *out);
bool gltf_check_animations(gltf *g);

/* ---- gltf_camera.c ------------------------------------------------------ */

/* cameras[] into ir_asset.cameras, KHR_lights_punctual's lights into
 * ir_asset.lights (validated as the file's header comment says). */
bool gltf_import_cameras(gltf *g, ir_asset *out);
bool gltf_import_lights(gltf *g, ir_asset *out);
/* After the nodes, cameras and lights: each node's camera, light and
 * EXT_mesh_gpu_instancing instances. */
bool gltf_import_node_objects(gltf *g, ir_asset *out);

/* ---- gltf_anim.c -------------------------------------------------------- */

/* Every animation (validated by gltf_check_animations) into
 * ir_asset.animations, and each node's default morph weights. */
bool gltf_import_animations(gltf *g, ir_asset *out);

#endif /* KILN_COOK_IMPORT_GLTF_INTERNAL_H */
