/*
 * vk_context.c — the Vulkan device and the helpers uploads share
 * (vk_context.h).
 */
#include "vk_context.h"

#include <stdio.h>
#include <string.h>

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

static const char *result_name(VkResult result) {
    switch (result) {
    case VK_SUCCESS:
        return "VK_SUCCESS";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
        return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
        return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
        return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
        return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_LAYER_NOT_PRESENT:
        return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
        return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
        return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
        return "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver)";
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
        return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    default:
        return "a Vulkan error";
    }
}

bool vkc_fail(kiln_error *err, const char *what, VkResult result) {
    err->code = KILN_ERR_UNSUPPORTED;
    snprintf(err->message, sizeof err->message, "%s: %s (%d)", what, result_name(result),
             (int)result);
    return false;
}

/* Validation messages: errors are printed and counted (a test fails on any),
 * warnings printed. */
static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user) {
    vk_context *vk = user;
    (void)types;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        vk->validation_errors++;
        fprintf(stderr, "kiln-view: validation error: %s\n", data->pMessage);
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        fprintf(stderr, "kiln-view: validation warning: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static bool layer_present(const char *name) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, NULL);
    VkLayerProperties layers[64];
    if (count > 64)
        count = 64;
    vkEnumerateInstanceLayerProperties(&count, layers);
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(layers[i].layerName, name) == 0)
            return true;
    return false;
}

bool vkc_create_instance(vk_context *vk, bool validation, const char *const *extensions,
                         uint32_t extension_count, kiln_error *err) {
    memset(vk, 0, sizeof *vk);
    if (validation && !layer_present(VALIDATION_LAYER)) {
        err->code = KILN_ERR_UNSUPPORTED;
        snprintf(err->message, sizeof err->message,
                 "--validate: the layer %s is not installed (Debian: vulkan-validationlayers)",
                 VALIDATION_LAYER);
        return false;
    }
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "kiln-view",
                             .apiVersion = VK_API_VERSION_1_3};
    VkDebugUtilsMessengerCreateInfoEXT messenger = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
        .pUserData = vk};
    const char *layers[] = {VALIDATION_LAYER};
    const char *enabled[VKC_MAX_EXTENSIONS + 1];
    if (extension_count > VKC_MAX_EXTENSIONS)
        return vkc_fail(err, "too many instance extensions", VK_ERROR_EXTENSION_NOT_PRESENT);
    for (uint32_t i = 0; i < extension_count; i++)
        enabled[i] = extensions[i];
    if (validation)
        enabled[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pNext = validation ? &messenger : NULL,
                                 .pApplicationInfo = &app,
                                 .enabledLayerCount = validation ? 1 : 0,
                                 .ppEnabledLayerNames = layers,
                                 .enabledExtensionCount = extension_count,
                                 .ppEnabledExtensionNames = enabled};
    VkResult r = vkCreateInstance(&info, NULL, &vk->instance);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateInstance", r);
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                vk->instance, "vkCreateDebugUtilsMessengerEXT");
        if (create == NULL || create(vk->instance, &messenger, NULL, &vk->messenger) != VK_SUCCESS)
            return vkc_fail(err, "vkCreateDebugUtilsMessengerEXT", VK_ERROR_EXTENSION_NOT_PRESENT);
    }
    return true;
}

/* The first device with Vulkan 1.3 and a graphics queue (that can present
 * to `surface`, when given). */
