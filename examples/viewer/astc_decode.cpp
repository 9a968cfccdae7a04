/*
 * astc_decode.cpp — ASTC blocks to RGBA8 or RGBA16F (astc_decode.h). C++
 * only because astcenc.h is.
 */
#include "astc_decode.h"

#include <astcenc.h>

#include <cstdio>
#include <new>

namespace {

/* Vulkan's ASTC LDR formats, from VK_FORMAT_ASTC_4x4_UNORM_BLOCK (157): each
 * block size as a UNORM then an SRGB value, in this order; the HDR ones
 * (VK_EXT_texture_compression_astc_hdr) one SFLOAT value each, in the same
 * order, from VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK. */
const uint32_t first_ldr_format = 157;
const uint32_t first_hdr_format = 1000066000;
const uint32_t rgba8_unorm = 37, rgba8_srgb = 43, rgba16_sfloat = 97;
const uint8_t block_sizes[][2] = {{4, 4}, {5, 4},  {5, 5},  {6, 5},  {6, 6},   {8, 5},   {8, 6},
                                  {8, 8}, {10, 5}, {10, 6}, {10, 8}, {10, 10}, {12, 10}, {12, 12}};
const uint32_t block_size_count = sizeof block_sizes / sizeof block_sizes[0];

bool fail(char *reason, size_t reason_size, const char *what, astcenc_error status) {
    std::snprintf(reason, reason_size, "astcenc: %s: %s", what, astcenc_get_error_string(status));
    return false;
}

} // namespace

struct astc_decoder {
    astc_format format;
    astcenc_context *context;
};

bool astc_format_of(uint32_t vk_format, astc_format *out) {
    uint32_t index;
    if (vk_format >= first_ldr_format && vk_format < first_ldr_format + 2 * block_size_count) {
        index = (vk_format - first_ldr_format) / 2;
        out->srgb = (vk_format - first_ldr_format) % 2 == 1;
        out->hdr = false;
    } else if (vk_format >= first_hdr_format && vk_format < first_hdr_format + block_size_count) {
        index = vk_format - first_hdr_format;
        out->srgb = false;
        out->hdr = true;
    } else {
        return false;
    }
    out->block_width = block_sizes[index][0];
    out->block_height = block_sizes[index][1];
    out->decoded_vk_format = out->hdr ? rgba16_sfloat : out->srgb ? rgba8_srgb : rgba8_unorm;
    out->decoded_texel_bytes = out->hdr ? 8 : 4;
    return true;
}

astc_decoder *astc_decoder_open(uint32_t vk_format, char *reason, size_t reason_size) {
    astc_format format;
    if (!astc_format_of(vk_format, &format)) {
        std::snprintf(reason, reason_size, "not an ASTC format");
        return nullptr;
    }
    astcenc_profile profile = format.hdr    ? ASTCENC_PRF_HDR
                              : format.srgb ? ASTCENC_PRF_LDR_SRGB
                                            : ASTCENC_PRF_LDR;
    astcenc_config config;
    astcenc_error status =
        astcenc_config_init(profile, format.block_width, format.block_height, 1,
                            ASTCENC_PRE_FASTEST, ASTCENC_FLG_DECOMPRESS_ONLY, &config);
    if (status != ASTCENC_SUCCESS) {
        fail(reason, reason_size, "configuration", status);
        return nullptr;
    }
    astc_decoder *decoder = new (std::nothrow) astc_decoder{format, nullptr};
    if (decoder == nullptr) {
        std::snprintf(reason, reason_size, "out of memory");
        return nullptr;
    }
    status = astcenc_context_alloc(&config, 1, &decoder->context);
    if (status != ASTCENC_SUCCESS) {
        fail(reason, reason_size, "context", status);
        delete decoder;
        return nullptr;
    }
    return decoder;
}

void astc_decoder_close(astc_decoder *decoder) {
    if (decoder == nullptr)
        return;
    astcenc_context_free(decoder->context);
    delete decoder;
}

bool astc_decode(astc_decoder *decoder, const uint8_t *blocks, size_t size, uint32_t width,
                 uint32_t height, void *out, char *reason, size_t reason_size) {
    const astc_format &f = decoder->format;
    uint64_t blocks_needed = (uint64_t)((width + f.block_width - 1) / f.block_width) *
                             ((height + f.block_height - 1) / f.block_height);
    if (size < blocks_needed * 16) {
        std::snprintf(reason, reason_size, "%zu bytes of blocks for %ux%u texels", size, width,
                      height);
        return false;
    }
    void *slices[1] = {out};
    astcenc_image image;
    image.dim_x = width;
    image.dim_y = height;
    image.dim_z = 1;
    image.data_type = f.hdr ? ASTCENC_TYPE_F16 : ASTCENC_TYPE_U8;
    image.data = slices;
    const astcenc_swizzle rgba = {ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};
    astcenc_error status = astcenc_decompress_reset(decoder->context);
    if (status == ASTCENC_SUCCESS)
        status = astcenc_decompress_image(decoder->context, blocks, (size_t)blocks_needed * 16,
                                          &image, &rgba, 0);
    if (status != ASTCENC_SUCCESS)
        return fail(reason, reason_size, "decompression", status);
    return true;
}
