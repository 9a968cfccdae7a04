/*
 * astc_decode.h — ASTC blocks decoded on the CPU, for devices that cannot
 * sample ASTC (lavapipe, most desktop GPUs): kiln-view uploads the result
 * instead of drawing the texture white. Decoded by Debian's astcenc
 * (libastcenc-dev), the library kiln's cooker encodes with. LDR blocks
 * become RGBA8 (sRGB textures keep their stored sRGB bytes, which go into an
 * R8G8B8A8_SRGB image, so the sampler converts them as it would the blocks);
 * HDR blocks (astcenc's HDR profile) become RGBA16F.
 */
#ifndef KILN_VIEW_ASTC_DECODE_H
#define KILN_VIEW_ASTC_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An ASTC VkFormat (LDR UNORM or SRGB, or HDR SFLOAT; 4x4 to 12x12). */
typedef struct astc_format {
    uint32_t block_width, block_height;
    bool srgb, hdr;
    uint32_t decoded_vk_format;   /* R8G8B8A8_SRGB / _UNORM, or R16G16B16A16_SFLOAT */
    uint32_t decoded_texel_bytes; /* 4, or 8 */
} astc_format;

/* Describes `vk_format`; false for any format but ASTC's 2D ones. */
bool astc_format_of(uint32_t vk_format, astc_format *out);

/* One decoder for every image of a texture. */
typedef struct astc_decoder astc_decoder;

/* A decoder for `vk_format`'s blocks; NULL with `reason` when it cannot be made. */
astc_decoder *astc_decoder_open(uint32_t vk_format, char *reason, size_t reason_size);
void astc_decoder_close(astc_decoder *decoder);

/* `size` bytes of blocks covering width x height texels into `out`
 * (decoded_texel_bytes * width * height bytes, rows top to bottom); false
 * with `reason` (astcenc's message) when they cannot be decoded. */
bool astc_decode(astc_decoder *decoder, const uint8_t *blocks, size_t size, uint32_t width,
                 uint32_t height, void *out, char *reason, size_t reason_size);

#ifdef __cplusplus
}
#endif

#endif
