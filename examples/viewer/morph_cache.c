/*
 * morph_cache.c — the Morphs buffer written only when it changes (morph_cache.h).
 */
#include "morph_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool out_of_memory(kiln_error *err) {
    err->code = KILN_ERR_OUT_OF_MEMORY;
    snprintf(err->message, sizeof err->message, "out of memory for the morph targets");
    return false;
}

bool morph_cache_update(vk_context *vk, morph_cache *cache, const draw_list *list,
                        const draw_item *items, uint32_t count, const draw_offsets *offsets,
                        VkDeviceSize bytes, kiln_error *err) {
    size_t key_size = frame_morphs_key(list, items, count, offsets, NULL);
    uint8_t *key = malloc(key_size > 0 ? key_size : 1);
    if (key == NULL)
        return out_of_memory(err);
    frame_morphs_key(list, items, count, offsets, key);
    if (cache->key != NULL && cache->bytes == bytes && cache->key_size == key_size &&
        memcmp(cache->key, key, key_size) == 0) {
        free(key);
        return true;
    }
    if (cache->buffer.mapped == NULL || cache->buffer.size < bytes) {
        vkc_buffer_destroy(vk, &cache->buffer);
        if (!vkc_host_buffer(vk, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &cache->buffer, err)) {
            free(key);
            morph_cache_forget(cache);
            return false;
        }
    }
    frame_morphs_fill(list, items, count, offsets, cache->buffer.mapped);
    free(cache->key);
    cache->key = key;
    cache->key_size = key_size;
    cache->bytes = bytes;
    cache->writes++;
    return true;
}

void morph_cache_forget(morph_cache *cache) {
    free(cache->key);
    cache->key = NULL;
    cache->key_size = 0;
}

void morph_cache_destroy(vk_context *vk, morph_cache *cache) {
    morph_cache_forget(cache);
    vkc_buffer_destroy(vk, &cache->buffer);
}
