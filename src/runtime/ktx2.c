/*
 * ktx2.c — the runtime's KTX 2.0 reader (docs/formats/ktx2.md, "Reader
 * requirements").
 *
 * Nothing in the file is trusted: every offset and length is checked against
 * the file size with overflow-safe arithmetic, level sizes are recomputed from
 * the dimensions and compared with the level index, and the Data Format
 * Descriptor must describe exactly the vkFormat in the header. Fields are read
 * with explicit little-endian loads, so the bytes need no alignment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "common/checked.h"
#include "runtime/internal.h"

/* The most a Zstd frame can inflate per byte: every block holds at most
 * 128 KiB and takes at least 4 bytes (an RLE block: 3-byte header + 1 byte). */
#define ZSTD_MAX_RATIO 32768u

#define KTX2_HEADER_SIZE 80u
#define KTX2_LEVEL_ENTRY_SIZE 24u
#define KTX2_MAX_LEVELS 32u

static const uint8_t ktx2_identifier[12] = {0xAB, 'K',  'T',  'X',  ' ',  '2',
                                            '0',  0xBB, '\r', '\n', 0x1A, '\n'};

typedef struct format_row {
    uint32_t vk_format;
    const char *name;
    uint32_t type_size;
    uint32_t block_bytes;
    uint32_t channels; /* uncompressed: channels; block formats: DFD samples */
    uint32_t bits;     /* uncompressed: bits per channel */
    bool is_float;
    bool srgb;
    /* Block-compressed formats: block size and DFD colour model (0 for the
     * uncompressed RGBSDA formats), channel id of each sample. */
    uint8_t block_width, block_height;
    uint8_t model;
    uint8_t sample_channel[2];
} format_row;

#define PLAIN(vk, name, ts, bytes, ch, bits, fl, srgb)                                             \
    {                                                                                              \
        vk, name, ts, bytes, ch, bits, fl, srgb, 1, 1, 0, {                                        \
            0, 0                                                                                   \
        }                                                                                          \
    }
#define BLOCK(vk, name, bytes, bw, bh, fl, srgb, model, samples, c0, c1)                           \
    {                                                                                              \
        vk, name, 1, bytes, samples, 0, fl, srgb, bw, bh, model, {                                 \
            c0, c1                                                                                 \
        }                                                                                          \
    }
/* Colour models (KDFS): BC1A 128, BC3 130, BC4 131, BC5 132, BC6H 133,
 * BC7 134, ASTC 162. */
static const format_row formats[] = {
    PLAIN(9, "r8_unorm", 1, 1, 1, 8, false, false),
    PLAIN(16, "rg8_unorm", 1, 2, 2, 8, false, false),
    PLAIN(37, "rgba8_unorm", 1, 4, 4, 8, false, false),
    PLAIN(43, "rgba8_srgb", 1, 4, 4, 8, false, true),
    PLAIN(97, "rgba16_sfloat", 2, 8, 4, 16, true, false),
    BLOCK(131, "bc1_rgb_unorm", 8, 4, 4, false, false, 128, 1, 0, 0),
    BLOCK(132, "bc1_rgb_srgb", 8, 4, 4, false, true, 128, 1, 0, 0),
    BLOCK(133, "bc1_rgba_unorm", 8, 4, 4, false, false, 128, 1, 1, 0),
    BLOCK(134, "bc1_rgba_srgb", 8, 4, 4, false, true, 128, 1, 1, 0),
    BLOCK(137, "bc3_unorm", 16, 4, 4, false, false, 130, 2, 15, 0),
    BLOCK(138, "bc3_srgb", 16, 4, 4, false, true, 130, 2, 15, 0),
    BLOCK(139, "bc4_unorm", 8, 4, 4, false, false, 131, 1, 0, 0),
    BLOCK(141, "bc5_unorm", 16, 4, 4, false, false, 132, 2, 0, 1),
    BLOCK(143, "bc6h_ufloat", 16, 4, 4, true, false, 133, 1, 0, 0),
    BLOCK(145, "bc7_unorm", 16, 4, 4, false, false, 134, 1, 0, 0),
    BLOCK(146, "bc7_srgb", 16, 4, 4, false, true, 134, 1, 0, 0),
    BLOCK(157, "astc_4x4_unorm", 16, 4, 4, false, false, 162, 1, 0, 0),
    BLOCK(158, "astc_4x4_srgb", 16, 4, 4, false, true, 162, 1, 0, 0),
    BLOCK(161, "astc_5x5_unorm", 16, 5, 5, false, false, 162, 1, 0, 0),
    BLOCK(162, "astc_5x5_srgb", 16, 5, 5, false, true, 162, 1, 0, 0),
    BLOCK(165, "astc_6x6_unorm", 16, 6, 6, false, false, 162, 1, 0, 0),
    BLOCK(166, "astc_6x6_srgb", 16, 6, 6, false, true, 162, 1, 0, 0),
    BLOCK(171, "astc_8x8_unorm", 16, 8, 8, false, false, 162, 1, 0, 0),
    BLOCK(172, "astc_8x8_srgb", 16, 8, 8, false, true, 162, 1, 0, 0),
    BLOCK(1000066000u, "astc_4x4_sfloat", 16, 4, 4, true, false, 162, 1, 0, 0),
    BLOCK(1000066002u, "astc_5x5_sfloat", 16, 5, 5, true, false, 162, 1, 0, 0),
    BLOCK(1000066004u, "astc_6x6_sfloat", 16, 6, 6, true, false, 162, 1, 0, 0),
    BLOCK(1000066007u, "astc_8x8_sfloat", 16, 8, 8, true, false, 162, 1, 0, 0),
};
#undef PLAIN
#undef BLOCK

