/*
 * texture.c — one texture through decode → process → encode → KTX2 (cook.h).
 *
 * Usage decides the output:
 *   COLOR   sRGB RGBA8 (VK_FORMAT_R8G8B8A8_SRGB), mips in linear light, alpha-weighted
 *   DATA    linear RGBA8 (R8G8B8A8_UNORM), channels filtered independently (ORM kept)
 *   NORMAL  linear RGBA8, vectors renormalised per level
 *   SINGLE  linear R8 from the first channel (grey images: the grey value)
 *   HDR     RGBA16F (R16G16B16A16_SFLOAT), linear floats
 * All output is currently uncompressed texels with Zstd supercompression;
 * texture.compress: false guarantees that (level 0 holds the source texels
 * exactly when no downscale was needed). Block compression (issue 5) will pick
 * a block vkFormat here and hand whole blocks to write_ktx2.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/texture_internal.h"

static uint16_t float_to_half(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t exponent = (bits >> 23) & 0xFFu;
    uint32_t mantissa = bits & 0x7FFFFFu;
    if (exponent == 0xFF) /* inf / NaN */
        return (uint16_t)(sign | 0x7C00u | (mantissa ? 0x200u : 0u));
    int e = (int)exponent - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7BFFu); /* clamp to the largest finite half */
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        mantissa |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1u)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)e << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent: still correct (up to inf → clamp below) */
    if ((half & 0x7C00u) == 0x7C00u)
        half = sign | 0x7BFFu;
    return (uint16_t)half;
}

static uint8_t to_unorm8(float v) {
    if (!(v > 0.0f))
        return 0;
    if (v >= 1.0f)
        return 255;
    return (uint8_t)lrintf(v * 255.0f);
}

static char *join_path(const char *dir, const char *name) {
    size_t size = strlen(dir) + 1 + strlen(name) + 1;
    char *out = malloc(size);
    if (out != NULL)
        snprintf(out, size, "%s/%s", dir, name);
    return out;
}

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

/* Float RGBA in the stored encoding of `usage` from a decoded image. */
float *image_to_float(const cook_image *image, cook_texture_usage usage) {
    size_t count = (size_t)image->width * image->height; /* checked by the decoder */
    float *out = malloc(count * 4 * sizeof(float));
    if (out == NULL)
        return NULL;
    if (image->rgba8 != NULL) {
        for (size_t i = 0; i < count * 4; i++)
            out[i] = image->rgba8[i] / 255.0f;
        return out;
    }
    for (size_t i = 0; i < count * 4; i++) {
        float v = image->rgbaf[i];
        if (!isfinite(v))
            v = 0.0f;
        if (usage != COOK_TEXTURE_HDR) {
            v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
            if (usage == COOK_TEXTURE_COLOR && (i % 4) != 3)
                v = image_linear_to_srgb(v);
        }
        out[i] = v;
    }
    return out;
}

/* Quantises one level into the output format's bytes. */
uint8_t *encode_level(const float *rgba, size_t count, uint32_t vk_format, size_t *size) {
    size_t bpp = vk_format == KTX2_VK_FORMAT_R8_UNORM              ? 1
                 : vk_format == KTX2_VK_FORMAT_R16G16B16A16_SFLOAT ? 8
                                                                   : 4;
    uint8_t *out = malloc(count * bpp);
    if (out == NULL)
        return NULL;
    *size = count * bpp;
    for (size_t i = 0; i < count; i++) {
        const float *p = rgba + i * 4;
        if (bpp == 1) {
            out[i] = to_unorm8(p[0]);
        } else if (bpp == 4) {
            for (int c = 0; c < 4; c++)
                out[i * 4 + (size_t)c] = to_unorm8(p[c]);
        } else {
            for (int c = 0; c < 4; c++) {
                uint16_t h = float_to_half(p[c]);
                out[i * 8 + (size_t)c * 2] = (uint8_t)h;
                out[i * 8 + (size_t)c * 2 + 1] = (uint8_t)(h >> 8);
            }
        }
    }
    return out;
}

