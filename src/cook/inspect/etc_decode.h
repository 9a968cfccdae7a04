/* etc_decode.h — ETC1 and ETC2 EAC alpha block decoders, written from the
 * Khronos Data Format Specification 1.3 ("ETC1 compressed texture image
 * formats", "ETC2 ... alpha") independently of libkiln's transcoder
 * (common/uastc_etc.c): `kiln extract --via etc1|etc2` decodes its blocks
 * with them, and the tests check the transcoder against them. Texels
 * row-major RGBA8. */
#ifndef KILN_COOK_INSPECT_ETC_DECODE_H
#define KILN_COOK_INSPECT_ETC_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An ETC1 block (alpha 255). False when it is not ETC1: a differential
 * colour leaving 0..31, which ETC2 reads as one of its other modes. */
bool etc1_decode_block(const uint8_t in[8], uint8_t rgba[64]);
/* An EAC alpha block (ETC2 RGBA8's first half) into rgba's alpha bytes. */
void eac_decode_block(const uint8_t in[8], uint8_t rgba[64]);
/* A width x height image of ETC1 blocks (8 bytes each) or, with
 * `eac_alpha`, ETC2 RGBA8 blocks (EAC alpha then colour, 16 bytes) into
 * RGBA8 rows; false with a reason naming the block that is not ETC1. */
bool etc_decode_image(const uint8_t *blocks, uint32_t width, uint32_t height, bool eac_alpha,
                      uint8_t *out, char *reason, size_t reason_size);

#endif
