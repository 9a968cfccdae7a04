/* cmd_init_sidecar.c — `kiln init --sidecar SOURCE`: write the source's
 * sidecar (build/sidecar.h) holding its stable ID, with every setting it
 * resolves to now, and where that comes from, as comments to uncomment. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* The commented settings, one line per key: "# key: value   # origin". */
static void render_settings(const cook_settings *settings, char (*origin)[160], bytebuf *text) {
    for (size_t i = 0; i < cook_setting_count; i++) {
        const cook_setting *key = &cook_setting_table[i];
        bytebuf value = {0};
        cook_setting_to_json(key, settings, &value);
        int width = (int)(strlen(key->name) + 2 + value.size);
        bytebuf_printf(text, "# %s: %.*s%*s # %s\n", key->name, (int)value.size,
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
            render_settings(&settings, origin, &text);
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

int cli_init_sidecar(const char *config, const char *input, const char *source) {
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
        cli_error("%s: no file kiln cooks (no importer claims it), so it has no settings",
                  source);
        status = CLI_EXIT_FAILURE;
    } else {
        status = write_sidecar(&setup, relative, source);
    }
    free(relative);
    config_free(&setup.config);
    return status;
}
