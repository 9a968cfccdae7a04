/*
 * report.c — the end-of-build report: assets cooked, up to date, failed and
 * not reached; files skipped; bytes written per kind; time per cook stage;
 * the slowest assets. As text, or as one JSON document for CI (--json).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/internal.h"

/* ---------------------------------------------------------------------------
 * Bytes per kind
 * ------------------------------------------------------------------------- */

void build_add_kind_bytes(build_totals *totals, const char *path, uint64_t bytes) {
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
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
        char *full = cook_path_join(output, result->outputs.items[i]);
        struct stat info;
        if (full != NULL && stat(full, &info) == 0)
            build_add_kind_bytes(totals, result->outputs.items[i], (uint64_t)info.st_size);
        free(full);
    }
}

/* ---------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------- */

/* The report goes out as one message, so no other line lands inside it. */
static void emit(const build_options *options, bytebuf *text) {
    if (text->failed)
        build_error(options, "out of memory while writing the report");
    else
        build_write(options, BUILD_STREAM_OUT, (const char *)text->data, text->size);
    bytebuf_free(text);
}

static bool is_in_sorted(const strlist *sorted, const char *text) {
    return sorted->count > 0 && bsearch(&text, sorted->items, sorted->count,
                                        sizeof sorted->items[0], build_compare_strings) != NULL;
}

/* Files a cooked asset read (an .mtl, a texture) were cooked through it: they
 * are not "skipped". What is left had no use at all. */
bool build_find_skipped_files(const build_plan *plan, const cook_asset_result *results,
                              strlist *skipped) {
    strlist used = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < plan->sources.count; i++) {
        for (size_t d = 0; ok && d < results[i].dependencies.count; d++)
            ok = strlist_push(&used, results[i].dependencies.items[d]);
    }
    if (used.count > 0)
        qsort(used.items, used.count, sizeof used.items[0], build_compare_strings);
    for (size_t i = 0; ok && i < plan->unclaimed.count; i++) {
        if (!is_in_sorted(&used, plan->unclaimed.items[i]))
            ok = strlist_push(skipped, plan->unclaimed.items[i]);
    }
    strlist_free(&used);
    return ok;
}

build_counts build_count_assets(const build_run *run) {
    build_counts counts = {0};
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        switch (run->slots[i].status) {
        case ASSET_COOKED:
            counts.cooked++;
            break;
        case ASSET_FAILED:
            counts.failed++;
            break;
        case ASSET_UP_TO_DATE:
            counts.up_to_date++;
            break;
        case ASSET_THROUGH_MODEL:
            counts.through_model++;
            break;
        case ASSET_UNREACHED:
            counts.unreached++;
            break;
        case ASSET_WOULD_COOK:
            counts.would_cook++;
            break;
        case ASSET_PENDING:
            break;
        }
    }
    return counts;
}

build_totals build_add_up_results(const build_run *run) {
    build_totals totals = {0};
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        const cook_asset_result *result = &run->results[i];
        asset_status status = run->slots[i].status;
        if (status == ASSET_COOKED || status == ASSET_FAILED) {
            for (int s = 0; s < COOK_STAGE_COUNT; s++)
                totals.stage_seconds[s] += result->stage_seconds[s];
        }
        switch (status) {
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
        case ASSET_UNREACHED:
            totals.unreached++;
            break;
        case ASSET_WOULD_COOK:
            totals.would_cook++;
            break;
        case ASSET_THROUGH_MODEL:
            totals.through_model++;
            break;
        case ASSET_PENDING:
            break;
        }
    }
    return totals;
}

static void print_skipped(bytebuf *out, const build_options *options, const strlist *skipped) {
    if (options->verbosity == PROGRESS_VERBOSE) {
        for (size_t i = 0; i < skipped->count; i++)
            bytebuf_printf(out, "kiln: skipped %s (no importer)\n",
                           cook_escaped(skipped->items[i]));
    } else if (options->verbosity == PROGRESS_NORMAL && skipped->count > 0) {
        bytebuf_printf(out, "kiln: skipped %zu file%s with no importer (use -v to list them)\n",
                       skipped->count, build_plural(skipped->count));
    }
}

