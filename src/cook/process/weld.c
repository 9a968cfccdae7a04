/*
 * weld.c — the vertex remap that welding applies: vertices identical in
 * every stream, byte for byte, get one number, numbered in order of first use
 * by the index buffer; vertices no index uses get ~0u. The same remap as
 * meshopt_generateVertexRemapMulti gives (test_mesh_process checks it
 * against that function), which found equal vertices by probing a hash
 * table of vertex numbers and comparing each occupied slot's streams: a
 * random read of another vertex's bytes per probe. Here each slot also keeps
 * its vertex's hash, so the streams are compared only when the hashes match,
 * and the hashes are computed in one pass in vertex order, not one vertex at
 * a time in index order.
 */
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

#define EMPTY UINT32_MAX

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

size_t weld_vertex_remap(uint32_t *remap, const uint32_t *indices, size_t index_count,
                         size_t vertex_count, const weld_stream *streams, size_t stream_count) {
    for (size_t s = 0; s < stream_count; s++)
        if (streams[s].size == 0 || streams[s].size % 4 != 0)
            return SIZE_MAX; /* every IR stream is made of 4-byte words */
    size_t slots = 16;
    while (slots < 2 * vertex_count)
        slots *= 2;
    uint64_t *hashes = malloc((vertex_count ? vertex_count : 1) * sizeof *hashes);
    uint64_t *table = malloc(slots * sizeof *table); /* hash high half << 32 | vertex */
    if (hashes == NULL || table == NULL) {
        free(hashes);
        free(table);
        return SIZE_MAX;
    }
    for (size_t v = 0; v < vertex_count; v++) {
        hashes[v] = vertex_hash(streams, stream_count, v);
        remap[v] = EMPTY;
    }
    memset(table, 0xff, slots * sizeof *table);
    uint32_t next = 0;
    for (size_t i = 0; i < index_count; i++) {
        uint32_t v = indices[i];
        if (remap[v] != EMPTY)
            continue;
        uint64_t tag = hashes[v] >> 32 << 32;
        size_t slot = (size_t)hashes[v] & (slots - 1);
        for (;; slot = (slot + 1) & (slots - 1)) {
            uint64_t entry = table[slot];
            if (entry == UINT64_MAX) {
                table[slot] = tag | v;
                remap[v] = next++;
                break;
            }
            uint32_t other = (uint32_t)entry;
            if ((entry & 0xffffffff00000000ull) == tag &&
                same_vertex(streams, stream_count, v, other)) {
                remap[v] = remap[other];
                break;
            }
        }
    }
    free(hashes);
    free(table);
    return next;
}
