/*
 * weld.c — the vertex remap that welding applies: vertices identical in
 * every stream, byte for byte, get one number, numbered in order of first use
 * by the index buffer; vertices no index uses get ~0u. The same remap as
 * meshopt_generateVertexRemapMulti gives (test_mesh_process checks it
 * against that function), which found equal vertices by probing one hash
 * table of vertex numbers in index order: a cache miss per new vertex on a
 * large mesh, one thread.
 *
 * Here the classes of equal vertices are found first, independently of the
 * indices: every vertex's hash (in vertex order), then the vertices split by
 * their hash into parts, each part's own table (small enough for the caches)
 * giving each vertex its class's first vertex. Hashing and the parts run on
 * the -j threads. The numbering is then one pass over the indices. Which
 * vertices are equal does not depend on the grouping, so neither does the
 * remap.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

#define EMPTY UINT32_MAX
#define PART_BITS 5u /* 32 parts: a 1M-vertex mesh's tables are 2 MB each */
#define PARTS (1u << PART_BITS)
#define BLOCK_VERTICES 65536u

static uint32_t stream_word(const weld_stream *stream, size_t vertex, size_t word) {
    uint32_t value;
    memcpy(&value, stream->data + vertex * stream->size + 4 * word, 4);
    return value;
}

/* A 64-bit hash of vertex v's bytes in every stream (4-byte words). */
static uint64_t vertex_hash(const weld_stream *streams, size_t stream_count, size_t v) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t s = 0; s < stream_count; s++)
        for (size_t w = 0; w < streams[s].size / 4; w++)
            h = (h ^ stream_word(&streams[s], v, w)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static bool same_vertex(const weld_stream *streams, size_t stream_count, size_t a, size_t b) {
    for (size_t s = 0; s < stream_count; s++)
        if (memcmp(streams[s].data + a * streams[s].size, streams[s].data + b * streams[s].size,
                   streams[s].size) != 0)
            return false;
    return true;
}

/* The top bits pick the part; the table slot and the tag use the rest. */
static uint32_t part_of(uint64_t hash) {
    return (uint32_t)(hash >> (64 - PART_BITS));
}

typedef struct weld_job {
    const weld_stream *streams;
    size_t stream_count;
    size_t vertex_count;
    uint32_t blocks;
    uint64_t *hashes;
    size_t (*starts)[PARTS]; /* per block: its vertices per part, then where they go */
    size_t part_first[PARTS + 1];
    uint32_t *by_part;  /* vertex numbers grouped by part, increasing in each */
    uint32_t *first;    /* each vertex's class: the lowest vertex equal to it */
    atomic_bool failed; /* a part's table could not be allocated */
} weld_job;

static void block_range(const weld_job *job, uint32_t block, size_t *begin, size_t *end) {
    *begin = (size_t)block * BLOCK_VERTICES;
    *end =
        *begin + BLOCK_VERTICES < job->vertex_count ? *begin + BLOCK_VERTICES : job->vertex_count;
}

static void hash_block(void *ctx, uint32_t block) {
    weld_job *job = ctx;
    size_t begin, end;
    block_range(job, block, &begin, &end);
    size_t *counts = job->starts[block];
    memset(counts, 0, sizeof job->starts[block]);
    for (size_t v = begin; v < end; v++) {
        job->hashes[v] = vertex_hash(job->streams, job->stream_count, v);
        counts[part_of(job->hashes[v])]++;
    }
}

static void group_block(void *ctx, uint32_t block) {
    weld_job *job = ctx;
    size_t begin, end;
    block_range(job, block, &begin, &end);
    size_t *next = job->starts[block];
    for (size_t v = begin; v < end; v++)
        job->by_part[next[part_of(job->hashes[v])]++] = (uint32_t)v;
}

/* One part's classes: its vertices in increasing order into an open-addressed
 * table of (tag << 32 | vertex), so the first of each class is the lowest. */
static void part_classes(void *ctx, uint32_t part) {
    weld_job *job = ctx;
    size_t begin = job->part_first[part], count = job->part_first[part + 1] - begin;
    size_t slots = 16;
    while (slots < 2 * count)
        slots *= 2;
    uint64_t *table = malloc(slots * sizeof *table);
    if (table == NULL) {
        atomic_store(&job->failed, true); /* read once every part is done */
        return;
    }
    memset(table, 0xff, slots * sizeof *table);
    for (size_t i = begin; i < begin + count; i++) {
        uint32_t v = job->by_part[i];
        uint64_t hash = job->hashes[v], tag = hash >> 32 << 32;
        for (size_t slot = (size_t)hash & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
            uint64_t entry = table[slot];
            if (entry == UINT64_MAX) {
                table[slot] = tag | v;
                job->first[v] = v;
                break;
            }
            uint32_t other = (uint32_t)entry;
            if ((entry & 0xffffffff00000000ull) == tag &&
                same_vertex(job->streams, job->stream_count, v, other)) {
                job->first[v] = other;
                break;
            }
        }
    }
    free(table);
}

/* Lays the blocks' part counts out: part by part, block by block in each, so
 * every part lists its vertices in increasing order. */
static void lay_out_parts(weld_job *job) {
    size_t sum = 0;
    for (uint32_t p = 0; p < PARTS; p++) {
        job->part_first[p] = sum;
        for (uint32_t b = 0; b < job->blocks; b++) {
            size_t n = job->starts[b][p];
            job->starts[b][p] = sum;
            sum += n;
        }
    }
    job->part_first[PARTS] = sum;
}

size_t weld_vertex_remap_on(unsigned threads, uint32_t *remap, const uint32_t *indices,
                            size_t index_count, size_t vertex_count, const weld_stream *streams,
                            size_t stream_count) {
    for (size_t s = 0; s < stream_count; s++)
        if (streams[s].size == 0 || streams[s].size % 4 != 0)
            return SIZE_MAX; /* every IR stream is made of 4-byte words */
    size_t n = vertex_count ? vertex_count : 1;
    weld_job job = {.streams = streams,
                    .stream_count = stream_count,
                    .vertex_count = vertex_count,
                    .blocks = (uint32_t)((vertex_count + BLOCK_VERTICES - 1) / BLOCK_VERTICES)};
    job.hashes = malloc(n * sizeof *job.hashes);
    job.starts = malloc((job.blocks ? job.blocks : 1) * sizeof *job.starts);
    job.by_part = malloc(n * sizeof *job.by_part);
    job.first = malloc(n * sizeof *job.first);
    atomic_init(&job.failed, false);
    size_t next = SIZE_MAX;
    if (job.hashes != NULL && job.starts != NULL && job.by_part != NULL && job.first != NULL) {
        parallel_for(threads, job.blocks, hash_block, &job);
        lay_out_parts(&job);
        parallel_for(threads, job.blocks, group_block, &job);
        parallel_for(threads, PARTS, part_classes, &job);
    } else {
        atomic_store(&job.failed, true);
    }
    if (!atomic_load(&job.failed)) {
        /* Numbers in order of first use: a class's number is kept at its
         * first vertex (by_part is free again to hold them). */
        uint32_t *number = job.by_part;
        for (size_t v = 0; v < vertex_count; v++)
            remap[v] = number[v] = EMPTY;
        next = 0;
        for (size_t i = 0; i < index_count; i++) {
            uint32_t v = indices[i];
            if (remap[v] != EMPTY)
                continue;
            uint32_t first = job.first[v];
            if (number[first] == EMPTY)
                number[first] = (uint32_t)next++;
            remap[v] = number[first];
        }
    }
    free(job.hashes);
    free(job.starts);
    free(job.by_part);
    free(job.first);
    return next;
}

size_t weld_vertex_remap(uint32_t *remap, const uint32_t *indices, size_t index_count,
                         size_t vertex_count, const weld_stream *streams, size_t stream_count) {
    return weld_vertex_remap_on(1, remap, indices, index_count, vertex_count, streams,
                                stream_count);
}
