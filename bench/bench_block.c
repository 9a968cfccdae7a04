/*
 * bench_block.c — every block format kiln writes, at every quality, through
 * the real image path (block_encode_image) on 1 and 2 threads, side by side
 * with libsquish (BC1/BC3/BC4/BC5) and astcenc 4x4 (-fast, -medium).
 *
 *   bench_block [--crop N] [--only FORMAT] IMAGE...
 *
 * --only runs the rows of one format (e.g. "BC1", "ASTC 4x4"; the goals are
 * then not printed).
 *
 * Images are decoded by kiln's image_decode and centre-cropped to N x N
 * (default 256, rounded down to whole blocks) so that `best` runs on every
 * image within a few minutes. Each is classed by its name and content:
 * .hdr files are HDR; a name with "normal" is a normal map, one with "rough"
 * (occlusionRoughnessMetallic, metalRoughness) an ORM map; an image whose
 * alpha varies has alpha; any other is an opaque colour image. Three
 * generated N x N images are always added: colour with alpha (gradients,
 * noise, hard edges, an alpha ramp), a normal map (bumps and a bevelled
 * plateau) and an HDR image (a sky ramp, a sun of 2000, saturated patches).
 *
 * Each format runs on the images it is for: BC1 (opaque) and BC4 (red) on
 * colour and ORM, BC3 on images with alpha, BC5 on normal maps, BC6H and
 * ASTC HDR on HDR images, BC7 and ASTC LDR (linear) on every 8-bit image.
 *
 * Times are wall-clock (the 2-thread runs need it): per image the least of
 * up to 3 runs, stopping after 0.3 s, so a slow `best` runs once. Mpix/s is
 * all pixels over the summed times. `cores busy` is the process CPU time
 * over the wall time of those same runs: below the thread count when a
 * thread waited (for a core the machine's other work held, or at the end of
 * the image for the last rows). The squish and astcenc rows time their
 * own whole-image calls (squish's OpenMP loop, astcenc's thread_index
 * split), without astcenc's context setup; kiln's ASTC rows go through
 * block_encode_image, which is astcenc with its setup included.
 *
 * Errors are of the 1-thread output, decoded by block_decode_image (kiln's
 * decoders; astcenc's for ASTC), pooled over the images of a row: colour PSNR
 * over RGB (BC4: R, BC5: R and G; HDR: tone-mapped RGB, block_psnr_hdr),
 * alpha PSNR over the images with alpha, and on normal maps the mean angle
 * in degrees between the source and the decoded normal (BC5: Z rebuilt from
 * X and Y). `1=2` says whether both thread counts wrote the same bytes.
 */
#define _GNU_SOURCE /* strcasestr, M_PI */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bench_squish.h"
#include "bench_util.h"
#include "cook/encode/encode.h"

/* bench_bc7_astc.cpp */
bool bench_astc_encode(const unsigned char *rgba, unsigned width, unsigned height,
                       unsigned block_size, float preset, unsigned threads, unsigned char *out,
                       size_t out_size, double *seconds, char *reason, size_t reason_size);

enum {
    KIND_COLOUR = 1,
    KIND_ALPHA = 2,
    KIND_NORMAL = 4,
    KIND_ORM = 8,
    KIND_HDR = 16,
    KIND_LDR = KIND_COLOUR | KIND_ALPHA | KIND_NORMAL | KIND_ORM,
};

enum { MAX_IMAGES = 16, THREAD_COUNTS = 2 };
static const unsigned k_threads[THREAD_COUNTS] = {1, 2};

typedef struct image {
    bench_image pixels;
    unsigned kind;
} image;

typedef enum encoder { ENC_KILN, ENC_SQUISH, ENC_ASTCENC } encoder;

/* One row of the table (then one per thread count). */
typedef struct row_spec {
    const char *format; /* as printed */
    encoder encoder;
    block_format block; /* what the output is (decoding, sizes) */
    uint8_t astc_size;  /* ASTC block width = height */
    int level;          /* block_quality, bench_squish_fit or astcenc preset */
    const char *level_name;
    unsigned kinds;    /* images it runs on */
    unsigned rgb_mask; /* channels of the colour PSNR (LDR) */
    bool has_alpha;    /* the format stores alpha */
} row_spec;

