/*
 * obj_keys.c — step 3 of obj_ranges.c, its vertex numbers found on the
 * threads: every range's unique corners (v/vt/vn keys, in the range's order
 * of first use) numbered as one pass over the file numbers them, in order of
 * first use in the file.
 *
 * All ranges' keys are laid end to end in file order ("global" numbers), so
 * that the file's order of first use is the order of the lowest global
 * number of each distinct key. Keys are hashed and grouped into parts by
 * hash on the threads, and each part's own table (in increasing global
 * order) gives every key the lowest global number of its equals; the
 * distinct keys (their own lowest) are then numbered in global order, range
 * by range from the count before each. Which keys are equal
 * does not depend on the grouping, so neither do the numbers.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/parallel.h"
#include "cook/import/obj_internal.h"

#define PART_BITS 5u
#define PARTS (1u << PART_BITS)
#define NO_KEY UINT32_MAX

typedef struct keys_job {
    const obj_vec *const *range_keys; /* uint32[3] per key, per range */
    const size_t *first;              /* per range: its first global number */
    uint32_t *all;                    /* every range's keys, end to end */
    uint64_t *hashes;                 /* per global number */
    size_t (*starts)[PARTS];          /* per range: its keys per part, then where they go */
    size_t part_first[PARTS + 1];
    uint32_t *by_part; /* global numbers grouped by part, increasing in each */
    uint32_t *lowest;  /* per global number: the lowest equal one */
    size_t *numbered;  /* per range: distinct keys, then the file numbers before it */
    uint32_t *ids;     /* per global number: its file number */
    uint32_t *keys;    /* the file's distinct keys */
    atomic_bool failed;
} keys_job;

static uint32_t part_of(uint64_t hash) {
    return (uint32_t)(hash >> (64 - PART_BITS));
}

static void hash_range(void *ctx, uint32_t r) {
    keys_job *job = ctx;
    const obj_vec *keys = job->range_keys[r];
    size_t first = job->first[r];
    size_t *counts = job->starts[r];
    memset(counts, 0, sizeof job->starts[r]);
    if (keys->count > 0)
        memcpy(job->all + 3 * first, keys->data, keys->count * 3 * sizeof *job->all);
    for (size_t k = 0; k < keys->count; k++) {
        job->hashes[first + k] = obj_hash_corner(job->all + 3 * (first + k));
        counts[part_of(job->hashes[first + k])]++;
    }
}

static void group_range(void *ctx, uint32_t r) {
    keys_job *job = ctx;
    size_t *next = job->starts[r];
    for (size_t g = job->first[r]; g < job->first[r + 1]; g++)
        job->by_part[next[part_of(job->hashes[g])]++] = (uint32_t)g;
}

static void part_lowest(void *ctx, uint32_t part) {
    keys_job *job = ctx;
    size_t begin = job->part_first[part], count = job->part_first[part + 1] - begin;
    size_t slots = 16;
    while (slots < 2 * count)
        slots *= 2;
    corner_slot *table = malloc(slots * sizeof *table);
    if (table == NULL) {
        atomic_store(&job->failed, true);
        return;
    }
    for (size_t i = 0; i < slots; i++)
        table[i].id = NO_KEY;
    for (size_t i = begin; i < begin + count; i++) {
        uint32_t g = job->by_part[i];
        const uint32_t *key = job->all + 3 * (size_t)g;
        uint32_t tag = obj_corner_tag(job->hashes[g]);
        for (size_t slot = (size_t)job->hashes[g] & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
            if (table[slot].id == NO_KEY) {
                table[slot] = (corner_slot){tag, g};
                job->lowest[g] = g;
                break;
            }
            if (table[slot].tag == tag &&
                memcmp(job->all + 3 * (size_t)table[slot].id, key, 3 * sizeof *key) == 0) {
                job->lowest[g] = table[slot].id;
                break;
            }
        }
    }
    free(table);
}

/* The numbering in order of first use, on the threads range by range: each
 * range's distinct keys counted, their numbers given from the count before
 * the range, then every other key takes its lowest equal's number. */
