/*
 * reach.c — the reference graph of `kiln info --unreferenced`: the cooked
 * assets nothing reaches.
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

#include "build/internal.h"

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

void build_mark_referenced(const kiln_cache *cache, const kiln_config *config, bool *marks) {
    size_t *stack = malloc((cache->count ? cache->count : 1) * sizeof *stack);
    if (stack == NULL) { /* every record counts as reached: nothing listed wrongly */
        for (size_t i = 0; i < cache->count; i++)
            marks[i] = true;
        return;
    }
    mark_reached(cache, config, marks, stack);
    free(stack);
}
