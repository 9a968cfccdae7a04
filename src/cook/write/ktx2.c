/*
 * ktx2.c — serialise a texture as a KTX 2.0 file (docs/formats/ktx2.md).
 *
 * Layout written, in file order:
 *   identifier (12) | header (9 x u32) | index (4 x u32, 2 x u64)
 *   | level index (levelCount x 3 x u64, level 0 first)
 *   | DFD (u32 total size + one basic descriptor block)
 *   | key/value data (KTXorientation, KTXwriter, kilnSource; sorted by key, 4-aligned)
 *   | level data, smallest level first (level N-1 ... level 0).
 * Without supercompression each level starts at a multiple of
 * lcm(texel block bytes, 4); with Zstd (scheme 2) levels are byte-aligned as
 * the specification allows. No supercompression global data is needed for
 * Zstd. Block-compressed formats (BC1..BC7, ASTC) are rows of format_table
 * with their block size and DFD colour model; their levels are whole blocks
 * (ceil(width / block width) x ceil(height / block height), 1x1 levels
 * included), and Zstd still shrinks them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "common/checked.h"
#include "cook/write/write.h"

static const uint8_t ktx2_identifier[12] = {0xAB, 'K',  'T',  'X',  ' ',  '2',
                                            '0',  0xBB, '\r', '\n', 0x1A, '\n'};

/* Data Format Descriptor constants (Khronos Data Format Specification 1.3). */
#define DF_MODEL_RGBSDA 1u
#define DF_PRIMARIES_BT709 1u
#define DF_TRANSFER_LINEAR 1u
#define DF_TRANSFER_SRGB 2u
#define DF_CHANNEL_R 0u
#define DF_CHANNEL_G 1u
#define DF_CHANNEL_B 2u
#define DF_CHANNEL_A 15u
#define DF_QUALIFIER_LINEAR 0x10u
#define DF_QUALIFIER_SIGNED 0x40u
#define DF_QUALIFIER_FLOAT 0x80u

/* Block-compressed colour models and their channel ids (KDFS 1.3, 5.6). */
#define DF_MODEL_BC1A 128u
#define DF_MODEL_BC3 130u
#define DF_MODEL_BC4 131u
#define DF_MODEL_BC5 132u
#define DF_MODEL_BC6H 133u
#define DF_MODEL_BC7 134u
#define DF_MODEL_ASTC 162u
#define DF_BC1A_COLOR 0u
#define DF_BC1A_ALPHAPRESENT 1u
#define DF_BC3_COLOR 0u
#define DF_BC3_ALPHA 15u
#define DF_BC5_RED 0u
#define DF_BC5_GREEN 1u

#define PLAIN(vk, name, type_size, bytes, srgb)                                                    \
    { vk, name, type_size, bytes, 1, 1, srgb, 0, 0, {0}, {0}, false }
/* One sample (channel 0) over the whole block. */
#define BLOCK1(vk, name, bytes, bw, bh, srgb, model, channel, is_float)                            \
    { vk, name, 1, bytes, bw, bh, srgb, model, 1, {channel, 0}, {0, 0}, is_float }
/* Two samples: BC3 (alpha block, then colour block), BC5 (red, then green). */
#define BLOCK2(vk, name, srgb, model, first, second)                                               \
    { vk, name, 1, 16, 4, 4, srgb, model, 2, {first, second}, {0, 64}, false }

