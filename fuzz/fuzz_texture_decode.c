/* fuzz_texture_decode.c — a KTX2 the runtime's reader accepts, decoded to
 * RGBA8 as `kiln extract` and the build report do (inspect_texture_decode):
 * every level's first image and the last face and layer of level 0, through
 * the cooker's block decoders and astcenc on whatever block bytes the file
 * holds. Images above FUZZ_MAX_PIXELS are skipped to keep runs fast (the
 * decoder's own limit is tested by the unit tests). A decoded image must have
 * the level's size. */
#include <stdio.h>
#include <stdlib.h>

#include "cook/cook.h"
#include "fuzz_aligned.h"

#define FUZZ_MAX_PIXELS (1u << 18)

static void decode(const kiln_ktx2_view *view, uint32_t level, uint32_t layer, uint32_t face) {
    uint32_t width, height, depth;
    kiln_ktx2_level_extent(view, level, &width, &height, &depth);
    if ((uint64_t)width * height * depth > FUZZ_MAX_PIXELS)
        return;
    inspect_texture_image which = {.level = level, .layer = layer, .face = face};
    inspect_rgba8_image image;
    char reason[512];
    if (!inspect_texture_decode(view, &which, &image, reason, sizeof reason))
        return;
    if (image.width != width || image.height != height * depth) {
        fprintf(stderr, "level %u decoded to %ux%u, not %ux%u\n", level, image.width, image.height,
                width, height * depth);
        abort();
    }
    fuzz_touch(image.rgba, (size_t)image.width * image.height * 4);
    inspect_rgba8_image_free(&image);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *copy = fuzz_copy(data, size);
    if (copy == NULL)
        return 0;
    kiln_ktx2_view view;
    kiln_error err;
    if (kiln_ktx2_view_get(&view, copy, size, "fuzz", &err) == KILN_OK) {
        for (uint32_t level = 0; level < view.levels; level++)
            decode(&view, level, 0, 0);
        uint32_t layers = view.layers > 0 ? view.layers : 1;
        decode(&view, 0, layers - 1, view.faces - 1);
        decode(&view, view.levels, 0, 0); /* out of range: refused */
    }
    free(copy);
    return 0;
}
