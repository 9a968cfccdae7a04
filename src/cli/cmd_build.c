/*
 * cmd_build.c — `kiln build`: cook every source file under the input folder.
 *
 *   options → kiln.yml → plan (walk, importer match, resolved settings)
 *   → models (cache check or cook) → the other kinds, minus the models'
 *   dependencies → manifest → cache → report
 *
 * Models go first because the files they read (images, .mtl, .bin) are
 * cooked through them (DESIGN.md): such a file is never cooked a second time
 * as a standalone asset, whatever importer would claim it.
 *
 * Results are stored per planned index, so everything printed after the pool
 * is done comes out in source path order whatever the number of workers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/config.h"

#define COMMAND "build"

/* Test hook: the encoder version that goes into cache keys, so a test can
 * prove that bumping KILN_ENCODER_VERSION rebuilds everything. */
#define ENCODER_VERSION_ENV "KILN_TEST_ENCODER_VERSION"

enum {
    OPTION_VERIFY = 256,
    OPTION_CONFIG,
    OPTION_PRESET,
    OPTION_LIST_PRESETS,
    OPTION_NO_CACHE,
    OPTION_PACK,
    OPTION_JSON,
};

typedef struct build_options {
    const char *input;  /* NULL: from kiln.yml, else the default */
    const char *output; /* NULL: from the preset, kiln.yml, else the default */
    const char *config; /* --config FILE */
    const char *preset; /* --preset NAME */
    bool list_presets;
    bool no_cache;
    bool pack;
    bool json; /* the end-of-build report as JSON on stdout */
    unsigned jobs;
    bool verify;
    progress_verbosity verbosity;
} build_options;

/* Everything the build resolved before cooking. */
typedef struct build_setup {
    const char *input;
    const char *output;
    kiln_config config;
    const config_preset *preset;
    uint32_t encoder_version;
    bool pack; /* --pack or `pack: true` */
} build_setup;

/* What the walk found: sources an importer claims, and everything else. */
typedef struct build_plan {
    strlist sources;                 /* sorted, relative to the input folder */
    const cook_importer **importers; /* importers[i] cooks sources.items[i] */
    cook_settings *settings;         /* settings[i]: resolved for sources.items[i] */
    strlist unclaimed;               /* files no importer claims, sorted */
} build_plan;

typedef enum asset_status {
    ASSET_PENDING = 0,
    ASSET_COOKED,
    ASSET_FAILED,
    ASSET_UP_TO_DATE,
    ASSET_THROUGH_MODEL, /* a model's dependency: cooked through that model */
} asset_status;

/* The outcome of one planned source besides its cook_asset_result. */
typedef struct asset_slot {
    asset_status status;
    bool has_record;
    cache_record record; /* what goes into the new cache */
    const char *through; /* ASSET_THROUGH_MODEL: the model's source path */
    double seconds;      /* wall time of cook_asset */
} asset_slot;

#define REPORT_MAX_KINDS 24
#define REPORT_SLOWEST 5

/* Files and bytes written this build with one extension ("kmesh", "ktx2"). */
typedef struct kind_bytes {
    char extension[16];
    size_t files;
    uint64_t bytes;
} kind_bytes;

typedef struct build_totals {
    kind_bytes kinds[REPORT_MAX_KINDS]; /* sorted by extension; the last one
                                           collects overflow as "other" */
    size_t kind_count;
    size_t cooked;
    size_t up_to_date;
    size_t failed;
    size_t output_files;
    uint64_t output_bytes;
    size_t skipped;
} build_totals;

static const struct option build_long_options[] = {
    {"input", required_argument, NULL, 'i'},
    {"output", required_argument, NULL, 'o'},
    {"jobs", required_argument, NULL, 'j'},
    {"config", required_argument, NULL, OPTION_CONFIG},
    {"preset", required_argument, NULL, OPTION_PRESET},
    {"list-presets", no_argument, NULL, OPTION_LIST_PRESETS},
    {"no-cache", no_argument, NULL, OPTION_NO_CACHE},
    {"pack", no_argument, NULL, OPTION_PACK},
    {"json", no_argument, NULL, OPTION_JSON},
    {"verify", no_argument, NULL, OPTION_VERIFY},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cmd_build_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln [build] [options]\n"
            "\n"
            "Cooks every source file under the input folder into the output folder,\n"
            "mirroring the folder tree (models/crate.obj -> models/crate.kmesh).\n"
            "Files no importer claims are skipped and reported, never an error.\n"
            "Settings come from kiln.yml (this folder or the nearest ancestor's).\n"
            "Assets whose sources, dependencies and settings did not change since the\n"
            "last build are not cooked again (the cache is <output>/" CACHE_FILE_NAME ").\n"
            "\n"
            "Options:\n"
            "  -i, --input DIR    folder of source assets (default: kiln.yml's, else %s)\n"
            "  -o, --output DIR   folder for cooked files (default: kiln.yml's, else %s)\n"
            "  -j, --jobs N       cook N assets in parallel, 1..%d\n"
            "                     (default: the number of online processors)\n"
            "      --config FILE  read FILE instead of looking for " CLI_CONFIG_FILE "\n"
            "      --preset NAME  apply the preset NAME of kiln.yml (overrides `preset:`)\n"
            "      --list-presets list the presets kiln.yml defines and exit\n"
            "      --no-cache     cook every asset, ignoring the cache (it is rewritten)\n"
            "      --pack         also write <output>.kpak, the output tree in one file\n"
            "      --verify       re-read and validate every file written\n"
            "      --json         print the end-of-build report as JSON (for CI)\n"
            "  -q, --quiet        print errors only\n"
            "  -v, --verbose      print every asset and every skipped file\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when every asset cooked, 1 when any asset failed (the\n"
            "others are still written) or kiln.yml has an error, 2 for a command-line\n"
            "mistake.\n",
            CLI_DEFAULT_INPUT, CLI_DEFAULT_OUTPUT, CLI_MAX_JOBS);
}

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

