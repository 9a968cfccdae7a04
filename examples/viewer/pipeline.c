/*
 * pipeline.c — pipelines from a cooked .kshader and its reflection
 * (pipeline.h).
 */
#include "pipeline.h"

#include <stdio.h>
#include <string.h>

/* The locations the vertex stage reads (kmesh: semantic - 1) and the bytes
 * a default for a missing attribute takes in the defaults buffer. */
static const kiln_vertex_semantic location_semantic[VERTEX_LOCATIONS] = {
    KILN_SEMANTIC_POSITION,  KILN_SEMANTIC_NORMAL, KILN_SEMANTIC_TANGENT, KILN_SEMANTIC_TEXCOORD0,
    KILN_SEMANTIC_TEXCOORD1, KILN_SEMANTIC_COLOR0, KILN_SEMANTIC_JOINTS0, KILN_SEMANTIC_WEIGHTS0};

/* The locations a program reads: 6 and 7 only when skinned. */
static bool reads(uint32_t location, bool skinned) {
    return location < 6 || skinned;
}

/* The Vulkan format location `location` reads `format` as; UNDEFINED when
 * kiln-view does not bind it there (signed octahedral vectors are tangents). */
static VkFormat vertex_format(kiln_vertex_format format, uint32_t location) {
    switch (format) {
    case KILN_VFORMAT_F32X2:
        return VK_FORMAT_R32G32_SFLOAT;
    case KILN_VFORMAT_F32X3:
        return VK_FORMAT_R32G32B32_SFLOAT;
    case KILN_VFORMAT_F32X4:
        return VK_FORMAT_R32G32B32A32_SFLOAT;
    case KILN_VFORMAT_OCT_SNORM16X2:
        return VK_FORMAT_R16G16_SNORM;
    case KILN_VFORMAT_OCT_SIGNED_SNORM16X2:
        return location == 2 ? VK_FORMAT_R16G16_SNORM : VK_FORMAT_UNDEFINED;
    case KILN_VFORMAT_UNORM8X4:
        return VK_FORMAT_R8G8B8A8_UNORM;
    case KILN_VFORMAT_UNORM16X2:
        return VK_FORMAT_R16G16_UNORM;
    case KILN_VFORMAT_UNORM16X4:
        return VK_FORMAT_R16G16B16A16_UNORM;
    case KILN_VFORMAT_SNORM16X4:
        return VK_FORMAT_R16G16B16A16_SNORM;
    case KILN_VFORMAT_U16X4:
        return VK_FORMAT_R16G16B16A16_UINT;
    case KILN_VFORMAT_U8X4:
        return VK_FORMAT_R8G8B8A8_UINT;
    default:
        return VK_FORMAT_UNDEFINED;
    }
}

bool vertex_layout_of(const kiln_mesh_view *mesh, bool skinned, vertex_layout *out,
                      kiln_error *err) {
    memset(out, 0, sizeof *out);
    out->streams = (mesh->desc->flags & KILN_MESH_FLAG_STREAMS) != 0;
    out->stride = out->streams ? 0 : mesh->desc->vertex_stride;
    out->skinned = skinned;
    for (uint32_t location = 0; location < VERTEX_LOCATIONS; location++) {
        if (!reads(location, skinned))
            continue;
        const kiln_vertex_attribute *a =
            kiln_mesh_find_attribute(mesh, location_semantic[location]);
        if (a == NULL)
            continue;
        if (vertex_format(a->format, location) == VK_FORMAT_UNDEFINED) {
            err->code = KILN_ERR_UNSUPPORTED;
            snprintf(err->message, sizeof err->message, "%s: attribute %s stored as %s",
                     "kiln-view cannot bind", kiln_vertex_semantic_str(location_semantic[location]),
                     kiln_vertex_format_str(a->format));
            return false;
        }
        out->format[location] = a->format;
        if (out->streams) {
            uint32_t stride = 0;
            kiln_mesh_attribute_data(mesh, a, &stride, NULL);
            out->stream_stride[location] = (uint16_t)stride;
        } else {
            out->offset[location] = a->offset;
        }
    }
    if (skinned && (out->format[6] == 0 || out->format[7] == 0)) {
        err->code = KILN_ERR_UNSUPPORTED;
        snprintf(err->message, sizeof err->message, "a skinned mesh without joints or weights");
        return false;
    }
    if (out->format[0] == 0) {
        err->code = KILN_ERR_UNSUPPORTED;
        snprintf(err->message, sizeof err->message, "the mesh has no positions");
        return false;
    }
    return true;
}

