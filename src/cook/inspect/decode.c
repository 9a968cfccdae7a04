/*
 * decode.c — one image of a cooked texture as 8-bit RGBA (inspect.h): what
 * `kiln extract` writes and the build report's thumbnails show. Block
 * formats go through the cooker's own decoders (encode/block.c, and astcenc
 * for ASTC; etc_decode.c for the ETC transcodes), UASTC through libkiln's (kiln_uastc_decode_rgba8,
 * the shared common/uastc.h decoder); values stay as stored, so an sRGB texture gives its sRGB
 * bytes, as a GPU samples them before the hardware's conversion.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/encode/encode.h"
#include "cook/import/import.h"
#include "cook/inspect/etc_decode.h"
#include "cook/inspect/inspect.h"

__attribute__((format(printf, 3, 4))) static bool fail(char *reason, size_t reason_size,
                                                       const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, reason_size, fmt, args);
    va_end(args);
    return false;
}

static uint8_t clamp_unit_to_8bit(float value) {
    if (!(value > 0.0f)) /* negative and NaN */
        return 0;
    return value >= 1.0f ? 255 : (uint8_t)lrintf(value * 255.0f);
}

/* A float texel as 8 bits: RGB tone-mapped as `kiln info --quality` compares
 * HDR (block_tonemap), alpha clamped to 0..1. */
static void float_texel_to_8bit(const float rgba[4], uint8_t out[4]) {
    for (int c = 0; c < 3; c++)
        out[c] = (uint8_t)lrint(block_tonemap(rgba[c]));
    out[3] = clamp_unit_to_8bit(rgba[3]);
}

/* An uncompressed slice (R8, RG8, RGBA8, RGBA16F) into RGBA8: missing
 * channels 0, missing alpha 255 (what a GPU's sampler returns). */
static bool decode_uncompressed(const ktx2_format_info *format, const uint8_t *in, size_t texels,
                                uint8_t *out, char *reason, size_t reason_size) {
    if (format->is_float) {
        if (format->channels != 4 || format->channel_bits != 16)
            return fail(reason, reason_size, "unsupported float format %s", format->name);
        for (size_t i = 0; i < texels; i++) {
            float texel[4];
            for (int c = 0; c < 4; c++) {
                uint16_t half = (uint16_t)(in[i * 8 + c * 2] | in[i * 8 + c * 2 + 1] << 8);
                texel[c] = block_half_to_float(half);
            }
            float_texel_to_8bit(texel, out + i * 4);
        }
        return true;
    }
    if (format->channel_bits != 8 || format->channels < 1 || format->channels > 4)
        return fail(reason, reason_size, "unsupported format %s", format->name);
    for (size_t i = 0; i < texels; i++) {
        uint8_t texel[4] = {0, 0, 0, 255};
        memcpy(texel, in + i * format->channels, format->channels);
        memcpy(out + i * 4, texel, 4);
    }
    return true;
}

/* One slice of blocks into RGBA8 through the cooker's decoders. */
static bool decode_blocks(const ktx2_format_info *format, const kiln_ktx2_view *view,
                          uint32_t width, uint32_t height, const uint8_t *in, uint8_t *out,
                          char *reason, size_t reason_size) {
    block_image_desc desc = {.format = (block_format)format->block,
                             .width = width,
                             .height = height,
                             .srgb = view->color_space == KILN_COLOR_SPACE_SRGB};
    if (format->block == KTX2_BLOCK_ASTC_LDR || format->block == KTX2_BLOCK_ASTC_HDR) {
        desc.astc_block_width = format->block_width;
        desc.astc_block_height = format->block_height;
    }
    if (!format->is_float)
        return block_decode_image(&desc, in, out, NULL, reason, reason_size);
    size_t texels = (size_t)width * height;
    float *rgbaf = malloc(texels * 4 * sizeof(float));
    if (rgbaf == NULL)
        return fail(reason, reason_size, "out of memory");
    bool ok = block_decode_image(&desc, in, NULL, rgbaf, reason, reason_size);
    for (size_t i = 0; ok && i < texels; i++)
        float_texel_to_8bit(rgbaf + i * 4, out + i * 4);
    free(rgbaf);
    return ok;
}

/* One slice of UASTC blocks into RGBA8 with UNORM8 interpolation: what Basis
 * Universal's unpack writes and `kiln info --quality` measures, for either
 * colour space. The error names the level and the block. */
