/*
 * window.c — the GLFW window and its swapchain (window.h).
 */
#include "window.h"

#include <stdio.h>
#include <string.h>

/* What no surface covers (sRGB bytes). */
static const uint8_t BACKGROUND[3] = {48, 50, 56};

static bool fail(kiln_error *err, const char *message) {
    err->code = KILN_ERR_UNSUPPORTED;
    snprintf(err->message, sizeof err->message, "%s", message);
    return false;
}

/* GLFW's last error, for the message of a window that cannot be made
 * (GLFW reports errors through a callback only). */
static char glfw_problem[256];

static void on_glfw_error(int code, const char *description) {
    (void)code;
    snprintf(glfw_problem, sizeof glfw_problem, "%s", description);
}

/* `what`, then GLFW's reason when it gave one. */
static bool fail_glfw(kiln_error *err, const char *what) {
    err->code = KILN_ERR_UNSUPPORTED;
    snprintf(err->message, sizeof err->message, "%s%s%.150s", what, glfw_problem[0] ? ": " : "",
             glfw_problem);
    return false;
}

static window *of(GLFWwindow *handle) {
    return glfwGetWindowUserPointer(handle);
}

static void on_key(GLFWwindow *handle, int key, int scancode, int action, int mods) {
    (void)scancode;
    (void)mods;
    if (action != GLFW_PRESS && action != GLFW_REPEAT)
        return;
    window_input *in = &of(handle)->input;
    switch (key) {
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q:
        in->quit = true;
        break;
    case GLFW_KEY_F:
        in->frame = true;
        break;
    case GLFW_KEY_R:
        in->reset = true;
        break;
    case GLFW_KEY_SPACE:
        in->play_pause = true;
        break;
    case GLFW_KEY_RIGHT:
    case GLFW_KEY_N:
        in->next_clip = true;
        break;
    case GLFW_KEY_LEFT:
    case GLFW_KEY_P:
        in->previous_clip = true;
        break;
    case GLFW_KEY_B:
        in->toggle_bounds = true;
        break;
    case GLFW_KEY_C:
        in->toggle_clips = true;
        break;
    default:
        break;
    }
}

static void on_button(GLFWwindow *handle, int button, int action, int mods) {
    (void)mods;
    window *w = of(handle);
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        w->dragging = action == GLFW_PRESS;
        /* The position of the last motion event, in event order: asking the
         * server now would give where the pointer is after events still
         * queued, and lose the part of a drag they hold. */
        if (!w->cursor_known)
            glfwGetCursorPos(handle, &w->cursor_x, &w->cursor_y);
        w->cursor_known = true;
    }
}

static void on_cursor(GLFWwindow *handle, double x, double y) {
    window *w = of(handle);
    if (w->dragging) {
        w->input.drag_x += (float)(x - w->cursor_x);
        w->input.drag_y += (float)(y - w->cursor_y);
    }
    w->cursor_x = x;
    w->cursor_y = y;
    w->cursor_known = true;
}

static void on_scroll(GLFWwindow *handle, double x, double y) {
    (void)x;
    of(handle)->input.wheel += (float)y;
}

static void on_resize(GLFWwindow *handle, int width, int height) {
    (void)width;
    (void)height;
    of(handle)->input.resized = true;
}

static void destroy_swapchain(window *w) {
    vk_context *vk = w->vk;
    vkDeviceWaitIdle(vk->device);
    for (uint32_t i = 0; i < WINDOW_MAX_IMAGES; i++)
        if (w->presentable[i] != VK_NULL_HANDLE)
            vkDestroySemaphore(vk->device, w->presentable[i], NULL);
    memset(w->presentable, 0, sizeof w->presentable);
    vkc_buffer_destroy(vk, &w->staging);
    vkc_buffer_destroy(vk, &w->readback);
    if (w->swapchain != VK_NULL_HANDLE)
        vkDestroySwapchainKHR(vk->device, w->swapchain, NULL);
    w->swapchain = VK_NULL_HANDLE;
    w->image_count = 0;
}

/* An 8-bit RGBA or BGRA format the surface offers (sRGB preferred: the
 * bytes copied in are sRGB-encoded either way). */
static bool choose_format(window *w, VkSurfaceFormatKHR *out, kiln_error *err) {
    VkSurfaceFormatKHR formats[64];
    uint32_t count = 64;
    VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(w->vk->physical, w->surface, &count, formats);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return vkc_fail(err, "vkGetPhysicalDeviceSurfaceFormatsKHR", r);
    static const VkFormat wanted[] = {VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R8G8B8A8_SRGB,
                                      VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM};
    for (size_t k = 0; k < sizeof wanted / sizeof wanted[0]; k++)
        for (uint32_t i = 0; i < count; i++)
            if (formats[i].format == wanted[k]) {
                *out = formats[i];
                return true;
            }
    return fail(err, "the window's surface offers no 8-bit RGBA or BGRA format");
}

