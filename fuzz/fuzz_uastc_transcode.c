/* fuzz_uastc_transcode.c — UASTC into ETC1, ETC2 RGBA8, BC1 and BC3
 * (common/uastc_transcode_etc.h) on arbitrary bytes, 16 at a time, hint bits
 * included: each transcoder refuses exactly the blocks uastc_unpack refuses
 * and then leaves its output untouched; what it writes stays in the format's
 * safe subset (ETC1 differential colours within 0..31, so ETC2 decoders
 * read ETC1; BC1 in its 4-colour mode, so no opaque texel turns
 * transparent); and the hint field reads back to the same bits. Anything
 * else aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/uastc_transcode_etc.h"

static void check(bool ok, const char *what, size_t at) {
    if (!ok) {
        fprintf(stderr, "block at %zu: %s\n", at, what);
        abort();
    }
}

/* A differential ETC1 block whose second colour leaves 0..31 is an ETC2
 * T, H or planar block instead. */
static bool etc1_subset(const uint8_t etc[8]) {
    if (!(etc[3] & 2u))
        return true;
    for (int c = 0; c < 3; c++) {
        int base = etc[c] >> 3, delta = etc[c] & 7;
        delta = delta >= 4 ? delta - 8 : delta;
        if (base + delta < 0 || base + delta > 31)
            return false;
    }
    return true;
}

static bool bc1_four_colour(const uint8_t bc1[8]) {
    unsigned c0 = bc1[0] | bc1[1] << 8, c1 = bc1[2] | bc1[3] << 8;
    uint32_t selectors =
        (uint32_t)bc1[4] | (uint32_t)bc1[5] << 8 | (uint32_t)bc1[6] << 16 | (uint32_t)bc1[7] << 24;
    return c0 > c1 || (c0 == c1 && selectors == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (size_t at = 0; at + UASTC_BLOCK_BYTES <= size; at += UASTC_BLOCK_BYTES) {
        const uint8_t *block = data + at;
        uastc_logical logical;
        uastc_status valid = uastc_unpack(block, &logical);
        bool srgb = (block[15] & 1u) != 0;
        uint8_t etc1[8], etc2[16], bc1[8], bc3[16];
        memset(etc1, 0xA5, sizeof etc1);
        memset(etc2, 0xA5, sizeof etc2);
        memset(bc1, 0xA5, sizeof bc1);
        memset(bc3, 0xA5, sizeof bc3);
        check(uastc_block_to_etc1(block, srgb, etc1) == valid, "ETC1 status", at);
        check(uastc_block_to_etc2_rgba8(block, srgb, etc2) == valid, "ETC2 status", at);
        check(uastc_block_to_bc1(block, srgb, bc1) == valid, "BC1 status", at);
        check(uastc_block_to_bc3(block, srgb, bc3) == valid, "BC3 status", at);
        if (valid != UASTC_OK) {
            uint8_t untouched[16];
            memset(untouched, 0xA5, sizeof untouched);
            check(memcmp(etc1, untouched, 8) == 0 && memcmp(etc2, untouched, 16) == 0 &&
                      memcmp(bc1, untouched, 8) == 0 && memcmp(bc3, untouched, 16) == 0,
                  "output written for an invalid block", at);
            continue;
        }
        check(etc1_subset(etc1), "ETC1 block outside ETC1", at);
        check(etc1_subset(etc2 + 8), "ETC2 colour outside ETC1", at);
        check(memcmp(etc1, etc2 + 8, 8) == 0, "ETC1 and ETC2 colour differ", at);
        check(bc1_four_colour(bc1) && bc1_four_colour(bc3 + 8), "BC1 not in 4-colour mode", at);
        check(memcmp(bc1, bc3 + 8, 8) == 0, "BC1 and BC3 colour differ", at);
        uastc_hints h;
        uastc_hints_read(logical.mode, logical.hints, &h);
        check(uastc_hints_write(logical.mode, &h) == logical.hints, "hints do not read back", at);
    }
    return 0;
}
