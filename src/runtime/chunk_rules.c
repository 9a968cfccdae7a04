/* chunk_rules.c — what an encoded chunk's table entry must hold (container.md
 * R12, R20-R21) and the encodings' names. A leaf: file.c's validator asks it
 * and words the failure, chunk_codec.c names encodings with it. */
#include <inttypes.h>
#include <stdio.h>

#include "kiln/kiln.h"
#include "runtime/internal.h"

/* The most a Zstd frame inflates per byte (a block of 128 KiB from a 4-byte
 * RLE block header), as runtime/ktx2.c; meshopt's codecs inflate far less
 * (its vertex codec at most 64:1, the index codecs 12:1). */
#define ZSTD_MAX_RATIO 32768u
#define FILTER_MAX_RATIO 64u

const char *kiln_chunk_encoding_str(uint32_t flags) {
    static const char *const names[2][4] = {
        {"stored", "meshopt vertex", "meshopt index", "meshopt sequence"},
        {"zstd", "meshopt vertex + zstd", "meshopt index + zstd", "meshopt sequence + zstd"},
    };
    if ((flags & ~KILN_CHUNK_FLAGS_KNOWN) != 0)
        return "unknown";
    return names[(flags & KILN_CHUNK_ZSTD) != 0][flags & KILN_CHUNK_FILTER_MASK];
}

kiln_result runtime_chunk_encoding_problem(const kiln_chunk_entry *chunk, char *detail,
                                           size_t size) {
    uint32_t flags = chunk->flags, filter = flags & KILN_CHUNK_FILTER_MASK;
    uint32_t element = flags >> KILN_CHUNK_ELEMENT_SHIFT;
    const char *encoding = kiln_chunk_encoding_str(flags);
    if (flags == 0) {
        if (chunk->decoded_size == 0)
            return KILN_OK;
        snprintf(detail, size, "is stored as is but has decoded_size %" PRIu64 " (must be 0)",
                 chunk->decoded_size);
        return KILN_ERR_CORRUPT; /* R12 */
    }
    if ((flags & ~KILN_CHUNK_FLAGS_KNOWN) != 0) {
        snprintf(detail, size, "has unknown flags 0x%" PRIx32, flags & ~KILN_CHUNK_FLAGS_KNOWN);
        return KILN_ERR_UNSUPPORTED; /* R12 */
    }
    bool element_ok;
    uint64_t unit = element; /* decoded_size is a whole number of these */
    switch (filter) {
    case KILN_CHUNK_FILTER_NONE:
        element_ok = element == 0 && (flags & KILN_CHUNK_ZSTD) != 0;
        unit = 1;
        break;
    case KILN_CHUNK_FILTER_MESHOPT_VERTEX:
        element_ok = element >= 4 && element <= 256 && element % 4 == 0;
        break;
    case KILN_CHUNK_FILTER_MESHOPT_INDEX:
        element_ok = element == 2 || element == 4;
        unit = 3u * element; /* whole triangles */
        break;
    default: /* KILN_CHUNK_FILTER_MESHOPT_SEQUENCE */
        element_ok = element == 2 || element == 4;
        break;
    }
    if (!element_ok) { /* R20 */
        snprintf(detail, size, "encoding 0x%" PRIx32 " (%s) has an invalid element size %" PRIu32,
                 flags, encoding, element);
        return KILN_ERR_CORRUPT;
    }
    if (chunk->size == 0 || chunk->decoded_size == 0 || chunk->decoded_size % unit != 0 ||
        chunk->decoded_size > SIZE_MAX) { /* R21 */
        snprintf(detail, size,
                 "(%s) of %" PRIu64 " bytes cannot decode to %" PRIu64
                 " bytes (a whole number of %" PRIu64 "-byte elements)",
                 encoding, chunk->size, chunk->decoded_size, unit);
        return KILN_ERR_CORRUPT;
    }
    uint64_t ratio = (flags & KILN_CHUNK_ZSTD) != 0 ? ZSTD_MAX_RATIO : 1;
    if (filter != KILN_CHUNK_FILTER_NONE)
        ratio *= FILTER_MAX_RATIO;
    if (chunk->decoded_size / ratio > chunk->size) { /* R21 */
        snprintf(detail, size,
                 "(%s) claims %" PRIu64 " decoded bytes from %" PRIu64
                 ", more than the encoding can give (%" PRIu64 ":1)",
                 encoding, chunk->decoded_size, chunk->size, ratio);
        return KILN_ERR_CORRUPT;
    }
    return KILN_OK;
}
