/* cmd_init.c — `kiln init`: write a commented starter kiln.yml, and an example
 * level in the input folder it names. */
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/kiln_yml_template.h"

#define COMMAND "init"

/* In the template's input folder (`input: assets`). It names no model, so a
 * project with no assets yet still builds; the commented entity shows how. */
#define EXAMPLE_LEVEL "assets/levels/example.level"
static const char example_level[] =
    "# An example level (kiln init): entities placed in a scene, cooked to\n"
    "# levels/example.kscene. See README.md, Levels.\n"
    "include: []                      # other levels, relative to this file\n"
    "entities:\n"
    "  - name: spawn                  # unique among the level's entities\n"
    "    translation: [0, 0, 0]       # optional, default 0 0 0\n"
    "    rotation: [0, 0, 0, 1]       # optional quaternion x y z w\n"
    "    scale: [1, 1, 1]             # optional\n"
    "    components:                  # free-form data, kept as JSON\n"
    "      spawn_point: {team: 1}\n"
    "  - name: camera_rig\n"
    "    parent: spawn                # another entity's name\n"
    "    translation: [0, 2, -5]\n"
    "# - name: truck\n"
    "#   asset: models/truck.gltf     # a model, relative to the input folder\n"
    "#   parent: spawn\n"
    "#   components:\n"
    "#     decal: {ref: textures/decal.png, size: 2}   # {ref: PATH} names an asset\n";

static const struct option init_long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"sidecar", required_argument, NULL, 's'},
    {"config", required_argument, NULL, 'c'},
    {"input", required_argument, NULL, 'i'},
    {NULL, 0, NULL, 0},
};

/* --sidecar and the options that find its project. */
typedef struct init_request {
    const char *sidecar, *config, *input;
} init_request;

void cmd_init_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln init [options]\n"
            "       kiln init --sidecar SOURCE [-c FILE] [-i DIR]\n"
            "\n"
            "Writes a starter %s in the current folder, documenting every\n"
            "configuration key with its default, presets and rules, and an example\n"
            "level, " EXAMPLE_LEVEL ". An existing %s or level is never\n"
            "overwritten.\n"
            "\n"
            "With --sidecar, writes SOURCE.kiln.yml beside the source instead: its\n"
            "stable ID, and every setting as a comment with the value it resolves to\n"
            "now and where that comes from (default, preset, rule, line).\n"
            "\n"
            "Options:\n"
            "  -s, --sidecar SOURCE   write the sidecar of SOURCE (a file in the input folder)\n"
            "  -c, --config FILE      the kiln.yml to resolve with (default: the nearest)\n"
            "  -i, --input DIR        the input folder (default: kiln.yml's)\n"
            "  -h, --help             show this help\n"
            "\n"
            "Exit status: 0 when written, 1 when the file exists or cannot be written.\n",
            BUILD_CONFIG_FILE, BUILD_CONFIG_FILE);
}

static int parse_init_options(int argc, char **argv, init_request *request) {
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "hs:c:i:", init_long_options,
                                 NULL)) != -1) {
        switch (option) {
        case 'h':
            cmd_init_usage(stdout);
            return CLI_EXIT_OK;
        case 's':
            request->sidecar = optarg;
            break;
        case 'c':
            request->config = optarg;
            break;
        case 'i':
            request->input = optarg;
            break;
        default:
            return cli_option_error(COMMAND, argv, init_long_options, option);
        }
    }
    if (request->sidecar == NULL && (request->config != NULL || request->input != NULL))
        return cli_usage_error(COMMAND, "--config and --input go with --sidecar");
    return cli_reject_operands(COMMAND, argc, argv) ? -1 : CLI_EXIT_USAGE;
}

static void render_template(bytebuf *text) {
    size_t count = sizeof kiln_yml_template_lines / sizeof kiln_yml_template_lines[0];
    for (size_t i = 0; i < count; i++) {
        bytebuf_append(text, kiln_yml_template_lines[i], strlen(kiln_yml_template_lines[i]));
        bytebuf_append(text, "\n", 1);
    }
}

int cmd_init(int argc, char **argv) {
    init_request request = {0};
    int status = parse_init_options(argc, argv, &request);
    if (status >= 0)
        return status;
    if (request.sidecar != NULL)
        return cli_init_sidecar(request.config, request.input, request.sidecar);

    struct stat info;
    if (lstat(BUILD_CONFIG_FILE, &info) == 0) {
        cli_error("%s already exists; not overwriting it", BUILD_CONFIG_FILE);
        return CLI_EXIT_FAILURE;
    }
    bytebuf text = {0};
    render_template(&text);
    char reason[512];
    bool written = !text.failed && write_file_atomic(BUILD_CONFIG_FILE, text.data, text.size,
                                                     reason, sizeof reason);
    if (written)
        printf("kiln: wrote %s\n", BUILD_CONFIG_FILE);
    else
        cli_error("cannot write %s: %s", BUILD_CONFIG_FILE, text.failed ? "out of memory" : reason);
    bytebuf_free(&text);
    if (written && lstat(EXAMPLE_LEVEL, &info) == 0) {
        printf("kiln: %s exists; left as it is\n", EXAMPLE_LEVEL);
    } else if (written) {
        written = write_file_atomic(EXAMPLE_LEVEL, example_level, sizeof example_level - 1, reason,
                                    sizeof reason);
        if (written)
            printf("kiln: wrote %s\n", EXAMPLE_LEVEL);
        else
            cli_error("cannot write %s: %s", EXAMPLE_LEVEL, reason);
    }
    return written ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
