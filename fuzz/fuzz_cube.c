/* fuzz_cube.c — image_parse_cube_lut on arbitrary text (.cube 3D LUTs). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    uint32_t lut_size = 0;
    float *rgb = NULL;
    char reason[256];
    if (image_parse_cube_lut(text, size, &lut_size, &rgb, reason, sizeof reason))
        fuzz_touch(rgb, (size_t)lut_size * lut_size * lut_size * 3 * sizeof *rgb);
    free(rgb);
    free(text);
    return 0;
}
