/*
 * project.c — one build of a folder: kiln.yml read into a setup (folders,
 * preset), then the folders checked, the output locked, the plan made and
 * cooked (run.c), the outputs written (outputs.c) and the report said
 * (report.c). build_project is the same for a program that embeds the
 * cooker (docs/embedding.md).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build/internal.h"

/* Test hook: the encoder version that goes into cache keys, so a test can
 * prove that bumping KILN_ENCODER_VERSION rebuilds everything. */
#define ENCODER_VERSION_ENV "KILN_TEST_ENCODER_VERSION"

build_options build_default_options(void) {
    return (build_options){.jobs = parallel_cpu_count(),
                           .memory_limit = build_memory_default_limit(),
                           .verbosity = PROGRESS_NORMAL};
}

static bool same_file(const char *a, const char *b) {
    struct stat a_info, b_info;
    return stat(a, &a_info) == 0 && stat(b, &b_info) == 0 && a_info.st_dev == b_info.st_dev &&
           a_info.st_ino == b_info.st_ino;
}

/* The folders exist where they must and are not the same one; the output
 * can be written (unless this is a dry run, which writes nothing). */
static int check_build_folders(const build_options *options, const build_setup *setup) {
    bool dry_run = options->dry_run;
    if (!build_require_folder(options, setup->input, "input"))
        return BUILD_FAILED;
    if (same_file(setup->input, setup->output)) {
        build_error(options, "the output folder '%s' is the input folder", setup->output);
        return BUILD_USAGE;
    }
    struct stat info;
    if (stat(setup->output, &info) == 0 && !S_ISDIR(info.st_mode)) {
        build_error(options, "output '%s' is not a folder", setup->output);
        return BUILD_FAILED;
    }
    if (dry_run)
        return BUILD_OK;
    /* Found now, with one error, not once per asset after all the work: the
     * folder (and its parents) can be made and a file written in it. */
    char *probe = cook_path_join(setup->output, BUILD_WRITE_PROBE);
    char reason[512];
    bool writable = probe != NULL && write_file_atomic(probe, "kiln\n", 5, reason, sizeof reason);
    if (writable)
        unlink(probe);
    else
        build_error(options, "cannot write to the output folder '%s': %s", setup->output,
                    probe ? reason : "out of memory");
    free(probe);
    return writable ? BUILD_OK : BUILD_FAILED;
}

/* ---------------------------------------------------------------------------
 * Configuration
 * ------------------------------------------------------------------------- */

static void print_presets(const build_options *options, const kiln_config *config) {
    if (config->preset_count == 0) {
        build_say(options, BUILD_STREAM_OUT, "%s defines no presets",
                  config->path ? config->path : "no " BUILD_CONFIG_FILE);
        return;
    }
    for (size_t i = 0; i < config->preset_count; i++) {
        const config_preset *preset = &config->presets[i];
        bool selected = config->preset != NULL && strcmp(config->preset, preset->name) == 0;
        build_say(options, BUILD_STREAM_OUT, "%s%s%s%s", preset->name, selected ? " (default)" : "",
                  preset->output ? "  output: " : "", preset->output ? preset->output : "");
    }
}

static int unknown_preset(const build_options *options, const build_setup *setup, const char *name,
                          bool asked) {
    char list[512] = "";
    for (size_t i = 0; i < setup->config.preset_count; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, setup->config.presets[i].name, sizeof list - strlen(list) - 1);
    }
    const char *where = setup->config.path ? setup->config.path : "no " BUILD_CONFIG_FILE;
    if (setup->config.preset_count == 0)
        build_error(options, "unknown preset '%s' (%s defines no presets)", name, where);
    else
        build_error(options, "unknown preset '%s' (%s defines: %s)", name, where, list);
    return asked ? BUILD_USAGE : BUILD_FAILED; /* options->preset named it */
}

static uint32_t encoder_version(void) {
    const char *text = getenv(ENCODER_VERSION_ENV);
    if (text != NULL && text[0] >= '0' && text[0] <= '9')
        return (uint32_t)strtoul(text, NULL, 10);
    return KILN_ENCODER_VERSION;
}

int build_setup_load(const build_options *options, build_setup *setup) {
    *setup = (build_setup){.encoder_version = encoder_version()};
    char *found = options->config ? NULL : config_find(".");
    const char *path = options->config ? options->config : found;
    if (path != NULL) {
        cook_diag diag = {0};
        bool ok = config_load(&setup->config, path, &diag);
        build_diagnostics(options, (const char *)diag.text.data, diag.text.size,
                          options->verbosity == PROGRESS_QUIET, NULL);
        diag_free(&diag);
        free(found);
        if (!ok)
            return BUILD_FAILED;
    }
    if (options->list_presets) {
        print_presets(options, &setup->config);
        return BUILD_OK;
    }
    const char *preset_name = options->preset ? options->preset : setup->config.preset;
    if (preset_name != NULL) {
        setup->preset = config_find_preset(&setup->config, preset_name);
        if (setup->preset == NULL)
            return unknown_preset(options, setup, preset_name, options->preset != NULL);
    }
    setup->input = options->input        ? options->input
                   : setup->config.input ? setup->config.input
                                         : BUILD_DEFAULT_INPUT;
    setup->output = options->output                          ? options->output
                    : setup->preset && setup->preset->output ? setup->preset->output
                    : setup->config.output                   ? setup->config.output
                                                             : BUILD_DEFAULT_OUTPUT;
    setup->pack = options->pack || setup->config.pack;
    return -1;
}

