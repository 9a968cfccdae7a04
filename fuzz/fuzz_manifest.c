/* fuzz_manifest.c — the container validator and the manifest view on
 * arbitrary bytes; every entry's path and ref is read, and its asset ID looked
 * up both ways. */
#include "fuzz_aligned.h"
#include "kiln/kiln.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *copy = fuzz_copy(data, size);
    if (copy == NULL)
        return 0;
    kiln_file file;
    kiln_error err;
    if (kiln_file_from_memory(&file, copy, size, "fuzz", 0, &err) == KILN_OK) {
        kiln_manifest_view view;
        if (kiln_manifest_view_get(&file, &view, &err) == KILN_OK) {
            for (uint32_t i = 0; i < view.entry_count; i++) {
                const char *path = kiln_manifest_path(&view, &view.entries[i]);
                const char *ref = kiln_manifest_ref(&view, &view.entries[i]);
                fuzz_touch(path, strlen(path));
                fuzz_touch(ref, strlen(ref));
                (void)kiln_manifest_find(&view, view.entries[i].hash);
                kiln_asset_id id;
                if (kiln_manifest_id_of(&view, &view.entries[i], &id) &&
                    kiln_manifest_find_id(&view, id) == NULL)
                    __builtin_trap(); /* R9: an entry's ID resolves */
            }
        }
        kiln_file_close(&file);
    }
    free(copy);
    return 0;
}