static const ktx2_format_info format_table[] = {
    PLAIN(KTX2_VK_FORMAT_R8_UNORM, "r8_unorm", 1, 1, false),
    PLAIN(KTX2_VK_FORMAT_R8G8_UNORM, "rg8_unorm", 1, 2, false),
    PLAIN(KTX2_VK_FORMAT_R8G8B8A8_UNORM, "rgba8_unorm", 1, 4, false),
    PLAIN(KTX2_VK_FORMAT_R8G8B8A8_SRGB, "rgba8_srgb", 1, 4, true),
    PLAIN(KTX2_VK_FORMAT_R16G16B16A16_SFLOAT, "rgba16_sfloat", 2, 8, false),
    BLOCK1(KTX2_VK_FORMAT_BC1_RGB_UNORM, "bc1_rgb_unorm", 8, 4, 4, false, DF_MODEL_BC1A,
           DF_BC1A_COLOR, false),
    BLOCK1(KTX2_VK_FORMAT_BC1_RGB_SRGB, "bc1_rgb_srgb", 8, 4, 4, true, DF_MODEL_BC1A, DF_BC1A_COLOR,
           false),
    BLOCK1(KTX2_VK_FORMAT_BC1_RGBA_UNORM, "bc1_rgba_unorm", 8, 4, 4, false, DF_MODEL_BC1A,
           DF_BC1A_ALPHAPRESENT, false),
    BLOCK1(KTX2_VK_FORMAT_BC1_RGBA_SRGB, "bc1_rgba_srgb", 8, 4, 4, true, DF_MODEL_BC1A,
           DF_BC1A_ALPHAPRESENT, false),
    BLOCK2(KTX2_VK_FORMAT_BC3_UNORM, "bc3_unorm", false, DF_MODEL_BC3, DF_BC3_ALPHA, DF_BC3_COLOR),
    BLOCK2(KTX2_VK_FORMAT_BC3_SRGB, "bc3_srgb", true, DF_MODEL_BC3, DF_BC3_ALPHA, DF_BC3_COLOR),
    BLOCK1(KTX2_VK_FORMAT_BC4_UNORM, "bc4_unorm", 8, 4, 4, false, DF_MODEL_BC4, 0, false),
    BLOCK2(KTX2_VK_FORMAT_BC5_UNORM, "bc5_unorm", false, DF_MODEL_BC5, DF_BC5_RED, DF_BC5_GREEN),
    BLOCK1(KTX2_VK_FORMAT_BC6H_UFLOAT, "bc6h_ufloat", 16, 4, 4, false, DF_MODEL_BC6H, 0, true),
    BLOCK1(KTX2_VK_FORMAT_BC7_UNORM, "bc7_unorm", 16, 4, 4, false, DF_MODEL_BC7, 0, false),
    BLOCK1(KTX2_VK_FORMAT_BC7_SRGB, "bc7_srgb", 16, 4, 4, true, DF_MODEL_BC7, 0, false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_4x4_UNORM, "astc_4x4_unorm", 16, 4, 4, false, DF_MODEL_ASTC, 0,
           false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_4x4_SRGB, "astc_4x4_srgb", 16, 4, 4, true, DF_MODEL_ASTC, 0, false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_4x4_SFLOAT, "astc_4x4_sfloat", 16, 4, 4, false, DF_MODEL_ASTC, 0,
           true),
    BLOCK1(KTX2_VK_FORMAT_ASTC_5x5_UNORM, "astc_5x5_unorm", 16, 5, 5, false, DF_MODEL_ASTC, 0,
           false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_5x5_SRGB, "astc_5x5_srgb", 16, 5, 5, true, DF_MODEL_ASTC, 0, false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_5x5_SFLOAT, "astc_5x5_sfloat", 16, 5, 5, false, DF_MODEL_ASTC, 0,
           true),
    BLOCK1(KTX2_VK_FORMAT_ASTC_6x6_UNORM, "astc_6x6_unorm", 16, 6, 6, false, DF_MODEL_ASTC, 0,
           false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_6x6_SRGB, "astc_6x6_srgb", 16, 6, 6, true, DF_MODEL_ASTC, 0, false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_6x6_SFLOAT, "astc_6x6_sfloat", 16, 6, 6, false, DF_MODEL_ASTC, 0,
           true),
    BLOCK1(KTX2_VK_FORMAT_ASTC_8x8_UNORM, "astc_8x8_unorm", 16, 8, 8, false, DF_MODEL_ASTC, 0,
           false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_8x8_SRGB, "astc_8x8_srgb", 16, 8, 8, true, DF_MODEL_ASTC, 0, false),
    BLOCK1(KTX2_VK_FORMAT_ASTC_8x8_SFLOAT, "astc_8x8_sfloat", 16, 8, 8, false, DF_MODEL_ASTC, 0,
           true),
};
#undef PLAIN
#undef BLOCK1
#undef BLOCK2

