/*
 * encode.h — the encode stage: bulk data into its final encoding.
 *
 *   vertex.c  vertex attributes into their cooked encodings (octahedral
 *             normals and tangents, quantised positions, skin weights)
 *   texels.c  float texels into uncompressed texture formats (R8, RGBA8, RGBA16F)
 *
 * GPU block compression: kiln's own BC1/BC3/BC4/BC5/BC6H/BC7 encoders and
 * decoders, and ASTC through Debian's astcenc.
 *
 * Per-block functions work on one 4x4 block of texels in row-major order
 * (texel (x, y) at index y * 4 + x). Encoders are pure functions of their
 * input and quality, so an image encodes to the same bytes whatever the
 * thread count. Decoders exist for the tests and `kiln info --quality`.
 *
 *   bc1.c    BC1 (opaque and 1-bit alpha), BC3 (= BC4-style alpha + BC1 colour),
 *            BC4 (one channel) and BC5 (two BC4 blocks)
 *   bc7.c    BC7, all eight modes
 *            (its partition and anchor tables are common/bc7_tables.h, which the
 *            runtime's UASTC → BC7 transcoder shares)
 *   bc6h.c   BC6H unsigned (BC6H_UF16)
 *   astc.cpp ASTC LDR/HDR through astcenc (C++ shim, C interface here)
 *   uastc_encode.c  UASTC LDR 4x4 (the block format is common/uastc.h's)
 *   uastc_hints.c   the transcoding hints of a UASTC block
 *   uastc_rdo.c  UASTC rate-distortion optimisation (texture.uastc_rdo)
 *   block.c  whole images: edge padding, parallel block rows, format table
 *   block_texels.c  one block's texels out of an image (edges repeated)
 *
 * encode may use core and common.
 */
#ifndef KILN_COOK_ENCODE_ENCODE_H
#define KILN_COOK_ENCODE_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ktx2_format.h"
#include "cook/core/core.h"

/* The encoders' effort: texture.quality's values (cook_quality), so a setting
 * converts with a cast. */
typedef enum block_quality {
    BLOCK_QUALITY_FAST = COOK_QUALITY_FAST,
    BLOCK_QUALITY_NORMAL = COOK_QUALITY_NORMAL,
    BLOCK_QUALITY_BEST = COOK_QUALITY_BEST,
    /* BC7: mode 6 alone; every other encoder treats it as FAST. */
    BLOCK_QUALITY_DRAFT = COOK_QUALITY_DRAFT,
} block_quality;

/* ---- per 4x4 block --------------------------------------------------------- */

/* BC1: 8 bytes. With `alpha_1bit`, texels with alpha < 128 become the
 * transparent index (3-colour mode); otherwise alpha is ignored. Opaque texels
 * never take the fourth entry of the 3-colour mode (black, or transparent
 * black), so the block decodes the same as BC1 RGB and BC1 RGBA; `normal` and
 * `best` may use the 3-colour mode's midpoint when it fits better. */
void bc1_encode_block(const uint8_t rgba[64], bool alpha_1bit, block_quality quality,
                      uint8_t out[8]);
/* Decodes with the BC1 rules (3-colour + transparent black when c0 <= c1). */
void bc1_decode_block(const uint8_t in[8], uint8_t rgba[64]);

/* BC3: 16 bytes, BC4-style alpha then BC1 colour (always 4-colour mode). */
void bc3_encode_block(const uint8_t rgba[64], block_quality quality, uint8_t out[16]);
void bc3_decode_block(const uint8_t in[16], uint8_t rgba[64]);

/* BC4 (unsigned): 8 bytes for 16 single-channel values. */
void bc4_encode_block(const uint8_t values[16], block_quality quality, uint8_t out[8]);
void bc4_decode_block(const uint8_t in[8], uint8_t values[16]);

/* BC5 (unsigned): 16 bytes, red then green as two BC4 blocks. Takes and
 * returns RGBA texels; the decoder writes B = 0 and A = 255. */
void bc5_encode_block(const uint8_t rgba[64], block_quality quality, uint8_t out[16]);
void bc5_decode_block(const uint8_t in[16], uint8_t rgba[64]);

/* BC7: 16 bytes, RGBA. */
void bc7_encode_block(const uint8_t rgba[64], block_quality quality, uint8_t out[16]);
void bc7_decode_block(const uint8_t in[16], uint8_t rgba[64]);

/* UASTC LDR 4x4: 16 bytes, RGBA (opaque blocks take the RGB modes, grey
 * ones also the luminance-alpha modes); decoded by common/uastc.h. */
void uastc_encode_block(const uint8_t rgba[64], block_quality quality, uint8_t out[16]);
/* Sets the transcoding hints (ETC1, EAC, BC1) of an encoded block `b` of the
 * source texels `rgba` (uastc_hints.c); the block decodes as before. */
