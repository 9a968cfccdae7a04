/*
 * build.h — the modules of `kiln build`, in the order a build runs them:
 *
 *   cmd_build.c   options → kiln.yml → setup (folders, preset, roots)
 *   plan.c        walk the input, match importers, resolve settings; which
 *                 sources the roots reach; who reads whom (build order)
 *   run.c         cache decision or cook for every planned source, on the
 *                 thread pool: models first, then what they did not read,
 *                 then whatever the finished assets reference
 *   outputs.c     the cache file, stale outputs and leftover temporaries,
 *                 assets.kman, the pack
 *   report.c      totals, bytes per kind, time per stage; text or JSON
 *   reach.c       the reference graph (shared with `kiln info --unreferenced`)
 *   memory.c      --memory-limit: per-asset estimates and the gate run.c waits at
 *
 * Results are stored per planned index, so everything printed after the pool
 * is done comes out in source path order whatever the number of workers.
 */
#ifndef KILN_CLI_BUILD_BUILD_H
#define KILN_CLI_BUILD_BUILD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/config.h"

struct build_run;

typedef struct build_options {
    const char *input;  /* NULL: from kiln.yml, else the default */
    const char *output; /* NULL: from the preset, kiln.yml, else the default */
    const char *config; /* --config FILE */
    const char *preset; /* --preset NAME */
    bool list_presets;
    bool no_cache;
    bool pack;
    bool json;              /* the end-of-build report as JSON on stdout */
    bool roots;             /* --roots: cook only what the roots reach */
    char *const *root_args; /* the operands after --roots (globs) */
    size_t root_arg_count;
    unsigned jobs;
    uint64_t memory_limit; /* --memory-limit in bytes (build/memory.c) */
    /* --import-timeout in seconds, which wins over every asset's
     * import.timeout of kiln.yml; 0: not given. */
    uint32_t import_timeout;
    bool verify;
    bool dry_run; /* --dry-run: say what would be cooked and why; write nothing */
    bool quiet;   /* -q and -v as given; verbosity follows from them */
    bool verbose;
    progress_verbosity verbosity;
    /* `kiln watch` (cmd_watch.c) after its first round: no replayed warnings
     * of up-to-date assets and no end-of-build report (round_done prints). */
    bool watch_round;
    /* A ref ("props/crate"), a source path or a cooked path: only the sources
     * that produce it (or, for a file a model reads, that model) are checked
     * and cooked; every other one keeps its cache record unchecked (or, never
     * cooked, is left out). NULL: all. */
    const char *focus;
    /* Called once the build's files are written, before its results are
     * freed, with its exit status; NULL: none. */
    void (*round_done)(const struct build_run *run, int status, void *context);
    void *round_context;
} build_options;

/* The options `kiln build` and `kiln clean` share: where the output folder
 * is (-o, --config, --preset), -n / --dry-run, -q, -v and -h. Each command's
 * table starts with BUILD_SHARED_LONG_OPTIONS; its own long options take
 * values from BUILD_OPTION_OWN on. */
enum {
    BUILD_OPTION_CONFIG = 256,
    BUILD_OPTION_PRESET,
    BUILD_OPTION_IMPORT_TIMEOUT,
    BUILD_OPTION_MEMORY_LIMIT,
    BUILD_OPTION_OWN
};
#define BUILD_SHARED_SHORT_OPTIONS "o:nqvh"
/* clang-format off */
#define BUILD_SHARED_LONG_OPTIONS                                                                  \
    {"output", required_argument, NULL, 'o'},                                                      \
    {"config", required_argument, NULL, BUILD_OPTION_CONFIG},                                      \
    {"preset", required_argument, NULL, BUILD_OPTION_PRESET},                                      \
    {"dry-run", no_argument, NULL, 'n'},                                                           \
    {"quiet", no_argument, NULL, 'q'},                                                             \
    {"verbose", no_argument, NULL, 'v'},                                                           \
    {"help", no_argument, NULL, 'h'}
/* The options of the commands that cook (build, watch), taken by
 * build_cook_option. */
#define BUILD_COOK_SHORT_OPTIONS "i:j:"
#define BUILD_COOK_LONG_OPTIONS                                                                    \
    {"input", required_argument, NULL, 'i'},                                                       \
    {"jobs", required_argument, NULL, 'j'},                                                        \
    {"memory-limit", required_argument, NULL, BUILD_OPTION_MEMORY_LIMIT},                          \
    {"import-timeout", required_argument, NULL, BUILD_OPTION_IMPORT_TIMEOUT}
/* clang-format on */

/* cmd_build.c: takes one shared option other than -h (its value in optarg);
 * false when `option` is not one. */
bool build_shared_option(int option, build_options *options);
/* After the options: -q with -v, or an empty folder name, is a usage error
 * (returns CLI_EXIT_USAGE); otherwise sets options->verbosity and returns -1. */
