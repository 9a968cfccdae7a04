/*
 * lut.c — the LUT driver: an Adobe/Resolve ".cube" 3D colour grading LUT
 * (parsed by import/image.c) into a 3D RGBA16F KTX2: N x N x N, one level;
 * r along x, g along y, b along z, exactly the .cube order.
 */
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

bool cook_lut_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    driver_output out;
    if (!driver_output_begin(ctx, COOK_STAGE_TEXTURE, ".ktx2", &out))
        return driver_output_end(&out, result, false);
    uint32_t n = 0;
    float *rgb = NULL;
    char reason[512];
    if (!image_parse_cube_lut((const char *)ctx->source, ctx->source_size, &n, &rgb, reason,
                              sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "cannot read the LUT: %s", reason);
        return driver_output_end(&out, result, false);
    }
    size_t count = (size_t)n * n * n;
    float *rgba = malloc(count * 4 * sizeof(float));
    size_t level_size = 0;
    uint8_t *level = NULL;
    if (rgba != NULL) {
        for (size_t i = 0; i < count; i++) {
            memcpy(rgba + i * 4, rgb + i * 3, 3 * sizeof(float));
            rgba[i * 4 + 3] = 1.0f;
        }
        level = encode_level(rgba, count, KTX2_VK_FORMAT_R16G16B16A16_SFLOAT, &level_size);
    }
    free(rgb);
    free(rgba);
    if (level == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return driver_output_end(&out, result, false);
    }
    const uint8_t *levels[1] = {level};
    ktx2_image_desc desc = {.vk_format = KTX2_VK_FORMAT_R16G16B16A16_SFLOAT,
                            .width = n,
                            .height = n,
                            .depth = n,
                            .faces = 1,
                            .levels = 1,
                            .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
                            .zstd_level = ctx->settings->texture_zstd_level,
                            .threads = ctx->settings->threads,
                            .level_data = levels,
                            .level_size = &level_size};
    bool ok = texture_write_file(ctx, &desc, ctx->source_path, request->output_root, ctx->ref,
                                 out.relative, request->verify, KILN_COLOR_SPACE_LINEAR, result);
    free(level);
    return driver_output_end(&out, result, ok);
}
