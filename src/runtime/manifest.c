/* manifest.c — the ref-hash → path table (docs/formats/kman.md). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kiln/kiln.h"
#include "runtime/internal.h"

const char *kiln_asset_kind_str(kiln_asset_kind kind) {
    static const char *const names[KILN_ASSET_KIND_COUNT_] = {
        "invalid", "mesh", "material", "texture", "scene", "animation", "shader"};
    return (unsigned)kind < KILN_ASSET_KIND_COUNT_ ? names[kind] : "invalid";
}

const char *kiln_color_space_str(kiln_color_space space) {
    static const char *const names[KILN_COLOR_SPACE_COUNT_] = {"none", "linear", "srgb"};
    return (unsigned)space < KILN_COLOR_SPACE_COUNT_ ? names[space] : "invalid";
}

/* kman.md R5: a string is inside MSTR and followed by its NUL. */
static bool string_valid(const kiln_manifest_view *view, uint32_t offset, uint32_t length) {
    return (uint64_t)offset + length < view->strings_size && view->strings[offset + length] == '\0';
}

static int compare_ids(uint64_t a_hi, uint64_t a_lo, uint64_t b_hi, uint64_t b_lo) {
    if (a_hi != b_hi)
        return a_hi < b_hi ? -1 : 1;
    return (a_lo > b_lo) - (a_lo < b_lo);
}

/* kman.md R7-R9: MIDS rows sorted by ID, each naming an entry whose MEID row
 * names it back; MEID one row per entry. Both absent: no IDs. */
static kiln_result read_ids(const kiln_file *file, kiln_manifest_view *v, kiln_error *err) {
    const char *name = file->name;
    kiln_chunk ids = {0}, owners = {0};
    bool has_ids = kiln_file_find_chunk(file, KILN_CHUNK_MANIFEST_IDS, &ids) == KILN_OK;
    bool has_owners = kiln_file_find_chunk(file, KILN_CHUNK_MANIFEST_ENTRY_IDS, &owners) == KILN_OK;
    if (!has_ids && !has_owners)
        return KILN_OK;
    if (!has_ids || !has_owners || ids.size % sizeof(kiln_manifest_id) != 0 ||
        ids.size / sizeof(kiln_manifest_id) > v->entry_count ||
        owners.size != (size_t)v->entry_count * sizeof(uint32_t)) /* kman.md R7 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "MIDS (%zu bytes) and MEID (%zu bytes) do not match %" PRIu32
                            " entries: 24 bytes per ID, 4 per entry",
                            ids.size, owners.size, v->entry_count);
    v->ids = ids.data;
    v->id_count = (uint32_t)(ids.size / sizeof(kiln_manifest_id));
    v->entry_ids = owners.data;
    for (uint32_t i = 0; i < v->id_count; i++) {
        const kiln_manifest_id *row = &v->ids[i];
        if ((row->id_hi == 0 && row->id_lo == 0) ||
            (i > 0 && compare_ids(v->ids[i - 1].id_hi, v->ids[i - 1].id_lo, row->id_hi,
                                  row->id_lo) >= 0)) /* kman.md R8 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "ID %" PRIu32 " is zero or not above the one before", i);
        if (row->entry >= v->entry_count || v->entry_ids[row->entry] != i ||
            row->reserved != 0) /* kman.md R9 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "ID %" PRIu32 " names entry %" PRIu32
                                ", which is not one of its asset's",
                                i, row->entry);
    }
    for (uint32_t i = 0; i < v->entry_count; i++)
        if (v->entry_ids[i] != KILN_MANIFEST_NO_ID && v->entry_ids[i] >= v->id_count) /* R9 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "entry %" PRIu32 " names ID row %" PRIu32 " of %" PRIu32, i,
                                v->entry_ids[i], v->id_count);
    return KILN_OK;
}

kiln_result kiln_manifest_view_get(const kiln_file *file, kiln_manifest_view *view,
                                   kiln_error *err) {
    if (view != NULL)
        memset(view, 0, sizeof *view);
    if (file == NULL || file->data == NULL || view == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_manifest_view_get needs an open file and a view");
    const char *name = file->name;
    if (file->kind != KILN_KIND_MANIFEST) /* kman.md R1 */
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, name, "not a manifest");
    if (runtime_require_plain(file, err) != KILN_OK) /* container.md R24 */
        return KILN_ERR_UNSUPPORTED;
    if (file->kind_version < 1 || file->kind_version > KILN_MANIFEST_VERSION) /* kman.md R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "manifest version %u is not supported (this build reads versions 1 "
                            "to %u)",
                            (unsigned)file->kind_version, KILN_MANIFEST_VERSION);
    /* kman.md R3: an absent chunk reads as empty. */
    kiln_chunk entries = {0}, strings = {0};
    if (kiln_file_find_chunk(file, KILN_CHUNK_MANIFEST_ENTRIES, &entries) != KILN_OK)
        memset(&entries, 0, sizeof entries);
    if (kiln_file_find_chunk(file, KILN_CHUNK_MANIFEST_STRINGS, &strings) != KILN_OK)
        memset(&strings, 0, sizeof strings);
    if (entries.size % sizeof(kiln_manifest_entry) != 0 ||
        entries.size / sizeof(kiln_manifest_entry) > UINT32_MAX) /* kman.md R3 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "MENT chunk is %zu bytes, not a whole number of 32-byte entries",
                            entries.size);
    kiln_manifest_view v = {
        .entries = entries.data,
        .entry_count = (uint32_t)(entries.size / sizeof(kiln_manifest_entry)),
        .strings = strings.data,
        .strings_size = strings.size,
    };
    for (uint32_t i = 0; i < v.entry_count; i++) {
        const kiln_manifest_entry *e = &v.entries[i];
        if (i > 0 && e->hash <= v.entries[i - 1].hash) /* kman.md R4 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "entry %" PRIu32 " (hash 0x%016" PRIx64
                                ") is not above the one before: not sorted or duplicated",
                                i, e->hash);
        if (!string_valid(&v, e->path_offset, e->path_length) ||
            !string_valid(&v, e->ref_offset, e->ref_length)) /* kman.md R5 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "entry %" PRIu32 " names a string outside MSTR", i);
        if (e->kind == KILN_ASSET_INVALID || e->kind >= KILN_ASSET_KIND_COUNT_ ||
            e->color_space >= KILN_COLOR_SPACE_COUNT_) /* kman.md R6 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "entry %" PRIu32 " has kind %u / colour space %u", i,
                                (unsigned)e->kind, (unsigned)e->color_space);
    }
    if (file->kind_version >= 2) {
        kiln_result ids = read_ids(file, &v, err);
        if (ids != KILN_OK)
            return ids;
    }
    *view = v;
    return runtime_succeed(err);
}

const kiln_manifest_entry *kiln_manifest_find(const kiln_manifest_view *view, uint64_t hash) {
    if (view == NULL)
        return NULL;
    uint32_t lo = 0, hi = view->entry_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint64_t h = view->entries[mid].hash;
        if (h == hash)
            return &view->entries[mid];
        if (h < hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *kiln_manifest_path(const kiln_manifest_view *view, const kiln_manifest_entry *entry) {
    return view->strings + entry->path_offset;
}

const char *kiln_manifest_ref(const kiln_manifest_view *view, const kiln_manifest_entry *entry) {
    return view->strings + entry->ref_offset;
}

/* ---------------------------------------------------------------------------
 * Asset IDs
 * ------------------------------------------------------------------------- */

