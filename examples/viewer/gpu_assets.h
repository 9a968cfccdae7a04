/*
 * gpu_assets.h — the engine side of libkiln's asset manager: its upload
 * callbacks make Vulkan buffers straight from a mesh's cooked vertex and
 * index bytes and Vulkan images from a texture's KTX2 levels, in the format
 * they were cooked to (BCn as it is), every level, layer and face: a
 * cubemap is a cube-compatible image of 6 layers per cube, a 3D texture a 3D
 * image. ASTC the device cannot sample is decoded first (astc_decode.h: LDR
 * to RGBA8, HDR to RGBA16F). Another texture the device cannot sample (BC
 * without BC support) loads without an image: a warning names it and the
 * renderer draws white in its place.
 */
#ifndef KILN_VIEW_GPU_ASSETS_H
#define KILN_VIEW_GPU_ASSETS_H

#include "kiln/manager.h"
#include "vk_context.h"

typedef struct gpu_texture {
    vk_image image;  /* its view: level 0 up, of layer 0 (2D) or of the volume (3D) */
    VkFormat format; /* what the image holds (a decoded ASTC texture: RGBA8 or RGBA16F) */
    vkc_shape shape; /* layers counts faces: 6 per cube */
} gpu_texture;

/* The callbacks' user data: the device. */
typedef struct gpu_assets {
    vk_context *vk;
} gpu_assets;

/* Callbacks for kiln_manager_desc.engine, with `assets` as their user. */
kiln_engine_callbacks gpu_assets_callbacks(gpu_assets *assets);

/* A sampled image from RGBA8 texels (the white stand-in). */
bool gpu_texture_rgba8(vk_context *vk, const uint8_t rgba[4], gpu_texture *out, kiln_error *err);
void gpu_texture_destroy(vk_context *vk, gpu_texture *texture);

#endif
