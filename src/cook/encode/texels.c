/* texels.c — float texels into the uncompressed texture formats (R8, RGBA8,
 * RGBA16F and the rest of the KTX2 table without blocks), level by level. */
#include <stdlib.h>

#include "common/ktx2_format.h"
#include "cook/encode/encode.h"

/* Each texel keeps its format row's channels, 8-bit UNORM or 16-bit half
 * floats each. */
uint8_t *encode_level(const float *rgba, size_t count, uint32_t vk_format, size_t *size) {
    const ktx2_format_info *f = ktx2_format_find(vk_format);
    if (f == NULL || f->block != KTX2_BLOCK_NONE)
        return NULL;
    size_t bpp = f->block_bytes;
    uint8_t *out = malloc(count * bpp);
    if (out == NULL)
        return NULL;
    *size = count * bpp;
    for (size_t i = 0; i < count; i++) {
        const float *p = rgba + i * 4;
        for (uint32_t c = 0; c < f->channels; c++) {
            if (f->channel_bits == 8) {
                out[i * bpp + c] = image_float_to_unorm8(p[c]);
            } else {
                uint16_t h = block_float_to_half(p[c]);
                out[i * bpp + c * 2] = (uint8_t)h;
                out[i * bpp + c * 2 + 1] = (uint8_t)(h >> 8);
            }
        }
    }
    return out;
}
