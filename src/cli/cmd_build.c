/*
 * cmd_build.c — `kiln build`: cook every source file under the input folder
 * (or, with --roots, what the roots reach).
 *
 *   options → kiln.yml → plan (build/plan.c) → cache check or cook
 *   (build/run.c) → manifest, cache, pack (build/outputs.c) → report
 *   (build/report.c)
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/build/build.h"

#define COMMAND "build"

/* Test hook: the encoder version that goes into cache keys, so a test can
 * prove that bumping KILN_ENCODER_VERSION rebuilds everything. */
#define ENCODER_VERSION_ENV "KILN_TEST_ENCODER_VERSION"

enum {
    OPTION_VERIFY = BUILD_OPTION_OWN,
    OPTION_LIST_PRESETS,
    OPTION_NO_CACHE,
    OPTION_PACK,
    OPTION_JSON,
    OPTION_ROOTS,
};

static const struct option build_long_options[] = {
    BUILD_SHARED_LONG_OPTIONS,
    BUILD_COOK_LONG_OPTIONS,
    {"list-presets", no_argument, NULL, OPTION_LIST_PRESETS},
    {"no-cache", no_argument, NULL, OPTION_NO_CACHE},
    {"pack", no_argument, NULL, OPTION_PACK},
    {"json", no_argument, NULL, OPTION_JSON},
    {"roots", no_argument, NULL, OPTION_ROOTS},
    {"verify", no_argument, NULL, OPTION_VERIFY},
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
            "      --import-timeout SECONDS\n"
            "                     stop an importer run in its own process (assimp)\n"
            "                     that reads one file for longer, 1..%u; that asset\n"
            "                     fails, the rest cooks (overrides kiln.yml's\n"
            "                     import.timeout; default %u)\n"
            "      --config FILE  read FILE instead of looking for " CLI_CONFIG_FILE "\n"
            "      --preset NAME  apply the preset NAME of kiln.yml (overrides `preset:`)\n"
            "      --list-presets list the presets kiln.yml defines and exit\n"
            "      --no-cache     cook every asset, ignoring the cache (it is rewritten)\n"
            "      --pack         also write <output>.kpak, the output tree in one file\n"
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
            "  -q, --quiet        print errors only\n"
            "  -v, --verbose      print every asset and every skipped file\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when every asset cooked, 1 when any asset failed (the\n"
            "others are still written) or kiln.yml has an error, 2 for a command-line\n"
            "mistake.\n",
            PROGRESS_SLOW_SECONDS, CLI_DEFAULT_INPUT, CLI_DEFAULT_OUTPUT, PARALLEL_MAX_THREADS,
            BUILD_MEMORY_DEFAULT_PERCENT, (unsigned)COOK_IMPORT_TIMEOUT_MAX,
            (unsigned)COOK_IMPORT_TIMEOUT_DEFAULT);
}

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

bool build_parse_job_count(const char *text, unsigned *jobs) {
    if (text[0] < '0' || text[0] > '9')
        return false; /* strtoul would accept a sign or spaces */
    char *end = NULL;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < 1 || value > PARALLEL_MAX_THREADS)
        return false;
    *jobs = (unsigned)value;
    return true;
}

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

/* --import-timeout's value: whole seconds, 1..COOK_IMPORT_TIMEOUT_MAX (the
 * range of kiln.yml's import.timeout). */
static bool parse_import_timeout(const char *text, uint32_t *seconds) {
    if (text[0] < '0' || text[0] > '9')
        return false;
    char *end;
    unsigned long value = strtoul(text, &end, 10);
    if (*end != '\0' || value < 1 || value > COOK_IMPORT_TIMEOUT_MAX)
        return false;
    *seconds = (uint32_t)value;
    return true;
}

build_options build_default_options(void) {
    return (build_options){.jobs = parallel_cpu_count(),
                           .memory_limit = build_memory_default_limit(),
                           .verbosity = PROGRESS_NORMAL};
}

int build_cook_option(const char *command, int option, const char *arg, build_options *options) {
    if (option == 'i') {
        options->input = arg;
    } else if (option == 'j') {
        if (!build_parse_job_count(arg, &options->jobs))
            return cli_usage_error(command, "invalid job count '%s' (expected 1..%u)", arg,
                                   PARALLEL_MAX_THREADS);
    } else if (option == BUILD_OPTION_MEMORY_LIMIT) {
        if (!build_parse_memory_limit(arg, &options->memory_limit))
            return cli_usage_error(command,
                                   "invalid memory limit '%s' (expected bytes, optionally with "
                                   "K, M or G, or 1%%..100%% of the RAM)",
                                   arg);
    } else if (option == BUILD_OPTION_IMPORT_TIMEOUT) {
        if (!parse_import_timeout(arg, &options->import_timeout))
            return cli_usage_error(command, "invalid import timeout '%s' (expected 1..%u seconds)",
                                   arg, (unsigned)COOK_IMPORT_TIMEOUT_MAX);
    } else {
        return 0;
    }
    return -1;
}

