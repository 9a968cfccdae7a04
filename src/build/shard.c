/*
 * shard.c — `kiln build --shard I/N`: the I-th of N disjoint slices of a
 * build's assets, for cooks spread over machines (Slurm array tasks, a CI
 * matrix) that meet in the remote cache.
 *
 * Every shard computes the same split from the same tree without talking to
 * the others: the wanted sources sorted by size (largest first, then by
 * path), each given to the shard with the fewest bytes so far (the lowest
 * index on a tie) — the longest-processing-time rule, which keeps the
 * largest shard within 4/3 of the best split's (Graham, "Bounds on
 * multiprocessing timing anomalies", 1969) when cook time follows size.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/internal.h"

typedef struct sized_source {
    size_t index;
    uint64_t size;
    const char *path;
} sized_source;

/* A source's bytes: a file's size, or an asset folder's (a cubemap's faces)
 * files summed. */
static uint64_t source_bytes(const char *input, const char *path) {
    char *full = cook_path_join(input, path);
    struct stat info;
    uint64_t size = 0;
    if (full != NULL && stat(full, &info) == 0) {
        size = (uint64_t)info.st_size;
        DIR *folder = S_ISDIR(info.st_mode) ? opendir(full) : NULL;
        for (struct dirent *entry; folder != NULL && (entry = readdir(folder)) != NULL;) {
            char *inner = cook_path_join(full, entry->d_name);
            if (inner != NULL && stat(inner, &info) == 0 && S_ISREG(info.st_mode))
                size += (uint64_t)info.st_size;
            free(inner);
        }
        if (folder != NULL)
            closedir(folder);
    }
    free(full);
    return size;
}

static int compare_largest_first(const void *a, const void *b) {
    const sized_source *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return strcmp(x->path, y->path);
}

bool *build_shard_sources(const build_plan *plan, const char *input, uint32_t shard,
                          uint32_t shards, build_shard_totals *totals) {
    size_t count = plan->sources.count;
    bool *others = calloc(count ? count : 1, sizeof *others);
    sized_source *sources = malloc((count ? count : 1) * sizeof *sources);
    uint64_t *load = calloc(shards, sizeof *load);
    *totals = (build_shard_totals){0};
    if (others == NULL || sources == NULL || load == NULL) {
        free(others);
        free(sources);
        free(load);
        return NULL;
    }
    size_t wanted = 0;
    for (size_t i = 0; i < count; i++) {
        if (plan->wanted[i])
            sources[wanted++] = (sized_source){i, source_bytes(input, plan->sources.items[i]),
                                               plan->sources.items[i]};
    }
    qsort(sources, wanted, sizeof *sources, compare_largest_first);
    for (size_t i = 0; i < wanted; i++) {
        uint32_t lightest = 0;
        for (uint32_t s = 1; s < shards; s++) {
            if (load[s] < load[lightest])
                lightest = s;
        }
        load[lightest] += sources[i].size;
        totals->bytes_all += sources[i].size;
        if (lightest == shard) {
            totals->assets++;
            totals->bytes += sources[i].size;
        } else {
            others[sources[i].index] = true;
        }
    }
    totals->assets_all = wanted;
    free(sources);
    free(load);
    return others;
}