static void print_failed(bytebuf *out, const build_run *run) {
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->slots[i].status == ASSET_FAILED)
            bytebuf_printf(out, "kiln: failed: %s\n", cook_escaped(run->plan->sources.items[i]));
    }
}

/* Every source an importer claims counts once, as the progress line and a
 * watch round count it (build_counts): cooked, failed, read by the model that
 * cooked it (a texture, an .mtl), or up to date. */
static void print_summary(bytebuf *out, const build_totals *totals, double seconds) {
    bytebuf_printf(out,
                   "kiln: cooked %zu asset%s (%zu file%s, %.1f KiB) in %.2f s; %zu failed; "
                   "%zu skipped; ",
                   totals->cooked, build_plural(totals->cooked), totals->output_files,
                   build_plural(totals->output_files), (double)totals->output_bytes / 1024.0,
                   seconds, totals->failed, totals->skipped);
    if (totals->through_model > 0)
        bytebuf_printf(out, "%zu read by models; ", totals->through_model);
    bytebuf_printf(out, "%zu up to date\n", totals->up_to_date);
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

static void print_report_text(bytebuf *out, const build_run *run, const build_totals *totals) {
    if (totals->unreached > 0 && run->options->shard_count > 0)
        bytebuf_printf(out, "kiln: %zu asset%s left to the other shards (not cooked here)\n",
                       totals->unreached, build_plural(totals->unreached));
    else if (totals->unreached > 0)
        bytebuf_printf(out, "kiln: %zu asset%s not reached from the roots (not cooked)\n",
                       totals->unreached, build_plural(totals->unreached));
    if (totals->cooked + totals->failed > 0) {
        bytebuf_printf(out, "kiln: stages:");
        for (int s = 0; s < COOK_STAGE_COUNT; s++)
            bytebuf_printf(out, "%s %s %.3f s", s ? "," : "", cook_stage_name((cook_stage)s),
                           totals->stage_seconds[s]);
        bytebuf_append(out, "\n", 1);
    }
    if (totals->kind_count > 0) {
        bytebuf_printf(out, "kiln: written:");
        for (size_t k = 0; k < totals->kind_count; k++)
            bytebuf_printf(out, "%s %s %zu file%s %.1f KiB", k ? "," : "",
                           cook_escaped(totals->kinds[k].extension), totals->kinds[k].files,
                           build_plural(totals->kinds[k].files),
                           (double)totals->kinds[k].bytes / 1024.0);
        bytebuf_append(out, "\n", 1);
    }
    size_t slowest[REPORT_SLOWEST];
    size_t count = find_slowest(run, slowest);
    if (count > 0) {
        bytebuf_printf(out, "kiln: slowest:");
        for (size_t i = 0; i < count; i++)
            bytebuf_printf(out, "%s %s %.2f s", i ? "," : "",
                           cook_escaped(run->plan->sources.items[slowest[i]]),
                           run->slots[slowest[i]].seconds);
        bytebuf_append(out, "\n", 1);
    }
}

/* ---------------------------------------------------------------------------
 * JSON (jansson), keys in the order they are set
 * ------------------------------------------------------------------------- */

#define REPORT_JSON_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* A path or a message as a JSON string; jansson takes UTF-8 only, so a name
 * that is not (a hostile file name) keeps its ASCII and shows '?' for the
 * rest. */
static json_t *json_text(const char *text) {
    json_t *string = json_string(text);
    if (string != NULL)
        return string;
    char *ascii = cook_strdup(text);
    for (char *c = ascii; c != NULL && *c != '\0'; c++)
        *c = (unsigned char)*c < 0x80 ? *c : '?';
    string = json_string(ascii != NULL ? ascii : "");
    free(ascii);
    return string;
}

/* Seconds as the text report gives them: to the millisecond. */
static json_t *json_seconds(double seconds) {
    return json_real(round(seconds * 1000.0) / 1000.0);
}

static json_t *json_size(uint64_t value) {
    return json_integer((json_int_t)value);
}

/* The sources that failed. */
static json_t *json_failed(const build_run *run) {
    json_t *failed = json_array();
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->slots[i].status == ASSET_FAILED)
            json_array_append_new(failed, json_text(run->plan->sources.items[i]));
    }
    return failed;
}

