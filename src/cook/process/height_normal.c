/*
 * height_normal.c — a tangent-space normal map from a height map
 * (process.h): the Sobel gradient of the heights, edges clamped.
 */
#include <math.h>

#include "cook/process/process.h"

/* The height at (x, y), the coordinates clamped into the image. */
static float height_at(const ir_decoded_image *image, int64_t x, int64_t y) {
    int64_t w = image->width, h = image->height;
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
    y = y < 0 ? 0 : y >= h ? h - 1 : y;
    size_t texel = (size_t)y * image->width + (size_t)x;
    if (image->rgbaf != NULL)
        return image->rgbaf[texel * 4];
    return image->rgba8[texel * 4] / 255.0f;
}

static uint8_t to_unorm8(float value) {
    float scaled = (value * 0.5f + 0.5f) * 255.0f;
    return (uint8_t)lrintf(scaled < 0.0f ? 0.0f : scaled > 255.0f ? 255.0f : scaled);
}

void process_height_to_normal(const ir_decoded_image *height, float strength, uint8_t *rgba) {
    for (uint32_t y = 0; y < height->height; y++)
        for (uint32_t x = 0; x < height->width; x++) {
            int64_t l = (int64_t)x - 1, r = (int64_t)x + 1, u = (int64_t)y - 1, d = (int64_t)y + 1;
            float dx = (height_at(height, r, u) + 2.0f * height_at(height, r, y) +
                        height_at(height, r, d)) -
                       (height_at(height, l, u) + 2.0f * height_at(height, l, y) +
                        height_at(height, l, d));
            float dy = (height_at(height, l, d) + 2.0f * height_at(height, x, d) +
                        height_at(height, r, d)) -
                       (height_at(height, l, u) + 2.0f * height_at(height, x, u) +
                        height_at(height, r, u));
            /* dy grows down the image; +Y of the normal is up it. */
            float nx = -strength * dx / 8.0f, ny = strength * dy / 8.0f, nz = 1.0f;
            float length = sqrtf(nx * nx + ny * ny + nz * nz);
            uint8_t *out = rgba + ((size_t)y * height->width + x) * 4;
            out[0] = to_unorm8(nx / length);
            out[1] = to_unorm8(ny / length);
            out[2] = to_unorm8(nz / length);
            out[3] = 255;
        }
}
