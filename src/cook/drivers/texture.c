/*
 * texture.c — one texture through decode → process → encode → KTX2 (cook.h).
 * A texture image set (one image, a cubemap's six faces from cubemap.c, an
 * array's layers from texture_array.c) takes one path: one format for all its images, a mip
 * chain per image, every level of every image encoded, one KTX2 written,
 * verified and entered in the manifest (the 3D LUT shares the write step).
 *
 * Usage decides the colour space, mip filter and (with texture.format: auto)
 * the GPU format, chosen after decoding (when opacity is known):
 *   usage    uncompressed            auto, desktop          auto, mobile
 *   COLOR    RGBA8 sRGB              BC7 sRGB (BC1 sRGB      ASTC 6x6 sRGB
 *                                    when opaque and fast)
 *   DATA     RGBA8 linear            BC7                     ASTC 6x6
 *   NORMAL   RGBA8 linear            BC5 (X,Y; Z rebuilt)    ASTC 4x4 (X,Y,Z)
 *   SINGLE   R8                      BC4                     R8 (ASTC saves nothing)
 *   HDR      RGBA16F                 BC6H                    ASTC 6x6 HDR (SFLOAT)
 * texture.compress: false keeps the uncompressed column whatever the format
 * says (level 0 holds the source texels exactly when no downscale was
 * needed). A forced format the texture cannot use is an error naming the
 * configuration layer that set it. Every mip level is block-encoded, 1x1
 * included; block rows run on settings->threads threads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/drivers/drivers.h"

static uint32_t vk_format_for(cook_texture_usage usage) {
    switch (usage) {
    case COOK_TEXTURE_COLOR:
        return KTX2_VK_FORMAT_R8G8B8A8_SRGB;
    case COOK_TEXTURE_SINGLE:
        return KTX2_VK_FORMAT_R8_UNORM;
    case COOK_TEXTURE_HDR:
        return KTX2_VK_FORMAT_R16G16B16A16_SFLOAT;
    case COOK_TEXTURE_DATA:
    case COOK_TEXTURE_NORMAL:
    default:
        return KTX2_VK_FORMAT_R8G8B8A8_UNORM;
    }
}

/* The GPU format of one texture: uncompressed (block == 0) or a block format. */
typedef struct texture_format {
    uint32_t vk_format;
    block_format block;
    uint8_t astc_size; /* ASTC: square block size */
    bool srgb;
} texture_format;

static const char *usage_name(cook_texture_usage usage) {
    switch (usage) {
    case COOK_TEXTURE_COLOR:
        return "colour";
    case COOK_TEXTURE_DATA:
        return "data (metallic-roughness/ORM)";
    case COOK_TEXTURE_NORMAL:
        return "normal map";
    case COOK_TEXTURE_SINGLE:
        return "single-channel";
    case COOK_TEXTURE_HDR:
        return "HDR";
    }
    return "unknown";
}

/* The square block size of an ASTC format, 0 for the others. */
static uint8_t astc_block_size(cook_texture_format format) {
    static const uint8_t sizes[] = {4, 5, 6, 8}; /* COOK_FORMAT_ASTC_4X4 ... _8X8 */
    if (format < COOK_FORMAT_ASTC_4X4 || format > COOK_FORMAT_ASTC_8X8)
        return 0;
    return sizes[format - COOK_FORMAT_ASTC_4X4];
}

bool texture_image_outline(const ir_decoded_image *image, ir_decoded_image *out) {
    *out = (ir_decoded_image){.width = 1,
                              .height = 1,
                              .source_channels = image->source_channels,
                              .source_bits = image->source_bits,
                              .format = image->format};
    if (image->rgba8 == NULL)
        return true; /* HDR: no alpha to look at */
    if ((out->rgba8 = malloc(4)) == NULL)
        return false;
    bool opaque = true;
    size_t texels = (size_t)image->width * image->height;
    for (size_t i = 0; i < texels && opaque; i++)
        opaque = image->rgba8[i * 4 + 3] == 255;
    memcpy(out->rgba8, (const uint8_t[4]){0, 0, 0, opaque ? 255 : 0}, 4);
    return true;
}