/* Returns -1 to go on building, otherwise the exit status. */
static int parse_build_options(int argc, char **argv, build_options *options) {
    *options = build_default_options();
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(
                argc, argv, CLI_GETOPT_PREFIX BUILD_SHARED_SHORT_OPTIONS BUILD_COOK_SHORT_OPTIONS,
                build_long_options, NULL)) != -1) {
        int taken = build_cook_option(COMMAND, option, optarg, options);
        if (taken > 0)
            return taken;
        if (taken < 0)
            continue;
        switch (option) {
        case OPTION_LIST_PRESETS:
            options->list_presets = true;
            break;
        case OPTION_NO_CACHE:
            options->no_cache = true;
            break;
        case OPTION_PACK:
            options->pack = true;
            break;
        case OPTION_JSON:
            options->json = true;
            break;
        case OPTION_ROOTS:
            options->roots = true;
            break;
        case OPTION_VERIFY:
            options->verify = true;
            break;
        case 'h':
            cmd_build_usage(stdout);
            return CLI_EXIT_OK;
        default:
            if (!build_shared_option(option, options))
                return cli_option_error(COMMAND, argv, build_long_options, option);
        }
    }
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

/* The folders exist where they must and are not the same one; the output
 * can be written (unless this is a dry run, which writes nothing). */
static int check_build_folders(const build_setup *setup, bool dry_run) {
    if (!cli_require_folder(setup->input, "input"))
        return CLI_EXIT_FAILURE;
    if (cli_same_file(setup->input, setup->output))
        return cli_usage_error(COMMAND, "the output folder '%s' is the input folder",
                               setup->output);
    struct stat info;
    if (stat(setup->output, &info) == 0 && !S_ISDIR(info.st_mode)) {
        cli_error("output '%s' is not a folder", setup->output);
        return CLI_EXIT_FAILURE;
    }
    if (dry_run)
        return CLI_EXIT_OK;
    /* Found now, with one error, not once per asset after all the work: the
     * folder (and its parents) can be made and a file written in it. */
    char *probe = cook_path_join(setup->output, BUILD_WRITE_PROBE);
    char reason[512];
    bool writable = probe != NULL && write_file_atomic(probe, "kiln\n", 5, reason, sizeof reason);
    if (writable)
        unlink(probe);
    else
        cli_error("cannot write to the output folder '%s': %s", setup->output,
                  probe ? reason : "out of memory");
    free(probe);
    return writable ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

/* ---------------------------------------------------------------------------
 * Configuration
 * ------------------------------------------------------------------------- */

static void print_presets(const kiln_config *config) {
    if (config->preset_count == 0) {
        printf("%s defines no presets\n", config->path ? config->path : "no " CLI_CONFIG_FILE);
        return;
    }
    for (size_t i = 0; i < config->preset_count; i++) {
        const config_preset *preset = &config->presets[i];
        bool selected = config->preset != NULL && strcmp(config->preset, preset->name) == 0;
        printf("%s%s%s%s\n", preset->name, selected ? " (default)" : "",
               preset->output ? "  output: " : "", preset->output ? preset->output : "");
    }
}

static int unknown_preset(const build_setup *setup, const char *name, bool from_cli) {
    char list[512] = "";
    for (size_t i = 0; i < setup->config.preset_count; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, setup->config.presets[i].name, sizeof list - strlen(list) - 1);
    }
    const char *where = setup->config.path ? setup->config.path : "no " CLI_CONFIG_FILE;
    if (setup->config.preset_count == 0)
        cli_error("unknown preset '%s' (%s defines no presets)", name, where);
    else
        cli_error("unknown preset '%s' (%s defines: %s)", name, where, list);
    return from_cli ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
}

static uint32_t encoder_version(void) {
    const char *text = getenv(ENCODER_VERSION_ENV);
    if (text != NULL && text[0] >= '0' && text[0] <= '9')
        return (uint32_t)strtoul(text, NULL, 10);
    return KILN_ENCODER_VERSION;
}

