/*
 * gpu_assets.c — the asset manager's upload callbacks (gpu_assets.h).
 */
#include "gpu_assets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astc_decode.h"

/* Puts the cooked file's name before the Vulkan message. */
static void name_file(kiln_error *err, const kiln_asset *asset) {
    char reason[KILN_ERROR_MESSAGE_MAX];
    snprintf(reason, sizeof reason, "%s", err->message);
    snprintf(err->message, sizeof err->message, "%.100s: %.150s", asset->path, reason);
}

static kiln_result create_buffer(void *user, const kiln_asset *asset, kiln_buffer_usage usage,
                                 const void *data, size_t size, void **object, kiln_error *err) {
    gpu_assets *assets = user;
    vk_buffer *buffer = calloc(1, sizeof *buffer);
    if (buffer == NULL)
        return KILN_ERR_OUT_OF_MEMORY;
    VkBufferUsageFlags flags = usage == KILN_BUFFER_INDICES ? VK_BUFFER_USAGE_INDEX_BUFFER_BIT
                                                            : VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    if (!vkc_device_buffer(assets->vk, data, size, flags, buffer, err)) {
        name_file(err, asset);
        free(buffer);
        return KILN_ERR_OUT_OF_MEMORY;
    }
    *object = buffer;
    return KILN_OK;
}

static void destroy_buffer(void *user, const kiln_asset *asset, void *object) {
    gpu_assets *assets = user;
    (void)asset;
    vkc_buffer_destroy(assets->vk, object);
    free(object);
}

static bool samples(const vk_context *vk, uint32_t format) {
    VkFormatProperties properties;
    vkGetPhysicalDeviceFormatProperties(vk->physical, (VkFormat)format, &properties);
    VkFormatFeatureFlags needed =
        VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    return (properties.optimalTilingFeatures & needed) == needed;
}

/* Why the device cannot sample this format, or NULL. Its format is the
 * texels' (a UASTC file arrives transcoded, e.g. as BC7). */
static const char *unsupported(const vk_context *vk, uint32_t format) {
    if (!vk->bc_textures && format >= VK_FORMAT_BC1_RGB_UNORM_BLOCK &&
        format <= VK_FORMAT_BC7_SRGB_BLOCK)
        return "the device has no BC texture support";
    if (!samples(vk, format))
        return "the device cannot sample its format";
    return NULL;
}

/* Texels as they go into an image: their format, the image's shape, and
 * where each level and each of its images (layer by face) start. */
typedef struct texel_layout {
    VkFormat format;
    vkc_shape shape;
    uint64_t level_offsets[KILN_ASSET_MAX_LEVELS];
    uint64_t image_bytes[KILN_ASSET_MAX_LEVELS]; /* one layer-face (3D: the level) */
} texel_layout;

/* The texel block of `format` (the texture's own, or what the manager
 * transcoded a UASTC file to: RGBA8 texels, 8-byte BC1 or ETC2 RGB
 * blocks, else 16-byte 4x4 blocks; docs/runtime.md). */
static void block_of(const kiln_ktx2_view *t, uint32_t format, uint32_t *width, uint32_t *height,
                     uint32_t *bytes) {
    if (format == t->vk_format) {
        *width = t->block_width;
        *height = t->block_height;
        *bytes = t->block_bytes;
    } else if (format == VK_FORMAT_R8G8B8A8_UNORM || format == VK_FORMAT_R8G8B8A8_SRGB) {
        *width = *height = 1;
        *bytes = 4;
    } else {
        bool eight =
            (format >= VK_FORMAT_BC1_RGB_UNORM_BLOCK && format <= VK_FORMAT_BC1_RGBA_SRGB_BLOCK) ||
            format == VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK ||
            format == VK_FORMAT_ETC2_R8G8B8_SRGB_BLOCK;
        *width = *height = 4;
        *bytes = eight ? 8 : 16;
    }
}

/* The layout of a texture's texels as the manager hands them over, checked
 * to lie within their `size` bytes. */
