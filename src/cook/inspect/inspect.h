/*
 * inspect.h — the inspection room: what a cooked file holds and whether it
 * is right, read back through the runtime's views (kiln.h), with the
 * cooker's own decoders where the bytes must be decoded again.
 *
 *   quality.c    a texture's block modes and PSNR against its source
 *                (`kiln info --quality`)
 *   shader.c     a .kshader's SPIR-V validated and reflected again
 *                (`kiln check`); the names of shader interface types
 *   verify.c     a written file read back deeply, per kind (`kiln build
 *                --verify`, write/emit.c; `kiln check`)
 *   check.c      every check of one cooked file (`kiln check`)
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

#include "cook/core/core.h"

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
} cook_texture_quality;

/* Decodes level 0 of `view` and compares it with its source under
 * input_root. Never fails: what could not be measured is said in out->note. */
void inspect_texture_quality(const kiln_ktx2_view *view, const char *input_root,
                             cook_texture_quality *out);

/* ---------------------------------------------------------------------------
 * Shaders (shader.c)
 * ------------------------------------------------------------------------- */

/* Every stage's module through SPIRV-Tools' validator with the file's target,
 * and the reflection tables against the module (each stage's entry point).
 * False with a reason at the first problem. */
bool inspect_shader(const kiln_shader_view *view, char *reason, size_t reason_size);

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

/* KTX2 bytes under the runtime reader's rules, every level inflated to its
 * declared size in bounded memory. `name` names the file in *error. */
bool inspect_ktx2_bytes(const uint8_t *data, size_t size, const char *name, kiln_error *error);

/* The runtime's message without the "<file>: " it starts with, for printing
 * after "<path>: error: ". */
const char *inspect_error_detail(const kiln_error *error, const char *path);

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

#endif /* KILN_COOK_INSPECT_INSPECT_H */