/* Everything done once all assets are: manifest, cache, then what is printed,
 * in source path order. */
/* The counts of the in-process report (build_project). */
static void fill_report(const build_run *run, const build_totals *totals, size_t skipped,
                        double seconds, build_report *report) {
    report->cooked = totals->cooked;
    report->up_to_date = totals->up_to_date;
    report->through_model = totals->through_model;
    report->failed = totals->failed;
    report->unreached = totals->unreached;
    report->skipped = skipped;
    report->output_files = totals->output_files;
    report->output_bytes = totals->output_bytes;
    report->seconds = seconds;
    report->warnings = build_count_warnings(run);
}

static int finish_build(build_run *run, build_cache_store *stores, size_t store_count,
                        const struct timespec *start, build_report *report) {
    const build_options *options = run->options;
    strlist skipped = {0};
    if (!build_find_skipped_files(run->plan, run->results, &skipped)) {
        build_error(options, "out of memory while listing skipped files");
        strlist_free(&skipped);
        return BUILD_FAILED;
    }
    build_totals totals = build_add_up_results(run);
    totals.skipped = skipped.count;
    build_keep_failed_records(run); /* before the manifest, which names their files */
    bool manifest_ok = build_write_manifest(run, &totals);
    build_remove_stale_outputs(run);
    build_save_cache(run, stores, store_count);
    bool pack_ok =
        !run->setup->pack || run->options->shard_count > 0 || build_write_pack(run, &totals);
    bool walk_ok = run->plan->walk.errors == 0;
    bool ok = totals.failed == 0 && manifest_ok && pack_ok && walk_ok;
    double seconds = build_seconds_since(start);
    build_print_report(run, &totals, &skipped, seconds, ok);
    if (report != NULL)
        fill_report(run, &totals, skipped.count, seconds, report);
    if (!walk_ok)
        build_error(options, "%u file%s or folder%s of the input could not be read (named above)",
                    run->plan->walk.errors, build_plural(run->plan->walk.errors),
                    build_plural(run->plan->walk.errors));
    strlist_free(&skipped);
    return ok ? BUILD_OK : BUILD_FAILED;
}

/* ---------------------------------------------------------------------------
 * The build
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

/* The stores a build looks records up in, in order: today the local folder
 * alone. A remote store (build/cache.h) would be opened here, after it. */
#define BUILD_MAX_STORES 4
static size_t open_stores(const build_options *options, const build_setup *setup,
                          const kiln_cache *local, build_cache_store *stores) {
    build_local_store_open(&stores[0], setup->output, local, setup->encoder_version,
                           options->record_times);
    return 1;
}

/* Closes the stores build_save_cache did not (a dry run, a failure),
 * dropping what they were told. */
static void drop_stores(build_cache_store *stores, size_t count) {
    for (size_t s = 0; s < count; s++) {
        if (stores[s].close != NULL)
            stores[s].close(stores[s].state, false, NULL, 0);
        stores[s] = (build_cache_store){0};
    }
}

static void free_results(cook_asset_result *results, asset_slot *slots, size_t count) {
    for (size_t i = 0; results != NULL && slots != NULL && i < count; i++) {
        if (slots[i].borrowed) /* its strings belong to the old cache or its record */
            free(results[i].dependencies.items);
        else
            cook_asset_result_free(&results[i]);
        if (slots[i].has_record)
            cache_record_free(&slots[i].record);
    }
    free(slots);
    free(results);
}

/* The remote cache's warnings, said as the build's. */
static void warn_remote(void *context, const char *line) {
    build_say(context, BUILD_STREAM_ERR, "%s", line);
}

/* The build's remote cache (remote.h: flags, environment, kiln.yml), or NULL.
 * A dry run asks no server: it says what the local cache knows. */
static remote_cache *open_remote(const build_options *options, const build_setup *setup) {
    if (options->dry_run)
        return NULL;
    remote_request request = {
        .urls = options->remote_cache,
        .off = options->no_remote_cache,
        .mode = options->remote_cache_mode,
        .config_urls = &setup->config.remote,
        .config_mode = setup->config.remote_mode,
        .config_max_upload = setup->config.remote_max_upload,
        .encoder_version = setup->encoder_version,
    };
    return remote_cache_open(&request, warn_remote, (void *)options);
}

