/*
 * texture_view.c — a texture ref drawn as it is sampled (texture_view.h).
 */
#include "texture_view.h"

#include <stdio.h>
#include <string.h>

const char *const texture_program_refs[TEXTURE_PROGRAM_COUNT_] = {
    "kiln-view/texture", "kiln-view/texture?CUBE=1", "kiln-view/texture?VOLUME=1"};

/* The push constants as the shaders declare them (Image). */
typedef struct image_push {
    float view_proj[16];
    float rect[4];
    float slice[4];
} image_push;

texture_program texture_program_of(const kiln_ktx2_view *texture) {
    if (texture->depth > 1)
        return TEXTURE_PROGRAM_VOLUME;
    return texture->faces == 6 ? TEXTURE_PROGRAM_CUBE : TEXTURE_PROGRAM_2D;
}

void texture_rect(uint32_t texture_width, uint32_t texture_height, uint32_t width, uint32_t height,
                  float rect[4]) {
    float scale_x = (float)width / (float)texture_width;
    float scale_y = (float)height / (float)texture_height;
    float scale = scale_x < scale_y ? scale_x : scale_y;
    float half_x = scale * (float)texture_width / (float)width;
    float half_y = scale * (float)texture_height / (float)height;
    rect[0] = -half_x;
    rect[1] = -half_y;
    rect[2] = half_x;
    rect[3] = half_y;
}

static bool fail(kiln_error *err, const kiln_asset *texture, const char *problem) {
    err->code = KILN_ERR_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message, "%.150s: %s", texture->path, problem);
    return false;
}

/* Everything one frame owns, released together. */
typedef struct texture_frame {
    vk_image color;
    vk_buffer readback;
    VkImageView view;
    VkSampler sampler;
    VkDescriptorPool pool;
} texture_frame;

static void release(vk_context *vk, texture_frame *f) {
    vkc_image_destroy(vk, &f->color);
    vkc_buffer_destroy(vk, &f->readback);
    if (f->view != VK_NULL_HANDLE)
        vkDestroyImageView(vk->device, f->view, NULL);
    if (f->sampler != VK_NULL_HANDLE)
        vkDestroySampler(vk->device, f->sampler, NULL);
    if (f->pool != VK_NULL_HANDLE)
        vkDestroyDescriptorPool(vk->device, f->pool, NULL);
}

/* The view of the image the program samples: `layer`'s image, cube or
 * volume, single channels spread to grey. */
static bool sampled_view(vk_context *vk, const kiln_asset *texture, texture_program program,
                         uint32_t layer, VkImageView *out, kiln_error *err) {
    const gpu_texture *gpu = texture->engine_texture;
    VkImageViewType type = VK_IMAGE_VIEW_TYPE_2D;
    uint32_t first = layer, count = 1, available = gpu->shape.layers;
    if (program == TEXTURE_PROGRAM_VOLUME) {
        type = VK_IMAGE_VIEW_TYPE_3D;
        first = 0;
        available = gpu->shape.depth;
    } else if (program == TEXTURE_PROGRAM_CUBE) {
        type = VK_IMAGE_VIEW_TYPE_CUBE;
        first = 6 * layer;
        count = 6;
        available = gpu->shape.layers / 6;
    }
    if (layer >= available) {
        const char *unit = program == TEXTURE_PROGRAM_VOLUME ? "slice"
                           : program == TEXTURE_PROGRAM_CUBE ? "cube"
                                                             : "layer";
        char problem[96];
        snprintf(problem, sizeof problem, "has %u %s%s; --layer %u is not one", available, unit,
                 available == 1 ? "" : "s", layer);
        return fail(err, texture, problem);
    }
    bool single = gpu->format == VK_FORMAT_R8_UNORM || gpu->format == VK_FORMAT_BC4_UNORM_BLOCK;
    const VkComponentMapping grey = {VK_COMPONENT_SWIZZLE_R, VK_COMPONENT_SWIZZLE_R,
                                     VK_COMPONENT_SWIZZLE_R, VK_COMPONENT_SWIZZLE_ONE};
    return vkc_image_view(vk, gpu->image.image, gpu->format, type, first, count,
                          single ? &grey : NULL, out, err);
}

static bool create_frame(vk_context *vk, const pipeline *pipe, uint32_t width, uint32_t height,
                         texture_frame *f, kiln_error *err) {
    if (!vkc_image(vk, pipe->color_format, width, height, 1,
                   VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                   VK_IMAGE_ASPECT_COLOR_BIT, &f->color, err) ||
        !vkc_host_buffer(vk, 4 * (VkDeviceSize)width * height, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         &f->readback, err))
        return false;
    /* Clamped: linear filtering at the edges must not wrap to the other side. */
    VkSamplerCreateInfo sampler = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                                   .magFilter = VK_FILTER_LINEAR,
                                   .minFilter = VK_FILTER_LINEAR,
                                   .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
                                   .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                   .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                   .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                   .maxLod = VK_LOD_CLAMP_NONE};
    VkResult r = vkCreateSampler(vk->device, &sampler, NULL, &f->sampler);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateSampler", r);
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
    VkDescriptorPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 1,
                                       .poolSizeCount = 1,
                                       .pPoolSizes = &size};
    r = vkCreateDescriptorPool(vk->device, &pool, NULL, &f->pool);
    return r == VK_SUCCESS ? true : vkc_fail(err, "vkCreateDescriptorPool", r);
}

