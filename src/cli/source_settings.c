/* source_settings.c — one source's settings, each with where it comes from
 * (the default, kiln.yml's default section, a preset, a rule and its line,
 * the sidecar and its line): `kiln init --sidecar SOURCE` writes them as
 * comments into a new sidecar (build/sidecar.h) holding the asset's stable
 * ID; `kiln info --settings SOURCE` prints them. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* One line per key, "KEY: VALUE   # ORIGIN", each after `prefix` ("# "
 * comments it out). */
static void render_settings(const cook_settings *settings, char (*origin)[160], const char *prefix,
                            bytebuf *text) {
    for (size_t i = 0; i < cook_setting_count; i++) {
        const cook_setting *key = &cook_setting_table[i];
        bytebuf value = {0};
        cook_setting_to_json(key, settings, &value);
        int width = (int)(strlen(key->name) + 2 + value.size);
        bytebuf_printf(text, "%s%s: %.*s%*s # %s\n", prefix, key->name, (int)value.size,
                       (const char *)value.data, width < 40 ? 40 - width : 1, "", origin[i]);
        bytebuf_free(&value);
    }
}

static int write_sidecar(const build_setup *setup, const char *relative, const char *typed) {
    char *name = sidecar_path_of(relative);
    char *path = name ? cook_path_join(setup->input, name) : NULL;
    int status = CLI_EXIT_FAILURE;
    struct stat info;
    if (path == NULL) {
        cli_error("out of memory");
    } else if (lstat(path, &info) == 0) {
        cli_error("%s already exists; not overwriting it", path);
    } else {
        cook_settings settings;
        char(*origin)[160] = calloc(cook_setting_count, sizeof *origin);
        bytebuf text = {0};
        if (origin != NULL) {
            sidecar_resolve_explained(&setup->config, setup->preset, relative, NULL, &settings,
                                      origin);
            char id[KILN_ASSET_ID_TEXT_SIZE];
            kiln_asset_id_format(sidecar_derived_id(relative), id);
            bytebuf_printf(&text,
                           "# Settings of %s alone (kiln init --sidecar). They win over\n"
                           "# kiln.yml's rules; a key is written as in kiln.yml (docs/"
                           "configuration.md).\n"
                           "# The comments are what it resolves to now and where each value "
                           "comes from:\n"
                           "# uncomment a line to change it for this asset.\n"
                           "#\n"
                           "# Its stable ID: kept when the source moves with this file "
                           "(kiln mv). Never copy\n"
                           "# it to another asset's sidecar.\n"
                           "id: %s\n",
                           relative, id);
            render_settings(&settings, origin, "# ", &text);
        }
        char reason[512] = "out of memory";
        if (origin != NULL && !text.failed &&
            write_file_atomic(path, text.data, text.size, reason, sizeof reason)) {
            printf("kiln: wrote %s (the sidecar of %s)\n", path, typed);
            status = CLI_EXIT_OK;
        } else {
            cli_error("cannot write %s: %s", path, reason);
        }
        bytebuf_free(&text);
        free(origin);
    }
    free(path);
    free(name);
    return status;
}

/* Loads the project and finds `source` in its input folder; then calls
 * `act` (write the sidecar or print). */
typedef int (*source_action)(const build_setup *setup, const char *relative, const char *typed);

static int with_source(const char *config, const char *input, const char *source,
                       source_action act) {
    build_options options = cli_default_build_options();
    options.config = config;
    options.input = input;
    build_setup setup;
    int status = cli_build_setup_load(&options, &setup);
    if (status >= 0) {
        config_free(&setup.config);
        return status;
    }
    char *relative = cli_input_relative(setup.input, source);
    struct stat info;
    if (relative == NULL || stat(source, &info) != 0) {
        cli_error("%s: not a file in the input folder '%s'", source, setup.input);
        status = CLI_EXIT_FAILURE;
    } else if (cook_registry_match(relative) == NULL || sidecar_is_name(relative)) {
        cli_error("%s: no file kiln cooks (no importer claims it), so it has no settings", source);
        status = CLI_EXIT_FAILURE;
    } else {
        status = act(&setup, relative, source);
    }
    free(relative);
    config_free(&setup.config);
    return status;
}

/* The source's ID and settings as they resolve now, sidecar included. */
static int print_settings(const build_setup *setup, const char *relative, const char *typed) {
    (void)typed;
    build_sidecar sidecar;
    cook_diag diag = {0};
    bool read = sidecar_load(setup->input, relative, &sidecar, &diag);
    build_diagnostics(cli_message_options(), (const char *)diag.text.data, diag.text.size, false,
                      cli_source_folder());
    diag_free(&diag);
    if (!read)
        return CLI_EXIT_FAILURE;
    char(*origin)[160] = calloc(cook_setting_count, sizeof *origin);
    bytebuf text = {0};
    if (origin != NULL) {
        cook_settings settings;
        sidecar_resolve_explained(&setup->config, setup->preset, relative, &sidecar, &settings,
                                  origin);
        char id[KILN_ASSET_ID_TEXT_SIZE];
        kiln_asset_id_format(sidecar_asset_id(&sidecar, relative), id);
        bytebuf_printf(&text, "# %s\nid: %s%*s # %s\n", relative, id, 4, "",
                       (sidecar.id.hi | sidecar.id.lo) ? "its sidecar's"
                                                       : "derived from its path (not pinned)");
        render_settings(&settings, origin, "", &text);
    }
    bool ok = origin != NULL && !text.failed;
    if (ok)
        fwrite(text.data, 1, text.size, stdout);
    else
        cli_error("out of memory");
    bytebuf_free(&text);
    free(origin);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int cli_init_sidecar(const char *config, const char *input, const char *source) {
    return with_source(config, input, source, write_sidecar);
}

int cli_print_source_settings(const char *input, const char *source) {
    return with_source(NULL, input, source, print_settings);
}
