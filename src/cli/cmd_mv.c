/* cmd_mv.c — `kiln mv OLD NEW`: move a source with its sidecar, keeping its
 * stable ID (written into the sidecar when it was the derived one), and
 * rewrite the levels that name it. The order keeps every step undoable: the
 * new sidecar is written first, then the source renamed, then the old
 * sidecar removed, then the levels rewritten. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "cli/cli.h"

#define COMMAND "mv"
/* The level importer's limits (cook/import/level.h, which the CLI does not
 * see): a file past them does not cook, so it names nothing to rewrite. */
#define LEVEL_MAX_SIZE (64u << 20)
#define LEVEL_MAX_YAML_DEPTH 68u

static const struct option mv_long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"config", required_argument, NULL, 'c'},
    {"input", required_argument, NULL, 'i'},
    {NULL, 0, NULL, 0},
};

void cmd_mv_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln mv [options] OLD NEW\n"
            "\n"
            "Moves the source OLD to NEW inside the input folder, with its sidecar\n"
            "(OLD.kiln.yml becomes NEW.kiln.yml). The asset keeps its stable ID: when\n"
            "the sidecar had no `id:` line, the ID OLD had is written into NEW's sidecar.\n"
            "Every level (*.level) whose `asset:` or `ref:` names OLD is rewritten to\n"
            "name NEW. The next build cooks NEW and removes OLD's files; the manifest\n"
            "maps the ID to the new ref.\n"
            "\n"
            "Options:\n"
            "  -c, --config FILE   the kiln.yml naming the input folder (default: the nearest)\n"
            "  -i, --input DIR     the input folder (default: kiln.yml's)\n"
            "  -h, --help          show this help\n"
            "\n"
            "Exit status: 0 when moved, 1 when something could not be done (nothing is\n"
            "left half moved: a failure before the source moved undoes the sidecar),\n"
            "2 for a usage error.\n");
}

typedef struct mv_request {
    const char *config, *input, *old_path, *new_path;
} mv_request;

