/*
 * gen_textures.c — big texture sources for bench/texture_memory.sh (issue 16).
 *
 *   bench_gen_textures KIND SIDE OUT
 *
 * KIND is one of
 *   zero-png   SIDE x SIDE RGBA8 PNG, every byte 0 (a few hundred KB)
 *   noise-png  SIDE x SIDE RGBA8 PNG of pseudo-random bytes (incompressible)
 *   noise-jpg  SIDE x SIDE RGB JPEG (quality 90) of pseudo-random bytes
 *   noise-hdr  SIDE x SIDE Radiance HDR (flat RGBE scanlines), random colours
 *              over 0..16 (exponents 124..132)
 * Deterministic (xorshift64 seeded by SIDE): the same arguments give the same
 * bytes. Exits 1 on a bad argument or a write error.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <spng.h>

static uint64_t state;

static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void fill_noise(uint8_t *bytes, size_t count) {
    for (size_t i = 0; i < count; i += 8) {
        uint64_t v = next();
        for (size_t k = 0; k < 8 && i + k < count; k++)
            bytes[i + k] = (uint8_t)(v >> (8 * k));
    }
}

static int write_png(const char *path, uint32_t side, bool noise) {
    size_t size = (size_t)side * side * 4;
    uint8_t *image = calloc(size, 1);
    FILE *f = fopen(path, "wb");
    if (image == NULL || f == NULL) {
        free(image);
        if (f != NULL)
            fclose(f);
        return 1;
    }
    if (noise)
        fill_noise(image, size);
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ihdr = {.width = side,
                             .height = side,
                             .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA};
    int err = ctx == NULL;
    err = err ? err : spng_set_png_file(ctx, f);
    err = err ? err : spng_set_ihdr(ctx, &ihdr);
    err = err ? err : spng_encode_image(ctx, image, size, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    spng_ctx_free(ctx);
    free(image);
    return fclose(f) != 0 || err != 0;
}

static int write_jpeg(const char *path, uint32_t side) {
    FILE *f = fopen(path, "wb");
    uint8_t *row = malloc((size_t)side * 3);
    if (f == NULL || row == NULL) {
        free(row);
        if (f != NULL)
            fclose(f);
        return 1;
    }
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = side;
    c.image_height = side;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 90, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        fill_noise(row, (size_t)side * 3);
        JSAMPROW rows[1] = {row};
        jpeg_write_scanlines(&c, rows, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    return fclose(f) != 0;
}

static int write_hdr(const char *path, uint32_t side) {
    FILE *f = fopen(path, "wb");
    uint8_t *row = malloc((size_t)side * 4);
    if (f == NULL || row == NULL) {
        free(row);
        if (f != NULL)
            fclose(f);
        return 1;
    }
    fprintf(f, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %u +X %u\n", side, side);
    for (uint32_t y = 0; y < side; y++) {
        for (uint32_t x = 0; x < side; x++) {
            uint64_t v = next();
            /* Mantissas 128..255 (normalised), exponents 124..132. */
            row[x * 4 + 0] = (uint8_t)(128 | (v & 127));
            row[x * 4 + 1] = (uint8_t)(v >> 8);
            row[x * 4 + 2] = (uint8_t)(v >> 16);
            row[x * 4 + 3] = (uint8_t)(124 + (v >> 24) % 9);
        }
        fwrite(row, 4, side, f);
    }
    free(row);
    return fclose(f) != 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr,
                "usage: bench_gen_textures zero-png|noise-png|noise-jpg|noise-hdr SIDE OUT\n");
        return 1;
    }
    long side = strtol(argv[2], NULL, 10);
    if (side < 8 || side > 65536) {
        fprintf(stderr, "bench_gen_textures: SIDE must be 8..65536\n");
        return 1;
    }
    state = 0x9E3779B97F4A7C15ull ^ (uint64_t)side;
    int failed;
    if (strcmp(argv[1], "zero-png") == 0)
        failed = write_png(argv[3], (uint32_t)side, false);
    else if (strcmp(argv[1], "noise-png") == 0)
        failed = write_png(argv[3], (uint32_t)side, true);
    else if (strcmp(argv[1], "noise-jpg") == 0)
        failed = write_jpeg(argv[3], (uint32_t)side);
    else if (strcmp(argv[1], "noise-hdr") == 0)
        failed = write_hdr(argv[3], (uint32_t)side);
    else {
        fprintf(stderr, "bench_gen_textures: unknown kind '%s'\n", argv[1]);
        return 1;
    }
    if (failed)
        fprintf(stderr, "bench_gen_textures: cannot write %s\n", argv[3]);
    return failed;
}
