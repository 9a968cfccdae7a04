/*
 * import.h — the import stage: source files into the IR (core/ir.h).
 *
 * Importers only produce IR; they do no optimisation. Every file an importer
 * opens besides its source goes through cook_read_dependency (core.h), which
 * keeps it inside the input root and records it for the incremental cache.
 *
 *   obj*.c mtl.c       Wavefront OBJ and MTL (kiln's own; obj_internal.h
 *                      lists the OBJ files), with
 *   scan_number.c      the number scanner both read numbers with
 *   gltf*.c            glTF 2.0 and GLB (kiln's own; gltf_internal.h), with
 *   draco_decode.cpp   KHR_draco_mesh_compression through libdraco (C shim)
 *   assimp*.c          every other model format, through assimp (assimp.c
 *                      reads and documents; assimp_internal.h lists the
 *                      conversion's files), with
 *   assimp_anim.c      its animations and
 *   assimp_precheck.c  the checks of the bytes before assimp reads them
 *   image.c            PNG, JPEG, TGA, BMP, Radiance HDR decode; .cube LUTs
 *   level.c            text level files, *.level (level.h)
 *   shader_compile.c   GLSL and HLSL to SPIR-V (shader.h), through
 *   shader_glslang.cpp glslang's C++ API
 *   isolate*.c         third-party importers (assimp) in a child process, so
 *   ir_wire.c          their crash or hang fails one asset (isolate.h)
 *
 * import may use core and common.
 */
#ifndef KILN_COOK_IMPORT_IMPORT_H
#define KILN_COOK_IMPORT_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cook/core/core.h"

/* ---------------------------------------------------------------------------
 * Models (each returns true on success; on failure it has reported errors to
 * ctx->diag)
 * ------------------------------------------------------------------------- */

/* Runs a model importer as the pipeline does: a third-party one (assimp) in
 * a child process, so its crash, hang or runaway allocation is an error for
 * this asset alone (isolate.h); the others, or every one with KILN_ISOLATE=0
 * in the environment, in this process. Same contract as the importer. */
bool import_run(cook_context *ctx, bool (*import)(cook_context *ctx, ir_asset *out), ir_asset *out);

bool import_obj(cook_context *ctx, ir_asset *out);
/* import_obj with the file cut into ranges of about `range_bytes` parsed on
 * settings->threads threads (0: in one pass): the same IR and messages
 * either way. *in_ranges (may be NULL) tells whether the ranges did it or the
 * file needed one pass (a file one pass would warn about in a v, vt, vn or f
 * statement, or with l or p ones). import_obj uses ranges of OBJ_RANGE_BYTES
 * for a file of OBJ_RANGES_MIN_BYTES or more on more than one thread. */
bool import_obj_ranges(cook_context *ctx, ir_asset *out, size_t range_bytes, bool *in_ranges);
#define OBJ_RANGE_BYTES ((size_t)2 << 20) /* smaller: fewer cache misses in its vertex table */
#define OBJ_RANGES_MIN_BYTES ((size_t)8 << 20)

/* glTF 2.0, .gltf (JSON with external or data: buffers) and .glb (import/gltf.c). */
bool import_gltf(cook_context *ctx, ir_asset *out);

/* Every other model format assimp reads: FBX, DAE, 3DS, PLY, STL … (import/assimp*.c). */
bool import_assimp(cook_context *ctx, ir_asset *out);

/* Cheap checks of a model's bytes before assimp reads them
 * (import/assimp_precheck.c): a PLY header that never reaches a well-formed
 * `end_header` line, has a line whose keyword PLY does not define, or
 * declares more than the file holds, OFF counts above
 * the file's size, AC3D counts above the bytes left — inputs on which assimp
 * 5.2 loops, crashes or allocates without bound: false after an error naming
 * `path`, the line and the problem. AC3D `subdiv` levels that would make
 * more than 2^16 faces are lowered with a warning: *rewritten is then a
 * malloc'd copy of the `size` bytes, the numbers rewritten, for assimp to
 * read instead (NULL when nothing was rewritten; the caller frees it). */
bool assimp_precheck(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag,
                     uint8_t **rewritten);

/* assimp's animations into out->animations (import/assimp_anim.c documents
 * the conversion), for the nodes import_assimp made from the same scene: every
 * node with a `source` is the aiNode at that depth-first position. Warnings
 * name what is not cooked; false only when out of memory (an error). */