static bool layout_of(const kiln_asset *asset, size_t size, texel_layout *out, kiln_error *err) {
    const kiln_ktx2_view *t = &asset->texture;
    if (t->levels > KILN_ASSET_MAX_LEVELS)
        return vkc_fail(err, "too many mip levels", VK_ERROR_FORMAT_NOT_SUPPORTED);
    uint32_t layers = t->layers > 0 ? t->layers : 1;
    out->format = (VkFormat)asset->texels_vk_format;
    out->shape = (vkc_shape){.width = t->width,
                             .height = t->height > 0 ? t->height : 1,
                             .depth = t->depth > 0 ? t->depth : 1,
                             .layers = t->depth > 1 ? 1 : layers * t->faces,
                             .levels = t->levels,
                             .cube = t->faces == 6};
    uint32_t block_width, block_height, block_bytes;
    block_of(t, asset->texels_vk_format, &block_width, &block_height, &block_bytes);
    for (uint32_t level = 0; level < t->levels; level++) {
        uint32_t width, height, depth;
        kiln_ktx2_level_extent(t, level, &width, &height, &depth);
        out->level_offsets[level] = asset->level_offsets[level];
        out->image_bytes[level] = (uint64_t)((width + block_width - 1) / block_width) *
                                  ((height + block_height - 1) / block_height) * block_bytes *
                                  depth;
        uint64_t end = out->level_offsets[level] + out->image_bytes[level] * out->shape.layers;
        if (end > size || end < out->level_offsets[level]) {
            snprintf(err->message, sizeof err->message, "level %u lies outside the texels", level);
            return false;
        }
    }
    return true;
}

/* Copies every level's every image from a staging buffer into a new image,
 * then leaves it ready for sampling. */