/* True when no texel of any of the `count` images is translucent. */
static bool images_opaque(const ir_decoded_image *images, uint32_t count) {
    for (uint32_t f = 0; f < count; f++) {
        if (images[f].rgba8 == NULL)
            continue; /* Radiance HDR has no alpha */
        size_t texels = (size_t)images[f].width * images[f].height;
        for (size_t i = 0; i < texels; i++)
            if (images[f].rgba8[i * 4 + 3] != 255)
                return false;
    }
    return true;
}

/* The block format `format` (texture.format) for a set of `count` images of
 * `usage` into out->block (and out->astc_size), or why it cannot hold them. */
static const char *choose_block(cook_texture_format format, cook_texture_usage usage,
                                const ir_decoded_image *images, uint32_t count,
                                texture_format *out) {
    bool hdr = usage == COOK_TEXTURE_HDR;
    uint8_t astc_size = astc_block_size(format);
    if (astc_size != 0) {
        out->astc_size = astc_size;
        out->block = hdr ? BLOCK_FORMAT_ASTC_HDR : BLOCK_FORMAT_ASTC_LDR;
        return NULL;
    }
    bool grey = true;
    for (uint32_t f = 0; f < count; f++)
        grey = grey && images[f].source_channels <= 2;
    if (format == COOK_FORMAT_BC6H) {
        if (!hdr)
            return "bc6h is for HDR images and this one is LDR";
        out->block = BLOCK_FORMAT_BC6H;
        return NULL;
    }
    if (hdr)
        return "an HDR image needs bc6h, astc-NxN or rgba8 (half floats); uastc is LDR only";
    if (format == COOK_FORMAT_BC4) {
        if (usage == COOK_TEXTURE_COLOR)
            return "bc4 stores one linear channel and this is a colour map (sRGB RGB)";
        if (usage != COOK_TEXTURE_SINGLE && !(usage == COOK_TEXTURE_DATA && grey))
            return "bc4 stores one channel and this texture has several";
        out->block = BLOCK_FORMAT_BC4;
        return NULL;
    }
    if (format == COOK_FORMAT_BC5) {
        if (usage != COOK_TEXTURE_NORMAL)
            return "bc5 stores two channels (normal maps' X and Y), not a colour or data map";
        out->block = BLOCK_FORMAT_BC5;
        return NULL;
    }
    if (format == COOK_FORMAT_BC1) {
        out->block = images_opaque(images, count) ? BLOCK_FORMAT_BC1 : BLOCK_FORMAT_BC1A;
        return NULL;
    }
    if (format == COOK_FORMAT_BC3) {
        out->block = BLOCK_FORMAT_BC3;
        return NULL;
    }
    if (format == COOK_FORMAT_BC7) {
        out->block = BLOCK_FORMAT_BC7;
        return NULL;
    }
    if (format == COOK_FORMAT_UASTC) {
        out->block = BLOCK_FORMAT_UASTC;
        return NULL;
    }
    return "unknown texture format";
}

/* Picks the one format of a set of `count` images (a texture, or a cubemap's
 * faces) for `usage` from the settings (see the table at the top): opacity
 * and channel count are those of all images together. Returns NULL, or why a
 * forced format cannot hold this texture. */
