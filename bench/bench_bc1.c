/*
 * bench_bc1.c — kiln's BC1 / BC3 / BC4 / BC5 encoders against libsquish.
 *
 *   bench_bc1 [--only bc1|bc3|bc4|bc5] [IMAGE...]
 *
 * Encodes generated images (a smooth noisy "photo", hard-edged flat shapes,
 * an alpha ramp, a normal map) and the given images (PNG/JPEG; at most the
 * central 1024x1024; file names containing "normal" count as normal maps)
 * with kiln at fast / normal / best and with libsquish's range fit, cluster
 * fit and iterative cluster fit (uniform RGB metric). One thread, the same
 * block loop for both; every result is decoded with kiln's decoders (the
 * specification's exact arithmetic), so both are measured the same way.
 *
 * Times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), median of up
 * to 5 runs after a warm-up: other work on a busy machine then moves them
 * much less than wall-clock time would.
 *
 * Prints per format: Mpix/s (pixels / median encode time over all images)
 * and PSNR over all images together (from the summed squared error) and per
 * image: RGB for BC1, alpha and RGB for BC3, R for BC4, RG for BC5.
 * BC1 and BC4 run on every image, BC3 on images whose alpha varies, BC5 on
 * normal maps. Ends with the issue's goal: kiln BC1 `normal` within 0.1 dB of
 * squish's cluster fit at 5x its speed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench_squish.h"
#include "bench_util.h"
#include "cook/encode/encode.h"

enum { KIND_COLOUR = 1, KIND_ALPHA = 2, KIND_NORMAL = 4 };

typedef struct image {
    char name[64];
    uint32_t w, h;
    uint8_t *rgba;
    unsigned kinds;
} image;

typedef enum format_id { FORMAT_BC1, FORMAT_BC3, FORMAT_BC4, FORMAT_BC5, FORMAT_COUNT } format_id;

typedef struct format_info {
    const char *name;
    uint32_t block_bytes;
    unsigned kinds;        /* images it runs on */
    unsigned psnr_mask;    /* channels of the headline PSNR */
    unsigned extra_mask;   /* a second PSNR column, 0 for none */
    const char *psnr_name; /* "RGB", ... */
    const char *extra_name;
} format_info;

static const format_info k_formats[FORMAT_COUNT] = {
    {"BC1", 8, KIND_COLOUR, 7, 0, "RGB", NULL},
    {"BC3", 16, KIND_ALPHA, 8, 7, "A", "RGB"},
    {"BC4", 8, KIND_COLOUR, 1, 0, "R", NULL},
    {"BC5", 16, KIND_NORMAL, 3, 0, "RG", NULL},
};

typedef struct encoder {
    const char *name;
    bool squish;
    int level; /* block_quality or bench_squish_fit */
} encoder;

static const encoder k_encoders[] = {
    {"kiln fast", false, BLOCK_QUALITY_FAST},
    {"kiln normal", false, BLOCK_QUALITY_NORMAL},
    {"kiln best", false, BLOCK_QUALITY_BEST},
    {"squish range fit", true, BENCH_SQUISH_RANGE},
    {"squish cluster fit", true, BENCH_SQUISH_CLUSTER},
    {"squish iterative cluster fit", true, BENCH_SQUISH_ITERATIVE_CLUSTER},
};
#define ENCODER_COUNT (sizeof k_encoders / sizeof k_encoders[0])

/* ---- generated images --------------------------------------------------------------------- */