void vertex_bind_offsets(const kiln_mesh_view *mesh, const vertex_layout *layout,
                         VkDeviceSize offsets[VERTEX_BINDINGS]) {
    for (uint32_t b = 0; b < VERTEX_BINDINGS; b++)
        offsets[b] = 0;
    if (!layout->streams)
        return;
    for (uint32_t location = 0; location < VERTEX_LOCATIONS; location++) {
        const kiln_vertex_attribute *a =
            layout->format[location] != 0
                ? kiln_mesh_find_attribute(mesh, location_semantic[location])
                : NULL;
        size_t offset = 0;
        if (a != NULL && kiln_mesh_attribute_data(mesh, a, NULL, &offset) != NULL)
            offsets[2 + location] = offset;
    }
}

static VkShaderStageFlags vk_stages(uint32_t mask) {
    VkShaderStageFlags flags = 0;
    if (mask & (1u << KILN_SHADER_STAGE_VERTEX))
        flags |= VK_SHADER_STAGE_VERTEX_BIT;
    if (mask & (1u << KILN_SHADER_STAGE_FRAGMENT))
        flags |= VK_SHADER_STAGE_FRAGMENT_BIT;
    return flags;
}

static VkDescriptorType descriptor_type(uint32_t type) {
    switch (type) {
    case KILN_BINDING_UNIFORM_BUFFER:
        return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case KILN_BINDING_STORAGE_BUFFER:
        return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case KILN_BINDING_SAMPLED_IMAGE:
        return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    case KILN_BINDING_SEPARATE_IMAGE:
        return VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case KILN_BINDING_SEPARATE_SAMPLER:
        return VK_DESCRIPTOR_TYPE_SAMPLER;
    case KILN_BINDING_STORAGE_IMAGE:
        return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    default:
        return VK_DESCRIPTOR_TYPE_MAX_ENUM;
    }
}

pipeline_slot pipeline_find(const kiln_shader_view *shader, const char *name,
                            kiln_binding_type type) {
    pipeline_slot slot = {0};
    for (uint32_t i = 0; i < shader->binding_count; i++) {
        const kiln_shader_binding *b = &shader->bindings[i];
        if (b->type == (uint32_t)type &&
            strcmp(kiln_shader_string(shader, b->name_offset), name) == 0)
            return (pipeline_slot){b->set, b->binding, b->block_size, true};
    }
    return slot;
}

static bool fail(kiln_error *err, const char *name, const char *problem) {
    err->code = KILN_ERR_UNSUPPORTED;
    snprintf(err->message, sizeof err->message, "%s: %s", name, problem);
    return false;
}

/* One descriptor set layout per set the reflection names, bindings as it
 * lists them (sorted by set, then binding). */