#define KILN3(name, fmt, size, kinds, mask, alpha)                                                 \
    {name, ENC_KILN, fmt, size, BLOCK_QUALITY_FAST, "fast", kinds, mask, alpha},                   \
        {name, ENC_KILN, fmt, size, BLOCK_QUALITY_NORMAL, "normal", kinds, mask, alpha}, {         \
        name, ENC_KILN, fmt, size, BLOCK_QUALITY_BEST, "best", kinds, mask, alpha                  \
    }

/* astcenc's preset values for -fast and -medium (ASTCENC_PRE_FAST, _MEDIUM). */
#define ASTC_FAST 10
#define ASTC_MEDIUM 60

static const row_spec k_rows[] = {
    KILN3("BC1", BLOCK_FORMAT_BC1, 0, KIND_COLOUR | KIND_ORM, 7, false),
    {"BC1", ENC_SQUISH, BLOCK_FORMAT_BC1, 0, BENCH_SQUISH_RANGE, "squish range fit",
     KIND_COLOUR | KIND_ORM, 7, false},
    {"BC1", ENC_SQUISH, BLOCK_FORMAT_BC1, 0, BENCH_SQUISH_CLUSTER, "squish cluster fit",
     KIND_COLOUR | KIND_ORM, 7, false},
    KILN3("BC3", BLOCK_FORMAT_BC3, 0, KIND_ALPHA, 7, true),
    {"BC3", ENC_SQUISH, BLOCK_FORMAT_BC3, 0, BENCH_SQUISH_RANGE, "squish range fit", KIND_ALPHA, 7,
     true},
    {"BC3", ENC_SQUISH, BLOCK_FORMAT_BC3, 0, BENCH_SQUISH_CLUSTER, "squish cluster fit", KIND_ALPHA,
     7, true},
    KILN3("BC4", BLOCK_FORMAT_BC4, 0, KIND_COLOUR | KIND_ORM, 1, false),
    {"BC4", ENC_SQUISH, BLOCK_FORMAT_BC4, 0, BENCH_SQUISH_CLUSTER, "squish", KIND_COLOUR | KIND_ORM,
     1, false},
    KILN3("BC5", BLOCK_FORMAT_BC5, 0, KIND_NORMAL, 3, false),
    {"BC5", ENC_SQUISH, BLOCK_FORMAT_BC5, 0, BENCH_SQUISH_CLUSTER, "squish", KIND_NORMAL, 3, false},
    KILN3("BC6H", BLOCK_FORMAT_BC6H, 0, KIND_HDR, 7, false),
    KILN3("BC7", BLOCK_FORMAT_BC7, 0, KIND_LDR, 7, true),
    {"ASTC 4x4", ENC_ASTCENC, BLOCK_FORMAT_ASTC_LDR, 4, ASTC_FAST, "astcenc -fast", KIND_LDR, 7,
     true},
    {"ASTC 4x4", ENC_ASTCENC, BLOCK_FORMAT_ASTC_LDR, 4, ASTC_MEDIUM, "astcenc -medium", KIND_LDR, 7,
     true},
    KILN3("ASTC 4x4", BLOCK_FORMAT_ASTC_LDR, 4, KIND_LDR, 7, true),
    KILN3("ASTC 6x6", BLOCK_FORMAT_ASTC_LDR, 6, KIND_LDR, 7, true),
    KILN3("ASTC 8x8", BLOCK_FORMAT_ASTC_LDR, 8, KIND_LDR, 7, true),
    KILN3("ASTC HDR 4x4", BLOCK_FORMAT_ASTC_HDR, 4, KIND_HDR, 7, false),
};
enum { ROWS = sizeof k_rows / sizeof k_rows[0] };

/* ---- generated images ------------------------------------------------------------------ */

static uint8_t to_byte(double v) {
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    return (uint8_t)lrint(v * 255.0);
}

/* Tangent-space normals of a height field: smooth bumps, and a plateau with
 * 45-degree bevels in the middle (hard creases). */
