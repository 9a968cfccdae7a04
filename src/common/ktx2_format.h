/*
 * ktx2_format.h — the KTX 2.0 texture formats kiln writes and reads
 * (docs/formats/ktx2.md): the file layout's constants, the Data Format
 * Descriptor's constants, and one table with a row per vkFormat. The cooker's
 * writer writes a file's header and DFD from a row; the runtime's reader
 * checks a file's header and DFD against the same row, so the two cannot
 * drift apart. libc only: the runtime and the cooker both include it.
 */
#ifndef KILN_COMMON_KTX2_FORMAT_H
#define KILN_COMMON_KTX2_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- file layout (KTX 2.0, section 3) ------------------------------------ */

/* «KTX 20»: the first 12 bytes of every file. */
#define KTX2_IDENTIFIER_SIZE 12u
extern const uint8_t ktx2_identifier[KTX2_IDENTIFIER_SIZE];

/* Identifier, header and index: the level index starts here. */
#define KTX2_HEADER_SIZE 80u
/* One level index entry: byteOffset, byteLength, uncompressedByteLength (u64). */
#define KTX2_LEVEL_ENTRY_SIZE 24u
/* Levels a file can have (a 2^32 side has 32). */
#define KTX2_MAX_LEVELS 32u

/* supercompressionScheme values (kiln writes NONE and ZSTD, reads both). */
#define KTX2_SUPERCOMPRESSION_NONE 0u
#define KTX2_SUPERCOMPRESSION_BASISLZ 1u
#define KTX2_SUPERCOMPRESSION_ZSTD 2u
#define KTX2_SUPERCOMPRESSION_ZLIB 3u

/* ---- vkFormat values kiln writes (Vulkan's VkFormat numbers) -------------- */

#define KTX2_VK_FORMAT_R8_UNORM 9u
#define KTX2_VK_FORMAT_R8G8_UNORM 16u
#define KTX2_VK_FORMAT_R8G8B8A8_UNORM 37u
#define KTX2_VK_FORMAT_R8G8B8A8_SRGB 43u
#define KTX2_VK_FORMAT_R16G16B16A16_SFLOAT 97u
#define KTX2_VK_FORMAT_BC1_RGB_UNORM 131u
#define KTX2_VK_FORMAT_BC1_RGB_SRGB 132u
#define KTX2_VK_FORMAT_BC1_RGBA_UNORM 133u
#define KTX2_VK_FORMAT_BC1_RGBA_SRGB 134u
#define KTX2_VK_FORMAT_BC3_UNORM 137u
#define KTX2_VK_FORMAT_BC3_SRGB 138u
/* ETC2: only ever a UASTC transcode target (kiln writes no ETC2 files). */
#define KTX2_VK_FORMAT_ETC2_R8G8B8_UNORM 147u
#define KTX2_VK_FORMAT_ETC2_R8G8B8_SRGB 148u
#define KTX2_VK_FORMAT_ETC2_R8G8B8A8_UNORM 151u
#define KTX2_VK_FORMAT_ETC2_R8G8B8A8_SRGB 152u
#define KTX2_VK_FORMAT_BC4_UNORM 139u
#define KTX2_VK_FORMAT_BC5_UNORM 141u
#define KTX2_VK_FORMAT_BC6H_UFLOAT 143u
#define KTX2_VK_FORMAT_BC7_UNORM 145u
#define KTX2_VK_FORMAT_BC7_SRGB 146u
#define KTX2_VK_FORMAT_ASTC_4x4_UNORM 157u
#define KTX2_VK_FORMAT_ASTC_4x4_SRGB 158u
#define KTX2_VK_FORMAT_ASTC_5x5_UNORM 161u
#define KTX2_VK_FORMAT_ASTC_5x5_SRGB 162u
#define KTX2_VK_FORMAT_ASTC_6x6_UNORM 165u
#define KTX2_VK_FORMAT_ASTC_6x6_SRGB 166u
#define KTX2_VK_FORMAT_ASTC_8x8_UNORM 171u
#define KTX2_VK_FORMAT_ASTC_8x8_SRGB 172u
#define KTX2_VK_FORMAT_ASTC_4x4_SFLOAT 1000066000u /* VK_EXT_texture_compression_astc_hdr */
#define KTX2_VK_FORMAT_ASTC_5x5_SFLOAT 1000066002u
#define KTX2_VK_FORMAT_ASTC_6x6_SFLOAT 1000066004u
#define KTX2_VK_FORMAT_ASTC_8x8_SFLOAT 1000066007u
/* UASTC has no vkFormat: a file holds VK_FORMAT_UNDEFINED and its DFD (colour
 * model UASTC) says what the blocks are. The format table keys its UASTC rows
 * by kiln's own ids below, outside Vulkan's range; they never reach a file
 * (ktx2_file_vk_format gives the header's value, ktx2_format_of_file finds
 * the row of a file's header and DFD). */
