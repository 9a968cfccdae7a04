/* container_encode.c — the encoded (compressed) form of one chunk payload
 * (container.md, Encoded chunks), for container.compress.
 *
 * Every encoding that applies is tried — Zstd alone, and for vertex and index
 * chunks the meshopt filter alone and under Zstd — and the smallest kept, or
 * none when nothing is smaller than the bytes themselves. A filter's output
 * is decoded again and compared before it may be kept: meshopt's index codec
 * may rotate triangles, and the decoded chunk must be the uncompressed cook's
 * bytes exactly. */
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "cook/write/write.h"

/* Zstd level of each container.compress value (BENCHMARKS.md, Compressed
 * chunks): fast cooks quickly, small spends cook time on size. */
static int zstd_level(cook_container_compress compress) {
    return compress == COOK_CONTAINER_COMPRESS_SMALL ? 19 : 3;
}

/* The indices widened to 32 bits (meshopt's C encoders take only those; its
 * decoders write either width) in a new block, and *vertices their largest +
 * 1, the vertex count its bounds want. */
static uint32_t *widen_indices(const uint8_t *data, size_t count, size_t element,
                               size_t *vertices) {
    uint32_t *wide = malloc(count * sizeof *wide), top = 0;
    for (size_t i = 0; wide != NULL && i < count; i++) {
        uint16_t v16;
        if (element == 2) {
            memcpy(&v16, data + 2 * i, 2);
            wide[i] = v16;
        } else {
            memcpy(&wide[i], data + 4 * i, 4);
        }
        if (wide[i] > top)
            top = wide[i];
    }
    *vertices = (size_t)top + 1;
    return wide;
}

/* The filter's encoding of `data` into a new block, or NULL when it does not
 * decode back to the same bytes (or memory ran out). */
static uint8_t *filter_encode(uint32_t filter, uint32_t element, const uint8_t *data, size_t size,
                              size_t *encoded_size) {
    size_t count = size / element, bound = 0, vertices = 0, n = 0;
    uint32_t *wide = NULL;
    if (filter == KILN_CHUNK_FILTER_MESHOPT_VERTEX) {
        bound = meshopt_encodeVertexBufferBound(count, element);
    } else {
        wide = widen_indices(data, count, element, &vertices);
        if (wide == NULL)
            return NULL;
        bound = filter == KILN_CHUNK_FILTER_MESHOPT_INDEX
                    ? meshopt_encodeIndexBufferBound(count, vertices)
                    : meshopt_encodeIndexSequenceBound(count, vertices);
    }
    uint8_t *encoded = malloc(bound);
    uint8_t *check = malloc(size);
    if (encoded != NULL && check != NULL) {
        if (filter == KILN_CHUNK_FILTER_MESHOPT_VERTEX)
            n = meshopt_encodeVertexBuffer(encoded, bound, data, count, element);
        else if (filter == KILN_CHUNK_FILTER_MESHOPT_INDEX)
            n = meshopt_encodeIndexBuffer(encoded, bound, wide, count);
        else
            n = meshopt_encodeIndexSequence(encoded, bound, wide, count);
    }
    free(wide);
    int status = -1;
    if (n > 0) {
        if (filter == KILN_CHUNK_FILTER_MESHOPT_VERTEX)
            status = meshopt_decodeVertexBuffer(check, count, element, encoded, n);
        else if (filter == KILN_CHUNK_FILTER_MESHOPT_INDEX)
            status = meshopt_decodeIndexBuffer(check, count, element, encoded, n);
        else
            status = meshopt_decodeIndexSequence(check, count, element, encoded, n);
    }
    bool exact = status == 0 && memcmp(check, data, size) == 0;
    free(check);
    if (!exact) {
        free(encoded);
        return NULL;
    }
    *encoded_size = n;
    return encoded;
}

/* Keeps `candidate` in *best when it is smaller, else frees it. */
static void keep_smaller(uint8_t *candidate, size_t size, uint32_t flags, chunk_encoding *best) {
    if (candidate == NULL)
        return;
    if (size >= best->size) {
        free(candidate);
        return;
    }
    free(best->data);
    *best = (chunk_encoding){.data = candidate, .size = size, .flags = flags};
}

static bool filter_applies(uint32_t filter, uint32_t element, size_t size) {
    return filter != KILN_CHUNK_FILTER_NONE && element > 0 && size % element == 0 &&
           (filter != KILN_CHUNK_FILTER_MESHOPT_VERTEX || (element % 4 == 0 && element <= 256)) &&
           (filter == KILN_CHUNK_FILTER_MESHOPT_VERTEX || element == 2 || element == 4) &&
           (filter != KILN_CHUNK_FILTER_MESHOPT_INDEX || (size / element) % 3 == 0);
}

/* The filter alone and under Zstd, each kept in *best when smaller. */
static void try_filter(const uint8_t *data, size_t size, uint32_t filter, uint32_t element,
                       int level, chunk_encoding *best) {
    uint32_t flags = filter | (element << KILN_CHUNK_ELEMENT_SHIFT);
    size_t filtered_size = 0, n = 0;
    uint8_t *filtered = filter_encode(filter, element, data, size, &filtered_size);
    if (filtered == NULL)
        return;
    if (filtered_size > 3 * size + 4096) { /* more than readers allow (container.md R22) */
        free(filtered);
        return;
    }
    uint8_t *both = write_zstd_frame(filtered, filtered_size, level, &n);
    keep_smaller(both, n, flags | KILN_CHUNK_ZSTD, best);
    keep_smaller(filtered, filtered_size, flags, best);
}

bool chunk_encode(const uint8_t *data, size_t size, uint32_t filter, uint32_t element,
                  cook_container_compress compress, chunk_encoding *out) {
    *out = (chunk_encoding){.size = size}; /* to beat: the bytes themselves */
    if (compress == COOK_CONTAINER_COMPRESS_NONE || size == 0)
        return false;
    int level = zstd_level(compress);
    size_t n = 0;
    uint8_t *zstd = write_zstd_frame(data, size, level, &n);
    keep_smaller(zstd, n, KILN_CHUNK_ZSTD, out);
    /* Triangle lists try the sequence codec too: the index codec is not
     * used when it would rotate a triangle, and either may be smaller. */
    uint32_t filters[2] = {filter, filter == KILN_CHUNK_FILTER_MESHOPT_INDEX
                                       ? KILN_CHUNK_FILTER_MESHOPT_SEQUENCE
                                       : KILN_CHUNK_FILTER_NONE};
    for (int f = 0; f < 2; f++)
        if (filter_applies(filters[f], element, size))
            try_filter(data, size, filters[f], element, level, out);
    return out->data != NULL;
}
