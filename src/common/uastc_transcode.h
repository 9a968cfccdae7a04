/*
 * uastc_transcode.h — one UASTC block re-encoded as a GPU block format it
 * maps onto, shared by the runtime (kiln_uastc_transcode) and the cooker
 * (`kiln extract --via`). Pure functions of the block: no allocation, no
 * state, thread-safe. libc only.
 *
 *   uastc_astc.c  ASTC 4×4 LDR: a re-packing of the same endpoints and
 *                 weights (UASTC is a subset of ASTC 4×4), so an ASTC decoder
 *                 gives exactly uastc_decode's texels, UNORM8 and sRGB.
 *   uastc_bc7.c   BC7 by the UASTC specification's mode mapping: each UASTC
 *                 mode onto one BC7 mode, partitions onto the BC7 shapes they
 *                 equal, weights onto the nearest BC7 weight, endpoints
 *                 rounded to BC7's precision. Not bit-exact:
 *                 BC7 interpolates 8-bit endpoints where ASTC interpolates
 *                 16-bit ones, so texels may differ by a step or two.
 *
 * Sources: Binomial, "UASTC LDR 4x4 Texture Specification" (basis_universal
 * wiki: the mode table with each mode's BC7 target); Khronos Data Format
 * Specification 1.3, "ASTC compressed texture image formats" (block mode,
 * partition and CEM fields, integer sequence encoding, void-extent blocks)
 * and "BC7" (the mode table, field order, anchors).
 */
#ifndef KILN_COMMON_UASTC_TRANSCODE_H
#define KILN_COMMON_UASTC_TRANSCODE_H

#include <stdint.h>

#include "common/uastc.h"

/* Both targets' blocks are 16 bytes for 4×4 texels, as UASTC's are. */
#define UASTC_TARGET_BLOCK_BYTES 16u

/* A valid logical block (uastc_unpack's output) into one target block. */
void uastc_logical_to_astc(const uastc_logical *block, uint8_t out[UASTC_TARGET_BLOCK_BYTES]);
void uastc_logical_to_bc7(const uastc_logical *block, uint8_t out[UASTC_TARGET_BLOCK_BYTES]);

/* Unpack then re-encode; on an invalid block `out` is left untouched. */
uastc_status uastc_to_astc(const uint8_t block[UASTC_BLOCK_BYTES],
                           uint8_t out[UASTC_TARGET_BLOCK_BYTES]);
uastc_status uastc_to_bc7(const uint8_t block[UASTC_BLOCK_BYTES],
                          uint8_t out[UASTC_TARGET_BLOCK_BYTES]);

/* The BC7 partition (0..63 of the BC7 table of the mode's subset count: two
 * subsets for modes 2, 4, 9, 16, three for 3 and 7) a shared pattern equals;
 * mode 7's two ASTC subsets are a three-subset BC7 shape with two merged. */
unsigned uastc_pattern_bc7(unsigned mode, unsigned pattern);

/* Writes `count` (at most 32) bits of `value` at bit *pos of a zeroed
 * 16-byte block, LSB first, and advances *pos: the field order both target
 * formats use. A byte at a time. */
static inline void uastc_put_bits(uint8_t block[16], unsigned *pos, uint32_t value,
                                  unsigned count) {
    uint64_t bits = count >= 32 ? value : value & ((1u << count) - 1u);
    while (count > 0) {
        unsigned shift = *pos & 7u, take = 8u - shift < count ? 8u - shift : count;
        block[*pos >> 3] |= (uint8_t)((bits & ((1u << take) - 1u)) << shift);
        bits >>= take;
        *pos += take;
        count -= take;
    }
}

#endif
