/* container.c — lays out a kiln container in memory (docs/formats/container.md).
 *
 * Chunks are copied as they are added (or borrowed, for bulk payloads that
 * outlive the writer); container_finish() writes the header, the chunk table
 * right after it, then each payload at the next 16-byte boundary in the order
 * added, with zeroed padding, and finally the checksum, into one allocation of
 * the file's size. The output depends only on the chunks added, so cooking is
 * reproducible. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/checked.h"
#include "common/grow.h"
#include "cook/core/parallel.h"
#include "cook/write/write.h"

struct container_pending_chunk {
    uint32_t fourcc;
    const uint8_t *data; /* `owned`, or the caller's bytes; NULL when size == 0 */
    uint8_t *owned;      /* a copy, or NULL when borrowed */
    size_t size;
    uint32_t filter, element; /* container_set_filter */
    chunk_encoding encoded;   /* container_finish, when compressing */
};

void container_begin(container_writer *writer, uint32_t kind, uint16_t kind_version) {
    memset(writer, 0, sizeof *writer);
    writer->kind = kind;
    writer->kind_version = kind_version;
}

void container_set_compress(container_writer *writer, cook_container_compress compress) {
    writer->compress = compress;
}

void container_set_threads(container_writer *writer, unsigned threads) {
    writer->threads = threads;
}

void container_set_filter(container_writer *writer, uint32_t filter, uint32_t element) {
    if (writer->chunk_count > 0 && !writer->failed) {
        writer->chunks[writer->chunk_count - 1].filter = filter;
        writer->chunks[writer->chunk_count - 1].element = element;
    }
}

static void add_chunk(container_writer *writer, uint32_t fourcc, const void *data, size_t size,
                      bool copy) {
    if (writer->failed)
        return;
    /* The table's length is a uint32_t in the header. */
    struct container_pending_chunk *chunks =
        writer->chunk_count < UINT32_MAX
            ? array_grow(writer->chunks, &writer->chunk_cap, (size_t)writer->chunk_count + 1,
                         sizeof *chunks, 8)
            : NULL;
    if (chunks == NULL) {
        writer->failed = true;
        return;
    }
    writer->chunks = chunks;
    struct container_pending_chunk *chunk = &writer->chunks[writer->chunk_count];
    *chunk = (struct container_pending_chunk){.fourcc = fourcc, .size = size};
    if (size > 0 && copy) {
        chunk->owned = malloc(size);
        if (chunk->owned == NULL) {
            writer->failed = true;
            return;
        }
        memcpy(chunk->owned, data, size);
        chunk->data = chunk->owned;
    } else if (size > 0) {
        chunk->data = data;
    }
    writer->chunk_count++;
}

void container_add_chunk(container_writer *writer, uint32_t fourcc, const void *data, size_t size) {
    add_chunk(writer, fourcc, data, size, true);
}

void container_add_chunk_borrowed(container_writer *writer, uint32_t fourcc, const void *data,
                                  size_t size) {
    add_chunk(writer, fourcc, data, size, false);
}

void container_abandon(container_writer *writer) {
    for (uint32_t i = 0; i < writer->chunk_count; i++) {
        free(writer->chunks[i].owned);
        free(writer->chunks[i].encoded.data);
    }
    free(writer->chunks);
    memset(writer, 0, sizeof *writer);
}

/* Payload bytes per item of the copy into the file image: big enough that an
 * item outweighs its hand-out, small enough that a mesh's vertices split. */
#define COPY_PIECE ((size_t)1 << 20)

typedef struct copy_job {
    uint8_t *file;
    const kiln_chunk_entry *table;
    const uint8_t *const *payloads; /* per chunk */
    const uint32_t *first_piece;    /* per chunk, and the total after the last */
    uint32_t chunk_count;
} copy_job;

static void copy_piece(void *ctx, uint32_t piece) {
    const copy_job *job = ctx;
    uint32_t c = 0;
    while (job->first_piece[c + 1] <= piece) /* the chunk holding it; few chunks */
        c++;
    size_t at = (size_t)(piece - job->first_piece[c]) * COPY_PIECE;
    size_t size = (size_t)job->table[c].size - at;
    memcpy(job->file + job->table[c].offset + at, job->payloads[c] + at,
           size < COPY_PIECE ? size : COPY_PIECE);
}

/* Every payload copied once into its place: pieces of COPY_PIECE bytes on
 * the writer's threads. False when out of memory (nothing copied). */