/* Reads the written file back through the runtime reader and inflates every
 * level (--verify). */
bool verify_ktx2(const char *full_path, const char *name, const bytebuf *expected,
                 cook_diag *diag) {
    uint8_t *data = NULL;
    size_t size = 0;
    char reason[256];
    if (!cook_read_file(full_path, (size_t)4 << 30, &data, &size, reason, sizeof reason)) {
        diag_error(diag, name, 0, "verification: %s", reason);
        return false;
    }
    bool ok = size == expected->size && memcmp(data, expected->data, size) == 0;
    kiln_error error = {0};
    kiln_ktx2_view view;
    if (ok && kiln_ktx2_view_get(&view, data, size, name, &error) == KILN_OK) {
        for (uint32_t level = 0; ok && level < view.levels; level++) {
            uint64_t level_size = kiln_ktx2_level_size(&view, level);
            uint8_t *buffer =
                level_size > 0 && level_size < SIZE_MAX ? malloc((size_t)level_size) : NULL;
            ok = buffer != NULL &&
                 kiln_ktx2_read_level(&view, level, buffer, (size_t)level_size, &error) == KILN_OK;
            free(buffer);
        }
    } else {
        ok = false;
    }
    if (!ok)
        diag_error(diag, name, 0, "verification of the written KTX2 failed: %s",
                   error.message[0] ? error.message : "bytes differ");
    free(data);
    return ok;
}