/* Calls `fn` for every line the assets that cooked or were replayed printed
 * (warnings and their notes), in source order: a replay lists what its cook
 * did. */
static void each_printed_line(const build_run *run,
                              void (*fn)(const char *source, const char *line, size_t length,
                                         void *context),
                              void *context) {
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        asset_status status = run->slots[i].status;
        const bytebuf *text = &run->results[i].diag.text;
        if (status != ASSET_COOKED && status != ASSET_UP_TO_DATE)
            continue;
        for (size_t at = 0; at < text->size;) {
            const char *line = (const char *)text->data + at;
            const char *newline = memchr(line, '\n', text->size - at);
            size_t length = newline ? (size_t)(newline - line) : text->size - at;
            fn(run->plan->sources.items[i], line, length, context);
            at += length + 1;
        }
    }
}

static void count_warning(const char *source, const char *line, size_t length, void *context) {
    (void)source;
    *(size_t *)context += build_line_contains(line, length, ": warning: ");
}

size_t build_count_warnings(const build_run *run) {
    size_t count = 0;
    each_printed_line(run, count_warning, &count);
    return count;
}

static void add_warning(const char *source, const char *line, size_t length, void *context) {
    char *copy = strndup(line, length);
    json_t *item = json_object();
    json_object_set_new(item, "source", json_text(source));
    json_object_set_new(item, "text", json_text(copy != NULL ? copy : ""));
    json_array_append_new(context, item);
    free(copy);
}

static json_t *json_warnings(const build_run *run) {
    json_t *warnings = json_array();
    each_printed_line(run, add_warning, warnings);
    return warnings;
}

/* The document as one line of text, then freed. */
static void dump_json(bytebuf *out, json_t *root) {
    char *text = root != NULL ? json_dumps(root, REPORT_JSON_FLAGS) : NULL;
    if (text == NULL) {
        out->failed = true;
    } else {
        bytebuf_append(out, text, strlen(text));
        bytebuf_append(out, "\n", 1);
    }
    free(text);
    json_decref(root);
}

/* The same facts as the text report, as one JSON document. */
static void print_report_json(bytebuf *out, const build_run *run, const build_totals *totals,
                              const strlist *skipped, double seconds, bool ok) {
    json_t *root = json_object();
    json_object_set_new(root, "ok", json_boolean(ok));
    json_object_set_new(root, "cooked", json_size(totals->cooked));
    json_object_set_new(root, "up_to_date", json_size(totals->up_to_date));
    json_object_set_new(root, "failed", json_size(totals->failed));
    json_object_set_new(root, "unreached", json_size(totals->unreached));
    json_object_set_new(root, "skipped", json_size(skipped->count));
    json_object_set_new(root, "output_files", json_size(totals->output_files));
    json_object_set_new(root, "output_bytes", json_size(totals->output_bytes));
    json_object_set_new(root, "seconds", json_seconds(seconds));
    json_t *stages = json_object();
    for (int s = 0; s < COOK_STAGE_COUNT; s++)
        json_object_set_new(stages, cook_stage_name((cook_stage)s),
                            json_seconds(totals->stage_seconds[s]));
    json_object_set_new(root, "stage_seconds", stages);
    json_t *written = json_object();
    for (size_t k = 0; k < totals->kind_count; k++) {
        json_t *kind = json_object();
        json_object_set_new(kind, "files", json_size(totals->kinds[k].files));
        json_object_set_new(kind, "bytes", json_size(totals->kinds[k].bytes));
        json_object_set_new(written, totals->kinds[k].extension, kind);
    }
    json_object_set_new(root, "written", written);
    json_t *slowest_assets = json_array();
    size_t slowest[REPORT_SLOWEST];
    size_t count = find_slowest(run, slowest);
    for (size_t i = 0; i < count; i++) {
        json_t *item = json_object();
        json_object_set_new(item, "source", json_text(run->plan->sources.items[slowest[i]]));
        json_object_set_new(item, "seconds", json_seconds(run->slots[slowest[i]].seconds));
        json_array_append_new(slowest_assets, item);
    }
    json_object_set_new(root, "slowest", slowest_assets);
    json_object_set_new(root, "failed_assets", json_failed(run));
    json_t *skipped_files = json_array();
    for (size_t i = 0; i < skipped->count; i++)
        json_array_append_new(skipped_files, json_text(skipped->items[i]));
    json_object_set_new(root, "skipped_files", skipped_files);
    json_object_set_new(root, "warnings", json_warnings(run));
    if (run->memory != NULL) { /* --memory-limit's gate: estimates, not measurements */
        json_t *memory = json_object();
        json_object_set_new(memory, "limit", json_size(run->memory->limit));
        json_object_set_new(memory, "peak_estimate", json_size(run->memory->peak));
        json_object_set_new(memory, "largest_estimate", json_size(run->memory->largest));
        json_object_set_new(memory, "waits", json_size(run->memory->waits));
        json_object_set_new(root, "memory", memory);
    }
    if (run->remote != NULL) {
        remote_stats stats;
        remote_cache_stats(run->remote, &stats);
        json_t *remote = json_object();
        json_object_set_new(remote, "hits", json_size(stats.hits));
        json_object_set_new(remote, "misses", json_size(stats.misses));
        json_object_set_new(remote, "uploads", json_size(stats.uploads));
        json_object_set_new(remote, "bytes_down", json_size(stats.bytes_down));
        json_object_set_new(remote, "bytes_up", json_size(stats.bytes_up));
        json_object_set_new(remote, "errors", json_size(stats.errors));
        json_object_set_new(remote, "seconds_waiting", json_seconds(stats.seconds_waiting));
        json_object_set_new(root, "remote", remote);
    }
    dump_json(out, root);
}

