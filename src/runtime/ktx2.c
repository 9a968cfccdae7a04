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
#include <sys/mman.h>

#include <zstd.h>

#include "common/checked.h"
#include "common/ktx2_format.h"
#include "runtime/internal.h"

/* The most a Zstd frame can inflate per byte: every block holds at most
 * 128 KiB and takes at least 4 bytes (an RLE block: 3-byte header + 1 byte). */
#define ZSTD_MAX_RATIO 32768u

/* The public header's scheme numbers are the common ones. */
_Static_assert(KILN_KTX2_SUPERCOMPRESSION_NONE == KTX2_SUPERCOMPRESSION_NONE, "scheme NONE");
_Static_assert(KILN_KTX2_SUPERCOMPRESSION_ZSTD == KTX2_SUPERCOMPRESSION_ZSTD, "scheme ZSTD");

const char *kiln_ktx2_format_str(uint32_t vk_format) {
    if (vk_format == KTX2_VK_FORMAT_UNDEFINED)
        return "uastc"; /* the one format kiln reads without a vkFormat */
    const ktx2_format_info *f = ktx2_format_find(vk_format);
    return f != NULL ? f->name : "unknown";
}

const char *kiln_ktx2_supercompression_str(uint32_t scheme) {
    switch (scheme) {
    case KTX2_SUPERCOMPRESSION_NONE:
        return "none";
    case KTX2_SUPERCOMPRESSION_BASISLZ:
        return "basislz";
    case KTX2_SUPERCOMPRESSION_ZSTD:
        return "zstd";
    case KTX2_SUPERCOMPRESSION_ZLIB:
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

void kiln_ktx2_level_extent(const kiln_ktx2_view *view, uint32_t level, uint32_t *width,
                            uint32_t *height, uint32_t *depth) {
    *width = ktx2_mip_dim(view->width, level);
    *height = ktx2_mip_dim(view->height > 0 ? view->height : 1, level);
    *depth = ktx2_mip_dim(view->depth > 0 ? view->depth : 1, level);
}

/* The row giving a view's texel blocks: a UASTC file's (vkFormat UNDEFINED)
 * is any UASTC row, since they differ only in the DFD. */
static const ktx2_format_info *layout_of(const kiln_ktx2_view *v) {
    return v->vk_format == KTX2_VK_FORMAT_UNDEFINED ? ktx2_uastc_format(false, false)
                                                    : ktx2_format_find(v->vk_format);
}

static uint64_t level_size_of(const kiln_ktx2_view *v, uint32_t level) {
    const ktx2_format_info *f = layout_of(v);
    return f != NULL
               ? ktx2_level_byte_size(f, v->width, v->height, v->depth, v->layers, v->faces, level)
               : 0;
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

/* The DFD must be one basic block describing `f` exactly: the colour model,
 * transfer function, texel block, bytesPlane0 and samples of its row in the
 * format table (the writer writes the same row). Uncompressed formats may
 * leave bytesPlane0 0, as older writers did. */
static kiln_result check_dfd(kiln_ktx2_view *v, const ktx2_format_info *f, const uint8_t *dfd,
                             uint32_t length, kiln_error *err) {
    const char *name = v->name;
    if (length < 4 + KTX2_DF_BLOCK_HEADER_SIZE || rd32(dfd) != length)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "KTX2: DFD total size is wrong");
    const uint8_t *b = dfd + 4;
    uint32_t word0 = rd32(b);
    uint16_t version = rd16(b + 4), block_size = rd16(b + 6);
    if (word0 != 0 || version != KTX2_DF_VERSION)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "KTX2: DFD is not a Khronos basic descriptor block version 2");
    if (block_size != length - 4 || block_size != ktx2_dfd_block_size(f))
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD block size does not match vkFormat %u",
                            ktx2_file_vk_format(f));
    bool compressed = f->block != KTX2_BLOCK_NONE;
    uint8_t model = b[8], transfer = b[10];
    v->dfd_color_model = model;
    v->dfd_transfer = transfer;
    v->dfd_channel =
        f->sample_count > 0 ? (b[KTX2_DF_BLOCK_HEADER_SIZE + 3] & KTX2_DF_CHANNEL_MASK) : 0;
    if (model != f->dfd_model)
        return compressed ? runtime_fail(err, KILN_ERR_CORRUPT, name,
                                         "KTX2: DFD colour model %u does not match vkFormat %u "
                                         "(expected %u)",
                                         model, ktx2_file_vk_format(f), f->dfd_model)
                          : runtime_fail(err, KILN_ERR_CORRUPT, name,
                                         "KTX2: DFD colour model %u is not RGBSDA", model);
    if ((transfer == KTX2_DF_TRANSFER_SRGB) != f->srgb ||
        (transfer != KTX2_DF_TRANSFER_LINEAR && transfer != KTX2_DF_TRANSFER_SRGB))
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD transfer function %u contradicts vkFormat %u", transfer,
                            ktx2_file_vk_format(f));
    if (b[12] != f->block_width - 1 || b[13] != f->block_height - 1 || b[14] != 0 || b[15] != 0)
        return compressed ? runtime_fail(err, KILN_ERR_CORRUPT, name,
                                         "KTX2: DFD texel block is not %ux%u for vkFormat %u",
                                         f->block_width, f->block_height, ktx2_file_vk_format(f))
                          : runtime_fail(err, KILN_ERR_CORRUPT, name,
                                         "KTX2: DFD texel block is not 1x1x1 for an uncompressed "
                                         "format");
    /* 0 is also what KTX 2.0 first required of supercompressed files (Basis
     * Universal writes it under Zstd). */
    bool unsized = !compressed || v->supercompression != KTX2_SUPERCOMPRESSION_NONE;
    if (b[16] != f->block_bytes && (b[16] != 0 || !unsized))
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "KTX2: DFD bytesPlane0 is wrong");
    /* The fields every kiln file holds the same way (ktx2.md, K6). */
    static const uint8_t zeros[7] = {0};
    if (b[9] != KTX2_DF_PRIMARIES_BT709)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "KTX2: DFD colour primaries %u are not "
                            "BT.709",
                            b[9]);
    if (b[11] != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "KTX2: DFD flags %u are not 0", b[11]);
    if (memcmp(b + 17, zeros, sizeof zeros) != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "KTX2: DFD bytesPlane1..7 are not 0");
    for (uint32_t i = 0; i < f->sample_count; i++) {
        const ktx2_sample *expected = &f->samples[i];
        const uint8_t *s = b + KTX2_DF_BLOCK_HEADER_SIZE + KTX2_DF_SAMPLE_SIZE * i;
        uint16_t bit_offset = rd16(s);
        uint8_t bit_length = s[2], channel = s[3];
        uint32_t lower = rd32(s + 8), upper = rd32(s + 12);
        bool is_float = (expected->qualifiers & KTX2_DF_QUALIFIER_FLOAT) != 0;
        bool is_signed = (expected->qualifiers & KTX2_DF_QUALIFIER_SIGNED) != 0;
        uint32_t want_lower = is_float && is_signed ? KTX2_DF_FLOAT_MINUS_ONE : 0u;
        uint32_t want_upper = is_float                     ? KTX2_DF_FLOAT_ONE
                              : expected->bit_length >= 32 ? 0xFFFFFFFFu
                                                           : (1u << expected->bit_length) - 1u;
        if (bit_offset != expected->bit_offset || bit_length != expected->bit_length - 1 ||
            (channel & KTX2_DF_CHANNEL_MASK) != expected->channel ||
            ((channel & KTX2_DF_QUALIFIER_FLOAT) != 0) != f->is_float ||
            (channel & (uint8_t)~KTX2_DF_CHANNEL_MASK) != expected->qualifiers ||
            rd32(s + 4) != 0 || lower != want_lower || upper != want_upper)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "KTX2: DFD sample %u does not match vkFormat %u", i,
                                ktx2_file_vk_format(f));
    }
    return KILN_OK;
}

