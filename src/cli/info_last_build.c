/*
 * info_last_build.c — `kiln info`: the messages of the last build, from the build cache
 * (info.h).
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/info.h"

/* ---------------------------------------------------------------------------
 * The last build's warnings (from the build cache)
 *
 * What a source held that its cook dropped or changed is named in a warning
 * when it cooks; the cache keeps each cooked asset's messages (a no-op build
 * prints them again), so `kiln info` lists them too: whoever reads the output
 * folder later sees them without building again.
 * ------------------------------------------------------------------------- */

#define INFO_MAX_DIAG_LINES 20u /* per asset; the rest counted */

/* The output folder's build cache into *cache; false without one (no build
 * yet, or kiln clean), and with a note on stderr when it cannot be read. */
bool info_read_build_cache(const char *output, kiln_cache *cache) {
    char *path = NULL;
    char reason[256];
    cache_read_status status = cache_read_folder(output, cache, &path, reason, sizeof reason);
    if (status == CACHE_READ_BAD) {
        fprintf(stderr,
                "%s: note: cannot read the build cache (%s): the last build's warnings are not "
                "listed\n",
                cook_escaped(path ? path : CACHE_FILE_NAME), cook_escaped(reason));
    }
    free(path);
    return status == CACHE_READ_OK;
}

/* The lines of a record's diagnostics (each ends in a newline). */
static size_t count_lines(const bytebuf *text) {
    size_t lines = 0;
    for (size_t i = 0; i < text->size; i++)
        lines += text->data[i] == '\n';
    return lines;
}

static bool is_warning_line(const char *line, size_t length) {
    static const char tag[] = ": warning: ";
    for (size_t i = 0; i + sizeof tag - 1 <= length; i++)
        if (memcmp(line + i, tag, sizeof tag - 1) == 0)
            return true;
    return false;
}

/* The diagnostics of every cooked asset that has some, as text or JSON
 * (then appended to `last_build`, a JSON array). The lines were escaped when
 * written; they are escaped again, since the cache is a file anyone may
 * edit. */
void info_list_build_diagnostics(const kiln_cache *cache, bool quiet, json_t *last_build,
                                 info_totals *totals) {
    bool first = true;
    for (size_t i = 0; i < cache->count; i++) {
        const cache_record *record = &cache->records[i];
        if (record->diagnostics.size == 0)
            continue;
        const char *text = (const char *)record->diagnostics.data;
        size_t lines = count_lines(&record->diagnostics), shown = 0, warnings = 0;
        json_t *listed = NULL;
        if (last_build != NULL) {
            json_t *entry = json_object();
            listed = json_array();
            json_object_set_new(entry, "source", cli_json_string(record->source));
            json_object_set_new(entry, "lines", listed);
            json_array_append_new(last_build, entry);
        } else if (!quiet) {
            if (first)
                printf("\nlast build's messages (%s):\n", CACHE_FILE_NAME);
            bytebuf escaped = {0};
            bytebuf_append_escaped(&escaped, record->source);
            printf("%s\n", escaped.data != NULL ? (const char *)escaped.data : "");
            bytebuf_free(&escaped);
        }
        first = false;
        for (size_t at = 0; at < record->diagnostics.size;) {
            const char *start = text + at;
            const char *end = memchr(start, '\n', record->diagnostics.size - at);
            size_t length = end != NULL ? (size_t)(end - start) : record->diagnostics.size - at;
            at += length + 1;
            warnings += is_warning_line(start, length);
            char *line = malloc(length + 1);
            if (line == NULL)
                continue;
            memcpy(line, start, length);
            line[length] = '\0';
            if (listed != NULL) {
                json_array_append_new(listed, cli_json_string(line));
            } else if (!quiet && shown < INFO_MAX_DIAG_LINES) {
                bytebuf escaped = {0};
                bytebuf_append_escaped(&escaped, line);
                printf("  %s\n", escaped.data != NULL ? (const char *)escaped.data : "");
                bytebuf_free(&escaped);
            }
            shown++;
            free(line);
        }
        if (listed == NULL && !quiet && lines > INFO_MAX_DIAG_LINES)
            printf("  ... %zu more line%s (kiln build prints them all)\n",
                   lines - INFO_MAX_DIAG_LINES, cli_plural(lines - INFO_MAX_DIAG_LINES));
        totals->warnings += warnings;
        totals->warned_assets += warnings > 0;
    }
}