static bool pick_device(vk_context *vk, VkSurfaceKHR surface, kiln_error *err) {
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(vk->instance, &count, NULL);
    VkPhysicalDevice devices[16];
    if (count > 16)
        count = 16;
    vkEnumeratePhysicalDevices(vk->instance, &count, devices);
    for (uint32_t d = 0; d < count; d++) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(devices[d], &properties);
        if (properties.apiVersion < VK_API_VERSION_1_3)
            continue;
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &families, NULL);
        VkQueueFamilyProperties family[16];
        if (families > 16)
            families = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &families, family);
        for (uint32_t f = 0; f < families; f++) {
            VkBool32 presents = VK_TRUE;
            if (surface != VK_NULL_HANDLE && vkGetPhysicalDeviceSurfaceSupportKHR(
                                                 devices[d], f, surface, &presents) != VK_SUCCESS)
                presents = VK_FALSE;
            if ((family[f].queueFlags & VK_QUEUE_GRAPHICS_BIT) && presents) {
                vk->physical = devices[d];
                vk->properties = properties;
                vk->queue_family = f;
                vkGetPhysicalDeviceMemoryProperties(devices[d], &vk->memory);
                return true;
            }
        }
    }
    err->code = KILN_ERR_UNSUPPORTED;
    snprintf(err->message, sizeof err->message,
             "no Vulkan 1.3 device with a graphics queue%s (%u devices; install "
             "mesa-vulkan-drivers for lavapipe)",
             surface != VK_NULL_HANDLE ? " presenting to the window" : "", count);
    return false;
}

bool vkc_create(vk_context *vk, bool validation, kiln_error *err) {
    return vkc_create_instance(vk, validation, NULL, 0, err) &&
           vkc_create_device(vk, VK_NULL_HANDLE, err);
}

bool vkc_create_device(vk_context *vk, VkSurfaceKHR surface, kiln_error *err) {
    if (!pick_device(vk, surface, err))
        return false;
    VkPhysicalDeviceFeatures supported;
    vkGetPhysicalDeviceFeatures(vk->physical, &supported);
    vk->bc_textures = supported.textureCompressionBC == VK_TRUE;
    VkPhysicalDeviceVulkan13Features features13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .dynamicRendering = VK_TRUE};
    VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                          .pNext = &features13};
    features.features.textureCompressionBC = supported.textureCompressionBC;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueFamilyIndex = vk->queue_family,
                                     .queueCount = 1,
                                     .pQueuePriorities = &priority};
    const char *swapchain = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                               .pNext = &features,
                               .queueCreateInfoCount = 1,
                               .pQueueCreateInfos = &queue,
                               .enabledExtensionCount = surface != VK_NULL_HANDLE ? 1 : 0,
                               .ppEnabledExtensionNames = &swapchain};
    VkResult r = vkCreateDevice(vk->physical, &info, NULL, &vk->device);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateDevice", r);
    vkGetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                    .queueFamilyIndex = vk->queue_family};
    r = vkCreateCommandPool(vk->device, &pool, NULL, &vk->pool);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateCommandPool", r);
    return true;
}

void vkc_destroy(vk_context *vk) {
    if (vk->device != VK_NULL_HANDLE) {
        vkDeviceWaitIdle(vk->device);
        vkDestroyCommandPool(vk->device, vk->pool, NULL);
        vkDestroyDevice(vk->device, NULL);
    }
    if (vk->messenger != VK_NULL_HANDLE) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                vk->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy != NULL)
            destroy(vk->instance, vk->messenger, NULL);
    }
    if (vk->instance != VK_NULL_HANDLE)
        vkDestroyInstance(vk->instance, NULL);
    vk->device = VK_NULL_HANDLE;
    vk->instance = VK_NULL_HANDLE;
}

