/* manifest.c — the build's ref table, assets.kman (docs/formats/kman.md). */
#include <stdlib.h>
#include <string.h>

#include "cook/write/write.h"

/* By hash, then by ref, so equal hashes sit together in a stable order. */
static int compare_entries(const void *a, const void *b) {
    const cook_manifest_entry *ea = a, *eb = b;
    if (ea->hash != eb->hash)
        return ea->hash < eb->hash ? -1 : 1;
    return strcmp(ea->ref, eb->ref);
}

bool write_manifest(cook_manifest_list *list, cook_diag *diag, bytebuf *out) {
    if (list->count > 1)
        qsort(list->items, list->count, sizeof *list->items, compare_entries);
    bool ok = true;
    for (size_t i = 1; i < list->count; i++) {
        const cook_manifest_entry *a = &list->items[i - 1], *b = &list->items[i];
        if (a->hash != b->hash)
            continue;
        ok = false;
        if (strcmp(a->ref, b->ref) == 0)
            diag_error(diag, KILN_MANIFEST_FILE_NAME, 0,
                       "ref '%s' is produced twice ('%s' and '%s'): two sources differ only "
                       "in extension or case",
                       a->ref, a->path, b->path);
        else
            diag_error(diag, KILN_MANIFEST_FILE_NAME, 0,
                       "refs '%s' and '%s' have the same hash 0x%016llx; rename one of them",
                       a->ref, b->ref, (unsigned long long)a->hash);
    }
    if (!ok)
        return false;
    if (list->count > UINT32_MAX) {
        diag_error(diag, KILN_MANIFEST_FILE_NAME, 0, "more than 2^32 refs");
        return false;
    }
    kiln_manifest_entry *entries = calloc(list->count ? list->count : 1, sizeof *entries);
    bytebuf strings = {0};
    if (entries == NULL) {
        diag_error(diag, KILN_MANIFEST_FILE_NAME, 0, "out of memory");
        return false;
    }
    for (size_t i = 0; ok && i < list->count; i++) {
        const cook_manifest_entry *src = &list->items[i];
        kiln_manifest_entry *dst = &entries[i];
        dst->hash = src->hash;
        ok = string_table_add(&strings, src->path, &dst->path_offset, &dst->path_length) &&
             string_table_add(&strings, src->ref, &dst->ref_offset, &dst->ref_length);
        dst->kind = (uint16_t)src->kind;
        dst->color_space = (uint16_t)src->color_space;
        dst->index = src->index;
    }
    ok = ok && !strings.failed;
    if (ok) {
        container_writer writer;
        container_begin(&writer, KILN_KIND_MANIFEST, KILN_MANIFEST_VERSION);
        container_add_chunk(&writer, KILN_CHUNK_MANIFEST_ENTRIES, entries,
                            list->count * sizeof *entries);
        container_add_chunk(&writer, KILN_CHUNK_MANIFEST_STRINGS, strings.data, strings.size);
        ok = container_finish(&writer, out);
    }
    if (!ok)
        diag_error(diag, KILN_MANIFEST_FILE_NAME, 0, "out of memory");
    free(entries);
    bytebuf_free(&strings);
    return ok;
}