static const format_row *find_format(uint32_t vk_format) {
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].vk_format == vk_format)
            return &formats[i];
    return NULL;
}

const char *kiln_ktx2_format_str(uint32_t vk_format) {
    const format_row *row = find_format(vk_format);
    return row != NULL ? row->name : "unknown";
}

const char *kiln_ktx2_supercompression_str(uint32_t scheme) {
    switch (scheme) {
    case 0:
        return "none";
    case 1:
        return "basislz";
    case 2:
        return "zstd";
    case 3:
        return "zlib";
    default:
        return "unknown";
    }
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint16_t rd16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint64_t rd64(const uint8_t *p) {
    return rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

static uint32_t mip_dim(uint32_t size, uint32_t level) {
    uint32_t v = level < 32 ? size >> level : 0;
    return v > 0 ? v : 1;
}

void kiln_ktx2_level_extent(const kiln_ktx2_view *view, uint32_t level, uint32_t *width,
                            uint32_t *height, uint32_t *depth) {
    *width = mip_dim(view->width, level);
    *height = mip_dim(view->height > 0 ? view->height : 1, level);
    *depth = mip_dim(view->depth > 0 ? view->depth : 1, level);
}

static uint64_t level_size_of(const kiln_ktx2_view *v, uint32_t level) {
    uint32_t w, h, d;
    kiln_ktx2_level_extent(v, level, &w, &h, &d);
    uint64_t size, tmp;
    uint64_t bw = ((uint64_t)w + v->block_width - 1) / v->block_width;
    uint64_t bh = ((uint64_t)h + v->block_height - 1) / v->block_height;
    if (!checked_mul_u64(bw, bh, &size) || !checked_mul_u64(size, d, &tmp) ||
        !checked_mul_u64(tmp, v->layers > 0 ? v->layers : 1, &size) ||
        !checked_mul_u64(size, v->faces, &tmp) || !checked_mul_u64(tmp, v->block_bytes, &size))
        return 0;
    return size;
}

uint64_t kiln_ktx2_level_size(const kiln_ktx2_view *view, uint32_t level) {
    if (view == NULL || level >= view->levels)
        return 0;
    return level_size_of(view, level);
}

kiln_result kiln_ktx2_image_range(const kiln_ktx2_view *view, uint32_t level, uint32_t layer,
                                  uint32_t face, uint64_t *offset, uint64_t *size) {
    uint32_t layers = view != NULL && view->layers > 0 ? view->layers : 1;
    if (view == NULL || offset == NULL || size == NULL || level >= view->levels ||
        layer >= layers || face >= view->faces)
        return KILN_ERR_INVALID_ARGUMENT;
    uint64_t images = (uint64_t)layers * view->faces;
    *size = level_size_of(view, level) / images; /* the level size is a multiple */
    *offset = ((uint64_t)layer * view->faces + face) * *size;
    return KILN_OK;
}

/* A block-compressed format's DFD: its colour model, block dimensions,
 * bytesPlane0 and one sample per model channel spanning its part of the block. */
static kiln_result check_block_dfd(kiln_ktx2_view *v, const format_row *f, const uint8_t *b,
                                   uint16_t block_size, kiln_error *err) {
    const char *name = v->name;
    if (block_size != 24 + 16 * f->channels)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD block size does not match vkFormat %u", f->vk_format);
    uint8_t model = b[8], transfer = b[10];
    v->dfd_color_model = model;
    v->dfd_transfer = transfer;
    if (model != f->model)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD colour model %u does not match vkFormat %u (expected %u)",
                            model, f->vk_format, f->model);
    if ((transfer == 2) != f->srgb || (transfer != 1 && transfer != 2))
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD transfer function %u contradicts vkFormat %u", transfer,
                            f->vk_format);
    if (b[12] != f->block_width - 1 || b[13] != f->block_height - 1 || b[14] != 0 || b[15] != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD texel block is not %ux%u for vkFormat %u", f->block_width,
                            f->block_height, f->vk_format);
    if (b[16] != f->block_bytes)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "KTX2: DFD bytesPlane0 is wrong");
    uint32_t sample_bits = f->block_bytes * 8 / f->channels;
    for (uint32_t c = 0; c < f->channels; c++) {
        const uint8_t *s = b + 24 + 16 * c;
        uint16_t bit_offset = rd16(s);
        uint8_t bit_length = s[2], channel = s[3];
        if (bit_offset != c * sample_bits || bit_length != sample_bits - 1 ||
            (channel & 0x0F) != f->sample_channel[c] || ((channel & 0x80) != 0) != f->is_float)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "KTX2: DFD sample %u does not match vkFormat %u", c, f->vk_format);
    }
    return KILN_OK;
}

