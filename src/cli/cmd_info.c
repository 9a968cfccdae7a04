/*
 * cmd_info.c — `kiln info`: what is in the output folder, per file and in total.
 *
 * Every file is described once (inspect_describe); the report is then printed
 * as text or appended to one JSON document. Files that cannot be read are
 * problems: reported on stderr (and in the JSON), the others still listed.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/info.h"
#include "common/ascii.h"

#define COMMAND "info"

static const struct option info_long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"input", required_argument, NULL, 'i'},
    {"json", no_argument, NULL, OPTION_JSON},
    {"quiet", no_argument, NULL, 'q'},
    {"quality", no_argument, NULL, OPTION_QUALITY},
    {"unreferenced", no_argument, NULL, OPTION_UNREFERENCED},
    {"settings", required_argument, NULL, 's'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cmd_info_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln info [options] | kiln info [--json] [--quality -i DIR] FILE\n"
            "       kiln info --settings SOURCE [-i DIR]\n"
            "\n"
            "Lists what the output folder holds: for every cooked mesh its size,\n"
            "vertex count, triangles, lines and points per level of detail,\n"
            "submeshes per topology, material slots, index size, vertex layout,\n"
            "bounds and source; for every material table (.kmat) its\n"
            "rows, textured slots, alpha modes, double-sided count and the source\n"
            "extensions it dropped; for every texture (.ktx2) its size, mips, GPU\n"
            "format with bits per pixel and supercompression; for every scene\n"
            "(.kscene) its nodes, depth, meshes, material tables, cameras, lights,\n"
            "instances and skins, and per scene of the file what its roots reach, and\n"
            "for a level's scene every entity (parent, translation, the scene it\n"
            "places, its components); then the messages the last build printed for\n"
            "each cooked asset (warnings: what its cook dropped or changed; from the\n"
            "folder's build cache, when there is one), totals and counts per kind.\n"
            "\n"
            "With FILE, describes that one cooked file (any folder): a .kmesh, .kmat,\n"
            ".ktx2, .kscene (a level's too), .kanim, .kshader, .kman or .kpak; a file\n"
            "kiln cannot read is named with the reason, and the exit status is 1.\n"
            "\n"
            "With --settings SOURCE (a file of the input folder), prints that source's\n"
            "stable ID and every setting it resolves to, each with where it comes\n"
            "from: the default, kiln.yml's default section, a preset, a rule and its\n"
            "line, or its sidecar and the line.\n"
            "\n"
            "With --quality, each block-compressed texture's level 0 is decoded with\n"
            "kiln's own decoders (astcenc for ASTC): BC7 and BC6H textures list how\n"
            "many blocks use each mode, and when the source named in the file's\n"
            "kilnSource key is still under the input folder at the same size, the\n"
            "PSNR of level 0 against it (RGB and alpha in dB; for HDR, RGB after\n"
            "Reinhard tone mapping). Otherwise it says why there is no PSNR (source\n"
            "embedded in a model, moved, or level 0 downscaled by texture.max_size).\n"
            "\n"
            "Options:\n"
            "  -o, --output DIR   folder of cooked files (default: %s)\n"
            "  -i, --input DIR    folder of sources, for --quality and --settings\n"
            "                     (default: %s)\n"
            "  -s, --settings SOURCE  print the settings of SOURCE and where each comes from\n"
            "      --quality      decode block-compressed textures: modes and PSNR\n"
            "      --json         print one JSON document instead of text\n"
            "  -q, --quiet        print the totals only (and any file that cannot be read)\n"
            "      --unreferenced list the cooked assets nothing reaches from kiln.yml's\n"
            "                     `roots:` and `always:` (without roots: that no other\n"
            "                     asset reads or names), from the build cache\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0, or 1 when the folder is missing or a file cannot be read.\n",
            BUILD_DEFAULT_OUTPUT, BUILD_DEFAULT_INPUT);
}

static bool names_cooked_file(const char *path) {
    return kiln_pack_kind_of(path) != KILN_PACK_OTHER || ascii_ends_with_ci(path, ".kman") ||
           ascii_ends_with_ci(path, ".kpak");
}

/* Returns -1 to go on, otherwise the exit status. */
static int parse_info_options(int argc, char **argv, info_options *options) {
    *options = (info_options){0};
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "o:i:qhs:", info_long_options,
                                 NULL)) != -1) {
        switch (option) {
        case 'o':
            options->output = optarg;
            break;
        case 'i':
            options->input = optarg;
            break;
        case OPTION_JSON:
            options->json = true;
            break;
        case 'q':
            options->quiet = true;
            break;
        case OPTION_UNREFERENCED:
            options->unreferenced = true;
            break;
        case OPTION_QUALITY:
            options->quality = true;
            break;
        case 's':
            options->settings = optarg;
            break;
        case 'h':
            cmd_info_usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_option_error(COMMAND, argv, info_long_options, option);
        }
    }
    /* One operand: a file to describe, when it is there or named as a cooked
     * file; anything else is a mistyped command line. */
    struct stat info;
    if (optind + 1 == argc && (stat(argv[optind], &info) == 0 || names_cooked_file(argv[optind]))) {
        options->file = argv[optind++];
        return -1;
    }
    return cli_reject_operands(COMMAND, argc, argv) ? -1 : CLI_EXIT_USAGE;
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------- */