/* The program's one sampler, as the frame writes it. */
static bool descriptor_set(vk_context *vk, const render_program *program, const texture_frame *f,
                           VkDescriptorSet *out, kiln_error *err) {
    pipeline_slot slot =
        pipeline_find(program->shader, "image_texture", KILN_BINDING_SAMPLED_IMAGE);
    const pipeline *pipe = program->pipe;
    if (!slot.found || slot.set != 0 || pipe->set_count != 1 ||
        pipe->push.size != sizeof(image_push) || pipe->push.offset != 0) {
        err->code = KILN_ERR_UNSUPPORTED;
        snprintf(err->message, sizeof err->message,
                 "the texture shader must have image_texture alone in set 0 and the Image push "
                 "constants kiln-view writes");
        return false;
    }
    VkDescriptorSetAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                        .descriptorPool = f->pool,
                                        .descriptorSetCount = 1,
                                        .pSetLayouts = &pipe->set_layouts[0]};
    VkResult r = vkAllocateDescriptorSets(vk->device, &info, out);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkAllocateDescriptorSets", r);
    VkDescriptorImageInfo image = {f->sampler, f->view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = *out,
                                  .dstBinding = slot.binding,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                  .pImageInfo = &image};
    vkUpdateDescriptorSets(vk->device, 1, &write, 0, NULL);
    return true;
}

static void record(VkCommandBuffer cmd, const pipeline *pipe, VkPipeline p, VkDescriptorSet set,
                   const texture_frame *f, const image_push *push, uint32_t width,
                   uint32_t height) {
    vkc_transition(cmd, f->color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                   VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = f->color.view,
                                       .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
    VkRenderingInfo rendering = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                                 .renderArea = {{0, 0}, {width, height}},
                                 .layerCount = 1,
                                 .colorAttachmentCount = 1,
                                 .pColorAttachments = &color};
    vkCmdBeginRendering(cmd, &rendering);
    VkViewport viewport = {0, 0, (float)width, (float)height, 0, 1};
    VkRect2D scissor = {{0, 0}, {width, height}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    vkCmdSetCullMode(cmd, VK_CULL_MODE_NONE);
    vkCmdSetFrontFace(cmd, VK_FRONT_FACE_COUNTER_CLOCKWISE);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe->layout, 0, 1, &set, 0,
                            NULL);
    vkCmdPushConstants(cmd, pipe->layout, pipe->push.stageFlags, 0, sizeof *push, push);
    vkCmdDraw(cmd, 6, 1, 0, 0);
    vkCmdEndRendering(cmd);
    vkc_read_back(cmd, f->color.image, width, height, f->readback.buffer);
}

bool texture_render(vk_context *vk, const render_program *program, const kiln_asset *texture,
                    uint32_t layer, const camera *cam, uint32_t width, uint32_t height,
                    uint8_t *pixels, kiln_error *err) {
    if (texture->engine_texture == NULL)
        return fail(err, texture, "the device cannot sample it (the warning above says why)");
    const gpu_texture *gpu = texture->engine_texture;
    texture_program which = texture_program_of(&texture->texture);
    image_push push = {.slice = {((float)layer + 0.5f) / (float)gpu->shape.depth, 0, 0, 0}};
    memcpy(push.view_proj, cam->view_proj, sizeof push.view_proj);
    if (which == TEXTURE_PROGRAM_CUBE) {
        const float whole[4] = {-1, -1, 1, 1};
        memcpy(push.rect, whole, sizeof whole);
    } else {
        texture_rect(gpu->shape.width, gpu->shape.height, width, height, push.rect);
    }
    texture_frame f = {0};
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkPipeline p = VK_NULL_HANDLE;
    bool ok = sampled_view(vk, texture, which, layer, &f.view, err) &&
              create_frame(vk, program->pipe, width, height, &f, err) &&
              descriptor_set(vk, program, &f, &set, err) &&
              (p = pipeline_get_unbound(vk, program->pipe, err)) != VK_NULL_HANDLE &&
              vkc_begin_once(vk, &cmd, err);
    if (ok) {
        record(cmd, program->pipe, p, set, &f, &push, width, height);
        ok = vkc_submit_wait(vk, cmd, err);
    }
    if (ok)
        memcpy(pixels, f.readback.mapped, 4 * (size_t)width * height);
    release(vk, &f);
    return ok;
}