/* The remote cache's line of the text summary; and, when assets the remote
 * cache did not have were cooked here, a note saying so (a shard that
 * failed leaves its assets to the final build). */
static void print_remote_text(bytebuf *out, const build_run *run, const build_totals *totals) {
    if (run->remote == NULL)
        return;
    remote_stats stats;
    remote_cache_stats(run->remote, &stats);
    char servers[64];
    remote_cache_describe(run->remote, servers, sizeof servers);
    bytebuf_printf(out,
                   "remote cache, %s: %zu hit%s, %zu miss%s, %zu upload%s, %.1f MB down, "
                   "%.1f MB up, %zu error%s, %.2f s waiting\n",
                   servers, stats.hits, build_plural(stats.hits), stats.misses,
                   stats.misses == 1 ? "" : "es", stats.uploads, build_plural(stats.uploads),
                   (double)stats.bytes_down / 1e6, (double)stats.bytes_up / 1e6, stats.errors,
                   build_plural(stats.errors), stats.seconds_waiting);
    if (stats.hits > 0 && totals->cooked > 0 && run->options->shard_count == 0)
        bytebuf_printf(out,
                       "kiln: note: %zu asset%s the remote cache did not have %s cooked here (a "
                       "shard that failed, or sources changed since the cache was filled)\n",
                       totals->cooked, build_plural(totals->cooked),
                       totals->cooked == 1 ? "was" : "were");
}

/* Everything done once all assets are: manifest, cache, then what is printed,
 * in source path order. */

void build_print_report(const build_run *run, const build_totals *totals, const strlist *skipped,
                        double seconds, bool ok) {
    const build_options *options = run->options;
    bytebuf text = {0};
    bytebuf *out = &text;
    if (options->watch_round) {
        /* `kiln watch` prints its own lines (round_done). */
    } else if (options->json) {
        print_report_json(out, run, totals, skipped, seconds, ok);
    } else if (options->verbosity != PROGRESS_QUIET) {
        print_skipped(out, options, skipped);
        print_failed(out, run);
        print_summary(out, totals, seconds);
        print_remote_text(out, run, totals);
        print_report_text(out, run, totals);
    }
    emit(options, &text);
}

/* ---------------------------------------------------------------------------
 * Dry run
 * ------------------------------------------------------------------------- */