#define KTX2_VK_FORMAT_UNDEFINED 0u
#define KTX2_KILN_UASTC_RGB_UNORM 0xFFFF0001u
#define KTX2_KILN_UASTC_RGB_SRGB 0xFFFF0002u
#define KTX2_KILN_UASTC_RGBA_UNORM 0xFFFF0003u
#define KTX2_KILN_UASTC_RGBA_SRGB 0xFFFF0004u

/* ---- Data Format Descriptor (Khronos Data Format Specification 1.3) ------- */

/* A basic descriptor block: a 24-byte header, then 16 bytes per sample. The
 * DFD is dfdTotalSize (u32) followed by one such block. */
#define KTX2_DF_VERSION 2u /* versionNumber of KDF 1.3 */
#define KTX2_DF_BLOCK_HEADER_SIZE 24u
#define KTX2_DF_SAMPLE_SIZE 16u
#define KTX2_DF_MAX_SAMPLES 4u /* the most any row of the table has */

/* colorModel */
#define KTX2_DF_MODEL_RGBSDA 1u
#define KTX2_DF_MODEL_BC1A 128u
#define KTX2_DF_MODEL_BC3 130u
#define KTX2_DF_MODEL_BC4 131u
#define KTX2_DF_MODEL_BC5 132u
#define KTX2_DF_MODEL_BC6H 133u
#define KTX2_DF_MODEL_BC7 134u
#define KTX2_DF_MODEL_ASTC 162u
#define KTX2_DF_MODEL_UASTC 166u
/* colorPrimaries */
#define KTX2_DF_PRIMARIES_BT709 1u
/* transferFunction */
#define KTX2_DF_TRANSFER_LINEAR 1u
#define KTX2_DF_TRANSFER_SRGB 2u

/* A sample's channelType byte: the channel id in the low 4 bits, qualifiers
 * in the high ones. */
#define KTX2_DF_CHANNEL_MASK 0x0Fu
#define KTX2_DF_QUALIFIER_LINEAR 0x10u
#define KTX2_DF_QUALIFIER_SIGNED 0x40u
#define KTX2_DF_QUALIFIER_FLOAT 0x80u
/* Channel ids, per colour model (KDFS 1.3, 5.6 and 5.13). */
#define KTX2_DF_CHANNEL_RGBSDA_R 0u
#define KTX2_DF_CHANNEL_RGBSDA_G 1u
#define KTX2_DF_CHANNEL_RGBSDA_B 2u
#define KTX2_DF_CHANNEL_RGBSDA_A 15u
#define KTX2_DF_CHANNEL_BC1A_COLOR 0u
#define KTX2_DF_CHANNEL_BC1A_ALPHAPRESENT 1u
#define KTX2_DF_CHANNEL_BC3_COLOR 0u
#define KTX2_DF_CHANNEL_BC3_ALPHA 15u
#define KTX2_DF_CHANNEL_BC4_DATA 0u
#define KTX2_DF_CHANNEL_BC5_RED 0u
#define KTX2_DF_CHANNEL_BC5_GREEN 1u
#define KTX2_DF_CHANNEL_BC6H_COLOR 0u
#define KTX2_DF_CHANNEL_BC7_COLOR 0u
#define KTX2_DF_CHANNEL_ASTC_DATA 0u
#define KTX2_DF_CHANNEL_UASTC_RGB 0u
#define KTX2_DF_CHANNEL_UASTC_RGBA 3u
/* sampleLower / sampleUpper of float samples: the bits of -1.0f and 1.0f. */
#define KTX2_DF_FLOAT_MINUS_ONE 0xBF800000u
#define KTX2_DF_FLOAT_ONE 0x3F800000u

/* ---- the format table ----------------------------------------------------- */

/* The block compression of a format: which encoder and decoder serve it
 * (the cooker's block_format takes these values). */