static bool decode_uastc(uint32_t level, uint32_t width, uint32_t height, const uint8_t *in,
                         size_t in_size, uint8_t *out, char *reason, size_t reason_size) {
    char name[32];
    snprintf(name, sizeof name, "level %u", level);
    kiln_error error;
    if (kiln_uastc_decode_rgba8(in, in_size, width, height, false, out, (size_t)width * height * 4,
                                name, &error) != KILN_OK)
        return fail(reason, reason_size, "%s", error.message);
    return true;
}

/* The transcoded blocks of one slice into RGBA8: BC formats and ASTC
 * through the cooker's block decoders, ETC through etc_decode.c. */
static bool decode_transcoded(kiln_transcode_target via, uint32_t width, uint32_t height, bool srgb,
                              const uint8_t *blocks, uint8_t *out, char *reason,
                              size_t reason_size) {
    if (via == KILN_TRANSCODE_ETC1_RGB || via == KILN_TRANSCODE_ETC2_RGBA8)
        return etc_decode_image(blocks, width, height, via == KILN_TRANSCODE_ETC2_RGBA8, out,
                                reason, reason_size);
    block_image_desc desc = {.width = width,
                             .height = height,
                             .srgb = srgb,
                             .astc_block_width = 4,
                             .astc_block_height = 4};
    switch (via) {
    case KILN_TRANSCODE_BC7:
        desc.format = BLOCK_FORMAT_BC7;
        break;
    case KILN_TRANSCODE_ASTC_4X4:
        desc.format = BLOCK_FORMAT_ASTC_LDR;
        break;
    case KILN_TRANSCODE_BC1:
        desc.format = BLOCK_FORMAT_BC1;
        break;
    case KILN_TRANSCODE_BC3:
        desc.format = BLOCK_FORMAT_BC3;
        break;
    default:
        return fail(reason, reason_size, "transcode target %d is not decoded", (int)via);
    }
    return block_decode_image(&desc, blocks, out, NULL, reason, reason_size);
}

/* One slice of UASTC blocks transcoded to `via` (any block target of
 * kiln_uastc_transcode) and decoded by a decoder of that format that is not
 * the transcoder's: what a GPU given the transcoded level samples. */
static bool decode_uastc_via(const kiln_ktx2_view *view, kiln_transcode_target via, uint32_t level,
                             uint32_t width, uint32_t height, const uint8_t *in, size_t in_size,
                             uint8_t *out, char *reason, size_t reason_size) {
    bool srgb = view->color_space == KILN_COLOR_SPACE_SRGB;
    size_t size = kiln_uastc_transcoded_size(via, width, height);
    uint8_t *blocks = size > 0 ? malloc(size) : NULL;
    if (blocks == NULL)
        return fail(reason, reason_size, "out of memory");
    char name[32];
    snprintf(name, sizeof name, "level %u", level);
    kiln_error error;
    bool ok = kiln_uastc_transcode(in, in_size, width, height, srgb, via, blocks, size, name,
                                   &error) == KILN_OK;
    if (!ok)
        fail(reason, reason_size, "%s", error.message);
    ok = ok && decode_transcoded(via, width, height, srgb, blocks, out, reason, reason_size);
    free(blocks);
    return ok;
}

/* Where (level, layer, face) lies and how large it is, checked. */
static bool locate_image(const kiln_ktx2_view *view, const inspect_texture_image *which,
                         uint64_t *offset, uint64_t *size, char *reason, size_t reason_size) {
    uint32_t layers = view->layers > 0 ? view->layers : 1;
    if (which->level >= view->levels)
        return fail(reason, reason_size, "level %u is out of range: the texture has %u level%s",
                    which->level, view->levels, view->levels == 1 ? "" : "s");
    if (which->face >= view->faces)
        return fail(reason, reason_size, "face %u is out of range: the texture has %u face%s",
                    which->face, view->faces, view->faces == 1 ? "" : "s");
    if (which->layer >= layers)
        return fail(reason, reason_size,
                    "layer %u is out of range: the texture has %u array layer%s", which->layer,
                    layers, layers == 1 ? "" : "s");
    if (kiln_ktx2_image_range(view, which->level, which->layer, which->face, offset, size) !=
        KILN_OK)
        return fail(reason, reason_size, "level %u has no image for layer %u, face %u",
                    which->level, which->layer, which->face);
    return true;
}

