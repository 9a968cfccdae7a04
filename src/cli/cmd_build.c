/*
 * cmd_build.c — `kiln build`: cook every source file under the input folder.
 *
 *   parse options → plan (walk + importer match) → cook on the job pool → report
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

#include "cli/cli.h"

#define COMMAND "build"

enum { OPTION_VERIFY = 256 };

typedef struct build_options {
    const char *input;
    const char *output;
    unsigned jobs;
    bool verify;
    progress_verbosity verbosity;
} build_options;

/* What the walk found: sources an importer claims, and everything else. */
typedef struct build_plan {
    strlist sources; /* sorted, relative to the input folder */
    const cook_importer **importers; /* importers[i] cooks sources.items[i] */
    strlist unclaimed; /* files no importer claims, sorted */
} build_plan;

typedef struct build_totals {
    size_t cooked;
    size_t failed;
    size_t output_files;
    uint64_t output_bytes;
    size_t skipped;
} build_totals;

static const struct option build_long_options[] = {
    {"input", required_argument, NULL, 'i'},
    {"output", required_argument, NULL, 'o'},
    {"jobs", required_argument, NULL, 'j'},
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
            "\n"
            "Options:\n"
            "  -i, --input DIR    folder of source assets (default: %s)\n"
            "  -o, --output DIR   folder for cooked files (default: %s)\n"
            "  -j, --jobs N       cook N assets in parallel, 1..%d\n"
            "                     (default: the number of online processors)\n"
            "      --verify       re-read and validate every file written\n"
            "  -q, --quiet        print errors only\n"
            "  -v, --verbose      print every cooked asset and every skipped file\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when every asset cooked, 1 when any asset failed (the\n"
            "others are still written), 2 for a command-line mistake.\n",
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
    *options = (build_options){.input = CLI_DEFAULT_INPUT,
                               .output = CLI_DEFAULT_OUTPUT,
                               .jobs = jobs_default_count(),
                               .verbosity = PROGRESS_NORMAL};
    bool quiet = false, verbose = false;
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "i:o:j:qvh", build_long_options,
                                 NULL)) != -1) {
        switch (option) {
        case 'i': options->input = optarg; break;
        case 'o': options->output = optarg; break;
        case 'j':
            if (!parse_job_count(optarg, &options->jobs))
                return cli_usage_error(COMMAND, "invalid job count '%s' (expected 1..%d)", optarg,
                                       CLI_MAX_JOBS);
            break;
        case OPTION_VERIFY: options->verify = true; break;
        case 'q': quiet = true; break;
        case 'v': verbose = true; break;
        case 'h': cmd_build_usage(stdout); return CLI_EXIT_OK;
        default: return cli_option_error(COMMAND, argv, build_long_options, option);
        }
    }
    if (!cli_reject_operands(COMMAND, argc, argv))
        return CLI_EXIT_USAGE;
    if (quiet && verbose)
        return cli_usage_error(COMMAND, "--quiet and --verbose cannot be combined");
    if (options->input[0] == '\0' || options->output[0] == '\0')
        return cli_usage_error(COMMAND, "the input and output folders need a name");
    options->verbosity = quiet ? PROGRESS_QUIET : verbose ? PROGRESS_VERBOSE : PROGRESS_NORMAL;
    return -1;
}

