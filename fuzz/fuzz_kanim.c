/* fuzz_kanim.c — the container validator and the clip view (KILN_OPEN_DEEP)
 * on arbitrary bytes; what it accepts is sampled: every clip at times before,
 * inside and after its keys, forward with cursors (kanim.md's sampling rules
 * must hold for any file the reader accepts), and backward through the
 * prepared sampler (kiln_anim_sampler_*). */
#include "fuzz_aligned.h"
#include "kiln/kiln.h"

/* Poses bigger than this are skipped (the view accepted them; sampling one
 * costs O(nodes) memory the harness would otherwise spend on nothing). */
#define FUZZ_MAX_POSE 65536u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *copy = fuzz_copy(data, size);
    if (copy == NULL)
        return 0;
    kiln_file file;
    kiln_error err;
    if (kiln_file_from_memory(&file, copy, size, "fuzz", 0, &err) == KILN_OK) {
        kiln_anim_view view;
        if (kiln_anim_view_get(&file, KILN_OPEN_DEEP, &view, &err) == KILN_OK &&
            view.node_count <= FUZZ_MAX_POSE && view.weight_count <= FUZZ_MAX_POSE) {
            kiln_anim_pose pose = {
                calloc(view.node_count ? view.node_count : 1, sizeof(kiln_scene_transform)),
                calloc(view.weight_count ? view.weight_count : 1, sizeof(float))};
            uint32_t *cursors =
                calloc(view.channel_count ? view.channel_count : 1, sizeof *cursors);
            for (uint32_t c = 0; pose.local && pose.weights && cursors && c < view.clip_count;
                 c++) {
                const char *name = kiln_anim_clip_name(&view, c);
                fuzz_touch(name, strlen(name));
                const kiln_anim_clip *clip = &view.clips[c];
                const float times[5] = {-1.0f, clip->start, 0.5f * (clip->start + clip->duration),
                                        clip->duration, clip->duration + 1.0f};
                memset(cursors, 0,
                       (size_t)(view.channel_count ? view.channel_count : 1) * sizeof *cursors);
                for (int t = 0; t < 5; t++)
                    if (kiln_anim_sample(&view, c, times[t], cursors, &pose, &err) != KILN_OK)
                        abort(); /* an accepted clip always samples */
                /* The prepared sampler over the same accepted clip. */
                size_t need = kiln_anim_sampler_size(&view, c);
                uint64_t *memory = need > 0 ? malloc(need) : NULL;
                kiln_anim_sampler *sampler = NULL;
                if (memory == NULL ||
                    kiln_anim_sampler_init(&view, c, memory, need, &sampler, &err) != KILN_OK)
                    abort();
                for (int t = 4; t >= 0; t--)
                    kiln_anim_sampler_sample(sampler, times[t], &pose);
                free(memory);
            }
            free(cursors);
            free(pose.local);
            free(pose.weights);
        }
        kiln_file_close(&file);
    }
    free(copy);
    return 0;
}
