/*
 * build/build.h — the incremental build engine: a folder of sources cooked
 * into an output folder, only what changed since the last build. All the
 * `kiln` commands (build, watch, serve, clean, info) and a program that
 * embeds the cooker (docs/embedding.md) see of it.
 *
 *   build/config.h   kiln.yml: presets, rules, an asset's resolved settings
 *   build/sidecar.h  an asset's sidecar (NAME.EXT.kiln.yml): its settings and stable ID
 *   build/cache.h    the build cache: its records and file, and the store
 *                    interface (build_cache_store) a remote cache plugs into
 *   this header      the progress interface, options, setup, the plan and
 *                    the run as a round callback sees them, build_project
 *
 * The room's modules, in the order a build runs them (build/internal.h):
 *
 *   project.c   kiln.yml → setup (folders, preset); one build: folders
 *               checked, lock, plan, cook, outputs, report; build_project
 *   plan.c      walk the input, match importers, resolve settings (the
 *               sidecar last, sidecar.c) and IDs; which sources the roots
 *               reach
 *   run.c       cache decision or cook for every planned source, on the
 *               thread pool: models first, then what they did not read,
 *               then whatever the finished assets reference
 *   store.c     the cache stores tried in order (today the local folder)
 *   outputs.c   the cache file, stale outputs and leftover temporaries,
 *               assets.kman, the pack
 *   report.c    totals, bytes per kind, time per stage; text or JSON
 *   reach.c     the reference graph (`kiln info --unreferenced`)
 *   memory.c    --memory-limit: per-asset estimates and the gate run.c waits at
 *   journal.c   records of a killed build; lock.c: one build per output
 *   messages.c  everything the engine says goes through build_progress
 *
 * Results are stored per planned index, so everything said after the pool is
 * done comes out in source path order whatever the number of workers.
 */
#ifndef KILN_BUILD_BUILD_H
#define KILN_BUILD_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build/cache.h"
#include "build/config.h"
#include "build/remote/remote.h"
#include "build/sidecar.h"
#include "cook/cook.h"

#define BUILD_DEFAULT_INPUT "assets"
#define BUILD_DEFAULT_OUTPUT "runtime"
#define BUILD_CONFIG_FILE "kiln.yml"

/* What the engine returns; the values are `kiln`'s exit statuses. */
typedef enum build_status {
    BUILD_OK = 0,
    BUILD_FAILED = 1, /* an asset, kiln.yml, a folder, the lock, memory */
    BUILD_USAGE = 2,  /* the request was wrong: an unknown preset asked for, input = output */
} build_status;

/* ---------------------------------------------------------------------------
 * Progress: the only way the engine says anything
 * ------------------------------------------------------------------------- */

typedef enum progress_verbosity {
    PROGRESS_QUIET = 0,   /* errors only */
    PROGRESS_NORMAL = 1,  /* diagnostics, summary */
    PROGRESS_VERBOSE = 2, /* plus one line per asset and per skipped file */
} progress_verbosity;

typedef enum build_stream {
    BUILD_STREAM_OUT, /* results: the report, listings */
    BUILD_STREAM_ERR, /* diagnostics: errors, warnings, notes */
} build_stream;

/* Every member may be NULL (then that event is not reported); `context` is
 * passed back. The asset calls come from the build's worker threads, at the
 * same time: an implementation locks. The counts are assets, each one
 * finishing once, whether cooked, failed, up to date or cooked through a
 * model (a texture its model read): the same assets the report counts. */
typedef struct build_progress {
    void *context;
    /* Cooking starts: `total` assets will finish, `workers` cook at once. */
    void (*begin)(void *context, size_t total, progress_verbosity verbosity, unsigned workers);
    /* More assets will finish than `total` said (references found while cooking). */
    void (*add_total)(void *context, size_t more);
    /* Where the asset's cook reports its stage (cook_request.activity), or NULL. */
    cook_activity *(*asset_started)(void *context, const char *source_path);
    /* Cooked or failed; `result->diag` holds what it printed. */
    void (*asset_finished)(void *context, const char *source_path, const cook_asset_result *result);
    /* Finished without cooking: up to date (`replayed`: its recorded
     * diagnostics, or NULL), through a model, or not cooked this build. */
    void (*asset_settled)(void *context, const char *source_path, const cook_diag *replayed);
    /* Cooking is over (also after a failure); only messages follow. */
    void (*end)(void *context);
    /* Whole lines of text, each ending in '\n'. */
    void (*message)(void *context, build_stream stream, const char *text, size_t size);
} build_progress;

/* ---------------------------------------------------------------------------
 * Options and setup
 * ------------------------------------------------------------------------- */

struct build_run;

