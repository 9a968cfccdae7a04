/* container.c — lays out a kiln container in memory (docs/formats/container.md).
 *
 * Chunks are copied as they are added (or borrowed, for bulk payloads that
 * outlive the writer); container_finish() writes the header, the chunk table
 * right after it, then each payload at the next 16-byte boundary in the order
 * added, with zeroed padding, and finally the checksum, into one allocation of
 * the file's size; container_lay_out stops before the copy and hands the
 * same bytes out piece by piece. The output depends only on the chunks added,
 * so cooking is reproducible. */
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

/* What the file holds for a chunk: its encoding, or its bytes. */
static const uint8_t *chunk_payload(const struct container_pending_chunk *chunk) {
    return chunk->encoded.data != NULL ? chunk->encoded.data : chunk->data;
}

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
        payloads[i] = chunk_payload(chunk);
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

/* The file's bytes in order, handed to `sink`: the head (header and table),
 * then each payload after the zeroed padding that aligns it, then the
 * padding to the file's end. The one walk both the checksum and the writes
 * take. */
static bool walk_pieces(const container_layout *layout, write_sink sink, void *arg) {
    static const uint8_t zeros[KILN_CHUNK_ALIGNMENT];
    if (!sink(arg, layout->head, layout->head_size))
        return false;
    uint64_t at = layout->head_size;
    for (uint32_t i = 0; i < layout->writer.chunk_count; i++) {
        const kiln_chunk_entry *entry = &layout->table[i];
        if (entry->offset > at && !sink(arg, zeros, (size_t)(entry->offset - at)))
            return false;
        if (entry->size > 0 && !sink(arg, chunk_payload(&layout->writer.chunks[i]), entry->size))
            return false;
        at = entry->offset + entry->size;
    }
    return layout->file_size == at || sink(arg, zeros, (size_t)(layout->file_size - at));
}

static bool hash_piece(void *state, const void *data, size_t size) {
    return XXH3_64bits_update(state, data, size) == XXH_OK;
}

bool container_lay_out(container_writer *writer, container_layout *out) {
    memset(out, 0, sizeof *out);
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
    size_t head_size =
        sizeof(kiln_container_header) + (size_t)writer->chunk_count * sizeof(kiln_chunk_entry);
    uint8_t *head = malloc(head_size);
    XXH3_state_t *hash = XXH3_createState();
    if (head == NULL || hash == NULL) {
        free(head);
        XXH3_freeState(hash);
        container_abandon(writer);
        return false;
    }
    /* head is malloc's, so aligned for any type; the table follows the
     * header, whose size is a multiple of 8. */
    kiln_chunk_entry *table = (kiln_chunk_entry *)(void *)(head + sizeof(kiln_container_header));
    memset(table, 0, (size_t)writer->chunk_count * sizeof *table);
    uint64_t end = head_size;
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
    header.checksum = 0; /* filled in below, once every byte is known */
    memcpy(head, &header, sizeof header);

    *out = (container_layout){.writer = *writer,
                              .head = head,
                              .head_size = head_size,
                              .table = table,
                              .file_size = file_size};
    memset(writer, 0, sizeof *writer); /* the chunks are the layout's now */
    /* The checksum covers the whole file with its own 8 bytes read as zero;
     * they are zero in the head right now, so one walk over the file is that
     * hash (XXH3's streaming form gives the one-call hash of the same bytes). */
    ok = ok && XXH3_64bits_reset(hash) == XXH_OK && walk_pieces(out, hash_piece, hash);
    if (ok) {
        uint64_t checksum = XXH3_64bits_digest(hash);
        memcpy(head + offsetof(kiln_container_header, checksum), &checksum, sizeof checksum);
    }
    XXH3_freeState(hash);
    if (!ok)
        container_layout_free(out);
    return ok;
}

/* Pieces smaller than this go out gathered with their neighbours: the small
 * chunks and paddings of a file are one write, not one each. */
#define GATHER_BYTES ((size_t)64 << 10)

typedef struct gathered {
    write_sink sink;
    void *arg;
    uint8_t *buffer; /* GATHER_BYTES */
    size_t used;
} gathered;

static bool gather_flush(gathered *g) {
    bool ok = g->used == 0 || g->sink(g->arg, g->buffer, g->used);
    g->used = 0;
    return ok;
}

static bool gather_piece(void *arg, const void *data, size_t size) {
    gathered *g = arg;
    if (size >= GATHER_BYTES)
        return gather_flush(g) && g->sink(g->arg, data, size);
    if (g->used + size > GATHER_BYTES && !gather_flush(g))
        return false;
    memcpy(g->buffer + g->used, data, size);
    g->used += size;
    return true;
}

bool container_layout_write(const container_layout *layout, write_sink sink, void *arg) {
    gathered g = {sink, arg, malloc(GATHER_BYTES), 0};
    bool ok = g.buffer != NULL ? walk_pieces(layout, gather_piece, &g) && gather_flush(&g)
                               : walk_pieces(layout, sink, arg);
    free(g.buffer);
    return ok;
}

void container_layout_free(container_layout *layout) {
    container_abandon(&layout->writer);
    free(layout->head);
    memset(layout, 0, sizeof *layout);
}

bool container_finish(container_writer *writer, bytebuf *out) {
    container_layout layout;
    if (!container_lay_out(writer, &layout))
        return false;
    const kiln_chunk_entry *table = layout.table;
    uint32_t chunk_count = layout.writer.chunk_count;
    size_t base = out->size; /* the file is appended to whatever `out` holds */
    uint8_t *file = bytebuf_extend(out, (size_t)layout.file_size);
    bool ok = file != NULL;
    if (ok) {
        /* Every piece copied once into its place, and the padding between
         * and after them zeroed (deterministic bytes, which the checksum and
         * reproducible builds need): no byte is written twice. */
        memcpy(file, layout.head, layout.head_size);
        size_t at = layout.head_size;
        for (uint32_t i = 0; i < chunk_count; i++) {
            memset(file + at, 0, (size_t)table[i].offset - at);
            at = (size_t)(table[i].offset + table[i].size);
        }
        memset(file + at, 0, (size_t)layout.file_size - at);
        ok = copy_payloads(&layout.writer, table, file);
        if (!ok)
            out->size = base; /* the image was never whole */
    }
    container_layout_free(&layout);
    return ok;
}