static bool create_swapchain(window *w, kiln_error *err) {
    vk_context *vk = w->vk;
    VkSurfaceCapabilitiesKHR caps;
    VkResult r = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(vk->physical, w->surface, &caps);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR", r);
    VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    if ((caps.supportedUsageFlags & usage) != usage)
        return fail(err, "the window's swapchain images cannot be copied to and from");
    VkSurfaceFormatKHR format = {0};
    if (!choose_format(w, &format, err))
        return false;
    int width, height;
    glfwGetFramebufferSize(w->handle, &width, &height);
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) {
        extent.width = (uint32_t)width;
        extent.height = (uint32_t)height;
    }
    if (extent.width == 0 || extent.height == 0)
        return fail(err, "the window has no area");
    uint32_t images = caps.minImageCount + 1;
    if (caps.maxImageCount > 0 && images > caps.maxImageCount)
        images = caps.maxImageCount;
    VkSwapchainCreateInfoKHR info = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
                                     .surface = w->surface,
                                     .minImageCount = images,
                                     .imageFormat = format.format,
                                     .imageColorSpace = format.colorSpace,
                                     .imageExtent = extent,
                                     .imageArrayLayers = 1,
                                     .imageUsage = usage,
                                     .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
                                     .preTransform = caps.currentTransform,
                                     .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
                                     .presentMode = VK_PRESENT_MODE_FIFO_KHR,
                                     .clipped = VK_TRUE};
    r = vkCreateSwapchainKHR(vk->device, &info, NULL, &w->swapchain);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateSwapchainKHR", r);
    w->format = format.format;
    w->extent = extent;
    w->image_count = WINDOW_MAX_IMAGES;
    r = vkGetSwapchainImagesKHR(vk->device, w->swapchain, &w->image_count, w->images);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return vkc_fail(err, "vkGetSwapchainImagesKHR", r);
    VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < w->image_count; i++) {
        r = vkCreateSemaphore(vk->device, &semaphore, NULL, &w->presentable[i]);
        if (r != VK_SUCCESS)
            return vkc_fail(err, "vkCreateSemaphore", r);
    }
    VkDeviceSize bytes = 4 * (VkDeviceSize)extent.width * extent.height;
    return vkc_host_buffer(vk, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &w->staging, err) &&
           vkc_host_buffer(vk, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &w->readback, err);
}

bool window_create(window *w, vk_context *vk, bool validation, uint32_t width, uint32_t height,
                   const char *title, kiln_error *err) {
    memset(w, 0, sizeof *w);
    w->vk = vk;
    glfw_problem[0] = '\0';
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit())
        return fail_glfw(err, "cannot open a window: no display (set DISPLAY, or use --headless)");
    w->glfw_ready = true;
    if (!glfwVulkanSupported())
        return fail_glfw(err, "cannot open a window: GLFW finds no Vulkan loader or surface "
                              "support");
    uint32_t count = 0;
    const char **extensions = glfwGetRequiredInstanceExtensions(&count);
    if (!vkc_create_instance(vk, validation, extensions, count, err))
        return false;
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    w->handle = glfwCreateWindow((int)width, (int)height, title, NULL, NULL);
    if (w->handle == NULL)
        return fail_glfw(err, "cannot open a window");
    glfwSetWindowUserPointer(w->handle, w);
    glfwSetKeyCallback(w->handle, on_key);
    glfwSetMouseButtonCallback(w->handle, on_button);
    glfwSetCursorPosCallback(w->handle, on_cursor);
    glfwSetScrollCallback(w->handle, on_scroll);
    glfwSetFramebufferSizeCallback(w->handle, on_resize);
    VkResult r = glfwCreateWindowSurface(vk->instance, w->handle, NULL, &w->surface);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "glfwCreateWindowSurface", r);
    VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    if (!vkc_create_device(vk, w->surface, err))
        return false;
    r = vkCreateSemaphore(vk->device, &semaphore, NULL, &w->acquired);
    if (r != VK_SUCCESS)
        return vkc_fail(err, "vkCreateSemaphore", r);
    return create_swapchain(w, err);
}

void window_destroy(window *w) {
    if (w->vk != NULL && w->vk->device != VK_NULL_HANDLE) {
        destroy_swapchain(w);
        if (w->acquired != VK_NULL_HANDLE)
            vkDestroySemaphore(w->vk->device, w->acquired, NULL);
    }
    if (w->surface != VK_NULL_HANDLE)
        vkDestroySurfaceKHR(w->vk->instance, w->surface, NULL);
    if (w->handle != NULL)
        glfwDestroyWindow(w->handle);
    if (w->glfw_ready)
        glfwTerminate();
    memset(w, 0, sizeof *w);
}

