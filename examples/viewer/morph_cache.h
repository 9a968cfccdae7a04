/*
 * morph_cache.h — the Morphs storage buffer kept from frame to frame: the
 * morph targets' deltas and the weights are written into it only when they
 * change (another clip time, a reload), not every frame, so orbiting a
 * paused morphed model copies nothing. The renderer waits for each frame
 * before the next, so the buffer is never written while the GPU reads it.
 */
#ifndef KILN_VIEW_MORPH_CACHE_H
#define KILN_VIEW_MORPH_CACHE_H

#include "frame_data.h"

typedef struct morph_cache {
    vk_buffer buffer; /* host-visible; buffer.size its capacity */
    uint8_t *key;     /* frame_morphs_key of what it holds; NULL: nothing */
    size_t key_size;
    VkDeviceSize bytes; /* the layout's morph_bytes it was written for */
    uint64_t writes;    /* times it was written (tests read it) */
} morph_cache;

/* Makes `cache->buffer` hold this frame's Morphs blocks: as it is when the
 * same blocks were written last, else (grown when `bytes` exceeds it)
 * written again. False with `err` when out of memory. */
bool morph_cache_update(vk_context *vk, morph_cache *cache, const draw_list *list,
                        const draw_item *items, uint32_t count, const draw_offsets *offsets,
                        VkDeviceSize bytes, kiln_error *err);

/* Forgets what it holds (after a reload: freed meshes' addresses may return). */
void morph_cache_forget(morph_cache *cache);
void morph_cache_destroy(vk_context *vk, morph_cache *cache);

#endif
