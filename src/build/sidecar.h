/*
 * build/sidecar.h — an asset's own settings file beside its source:
 * `NAME.EXT.kiln.yml` next to `NAME.EXT` (docs/configuration.md, Sidecars).
 *
 * It holds the asset's stable ID (`id:`) and settings keys, read like a
 * kiln.yml rule's and applied after every rule. It is not an asset: the plan
 * skips it, and warns about one beside no source.
 */
#ifndef KILN_BUILD_SIDECAR_H
#define KILN_BUILD_SIDECAR_H

#include <stdbool.h>
#include <stdint.h>

#include "build/config.h"

#define SIDECAR_SUFFIX ".kiln.yml"

typedef struct build_sidecar {
    bool present;
    config_overlay overlay; /* its settings keys */
    uint32_t lines[64];     /* lines[i]: the line that set cook_setting_table[i], 0: none */
    kiln_asset_id id;       /* zero when it has no `id:` */
    uint32_t id_line;
} build_sidecar;

/* True when `path` is a sidecar's name: "<something>.kiln.yml". */
bool sidecar_is_name(const char *path);

/* The sidecar path of `source_path` (caller frees), NULL when out of memory. */
char *sidecar_path_of(const char *source_path);

/* Parses a sidecar's text; `name` (its source-relative path) names it in
 * messages. False when there was an error (each in `diag` with the line). */
bool sidecar_parse(const char *name, const char *text, size_t size, build_sidecar *out,
                   cook_diag *diag);

/* Reads and parses `input`/`source_path`.kiln.yml when it exists (else
 * out->present is false and it succeeds). */
bool sidecar_load(const char *input, const char *source_path, build_sidecar *out, cook_diag *diag);

/* Applies the sidecar's settings to `settings` (resolved from kiln.yml),
 * keeping texture_format_origin as config_resolve does (with its line). */
void sidecar_apply(const build_sidecar *sidecar, const char *source_path, cook_settings *settings);

/* The ID of an asset whose sidecar gives none: derived from its source path
 * (relative to the input folder, as it is spelled), so it is the same on
 * every machine and every build, and `kiln mv` can write it into the
 * sidecar of the moved source. */
kiln_asset_id sidecar_derived_id(const char *source_path);

/* The asset's ID: its sidecar's, else the derived one. */
kiln_asset_id sidecar_asset_id(const build_sidecar *sidecar, const char *source_path);

/* Where the resolved value of each setting came from, for `kiln init
 * --sidecar` and `kiln info`: origin[i] for cook_setting_table[i] (each at
 * most 160 bytes: "default", "rule 'match: *.png' (kiln.yml:12)",
 * "props/crate.obj.kiln.yml:3"). Resolves `out` as config_resolve and then
 * the sidecar do. */
void sidecar_resolve_explained(const kiln_config *config, const config_preset *preset,
                               const char *source_path, const build_sidecar *sidecar,
                               cook_settings *out, char (*origin)[160]);

#endif /* KILN_BUILD_SIDECAR_H */
