/*
 * bench_texture.c — what cooking a texture costs next to decoding it.
 *
 *   bench_texture OUT_DIR IMAGE...
 *
 * For each image (PNG, JPEG, TGA, BMP, HDR) times, with default settings:
 *   decode  image_decode alone (the same libraries kiln links: libspng,
 *           libjpeg-turbo, stb_image, kiln's HDR reader), then free;
 *   cook    cook_texture: decode, usage conversion, full mip chain, Zstd
 *           supercompression, KTX2 layout and the (non-fsync) write to OUT_DIR.
 * and reports both medians, the extra cost of mips + Zstd + write relative to
 * the decode (goal: below 1.0x), and the bytes of the .ktx2 against the
 * source file. Usage follows the standalone naming convention (*.hdr HDR,
 * *.n.* normal, …).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cook/texture_internal.h"

typedef struct texture_job {
    const char *path;
    const char *out_dir;
    uint8_t *bytes;
    size_t size;
    uint64_t written;
} texture_job;

static void op_decode(void *arg) {
    texture_job *job = arg;
    cook_image image;
    char reason[256];
    if (!image_decode(job->bytes, job->size, job->path, NULL, &image, reason, sizeof reason))
        bench_die("%s: %s", job->path, reason);
    cook_image_free(&image);
}

static void op_cook(void *arg) {
    texture_job *job = arg;
    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {.input_root = ".",
                        .source_path = job->path,
                        .ref = "bench",
                        .settings = &settings,
                        .diag = &diag};
    cook_asset_result result = {0};
    cook_texture_source src = {.name = job->path,
                               .bytes = job->bytes,
                               .size = job->size,
                               .usage = cook_texture_usage_for_path(job->path)};
    if (!cook_texture(&ctx, job->out_dir, &src, "bench", "bench.ktx2", false, &result))
        bench_die("%s: %.*s", job->path, (int)diag.text.size, (const char *)diag.text.data);
    job->written = result.bytes_written;
    cook_asset_result_free(&result);
    diag_free(&diag);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_texture OUT_DIR IMAGE...\n");
        return 2;
    }
    printf("| image | size | decode | cook (decode+mips+zstd+write) | extra / decode | source "
           "bytes | ktx2 bytes |\n");
    printf("|---|---|---:|---:|---:|---:|---:|\n");
    for (int i = 2; i < argc; i++) {
        texture_job job = {.path = argv[i], .out_dir = argv[1]};
        char reason[256];
        if (!cook_read_file(argv[i], (size_t)1 << 30, &job.bytes, &job.size, reason, sizeof reason))
            bench_die("%s: %s", argv[i], reason);
        cook_image image;
        if (!image_decode(job.bytes, job.size, job.path, NULL, &image, reason, sizeof reason))
            bench_die("%s: %s", job.path, reason);
        uint32_t w = image.width, h = image.height;
        cook_image_free(&image);
        bench_stats decode = bench_measure(op_decode, &job, 20, 2.0);
        bench_stats cook = bench_measure(op_cook, &job, 20, 4.0);
        char d[32], c[32], sb[32], kb[32];
        bench_format_duration(decode.median, d, sizeof d);
        bench_format_duration(cook.median, c, sizeof c);
        bench_format_bytes(job.size, sb, sizeof sb);
        bench_format_bytes(job.written, kb, sizeof kb);
        const char *name = strrchr(argv[i], '/');
        printf("| %s | %ux%u | %s | %s | %.2fx | %s | %s |\n", name ? name + 1 : argv[i], w, h, d,
               c, (cook.median - decode.median) / decode.median, sb, kb);
        free(job.bytes);
    }
    return 0;
}
