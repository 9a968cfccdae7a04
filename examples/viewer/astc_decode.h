/*
 * astc_decode.h — ASTC LDR blocks to RGBA8 on the CPU, for devices that
 * cannot sample ASTC (lavapipe, most desktop GPUs): kiln-view uploads the
 * result as an RGBA8 image instead of drawing the texture white. Decoded by
 * Debian's astcenc (libastcenc-dev), the library kiln's cooker encodes with.
 * sRGB textures give their stored (sRGB) bytes, which go into an
 * R8G8B8A8_SRGB image, so the sampler converts them as it would the blocks.
 */
#ifndef KILN_VIEW_ASTC_DECODE_H
#define KILN_VIEW_ASTC_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The block size of an ASTC LDR VkFormat (UNORM or SRGB, 4x4 to 12x12)
 * and whether it is sRGB; false for any other format. */
bool astc_ldr_format(uint32_t vk_format, uint32_t *block_width, uint32_t *block_height, bool *srgb);

/* `size` bytes of blocks covering width x height texels into `out`
 * (4 * width * height bytes, rows top to bottom); false with `reason`
 * (astcenc's message) when they cannot be decoded. */
bool astc_decode_rgba8(const uint8_t *blocks, size_t size, uint32_t width, uint32_t height,
                       uint32_t vk_format, uint8_t *out, char *reason, size_t reason_size);

#ifdef __cplusplus
}
#endif

#endif
