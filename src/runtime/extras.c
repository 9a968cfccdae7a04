/* extras.c — the XTRA chunk (docs/formats/container.md): the source's
 * extras and unknown extensions per object, as JSON text in the file. */
#include <inttypes.h>
#include <string.h>

#include "runtime/internal.h"

#define EXTRAS_ENTRY_SIZE sizeof(kiln_extras_entry)

static kiln_extras_entry entry_at(const uint8_t *chunk, uint32_t i) {
    kiln_extras_entry entry;
    memcpy(&entry, chunk + 4 + (size_t)i * EXTRAS_ENTRY_SIZE, sizeof entry);
    return entry;
}

/* The chunk and its entry count when the table fits (container.md X1). */
static bool extras_table(const kiln_file *file, kiln_chunk *chunk, uint32_t *count) {
    if (kiln_file_find_chunk(file, KILN_CHUNK_EXTRAS, chunk) != KILN_OK || chunk->size < 4)
        return false;
    memcpy(count, chunk->data, 4);
    return (uint64_t)*count * EXTRAS_ENTRY_SIZE <= chunk->size - 4;
}

/* X3: a text of `length` > 0 bytes after the table, NUL-terminated inside. */
static bool text_valid(const kiln_chunk *chunk, uint32_t count, const kiln_extras_entry *e) {
    const uint8_t *data = chunk->data;
    uint64_t first = 4 + (uint64_t)count * EXTRAS_ENTRY_SIZE;
    return e->length > 0 && e->offset >= first && (uint64_t)e->offset + e->length < chunk->size &&
           data[(size_t)e->offset + e->length] == '\0';
}

static int compare_key(const kiln_extras_entry *e, uint32_t object, uint32_t index) {
    if (e->object != object)
        return e->object < object ? -1 : 1;
    if (e->index != index)
        return e->index < index ? -1 : 1;
    return 0;
}

const char *kiln_file_extras(const kiln_file *file, kiln_extras_object object, uint32_t index,
                             size_t *length) {
    if (length != NULL)
        *length = 0;
    kiln_chunk chunk;
    uint32_t count;
    if (file == NULL || !extras_table(file, &chunk, &count))
        return NULL;
    /* Binary search over the sorted entries (X2, checked by
     * kiln_file_extras_check): a file that breaks the order only hides
     * entries, and the one returned is bounds-checked here. */
    uint32_t low = 0, high = count;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        kiln_extras_entry e = entry_at(chunk.data, mid);
        int order = compare_key(&e, (uint32_t)object, index);
        if (order == 0) {
            if (!text_valid(&chunk, count, &e))
                return NULL;
            if (length != NULL)
                *length = e.length;
            return (const char *)chunk.data + e.offset;
        }
        if (order < 0)
            low = mid + 1;
        else
            high = mid;
    }
    return NULL;
}

const char *kiln_file_extras_entry(const kiln_file *file, uint32_t i, kiln_extras_object *object,
                                   uint32_t *index, size_t *length) {
    kiln_chunk chunk;
    uint32_t count;
    if (file == NULL || !extras_table(file, &chunk, &count) || i >= count)
        return NULL;
    kiln_extras_entry e = entry_at(chunk.data, i);
    if (!text_valid(&chunk, count, &e))
        return NULL;
    if (object != NULL)
        *object = (kiln_extras_object)e.object;
    if (index != NULL)
        *index = e.index;
    if (length != NULL)
        *length = e.length;
    return (const char *)chunk.data + e.offset;
}

kiln_result kiln_file_extras_check(const kiln_file *file, kiln_error *err) {
    if (file == NULL || file->data == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_file_extras_check needs an open file");
    kiln_chunk chunk;
    if (kiln_file_find_chunk(file, KILN_CHUNK_EXTRAS, &chunk) != KILN_OK)
        return runtime_succeed(err); /* no extras */
    uint32_t count = 0;
    if (!extras_table(file, &chunk, &count)) /* X1 */
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "XTRA chunk of %zu bytes is too small for its %" PRIu32 " entries",
                            chunk.size, count);
    for (uint32_t i = 0; i < count; i++) {
        kiln_extras_entry e = entry_at(chunk.data, i);
        if (e.object == 0 || e.object >= KILN_EXTRAS_OBJECT_COUNT_) /* X2 */
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "XTRA entry %" PRIu32 " names unknown object kind %" PRIu32, i,
                                e.object);
        if (i > 0) {
            kiln_extras_entry before = entry_at(chunk.data, i - 1);
            if (compare_key(&before, e.object, e.index) >= 0) /* X2 */
                return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                    "XTRA entry %" PRIu32 " (object %" PRIu32 ", index %" PRIu32
                                    ") is not after the one before",
                                    i, e.object, e.index);
        }
        if (!text_valid(&chunk, count, &e) ||
            memchr((const uint8_t *)chunk.data + e.offset, '\0', e.length) != NULL) /* X3 */
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "XTRA entry %" PRIu32 "'s text (offset %" PRIu32 ", %" PRIu32
                                " bytes) is not a NUL-terminated string in the chunk",
                                i, e.offset, e.length);
    }
    return runtime_succeed(err);
}
