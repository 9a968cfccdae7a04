/*
 * frame_data.c — joints, morphs and meshlet indices of a frame (frame_data.h).
 */
#include "frame_data.h"

#include <string.h>

#include "meshlets.h"

static VkDeviceSize round_up(VkDeviceSize size, VkDeviceSize align) {
    return (size + align - 1) / align * align;
}

static uint32_t morph_blocks(const kiln_mesh_desc *desc) {
    uint32_t bits = desc->morph_attributes & KILN_MORPH_ALL_;
    return (bits & 1u) + ((bits >> 1) & 1u) + ((bits >> 2) & 1u);
}

/* The delta floats of every target (MDLT is target-major, blocks contiguous). */
static VkDeviceSize delta_floats(const kiln_mesh_desc *desc) {
    return (VkDeviceSize)desc->morph_target_count * morph_blocks(desc) * desc->vertex_count * 3;
}

static bool same_morphs(const draw_item *a, const draw_item *b) {
    return a->mesh == b->mesh && a->weight_count == b->weight_count &&
           a->weight_offset == b->weight_offset;
}

void frame_data_layout(const vk_context *vk, const draw_item *items, uint32_t count, bool meshlets,
                       draw_offsets *offsets, frame_layout *out) {
    VkDeviceSize align = vk->properties.limits.minStorageBufferOffsetAlignment;
    VkDeviceSize joints = 0, morphs = round_up(FRAME_NO_MORPHS_BYTES, align), indices = 0;
    for (uint32_t i = 0; i < count; i++) {
        const draw_item *item = &items[i];
        draw_offsets *o = &offsets[i];
        o->joints = joints;
        o->joint_bytes = (VkDeviceSize)item->joint_count * 64;
        joints += round_up(o->joint_bytes, align);
        const kiln_mesh_desc *desc = item->mesh->mesh.desc;
        if (item->weight_count == 0 || item->mesh->mesh.morph_deltas == NULL) {
            o->morphs = 0;
            o->morph_bytes = FRAME_NO_MORPHS_BYTES;
        } else if (i > 0 && same_morphs(item, &items[i - 1]) && offsets[i - 1].morphs != 0) {
            o->morphs = offsets[i - 1].morphs;
            o->morph_bytes = offsets[i - 1].morph_bytes;
        } else {
            o->morphs = morphs;
            o->morph_bytes =
                FRAME_MORPH_HEADER + 4 * ((VkDeviceSize)item->weight_count + delta_floats(desc));
            morphs += round_up(o->morph_bytes, align);
        }
        if (meshlets && i > 0 && item->mesh == items[i - 1].mesh) {
            o->meshlets = offsets[i - 1].meshlets;
        } else if (meshlets) {
            o->meshlets = indices;
            indices += 12 * (VkDeviceSize)desc->meshlet_triangle_count;
        }
    }
    out->joint_bytes = joints > 64 ? joints : 64;
    out->morph_bytes = morphs > 64 ? morphs : 64;
    out->meshlet_bytes = indices > 64 ? indices : 64;
}

/* Whether draw i writes its Morphs block (the first of a run sharing it). */
static bool writes_morphs(const draw_offsets *offsets, uint32_t i) {
    return offsets[i].morphs != 0 && !(i > 0 && offsets[i].morphs == offsets[i - 1].morphs);
}

void frame_morphs_fill(const draw_list *list, const draw_item *items, uint32_t count,
                       const draw_offsets *offsets, uint8_t *morphs) {
    memset(morphs, 0, FRAME_NO_MORPHS_BYTES);
    for (uint32_t i = 0; i < count; i++) {
        if (!writes_morphs(offsets, i))
            continue;
        const draw_item *item = &items[i];
        const kiln_mesh_view *mesh = &item->mesh->mesh;
        uint32_t shape[4] = {item->weight_count, mesh->desc->vertex_count, morph_blocks(mesh->desc),
                             mesh->desc->morph_attributes & KILN_MORPH_ALL_};
        uint8_t *at = morphs + offsets[i].morphs;
        memcpy(at, shape, sizeof shape);
        memcpy(at + FRAME_MORPH_HEADER, list->weights + item->weight_offset,
               4 * (size_t)item->weight_count);
        memcpy(at + FRAME_MORPH_HEADER + 4 * (size_t)item->weight_count, mesh->morph_deltas,
               4 * (size_t)delta_floats(mesh->desc));
    }
}

/* One Morphs block in a key: where it goes and whose deltas, then its weights. */
typedef struct morph_key_block {
    VkDeviceSize offset;
    const void *mesh, *deltas;
    uint32_t weight_count;
} morph_key_block;

size_t frame_morphs_key(const draw_list *list, const draw_item *items, uint32_t count,
                        const draw_offsets *offsets, uint8_t *out) {
    size_t size = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!writes_morphs(offsets, i))
            continue;
        const draw_item *item = &items[i];
        morph_key_block block;
        memset(&block, 0, sizeof block); /* padding too: keys are compared bytewise */
        block.offset = offsets[i].morphs;
        block.mesh = item->mesh;
        block.deltas = item->mesh->mesh.morph_deltas;
        block.weight_count = item->weight_count;
        size_t weights = 4 * (size_t)item->weight_count;
        if (out != NULL) {
            memcpy(out + size, &block, sizeof block);
            memcpy(out + size + sizeof block, list->weights + item->weight_offset, weights);
        }
        size += sizeof block + weights;
    }
    return size;
}

bool frame_data_fill(const draw_list *list, const draw_item *items, uint32_t count,
                     const draw_offsets *offsets, uint8_t *joints, uint8_t *morphs,
                     uint8_t *meshlets, kiln_error *err) {
    if (morphs != NULL)
        frame_morphs_fill(list, items, count, offsets, morphs);
    for (uint32_t i = 0; i < count; i++) {
        const draw_item *item = &items[i];
        const draw_offsets *o = &offsets[i];
        bool repeat = i > 0 && item->mesh == items[i - 1].mesh;
        if (o->joint_bytes > 0)
            memcpy(joints + o->joints, list->joints + 16 * (size_t)item->joint_offset,
                   (size_t)o->joint_bytes);
        /* Meshlet offsets step by 12 bytes into a mapped buffer: 4-byte aligned. */
        if (meshlets != NULL && !repeat &&
            !meshlet_indices(&item->mesh->mesh, item->mesh->path,
                             (uint32_t *)(void *)(meshlets + o->meshlets), err))
            return false;
    }
    return true;
}