/* How each stale_reason is named: in JSON, and in the text list. */
static const struct {
    const char *code;
    const char *text;
} stale_reasons[STALE_COUNT] = {
    [STALE_NOT_CACHED] = {"new", "new (not in the cache)"},
    [STALE_NO_CACHE] = {"no-cache", "--no-cache"},
    [STALE_IMPORTER] = {"importer-changed", "importer changed"},
    [STALE_ENCODER] = {"encoder-changed", "encoder version changed"},
    [STALE_SETTINGS] = {"settings-changed", "settings changed"},
    [STALE_SOURCE] = {"source-changed", "source changed"},
    [STALE_DEPENDENCY] = {"dependency-changed", "dependency changed"},
    [STALE_DEPENDENCY_REMOVED] = {"dependency-removed", "dependency removed"},
    [STALE_APPEARED] = {"file-appeared", "file it looked for appeared"},
    [STALE_OUTPUT_MISSING] = {"output-missing", "output missing"},
    [STALE_PROVISIONAL] = {"provisional", "provisional draft encode of kiln watch"},
};

/* The file a reason names, NULL when none (or the source itself). */
static const char *stale_file(const build_run *run, size_t index, int reason) {
    const char *path = run->slots[index].stale_path[reason];
    return path != NULL && strcmp(path, run->plan->sources.items[index]) != 0 ? path : NULL;
}

static void print_dry_run_text(bytebuf *out, const build_run *run, const build_totals *totals) {
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->slots[i].status != ASSET_WOULD_COOK)
            continue;
        bytebuf_printf(out, "would cook %s:", cook_escaped(run->plan->sources.items[i]));
        const char *separator = " ";
        for (int r = 0; r < STALE_COUNT; r++) {
            if ((run->slots[i].stale & (1u << r)) == 0)
                continue;
            const char *file = stale_file(run, i, r);
            bytebuf_printf(out, "%s%s%s%s%s", separator, stale_reasons[r].text, file ? " (" : "",
                           file ? cook_escaped(file) : "", file ? ")" : "");
            separator = ", ";
        }
        bytebuf_append(out, "\n", 1);
    }
    if (run->options->verbosity == PROGRESS_QUIET)
        return;
    bytebuf_printf(out, "kiln: dry run: %zu asset%s would be cooked; %zu failed; %zu up to date",
                   totals->would_cook, build_plural(totals->would_cook), totals->failed,
                   totals->up_to_date);
    if (totals->unreached > 0)
        bytebuf_printf(out, "; %zu not reached from the roots", totals->unreached);
    bytebuf_printf(out, "; nothing written\n");
}

static void print_dry_run_json(bytebuf *out, const build_run *run, const build_totals *totals) {
    json_t *root = json_object();
    json_object_set_new(root, "dry_run", json_true());
    json_object_set_new(root, "would_cook", json_size(totals->would_cook));
    json_object_set_new(root, "up_to_date", json_size(totals->up_to_date));
    json_object_set_new(root, "failed", json_size(totals->failed));
    json_object_set_new(root, "unreached", json_size(totals->unreached));
    json_t *assets = json_array();
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->slots[i].status != ASSET_WOULD_COOK)
            continue;
        json_t *asset = json_object();
        json_object_set_new(asset, "source", json_text(run->plan->sources.items[i]));
        json_t *reasons = json_array();
        for (int r = 0; r < STALE_COUNT; r++) {
            if ((run->slots[i].stale & (1u << r)) == 0)
                continue;
            json_t *reason = json_object();
            json_object_set_new(reason, "reason", json_string(stale_reasons[r].code));
            const char *file = stale_file(run, i, r);
            if (file != NULL)
                json_object_set_new(reason, "path", json_text(file));
            json_array_append_new(reasons, reason);
        }
        json_object_set_new(asset, "reasons", reasons);
        json_array_append_new(assets, asset);
    }
    json_object_set_new(root, "would_cook_assets", assets);
    json_object_set_new(root, "failed_assets", json_failed(run));
    dump_json(out, root);
}

void build_print_dry_run(const build_run *run, const build_totals *totals) {
    bytebuf text = {0};
    if (run->options->json)
        print_dry_run_json(&text, run, totals);
    else
        print_dry_run_text(&text, run, totals);
    emit(run->options, &text);
}
