/*
 * quality.c — `kiln info --quality` (inspect.h): what block compression cost a cooked
 * texture. Level 0 is decoded and compared with the source image its
 * kilnSource key names (read only inside the input folder); BC7 and BC6H
 * blocks are counted by mode; what texture.target_psnr chose (kilnTarget).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/core/core.h"
#include "cook/encode/encode.h"
#include "cook/import/import.h"
#include "cook/inspect/inspect.h"

/* The block format of a KTX2 file's vkFormat (its row's `block`); false for
 * uncompressed ones. */
static bool block_desc_of(const kiln_ktx2_view *v, block_image_desc *d) {
    *d = (block_image_desc){
        .width = v->width, .height = v->height, .srgb = v->color_space == KILN_COLOR_SPACE_SRGB};
    /* UASTC has no vkFormat: its DFD's colour model names it. */
    const ktx2_format_info *f =
        v->vk_format == KTX2_VK_FORMAT_UNDEFINED && v->dfd_color_model == KTX2_DF_MODEL_UASTC
            ? ktx2_uastc_format(d->srgb, false)
            : ktx2_format_find(v->vk_format);
    if (f == NULL || f->block == KTX2_BLOCK_NONE)
        return false;
    d->format = (block_format)f->block;
    if (d->format == BLOCK_FORMAT_ASTC_LDR || d->format == BLOCK_FORMAT_ASTC_HDR) {
        d->astc_block_width = f->block_width;
        d->astc_block_height = f->block_height;
    }
    return true;
}

/* PSNR of decoded level 0 (`blocks`) against the source image `path`. */
static void compare_with_source(const char *path, const block_image_desc *d, const uint8_t *blocks,
                                cook_texture_quality *r) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    char reason[256];
    if (!cook_read_file(path, (size_t)1 << 30, &bytes, &size, reason, sizeof reason)) {
        snprintf(r->note, sizeof r->note, "source %s: %s", path, reason);
        return;
    }
    ir_decoded_image image;
    bool decoded = image_decode(bytes, size, path, NULL, &image, reason, sizeof reason);
    free(bytes);
    if (!decoded) {
        snprintf(r->note, sizeof r->note, "source %s: %s", path, reason);
        return;
    }
    bool hdr = d->format == BLOCK_FORMAT_BC6H || d->format == BLOCK_FORMAT_ASTC_HDR;
    size_t count = (size_t)d->width * d->height;
    if (image.width != d->width || image.height != d->height) {
        snprintf(r->note, sizeof r->note,
                 "level 0 is %ux%u, the source %ux%u (downscaled by texture.max_size)", d->width,
                 d->height, image.width, image.height);
    } else if (hdr != (image.rgbaf != NULL)) {
        snprintf(r->note, sizeof r->note, "the source is %s and the texture %s",
                 image.rgbaf ? "HDR" : "LDR", hdr ? "HDR" : "LDR");
    } else {
        uint8_t *rgba8 = hdr ? NULL : malloc(count * 4);
        float *rgbaf = hdr ? malloc(count * 4 * sizeof(float)) : NULL;
        if ((hdr ? (void *)rgbaf : (void *)rgba8) == NULL) {
            snprintf(r->note, sizeof r->note, "out of memory");
        } else if (!block_decode_image(d, blocks, rgba8, rgbaf, reason, sizeof reason)) {
            snprintf(r->note, sizeof r->note, "%s", reason);
        } else if (hdr) {
            r->psnr_rgb = block_psnr_hdr(image.rgbaf, rgbaf, count);
            r->psnr_channels = "RGB (tone-mapped)";
        } else {
            /* BC4 holds the first channel, BC5 the first two (normal X, Y). */
            unsigned mask = d->format == BLOCK_FORMAT_BC4   ? 1u
                            : d->format == BLOCK_FORMAT_BC5 ? 3u
                                                            : 7u;
            r->psnr_rgb = block_psnr_rgba8(image.rgba8, rgba8, count, mask);
            r->psnr_channels = mask == 1u ? "R" : mask == 3u ? "RG" : "RGB";
            bool alpha = d->format == BLOCK_FORMAT_BC1A || d->format == BLOCK_FORMAT_BC3 ||
                         d->format == BLOCK_FORMAT_BC7 || d->format == BLOCK_FORMAT_ASTC_LDR;
            if (alpha)
                r->psnr_alpha = block_psnr_rgba8(image.rgba8, rgba8, count, 8u);
        }
        free(rgba8);
        free(rgbaf);
    }
    ir_decoded_image_free(&image);
}