bool inspect_texture_decode(const kiln_ktx2_view *view, const inspect_texture_image *which,
                            inspect_rgba8_image *out, char *reason, size_t reason_size) {
    memset(out, 0, sizeof *out);
    /* UASTC has no vkFormat (UNDEFINED): its DFD's colour model names it. */
    bool uastc =
        view->vk_format == KTX2_VK_FORMAT_UNDEFINED && view->dfd_color_model == KTX2_DF_MODEL_UASTC;
    const ktx2_format_info *format =
        uastc ? ktx2_uastc_format(view->color_space == KILN_COLOR_SPACE_SRGB, false)
              : ktx2_format_find(view->vk_format);
    if (format == NULL)
        return fail(reason, reason_size, "unsupported format: vkFormat %u (%s) is not decoded",
                    view->vk_format, kiln_ktx2_format_str(view->vk_format));
    uint64_t offset = 0, size = 0;
    if (!locate_image(view, which, &offset, &size, reason, reason_size))
        return false;
    uint32_t width, height, depth;
    kiln_ktx2_level_extent(view, which->level, &width, &height, &depth);
    /* Slices of a 3D texture are stacked top to bottom. */
    uint64_t pixels = (uint64_t)width * height * depth;
    if (pixels == 0 || pixels > IMAGE_DEFAULT_MAX_PIXELS)
        return fail(reason, reason_size,
                    "level %u (%ux%ux%u) is larger than kiln decodes (%llu pixels)", which->level,
                    width, height, depth, (unsigned long long)IMAGE_DEFAULT_MAX_PIXELS);
    uint64_t level_size = kiln_ktx2_level_size(view, which->level);
    uint64_t slice_size = size / depth;
    uint8_t *level = malloc((size_t)level_size);
    uint8_t *rgba = malloc((size_t)pixels * 4);
    kiln_error error;
    bool ok = level != NULL && rgba != NULL;
    if (!ok)
        fail(reason, reason_size, "out of memory");
    else if (kiln_ktx2_read_level(view, which->level, level, (size_t)level_size, &error) != KILN_OK)
        ok = fail(reason, reason_size, "%s", error.message);
    for (uint32_t z = 0; ok && z < depth; z++) {
        const uint8_t *in = level + offset + z * slice_size;
        uint8_t *slice = rgba + (size_t)z * width * height * 4;
        if (uastc && which->via != KILN_TRANSCODE_RGBA8)
            ok = decode_uastc_via(view, which->via, which->level, width, height, in,
                                  (size_t)slice_size, slice, reason, reason_size);
        else if (uastc)
            ok = decode_uastc(which->level, width, height, in, (size_t)slice_size, slice, reason,
                              reason_size);
        else if (format->block == KTX2_BLOCK_NONE)
            ok =
                decode_uncompressed(format, in, (size_t)width * height, slice, reason, reason_size);
        else
            ok = decode_blocks(format, view, width, height, in, slice, reason, reason_size);
    }
    free(level);
    if (!ok) {
        free(rgba);
        return false;
    }
    *out = (inspect_rgba8_image){.width = width, .height = height * depth, .rgba = rgba};
    return true;
}

void inspect_rgba8_image_free(inspect_rgba8_image *image) {
    free(image->rgba);
    *image = (inspect_rgba8_image){0};
}

bool inspect_rgba8_thumbnail(const inspect_rgba8_image *image, uint32_t max_side,
                             inspect_rgba8_image *out) {
    uint32_t longest = image->width > image->height ? image->width : image->height;
    uint32_t width = image->width, height = image->height;
    if (longest > max_side) {
        width = (uint32_t)((uint64_t)image->width * max_side / longest);
        height = (uint32_t)((uint64_t)image->height * max_side / longest);
    }
    width = width > 0 ? width : 1;
    height = height > 0 ? height : 1;
    uint8_t *rgba = malloc((size_t)width * height * 4);
    if (rgba == NULL)
        return false;
    /* Each thumbnail texel averages the source box it covers. */
    for (uint32_t y = 0; y < height; y++) {
        uint32_t y0 = (uint32_t)((uint64_t)y * image->height / height);
        uint32_t y1 = (uint32_t)((uint64_t)(y + 1) * image->height / height);
        for (uint32_t x = 0; x < width; x++) {
            uint32_t x0 = (uint32_t)((uint64_t)x * image->width / width);
            uint32_t x1 = (uint32_t)((uint64_t)(x + 1) * image->width / width);
            uint64_t sum[4] = {0}, count = 0;
            for (uint32_t sy = y0; sy < y1; sy++) {
                for (uint32_t sx = x0; sx < x1; sx++) {
                    const uint8_t *texel = image->rgba + ((size_t)sy * image->width + sx) * 4;
                    for (int c = 0; c < 4; c++)
                        sum[c] += texel[c];
                    count++;
                }
            }
            for (int c = 0; c < 4; c++)
                rgba[((size_t)y * width + x) * 4 + c] = (uint8_t)((sum[c] + count / 2) / count);
        }
    }
    *out = (inspect_rgba8_image){.width = width, .height = height, .rgba = rgba};
    return true;
}
