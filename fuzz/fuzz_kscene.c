/* fuzz_kscene.c — the container validator and the scene view (KILN_OPEN_DEEP)
 * on arbitrary bytes; every node record, transform and string it hands out is
 * read. */
#include "fuzz_aligned.h"
#include "kiln/kiln.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *copy = fuzz_copy(data, size);
    if (copy == NULL)
        return 0;
    kiln_file file;
    kiln_error err;
    if (kiln_file_from_memory(&file, copy, size, "fuzz", 0, &err) == KILN_OK) {
        kiln_scene_view view;
        if (kiln_scene_view_get(&file, KILN_OPEN_DEEP, &view, &err) == KILN_OK) {
            for (uint32_t i = 0; i < view.node_count; i++) {
                const char *name = kiln_scene_node_name(&view, i);
                if (name != NULL)
                    fuzz_touch(name, strlen(name));
            }
        }
        kiln_file_close(&file);
    }
    free(copy);
    return 0;
}