static uint8_t *synthetic_normals(uint32_t n) {
    uint8_t *img = malloc((size_t)n * n * 4);
    if (img == NULL)
        bench_die("out of memory");
    const double pi = 3.14159265358979323846;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            double u = (x + 0.5) / n, v = (y + 0.5) / n;
            /* Slopes of 0.08 * sin(6 pi u) * cos(4 pi v) (in texels of u, v). */
            double dx = 0.08 * 6 * pi * cos(6 * pi * u) * cos(4 * pi * v);
            double dy = -0.08 * 4 * pi * sin(6 * pi * u) * sin(4 * pi * v);
            double cu = fabs(u - 0.5), cv = fabs(v - 0.5);
            if (cu < 0.2 && cv < 0.2 && (cu > 0.15 || cv > 0.15)) { /* the bevel */
                if (cu > cv)
                    dx = u < 0.5 ? 1.0 : -1.0, dy = 0;
                else
                    dy = v < 0.5 ? 1.0 : -1.0, dx = 0;
            }
            double len = sqrt(dx * dx + dy * dy + 1.0);
            uint8_t *p = img + ((size_t)y * n + x) * 4;
            p[0] = to_byte(-dx / len * 0.5 + 0.5);
            p[1] = to_byte(-dy / len * 0.5 + 0.5);
            p[2] = to_byte(1.0 / len * 0.5 + 0.5);
            p[3] = 255;
        }
    return img;
}

/* Linear HDR: a sky ramp from 0.05 to 3, a sun disc of 2000 with a soft
 * halo, and saturated patches from 0.01 to 40 along a diagonal. */
static float *synthetic_hdr(uint32_t n) {
    float *img = malloc((size_t)n * n * 4 * sizeof(float));
    if (img == NULL)
        bench_die("out of memory");
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            double u = (x + 0.5) / n, v = (y + 0.5) / n;
            double sky = 0.05 + 2.95 * (1.0 - v) * (1.0 - v);
            double rgb[3] = {sky * 0.55, sky * 0.75, sky};
            double d = hypot(u - 0.7, v - 0.25);
            double sun = d < 0.03 ? 2000.0 : 20.0 * exp(-(d - 0.03) * 40.0);
            for (int c = 0; c < 3; c++)
                rgb[c] += sun * (c == 2 ? 0.8 : 1.0);
            if (v > 0.55) { /* patches: 8 x 4 cells, hue by column, exposure by row */
                int col = (int)(u * 8), row = (int)((v - 0.55) / 0.45 * 4);
                double level = 0.01 * pow(4000.0, (col + row * 8) / 31.0);
                rgb[0] = level * (col % 3 == 0), rgb[1] = level * (col % 3 == 1);
                rgb[2] = level * (col % 3 == 2 || row % 2 == 1);
            }
            float *p = img + ((size_t)y * n + x) * 4;
            for (int c = 0; c < 3; c++)
                p[c] = (float)rgb[c];
            p[3] = 1.0f;
        }
    return img;
}

static unsigned classify(const bench_image *im) {
    if (im->rgbaf != NULL)
        return KIND_HDR;
    if (strcasestr(im->name, "normal") != NULL)
        return KIND_NORMAL;
    if (strcasestr(im->name, "rough") != NULL)
        return KIND_ORM;
    for (size_t i = 0; i < (size_t)im->width * im->height; i++)
        if (im->rgba8[i * 4 + 3] != 255)
            return KIND_ALPHA;
    return KIND_COLOUR;
}

/* ---- encoding -------------------------------------------------------------------------- */

static block_image_desc desc_for(const row_spec *row, const image *im, unsigned threads) {
    block_image_desc desc = {
        .format = row->block,
        .quality = row->encoder == ENC_KILN ? (block_quality)row->level : BLOCK_QUALITY_NORMAL,
        .width = im->pixels.width,
        .height = im->pixels.height,
        .rgba8 = im->pixels.rgba8,
        .rgbaf = im->pixels.rgbaf,
        .astc_block_width = row->astc_size,
        .astc_block_height = row->astc_size,
        .threads = threads,
    };
    return desc;
}

