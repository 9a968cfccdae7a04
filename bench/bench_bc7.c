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
#include <time.h>

#include "bench_util.h"
#include "cook/encode/block.h"
#include "cook/texture_internal.h"

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

static double thread_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double psnr(double sq, double samples) {
    return sq <= 0.0 ? INFINITY : 10.0 * log10(255.0 * 255.0 * samples / sq);
}

static void image_errors(const uint8_t *a, const uint8_t *b, size_t pixels, double *rgb_sq,
                         double *alpha_sq) {
    *rgb_sq = *alpha_sq = 0.0;
    for (size_t i = 0; i < pixels * 4; i++) {
        double d = (double)a[i] - (double)b[i];
        if ((i & 3) == 3)
            *alpha_sq += d * d;
        else
            *rgb_sq += d * d;
    }
}

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
        double start = thread_seconds();
        uint8_t *out = encoded;
        for (uint32_t by = 0; by < h; by += 4) {
            for (uint32_t bx = 0; bx < w; bx += 4, out += 16) {
                uint8_t block[64];
                for (uint32_t y = 0; y < 4; y++)
                    memcpy(block + 16 * y, rgba + 4 * ((size_t)(by + y) * w + bx), 16);
                bc7_encode_block(block, quality, out);
            }
        }
        double elapsed = thread_seconds() - start;
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

/* 512 x 512: quadrants of a colour gradient, value noise over a ramp, hard
 * edged shapes, and a colour ramp with a varying alpha. */
static uint8_t *synthetic_image(uint32_t *w, uint32_t *h) {
    const uint32_t n = 512;
    uint8_t *img = malloc((size_t)n * n * 4);
    if (img == NULL)
        bench_die("out of memory");
    uint32_t seed = 1;
    for (uint32_t y = 0; y < n; y++) {
        for (uint32_t x = 0; x < n; x++) {
            uint8_t *p = img + 4 * ((size_t)y * n + x);
            seed = seed * 1664525u + 1013904223u;
            int noise = (int)((seed >> 24) % 33) - 16;
            uint32_t q = (y >= n / 2) * 2 + (x >= n / 2);
            if (q == 0) {
                p[0] = (uint8_t)x, p[1] = (uint8_t)y, p[2] = (uint8_t)(255 - (x + y) / 2);
                p[3] = 255;
            } else if (q == 1) {
                int v = 60 + (int)(x - n / 2) / 2 + noise;
                p[0] = (uint8_t)v, p[1] = (uint8_t)(v / 2 + 40), p[2] = (uint8_t)(200 - v / 3);
                p[3] = 255;
            } else if (q == 2) {
                int dx = (int)(x % 64) - 32, dy = (int)(y % 64) - 32;
                bool disc = dx * dx + dy * dy < 400, stripe = ((x + y) / 12) % 2 == 0;
                p[0] = disc ? 230 : stripe ? 30 : 120, p[1] = disc ? 50 : stripe ? 180 : 120;
                p[2] = disc ? 40 : stripe ? 90 : 240, p[3] = 255;
            } else {
                p[0] = (uint8_t)(x - n / 2), p[1] = (uint8_t)(255 - (y - n / 2));
                p[2] = 128, p[3] = (uint8_t)((x + y) / 4);
            }
        }
    }
    *w = *h = n;
    return img;
}

static uint8_t *load_image(const char *path, uint32_t *w, uint32_t *h) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        bench_die("%s: cannot open", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc(size > 0 ? (size_t)size : 1);
    if (bytes == NULL || size <= 0 || fread(bytes, 1, (size_t)size, f) != (size_t)size)
        bench_die("%s: cannot read", path);
    fclose(f);
    cook_image image;
    char reason[256];
    if (!image_decode(bytes, (size_t)size, path, NULL, &image, reason, sizeof(reason)))
        bench_die("%s: %s", path, reason);
    free(bytes);
    if (image.rgba8 == NULL)
        bench_die("%s: not an 8-bit image", path);
    *w = image.width, *h = image.height;
    uint8_t *rgba = image.rgba8;
    image.rgba8 = NULL;
    cook_image_free(&image);
    return rgba;
}

/* Centre crop to at most crop x crop (0: no limit), whole blocks only. */
static uint8_t *crop_image(uint8_t *img, uint32_t *w, uint32_t *h, uint32_t crop) {
    uint32_t cw = crop && *w > crop ? crop : *w, ch = crop && *h > crop ? crop : *h;
    cw &= ~3u, ch &= ~3u;
    if (cw == 0 || ch == 0)
        bench_die("image smaller than one 4x4 block");
    uint32_t x0 = (*w - cw) / 2, y0 = (*h - ch) / 2;
    uint8_t *out = malloc((size_t)cw * ch * 4);
    if (out == NULL)
        bench_die("out of memory");
    for (uint32_t y = 0; y < ch; y++)
        memcpy(out + (size_t)y * cw * 4, img + ((size_t)(y0 + y) * *w + x0) * 4, (size_t)cw * 4);
    free(img);
    *w = cw, *h = ch;
    return out;
}

static void print_row(const char *name, const char *codec, double pixels, double seconds,
                      double rgb_sq, double alpha_sq) {
    printf("%-28s %-20s %8.3f %9.2f %9.2f\n", name, codec, pixels / seconds / 1e6,
           psnr(rgb_sq, pixels * 3.0), psnr(alpha_sq, pixels));
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
        double rgb_sq, alpha_sq;
        image_errors(rgba, decoded, pixels, &rgb_sq, &alpha_sq);
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
        uint32_t w, h;
        uint8_t *img;
        const char *name;
        if (i == argc) {
            img = synthetic_image(&w, &h), name = "synthetic";
        } else {
            img = load_image(argv[i], &w, &h);
            const char *slash = strrchr(argv[i], '/');
            name = slash ? slash + 1 : argv[i];
        }
        img = crop_image(img, &w, &h, crop);
        bench_one(name, img, w, h, sum);
        free(img);
        fflush(stdout);
    }
    printf("\nall images (speed = total pixels / total time; PSNR of the pooled error)\n");
    for (int c = 0; c < CODECS; c++)
        print_row("total", codec_names[c], sum[c].pixels, sum[c].seconds, sum[c].rgb_sq,
                  sum[c].alpha_sq);

    double normal_db = psnr(sum[1].rgb_sq + sum[1].alpha_sq, sum[1].pixels * 4.0);
    double best_db = psnr(sum[2].rgb_sq + sum[2].alpha_sq, sum[2].pixels * 4.0);
    double medium_db = psnr(sum[4].rgb_sq + sum[4].alpha_sq, sum[4].pixels * 4.0);
    double speed_ratio = sum[4].seconds / sum[1].seconds; /* > 1: kiln faster */
    printf("\ngoals (RGBA PSNR of the pooled error):\n");
    printf("  normal vs astcenc -medium: %+.2f dB, %.2fx its speed -> %s\n", normal_db - medium_db,
           speed_ratio, normal_db >= medium_db && speed_ratio >= 1.0 ? "met" : "NOT met");
    printf("  best vs normal: %+.2f dB (goal +0.50) -> %s\n", best_db - normal_db,
           best_db - normal_db >= 0.5 ? "met" : "NOT met");
    return 0;
}