/* The DFD must be one basic block describing `f` exactly. */
static kiln_result check_dfd(kiln_ktx2_view *v, const format_row *f, const uint8_t *dfd,
                             uint32_t length, kiln_error *err) {
    const char *name = v->name;
    if (length < 4 + 24 || rd32(dfd) != length)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "KTX2: DFD total size is wrong");
    const uint8_t *b = dfd + 4;
    uint32_t word0 = rd32(b);
    uint16_t version = rd16(b + 4), block_size = rd16(b + 6);
    if (word0 != 0 || version != 2)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "KTX2: DFD is not a Khronos basic descriptor block version 2");
    if (block_size != length - 4)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD block size does not match vkFormat %u", f->vk_format);
    if (f->model != 0)
        return check_block_dfd(v, f, b, block_size, err);
    if (block_size != 24 + 16 * f->channels)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD block size does not match vkFormat %u", f->vk_format);
    uint8_t model = b[8], transfer = b[10];
    v->dfd_color_model = model;
    v->dfd_transfer = transfer;
    if (model != 1)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "KTX2: DFD colour model %u is not RGBSDA",
                            model);
    if ((transfer == 2) != f->srgb || (transfer != 1 && transfer != 2))
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD transfer function %u contradicts vkFormat %u", transfer,
                            f->vk_format);
    if (b[12] != 0 || b[13] != 0 || b[14] != 0 || b[15] != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD texel block is not 1x1x1 for an uncompressed format");
    if (b[16] != 0 && b[16] != f->block_bytes)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "KTX2: DFD bytesPlane0 is wrong");
    for (uint32_t c = 0; c < f->channels; c++) {
        const uint8_t *s = b + 24 + 16 * c;
        uint16_t bit_offset = rd16(s);
        uint8_t bit_length = s[2], channel = s[3];
        uint8_t id = channel & 0x0F;
        bool is_float = (channel & 0x80) != 0;
        bool ok_id = f->channels == 4 ? (id == (c < 3 ? c : 15u)) : id == c;
        if (bit_offset != c * f->bits || bit_length != f->bits - 1 || !ok_id ||
            is_float != f->is_float)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "KTX2: DFD sample %u does not match vkFormat %u", c, f->vk_format);
    }
    return KILN_OK;
}