static const char *choose_format(const cook_settings *s, cook_texture_usage usage,
                                 const ir_decoded_image *images, uint32_t count,
                                 texture_format *out) {
    bool hdr = usage == COOK_TEXTURE_HDR;
    bool srgb = usage == COOK_TEXTURE_COLOR;
    *out = (texture_format){.vk_format = vk_format_for(usage), .srgb = srgb};
    cook_texture_format format = s->texture_format;
    if (!s->texture_compress || format == COOK_FORMAT_RGBA8)
        return NULL;
    if (format == COOK_FORMAT_AUTO) {
        if (s->texture_target == COOK_TARGET_MOBILE) {
            if (usage == COOK_TEXTURE_SINGLE)
                return NULL; /* ASTC 4x4 is 8 bits per texel, as R8 is: keep it exact */
            format = usage == COOK_TEXTURE_NORMAL ? COOK_FORMAT_ASTC_4X4 : COOK_FORMAT_ASTC_6X6;
        } else {
            format = usage == COOK_TEXTURE_NORMAL   ? COOK_FORMAT_BC5
                     : usage == COOK_TEXTURE_SINGLE ? COOK_FORMAT_BC4
                     : hdr                          ? COOK_FORMAT_BC6H
                                                    : COOK_FORMAT_BC7;
            if (usage == COOK_TEXTURE_COLOR && s->texture_quality == COOK_QUALITY_FAST &&
                images_opaque(images, count))
                format = COOK_FORMAT_BC1;
        }
    }
    const char *unusable = choose_block(format, usage, images, count, out);
    if (unusable != NULL)
        return unusable;
    /* The vkFormat of that block format (BCn blocks are 4x4), from the
     * format table. */
    out->vk_format =
        ktx2_vk_format_of_block((ktx2_block)out->block, out->astc_size ? out->astc_size : 4u, srgb);
    /* UASTC's DFD says RGB or RGBA: RGBA when any texel is translucent. */
    if (out->block == BLOCK_FORMAT_UASTC && !images_opaque(images, count))
        out->vk_format = ktx2_uastc_format(srgb, true)->vk_format;
    return out->vk_format != 0 ? NULL : "unknown texture format";
}

/* Block-encodes one level: the 8-bit texels for LDR formats, the floats for
 * BC6H / ASTC HDR. */
static uint8_t *encode_block_level(const texture_format *f, const cook_settings *s,
                                   const texture_encoding *enc, const float *levelf,
                                   const uint8_t *rgba8, uint32_t width, uint32_t height,
                                   size_t *size, char *reason, size_t reason_size) {
    /* RDO runs below, on a copy of the plain encoding. */
    block_image_desc desc = {.format = f->block,
                             .quality = enc->quality,
                             .width = width,
                             .height = height,
                             .srgb = f->srgb,
                             .astc_block_width = f->astc_size,
                             .astc_block_height = f->astc_size,
                             .threads = s->threads};
    if (f->block == BLOCK_FORMAT_BC6H || f->block == BLOCK_FORMAT_ASTC_HDR)
        desc.rgbaf = levelf;
    else
        desc.rgba8 = rgba8;
    *size = block_image_size(&desc);
    uint8_t *out = *size > 0 ? malloc(*size) : NULL;
    if (out == NULL)
        snprintf(reason, reason_size, "out of memory for %ux%u blocks", width, height);
    else if (!block_encode_image(&desc, out, reason, reason_size)) {
        free(out);
        out = NULL;
    }
    /* UASTC RDO estimates Zstd's bytes: keep the plain encoding when the
     * real Zstd output of the optimised level is not smaller. */
    uint8_t *optimised = out != NULL && f->block == BLOCK_FORMAT_UASTC && enc->uastc_rdo > 0.0f
                             ? malloc(*size)
                             : NULL;
    if (optimised != NULL) {
        memcpy(optimised, out, *size);
        desc.uastc_rdo = enc->uastc_rdo;
        uastc_rdo_image(&desc, optimised);
        size_t plain = texture_zstd_bytes(out, *size, s->texture_zstd_level);
        size_t smaller = texture_zstd_bytes(optimised, *size, s->texture_zstd_level);
        bool keep = smaller != 0 && smaller < plain;
        free(keep ? out : optimised);
        out = keep ? optimised : out;
    }
    return out;
}

image_limits texture_image_limits(const cook_settings *settings) {
    image_limits limits = {IMAGE_DEFAULT_MAX_DIMENSION, IMAGE_DEFAULT_MAX_PIXELS,
                           settings->import_timeout};
    if (settings->texture_max_dimension > 0)
        limits.max_dimension = settings->texture_max_dimension;
    return limits;
}

/* Serialises `desc` and emits it (write_emit) with its manifest entry: the one
 * write path of every texture (2D, cubemap, 3D LUT). Messages name `name`. */
