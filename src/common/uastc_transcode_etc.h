/*
 * uastc_transcode_etc.h — UASTC 4×4 blocks into ETC1 RGB (also valid ETC2
 * RGB), ETC2 RGBA8 (EAC alpha + ETC1 colour), BC1 and BC3, one block at a
 * time, guided by the transcoding hints a UASTC block carries; and those
 * hints themselves, which the cooker's encoder computes by trying this very
 * transcoder (cook/encode/uastc_hints.c). No allocation, no global state:
 * every function is safe on any thread. libc only.
 *
 * The hints (UASTC specification, "UASTC block format": the bits after the
 * mode code, LSB first; Basis Universal's transcoder reads them the same):
 *   BC1 hint 0 (all but the solid mode): subset 0's endpoints fit BC1 as they
 *     are; BC1 hint 1 (modes with an ETC1 bias): the first plane's weights
 *     make good BC1 selectors, so only the endpoints need fitting.
 *   ETC1 flip, diff, intensity table of subblock 0 and 1 (3 bits each), and
 *     in the bias modes a 5-bit bias that nudges the quantised base colours
 *     (the transcoder averages each subblock's decoded texels for them).
 *   ETC2 EAC (alpha modes): table index (4 bits) | multiplier << 4.
 *   The solid mode instead stores its ETC1 block whole: diff, intensity
 *   table, one selector for all texels, and the 5- (or 4-) bit base colour.
 *
 * Output layouts are the Khronos Data Format Specification 1.3's (ETC1,
 * ETC2, EAC; S3TC BC1/BC3); palettes are computed as its decoders define.
 * The block functions return UASTC_OK, or why the block is not valid UASTC
 * (then `out` is untouched). `srgb` picks the UASTC decoding (ASTC sRGB or
 * UNORM8 interpolation) whose texels the output approximates.
 */
#ifndef KILN_COMMON_UASTC_TRANSCODE_ETC_H
#define KILN_COMMON_UASTC_TRANSCODE_ETC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/uastc.h"

uastc_status uastc_block_to_etc1(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb, uint8_t out[8]);
uastc_status uastc_block_to_etc2_rgba8(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb,
                                       uint8_t out[16]);
uastc_status uastc_block_to_bc1(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb, uint8_t out[8]);
uastc_status uastc_block_to_bc3(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb, uint8_t out[16]);

/* ---- the hints ------------------------------------------------------------ */

typedef struct uastc_hints {
    bool bc1_direct;  /* BC1 hint 0 */
    bool bc1_weights; /* BC1 hint 1 */
    bool flip;        /* ETC1 subblocks 4×2 (top, bottom), else 2×4 (left, right) */
    bool diff;        /* ETC1 differential (555 + 333) base colours, else 444 each */
    uint8_t table[2]; /* ETC1 intensity table per subblock (solid: [0]) */
    uint8_t bias;     /* 0..31, the bias modes only */
    uint8_t eac_table, eac_multiplier; /* the alpha modes only */
    uint8_t solid_selector;            /* solid: 0..3, modifiers in ascending order */
    uint8_t solid_base[3];             /* solid: the base colour, 5 bits (diff) or 4 */
} uastc_hints;

/* Which hints a mode stores beyond flip, diff and the tables. */
bool uastc_mode_has_bias(unsigned mode); /* and BC1 hint 1 */
bool uastc_mode_has_eac(unsigned mode);

/* The hint field of a logical block (uastc_logical.hints) and back; write
 * drops what the mode has no room for. */
void uastc_hints_read(unsigned mode, uint32_t bits, uastc_hints *h);
uint32_t uastc_hints_write(unsigned mode, const uastc_hints *h);

/* ---- the pieces the encoder tries hints with ------------------------------- */

/* ETC1 from 16 decoded texels (row-major RGBA8) and the non-solid hints: the
 * base colours from the subblock averages (and the bias when `bias_mode`),
 * the hinted tables, each texel's closest modifier. `decoded` (may be NULL)
 * receives what the block decodes to. */
void uastc_etc1_from_texels(const uint8_t rgba[64], const uastc_hints *h, bool bias_mode,
                            uint8_t out[8], uint8_t decoded[64]);
/* ETC1 of the solid mode's hints; `decoded` as above (RGB; alpha left). */
void uastc_etc1_from_solid_hints(const uastc_hints *h, uint8_t out[8], uint8_t decoded[64]);
/* The best solid-mode hints for one colour (each of the 2 × 8 × 4 codes with
 * its best base colour). */
void uastc_etc1_solid_hints(const uint8_t rgb[3], uastc_hints *h);
/* Squared RGB error of ETC1 subblock `sub` of texels `rgba` for the base
 * colour `base` (8-bit) and `table`, each texel taking its closest modifier. */
uint32_t uastc_etc1_subblock_error(const uint8_t rgba[64], bool flip, unsigned sub,
                                   const uint8_t base[3], unsigned table);
/* The 8-bit base colours the transcoder derives for `h` (flip, diff, bias). */
void uastc_etc1_bases(const uint8_t rgba[64], const uastc_hints *h, bool bias_mode,
                      uint8_t base[2][3]);

/* EAC alpha (ETC2 RGBA8's first half) from the texels' alpha with a table and
 * multiplier (1..15), the base placed as the transcoder places it; returns
 * the squared error; `decoded` (may be NULL) receives the 16 alphas. */
/* The distance between an EAC table's smallest and largest modifier. */
unsigned uastc_eac_span(unsigned table);
uint32_t uastc_eac_from_alpha(const uint8_t rgba[64], unsigned table, unsigned multiplier,
                              uint8_t out[8], uint8_t decoded[16]);

/* A table and multiplier for the texels' alpha: each table with the
 * multiplier that stretches its extremes over the alpha range, then the best
 * one's multiplier one up and down (table 13, multiplier 1 for one alpha). */
void uastc_eac_choose(const uint8_t rgba[64], uint8_t *table, uint8_t *multiplier);

/* BC1 (4-colour mode) from decoded texels: `b` and its hints pick the path
 * (direct endpoints, weights as selectors, or a principal-axis fit);
 * `decoded` (may be NULL) receives what it decodes to. b may be NULL: the
 * principal-axis fit. */
void uastc_bc1_from_texels(const uint8_t rgba[64], const uastc_logical *b, const uastc_hints *h,
                           uint8_t out[8], uint8_t decoded[64]);

#endif