typedef struct build_options {
    const char *input;  /* NULL: from kiln.yml, else BUILD_DEFAULT_INPUT */
    const char *output; /* NULL: from the preset, kiln.yml, else BUILD_DEFAULT_OUTPUT */
    const char *config; /* kiln.yml to read; NULL: the nearest one from the working folder */
    const char *preset; /* NULL: kiln.yml's `preset:` */
    bool list_presets;
    bool no_cache;
    bool pack;
    bool json;              /* the end-of-build report as JSON */
    bool roots;             /* cook only what the roots reach */
    char *const *root_args; /* globs; none: kiln.yml's `roots:` */
    size_t root_arg_count;
    unsigned jobs;
    uint64_t memory_limit; /* bytes (build_parse_memory_limit) */
    /* Seconds; wins over every asset's import.timeout of kiln.yml; 0: not given. */
    uint32_t import_timeout;
    /* Seconds (0: no budget); wins over every asset's asset.timeout when
     * asset_timeout_given. */
    uint32_t asset_timeout;
    bool asset_timeout_given;
    bool verify;
    /* Keep each asset's cook times per stage and the build that cooked it in
     * the cache (format 3), for `kiln report`; a cache that has them keeps
     * them whatever this says. `kiln build --report`. */
    bool record_times;
    bool dry_run; /* say what would be cooked and why; write nothing */
    bool quiet;   /* a command line's -q and -v; the engine reads verbosity */
    bool verbose;
    progress_verbosity verbosity;
    /* Where the engine reports; NULL: nowhere (build_project still returns
     * the first error). */
    const build_progress *progress;
    /* `kiln watch` after its first round: no replayed warnings of up-to-date
     * assets and no end-of-build report (round_done prints). */
    bool watch_round;
    /* `kiln watch` after its first round: a texture whose cook would
     * encode at more than draft quality (texture.fast_first, compressed) is
     * cooked at draft quality first, its slot marked provisional; a build
     * without it finds such a record stale (STALE_PROVISIONAL) and cooks the
     * texture as a clean build would. */
    bool fast_first;
    /* A ref ("props/crate"), a source path or a cooked path: only the sources
     * that produce it (or, for a file a model reads, that model) are checked
     * and cooked; every other one keeps its cache record unchecked (or, never
     * cooked, is left out). NULL: all. */
    const char *focus;
    /* Called once the build's files are written, before its results are
     * freed, with its status; NULL: none. */
    void (*round_done)(const struct build_run *run, int status, void *context);
    void *round_context;
    /* The remote cache (docs/team.md): URL[,URL...]; NULL: KILN_REMOTE_CACHE,
     * then kiln.yml's cache.remote. */
    const char *remote_cache;
    bool no_remote_cache;
    remote_mode remote_cache_mode; /* UNSET: KILN_REMOTE_CACHE_MODE, kiln.yml, read-write */
    /* --shard I/N: cook only the I-th of N slices of the assets (shard_count
     * 0: all). */
    uint32_t shard_index;
    uint32_t shard_count;
} build_options;

/* The defaults: every core, the default memory limit, normal verbosity. */
build_options build_default_options(void);

/* The default memory limit: this share of the physical memory. */
#define BUILD_MEMORY_DEFAULT_PERCENT 50u
uint64_t build_memory_default_limit(void);
/* BYTES (optionally K, M, G or KiB, MiB, GiB: powers of 1024) or N% of the
 * physical memory (1..100); false for anything else or 0. */
bool build_parse_memory_limit(const char *text, uint64_t *limit);
/* BYTES, optionally K, M, G or KiB, MiB, GiB (powers of 1024); false for
 * anything else or 0: kiln.yml's and the environment's sizes. */
bool build_parse_size(const char *text, uint64_t *bytes);

/* Everything the build resolved before cooking. */
typedef struct build_setup {
    const char *input;
    const char *output;
    kiln_config config;
    const config_preset *preset;
    uint32_t encoder_version;
    bool pack; /* options->pack or `pack: true` */
} build_setup;

/* Reads kiln.yml (options->config, or the nearest one) and decides the
 * folders and the preset: every command that reads the output folder finds
 * it here. Returns -1 to go on, otherwise a build_status (said through
 * options->progress); with list_presets, lists them and returns BUILD_OK.
 * The caller frees setup->config (also after a failure). */
int build_setup_load(const build_options *options, build_setup *setup);
/* One build with the setup loaded: folders checked, lock taken and released,
 * plan, cook, files written, report. Returns a build_status. */
int build_execute(const build_options *options, const build_setup *setup);

/* ---------------------------------------------------------------------------
 * In process: build a folder and get the report back
 * ------------------------------------------------------------------------- */

/* What a build did, counted per source an importer claims (build_counts). */
typedef struct build_report {
    size_t cooked;
    size_t up_to_date;
    size_t failed;
    size_t through_model; /* read by a model, cooked through it (build_counts) */
    size_t unreached;     /* --roots: not reached, not cooked */
    size_t skipped;       /* files no importer claims */
    size_t warnings;      /* warning lines the cooked and replayed assets printed */
    size_t output_files;
    uint64_t output_bytes;
    double seconds;
    char error[512]; /* the first error, "" when none */
} build_report;

/* Builds options->input into options->output as `kiln build` does (kiln.yml,
 * cache, manifest, pack) and fills *report. Says nothing but through
 * options->progress; never exits. Returns a build_status; on failure
 * report->error holds the first error. One build at a time per output folder
 * (a second one waits for the lock); see docs/embedding.md. */
