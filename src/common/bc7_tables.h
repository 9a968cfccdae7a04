/*
 * bc7_tables.h — the constant tables of the BC7 (BPTC UNORM) format, typed
 * from the specification (ARB_texture_compression_bptc, Appendix: Table.M,
 * Table.P2, Table.P3, Table.A2, Table.A3a, Table.A3b; the same tables as the
 * Khronos Data Format Specification's BC7 chapter and Microsoft's BC7 docs).
 * Shared by the cooker's BC7 encoder and decoder, the runtime's UASTC → BC7
 * transcoder (uastc_transcode.h) and the table self-checks in the tests.
 * libc only.
 */
#ifndef KILN_COMMON_BC7_TABLES_H
#define KILN_COMMON_BC7_TABLES_H

#include <stdint.h>

/* One row of Table.M. */
typedef struct bc7_mode_info {
    uint8_t subsets;        /* NS: 1..3 */
    uint8_t partition_bits; /* PB */
    uint8_t rotation_bits;  /* RB */
    uint8_t index_sel_bits; /* ISB */
    uint8_t color_bits;     /* CB, per channel, without the P-bit */
    uint8_t alpha_bits;     /* AB; 0 = alpha decodes to 255 */
    uint8_t endpoint_pbits; /* EPB: one P-bit per endpoint */
    uint8_t shared_pbits;   /* SPB: one P-bit per subset */
    uint8_t index_bits;     /* IB */
    uint8_t index2_bits;    /* IB2: secondary indices (modes 4 and 5) */
} bc7_mode_info;

extern const bc7_mode_info bc7_modes[8];

/* Subset of each texel (row-major, texel y * 4 + x) for the 64 two-subset
 * and the 64 three-subset partitions. */
extern const uint8_t bc7_partition2[64][16];
extern const uint8_t bc7_partition3[64][16];

/* Anchor texel of subset 1 (two subsets), and of subsets 1 and 2 (three
 * subsets). Subset 0's anchor is always texel 0. */
extern const uint8_t bc7_anchor2_1[64];
extern const uint8_t bc7_anchor3_1[64];
extern const uint8_t bc7_anchor3_2[64];

/* Interpolation weights (out of 64) for 2-, 3- and 4-bit indices. */
extern const uint8_t bc7_weights2[4];
extern const uint8_t bc7_weights3[8];
extern const uint8_t bc7_weights4[16];

#endif /* KILN_COMMON_BC7_TABLES_H */