bool texture_write_file(cook_context *ctx, const ktx2_image_desc *desc, const char *name,
                        const char *output_root, const char *ref, const char *out_path, bool verify,
                        kiln_color_space space, cook_asset_result *result) {
    char reason[512];
    bytebuf bytes = {0};
    bool ok = write_ktx2(desc, &bytes, reason, sizeof reason);
    if (!ok) {
        diag_error(ctx->diag, name, 0, "%s", reason);
    } else {
        write_output out = {.relative = out_path,
                            .name = name,
                            .kind = KILN_ASSET_TEXTURE,
                            .bytes = &bytes,
                            .ref = ref,
                            .color_space = space};
        ok = write_emit(ctx, output_root, verify, &out, result);
    }
    bytebuf_free(&bytes);
    return ok;
}

typedef struct packed_file {
    const ktx2_image_desc *desc;
    const ktx2_packed_levels *packed;
} packed_file;

static bool produce_packed(void *arg, write_sink sink, void *sink_arg, char *reason,
                           size_t reason_size) {
    const packed_file *f = arg;
    return write_ktx2_packed(f->desc, f->packed, sink, sink_arg, reason, reason_size);
}

/* texture_write_file of levels packed as they were made (write_ktx2_packed):
 * the same file, streamed to disk, never whole in memory. */
static bool texture_write_packed(cook_context *ctx, const ktx2_image_desc *desc,
                                 const ktx2_packed_levels *packed, const char *name,
                                 const char *output_root, const char *ref, const char *out_path,
                                 bool verify, kiln_color_space space, cook_asset_result *result) {
    packed_file file = {desc, packed};
    write_output out = {.relative = out_path,
                        .name = name,
                        .kind = KILN_ASSET_TEXTURE,
                        .ref = ref,
                        .color_space = space,
                        .produce = produce_packed,
                        .produce_arg = &file};
    return write_emit(ctx, output_root, verify, &out, result);
}

/* Where encode_image puts each encoded level (malloc'd, handed over): packed
 * at once into `packed` (a lone image: the raw level is freed as soon as it
 * is compressed), else kept in bytes[i] / size[i] for the set. */
typedef struct level_sink {
    ktx2_packed_levels *packed;
    uint8_t **bytes;
    size_t *size;
} level_sink;

static bool put_level(const level_sink *sink, uint32_t level, uint8_t *data, size_t size) {
    if (data == NULL)
        return false;
    if (sink->packed != NULL)
        return ktx2_pack_level(sink->packed, level, data, size);
    sink->bytes[level] = data;
    sink->size[level] = size;
    return true;
}

/* Mips of one image of a set, every level encoded in `format` and handed to
 * `sink`; *dims receives the chain's level count and sizes. Takes the
 * image's pixels: they are freed, or moved into level 0. Each level's texels
 * are freed once it is encoded, the smaller levels first and level 0 (the
 * source's own texels when kept at their size) last. On failure reports
 * naming the set; the caller frees what reached the sink. */
