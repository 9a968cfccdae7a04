/* fuzz_uastc.c — the UASTC block core on arbitrary bytes, 16 at a time:
 * unpack either refuses a block or yields one that packs back to the same
 * bytes (anything else aborts), and every accepted block decodes, UNORM8
 * and sRGB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/uastc.h"

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
    }
    return 0;
}
