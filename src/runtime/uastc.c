/*
 * uastc.c — UASTC levels decoded or transcoded at load time
 * (kiln_uastc_decode_rgba8, kiln_uastc_transcode): the shared block code
 * (common/uastc.h, common/uastc_transcode.h) over a level's rows of blocks,
 * into the caller's buffer, with every size checked first. Every target is
 * one row of `targets`.
 */
#include <string.h>

#include "common/checked.h"
#include "common/ktx2_format.h"
#include "common/uastc.h"
#include "common/uastc_transcode.h"
#include "common/uastc_transcode_etc.h"
#include "runtime/internal.h"

/* One transcode target: its output block, the VkFormats it uploads as and
 * the block function (NULL: texels, through kiln_uastc_decode_rgba8). */
typedef struct transcode_row {
    kiln_transcode_target target;
    const char *name;
    uint32_t block_bytes; /* per 4x4 block; 0 for texels */
    uint32_t vk_unorm, vk_srgb;
    uastc_status (*block)(const uint8_t in[UASTC_BLOCK_BYTES], bool srgb, uint8_t *out);
} transcode_row;

/* BC7 and ASTC are the same blocks in either colour space. */
static uastc_status to_bc7(const uint8_t in[UASTC_BLOCK_BYTES], bool srgb, uint8_t *out) {
    (void)srgb;
    return uastc_to_bc7(in, out);
}

static uastc_status to_astc(const uint8_t in[UASTC_BLOCK_BYTES], bool srgb, uint8_t *out) {
    (void)srgb;
    return uastc_to_astc(in, out);
}

static const transcode_row targets[] = {
    {KILN_TRANSCODE_RGBA8, "RGBA8", 0, KTX2_VK_FORMAT_R8G8B8A8_UNORM, KTX2_VK_FORMAT_R8G8B8A8_SRGB,
     NULL},
    {KILN_TRANSCODE_BC7, "BC7", 16, KTX2_VK_FORMAT_BC7_UNORM, KTX2_VK_FORMAT_BC7_SRGB, to_bc7},
    {KILN_TRANSCODE_ASTC_4X4, "ASTC 4x4", 16, KTX2_VK_FORMAT_ASTC_4x4_UNORM,
     KTX2_VK_FORMAT_ASTC_4x4_SRGB, to_astc},
    {KILN_TRANSCODE_ETC1_RGB, "ETC1 RGB", 8, KTX2_VK_FORMAT_ETC2_R8G8B8_UNORM,
     KTX2_VK_FORMAT_ETC2_R8G8B8_SRGB, uastc_block_to_etc1},
    {KILN_TRANSCODE_ETC2_RGBA8, "ETC2 RGBA8", 16, KTX2_VK_FORMAT_ETC2_R8G8B8A8_UNORM,
     KTX2_VK_FORMAT_ETC2_R8G8B8A8_SRGB, uastc_block_to_etc2_rgba8},
    {KILN_TRANSCODE_BC1, "BC1", 8, KTX2_VK_FORMAT_BC1_RGB_UNORM, KTX2_VK_FORMAT_BC1_RGB_SRGB,
     uastc_block_to_bc1},
    {KILN_TRANSCODE_BC3, "BC3", 16, KTX2_VK_FORMAT_BC3_UNORM, KTX2_VK_FORMAT_BC3_SRGB,
     uastc_block_to_bc3},
};

static const transcode_row *find_target(kiln_transcode_target target) {
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (targets[i].target == target)
            return &targets[i];
    return NULL;
}

