/* chunk_codec.c — encoded (compressed) chunks (container.md, Encoded chunks):
 * their rules at open, their sizes, decoding one into the caller's memory and
 * expanding a whole file into the container it would be without encoding.
 *
 * Nothing here allocates (Zstd's own decompression context aside, as for KTX2
 * levels): a meshopt filter under Zstd is inflated into the caller's buffer
 * past the decoded bytes, which is why kiln_chunk_info has a decode_capacity.
 * meshoptimizer asserts on element sizes it does not take, so every size is
 * checked here before it is called. */
#include <inttypes.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "common/checked.h"
#include "kiln/kiln.h"
#include "runtime/internal.h"

static uint32_t filter_of(uint32_t flags) {
    return flags & KILN_CHUNK_FILTER_MASK;
}
static uint32_t element_of(uint32_t flags) {
    return flags >> KILN_CHUNK_ELEMENT_SHIFT;
}

bool kiln_file_has_encoded_chunks(const kiln_file *file) {
    if (file == NULL || file->data == NULL)
        return false;
    const kiln_container_header *header = (const void *)file->data;
    return (header->flags & KILN_CONTAINER_FLAG_ENCODED_CHUNKS) != 0;
}

kiln_result runtime_require_plain(const kiln_file *file, kiln_error *err) {
    if (!kiln_file_has_encoded_chunks(file))
        return KILN_OK;
    return runtime_fail(err, KILN_ERR_UNSUPPORTED, file->name,
                        "the file has compressed chunks: decode them with kiln_file_decode_chunk, "
                        "or expand the file (kiln_file_expand) and open that");
}

static const kiln_chunk_entry *find_entry(const kiln_file *file, uint32_t fourcc) {
    for (uint32_t i = 0; i < file->chunk_count; i++)
        if (file->chunks[i].fourcc == fourcc)
            return &file->chunks[i];
    return NULL;
}

static uint64_t decoded_size_of(const kiln_chunk_entry *chunk) {
    return chunk->flags != 0 ? chunk->decoded_size : chunk->size;
}

/* The bytes a filter under Zstd needs after its decoded ones: the size the
 * Zstd frame declares, which must be there and within what the filter can
 * produce from decoded_size bytes (its worst case is under 3:1 plus a
 * header, the index codecs' 5-byte varints). */
static kiln_result scratch_size(const kiln_file *file, const kiln_chunk_entry *chunk,
                                uint64_t *scratch, kiln_error *err) {
    *scratch = 0;
    if (filter_of(chunk->flags) == KILN_CHUNK_FILTER_NONE || (chunk->flags & KILN_CHUNK_ZSTD) == 0)
        return KILN_OK;
    char fourcc[5];
    kiln_fourcc_str(chunk->fourcc, fourcc);
    unsigned long long content =
        ZSTD_getFrameContentSize(file->data + chunk->offset, (size_t)chunk->size);
    if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR ||
        content > 3 * chunk->decoded_size + 4096) /* R22 */
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name, "chunk %s (%s): the Zstd frame %s",
                            fourcc, kiln_chunk_encoding_str(chunk->flags),
                            content == ZSTD_CONTENTSIZE_ERROR     ? "header is damaged"
                            : content == ZSTD_CONTENTSIZE_UNKNOWN ? "does not declare its size"
                                                                  : "declares more bytes than the "
                                                                    "filter can produce");
    *scratch = content;
    return KILN_OK;
}

