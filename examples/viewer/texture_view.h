/*
 * texture_view.h — kiln-view showing a texture ref (docs/viewer.md, "Looking
 * at a texture"): the texture as the GPU samples it, drawn by the program
 * kiln-view/texture. A 2D texture, or one layer of an array, fills the image
 * as large as fits with its aspect kept; a cubemap (one cube of a cubemap
 * array) is seen from its centre along the camera's view rays
 * (kiln-view/texture?CUBE=1); a 3D texture shows one slice
 * (kiln-view/texture?VOLUME=1). Single-channel textures show grey.
 */
#ifndef KILN_VIEW_TEXTURE_VIEW_H
#define KILN_VIEW_TEXTURE_VIEW_H

#include "render.h"

typedef enum texture_program {
    TEXTURE_PROGRAM_2D,
    TEXTURE_PROGRAM_CUBE,
    TEXTURE_PROGRAM_VOLUME,
    TEXTURE_PROGRAM_COUNT_
} texture_program;

/* The program refs, by texture_program. */
extern const char *const texture_program_refs[TEXTURE_PROGRAM_COUNT_];

/* The program a texture is drawn with. */
texture_program texture_program_of(const kiln_ktx2_view *texture);

/* Where a texture_width x texture_height texture lies in a width x height
 * image, in clip space (x0, y0, x1, y1; y down): as large as fits, centred. */
void texture_rect(uint32_t texture_width, uint32_t texture_height, uint32_t width, uint32_t height,
                  float rect[4]);

/* Draws `texture` (its `layer`: the array layer, the cube of a cubemap
 * array, or the 3D texture's slice) seen by `cam` into width x height RGBA8
 * sRGB pixels over a transparent background; false with `err` naming the
 * texture when it has no such layer or is not on the GPU. */
bool texture_render(vk_context *vk, const render_program *program, const kiln_asset *texture,
                    uint32_t layer, const camera *cam, uint32_t width, uint32_t height,
                    uint8_t *pixels, kiln_error *err);

#endif