static uint32_t rng_next(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* Smooth value noise in [0, 1] from a 17x17 lattice, bilinear with smoothstep. */
typedef struct lattice {
    float v[17][17];
} lattice;

static void lattice_init(lattice *l, uint32_t seed) {
    for (int y = 0; y < 17; y++)
        for (int x = 0; x < 17; x++)
            l->v[y][x] = (float)(rng_next(&seed) & 0xffff) / 65535.0f;
}

static float lattice_at(const lattice *l, float u, float v) {
    float fx = u * 16.0f, fy = v * 16.0f;
    int x = (int)fx, y = (int)fy;
    x = x > 15 ? 15 : x;
    y = y > 15 ? 15 : y;
    float tx = fx - (float)x, ty = fy - (float)y;
    tx = tx * tx * (3 - 2 * tx);
    ty = ty * ty * (3 - 2 * ty);
    float a = l->v[y][x] + (l->v[y][x + 1] - l->v[y][x]) * tx;
    float b = l->v[y + 1][x] + (l->v[y + 1][x + 1] - l->v[y + 1][x]) * tx;
    return a + (b - a) * ty;
}

static uint8_t to_byte(float v) {
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    return (uint8_t)lrintf(v * 255.0f);
}

static image image_new(const char *name, uint32_t w, uint32_t h, unsigned kinds) {
    image im = {.w = w, .h = h, .kinds = kinds};
    snprintf(im.name, sizeof im.name, "%s", name);
    im.rgba = malloc((size_t)w * h * 4);
    if (im.rgba == NULL)
        bench_die("out of memory");
    return im;
}

/* Colour noise of several frequencies over a gradient, plus fine grain. */
static image make_photo(uint32_t size) {
    image im = image_new("gen: noisy photo", size, size, KIND_COLOUR);
    lattice l[3];
    for (int c = 0; c < 3; c++)
        lattice_init(&l[c], 0x9e3779b9u * (uint32_t)(c + 1));
    uint32_t seed = 12345;
    for (uint32_t y = 0; y < size; y++)
        for (uint32_t x = 0; x < size; x++) {
            float u = (float)x / (float)size, v = (float)y / (float)size;
            uint8_t *p = im.rgba + ((size_t)y * size + x) * 4;
            for (int c = 0; c < 3; c++) {
                float n = 0.5f * lattice_at(&l[c], u, v) +
                          0.3f * lattice_at(&l[(c + 1) % 3], fmodf(u * 5, 1), fmodf(v * 5, 1)) +
                          0.2f * (c == 0   ? u
                                  : c == 1 ? v
                                           : 1 - u);
                n += ((float)(rng_next(&seed) & 255) / 255.0f - 0.5f) * 0.04f;
                p[c] = to_byte(n);
            }
            p[3] = 255;
        }
    return im;
}

/* Flat rectangles of random colours: hard edges, mostly 2-colour blocks. */
static image make_edges(uint32_t size) {
    image im = image_new("gen: hard edges", size, size, KIND_COLOUR);
    memset(im.rgba, 255, (size_t)size * size * 4);
    uint32_t seed = 777;
    for (int r = 0; r < 300; r++) {
        uint32_t x0 = rng_next(&seed) % size, y0 = rng_next(&seed) % size;
        uint32_t x1 = x0 + rng_next(&seed) % (size / 4), y1 = y0 + rng_next(&seed) % (size / 4);
        uint32_t colour = rng_next(&seed);
        for (uint32_t y = y0; y < y1 && y < size; y++)
            for (uint32_t x = x0; x < x1 && x < size; x++) {
                uint8_t *p = im.rgba + ((size_t)y * size + x) * 4;
                p[0] = (uint8_t)colour;
                p[1] = (uint8_t)(colour >> 8);
                p[2] = (uint8_t)(colour >> 16);
            }
    }
    return im;
}

/* Colour gradient with soft radial alpha and a hard-edged cut-out. */
static image make_alpha(uint32_t size) {
    image im = image_new("gen: alpha ramp", size, size, KIND_COLOUR | KIND_ALPHA);
    lattice l;
    lattice_init(&l, 4242);
    for (uint32_t y = 0; y < size; y++)
        for (uint32_t x = 0; x < size; x++) {
            float u = (float)x / (float)size, v = (float)y / (float)size;
            uint8_t *p = im.rgba + ((size_t)y * size + x) * 4;
            p[0] = to_byte(u);
            p[1] = to_byte(lattice_at(&l, u, v));
            p[2] = to_byte(1 - v);
            float d = sqrtf((u - 0.5f) * (u - 0.5f) + (v - 0.5f) * (v - 0.5f));
            float a = 1.0f - d * 1.6f + 0.3f * lattice_at(&l, v, u);
            if (u > 0.7f && v > 0.7f)
                a = 0;
            p[3] = to_byte(a);
        }
    return im;
}

/* Tangent-space normals of a height field of bumps and waves. */
static image make_normal(uint32_t size) {
    image im = image_new("gen: normal map", size, size, KIND_NORMAL);
    lattice l;
    lattice_init(&l, 99);
    for (uint32_t y = 0; y < size; y++)
        for (uint32_t x = 0; x < size; x++) {
            float u = (float)x / (float)size, v = (float)y / (float)size, e = 1.0f / (float)size;
            float h = lattice_at(&l, u, v);
            float hx = lattice_at(&l, fminf(u + e, 1), v) - h;
            float hy = lattice_at(&l, u, fminf(v + e, 1)) - h;
            float nx = -hx * 40.0f + 0.3f * sinf(u * 40.0f), ny = -hy * 40.0f, nz = 1.0f;
            float len = sqrtf(nx * nx + ny * ny + nz * nz);
            uint8_t *p = im.rgba + ((size_t)y * size + x) * 4;
            p[0] = to_byte(nx / len * 0.5f + 0.5f);
            p[1] = to_byte(ny / len * 0.5f + 0.5f);
            p[2] = to_byte(nz / len * 0.5f + 0.5f);
            p[3] = 255;
        }
    return im;
}

/* A file, its central crop of at most 1024x1024. */
static image load_image(const char *path) {
    bench_image loaded;
    bench_load_image(path, 1024, &loaded);
    if (loaded.rgba8 == NULL)
        bench_die("%s: not an 8-bit image", path);
    bool normal = strstr(loaded.name, "normal") != NULL;
    image im = {.w = loaded.width, .h = loaded.height, .rgba = loaded.rgba8};
    im.kinds = normal ? KIND_NORMAL : KIND_COLOUR;
    snprintf(im.name, sizeof im.name, "%s", loaded.name);
    for (size_t i = 0; i < (size_t)im.w * im.h; i++)
        if (im.rgba[i * 4 + 3] != 255) {
            im.kinds |= KIND_ALPHA;
            break;
        }
    return im;
}

/* ---- encoding and measuring --------------------------------------------------------------- */

/* Texels of block (bx, by), edges replicated. */
static void fetch_block(const image *im, uint32_t bx, uint32_t by, uint8_t block[64]) {
    for (uint32_t y = 0; y < 4; y++)
        for (uint32_t x = 0; x < 4; x++) {
            uint32_t sx = bx * 4 + x, sy = by * 4 + y;
            sx = sx < im->w ? sx : im->w - 1;
            sy = sy < im->h ? sy : im->h - 1;
            memcpy(block + (y * 4 + x) * 4, im->rgba + ((size_t)sy * im->w + sx) * 4, 4);
        }
}

typedef struct job {
    const image *im;
    format_id format;
    const encoder *enc;
    uint8_t *blocks;
} job;

static void encode_block(format_id format, const encoder *enc, const uint8_t rgba[64],
                         uint8_t *out) {
    if (enc->squish) {
        /* Opaque BC1: squish would make alpha < 128 transparent black. */
        uint8_t opaque[64];
        if (format == FORMAT_BC1) {
            memcpy(opaque, rgba, 64);
            for (int i = 0; i < 16; i++)
                opaque[i * 4 + 3] = 255;
            rgba = opaque;
        }
        static const bench_squish_format squish_formats[FORMAT_COUNT] = {
            BENCH_SQUISH_BC1, BENCH_SQUISH_BC3, BENCH_SQUISH_BC4, BENCH_SQUISH_BC5};
        bench_squish_encode_block(rgba, squish_formats[format], (bench_squish_fit)enc->level, out);
        return;
    }
    block_quality q = (block_quality)enc->level;
    switch (format) {
    case FORMAT_BC1:
        bc1_encode_block(rgba, false, q, out);
        break;
    case FORMAT_BC3:
        bc3_encode_block(rgba, q, out);
        break;
    case FORMAT_BC4: {
        uint8_t red[16];
        for (int i = 0; i < 16; i++)
            red[i] = rgba[i * 4];
        bc4_encode_block(red, q, out);
        break;
    }
    default:
        bc5_encode_block(rgba, q, out);
        break;
    }
}

static void op_encode(void *arg) {
    job *j = arg;
    uint32_t bw = (j->im->w + 3) / 4, bh = (j->im->h + 3) / 4;
    uint32_t bytes = k_formats[j->format].block_bytes;
    uint8_t block[64];
    for (uint32_t by = 0; by < bh; by++)
        for (uint32_t bx = 0; bx < bw; bx++) {
            fetch_block(j->im, bx, by, block);
            encode_block(j->format, j->enc, block, j->blocks + ((size_t)by * bw + bx) * bytes);
        }
}

static void decode_block(format_id format, const uint8_t *in, uint8_t rgba[64]) {
    switch (format) {
    case FORMAT_BC1:
        bc1_decode_block(in, rgba);
        break;
    case FORMAT_BC3:
        bc3_decode_block(in, rgba);
        break;
    case FORMAT_BC4: {
        uint8_t red[16];
        bc4_decode_block(in, red);
        for (int i = 0; i < 16; i++)
            rgba[i * 4] = red[i];
        break;
    }
    default:
        bc5_decode_block(in, rgba);
        break;
    }
}

/* Median CPU seconds of up to 5 runs (at least 3, stopping after 1 s). */
static double measure_cpu(job *j) {
    double runs[5], spent = 0;
    int n = 0;
    op_encode(j);
    while (n < 5 && (n < 3 || spent < 1.0)) {
        double t0 = bench_thread_seconds();
        op_encode(j);
        runs[n] = bench_thread_seconds() - t0;
        spent += runs[n++];
    }
    qsort(runs, (size_t)n, sizeof runs[0], bench_compare_doubles);
    return runs[n / 2];
}

/* Summed squared error over the channels in `mask`, and the sample count. */
typedef struct error_sum {
    double sse;
    double samples;
} error_sum;

static double psnr_of(error_sum e) {
    return bench_psnr(e.sse, e.samples);
}

/* Decodes the job's blocks into `rgba` (the image's size). */
static void decode_image(const job *j, uint8_t *rgba) {
    uint32_t bw = (j->im->w + 3) / 4, bh = (j->im->h + 3) / 4;
    uint32_t bytes = k_formats[j->format].block_bytes;
    uint8_t block[64];
    for (uint32_t by = 0; by < bh; by++)
        for (uint32_t bx = 0; bx < bw; bx++) {
            decode_block(j->format, j->blocks + ((size_t)by * bw + bx) * bytes, block);
            for (uint32_t y = 0; y < 4 && by * 4 + y < j->im->h; y++)
                for (uint32_t x = 0; x < 4 && bx * 4 + x < j->im->w; x++)
                    memcpy(rgba + ((size_t)(by * 4 + y) * j->im->w + bx * 4 + x) * 4,
                           block + (y * 4 + x) * 4, 4);
        }
}

static void measure_error(const uint8_t *source, const uint8_t *decoded, size_t pixels,
                          unsigned mask, error_sum *e) {
    e->sse += bench_sse_rgba8(source, decoded, pixels, mask, &e->samples);
}

typedef struct result {
    double seconds; /* summed median encode times */
    double pixels;
    error_sum total, extra;
    double per_image[16];
} result;

static void run_format(format_id f, const image *images, int count, result *results) {
    const format_info *fi = &k_formats[f];
    printf("\n### %s (PSNR %s%s%s)\n\n", fi->name, fi->psnr_name, fi->extra_name ? ", " : "",
           fi->extra_name ? fi->extra_name : "");
    printf("| encoder | Mpix/s | PSNR %s |", fi->psnr_name);
    if (fi->extra_name)
        printf(" PSNR %s |", fi->extra_name);
    int used = 0;
    for (int i = 0; i < count; i++)
        if (images[i].kinds & fi->kinds) {
            printf(" %s |", images[i].name);
            used++;
        }
    printf("\n|---|---:|---:|");
    if (fi->extra_name)
        printf("---:|");
    for (int i = 0; i < used; i++)
        printf("---:|");
    printf("\n");
    for (size_t e = 0; e < ENCODER_COUNT; e++) {
        result *r = &results[e];
        memset(r, 0, sizeof *r);
        int slot = 0;
        for (int i = 0; i < count; i++) {
            const image *im = &images[i];
            if (!(im->kinds & fi->kinds))
                continue;
            size_t nblocks = (size_t)((im->w + 3) / 4) * ((im->h + 3) / 4);
            job j = {.im = im, .format = f, .enc = &k_encoders[e]};
            j.blocks = malloc(nblocks * fi->block_bytes);
            if (j.blocks == NULL)
                bench_die("out of memory");
            r->seconds += measure_cpu(&j);
            r->pixels += (double)im->w * im->h;
            size_t pixels = (size_t)im->w * im->h;
            uint8_t *decoded = malloc(pixels * 4);
            if (decoded == NULL)
                bench_die("out of memory");
            decode_image(&j, decoded);
            error_sum one = {0, 0};
            measure_error(im->rgba, decoded, pixels, fi->psnr_mask, &one);
            r->total.sse += one.sse;
            r->total.samples += one.samples;
            if (fi->extra_mask)
                measure_error(im->rgba, decoded, pixels, fi->extra_mask, &r->extra);
            free(decoded);
            if (slot < 16)
                r->per_image[slot++] = psnr_of(one);
            free(j.blocks);
        }
        printf("| %s | %.2f | %.2f |", k_encoders[e].name, r->pixels / r->seconds / 1e6,
               psnr_of(r->total));
        if (fi->extra_name)
            printf(" %.2f |", psnr_of(r->extra));
        for (int i = 0; i < slot; i++)
            printf(" %.2f |", r->per_image[i]);
        printf("\n");
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
    int only = -1, first = 1;
    if (argc >= 3 && strcmp(argv[1], "--only") == 0) {
        for (int f = 0; f < FORMAT_COUNT; f++)
            if (strcasecmp(argv[2], k_formats[f].name) == 0)
                only = f;
        if (only < 0)
            bench_die("--only: unknown format %s", argv[2]);
        first = 3;
    }
    image images[16];
    int count = 0;
    images[count++] = make_photo(512);
    images[count++] = make_edges(512);
    images[count++] = make_alpha(512);
    images[count++] = make_normal(512);
    for (int i = first; i < argc && count < 16; i++)
        images[count++] = load_image(argv[i]);
    printf("images:");
    for (int i = 0; i < count; i++)
        printf(" %s (%ux%u)", images[i].name, images[i].w, images[i].h);
    printf("\n");
    result results[FORMAT_COUNT][ENCODER_COUNT];
    for (int f = 0; f < FORMAT_COUNT; f++)
        if (only < 0 || only == f)
            run_format((format_id)f, images, count, results[f]);
    /* The goal: kiln normal (row 1) against squish cluster fit (row 4). */
    if (only <= FORMAT_BC1) {
        const result *kiln = &results[FORMAT_BC1][1], *cluster = &results[FORMAT_BC1][4];
        double dpsnr = psnr_of(kiln->total) - psnr_of(cluster->total);
        double speedup = cluster->seconds / kiln->seconds;
        printf("\nBC1 goal: kiln normal vs squish cluster fit: %+.3f dB, %.1fx the speed: %s\n",
               dpsnr, speedup, dpsnr >= -0.1 && speedup >= 5.0 ? "met" : "not met");
    }
    for (int i = 0; i < count; i++)
        free(images[i].rgba);
    return 0;
}