static bool parse_job_count(const char *text, unsigned *jobs) {
    if (text[0] < '0' || text[0] > '9')
        return false; /* strtoul would accept a sign or spaces */
    char *end = NULL;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < 1 || value > CLI_MAX_JOBS)
        return false;
    *jobs = (unsigned)value;
    return true;
}

/* Returns -1 to go on building, otherwise the exit status. */
static int parse_build_options(int argc, char **argv, build_options *options) {
    *options = (build_options){.jobs = jobs_default_count(), .verbosity = PROGRESS_NORMAL};
    bool quiet = false, verbose = false;
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "i:o:j:qvh", build_long_options,
                                 NULL)) != -1) {
        switch (option) {
        case 'i':
            options->input = optarg;
            break;
        case 'o':
            options->output = optarg;
            break;
        case 'j':
            if (!parse_job_count(optarg, &options->jobs))
                return cli_usage_error(COMMAND, "invalid job count '%s' (expected 1..%d)", optarg,
                                       CLI_MAX_JOBS);
            break;
        case OPTION_CONFIG:
            options->config = optarg;
            break;
        case OPTION_PRESET:
            options->preset = optarg;
            break;
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
        case OPTION_VERIFY:
            options->verify = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 'v':
            verbose = true;
            break;
        case 'h':
            cmd_build_usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_option_error(COMMAND, argv, build_long_options, option);
        }
    }
    if (!cli_reject_operands(COMMAND, argc, argv))
        return CLI_EXIT_USAGE;
    if (quiet && verbose)
        return cli_usage_error(COMMAND, "--quiet and --verbose cannot be combined");
    if (options->json && verbose)
        return cli_usage_error(COMMAND, "--json and --verbose cannot be combined");
    if ((options->input && options->input[0] == '\0') ||
        (options->output && options->output[0] == '\0'))
        return cli_usage_error(COMMAND, "the input and output folders need a name");
    options->verbosity = quiet ? PROGRESS_QUIET : verbose ? PROGRESS_VERBOSE : PROGRESS_NORMAL;
    return -1;
}