/* Fills *report for the file `relative` of options->output (or, when
 * options->file is set, for that file itself, `relative` being its path);
 * an unreadable file is named on stderr. */
static void inspect_file(const info_options *options, const char *relative,
                         inspect_report *report) {
    kiln_pack_kind kind = kiln_pack_kind_of(relative);
    if (kind == KILN_PACK_OTHER && ascii_ends_with_ci(relative, ".kman"))
        kind = KILN_PACK_MANIFEST; /* a manifest under another name */
    char *full_path =
        options->file != NULL ? cook_strdup(relative) : cook_path_join(options->output, relative);
    if (full_path == NULL) {
        memset(report, 0, sizeof *report);
        report->path = relative;
        report->kind = kind;
        snprintf(report->problem, sizeof report->problem, "out of memory");
        return;
    }
    inspect_describe(full_path, relative, kind, options->quality ? options->input : NULL, report);
    if (!report->readable)
        fprintf(stderr, "%s: error: %s\n", cook_escaped(full_path), cook_escaped(report->problem));
    free(full_path);
}

static void add_to_totals(info_totals *totals, const inspect_report *report) {
    totals->files++;
    totals->bytes += report->bytes;
    if (!report->readable) {
        totals->problems++;
        return;
    }
    totals->per_kind[report->kind]++;
    if (report->kind == KILN_PACK_MESH) {
        totals->vertices += report->mesh.vertex_count;
        for (int t = 0; t < KILN_TOPOLOGY_COUNT_; t++)
            totals->primitives[t] += report->lod_primitives[t][0];
    }
}

static int info(const info_options *options) {
    strlist files = {0};
    if (!cli_list_output(options->output, &files)) {
        strlist_free(&files);
        return CLI_EXIT_FAILURE;
    }
    inspect_report *report = malloc(sizeof *report);
    if (report == NULL) {
        cli_error("out of memory");
        strlist_free(&files);
        return CLI_EXIT_FAILURE;
    }
    json_t *document = NULL, *listed = NULL;
    if (options->json) {
        document = json_object();
        listed = json_array();
        json_object_set_new(document, "output", cli_json_string(options->output));
        json_object_set(document, "files", listed);
    } else if (!options->quiet) {
        printf("output: %s\n", cook_escaped(options->output));
    }

    info_totals totals = {0};
    for (size_t i = 0; i < files.count; i++) {
        inspect_file(options, files.items[i], report);
        add_to_totals(&totals, report);
        if (options->json)
            json_array_append_new(listed, info_file_json(report));
        else if (!options->quiet || report->problem[0] != '\0')
            info_print_file_text(report);
        inspect_report_free(report);
    }
    json_decref(listed);

    kiln_cache cache = {0};
    if (info_read_build_cache(options->output, &cache)) {
        json_t *last_build = options->json ? json_array() : NULL;
        info_list_build_diagnostics(&cache, options->quiet, last_build, &totals);
        if (last_build != NULL)
            json_object_set_new(document, "last_build", last_build);
    }
    cache_free(&cache);

    int status = totals.problems > 0 ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
    if (options->json) {
        json_object_set_new(document, "totals", info_totals_json(&totals));
        if (!cli_json_print(stdout, document)) {
            cli_error("cannot write the JSON document");
            status = CLI_EXIT_FAILURE;
        }
        json_decref(document);
    } else {
        info_print_totals_text(&totals, options->quiet);
    }
    fflush(stdout);
    free(report);
    strlist_free(&files);
    return status;
}

