/* mips_simd.h — the parts of mips.c that run on AVX2 when the CPU has it
 * (mips_simd.c); private to the process stage. */
#ifndef KILN_COOK_PROCESS_MIPS_SIMD_H
#define KILN_COOK_PROCESS_MIPS_SIMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sRGB encode's buckets (mips_texel.h, srgb8_of): a float's bits from 2^-13
 * up to 1.0 in steps of 2^15 (the exponent and top 8 mantissa bits). */
#define SRGB_LOW_BITS 0x39000000u /* 2^-13: below the first step, encodes to 0 */
#define SRGB_ONE_BITS 0x3F800000u /* 1.0 */
#define SRGB_BUCKETS ((SRGB_ONE_BITS - SRGB_LOW_BITS) >> 15)

/* What the 8-bit encode of working texels needs (mips_texel.h's stored_texel8):
 * the mode (mip_mode), colour divided by alpha again (alpha_weighted,
 * outside normal maps), and the sRGB buckets: each bucket's code at its
 * start in bits 0..7, and from bit 8 up where it steps to the next code, as
 * the step's float bits less the bucket's first (1 << 15: no step). */
typedef struct mips_encode8 {
    int mode;
    bool unweight;
    const uint32_t *srgb_buckets;
} mips_encode8;

/* Working texels (count x RGBA floats: linear, premultiplied when
 * o->alpha_weighted outside normal maps) to their stored bytes (RGBA8), as
 * mips.c stores each 8-bit level: on AVX2 8 at a time unless o->portable,
 * the same bytes either way. */
struct mip_options;
void mips_encode8_row(const float *work, uint8_t *out, size_t count, const struct mip_options *o);

/* True when this CPU runs mips_encode8_avx2 (x86-64 with AVX2). */
bool mips_avx2_available(void);

/* The first count - count % 8 texels of `work` (RGBA floats) encoded into
 * out (RGBA8) exactly as stored_texel8 does, 8 at a time; returns how many
 * it encoded (0 where AVX2 is not built in). */
size_t mips_encode8_avx2(const float *work, uint8_t *out, size_t count, const mips_encode8 *e);

/* The halving of a working row pair r0, r1 (2 * count texels each, RGBA
 * floats) into working texels (count x RGBA floats), as mips.c's scalar loop
 * makes them from the previous level: ((a + b) + (c + d)) * 0.25,
 * renormalised when `normal`; two at a time on AVX2, the same floats.
 * Returns how many it made (count - count % 2; 0 where AVX2 is not built
 * in). */
size_t mips_halving_avx2(const float *r0, const float *r1, bool normal, float *work, size_t count);

/* True when this CPU runs mips_opaque_halving_avx512 (AVX-512F). */
bool mips_avx512_available(void);

/* An exact halving of an 8-bit row pair r0, r1 (2 * count texels each)
 * into working texels (count x RGBA floats), 16 at a time from the start
 * while the 16 quads are opaque (it stops at the first 16 with an alpha
 * below 255, and before the count % 16 left), exactly as mips.c's opaque
 * path makes them: each channel's four values[byte] (the mode's 256
 * working values), ((a + b) + (c + d)) * 0.25, alpha 1, renormalised in
 * normal maps; and their stored bytes into out (RGBA8) as
 * mips_encode8_avx2 would. Returns how many it made (0 where AVX-512 is
 * not built in). */
size_t mips_opaque_halving_avx512(const uint8_t *r0, const uint8_t *r1, const float *value,
                                  const mips_encode8 *e, float *work, uint8_t *out, size_t count);

#endif
