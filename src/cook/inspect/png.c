/*
 * png.c — RGBA8 images as PNG bytes (inspect.h), through libspng: what
 * `kiln extract` writes and the build report embeds as thumbnails.
 */
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>

#include "cook/inspect/inspect.h"

bool inspect_png_encode(const inspect_rgba8_image *image, uint8_t **png, size_t *png_size,
                        char *reason, size_t reason_size) {
    *png = NULL;
    *png_size = 0;
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    if (ctx == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    struct spng_ihdr ihdr = {.width = image->width,
                             .height = image->height,
                             .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA};
    int rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    if (rc == 0)
        rc = spng_set_ihdr(ctx, &ihdr);
    if (rc == 0)
        rc = spng_encode_image(ctx, image->rgba, (size_t)image->width * image->height * 4,
                               SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    void *buffer = NULL;
    if (rc == 0)
        buffer = spng_get_png_buffer(ctx, png_size, &rc);
    spng_ctx_free(ctx);
    if (rc != 0 || buffer == NULL) {
        free(buffer);
        *png_size = 0;
        snprintf(reason, reason_size, "PNG: %s", rc ? spng_strerror(rc) : "no output");
        return false;
    }
    *png = buffer;
    return true;
}