static bool encode_image(cook_context *ctx, const texture_set *set, const texture_format *format,
                         ir_decoded_image *image, mip_chain *dims, const level_sink *sink,
                         texture_encoding *enc) {
    const cook_settings *settings = ctx->settings;
    cook_texture_usage usage = set->usage;
    uint32_t vk_format = format->vk_format;
    const ktx2_format_info *row = ktx2_format_find(vk_format);
    /* RGBA16F, BC6H and ASTC HDR take float levels; the others 8-bit ones. */
    bool float_levels = row->is_float;
    uint32_t width = image->width, height = image->height;
    /* Level 0 as floats when the levels are float or the source is (Radiance
     * HDR, converted in place: no second float copy); 8-bit sources are
     * filtered straight from their bytes (mip_build_rgba8). */
    float *owned = NULL;
    const float *base = NULL;
    if (image->rgbaf != NULL) {
        image_floats_to_stored(image->rgbaf, image->rgbaf, (size_t)width * height, usage);
        base = image->rgbaf;
    } else if (float_levels) {
        base = owned = image_to_float(image, usage);
        if (base == NULL) {
            diag_error(ctx->diag, set->name, 0, "out of memory for a %ux%u image", width, height);
            return false;
        }
    }
    mip_options options = {
        .mode = usage == COOK_TEXTURE_COLOR    ? MIP_MODE_COLOR_SRGB
                : usage == COOK_TEXTURE_NORMAL ? MIP_MODE_NORMAL
                                               : MIP_MODE_LINEAR,
        .alpha_weighted = usage == COOK_TEXTURE_COLOR || usage == COOK_TEXTURE_HDR,
        .alpha_cutoff = usage == COOK_TEXTURE_COLOR ? set->alpha_cutoff : 0.0f,
        .max_size = settings->texture_max_size,
        .mipmaps = settings->texture_mipmaps,
        /* Level 0 kept at its size is encoded from the source's own texels
         * (below): 8-bit bytes for 8-bit formats, floats for float ones. */
        .skip_level0 = float_levels ? base != NULL : image->rgba8 != NULL,
        /* 8-bit formats take the filter's bytes as they are. */
        .levels8 = !float_levels,
        .threads = settings->threads,
        /* Direct3D and WebGPU want a block format's top level in whole blocks. */
        .align_width = format->block != 0 && settings->texture_block_align != COOK_BLOCK_ALIGN_NONE
                           ? row->block_width
                           : 0,
        .align_height = format->block != 0 && settings->texture_block_align != COOK_BLOCK_ALIGN_NONE
                            ? row->block_height
                            : 0,
        .align_by_padding = settings->texture_block_align == COOK_BLOCK_ALIGN_PAD,
    };
    mip_chain chain;
    bool ok = base != NULL ? mip_build(base, width, height, &options, &chain)
                           : mip_build_rgba8(image->rgba8, width, height, &options, &chain);
    if (!ok) {
        free(owned);
        ir_decoded_image_free(image);
        diag_error(ctx->diag, set->name, 0, "out of memory building mipmaps");
        return false;
    }

    /* Level 0 kept at its size (skipped by the chain): the source's texels
     * as they are (the same values the chain would hold). */
    bool level0_from_source = chain.levels8[0] == NULL && chain.levels[0] == NULL;
    /* texture.target_psnr: chosen on the set's first image, for all. */
    if (settings->texture_target_psnr > 0 && format->block != 0 && !enc->searched) {
        block_image_desc level0 = {.format = format->block,
                                   .quality = enc->quality,
                                   .width = chain.width[0],
                                   .height = chain.height[0],
                                   .rgba8 = float_levels         ? NULL
                                            : level0_from_source ? image->rgba8
                                                                 : chain.levels8[0],
                                   .srgb = format->srgb,
                                   .astc_block_width = format->astc_size,
                                   .astc_block_height = format->astc_size,
                                   .threads = settings->threads};
        ok = texture_meet_target(ctx, set->name, &level0, enc);
    }
    char reason[512] = "";
    /* Levels 1, 2, ... and level 0 last: the largest is encoded when the
     * others are already packed and their texels freed. */
    for (uint32_t k = 0; ok && k < chain.count; k++) {
        uint32_t i = (k + 1) % chain.count;
        bool source = i == 0 && level0_from_source;
        uint8_t **rgba8 = source ? &image->rgba8 : &chain.levels8[i];
        const float *levelf = source ? base : chain.levels[i];
        size_t texels = (size_t)chain.width[i] * chain.height[i];
        uint8_t *bytes = NULL;
        size_t size = 0;
        if (format->block != 0) {
            bytes = encode_block_level(format, settings, enc, levelf, *rgba8, chain.width[i],
                                       chain.height[i], &size, reason, sizeof reason);
        } else if (float_levels) {
            bytes = encode_level(levelf, texels, vk_format, &size);
        } else if (row->channels == 1) { /* R8: the first channel */
            if ((bytes = malloc(texels)) != NULL)
                for (size_t t = 0; t < texels; t++)
                    bytes[t] = (*rgba8)[t * 4];
            size = texels;
        } else {
            bytes = *rgba8; /* ownership moves to the sink */
            *rgba8 = NULL;
            size = texels * 4;
        }
        free(chain.levels8[i]);
        chain.levels8[i] = NULL;
        free(chain.levels[i]);
        chain.levels[i] = NULL;
        if (i == 0) { /* the last level: the source's texels are done with before packing */
            free(owned);
            owned = NULL;
            ir_decoded_image_free(image);
        }
        ok = put_level(sink, i, bytes, size);
    }
    free(owned);
    ir_decoded_image_free(image);
    *dims = (mip_chain){.count = chain.count,
                        .content_width = chain.content_width,
                        .content_height = chain.content_height};
    memcpy(dims->width, chain.width, sizeof chain.width);
    memcpy(dims->height, chain.height, sizeof chain.height);
    mip_chain_free(&chain);
    if (!ok)
        diag_error(ctx->diag, set->name, 0, "cannot encode the mip levels: %s",
                   reason[0] ? reason : "out of memory");
    return ok;
}

