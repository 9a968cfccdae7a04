/*
 * frame_data.h — the per-frame buffers kiln-view's draws read besides their
 * vertices and material: each skinned draw's joint matrices (Joints), each
 * morphed draw's weights and delta blocks (Morphs, the vertex stage's
 * layout), and with --meshlets each mesh's meshlet index list (meshlets.h).
 * Laid out over the frame's draws first (sizes and aligned offsets), then
 * written into the mapped buffers.
 */
#ifndef KILN_VIEW_FRAME_DATA_H
#define KILN_VIEW_FRAME_DATA_H

#include "draw_list.h"
#include "vk_context.h"

/* Morphs' fixed part: the uvec4 shape (target count, vertex count, blocks
 * per target, KILN_MORPH_* bits). Undeformed draws read a zero shape at
 * offset 0 of the buffer. */
#define FRAME_MORPH_HEADER 16u
#define FRAME_NO_MORPHS_BYTES 32u

/* Where one draw's data is in each buffer, and its size. */
typedef struct draw_offsets {
    VkDeviceSize joints, joint_bytes; /* joint_bytes 0: not skinned */
    VkDeviceSize morphs, morph_bytes; /* the whole Morphs block */
    VkDeviceSize meshlets;            /* byte offset of the mesh's meshlet indices */
} draw_offsets;

typedef struct frame_layout {
    VkDeviceSize joint_bytes, morph_bytes, meshlet_bytes; /* each at least 64 */
} frame_layout;

/* Lays out `count` draws (consecutive draws of one mesh and weights share
 * their morph and meshlet data). */
void frame_data_layout(const vk_context *vk, const draw_item *items, uint32_t count, bool meshlets,
                       draw_offsets *offsets, frame_layout *out);

/* Writes the data into the mapped buffers (`meshlets` NULL without
 * --meshlets; `morphs` NULL when a morph_cache holds them). False, `err`
 * naming the file, for meshlet data pointing outside its mesh. */
bool frame_data_fill(const draw_list *list, const draw_item *items, uint32_t count,
                     const draw_offsets *offsets, uint8_t *joints, uint8_t *morphs,
                     uint8_t *meshlets, kiln_error *err);

/* Writes the Morphs blocks alone (frame_data_fill's part). */
void frame_morphs_fill(const draw_list *list, const draw_item *items, uint32_t count,
                       const draw_offsets *offsets, uint8_t *morphs);

/* What the Morphs blocks hold, as bytes two frames compare: each block's
 * offset, mesh and deltas, and its weights. Writes it to `out` when not NULL
 * and returns its size. Valid while the meshes are: after a reload a new
 * mesh may take a freed one's address (morph_cache_forget). */
size_t frame_morphs_key(const draw_list *list, const draw_item *items, uint32_t count,
                        const draw_offsets *offsets, uint8_t *out);

#endif