/* The folders exist where they must and are not the same one. */
static int check_build_folders(const build_setup *setup) {
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
    return CLI_EXIT_OK;
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

/* Reads kiln.yml and decides the folders and the preset. Returns -1 to go on,
 * otherwise the exit status. */
static int setup_build(const build_options *options, build_setup *setup) {
    *setup = (build_setup){.encoder_version = encoder_version()};
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
    setup->output = options->output                          ? options->output
                    : setup->preset && setup->preset->output ? setup->preset->output
                    : setup->config.output                   ? setup->config.output
                                                             : CLI_DEFAULT_OUTPUT;
    setup->pack = options->pack || setup->config.pack;
    return -1;
}

/* ---------------------------------------------------------------------------
 * Plan
 * ------------------------------------------------------------------------- */

static void build_plan_free(build_plan *plan) {
    strlist_free(&plan->sources);
    strlist_free(&plan->unclaimed);
    free(plan->importers);
    free(plan->settings);
}

static bool build_plan_make(const build_setup *setup, build_plan *plan) {
    strlist files = {0};
    char reason[512];
    /* The output folder is excluded in case it lies inside the input. */
    if (!discover_walk(setup->input, setup->output, &files, reason, sizeof reason)) {
        cli_error("cannot list the input folder: %s", reason);
        strlist_free(&files);
        return false;
    }
    bool ok = true;
    if (files.count > 0) {
        plan->importers = calloc(files.count, sizeof *plan->importers);
        plan->settings = calloc(files.count, sizeof *plan->settings);
        ok = plan->importers != NULL && plan->settings != NULL;
    }
    for (size_t i = 0; ok && i < files.count; i++) {
        const cook_importer *importer = discover_match(files.items[i]);
        if (importer != NULL) {
            size_t at = plan->sources.count;
            plan->importers[at] = importer;
            config_resolve(&setup->config, setup->preset, files.items[i], &plan->settings[at]);
            ok = strlist_push(&plan->sources, files.items[i]);
        } else {
            ok = strlist_push(&plan->unclaimed, files.items[i]);
        }
    }
    if (!ok)
        cli_error("out of memory while planning the build");
    strlist_free(&files);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Cache check and replay
 * ------------------------------------------------------------------------- */

typedef struct build_run {
    const build_options *options;
    const build_setup *setup;
    const build_plan *plan;
    const kiln_cache *old_cache; /* empty with --no-cache or when unreadable */
    cook_asset_result *results;  /* one per planned source */
    asset_slot *slots;           /* one per planned source */
    const size_t *todo;          /* the indices of the current phase */
    progress_reporter *reporter;
} build_run;

static bool output_exists(const char *output, const char *path) {
    char *full = cli_path_join(output, path);
    struct stat info;
    bool exists = full != NULL && stat(full, &info) == 0 && S_ISREG(info.st_mode);
    free(full);
    return exists;
}

/* Current stamps of every file of a record; false when one is gone. */
static bool restamp(const char *input, const cache_record *old, cache_stamp *stamps) {
    for (size_t i = 0; i < old->file_count; i++) {
        if (!cache_stamp_file(input, old->files[i].path, &stamps[i]))
            return false;
    }
    return true;
}

/* True when the recorded cook of source `index` is still valid; then the new
 * cache record (with fresh stamps) is left in the slot. Reads no source byte
 * when every stamp matches. */
static bool check_cached(build_run *run, size_t index, const cache_record *old) {
    const char *importer = run->plan->importers[index]->name;
    if (strcmp(old->importer, importer) != 0 || old->file_count == 0)
        return false;
    for (size_t i = 0; i < old->outputs.count; i++) {
        if (!output_exists(run->setup->output, old->outputs.items[i]))
            return false; /* deleted by hand: cook it again */
    }
    cache_stamp *stamps = calloc(old->file_count, sizeof *stamps);
    bool valid = stamps != NULL && restamp(run->setup->input, old, stamps);
    uint64_t content = old->content;
    if (valid) {
        bool same = true;
        for (size_t i = 0; same && i < old->file_count; i++)
            same = cache_stamps_equal(&stamps[i], &old->files[i]);
        if (!same) /* touched, maybe not changed: the bytes decide */
            valid = cache_hash_content(run->setup->input, stamps, old->file_count, &content);
    }
    valid = valid && content == old->content &&
            cache_key(content, &run->plan->settings[index], run->setup->encoder_version,
                      importer) == old->key;
    asset_slot *slot = &run->slots[index];
    if (valid && cache_record_copy(&slot->record, old)) {
        for (size_t i = 0; i < old->file_count; i++) {
            slot->record.files[i].size = stamps[i].size;
            slot->record.files[i].mtime_ns = stamps[i].mtime_ns;
            slot->record.files[i].inode = stamps[i].inode;
        }
        slot->has_record = true;
    } else {
        valid = false;
    }
    free(stamps);
    return valid;
}

/* Fills the asset's result from its record, as if it had just been cooked. */
static bool replay_record(const cache_record *record, cook_asset_result *result) {
    *result = (cook_asset_result){.ok = true};
    bool ok = true;
    for (size_t i = 0; ok && i < record->outputs.count; i++)
        ok = strlist_push(&result->outputs, record->outputs.items[i]);
    for (size_t i = 1; ok && i < record->file_count; i++)
        ok = strlist_push(&result->dependencies, record->files[i].path);
    for (size_t i = 0; ok && i < record->manifest.count; i++) {
        const cook_manifest_entry *e = &record->manifest.items[i];
        ok = cook_manifest_add(&result->manifest, e->ref, e->path, e->kind, e->color_space,
                               e->index);
    }
    return ok;
}

/* Every string the record would hold can be written in the cache format. */
static bool result_is_recordable(const char *source, const cook_asset_result *result) {
    if (!cache_path_is_safe(source))
        return false;
    for (size_t i = 0; i < result->dependencies.count; i++) {
        if (!cache_path_is_safe(result->dependencies.items[i]))
            return false;
    }
    for (size_t i = 0; i < result->outputs.count; i++) {
        if (!cache_path_is_safe(result->outputs.items[i]))
            return false;
    }
    for (size_t i = 0; i < result->manifest.count; i++) {
        const cook_manifest_entry *e = &result->manifest.items[i];
        if (!cache_path_is_safe(e->path) || strpbrk(e->ref, "\t\n\r") != NULL || e->ref[0] == 0)
            return false;
    }
    return true;
}

/* What a cook saw, to tell whether a file changed while it ran: the cache
 * hashes files after the cook, so a file edited during it would otherwise
 * be recorded with bytes the cooked output does not reflect. */
typedef struct cook_window {
    bool source_known;
    cache_stamp source_before; /* the source's stamp just before the cook */
    int64_t start_ns;          /* wall clock when the cook started */
} cook_window;

/* The new cache record of a freshly cooked asset: stamps and bytes of its
 * source and dependencies as they are now. Failing here only costs a recook
 * next time, so it is silent.
 *
 * An asset that cooked with warnings is not recorded: a warning is often a
 * file the source names but that is missing, and only files that were opened
 * are dependencies, so the cache could not see that file appear later. */
static void record_cooked(build_run *run, size_t index, const cook_window *window) {
    const char *source = run->plan->sources.items[index];
    const cook_asset_result *result = &run->results[index];
    asset_slot *slot = &run->slots[index];
    if (result->diag.warnings > 0 || !result_is_recordable(source, result))
        return;
    cache_record *record = &slot->record;
    *record = (cache_record){0};
    const char *importer = run->plan->importers[index]->name;
    bool ok = (record->source = cook_strdup(source)) != NULL &&
              (record->importer = cook_strdup(importer)) != NULL;
    size_t count = 1 + result->dependencies.count;
    record->files = ok ? calloc(count, sizeof *record->files) : NULL;
    ok = ok && record->files != NULL;
    for (size_t i = 0; ok && i < count; i++) {
        const char *path = i == 0 ? source : result->dependencies.items[i - 1];
        cache_stamp stamp;
        ok = cache_stamp_file(run->setup->input, path, &stamp) &&
             (record->files[i].path = cook_strdup(path)) != NULL;
        /* Changed during the cook (or dated in the future): do not trust it. */
        ok =
            ok && stamp.mtime_ns < window->start_ns &&
            (i > 0 || (window->source_known && cache_stamps_equal(&stamp, &window->source_before)));
        if (ok) {
            record->files[i].size = stamp.size;
            record->files[i].mtime_ns = stamp.mtime_ns;
            record->files[i].inode = stamp.inode;
            record->file_count = i + 1;
        }
    }
    ok = ok &&
         cache_hash_content(run->setup->input, record->files, record->file_count, &record->content);
    record->key = cache_key(record->content, &run->plan->settings[index],
                            run->setup->encoder_version, importer);
    for (size_t i = 0; ok && i < result->outputs.count; i++)
        ok = strlist_push(&record->outputs, result->outputs.items[i]);
    for (size_t i = 0; ok && i < result->manifest.count; i++) {
        const cook_manifest_entry *e = &result->manifest.items[i];
        ok = cook_manifest_add(&record->manifest, e->ref, e->path, e->kind, e->color_space,
                               e->index);
    }
    if (ok)
        slot->has_record = true;
    else
        cache_record_free(record);
}

/* ---------------------------------------------------------------------------
 * Cooking
 * ------------------------------------------------------------------------- */

static double seconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void process_planned_asset(void *context, size_t job) {
    build_run *run = context;
    size_t index = run->todo[job];
    const char *source_path = run->plan->sources.items[index];
    asset_slot *slot = &run->slots[index];
    const cache_record *old = cache_find(run->old_cache, source_path);
    if (old != NULL && check_cached(run, index, old) && replay_record(old, &run->results[index])) {
        slot->status = ASSET_UP_TO_DATE;
        if (run->options->verbosity == PROGRESS_VERBOSE)
            progress_print(run->reporter, stdout, "up to date %s", source_path);
        return;
    }
    if (slot->has_record) { /* a replay that ran out of memory: cook instead */
        cache_record_free(&slot->record);
        slot->has_record = false;
        cook_asset_result_free(&run->results[index]);
    }
    progress_asset_started(run->reporter, source_path);
    cook_request request = {
        .input_root = run->setup->input,
        .output_root = run->setup->output,
        .source_path = source_path,
        .importer = run->plan->importers[index],
        .settings = &run->plan->settings[index],
        .verify = run->options->verify,
    };
    cook_window window = {
        .source_known = cache_stamp_file(run->setup->input, source_path, &window.source_before)};
    struct timespec start, wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    window.start_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
    clock_gettime(CLOCK_MONOTONIC, &start);
    cook_asset(&request, &run->results[index]);
    slot->seconds = seconds_since(&start);
    slot->status = run->results[index].ok ? ASSET_COOKED : ASSET_FAILED;
    if (run->results[index].ok)
        record_cooked(run, index, &window);
    progress_asset_finished(run->reporter, source_path, &run->results[index]);
}

static void run_phase(build_run *run, const size_t *todo, size_t count) {
    run->todo = todo;
    jobs_run(count, run->options->jobs, process_planned_asset, run);
}

/* Every dependency of every model (cooked or replayed), sorted, each paired
 * with the first model that reads it. */
typedef struct dependency_owner {
    const char *path;
    const char *model;
} dependency_owner;

static int compare_owner(const void *a, const void *b) {
    const dependency_owner *x = a, *y = b;
    int order = strcmp(x->path, y->path);
    return order != 0 ? order : strcmp(x->model, y->model);
}

static dependency_owner *collect_model_dependencies(const build_run *run, size_t *count) {
    size_t total = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->plan->importers[i]->kind == COOK_KIND_MODEL)
            total += run->results[i].dependencies.count;
    }
    dependency_owner *owners = malloc((total ? total : 1) * sizeof *owners);
    if (owners == NULL)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->plan->importers[i]->kind != COOK_KIND_MODEL)
            continue;
        for (size_t d = 0; d < run->results[i].dependencies.count; d++)
            owners[at++] = (dependency_owner){run->results[i].dependencies.items[d],
                                              run->plan->sources.items[i]};
    }
    if (at > 0)
        qsort(owners, at, sizeof *owners, compare_owner);
    *count = at;
    return owners;
}

