/*
 * uastc_tables.c — the UASTC specification's tables (uastc.h): the modes'
 * layouts, the ASTC partition seeds of the shared patterns and the BC7
 * partitions they equal (uastc_transcode.h).
 */
#include "common/uastc.h"
#include "common/uastc_transcode.h"

#include <stddef.h>

/* code, code bits, hint bits, subsets, planes, comps, endpoint ISE range,
 * weight bits, pattern bits. Modes 0-7 and 18 are opaque (RGB), 9-14 carry
 * alpha (RGBA), 15-17 are luminance-alpha; 8 is the solid colour, whose
 * "hints" are its 21 ETC1 bits. */
static const uastc_mode_desc mode_table[UASTC_MODES] = {
    {0x01, 4, 15, 1, 1, 3, 19, 4, 0}, /* 0 */
    {0x35, 6, 15, 1, 1, 3, 20, 2, 0}, /* 1 */
    {0x1D, 5, 15, 2, 1, 3, 8, 3, 5},  /* 2 */
    {0x03, 5, 15, 3, 1, 3, 7, 2, 4},  /* 3 */
    {0x13, 5, 15, 2, 1, 3, 12, 2, 5}, /* 4 */
    {0x0B, 5, 15, 1, 1, 3, 20, 3, 0}, /* 5 */
    {0x1B, 5, 15, 1, 2, 3, 18, 2, 0}, /* 6 */
    {0x07, 5, 15, 2, 1, 3, 12, 2, 5}, /* 7 */
    {0x17, 5, 21, 0, 0, 4, 0, 0, 0},  /* 8: solid */
    {0x0F, 5, 23, 2, 1, 4, 8, 2, 5},  /* 9 */
    {0x02, 3, 17, 1, 1, 4, 13, 4, 0}, /* 10 */
    {0x00, 2, 17, 1, 2, 4, 13, 2, 0}, /* 11 */
    {0x06, 3, 17, 1, 1, 4, 19, 3, 0}, /* 12 */
    {0x1F, 5, 23, 1, 2, 4, 20, 1, 0}, /* 13 */
    {0x0D, 5, 23, 1, 1, 4, 20, 2, 0}, /* 14 */
    {0x05, 7, 23, 1, 1, 2, 20, 4, 0}, /* 15 */
    {0x15, 6, 23, 2, 1, 2, 20, 2, 5}, /* 16 */
    {0x25, 6, 23, 1, 2, 2, 20, 2, 0}, /* 17 */
    {0x09, 4, 15, 1, 1, 3, 11, 5, 0}, /* 18 */
};

const uastc_mode_desc *uastc_mode_info(unsigned mode) {
    return mode < UASTC_MODES ? &mode_table[mode] : NULL;
}

/* The ASTC partition seed of each pattern the specification shares with BC7:
 * 2 subsets (the BC7 2-subset shapes), 3 subsets (BC7 3-subset shapes), and
 * mode 7's 2-subset ASTC shapes that equal a BC7 3-subset shape with two of
 * its subsets merged. */
static const uint16_t seeds2[UASTC_PATTERNS2] = {
    28, 20,  16,  29, 91,  9,   107, 72,  149, 204, 50,  114, 496, 17,  78,
    39, 252, 828, 43, 156, 116, 210, 476, 273, 684, 359, 246, 195, 694, 524,
};
static const uint16_t seeds3[UASTC_PATTERNS3] = {260, 74, 32, 156, 183, 15, 745, 0, 335, 902, 254};
static const uint16_t seeds2_7[UASTC_PATTERNS2_7] = {
    36, 48, 61, 137, 161, 183, 226, 281, 302, 307, 479, 495, 593, 594, 605, 799, 812, 988, 993,
};

unsigned uastc_pattern_seed(unsigned mode, unsigned pattern) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    if (!d || d->subsets < 2)
        return 0;
    if (d->subsets == 3)
        return pattern < UASTC_PATTERNS3 ? seeds3[pattern] : 0;
    if (mode == 7)
        return pattern < UASTC_PATTERNS2_7 ? seeds2_7[pattern] : 0;
    return pattern < UASTC_PATTERNS2 ? seeds2[pattern] : 0;
}

/* Patterns per partitioned layout (the index's bound). */
unsigned uastc_pattern_count(unsigned mode) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    if (!d || d->subsets < 2)
        return 0;
    if (d->subsets == 3)
        return UASTC_PATTERNS3;
    return mode == 7 ? UASTC_PATTERNS2_7 : UASTC_PATTERNS2;
}

/* The BC7 partition each shared pattern equals (the specification's table;
 * test_uastc checks each against the BC7 and ASTC shapes). */
static const uint8_t bc7_of2[UASTC_PATTERNS2] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                                 10, 11, 12, 13, 14, 15, 17, 18, 19, 20,
                                                 21, 22, 23, 24, 25, 26, 29, 32, 33, 52};
static const uint8_t bc7_of3[UASTC_PATTERNS3] = {4, 8, 9, 10, 11, 12, 13, 20, 35, 36, 57};
static const uint8_t bc7_of7[UASTC_PATTERNS2_7] = {10, 11, 0, 2,  8,  13, 1,  33, 40, 20,
                                                   21, 58, 3, 32, 59, 34, 20, 14, 31};

unsigned uastc_pattern_bc7(unsigned mode, unsigned pattern) {
    if (pattern >= uastc_pattern_count(mode))
        return 0;
    if (mode == 3)
        return bc7_of3[pattern];
    return mode == 7 ? bc7_of7[pattern] : bc7_of2[pattern];
}
