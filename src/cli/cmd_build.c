/*
 * cmd_build.c — `kiln build`: cook every source file under the input folder
 * (or, with --roots, what the roots reach).
 *
 *   options → build_setup_load (kiln.yml) → build_execute (build/build.h:
 *   plan, cache check or cook, manifest, cache, pack, report)
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report.h"

#define COMMAND "build"

enum {
    OPTION_VERIFY = BUILD_OPTION_OWN,
    OPTION_LIST_PRESETS,
    OPTION_NO_CACHE,
    OPTION_PACK,
    OPTION_JSON,
    OPTION_ROOTS,
    OPTION_SHARD,
    OPTION_REPORT,
};

static const struct option build_long_options[] = {
    BUILD_SHARED_LONG_OPTIONS,
    BUILD_COOK_LONG_OPTIONS,
    {"list-presets", no_argument, NULL, OPTION_LIST_PRESETS},
    {"no-cache", no_argument, NULL, OPTION_NO_CACHE},
    {"pack", no_argument, NULL, OPTION_PACK},
    {"json", no_argument, NULL, OPTION_JSON},
    {"roots", no_argument, NULL, OPTION_ROOTS},
    {"shard", required_argument, NULL, OPTION_SHARD},
    {"verify", no_argument, NULL, OPTION_VERIFY},
    {"report", required_argument, NULL, OPTION_REPORT},
    {NULL, 0, NULL, 0},
};

void cmd_build_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln [build] [options] [--roots [SOURCE...]]\n"
            "\n"
            "Cooks every source file under the input folder into the output folder,\n"
            "mirroring the folder tree (models/crate.obj -> models/crate.kmesh).\n"
            "Files no importer claims are skipped and reported, never an error.\n"
            "Settings come from kiln.yml (this folder or the nearest ancestor's).\n"
            "Assets whose sources, dependencies and settings did not change since the\n"
            "last build are not cooked again (the cache is <output>/" CACHE_FILE_NAME ");\n"
            "their warnings are printed again. On a terminal a progress line shows, with\n"
            "the stage and time of an asset cooking for more than %d s.\n"
            "\n"
            "Options:\n"
            "  -i, --input DIR    folder of source assets (default: kiln.yml's, else %s)\n"
            "  -o, --output DIR   folder for cooked files (default: kiln.yml's, else %s)\n"
            "  -j, --jobs N       run on N threads, 1..%u: assets cook side by side and\n"
            "                     a large asset's work is spread over the idle ones\n"
            "                     (default: the number of online processors)\n"
            "      --memory-limit BYTES|N%%\n"
            "                     start an asset only while the estimated peak\n"
            "                     memory of those cooking, with its own, stays\n"
            "                     within BYTES (K, M, G suffixes) or N%% of the RAM;\n"
            "                     one over it alone cooks alone (default: %u%%)\n"
            "      --asset-timeout SECONDS\n"
            "                     stop cooking an asset that takes longer, 0..%u\n"
            "                     (0: no limit); that asset fails, the rest cooks\n"
            "                     (overrides kiln.yml's asset.timeout; default %u)\n"
            "      --import-timeout SECONDS\n"
            "                     stop an importer run in its own process (assimp)\n"
            "                     that reads one file for longer, 1..%u; that asset\n"
            "                     fails, the rest cooks (overrides kiln.yml's\n"
            "                     import.timeout; default %u)\n"
            "      --config FILE  read FILE instead of looking for " BUILD_CONFIG_FILE "\n"
            "      --preset NAME  apply the preset NAME of kiln.yml (overrides `preset:`)\n",
            PROGRESS_SLOW_SECONDS, BUILD_DEFAULT_INPUT, BUILD_DEFAULT_OUTPUT, PARALLEL_MAX_THREADS,
            BUILD_MEMORY_DEFAULT_PERCENT, (unsigned)COOK_ASSET_TIMEOUT_MAX,
            (unsigned)COOK_ASSET_TIMEOUT_DEFAULT, (unsigned)COOK_IMPORT_TIMEOUT_MAX,
            (unsigned)COOK_IMPORT_TIMEOUT_DEFAULT);
    /* Two parts: one literal would pass the 4095 characters C99 promises. */
    fputs("      --list-presets list the presets kiln.yml defines and exit\n"
          "      --no-cache     cook every asset, ignoring the cache (it is rewritten)\n"
          "      --pack         also write <output>.kpak, the output tree in one file\n"
          "      --remote-cache URL[,URL...]\n"
          "                     also look assets up on these servers (http://,\n"
          "                     https:// with WebDAV PUT, redis://) after a local\n"
          "                     miss, and store what is cooked there (default:\n"
          "                     $KILN_REMOTE_CACHE, else kiln.yml's cache.remote)\n"
          "      --remote-cache-mode read-write|read-only\n"
          "                     read-only never uploads (default:\n"
          "                     $KILN_REMOTE_CACHE_MODE, kiln.yml, read-write)\n"
          "      --no-remote-cache  use no remote cache\n"
          "      --shard I/N    cook only the I-th of N slices of the assets (0 <= I\n"
          "                     < N, split by estimated work, the same on every\n"
          "                     machine) and upload it; a final build then assembles\n"
          "                     the whole output from the remote cache (docs/team.md)\n"
          "      --roots        cook only what the SOURCE operands (paths or globs\n"
          "                     relative to the input folder; without operands,\n"
          "                     kiln.yml's `roots:`) reach through the files and\n"
          "                     assets they name, plus kiln.yml's `always:`; the\n"
          "                     outputs of everything else are removed\n"
          "      --verify       re-read and validate every file written\n"
          "  -n, --dry-run      list what would be cooked and why (new, source or\n"
          "                     dependency changed, settings or encoder version\n"
          "                     changed, output missing, ...: what the cache knows)\n"
          "                     and write nothing; files a model reads are known\n"
          "                     once it has been cooked\n"
          "      --json         print the end-of-build report as JSON (for CI)\n"
          "      --report FILE  then write the HTML build report (as `kiln report`)\n"
          "  -q, --quiet        print errors only\n"
          "  -v, --verbose      print every asset and every skipped file\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 when every asset cooked, 1 when any asset failed (the\n"
          "others are still written) or kiln.yml has an error, 2 for a command-line\n"
          "mistake.\n",
          out);
}

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

