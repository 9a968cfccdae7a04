/*
 * report_history.c — <output>/.kiln-last-build (report.h): per asset, what
 * the last build that cooked anything did with it and its cook time per
 * stage, for the HTML report's "changed" marks and times. The build cache
 * keeps no times (its bytes must not depend on the clock); this file is
 * separate and only the report reads it.
 *
 *   kiln-last-build 1
 *   <cooked|failed|kept> <import s> <process s> <write s> <texture s>\t<source>
 *
 * A time is "-" when unknown (an asset kept since before the file existed).
 * A source holding a tab or a newline is not recorded.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "common/grow.h"

static const char *const change_names[] = {"kept", "cooked", "failed"};

static int compare_entries(const void *a, const void *b) {
    return strcmp(((const report_history_entry *)a)->source,
                  ((const report_history_entry *)b)->source);
}

const report_history_entry *report_history_find(const report_history *history, const char *source) {
    report_history_entry key = {.source = (char *)source};
    if (history->count == 0)
        return NULL;
    return bsearch(&key, history->entries, history->count, sizeof key, compare_entries);
}

void report_history_free(report_history *history) {
    for (size_t i = 0; i < history->count; i++)
        free(history->entries[i].source);
    free(history->entries);
    *history = (report_history){0};
}

/* One line "<change> <t> <t> <t> <t>\t<source>" into *entry. */
static bool parse_line(char *line, report_history_entry *entry) {
    char *tab = strchr(line, '\t');
    if (tab == NULL || tab[1] == '\0')
        return false;
    *tab = '\0';
    char *cursor = line, *word = strsep(&cursor, " ");
    bool known = false;
    for (int c = 0; c < 3; c++) {
        if (word != NULL && strcmp(word, change_names[c]) == 0) {
            entry->change = (report_change)c;
            known = true;
        }
    }
    entry->timed = true;
    for (int s = 0; known && s < COOK_STAGE_COUNT; s++) {
        word = strsep(&cursor, " ");
        if (word == NULL)
            return false;
        char *end = NULL;
        entry->stage_seconds[s] = strtod(word, &end);
        if (strcmp(word, "-") == 0)
            entry->timed = false;
        else if (end == word || *end != '\0' || !(entry->stage_seconds[s] >= 0.0))
            return false;
    }
    entry->source = known && cursor == NULL ? cook_strdup(tab + 1) : NULL;
    return entry->source != NULL;
}

bool report_history_read(const char *output, report_history *history, char *reason,
                         size_t reason_size) {
    *history = (report_history){0};
    char *path = cook_path_join(output, REPORT_HISTORY_FILE);
    uint8_t *data = NULL;
    size_t size = 0;
    FILE *probe = path != NULL ? fopen(path, "rb") : NULL;
    if (probe == NULL) {
        free(path);
        return true; /* no build recorded one yet */
    }
    fclose(probe);
    bool ok = cook_read_file(path, (size_t)256 << 20, &data, &size, reason, reason_size);
    free(path);
    if (!ok)
        return false;
    char *text = malloc(size + 1);
    if (text == NULL) {
        free(data);
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    free(data);
    char *cursor = text, *line = strsep(&cursor, "\n");
    char header[64];
    snprintf(header, sizeof header, "kiln-last-build %u", REPORT_HISTORY_VERSION);
    ok = line != NULL && strcmp(line, header) == 0;
    if (!ok)
        snprintf(reason, reason_size, "not a '%s' file", header);
    size_t cap = 0;
    while (ok && (line = strsep(&cursor, "\n")) != NULL) {
        if (line[0] == '\0')
            continue;
        report_history_entry entry = {0};
        if (!parse_line(line, &entry)) {
            snprintf(reason, reason_size, "line %zu is not '<change> <times>\\t<source>'",
                     history->count + 2);
            ok = false;
        } else {
            report_history_entry *grown =
                array_grow(history->entries, &cap, history->count + 1, sizeof entry, 64);
            if (grown == NULL) {
                free(entry.source);
                snprintf(reason, reason_size, "out of memory");
                ok = false;
            } else {
                history->entries = grown;
                history->entries[history->count++] = entry;
            }
        }
    }
    free(text);
    if (!ok) {
        report_history_free(history);
        return false;
    }
    if (history->count > 1)
        qsort(history->entries, history->count, sizeof history->entries[0], compare_entries);
    return true;
}

static void append_entry(bytebuf *out, report_change change, const double *seconds,
                         const char *source) {
    bytebuf_printf(out, "%s", change_names[change]);
    for (int s = 0; s < COOK_STAGE_COUNT; s++) {
        if (seconds != NULL)
            bytebuf_printf(out, " %.6f", seconds[s]);
        else
            bytebuf_printf(out, " -");
    }
    bytebuf_printf(out, "\t%s\n", source);
}

void report_history_round_done(const build_run *run, int status, void *context) {
    (void)status;
    (void)context;
    if (run->options->dry_run)
        return;
    const build_counts counts = build_count_assets(run);
    if (counts.cooked == 0 && counts.failed == 0)
        return; /* a no-op build: the marks of the last one that cooked stay */
    report_history previous;
    char reason[256];
    if (!report_history_read(run->setup->output, &previous, reason, sizeof reason))
        previous = (report_history){0}; /* rewritten below */
    bytebuf out = {0};
    bytebuf_printf(&out, "kiln-last-build %u\n", REPORT_HISTORY_VERSION);
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        const char *source = run->plan->sources.items[i];
        if (strpbrk(source, "\t\n") != NULL)
            continue;
        asset_status asset = run->slots[i].status;
        if (asset == ASSET_COOKED || asset == ASSET_FAILED) {
            append_entry(&out, asset == ASSET_COOKED ? REPORT_COOKED : REPORT_FAILED,
                         run->results[i].stage_seconds, source);
        } else if (asset == ASSET_UP_TO_DATE) {
            const report_history_entry *before = report_history_find(&previous, source);
            append_entry(&out, REPORT_KEPT,
                         before != NULL && before->timed ? before->stage_seconds : NULL, source);
        }
    }
    report_history_free(&previous);
    char *path = cook_path_join(run->setup->output, REPORT_HISTORY_FILE);
    if (path != NULL && !out.failed &&
        !write_file_atomic(path, out.data, out.size, reason, sizeof reason))
        fprintf(stderr, "%s: warning: cannot record the build for `kiln report`: %s\n",
                cook_escaped(path), cook_escaped(reason));
    free(path);
    bytebuf_free(&out);
}