int build_setup_load(const build_options *options, build_setup *setup) {
    *setup = (build_setup){.encoder_version = encoder_version()};
    cli_set_source_folder(NULL); /* kiln.yml's messages name kiln.yml as found */
    char *found = options->config ? NULL : config_find(".");
    const char *path = options->config ? options->config : found;
    if (path != NULL) {
        cook_diag diag = {0};
        bool ok = config_load(&setup->config, path, &diag);
        progress_write_diagnostics(stderr, (const char *)diag.text.data, diag.text.size,
                                   options->verbosity == PROGRESS_QUIET);
        diag_free(&diag);
        free(found);
        if (!ok)
            return CLI_EXIT_FAILURE;
    }
    if (options->list_presets) {
        print_presets(&setup->config);
        return CLI_EXIT_OK;
    }
    const char *preset_name = options->preset ? options->preset : setup->config.preset;
    if (preset_name != NULL) {
        setup->preset = config_find_preset(&setup->config, preset_name);
        if (setup->preset == NULL)
            return unknown_preset(setup, preset_name, options->preset != NULL);
    }
    setup->input = options->input        ? options->input
                   : setup->config.input ? setup->config.input
                                         : CLI_DEFAULT_INPUT;
    cli_set_source_folder(setup->input);
    setup->output = options->output                          ? options->output
                    : setup->preset && setup->preset->output ? setup->preset->output
                    : setup->config.output                   ? setup->config.output
                                                             : CLI_DEFAULT_OUTPUT;
    setup->pack = options->pack || setup->config.pack;
    return -1;
}

/* Everything done once all assets are: manifest, cache, then what is printed,
 * in source path order. */
