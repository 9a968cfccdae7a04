/* fuzz_uastc.c — the UASTC block core on arbitrary bytes, 16 at a time:
 * unpack either refuses a block or yields one that packs back to the same
 * bytes (anything else aborts), and every accepted block decodes, UNORM8
 * and sRGB, and transcodes to BC7 and ASTC 4×4. Then libkiln's
 * kiln_uastc_decode_rgba8 and kiln_uastc_transcode to every target this
 * build has on the bytes after the first as a level whose width is the
 * first byte (1..256) and whose height is what the blocks allow (one more
 * row: a short buffer each must refuse). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/uastc.h"
#include "common/uastc_transcode.h"
#include "kiln/kiln.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (size_t at = 0; at + UASTC_BLOCK_BYTES <= size; at += UASTC_BLOCK_BYTES) {
        uastc_logical block;
        if (uastc_unpack(data + at, &block) != UASTC_OK)
            continue;
        uint8_t again[UASTC_BLOCK_BYTES], rgba[64];
        if (uastc_pack(&block, again) != UASTC_OK || memcmp(again, data + at, sizeof again) != 0) {
            fprintf(stderr, "block at %zu (mode %u) does not pack back to its bytes\n", at,
                    block.mode);
            abort();
        }
        uastc_decode_logical(&block, false, rgba);
        uastc_decode_logical(&block, true, rgba);
        uastc_logical_to_bc7(&block, again);
        uastc_logical_to_astc(&block, again);
    }
    if (size < 1 + UASTC_BLOCK_BYTES)
        return 0;
    uint32_t width = (uint32_t)data[0] + 1, blocks_x = (width + 3) / 4;
    size_t rows = (size - 1) / UASTC_BLOCK_BYTES / blocks_x;
    uint32_t height = (uint32_t)(rows * 4 + (data[0] & 1 ? 4 : 0)); /* odd: one row too many */
    if (height == 0 || height > 4096)
        return 0;
    size_t dst_size = (size_t)width * height * 4;
    uint8_t *dst = malloc(dst_size);
    if (dst == NULL)
        return 0;
    kiln_error err;
    kiln_result r = kiln_uastc_decode_rgba8(data + 1, size - 1, width, height, data[0] & 2, dst,
                                            dst_size, "fuzz", &err);
    if (r == KILN_OK && (data[0] & 1)) {
        fprintf(stderr, "a level one block row short was accepted\n");
        abort();
    }
    /* Every target (the numbers past the last are reserved): refused as
     * unsupported, or transcoded into a buffer of exactly its size. */
    for (int target = 0; target < 8; target++) {
        size_t out_size = kiln_uastc_transcoded_size((kiln_transcode_target)target, width, height);
        if (out_size == 0 || out_size > dst_size)
            continue;
        r = kiln_uastc_transcode(data + 1, size - 1, width, height, data[0] & 2,
                                 (kiln_transcode_target)target, dst, out_size, "fuzz", &err);
        if (r == KILN_OK && (data[0] & 1)) {
            fprintf(stderr, "target %d: a level one block row short was accepted\n", target);
            abort();
        }
    }
    free(dst);
    return 0;
}
