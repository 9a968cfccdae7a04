/*
 * render.c — the automatic camera and one offscreen frame (render.h).
 */
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLOR_FORMAT VK_FORMAT_R8G8B8A8_SRGB

/* The uniform blocks as the shaders declare them (std140); their reflected
 * sizes are checked against these. */
typedef struct frame_uniforms {
    float view_proj[16];
    float camera_position[4];
    float light_direction[4];
    float ambient[4];
} frame_uniforms;

typedef struct material_uniforms {
    float base_color[4];
    float base_transform[4];
    float mr_transform[4];
    float rotations[4];
    float params[4];
    float flags[4];
} material_uniforms;

typedef struct draw_push {
    float model[16];
    float position_offset[4];
    float position_scale[4];
} draw_push;

void camera_frame(const draw_list *list, uint32_t width, uint32_t height, camera *out) {
    orbit o;
    orbit_reset(&o, list, width, height);
    orbit_camera(&o, width, height, out);
}

static float determinant3(const float m[16]) {
    return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
           m[8] * (m[1] * m[6] - m[5] * m[2]);
}

static void material_block(const kiln_material *m, material_uniforms *out) {
    memset(out, 0, sizeof *out);
    if (m == NULL) { /* glTF's default material */
        out->base_color[0] = out->base_color[1] = out->base_color[2] = out->base_color[3] = 1.0f;
        out->base_transform[2] = out->base_transform[3] = 1.0f;
        out->mr_transform[2] = out->mr_transform[3] = 1.0f;
        out->params[0] = 1.0f;
        out->params[1] = 1.0f;
        return;
    }
    const kiln_material_texture *base = &m->textures[KILN_MATERIAL_SLOT_BASE_COLOR];
    const kiln_material_texture *mr = &m->textures[KILN_MATERIAL_SLOT_METALLIC_ROUGHNESS];
    memcpy(out->base_color, m->base_color, sizeof out->base_color);
    out->base_transform[0] = base->offset[0];
    out->base_transform[1] = base->offset[1];
    out->base_transform[2] = base->scale[0];
    out->base_transform[3] = base->scale[1];
    out->mr_transform[0] = mr->offset[0];
    out->mr_transform[1] = mr->offset[1];
    out->mr_transform[2] = mr->scale[0];
    out->mr_transform[3] = mr->scale[1];
    out->rotations[0] = base->rotation;
    out->rotations[1] = mr->rotation;
    out->rotations[2] = (float)base->texcoord;
    out->rotations[3] = (float)mr->texcoord;
    out->params[0] = m->metallic;
    out->params[1] = m->roughness;
    out->params[2] = m->alpha_cutoff;
    out->params[3] = (float)m->alpha_mode;
    out->flags[0] = (m->flags & KILN_MATERIAL_FLAG_UNLIT) ? 1.0f : 0.0f;
}

/* A draw's texture (0 base colour, 1 metallic-roughness), or the white
 * stand-in. */
static VkImageView texture_view(const draw_item *item, int which, const gpu_texture *white) {
    const gpu_texture *gpu =
        item->textures[which] != NULL ? item->textures[which]->engine_texture : NULL;
    return gpu != NULL ? gpu->image.view : white->image.view;
}

/* Everything one frame owns, released together. */
typedef struct frame_resources {
    vk_image color, depth;
    vk_buffer uniforms, joints, readback, defaults;
    gpu_texture white;
    VkSampler sampler;
    VkDescriptorPool pool;
} frame_resources;

static void release(vk_context *vk, frame_resources *f) {
    vkc_image_destroy(vk, &f->color);
    vkc_image_destroy(vk, &f->depth);
    vkc_buffer_destroy(vk, &f->uniforms);
    vkc_buffer_destroy(vk, &f->joints);
    vkc_buffer_destroy(vk, &f->readback);
    vkc_buffer_destroy(vk, &f->defaults);
    gpu_texture_destroy(vk, &f->white);
    if (f->sampler != VK_NULL_HANDLE)
        vkDestroySampler(vk->device, f->sampler, NULL);
    if (f->pool != VK_NULL_HANDLE)
        vkDestroyDescriptorPool(vk->device, f->pool, NULL);
}