static const char *owning_model(const dependency_owner *owners, size_t count, const char *path) {
    size_t low = 0, high = count;
    while (low < high) { /* the first entry whose path is >= path */
        size_t mid = low + (high - low) / 2;
        if (strcmp(owners[mid].path, path) < 0)
            low = mid + 1;
        else
            high = mid;
    }
    return low < count && strcmp(owners[low].path, path) == 0 ? owners[low].model : NULL;
}

/* Phase 1: models. Phase 2: every other kind, except what a model read. */
static bool cook_in_order(build_run *run) {
    size_t count = run->plan->sources.count;
    size_t *todo = malloc((count ? count : 1) * sizeof *todo);
    if (todo == NULL)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (run->plan->importers[i]->kind == COOK_KIND_MODEL)
            todo[n++] = i;
    }
    run_phase(run, todo, n);

    size_t owner_count = 0;
    dependency_owner *owners = collect_model_dependencies(run, &owner_count);
    if (owners == NULL) {
        free(todo);
        return false;
    }
    n = 0;
    for (size_t i = 0; i < count; i++) {
        if (run->plan->importers[i]->kind == COOK_KIND_MODEL)
            continue;
        const char *model = owning_model(owners, owner_count, run->plan->sources.items[i]);
        if (model != NULL) {
            run->slots[i].status = ASSET_THROUGH_MODEL;
            run->slots[i].through = model;
            run->results[i].ok = true;
            if (run->options->verbosity == PROGRESS_VERBOSE)
                progress_print(run->reporter, stdout, "cooked through %s: %s", model,
                               run->plan->sources.items[i]);
        } else {
            todo[n++] = i;
        }
    }
    run_phase(run, todo, n);
    free(owners);
    free(todo);
    return true;
}