bool build_shared_option(int option, build_options *options) {
    switch (option) {
    case 'o':
        options->output = optarg;
        return true;
    case BUILD_OPTION_CONFIG:
        options->config = optarg;
        return true;
    case BUILD_OPTION_PRESET:
        options->preset = optarg;
        return true;
    case 'n':
        options->dry_run = true;
        return true;
    case 'q':
        options->quiet = true;
        return true;
    case 'v':
        options->verbose = true;
        return true;
    default:
        return false;
    }
}

int build_shared_options_done(const char *command, build_options *options) {
    if (options->quiet && options->verbose)
        return cli_usage_error(command, "--quiet and --verbose cannot be combined");
    if ((options->input && options->input[0] == '\0') ||
        (options->output && options->output[0] == '\0'))
        return cli_usage_error(command, "a folder option needs a name");
    options->verbosity = options->quiet     ? PROGRESS_QUIET
                         : options->verbose ? PROGRESS_VERBOSE
                                            : PROGRESS_NORMAL;
    return -1;
}

build_options cli_default_build_options(void) {
    build_options options = build_default_options();
    options.progress = cli_terminal_progress();
    return options;
}

int build_cook_option(const char *command, int option, const char *arg, build_options *options) {
    unsigned long value;
    if (option == 'i') {
        options->input = arg;
    } else if (option == 'j') {
        if (!cli_parse_whole(arg, 1, PARALLEL_MAX_THREADS, &value))
            return cli_usage_error(command, "invalid job count '%s' (expected 1..%u)", arg,
                                   PARALLEL_MAX_THREADS);
        options->jobs = (unsigned)value;
    } else if (option == BUILD_OPTION_MEMORY_LIMIT) {
        if (!build_parse_memory_limit(arg, &options->memory_limit))
            return cli_usage_error(command,
                                   "invalid memory limit '%s' (expected bytes, optionally with "
                                   "K, M or G, or 1%%..100%% of the RAM)",
                                   arg);
    } else if (option == BUILD_OPTION_IMPORT_TIMEOUT) {
        /* the range of kiln.yml's import.timeout, and below asset.timeout's */
        if (!cli_parse_whole(arg, 1, COOK_IMPORT_TIMEOUT_MAX, &value))
            return cli_usage_error(command, "invalid import timeout '%s' (expected 1..%u seconds)",
                                   arg, (unsigned)COOK_IMPORT_TIMEOUT_MAX);
        options->import_timeout = (uint32_t)value;
    } else if (option == BUILD_OPTION_ASSET_TIMEOUT) {
        if (!cli_parse_whole(arg, 0, COOK_ASSET_TIMEOUT_MAX, &value))
            return cli_usage_error(command,
                                   "invalid asset timeout '%s' (expected 0..%u seconds, 0: none)",
                                   arg, (unsigned)COOK_ASSET_TIMEOUT_MAX);
        options->asset_timeout = (uint32_t)value;
        options->asset_timeout_given = true;
    } else if (option == BUILD_OPTION_REMOTE_CACHE) {
        if (arg[0] == '\0')
            return cli_usage_error(command, "--remote-cache needs a URL");
        options->remote_cache = arg;
    } else if (option == BUILD_OPTION_NO_REMOTE_CACHE) {
        options->no_remote_cache = true;
    } else if (option == BUILD_OPTION_REMOTE_CACHE_MODE) {
        options->remote_cache_mode = remote_mode_parse(arg);
        if (options->remote_cache_mode == REMOTE_MODE_UNSET)
            return cli_usage_error(command,
                                   "invalid remote cache mode '%s' (expected read-write or "
                                   "read-only)",
                                   arg);
    } else {
        return 0;
    }
    return -1;
}