static bool upload_levels(vk_context *vk, const texel_layout *layout, const void *texels,
                          size_t size, gpu_texture *out, kiln_error *err) {
    const vkc_shape *shape = &layout->shape;
    size_t count = (size_t)shape->levels * shape->layers;
    VkBufferImageCopy *regions = calloc(count, sizeof *regions);
    if (regions == NULL)
        return vkc_fail(err, "out of memory for copy regions", VK_ERROR_OUT_OF_HOST_MEMORY);
    for (uint32_t level = 0; level < shape->levels; level++) {
        uint32_t width = shape->width >> level, height = shape->height >> level,
                 depth = shape->depth >> level;
        for (uint32_t image = 0; image < shape->layers; image++)
            regions[(size_t)level * shape->layers + image] = (VkBufferImageCopy){
                .bufferOffset = layout->level_offsets[level] + image * layout->image_bytes[level],
                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, image, 1},
                .imageExtent = {width > 0 ? width : 1, height > 0 ? height : 1,
                                depth > 0 ? depth : 1}};
    }
    vk_buffer staging;
    if (!vkc_host_buffer(vk, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging, err)) {
        free(regions);
        return false;
    }
    memcpy(staging.mapped, texels, size);
    VkCommandBuffer cmd;
    bool ok = vkc_image_shaped(vk, layout->format, shape,
                               VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                               &out->image, err) &&
              vkc_begin_once(vk, &cmd, err);
    if (ok) {
        vkc_transition(cmd, out->image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        vkCmdCopyBufferToImage(cmd, staging.buffer, out->image.image,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, (uint32_t)count, regions);
        vkc_transition(cmd, out->image.image, VK_IMAGE_ASPECT_COLOR_BIT,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        ok = vkc_submit_wait(vk, cmd, err);
    }
    vkc_buffer_destroy(vk, &staging);
    free(regions);
    if (!ok)
        vkc_image_destroy(vk, &out->image);
    out->format = layout->format;
    out->shape = *shape;
    return ok;
}

/* An ASTC texture the device cannot sample: every image of every level
 * (each layer, each face) decoded (astc_decode.h: LDR to RGBA8, sRGB or not
 * as the blocks; HDR to RGBA16F) and uploaded in that format. */
static bool upload_astc_decoded(vk_context *vk, const texel_layout *blocks, const uint8_t *texels,
                                gpu_texture *out, kiln_error *err) {
    astc_format format;
    char reason[160];
    if (!astc_format_of(blocks->format, &format) || blocks->shape.depth > 1)
        return vkc_fail(err, "not a 2D ASTC texture", VK_ERROR_FORMAT_NOT_SUPPORTED);
    texel_layout decoded = *blocks;
    decoded.format = (VkFormat)format.decoded_vk_format;
    size_t total = 0;
    for (uint32_t level = 0; level < blocks->shape.levels; level++) {
        uint32_t width = blocks->shape.width >> level, height = blocks->shape.height >> level;
        decoded.level_offsets[level] = total;
        decoded.image_bytes[level] = (uint64_t)(width > 0 ? width : 1) * (height > 0 ? height : 1) *
                                     format.decoded_texel_bytes;
        total += decoded.image_bytes[level] * blocks->shape.layers;
    }
    uint8_t *pixels = malloc(total);
    astc_decoder *decoder =
        pixels != NULL ? astc_decoder_open(blocks->format, reason, sizeof reason) : NULL;
    if (decoder == NULL) {
        free(pixels);
        snprintf(err->message, sizeof err->message, "ASTC: %s",
                 pixels == NULL ? "out of memory decoding" : reason);
        return false;
    }
    bool ok = true;
    for (uint32_t level = 0; ok && level < blocks->shape.levels; level++) {
        uint32_t width = blocks->shape.width >> level, height = blocks->shape.height >> level;
        for (uint32_t image = 0; ok && image < blocks->shape.layers; image++) {
            ok = astc_decode(
                decoder, texels + blocks->level_offsets[level] + image * blocks->image_bytes[level],
                blocks->image_bytes[level], width > 0 ? width : 1, height > 0 ? height : 1,
                pixels + decoded.level_offsets[level] + image * decoded.image_bytes[level], reason,
                sizeof reason);
            if (!ok)
                snprintf(err->message, sizeof err->message, "ASTC level %u image %u: %s", level,
                         image, reason);
        }
    }
    astc_decoder_close(decoder);
    ok = ok && upload_levels(vk, &decoded, pixels, total, out, err);
    free(pixels);
    return ok;
}

static kiln_result create_texture(void *user, const kiln_asset *asset, const void *texels,
                                  size_t size, void **object, kiln_error *err) {
    gpu_assets *assets = user;
    texel_layout layout;
    if (!layout_of(asset, size, &layout, err)) {
        name_file(err, asset);
        return KILN_ERR_CORRUPT;
    }
    const char *why = unsupported(assets->vk, asset->texels_vk_format);
    astc_format astc;
    bool decode = why != NULL && layout.shape.depth == 1 &&
                  astc_format_of(asset->texels_vk_format, &astc) &&
                  unsupported(assets->vk, astc.decoded_vk_format) == NULL;
    if (why != NULL && !decode) {
        fprintf(stderr, "kiln-view: warning: %s (%s): %s; drawn white\n", asset->path,
                kiln_ktx2_format_str(asset->texels_vk_format), why);
        *object = NULL;
        return KILN_OK;
    }
    gpu_texture *texture = calloc(1, sizeof *texture);
    if (texture == NULL)
        return KILN_ERR_OUT_OF_MEMORY;
    bool ok = decode ? upload_astc_decoded(assets->vk, &layout, texels, texture, err)
                     : upload_levels(assets->vk, &layout, texels, size, texture, err);
    if (!ok) {
        name_file(err, asset);
        free(texture);
        return KILN_ERR_UNSUPPORTED;
    }
    *object = texture;
    return KILN_OK;
}

static void destroy_texture(void *user, const kiln_asset *asset, void *object) {
    gpu_assets *assets = user;
    (void)asset;
    if (object != NULL) {
        gpu_texture_destroy(assets->vk, object);
        free(object);
    }
}

kiln_engine_callbacks gpu_assets_callbacks(gpu_assets *assets) {
    return (kiln_engine_callbacks){.user = assets,
                                   .create_buffer = create_buffer,
                                   .destroy_buffer = destroy_buffer,
                                   .create_texture = create_texture,
                                   .destroy_texture = destroy_texture};
}

bool gpu_texture_rgba8(vk_context *vk, const uint8_t rgba[4], gpu_texture *out, kiln_error *err) {
    const texel_layout one = {
        .format = VK_FORMAT_R8G8B8A8_UNORM, .shape = {1, 1, 1, 1, 1, false}, .image_bytes = {4}};
    return upload_levels(vk, &one, rgba, 4, out, err);
}

void gpu_texture_destroy(vk_context *vk, gpu_texture *texture) {
    vkc_image_destroy(vk, &texture->image);
}
