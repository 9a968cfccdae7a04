/*
 * render.c — the automatic camera and one offscreen frame (render.h).
 */
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_data.h"
#include "lod.h"
#include "meshlets.h"

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
    float emissive[4];
    float transforms[DRAW_TEXTURES][4];  /* per slot: offset xy, scale zw */
    float rotation_uv[DRAW_TEXTURES][4]; /* per slot: rotation, UV set */
    float params[4];                     /* metallic, roughness, alpha cutoff, alpha mode */
    float flags[4]; /* unlit, has a normal map, normal scale, occlusion strength */
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

static void material_block(const draw_item *item, material_uniforms *out) {
    const kiln_material *m = item->material;
    memset(out, 0, sizeof *out);
    for (int slot = 0; slot < DRAW_TEXTURES; slot++) {
        out->transforms[slot][2] = out->transforms[slot][3] = 1.0f;
        if (m == NULL)
            continue;
        const kiln_material_texture *t = &m->textures[slot];
        out->transforms[slot][0] = t->offset[0];
        out->transforms[slot][1] = t->offset[1];
        out->transforms[slot][2] = t->scale[0];
        out->transforms[slot][3] = t->scale[1];
        out->rotation_uv[slot][0] = t->rotation;
        out->rotation_uv[slot][1] = (float)t->texcoord;
    }
    if (m == NULL) { /* glTF's default material */
        out->base_color[0] = out->base_color[1] = out->base_color[2] = out->base_color[3] = 1.0f;
        out->params[0] = 1.0f;
        out->params[1] = 1.0f;
        return;
    }
    memcpy(out->base_color, m->base_color, sizeof out->base_color);
    memcpy(out->emissive, m->emissive, sizeof m->emissive);
    out->params[0] = m->metallic;
    out->params[1] = m->roughness;
    out->params[2] = m->alpha_cutoff;
    out->params[3] = (float)m->alpha_mode;
    out->flags[0] = (m->flags & KILN_MATERIAL_FLAG_UNLIT) ? 1.0f : 0.0f;
    /* A normal map whose texture did not load (or cannot be sampled) is not applied. */
    const kiln_asset *normal = item->textures[KILN_MATERIAL_SLOT_NORMAL];
    out->flags[1] = normal != NULL && normal->engine_texture != NULL ? 1.0f : 0.0f;
    out->flags[2] = m->normal_scale;
    out->flags[3] = m->occlusion_strength;
}

/* A draw's texture of material slot `slot`, or the white stand-in (also for
 * a 3D texture, which a material's 2D sampler cannot read). */
static VkImageView texture_view(const draw_item *item, int slot, const gpu_texture *white) {
    const gpu_texture *gpu =
        item->textures[slot] != NULL ? item->textures[slot]->engine_texture : NULL;
    return gpu != NULL && gpu->shape.depth == 1 ? gpu->image.view : white->image.view;
}

/* Everything one frame owns, released together. */
typedef struct frame_resources {
    vk_image color, depth;
    vk_buffer uniforms, joints, morphs, meshlets, readback, defaults;
    VkBuffer morph_buffer; /* what draws bind as Morphs: `morphs`, or a morph_cache's */
    gpu_texture white;
    VkSampler sampler;
    VkDescriptorPool pool;
} frame_resources;

