/*
 * shard.c — `kiln build --shard I/N`: the I-th of N disjoint slices of a
 * build's assets, for cooks spread over machines (Slurm array tasks, a CI
 * matrix) that meet in the remote cache.
 *
 * Every shard computes the same split from the same tree without talking to
 * the others:
 *
 *   units    a source on its own, except that the sources of a folder that
 *            holds a model go together: the images a model reads sit beside
 *            it, and in the model's shard they are cooked once, through it,
 *            instead of on their own by another shard as well;
 *   weights  the cost estimate memory.c makes from what is cheap to read (an
 *            image's decoded size from its header, a file's size), summed
 *            over a unit;
 *   split    the units by weight, largest first (then by path), each to the
 *            shard with the least weight so far (the lowest index on a tie):
 *            the longest-processing-time rule, whose largest shard stays
 *            within 4/3 of the best split's when cost follows the weights
 *            (Graham, "Bounds on multiprocessing timing anomalies", 1969).
 */
#include <stdlib.h>
#include <string.h>

#include "build/internal.h"

typedef struct shard_unit {
    size_t first; /* into the sorted members */
    size_t count;
    uint64_t weight;
    const char *path; /* its first member's, for ties */
} shard_unit;

typedef struct folder_member {
    size_t index; /* planned source */
    size_t folder_length;
    const char *path;
} folder_member;

static int compare_by_folder(const void *a, const void *b) {
    const folder_member *x = a, *y = b;
    size_t shorter = x->folder_length < y->folder_length ? x->folder_length : y->folder_length;
    int order = memcmp(x->path, y->path, shorter);
    if (order == 0 && x->folder_length != y->folder_length)
        order = x->folder_length < y->folder_length ? -1 : 1;
    return order != 0 ? order : strcmp(x->path, y->path);
}

static bool same_folder(const folder_member *a, const folder_member *b) {
    return a->folder_length == b->folder_length && memcmp(a->path, b->path, a->folder_length) == 0;
}

/* For qsort of units: the heaviest first, then by their first path. */
static int compare_heaviest_first(const void *a, const void *b) {
    const shard_unit *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return strcmp(x->path, y->path);
}

static uint64_t add_weight(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The units of the wanted sources (a folder with a model is one). */
static size_t make_units(const build_plan *plan, folder_member *members, size_t count,
                         const uint64_t *weights, shard_unit *units) {
    qsort(members, count, sizeof *members, compare_by_folder);
    size_t made = 0;
    for (size_t at = 0; at < count;) {
        size_t end = at + 1;
        while (end < count && same_folder(&members[at], &members[end]))
            end++;
        bool has_model = false;
        for (size_t m = at; m < end; m++)
            has_model =
                has_model || cook_kind_reads_through(plan->importers[members[m].index]->kind);
        for (size_t m = at; m < end; m++) {
            if (!has_model || m == at)
                units[made++] = (shard_unit){m, has_model ? end - at : 1, 0, members[m].path};
            shard_unit *unit = &units[made - 1];
            unit->weight = add_weight(unit->weight, weights[members[m].index]);
        }
        at = end;
    }
    return made;
}

bool *build_shard_sources(const build_plan *plan, const char *input, uint32_t shard,
                          uint32_t shards, build_shard_totals *totals) {
    size_t count = plan->sources.count, one = count ? count : 1;
    bool *others = calloc(one, sizeof *others);
    folder_member *members = malloc(one * sizeof *members);
    shard_unit *units = malloc(one * sizeof *units);
    uint64_t *weights = malloc(one * sizeof *weights);
    uint64_t *load = calloc(shards, sizeof *load);
    *totals = (build_shard_totals){0};
    bool ok = others != NULL && members != NULL && units != NULL && weights != NULL && load != NULL;
    size_t wanted = 0;
    for (size_t i = 0; ok && i < count; i++) {
        if (!plan->wanted[i])
            continue;
        const char *path = plan->sources.items[i];
        const char *slash = strrchr(path, '/');
        members[wanted++] = (folder_member){i, slash ? (size_t)(slash - path) : 0, path};
        weights[i] = build_memory_estimate(input, path, plan->importers[i]);
    }
    size_t unit_count = ok ? make_units(plan, members, wanted, weights, units) : 0;
    if (ok)
        qsort(units, unit_count, sizeof *units, compare_heaviest_first);
    for (size_t u = 0; ok && u < unit_count; u++) {
        uint32_t lightest = 0;
        for (uint32_t s = 1; s < shards; s++) {
            if (load[s] < load[lightest])
                lightest = s;
        }
        load[lightest] = add_weight(load[lightest], units[u].weight);
        totals->weight_all = add_weight(totals->weight_all, units[u].weight);
        for (size_t m = units[u].first; m < units[u].first + units[u].count; m++) {
            if (lightest != shard)
                others[members[m].index] = true;
        }
        if (lightest == shard) {
            totals->assets += units[u].count;
            totals->weight = add_weight(totals->weight, units[u].weight);
        }
    }
    totals->assets_all = wanted;
    free(members);
    free(units);
    free(weights);
    free(load);
    if (!ok) {
        free(others);
        return NULL;
    }
    return others;
}