kiln_result kiln_file_chunk_info(const kiln_file *file, uint32_t fourcc, kiln_chunk_info *out,
                                 kiln_error *err) {
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (file == NULL || file->data == NULL || out == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_file_chunk_info needs an open file and an output");
    const kiln_chunk_entry *chunk = find_entry(file, fourcc);
    if (chunk == NULL) {
        char name[5];
        kiln_fourcc_str(fourcc, name);
        return runtime_fail(err, KILN_ERR_NOT_FOUND, file->name, "no %s chunk", name);
    }
    uint64_t scratch = 0;
    kiln_result result = scratch_size(file, chunk, &scratch, err);
    if (result != KILN_OK)
        return result;
    /* Both fit: decoded_size by R21, the scratch by R22's bound on it. */
    *out = (kiln_chunk_info){.fourcc = fourcc,
                             .flags = chunk->flags,
                             .stored_size = chunk->size,
                             .decoded_size = decoded_size_of(chunk),
                             .decode_capacity = decoded_size_of(chunk) + scratch};
    return runtime_succeed(err);
}

/* Undoes a meshopt filter: `encoded` into exactly `decoded` bytes at dst. */
static int unfilter(uint32_t flags, uint8_t *dst, size_t decoded, const uint8_t *encoded,
                    size_t encoded_size) {
    size_t element = element_of(flags);
    switch (filter_of(flags)) {
    case KILN_CHUNK_FILTER_MESHOPT_VERTEX:
        return meshopt_decodeVertexBuffer(dst, decoded / element, element, encoded, encoded_size);
    case KILN_CHUNK_FILTER_MESHOPT_INDEX:
        return meshopt_decodeIndexBuffer(dst, decoded / element, element, encoded, encoded_size);
    default: /* KILN_CHUNK_FILTER_MESHOPT_SEQUENCE */
        return meshopt_decodeIndexSequence(dst, decoded / element, element, encoded, encoded_size);
    }
}

/* Inflates a Zstd frame into exactly `expected` bytes at dst. */
static kiln_result inflate(const kiln_file *file, const char *fourcc, uint8_t *dst, size_t expected,
                           const uint8_t *src, size_t size, kiln_error *err) {
    unsigned long long content = ZSTD_getFrameContentSize(src, size);
    if (content != expected) /* R22 */
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "chunk %s: the Zstd frame declares %llu bytes, expected %zu", fourcc,
                            content, expected);
    size_t got = ZSTD_decompress(dst, expected, src, size);
    if (ZSTD_isError(got) || got != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name, "chunk %s: Zstd: %s", fourcc,
                            ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short frame");
    return KILN_OK;
}

/* Decodes `chunk` into dst, which has room for `capacity` bytes (at least the
 * decode capacity: checked by the callers). */
static kiln_result decode_entry(const kiln_file *file, const kiln_chunk_entry *chunk, uint8_t *dst,
                                uint64_t scratch, kiln_error *err) {
    const uint8_t *payload = file->data + chunk->offset;
    size_t stored = (size_t)chunk->size, decoded = (size_t)decoded_size_of(chunk);
    char fourcc[5];
    kiln_fourcc_str(chunk->fourcc, fourcc);
    if (chunk->flags == 0) {
        if (stored > 0)
            memcpy(dst, payload, stored);
        return KILN_OK;
    }
    bool zstd = (chunk->flags & KILN_CHUNK_ZSTD) != 0;
    if (filter_of(chunk->flags) == KILN_CHUNK_FILTER_NONE)
        return inflate(file, fourcc, dst, decoded, payload, stored, err);
    const uint8_t *encoded = payload;
    size_t encoded_size = stored;
    if (zstd) {
        kiln_result result =
            inflate(file, fourcc, dst + decoded, (size_t)scratch, payload, stored, err);
        if (result != KILN_OK)
            return result;
        encoded = dst + decoded;
        encoded_size = (size_t)scratch;
    }
    int status = unfilter(chunk->flags, dst, decoded, encoded, encoded_size);
    if (status != 0) /* R23 */
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "chunk %s: the %s data is malformed (meshoptimizer error %d)", fourcc,
                            kiln_chunk_encoding_str(chunk->flags), status);
    return KILN_OK;
}

kiln_result kiln_file_decode_chunk(const kiln_file *file, uint32_t fourcc, void *dst,
                                   size_t dst_size, kiln_error *err) {
    kiln_chunk_info info;
    kiln_result result = kiln_file_chunk_info(file, fourcc, &info, err);
    if (result != KILN_OK)
        return result;
    if (dst == NULL || dst_size < info.decode_capacity) {
        char name[5];
        kiln_fourcc_str(fourcc, name);
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, file->name,
                            "decoding chunk %s needs a buffer of %" PRIu64 " bytes, got %zu", name,
                            info.decode_capacity, dst == NULL ? (size_t)0 : dst_size);
    }
    result = decode_entry(file, find_entry(file, fourcc), dst,
                          info.decode_capacity - info.decoded_size, err);
    return result == KILN_OK ? runtime_succeed(err) : result;
}

/* Where the expanded file puts each payload, its size, and the buffer the
 * expansion needs (a chunk's scratch lies past its payload, before any later
 * payload is written). */
static kiln_result expanded_layout(const kiln_file *file, uint64_t *file_size, uint64_t *capacity,
                                   kiln_error *err) {
    uint64_t end =
        sizeof(kiln_container_header) + (uint64_t)file->chunk_count * sizeof(kiln_chunk_entry);
    *capacity = 0;
    for (uint32_t i = 0; i < file->chunk_count; i++) {
        const kiln_chunk_entry *chunk = &file->chunks[i];
        uint64_t scratch = 0, offset = align_up_u64(end, KILN_CHUNK_ALIGNMENT), need = 0;
        kiln_result result = scratch_size(file, chunk, &scratch, err);
        if (result != KILN_OK)
            return result;
        if (!checked_add_u64(offset, decoded_size_of(chunk), &end) ||
            !checked_add_u64(end, scratch, &need))
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "the decoded chunks overflow 64 bits");
        if (need > *capacity)
            *capacity = need;
    }
    *file_size = align_up_u64(end, KILN_CHUNK_ALIGNMENT);
    if (*file_size < end || *file_size > SIZE_MAX)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "the decoded file does not fit in this address space");
    if (*file_size > *capacity)
        *capacity = *file_size;
    return KILN_OK;
}