int build_project(const build_options *options, build_report *report);

/* ---------------------------------------------------------------------------
 * The plan and the run, as build_options.round_done sees them
 * ------------------------------------------------------------------------- */

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
    kiln_asset_id *ids; /* ids[i]: the stable ID of sources.items[i] (build/sidecar.h) */
    /* sidecar_errors[i]: the errors of sources.items[i]'s sidecar, which fail
     * that asset alone (the text of a cook_diag), or NULL */
    char **sidecar_errors;
    bool *has_sidecar; /* has_sidecar[i]: sources.items[i] has one (read or not) */
    strlist unclaimed; /* files no importer claims, sorted (sidecars are not listed) */
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
    STALE_PROVISIONAL,        /* its files are a draft encode of kiln watch (fast_first) */
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
    bool from_remote;                    /* its outputs came from the remote cache */
    double seconds;                      /* wall time of cook_asset */
    bool provisional;                    /* fast_first: its files are a draft encode */
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
    const kiln_cache *old_cache;     /* empty with --no-cache or when unreadable */
    const build_cache_store *stores; /* where records are looked up, in order */
    size_t store_count;
    const strlist *existing;          /* the output folder's files before the build, sorted */
    cook_asset_result *results;       /* one per planned source */
    asset_slot *slots;                /* one per planned source */
    const size_t *phase_assets;       /* the asset indices of the current phase */
    struct build_journal *journal;    /* where finished records go as they are made; may be NULL */
    const bool *focused;              /* options->focus: focused[i] for each planned source */
    struct build_memory_gate *memory; /* --memory-limit; may be NULL (no limit) */
    struct remote_cache *remote;      /* the servers asked on a local miss; NULL: none */
    const bool *other_shard; /* --shard: other_shard[i] when another shard cooks source i */
} build_run;

/* How the planned sources finished, each counted once: what `kiln build`'s
 * summary, the progress total (build_progress.begin and add_total) and a
 * watch round all count. through_model: read by a model (a texture, an
 * .mtl) and cooked through it, never on its own. */
typedef struct build_counts {
    size_t cooked, up_to_date, failed, through_model, unreached, would_cook;
} build_counts;
build_counts build_count_assets(const build_run *run);

/* ---------------------------------------------------------------------------
 * The output folder, shared with `kiln clean` and `kiln info`
 * ------------------------------------------------------------------------- */

/* The file a build writes and deletes to learn that the output is writable. */
#define BUILD_WRITE_PROBE ".kiln-write-test"
/* The output folder's lock, held for the whole build (another build waits,
 * saying so unless quiet; a killed build's lock is taken over). Returns the
 * descriptor to pass to build_unlock_output, or -1 after an error. */
#define BUILD_LOCK_FILE ".kiln-lock"
int build_lock_output(const build_options *options, const char *output);
void build_unlock_output(int fd);
/* Each cooked asset's record, appended as it is made (journal.c). */
#define BUILD_JOURNAL_FILE ".kiln-journal"
/* "<output>.kpak", without the output's trailing slashes; NULL when out of
 * memory. Caller frees. */
char *build_pack_path(const char *output);
/* True when `path` is an existing folder; otherwise says "<role> folder
 * '<path>' does not exist" (or "is not a folder") and returns false. */
bool build_require_folder(const build_options *options, const char *path, const char *role);
/* Lists the files of an output folder (sorted, relative paths); says why and
 * returns false when it is missing or cannot be read. */
bool build_list_output(const build_options *options, const char *output, strlist *files);

/* `kiln info --unreferenced`: sets marks[i] (one per cache record, false on
 * entry) when record i is reached from kiln.yml's roots or `always:` (with
 * roots), or read or named by another asset or listed in `always:`
 * (without). */
void build_mark_referenced(const kiln_cache *cache, const kiln_config *config, bool *marks);

/* Says `fmt` through options->progress: "kiln: error: ..." on the error
 * stream. */
void build_error(const build_options *options, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Diagnostic text line by line on the error stream; with errors_only, only
 * the lines that contain ": error: ". source_folder: as for
 * build_filter_diagnostics. */
void build_diagnostics(const build_options *options, const char *text, size_t size,
                       bool errors_only, const char *source_folder);
/* Appends to `out` the lines of diagnostic text (all, or with errors_only
 * those that contain ": error: "), escaped as diag.c escapes them. Source
 * diagnostics name their files relative to the input folder; with a
 * source_folder (build_source_folder) each line naming a relative path starts
 * with it and a '/', so that the path opens from the current folder, as an
 * editor's jump-to-error expects ("assets/models/cube.obj:3: ..."). NULL or
 * "": the lines as they are (kiln.yml's own messages). */
void build_filter_diagnostics(const char *text, size_t size, bool errors_only,
                              const char *source_folder, bytebuf *out);
/* The input folder as diagnostics start with it: as the user gave it, without
 * trailing slashes, "" for the current folder ("." or "./"), "assets" for
 * "assets/.". False (out = "") when it does not fit. */
bool build_source_folder(const char *input, char *out, size_t capacity);

#endif /* KILN_BUILD_BUILD_H */