bool cook_texture_set(cook_context *ctx, const char *output_root, texture_set *set, const char *ref,
                      const char *out_path, bool verify, cook_asset_result *result) {
    const cook_settings *settings = ctx->settings;
    texture_format format;
    const char *unusable = choose_format(settings, set->usage, set->images, set->count, &format);
    if (unusable != NULL) {
        const char *origin = settings->texture_format_origin;
        diag_error(ctx->diag, set->name, 0,
                   "texture.format '%s'%s%s%s cannot be used for this %s texture: %s",
                   cook_texture_format_names[settings->texture_format],
                   origin[0] ? " (set by " : "", origin, origin[0] ? ")" : "",
                   usage_name(set->usage), unusable);
        return false;
    }
    /* Each level is Zstd-compressed as soon as it is complete, its raw bytes
     * freed: a lone image's as it is encoded; a cubemap's once its six
     * faces are (level i holds every image's level i, image after image,
     * the KTX2 face order). */
    ktx2_packed_levels packed = {.zstd = true, .zstd_level = settings->texture_zstd_level};
    uint8_t *levels[MIP_MAX_LEVELS] = {0};
    size_t level_size[MIP_MAX_LEVELS] = {0};
    mip_chain dims = {0};
    bool ok = true;
    /* Draft (kiln watch's first encode, the dev preset) skips RDO: it is
     * for speed, and RDO costs a few encodes. */
    texture_encoding enc = {.quality = (block_quality)settings->texture_quality,
                            .uastc_rdo = settings->texture_quality == COOK_QUALITY_DRAFT
                                             ? 0.0f
                                             : uastc_rdo_lambda(settings->texture_uastc_rdo)};
    for (uint32_t f = 0; ok && f < set->count; f++) {
        uint8_t *bytes[MIP_MAX_LEVELS] = {0};
        size_t size[MIP_MAX_LEVELS] = {0};
        level_sink sink = {
            .packed = set->count == 1 ? &packed : NULL, .bytes = bytes, .size = size};
        ir_decoded_image loaded = {0};
        ok = set->load == NULL || set->load(set->load_user, f, &loaded);
        ok = ok && encode_image(ctx, set, &format, set->load ? &loaded : &set->images[f], &dims,
                                &sink, &enc);
        ir_decoded_image_free(&loaded);
        for (uint32_t i = 0; ok && set->count > 1 && i < dims.count; i++) {
            if (levels[i] == NULL) { /* all images share one size: slot f at f * size */
                level_size[i] = size[i] * set->count;
                levels[i] = malloc(level_size[i]);
            }
            ok = levels[i] != NULL;
            if (ok)
                memcpy(levels[i] + size[i] * f, bytes[i], size[i]);
            else
                diag_error(ctx->diag, set->name, 0, "out of memory");
        }
        for (uint32_t i = 0; i < MIP_MAX_LEVELS; i++)
            free(bytes[i]);
    }
    for (uint32_t i = 0; ok && set->count > 1 && i < dims.count; i++) {
        ok = ktx2_pack_level(&packed, i, levels[i], level_size[i]);
        levels[i] = NULL; /* taken */
        if (!ok)
            diag_error(ctx->diag, set->name, 0, "out of memory compressing level %u", i);
    }
    if (ok) {
        ktx2_image_desc desc = {
            .vk_format = format.vk_format,
            .width = dims.width[0],
            .height = dims.height[0],
            .faces = set->count / (set->layers > 0 ? set->layers : 1u),
            .layers = set->layers,
            .levels = dims.count,
            .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
            .zstd_level = settings->texture_zstd_level,
            .threads = settings->threads,
            .source = set->source,
            .content_width = dims.content_width,
            .content_height = dims.content_height,
            .target = enc.note[0] ? enc.note : NULL,
        };
        kiln_color_space space = format.srgb ? KILN_COLOR_SPACE_SRGB : KILN_COLOR_SPACE_LINEAR;
        ok = texture_write_packed(ctx, &desc, &packed, set->name, output_root, ref, out_path,
                                  verify, space, result);
    }
    for (uint32_t i = 0; i < MIP_MAX_LEVELS; i++)
        free(levels[i]);
    ktx2_packed_free(&packed);
    return ok;
}

