/*
 * cook.h — the cooker's entry points: everything the CLI (and a program that
 * cooks in process) needs, and nothing of the stages' insides.
 *
 *   discover → driver per asset kind: import → process → encode → write
 *
 *   core/      diagnostics, context, settings, the IR, the one thread pool,
 *              the YAML loader (yaml_doc.h: kiln.yml and levels load alike)
 *   discover/  the walk of the input tree, glob patterns
 *   import/ process/ encode/ write/   the stages, one header each
 *   drivers/   one driver per asset kind, the registry and cook_asset
 *   inspect/   cooked files read back: checks, texture quality (inspect.h,
 *              re-exported here for the CLI)
 *
 * Who may include whom is checked by scripts/check_layout.sh.
 */
#ifndef KILN_COOK_COOK_H
#define KILN_COOK_COOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/core.h"
#include "cook/core/yaml_doc.h"
#include "cook/discover/discover.h"
#include "cook/inspect/inspect.h"
#include "cook/write/write.h"

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
    COOK_KIND_TEXTURE = 2, /* a standalone image, usage by naming convention */
    COOK_KIND_CUBEMAP = 3, /* a "*.env" folder of six faces */
    COOK_KIND_LUT = 4,     /* a ".lut.cube" 3D colour LUT */
    COOK_KIND_LEVEL = 5,   /* a "*.level" text level (drivers/level.c) */
    COOK_KIND_SHADER = 6,  /* a shader stage file or a "*.shader" folder */
} cook_asset_kind;

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
/* True when a folder's path names an asset folder: "*.env" (a cubemap). The
 * build walks sources with it (discover_walk_sources). */
bool cook_registry_is_folder(const char *relative_path);

/* ---------------------------------------------------------------------------
 * Cooking (drivers/asset.c)
 * ------------------------------------------------------------------------- */

/* Cooks one asset. Never stops the process: every failure becomes a message
 * in result->diag and result->ok == false. Thread-safe for distinct results. */
bool cook_asset(const cook_request *request, cook_asset_result *result);

#endif /* KILN_COOK_COOK_H */
