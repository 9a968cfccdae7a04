/*
 * vk_context.h — kiln-view's Vulkan device: instance (with the Khronos
 * validation layer when asked, its errors counted), the first device with a
 * graphics queue and Vulkan 1.3, and the helpers every upload shares:
 * buffers, images, one-shot command buffers.
 */
#ifndef KILN_VIEW_VK_CONTEXT_H
#define KILN_VIEW_VK_CONTEXT_H

#include <stdbool.h>
#include <vulkan/vulkan.h>

#include "kiln/kiln.h"

typedef struct vk_context {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkCommandPool pool;
    bool bc_textures; /* textureCompressionBC enabled */
    uint32_t validation_errors;
} vk_context;

typedef struct vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped; /* host-visible buffers only */
} vk_buffer;

typedef struct vk_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
} vk_image;

#define VKC_MAX_EXTENSIONS 16

/* Creates the instance and device; `validation` enables
 * VK_LAYER_KHRONOS_validation (an error when it is not installed). */
bool vkc_create(vk_context *vk, bool validation, kiln_error *err);
/* The same in two steps, for a window: the instance with the `extensions`
 * its surface needs (at most VKC_MAX_EXTENSIONS), then, once the surface is
 * made, a device whose queue presents to it, with VK_KHR_swapchain. */
bool vkc_create_instance(vk_context *vk, bool validation, const char *const *extensions,
                         uint32_t extension_count, kiln_error *err);
bool vkc_create_device(vk_context *vk, VkSurfaceKHR surface, kiln_error *err);
void vkc_destroy(vk_context *vk);

/* A buffer in host-visible, coherent memory, mapped (staging, uniforms,
 * read-back). */
bool vkc_host_buffer(vk_context *vk, VkDeviceSize size, VkBufferUsageFlags usage, vk_buffer *out,
                     kiln_error *err);
/* A device-local buffer holding a copy of `data` (through a staging buffer). */
bool vkc_device_buffer(vk_context *vk, const void *data, VkDeviceSize size,
                       VkBufferUsageFlags usage, vk_buffer *out, kiln_error *err);
void vkc_buffer_destroy(vk_context *vk, vk_buffer *buffer);

/* A 2D device-local image with `levels` mips and a view of them all. */
bool vkc_image(vk_context *vk, VkFormat format, uint32_t width, uint32_t height, uint32_t levels,
               VkImageUsageFlags usage, VkImageAspectFlags aspect, vk_image *out, kiln_error *err);

/* A sampled texture's shape: a 2D image of `layers` array layers (a cubemap
 * array's faces counted: 6 per cube, cube-compatible), or a 3D image of
 * `depth` slices. */
typedef struct vkc_shape {
    uint32_t width, height, depth, layers, levels;
    bool cube;
} vkc_shape;

/* A device-local image of that shape with a view of its every level:
 * 2D of layer 0 (what a material's 2D sampler reads), or 3D. */
bool vkc_image_shaped(vk_context *vk, VkFormat format, const vkc_shape *shape,
                      VkImageUsageFlags usage, vk_image *out, kiln_error *err);
/* Another view of `image`: `type` over `count` layers from `first`, every
 * level, with `swizzle` (NULL: as stored). */
bool vkc_image_view(vk_context *vk, VkImage image, VkFormat format, VkImageViewType type,
                    uint32_t first, uint32_t count, const VkComponentMapping *swizzle,
                    VkImageView *out, kiln_error *err);
void vkc_image_destroy(vk_context *vk, vk_image *image);

/* A primary command buffer begun for one submission; vkc_submit_wait ends,
 * submits and waits for it, then frees it. */
bool vkc_begin_once(vk_context *vk, VkCommandBuffer *cmd, kiln_error *err);
bool vkc_submit_wait(vk_context *vk, VkCommandBuffer cmd, kiln_error *err);

/* A layout transition of every level of `image`, with the access masks the
 * two layouts imply. */
void vkc_transition(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                    VkImageLayout from, VkImageLayout to);

/* Records the copy of a drawn colour image (level 0, layer 0, in
 * COLOR_ATTACHMENT_OPTIMAL) into a host buffer, readable once submitted. */
void vkc_read_back(VkCommandBuffer cmd, VkImage image, uint32_t width, uint32_t height,
                   VkBuffer buffer);

/* Fills `err` with "what: VkResult name" and returns false. */
bool vkc_fail(kiln_error *err, const char *what, VkResult result);

#endif