int build_shared_options_done(const char *command, build_options *options);

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
    uint64_t *settings_hash;         /* cache_settings_hash(&settings[i]) */
    bool *wanted;                    /* wanted[i]: a root or always: (all without --roots) */
    /* same_ref[i]: another source with the same asset ref ("a.obj" and
     * "A.ply" are both "a"), or NULL; same_ref_model[i]: another such source
     * that is a model. Two models with one ref are not cooked (their files
     * and refs would overwrite each other); nor is a standalone source whose
     * ref is another's (a model's own texture, "a.png" read by "a.obj", is
     * cooked through the model and never gets that far). */
    const char **same_ref;
    const char **same_ref_model;
    strlist unclaimed; /* files no importer claims, sorted */
    cook_diag walk;    /* what the walk did not list and why (printed as found);
                          an error there fails the build, the rest still cooks */
} build_plan;

typedef enum asset_status {
    ASSET_PENDING = 0,
    ASSET_COOKED,
    ASSET_FAILED,
    ASSET_UP_TO_DATE,
    ASSET_THROUGH_MODEL, /* a model's dependency: cooked through that model */
    ASSET_UNREACHED,     /* --roots: nothing reaches it, not cooked */
    ASSET_WOULD_COOK,    /* --dry-run: stale, would be cooked */
} asset_status;

/* Why an asset is cooked instead of replayed: what the cache can tell. */
typedef enum stale_reason {
    STALE_NOT_CACHED,         /* no record: a new source, or one that never cooked */
    STALE_NO_CACHE,           /* --no-cache */
    STALE_IMPORTER,           /* another importer claims it now */
    STALE_ENCODER,            /* the encoder version changed */
    STALE_SETTINGS,           /* its resolved settings changed */
    STALE_SOURCE,             /* its source's bytes changed */
    STALE_DEPENDENCY,         /* the bytes of a file it read changed */
    STALE_DEPENDENCY_REMOVED, /* a file it read is gone */
    STALE_APPEARED,           /* a file it looked for and did not find exists now */
    STALE_OUTPUT_MISSING,     /* a file it wrote is gone */
    STALE_COUNT
} stale_reason;

/* The outcome of one planned source besides its cook_asset_result. Its
 * record in the new cache is `record` when it was made this build, else
 * `kept`, the old cache's own record, shared rather than copied (an asset up
 * to date with every stamp unchanged, or one that failed and keeps its old
 * files): a no-op build copies no record. */
typedef struct asset_slot {
    asset_status status;
    bool has_record;
    cache_record record;                 /* made this build (owned) */
    const cache_record *kept;            /* or carried over from the old cache */
    bool borrowed;                       /* its cook_asset_result points into `kept` */
    const char *through;                 /* ASSET_THROUGH_MODEL: the model's source path */
    double seconds;                      /* wall time of cook_asset */
    uint32_t stale;                      /* why it is cooked: a bit per stale_reason */
    const char *stale_path[STALE_COUNT]; /* the first file of each reason, or NULL */
} asset_slot;

/* The slot's record in the new cache, or NULL. */
static inline const cache_record *slot_record(const asset_slot *slot) {
    return slot->has_record ? &slot->record : slot->kept;
}

typedef struct build_run {
    const build_options *options;
    const build_setup *setup;
    const build_plan *plan;
    const kiln_cache *old_cache; /* empty with --no-cache or when unreadable */
    const strlist *existing;     /* the output folder's files before the build, sorted */
    cook_asset_result *results;  /* one per planned source */
    asset_slot *slots;           /* one per planned source */
    const size_t *phase_assets;  /* the asset indices of the current phase */
    progress_reporter *reporter;
    struct build_journal *journal;    /* where finished records go as they are made; may be NULL */
    const bool *focused;              /* options->focus: focused[i] for each planned source */
    struct build_memory_gate *memory; /* --memory-limit; may be NULL (no limit) */
} build_run;

/* ---------------------------------------------------------------------------
 * memory.c: the memory budget of --memory-limit
 * ------------------------------------------------------------------------- */

/* The default limit: this share of the physical memory. */
#define BUILD_MEMORY_DEFAULT_PERCENT 50u

/* Assets start only while the estimates of those cooking, with their own,
 * stay within `limit`; one over it alone cooks alone. peak, largest and
 * waits are what the --json report shows ("memory"). */
typedef struct build_memory_gate {
    pthread_mutex_t lock;
    pthread_cond_t freed;
    uint64_t limit;
    uint64_t in_use;  /* the estimates of the assets cooking */
    uint64_t peak;    /* the most in_use was */
    uint64_t largest; /* the largest single estimate */
    size_t running;
    size_t waits; /* assets that waited for others to finish */
} build_memory_gate;

uint64_t build_memory_default_limit(void);
/* BYTES (optionally K, M, G or KiB, MiB, GiB: powers of 1024) or N% of the
 * physical memory (1..100); false for anything else or 0. */
bool build_parse_memory_limit(const char *text, uint64_t *limit);
/* The estimated peak memory of cooking one source (memory.c's table). */
uint64_t build_memory_estimate(const char *input_root, const char *source_path,
                               const cook_importer *importer);
/* An image file's header: width, height and decoded bytes per texel (4, or
 * 16 for Radiance HDR); false when not a PNG/JPEG/BMP/TGA/HDR header. */