/* The folders exist where they must and are not the same one. */
static int check_build_folders(const build_options *options) {
    if (!cli_require_folder(options->input, "input"))
        return CLI_EXIT_FAILURE;
    if (cli_same_file(options->input, options->output))
        return cli_usage_error(COMMAND, "the output folder '%s' is the input folder",
                               options->output);
    struct stat info;
    if (stat(options->output, &info) == 0 && !S_ISDIR(info.st_mode)) {
        cli_error("output '%s' is not a folder", options->output);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------------------
 * Plan
 * ------------------------------------------------------------------------- */

static void build_plan_free(build_plan *plan) {
    strlist_free(&plan->sources);
    strlist_free(&plan->unclaimed);
    free(plan->importers);
}

static bool build_plan_make(const build_options *options, build_plan *plan) {
    strlist files = {0};
    char reason[512];
    /* The output folder is excluded in case it lies inside the input. */
    if (!discover_walk(options->input, options->output, &files, reason, sizeof reason)) {
        cli_error("cannot list the input folder: %s", reason);
        strlist_free(&files);
        return false;
    }
    bool ok = true;
    plan->importers = files.count > 0 ? calloc(files.count, sizeof *plan->importers) : NULL;
    if (files.count > 0 && plan->importers == NULL)
        ok = false;
    for (size_t i = 0; ok && i < files.count; i++) {
        const cook_importer *importer = discover_match(files.items[i]);
        if (importer != NULL) {
            plan->importers[plan->sources.count] = importer;
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
 * Cooking
 * ------------------------------------------------------------------------- */

typedef struct build_run {
    const build_options *options;
    const build_plan *plan;
    const cook_settings *settings;
    cook_asset_result *results; /* one per planned source */
    progress_reporter *reporter;
} build_run;

static void cook_planned_asset(void *context, size_t index) {
    build_run *run = context;
    const char *source_path = run->plan->sources.items[index];
    progress_asset_started(run->reporter, source_path);
    cook_request request = {
        .input_root = run->options->input,
        .output_root = run->options->output,
        .source_path = source_path,
        .importer = run->plan->importers[index],
        .settings = run->settings,
        .verify = run->options->verify,
    };
    cook_asset(&request, &run->results[index]);
    progress_asset_finished(run->reporter, source_path, &run->results[index]);
}

static bool cook_all(const build_options *options, const build_plan *plan,
                     cook_asset_result *results) {
    cook_settings settings;
    cook_settings_default(&settings);
    progress_reporter *reporter = progress_create(plan->sources.count, options->verbosity);
    if (reporter == NULL) {
        cli_error("out of memory");
        return false;
    }
    build_run run = {options, plan, &settings, results, reporter};
    jobs_run(plan->sources.count, options->jobs, cook_planned_asset, &run);
    progress_end(reporter);
    progress_destroy(reporter);
    return true;
}

/* ---------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------- */


static bool is_in_sorted(const strlist *sorted, const char *text) {
    return sorted->count > 0 &&
           bsearch(&text, sorted->items, sorted->count, sizeof sorted->items[0],
                   cli_compare_strings) != NULL;
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

static build_totals add_up_results(const build_plan *plan, const cook_asset_result *results) {
    build_totals totals = {0};
    for (size_t i = 0; i < plan->sources.count; i++) {
        if (results[i].ok)
            totals.cooked++;
        else
            totals.failed++;
        totals.output_files += results[i].outputs.count;
        totals.output_bytes += results[i].bytes_written;
    }
    return totals;
}

static void print_skipped(const build_options *options, const strlist *skipped) {
    if (options->verbosity == PROGRESS_VERBOSE) {
        for (size_t i = 0; i < skipped->count; i++)
            printf("kiln: skipped %s (no importer)\n", skipped->items[i]);
    } else if (options->verbosity == PROGRESS_NORMAL && skipped->count > 0) {
        printf("kiln: skipped %zu file%s with no importer (use -v to list them)\n",
               skipped->count, cli_plural(skipped->count));
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
           "%zu skipped\n",
           totals->cooked, cli_plural(totals->cooked), totals->output_files,
           cli_plural(totals->output_files), (double)totals->output_bytes / 1024.0, seconds,
           totals->failed, totals->skipped);
}

static double seconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* ---------------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------------- */

/* Writes assets.kman from every ref the cooked assets produced. A collision
 * fails the build (and leaves the previous manifest in place). */
static bool write_build_manifest(const build_options *options, const build_plan *plan,
                                 const cook_asset_result *results, build_totals *totals) {
    cook_manifest_list all = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < plan->sources.count; i++) {
        const cook_manifest_list *own = &results[i].manifest;
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
        char *path = cli_path_join(options->output, KILN_MANIFEST_FILE_NAME);
        if (path == NULL || !write_file_atomic(path, bytes.data, bytes.size, reason, sizeof reason))
            diag_error(&diag, KILN_MANIFEST_FILE_NAME, 0, "%s", path ? reason : "out of memory");
        else {
            totals->output_files++;
            totals->output_bytes += bytes.size;
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

/* Everything printed once all assets are done, in source path order. */
static int report_build(const build_options *options, const build_plan *plan,
                        const cook_asset_result *results, const struct timespec *start) {
    strlist skipped = {0};
    if (!find_skipped_files(plan, results, &skipped)) {
        cli_error("out of memory while listing skipped files");
        strlist_free(&skipped);
        return CLI_EXIT_FAILURE;
    }
    build_totals totals = add_up_results(plan, results);
    totals.skipped = skipped.count;
    bool manifest_ok = write_build_manifest(options, plan, results, &totals);
    if (options->verbosity != PROGRESS_QUIET) {
        print_skipped(options, &skipped);
        print_failed(plan, results);
        print_summary(&totals, seconds_since(start));
    }
    fflush(stdout);
    strlist_free(&skipped);
    return totals.failed > 0 || !manifest_ok ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

static int build(const build_options *options) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);

    int status = check_build_folders(options);
    if (status != CLI_EXIT_OK)
        return status;
    build_plan plan = {0};
    if (!build_plan_make(options, &plan)) {
        build_plan_free(&plan);
        return CLI_EXIT_FAILURE;
    }

    size_t count = plan.sources.count;
    cook_asset_result *results = count > 0 ? calloc(count, sizeof *results) : NULL;
    if (count > 0 && results == NULL) {
        cli_error("out of memory");
        status = CLI_EXIT_FAILURE;
    } else if (!cook_all(options, &plan, results)) {
        status = CLI_EXIT_FAILURE; /* cook_all said why */
    } else {
        status = report_build(options, &plan, results, &start);
    }

    for (size_t i = 0; i < count; i++)
        cook_asset_result_free(&results[i]);
    free(results);
    build_plan_free(&plan);
    return status;
}

int cmd_build(int argc, char **argv) {
    build_options options;
    int status = parse_build_options(argc, argv, &options);
    if (status >= 0)
        return status;
    return build(&options);
}