static int parse_mv_options(int argc, char **argv, mv_request *request) {
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "hc:i:", mv_long_options, NULL)) !=
           -1) {
        switch (option) {
        case 'h':
            cmd_mv_usage(stdout);
            return CLI_EXIT_OK;
        case 'c':
            request->config = optarg;
            break;
        case 'i':
            request->input = optarg;
            break;
        default:
            return cli_option_error(COMMAND, argv, mv_long_options, option);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(COMMAND, "expected OLD and NEW, got %d operand%s", argc - optind,
                               cli_plural((size_t)(argc - optind)));
    request->old_path = argv[optind];
    request->new_path = argv[optind + 1];
    return -1;
}

/* The text of NEW's sidecar: OLD's, with an `id:` line first when it had
 * none (so the ID OLD had goes with it). False (said) when OLD's sidecar has
 * an error or cannot be read. */
static bool new_sidecar_text(const char *input, const char *old_rel, bytebuf *text) {
    build_sidecar sidecar;
    cook_diag diag = {0};
    bool ok = sidecar_load(input, old_rel, &sidecar, &diag);
    build_diagnostics(cli_message_options(), (const char *)diag.text.data, diag.text.size, false,
                      cli_source_folder());
    diag_free(&diag);
    if (!ok)
        return false;
    if ((sidecar.id.hi | sidecar.id.lo) == 0) {
        char id[KILN_ASSET_ID_TEXT_SIZE];
        kiln_asset_id_format(sidecar_derived_id(old_rel), id);
        bytebuf_printf(text, "id: %s # the stable ID of %s, kept by kiln mv\n", id, old_rel);
    }
    if (!sidecar.present)
        return !text->failed;
    char *name = sidecar_path_of(old_rel);
    char *path = name ? cook_path_join(input, name) : NULL;
    uint8_t *old_text = NULL;
    size_t size = 0;
    char reason[256] = "out of memory";
    ok = path != NULL && cook_read_file(path, 1u << 20, &old_text, &size, reason, sizeof reason);
    if (ok)
        bytebuf_append(text, old_text, size);
    else
        cli_error("cannot read %s: %s", path ? path : old_rel, reason);
    free(old_text);
    free(path);
    free(name);
    return ok && !text->failed;
}

/* Replaces, in a level's text, each `asset:` or `ref:` value that is
 * exactly `old_rel` with `new_rel` (quoted as it was); how many. */
static size_t rewrite_level(const char *file, const uint8_t *text, size_t size, const char *old_rel,
                            const char *new_rel, bytebuf *out) {
    yaml_document_t doc;
    cook_diag diag = {0};
    bool loaded = yaml_doc_load(file, text, size, LEVEL_MAX_YAML_DEPTH, &doc, &diag);
    build_diagnostics(cli_message_options(), (const char *)diag.text.data, diag.text.size, false,
                      NULL);
    diag_free(&diag);
    if (!loaded) {
        cli_error("%s: not rewritten (it does not load, so it names nothing kiln cooks)", file);
        return 0;
    }
    size_t done = 0, copied = 0;
    /* Nodes are in document order, so their offsets increase. */
    for (yaml_node_t *node = doc.nodes.start; node < doc.nodes.top; node++) {
        if (node->type != YAML_MAPPING_NODE)
            continue;
        for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
             pair < node->data.mapping.pairs.top; pair++) {
            yaml_node_t *key = yaml_document_get_node(&doc, pair->key);
            yaml_node_t *value = yaml_document_get_node(&doc, pair->value);
            if (key == NULL || value == NULL || key->type != YAML_SCALAR_NODE ||
                value->type != YAML_SCALAR_NODE)
                continue;
            const char *name = (const char *)key->data.scalar.value;
            if ((strcmp(name, "asset") != 0 && strcmp(name, "ref") != 0) ||
                strcmp((const char *)value->data.scalar.value, old_rel) != 0)
                continue;
            size_t start = value->start_mark.index, end = value->end_mark.index;
            if (start < copied || end > size || start >= end)
                continue; /* an alias of one already rewritten */
            bytebuf_append(out, text + copied, start - copied);
            yaml_scalar_style_t style = value->data.scalar.style;
            const char *quote = style == YAML_SINGLE_QUOTED_SCALAR_STYLE   ? "'"
                                : style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ? "\""
                                                                           : "";
            bytebuf_printf(out, "%s%s%s", quote, new_rel, quote);
            copied = end;
            done++;
        }
    }
    bytebuf_append(out, text + copied, size - copied);
    yaml_document_delete(&doc);
    return done;
}

/* Rewrites every level of the input folder naming `old_rel`; false when one
 * could not be written. */
static bool rewrite_levels(const char *input, const char *old_rel, const char *new_rel) {
    strlist files = {0};
    char reason[512];
    if (!discover_walk(input, NULL, &files, reason, sizeof reason)) {
        cli_error("cannot list %s: %s; no level rewritten", input, reason);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < files.count; i++) {
        const char *relative = files.items[i];
        size_t length = strlen(relative);
        if (length < 6 || strcmp(relative + length - 6, ".level") != 0)
            continue;
        char *path = cook_path_join(input, relative);
        uint8_t *text = NULL;
        size_t size = 0;
        bytebuf out = {0};
        if (path == NULL ||
            !cook_read_file(path, LEVEL_MAX_SIZE, &text, &size, reason, sizeof reason)) {
            cli_error("cannot read %s: %s", path ? path : relative, reason);
            ok = false;
        } else {
            size_t count = rewrite_level(path, text, size, old_rel, new_rel, &out);
            if (count > 0 && (out.failed || !write_file_atomic(path, out.data, out.size, reason,
                                                               sizeof reason))) {
                cli_error("cannot rewrite %s: %s", path, out.failed ? "out of memory" : reason);
                ok = false;
            } else if (count > 0) {
                printf("kiln: %s: %zu reference%s to %s now name %s\n", path, count,
                       cli_plural(count), old_rel, new_rel);
            }
        }
        bytebuf_free(&out);
        free(text);
        free(path);
    }
    strlist_free(&files);
    return ok;
}