/* A known key's value: NUL-terminated text of the form ktx2.md gives it. */
static bool known_value_ok(const kiln_ktx2_view *v, const char *key, const uint8_t *value,
                           uint32_t size) {
    bool orientation = strcmp(key, "KTXorientation") == 0;
    bool content = strcmp(key, "kilnContentSize") == 0;
    if (!orientation && !content && strcmp(key, "KTXwriter") != 0 && strcmp(key, "kilnSource") != 0)
        return true; /* another writer's key: any bytes */
    if (size == 0 || value[size - 1] != 0 || memchr(value, 0, size - 1) != NULL)
        return false;
    const char *text = (const char *)value;
    if (orientation)
        return strcmp(text, v->depth > 0 ? "rdi" : "rd") == 0;
    if (content) {
        unsigned long w = 0, h = 0;
        char tail = 0;
        return sscanf(text, "%lu %lu%c", &w, &h, &tail) == 2 && w >= 1 && h >= 1 && w <= v->width &&
               h <= (v->height > 0 ? v->height : 1);
    }
    return size > 1;
}

static kiln_result check_kvd(kiln_ktx2_view *v, kiln_error *err) {
    const uint8_t *p = v->kvd, *end = v->kvd + v->kvd_size;
    const char *previous = NULL;
    while (p < end) {
        if ((size_t)(end - p) < 4)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: key/value data truncated");
        uint32_t length = rd32(p);
        if (length > (size_t)(end - p) - 4 || length == 0)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: key/value entry runs past its data");
        const uint8_t *kv = p + 4;
        const uint8_t *nul = memchr(kv, 0, length);
        if (nul == NULL || nul == kv)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: key/value entry has no NUL-terminated key");
        const char *key = (const char *)kv;
        /* KTX 2.0: sorted by key (bytewise), so each key once. */
        if (previous != NULL && strcmp(previous, key) >= 0)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: key/value entries are not sorted and unique at '%.40s'",
                                key);
        previous = key;
        uint32_t key_size = (uint32_t)(nul - kv) + 1;
        if (!known_value_ok(v, key, nul + 1, length - key_size))
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: the value of key '%s' is not what ktx2.md allows", key);
        uint64_t advance = align_up_u64(4 + (uint64_t)length, 4);
        if (advance > (uint64_t)(end - p))
            advance = (uint64_t)(end - p); /* last entry's padding may be absent */
        for (uint64_t i = 4 + (uint64_t)length; i < advance; i++)
            if (p[i] != 0)
                return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                    "KTX2: key/value padding after '%s' is not zero", key);
        p += advance;
    }
    return KILN_OK;
}

