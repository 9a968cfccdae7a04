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

/* Why the device cannot sample this texture as a 2D image, or NULL. Its
 * format is the texels' (a UASTC file arrives transcoded, e.g. as BC7). */
static const char *unsupported(const vk_context *vk, const kiln_asset *asset) {
    const kiln_ktx2_view *t = &asset->texture;
    uint32_t format = asset->texels_vk_format;
    if (t->faces != 1 || t->layers > 1 || t->depth > 1)
        return "cubemaps, arrays and 3D textures are not drawn by kiln-view";
    if (!samples(vk, format))
        return "the device cannot sample its format";
    if (!vk->bc_textures && format >= VK_FORMAT_BC1_RGB_UNORM_BLOCK &&
        format <= VK_FORMAT_BC7_SRGB_BLOCK)
        return "the device has no BC texture support";
    return NULL;
}

/* Copies every level from a staging buffer into a new image, then leaves it
 * ready for sampling. */
static bool upload_levels(vk_context *vk, const kiln_asset *asset, const void *texels, size_t size,
                          gpu_texture *out, kiln_error *err) {
    const kiln_ktx2_view *t = &asset->texture;
    if (t->levels > KILN_ASSET_MAX_LEVELS)
        return vkc_fail(err, "too many mip levels", VK_ERROR_FORMAT_NOT_SUPPORTED);
    vk_buffer staging;
    if (!vkc_host_buffer(vk, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging, err))
        return false;
    memcpy(staging.mapped, texels, size);
    VkBufferImageCopy regions[KILN_ASSET_MAX_LEVELS];
    for (uint32_t level = 0; level < t->levels; level++) {
        uint32_t width, height, depth;
        kiln_ktx2_level_extent(t, level, &width, &height, &depth);
        regions[level] =
            (VkBufferImageCopy){.bufferOffset = asset->level_offsets[level],
                                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1},
                                .imageExtent = {width, height, 1}};
    }
    VkCommandBuffer cmd;
    bool ok = vkc_image(vk, (VkFormat)asset->texels_vk_format, t->width, t->height, t->levels,
                        VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                        VK_IMAGE_ASPECT_COLOR_BIT, &out->image, err) &&
              vkc_begin_once(vk, &cmd, err);
    if (ok) {
        vkc_transition(cmd, out->image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        vkCmdCopyBufferToImage(cmd, staging.buffer, out->image.image,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, t->levels, regions);
        vkc_transition(cmd, out->image.image, VK_IMAGE_ASPECT_COLOR_BIT,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        ok = vkc_submit_wait(vk, cmd, err);
    }
    vkc_buffer_destroy(vk, &staging);
    if (!ok)
        vkc_image_destroy(vk, &out->image);
    return ok;
}

/* An ASTC texture the device cannot sample: every level decoded to RGBA8
 * (astc_decode.h) and uploaded as R8G8B8A8, sRGB or not as the blocks. */
static bool upload_astc_as_rgba8(vk_context *vk, const kiln_asset *asset, const uint8_t *texels,
                                 size_t size, gpu_texture *out, kiln_error *err) {
    const kiln_ktx2_view *t = &asset->texture;
    uint32_t block_width, block_height;
    bool srgb;
    if (!astc_ldr_format(asset->texels_vk_format, &block_width, &block_height, &srgb) ||
        t->levels > KILN_ASSET_MAX_LEVELS)
        return vkc_fail(err, "not an ASTC LDR texture", VK_ERROR_FORMAT_NOT_SUPPORTED);
    kiln_asset decoded = *asset;
    decoded.texels_vk_format = srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM;
    size_t total = 0;
    for (uint32_t level = 0; level < t->levels; level++) {
        uint32_t width, height, depth;
        kiln_ktx2_level_extent(t, level, &width, &height, &depth);
        decoded.level_offsets[level] = total;
        total += (size_t)width * height * 4;
    }
    uint8_t *rgba = malloc(total);
    if (rgba == NULL)
        return vkc_fail(err, "out of memory decoding ASTC", VK_ERROR_OUT_OF_HOST_MEMORY);
    bool ok = true;
    for (uint32_t level = 0; ok && level < t->levels; level++) {
        uint32_t width, height, depth;
        kiln_ktx2_level_extent(t, level, &width, &height, &depth);
        uint64_t offset = asset->level_offsets[level];
        uint64_t end = level + 1 < t->levels ? asset->level_offsets[level + 1] : size;
        char reason[160];
        if (offset > end || end > size ||
            !astc_decode_rgba8(texels + offset, (size_t)(end - offset), width, height,
                               asset->texels_vk_format, rgba + decoded.level_offsets[level], reason,
                               sizeof reason)) {
            if (offset > end || end > size)
                snprintf(reason, sizeof reason, "level %u is outside the texels", level);
            snprintf(err->message, sizeof err->message, "ASTC level %u: %s", level, reason);
            ok = false;
        }
    }
    ok = ok && upload_levels(vk, &decoded, rgba, total, out, err);
    free(rgba);
    return ok;
}

static kiln_result create_texture(void *user, const kiln_asset *asset, const void *texels,
                                  size_t size, void **object, kiln_error *err) {
    gpu_assets *assets = user;
    const char *why = unsupported(assets->vk, asset);
    uint32_t block_width, block_height;
    bool srgb;
    bool decode = why != NULL && asset->texture.faces == 1 && asset->texture.layers <= 1 &&
                  asset->texture.depth <= 1 &&
                  astc_ldr_format(asset->texels_vk_format, &block_width, &block_height, &srgb);
    if (why != NULL && !decode) {
        fprintf(stderr, "kiln-view: warning: %s (%s): %s; drawn white\n", asset->path,
                kiln_ktx2_format_str(asset->texels_vk_format), why);
        *object = NULL;
        return KILN_OK;
    }
    gpu_texture *texture = calloc(1, sizeof *texture);
    if (texture == NULL)
        return KILN_ERR_OUT_OF_MEMORY;
    bool ok = decode ? upload_astc_as_rgba8(assets->vk, asset, texels, size, texture, err)
                     : upload_levels(assets->vk, asset, texels, size, texture, err);
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
    kiln_asset fake = {0};
    fake.texture.width = fake.texture.height = 1;
    fake.texture.levels = 1;
    fake.texture.vk_format = fake.texels_vk_format = VK_FORMAT_R8G8B8A8_UNORM;
    fake.texture.type_size = 1;
    fake.texture.block_bytes = 4;
    fake.texture.block_width = fake.texture.block_height = 1;
    return upload_levels(vk, &fake, rgba, 4, out, err);
}

void gpu_texture_destroy(vk_context *vk, gpu_texture *texture) {
    vkc_image_destroy(vk, &texture->image);
}