struct uastc_logical;
void uastc_encode_hints(const uint8_t rgba[64], block_quality quality, struct uastc_logical *b);
/* Endpoints of a UASTC block (common/uastc.h's logical block) refitted to
 * `rgba` for the mode, pattern and weights it has, which are kept (weights
 * whose anchors have the top bit clear); returns the squared error of its
 * decoding. For uastc_rdo.c. */
double uastc_refit_endpoints(struct uastc_logical *block, const uint8_t rgba[64]);
/* The other way round: the best weights for the block's endpoints (mode,
 * pattern and endpoints kept but where an anchor's weight needs the pair
 * swapped); returns the squared error of its decoding. */
double uastc_reweigh(struct uastc_logical *block, const uint8_t rgba[64]);

/* BC6H unsigned float: 16 bytes; input linear RGB floats (negative and NaN
 * treated as 0, values above 65504 clamped), 16 texels x 3. */
void bc6h_encode_block(const float rgb[48], block_quality quality, uint8_t out[16]);
void bc6h_decode_block(const uint8_t in[16], float rgb[48]);

/* ---- whole images ---------------------------------------------------------- */

/* The KTX2 format table's block kinds (common/ktx2_format.h): a format's
 * `block` field is its block_format. */
typedef enum block_format {
    BLOCK_FORMAT_BC1 = KTX2_BLOCK_BC1,           /* opaque RGB */
    BLOCK_FORMAT_BC1A = KTX2_BLOCK_BC1A,         /* RGB + 1-bit alpha */
    BLOCK_FORMAT_BC3 = KTX2_BLOCK_BC3,           /* RGBA */
    BLOCK_FORMAT_BC4 = KTX2_BLOCK_BC4,           /* R */
    BLOCK_FORMAT_BC5 = KTX2_BLOCK_BC5,           /* RG */
    BLOCK_FORMAT_BC6H = KTX2_BLOCK_BC6H,         /* RGB half float, unsigned */
    BLOCK_FORMAT_BC7 = KTX2_BLOCK_BC7,           /* RGBA */
    BLOCK_FORMAT_ASTC_LDR = KTX2_BLOCK_ASTC_LDR, /* RGBA8 input */
    BLOCK_FORMAT_ASTC_HDR = KTX2_BLOCK_ASTC_HDR, /* float input */
    BLOCK_FORMAT_UASTC = KTX2_BLOCK_UASTC,       /* RGBA8 input, 4x4 */
} block_format;

typedef struct block_image_desc {
    block_format format;
    block_quality quality;
    uint32_t width, height;
    /* Exactly one is set: rgba8 (LDR formats) or rgbaf (BC6H, ASTC HDR),
     * width * height RGBA texels, rows top to bottom. */
    const uint8_t *rgba8;
    const float *rgbaf;
    bool srgb;                /* ASTC: encode for sRGB decoding */
    uint8_t astc_block_width; /* ASTC only: 4..8 (and 10, 12 if astcenc allows) */
    uint8_t astc_block_height;
    unsigned threads; /* worker threads for block rows; 0 or 1 = this thread */
    /* UASTC only: the rate-distortion lambda (texture.uastc_rdo), 0 = off:
     * squared error (of 8-bit channels, summed over a block) a block may
     * gain per bit of Zstd output it saves (uastc_rdo.c). */
    float uastc_rdo;
} block_image_desc;

/* block_texels.c: the index of texel (x, y) of block (bx, by) in desc's
 * image, clamped to it (partial blocks repeat the last column and row); and
 * the 16 RGBA8 texels of block (bx, by) of desc->rgba8 so clamped. */
size_t block_texel_index(const block_image_desc *desc, uint32_t bx, uint32_t by, uint32_t x,
                         uint32_t y);
void block_gather_rgba8(const block_image_desc *desc, uint32_t bx, uint32_t by, uint8_t rgba[64]);

/* UASTC: the rate-distortion pass over `blocks` (block_encode_image's, in
 * place) when desc->uastc_rdo > 0; blocks are replaced by ones Zstd stores in
 * fewer bits where the error this adds is worth it (uastc_rdo.c). The output
 * does not depend on desc->threads. Called by block_encode_image. */
void uastc_rdo_image(const block_image_desc *desc, uint8_t *blocks);
/* The lambda of a texture.uastc_rdo strength (0 for off). */
float uastc_rdo_lambda(cook_uastc_rdo strength);

/* Bytes the encoded image takes (ceil(w / bw) * ceil(h / bh) * block bytes). */
size_t block_image_size(const block_image_desc *desc);

/* Encodes a whole image into `out` (block_image_size bytes). Partial blocks
 * at the right and bottom edges are padded by replicating the edge texels.
 * The output is identical for every thread count. On failure returns false
 * with a reason (e.g. astcenc's error string). */
bool block_encode_image(const block_image_desc *desc, uint8_t *out, char *reason,
                        size_t reason_size);

/* ---- formats, decoding and statistics (block.c) ---------------------------- */

/* Block dimensions and bytes of desc->format (ASTC: desc->astc_block_*). False
 * for an unknown format or an ASTC block size outside 4..12. */
