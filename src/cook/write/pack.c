/*
 * pack.c — lays out a .kpak (docs/formats/kpak.md) from the files of an
 * output tree. The layout depends only on the paths and bytes given, never
 * on timestamps or the order files were found: same tree, same pack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/write/write.h"

static void put_entry(bytebuf *out, size_t at, const kiln_pack_entry_disk *entry) {
    memcpy(out->data + at, entry, sizeof *entry); /* little-endian hosts only, as format.h */
}

bool write_pack(const char *root, const strlist *paths, bytebuf *out, char *reason,
                size_t reason_size) {
    for (size_t i = 1; i < paths->count; i++) {
        if (strcmp(paths->items[i - 1], paths->items[i]) >= 0) {
            snprintf(reason, reason_size, "paths are not sorted and unique");
            return false;
        }
    }
    if (paths->count > UINT32_MAX) {
        snprintf(reason, reason_size, "too many files");
        return false;
    }
    kiln_pack_header header = {.version = KILN_PACK_VERSION,
                               .entry_count = (uint32_t)paths->count,
                               .toc_offset = sizeof header};
    memcpy(header.magic, KILN_PACK_MAGIC, sizeof header.magic);
    header.strings_offset = header.toc_offset + paths->count * sizeof(kiln_pack_entry_disk);
    for (size_t i = 0; i < paths->count; i++) {
        size_t length = strlen(paths->items[i]);
        if (length == 0 || length >= KILN_PACK_MAX_PATH) {
            snprintf(reason, reason_size, "%s: path too long for a pack", paths->items[i]);
            return false;
        }
        header.strings_size += length + 1;
    }
    if (header.strings_size > UINT32_MAX) {
        snprintf(reason, reason_size, "string table too large");
        return false;
    }
    header.payload_offset =
        align_up_u64(header.strings_offset + header.strings_size, KILN_PACK_ALIGNMENT);

    /* Header and table are filled in last; reserve them, then the strings. */
    size_t start = out->size;
    bytebuf_append_zeros(out, (size_t)header.strings_offset);
    for (size_t i = 0; i < paths->count; i++)
        bytebuf_append(out, paths->items[i], strlen(paths->items[i]) + 1);
    bytebuf_append_zeros(
        out, (size_t)(header.payload_offset - header.strings_offset - header.strings_size));
    uint32_t path_offset = 0;
    for (size_t i = 0; i < paths->count && !out->failed; i++) {
        char *full = malloc(strlen(root) + strlen(paths->items[i]) + 2);
        if (full == NULL) {
            out->failed = true;
            break;
        }
        sprintf(full, "%s/%s", root, paths->items[i]);
        uint8_t *data = NULL;
        size_t size = 0;
        char why[256];
        bool read = cook_read_file(full, SIZE_MAX / 2, &data, &size, why, sizeof why);
        free(full);
        if (!read) {
            snprintf(reason, reason_size, "%s: %s", paths->items[i], why);
            return false;
        }
        kiln_pack_entry_disk entry = {
            .offset = out->size - start,
            .size = size,
            .path_offset = path_offset,
            .path_length = (uint16_t)strlen(paths->items[i]),
            .kind = (uint16_t)kiln_pack_kind_of(paths->items[i]),
        };
        path_offset += entry.path_length + 1u;
        bytebuf_append(out, data, size);
        free(data);
        bytebuf_append_zeros(out, (size_t)(align_up_u64(size, KILN_PACK_ALIGNMENT) - size));
        if (!out->failed)
            put_entry(out, start + sizeof header + i * sizeof entry, &entry);
    }
    if (out->failed) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    header.file_size = out->size - start;
    memcpy(out->data + start, &header, sizeof header);
    return true;
}
