/* fuzz_kscene.c — the container validator and the scene view (KILN_OPEN_DEEP)
 * on arbitrary bytes; every node record, transform and string it hands out is
 * read. A scene it accepts is then updated: nodes picked by the input's bytes
 * are given new local transforms, and the dirty update (their subtree ranges
 * only) must give bit for bit the matrices of a full pass (else abort). */
#include "fuzz_aligned.h"
#include "kiln/kiln.h"

/* An instance in its own block, or false when memory runs out. */
static bool open_instance(const kiln_scene_view *view, kiln_scene_instance *instance,
                          void **memory) {
    size_t size = kiln_scene_instance_size(view);
    kiln_error err;
    return size > 0 && posix_memalign(memory, 16, size) == 0 &&
           kiln_scene_instance_init(instance, view, *memory, size, &err) == KILN_OK;
}

static void check_update(const kiln_scene_view *view, const uint8_t *data, size_t size) {
    kiln_scene_instance dirty, full;
    void *dirty_memory = NULL, *full_memory = NULL;
    if (view->node_count > 0 && open_instance(view, &dirty, &dirty_memory) &&
        open_instance(view, &full, &full_memory)) {
        for (size_t k = 0; k < size && k < 64; k++) {
            uint32_t node = data[size - 1 - k] % view->node_count;
            kiln_scene_transform t = *kiln_scene_local(&dirty, node);
            t.translation[k % 3] += 1.0f;
            kiln_scene_set_local(&dirty, node, &t, NULL);
            *kiln_scene_local(&full, node) = t;
        }
        kiln_scene_update(&dirty);
        kiln_scene_update_all(&full);
        if (memcmp(dirty.world, full.world, (size_t)view->node_count * 16 * sizeof(float)) != 0)
            abort();
    }
    free(dirty_memory);
    free(full_memory);
}

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
            check_update(&view, data, size);
        }
        kiln_file_close(&file);
    }
    free(copy);
    return 0;
}