bool block_format_layout(const block_image_desc *desc, uint32_t *block_width,
                         uint32_t *block_height, uint32_t *block_bytes);

/* Short name, e.g. "bc7", "astc-6x6". */
const char *block_format_name(block_format format);

/* Decodes a whole image written by block_encode_image (desc gives format,
 * size, ASTC block size and sRGB; its pixel pointers are ignored) into
 * width * height RGBA texels: rgba8_out for LDR formats (BC4 gives (r,0,0,255),
 * BC5 (r,g,0,255)), rgbaf_out for BC6H and ASTC HDR (alpha 1). ASTC LDR
 * decodes into rgbaf_out when rgba8_out is NULL: each value the 16-bit
 * decoding / 65535, where the bytes are that rounded to 8 bits. */
bool block_decode_image(const block_image_desc *desc, const uint8_t *blocks, uint8_t *rgba8_out,
                        float *rgbaf_out, char *reason, size_t reason_size);

/* The mode of one BC7 (0..7) or BC6H (0..13, in the order of the
 * specification's mode table) block, or -1 for a reserved mode. */
int block_bc7_mode(const uint8_t block[16]);
int block_bc6h_mode(const uint8_t block[16]);

/* IEEE half floats (bc6h.c): round to nearest even, values beyond the half
 * range clamp to the largest finite half; and back. */
uint16_t block_float_to_half(float value);
float block_half_to_float(uint16_t half);

/* PSNR in dB of 8-bit channels selected by `channel_mask` (bit c = channel c)
 * over `count` RGBA texels; 99 when identical. */
double block_psnr_rgba8(const uint8_t *a, const uint8_t *b, size_t count, unsigned channel_mask);

/* One HDR channel as a display shows it: Reinhard tone-mapped (v / (1 + v)),
 * gamma 1/2.2, scaled to 0..255 (negative and NaN: 0; +inf: 255). */
double block_tonemap(float value);

/* PSNR in dB of HDR RGB as a display shows it (block_tonemap per channel);
 * `count` RGBA float texels. */
double block_psnr_hdr(const float *a, const float *b, size_t count);

/* ---- ASTC through astcenc (astc.cpp) --------------------------------------- */

/* Encodes desc (ASTC_LDR from rgba8, ASTC_HDR from rgbaf) into out_size bytes
 * with astcenc, desc->threads threads. */
bool astc_encode_image(const block_image_desc *desc, uint8_t *out, size_t out_size, char *reason,
                       size_t reason_size);
/* Decodes ASTC blocks into rgba8_out (LDR) or rgbaf_out (HDR). */
bool astc_decode_image(const block_image_desc *desc, const uint8_t *blocks, size_t size,
                       uint8_t *rgba8_out, float *rgbaf_out, char *reason, size_t reason_size);
/* Both reuse astcenc contexts kept in a process-wide cache (safe for
 * concurrent callers; a context serves one image at a time). Frees the idle
 * ones (also done at exit); safe to call any time. */
void astc_free_cached_contexts(void);
/* Idle contexts in the cache (for tests). */
size_t astc_cached_contexts(void);

/* ---------------------------------------------------------------------------
 * Vertices (vertex.c) and uncompressed texels (texels.c)
 * ------------------------------------------------------------------------- */

/* `count` (4 or 8) skin weights summing to 1 as unorm16 summing to exactly
 * 65535 (kmesh.md, skin weights). */
void encode_skin_weights(const float *weights, int count, uint16_t *out);
/* Packs every vertex of `mesh` (blocks on `threads` threads; the bytes do not
 * depend on the count) and records level 0's bounds for write_kmesh. False
 * when out of memory. */
bool encode_mesh_vertices(const ir_mesh *mesh, bool quantize_positions, unsigned threads,
                          encoded_vertices *out);
void encoded_vertices_free(encoded_vertices *vertices);
/* Rearranges interleaved `vertices` into one tightly packed stream per
 * attribute, each padded to 16 bytes (kmesh.md, KILN_MESH_FLAG_STREAMS).
 * False when out of memory (`vertices` unchanged). */
bool encoded_vertices_to_streams(encoded_vertices *vertices, uint32_t vertex_count);

/* Octahedral encoding of a unit vector into snorm16 x/y. */
void encode_oct_snorm16(const float v[3], int16_t out[2]);
/* The same with a sign folded into y (KILN_VFORMAT_OCT_SIGNED_SNORM16X2):
 * tangent direction plus handedness w. */
void encode_oct_signed_snorm16(const float v[3], float w, int16_t out[2]);
/* Quantises `count` float RGBA texels into vk_format's bytes (R8, RGBA8 or
 * RGBA16F; texels.c); *size receives the byte count. NULL when out of memory
 * or for a block-compressed format. */
uint8_t *encode_level(const float *rgba, size_t count, uint32_t vk_format, size_t *size);

#endif /* KILN_COOK_ENCODE_ENCODE_H */