/* --quality: level 0's block modes and, when the source is found, PSNR. */
void inspect_texture_quality(const kiln_ktx2_view *view, const char *input_root,
                             cook_texture_quality *r) {
    memset(r, 0, sizeof *r);
    block_image_desc d;
    r->psnr_rgb = r->psnr_alpha = -1.0;
    if (!block_desc_of(view, &d))
        return; /* uncompressed: nothing was lost but what texture.max_size dropped */
    r->measured = true;
    uint32_t target_length = 0;
    const char *target = kiln_ktx2_find_value(view, "kilnTarget", &target_length);
    if (target != NULL && target_length > 0 && memchr(target, 0, target_length) != NULL)
        snprintf(r->target, sizeof r->target, "%s", target);
    uint64_t size = kiln_ktx2_level_size(view, 0);
    if ((uint64_t)d.width * d.height > IMAGE_DEFAULT_MAX_PIXELS) {
        snprintf(r->note, sizeof r->note,
                 "level 0 (%ux%u) is larger than kiln decodes (%llu pixels)", d.width, d.height,
                 (unsigned long long)IMAGE_DEFAULT_MAX_PIXELS);
        return;
    }
    uint8_t *blocks = size > 0 && size < SIZE_MAX ? malloc((size_t)size) : NULL;
    kiln_error error;
    if (blocks == NULL || kiln_ktx2_read_level(view, 0, blocks, (size_t)size, &error) != KILN_OK) {
        snprintf(r->note, sizeof r->note, "level 0: %s", blocks ? error.message : "out of memory");
        free(blocks);
        return;
    }
    if (d.format == BLOCK_FORMAT_BC7 || d.format == BLOCK_FORMAT_BC6H) {
        r->mode_count = d.format == BLOCK_FORMAT_BC7 ? 8 : 14;
        for (size_t at = 0; at + 16 <= size; at += 16) {
            int mode = d.format == BLOCK_FORMAT_BC7 ? block_bc7_mode(blocks + at)
                                                    : block_bc6h_mode(blocks + at);
            if (mode >= 0)
                r->modes[mode]++;
        }
    }
    uint32_t length = 0;
    const char *source = kiln_ktx2_find_value(view, "kilnSource", &length);
    char ref[1024];
    if (source == NULL || length == 0 || memchr(source, 0, length) == NULL) {
        snprintf(r->note, sizeof r->note, "no kilnSource key");
    } else if (kiln_ref_canonicalize(source, ref, sizeof ref) != KILN_OK) {
        /* Absolute, or climbing out with "..": never read outside the input. */
        snprintf(r->note, sizeof r->note,
                 "kilnSource '%.200s' is not a path inside the input folder", source);
    } else {
        snprintf(r->source, sizeof r->source, "%s", source);
        char *path = cook_path_join(input_root, source);
        struct stat info;
        if (path == NULL)
            snprintf(r->note, sizeof r->note, "out of memory");
        else if (stat(path, &info) != 0 || !S_ISREG(info.st_mode))
            snprintf(r->note, sizeof r->note, "source %s is not a file under %s", source,
                     input_root);
        else
            compare_with_source(path, &d, blocks, r);
        free(path);
    }
    free(blocks);
}