/* ---------------------------------------------------------------------------
 * Cache file
 * ------------------------------------------------------------------------- */

/* Reads <output>/.kiln-cache. A missing file is an empty cache; a corrupt or
 * foreign one is a warning and an empty cache: it is never trusted. */
static void load_cache(const build_options *options, const build_setup *setup, kiln_cache *cache) {
    *cache = (kiln_cache){0};
    char *path = cli_path_join(setup->output, CACHE_FILE_NAME);
    uint8_t *data = NULL;
    size_t size = 0;
    char reason[256];
    struct stat info;
    if (path == NULL || stat(path, &info) != 0) {
        free(path);
        return;
    }
    if (!cook_read_file(path, SIZE_MAX / 2, &data, &size, reason, sizeof reason) ||
        !cache_parse(cache, data, size, reason, sizeof reason)) {
        if (options->verbosity != PROGRESS_QUIET)
            fprintf(stderr, "%s: warning: ignoring the build cache (%s); every asset is cooked\n",
                    path, reason);
    }
    free(data);
    free(path);
}

static int compare_output_path(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Removes a file the previous build made and this one did not, then the
 * folders it leaves empty (rmdir fails harmlessly on a non-empty one). */
static void remove_stale_output(const build_setup *setup, const char *relative,
                                const build_options *options) {
    char *full = cli_path_join(setup->output, relative);
    if (full == NULL)
        return;
    if (unlink(full) == 0 && options->verbosity == PROGRESS_VERBOSE)
        printf("removed %s\n", relative);
    for (char *slash = strrchr(full, '/'); slash != NULL; slash = strrchr(full, '/')) {
        *slash = '\0';
        if (strlen(full) <= strlen(setup->output) || rmdir(full) != 0)
            break;
    }
    free(full);
}

/* Every output of the previous build that no asset of this build produced or
 * still owns (a failed asset keeps its old files) is deleted: sources that
 * disappeared, models that now write fewer textures, files now cooked
 * through a model. */
static void remove_stale_outputs(const build_run *run) {
    const kiln_cache *old = run->old_cache;
    size_t total = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++)
        total += run->slots[i].has_record ? run->slots[i].record.outputs.count : 0;
    const char **kept = malloc((total ? total : 1) * sizeof *kept);
    if (kept == NULL)
        return; /* leaving stale files is safe, deleting wrong ones is not */
    size_t at = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        for (size_t o = 0; run->slots[i].has_record && o < run->slots[i].record.outputs.count; o++)
            kept[at++] = run->slots[i].record.outputs.items[o];
    }
    qsort(kept, at, sizeof *kept, compare_output_path);
    for (size_t r = 0; r < old->count; r++) {
        for (size_t o = 0; o < old->records[r].outputs.count; o++) {
            const char *path = old->records[r].outputs.items[o];
            if (bsearch(&path, kept, at, sizeof *kept, compare_output_path) == NULL)
                remove_stale_output(run->setup, path, run->options);
        }
    }
    free(kept);
}

/* A failed asset keeps its previous record: its old files stay owned (and
 * are removed if its source goes away), and its next build cooks it again
 * because the key no longer matches. */
static void keep_failed_records(build_run *run) {
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        asset_slot *slot = &run->slots[i];
        if (slot->status != ASSET_FAILED)
            continue;
        const cache_record *old = cache_find(run->old_cache, run->plan->sources.items[i]);
        if (old != NULL && cache_record_copy(&slot->record, old))
            slot->has_record = true;
    }
}

