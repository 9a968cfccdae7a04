/*
 * block.c — whole images through the per-block encoders of encode.h: edge
 * padding, block rows spread over threads, whole-image decoding and the
 * small statistics the tests and `kiln info --quality` use.
 *
 * Parallelism: block rows go to parallel_for (core/parallel.h).
 * Every block is a pure function of its 16 texels and the quality, and each
 * row writes only its own bytes, so the output does not depend on which
 * thread encoded which row. ASTC goes to astcenc (astc.cpp), whose threads
 * are items of a parallel_for too.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/checked.h"
#include "common/uastc.h"
#include "cook/core/budget.h"
#include "cook/core/parallel.h"
#include "cook/encode/encode.h"

const char *block_format_name(block_format format) {
    switch (format) {
    case BLOCK_FORMAT_BC1:
        return "bc1";
    case BLOCK_FORMAT_BC1A:
        return "bc1a";
    case BLOCK_FORMAT_BC3:
        return "bc3";
    case BLOCK_FORMAT_BC4:
        return "bc4";
    case BLOCK_FORMAT_BC5:
        return "bc5";
    case BLOCK_FORMAT_BC6H:
        return "bc6h";
    case BLOCK_FORMAT_BC7:
        return "bc7";
    case BLOCK_FORMAT_ASTC_LDR:
        return "astc";
    case BLOCK_FORMAT_ASTC_HDR:
        return "astc-hdr";
    case BLOCK_FORMAT_UASTC:
        return "uastc";
    }
    return "unknown";
}

bool block_format_layout(const block_image_desc *desc, uint32_t *block_width,
                         uint32_t *block_height, uint32_t *block_bytes) {
    *block_width = 4;
    *block_height = 4;
    switch (desc->format) {
    case BLOCK_FORMAT_BC1:
    case BLOCK_FORMAT_BC1A:
    case BLOCK_FORMAT_BC4:
        *block_bytes = 8;
        return true;
    case BLOCK_FORMAT_BC3:
    case BLOCK_FORMAT_BC5:
    case BLOCK_FORMAT_BC6H:
    case BLOCK_FORMAT_BC7:
    case BLOCK_FORMAT_UASTC:
        *block_bytes = 16;
        return true;
    case BLOCK_FORMAT_ASTC_LDR:
    case BLOCK_FORMAT_ASTC_HDR:
        *block_width = desc->astc_block_width;
        *block_height = desc->astc_block_height;
        *block_bytes = 16;
        return *block_width >= 4 && *block_width <= 12 && *block_height >= 4 &&
               *block_height <= 12 && *block_height <= *block_width;
    }
    return false;
}

size_t block_image_size(const block_image_desc *desc) {
    uint32_t bw, bh, bytes;
    if (!block_format_layout(desc, &bw, &bh, &bytes))
        return 0;
    size_t blocks_x = ((size_t)desc->width + bw - 1) / bw;
    size_t blocks_y = ((size_t)desc->height + bh - 1) / bh;
    size_t count, size;
    if (!checked_mul_size(blocks_x, blocks_y, &count) || !checked_mul_size(count, bytes, &size))
        return 0;
    return size;
}

/* ---------------------------------------------------------------------------
 * Encoding by block rows
 * ------------------------------------------------------------------------- */

typedef struct row_job {
    const block_image_desc *desc;
    uint8_t *out;
    uint32_t blocks_x, block_bytes;
} row_job;