const char *kiln_ktx2_find_value(const kiln_ktx2_view *view, const char *key,
                                 uint32_t *value_size) {
    /* A file without key/value data has kvd NULL: NULL + 0 is undefined
     * behaviour in C (found by fuzz_ktx2 under clang's UBSan). */
    if (view->kvd == NULL)
        return NULL;
    const uint8_t *p = view->kvd, *end = view->kvd + view->kvd_size;
    size_t key_length = strlen(key);
    while ((size_t)(end - p) >= 4) {
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

/* The format row of a file: its vkFormat's, or for UNDEFINED the UASTC row
 * its DFD names (colour model, transfer, first sample's channel), read only
 * when the DFD lies inside the file; check_dfd then checks the whole DFD. */
static const ktx2_format_info *format_of_header(const uint8_t *d, size_t size, uint32_t vk_format,
                                                uint32_t dfd_offset, uint32_t dfd_length) {
    if (vk_format != KTX2_VK_FORMAT_UNDEFINED)
        return ktx2_format_find(vk_format);
    if (dfd_length < 4 + KTX2_DF_BLOCK_HEADER_SIZE + KTX2_DF_SAMPLE_SIZE ||
        !range_inside(dfd_offset, dfd_length, size))
        return NULL;
    const uint8_t *b = d + dfd_offset + 4;
    /* Another UASTC channel id (RRR, RRRG, RG) gets the RGB row, whose
     * sample check_dfd then refuses. */
    bool rgba =
        (b[KTX2_DF_BLOCK_HEADER_SIZE + 3] & KTX2_DF_CHANNEL_MASK) == KTX2_DF_CHANNEL_UASTC_RGBA;
    return ktx2_format_of_file(vk_format, b[8], b[10],
                               rgba ? KTX2_DF_CHANNEL_UASTC_RGBA : KTX2_DF_CHANNEL_UASTC_RGB);
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
    if (size < KTX2_IDENTIFIER_SIZE || memcmp(d, ktx2_identifier, KTX2_IDENTIFIER_SIZE) != 0)
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

    const ktx2_format_info *f = format_of_header(d, size, v->vk_format, dfd_offset, dfd_length);
    if (f == NULL)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, v->name,
                            v->vk_format == KTX2_VK_FORMAT_UNDEFINED
                                ? "KTX2: vkFormat %u (UNDEFINED) is supported only with a UASTC "
                                  "DFD (colour model 166, channel RGB or RGBA)"
                                : "KTX2: vkFormat %u is not supported",
                            v->vk_format);
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
    if (v->supercompression != KTX2_SUPERCOMPRESSION_NONE &&
        v->supercompression != KTX2_SUPERCOMPRESSION_ZSTD)
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
        if (v->supercompression == KTX2_SUPERCOMPRESSION_NONE) {
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
    if (v->supercompression == KTX2_SUPERCOMPRESSION_NONE) {
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

/* The scratch buffer a check inflates into, counting: memory stays bounded
 * whatever a level declares. 64 KiB rather than Zstd's block size (128 KiB):
 * the stream buffers a block itself, and a block under malloc's mmap
 * threshold is reused instead of mapped and unmapped for every check. */
enum { CHECK_SCRATCH_BYTES = 1 << 16 };

/* Checks one Zstd level with a stream and scratch buffer the caller made
 * (reset here, so one pair serves every level of a file). */
static kiln_result check_zstd_level(const kiln_ktx2_view *v, uint32_t level, ZSTD_DStream *stream,
                                    uint8_t *scratch, kiln_error *err) {
    uint64_t expected = level_size_of(v, level);
    const uint8_t *e = v->data + KTX2_HEADER_SIZE + (size_t)level * KTX2_LEVEL_ENTRY_SIZE;
    uint64_t offset = rd64(e), length = rd64(e + 8);
    if (!range_inside(offset, length, v->size))
        return runtime_fail(err, KILN_ERR_TRUNCATED, v->name, "KTX2: level %u out of range", level);
    size_t status = ZSTD_DCtx_reset(stream, ZSTD_reset_session_only);
    if (ZSTD_isError(status))
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: level %u: Zstd: %s", level,
                            ZSTD_getErrorName(status));
    ZSTD_inBuffer in = {v->data + offset, (size_t)length, 0};
    uint64_t total = 0;
    status = 1;
    while (status != 0 && total <= expected) {
        ZSTD_outBuffer out = {scratch, CHECK_SCRATCH_BYTES, 0};
        status = ZSTD_decompressStream(stream, &out, &in);
        if (ZSTD_isError(status))
            break;
        total += out.pos;
        if (out.pos == 0 && in.pos == in.size && status != 0)
            break; /* the frame ends early */
    }
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

/* Levels first..first+count-1 through one stream and one scratch buffer. */
static kiln_result check_levels(const kiln_ktx2_view *v, uint32_t first, uint32_t count,
                                kiln_error *err) {
    if (v->supercompression == KTX2_SUPERCOMPRESSION_NONE || count == 0)
        return runtime_succeed(err); /* sizes and ranges were checked at open */
    ZSTD_DStream *stream = ZSTD_createDStream();
    uint8_t *scratch = malloc(CHECK_SCRATCH_BYTES);
    kiln_result r = KILN_OK;
    if (stream == NULL || scratch == NULL)
        r = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, v->name, "KTX2: no memory to inflate");
    for (uint32_t level = first; r == KILN_OK && level < first + count; level++)
        r = check_zstd_level(v, level, stream, scratch, err);
    ZSTD_freeDStream(stream);
    free(scratch);
    return r;
}

kiln_result kiln_ktx2_check_level(const kiln_ktx2_view *v, uint32_t level, kiln_error *err) {
    if (v == NULL || v->data == NULL || level >= v->levels)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, v ? v->name : "ktx2",
                            "invalid argument");
    return check_levels(v, level, 1, err);
}

kiln_result kiln_ktx2_check_levels(const kiln_ktx2_view *v, kiln_error *err) {
    if (v == NULL || v->data == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, v ? v->name : "ktx2",
                            "invalid argument");
    return check_levels(v, 0, v->levels, err);
}

kiln_result kiln_ktx2_map(kiln_ktx2_file *file, const char *path, kiln_error *err) {
    if (file == NULL || path == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "<ktx2>", "no file or path given");
    memset(file, 0, sizeof *file);
    /* Messages name the file by the end of its path that fits. */
    size_t length = strlen(path), keep = sizeof file->view.name - 1;
    const char *name = length > keep ? path + (length - keep) : path;
    void *mapping;
    size_t size;
    kiln_result result = runtime_map_regular(name, path, &mapping, &size, err);
    if (result != KILN_OK)
        return result;
    result = kiln_ktx2_view_get(&file->view, mapping, size, name, err);
    if (result != KILN_OK) {
        munmap(mapping, size);
        memset(file, 0, sizeof *file);
        return result;
    }
    file->mapping_ = mapping;
    file->mapping_size_ = size;
    return KILN_OK;
}

void kiln_ktx2_close(kiln_ktx2_file *file) {
    if (file == NULL)
        return;
    if (file->mapping_ != NULL)
        munmap(file->mapping_, file->mapping_size_);
    memset(file, 0, sizeof *file);
}
