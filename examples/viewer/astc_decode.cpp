/*
 * astc_decode.cpp — ASTC LDR blocks to RGBA8 (astc_decode.h). C++ only
 * because astcenc.h is.
 */
#include "astc_decode.h"

#include <astcenc.h>

#include <cstdio>

namespace {

/* Vulkan's ASTC LDR formats, from VK_FORMAT_ASTC_4x4_UNORM_BLOCK (157): each
 * block size as a UNORM then an SRGB value, in this order. */
const uint32_t first_astc_format = 157;
const uint8_t block_sizes[][2] = {{4, 4}, {5, 4},  {5, 5},  {6, 5},  {6, 6},   {8, 5},   {8, 6},
                                  {8, 8}, {10, 5}, {10, 6}, {10, 8}, {10, 10}, {12, 10}, {12, 12}};
const uint32_t block_size_count = sizeof block_sizes / sizeof block_sizes[0];

bool fail(char *reason, size_t reason_size, const char *what, astcenc_error status) {
    std::snprintf(reason, reason_size, "astcenc: %s: %s", what, astcenc_get_error_string(status));
    return false;
}

} // namespace

bool astc_ldr_format(uint32_t vk_format, uint32_t *block_width, uint32_t *block_height,
                     bool *srgb) {
    if (vk_format < first_astc_format || vk_format >= first_astc_format + 2 * block_size_count)
        return false;
    uint32_t index = (vk_format - first_astc_format) / 2;
    *block_width = block_sizes[index][0];
    *block_height = block_sizes[index][1];
    *srgb = (vk_format - first_astc_format) % 2 == 1;
    return true;
}

bool astc_decode_rgba8(const uint8_t *blocks, size_t size, uint32_t width, uint32_t height,
                       uint32_t vk_format, uint8_t *out, char *reason, size_t reason_size) {
    uint32_t block_width, block_height;
    bool srgb;
    if (!astc_ldr_format(vk_format, &block_width, &block_height, &srgb)) {
        std::snprintf(reason, reason_size, "not an ASTC LDR format");
        return false;
    }
    uint64_t blocks_needed = (uint64_t)((width + block_width - 1) / block_width) *
                             ((height + block_height - 1) / block_height);
    if (size < blocks_needed * 16) {
        std::snprintf(reason, reason_size, "%zu bytes of blocks for %ux%u texels", size, width,
                      height);
        return false;
    }
    astcenc_config config;
    astcenc_error status = astcenc_config_init(srgb ? ASTCENC_PRF_LDR_SRGB : ASTCENC_PRF_LDR,
                                               block_width, block_height, 1, ASTCENC_PRE_FASTEST,
                                               ASTCENC_FLG_DECOMPRESS_ONLY, &config);
    if (status != ASTCENC_SUCCESS)
        return fail(reason, reason_size, "configuration", status);
    astcenc_context *context = nullptr;
    status = astcenc_context_alloc(&config, 1, &context);
    if (status != ASTCENC_SUCCESS)
        return fail(reason, reason_size, "context", status);
    void *slices[1] = {out};
    astcenc_image image;
    image.dim_x = width;
    image.dim_y = height;
    image.dim_z = 1;
    image.data_type = ASTCENC_TYPE_U8;
    image.data = slices;
    const astcenc_swizzle rgba = {ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};
    status =
        astcenc_decompress_image(context, blocks, (size_t)blocks_needed * 16, &image, &rgba, 0);
    astcenc_context_free(context);
    if (status != ASTCENC_SUCCESS)
        return fail(reason, reason_size, "decompression", status);
    return true;
}