static int cook_plan(const build_options *options, const build_setup *setup, const build_plan *plan,
                     const bool *other_shard, const strlist *existing, const struct timespec *start,
                     build_report *report) {
    size_t count = plan->sources.count;
    cook_asset_result *results = calloc(count ? count : 1, sizeof *results);
    asset_slot *slots = calloc(count ? count : 1, sizeof *slots);
    size_t wanted = 0; /* what the first round cooks; references found later add to it */
    for (size_t i = 0; i < count; i++)
        wanted += plan->wanted[i];
    kiln_cache old_cache = {0};
    if (!options->no_cache)
        build_load_cache_and_journal(options, setup, &old_cache);
    build_cache_store stores[BUILD_MAX_STORES] = {0};
    size_t store_count = open_stores(options, setup, &old_cache, stores);
    int status = BUILD_FAILED;
    bool *focused = options->focus ? focus_sources(options->focus, plan, &old_cache) : NULL;
    build_memory_gate memory;
    build_memory_gate_init(&memory, options->memory_limit);
    build_run run = {.options = options,
                     .setup = setup,
                     .plan = plan,
                     .old_cache = &old_cache,
                     .stores = stores,
                     .store_count = store_count,
                     .existing = existing,
                     .results = results,
                     .slots = slots,
                     .focused = focused,
                     .memory = &memory,
                     .remote = open_remote(options, setup),
                     .other_shard = other_shard};
    if (options->shard_count > 0 && !remote_cache_writes(run.remote))
        build_say(options, BUILD_STREAM_ERR,
                  "kiln: warning: shard %u/%u: %s, so what it cooks stays on this machine",
                  options->shard_index, options->shard_count,
                  run.remote == NULL ? "no remote cache is set (--remote-cache URL)"
                                     : "the remote cache is read-only");
    if (!options->dry_run)
        run.journal = build_journal_open(setup);
    if (results == NULL || slots == NULL || (options->focus != NULL && focused == NULL)) {
        build_error(options, "out of memory");
    } else {
        /* A dry run shows no progress line and replays no warnings: errors only. */
        build_progress_begin(options, wanted,
                             options->dry_run ? PROGRESS_QUIET : options->verbosity);
        bool cooked = build_cook_in_order(&run);
        build_progress_end(options);
        if (!cooked) {
            build_error(options, "out of memory");
        } else if (options->dry_run) {
            build_totals totals = build_add_up_results(&run);
            build_print_dry_run(&run, &totals);
            status = BUILD_OK;
        } else {
            status = finish_build(&run, stores, store_count, start, report);
        }
    }
    if (options->round_done != NULL && results != NULL && slots != NULL)
        options->round_done(&run, status, options->round_context);
    drop_stores(stores, store_count);
    remote_cache_close(run.remote);
    free_results(results, slots, count);
    build_journal_close(run.journal);
    build_memory_gate_destroy(&memory);
    cache_free(&old_cache);
    free(focused);
    return status;
}

/* --shard: only this shard's slice stays wanted; says how large it is. NULL
 * when out of memory. */
static bool *shard_plan(const build_options *options, const build_setup *setup, build_plan *plan) {
    build_shard_totals totals;
    bool *others = build_shard_sources(plan, setup->input, options->shard_index,
                                       options->shard_count, &totals);
    if (others == NULL) {
        build_error(options, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < plan->sources.count; i++)
        plan->wanted[i] = plan->wanted[i] && !others[i];
    if (options->verbosity != PROGRESS_QUIET && !options->json)
        build_say(
            options, BUILD_STREAM_OUT,
            "shard %u/%u: %zu of %zu asset%s, %.0f%% of the estimated work", options->shard_index,
            options->shard_count, totals.assets, totals.assets_all, build_plural(totals.assets_all),
            totals.weight_all ? 100.0 * (double)totals.weight / (double)totals.weight_all : 0.0);
    if (setup->pack && options->verbosity != PROGRESS_QUIET)
        build_say(options, BUILD_STREAM_ERR,
                  "kiln: note: a shard writes no pack: the final build that assembles the "
                  "shards' work writes it");
    return others;
}

static int execute(const build_options *options, const build_setup *setup, build_report *report) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);

    int status = check_build_folders(options, setup);
    if (status != BUILD_OK)
        return status;
    /* Read until import.timeout replaced it; ignoring it silently would hide
     * that a limit someone set no longer applies. */
    if (getenv("KILN_ISOLATE_TIMEOUT") != NULL && !options->watch_round)
        build_say(options, BUILD_STREAM_ERR,
                  "kiln: warning: KILN_ISOLATE_TIMEOUT is no longer read; set "
                  "import.timeout in kiln.yml or use --import-timeout SECONDS");
    /* One build at a time per output folder: taken before the folder is
     * listed, released after the cache and the pack are written. */
    int lock = -1;
    if (!options->dry_run && (lock = build_lock_output(options, setup->output)) < 0)
        return BUILD_FAILED;
    strlist existing = {0};
    build_plan plan = {0};
    bool *other_shard = NULL;
    if (!build_scan_output(setup, !options->dry_run, &existing)) {
        build_error(options, "out of memory while listing the output folder");
        status = BUILD_FAILED;
    } else if (!build_plan_make(options, setup, &plan)) {
        status = BUILD_FAILED;
    } else if (options->shard_count > 0 &&
               (other_shard = shard_plan(options, setup, &plan)) == NULL) {
        status = BUILD_FAILED;
    } else {
        /* A large asset may use every thread of the pool (cook/core/parallel.h). */
        for (size_t i = 0; i < plan.sources.count; i++) {
            plan.settings[i].threads = options->jobs;
            if (options->import_timeout != 0)
                plan.settings[i].import_timeout = options->import_timeout;
            if (options->asset_timeout_given)
                plan.settings[i].asset_timeout = options->asset_timeout;
        }
        status = cook_plan(options, setup, &plan, other_shard, &existing, &start, report);
    }
    free(other_shard);
    build_plan_free(&plan);
    strlist_free(&existing);
    build_unlock_output(lock);
    return status;
}

