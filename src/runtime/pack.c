/*
 * pack.c — .kpak reader (docs/formats/kpak.md).
 *
 * kiln_pack_open validates everything once (O(entries + path bytes)), so the
 * lookups after it index the tables without further checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/checked.h"
#include "runtime/internal.h"

static void set_name(kiln_pack *pack, const char *name) {
    const char *slash = name ? strrchr(name, '/') : NULL;
    snprintf(pack->name, sizeof pack->name, "%s", name ? (slash ? slash + 1 : name) : "<memory>");
}

static kiln_result check_header(const kiln_pack *pack, kiln_pack_header *h, kiln_error *err) {
    if (pack->size < sizeof *h)
        return runtime_fail(err, KILN_ERR_TRUNCATED, pack->name,
                            "%zu bytes, a pack starts with a %zu-byte header", pack->size,
                            sizeof *h);
    memcpy(h, pack->data, sizeof *h);
    if (memcmp(h->magic, KILN_PACK_MAGIC, sizeof h->magic) != 0)
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, pack->name, "not a kiln pack (bad magic)");
    if (h->version != KILN_PACK_VERSION)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, pack->name,
                            "pack version %u, this libkiln reads %u", h->version,
                            KILN_PACK_VERSION);
    if (h->file_size != pack->size)
        return runtime_fail(err, h->file_size > pack->size ? KILN_ERR_TRUNCATED : KILN_ERR_CORRUPT,
                            pack->name, "header says %llu bytes, the file has %zu",
                            (unsigned long long)h->file_size, pack->size);
    uint64_t toc_size, strings_end;
    if (h->toc_offset != sizeof *h || h->reserved != 0 ||
        !checked_mul_u64(h->entry_count, sizeof(kiln_pack_entry_disk), &toc_size) ||
        h->strings_offset != h->toc_offset + toc_size ||
        !checked_add_u64(h->strings_offset, h->strings_size, &strings_end) ||
        !range_inside(h->strings_offset, h->strings_size, pack->size) ||
        h->payload_offset != align_up_u64(strings_end, KILN_PACK_ALIGNMENT) ||
        h->payload_offset > pack->size)
        return runtime_fail(err, KILN_ERR_CORRUPT, pack->name,
                            "header offsets are inconsistent with %u entries", h->entry_count);
    if (h->strings_size > 0 && pack->data[strings_end - 1] != '\0')
        return runtime_fail(err, KILN_ERR_CORRUPT, pack->name, "string table is not terminated");
    return KILN_OK;
}

/* One entry against the previous one: its path in the string table and
 * sorted after the previous path, its payload aligned, in bounds and after
 * the previous payload (payloads are in table order, so none overlap). */
static kiln_result check_entry(const kiln_pack *pack, const kiln_pack_header *h, uint32_t i,
                               uint64_t *payload_end, kiln_error *err) {
    const kiln_pack_entry_disk *e = &pack->entries[i];
    uint64_t path_end;
    if (e->path_length == 0 || e->reserved != 0 || e->kind >= KILN_PACK_KIND_COUNT_ ||
        !checked_add_u64(e->path_offset, (uint64_t)e->path_length + 1, &path_end) ||
        path_end > h->strings_size)
        return runtime_fail(err, KILN_ERR_CORRUPT, pack->name, "entry %u: bad path or kind", i);
    const char *path = pack->strings + e->path_offset;
    if (memchr(path, '\0', e->path_length) != NULL || path[e->path_length] != '\0')
        return runtime_fail(err, KILN_ERR_CORRUPT, pack->name, "entry %u: path length is wrong", i);
    /* The kind is a function of the name (kpak.md, R4): a renamed path or a
     * changed kind would send an entry to the wrong reader. */
    if ((kiln_pack_kind)e->kind != kiln_pack_kind_of(path))
        return runtime_fail(err, KILN_ERR_CORRUPT, pack->name,
                            "entry %u (%s): kind %s does not match its name (%s)", i, path,
                            kiln_pack_kind_str((kiln_pack_kind)e->kind),
                            kiln_pack_kind_str(kiln_pack_kind_of(path)));
    if (i > 0 && strcmp(pack->strings + pack->entries[i - 1].path_offset, path) >= 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, pack->name,
                            "entry %u: paths are not sorted and unique", i);
    if (e->offset % KILN_PACK_ALIGNMENT != 0 || e->offset < *payload_end ||
        !range_inside(e->offset, e->size, pack->size))
        return runtime_fail(
            err, e->offset + e->size > pack->size ? KILN_ERR_TRUNCATED : KILN_ERR_CORRUPT,
            pack->name, "entry %u (%s): payload out of place", i, path);
    *payload_end = e->offset + e->size;
    return KILN_OK;
}

static kiln_result validate(kiln_pack *pack, kiln_error *err) {
    kiln_pack_header h;
    kiln_result result = check_header(pack, &h, err);
    if (result != KILN_OK)
        return result;
    pack->entry_count = h.entry_count;
    pack->entries = (const kiln_pack_entry_disk *)(const void *)(pack->data + h.toc_offset);
    pack->strings = (const char *)pack->data + h.strings_offset;
    uint64_t payload_end = h.payload_offset;
    for (uint32_t i = 0; i < h.entry_count && result == KILN_OK; i++)
        result = check_entry(pack, &h, i, &payload_end, err);
    if (result == KILN_OK && align_up_u64(payload_end, KILN_PACK_ALIGNMENT) != pack->size)
        result =
            runtime_fail(err, KILN_ERR_CORRUPT, pack->name, "%llu bytes after the last payload",
                         (unsigned long long)(pack->size - payload_end));
    return result == KILN_OK ? runtime_succeed(err) : result;
}