void window_poll(window *w, double wait_seconds, window_input *input) {
    if (wait_seconds > 0.0)
        glfwWaitEventsTimeout(wait_seconds);
    else
        glfwPollEvents();
    *input = w->input;
    input->quit = input->quit || glfwWindowShouldClose(w->handle);
    memset(&w->input, 0, sizeof w->input);
}

void window_set_title(window *w, const char *title) {
    glfwSetWindowTitle(w->handle, title);
}

static bool bgra(VkFormat format) {
    return format == VK_FORMAT_B8G8R8A8_SRGB || format == VK_FORMAT_B8G8R8A8_UNORM;
}

/* The frame over the background, in the swapchain's byte order. */
static void compose(const window *w, const uint8_t *pixels, uint8_t *out) {
    size_t count = (size_t)w->extent.width * w->extent.height;
    int red = bgra(w->format) ? 2 : 0;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *p = pixels + 4 * i;
        uint8_t *o = out + 4 * i;
        for (int c = 0; c < 3; c++) {
            int mixed = (p[c] * p[3] + BACKGROUND[c] * (255 - p[3]) + 127) / 255;
            o[c == 1 ? 1 : (c == 0 ? red : 2 - red)] = (uint8_t)mixed;
        }
        o[3] = 255;
    }
}

/* The read-back swapchain bytes as RGBA. */
static void unswizzle(const window *w, const uint8_t *bytes, uint8_t *rgba) {
    size_t count = (size_t)w->extent.width * w->extent.height;
    int red = bgra(w->format) ? 2 : 0;
    for (size_t i = 0; i < count; i++) {
        rgba[4 * i + 0] = bytes[4 * i + red];
        rgba[4 * i + 1] = bytes[4 * i + 1];
        rgba[4 * i + 2] = bytes[4 * i + 2 - red];
        rgba[4 * i + 3] = bytes[4 * i + 3];
    }
}

static bool recreate(window *w, kiln_error *err) {
    destroy_swapchain(w);
    return create_swapchain(w, err);
}

/* Copies the staging buffer into image `index` (and back out into the
 * read-back buffer), leaving it ready to present. */
static bool record_and_submit(window *w, uint32_t index, bool read_back, kiln_error *err) {
    vk_context *vk = w->vk;
    VkCommandBuffer cmd;
    if (!vkc_begin_once(vk, &cmd, err))
        return false;
    VkImage image = w->images[index];
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {w->extent.width, w->extent.height, 1}};
    vkc_transition(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdCopyBufferToImage(cmd, w->staging.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                           &region);
    VkImageLayout layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    if (read_back) {
        vkc_transition(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, layout,
                       VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        vkCmdCopyImageToBuffer(cmd, image, layout, w->readback.buffer, 1, &region);
        VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                             &host, 0, NULL, 0, NULL);
    }
    vkc_transition(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, layout, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    vkEndCommandBuffer(cmd);
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &w->acquired,
                           .pWaitDstStageMask = &stage,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cmd,
                           .signalSemaphoreCount = 1,
                           .pSignalSemaphores = &w->presentable[index]};
    VkResult r = vkQueueSubmit(vk->queue, 1, &submit, VK_NULL_HANDLE);
    if (r == VK_SUCCESS)
        r = vkQueueWaitIdle(vk->queue); /* the staging buffer is reused next frame */
    vkFreeCommandBuffers(vk->device, vk->pool, 1, &cmd);
    return r == VK_SUCCESS ? true : vkc_fail(err, "vkQueueSubmit (window)", r);
}

bool window_present(window *w, const uint8_t *pixels, uint8_t *screenshot, bool *shown,
                    kiln_error *err) {
    *shown = false;
    uint32_t index;
    VkResult r = vkAcquireNextImageKHR(w->vk->device, w->swapchain, UINT64_MAX, w->acquired,
                                       VK_NULL_HANDLE, &index);
    if (r == VK_ERROR_OUT_OF_DATE_KHR)
        return recreate(w, err);
    if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
        return vkc_fail(err, "vkAcquireNextImageKHR", r);
    compose(w, pixels, w->staging.mapped);
    if (!record_and_submit(w, index, screenshot != NULL, err))
        return false;
    if (screenshot != NULL)
        unswizzle(w, w->readback.mapped, screenshot);
    VkPresentInfoKHR present = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                                .waitSemaphoreCount = 1,
                                .pWaitSemaphores = &w->presentable[index],
                                .swapchainCount = 1,
                                .pSwapchains = &w->swapchain,
                                .pImageIndices = &index};
    r = vkQueuePresentKHR(w->vk->queue, &present);
    *shown = true;
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR)
        return recreate(w, err);
    return r == VK_SUCCESS ? true : vkc_fail(err, "vkQueuePresentKHR", r);
}