static int finish_build(build_run *run, const struct timespec *start) {
    strlist skipped = {0};
    if (!build_find_skipped_files(run->plan, run->results, &skipped)) {
        cli_error("out of memory while listing skipped files");
        strlist_free(&skipped);
        return CLI_EXIT_FAILURE;
    }
    build_totals totals = build_add_up_results(run);
    totals.skipped = skipped.count;
    bool manifest_ok = build_write_manifest(run, &totals);
    build_keep_failed_records(run);
    build_remove_stale_outputs(run);
    build_save_cache(run);
    bool pack_ok = !run->setup->pack || build_write_pack(run->setup, &totals);
    bool walk_ok = run->plan->walk.errors == 0;
    bool ok = totals.failed == 0 && manifest_ok && pack_ok && walk_ok;
    build_print_report(run, &totals, &skipped, build_seconds_since(start), ok);
    if (!walk_ok)
        cli_error("%u file%s or folder%s of the input could not be read (named above)",
                  run->plan->walk.errors, cli_plural(run->plan->walk.errors),
                  cli_plural(run->plan->walk.errors));
    strlist_free(&skipped);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------- */

/* True when planned source `index` produces `focus`: it is its path, its
 * ref, or a ref, output or file read (a model's .mtl or texture) its last
 * cook recorded. */
static bool source_produces(const build_plan *plan, size_t index, const kiln_cache *cache,
                            const char *focus) {
    const char *source = plan->sources.items[index];
    char ref[1024];
    if (strcmp(source, focus) == 0 ||
        (cook_asset_ref(plan->importers[index], source, ref, sizeof ref) == KILN_OK &&
         strcmp(ref, focus) == 0))
        return true;
    const cache_record *record = cache_find(cache, source);
    for (size_t i = 0; record != NULL && i < record->manifest.count; i++) {
        if (strcmp(record->manifest.items[i].ref, focus) == 0)
            return true;
    }
    for (size_t i = 0; record != NULL && i < record->outputs.count; i++) {
        if (strcmp(record->outputs.items[i], focus) == 0)
            return true;
    }
    for (size_t i = 1; record != NULL && i < record->file_count; i++) {
        if (strcmp(record->files[i].path, focus) == 0)
            return true;
    }
    return false;
}

/* options->focus: which planned sources a focused build checks and cooks
 * (possibly none). NULL when out of memory. */
static bool *focus_sources(const char *focus, const build_plan *plan, const kiln_cache *cache) {
    size_t count = plan->sources.count;
    bool *focused = calloc(count ? count : 1, sizeof *focused);
    for (size_t i = 0; focused != NULL && i < count; i++)
        focused[i] = source_produces(plan, i, cache, focus);
    return focused;
}

static int cook_plan(const build_options *options, const build_setup *setup, const build_plan *plan,
                     const strlist *existing, const struct timespec *start) {
    size_t count = plan->sources.count;
    cook_asset_result *results = calloc(count ? count : 1, sizeof *results);
    asset_slot *slots = calloc(count ? count : 1, sizeof *slots);
    size_t wanted = 0; /* what the first round cooks; references found later add to it */
    for (size_t i = 0; i < count; i++)
        wanted += plan->wanted[i];
    /* A dry run shows no progress line and replays no warnings: errors only. */
    progress_reporter *reporter = progress_create(
        wanted, options->dry_run ? PROGRESS_QUIET : options->verbosity, options->jobs);
    kiln_cache old_cache = {0};
    if (!options->no_cache)
        build_load_cache_and_journal(options, setup, &old_cache);
    int status = CLI_EXIT_FAILURE;
    bool *focused = options->focus ? focus_sources(options->focus, plan, &old_cache) : NULL;
    build_memory_gate memory;
    build_memory_gate_init(&memory, options->memory_limit);
    build_run run = {options, setup, plan,     &old_cache, existing, results,
                     slots,   NULL,  reporter, NULL,       focused,  &memory};
    if (!options->dry_run)
        run.journal = build_journal_open(setup);
    if (results == NULL || slots == NULL || reporter == NULL ||
        (options->focus != NULL && focused == NULL)) {
        cli_error("out of memory");
    } else if (!build_cook_in_order(&run)) {
        progress_end(reporter);
        cli_error("out of memory");
    } else if (options->dry_run) {
        progress_end(reporter);
        build_totals totals = build_add_up_results(&run);
        build_print_dry_run(&run, &totals);
        status = CLI_EXIT_OK;
    } else {
        progress_end(reporter);
        status = finish_build(&run, start);
    }
    if (options->round_done != NULL && results != NULL && slots != NULL)
        options->round_done(&run, status, options->round_context);
    for (size_t i = 0; results != NULL && slots != NULL && i < count; i++) {
        if (slots[i].borrowed) /* its strings belong to the old cache */
            free(results[i].dependencies.items);
        else
            cook_asset_result_free(&results[i]);
        if (slots[i].has_record)
            cache_record_free(&slots[i].record);
    }
    build_journal_close(run.journal);
    if (reporter != NULL)
        progress_destroy(reporter);
    build_memory_gate_destroy(&memory);
    cache_free(&old_cache);
    free(focused);
    free(slots);
    free(results);
    return status;
}

int build_execute(const build_options *options, const build_setup *setup) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);

    int status = check_build_folders(setup, options->dry_run);
    if (status != CLI_EXIT_OK)
        return status;
    /* Read until import.timeout replaced it; ignoring it silently would hide
     * that a limit someone set no longer applies. */
    if (getenv("KILN_ISOLATE_TIMEOUT") != NULL && !options->watch_round)
        fprintf(stderr, "kiln: warning: KILN_ISOLATE_TIMEOUT is no longer read; set "
                        "import.timeout in kiln.yml or use --import-timeout SECONDS\n");
    /* One build at a time per output folder: taken before the folder is
     * listed, released after the cache and the pack are written. */
    int lock = -1;
    if (!options->dry_run &&
        (lock = build_lock_output(setup->output, options->verbosity == PROGRESS_QUIET)) < 0)
        return CLI_EXIT_FAILURE;
    strlist existing = {0};
    build_plan plan = {0};
    if (!build_scan_output(setup, !options->dry_run, &existing)) {
        cli_error("out of memory while listing the output folder");
        status = CLI_EXIT_FAILURE;
    } else if (!build_plan_make(options, setup, &plan)) {
        status = CLI_EXIT_FAILURE;
    } else {
        /* A large asset may use every thread of the pool (cook/core/parallel.h). */
        for (size_t i = 0; i < plan.sources.count; i++) {
            plan.settings[i].threads = options->jobs;
            if (options->import_timeout != 0)
                plan.settings[i].import_timeout = options->import_timeout;
        }
        status = cook_plan(options, setup, &plan, &existing, &start);
    }
    build_plan_free(&plan);
    strlist_free(&existing);
    build_unlock_output(lock);
    return status;
}

int cmd_build(int argc, char **argv) {
    build_options options;
    int status = parse_build_options(argc, argv, &options);
    if (status >= 0)
        return status;
    build_setup setup;
    status = build_setup_load(&options, &setup);
    if (status < 0)
        status = build_execute(&options, &setup);
    config_free(&setup.config);
    return status;
}
