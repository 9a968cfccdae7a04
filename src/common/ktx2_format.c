/*
 * ktx2_format.c — the KTX 2.0 format table (ktx2_format.h): one row per
 * vkFormat kiln writes and reads, with the header's typeSize, the texel
 * block and the Data Format Descriptor the writer writes and the reader
 * requires (docs/formats/ktx2.md, "Formats" and "Data Format Descriptor").
 */
#include "common/ktx2_format.h"

#include "common/checked.h"

const uint8_t ktx2_identifier[KTX2_IDENTIFIER_SIZE] = {0xAB, 'K',  'T',  'X',  ' ',  '2',
                                                       '0',  0xBB, '\r', '\n', 0x1A, '\n'};

/* Sample `index` of `bits` bits (at index * bits), channel `id`. */
#define SAMPLE(index, bits, id, qualifiers)                                                        \
    { (uint16_t)((index) * (bits)), (bits), (id), (qualifiers) }
/* R, G, B, A samples of `bits` bits; the alpha sample also takes `alpha_q`. */
#define RGBA(bits, q, alpha_q)                                                                     \
    SAMPLE(0, bits, KTX2_DF_CHANNEL_RGBSDA_R, q), SAMPLE(1, bits, KTX2_DF_CHANNEL_RGBSDA_G, q),    \
        SAMPLE(2, bits, KTX2_DF_CHANNEL_RGBSDA_B, q),                                              \
        SAMPLE(3, bits, KTX2_DF_CHANNEL_RGBSDA_A, (q) | (alpha_q))
/* An uncompressed RGBSDA format: `n` channels of `bits` bits, one sample each. */
#define PLAIN(vk, nm, ts, n, bits, srgb_, float_, ...)                                             \
    {                                                                                              \
        .vk_format = (vk), .name = (nm), .type_size = (ts), .block_bytes = (n) * (bits) / 8,       \
        .block_width = 1, .block_height = 1, .srgb = (srgb_), .is_float = (float_),                \
        .block = KTX2_BLOCK_NONE, .channels = (n), .channel_bits = (bits),                         \
        .dfd_model = KTX2_DF_MODEL_RGBSDA, .sample_count = (n), .samples = {__VA_ARGS__},          \
    }
/* A block-compressed format: `bytes` per bw x bh block, its colour model and
 * `n` samples spanning the block. */
#define BLOCK(vk, nm, bytes, bw, bh, srgb_, float_, kind, model, n, ...)                           \
    {                                                                                              \
        .vk_format = (vk), .name = (nm), .type_size = 1, .block_bytes = (bytes),                   \
        .block_width = (bw), .block_height = (bh), .srgb = (srgb_), .is_float = (float_),          \
        .block = (kind), .channels = 0, .channel_bits = 0, .dfd_model = (model),                   \
        .sample_count = (n), .samples = {__VA_ARGS__},                                             \
    }
/* The usual one-sample block formats: 16 bytes, 128 bits of one channel. */
#define BLOCK16(vk, nm, bw, srgb_, kind, model, channel)                                           \
    BLOCK(vk, nm, 16, bw, bw, srgb_, false, kind, model, 1, SAMPLE(0, 128, channel, 0))
#define ASTC_LDR(vk, nm, bw, srgb_)                                                                \
    BLOCK16(vk, nm, bw, srgb_, KTX2_BLOCK_ASTC_LDR, KTX2_DF_MODEL_ASTC, KTX2_DF_CHANNEL_ASTC_DATA)
/* ASTC HDR samples are signed floats, -1.0f..1.0f. */
#define ASTC_HDR(vk, nm, bw)                                                                       \
    BLOCK(vk, nm, 16, bw, bw, false, true, KTX2_BLOCK_ASTC_HDR, KTX2_DF_MODEL_ASTC, 1,             \
          SAMPLE(0, 128, KTX2_DF_CHANNEL_ASTC_DATA, FLOAT_SIGNED))

