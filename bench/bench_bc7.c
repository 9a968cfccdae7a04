/*
 * bench_bc7.c — kiln's BC7 encoder (fast / normal / best) against astcenc
 * 4x4 (-fast / -medium presets, Debian's libastcenc) on the same images, all
 * on one thread: encoding speed and the error of the decoded image.
 *
 *   bench_bc7 [--crop N] IMAGE...
 *
 * Each image is decoded with kiln's image_decode and centre-cropped to N x N
 * (default 512, 0 = whole image, rounded down to whole 4x4 blocks) so that
 * `best` stays affordable; a built-in synthetic image (gradients, noise,
 * hard edges, an alpha ramp) is always added. Times are thread CPU time,
 * the least of 3 runs (1 for `best`), so other load on the machine matters
 * less than with wall time. astcenc's context setup is not timed. PSNR is
 * over RGB and, separately, alpha (inf when exact).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cook/encode/encode.h"

/* bench_bc7_astc.cpp */
bool bench_astc_4x4(const unsigned char *rgba, unsigned width, unsigned height, float preset,
                    unsigned runs, unsigned char *decoded, double *seconds, char *reason,
                    size_t reason_size);

enum { CODECS = 5 };
static const char *codec_names[CODECS] = {"kiln bc7 fast", "kiln bc7 normal", "kiln bc7 best",
                                          "astcenc 4x4 -fast", "astcenc 4x4 -medium"};
/* astcenc's preset values for -fast and -medium (ASTCENC_PRE_FAST, _MEDIUM). */
static const float astc_presets[2] = {10.0f, 60.0f};

typedef struct totals {
    double seconds, pixels, rgb_sq, alpha_sq;
} totals;

/* Encodes every block with bc7_encode_block (`runs` times, least time kept)
 * and decodes the result into `decoded`. */
static double kiln_bc7(const uint8_t *rgba, uint32_t w, uint32_t h, block_quality quality,
                       unsigned runs, uint8_t *decoded) {
    size_t blocks = (size_t)(w / 4) * (h / 4);
    uint8_t *encoded = malloc(blocks * 16);
    if (encoded == NULL)
        bench_die("out of memory");
    double best = INFINITY;
    for (unsigned run = 0; run < runs; run++) {
        double start = bench_thread_seconds();
        uint8_t *out = encoded;
        for (uint32_t by = 0; by < h; by += 4) {
            for (uint32_t bx = 0; bx < w; bx += 4, out += 16) {
                uint8_t block[64];
                for (uint32_t y = 0; y < 4; y++)
                    memcpy(block + 16 * y, rgba + 4 * ((size_t)(by + y) * w + bx), 16);
                bc7_encode_block(block, quality, out);
            }
        }
        double elapsed = bench_thread_seconds() - start;
        best = elapsed < best ? elapsed : best;
    }
    const uint8_t *in = encoded;
    for (uint32_t by = 0; by < h; by += 4) {
        for (uint32_t bx = 0; bx < w; bx += 4, in += 16) {
            uint8_t block[64];
            bc7_decode_block(in, block);
            for (uint32_t y = 0; y < 4; y++)
                memcpy(decoded + 4 * ((size_t)(by + y) * w + bx), block + 16 * y, 16);
        }
    }
    free(encoded);
    return best;
}

static void print_row(const char *name, const char *codec, double pixels, double seconds,
                      double rgb_sq, double alpha_sq) {
    printf("%-28s %-20s %8.3f %9.2f %9.2f\n", name, codec, pixels / seconds / 1e6,
           bench_psnr(rgb_sq, pixels * 3.0), bench_psnr(alpha_sq, pixels));
}

static void bench_one(const char *name, const uint8_t *rgba, uint32_t w, uint32_t h, totals *sum) {
    size_t pixels = (size_t)w * h;
    uint8_t *decoded = malloc(pixels * 4);
    if (decoded == NULL)
        bench_die("out of memory");
    char label[64];
    snprintf(label, sizeof(label), "%s %ux%u", name, (unsigned)w, (unsigned)h);
    for (int c = 0; c < CODECS; c++) {
        double seconds;
        if (c < 3) {
            seconds = kiln_bc7(rgba, w, h, (block_quality)c, c == 2 ? 1 : 3, decoded);
        } else {
            char reason[256];
            if (!bench_astc_4x4(rgba, w, h, astc_presets[c - 3], 3, decoded, &seconds, reason,
                                sizeof(reason)))
                bench_die("%s: %s", name, reason);
        }
        double samples = 0.0;
        double rgb_sq = bench_sse_rgba8(rgba, decoded, pixels, 7, &samples);
        double alpha_sq = bench_sse_rgba8(rgba, decoded, pixels, 8, &samples);
        print_row(label, codec_names[c], (double)pixels, seconds, rgb_sq, alpha_sq);
        sum[c].seconds += seconds, sum[c].pixels += (double)pixels;
        sum[c].rgb_sq += rgb_sq, sum[c].alpha_sq += alpha_sq;
    }
    free(decoded);
}

int main(int argc, char **argv) {
    uint32_t crop = 512;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--crop") == 0)
        crop = (uint32_t)strtoul(argv[2], NULL, 10), first = 3;
    totals sum[CODECS];
    memset(sum, 0, sizeof(sum));
    printf("%-28s %-20s %8s %9s %9s\n", "image", "codec (1 thread)", "Mpix/s", "RGB dB",
           "alpha dB");
    for (int i = first; i <= argc; i++) {
        uint32_t side = crop && crop < 512 ? crop & ~3u : 512;
        bench_image img = {.name = "synthetic", .width = side, .height = side};
        if (i == argc)
            img.rgba8 = bench_synthetic_rgba8(side);
        else
            bench_load_image(argv[i], crop, &img);
        if (img.rgba8 == NULL)
            bench_die("%s: not an 8-bit image", argv[i]);
        bench_one(img.name, img.rgba8, img.width, img.height, sum);
        bench_image_free(&img);
        fflush(stdout);
    }
    printf("\nall images (speed = total pixels / total time; PSNR of the pooled error)\n");
    for (int c = 0; c < CODECS; c++)
        print_row("total", codec_names[c], sum[c].pixels, sum[c].seconds, sum[c].rgb_sq,
                  sum[c].alpha_sq);

    double normal_db = bench_psnr(sum[1].rgb_sq + sum[1].alpha_sq, sum[1].pixels * 4.0);
    double best_db = bench_psnr(sum[2].rgb_sq + sum[2].alpha_sq, sum[2].pixels * 4.0);
    double medium_db = bench_psnr(sum[4].rgb_sq + sum[4].alpha_sq, sum[4].pixels * 4.0);
    double speed_ratio = sum[4].seconds / sum[1].seconds; /* > 1: kiln faster */
    printf("\ngoals (RGBA PSNR of the pooled error):\n");
    printf("  normal vs astcenc -medium: %+.2f dB, %.2fx its speed -> %s\n", normal_db - medium_db,
           speed_ratio, normal_db >= medium_db && speed_ratio >= 1.0 ? "met" : "NOT met");
    printf("  best vs normal: %+.2f dB (goal +0.50) -> %s\n", best_db - normal_db,
           best_db - normal_db >= 0.5 ? "met" : "NOT met");
    return 0;
}