static kiln_result check_kvd(kiln_ktx2_view *v, kiln_error *err) {
    const uint8_t *p = v->kvd, *end = v->kvd + v->kvd_size;
    while (p < end) {
        if ((size_t)(end - p) < 4)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: key/value data truncated");
        uint32_t length = rd32(p);
        if (length > (size_t)(end - p) - 4 || length == 0)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: key/value entry runs past its data");
        const uint8_t *kv = p + 4;
        if (memchr(kv, 0, length) == NULL)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: key/value entry has no NUL-terminated key");
        uint64_t advance = align_up_u64(4 + (uint64_t)length, 4);
        if (advance > (uint64_t)(end - p))
            advance = (uint64_t)(end - p); /* last entry's padding may be absent */
        p += advance;
    }
    return KILN_OK;
}

const char *kiln_ktx2_find_value(const kiln_ktx2_view *view, const char *key,
                                 uint32_t *value_size) {
    const uint8_t *p = view->kvd, *end = view->kvd + view->kvd_size;
    size_t key_length = strlen(key);
    while (p != NULL && (size_t)(end - p) >= 4) {
        uint32_t length = rd32(p);
        if (length == 0 || length > (size_t)(end - p) - 4)
            return NULL;
        const uint8_t *kv = p + 4;
        if (length > key_length && memcmp(kv, key, key_length) == 0 && kv[key_length] == 0) {
            if (value_size != NULL)
                *value_size = length - (uint32_t)key_length - 1;
            return (const char *)kv + key_length + 1;
        }
        uint64_t advance = align_up_u64(4 + (uint64_t)length, 4);
        if (advance >= (uint64_t)(end - p))
            break;
        p += advance;
    }
    return NULL;
}