#define FLOAT_SIGNED (KTX2_DF_QUALIFIER_FLOAT | KTX2_DF_QUALIFIER_SIGNED)
#define UASTC(id, nm, srgb_, channel)                                                              \
    BLOCK16(id, nm, 4, srgb_, KTX2_BLOCK_UASTC, KTX2_DF_MODEL_UASTC, channel)

const ktx2_format_info ktx2_formats[] = {
    PLAIN(KTX2_VK_FORMAT_R8_UNORM, "r8_unorm", 1, 1, 8, false, false,
          SAMPLE(0, 8, KTX2_DF_CHANNEL_RGBSDA_R, 0)),
    PLAIN(KTX2_VK_FORMAT_R8G8_UNORM, "rg8_unorm", 1, 2, 8, false, false,
          SAMPLE(0, 8, KTX2_DF_CHANNEL_RGBSDA_R, 0), SAMPLE(1, 8, KTX2_DF_CHANNEL_RGBSDA_G, 0)),
    PLAIN(KTX2_VK_FORMAT_R8G8B8A8_UNORM, "rgba8_unorm", 1, 4, 8, false, false, RGBA(8, 0, 0)),
    /* The alpha of an sRGB format is linear. */
    PLAIN(KTX2_VK_FORMAT_R8G8B8A8_SRGB, "rgba8_srgb", 1, 4, 8, true, false,
          RGBA(8, 0, KTX2_DF_QUALIFIER_LINEAR)),
    PLAIN(KTX2_VK_FORMAT_R16G16B16A16_SFLOAT, "rgba16_sfloat", 2, 4, 16, false, true,
          RGBA(16, FLOAT_SIGNED, 0)),
    /* BC1: one sample, COLOR (RGB) or ALPHAPRESENT (RGBA, 1-bit alpha). */
    BLOCK(KTX2_VK_FORMAT_BC1_RGB_UNORM, "bc1_rgb_unorm", 8, 4, 4, false, false, KTX2_BLOCK_BC1,
          KTX2_DF_MODEL_BC1A, 1, SAMPLE(0, 64, KTX2_DF_CHANNEL_BC1A_COLOR, 0)),
    BLOCK(KTX2_VK_FORMAT_BC1_RGB_SRGB, "bc1_rgb_srgb", 8, 4, 4, true, false, KTX2_BLOCK_BC1,
          KTX2_DF_MODEL_BC1A, 1, SAMPLE(0, 64, KTX2_DF_CHANNEL_BC1A_COLOR, 0)),
    BLOCK(KTX2_VK_FORMAT_BC1_RGBA_UNORM, "bc1_rgba_unorm", 8, 4, 4, false, false, KTX2_BLOCK_BC1A,
          KTX2_DF_MODEL_BC1A, 1, SAMPLE(0, 64, KTX2_DF_CHANNEL_BC1A_ALPHAPRESENT, 0)),
    BLOCK(KTX2_VK_FORMAT_BC1_RGBA_SRGB, "bc1_rgba_srgb", 8, 4, 4, true, false, KTX2_BLOCK_BC1A,
          KTX2_DF_MODEL_BC1A, 1, SAMPLE(0, 64, KTX2_DF_CHANNEL_BC1A_ALPHAPRESENT, 0)),
    /* BC3: the alpha block, then the colour block. */
    BLOCK(KTX2_VK_FORMAT_BC3_UNORM, "bc3_unorm", 16, 4, 4, false, false, KTX2_BLOCK_BC3,
          KTX2_DF_MODEL_BC3, 2, SAMPLE(0, 64, KTX2_DF_CHANNEL_BC3_ALPHA, 0),
          SAMPLE(1, 64, KTX2_DF_CHANNEL_BC3_COLOR, 0)),
    BLOCK(KTX2_VK_FORMAT_BC3_SRGB, "bc3_srgb", 16, 4, 4, true, false, KTX2_BLOCK_BC3,
          KTX2_DF_MODEL_BC3, 2, SAMPLE(0, 64, KTX2_DF_CHANNEL_BC3_ALPHA, 0),
          SAMPLE(1, 64, KTX2_DF_CHANNEL_BC3_COLOR, 0)),
    BLOCK(KTX2_VK_FORMAT_BC4_UNORM, "bc4_unorm", 8, 4, 4, false, false, KTX2_BLOCK_BC4,
          KTX2_DF_MODEL_BC4, 1, SAMPLE(0, 64, KTX2_DF_CHANNEL_BC4_DATA, 0)),
    /* BC5: red, then green. */
    BLOCK(KTX2_VK_FORMAT_BC5_UNORM, "bc5_unorm", 16, 4, 4, false, false, KTX2_BLOCK_BC5,
          KTX2_DF_MODEL_BC5, 2, SAMPLE(0, 64, KTX2_DF_CHANNEL_BC5_RED, 0),
          SAMPLE(1, 64, KTX2_DF_CHANNEL_BC5_GREEN, 0)),
    /* BC6H_UFLOAT: unsigned floats, 0.0f..1.0f. */
    BLOCK(KTX2_VK_FORMAT_BC6H_UFLOAT, "bc6h_ufloat", 16, 4, 4, false, true, KTX2_BLOCK_BC6H,
          KTX2_DF_MODEL_BC6H, 1,
          SAMPLE(0, 128, KTX2_DF_CHANNEL_BC6H_COLOR, KTX2_DF_QUALIFIER_FLOAT)),
    BLOCK16(KTX2_VK_FORMAT_BC7_UNORM, "bc7_unorm", 4, false, KTX2_BLOCK_BC7, KTX2_DF_MODEL_BC7,
            KTX2_DF_CHANNEL_BC7_COLOR),
    BLOCK16(KTX2_VK_FORMAT_BC7_SRGB, "bc7_srgb", 4, true, KTX2_BLOCK_BC7, KTX2_DF_MODEL_BC7,
            KTX2_DF_CHANNEL_BC7_COLOR),
    ASTC_LDR(KTX2_VK_FORMAT_ASTC_4x4_UNORM, "astc_4x4_unorm", 4, false),
    ASTC_LDR(KTX2_VK_FORMAT_ASTC_4x4_SRGB, "astc_4x4_srgb", 4, true),
    ASTC_HDR(KTX2_VK_FORMAT_ASTC_4x4_SFLOAT, "astc_4x4_sfloat", 4),
    ASTC_LDR(KTX2_VK_FORMAT_ASTC_5x5_UNORM, "astc_5x5_unorm", 5, false),
    ASTC_LDR(KTX2_VK_FORMAT_ASTC_5x5_SRGB, "astc_5x5_srgb", 5, true),
    ASTC_HDR(KTX2_VK_FORMAT_ASTC_5x5_SFLOAT, "astc_5x5_sfloat", 5),
    ASTC_LDR(KTX2_VK_FORMAT_ASTC_6x6_UNORM, "astc_6x6_unorm", 6, false),
    ASTC_LDR(KTX2_VK_FORMAT_ASTC_6x6_SRGB, "astc_6x6_srgb", 6, true),
    ASTC_HDR(KTX2_VK_FORMAT_ASTC_6x6_SFLOAT, "astc_6x6_sfloat", 6),
    ASTC_LDR(KTX2_VK_FORMAT_ASTC_8x8_UNORM, "astc_8x8_unorm", 8, false),
    ASTC_LDR(KTX2_VK_FORMAT_ASTC_8x8_SRGB, "astc_8x8_srgb", 8, true),
    ASTC_HDR(KTX2_VK_FORMAT_ASTC_8x8_SFLOAT, "astc_8x8_sfloat", 8),
    /* UASTC: one 128-bit sample whose channel id says RGB or RGBA; the
     * transfer function is the DFD's alone (KTX 2.0, section 3.10.2). */
    UASTC(KTX2_KILN_UASTC_RGB_UNORM, "uastc_rgb_linear", false, KTX2_DF_CHANNEL_UASTC_RGB),
    UASTC(KTX2_KILN_UASTC_RGB_SRGB, "uastc_rgb_srgb", true, KTX2_DF_CHANNEL_UASTC_RGB),
    UASTC(KTX2_KILN_UASTC_RGBA_UNORM, "uastc_rgba_linear", false, KTX2_DF_CHANNEL_UASTC_RGBA),
    UASTC(KTX2_KILN_UASTC_RGBA_SRGB, "uastc_rgba_srgb", true, KTX2_DF_CHANNEL_UASTC_RGBA),
};
const size_t ktx2_format_count = sizeof ktx2_formats / sizeof ktx2_formats[0];