static bool copy_payloads(const container_writer *writer, const kiln_chunk_entry *table,
                          uint8_t *file) {
    uint32_t n = writer->chunk_count;
    const uint8_t **payloads = malloc((n ? n : 1) * sizeof *payloads);
    uint32_t *first_piece = malloc(((size_t)n + 1) * sizeof *first_piece);
    if (payloads == NULL || first_piece == NULL) {
        free(payloads);
        free(first_piece);
        return false;
    }
    uint64_t pieces = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct container_pending_chunk *chunk = &writer->chunks[i];
        payloads[i] = chunk->encoded.data != NULL ? chunk->encoded.data : chunk->data;
        first_piece[i] = (uint32_t)pieces;
        pieces += (table[i].size + COPY_PIECE - 1) / COPY_PIECE;
    }
    first_piece[n] = (uint32_t)pieces; /* < 2^32: the file fits in memory */
    copy_job job = {file, table, payloads, first_piece, n};
    parallel_for(writer->threads, first_piece[n], copy_piece, &job);
    free(payloads);
    free(first_piece);
    return true;
}

bool container_finish(container_writer *writer, bytebuf *out) {
    if (writer->failed) {
        container_abandon(writer);
        return false;
    }

    /* Encoded chunks replace their payloads (META stays readable as it is:
     * kiln info shows it without decoding). */
    bool encoded = false;
    for (uint32_t i = 0; i < writer->chunk_count; i++) {
        struct container_pending_chunk *chunk = &writer->chunks[i];
        if (chunk->fourcc != KILN_CHUNK_META &&
            chunk_encode(chunk->data, chunk->size, chunk->filter, chunk->element, writer->compress,
                         &chunk->encoded))
            encoded = true;
    }

    /* Layout first, in 64-bit checked arithmetic, so the header can be written
     * before any payload. */
    kiln_chunk_entry *table = calloc(writer->chunk_count ? writer->chunk_count : 1, sizeof *table);
    if (table == NULL) {
        container_abandon(writer);
        return false;
    }
    uint64_t end = sizeof(kiln_container_header) + (uint64_t)writer->chunk_count * sizeof *table;
    bool ok = true;
    for (uint32_t i = 0; i < writer->chunk_count && ok; i++) {
        uint64_t offset = align_up_u64(end, KILN_CHUNK_ALIGNMENT);
        const struct container_pending_chunk *chunk = &writer->chunks[i];
        table[i].fourcc = chunk->fourcc;
        table[i].offset = offset;
        table[i].size = chunk->encoded.data != NULL ? chunk->encoded.size : chunk->size;
        if (chunk->encoded.data != NULL) {
            table[i].flags = chunk->encoded.flags;
            table[i].decoded_size = chunk->size;
        }
        ok = checked_add_u64(offset, table[i].size, &end);
    }
    uint64_t file_size = align_up_u64(end, KILN_CHUNK_ALIGNMENT);
    ok = ok && file_size >= end && file_size <= SIZE_MAX;

    kiln_container_header header;
    memset(&header, 0, sizeof header);
    header.magic = KILN_CONTAINER_MAGIC;
    header.kind = writer->kind;
    header.container_version = KILN_CONTAINER_VERSION;
    header.kind_version = writer->kind_version;
    header.flags =
        KILN_CONTAINER_FLAG_CHECKSUM | (encoded ? KILN_CONTAINER_FLAG_ENCODED_CHUNKS : 0);
    header.chunk_count = writer->chunk_count;
    header.header_size = sizeof header;
    header.file_size = file_size;
    header.checksum = 0; /* filled in below, once every byte is in place */

    size_t base = out->size; /* the file is appended to whatever `out` holds */
    uint8_t *file = ok ? bytebuf_extend(out, (size_t)file_size) : NULL;
    ok = file != NULL;
    if (ok) {
        /* Every piece copied once into its place, and the padding between
         * and after them zeroed (deterministic bytes, which the checksum and
         * reproducible builds need): no byte is written twice. */
        memcpy(file, &header, sizeof header);
        memcpy(file + sizeof header, table, (size_t)writer->chunk_count * sizeof *table);
        size_t at = sizeof header + (size_t)writer->chunk_count * sizeof *table;
        for (uint32_t i = 0; i < writer->chunk_count; i++) {
            memset(file + at, 0, (size_t)table[i].offset - at);
            at = (size_t)(table[i].offset + table[i].size);
        }
        memset(file + at, 0, (size_t)file_size - at);
        ok = copy_payloads(writer, table, file);
        if (!ok)
            out->size = base; /* the image was never whole */
    }
    if (ok) {
        /* The checksum covers the whole file with its own 8 bytes read as zero;
         * they are zero right now, so one call over the file is that hash. */
        uint64_t checksum = XXH3_64bits(out->data + base, (size_t)file_size);
        memcpy(out->data + base + offsetof(kiln_container_header, checksum), &checksum,
               sizeof checksum);
    }
    free(table);
    container_abandon(writer);
    return ok;
}
