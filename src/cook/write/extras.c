/* extras.c — the XTRA chunk (docs/formats/container.md): each object's
 * extras text (ir.h, ir_extras_text), found by object and index. */
#include <string.h>

#include "cook/write/write.h"

void extras_table_add(extras_table *table, kiln_extras_object object, uint32_t index,
                      const char *text) {
    if (text == NULL || text[0] == '\0')
        return;
    size_t length = strlen(text);
    kiln_extras_entry entry = {(uint32_t)object, index, (uint32_t)table->texts.size,
                               (uint32_t)length};
    if (length >= UINT32_MAX || table->texts.size > UINT32_MAX - length - 1) {
        table->entries.failed = true;
        return;
    }
    bytebuf_append(&table->entries, &entry, sizeof entry);
    bytebuf_append(&table->texts, text, length + 1);
}

bool extras_table_chunk(extras_table *table, container_writer *writer) {
    if (table->entries.failed || table->texts.failed)
        return false;
    uint32_t count = (uint32_t)(table->entries.size / sizeof(kiln_extras_entry));
    if (count == 0)
        return true;
    /* Text offsets are from the chunk's start: past the count and entries. */
    size_t head = sizeof count + table->entries.size;
    bytebuf chunk = {0};
    bytebuf_append(&chunk, &count, sizeof count);
    for (uint32_t i = 0; i < count; i++) {
        kiln_extras_entry entry;
        memcpy(&entry, table->entries.data + (size_t)i * sizeof entry, sizeof entry);
        entry.offset += (uint32_t)head;
        bytebuf_append(&chunk, &entry, sizeof entry);
    }
    bytebuf_append(&chunk, table->texts.data, table->texts.size);
    bool ok = !chunk.failed && chunk.size <= UINT32_MAX;
    if (ok)
        container_add_chunk(writer, KILN_CHUNK_EXTRAS, chunk.data, chunk.size);
    bytebuf_free(&chunk);
    return ok;
}

void extras_table_free(extras_table *table) {
    bytebuf_free(&table->entries);
    bytebuf_free(&table->texts);
}