#undef SAMPLE
#undef RGBA
#undef PLAIN
#undef BLOCK
#undef BLOCK16
#undef ASTC_LDR
#undef ASTC_HDR
#undef FLOAT_SIGNED
#undef UASTC

const ktx2_format_info *ktx2_format_find(uint32_t vk_format) {
    for (size_t i = 0; i < ktx2_format_count; i++)
        if (ktx2_formats[i].vk_format == vk_format)
            return &ktx2_formats[i];
    return NULL;
}

const ktx2_format_info *ktx2_format_of_file(uint32_t vk_format, uint8_t dfd_model, uint8_t transfer,
                                            uint8_t channel) {
    if (vk_format != KTX2_VK_FORMAT_UNDEFINED)
        return ktx2_format_find(vk_format);
    if (dfd_model != KTX2_DF_MODEL_UASTC ||
        (channel != KTX2_DF_CHANNEL_UASTC_RGB && channel != KTX2_DF_CHANNEL_UASTC_RGBA))
        return NULL;
    return ktx2_uastc_format(transfer == KTX2_DF_TRANSFER_SRGB,
                             channel == KTX2_DF_CHANNEL_UASTC_RGBA);
}

uint32_t ktx2_file_vk_format(const ktx2_format_info *format) {
    return format->block == KTX2_BLOCK_UASTC ? KTX2_VK_FORMAT_UNDEFINED : format->vk_format;
}