struct aiScene;
bool import_assimp_animations(cook_context *ctx, const char *path, const struct aiScene *scene,
                              ir_asset *out);

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
        has_metallic, has_specular;
    double diffuse[3];   /* Kd */
    double specular[3];  /* Ks */
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
 * base_color, alpha_mode, roughness, metallic, emissive and specular of `material`,
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
/* How many of the 8 bytes at p (all readable) are digits before the first one
 * that is not, and their value. Inline: the numbers and the OBJ face indices
 * of a mesh file are read with it. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight at a time. A byte is a digit when neither b - '0' borrows nor
 * b + 0x46 carries into its top bit; bytes after the first non-digit may be
 * misjudged, but only the first one counts. */
static inline unsigned import_leading_digits(const unsigned char *p, uint32_t *value) {
    uint64_t chunk;
    memcpy(&chunk, p, sizeof chunk); /* the first byte is the lowest */
    uint64_t non_digit =
        ((chunk - 0x3030303030303030ull) | (chunk + 0x4646464646464646ull)) & 0x8080808080808080ull;
    unsigned n = non_digit ? (unsigned)__builtin_ctzll(non_digit) / 8 : 8;
    if (n == 0) {
        *value = 0;
        return 0;
    }
    /* The n digits moved to the top, zeros below: an 8-digit number with
     * leading zeros, combined pairwise (2, then 4, then 8 digits). */
    chunk = (chunk << (8 * (8 - n))) & 0x0f0f0f0f0f0f0f0full;
    chunk = (chunk * 2561) >> 8;
    chunk = ((chunk & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
    *value = (uint32_t)(((chunk & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32);
    return n;
}
#else
static inline unsigned import_leading_digits(const unsigned char *p, uint32_t *value) {
    unsigned n = 0;
    uint32_t v = 0;
    for (; n < 8 && p[n] >= '0' && p[n] <= '9'; n++)
        v = v * 10 + (uint32_t)(p[n] - '0');
    *value = v;
    return n;
}
#endif
/* ---------------------------------------------------------------------------
 * Images (image.c)
 * ------------------------------------------------------------------------- */

#define IMAGE_DEFAULT_MAX_DIMENSION 16384u
/* Decoded pixels an image may have (decompression-bomb guard): 64 Mi pixels,
 * 256 MiB as RGBA8, 1 GiB as the float working copy the mip stage uses. */
#define IMAGE_DEFAULT_MAX_PIXELS ((uint64_t)64 << 20)

typedef struct image_limits {
    uint32_t max_dimension; /* largest width or height */
    uint64_t max_pixels;    /* width * height */
    double timeout_seconds; /* an isolated decode's wall clock (import.timeout); 0: its default */
} image_limits;

/* Decodes an encoded image file. On failure returns false with a reason
 * (without the file name) in `reason`. `limits` may be NULL for defaults.
 * A file a third-party library decodes (image_decoder_library) is decoded in
 * a child process (isolate_decode.c; KILN_ISOLATE=0: here): the same pixels,
 * and a crash or hang of the library is this call's failure. */
bool image_decode(const uint8_t *bytes, size_t size, const char *name_hint,
                  const image_limits *limits, ir_decoded_image *out, char *reason,
                  size_t reason_size);
/* The same, always in this process (image.c). */
bool image_decode_in_process(const uint8_t *bytes, size_t size, const char *name_hint,
                             const image_limits *limits, ir_decoded_image *out, char *reason,
                             size_t reason_size);
/* The third-party library that decodes these bytes ("libspng", "libjpeg",
 * "stb_image"), or NULL when kiln's own code does (Radiance HDR) or nothing
 * does (an unrecognised file, refused by image_decode). */
const char *image_decoder_library(const uint8_t *bytes, size_t size, const char *name_hint);

/* Parses an Adobe/Resolve .cube 3D LUT: *size_out entries per axis, RGB
 * floats (r fastest) in *rgb (caller frees). */
bool image_parse_cube_lut(const char *text, size_t size, uint32_t *size_out, float **rgb,
                          char *reason, size_t reason_size);

#endif /* KILN_COOK_IMPORT_IMPORT_H */
