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
#include "morph_cache.h"
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
 * programs[1]; levels of detail chosen by screen size (lod.h). */
bool render_frame(vk_context *vk, const render_program programs[2], const draw_list *list,
                  const camera *cam, uint32_t width, uint32_t height, uint8_t *pixels,
                  kiln_error *err);

/* What a frame may do beyond render_frame's defaults. */
typedef struct render_options {
    int lod; /* LOD_AUTO (-1) by screen size, else the level forced for every submesh */
    /* Non-NULL: draw meshlet by meshlet (level 0) with these plain and
     * skinned programs (the shaders with MESHLETS=1, which tint by meshlet). */
    const render_program *meshlet_programs;
    /* Non-NULL: the Morphs buffer kept across frames, written only when the
     * deltas or weights change; NULL: a buffer of the frame's own. */
    morph_cache *morphs;
} render_options;

/* What a frame drew. */
typedef struct render_stats {
    uint32_t draws;                         /* submesh draws */
    uint64_t triangles;                     /* triangles submitted */
    uint32_t lod_draws[KILN_MESH_MAX_LODS]; /* draws per level of detail */
    uint32_t meshlets;                      /* meshlets drawn (--meshlets) */
} render_stats;

/* render_frame with `options` (NULL: the defaults); fills `stats` when not NULL. */
bool render_frame_with(vk_context *vk, const render_program programs[2], const draw_list *list,
                       const camera *cam, uint32_t width, uint32_t height,
                       const render_options *options, uint8_t *pixels, render_stats *stats,
                       kiln_error *err);

#endif