/* CPU seconds of the whole process (all threads). */
static double process_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One encode of `im` into `out`; returns its wall time in seconds. */
static double encode_once(const row_spec *row, const image *im, unsigned threads, uint8_t *out) {
    block_image_desc desc = desc_for(row, im, threads);
    char reason[256];
    double start = bench_now(), seconds;
    switch (row->encoder) {
    case ENC_KILN:
        if (!block_encode_image(&desc, out, reason, sizeof reason))
            bench_die("%s %s: %s", row->format, im->pixels.name, reason);
        seconds = bench_now() - start;
        break;
    case ENC_SQUISH: {
        static const bench_squish_format formats[] = {[BLOCK_FORMAT_BC1] = BENCH_SQUISH_BC1,
                                                      [BLOCK_FORMAT_BC3] = BENCH_SQUISH_BC3,
                                                      [BLOCK_FORMAT_BC4] = BENCH_SQUISH_BC4,
                                                      [BLOCK_FORMAT_BC5] = BENCH_SQUISH_BC5};
        bench_squish_encode_image(desc.rgba8, desc.width, desc.height, formats[row->block],
                                  (bench_squish_fit)row->level, threads, out);
        seconds = bench_now() - start;
        break;
    }
    default:
        if (!bench_astc_encode(desc.rgba8, desc.width, desc.height, row->astc_size,
                               (float)row->level, threads, out, block_image_size(&desc), &seconds,
                               reason, sizeof reason))
            bench_die("%s %s: %s", row->format, im->pixels.name, reason);
        break;
    }
    return seconds;
}

/* Least wall time of up to 3 encodes, stopping once 0.3 s have been spent;
 * adds the process CPU time of that fastest run to *cpu. */
static double encode_timed(const row_spec *row, const image *im, unsigned threads, uint8_t *out,
                           double *cpu) {
    double least = INFINITY, least_cpu = 0.0, spent = 0.0;
    for (int run = 0; run < 3 && spent < 0.3; run++) {
        double cpu_start = process_seconds();
        double seconds = encode_once(row, im, threads, out);
        double cpu_used = process_seconds() - cpu_start;
        spent += seconds;
        if (seconds < least)
            least = seconds, least_cpu = cpu_used;
    }
    *cpu += least_cpu;
    return least;
}

/* ---- errors ---------------------------------------------------------------------------- */

typedef struct errors {
    double rgb_sse, rgb_samples;     /* LDR colour channels of the row's mask */
    double alpha_sse, alpha_samples; /* images with alpha */
    double rgba_sse, rgba_samples;   /* all four channels of every LDR image (goals) */
    double hdr_mse_pixels, hdr_pixels;
    double angle_sum, angle_texels; /* degrees, normal maps */
} errors;

/* A normal-map texel as a unit vector; `rebuild_z` takes Z from X and Y. */
static void unit_normal(const uint8_t *p, bool rebuild_z, double n[3]) {
    n[0] = p[0] / 127.5 - 1.0, n[1] = p[1] / 127.5 - 1.0;
    double zz = 1.0 - n[0] * n[0] - n[1] * n[1];
    n[2] = rebuild_z ? sqrt(zz > 0 ? zz : 0) : p[2] / 127.5 - 1.0;
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int c = 0; c < 3; c++)
        n[c] = len > 0 ? n[c] / len : (c == 2);
}

