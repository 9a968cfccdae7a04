/*
 * assimp_convert.h — internal to the assimp importer (assimp.c): the
 * conversion of a scene assimp has read into the IR, apart from the reading,
 * so that it can be run on a scene built in memory (fuzz/fuzz_assimp_scene.c
 * builds hostile ones). Not part of the import stage's interface (import.h):
 * the pipeline calls import_assimp.
 */
#ifndef KILN_COOK_IMPORT_ASSIMP_CONVERT_H
#define KILN_COOK_IMPORT_ASSIMP_CONVERT_H

#include <stdbool.h>

#include "cook/core/core.h"

struct aiScene;

/* Converts `scene` (as assimp returned it to import_assimp: counts match the
 * arrays, values are untrusted) into `out`, zeroed first, as import_assimp
 * documents (assimp.c). Messages name ctx->source_path. On failure (errors
 * reported to ctx->diag) `out` is freed and empty. The scene is only read. */
bool assimp_convert_scene(cook_context *ctx, const struct aiScene *scene, ir_asset *out);

#endif
