/*
 * cook.h — the cooker's entry points: everything the build engine (src/build/)
 * and the CLI (src/cli/) see of the cooker, and nothing of the stages'
 * insides: no IR, no mesh processing, no encoders, no file formats but the
 * manifest and the pack.
 *
 *   discover → driver per asset kind: import → process → encode → write
 *
 * It exports, besides the registry and cook_asset below:
 *
 *   core/util.h        bytebuf, strlist, paths, whole-file reading: what
 *                      results, settings JSON and diagnostics are made of
 *   core/diag.h        per-asset diagnostics (the build reports through them)
 *   core/settings.h    the settings table and the resolved cook_settings
 *                      (kiln.yml is read against it, cache keys hash it)
 *   core/result.h      cook_request, cook_asset_result, the manifest entries,
 *                      the activity a progress line watches, the encoder version
 *   core/parallel.h    the one thread pool (the build's -j)
 *   core/yaml_doc.h    the YAML loader (kiln.yml loads like a level)
 *   core/named_paths.h the paths a source names, where its bytes spell them
 *                      (import/source_paths*.c): what `kiln mv` rewrites
 *   discover/discover.h  the walk of the input tree, glob patterns
 *   write/outputs.h    atomic files, the manifest, a .kpak
 *   inspect/inspect.h  cooked files read back: `kiln info`, `kiln check`
 *
 * The IR and the context a driver cooks in are declared here only as
 * incomplete types, for the registry's function pointers. The stages' own
 * headers (core/core.h, import/, process/, encode/, write/write.h) are for
 * the cooker's rooms; who may include whom is checked by
 * scripts/check_layout.sh.
 */
#ifndef KILN_COOK_COOK_H
#define KILN_COOK_COOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/diag.h"
#include "cook/core/named_paths.h"
#include "cook/core/parallel.h"
#include "cook/core/result.h"
#include "cook/core/settings.h"
#include "cook/core/util.h"
#include "cook/core/yaml_doc.h"
#include "cook/discover/discover.h"
#include "cook/inspect/inspect.h"
#include "cook/write/outputs.h"
#include "kiln/kiln.h"

/* Opaque here: a driver's context (core/core.h) and the IR (core/ir.h). */
typedef struct cook_context cook_context;
typedef struct ir_asset ir_asset;

/* ---------------------------------------------------------------------------
 * The registry (drivers/registry.c): which importer and driver cook a file
 * ------------------------------------------------------------------------- */

/* Turns a source into cooked files, calling the stages forward; reports to
 * ctx->diag and returns false on failure (drivers.h). */
typedef bool (*cook_driver_fn)(const cook_request *request, cook_context *ctx,
                               cook_asset_result *result);
/* A model importer: the source into the IR. Returns true on success; on
 * failure it has reported errors to ctx->diag. */
typedef bool (*cook_import_fn)(cook_context *ctx, ir_asset *out);

/* What a registry row cooks. The build cooks models first: the files a model
 * reads (its .bin, .mtl, images) are cooked through it, never on their own. */
typedef enum cook_asset_kind {
    COOK_KIND_MODEL = 1,
    COOK_KIND_TEXTURE = 2,       /* a standalone image, usage by naming convention */
    COOK_KIND_CUBEMAP = 3,       /* a "*.env" folder of six faces */
    COOK_KIND_LUT = 4,           /* a ".lut.cube" 3D colour LUT */
    COOK_KIND_LEVEL = 5,         /* a "*.level" text level (drivers/level.c) */
    COOK_KIND_SHADER = 6,        /* a shader stage file or a "*.shader" folder */
    COOK_KIND_TEXTURE_ARRAY = 7, /* a "*.array" folder of layers */
    COOK_KIND_MATERIAL = 8,      /* a "*.mat" standalone material */
} cook_asset_kind;

/* Whether the files an asset of this kind reads (a model's .bin and images,
 * a standalone material's images) are cooked through it: the build cooks
 * these kinds first and never cooks those files on their own. */
static inline bool cook_kind_reads_through(cook_asset_kind kind) {
    return kind == COOK_KIND_MODEL || kind == COOK_KIND_MATERIAL;
}

typedef struct cook_importer {
    const char *name;            /* "obj": in cache keys and messages */
    const char *const *patterns; /* globs on the file name, NULL-terminated */
    cook_asset_kind kind;
    cook_driver_fn driver; /* the asset kind's driver */
    cook_import_fn import; /* the model driver's importer; NULL for other kinds */
    bool folder;           /* the asset is a folder ("sky.env/"), not a file */
} cook_importer;

/* The importer for a path (matched on its file name, case-insensitively), or
 * NULL when no importer claims it. */
const cook_importer *cook_registry_match(const char *relative_path);
/* The canonical ref of a source the importer claims: kiln_ref_canonicalize,
 * except that a lone GLSL shader stage keeps its extension
 * ("shaders/Blur.comp" -> "shaders/blur.comp"). */
kiln_result cook_asset_ref(const cook_importer *importer, const char *relative_path, char *out,
                           size_t capacity);
/* The registry, for listing. */
const cook_importer *cook_registry_rows(size_t *count);
/* True when a folder's path names an asset folder: "*.env" (a cubemap),
 * "*.array" (a texture array). The build walks sources with it
 * (discover_walk_sources). */
bool cook_registry_is_folder(const char *relative_path);

/* ---------------------------------------------------------------------------
 * Cooking (drivers/asset.c)
 * ------------------------------------------------------------------------- */

/* Cooks one asset. Never stops the process: every failure becomes a message
 * in result->diag and result->ok == false. Thread-safe for distinct results. */
bool cook_asset(const cook_request *request, cook_asset_result *result);

#endif /* KILN_COOK_COOK_H */
