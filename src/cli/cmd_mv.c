/* cmd_mv.c — `kiln mv OLD NEW`: move a source with its sidecar, keeping its
 * stable ID (written into the sidecar when it was the derived one), or a file
 * sources name (an .mtl, a .bin, a texture), and rewrite every path the move
 * would break (mv_plan.c), in the moved file and in the files naming it. All
 * is planned first: a path that cannot be rewritten refuses the move before
 * anything changes. Then the order keeps every step undoable: the new
 * sidecar is written first, then the file renamed, then the old sidecar
 * removed, then the paths rewritten. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "cli/mv.h"

#define COMMAND "mv"

static const struct option mv_long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"config", required_argument, NULL, 'c'},
    {"input", required_argument, NULL, 'i'},
    {"dry-run", no_argument, NULL, 'n'},
    {NULL, 0, NULL, 0},
};

void cmd_mv_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln mv [options] OLD NEW\n"
            "\n"
            "Moves the file OLD to NEW inside the input folder. A source moves with its\n"
            "sidecar (OLD.kiln.yml becomes NEW.kiln.yml) and keeps its stable ID: when\n"
            "the sidecar had no `id:` line, the ID OLD had is written into NEW's sidecar.\n"
            "A file sources read (an .mtl, a .bin, a texture) may move too.\n"
            "\n"
            "Every path the move would break is rewritten, only its text changing:\n"
            "levels' asset:, ref: and include:, OBJ mtllib, MTL texture maps, glTF\n"
            "buffer and image URIs, shaders' #include \"...\", in the moved file and in\n"
            "every file naming it. When one cannot be rewritten (a .glb's JSON, a path\n"
            "leaving the input folder), nothing moves and each is named.\n"
            "The next build cooks NEW and removes OLD's files; the manifest maps the ID\n"
            "to the new ref.\n"
            "\n"
            "Options:\n"
            "  -n, --dry-run       print what would be moved and rewritten; change nothing\n"
            "  -c, --config FILE   the kiln.yml naming the input folder (default: the nearest)\n"
            "  -i, --input DIR     the input folder (default: kiln.yml's)\n"
            "  -h, --help          show this help\n"
            "\n"
            "Exit status: 0 when moved, 1 when something could not be done (nothing is\n"
            "left half moved: a failure before the file moved undoes the sidecar),\n"
            "2 for a usage error.\n");
}

typedef struct mv_request {
    const char *config, *input, *old_path, *new_path;
    bool dry_run;
} mv_request;

static int parse_mv_options(int argc, char **argv, mv_request *request) {
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "hc:i:n", mv_long_options, NULL)) !=
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
        case 'n':
            request->dry_run = true;
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

/* Refuses the move when the plan names paths it would break; true to go on. */
static bool plan_allows(const mv_plan *plan) {
    for (size_t i = 0; i < plan->problems.count; i++)
        fprintf(stderr, "%s/%s\n", plan->input, plan->problems.items[i]);
    if (plan->problems.count > 0)
        cli_error("nothing moved: %zu path%s would break", plan->problems.count,
                  cli_plural(plan->problems.count));
    return plan->problems.count == 0;
}

/* Moves the file, and a source's sidecar (see the file's comment for the
 * order), then rewrites the planned paths. */
static int move(const mv_plan *plan, bool source, bool dry_run) {
    const char *input = plan->input, *old_rel = plan->old_rel, *new_rel = plan->new_rel;
    char *old_path = cook_path_join(input, old_rel), *new_path = cook_path_join(input, new_rel);
    char *old_name = sidecar_path_of(old_rel), *new_name = sidecar_path_of(new_rel);
    char *old_sidecar = old_name ? cook_path_join(input, old_name) : NULL;
    char *new_sidecar = new_name ? cook_path_join(input, new_name) : NULL;
    int status = CLI_EXIT_FAILURE;
    bytebuf text = {0};
    struct stat info;
    char reason[512];
    /* A texture a model reads is cooked through it, with no ID of its own:
     * it gets no sidecar (the build would name one as unused). */
    if (source && plan->read_by_model && old_sidecar != NULL && lstat(old_sidecar, &info) != 0)
        source = false;
    if (old_path == NULL || new_path == NULL || old_sidecar == NULL || new_sidecar == NULL)
        cli_error("out of memory");
    else if (lstat(new_path, &info) == 0 || (source && lstat(new_sidecar, &info) == 0))
        cli_error("%s already exists; not overwriting it",
                  lstat(new_path, &info) == 0 ? new_path : new_sidecar);
    else if (source && !new_sidecar_text(input, old_rel, &text))
        cli_error("%s: its sidecar is not readable; nothing moved", old_path);
    else if (dry_run) {
        printf("kiln: would move %s to %s%s%s%s\n", old_path, new_path, source ? " (sidecar " : "",
               source ? new_sidecar : "", source ? ")" : "");
        mv_plan_print(plan, true);
        status = CLI_EXIT_OK;
    } else if (source &&
               !write_file_atomic(new_sidecar, text.data, text.size, reason, sizeof reason))
        cli_error("cannot write %s: %s; nothing moved", new_sidecar, reason);
    else if (rename(old_path, new_path) != 0) {
        cli_error("cannot move %s to %s: %s; nothing moved", old_path, new_path, strerror(errno));
        if (source)
            unlink(new_sidecar);
    } else {
        if (source && unlink(old_sidecar) != 0 && errno != ENOENT)
            cli_error("moved, but cannot remove %s: %s (remove it by hand: its ID is %s's now)",
                      old_sidecar, strerror(errno), new_rel);
        printf("kiln: moved %s to %s%s%s%s\n", old_path, new_path, source ? " (sidecar " : "",
               source ? new_sidecar : "", source ? ")" : "");
        mv_plan_print(plan, false);
        status = mv_plan_apply(plan) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
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
    bool source = old_rel != NULL && cook_registry_match(old_rel) != NULL;
    size_t old_length = old_rel ? strlen(old_rel) : 0;
    mv_plan plan = {0};
    if (old_rel == NULL || lstat(request.old_path, &info) != 0)
        cli_error("%s: not a file in the input folder '%s'", request.old_path, setup.input);
    else if (new_rel == NULL)
        cli_error("%s: not in the input folder '%s' (or its folder does not exist)",
                  request.new_path, setup.input);
    else if (sidecar_is_name(old_rel) || sidecar_is_name(new_rel))
        cli_error("%s: a sidecar moves with its source; move the source", request.old_path);
    else if (strncmp(new_rel, old_rel, old_length) == 0 && new_rel[old_length] == '/')
        cli_error("%s: cannot move a folder into itself", request.new_path);
    else if (source && cook_registry_match(new_rel) == NULL)
        cli_error("%s: no importer would claim that name, so the asset would be lost",
                  request.new_path);
    else if (mv_plan_make(&plan, setup.input, old_rel, new_rel) && plan_allows(&plan)) {
        mv_plan_settings(&plan, &setup, source);
        status = move(&plan, source, request.dry_run);
    }
    if (status < 0)
        status = CLI_EXIT_FAILURE;
    mv_plan_free(&plan);
    free(old_rel);
    free(new_rel);
    config_free(&setup.config);
    return status;
}