kiln_result kiln_asset_id_parse(const char *text, kiln_asset_id *id, kiln_error *err) {
    if (id != NULL)
        memset(id, 0, sizeof *id);
    if (text == NULL || id == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_asset_id_parse needs a text and an ID");
    uint64_t half[2] = {0, 0};
    size_t length = strlen(text);
    for (size_t i = 0; i < length && i < 32; i++) {
        char c = text[i];
        int digit = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
        if (digit < 0)
            return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "asset ID",
                                "'%.40s': character %zu is not a hex digit", text, i + 1);
        half[i / 16] = half[i / 16] << 4 | (uint64_t)digit;
    }
    if (length != 32)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "asset ID",
                            "'%.40s' has %zu characters, not 32 hex digits", text, length);
    if (half[0] == 0 && half[1] == 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "asset ID", "the all-zero ID is no ID");
    *id = (kiln_asset_id){half[0], half[1]};
    return runtime_succeed(err);
}

void kiln_asset_id_format(kiln_asset_id id, char text[KILN_ASSET_ID_TEXT_SIZE]) {
    snprintf(text, KILN_ASSET_ID_TEXT_SIZE, "%016" PRIx64 "%016" PRIx64, id.hi, id.lo);
}

const kiln_manifest_entry *kiln_manifest_find_id(const kiln_manifest_view *view, kiln_asset_id id) {
    if (view == NULL || view->ids == NULL)
        return NULL;
    uint32_t lo = 0, hi = view->id_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const kiln_manifest_id *row = &view->ids[mid];
        int order = compare_ids(row->id_hi, row->id_lo, id.hi, id.lo);
        if (order == 0)
            return &view->entries[row->entry];
        if (order < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool kiln_manifest_id_of(const kiln_manifest_view *view, const kiln_manifest_entry *entry,
                         kiln_asset_id *id) {
    if (id != NULL)
        memset(id, 0, sizeof *id);
    if (view == NULL || entry == NULL || id == NULL || view->entry_ids == NULL ||
        entry < view->entries || entry >= view->entries + view->entry_count)
        return false;
    uint32_t row = view->entry_ids[entry - view->entries];
    if (row == KILN_MANIFEST_NO_ID)
        return false;
    *id = (kiln_asset_id){view->ids[row].id_hi, view->ids[row].id_lo};
    return true;
}