static bool create_set_layouts(vk_context *vk, const kiln_shader_view *shader, const char *name,
                               pipeline *p, kiln_error *err) {
    for (uint32_t i = 0; i < shader->binding_count; i++)
        if (shader->bindings[i].set >= PIPELINE_MAX_SETS)
            return fail(err, name, "uses a descriptor set above 3");
    p->set_count =
        shader->binding_count > 0 ? shader->bindings[shader->binding_count - 1].set + 1 : 0;
    for (uint32_t set = 0; set < p->set_count; set++) {
        VkDescriptorSetLayoutBinding bindings[16];
        uint32_t count = 0;
        for (uint32_t i = 0; i < shader->binding_count; i++) {
            const kiln_shader_binding *b = &shader->bindings[i];
            if (b->set != set)
                continue;
            VkDescriptorType type = descriptor_type(b->type);
            if (type == VK_DESCRIPTOR_TYPE_MAX_ENUM || count == 16 || b->count == 0)
                return fail(err, name, "has a binding kiln-view cannot make");
            bindings[count++] = (VkDescriptorSetLayoutBinding){.binding = b->binding,
                                                               .descriptorType = type,
                                                               .descriptorCount = b->count,
                                                               .stageFlags = vk_stages(b->stages)};
            if (type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
                p->uniform_buffers[set] += b->count;
            else if (type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
                p->storage_buffers[set] += b->count;
            else
                p->samplers[set] += b->count;
        }
        VkDescriptorSetLayoutCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
            .bindingCount = count,
            .pBindings = bindings};
        VkResult r = vkCreateDescriptorSetLayout(vk->device, &info, NULL, &p->set_layouts[set]);
        if (r != VK_SUCCESS)
            return vkc_fail(err, "vkCreateDescriptorSetLayout", r);
    }
    return true;
}

/* One range covering every stage's push-constant blocks. */
static void push_range(const kiln_shader_view *shader, VkPushConstantRange *range) {
    uint32_t end = 0, begin = UINT32_MAX;
    memset(range, 0, sizeof *range);
    for (uint32_t s = 0; s < shader->stage_count; s++) {
        const kiln_shader_stage_desc *stage = &shader->stages[s];
        for (uint32_t i = 0; i < stage->push_count; i++) {
            const kiln_shader_push_constant *pc = &shader->push_constants[stage->push_offset + i];
            begin = pc->offset < begin ? pc->offset : begin;
            end = pc->offset + pc->size > end ? pc->offset + pc->size : end;
            range->stageFlags |= vk_stages(1u << stage->stage);
        }
    }
    if (end > 0) {
        range->offset = begin;
        range->size = end - begin;
    }
}

bool pipeline_create(vk_context *vk, const kiln_shader_view *shader, const char *name,
                     VkFormat color_format, VkFormat depth_format, pipeline *out, kiln_error *err) {
    memset(out, 0, sizeof *out);
    out->color_format = color_format;
    out->depth_format = depth_format;
    const kiln_shader_stage wanted[2] = {KILN_SHADER_STAGE_VERTEX, KILN_SHADER_STAGE_FRAGMENT};
    for (int s = 0; s < 2; s++) {
        int index = kiln_shader_find_stage(shader, wanted[s]);
        if (index < 0)
            return fail(err, name, s == 0 ? "has no vertex stage" : "has no fragment stage");
        uint32_t words = 0;
        const uint32_t *code = kiln_shader_stage_code(shader, (uint32_t)index, &words);
        out->entries[s] = kiln_shader_string(shader, shader->stages[index].entry_offset);
        VkShaderModuleCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                         .codeSize = 4 * (size_t)words,
                                         .pCode = code};
        VkResult r = vkCreateShaderModule(vk->device, &info, NULL, &out->modules[s]);
        if (r != VK_SUCCESS)
            return vkc_fail(err, "vkCreateShaderModule", r);
    }
    if (!create_set_layouts(vk, shader, name, out, err))
        return false;
    push_range(shader, &out->push);
    VkPipelineLayoutCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = out->set_count,
                                       .pSetLayouts = out->set_layouts,
                                       .pushConstantRangeCount = out->push.size > 0 ? 1 : 0,
                                       .pPushConstantRanges = &out->push};
    VkResult r = vkCreatePipelineLayout(vk->device, &info, NULL, &out->layout);
    return r == VK_SUCCESS ? true : vkc_fail(err, "vkCreatePipelineLayout", r);
}

