/* etc_decode.h — ETC1 and ETC2 EAC alpha block decoders for the tests,
 * written from the Khronos Data Format Specification 1.3 ("ETC1
 * compressed texture image formats", "ETC2 ... alpha") independently of
 * kiln's transcoder (src/common/uastc_etc.c): texels row-major RGBA8. */
#ifndef KILN_TEST_ETC_DECODE_H
#define KILN_TEST_ETC_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* An ETC1 block (alpha 255). False when it is not ETC1: a differential
 * colour leaving 0..31, which ETC2 reads as one of its other modes. */
bool test_etc1_decode(const uint8_t in[8], uint8_t rgba[64]);
/* An EAC alpha block (ETC2 RGBA8's first half) into rgba's alpha bytes. */
void test_eac_decode(const uint8_t in[8], uint8_t rgba[64]);

#endif