static void save_cache(build_run *run) {
    kiln_cache cache = {.encoder_version = run->setup->encoder_version};
    bool ok = true;
    for (size_t i = 0; ok && i < run->plan->sources.count; i++) {
        if (run->slots[i].has_record)
            ok = cache_add(&cache, &run->slots[i].record); /* moves it */
        run->slots[i].has_record = false;
    }
    bytebuf bytes = {0};
    char reason[512];
    char *path = cli_path_join(run->setup->output, CACHE_FILE_NAME);
    if (ok)
        cache_serialize(&cache, &bytes);
    if (!ok || bytes.failed || path == NULL ||
        !write_file_atomic(path, bytes.data, bytes.size, reason, sizeof reason))
        fprintf(stderr, "%s: warning: cannot write the build cache: %s\n",
                path ? path : CACHE_FILE_NAME,
                ok && path && !bytes.failed ? reason : "out of memory");
    free(path);
    bytebuf_free(&bytes);
    cache_free(&cache);
}

/* ---------------------------------------------------------------------------
 * Bytes per kind
 * ------------------------------------------------------------------------- */

static void add_kind_bytes(build_totals *totals, const char *path, uint64_t bytes) {
    const char *name = cli_file_name(path);
    const char *dot = strrchr(name, '.');
    char extension[16];
    snprintf(extension, sizeof extension, "%s", dot && dot != name ? dot + 1 : "other");
    size_t at = 0;
    while (at < totals->kind_count && strcmp(totals->kinds[at].extension, extension) < 0)
        at++;
    if (at == totals->kind_count || strcmp(totals->kinds[at].extension, extension) != 0) {
        if (totals->kind_count == REPORT_MAX_KINDS) { /* more kinds than a build has */
            at = REPORT_MAX_KINDS - 1;
            snprintf(totals->kinds[at].extension, sizeof totals->kinds[at].extension, "other");
        } else {
            memmove(&totals->kinds[at + 1], &totals->kinds[at],
                    (totals->kind_count - at) * sizeof totals->kinds[0]);
            totals->kinds[at] = (kind_bytes){0};
            memcpy(totals->kinds[at].extension, extension, sizeof extension);
            totals->kind_count++;
        }
    }
    totals->kinds[at].files++;
    totals->kinds[at].bytes += bytes;
}

/* The outputs of a cooked asset, by extension (their sizes from the disk:
 * the result only has the total). */
static void add_output_kinds(build_totals *totals, const char *output,
                             const cook_asset_result *result) {
    for (size_t i = 0; i < result->outputs.count; i++) {
        char *full = cli_path_join(output, result->outputs.items[i]);
        struct stat info;
        if (full != NULL && stat(full, &info) == 0)
            add_kind_bytes(totals, result->outputs.items[i], (uint64_t)info.st_size);
        free(full);
    }
}

/* ---------------------------------------------------------------------------
 * Pack
 * ------------------------------------------------------------------------- */

static bool is_pack_file(const char *path) {
    size_t length = strlen(path);
    return length >= 5 && strcmp(path + length - 5, ".kpak") == 0;
}

/* Bundles the output tree into <output>.kpak next to it. The walk skips
 * hidden files (the cache, temporaries); older packs are left out too. */
static bool write_build_pack(const build_setup *setup, build_totals *totals) {
    strlist all = {0}, files = {0};
    if (!cli_list_output(setup->output, &all))
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < all.count; i++) {
        if (!is_pack_file(all.items[i]))
            ok = strlist_push(&files, all.items[i]);
    }
    size_t length = strlen(setup->output);
    while (length > 1 && setup->output[length - 1] == '/')
        length--;
    char *path = malloc(length + 6);
    bytebuf bytes = {0};
    char reason[512] = "out of memory";
    if (ok && path != NULL) {
        memcpy(path, setup->output, length);
        strcpy(path + length, ".kpak");
        ok = write_pack(setup->output, &files, &bytes, reason, sizeof reason) &&
             write_file_atomic(path, bytes.data, bytes.size, reason, sizeof reason);
    } else {
        ok = false;
    }
    if (ok) {
        totals->output_files++;
        totals->output_bytes += bytes.size;
        add_kind_bytes(totals, path, bytes.size);
    } else {
        fprintf(stderr, "%s: error: cannot write the pack: %s\n", path ? path : ".kpak", reason);
    }
    free(path);
    bytebuf_free(&bytes);
    strlist_free(&files);
    strlist_free(&all);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------- */

static bool is_in_sorted(const strlist *sorted, const char *text) {
    return sorted->count > 0 && bsearch(&text, sorted->items, sorted->count,
                                        sizeof sorted->items[0], cli_compare_strings) != NULL;
}

/* Files a cooked asset read (an .mtl, a texture) were cooked through it: they
 * are not "skipped". What is left had no use at all. */
static bool find_skipped_files(const build_plan *plan, const cook_asset_result *results,
                               strlist *skipped) {
    strlist used = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < plan->sources.count; i++) {
        for (size_t d = 0; ok && d < results[i].dependencies.count; d++)
            ok = strlist_push(&used, results[i].dependencies.items[d]);
    }
    if (used.count > 0)
        qsort(used.items, used.count, sizeof used.items[0], cli_compare_strings);
    for (size_t i = 0; ok && i < plan->unclaimed.count; i++) {
        if (!is_in_sorted(&used, plan->unclaimed.items[i]))
            ok = strlist_push(skipped, plan->unclaimed.items[i]);
    }
    strlist_free(&used);
    return ok;
}