bool cook_texture(cook_context *ctx, const char *output_root, const cook_texture_source *src,
                  const char *ref, const char *out_path, bool verify, cook_asset_result *result) {
    const cook_settings *settings = ctx->settings;
    char reason[512];
    image_limits limits = {IMAGE_DEFAULT_MAX_DIMENSION, IMAGE_DEFAULT_MAX_PIXELS};
    if (settings->texture_max_dimension > 0)
        limits.max_dimension = settings->texture_max_dimension;
    cook_image image;
    if (!image_decode(src->bytes, src->size, src->name, &limits, &image, reason, sizeof reason)) {
        diag_error(ctx->diag, src->name, 0, "cannot decode image: %s", reason);
        return false;
    }
    uint32_t vk_format = vk_format_for(src->usage);
    /* 8-bit sources are filtered straight from their bytes (mip_build_rgba8). */
    float *base = image.rgba8 != NULL ? NULL : image_to_float(&image, src->usage);
    uint32_t width = image.width, height = image.height;
    if (base == NULL && image.rgba8 == NULL) {
        cook_image_free(&image);
        diag_error(ctx->diag, src->name, 0, "out of memory for a %ux%u image", width, height);
        return false;
    }
    mip_options options = {
        .mode = src->usage == COOK_TEXTURE_COLOR    ? MIP_MODE_COLOR_SRGB
                : src->usage == COOK_TEXTURE_NORMAL ? MIP_MODE_NORMAL
                                                    : MIP_MODE_LINEAR,
        .alpha_weighted = src->usage == COOK_TEXTURE_COLOR || src->usage == COOK_TEXTURE_HDR,
        .alpha_cutoff = src->usage == COOK_TEXTURE_COLOR ? src->alpha_cutoff : 0.0f,
        .max_size = settings->texture_max_size,
        .mipmaps = settings->texture_mipmaps,
        /* 8-bit sources encode level 0 from their own bytes (below). */
        .skip_level0 = image.rgba8 != NULL && vk_format != KTX2_VK_FORMAT_R16G16B16A16_SFLOAT,
    };
    mip_chain chain;
    bool ok = base != NULL ? mip_build(base, width, height, &options, &chain)
                           : mip_build_rgba8(image.rgba8, width, height, &options, &chain);
    free(base);
    if (!ok) {
        cook_image_free(&image);
        diag_error(ctx->diag, src->name, 0, "out of memory building mipmaps");
        return false;
    }

    uint8_t *level_bytes[MIP_MAX_LEVELS] = {0};
    size_t level_size[MIP_MAX_LEVELS] = {0};
    /* Level 0 of an 8-bit source kept at its size: the source bytes as they
     * are (the same values encode_level would give, without the float pass). */
    uint32_t first = 0;
    size_t pixels = (size_t)width * height;
    if (image.rgba8 != NULL && chain.width[0] == width && chain.height[0] == height) {
        if (vk_format == KTX2_VK_FORMAT_R8_UNORM) {
            level_bytes[0] = malloc(pixels);
            if (level_bytes[0] != NULL)
                for (size_t i = 0; i < pixels; i++)
                    level_bytes[0][i] = image.rgba8[i * 4];
            level_size[0] = pixels;
            first = 1;
        } else if (vk_format != KTX2_VK_FORMAT_R16G16B16A16_SFLOAT) {
            level_bytes[0] = image.rgba8; /* ownership moves to level_bytes */
            image.rgba8 = NULL;
            level_size[0] = pixels * 4;
            first = 1;
        }
        ok = first == 0 || level_bytes[0] != NULL;
    }
    cook_image_free(&image);
    for (uint32_t i = first; ok && i < chain.count; i++) {
        level_bytes[i] = encode_level(chain.levels[i], (size_t)chain.width[i] * chain.height[i],
                                      vk_format, &level_size[i]);
        ok = level_bytes[i] != NULL;
    }
    bytebuf bytes = {0};
    if (ok) {
        ktx2_image_desc desc = {
            .vk_format = vk_format,
            .width = chain.width[0],
            .height = chain.height[0],
            .faces = 1,
            .levels = chain.count,
            .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
            .zstd_level = settings->texture_zstd_level,
            .level_data = (const uint8_t *const *)level_bytes,
            .level_size = level_size,
        };
        ok = write_ktx2(&desc, &bytes, reason, sizeof reason);
        if (!ok)
            diag_error(ctx->diag, src->name, 0, "%s", reason);
    } else {
        diag_error(ctx->diag, src->name, 0, "out of memory encoding levels");
    }
    for (uint32_t i = 0; i < MIP_MAX_LEVELS; i++)
        free(level_bytes[i]);
    mip_chain_free(&chain);

    char *full = ok ? join_path(output_root, out_path) : NULL;
    if (ok && full == NULL) {
        diag_error(ctx->diag, src->name, 0, "out of memory");
        ok = false;
    }
    if (ok && !write_file_atomic(full, bytes.data, bytes.size, reason, sizeof reason)) {
        diag_error(ctx->diag, src->name, 0, "%s", reason);
        ok = false;
    }
    if (ok && verify)
        ok = verify_ktx2(full, src->name, &bytes, ctx->diag);
    if (ok) {
        kiln_color_space space =
            src->usage == COOK_TEXTURE_COLOR ? KILN_COLOR_SPACE_SRGB : KILN_COLOR_SPACE_LINEAR;
        ok = strlist_push(&result->outputs, out_path) &&
             cook_manifest_add(&result->manifest, ref, out_path, KILN_ASSET_TEXTURE, space, 0);
        if (!ok)
            diag_error(ctx->diag, src->name, 0, "out of memory");
        else
            result->bytes_written += bytes.size;
    }
    free(full);
    bytebuf_free(&bytes);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Standalone textures (COOK_KIND_TEXTURE): usage by naming convention
 * ------------------------------------------------------------------------- */

static bool has_suffix_ci(const char *name, const char *suffix) {
    size_t n = strlen(name), s = strlen(suffix);
    if (n < s)
        return false;
    for (size_t i = 0; i < s; i++) {
        char a = name[n - s + i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (a != suffix[i])
            return false;
    }
    return true;
}

cook_texture_usage cook_texture_usage_for_path(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (has_suffix_ci(name, ".hdr"))
        return COOK_TEXTURE_HDR;
    const char *dot = strrchr(name, '.');
    size_t stem = dot ? (size_t)(dot - name) : strlen(name);
    char head[512];
    if (stem >= sizeof head)
        return COOK_TEXTURE_COLOR;
    memcpy(head, name, stem);
    head[stem] = '\0';
    if (has_suffix_ci(head, ".n"))
        return COOK_TEXTURE_NORMAL;
    if (has_suffix_ci(head, ".ao") || has_suffix_ci(head, ".h") || has_suffix_ci(head, ".r"))
        return COOK_TEXTURE_SINGLE;
    return COOK_TEXTURE_COLOR;
}

/* A .cube 3D LUT as a 3D RGBA16F KTX2 (N x N x N, one level; r along x,
 * g along y, b along z, exactly the .cube order). */
static bool cook_lut(const cook_request *request, cook_context *ctx, const char *out_path,
                     cook_asset_result *result) {
    uint32_t n = 0;
    float *rgb = NULL;
    char reason[512];
    if (!image_parse_cube_lut((const char *)ctx->source, ctx->source_size, &n, &rgb, reason,
                              sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "cannot read the LUT: %s", reason);
        return false;
    }
    size_t count = (size_t)n * n * n;
    float *rgba = malloc(count * 4 * sizeof(float));
    size_t level_size = 0;
    uint8_t *level = NULL;
    if (rgba != NULL) {
        for (size_t i = 0; i < count; i++) {
            memcpy(rgba + i * 4, rgb + i * 3, 3 * sizeof(float));
            rgba[i * 4 + 3] = 1.0f;
        }
        level = encode_level(rgba, count, KTX2_VK_FORMAT_R16G16B16A16_SFLOAT, &level_size);
    }
    free(rgb);
    free(rgba);
    if (level == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    const uint8_t *levels[1] = {level};
    ktx2_image_desc desc = {.vk_format = KTX2_VK_FORMAT_R16G16B16A16_SFLOAT,
                            .width = n,
                            .height = n,
                            .depth = n,
                            .faces = 1,
                            .levels = 1,
                            .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
                            .zstd_level = ctx->settings->texture_zstd_level,
                            .level_data = levels,
                            .level_size = &level_size};
    bytebuf bytes = {0};
    bool ok = write_ktx2(&desc, &bytes, reason, sizeof reason);
    free(level);
    char *full = ok ? join_path(request->output_root, out_path) : NULL;
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "%s", reason);
    else if (full == NULL ||
             !write_file_atomic(full, bytes.data, bytes.size, reason, sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "%s", full ? reason : "out of memory");
        ok = false;
    }
    if (ok && request->verify)
        ok = verify_ktx2(full, ctx->source_path, &bytes, ctx->diag);
    if (ok) {
        ok = strlist_push(&result->outputs, out_path) &&
             cook_manifest_add(&result->manifest, ctx->ref, out_path, KILN_ASSET_TEXTURE,
                               KILN_COLOR_SPACE_LINEAR, 0);
        if (ok)
            result->bytes_written += bytes.size;
        else
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    }
    free(full);
    bytebuf_free(&bytes);
    return ok;
}

bool cook_texture_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    char *out_path = cook_output_path(request->source_path, ".ktx2");
    if (out_path != NULL && has_suffix_ci(request->source_path, ".cube")) {
        bool cooked = cook_lut(request, ctx, out_path, result);
        free(out_path);
        return cooked;
    }
    if (out_path == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    cook_texture_source src = {
        .name = ctx->source_path,
        .bytes = ctx->source,
        .size = ctx->source_size,
        .usage = cook_texture_usage_for_path(ctx->source_path),
        .alpha_cutoff = 0.0f,
    };
    bool ok =
        cook_texture(ctx, request->output_root, &src, ctx->ref, out_path, request->verify, result);
    free(out_path);
    return ok;
}