kiln_result kiln_ktx2_view_get(kiln_ktx2_view *v, const void *data, size_t size, const char *name,
                               kiln_error *err) {
    if (v == NULL || (data == NULL && size > 0))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "ktx2", "invalid argument");
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name ? name : "<memory>");
    const uint8_t *d = data;
    v->data = d;
    v->size = size;
    if (size < 12 || memcmp(d, ktx2_identifier, 12) != 0)
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, v->name, "not a KTX2 file");
    if (size < KTX2_HEADER_SIZE)
        return runtime_fail(err, KILN_ERR_TRUNCATED, v->name, "KTX2: header truncated");
    v->vk_format = rd32(d + 12);
    v->type_size = rd32(d + 16);
    v->width = rd32(d + 20);
    v->height = rd32(d + 24);
    v->depth = rd32(d + 28);
    v->layers = rd32(d + 32);
    v->faces = rd32(d + 36);
    uint32_t level_count = rd32(d + 40);
    v->supercompression = rd32(d + 44);
    uint32_t dfd_offset = rd32(d + 48), dfd_length = rd32(d + 52);
    uint32_t kvd_offset = rd32(d + 56), kvd_length = rd32(d + 60);
    uint64_t sgd_offset = rd64(d + 64), sgd_length = rd64(d + 72);

    const format_row *f = find_format(v->vk_format);
    if (f == NULL)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, v->name,
                            "KTX2: vkFormat %u is not supported", v->vk_format);
    if (v->type_size != f->type_size)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                            "KTX2: typeSize %u does not match vkFormat %u", v->type_size,
                            v->vk_format);
    v->block_bytes = f->block_bytes;
    v->block_width = f->block_width;
    v->block_height = f->block_height;
    if (v->width == 0 || (v->depth > 0 && v->height == 0))
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: zero width");
    if (v->faces != 1 && v->faces != 6)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: faceCount %u", v->faces);
    if (v->faces == 6 && (v->width != v->height || v->depth != 0))
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: cubemap faces not square");
    if (v->supercompression != KILN_KTX2_SUPERCOMPRESSION_NONE &&
        v->supercompression != KILN_KTX2_SUPERCOMPRESSION_ZSTD)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, v->name,
                            "KTX2: supercompression scheme %u is not supported",
                            v->supercompression);
    if (sgd_length != 0 || sgd_offset != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                            "KTX2: unexpected supercompression global data");
    uint32_t largest = v->width;
    if (v->height > largest)
        largest = v->height;
    if (v->depth > largest)
        largest = v->depth;
    uint32_t full_chain = 1;
    for (uint32_t rest = largest >> 1; rest > 0; rest >>= 1)
        full_chain++;
    if (level_count == 0)
        level_count = 1; /* 0 means "generate mips at load": one level stored */
    if (level_count > full_chain)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                            "KTX2: %u levels, more than a %ux%u image can have", level_count,
                            v->width, v->height);
    v->levels = level_count;
    uint64_t index_end = KTX2_HEADER_SIZE + (uint64_t)level_count * KTX2_LEVEL_ENTRY_SIZE;
    if (index_end > size)
        return runtime_fail(err, KILN_ERR_TRUNCATED, v->name, "KTX2: level index truncated");
    if (dfd_length == 0 || !range_inside(dfd_offset, dfd_length, size) || dfd_offset < index_end ||
        dfd_offset % 4 != 0)
        return runtime_fail(err,
                            dfd_length > 0 && dfd_offset + (uint64_t)dfd_length > size
                                ? KILN_ERR_TRUNCATED
                                : KILN_ERR_CORRUPT,
                            v->name, "KTX2: DFD is missing or out of range");
    kiln_result r = check_dfd(v, f, d + dfd_offset, dfd_length, err);
    if (r != KILN_OK)
        return r;
    v->color_space = f->srgb ? KILN_COLOR_SPACE_SRGB : KILN_COLOR_SPACE_LINEAR;
    if (kvd_length > 0) {
        if (!range_inside(kvd_offset, kvd_length, size) || kvd_offset < index_end)
            return runtime_fail(err,
                                kvd_offset + (uint64_t)kvd_length > size ? KILN_ERR_TRUNCATED
                                                                         : KILN_ERR_CORRUPT,
                                v->name, "KTX2: key/value data out of range");
        v->kvd = d + kvd_offset;
        v->kvd_size = kvd_length;
        r = check_kvd(v, err);
        if (r != KILN_OK)
            return r;
    }
    uint64_t metadata_end = (uint64_t)dfd_offset + dfd_length;
    if (kvd_length > 0 && (uint64_t)kvd_offset + kvd_length > metadata_end)
        metadata_end = (uint64_t)kvd_offset + kvd_length;
    for (uint32_t i = 0; i < level_count; i++) {
        const uint8_t *e = d + KTX2_HEADER_SIZE + (size_t)i * KTX2_LEVEL_ENTRY_SIZE;
        uint64_t offset = rd64(e), length = rd64(e + 8), uncompressed = rd64(e + 16);
        uint64_t expected = level_size_of(v, i);
        if (expected == 0)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: level %u size overflows", i);
        if (!range_inside(offset, length, size))
            return runtime_fail(err, KILN_ERR_TRUNCATED, v->name,
                                "KTX2: level %u (bytes %llu..+%llu) lies outside the file", i,
                                (unsigned long long)offset, (unsigned long long)length);
        if (offset < metadata_end)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: level %u overlaps the header data", i);
        if (v->supercompression == KILN_KTX2_SUPERCOMPRESSION_NONE) {
            if (length != expected || (uncompressed != 0 && uncompressed != expected))
                return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                    "KTX2: level %u is %llu bytes, expected %llu", i,
                                    (unsigned long long)length, (unsigned long long)expected);
        } else if (uncompressed != expected || length == 0) {
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: level %u uncompressedByteLength %llu, expected %llu", i,
                                (unsigned long long)uncompressed, (unsigned long long)expected);
        } else if (expected / ZSTD_MAX_RATIO > length) {
            /* A tiny file declaring a huge image: no reader should allocate for it. */
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: level %u cannot inflate %llu bytes to %llu (Zstd's limit "
                                "is %u:1)",
                                i, (unsigned long long)length, (unsigned long long)expected,
                                (unsigned)ZSTD_MAX_RATIO);
        }
    }
    return runtime_succeed(err);
}