static bool allocate(vk_context *vk, VkMemoryRequirements needs, VkMemoryPropertyFlags wanted,
                     VkDeviceMemory *memory, kiln_error *err) {
    for (uint32_t i = 0; i < vk->memory.memoryTypeCount; i++) {
        if ((needs.memoryTypeBits & (1u << i)) &&
            (vk->memory.memoryTypes[i].propertyFlags & wanted) == wanted) {
            VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                         .allocationSize = needs.size,
                                         .memoryTypeIndex = i};
            VkResult r = vkAllocateMemory(vk->device, &info, NULL, memory);
            return r == VK_SUCCESS ? true : vkc_fail(err, "vkAllocateMemory", r);
        }
    }
    return vkc_fail(err, "no suitable memory type", VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

static bool make_buffer(vk_context *vk, VkDeviceSize size, VkBufferUsageFlags usage,
                        VkMemoryPropertyFlags wanted, vk_buffer *out, kiln_error *err) {
    memset(out, 0, sizeof *out);
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                               .size = size > 0 ? size : 4,
                               .usage = usage,
                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(vk->device, &info, NULL, &out->buffer);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateBuffer", r);
    VkMemoryRequirements needs;
    vkGetBufferMemoryRequirements(vk->device, out->buffer, &needs);
    if (!allocate(vk, needs, wanted, &out->memory, err)) {
        vkc_buffer_destroy(vk, out);
        return false;
    }
    vkBindBufferMemory(vk->device, out->buffer, out->memory, 0);
    out->size = size;
    return true;
}

bool vkc_host_buffer(vk_context *vk, VkDeviceSize size, VkBufferUsageFlags usage, vk_buffer *out,
                     kiln_error *err) {
    if (!make_buffer(vk, size, usage,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     out, err))
        return false;
    VkResult r = vkMapMemory(vk->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    if (r != VK_SUCCESS) {
        vkc_buffer_destroy(vk, out);
        return vkc_fail(err, "vkMapMemory", r);
    }
    return true;
}

bool vkc_device_buffer(vk_context *vk, const void *data, VkDeviceSize size,
                       VkBufferUsageFlags usage, vk_buffer *out, kiln_error *err) {
    vk_buffer staging;
    if (!vkc_host_buffer(vk, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging, err))
        return false;
    memcpy(staging.mapped, data, (size_t)size);
    VkCommandBuffer cmd;
    bool ok = make_buffer(vk, size, usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, out, err) &&
              vkc_begin_once(vk, &cmd, err);
    if (ok) {
        VkBufferCopy region = {.size = size > 0 ? size : 4};
        vkCmdCopyBuffer(cmd, staging.buffer, out->buffer, 1, &region);
        ok = vkc_submit_wait(vk, cmd, err);
    }
    vkc_buffer_destroy(vk, &staging);
    if (!ok)
        vkc_buffer_destroy(vk, out);
    return ok;
}

void vkc_buffer_destroy(vk_context *vk, vk_buffer *buffer) {
    if (buffer->buffer != VK_NULL_HANDLE)
        vkDestroyBuffer(vk->device, buffer->buffer, NULL);
    if (buffer->memory != VK_NULL_HANDLE)
        vkFreeMemory(vk->device, buffer->memory, NULL);
    memset(buffer, 0, sizeof *buffer);
}

static bool image_of(vk_context *vk, VkFormat format, const vkc_shape *shape,
                     VkImageUsageFlags usage, VkImageAspectFlags aspect, vk_image *out,
                     kiln_error *err) {
    memset(out, 0, sizeof *out);
    bool volume = shape->depth > 1;
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                              .flags = shape->cube ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0,
                              .imageType = volume ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D,
                              .format = format,
                              .extent = {shape->width, shape->height, volume ? shape->depth : 1},
                              .mipLevels = shape->levels,
                              .arrayLayers = volume ? 1 : shape->layers,
                              .samples = VK_SAMPLE_COUNT_1_BIT,
                              .tiling = VK_IMAGE_TILING_OPTIMAL,
                              .usage = usage,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
                              .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    VkResult r = vkCreateImage(vk->device, &info, NULL, &out->image);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateImage", r);
    VkMemoryRequirements needs;
    vkGetImageMemoryRequirements(vk->device, out->image, &needs);
    if (!allocate(vk, needs, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &out->memory, err)) {
        vkc_image_destroy(vk, out);
        return false;
    }
    vkBindImageMemory(vk->device, out->image, out->memory, 0);
    VkImageViewCreateInfo view = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                  .image = out->image,
                                  .viewType =
                                      volume ? VK_IMAGE_VIEW_TYPE_3D : VK_IMAGE_VIEW_TYPE_2D,
                                  .format = format,
                                  .subresourceRange = {aspect, 0, shape->levels, 0, 1}};
    r = vkCreateImageView(vk->device, &view, NULL, &out->view);
    if (r != VK_SUCCESS) {
        vkc_image_destroy(vk, out);
        return vkc_fail(err, "vkCreateImageView", r);
    }
    return true;
}

bool vkc_image(vk_context *vk, VkFormat format, uint32_t width, uint32_t height, uint32_t levels,
               VkImageUsageFlags usage, VkImageAspectFlags aspect, vk_image *out, kiln_error *err) {
    const vkc_shape shape = {width, height, 1, 1, levels, false};
    return image_of(vk, format, &shape, usage, aspect, out, err);
}

bool vkc_image_shaped(vk_context *vk, VkFormat format, const vkc_shape *shape,
                      VkImageUsageFlags usage, vk_image *out, kiln_error *err) {
    return image_of(vk, format, shape, usage, VK_IMAGE_ASPECT_COLOR_BIT, out, err);
}

bool vkc_image_view(vk_context *vk, VkImage image, VkFormat format, VkImageViewType type,
                    uint32_t first, uint32_t count, const VkComponentMapping *swizzle,
                    VkImageView *out, kiln_error *err) {
    VkImageViewCreateInfo view = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = image,
        .viewType = type,
        .format = format,
        .components = swizzle != NULL ? *swizzle : (VkComponentMapping){0},
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, first, count}};
    VkResult r = vkCreateImageView(vk->device, &view, NULL, out);
    return r == VK_SUCCESS ? true : vkc_fail(err, "vkCreateImageView", r);
}