kiln_result kiln_uastc_decode_rgba8(const void *blocks, size_t blocks_size, uint32_t width,
                                    uint32_t height, bool srgb, void *dst, size_t dst_size,
                                    const char *name, kiln_error *err) {
    name = name != NULL ? name : "<memory>";
    if (blocks == NULL || dst == NULL || width == 0 || height == 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, name, "UASTC: invalid argument");
    size_t blocks_x = ((size_t)width + 3) / 4, blocks_y = ((size_t)height + 3) / 4;
    size_t block_count, need_blocks, texels, need_dst;
    if (!checked_mul_size(blocks_x, blocks_y, &block_count) ||
        !checked_mul_size(block_count, UASTC_BLOCK_BYTES, &need_blocks) ||
        !checked_mul_size(width, height, &texels) || !checked_mul_size(texels, 4, &need_dst))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, name, "UASTC: %ux%u is too large",
                            width, height);
    if (blocks_size < need_blocks)
        return runtime_fail(err, KILN_ERR_TRUNCATED, name,
                            "UASTC: %ux%u needs %zu bytes of blocks, got %zu", width, height,
                            need_blocks, blocks_size);
    if (dst_size < need_dst)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, name,
                            "UASTC: %ux%u RGBA8 needs %zu bytes, the buffer has %zu", width, height,
                            need_dst, dst_size);
    const uint8_t *in = blocks;
    uint8_t *out = dst;
    for (size_t by = 0; by < blocks_y; by++) {
        for (size_t bx = 0; bx < blocks_x; bx++) {
            uint8_t texels4x4[64];
            uastc_status status =
                uastc_decode(in + (by * blocks_x + bx) * UASTC_BLOCK_BYTES, srgb, texels4x4);
            if (status != UASTC_OK)
                return runtime_fail(err, KILN_ERR_CORRUPT, name, "UASTC: block (%zu, %zu): %s", bx,
                                    by, uastc_status_text(status));
            /* Partial blocks at the right and bottom edges keep their image part. */
            size_t columns = width - bx * 4 < 4 ? width - bx * 4 : 4;
            for (size_t y = 0; y < 4 && by * 4 + y < height; y++)
                memcpy(out + ((by * 4 + y) * width + bx * 4) * 4, texels4x4 + y * 16, columns * 4);
        }
    }
    return runtime_succeed(err);
}

size_t kiln_uastc_transcoded_size(kiln_transcode_target target, uint32_t width, uint32_t height) {
    const transcode_row *row = find_target(target);
    size_t blocks, size;
    if (row == NULL || width == 0 || height == 0)
        return 0;
    if (row->block_bytes == 0)
        return checked_mul_size(width, height, &size) && checked_mul_size(size, 4, &size) ? size
                                                                                          : 0;
    size_t blocks_x = ((size_t)width + 3) / 4, blocks_y = ((size_t)height + 3) / 4;
    if (!checked_mul_size(blocks_x, blocks_y, &blocks) ||
        !checked_mul_size(blocks, row->block_bytes, &size))
        return 0;
    return size;
}

uint32_t kiln_uastc_transcode_vk_format(kiln_transcode_target target, bool srgb) {
    const transcode_row *row = find_target(target);
    return row == NULL ? 0 : srgb ? row->vk_srgb : row->vk_unorm;
}

kiln_result kiln_uastc_transcode(const void *blocks, size_t blocks_size, uint32_t width,
                                 uint32_t height, bool srgb, kiln_transcode_target target,
                                 void *dst, size_t dst_size, const char *name, kiln_error *err) {
    name = name != NULL ? name : "<memory>";
    const transcode_row *row = find_target(target);
    if (row == NULL)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "UASTC: transcode target %d is not supported by this build",
                            (int)target);
    if (row->block == NULL)
        return kiln_uastc_decode_rgba8(blocks, blocks_size, width, height, srgb, dst, dst_size,
                                       name, err);
    if (blocks == NULL || dst == NULL || width == 0 || height == 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, name, "UASTC: invalid argument");
    size_t need_dst = kiln_uastc_transcoded_size(target, width, height);
    size_t block_count = need_dst / row->block_bytes, need_blocks;
    if (need_dst == 0 || !checked_mul_size(block_count, UASTC_BLOCK_BYTES, &need_blocks))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, name, "UASTC: %ux%u is too large",
                            width, height);
    if (blocks_size < need_blocks)
        return runtime_fail(err, KILN_ERR_TRUNCATED, name,
                            "UASTC: %ux%u needs %zu bytes of blocks, got %zu", width, height,
                            need_blocks, blocks_size);
    if (dst_size < need_dst)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, name,
                            "UASTC: %ux%u as %s needs %zu bytes, the buffer has %zu", width, height,
                            row->name, need_dst, dst_size);
    const uint8_t *in = blocks;
    uint8_t *out = dst;
    size_t blocks_x = ((size_t)width + 3) / 4;
    for (size_t i = 0; i < block_count; i++) {
        /* A copy first: in place (dst == blocks), an 8-byte block overwrites
         * the front of the UASTC block it comes from. */
        uint8_t block[UASTC_BLOCK_BYTES];
        memcpy(block, in + i * UASTC_BLOCK_BYTES, sizeof block);
        uastc_status status = row->block(block, srgb, out + i * row->block_bytes);
        if (status != UASTC_OK)
            return runtime_fail(err, KILN_ERR_CORRUPT, name, "UASTC: block (%zu, %zu): %s",
                                i % blocks_x, i / blocks_x, uastc_status_text(status));
    }
    return runtime_succeed(err);
}