/* One opacity value per texel of a decoded opacity map (0..1): its alpha when
 * it has an alpha channel that is not all opaque, else its luminance (Rec.
 * 709 weights on the stored values, as viewers show a grey map). */
static float *opacity_values(const ir_decoded_image *map) {
    size_t count = (size_t)map->width * map->height;
    float *values = malloc(count * sizeof *values);
    if (values == NULL)
        return NULL;
    bool has_alpha = false;
    if (map->source_channels == 2 || map->source_channels == 4)
        for (size_t i = 0; i < count && !has_alpha; i++)
            has_alpha = map->rgba8 ? map->rgba8[i * 4 + 3] != 255 : map->rgbaf[i * 4 + 3] < 1.0f;
    for (size_t i = 0; i < count; i++) {
        float rgba[4];
        for (int c = 0; c < 4; c++)
            rgba[c] = map->rgba8 ? map->rgba8[i * 4 + c] / 255.0f : map->rgbaf[i * 4 + c];
        float v = has_alpha ? rgba[3] : 0.2126f * rgba[0] + 0.7152f * rgba[1] + 0.0722f * rgba[2];
        values[i] = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    }
    return values;
}

/* Replaces image's alpha with the opacity map's values, resampled (area
 * filter) when the sizes differ. An image without colour (NULL pixels) becomes
 * white at the map's size. False when out of memory. */
static bool merge_opacity(ir_decoded_image *image, const ir_decoded_image *map) {
    if (image->rgba8 == NULL && image->rgbaf == NULL) {
        *image = (ir_decoded_image){.width = map->width,
                                    .height = map->height,
                                    .source_channels = 4,
                                    .source_bits = 8,
                                    .format = map->format};
        image->rgba8 = malloc((size_t)map->width * map->height * 4);
        if (image->rgba8 == NULL)
            return false;
        memset(image->rgba8, 255, (size_t)map->width * map->height * 4);
    }
    float *values = opacity_values(map);
    if (values == NULL)
        return false;
    size_t count = (size_t)image->width * image->height;
    if (map->width != image->width || map->height != image->height) {
        size_t map_count = (size_t)map->width * map->height;
        float *spread = malloc(map_count * 4 * sizeof *spread);
        float *resampled = malloc(count * 4 * sizeof *resampled);
        bool ok = spread != NULL && resampled != NULL;
        for (size_t i = 0; ok && i < map_count; i++)
            for (int c = 0; c < 4; c++)
                spread[i * 4 + c] = values[i];
        ok = ok && image_resample_area(spread, map->width, map->height, resampled, image->width,
                                       image->height);
        free(values);
        values = NULL;
        if (ok && (values = malloc(count * sizeof *values)) != NULL)
            for (size_t i = 0; i < count; i++)
                values[i] = resampled[i * 4];
        free(spread);
        free(resampled);
        if (values == NULL)
            return false;
    }
    for (size_t i = 0; i < count; i++) {
        if (image->rgba8 != NULL)
            image->rgba8[i * 4 + 3] = image_float_to_unorm8(values[i]);
        else
            image->rgbaf[i * 4 + 3] = values[i];
    }
    if (image->source_channels == 1 || image->source_channels == 3)
        image->source_channels++; /* it has an alpha channel now */
    free(values);
    return true;
}