int build_execute(const build_options *options, const build_setup *setup) {
    return execute(options, setup, NULL);
}

/* ---------------------------------------------------------------------------
 * In process
 * ------------------------------------------------------------------------- */

/* The caller's progress with the first error kept for the report. */
typedef struct project_progress {
    const build_progress *caller;
    build_report *report;
} project_progress;

#define CALLER(context) (((const project_progress *)(context))->caller)

static void forward_begin(void *context, size_t total, progress_verbosity verbosity,
                          unsigned workers) {
    const build_progress *caller = CALLER(context);
    if (caller != NULL && caller->begin != NULL)
        caller->begin(caller->context, total, verbosity, workers);
}

static void forward_add_total(void *context, size_t more) {
    const build_progress *caller = CALLER(context);
    if (caller != NULL && caller->add_total != NULL)
        caller->add_total(caller->context, more);
}

static cook_activity *forward_started(void *context, const char *source_path) {
    const build_progress *caller = CALLER(context);
    if (caller == NULL || caller->asset_started == NULL)
        return NULL;
    return caller->asset_started(caller->context, source_path);
}

static void forward_finished(void *context, const char *source_path,
                             const cook_asset_result *result) {
    const build_progress *caller = CALLER(context);
    if (caller != NULL && caller->asset_finished != NULL)
        caller->asset_finished(caller->context, source_path, result);
}

static void forward_settled(void *context, const char *source_path, const cook_diag *replayed) {
    const build_progress *caller = CALLER(context);
    if (caller != NULL && caller->asset_settled != NULL)
        caller->asset_settled(caller->context, source_path, replayed);
}

static void forward_end(void *context) {
    const build_progress *caller = CALLER(context);
    if (caller != NULL && caller->end != NULL)
        caller->end(caller->context);
}

/* The first line with "error: " in it becomes report->error. */
static void forward_message(void *context, build_stream stream, const char *text, size_t size) {
    project_progress *progress = context;
    char *error = progress->report->error;
    for (size_t at = 0; stream == BUILD_STREAM_ERR && error[0] == '\0' && at < size;) {
        const char *line = text + at;
        const char *newline = memchr(line, '\n', size - at);
        size_t length = newline ? (size_t)(newline - line) : size - at;
        if (build_line_contains(line, length, "error: "))
            snprintf(error, sizeof progress->report->error, "%.*s", (int)length, line);
        at += length + 1;
    }
    const build_progress *caller = progress->caller;
    if (caller != NULL && caller->message != NULL)
        caller->message(caller->context, stream, text, size);
}

int build_project(const build_options *options, build_report *report) {
    *report = (build_report){0};
    project_progress forward = {options->progress, report};
    const build_progress progress = {
        .context = &forward,
        .begin = forward_begin,
        .add_total = forward_add_total,
        .asset_started = forward_started,
        .asset_finished = forward_finished,
        .asset_settled = forward_settled,
        .end = forward_end,
        .message = forward_message,
    };
    build_options own = *options;
    own.progress = &progress;
    own.list_presets = false;
    build_setup setup;
    int status = build_setup_load(&own, &setup);
    if (status < 0)
        status = execute(&own, &setup, report);
    config_free(&setup.config);
    if (status != BUILD_OK && report->error[0] == '\0')
        snprintf(report->error, sizeof report->error, "the build failed (%zu asset%s)",
                 report->failed, build_plural(report->failed));
    return status;
}