int cli_parse_cook_options(const char *command, int argc, char **argv,
                           const struct option *long_options, void (*usage)(FILE *),
                           cli_own_option own, void *context, build_options *options) {
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(
                argc, argv, CLI_GETOPT_PREFIX BUILD_SHARED_SHORT_OPTIONS BUILD_COOK_SHORT_OPTIONS,
                long_options, NULL)) != -1) {
        int taken = build_cook_option(command, option, optarg, options);
        if (taken == 0)
            taken = own(option, optarg, context);
        if (taken > 0)
            return taken;
        if (taken < 0)
            continue;
        if (option == 'h') {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (!build_shared_option(option, options))
            return cli_option_error(command, argv, long_options, option);
    }
    return -1;
}

/* --shard I/N: 0 <= I < N <= BUILD_MAX_SHARDS, digits only. */
#define BUILD_MAX_SHARDS 100000u
static bool parse_shard(const char *text, uint32_t *index, uint32_t *count) {
    char *end;
    if (text[0] < '0' || text[0] > '9')
        return false;
    unsigned long i = strtoul(text, &end, 10);
    if (*end != '/' || end[1] < '0' || end[1] > '9')
        return false;
    unsigned long n = strtoul(end + 1, &end, 10);
    if (*end != '\0' || n < 1 || n > BUILD_MAX_SHARDS || i >= n)
        return false;
    *index = (uint32_t)i;
    *count = (uint32_t)n;
    return true;
}

/* What `kiln build`'s command line asks beyond the build itself. */
typedef struct build_command {
    build_options *options;
    const char *report; /* --report FILE.html, or NULL */
} build_command;

/* kiln build's own options (cli_own_option). */
static int build_own_option(int option, const char *arg, void *context) {
    build_command *command = context;
    build_options *options = command->options;
    switch (option) {
    case OPTION_REPORT:
        command->report = arg;
        options->record_times = true;
        return -1;
    case OPTION_SHARD:
        if (!parse_shard(arg, &options->shard_index, &options->shard_count))
            return cli_usage_error(COMMAND,
                                   "invalid shard '%s' (expected I/N with 0 <= I < N, as in "
                                   "--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)",
                                   arg);
        return -1;
    case OPTION_LIST_PRESETS:
        options->list_presets = true;
        return -1;
    case OPTION_NO_CACHE:
        options->no_cache = true;
        return -1;
    case OPTION_PACK:
        options->pack = true;
        return -1;
    case OPTION_JSON:
        options->json = true;
        return -1;
    case OPTION_ROOTS:
        options->roots = true;
        return -1;
    case OPTION_VERIFY:
        options->verify = true;
        return -1;
    default:
        return 0;
    }
}

/* Returns -1 to go on building, otherwise the exit status. */
static int parse_build_options(int argc, char **argv, build_command *command) {
    build_options *options = command->options;
    *options = cli_default_build_options();
    int status = cli_parse_cook_options(COMMAND, argc, argv, build_long_options, cmd_build_usage,
                                        build_own_option, command, options);
    if (status >= 0)
        return status;
    if (options->roots) {
        options->root_args = argv + optind;
        options->root_arg_count = (size_t)(argc - optind);
    } else if (!cli_reject_operands(COMMAND, argc, argv)) {
        return CLI_EXIT_USAGE;
    }
    if (options->json && options->verbose)
        return cli_usage_error(COMMAND, "--json and --verbose cannot be combined");
    return build_shared_options_done(COMMAND, options);
}

int cli_build_setup_load(const build_options *options, build_setup *setup) {
    cli_set_source_folder(NULL); /* kiln.yml's messages name kiln.yml as found */
    int status = build_setup_load(options, setup);
    if (status < 0)
        cli_set_source_folder(setup->input);
    struct stat info;
    if (status < 0 && options->input == NULL && setup->config.path == NULL &&
        stat(setup->input, &info) != 0 && errno == ENOENT) {
        /* The first run in a new folder: say how to start. */
        cli_error("no %s here and no input folder '%s': run `kiln init` to start a project "
                  "here, or name the sources with -i DIR",
                  BUILD_CONFIG_FILE, setup->input);
        return CLI_EXIT_FAILURE;
    }
    return status;
}

int cli_load_folders(const char *input, const char *output, build_setup *setup) {
    build_options options = cli_default_build_options();
    options.input = input;
    options.output = output;
    return build_setup_load(&options, setup);
}

int cmd_build(int argc, char **argv) {
    build_options options;
    build_command command = {.options = &options};
    int status = parse_build_options(argc, argv, &command);
    if (status >= 0)
        return status;
    build_setup setup;
    status = cli_build_setup_load(&options, &setup);
    bool built = status < 0;
    if (status < 0 && (status = build_execute(&options, &setup)) == BUILD_USAGE)
        cli_usage_hint(COMMAND); /* the output folder is the input folder */
    if (built && command.report != NULL && !options.dry_run && !options.list_presets &&
        status != BUILD_USAGE) {
        int reported = report_write_file(setup.output, command.report);
        status = status != CLI_EXIT_OK ? status : reported;
    }
    config_free(&setup.config);
    return status;
}
