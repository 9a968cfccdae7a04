/*
 * uastc.c — UASTC levels decoded at load time (kiln_uastc_decode_rgba8): the
 * shared block decoder (common/uastc.h) over a level's rows of blocks, into
 * the caller's buffer, with every size checked first.
 */
#include <string.h>

#include "common/checked.h"
#include "common/uastc.h"
#include "runtime/internal.h"

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