kiln_result kiln_file_expanded_size(const kiln_file *file, size_t *size, size_t *capacity,
                                    kiln_error *err) {
    if (size != NULL)
        *size = 0;
    if (capacity != NULL)
        *capacity = 0;
    if (file == NULL || file->data == NULL || size == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_file_expanded_size needs an open file and a size");
    uint64_t file_size = 0, need = 0;
    kiln_result result = expanded_layout(file, &file_size, &need, err);
    if (result != KILN_OK)
        return result;
    if (need > SIZE_MAX)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "expanding needs %" PRIu64 " bytes, more than this address space",
                            need);
    *size = (size_t)file_size;
    if (capacity != NULL)
        *capacity = (size_t)need;
    return runtime_succeed(err);
}

kiln_result kiln_file_expand(const kiln_file *file, void *dst, size_t dst_size, kiln_error *err) {
    size_t file_size = 0, capacity = 0;
    kiln_result result = kiln_file_expanded_size(file, &file_size, &capacity, err);
    if (result != KILN_OK)
        return result;
    if (dst == NULL || dst_size < capacity || (uintptr_t)dst % KILN_CHUNK_ALIGNMENT != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, file->name,
                            "expanding needs a 16-byte-aligned buffer of %zu bytes, got %zu at %p",
                            capacity, dst == NULL ? (size_t)0 : dst_size, dst);
    uint8_t *out = dst;
    const kiln_container_header *source = (const void *)file->data;
    kiln_container_header header = *source;
    header.flags &= ~KILN_CONTAINER_FLAG_ENCODED_CHUNKS;
    header.file_size = file_size;
    header.checksum = 0;
    memset(out, 0, file_size);

    /* The table as the cooker writes it without encoding, then each payload
     * in order (a payload's scratch may spill over later ones' places: they
     * are written after it), its padding zeroed again. */
    uint64_t end = sizeof header + (uint64_t)file->chunk_count * sizeof(kiln_chunk_entry);
    for (uint32_t i = 0; i < file->chunk_count; i++) {
        const kiln_chunk_entry *chunk = &file->chunks[i];
        kiln_chunk_entry entry = {.fourcc = chunk->fourcc,
                                  .offset = align_up_u64(end, KILN_CHUNK_ALIGNMENT),
                                  .size = decoded_size_of(chunk)};
        uint64_t scratch = 0;
        result = scratch_size(file, chunk, &scratch, err);
        if (result == KILN_OK)
            result = decode_entry(file, chunk, out + entry.offset, scratch, err);
        if (result != KILN_OK)
            return result;
        end = entry.offset + entry.size;
        memset(out + end, 0, (size_t)(align_up_u64(end, KILN_CHUNK_ALIGNMENT) - end));
        memcpy(out + sizeof header + i * sizeof entry, &entry, sizeof entry);
    }
    memcpy(out, &header, sizeof header);
    if ((header.flags & KILN_CONTAINER_FLAG_CHECKSUM) != 0) {
        /* The checksum field is zero in `out`, so one hash is the file's. */
        uint64_t checksum = XXH3_64bits(out, file_size);
        memcpy(out + offsetof(kiln_container_header, checksum), &checksum, sizeof checksum);
    }
    return runtime_succeed(err);
}

kiln_result kiln_file_map_expanded(kiln_file *file, const char *path, uint32_t flags,
                                   kiln_error *err) {
    kiln_file mapped;
    kiln_result result = kiln_file_map(&mapped, path, flags, err);
    if (file != NULL)
        memset(file, 0, sizeof *file);
    if (result != KILN_OK || !kiln_file_has_encoded_chunks(&mapped) || file == NULL) {
        if (file != NULL)
            *file = mapped;
        else
            kiln_file_close(&mapped);
        return result;
    }
    size_t size, capacity;
    result = kiln_file_expanded_size(&mapped, &size, &capacity, err);
    uint8_t *block = NULL;
    if (result == KILN_OK) {
        /* aligned_alloc wants a multiple of the alignment */
        capacity = (size_t)align_up_u64(capacity, KILN_CHUNK_ALIGNMENT);
        block = aligned_alloc(KILN_CHUNK_ALIGNMENT, capacity);
        if (block == NULL)
            result = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, mapped.name,
                                  "cannot allocate %zu bytes to expand the file", capacity);
    }
    if (result == KILN_OK)
        result = kiln_file_expand(&mapped, block, capacity, err);
    if (result == KILN_OK)
        result = kiln_file_from_memory(file, block, size, mapped.name, flags, err);
    kiln_file_close(&mapped);
    if (result != KILN_OK) {
        free(block);
        return result;
    }
    file->owned_ = block; /* kiln_file_close frees it, as kiln_file_load's */
    file->owned_size_ = capacity;
    file->owned_how_ = 2;
    return KILN_OK;
}
