/* etc_decode.c — see etc_decode.h. The block is one big-endian 64-bit word;
 * texel (x, y) is pixel x * 4 + y. */
#include "cook/inspect/etc_decode.h"

#include <stdio.h>
#include <string.h>

static uint64_t big_endian64(const uint8_t in[8]) {
    uint64_t w = 0;
    for (int i = 0; i < 8; i++)
        w = w << 8 | in[i];
    return w;
}

static int clamp_byte(int v) {
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* The specification's intensity modifier table: per codeword, the values of
 * pixel indices 0..3 (0: +a, 1: +b, 2: -a, 3: -b). */
static const int modifiers[8][4] = {
    {2, 8, -2, -8},     {5, 17, -5, -17},   {9, 29, -9, -29},     {13, 42, -13, -42},
    {18, 60, -18, -60}, {24, 80, -24, -80}, {33, 106, -33, -106}, {47, 183, -47, -183},
};

bool etc1_decode_block(const uint8_t in[8], uint8_t rgba[64]) {
    uint64_t w = big_endian64(in);
    bool diff = (w >> 33) & 1u, flip = (w >> 32) & 1u;
    unsigned codeword[2] = {(unsigned)(w >> 37) & 7u, (unsigned)(w >> 34) & 7u};
    int base[2][3];
    for (int c = 0; c < 3; c++) {
        unsigned shift = 59u - 8u * (unsigned)c; /* R at bit 59 (or 60), G 51, B 43 */
        if (diff) {
            int v = (int)((w >> shift) & 31u);
            int d = (int)((w >> (shift - 3)) & 7u);
            d = d >= 4 ? d - 8 : d;
            if (v + d < 0 || v + d > 31)
                return false;
            base[0][c] = (v << 3) | (v >> 2);
            base[1][c] = ((v + d) << 3) | ((v + d) >> 2);
        } else {
            base[0][c] = (int)((w >> (shift + 1)) & 15u) * 17;
            base[1][c] = (int)((w >> (shift - 3)) & 15u) * 17;
        }
    }
    for (unsigned y = 0; y < 4; y++)
        for (unsigned x = 0; x < 4; x++) {
            unsigned p = x * 4 + y;
            unsigned index = (unsigned)((w >> (16 + p)) & 1u) << 1 | (unsigned)((w >> p) & 1u);
            unsigned sub = flip ? (y >= 2) : (x >= 2);
            uint8_t *texel = rgba + 4 * (y * 4 + x);
            for (int c = 0; c < 3; c++)
                texel[c] = (uint8_t)clamp_byte(base[sub][c] + modifiers[codeword[sub]][index]);
            texel[3] = 255;
        }
    return true;
}

/* The specification's EAC modifier tables. */
static const int eac[16][8] = {
    {-3, -6, -9, -15, 2, 5, 8, 14}, {-3, -7, -10, -13, 2, 6, 9, 12}, {-2, -5, -8, -13, 1, 4, 7, 12},
    {-2, -4, -6, -13, 1, 3, 5, 12}, {-3, -6, -8, -12, 2, 5, 7, 11},  {-3, -7, -9, -11, 2, 6, 8, 10},
    {-4, -7, -8, -11, 3, 6, 7, 10}, {-3, -5, -8, -11, 2, 4, 7, 10},  {-2, -6, -8, -10, 1, 5, 7, 9},
    {-2, -5, -8, -10, 1, 4, 7, 9},  {-2, -4, -8, -10, 1, 3, 7, 9},   {-2, -5, -7, -10, 1, 4, 6, 9},
    {-3, -4, -7, -10, 2, 3, 6, 9},  {-1, -2, -3, -10, 0, 1, 2, 9},   {-4, -6, -8, -9, 3, 5, 7, 8},
    {-3, -5, -7, -9, 2, 4, 6, 8},
};

void eac_decode_block(const uint8_t in[8], uint8_t rgba[64]) {
    uint64_t w = big_endian64(in);
    int base = (int)(w >> 56), multiplier = (int)(w >> 52) & 15, table = (int)(w >> 48) & 15;
    for (unsigned y = 0; y < 4; y++)
        for (unsigned x = 0; x < 4; x++) {
            unsigned p = x * 4 + y;
            unsigned index = (unsigned)(w >> (45 - 3 * p)) & 7u;
            rgba[4 * (y * 4 + x) + 3] = (uint8_t)clamp_byte(base + eac[table][index] * multiplier);
        }
}

bool etc_decode_image(const uint8_t *blocks, uint32_t width, uint32_t height, bool eac_alpha,
                      uint8_t *out, char *reason, size_t reason_size) {
    uint32_t blocks_x = (width + 3) / 4, blocks_y = (height + 3) / 4;
    size_t block_bytes = eac_alpha ? 16 : 8;
    for (uint32_t by = 0; by < blocks_y; by++)
        for (uint32_t bx = 0; bx < blocks_x; bx++) {
            const uint8_t *block = blocks + ((size_t)by * blocks_x + bx) * block_bytes;
            uint8_t rgba[64];
            /* ETC2 RGBA8: the EAC alpha half first, then the colour half. */
            if (!etc1_decode_block(eac_alpha ? block + 8 : block, rgba)) {
                snprintf(reason, reason_size,
                         "block (%u, %u) is an ETC2 T, H or planar block, which kiln does not "
                         "decode",
                         bx, by);
                return false;
            }
            if (eac_alpha)
                eac_decode_block(block, rgba);
            for (uint32_t y = 0; y < 4 && by * 4 + y < height; y++)
                for (uint32_t x = 0; x < 4 && bx * 4 + x < width; x++)
                    memcpy(out + ((size_t)(by * 4 + y) * width + bx * 4 + x) * 4,
                           rgba + (y * 4 + x) * 4, 4);
        }
    return true;
}