static bool fail(kiln_error *err, const char *message) {
    err->code = KILN_ERR_UNSUPPORTED;
    snprintf(err->message, sizeof err->message, "%s", message);
    return false;
}

/* The descriptors the renderer fills, found in the reflection by name. */
typedef struct slots {
    pipeline_slot frame, material, base_color, metallic_roughness;
    pipeline_slot joints; /* the skinned program's joint matrices */
} slots;

static bool find_slots(const kiln_shader_view *shader, bool skinned, slots *s, kiln_error *err) {
    s->joints = pipeline_find(shader, "Joints", KILN_BINDING_STORAGE_BUFFER);
    if (skinned && !s->joints.found)
        return fail(err, "the skinned shader lacks its Joints storage buffer");
    s->frame = pipeline_find(shader, "Frame", KILN_BINDING_UNIFORM_BUFFER);
    s->material = pipeline_find(shader, "Material", KILN_BINDING_UNIFORM_BUFFER);
    s->base_color = pipeline_find(shader, "base_color_texture", KILN_BINDING_SAMPLED_IMAGE);
    s->metallic_roughness =
        pipeline_find(shader, "metallic_roughness_texture", KILN_BINDING_SAMPLED_IMAGE);
    if (!s->frame.found || !s->material.found || !s->base_color.found ||
        !s->metallic_roughness.found)
        return fail(err, "the shader lacks Frame, Material, base_color_texture or "
                         "metallic_roughness_texture");
    if (s->frame.block_size != sizeof(frame_uniforms) ||
        s->material.block_size != sizeof(material_uniforms))
        return fail(err, "the shader's Frame or Material block is not the size kiln-view writes");
    if (s->frame.set == s->material.set || s->base_color.set != s->material.set ||
        s->metallic_roughness.set != s->material.set ||
        (skinned && (s->joints.set == s->frame.set || s->joints.set == s->material.set)))
        return fail(err,
                    "the shader must keep Frame, the material and Joints in sets of their own");
    return true;
}

static bool create_resources(vk_context *vk, const render_program programs[2], const slots s[2],
                             uint32_t draws, uint32_t width, uint32_t height, VkDeviceSize stride,
                             VkDeviceSize joint_bytes, frame_resources *f, kiln_error *err) {
    const pipeline *pipe = programs[0].pipe;
    static const uint8_t white[4] = {255, 255, 255, 255};
    static const float defaults[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    if (!vkc_image(vk, COLOR_FORMAT, width, height, 1,
                   VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                   VK_IMAGE_ASPECT_COLOR_BIT, &f->color, err) ||
        !vkc_image(vk, pipe->depth_format, width, height, 1,
                   VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                   &f->depth, err) ||
        !vkc_host_buffer(vk, stride * (draws + 1), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &f->uniforms,
                         err) ||
        !vkc_host_buffer(vk, joint_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &f->joints, err) ||
        !vkc_host_buffer(vk, 4 * (VkDeviceSize)width * height, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         &f->readback, err) ||
        !vkc_device_buffer(vk, defaults, sizeof defaults, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                           &f->defaults, err) ||
        !gpu_texture_rgba8(vk, white, &f->white, err))
        return false;
    VkSamplerCreateInfo sampler = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                                   .magFilter = VK_FILTER_LINEAR,
                                   .minFilter = VK_FILTER_LINEAR,
                                   .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
                                   .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                                   .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                                   .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                                   .maxLod = VK_LOD_CLAMP_NONE};
    VkResult r = vkCreateSampler(vk->device, &sampler, NULL, &f->sampler);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateSampler", r);
    /* Room for either program to draw everything: a frame set each, then
     * per draw a material set and (skinned) a joints set. */
    VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 0},
                                     {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 0},
                                     {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0}};
    for (int p = 0; p < 2; p++) {
        const pipeline *pp = programs[p].pipe;
        for (uint32_t set = 0; set < pp->set_count; set++) {
            uint32_t times = set == s[p].frame.set ? 1 : draws;
            sizes[0].descriptorCount += times * pp->uniform_buffers[set];
            sizes[1].descriptorCount += times * pp->samplers[set];
            sizes[2].descriptorCount += times * pp->storage_buffers[set];
        }
    }
    for (int i = 0; i < 3; i++)
        sizes[i].descriptorCount += 1; /* never zero */
    VkDescriptorPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 2 + 2 * draws,
                                       .poolSizeCount = 3,
                                       .pPoolSizes = sizes};
    r = vkCreateDescriptorPool(vk->device, &pool, NULL, &f->pool);
    return r == VK_SUCCESS ? true : vkc_fail(err, "vkCreateDescriptorPool", r);
}