static void add_errors(const row_spec *row, const image *im, const uint8_t *blocks, errors *e) {
    block_image_desc desc = desc_for(row, im, 1);
    size_t pixels = (size_t)desc.width * desc.height;
    char reason[256];
    if (im->kind == KIND_HDR) {
        float *decoded = malloc(pixels * 4 * sizeof(float));
        if (decoded == NULL)
            bench_die("out of memory");
        if (!block_decode_image(&desc, blocks, NULL, decoded, reason, sizeof reason))
            bench_die("%s %s: %s", row->format, im->pixels.name, reason);
        /* Pooled as mean squared error: block_psnr_hdr's dB turned back into it. */
        double db = block_psnr_hdr(im->pixels.rgbaf, decoded, pixels);
        e->hdr_mse_pixels += 255.0 * 255.0 * pow(10.0, -db / 10.0) * (double)pixels;
        e->hdr_pixels += (double)pixels;
        free(decoded);
        return;
    }
    const uint8_t *source = im->pixels.rgba8;
    uint8_t *decoded = malloc(pixels * 4);
    if (decoded == NULL)
        bench_die("out of memory");
    if (!block_decode_image(&desc, blocks, decoded, NULL, reason, sizeof reason))
        bench_die("%s %s: %s", row->format, im->pixels.name, reason);
    e->rgb_sse += bench_sse_rgba8(source, decoded, pixels, row->rgb_mask, &e->rgb_samples);
    if (row->has_alpha && im->kind == KIND_ALPHA)
        e->alpha_sse += bench_sse_rgba8(source, decoded, pixels, 8, &e->alpha_samples);
    e->rgba_sse += bench_sse_rgba8(source, decoded, pixels, 15, &e->rgba_samples);
    if (im->kind == KIND_NORMAL) {
        bool rebuild = row->block == BLOCK_FORMAT_BC5;
        for (size_t i = 0; i < pixels; i++) {
            double a[3], b[3];
            unit_normal(source + i * 4, false, a);
            unit_normal(decoded + i * 4, rebuild, b);
            double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            e->angle_sum += acos(dot > 1 ? 1 : dot < -1 ? -1 : dot) * 180.0 / M_PI;
        }
        e->angle_texels += (double)pixels;
    }
    free(decoded);
}

/* ---- the table ------------------------------------------------------------------------- */

typedef struct result {
    double seconds[THREAD_COUNTS], pixels;
    double cpu[THREAD_COUNTS]; /* process CPU seconds of the same runs */
    bool same_bytes;           /* every image: 1 thread wrote what 2 threads wrote */
    errors err;
    errors per_image[MAX_IMAGES]; /* zero where the row does not run */
} result;

static double errors_psnr(const errors *e) {
    if (e->hdr_pixels > 0)
        return e->hdr_mse_pixels <= 0
                   ? INFINITY
                   : 10.0 * log10(255.0 * 255.0 * e->hdr_pixels / e->hdr_mse_pixels);
    return bench_psnr(e->rgb_sse, e->rgb_samples);
}

static double colour_psnr(const result *r) {
    return errors_psnr(&r->err);
}

static double rgba_psnr(const result *r) {
    return bench_psnr(r->err.rgba_sse, r->err.rgba_samples);
}

static double mpix(const result *r, int t) {
    return r->pixels / r->seconds[t] / 1e6;
}

static void run_row(const row_spec *row, const image *images, int count, result *r) {
    memset(r, 0, sizeof *r);
    r->same_bytes = true;
    for (int i = 0; i < count; i++) {
        const image *im = &images[i];
        if (!(im->kind & row->kinds))
            continue;
        block_image_desc desc = desc_for(row, im, 1);
        size_t size = block_image_size(&desc);
        uint8_t *out[THREAD_COUNTS];
        for (int t = 0; t < THREAD_COUNTS; t++) {
            out[t] = malloc(size);
            if (out[t] == NULL)
                bench_die("out of memory");
            r->seconds[t] += encode_timed(row, im, k_threads[t], out[t], &r->cpu[t]);
        }
        r->same_bytes = r->same_bytes && memcmp(out[0], out[1], size) == 0;
        r->pixels += (double)desc.width * desc.height;
        errors *e = &r->per_image[i];
        add_errors(row, im, out[0], e);
        r->err.rgb_sse += e->rgb_sse, r->err.rgb_samples += e->rgb_samples;
        r->err.alpha_sse += e->alpha_sse, r->err.alpha_samples += e->alpha_samples;
        r->err.rgba_sse += e->rgba_sse, r->err.rgba_samples += e->rgba_samples;
        r->err.hdr_mse_pixels += e->hdr_mse_pixels, r->err.hdr_pixels += e->hdr_pixels;
        r->err.angle_sum += e->angle_sum, r->err.angle_texels += e->angle_texels;
        for (int t = 0; t < THREAD_COUNTS; t++)
            free(out[t]);
    }
}

static void print_db(double db) {
    if (isinf(db))
        printf(" exact |");
    else
        printf(" %.2f |", db);
}