void pipeline_destroy(vk_context *vk, pipeline *p) {
    for (uint32_t i = 0; i < p->variant_count; i++)
        vkDestroyPipeline(vk->device, p->variants[i].pipeline, NULL);
    if (p->unbound != VK_NULL_HANDLE)
        vkDestroyPipeline(vk->device, p->unbound, NULL);
    if (p->layout != VK_NULL_HANDLE)
        vkDestroyPipelineLayout(vk->device, p->layout, NULL);
    for (uint32_t s = 0; s < PIPELINE_MAX_SETS; s++)
        if (p->set_layouts[s] != VK_NULL_HANDLE)
            vkDestroyDescriptorSetLayout(vk->device, p->set_layouts[s], NULL);
    for (int s = 0; s < 2; s++)
        if (p->modules[s] != VK_NULL_HANDLE)
            vkDestroyShaderModule(vk->device, p->modules[s], NULL);
    memset(p, 0, sizeof *p);
}

/* Binding 0 is the mesh's interleaved vertices (or, with streams, binding
 * 2 + L location L's stream); a missing attribute reads binding 1, the
 * defaults buffer (16 zero bytes, then four 1.0 floats), with stride 0: a
 * +Z normal, a zero tangent (none: no normal mapping), uv 0 and white vertex
 * colour. Returns the attribute count; *binding_count is set. */
static uint32_t vertex_inputs(const vertex_layout *layout, VkVertexInputBindingDescription *b,
                              uint32_t *binding_count, VkVertexInputAttributeDescription *a) {
    b[0] = (VkVertexInputBindingDescription){0, layout->stride, VK_VERTEX_INPUT_RATE_VERTEX};
    b[1] = (VkVertexInputBindingDescription){1, 0, VK_VERTEX_INPUT_RATE_VERTEX};
    *binding_count = 2;
    uint32_t count = 0;
    for (uint32_t location = 0; location < VERTEX_LOCATIONS; location++) {
        if (!reads(location, layout->skinned))
            continue;
        if (layout->format[location] != 0 && layout->streams) {
            uint32_t binding = 2 + location;
            b[(*binding_count)++] = (VkVertexInputBindingDescription){
                binding, layout->stream_stride[location], VK_VERTEX_INPUT_RATE_VERTEX};
            a[count++] = (VkVertexInputAttributeDescription){
                location, binding, vertex_format(layout->format[location], location), 0};
        } else if (layout->format[location] != 0) {
            a[count++] = (VkVertexInputAttributeDescription){
                location, 0, vertex_format(layout->format[location], location),
                layout->offset[location]};
        } else {
            VkFormat format = location == 1 || location == 2 ? VK_FORMAT_R16G16_SNORM
                              : location == 5                ? VK_FORMAT_R32G32B32A32_SFLOAT
                                                             : VK_FORMAT_R32G32_SFLOAT;
            a[count++] =
                (VkVertexInputAttributeDescription){location, 1, format, location == 5 ? 16u : 0u};
        }
    }
    return count;
}

/* A pipeline of `p`'s stages reading `input`, depth-tested when `p` has a
 * depth format, blending over what is drawn when `blend`. */