/* Moves the source and its sidecar (see the file's comment for the order). */
static int move(const char *input, const char *old_rel, const char *new_rel) {
    char *old_path = cook_path_join(input, old_rel), *new_path = cook_path_join(input, new_rel);
    char *old_name = sidecar_path_of(old_rel), *new_name = sidecar_path_of(new_rel);
    char *old_sidecar = old_name ? cook_path_join(input, old_name) : NULL;
    char *new_sidecar = new_name ? cook_path_join(input, new_name) : NULL;
    int status = CLI_EXIT_FAILURE;
    bytebuf text = {0};
    struct stat info;
    char reason[512];
    if (old_path == NULL || new_path == NULL || old_sidecar == NULL || new_sidecar == NULL)
        cli_error("out of memory");
    else if (lstat(new_path, &info) == 0 || lstat(new_sidecar, &info) == 0)
        cli_error("%s already exists; not overwriting it",
                  lstat(new_path, &info) == 0 ? new_path : new_sidecar);
    else if (!new_sidecar_text(input, old_rel, &text))
        cli_error("%s: its sidecar is not readable; nothing moved", old_path);
    else if (!write_file_atomic(new_sidecar, text.data, text.size, reason, sizeof reason))
        cli_error("cannot write %s: %s; nothing moved", new_sidecar, reason);
    else if (rename(old_path, new_path) != 0) {
        cli_error("cannot move %s to %s: %s; nothing moved", old_path, new_path, strerror(errno));
        unlink(new_sidecar);
    } else {
        if (unlink(old_sidecar) != 0 && errno != ENOENT)
            cli_error("moved, but cannot remove %s: %s (remove it by hand: its ID is %s's now)",
                      old_sidecar, strerror(errno), new_rel);
        printf("kiln: moved %s to %s (sidecar %s)\n", old_path, new_path, new_sidecar);
        status = rewrite_levels(input, old_rel, new_rel) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
    }
    bytebuf_free(&text);
    free(old_path);
    free(new_path);
    free(old_name);
    free(new_name);
    free(old_sidecar);
    free(new_sidecar);
    return status;
}

int cmd_mv(int argc, char **argv) {
    mv_request request = {0};
    int status = parse_mv_options(argc, argv, &request);
    if (status >= 0)
        return status;
    build_options options = cli_default_build_options();
    options.config = request.config;
    options.input = request.input;
    build_setup setup;
    status = cli_build_setup_load(&options, &setup);
    if (status >= 0) {
        config_free(&setup.config);
        return status;
    }
    char *old_rel = cli_input_relative(setup.input, request.old_path);
    char *new_rel = cli_input_relative(setup.input, request.new_path);
    struct stat info;
    if (old_rel == NULL || lstat(request.old_path, &info) != 0)
        cli_error("%s: not a file in the input folder '%s'", request.old_path, setup.input);
    else if (new_rel == NULL)
        cli_error("%s: not in the input folder '%s' (or its folder does not exist)",
                  request.new_path, setup.input);
    else if (cook_registry_match(old_rel) == NULL || sidecar_is_name(old_rel))
        cli_error("%s: no source kiln cooks; move it with mv", request.old_path);
    else if (cook_registry_match(new_rel) == NULL || sidecar_is_name(new_rel))
        cli_error("%s: no importer would claim that name, so the asset would be lost",
                  request.new_path);
    else
        status = move(setup.input, old_rel, new_rel);
    if (status < 0)
        status = CLI_EXIT_FAILURE;
    free(old_rel);
    free(new_rel);
    config_free(&setup.config);
    return status;
}