static void print_row(const row_spec *row, const result *r) {
    const char *of = row->kinds == KIND_HDR ? "RGB, tone-mapped"
                     : row->rgb_mask == 1   ? "R"
                     : row->rgb_mask == 3   ? "RG"
                                            : "RGB";
    for (int t = 0; t < THREAD_COUNTS; t++) {
        printf("| %s | %s | %u | %.3g | %.2f |", row->format, row->level_name, k_threads[t],
               mpix(r, t), r->cpu[t] / r->seconds[t]);
        if (t == 0) {
            printf(" |");
            print_db(colour_psnr(r));
            printf(" %s |", of);
            if (r->err.alpha_samples > 0)
                print_db(bench_psnr(r->err.alpha_sse, r->err.alpha_samples));
            else
                printf(" |");
            if (r->err.angle_texels > 0)
                printf(" %.2f |", r->err.angle_sum / r->err.angle_texels);
            else
                printf(" |");
            printf(" |\n");
        } else {
            printf(" %.2fx | | | | | %s |\n", r->seconds[0] / r->seconds[1],
                   r->same_bytes ? "yes" : "**NO**");
        }
    }
}

static int find_row(const char *format, const char *level_name) {
    for (int i = 0; i < ROWS; i++)
        if (strcmp(k_rows[i].format, format) == 0 && strcmp(k_rows[i].level_name, level_name) == 0)
            return i;
    bench_die("no row %s %s", format, level_name);
}

/* Colour PSNR per image of the rows the goals compare. */
static void print_per_image(const result *results, const image *images, int count) {
    static const char *rows[][2] = {
        {"BC1", "normal"}, {"BC1", "best"}, {"BC1", "squish cluster fit"},
        {"BC7", "normal"}, {"BC7", "best"}, {"ASTC 4x4", "astcenc -medium"},
    };
    printf("\nPSNR (dB; RGB) per image, 1 thread:\n\n| row |");
    for (int i = 0; i < count; i++)
        if (images[i].kind != KIND_HDR)
            printf(" %s |", images[i].pixels.name);
    printf("\n|---|");
    for (int i = 0; i < count; i++)
        if (images[i].kind != KIND_HDR)
            printf("---:|");
    printf("\n");
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        const result *r = &results[find_row(rows[k][0], rows[k][1])];
        printf("| %s %s |", rows[k][0], rows[k][1]);
        for (int i = 0; i < count; i++) {
            if (images[i].kind == KIND_HDR)
                continue;
            if (r->per_image[i].rgb_samples > 0)
                print_db(errors_psnr(&r->per_image[i]));
            else
                printf(" |");
        }
        printf("\n");
    }
}