static VkPipeline create_graphics(vk_context *vk, const pipeline *p,
                                  const VkPipelineVertexInputStateCreateInfo *input, bool blend,
                                  kiln_error *err) {
    VkPipelineShaderStageCreateInfo stages[2];
    for (int s = 0; s < 2; s++)
        stages[s] = (VkPipelineShaderStageCreateInfo){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = s == 0 ? VK_SHADER_STAGE_VERTEX_BIT : VK_SHADER_STAGE_FRAGMENT_BIT,
            .module = p->modules[s],
            .pName = p->entries[s]};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkPipelineViewportStateCreateInfo viewport = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .scissorCount = 1};
    VkPipelineRasterizationStateCreateInfo raster = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo multisample = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    bool depth_tested = p->depth_format != VK_FORMAT_UNDEFINED;
    VkPipelineDepthStencilStateCreateInfo depth = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = depth_tested,
        .depthWriteEnable = depth_tested && !blend,
        .depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL};
    /* Blend over what is drawn: colour mixed by alpha, alpha accumulating as
     * coverage over the transparent background. */
    VkPipelineColorBlendAttachmentState attachment = {
        .blendEnable = blend,
        .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
        .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .colorBlendOp = VK_BLEND_OP_ADD,
        .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
        .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .alphaBlendOp = VK_BLEND_OP_ADD,
        .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                          VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT};
    VkPipelineColorBlendStateCreateInfo color = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &attachment};
    /* Culling and winding per draw: double-sided materials and mirrored
     * nodes differ. */
    VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR,
                                       VK_DYNAMIC_STATE_CULL_MODE, VK_DYNAMIC_STATE_FRONT_FACE};
    VkPipelineDynamicStateCreateInfo dynamic = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
        .dynamicStateCount = 4,
        .pDynamicStates = dynamic_states};
    VkPipelineRenderingCreateInfo rendering = {.sType =
                                                   VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                               .colorAttachmentCount = 1,
                                               .pColorAttachmentFormats = &p->color_format,
                                               .depthAttachmentFormat = p->depth_format};
    VkGraphicsPipelineCreateInfo info = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
                                         .pNext = &rendering,
                                         .stageCount = 2,
                                         .pStages = stages,
                                         .pVertexInputState = input,
                                         .pInputAssemblyState = &assembly,
                                         .pViewportState = &viewport,
                                         .pRasterizationState = &raster,
                                         .pMultisampleState = &multisample,
                                         .pDepthStencilState = &depth,
                                         .pColorBlendState = &color,
                                         .pDynamicState = &dynamic,
                                         .layout = p->layout};
    VkPipeline made = VK_NULL_HANDLE;
    VkResult r = vkCreateGraphicsPipelines(vk->device, VK_NULL_HANDLE, 1, &info, NULL, &made);
    if (r != VK_SUCCESS)
        vkc_fail(err, "vkCreateGraphicsPipelines", r);
    return made;
}

VkPipeline pipeline_get(vk_context *vk, pipeline *p, const vertex_layout *layout,
                        uint32_t alpha_mode, kiln_error *err) {
    for (uint32_t i = 0; i < p->variant_count; i++)
        if (p->variants[i].alpha_mode == alpha_mode &&
            memcmp(&p->variants[i].layout, layout, sizeof *layout) == 0)
            return p->variants[i].pipeline;
    if (p->variant_count == PIPELINE_MAX_VARIANTS) {
        fail(err, "kiln-view", "too many vertex layouts");
        return VK_NULL_HANDLE;
    }
    VkVertexInputBindingDescription bindings[VERTEX_BINDINGS];
    VkVertexInputAttributeDescription attributes[VERTEX_LOCATIONS];
    uint32_t binding_count = 0;
    uint32_t attribute_count = vertex_inputs(layout, bindings, &binding_count, attributes);
    VkPipelineVertexInputStateCreateInfo input = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = binding_count,
        .pVertexBindingDescriptions = bindings,
        .vertexAttributeDescriptionCount = attribute_count,
        .pVertexAttributeDescriptions = attributes};
    pipeline_variant *v = &p->variants[p->variant_count];
    v->pipeline = create_graphics(vk, p, &input, alpha_mode == KILN_ALPHA_BLEND, err);
    if (v->pipeline == VK_NULL_HANDLE)
        return VK_NULL_HANDLE;
    v->layout = *layout;
    v->alpha_mode = alpha_mode;
    p->variant_count++;
    return v->pipeline;
}

VkPipeline pipeline_get_unbound(vk_context *vk, pipeline *p, kiln_error *err) {
    if (p->unbound != VK_NULL_HANDLE)
        return p->unbound;
    const VkPipelineVertexInputStateCreateInfo none = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    p->unbound = create_graphics(vk, p, &none, false, err);
    return p->unbound;
}