static void release(vk_context *vk, frame_resources *f) {
    vkc_image_destroy(vk, &f->color);
    vkc_image_destroy(vk, &f->depth);
    vkc_buffer_destroy(vk, &f->uniforms);
    vkc_buffer_destroy(vk, &f->joints);
    vkc_buffer_destroy(vk, &f->morphs);
    vkc_buffer_destroy(vk, &f->meshlets);
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

/* The material's samplers by kiln_material_slot, as the shader names them. */
static const char *const texture_names[DRAW_TEXTURES] = {
    "base_color_texture", "metallic_roughness_texture", "normal_texture", "occlusion_texture",
    "emissive_texture"};

/* The descriptors the renderer fills, found in the reflection by name. */
typedef struct slots {
    pipeline_slot frame, material, textures[DRAW_TEXTURES];
    pipeline_slot morphs; /* the deform set: Morphs, and Joints when skinned */
    pipeline_slot joints; /* the skinned program's joint matrices */
} slots;

static bool find_slots(const kiln_shader_view *shader, bool skinned, slots *s, kiln_error *err) {
    s->joints = pipeline_find(shader, "Joints", KILN_BINDING_STORAGE_BUFFER);
    if (skinned && !s->joints.found)
        return fail(err, "the skinned shader lacks its Joints storage buffer");
    s->morphs = pipeline_find(shader, "Morphs", KILN_BINDING_STORAGE_BUFFER);
    s->frame = pipeline_find(shader, "Frame", KILN_BINDING_UNIFORM_BUFFER);
    s->material = pipeline_find(shader, "Material", KILN_BINDING_UNIFORM_BUFFER);
    bool found = s->morphs.found && s->frame.found && s->material.found;
    for (int t = 0; t < DRAW_TEXTURES; t++) {
        s->textures[t] = pipeline_find(shader, texture_names[t], KILN_BINDING_SAMPLED_IMAGE);
        found = found && s->textures[t].found && s->textures[t].set == s->material.set;
    }
    if (!found)
        return fail(err,
                    "the shader lacks Frame, Morphs, or Material and its five textures "
                    "(base colour, metallic-roughness, normal, occlusion, emissive) in its set");
    if (s->frame.block_size != sizeof(frame_uniforms) ||
        s->material.block_size != sizeof(material_uniforms) ||
        s->morphs.block_size != FRAME_MORPH_HEADER)
        return fail(
            err, "the shader's Frame, Material or Morphs block is not the size kiln-view writes");
    if (s->frame.set == s->material.set || s->morphs.set == s->frame.set ||
        s->morphs.set == s->material.set || (skinned && s->joints.set != s->morphs.set))
        return fail(err, "the shader must keep Frame, the material, and Joints with Morphs in "
                         "sets of their own");
    return true;
}

static bool create_resources(vk_context *vk, const render_program programs[2], const slots s[2],
                             uint32_t draws, uint32_t width, uint32_t height, VkDeviceSize stride,
                             const frame_layout *layout, frame_resources *f, kiln_error *err) {
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
        !vkc_host_buffer(vk, layout->joint_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &f->joints,
                         err) ||
        !vkc_host_buffer(vk, layout->morph_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &f->morphs,
                         err) ||
        !vkc_host_buffer(vk, layout->meshlet_bytes, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &f->meshlets,
                         err) ||
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
     * per draw a material set and a deform set (Morphs, and Joints). */
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

/* What one draw needs beyond its item: the frame's resources and options. */
typedef struct draw_context {
    const frame_resources *f;
    const draw_offsets *offsets;
    const render_options *options;
    const camera *cam;
    uint32_t height;
    render_stats *stats;
} draw_context;

/* The submesh's indices: level `lod`, or meshlet by meshlet (level 0). */
static void draw_indices(VkCommandBuffer cmd, const draw_item *item, VkBuffer indices,
                         const draw_context *c, const draw_offsets *o) {
    const kiln_mesh_view *mesh = &item->mesh->mesh;
    const kiln_submesh *submesh = &mesh->submeshes[item->submesh];
    if (c->options->meshlet_programs != NULL && submesh->meshlet_count > 0 &&
        meshlet_range_ok(mesh, item->submesh)) {
        vkCmdBindIndexBuffer(cmd, c->f->meshlets.buffer, o->meshlets, VK_INDEX_TYPE_UINT32);
        for (uint32_t m = submesh->meshlet_offset;
             m < submesh->meshlet_offset + submesh->meshlet_count; m++) {
            const kiln_meshlet *meshlet = &mesh->meshlets[m];
            vkCmdDrawIndexed(cmd, 3 * meshlet->triangle_count, 1, 3 * meshlet->triangle_offset, 0,
                             m);
            c->stats->triangles += meshlet->triangle_count;
        }
        c->stats->meshlets += submesh->meshlet_count;
        c->stats->lod_draws[0]++;
        return;
    }
    uint32_t level =
        c->options->meshlet_programs != NULL
            ? 0
            : lod_choose(mesh, item->submesh, item->model, c->cam, c->height, c->options->lod);
    const kiln_lod *lod = kiln_mesh_lod(mesh, item->submesh, level);
    uint32_t first = lod != NULL ? lod->index_offset : submesh->index_offset;
    uint32_t count = lod != NULL ? lod->index_count : submesh->index_count;
    if (lod == NULL)
        level = 0;
    vkCmdBindIndexBuffer(cmd, indices, 0,
                         mesh->desc->index_size == 2 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32);
    vkCmdDrawIndexed(cmd, count, 1, first, 0, 0);
    c->stats->triangles += count / 3;
    c->stats->lod_draws[level < KILN_MESH_MAX_LODS ? level : KILN_MESH_MAX_LODS - 1]++;
}

static bool record_draw(vk_context *vk, pipeline *pipe, VkCommandBuffer cmd, const draw_item *item,
                        VkDescriptorSet sets[PIPELINE_MAX_SETS], const draw_context *c,
                        const draw_offsets *o, kiln_error *err) {
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
    VkBuffer buffers[VERTEX_BINDINGS];
    VkDeviceSize offsets[VERTEX_BINDINGS];
    for (uint32_t b = 0; b < VERTEX_BINDINGS; b++)
        buffers[b] = b == 1 ? c->f->defaults.buffer : vertices->buffer;
    vertex_bind_offsets(mesh, &layout, offsets); /* streams: each at its own */
    vkCmdBindVertexBuffers(cmd, 0, layout.streams ? VERTEX_BINDINGS : 2, buffers, offsets);
    draw_indices(cmd, item, indices->buffer, c, o);
    c->stats->draws++;
    return true;
}

static VkDeviceSize round_up(VkDeviceSize size, VkDeviceSize align) {
    return (size + align - 1) / align * align;
}

/* A draw's descriptor sets: the program's frame set, then its own material
 * set (uniforms at `uniform_offset`, five textures) and deform set. */
static bool draw_sets(vk_context *vk, const pipeline *pipe, const slots *slot,
                      VkDescriptorSet frame_set, const draw_item *item, const frame_resources *f,
                      const draw_offsets *o, VkDeviceSize uniform_offset,
                      VkDescriptorSet sets[PIPELINE_MAX_SETS], kiln_error *err) {
    sets[slot->frame.set] = frame_set;
    if (!allocate_set(vk, pipe, f->pool, slot->material.set, &sets[slot->material.set], err) ||
        !allocate_set(vk, pipe, f->pool, slot->morphs.set, &sets[slot->morphs.set], err))
        return false;
    material_uniforms block;
    material_block(item, &block);
    memcpy((uint8_t *)f->uniforms.mapped + uniform_offset, &block, sizeof block);
    write_buffer(vk, sets[slot->material.set], slot->material, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                 f->uniforms.buffer, uniform_offset, sizeof block);
    for (int t = 0; t < DRAW_TEXTURES; t++)
        write_texture(vk, sets[slot->material.set], slot->textures[t], f->sampler,
                      texture_view(item, t, &f->white));
    write_buffer(vk, sets[slot->morphs.set], slot->morphs, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                 f->morph_buffer, o->morphs, o->morph_bytes);
    if (item->joint_count > 0)
        write_buffer(vk, sets[slot->joints.set], slot->joints, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                     f->joints.buffer, o->joints, o->joint_bytes);
    return true;
}

bool render_frame(vk_context *vk, const render_program programs[2], const draw_list *list,
                  const camera *cam, uint32_t width, uint32_t height, uint8_t *pixels,
                  kiln_error *err) {
    return render_frame_with(vk, programs, list, cam, width, height, NULL, pixels, NULL, err);
}

bool render_frame_with(vk_context *vk, const render_program programs_in[2], const draw_list *list,
                       const camera *cam, uint32_t width, uint32_t height,
                       const render_options *options, uint8_t *pixels, render_stats *stats,
                       kiln_error *err) {
    static const render_options defaults = {.lod = LOD_AUTO};
    render_stats ignored;
    options = options != NULL ? options : &defaults;
    stats = stats != NULL ? stats : &ignored;
    memset(stats, 0, sizeof *stats);
    /* The MESHLETS=1 programs have the same interface: they replace the plain ones. */
    const render_program *programs =
        options->meshlet_programs != NULL ? options->meshlet_programs : programs_in;
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
    draw_offsets *offsets = NULL;
    bool ok = true;
    if (list->count > 0) {
        items = malloc(list->count * sizeof *items);
        offsets = malloc(list->count * sizeof *offsets);
        ok = (items != NULL && offsets != NULL) || fail(err, "out of memory for draws");
    }
    if (ok) {
        memcpy(items, list->items, list->count * sizeof *items);
        qsort(items, list->count, sizeof *items, compare_draws);
    }
    frame_layout layout = {64, 64, 64};
    if (ok)
        frame_data_layout(vk, items, list->count, options->meshlet_programs != NULL, offsets,
                          &layout);
    /* With a morph cache, the cache's buffer is the one bound as Morphs, so
     * the frame's own is made at the 64-byte minimum and left unused. */
    morph_cache *cache = options->morphs;
    frame_layout own = layout;
    if (cache != NULL)
        own.morph_bytes = 64;
    ok = ok && create_resources(vk, programs, s, list->count, width, height, stride, &own, &f, err);
    ok = ok && (cache == NULL || morph_cache_update(vk, cache, list, items, list->count, offsets,
                                                    layout.morph_bytes, err));
    f.morph_buffer = cache != NULL ? cache->buffer.buffer : f.morphs.buffer;
    ok = ok && frame_data_fill(list, items, list->count, offsets, f.joints.mapped,
                               cache != NULL ? NULL : f.morphs.mapped,
                               options->meshlet_programs != NULL ? f.meshlets.mapped : NULL, err);
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
        draw_context context = {&f, offsets, options, cam, height, stats};
        for (uint32_t i = 0; ok && i < list->count; i++) {
            const draw_item *item = &items[i];
            int p = item->joint_count > 0 ? 1 : 0;
            VkDescriptorSet sets[PIPELINE_MAX_SETS] = {0};
            ok = draw_sets(vk, programs[p].pipe, &s[p], frame_sets[p], item, &f, &offsets[i],
                           stride * (i + 1), sets, err) &&
                 record_draw(vk, programs[p].pipe, cmd, item, sets, &context, &offsets[i], err);
        }
        vkCmdEndRendering(cmd);
        vkc_read_back(cmd, f.color.image, width, height, f.readback.buffer);
        bool submitted = vkc_submit_wait(vk, cmd, ok ? err : &(kiln_error){0});
        ok = ok && submitted;
    }
    if (ok)
        memcpy(pixels, f.readback.mapped, 4 * (size_t)width * height);
    free(items);
    free(offsets);
    release(vk, &f);
    return ok;
}