static void encode_block_at(const block_image_desc *d, uint32_t bx, uint32_t by, uint8_t *out) {
    /* Draft is BC7's own level; the others' fastest stands for it. */
    block_quality quality = d->quality == BLOCK_QUALITY_DRAFT && d->format != BLOCK_FORMAT_BC7
                                ? BLOCK_QUALITY_FAST
                                : d->quality;
    uint8_t rgba[64];
    if (d->format == BLOCK_FORMAT_BC6H) {
        float rgb[48];
        for (uint32_t i = 0; i < 16; i++) {
            const float *p = d->rgbaf + block_texel_index(d, bx, by, i % 4, i / 4) * 4;
            memcpy(rgb + i * 3, p, 3 * sizeof(float));
        }
        bc6h_encode_block(rgb, quality, out);
        return;
    }
    block_gather_rgba8(d, bx, by, rgba);
    switch (d->format) {
    case BLOCK_FORMAT_BC1:
    case BLOCK_FORMAT_BC1A:
        bc1_encode_block(rgba, d->format == BLOCK_FORMAT_BC1A, quality, out);
        break;
    case BLOCK_FORMAT_BC3:
        bc3_encode_block(rgba, quality, out);
        break;
    case BLOCK_FORMAT_BC4: {
        uint8_t values[16];
        for (int i = 0; i < 16; i++)
            values[i] = rgba[i * 4];
        bc4_encode_block(values, quality, out);
        break;
    }
    case BLOCK_FORMAT_BC5:
        bc5_encode_block(rgba, quality, out);
        break;
    case BLOCK_FORMAT_BC7:
        bc7_encode_block(rgba, quality, out);
        break;
    case BLOCK_FORMAT_UASTC:
        uastc_encode_block(rgba, d->quality, out);
        break;
    default:
        break;
    }
}

static void encode_row(void *ctx, uint32_t row) {
    const row_job *job = ctx;
    uint8_t *out = job->out + (size_t)row * job->blocks_x * job->block_bytes;
    /* Out of time: the asset fails at its next check; the row is left zero
     * so that nothing reads bytes never written (core/budget.h). */
    if (cook_budget_over()) {
        memset(out, 0, (size_t)job->blocks_x * job->block_bytes);
        return;
    }
    for (uint32_t bx = 0; bx < job->blocks_x; bx++)
        encode_block_at(job->desc, bx, row, out + (size_t)bx * job->block_bytes);
}

static bool fail(char *reason, size_t reason_size, const char *message) {
    snprintf(reason, reason_size, "%s", message);
    return false;
}

bool block_encode_image(const block_image_desc *desc, uint8_t *out, char *reason,
                        size_t reason_size) {
    uint32_t bw, bh, bytes;
    if (!block_format_layout(desc, &bw, &bh, &bytes))
        return fail(reason, reason_size, "unsupported block format or ASTC block size");
    if (desc->width == 0 || desc->height == 0)
        return fail(reason, reason_size, "empty image");
    bool wants_float = desc->format == BLOCK_FORMAT_BC6H || desc->format == BLOCK_FORMAT_ASTC_HDR;
    if (wants_float ? desc->rgbaf == NULL : desc->rgba8 == NULL)
        return fail(reason, reason_size,
                    wants_float ? "HDR block format needs float texels"
                                : "LDR block format needs 8-bit texels");
    size_t size = block_image_size(desc);
    if (size == 0)
        return fail(reason, reason_size, "image too large");
    if (desc->format == BLOCK_FORMAT_ASTC_LDR || desc->format == BLOCK_FORMAT_ASTC_HDR)
        return astc_encode_image(desc, out, size, reason, reason_size);

    row_job job = {.desc = desc, .out = out, .block_bytes = bytes};
    job.blocks_x = (desc->width + 3) / 4;
    parallel_for(desc->threads, (desc->height + 3) / 4, encode_row, &job);
    uastc_rdo_image(desc, out);
    return true;
}

/* ---------------------------------------------------------------------------
 * Decoding
 * ------------------------------------------------------------------------- */