static void count_distinct(void *ctx, uint32_t r) {
    keys_job *job = ctx;
    size_t distinct = 0;
    for (size_t g = job->first[r]; g < job->first[r + 1]; g++)
        distinct += job->lowest[g] == g;
    job->numbered[r] = distinct;
}

static void number_distinct(void *ctx, uint32_t r) {
    keys_job *job = ctx;
    uint32_t next = (uint32_t)job->numbered[r];
    for (size_t g = job->first[r]; g < job->first[r + 1]; g++) {
        if (job->lowest[g] == g) {
            memcpy(job->keys + 3 * (size_t)next, job->all + 3 * g, 3 * sizeof *job->keys);
            job->ids[g] = next++;
        }
    }
}

static void number_repeats(void *ctx, uint32_t r) {
    keys_job *job = ctx;
    for (size_t g = job->first[r]; g < job->first[r + 1]; g++)
        if (job->lowest[g] != g)
            job->ids[g] = job->ids[job->lowest[g]];
}

/* Counts laid out part by part, range by range in each: every part lists its
 * global numbers in increasing order. */
static void lay_out_parts(keys_job *job, uint32_t range_count) {
    size_t sum = 0;
    for (uint32_t p = 0; p < PARTS; p++) {
        job->part_first[p] = sum;
        for (uint32_t r = 0; r < range_count; r++) {
            size_t n = job->starts[r][p];
            job->starts[r][p] = sum;
            sum += n;
        }
    }
    job->part_first[PARTS] = sum;
}

uint32_t *obj_number_range_keys(obj_parser *file, const obj_vec *const *range_keys,
                                uint32_t range_count, unsigned threads, size_t *first) {
    first[0] = 0;
    for (uint32_t r = 0; r < range_count; r++)
        first[r + 1] = first[r] + range_keys[r]->count;
    size_t total = first[range_count];
    if (total >= NO_KEY || file->keys.count != 0)
        return NULL; /* global numbers are uint32; the one-by-one merge copes */
    size_t n = total ? total : 1;
    keys_job job = {.range_keys = range_keys, .first = first};
    atomic_init(&job.failed, false);
    job.all = malloc(3 * n * sizeof *job.all);
    job.hashes = malloc(n * sizeof *job.hashes);
    job.starts = malloc((range_count ? range_count : 1) * sizeof *job.starts);
    job.by_part = malloc(n * sizeof *job.by_part);
    job.lowest = malloc(n * sizeof *job.lowest);
    job.numbered = malloc((range_count ? range_count : 1) * sizeof *job.numbered);
    uint32_t *ids = job.ids = malloc(n * sizeof *ids);
    bool ok =
        job.all && job.hashes && job.starts && job.by_part && job.lowest && job.numbered && ids;
    if (ok) {
        parallel_for(threads, range_count, hash_range, &job);
        lay_out_parts(&job, range_count);
        parallel_for(threads, range_count, group_range, &job);
        parallel_for(threads, PARTS, part_lowest, &job);
        ok = !atomic_load(&job.failed);
    }
    /* Numbers in order of first use; the distinct keys become the file's. */
    size_t distinct = 0;
    if (ok) {
        parallel_for(threads, range_count, count_distinct, &job);
        for (uint32_t r = 0; r < range_count; r++) {
            size_t count = job.numbered[r];
            job.numbered[r] = distinct;
            distinct += count;
        }
    }
    job.keys =
        ok && distinct > 0 ? obj_vec_push(&file->keys, 3 * sizeof *job.keys, distinct) : NULL;
    ok = ok && (distinct == 0 || job.keys != NULL);
    if (ok) {
        parallel_for(threads, range_count, number_distinct, &job);
        parallel_for(threads, range_count, number_repeats, &job);
    }
    free(job.all);
    free(job.hashes);
    free(job.starts);
    free(job.by_part);
    free(job.lowest);
    free(job.numbered);
    if (!ok) {
        free(ids);
        file->keys.count = 0;
        return NULL;
    }
    return ids;
}