static void print_goals(const result *results) {
    const result *bc1 = &results[find_row("BC1", "normal")];
    const result *cluster = &results[find_row("BC1", "squish cluster fit")];
    const result *bc7 = &results[find_row("BC7", "normal")];
    const result *bc7_best = &results[find_row("BC7", "best")];
    const result *medium = &results[find_row("ASTC 4x4", "astcenc -medium")];
    printf("\ngoals (1 thread unless said):\n");
    double d = colour_psnr(bc1) - colour_psnr(cluster);
    double speed = cluster->seconds[0] / bc1->seconds[0];
    printf("  BC1 normal vs squish cluster fit: %+.3f dB RGB, %.2fx its speed -> %s\n", d, speed,
           d >= -0.1 && speed >= 5.0 ? "met" : "NOT met");
    d = rgba_psnr(bc7) - rgba_psnr(medium);
    speed = medium->seconds[0] / bc7->seconds[0];
    double speed2 = medium->seconds[1] / bc7->seconds[1];
    printf("  BC7 normal vs astcenc 4x4 -medium: %+.3f dB RGBA (%+.3f RGB), %.2fx its speed "
           "(2 threads: %.2fx) -> %s\n",
           d, colour_psnr(bc7) - colour_psnr(medium), speed, speed2,
           d >= 0 && speed >= 1.0 ? "met" : "NOT met");
    d = rgba_psnr(bc7_best) - rgba_psnr(bc7);
    printf("  BC7 best vs normal: %+.3f dB RGBA (%+.3f RGB) -> %s\n", d,
           colour_psnr(bc7_best) - colour_psnr(bc7), d >= 0.5 ? "met" : "NOT met");
    for (int q = 0; q < 3; q++) {
        static const char *names[] = {"fast", "normal", "best"};
        const result *bc5 = &results[find_row("BC5", names[q])];
        double angle = bc5->err.angle_sum / bc5->err.angle_texels;
        printf("  BC5 %s mean angular error: %.3f deg -> %s\n", names[q], angle,
               angle < 1.5 ? "below 1.5" : "NOT below 1.5");
    }
    double lo = INFINITY, hi = 0;
    int same = 0, kiln_rows = 0;
    for (int i = 0; i < ROWS; i++) {
        if (k_rows[i].encoder != ENC_KILN)
            continue;
        kiln_rows++;
        same += results[i].same_bytes;
        double s = results[i].seconds[0] / results[i].seconds[1];
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    printf("  block_encode_image 2 threads vs 1: %.2fx to %.2fx over the %d kiln rows\n", lo, hi,
           kiln_rows);
    printf("  same bytes on 1 and 2 threads: %d of %d kiln rows -> %s\n", same, kiln_rows,
           same == kiln_rows ? "met" : "NOT met");
}

int main(int argc, char **argv) {
    uint32_t crop = 256;
    const char *only = NULL;
    int first = 1;
    for (; first + 1 < argc; first += 2) {
        if (strcmp(argv[first], "--crop") == 0)
            crop = (uint32_t)strtoul(argv[first + 1], NULL, 10);
        else if (strcmp(argv[first], "--only") == 0)
            only = argv[first + 1];
        else
            break;
    }
    if (crop < 8)
        bench_die("--crop must be at least 8");
    if (getenv("OMP_WAIT_POLICY") == NULL)
        printf("note: OMP_WAIT_POLICY is not set: libgomp's workers may spin after the squish "
               "rows and slow the rows timed after them (bench/run.sh sets it to passive)\n");
    uint32_t side = crop & ~3u;
    image images[MAX_IMAGES];
    int count = 0;
    for (int i = first; i < argc && count < MAX_IMAGES - 3; i++) {
        bench_load_image(argv[i], crop, &images[count].pixels);
        images[count].kind = classify(&images[count].pixels);
        count++;
    }
    static const char *generated[3] = {"synthetic colour + alpha", "synthetic normal map",
                                       "synthetic HDR"};
    for (int g = 0; g < 3; g++) {
        image *im = &images[count++];
        memset(im, 0, sizeof *im);
        snprintf(im->pixels.name, sizeof im->pixels.name, "%s", generated[g]);
        im->pixels.width = im->pixels.height = side;
        if (g == 0)
            im->pixels.rgba8 = bench_synthetic_rgba8(side);
        else if (g == 1)
            im->pixels.rgba8 = synthetic_normals(side);
        else
            im->pixels.rgbaf = synthetic_hdr(side);
        im->kind = classify(&im->pixels);
    }
    static const char *kind_names[] = {[KIND_COLOUR] = "colour",
                                       [KIND_ALPHA] = "colour + alpha",
                                       [KIND_NORMAL] = "normal map",
                                       [KIND_ORM] = "ORM",
                                       [KIND_HDR] = "HDR"};
    printf("images:\n");
    for (int i = 0; i < count; i++)
        printf("  %s: %ux%u, %s\n", images[i].pixels.name, images[i].pixels.width,
               images[i].pixels.height, kind_names[images[i].kind]);
    printf(
        "\n| format | encoder / quality | threads | Mpix/s | cores busy | 2 vs 1 thread "
        "| PSNR (dB) | of | alpha PSNR (dB) | normals: mean angle (deg) | 1=2 threads bytes |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
    fflush(stdout);
    static result results[ROWS];
    for (int i = 0; i < ROWS; i++) {
        if (only != NULL && strcasecmp(only, k_rows[i].format) != 0)
            continue;
        run_row(&k_rows[i], images, count, &results[i]);
        print_row(&k_rows[i], &results[i]);
        fflush(stdout);
    }
    if (only != NULL) {
        for (int i = 0; i < count; i++)
            bench_image_free(&images[i].pixels);
        return 0;
    }
    print_per_image(results, images, count);
    print_goals(results);
    for (int i = 0; i < count; i++)
        bench_image_free(&images[i].pixels);
    return 0;
}