/* `kiln info FILE`: that one cooked file, whatever folder it is in. */
static int info_one_file(const info_options *options) {
    const char *path = options->file;
    if (ascii_ends_with_ci(path, ".kshader"))
        return cli_shader_info(path, options->json);
    if (ascii_ends_with_ci(path, ".kpak"))
        return cli_pack_describe(path, options->json);
    inspect_report *report = calloc(1, sizeof *report);
    if (report == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    inspect_file(options, path, report);
    int status = CLI_EXIT_OK;
    if (report->kind == KILN_PACK_OTHER) {
        fprintf(stderr,
                "%s: error: not a cooked kiln file (expected .kmesh, .kmat, .kscene, .kanim, "
                ".ktx2, .kshader, .kman or .kpak)\n",
                cook_escaped(path));
        status = CLI_EXIT_FAILURE;
    } else if (!report->readable) {
        status = CLI_EXIT_FAILURE; /* named on stderr by inspect_file */
    } else if (options->json) {
        json_t *document = info_file_json(report);
        if (!cli_json_print(stdout, document)) {
            cli_error("cannot write the JSON document");
            status = CLI_EXIT_FAILURE;
        }
        json_decref(document);
    } else {
        info_print_file_text(report);
    }
    inspect_report_free(report);
    free(report);
    return status;
}

/* ---------------------------------------------------------------------------
 * --unreferenced: the cooked assets nothing reaches (build_mark_referenced)
 * ------------------------------------------------------------------------- */

static void print_unreferenced(const kiln_cache *cache, const bool *marks, bool have_roots) {
    size_t listed = 0;
    for (size_t i = 0; i < cache->count; i++) {
        if (marks[i])
            continue;
        const cache_record *record = &cache->records[i];
        printf("%s:", cook_escaped(record->source));
        for (size_t o = 0; o < record->outputs.count; o++)
            printf(" %s", cook_escaped(record->outputs.items[o]));
        putchar('\n');
        listed++;
    }
    printf("kiln: %zu of %zu cooked asset%s %s\n", listed, cache->count, cli_plural(cache->count),
           have_roots ? "not reached from the roots or always:"
                      : "referenced by no other asset (no roots: in " BUILD_CONFIG_FILE ")");
}

static int list_unreferenced(const char *output, const kiln_config *config) {
    kiln_cache cache = {0};
    char *cache_path = NULL;
    char reason[256];
    int status = CLI_EXIT_FAILURE;
    if (!cli_require_folder(output, "output")) {
        /* reported */
    } else if (cache_read_folder(output, &cache, &cache_path, reason, sizeof reason) !=
               CACHE_READ_OK) {
        fprintf(stderr, "%s: error: cannot read the build cache (%s); run kiln build first\n",
                cook_escaped(cache_path ? cache_path : CACHE_FILE_NAME), cook_escaped(reason));
    } else {
        bool *marks = calloc(cache.count ? cache.count : 1, sizeof *marks);
        if (marks != NULL) {
            build_mark_referenced(&cache, config, marks);
            print_unreferenced(&cache, marks, config->roots.count > 0);
            status = CLI_EXIT_OK;
        } else {
            cli_error("out of memory");
        }
        free(marks);
    }
    free(cache_path);
    cache_free(&cache);
    return status;
}

static int run_info(info_options *options, const build_setup *setup) {
    options->output = setup->output;
    options->input = setup->input;
    if (options->unreferenced)
        return list_unreferenced(options->output, &setup->config);
    return info(options);
}

int cmd_info(int argc, char **argv) {
    info_options options;
    int status = parse_info_options(argc, argv, &options);
    if (status >= 0)
        return status;
    if (options.unreferenced && options.json)
        return cli_usage_error(COMMAND, "--json and --unreferenced cannot be combined");
    if (options.file != NULL)
        return info_one_file(&options);
    if (options.settings != NULL)
        return cli_print_source_settings(options.input, options.settings);
    build_setup setup;
    status = cli_load_folders(options.input, options.output, &setup);
    if (status < 0)
        status = run_info(&options, &setup);
    config_free(&setup.config);
    return status;
}