kiln_result kiln_ktx2_read_level(const kiln_ktx2_view *v, uint32_t level, void *dst,
                                 size_t dst_size, kiln_error *err) {
    if (v == NULL || v->data == NULL || level >= v->levels || (dst == NULL && dst_size > 0))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, v ? v->name : "ktx2",
                            "invalid argument");
    uint64_t expected = level_size_of(v, level);
    if (expected > dst_size)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, v->name,
                            "KTX2: level %u needs %llu bytes, buffer has %zu", level,
                            (unsigned long long)expected, dst_size);
    const uint8_t *e = v->data + KTX2_HEADER_SIZE + (size_t)level * KTX2_LEVEL_ENTRY_SIZE;
    uint64_t offset = rd64(e), length = rd64(e + 8);
    if (!range_inside(offset, length, v->size))
        return runtime_fail(err, KILN_ERR_TRUNCATED, v->name, "KTX2: level %u out of range", level);
    if (v->supercompression == KILN_KTX2_SUPERCOMPRESSION_NONE) {
        memcpy(dst, v->data + offset, (size_t)expected);
        return runtime_succeed(err);
    }
    unsigned long long content = ZSTD_getFrameContentSize(v->data + offset, (size_t)length);
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                            "KTX2: level %u Zstd frame declares %llu bytes, expected %llu", level,
                            content, (unsigned long long)expected);
    size_t got = ZSTD_decompress(dst, (size_t)expected, v->data + offset, (size_t)length);
    if (ZSTD_isError(got))
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: level %u: Zstd: %s", level,
                            ZSTD_getErrorName(got));
    if (got != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                            "KTX2: level %u inflates to %zu bytes, expected %llu", level, got,
                            (unsigned long long)expected);
    return runtime_succeed(err);
}

kiln_result kiln_ktx2_check_level(const kiln_ktx2_view *v, uint32_t level, kiln_error *err) {
    if (v == NULL || v->data == NULL || level >= v->levels)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, v ? v->name : "ktx2",
                            "invalid argument");
    if (v->supercompression == KILN_KTX2_SUPERCOMPRESSION_NONE)
        return runtime_succeed(err); /* its size and range were checked at open */
    uint64_t expected = level_size_of(v, level);
    const uint8_t *e = v->data + KTX2_HEADER_SIZE + (size_t)level * KTX2_LEVEL_ENTRY_SIZE;
    uint64_t offset = rd64(e), length = rd64(e + 8);
    if (!range_inside(offset, length, v->size))
        return runtime_fail(err, KILN_ERR_TRUNCATED, v->name, "KTX2: level %u out of range", level);
    /* Inflate into one block-sized scratch buffer, counting: memory stays
     * bounded whatever the level declares. */
    enum { SCRATCH_BYTES = 1 << 17 };
    ZSTD_DStream *stream = ZSTD_createDStream();
    uint8_t *scratch = malloc(SCRATCH_BYTES);
    if (stream == NULL || scratch == NULL) {
        ZSTD_freeDStream(stream);
        free(scratch);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, v->name, "KTX2: no memory to inflate");
    }
    ZSTD_inBuffer in = {v->data + offset, (size_t)length, 0};
    uint64_t total = 0;
    size_t status = 1;
    while (status != 0 && total <= expected) {
        ZSTD_outBuffer out = {scratch, SCRATCH_BYTES, 0};
        status = ZSTD_decompressStream(stream, &out, &in);
        if (ZSTD_isError(status))
            break;
        total += out.pos;
        if (out.pos == 0 && in.pos == in.size && status != 0)
            break; /* the frame ends early */
    }
    ZSTD_freeDStream(stream);
    free(scratch);
    if (ZSTD_isError(status))
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: level %u: Zstd: %s", level,
                            ZSTD_getErrorName(status));
    if (status != 0 || total != expected || in.pos != in.size)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                            "KTX2: level %u inflates to %s%llu bytes, expected %llu", level,
                            total > expected ? "more than " : "", (unsigned long long)total,
                            (unsigned long long)expected);
    return runtime_succeed(err);
}