static build_totals add_up_results(const build_run *run) {
    build_totals totals = {0};
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        const cook_asset_result *result = &run->results[i];
        switch (run->slots[i].status) {
        case ASSET_COOKED:
            totals.cooked++;
            totals.output_files += result->outputs.count;
            totals.output_bytes += result->bytes_written;
            add_output_kinds(&totals, run->setup->output, result);
            break;
        case ASSET_FAILED:
            totals.failed++;
            break;
        case ASSET_UP_TO_DATE:
            totals.up_to_date++;
            break;
        case ASSET_THROUGH_MODEL:
        case ASSET_PENDING:
            break;
        }
    }
    return totals;
}

static void print_skipped(const build_options *options, const strlist *skipped) {
    if (options->verbosity == PROGRESS_VERBOSE) {
        for (size_t i = 0; i < skipped->count; i++)
            printf("kiln: skipped %s (no importer)\n", skipped->items[i]);
    } else if (options->verbosity == PROGRESS_NORMAL && skipped->count > 0) {
        printf("kiln: skipped %zu file%s with no importer (use -v to list them)\n", skipped->count,
               cli_plural(skipped->count));
    }
}

static void print_failed(const build_plan *plan, const cook_asset_result *results) {
    for (size_t i = 0; i < plan->sources.count; i++) {
        if (!results[i].ok)
            printf("kiln: failed: %s\n", plan->sources.items[i]);
    }
}

static void print_summary(const build_totals *totals, double seconds) {
    printf("kiln: cooked %zu asset%s (%zu file%s, %.1f KiB) in %.2f s; %zu failed; "
           "%zu skipped; %zu up to date\n",
           totals->cooked, cli_plural(totals->cooked), totals->output_files,
           cli_plural(totals->output_files), (double)totals->output_bytes / 1024.0, seconds,
           totals->failed, totals->skipped, totals->up_to_date);
}

/* Writes assets.kman from every ref the cooked and replayed assets produced.
 * A collision fails the build (and leaves the previous manifest in place). */
static bool write_build_manifest(const build_run *run, build_totals *totals) {
    cook_manifest_list all = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < run->plan->sources.count; i++) {
        const cook_manifest_list *own = &run->results[i].manifest;
        for (size_t e = 0; ok && e < own->count; e++)
            ok = cook_manifest_add(&all, own->items[e].ref, own->items[e].path, own->items[e].kind,
                                   own->items[e].color_space, own->items[e].index);
    }
    cook_diag diag = {0};
    bytebuf bytes = {0};
    char reason[512];
    if (!ok)
        diag_error(&diag, KILN_MANIFEST_FILE_NAME, 0, "out of memory");
    else if (write_manifest(&all, &diag, &bytes)) {
        char *path = cli_path_join(run->setup->output, KILN_MANIFEST_FILE_NAME);
        if (path == NULL || !write_file_atomic(path, bytes.data, bytes.size, reason, sizeof reason))
            diag_error(&diag, KILN_MANIFEST_FILE_NAME, 0, "%s", path ? reason : "out of memory");
        else {
            totals->output_files++;
            totals->output_bytes += bytes.size;
            add_kind_bytes(totals, KILN_MANIFEST_FILE_NAME, bytes.size);
        }
        free(path);
    }
    ok = diag.errors == 0;
    if (diag.text.size > 0)
        fwrite(diag.text.data, 1, diag.text.size, stderr);
    diag_free(&diag);
    bytebuf_free(&bytes);
    cook_manifest_list_free(&all);
    return ok;
}

/* The indices of the (up to) REPORT_SLOWEST slowest cooked assets, slowest
 * first; ties in source order. */
static size_t find_slowest(const build_run *run, size_t *slowest) {
    size_t count = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        asset_status status = run->slots[i].status;
        if (status != ASSET_COOKED && status != ASSET_FAILED)
            continue;
        size_t at = count < REPORT_SLOWEST ? count++ : REPORT_SLOWEST;
        while (at > 0 && run->slots[slowest[at - 1]].seconds < run->slots[i].seconds) {
            if (at < REPORT_SLOWEST)
                slowest[at] = slowest[at - 1];
            at--;
        }
        if (at < REPORT_SLOWEST)
            slowest[at] = i;
    }
    return count;
}

static void print_report_text(const build_run *run, const build_totals *totals) {
    if (totals->kind_count > 0) {
        printf("kiln: written:");
        for (size_t k = 0; k < totals->kind_count; k++)
            printf("%s %s %zu file%s %.1f KiB", k ? "," : "", totals->kinds[k].extension,
                   totals->kinds[k].files, cli_plural(totals->kinds[k].files),
                   (double)totals->kinds[k].bytes / 1024.0);
        putchar('\n');
    }
    size_t slowest[REPORT_SLOWEST];
    size_t count = find_slowest(run, slowest);
    if (count > 0) {
        printf("kiln: slowest:");
        for (size_t i = 0; i < count; i++)
            printf("%s %s %.2f s", i ? "," : "", run->plan->sources.items[slowest[i]],
                   run->slots[slowest[i]].seconds);
        putchar('\n');
    }
}

static void print_json_string(const char *text) {
    bytebuf buf = {0};
    bytebuf_append_json_string(&buf, text);
    if (!buf.failed)
        fwrite(buf.data, 1, buf.size, stdout);
    bytebuf_free(&buf);
}

