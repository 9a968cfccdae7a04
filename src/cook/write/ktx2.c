/*
 * ktx2.c — serialise a texture as a KTX 2.0 file (docs/formats/ktx2.md).
 *
 * Layout written, in file order:
 *   identifier (12) | header (9 x u32) | index (4 x u32, 2 x u64)
 *   | level index (levelCount x 3 x u64, level 0 first)
 *   | DFD (u32 total size + one basic descriptor block)
 *   | key/value data (KTXorientation, KTXwriter; sorted by key, 4-aligned)
 *   | level data, smallest level first (level N-1 ... level 0).
 * Without supercompression each level starts at a multiple of
 * lcm(texel block bytes, 4); with Zstd (scheme 2) levels are byte-aligned as
 * the specification allows. No supercompression global data is needed for
 * Zstd. A block-compressed format plugs in as one row in format_table (with
 * its block size and DFD colour model) and level data of whole blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "common/checked.h"
#include "cook/texture_internal.h"

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

static const ktx2_format_info format_table[] = {
    {KTX2_VK_FORMAT_R8_UNORM, "r8_unorm", 1, 1, 1, 1, false},
    {KTX2_VK_FORMAT_R8G8_UNORM, "rg8_unorm", 1, 2, 1, 1, false},
    {KTX2_VK_FORMAT_R8G8B8A8_UNORM, "rgba8_unorm", 1, 4, 1, 1, false},
    {KTX2_VK_FORMAT_R8G8B8A8_SRGB, "rgba8_srgb", 1, 4, 1, 1, true},
    {KTX2_VK_FORMAT_R16G16B16A16_SFLOAT, "rgba16_sfloat", 2, 8, 1, 1, false},
};

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

/* One basic descriptor block for an uncompressed format. */
static bool append_dfd(bytebuf *b, const ktx2_format_info *f) {
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
    ZSTD_CCtx *zctx = NULL;
    if (d->supercompression == KTX2_SUPERCOMPRESSION_ZSTD) {
        zctx = ZSTD_createCCtx();
        if (zctx == NULL)
            return failure(reason, reason_size, "out of memory");
        ZSTD_CCtx_setParameter(zctx, ZSTD_c_compressionLevel, d->zstd_level);
        ZSTD_CCtx_setParameter(zctx, ZSTD_c_checksumFlag, 1); /* kiln check catches bit rot */
        ZSTD_CCtx_setParameter(zctx, ZSTD_c_contentSizeFlag, 1);
    }
    bool ok = true;
    for (uint32_t n = d->levels; n-- > 0 && ok;) {
        if (alignment > 1)
            pad_to(out, alignment);
        size_t at = out->size;
        size_t length;
        if (zctx != NULL) {
            size_t bound = ZSTD_compressBound(d->level_size[n]);
            bytebuf_append_zeros(out, bound);
            if (out->failed) {
                ok = false;
                break;
            }
            length =
                ZSTD_compress2(zctx, out->data + at, bound, d->level_data[n], d->level_size[n]);
            if (ZSTD_isError(length)) {
                ok = failure(reason, reason_size, "KTX2: Zstd compression failed");
                break;
            }
            out->size = at + length;
        } else {
            bytebuf_append(out, d->level_data[n], d->level_size[n]);
            length = d->level_size[n];
        }
        size_t entry = level_index_at + (size_t)n * 24;
        patch_u64(out, entry, at);
        patch_u64(out, entry + 8, length);
        patch_u64(out, entry + 16, d->level_size[n]);
    }
    ZSTD_freeCCtx(zctx);
    if (ok && out->failed)
        ok = failure(reason, reason_size, "out of memory");
    return ok;
}
