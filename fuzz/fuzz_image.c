/* fuzz_image.c — image_decode_in_process on arbitrary bytes: PNG, JPEG, TGA, BMP, HDR
 * and the rest it recognises by content. The limits are lowered (4096 x 4096,
 * 4 Mi pixels) so an image that claims to be huge is refused before it is
 * allocated, as the decompression-bomb guard must do at any limit. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    image_limits limits = {.max_dimension = 4096, .max_pixels = (uint64_t)4 << 20};
    ir_decoded_image image = {0};
    char reason[256];
    if (image_decode_in_process(data, size, "fuzz", &limits, &image, reason, sizeof reason)) {
        if (image.rgba8 != NULL)
            fuzz_touch(image.rgba8, (size_t)image.width * image.height * 4);
        ir_decoded_image_free(&image);
    }
    return 0;
}