const ktx2_format_info *ktx2_uastc_format(bool srgb, bool alpha) {
    return ktx2_format_find(alpha ? (srgb ? KTX2_KILN_UASTC_RGBA_SRGB : KTX2_KILN_UASTC_RGBA_UNORM)
                                  : (srgb ? KTX2_KILN_UASTC_RGB_SRGB : KTX2_KILN_UASTC_RGB_UNORM));
}

uint32_t ktx2_vk_format_of_block(ktx2_block block, uint32_t block_width, bool srgb) {
    for (size_t i = 0; i < ktx2_format_count; i++) {
        const ktx2_format_info *f = &ktx2_formats[i];
        if (block != KTX2_BLOCK_NONE && f->block == block && f->block_width == block_width &&
            f->srgb == srgb)
            return f->vk_format;
    }
    return 0;
}

uint32_t ktx2_dfd_block_size(const ktx2_format_info *format) {
    return KTX2_DF_BLOCK_HEADER_SIZE + KTX2_DF_SAMPLE_SIZE * (uint32_t)format->sample_count;
}

uint32_t ktx2_mip_dim(uint32_t size, uint32_t level) {
    uint32_t v = level < 32 ? size >> level : 0;
    return v > 0 ? v : 1;
}

uint64_t ktx2_level_byte_size(const ktx2_format_info *f, uint32_t width, uint32_t height,
                              uint32_t depth, uint32_t layers, uint32_t faces, uint32_t level) {
    uint64_t w = ktx2_mip_dim(width, level), h = ktx2_mip_dim(height, level);
    uint64_t d = depth > 0 ? ktx2_mip_dim(depth, level) : 1;
    uint64_t bw = (w + f->block_width - 1) / f->block_width;
    uint64_t bh = (h + f->block_height - 1) / f->block_height;
    uint64_t size = bw, tmp;
    if (!checked_mul_u64(size, bh, &tmp) || !checked_mul_u64(tmp, d, &size) ||
        !checked_mul_u64(size, layers > 0 ? layers : 1, &tmp) ||
        !checked_mul_u64(tmp, faces > 0 ? faces : 1, &size) ||
        !checked_mul_u64(size, f->block_bytes, &tmp))
        return 0;
    return tmp;
}