static bool allocate_set(vk_context *vk, const pipeline *pipe, VkDescriptorPool pool, uint32_t set,
                         VkDescriptorSet *out, kiln_error *err) {
    VkDescriptorSetAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                        .descriptorPool = pool,
                                        .descriptorSetCount = 1,
                                        .pSetLayouts = &pipe->set_layouts[set]};
    VkResult r = vkAllocateDescriptorSets(vk->device, &info, out);
    return r == VK_SUCCESS ? true : vkc_fail(err, "vkAllocateDescriptorSets", r);
}

static void write_buffer(vk_context *vk, VkDescriptorSet set, pipeline_slot slot,
                         VkDescriptorType type, VkBuffer buffer, VkDeviceSize offset,
                         VkDeviceSize range) {
    VkDescriptorBufferInfo info = {buffer, offset, range};
    VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = set,
                                  .dstBinding = slot.binding,
                                  .descriptorCount = 1,
                                  .descriptorType = type,
                                  .pBufferInfo = &info};
    vkUpdateDescriptorSets(vk->device, 1, &write, 0, NULL);
}

static void write_texture(vk_context *vk, VkDescriptorSet set, pipeline_slot slot,
                          VkSampler sampler, VkImageView view) {
    VkDescriptorImageInfo info = {sampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = set,
                                  .dstBinding = slot.binding,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                  .pImageInfo = &info};
    vkUpdateDescriptorSets(vk->device, 1, &write, 0, NULL);
}

static uint32_t alpha_mode_of(const draw_item *item) {
    return item->material != NULL && item->material->alpha_mode < KILN_ALPHA_MODE_COUNT_
               ? item->material->alpha_mode
               : KILN_ALPHA_OPAQUE;
}

/* Opaque and masked draws first, then blended ones far to near (the camera
 * looks down -Z: smaller world z is farther). */
static int compare_draws(const void *a, const void *b) {
    const draw_item *x = a, *y = b;
    int blend_x = alpha_mode_of(x) == KILN_ALPHA_BLEND,
        blend_y = alpha_mode_of(y) == KILN_ALPHA_BLEND;
    if (blend_x != blend_y)
        return blend_x - blend_y;
    if (!blend_x)
        return 0;
    return (x->model[14] > y->model[14]) - (x->model[14] < y->model[14]);
}

