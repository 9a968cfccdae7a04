/*
 * sidecar.c — NAME.EXT.kiln.yml: an asset's ID and settings beside its
 * source (build/sidecar.h). Its settings are parsed by config.c, so a key
 * means and checks the same in a sidecar as in a kiln.yml rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>
#include <yaml.h>

#include "build/internal.h"

/* A sidecar is a few lines; the bound keeps a stray huge file harmless. */
#define SIDECAR_MAX_SIZE (1u << 20)

bool sidecar_is_name(const char *path) {
    size_t length = strlen(path), suffix = strlen(SIDECAR_SUFFIX);
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    /* "x.kiln.yml" is one; a lone ".kiln.yml" (hidden anyway) and a
     * project's own "kiln.yml" are not. */
    return length > suffix && strlen(name) > suffix &&
           strcmp(path + length - suffix, SIDECAR_SUFFIX) == 0;
}

char *sidecar_path_of(const char *source_path) {
    size_t length = strlen(source_path);
    char *path = malloc(length + sizeof SIDECAR_SUFFIX);
    if (path != NULL) {
        memcpy(path, source_path, length);
        memcpy(path + length, SIDECAR_SUFFIX, sizeof SIDECAR_SUFFIX);
    }
    return path;
}

/* The sidecar being read and its name, for parse_other_key. */
typedef struct sidecar_reading {
    build_sidecar *sidecar;
    const char *file;
} sidecar_reading;

/* `id:` (config_other_key; `context` a sidecar_reading). */
static bool parse_other_key(void *context, yaml_document_t *doc, yaml_node_t *key,
                            yaml_node_t *value, cook_diag *diag) {
    (void)doc;
    const sidecar_reading *reading = context;
    build_sidecar *sidecar = reading->sidecar;
    const char *file = reading->file;
    const char *name = (const char *)key->data.scalar.value;
    if (strcmp(name, "id") != 0)
        return false;
    uint32_t line = (uint32_t)value->start_mark.line + 1;
    kiln_error err;
    if (value->type != YAML_SCALAR_NODE) {
        diag_error(diag, file, line, "id: expected 32 hex digits");
    } else if (kiln_asset_id_parse((const char *)value->data.scalar.value, &sidecar->id, &err) !=
               KILN_OK) {
        diag_error(diag, file, line, "id: '%.60s' is not an asset ID (32 hex digits, not all 0)",
                   (const char *)value->data.scalar.value);
    } else {
        sidecar->id_line = line;
    }
    return true;
}

bool sidecar_parse(const char *name, const char *text, size_t size, build_sidecar *out,
                   cook_diag *diag) {
    *out = (build_sidecar){.present = true};
    sidecar_reading reading = {out, name};
    config_overlay overlay;
    uint32_t lines[64];
    bool ok = config_parse_settings_map(name, text, size, &overlay, lines, parse_other_key,
                                        &reading, diag);
    out->overlay = overlay;
    memcpy(out->lines, lines, sizeof lines);
    return ok;
}

bool sidecar_load(const char *input, const char *source_path, build_sidecar *out, cook_diag *diag) {
    *out = (build_sidecar){0};
    char *name = sidecar_path_of(source_path);
    char *path = name ? cook_path_join(input, name) : NULL;
    bool ok = path != NULL;
    struct stat info;
    if (!ok) {
        diag_error(diag, source_path, 0, "out of memory");
    } else if (stat(path, &info) == 0) {
        uint8_t *text = NULL;
        size_t size = 0;
        char reason[256];
        if (!cook_read_file(path, SIDECAR_MAX_SIZE, &text, &size, reason, sizeof reason)) {
            diag_error(diag, name, 0, "cannot read the sidecar: %s", reason);
            ok = false;
        } else {
            ok = sidecar_parse(name, (const char *)text, size, out, diag);
        }
        free(text);
    }
    free(path);
    free(name);
    return ok;
}

void sidecar_apply(const build_sidecar *sidecar, const char *source_path, cook_settings *settings) {
    if (sidecar == NULL || !sidecar->present)
        return;
    char *name = sidecar_path_of(source_path);
    size_t format = (size_t)(cook_setting_find("texture.format") - cook_setting_table);
    config_apply_layer(&sidecar->overlay, "the sidecar", name ? name : "sidecar",
                       sidecar->lines[format], settings);
    free(name);
}

kiln_asset_id sidecar_derived_id(const char *source_path) {
    XXH3_state_t *state = XXH3_createState();
    kiln_asset_id id = {0, 0};
    if (state == NULL)
        return id;
    /* A fixed prefix keeps these apart from any other 128-bit hash of a path. */
    static const char prefix[] = "kiln asset id";
    XXH3_128bits_reset(state);
    XXH3_128bits_update(state, prefix, sizeof prefix);
    XXH3_128bits_update(state, source_path, strlen(source_path));
    XXH128_hash_t hash = XXH3_128bits_digest(state);
    XXH3_freeState(state);
    id.hi = hash.high64;
    id.lo = hash.low64 != 0 || hash.high64 != 0 ? hash.low64 : 1; /* zero is no ID */
    return id;
}

kiln_asset_id sidecar_asset_id(const build_sidecar *sidecar, const char *source_path) {
    if (sidecar != NULL && (sidecar->id.hi | sidecar->id.lo) != 0)
        return sidecar->id;
    return sidecar_derived_id(source_path);
}

/* Marks the keys a layer sets with its name (config_layer_fn; `context` the
 * origin table). */
static void note_layer(void *context, const config_overlay *overlay, const char *what,
                       const char *file, uint32_t line) {
    char(*origin)[160] = context;
    for (size_t i = 0; i < cook_setting_count && i < 64; i++)
        if (overlay->set & ((uint64_t)1 << i))
            config_layer_origin(origin[i], sizeof origin[i], what, file, line);
}

void sidecar_resolve_explained(const kiln_config *config, const config_preset *preset,
                               const char *source_path, const build_sidecar *sidecar,
                               cook_settings *out, char (*origin)[160]) {
    for (size_t i = 0; i < cook_setting_count; i++)
        snprintf(origin[i], sizeof origin[i], "default");
    config_resolve(config, preset, source_path, out);
    config_each_layer(config, preset, source_path, note_layer, origin);
    if (sidecar == NULL || !sidecar->present)
        return;
    sidecar_apply(sidecar, source_path, out);
    char *name = sidecar_path_of(source_path);
    for (size_t i = 0; i < cook_setting_count && i < 64; i++)
        if (sidecar->overlay.set & ((uint64_t)1 << i))
            snprintf(origin[i], sizeof origin[i], "%s:%u", name ? name : "sidecar",
                     sidecar->lines[i]);
    free(name);
}
