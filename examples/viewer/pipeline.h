/*
 * pipeline.h — kiln-view's graphics pipelines from a cooked .kshader: the
 * shader modules from its SPIR-V, the descriptor set layouts and the
 * push-constant range from its reflection, and one pipeline per vertex
 * layout and alpha mode, made when first drawn (or, for a program reading
 * no vertices, its one pipeline).
 */
#ifndef KILN_VIEW_PIPELINE_H
#define KILN_VIEW_PIPELINE_H

#include "kiln/kiln.h"
#include "vk_context.h"

#define PIPELINE_MAX_SETS 4
#define PIPELINE_MAX_VARIANTS 64

/* Where one reflected descriptor is: the renderer writes by name. */
typedef struct pipeline_slot {
    uint32_t set, binding, block_size;
    bool found;
} pipeline_slot;

/* A .kmesh vertex layout as the vertex stage reads it: per input location
 * the attribute's format and offset, or absent (fed a default). Locations 6
 * and 7 (joints, weights) only for the skinned program. An interleaved mesh
 * is one binding (0) of `stride`; a mesh of streams (KILN_MESH_FLAG_STREAMS)
 * binds location L's stream as binding 2 + L with stream_stride[L], at the
 * offsets vertex_bind_offsets gives. */
#define VERTEX_LOCATIONS 8
#define VERTEX_BINDINGS (2 + VERTEX_LOCATIONS)
typedef struct vertex_layout {
    uint32_t stride;
    uint32_t skinned;
    uint32_t streams;
    uint16_t format[VERTEX_LOCATIONS]; /* kiln_vertex_format per location, 0 when absent */
    uint16_t offset[VERTEX_LOCATIONS];
    uint16_t stream_stride[VERTEX_LOCATIONS];
} vertex_layout;

typedef struct pipeline_variant {
    vertex_layout layout;
    uint32_t alpha_mode;
    VkPipeline pipeline;
} pipeline_variant;

typedef struct pipeline {
    VkShaderModule modules[2]; /* vertex, fragment */
    const char *entries[2];
    VkDescriptorSetLayout set_layouts[PIPELINE_MAX_SETS];
    uint32_t set_count;
    VkPipelineLayout layout;
    VkPushConstantRange push;
    /* Descriptor counts per set, for sizing a pool. */
    uint32_t uniform_buffers[PIPELINE_MAX_SETS], samplers[PIPELINE_MAX_SETS],
        storage_buffers[PIPELINE_MAX_SETS];
    VkFormat color_format, depth_format;
    pipeline_variant variants[PIPELINE_MAX_VARIANTS];
    uint32_t variant_count;
    VkPipeline unbound; /* pipeline_get_unbound's */
} pipeline;

/* Builds modules and layouts from `shader` (vertex and fragment stages
 * required); `name` names it in messages. */
bool pipeline_create(vk_context *vk, const kiln_shader_view *shader, const char *name,
                     VkFormat color_format, VkFormat depth_format, pipeline *out, kiln_error *err);
void pipeline_destroy(vk_context *vk, pipeline *p);

/* The binding named `name` (a block's type name, or a sampler's variable
 * name), checked to be of `type`; found false when the shader lacks it. */
pipeline_slot pipeline_find(const kiln_shader_view *shader, const char *name,
                            kiln_binding_type type);

/* The pipeline for a layout and alpha mode (kiln_alpha_mode), made on first
 * use; VK_NULL_HANDLE with `err` filled when it cannot be. */
VkPipeline pipeline_get(vk_context *vk, pipeline *p, const vertex_layout *layout,
                        uint32_t alpha_mode, kiln_error *err);

/* The one pipeline of a program that reads no vertex buffer (its vertex
 * stage makes its corners from gl_VertexIndex), opaque, depth-tested only
 * when `p` has a depth format; made on first use. */
VkPipeline pipeline_get_unbound(vk_context *vk, pipeline *p, kiln_error *err);

/* The layout of `mesh`'s vertices as the plain or (`skinned`) the skinned
 * program reads them; false (err filled) when an attribute it reads has a
 * format kiln-view does not bind. */
bool vertex_layout_of(const kiln_mesh_view *mesh, bool skinned, vertex_layout *out,
                      kiln_error *err);
/* Where vkCmdBindVertexBuffers binds the mesh's one vertex buffer for each of
 * VERTEX_BINDINGS bindings (binding 1, the defaults, gets 0). */
void vertex_bind_offsets(const kiln_mesh_view *mesh, const vertex_layout *layout,
                         VkDeviceSize offsets[VERTEX_BINDINGS]);

#endif
