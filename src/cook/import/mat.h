/*
 * mat.h — standalone material files (`*.mat`, YAML; docs/materials.md): the
 * parser the material driver (drivers/material.c), the model driver's
 * material.replace and the fuzz harness call.
 *
 *   name: Oak planks              # default: the file's name without .mat
 *   base_color: [1, 0.9, 0.8, 1]  # every factor of the .kmat row (kmat.md)
 *   metallic: 0
 *   roughness: 0.7
 *   alpha_mode: mask              # opaque, mask or blend
 *   double_sided: true
 *   flags: [no_cast_shadows]      # material.flags' words
 *   textures:
 *     base_color: oak_albedo.png  # relative to the .mat
 *     normal: {image: oak_normal.png, wrap_s: clamp_to_edge, min_filter: nearest}
 *
 * The parser reads one file's bytes; resolving the images is the caller's.
 * Every message names the file and the line. Unknown keys are errors: a
 * hand-written file's typo must not pass unseen.
 */
#ifndef KILN_COOK_IMPORT_MAT_H
#define KILN_COOK_IMPORT_MAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/core.h"

#define MAT_MAX_BYTES ((size_t)1 << 20) /* one material file */
#define MAT_MAX_YAML_DEPTH 4u           /* file, textures, a slot's map, a list */

/* One material file: asset.materials[0] and the images its slots use (each
 * path as written, relative to the .mat; two slots naming the same path
 * share one image). */
typedef struct mat_doc {
    ir_asset asset;
    uint32_t image_lines[IR_SLOT_COUNT]; /* the line naming each image */
    char *flags;                         /* the flags' words, space-separated, or NULL */
    uint32_t flags_line;
} mat_doc;

/* Parses `bytes` (the file at `path`, for messages; its stem is the default
 * name). False, after errors in `diag` naming path:line, when the file is
 * not a material. */
bool mat_parse(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag, mat_doc *out);
void mat_doc_free(mat_doc *doc);

#endif /* KILN_COOK_IMPORT_MAT_H */
