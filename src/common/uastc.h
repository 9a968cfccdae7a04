/*
 * uastc.h — the UASTC LDR 4×4 block format, shared by the cooker (encoder)
 * and the runtime (validation, decoding): the 19 modes' layouts, the
 * partition patterns UASTC shares with BC7 and ASTC, unpacking a 16-byte
 * block into a logical block, packing one back (pack∘unpack is the identity
 * on valid blocks), and decoding to RGBA8 as ASTC decodes the same block.
 * libc only.
 *
 * Sources:
 *  - Binomial, "UASTC LDR 4x4 Texture Specification" (basis_universal wiki):
 *    the mode table, the mode codes, the block layout (mode, hints, pattern,
 *    component selector, trit/quint groups then endpoint bits, weights with
 *    the anchors' top bit implied), the shared partition patterns.
 *  - Khronos Data Format Specification 1.3, "ASTC LDR decoding": endpoint
 *    and weight unquantisation, the partition hash (small-block variant),
 *    LDR interpolation (UNORM8 and sRGB).
 *  - KTX 2.0 specification, the UASTC data format descriptor (colour model
 *    KHR_DF_MODEL_UASTC = 166).
 */
#ifndef KILN_COMMON_UASTC_H
#define KILN_COMMON_UASTC_H

#include <stdbool.h>
#include <stdint.h>

#define UASTC_BLOCK_BYTES 16u
#define UASTC_MODES 19u
/* The one mode without endpoints and weights: a single RGBA8 colour. */
#define UASTC_MODE_SOLID 8u

/* How many shared partition patterns each partitioned layout can name. */
#define UASTC_PATTERNS2 30u   /* 2 subsets (modes 2, 4, 9, 16) */
#define UASTC_PATTERNS3 11u   /* 3 subsets (mode 3) */
#define UASTC_PATTERNS2_7 19u /* 2 subsets of mode 7 (BC7 3-subset shapes) */

/* One mode's fixed layout (uastc_mode_info). */
typedef struct uastc_mode_desc {
    uint8_t code;         /* mode code, LSB first from bit 0 */
    uint8_t code_bits;    /* its length */
    uint8_t hint_bits;    /* transcoding hints (BC1, ETC1, ETC2 EAC) kept opaque */
    uint8_t subsets;      /* 1, 2 or 3 (0 for the solid mode) */
    uint8_t planes;       /* 2: a second weight plane for one component */
    uint8_t comps;        /* endpoint components: 2 (LA), 3 (RGB) or 4 (RGBA) */
    uint8_t endpoint_ise; /* ASTC ISE range index of the endpoints (0..20) */
    uint8_t weight_bits;  /* bits per weight (plain binary, ASTC range 2^n) */
    uint8_t pattern_bits; /* bits of the partition pattern index */
} uastc_mode_desc;

const uastc_mode_desc *uastc_mode_info(unsigned mode);

/* A block's fields. Endpoints are ISE values of the mode's range, ordered as
 * ASTC orders them: per subset, per component, low then high. Weights are
 * per texel (row-major); with two planes, texel i's are [2i] and [2i+1]. */
typedef struct uastc_logical {
    uint8_t mode;
    uint8_t pattern;  /* shared pattern index (partitioned modes) */
    uint8_t ccs;      /* the second plane's component (0 R … 3 A) */
    uint32_t hints;   /* the mode's hint bits, as stored */
    uint8_t solid[4]; /* the solid mode's RGBA */
    uint8_t endpoints[18];
    uint8_t weights[32];
} uastc_logical;

/* Why a block is not valid UASTC (UASTC_OK when it is). */
typedef enum uastc_status {
    UASTC_OK = 0,
    UASTC_BAD_MODE,     /* the reserved mode code */
    UASTC_BAD_PATTERN,  /* a pattern index past the mode's table */
    UASTC_BAD_TRITS,    /* a trit/quint group larger than its count allows */
    UASTC_BAD_ENDPOINT, /* an endpoint past its range (pack only) */
    UASTC_BAD_WEIGHT,   /* a weight past its range or an anchor's top bit set */
    UASTC_BAD_PADDING,  /* bits after the layout are not zero */
} uastc_status;

const char *uastc_status_text(uastc_status status);

uastc_status uastc_unpack(const uint8_t block[UASTC_BLOCK_BYTES], uastc_logical *out);
uastc_status uastc_pack(const uastc_logical *in, uint8_t block[UASTC_BLOCK_BYTES]);

/* The subset of each texel (row-major) for a mode's pattern index, and the
 * first texel of each subset (its anchor, whose weight top bit is implied 0).
 * Returns the subset count; 0 when the mode or index is invalid. */
unsigned uastc_partition(unsigned mode, unsigned pattern, uint8_t subset_of[16],
                         uint8_t anchors[3]);

/* The ASTC partition hash for 4×4 blocks (a small block: texel count < 31). */
unsigned uastc_astc_partition(unsigned seed, unsigned partitions, unsigned x, unsigned y);

/* The ASTC partition seed each shared pattern maps to, and how many
 * patterns a mode can name (0 for unpartitioned modes). */
unsigned uastc_pattern_seed(unsigned mode, unsigned pattern);
unsigned uastc_pattern_count(unsigned mode);

/* ISE range r: value count, plain bits, and whether a trit or quint goes on
 * top; and the unquantisation of endpoint value v to 0..255. */
unsigned uastc_ise_levels(unsigned range);
unsigned uastc_ise_bits(unsigned range);
unsigned uastc_ise_trits(unsigned range);
unsigned uastc_ise_quints(unsigned range);
uint8_t uastc_unquant_endpoint(unsigned range, unsigned value);
/* A weight of `bits` bits to ASTC's 0..64. */
unsigned uastc_unquant_weight(unsigned bits, unsigned value);

/* ASTC LDR interpolation of one 8-bit channel: UNORM8 expands endpoints by
 * replication (e*257), sRGB by e*256+128; the result's top 8 bits. */
uint8_t uastc_lerp(unsigned e0, unsigned e1, unsigned weight64, bool srgb);

/* The unquantised endpoints of each subset as RGBA8 (not the solid mode):
 * LA spreads L over RGB, RGB gets alpha 255. */
void uastc_endpoints_rgba8(const uastc_logical *block, uint8_t ends[3][2][4]);

/* Decodes a logical block to 16 RGBA8 texels (row-major, 64 bytes). */
void uastc_decode_logical(const uastc_logical *block, bool srgb, uint8_t rgba[64]);
/* Unpack then decode; on an invalid block the texels are left untouched. */
uastc_status uastc_decode(const uint8_t block[UASTC_BLOCK_BYTES], bool srgb, uint8_t rgba[64]);

#endif
