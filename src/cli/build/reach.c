/*
 * reach.c — `kiln info --unreferenced`: the cooked assets nothing reaches.
 *
 * The graph comes from the build cache of the output folder: one node per
 * asset it records (its source path), an edge to every file the asset read
 * (its dependencies) and every asset it names (its references).
 *
 *   With `roots:` in kiln.yml: an asset is unreferenced when no path leads to
 *   it from a root or from an `always:` asset (what `kiln build --roots`
 *   would not cook).
 *   Without roots: an asset is unreferenced when no other asset reads or
 *   names it and `always:` does not list it: the top of the graph, which is
 *   every level and every model no level places.
 *
 * Assets the cache does not record (failed ones) are not listed, and their
 * edges are unknown.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/build/build.h"

static bool matches_any(const strlist *globs, const char *path) {
    for (size_t i = 0; i < globs->count; i++) {
        if (discover_glob_match(globs->items[i], path))
            return true;
    }
    return false;
}

/* Marks every recorded asset that record `from` reads or names (not itself);
 * with a stack, newly marked ones are pushed to be visited in turn. */
static void mark_edges(const kiln_cache *cache, size_t from, bool *marks, size_t *stack,
                       size_t *depth) {
    const cache_record *record = &cache->records[from];
    size_t file_count = record->file_count;
    for (size_t i = 1; i < file_count + record->references.count; i++) {
        const char *path =
            i < file_count ? record->files[i].path : record->references.items[i - file_count];
        const cache_record *target = cache_find(cache, path);
        if (target == NULL || target == record)
            continue;
        size_t to = (size_t)(target - cache->records);
        if (!marks[to] && stack != NULL)
            stack[(*depth)++] = to;
        marks[to] = true;
    }
}

/* marks[i]: record i is reached (roots) or referenced (no roots). */
static void mark_reached(const kiln_cache *cache, const kiln_config *config, bool *marks,
                         size_t *stack) {
    size_t depth = 0;
    bool have_roots = config->roots.count > 0;
    for (size_t i = 0; i < cache->count; i++) {
        const char *source = cache->records[i].source;
        if (matches_any(&config->always, source) ||
            (have_roots && matches_any(&config->roots, source))) {
            marks[i] = true;
            stack[depth++] = i;
        }
    }
    if (!have_roots) {
        for (size_t i = 0; i < cache->count; i++)
            mark_edges(cache, i, marks, NULL, NULL);
        return;
    }
    while (depth > 0) { /* each record is pushed once, when first marked */
        size_t from = stack[--depth];
        mark_edges(cache, from, marks, stack, &depth);
    }
}

static void print_unreferenced(const kiln_cache *cache, const bool *marks, bool have_roots) {
    size_t listed = 0;
    for (size_t i = 0; i < cache->count; i++) {
        if (marks[i])
            continue;
        const cache_record *record = &cache->records[i];
        printf("%s:", record->source);
        for (size_t o = 0; o < record->outputs.count; o++)
            printf(" %s", record->outputs.items[o]);
        putchar('\n');
        listed++;
    }
    printf("kiln: %zu of %zu cooked asset%s %s\n", listed, cache->count, cli_plural(cache->count),
           have_roots ? "not reached from the roots or always:"
                      : "referenced by no other asset (no roots: in " CLI_CONFIG_FILE ")");
}

int build_list_unreferenced(const char *output, const char *config_path) {
    kiln_config config = {0};
    char *found = config_path ? NULL : config_find(".");
    const char *path = config_path ? config_path : found;
    int status = CLI_EXIT_FAILURE;
    if (path != NULL) {
        cook_diag diag = {0};
        bool ok = config_load(&config, path, &diag);
        progress_write_diagnostics(stderr, (const char *)diag.text.data, diag.text.size, false);
        diag_free(&diag);
        free(found);
        if (!ok) {
            config_free(&config);
            return CLI_EXIT_FAILURE;
        }
    }
    kiln_cache cache = {0};
    char *cache_path = NULL;
    char reason[256];
    if (!cli_require_folder(output, "output")) {
        /* reported */
    } else if (cache_read_folder(output, &cache, &cache_path, reason, sizeof reason) !=
               CACHE_READ_OK) {
        fprintf(stderr, "%s: error: cannot read the build cache (%s); run kiln build first\n",
                cache_path ? cache_path : CACHE_FILE_NAME, reason);
    } else {
        bool *marks = calloc(cache.count ? cache.count : 1, sizeof *marks);
        size_t *stack = malloc((cache.count ? cache.count : 1) * sizeof *stack);
        if (marks != NULL && stack != NULL) {
            mark_reached(&cache, &config, marks, stack);
            print_unreferenced(&cache, marks, config.roots.count > 0);
            status = CLI_EXIT_OK;
        } else {
            cli_error("out of memory");
        }
        free(stack);
        free(marks);
    }
    free(cache_path);
    cache_free(&cache);
    config_free(&config);
    return status;
}