const ktx2_format_info *ktx2_format_find(uint32_t vk_format) {
    for (size_t i = 0; i < sizeof format_table / sizeof format_table[0]; i++)
        if (format_table[i].vk_format == vk_format)
            return &format_table[i];
    return NULL;
}

static void put_u8(bytebuf *b, uint8_t v) {
    bytebuf_append(b, &v, 1);
}
static void put_u16(bytebuf *b, uint16_t v) {
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    bytebuf_append(b, x, 2);
}
static void put_u32(bytebuf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    bytebuf_append(b, x, 4);
}
static void put_u64(bytebuf *b, uint64_t v) {
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}
static void patch_u64(bytebuf *b, size_t at, uint64_t v) {
    if (b->failed || at + 8 > b->size)
        return;
    for (int i = 0; i < 8; i++)
        b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static void patch_u32(bytebuf *b, size_t at, uint32_t v) {
    if (b->failed || at + 4 > b->size)
        return;
    for (int i = 0; i < 4; i++)
        b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static void pad_to(bytebuf *b, size_t alignment) {
    size_t rem = b->size % alignment;
    if (rem != 0)
        bytebuf_append_zeros(b, alignment - rem);
}

typedef struct dfd_sample {
    uint8_t channel;
    uint8_t bit_offset_bytes;
} dfd_sample;

/* The basic descriptor block of a block-compressed format (KDFS 1.3: one
 * sample per channel of the colour model, each as long as its part of the
 * block; lower/upper 0..UINT32_MAX for normalised data, 0.0f..1.0f for
 * unsigned floats, -1.0f..1.0f for signed floats). */
static void append_block_dfd(bytebuf *b, const ktx2_format_info *f) {
    uint32_t block_size = 24 + 16 * (uint32_t)f->sample_count;
    uint32_t sample_bits = (f->block_bytes * 8u) / f->sample_count;
    bool is_signed = f->is_float && f->dfd_model == DF_MODEL_ASTC; /* ASTC HDR is SFLOAT */
    put_u32(b, 4 + block_size);
    put_u32(b, 0);
    put_u16(b, 2);
    put_u16(b, (uint16_t)block_size);
    put_u8(b, f->dfd_model);
    put_u8(b, DF_PRIMARIES_BT709);
    put_u8(b, f->srgb ? DF_TRANSFER_SRGB : DF_TRANSFER_LINEAR);
    put_u8(b, 0);                              /* flags: alpha straight */
    put_u8(b, (uint8_t)(f->block_width - 1));  /* texelBlockDimension0 */
    put_u8(b, (uint8_t)(f->block_height - 1)); /* texelBlockDimension1 */
    put_u16(b, 0);                             /* dimensions 2 and 3: 1 */
    put_u8(b, (uint8_t)f->block_bytes);        /* bytesPlane0 */
    bytebuf_append_zeros(b, 7);
    for (uint32_t s = 0; s < f->sample_count; s++) {
        uint8_t qualifiers = 0;
        if (f->is_float)
            qualifiers |= DF_QUALIFIER_FLOAT | (is_signed ? DF_QUALIFIER_SIGNED : 0u);
        put_u16(b, f->sample_offset[s]);
        put_u8(b, (uint8_t)(sample_bits - 1));
        put_u8(b, (uint8_t)(f->sample_channel[s] | qualifiers));
        put_u32(b, 0); /* samplePosition */
        if (f->is_float) {
            put_u32(b, is_signed ? 0xBF800000u : 0u); /* -1.0f or 0.0f */
            put_u32(b, 0x3F800000u);                  /* 1.0f */
        } else {
            put_u32(b, 0);
            put_u32(b, 0xFFFFFFFFu);
        }
    }
}

/* One basic descriptor block for an uncompressed format. */
static bool append_dfd(bytebuf *b, const ktx2_format_info *f) {
    if (f->dfd_model != 0) {
        append_block_dfd(b, f);
        return true;
    }
    uint32_t channels, bits;
    bool is_float = false;
    switch (f->vk_format) {
    case KTX2_VK_FORMAT_R8_UNORM:
        channels = 1;
        bits = 8;
        break;
    case KTX2_VK_FORMAT_R8G8_UNORM:
        channels = 2;
        bits = 8;
        break;
    case KTX2_VK_FORMAT_R8G8B8A8_UNORM:
    case KTX2_VK_FORMAT_R8G8B8A8_SRGB:
        channels = 4;
        bits = 8;
        break;
    case KTX2_VK_FORMAT_R16G16B16A16_SFLOAT:
        channels = 4;
        bits = 16;
        is_float = true;
        break;
    default:
        return false;
    }
    static const uint8_t ids[4] = {DF_CHANNEL_R, DF_CHANNEL_G, DF_CHANNEL_B, DF_CHANNEL_A};
    uint32_t block_size = 24 + 16 * channels;
    put_u32(b, 4 + block_size);       /* dfdTotalSize */
    put_u32(b, 0);                    /* vendorId 0 (Khronos), descriptorType 0 */
    put_u16(b, 2);                    /* versionNumber: KDF 1.3 */
    put_u16(b, (uint16_t)block_size); /* descriptorBlockSize */
    put_u8(b, DF_MODEL_RGBSDA);
    put_u8(b, DF_PRIMARIES_BT709);
    put_u8(b, f->srgb ? DF_TRANSFER_SRGB : DF_TRANSFER_LINEAR);
    put_u8(b, 0);                       /* flags: alpha straight */
    put_u32(b, 0);                      /* texelBlockDimension 1x1x1x1 */
    put_u8(b, (uint8_t)f->block_bytes); /* bytesPlane0 */
    bytebuf_append_zeros(b, 7);         /* bytesPlane1..7 */
    for (uint32_t c = 0; c < channels; c++) {
        uint8_t id = channels == 4 ? ids[c] : (uint8_t)c;
        uint8_t qualifiers = 0;
        if (is_float)
            qualifiers |= DF_QUALIFIER_FLOAT | DF_QUALIFIER_SIGNED;
        if (f->srgb && id == DF_CHANNEL_A)
            qualifiers |= DF_QUALIFIER_LINEAR;
        put_u16(b, (uint16_t)(c * bits)); /* bitOffset */
        put_u8(b, (uint8_t)(bits - 1));   /* bitLength - 1 */
        put_u8(b, (uint8_t)(id | qualifiers));
        put_u32(b, 0); /* samplePosition 0,0,0,0 */
        if (is_float) {
            put_u32(b, 0xBF800000u); /* -1.0f */
            put_u32(b, 0x3F800000u); /* 1.0f */
        } else {
            put_u32(b, 0);
            put_u32(b, (1u << bits) - 1u);
        }
    }
    return true;
}

static void append_key_value(bytebuf *b, const char *key, const char *value) {
    size_t key_length = strlen(key) + 1, value_length = strlen(value) + 1;
    put_u32(b, (uint32_t)(key_length + value_length));
    bytebuf_append(b, key, key_length);
    bytebuf_append(b, value, value_length);
    pad_to(b, 4);
}

static uint32_t mip_dim(uint32_t size, uint32_t level) {
    uint32_t v = level < 32 ? size >> level : 0;
    return v > 0 ? v : 1;
}

uint64_t ktx2_level_byte_size(const ktx2_format_info *f, uint32_t width, uint32_t height,
                              uint32_t depth, uint32_t layers, uint32_t faces, uint32_t level) {
    uint64_t w = mip_dim(width, level), h = mip_dim(height, level);
    uint64_t d = depth > 0 ? mip_dim(depth, level) : 1;
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

/* Zstd of every level, before the file is laid out. Levels are independent
 * streams, so they are compressed on `threads` threads: with N threads, the N-1
 * largest levels each get one, the last takes every smaller level. Each level's
 * bytes depend only on its texels and the level, never on the thread. */
typedef struct zstd_levels {
    const ktx2_image_desc *desc;
    uint32_t items;
    uint8_t *data[32];
    size_t size[32];
    bool failed[32]; /* per level: items write only their own levels */
} zstd_levels;

static void compress_levels_item(void *arg, uint32_t item) {
    zstd_levels *z = arg;
    const ktx2_image_desc *d = z->desc;
    uint32_t first = item, last = item + 1 == z->items ? d->levels : item + 1;
    ZSTD_CCtx *zctx = ZSTD_createCCtx();
    if (zctx == NULL) {
        z->failed[first] = true;
        return;
    }
    ZSTD_CCtx_setParameter(zctx, ZSTD_c_compressionLevel, d->zstd_level);
    ZSTD_CCtx_setParameter(zctx, ZSTD_c_checksumFlag, 1); /* kiln check catches bit rot */
    ZSTD_CCtx_setParameter(zctx, ZSTD_c_contentSizeFlag, 1);
    for (uint32_t n = first; n < last; n++) {
        size_t bound = ZSTD_compressBound(d->level_size[n]);
        z->data[n] = malloc(bound ? bound : 1);
        size_t length = z->data[n] == NULL ? 0
                                           : ZSTD_compress2(zctx, z->data[n], bound,
                                                            d->level_data[n], d->level_size[n]);
        if (z->data[n] == NULL || ZSTD_isError(length)) {
            z->failed[n] = true;
            break;
        }
        z->size[n] = length;
    }
    ZSTD_freeCCtx(zctx);
}

static bool compress_levels(const ktx2_image_desc *d, zstd_levels *z) {
    memset(z, 0, sizeof *z);
    z->desc = d;
    /* Below ~256 KiB (about half a millisecond of Zstd) a second thread
     * costs more than it saves: a 32x32 chain took twice as long on 2
     * (measured when threads were started per call). */
    size_t total = 0;
    for (uint32_t n = 0; n < d->levels; n++)
        total += d->level_size[n];
    z->items = d->threads > 1 && total >= ((size_t)256 << 10) ? d->threads : 1;
    if (z->items > d->levels)
        z->items = d->levels;
    parallel_for(z->items, z->items, compress_levels_item, z);
    for (uint32_t n = 0; n < d->levels; n++)
        if (z->failed[n])
            return false;
    return true;
}

static void free_levels(zstd_levels *z) {
    for (uint32_t n = 0; n < 32; n++)
        free(z->data[n]);
}

static bool failure(char *reason, size_t reason_size, const char *message) {
    snprintf(reason, reason_size, "%s", message);
    return false;
}

bool write_ktx2(const ktx2_image_desc *d, bytebuf *out, char *reason, size_t reason_size) {
    const ktx2_format_info *f = ktx2_format_find(d->vk_format);
    if (f == NULL)
        return failure(reason, reason_size, "KTX2: unsupported vkFormat");
    if (d->width == 0 || d->levels == 0 || d->levels > 32 || (d->faces != 1 && d->faces != 6) ||
        (d->supercompression != KTX2_SUPERCOMPRESSION_NONE &&
         d->supercompression != KTX2_SUPERCOMPRESSION_ZSTD))
        return failure(reason, reason_size, "KTX2: invalid image description");
    for (uint32_t i = 0; i < d->levels; i++) {
        uint64_t expected =
            ktx2_level_byte_size(f, d->width, d->height, d->depth, d->layers, d->faces, i);
        if (expected == 0 || expected != d->level_size[i])
            return failure(reason, reason_size, "KTX2: level size does not match dimensions");
    }

    /* Header. */
    bytebuf_append(out, ktx2_identifier, sizeof ktx2_identifier);
    put_u32(out, d->vk_format);
    put_u32(out, f->type_size);
    put_u32(out, d->width);
    put_u32(out, d->height);
    put_u32(out, d->depth);
    put_u32(out, d->layers);
    put_u32(out, d->faces);
    put_u32(out, d->levels);
    put_u32(out, d->supercompression);
    size_t index_at = out->size;
    put_u32(out, 0);                   /* dfdByteOffset */
    put_u32(out, 0);                   /* dfdByteLength */
    put_u32(out, 0);                   /* kvdByteOffset */
    put_u32(out, 0);                   /* kvdByteLength */
    put_u64(out, 0);                   /* sgdByteOffset */
    put_u64(out, 0);                   /* sgdByteLength */
    size_t level_index_at = out->size; /* 80 */
    for (uint32_t i = 0; i < d->levels; i++) {
        put_u64(out, 0);
        put_u64(out, 0);
        put_u64(out, 0);
    }
    /* DFD. */
    size_t dfd_at = out->size;
    if (!append_dfd(out, f))
        return failure(reason, reason_size, "KTX2: no DFD for this vkFormat");
    size_t dfd_length = out->size - dfd_at;
    /* Key/value data, sorted by key. */
    size_t kvd_at = out->size;
    append_key_value(out, "KTXorientation", d->depth > 0 ? "rdi" : "rd");
    append_key_value(out, "KTXwriter", "kiln " KILN_VERSION_STRING);
    if (d->source != NULL) /* sorts after the KTX keys: 'k' > 'K' */
        append_key_value(out, "kilnSource", d->source);
    size_t kvd_length = out->size - kvd_at;
    patch_u32(out, index_at, (uint32_t)dfd_at);
    patch_u32(out, index_at + 4, (uint32_t)dfd_length);
    patch_u32(out, index_at + 8, (uint32_t)kvd_at);
    patch_u32(out, index_at + 12, (uint32_t)kvd_length);

    /* Levels, smallest first. */
    size_t alignment = d->supercompression == KTX2_SUPERCOMPRESSION_NONE
                           ? (f->block_bytes % 4 == 0   ? f->block_bytes
                              : f->block_bytes % 2 == 0 ? (size_t)f->block_bytes * 2
                                                        : (size_t)f->block_bytes * 4)
                           : 1;
    bool zstd = d->supercompression == KTX2_SUPERCOMPRESSION_ZSTD;
    zstd_levels *z = zstd ? malloc(sizeof *z) : NULL;
    bool ok = !zstd || (z != NULL && compress_levels(d, z));
    if (!ok)
        failure(reason, reason_size, "KTX2: Zstd compression failed (out of memory?)");
    for (uint32_t n = d->levels; n-- > 0 && ok;) {
        if (alignment > 1)
            pad_to(out, alignment);
        size_t at = out->size;
        size_t length = zstd ? z->size[n] : d->level_size[n];
        bytebuf_append(out, zstd ? z->data[n] : d->level_data[n], length);
        size_t entry = level_index_at + (size_t)n * 24;
        patch_u64(out, entry, at);
        patch_u64(out, entry + 8, length);
        patch_u64(out, entry + 16, d->level_size[n]);
    }
    if (z != NULL)
        free_levels(z);
    free(z);
    if (ok && out->failed)
        ok = failure(reason, reason_size, "out of memory");
    return ok;
}
