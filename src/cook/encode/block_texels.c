/*
 * block_texels.c — a 4x4 block's texels out of a whole image (encode.h),
 * edge texels repeated past the right and bottom edges: what block.c encodes
 * and uastc_rdo.c measures against.
 */
#include <string.h>

#include "cook/encode/encode.h"

size_t block_texel_index(const block_image_desc *d, uint32_t bx, uint32_t by, uint32_t x,
                         uint32_t y) {
    uint32_t px = bx * 4 + x, py = by * 4 + y;
    if (px >= d->width)
        px = d->width - 1;
    if (py >= d->height)
        py = d->height - 1;
    return (size_t)py * d->width + px;
}

void block_gather_rgba8(const block_image_desc *d, uint32_t bx, uint32_t by, uint8_t rgba[64]) {
    for (uint32_t i = 0; i < 16; i++)
        memcpy(rgba + i * 4, d->rgba8 + block_texel_index(d, bx, by, i % 4, i / 4) * 4, 4);
}
