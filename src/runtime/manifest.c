/* manifest.c — the ref-hash → path table (docs/formats/kman.md). */
#include <inttypes.h>
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
    if (file->kind_version != KILN_MANIFEST_VERSION) /* kman.md R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "manifest version %u is not supported (this build reads version %u)",
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