bool build_image_header_size(FILE *file, uint32_t *w, uint32_t *h, uint32_t *texel_bytes);
void build_memory_gate_init(build_memory_gate *gate, uint64_t limit);
void build_memory_gate_destroy(build_memory_gate *gate);
void build_memory_acquire(build_memory_gate *gate, uint64_t estimate);
void build_memory_release(build_memory_gate *gate, uint64_t estimate);

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
    size_t unreached;
    size_t would_cook; /* --dry-run */
    size_t output_files;
    uint64_t output_bytes;
    size_t skipped;
    double stage_seconds[COOK_STAGE_COUNT]; /* summed over cooked assets */
} build_totals;

/* cmd_build.c: reads kiln.yml (options->config, or the nearest one) and
 * decides the folders and the preset. Returns -1 to go on, otherwise the exit
 * status (errors printed). The caller frees setup->config. */
int build_setup_load(const build_options *options, build_setup *setup);
/* cmd_build.c: one build with the setup loaded (folders checked, lock taken
 * and released, plan, cook, files written, report). Returns the exit status. */
int build_execute(const build_options *options, const build_setup *setup);
/* Parses -j's value: 1..PARALLEL_MAX_THREADS. */
bool build_parse_job_count(const char *text, unsigned *jobs);
/* The defaults of a cooking command's options: every core, the default
 * memory limit, normal progress. */
build_options build_default_options(void);
/* BUILD_COOK_LONG_OPTIONS of build and watch (cmd_build.c): 0 when `option`
 * is none of them, -1 when taken, else a usage error's exit status. */
int build_cook_option(const char *command, int option, const char *arg, build_options *options);

/* The file a build writes and deletes to learn that the output is writable. */
#define BUILD_WRITE_PROBE ".kiln-write-test"

/* lock.c: the output folder's lock, held for the whole build (another
 * build waits, saying so unless `quiet`; a killed build's lock is taken
 * over). Returns the descriptor to pass to build_unlock_output, or -1 after
 * an error. */
#define BUILD_LOCK_FILE ".kiln-lock"
int build_lock_output(const char *output, bool quiet);
void build_unlock_output(int fd);

/* journal.c: each cooked asset's cache record, appended to
 * <output>/.kiln-journal as it is made, so a killed build keeps its finished
 * work. build_journal_merge puts a previous (killed) build's entries into the
 * loaded cache and returns how many; the journal is removed once the cache is
 * saved. NULL journals are ignored. */
#define BUILD_JOURNAL_FILE ".kiln-journal"
typedef struct build_journal build_journal;
build_journal *build_journal_open(const build_setup *setup);
void build_journal_append(build_journal *journal, const cache_record *record);
void build_journal_close(build_journal *journal);
void build_journal_remove(const build_setup *setup);
size_t build_journal_merge(const build_setup *setup, kiln_cache *cache);

/* plan.c */
bool build_plan_make(const build_options *options, const build_setup *setup, build_plan *plan);
void build_plan_free(build_plan *plan);

/* run.c */
double build_seconds_since(const struct timespec *start);
/* Cooks or replays every wanted source and whatever they reach. False only
 * when memory ran out. */
bool build_cook_in_order(build_run *run);

/* outputs.c */
/* Deletes the hidden temporaries a killed build left in the output folder
 * (and next to it, from the pack; unless !remove_temporaries) and lists the
 * other files of the output folder, sorted. False when memory ran out. */
bool build_scan_output(const build_setup *setup, bool remove_temporaries, strlist *files);
void build_load_cache(const build_options *options, const build_setup *setup, kiln_cache *cache);
/* build_load_cache, then what a killed build finished (build_journal_merge). */
void build_load_cache_and_journal(const build_options *options, const build_setup *setup,
                                  kiln_cache *cache);
void build_keep_failed_records(build_run *run);
void build_remove_stale_outputs(const build_run *run);
void build_save_cache(const build_run *run);
bool build_write_manifest(const build_run *run, build_totals *totals);
bool build_write_pack(const build_setup *setup, build_totals *totals);
/* "<output>.kpak", without the output's trailing slashes; NULL when out of
 * memory. Caller frees. */
char *build_pack_path(const char *output);

/* report.c */
void build_add_kind_bytes(build_totals *totals, const char *path, uint64_t bytes);
build_totals build_add_up_results(const build_run *run);
bool build_find_skipped_files(const build_plan *plan, const cook_asset_result *results,
                              strlist *skipped);
void build_print_report(const build_run *run, const build_totals *totals, const strlist *skipped,
                        double seconds, bool ok);
/* --dry-run: what would be cooked and why, then the totals (text or JSON). */
void build_print_dry_run(const build_run *run, const build_totals *totals);

/* reach.c: `kiln info --unreferenced` for an output folder; `config_path`
 * NULL finds kiln.yml from the working directory. Returns the exit status. */
int build_list_unreferenced(const char *output, const char *config_path);

#endif /* KILN_CLI_BUILD_BUILD_H */