typedef enum ktx2_block {
    KTX2_BLOCK_NONE = 0, /* uncompressed */
    KTX2_BLOCK_BC1,      /* BC1 RGB: opaque */
    KTX2_BLOCK_BC1A,     /* BC1 RGBA: 1-bit alpha */
    KTX2_BLOCK_BC3,
    KTX2_BLOCK_BC4,
    KTX2_BLOCK_BC5,
    KTX2_BLOCK_BC6H, /* unsigned half floats */
    KTX2_BLOCK_BC7,
    KTX2_BLOCK_ASTC_LDR, /* UNORM and SRGB */
    KTX2_BLOCK_ASTC_HDR, /* SFLOAT */
    KTX2_BLOCK_UASTC,    /* UASTC LDR 4x4 (vkFormat UNDEFINED, DFD model 166) */
} ktx2_block;

/* One DFD sample: bitOffset, bitLength (the DFD stores it minus 1), the
 * channel id and the qualifiers the writer sets. The reader checks offset,
 * length, id and the FLOAT qualifier. */
typedef struct ktx2_sample {
    uint16_t bit_offset;
    uint8_t bit_length;
    uint8_t channel;    /* KTX2_DF_CHANNEL_* of the format's model */
    uint8_t qualifiers; /* KTX2_DF_QUALIFIER_* */
} ktx2_sample;

/* Everything the writer and the reader know about one vkFormat. */
typedef struct ktx2_format_info {
    uint32_t vk_format;
    const char *name;                  /* kiln_ktx2_format_str, e.g. "bc7_srgb" */
    uint32_t type_size;                /* header typeSize */
    uint32_t block_bytes;              /* bytes per texel block (bytesPlane0) */
    uint8_t block_width, block_height; /* texels per block: 1 x 1 uncompressed */
    bool srgb;                         /* transfer function sRGB, else linear */
    bool is_float;                     /* samples are floats (RGBA16F, BC6H, ASTC HDR) */
    ktx2_block block;                  /* KTX2_BLOCK_NONE: uncompressed */
    /* Uncompressed formats: channels (R, G, B, A in memory order) and bits
     * of each; 0 for block formats. */
    uint8_t channels, channel_bits;
    /* The DFD: colour model and samples, in memory order. */
    uint8_t dfd_model;
    uint8_t sample_count;
    ktx2_sample samples[KTX2_DF_MAX_SAMPLES];
} ktx2_format_info;

/* Every format kiln knows, and how many. */
extern const ktx2_format_info ktx2_formats[];
extern const size_t ktx2_format_count;

/* The row of `vk_format`, or NULL when kiln does not know it. */
const ktx2_format_info *ktx2_format_find(uint32_t vk_format);

/* The row of a file whose header holds `vk_format` and whose DFD has colour
 * model `dfd_model`, transfer function `transfer` and first sample channel
 * id `channel`: ktx2_format_find's, except that vkFormat UNDEFINED with a
 * UASTC DFD is the UASTC row of that transfer and channel. NULL: unknown. */
const ktx2_format_info *ktx2_format_of_file(uint32_t vk_format, uint8_t dfd_model, uint8_t transfer,
                                            uint8_t channel);

/* The vkFormat a file of this row holds in its header (UNDEFINED for UASTC). */
uint32_t ktx2_file_vk_format(const ktx2_format_info *format);

/* The UASTC row with that transfer function and channels (RGB or RGBA). */
const ktx2_format_info *ktx2_uastc_format(bool srgb, bool alpha);

/* The vkFormat of block compression `block` with `block_width`-wide blocks
 * (4 for BCn; 4, 5, 6 or 8 for ASTC) and that transfer function; 0 when the
 * table has none (e.g. BC4 sRGB). */
uint32_t ktx2_vk_format_of_block(ktx2_block block, uint32_t block_width, bool srgb);

/* descriptorBlockSize of the format's DFD (dfdTotalSize is 4 more). */
uint32_t ktx2_dfd_block_size(const ktx2_format_info *format);

/* Side `size` at mip level `level` (halved per level, never below 1). */
uint32_t ktx2_mip_dim(uint32_t size, uint32_t level);

/* Bytes one level takes uncompressed: whole blocks of every slice, layer and
 * face (depth, layers 0 count as 1). 0 on overflow. */
uint64_t ktx2_level_byte_size(const ktx2_format_info *format, uint32_t width, uint32_t height,
                              uint32_t depth, uint32_t layers, uint32_t faces, uint32_t level);

#endif /* KILN_COMMON_KTX2_FORMAT_H */
