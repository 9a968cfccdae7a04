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

static int compare_asset_ids(kiln_asset_id a, kiln_asset_id b) {
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    return (a.lo > b.lo) - (a.lo < b.lo);
}

/* One asset's ID and the index of its main entry, in the sorted list. */
typedef struct id_row {
    kiln_asset_id id;
    uint32_t entry;
} id_row;

static int compare_id_rows(const void *a, const void *b) {
    const id_row *x = a, *y = b;
    int order = compare_asset_ids(x->id, y->id);
    return order != 0 ? order : (x->entry > y->entry) - (x->entry < y->entry);
}

/* MIDS from the main entries of `list` (sorted by hash already) and MEID, a
 * row per entry. Two assets with one ID fail, naming both main refs. */
static bool write_ids(const cook_manifest_list *list, cook_diag *diag, bytebuf *ids,
                      bytebuf *owners) {
    id_row *rows = malloc((list->count ? list->count : 1) * sizeof *rows);
    if (rows == NULL)
        return false;
    size_t count = 0;
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i].main && (list->items[i].asset_id.hi | list->items[i].asset_id.lo))
            rows[count++] = (id_row){list->items[i].asset_id, (uint32_t)i};
    qsort(rows, count, sizeof *rows, compare_id_rows);
    bool ok = true;
    for (size_t i = 1; i < count; i++) {
        if (compare_asset_ids(rows[i - 1].id, rows[i].id) != 0)
            continue;
        char text[KILN_ASSET_ID_TEXT_SIZE];
        kiln_asset_id_format(rows[i].id, text);
        diag_error(diag, KILN_MANIFEST_FILE_NAME, 0,
                   "asset ID %s is the ID of both '%s' and '%s' (a sidecar copied with its "
                   "source?): remove the `id:` line from the copy's sidecar",
                   text, list->items[rows[i - 1].entry].ref, list->items[rows[i].entry].ref);
        ok = false;
    }
    for (size_t i = 0; ok && i < count; i++) {
        kiln_manifest_id row = {rows[i].id.hi, rows[i].id.lo, rows[i].entry, 0};
        bytebuf_append(ids, &row, sizeof row);
    }
    for (size_t i = 0; ok && i < list->count; i++) {
        uint32_t owner = KILN_MANIFEST_NO_ID;
        kiln_asset_id id = list->items[i].asset_id;
        size_t lo = 0, hi = count;
        while ((id.hi | id.lo) != 0 && lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int order = compare_asset_ids(rows[mid].id, id);
            if (order == 0) {
                owner = (uint32_t)mid;
                break;
            }
            if (order < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        bytebuf_append(owners, &owner, sizeof owner);
    }
    free(rows);
    return ok;
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
    bytebuf ids = {0}, owners = {0};
    uint32_t errors_before = diag->errors;
    if (ok)
        ok = write_ids(list, diag, &ids, &owners) && !ids.failed && !owners.failed;
    if (ok) {
        container_writer writer;
        container_begin(&writer, KILN_KIND_MANIFEST, KILN_MANIFEST_VERSION);
        container_add_chunk(&writer, KILN_CHUNK_MANIFEST_ENTRIES, entries,
                            list->count * sizeof *entries);
        container_add_chunk(&writer, KILN_CHUNK_MANIFEST_STRINGS, strings.data, strings.size);
        container_add_chunk(&writer, KILN_CHUNK_MANIFEST_IDS, ids.data, ids.size);
        container_add_chunk(&writer, KILN_CHUNK_MANIFEST_ENTRY_IDS, owners.data, owners.size);
        ok = container_finish(&writer, out);
    }
    if (!ok && diag->errors == errors_before)
        diag_error(diag, KILN_MANIFEST_FILE_NAME, 0, "out of memory");
    free(entries);
    bytebuf_free(&strings);
    bytebuf_free(&ids);
    bytebuf_free(&owners);
    return ok;
}