bool cook_texture(cook_context *ctx, const char *output_root, const cook_texture_source *src,
                  const char *ref, const char *out_path, bool verify, cook_asset_result *result) {
    char reason[512];
    image_limits limits = texture_image_limits(ctx->settings);
    ir_decoded_image image = {0};
    if (src->bytes != NULL &&
        !image_decode(src->bytes, src->size, src->name, &limits, &image, reason, sizeof reason)) {
        diag_error(ctx->diag, src->name, 0, "cannot decode image: %s", reason);
        return false;
    }
    /* A standalone texture's file is not needed once decoded: free it before
     * the mips are made (a noisy PNG is as big as its RGBA8 image). */
    if (src->release_source)
        cook_release_source(ctx);
    if (src->opacity_bytes != NULL) {
        ir_decoded_image map;
        if (!image_decode(src->opacity_bytes, src->opacity_size, src->opacity_name, &limits, &map,
                          reason, sizeof reason)) {
            diag_error(ctx->diag, src->opacity_name, 0, "cannot decode opacity image: %s", reason);
            ir_decoded_image_free(&image);
            return false;
        }
        bool merged = merge_opacity(&image, &map);
        ir_decoded_image_free(&map);
        if (!merged) {
            diag_error(ctx->diag, src->name, 0, "out of memory merging the opacity map");
            ir_decoded_image_free(&image);
            return false;
        }
    } else if (src->bytes == NULL) {
        diag_error(ctx->diag, src->name, 0, "no image");
        return false;
    }
    /* A merged texture names both sources: --quality then finds no one file
     * to compare it with (the alpha is the opacity map's) and says so. */
    char merged_source[1024];
    if (src->opacity_bytes != NULL)
        snprintf(merged_source, sizeof merged_source, "%s + opacity %s", src->name,
                 src->opacity_name);
    texture_set set = {.name = src->name,
                       .source = src->opacity_bytes != NULL ? merged_source : src->name,
                       .usage = src->usage,
                       .alpha_cutoff = src->alpha_cutoff,
                       .images = &image,
                       .count = 1};
    bool ok = cook_texture_set(ctx, output_root, &set, ref, out_path, verify, result);
    ir_decoded_image_free(&image);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Standalone textures (the texture driver): usage by naming convention
 * ------------------------------------------------------------------------- */

cook_texture_usage cook_texture_usage_for_path(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (ascii_ends_with_ci(name, ".hdr"))
        return COOK_TEXTURE_HDR;
    const char *dot = strrchr(name, '.');
    size_t stem = dot ? (size_t)(dot - name) : strlen(name);
    char head[512];
    if (stem >= sizeof head)
        return COOK_TEXTURE_COLOR;
    memcpy(head, name, stem);
    head[stem] = '\0';
    if (ascii_ends_with_ci(head, ".n"))
        return COOK_TEXTURE_NORMAL;
    if (ascii_ends_with_ci(head, ".ao") || ascii_ends_with_ci(head, ".h") ||
        ascii_ends_with_ci(head, ".r"))
        return COOK_TEXTURE_SINGLE;
    return COOK_TEXTURE_COLOR;
}

bool cook_texture_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    driver_output out;
    if (!driver_output_begin(ctx, COOK_STAGE_TEXTURE, ".ktx2", &out))
        return driver_output_end(&out, result, false);
    cook_texture_source src = {
        .name = ctx->source_path,
        .bytes = ctx->source,
        .size = ctx->source_size,
        .usage = cook_texture_usage_for_path(ctx->source_path),
        .alpha_cutoff = 0.0f,
        .release_source = true, /* bytes is ctx->source */
    };
    bool ok = cook_texture(ctx, request->output_root, &src, ctx->ref, out.relative, request->verify,
                           result);
    return driver_output_end(&out, result, ok);
}
