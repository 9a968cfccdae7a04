/*
 * build/internal.h — what the modules of the build room share and nothing
 * outside it sees (build/build.h lists the modules).
 */
#ifndef KILN_BUILD_INTERNAL_H
#define KILN_BUILD_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "build/build.h"

/* ---------------------------------------------------------------------------
 * messages.c: build_progress, NULL-safe
 * ------------------------------------------------------------------------- */

/* One line (the '\n' is added) on `stream`. */
void build_say(const build_options *options, build_stream stream, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Text of whole lines as it is. */
void build_write(const build_options *options, build_stream stream, const char *text, size_t size);
void build_progress_begin(const build_options *options, size_t total, progress_verbosity verbosity);
void build_progress_add_total(const build_options *options, size_t more);
cook_activity *build_progress_started(const build_options *options, const char *source_path);
void build_progress_finished(const build_options *options, const char *source_path,
                             const cook_asset_result *result);
void build_progress_settled(const build_options *options, const char *source_path,
                            const cook_diag *replayed);
void build_progress_end(const build_options *options);
/* True when the `length` bytes at `line` contain `needle`. */
bool build_line_contains(const char *line, size_t length, const char *needle);
/* "s" unless count is 1. */
const char *build_plural(size_t count);
/* qsort/bsearch comparison of two `const char *` elements, bytewise. */
int build_compare_strings(const void *a, const void *b);

/* ---------------------------------------------------------------------------
 * store.c: the cache stores of a build, tried in order
 * ------------------------------------------------------------------------- */

/* The local folder <output>/.kiln-cache over `loaded` (the cache read from
 * it, which must outlive the store). With `record_times`, or when `loaded`
 * has them, the file keeps cook times (format 3, build/cache.h). */
void build_local_store_open(build_cache_store *store, const char *output, const kiln_cache *loaded,
                            uint32_t encoder_version, bool record_times);

/* ---------------------------------------------------------------------------
 * memory.c: the memory budget of --memory-limit
 * ------------------------------------------------------------------------- */

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
    size_t through_model; /* read by a model and cooked through it (build_counts) */
    size_t failed;
    size_t unreached;
    size_t would_cook; /* --dry-run */
    size_t output_files;
    uint64_t output_bytes;
    size_t skipped;
    double stage_seconds[COOK_STAGE_COUNT]; /* summed over cooked assets */
} build_totals;

/* journal.c: each cooked asset's cache record, appended to
 * <output>/.kiln-journal as it is made, so a killed build keeps its finished
 * work. build_journal_merge puts a previous (killed) build's entries into the
 * loaded cache and returns how many; the journal is removed once the cache is
 * saved. NULL journals are ignored. */
typedef struct build_journal build_journal;
build_journal *build_journal_open(const build_setup *setup);
void build_journal_append(build_journal *journal, const cache_record *record);
void build_journal_close(build_journal *journal);
void build_journal_remove(const build_setup *setup);
size_t build_journal_merge(const build_setup *setup, kiln_cache *cache);

/* shard.c: the wanted sources another shard than `shard` of `shards` cooks
 * (a bool per planned source; NULL when out of memory), and how much this
 * shard's slice is. A source nothing wanted (one only a root's references
 * reach) is no shard's: whichever reaches it cooks it. */
typedef struct build_shard_totals {
    size_t assets, assets_all;
    uint64_t weight, weight_all; /* the cost estimates (memory.c's) */
} build_shard_totals;
bool *build_shard_sources(const build_plan *plan, const char *input, uint32_t shard,
                          uint32_t shards, build_shard_totals *totals);

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
void build_save_cache(const build_run *run, build_cache_store *stores, size_t store_count);
bool build_write_manifest(const build_run *run, build_totals *totals);
bool build_write_pack(const build_run *run, build_totals *totals);
/* report.c */
void build_add_kind_bytes(build_totals *totals, const char *path, uint64_t bytes);
build_totals build_add_up_results(const build_run *run);
/* The lines with ": warning: " the cooked and replayed assets printed. */
size_t build_count_warnings(const build_run *run);
bool build_find_skipped_files(const build_plan *plan, const cook_asset_result *results,
                              strlist *skipped);
void build_print_report(const build_run *run, const build_totals *totals, const strlist *skipped,
                        double seconds, bool ok);
/* --dry-run: what would be cooked and why, then the totals (text or JSON). */
void build_print_dry_run(const build_run *run, const build_totals *totals);

#endif /* KILN_BUILD_INTERNAL_H */