static bool record_draw(vk_context *vk, pipeline *pipe, VkCommandBuffer cmd, const draw_item *item,
                        VkDescriptorSet sets[PIPELINE_MAX_SETS], const frame_resources *f,
                        kiln_error *err) {
    const kiln_mesh_view *mesh = &item->mesh->mesh;
    const vk_buffer *vertices = item->mesh->engine_buffers[0];
    const vk_buffer *indices = item->mesh->engine_buffers[1];
    if (vertices == NULL || indices == NULL)
        return fail(err, "a mesh has no vertex or index buffer");
    vertex_layout layout;
    if (!vertex_layout_of(mesh, item->joint_count > 0, &layout, err))
        return false;
    VkPipeline p = pipeline_get(vk, pipe, &layout, alpha_mode_of(item), err);
    if (p == VK_NULL_HANDLE)
        return false;
    bool double_sided =
        item->material != NULL && (item->material->flags & KILN_MATERIAL_FLAG_DOUBLE_SIDED);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p);
    vkCmdSetCullMode(cmd, double_sided ? VK_CULL_MODE_NONE : VK_CULL_MODE_BACK_BIT);
    /* The projection flips y, so glTF's counter-clockwise front faces stay
     * counter-clockwise in Vulkan's terms; a mirroring matrix reverses them. */
    vkCmdSetFrontFace(cmd, determinant3(item->model) < 0.0f ? VK_FRONT_FACE_CLOCKWISE
                                                            : VK_FRONT_FACE_COUNTER_CLOCKWISE);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe->layout, 0, pipe->set_count,
                            sets, 0, NULL);
    draw_push push;
    memcpy(push.model, item->model, sizeof push.model);
    for (int axis = 0; axis < 3; axis++) {
        push.position_offset[axis] = mesh->desc->position_offset[axis];
        push.position_scale[axis] = mesh->desc->position_scale[axis];
    }
    push.position_offset[3] = 0.0f;
    push.position_scale[3] = 1.0f;
    vkCmdPushConstants(cmd, pipe->layout, pipe->push.stageFlags, pipe->push.offset, pipe->push.size,
                       (const uint8_t *)&push + pipe->push.offset);
    VkBuffer buffers[2] = {vertices->buffer, f->defaults.buffer};
    VkDeviceSize offsets[2] = {0, 0};
    vkCmdBindVertexBuffers(cmd, 0, 2, buffers, offsets);
    vkCmdBindIndexBuffer(cmd, indices->buffer, 0,
                         mesh->desc->index_size == 2 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32);
    const kiln_submesh *submesh = &mesh->submeshes[item->submesh];
    vkCmdDrawIndexed(cmd, submesh->index_count, 1, submesh->index_offset, 0, 0);
    return true;
}

/* Where each skinned draw's joint matrices go in the joints buffer (storage
 * buffer offsets aligned as the device needs); the buffer's size. */
static VkDeviceSize joint_layout(const vk_context *vk, const draw_item *items, uint32_t count,
                                 VkDeviceSize *offsets) {
    VkDeviceSize align = vk->properties.limits.minStorageBufferOffsetAlignment, total = 0;
    for (uint32_t i = 0; i < count; i++) {
        offsets[i] = total;
        total += (items[i].joint_count * 64 + align - 1) / align * align;
    }
    return total > 0 ? total : 64;
}

static VkDeviceSize round_up(VkDeviceSize size, VkDeviceSize align) {
    return (size + align - 1) / align * align;
}