bool block_decode_image(const block_image_desc *desc, const uint8_t *blocks, uint8_t *rgba8_out,
                        float *rgbaf_out, char *reason, size_t reason_size) {
    uint32_t bw, bh, bytes;
    if (!block_format_layout(desc, &bw, &bh, &bytes))
        return fail(reason, reason_size, "unsupported block format or ASTC block size");
    size_t size = block_image_size(desc);
    if (size == 0)
        return fail(reason, reason_size, "image too large");
    if (desc->format == BLOCK_FORMAT_ASTC_LDR || desc->format == BLOCK_FORMAT_ASTC_HDR)
        return astc_decode_image(desc, blocks, size, rgba8_out, rgbaf_out, reason, reason_size);
    bool is_float = desc->format == BLOCK_FORMAT_BC6H;
    if (is_float ? rgbaf_out == NULL : rgba8_out == NULL)
        return fail(reason, reason_size, "no output buffer of the right type");
    uint32_t blocks_x = (desc->width + 3) / 4, blocks_y = (desc->height + 3) / 4;
    for (uint32_t by = 0; by < blocks_y; by++) {
        for (uint32_t bx = 0; bx < blocks_x; bx++) {
            const uint8_t *in = blocks + ((size_t)by * blocks_x + bx) * bytes;
            uint8_t rgba[64];
            float rgb[48];
            switch (desc->format) {
            case BLOCK_FORMAT_BC1:
            case BLOCK_FORMAT_BC1A:
                bc1_decode_block(in, rgba);
                break;
            case BLOCK_FORMAT_BC3:
                bc3_decode_block(in, rgba);
                break;
            case BLOCK_FORMAT_BC4: {
                uint8_t values[16];
                bc4_decode_block(in, values);
                for (int i = 0; i < 16; i++) {
                    rgba[i * 4] = values[i];
                    rgba[i * 4 + 1] = rgba[i * 4 + 2] = 0;
                    rgba[i * 4 + 3] = 255;
                }
                break;
            }
            case BLOCK_FORMAT_BC5:
                bc5_decode_block(in, rgba);
                break;
            case BLOCK_FORMAT_BC6H:
                bc6h_decode_block(in, rgb);
                break;
            case BLOCK_FORMAT_BC7:
                bc7_decode_block(in, rgba);
                break;
            case BLOCK_FORMAT_UASTC:
                /* UNORM8 interpolation: what Basis Universal's RGBA unpack gives. */
                if (uastc_decode(in, false, rgba) != UASTC_OK)
                    return fail(reason, reason_size, "invalid UASTC block");
                break;
            default:
                return fail(reason, reason_size, "unsupported block format");
            }
            for (uint32_t i = 0; i < 16; i++) {
                uint32_t px = bx * 4 + i % 4, py = by * 4 + i / 4;
                if (px >= desc->width || py >= desc->height)
                    continue;
                size_t at = (size_t)py * desc->width + px;
                if (is_float) {
                    memcpy(rgbaf_out + at * 4, rgb + i * 3, 3 * sizeof(float));
                    rgbaf_out[at * 4 + 3] = 1.0f;
                } else {
                    memcpy(rgba8_out + at * 4, rgba + i * 4, 4);
                }
            }
        }
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------- */

int block_bc7_mode(const uint8_t block[16]) {
    /* Mode m starts with m zero bits and a one (LSB first); none is reserved. */
    for (int m = 0; m < 8; m++)
        if (block[0] & (1u << m))
            return m;
    return -1;
}

double block_psnr_rgba8(const uint8_t *a, const uint8_t *b, size_t count, unsigned channel_mask) {
    double sum = 0.0;
    size_t samples = 0;
    for (size_t i = 0; i < count; i++) {
        for (unsigned c = 0; c < 4; c++) {
            if (!(channel_mask & (1u << c)))
                continue;
            double d = (double)a[i * 4 + c] - (double)b[i * 4 + c];
            sum += d * d;
            samples++;
        }
    }
    if (samples == 0 || sum == 0.0)
        return 99.0;
    double mse = sum / (double)samples;
    return 10.0 * log10(255.0 * 255.0 / mse);
}

double block_tonemap(float v) {
    double x = v > 0.0f ? (double)v : 0.0; /* negative and NaN as black */
    if (isinf(x))
        return 255.0;
    return pow(x / (1.0 + x), 1.0 / 2.2) * 255.0;
}

double block_psnr_hdr(const float *a, const float *b, size_t count) {
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) {
        for (size_t c = 0; c < 3; c++) {
            double d = block_tonemap(a[i * 4 + c]) - block_tonemap(b[i * 4 + c]);
            sum += d * d;
        }
    }
    if (count == 0 || sum == 0.0)
        return 99.0;
    return 10.0 * log10(255.0 * 255.0 / (sum / (double)(count * 3)));
}
