/*
 * build/config.h — kiln.yml: where it is, what it says, and how it turns into the
 * resolved cook_settings of one asset.
 *
 * Resolution order (later layers win, key by key):
 *   1. built-in defaults (cook_settings_default)
 *   2. the `default:` section's settings
 *   3. the selected preset's settings
 *   4. the default rules (`default: rules:` and top-level `rules:`), in file order
 *   5. the selected preset's rules, in file order
 *   6. the asset's sidecar, NAME.EXT.kiln.yml (build/sidecar.h; the plan adds it)
 *
 * Settings keys are written flat (`mesh.lods: 3`) or nested under their
 * asset type (`mesh: {lods: 3}`); both spellings are the same key.
 */
#ifndef KILN_BUILD_CONFIG_H
#define KILN_BUILD_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "build/remote/remote.h"
#include "cook/cook.h"

/* A partial set of settings: the keys whose bit is in `set` (bit i is
 * cook_setting_table[i]) take their value from `values`; the others leave the
 * layer below alone. */
typedef struct config_overlay {
    uint64_t set; /* bit i: cook_setting_table[i] (at most 64 keys) */
    cook_settings values;
} config_overlay;

typedef struct config_rule {
    char *match; /* glob over the source-relative path (discover_glob_match) */
    uint32_t line;
    config_overlay overlay;
} config_rule;

typedef struct config_rule_list {
    config_rule *items;
    size_t count;
    size_t cap;
} config_rule_list;

typedef struct config_preset {
    char *name;
    char *output; /* NULL when the preset keeps the top-level output */
    uint32_t line;
    config_overlay overlay;
    config_rule_list rules;
} config_preset;

typedef struct kiln_config {
    char *path;  /* the file read, NULL when there was none */
    char *input; /* relative paths are already joined to the file's folder */
    char *output;
    char *preset; /* name selected by `preset:` */
    bool pack;
    config_overlay defaults;
    config_rule_list rules;
    config_preset *presets;
    size_t preset_count;
    strlist always; /* globs over source paths: cooked in every build, even with --roots */
    strlist roots;  /* globs: the roots of `build --roots` and `info --unreferenced` */
    /* cache: the remote cache (docs/team.md), without credentials */
    strlist remote; /* URLs, in the order they are asked */
    remote_mode remote_mode;
    uint64_t remote_max_upload; /* bytes; 0: the default */
} kiln_config;

/* Parses YAML text. `path` names the file in messages and anchors relative
 * `input`/`output` paths (its folder). Errors and warnings (unknown keys) go to
 * `diag` compiler-style with the line; returns false when there was an error. */
bool config_parse(kiln_config *config, const char *path, const char *text, size_t size,
                  cook_diag *diag);

/* Reads and parses a file. */
bool config_load(kiln_config *config, const char *path, cook_diag *diag);

/* The kiln.yml of `start_dir` or its nearest ancestor (caller frees), or NULL. */
char *config_find(const char *start_dir);

void config_free(kiln_config *config);

/* The preset named `name`, or NULL. */
const config_preset *config_find_preset(const kiln_config *config, const char *name);

/* The resolved settings of one asset (see the order above). `preset` may be NULL.
 * out->texture_format_origin names the layer that set texture.format (e.g.
 * "rule 'match: *_normal.png' (kiln.yml:40)"), for messages about it. */
void config_resolve(const kiln_config *config, const config_preset *preset, const char *source_path,
                    cook_settings *out);

/* A key of a settings map that is no settings key (a sidecar's `id:`): true
 * when the callee took it (and reported its errors to `diag`), false to have
 * it warned about as unknown. `doc` and the nodes are libyaml's. */
struct yaml_document_s;
struct yaml_node_s;
typedef bool (*config_other_key)(void *context, struct yaml_document_s *doc,
                                 struct yaml_node_s *key, struct yaml_node_s *value,
                                 cook_diag *diag);

/* Parses YAML text that is one map of settings keys (flat or nested, as in a
 * rule) and other keys, which go to `other`; `lines[i]` is the line that set
 * cook_setting_table[i] (0: not set). Same limits and messages as kiln.yml;
 * false when there was an error. */
bool config_parse_settings_map(const char *path, const char *text, size_t size,
                               config_overlay *overlay, uint32_t lines[64], config_other_key other,
                               void *context, cook_diag *diag);

void config_overlay_apply(const config_overlay *overlay, cook_settings *settings);

/* One layer of the resolution order: its overlay and, for messages, what it
 * is ("rule 'match: *.png'"), the file and the line (0: not kept). */
typedef void (*config_layer_fn)(void *context, const config_overlay *overlay, const char *what,
                                const char *file, uint32_t line);
/* Calls `visit` for each layer that applies to `source_path`, in the order
 * above (the built-in defaults are not a layer). */
void config_each_layer(const kiln_config *config, const config_preset *preset,
                       const char *source_path, config_layer_fn visit, void *context);
/* config_overlay_apply, keeping out->texture_format_origin as config_resolve
 * does: for a layer applied after config_resolve's (a sidecar). */
void config_apply_layer(const config_overlay *overlay, const char *what, const char *file,
                        uint32_t line, cook_settings *out);
/* A layer as messages name it: "what (file:line)", or "what (file)". */
void config_layer_origin(char *out, size_t size, const char *what, const char *file, uint32_t line);

#endif /* KILN_BUILD_CONFIG_H */