/* The same facts as the text report, as one JSON document on stdout. */
static void print_report_json(const build_run *run, const build_totals *totals,
                              const strlist *skipped, double seconds, bool ok) {
    printf("{\"ok\":%s,\"cooked\":%zu,\"up_to_date\":%zu,\"failed\":%zu,\"skipped\":%zu,"
           "\"output_files\":%zu,\"output_bytes\":%llu,\"seconds\":%.3f,\"written\":{",
           ok ? "true" : "false", totals->cooked, totals->up_to_date, totals->failed,
           skipped->count, totals->output_files, (unsigned long long)totals->output_bytes, seconds);
    for (size_t k = 0; k < totals->kind_count; k++) {
        printf("%s", k ? "," : "");
        print_json_string(totals->kinds[k].extension);
        printf(":{\"files\":%zu,\"bytes\":%llu}", totals->kinds[k].files,
               (unsigned long long)totals->kinds[k].bytes);
    }
    printf("},\"slowest\":[");
    size_t slowest[REPORT_SLOWEST];
    size_t count = find_slowest(run, slowest);
    for (size_t i = 0; i < count; i++) {
        printf("%s{\"source\":", i ? "," : "");
        print_json_string(run->plan->sources.items[slowest[i]]);
        printf(",\"seconds\":%.3f}", run->slots[slowest[i]].seconds);
    }
    printf("],\"failed_assets\":[");
    size_t listed = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->slots[i].status == ASSET_FAILED) {
            printf("%s", listed++ ? "," : "");
            print_json_string(run->plan->sources.items[i]);
        }
    }
    printf("],\"skipped_files\":[");
    for (size_t i = 0; i < skipped->count; i++) {
        printf("%s", i ? "," : "");
        print_json_string(skipped->items[i]);
    }
    printf("]}\n");
}

/* Everything done once all assets are: manifest, cache, then what is printed,
 * in source path order. */
static int finish_build(build_run *run, const struct timespec *start) {
    strlist skipped = {0};
    if (!find_skipped_files(run->plan, run->results, &skipped)) {
        cli_error("out of memory while listing skipped files");
        strlist_free(&skipped);
        return CLI_EXIT_FAILURE;
    }
    build_totals totals = add_up_results(run);
    totals.skipped = skipped.count;
    bool manifest_ok = write_build_manifest(run, &totals);
    keep_failed_records(run);
    remove_stale_outputs(run);
    save_cache(run);
    bool pack_ok = !run->setup->pack || write_build_pack(run->setup, &totals);
    const build_options *options = run->options;
    bool ok = totals.failed == 0 && manifest_ok && pack_ok;
    if (options->json) {
        print_report_json(run, &totals, &skipped, seconds_since(start), ok);
    } else if (options->verbosity != PROGRESS_QUIET) {
        print_skipped(options, &skipped);
        print_failed(run->plan, run->results);
        print_summary(&totals, seconds_since(start));
        print_report_text(run, &totals);
    }
    fflush(stdout);
    strlist_free(&skipped);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------- */

static int cook_plan(const build_options *options, const build_setup *setup, const build_plan *plan,
                     const struct timespec *start) {
    size_t count = plan->sources.count;
    cook_asset_result *results = calloc(count ? count : 1, sizeof *results);
    asset_slot *slots = calloc(count ? count : 1, sizeof *slots);
    progress_reporter *reporter = progress_create(count, options->verbosity);
    kiln_cache old_cache = {0};
    if (!options->no_cache)
        load_cache(options, setup, &old_cache);
    int status = CLI_EXIT_FAILURE;
    build_run run = {options, setup, plan, &old_cache, results, slots, NULL, reporter};
    if (results == NULL || slots == NULL || reporter == NULL) {
        cli_error("out of memory");
    } else if (!cook_in_order(&run)) {
        progress_end(reporter);
        cli_error("out of memory");
    } else {
        progress_end(reporter);
        status = finish_build(&run, start);
    }
    for (size_t i = 0; results != NULL && slots != NULL && i < count; i++) {
        cook_asset_result_free(&results[i]);
        if (slots[i].has_record)
            cache_record_free(&slots[i].record);
    }
    if (reporter != NULL)
        progress_destroy(reporter);
    cache_free(&old_cache);
    free(slots);
    free(results);
    return status;
}

static int build(const build_options *options, const build_setup *setup) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);

    int status = check_build_folders(setup);
    if (status != CLI_EXIT_OK)
        return status;
    build_plan plan = {0};
    if (!build_plan_make(setup, &plan)) {
        status = CLI_EXIT_FAILURE;
    } else {
        /* One large texture may use every job's thread for its block rows. */
        for (size_t i = 0; i < plan.sources.count; i++)
            plan.settings[i].texture_threads = options->jobs;
        status = cook_plan(options, setup, &plan, &start);
    }
    build_plan_free(&plan);
    return status;
}

int cmd_build(int argc, char **argv) {
    build_options options;
    int status = parse_build_options(argc, argv, &options);
    if (status >= 0)
        return status;
    build_setup setup;
    status = setup_build(&options, &setup);
    if (status < 0)
        status = build(&options, &setup);
    config_free(&setup.config);
    return status;
}