bool render_frame(vk_context *vk, const render_program programs[2], const draw_list *list,
                  const camera *cam, uint32_t width, uint32_t height, uint8_t *pixels,
                  kiln_error *err) {
    slots s[2];
    for (int p = 0; p < 2; p++) {
        if (!find_slots(programs[p].shader, p == 1, &s[p], err))
            return false;
        const pipeline *pipe = programs[p].pipe;
        if (pipe->push.size != sizeof(draw_push) || pipe->push.offset != 0)
            return fail(err, "the shader's push constants are not the Draw block kiln-view writes");
    }
    VkDeviceSize align = vk->properties.limits.minUniformBufferOffsetAlignment;
    VkDeviceSize stride = round_up(sizeof(material_uniforms), align);
    if (stride < sizeof(frame_uniforms))
        stride = round_up(sizeof(frame_uniforms), align);
    frame_resources f = {0};
    draw_item *items = NULL;
    VkDeviceSize *joint_offsets = NULL;
    bool ok = true;
    if (list->count > 0) {
        items = malloc(list->count * sizeof *items);
        joint_offsets = malloc(list->count * sizeof *joint_offsets);
        ok = (items != NULL && joint_offsets != NULL) || fail(err, "out of memory for draws");
    }
    if (ok) {
        memcpy(items, list->items, list->count * sizeof *items);
        qsort(items, list->count, sizeof *items, compare_draws);
    }
    VkDeviceSize joint_bytes = ok ? joint_layout(vk, items, list->count, joint_offsets) : 0;
    ok = ok && create_resources(vk, programs, s, list->count, width, height, stride, joint_bytes,
                                &f, err);
    VkDescriptorSet frame_sets[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
    for (int p = 0; ok && p < 2; p++)
        ok = allocate_set(vk, programs[p].pipe, f.pool, s[p].frame.set, &frame_sets[p], err);
    if (ok) {
        frame_uniforms frame = {.light_direction = {-0.35f, 0.55f, 0.75f, 0.0f},
                                .ambient = {0.3f, 0.3f, 0.3f, 1.0f}};
        memcpy(frame.view_proj, cam->view_proj, sizeof frame.view_proj);
        memcpy(frame.camera_position, cam->position, sizeof cam->position);
        memcpy(f.uniforms.mapped, &frame, sizeof frame);
        for (int p = 0; p < 2; p++)
            write_buffer(vk, frame_sets[p], s[p].frame, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                         f.uniforms.buffer, 0, sizeof frame);
    }
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    ok = ok && vkc_begin_once(vk, &cmd, err);
    if (ok) {
        vkc_transition(cmd, f.color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                       VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
        vkc_transition(cmd, f.depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                       VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
        VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                           .imageView = f.color.view,
                                           .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                           .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                           .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
        VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                           .imageView = f.depth.view,
                                           .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                           .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                           .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                           .clearValue.depthStencil = {1.0f, 0}};
        VkRenderingInfo rendering = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                                     .renderArea = {{0, 0}, {width, height}},
                                     .layerCount = 1,
                                     .colorAttachmentCount = 1,
                                     .pColorAttachments = &color,
                                     .pDepthAttachment = &depth};
        vkCmdBeginRendering(cmd, &rendering);
        VkViewport viewport = {0, 0, (float)width, (float)height, 0, 1};
        VkRect2D scissor = {{0, 0}, {width, height}};
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &scissor);
        for (uint32_t i = 0; ok && i < list->count; i++) {
            const draw_item *item = &items[i];
            int p = item->joint_count > 0 ? 1 : 0;
            const slots *slot = &s[p];
            pipeline *pipe = programs[p].pipe;
            VkDescriptorSet sets[PIPELINE_MAX_SETS] = {0};
            sets[slot->frame.set] = frame_sets[p];
            ok = allocate_set(vk, pipe, f.pool, slot->material.set, &sets[slot->material.set], err);
            if (ok && p == 1) {
                ok = allocate_set(vk, pipe, f.pool, slot->joints.set, &sets[slot->joints.set], err);
                if (ok) {
                    VkDeviceSize bytes = (VkDeviceSize)item->joint_count * 64;
                    memcpy((uint8_t *)f.joints.mapped + joint_offsets[i],
                           list->joints + 16 * (size_t)item->joint_offset, (size_t)bytes);
                    write_buffer(vk, sets[slot->joints.set], slot->joints,
                                 VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, f.joints.buffer,
                                 joint_offsets[i], bytes);
                }
            }
            if (!ok)
                break;
            material_uniforms block;
            material_block(item->material, &block);
            memcpy((uint8_t *)f.uniforms.mapped + stride * (i + 1), &block, sizeof block);
            write_buffer(vk, sets[slot->material.set], slot->material,
                         VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, f.uniforms.buffer, stride * (i + 1),
                         sizeof block);
            write_texture(vk, sets[slot->material.set], slot->base_color, f.sampler,
                          texture_view(item, 0, &f.white));
            write_texture(vk, sets[slot->material.set], slot->metallic_roughness, f.sampler,
                          texture_view(item, 1, &f.white));
            ok = record_draw(vk, pipe, cmd, item, sets, &f, err);
        }
        vkCmdEndRendering(cmd);
        vkc_transition(cmd, f.color.image, VK_IMAGE_ASPECT_COLOR_BIT,
                       VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                       VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                    .imageExtent = {width, height, 1}};
        vkCmdCopyImageToBuffer(cmd, f.color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               f.readback.buffer, 1, &region);
        VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                             &host, 0, NULL, 0, NULL);
        bool submitted = vkc_submit_wait(vk, cmd, ok ? err : &(kiln_error){0});
        ok = ok && submitted;
    }
    if (ok)
        memcpy(pixels, f.readback.mapped, 4 * (size_t)width * height);
    free(items);
    free(joint_offsets);
    release(vk, &f);
    return ok;
}
