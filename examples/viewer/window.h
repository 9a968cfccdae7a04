/*
 * window.h — kiln-view's window (GLFW): a Vulkan surface and swapchain
 * that show each frame kiln-view renders (the offscreen RGBA8 sRGB image,
 * copied into the acquired swapchain image over a grey background), the
 * mouse and keys since the last poll, and a read-back of the presented
 * image (--screenshot). Built only where GLFW is (KILN_VIEW_WINDOW).
 */
#ifndef KILN_VIEW_WINDOW_H
#define KILN_VIEW_WINDOW_H

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

#include "vk_context.h"

#define WINDOW_MAX_IMAGES 8

/* What the user did since the last window_poll. */
typedef struct window_input {
    float drag_x, drag_y; /* pixels dragged with the left button held (y down) */
    float wheel;          /* wheel steps, positive away from the user (zoom in) */
    bool frame, reset, play_pause, next_clip, previous_clip, quit;
    bool toggle_bounds; /* B: the meshlets' bounding spheres */
    bool toggle_clips;  /* C: the clip list */
    bool resized;
} window_input;

typedef struct window {
    GLFWwindow *handle;
    bool glfw_ready;
    vk_context *vk;
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    VkFormat format; /* B8G8R8A8 or R8G8B8A8, sRGB or UNORM: the bytes are copied as they are */
    VkExtent2D extent;
    VkImage images[WINDOW_MAX_IMAGES];
    uint32_t image_count;
    VkSemaphore acquired, presentable[WINDOW_MAX_IMAGES];
    vk_buffer staging, readback;
    window_input input;        /* filled by GLFW's callbacks */
    double cursor_x, cursor_y; /* the last motion event's */
    bool cursor_known, dragging;
} window;

/* Opens a width x height window titled `title` and creates the Vulkan
 * instance and device `vk` to present to it (validation as vkc_create).
 * Fails with a message when there is no display or no Vulkan for it. */
bool window_create(window *w, vk_context *vk, bool validation, uint32_t width, uint32_t height,
                   const char *title, kiln_error *err);
/* Destroys the swapchain, surface and window (before vkc_destroy). */
void window_destroy(window *w);

/* Handles the window's events (waiting up to `wait_seconds` for one when
 * positive) and moves what they did into `input`. */
void window_poll(window *w, double wait_seconds, window_input *input);

void window_set_title(window *w, const char *title);

/* Shows extent.width x extent.height RGBA8 sRGB pixels (render them at
 * w->extent); with `screenshot`, also reads the swapchain image back into
 * it as RGBA8 rows (what was presented). A swapchain out of date (resized)
 * is made again and the frame skipped (*shown false). */
bool window_present(window *w, const uint8_t *pixels, uint8_t *screenshot, bool *shown,
                    kiln_error *err);

#endif
