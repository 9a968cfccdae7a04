/*
 * png_out.c — PNG output through libspng (png_out.h).
 */
#include "png_out.h"

#include <errno.h>
#include <spng.h>
#include <stdio.h>
#include <string.h>

bool png_write_rgba(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
                    kiln_error *err) {
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        err->code = KILN_ERR_IO;
        snprintf(err->message, sizeof err->message, "%s: %s", path, strerror(errno));
        return false;
    }
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    int r = ctx != NULL ? spng_set_png_file(ctx, file) : SPNG_EMEM;
    struct spng_ihdr ihdr = {.width = width,
                             .height = height,
                             .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA};
    if (r == 0)
        r = spng_set_ihdr(ctx, &ihdr);
    if (r == 0)
        r = spng_encode_image(ctx, pixels, 4 * (size_t)width * height, SPNG_FMT_PNG,
                              SPNG_ENCODE_FINALIZE);
    spng_ctx_free(ctx);
    bool closed = fclose(file) == 0;
    if (r != 0 || !closed) {
        remove(path);
        err->code = KILN_ERR_IO;
        snprintf(err->message, sizeof err->message, "%s: %s", path,
                 r != 0 ? spng_strerror(r) : "could not be written");
        return false;
    }
    return true;
}