kiln_result kiln_pack_from_memory(kiln_pack *pack, const void *data, size_t size, const char *name,
                                  kiln_error *err) {
    if (pack == NULL || (data == NULL && size > 0) || ((uintptr_t)data % KILN_PACK_ALIGNMENT) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, name ? name : "<memory>",
                            "pack bytes must be non-NULL and 16-byte aligned");
    memset(pack, 0, sizeof *pack);
    pack->data = data;
    pack->size = size;
    set_name(pack, name);
    kiln_result result = validate(pack, err);
    if (result != KILN_OK)
        memset(pack, 0, sizeof *pack);
    return result;
}

kiln_result kiln_pack_open(kiln_pack *pack, const char *path, kiln_error *err) {
    if (pack == NULL || path == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "<pack>", "no pack or path given");
    memset(pack, 0, sizeof *pack);
    set_name(pack, path);
    void *mapping;
    size_t size;
    kiln_result opened = runtime_map_regular(pack->name, path, &mapping, &size, err);
    if (opened != KILN_OK)
        return opened;
    pack->data = mapping;
    pack->size = size;
    kiln_result result = validate(pack, err);
    if (result != KILN_OK) {
        munmap(mapping, size);
        memset(pack, 0, sizeof *pack);
        return result;
    }
    pack->owned_ = mapping;
    pack->owned_size_ = size;
    return KILN_OK;
}

void kiln_pack_close(kiln_pack *pack) {
    if (pack == NULL)
        return;
    if (pack->owned_ != NULL)
        munmap(pack->owned_, pack->owned_size_);
    memset(pack, 0, sizeof *pack);
}

kiln_result kiln_pack_entry(const kiln_pack *pack, uint32_t index, kiln_pack_item *item) {
    if (pack == NULL || item == NULL || index >= pack->entry_count)
        return KILN_ERR_NOT_FOUND;
    const kiln_pack_entry_disk *e = &pack->entries[index];
    *item = (kiln_pack_item){
        .path = pack->strings + e->path_offset,
        .path_length = e->path_length,
        .kind = (kiln_pack_kind)e->kind,
        .data = pack->data + e->offset,
        .size = e->size,
        .index = index,
    };
    return KILN_OK;
}

kiln_result kiln_pack_find(const kiln_pack *pack, const char *path, kiln_pack_item *item) {
    if (pack == NULL || path == NULL)
        return KILN_ERR_INVALID_ARGUMENT;
    uint32_t low = 0, high = pack->entry_count;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        int order = strcmp(pack->strings + pack->entries[mid].path_offset, path);
        if (order == 0)
            return kiln_pack_entry(pack, mid, item);
        if (order < 0)
            low = mid + 1;
        else
            high = mid;
    }
    return KILN_ERR_NOT_FOUND;
}

bool kiln_pack_next(const kiln_pack *pack, kiln_pack_kind kind, uint32_t *cursor,
                    kiln_pack_item *item) {
    if (pack == NULL || cursor == NULL)
        return false;
    for (uint32_t i = *cursor; i < pack->entry_count; i++) {
        if (pack->entries[i].kind == (uint16_t)kind) {
            *cursor = i + 1;
            return kiln_pack_entry(pack, i, item) == KILN_OK;
        }
    }
    *cursor = pack->entry_count;
    return false;
}

kiln_result kiln_pack_manifest(const kiln_pack *pack, kiln_file *file, uint32_t flags,
                               kiln_error *err) {
    kiln_pack_item item;
    if (kiln_pack_find(pack, KILN_MANIFEST_FILE_NAME, &item) != KILN_OK)
        return runtime_fail(err, KILN_ERR_NOT_FOUND, pack ? pack->name : "<pack>",
                            "no %s in the pack", KILN_MANIFEST_FILE_NAME);
    return kiln_file_from_memory(file, item.data, (size_t)item.size, KILN_MANIFEST_FILE_NAME, flags,
                                 err);
}

static bool has_suffix(const char *path, const char *suffix) {
    size_t a = strlen(path), b = strlen(suffix);
    return a >= b && memcmp(path + a - b, suffix, b) == 0;
}

kiln_pack_kind kiln_pack_kind_of(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (strcmp(name, KILN_MANIFEST_FILE_NAME) == 0)
        return KILN_PACK_MANIFEST;
    if (has_suffix(name, ".kmesh"))
        return KILN_PACK_MESH;
    if (has_suffix(name, ".kmat"))
        return KILN_PACK_MATERIAL;
    if (has_suffix(name, ".ktx2"))
        return KILN_PACK_TEXTURE;
    if (has_suffix(name, ".kscene"))
        return KILN_PACK_SCENE;
    if (has_suffix(name, ".kshader"))
        return KILN_PACK_SHADER;
    if (has_suffix(name, ".kanim"))
        return KILN_PACK_ANIM;
    return KILN_PACK_OTHER;
}

const char *kiln_pack_kind_str(kiln_pack_kind kind) {
    switch (kind) {
    case KILN_PACK_MESH:
        return "mesh";
    case KILN_PACK_MATERIAL:
        return "material";
    case KILN_PACK_TEXTURE:
        return "texture";
    case KILN_PACK_MANIFEST:
        return "manifest";
    case KILN_PACK_SCENE:
        return "scene";
    case KILN_PACK_SHADER:
        return "shader";
    case KILN_PACK_ANIM:
        return "anim";
    case KILN_PACK_OTHER:
    case KILN_PACK_KIND_COUNT_:
        break;
    }
    return "other";
}
