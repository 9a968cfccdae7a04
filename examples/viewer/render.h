/*
 * render.h — kiln-view's frame: the automatic camera framing a draw list's
 * bounds, the draws recorded with the kshader pipeline, and the image read
 * back as 8-bit sRGB RGBA rows (headless: no window, no swapchain).
 *
 * The camera (docs/viewer.md): it looks down -Z (glTF's front view) at the
 * centre of the world-space bounding box, +Y up, with a 45-degree vertical
 * field of view, from the distance at which the box's bounding sphere fits
 * the narrower of the two fields of view.
 */
#ifndef KILN_VIEW_RENDER_H
#define KILN_VIEW_RENDER_H

#include "draw_list.h"
#include "gpu_assets.h"
#include "orbit.h"
#include "pipeline.h"

/* The automatic camera for `list` and an image of width x height: the
 * orbit camera reset to face the scene (orbit.h). */
void camera_frame(const draw_list *list, uint32_t width, uint32_t height, camera *out);

/* A shader program and the pipelines made from it (the renderer finds its
 * descriptors by name in the reflection). */
typedef struct render_program {
    pipeline *pipe;
    const kiln_shader_view *shader;
} render_program;

/* Renders `list` seen by `cam` into width x height RGBA8 sRGB pixels (rows
 * top to bottom, `pixels` holds 4 * width * height bytes), over a
 * transparent background, with programs[0] and, for skinned draws,
 * programs[1]. */
bool render_frame(vk_context *vk, const render_program programs[2], const draw_list *list,
                  const camera *cam, uint32_t width, uint32_t height, uint8_t *pixels,
                  kiln_error *err);

#endif
