/* fuzz_kscene.c — the container validator and the scene view (KILN_OPEN_DEEP)
 * on arbitrary bytes; every node record, transform and string it hands out is
 * read. A scene it accepts is then updated: nodes picked by the input's bytes
 * are given new local transforms, and the dirty update (their subtree ranges
 * only) and the same changes handed to kiln_scene_update_with (as picked, or
 * in node order: its own path) must give bit for bit the matrices of a full
 * pass (else abort). Every skin's matrices are then read. */
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

#define CHANGES 64

/* Sorts the batch by node, keeping a node's changes in their order (the last
 * one stays): insertion sort of at most CHANGES. */
static void sort_batch(uint32_t *nodes, kiln_scene_transform *locals, size_t count) {
    for (size_t i = 1; i < count; i++)
        for (size_t j = i; j > 0 && nodes[j - 1] > nodes[j]; j--) {
            uint32_t n = nodes[j];
            nodes[j] = nodes[j - 1];
            nodes[j - 1] = n;
            kiln_scene_transform t = locals[j];
            locals[j] = locals[j - 1];
            locals[j - 1] = t;
        }
}

static void check_skins(const kiln_scene_view *view, const kiln_scene_instance *instance) {
    for (uint32_t s = 0; s < view->skin_count; s++) {
        uint32_t joints = 0;
        kiln_scene_skin_joints(view, s, &joints);
        float *out = malloc(((size_t)joints + 1) * 16 * sizeof *out);
        kiln_error err;
        if (out != NULL &&
            kiln_scene_skin_matrices(view, instance, s, out, joints, &err) == KILN_OK)
            fuzz_touch(out, (size_t)joints * 16 * sizeof *out);
        free(out);
    }
}

static void check_update(const kiln_scene_view *view, const uint8_t *data, size_t size) {
    kiln_scene_instance dirty, full, batched;
    void *dirty_memory = NULL, *full_memory = NULL, *batched_memory = NULL;
    if (view->node_count > 0 && open_instance(view, &dirty, &dirty_memory) &&
        open_instance(view, &full, &full_memory) &&
        open_instance(view, &batched, &batched_memory)) {
        uint32_t nodes[CHANGES];
        kiln_scene_transform locals[CHANGES];
        size_t count = 0;
        for (size_t k = 0; k < size && k < CHANGES; k++) {
            uint32_t node = data[size - 1 - k] % view->node_count;
            kiln_scene_transform t = *kiln_scene_local(&dirty, node);
            t.translation[k % 3] += 1.0f;
            kiln_scene_set_local(&dirty, node, &t, NULL);
            *kiln_scene_local(&full, node) = t;
            nodes[count] = node;
            locals[count++] = t;
        }
        if (size > 0 && (data[0] & 1))
            sort_batch(nodes, locals, count);
        kiln_error err;
        if (kiln_scene_update_with(&batched, nodes, locals, (uint32_t)count, NULL, &err) != KILN_OK)
            abort();
        kiln_scene_update(&dirty);
        kiln_scene_update_all(&full);
        size_t bytes = (size_t)view->node_count * 16 * sizeof(float);
        if (memcmp(dirty.world, full.world, bytes) != 0 ||
            memcmp(batched.world, full.world, bytes) != 0)
            abort();
        check_skins(view, &full);
    }
    free(dirty_memory);
    free(full_memory);
    free(batched_memory);
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