void vkc_image_destroy(vk_context *vk, vk_image *image) {
    if (image->view != VK_NULL_HANDLE)
        vkDestroyImageView(vk->device, image->view, NULL);
    if (image->image != VK_NULL_HANDLE)
        vkDestroyImage(vk->device, image->image, NULL);
    if (image->memory != VK_NULL_HANDLE)
        vkFreeMemory(vk->device, image->memory, NULL);
    memset(image, 0, sizeof *image);
}

bool vkc_begin_once(vk_context *vk, VkCommandBuffer *cmd, kiln_error *err) {
    VkCommandBufferAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = vk->pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
    VkResult r = vkAllocateCommandBuffers(vk->device, &info, cmd);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkAllocateCommandBuffers", r);
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(*cmd, &begin);
    return true;
}

bool vkc_submit_wait(vk_context *vk, VkCommandBuffer cmd, kiln_error *err) {
    vkEndCommandBuffer(cmd);
    VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    VkResult r = vkQueueSubmit(vk->queue, 1, &submit, VK_NULL_HANDLE);
    if (r == VK_SUCCESS)
        r = vkQueueWaitIdle(vk->queue);
    vkFreeCommandBuffers(vk->device, vk->pool, 1, &cmd);
    return r == VK_SUCCESS ? true : vkc_fail(err, "vkQueueSubmit", r);
}

static VkAccessFlags access_of(VkImageLayout layout) {
    switch (layout) {
    case VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL:
        return VK_ACCESS_TRANSFER_WRITE_BIT;
    case VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL:
        return VK_ACCESS_TRANSFER_READ_BIT;
    case VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL:
        return VK_ACCESS_SHADER_READ_BIT;
    case VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL:
        return VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    case VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL:
        return VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
               VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    default:
        return 0;
    }
}

void vkc_transition(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                    VkImageLayout from, VkImageLayout to) {
    VkImageMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .srcAccessMask = access_of(from),
        .dstAccessMask = access_of(to),
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {aspect, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS}};
    /* One-shot uploads and the single frame: ordering against everything is
     * simple and cheap enough here. */
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &barrier);
}

void vkc_read_back(VkCommandBuffer cmd, VkImage image, uint32_t width, uint32_t height,
                   VkBuffer buffer) {
    vkc_transition(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {width, height, 1}};
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &region);
    VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                            .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &host, 0, NULL, 0, NULL);
}
