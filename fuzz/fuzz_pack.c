/* fuzz_pack.c — the pack reader on arbitrary bytes: the table of contents,
 * every entry (its path and payload read), lookups by path and kind, and the
 * manifest inside. */
#include "fuzz_aligned.h"
#include "kiln/kiln.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *copy = fuzz_copy(data, size);
    if (copy == NULL)
        return 0;
    kiln_pack pack;
    kiln_error err;
    if (kiln_pack_from_memory(&pack, copy, size, "fuzz", &err) == KILN_OK) {
        for (uint32_t i = 0; i < pack.entry_count; i++) {
            kiln_pack_item item;
            if (kiln_pack_entry(&pack, i, &item) != KILN_OK)
                continue;
            fuzz_touch(item.path, item.path_length);
            fuzz_touch(item.data, (size_t)item.size);
            kiln_pack_item found;
            (void)kiln_pack_find(&pack, item.path, &found);
        }
        uint32_t cursor = 0;
        kiln_pack_item item;
        while (kiln_pack_next(&pack, KILN_PACK_TEXTURE, &cursor, &item))
            fuzz_touch(item.data, (size_t)item.size);
        kiln_file manifest;
        if (kiln_pack_manifest(&pack, &manifest, 0, &err) == KILN_OK)
            kiln_file_close(&manifest);
        kiln_pack_close(&pack);
    }
    free(copy);
    return 0;
}
