/* bench_util.c — timing, statistics and test-data generation for bench/. */
#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cook/drivers/drivers.h"

#define BENCH_MIN_REPS 3u

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bench_compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, uint32_t count) {
    qsort(values, count, sizeof values[0], bench_compare_doubles);
    if (count % 2 == 1)
        return values[count / 2];
    return 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* Minor page faults so far. Counted because for the loads measured here they
 * are much of the cost: mapping costs a fault per page touched, and a fresh
 * multi-megabyte malloc block a fault per page written. */
static long minor_faults_now(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

/* CPU time of every thread of this process. */
static double process_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bench_stats bench_measure(bench_op op, void *arg, uint32_t max_reps, double budget_seconds) {
    if (max_reps < BENCH_MIN_REPS)
        max_reps = BENCH_MIN_REPS;
    double *samples = malloc(max_reps * sizeof *samples);
    if (samples == NULL)
        bench_die("out of memory for %u samples", max_reps);

    op(arg); /* warm-up, discarded */

    /* Each run is timed on its own rather than timing a loop and dividing:
     * it costs one clock read per run (tens of nanoseconds, small against the
     * microseconds the fastest operation here takes) and gives a distribution
     * instead of a mean. */
    uint32_t reps = 0;
    double spent = 0.0, cpu_min = INFINITY;
    long faults_before = minor_faults_now();
    while (reps < max_reps && (reps < BENCH_MIN_REPS || spent < budget_seconds)) {
        double cpu_start = process_seconds(), start = bench_now();
        op(arg);
        double elapsed = bench_now() - start, cpu = process_seconds() - cpu_start;
        samples[reps++] = elapsed;
        spent += elapsed;
        cpu_min = cpu < cpu_min ? cpu : cpu_min;
    }

    /* median_of sorts, so the minimum is read only afterwards. */
    bench_stats stats = {.reps = reps, .cpu_min = cpu_min};
    stats.minor_faults = (double)(minor_faults_now() - faults_before) / reps;
    stats.median = bench_median(samples, reps);
    stats.min = samples[0];
    free(samples);
    return stats;
}

void bench_die(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fputs("bench: ", stderr);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

/* Three significant digits of `value` followed by `unit`. */
static void format_3sig(double value, const char *unit, char *out, size_t capacity) {
    int decimals = value >= 100.0 ? 0 : value >= 10.0 ? 1 : 2;
    snprintf(out, capacity, "%.*f %s", decimals, value, unit);
}

void bench_format_duration(double seconds, char *out, size_t capacity) {
    if (seconds < 1e-6)
        format_3sig(seconds * 1e9, "ns", out, capacity);
    else if (seconds < 1e-3)
        format_3sig(seconds * 1e6, "us", out, capacity);
    else if (seconds < 1.0)
        format_3sig(seconds * 1e3, "ms", out, capacity);
    else
        format_3sig(seconds, "s", out, capacity);
}

void bench_format_bytes(uint64_t bytes, char *out, size_t capacity) {
    if (bytes < 1000)
        snprintf(out, capacity, "%u B", (unsigned)bytes);
    else if (bytes < 1000 * 1000)
        format_3sig((double)bytes / 1e3, "kB", out, capacity);
    else
        format_3sig((double)bytes / 1e6, "MB", out, capacity);
}

uint64_t bench_file_size(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0)
        bench_die("cannot stat '%s': %s", path, strerror(errno));
    return (uint64_t)st.st_size;
}

uint8_t *bench_read_whole(const char *path, size_t *size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0)
        bench_die("%s: %s", path, strerror(errno));
    uint8_t *data = aligned_alloc(16, ((size_t)end + 16) / 16 * 16);
    if (data == NULL)
        bench_die("%s: out of memory", path);
    size_t done = 0;
    while (done < (size_t)end) {
        ssize_t got = pread(fd, data + done, (size_t)end - done, (off_t)done);
        if (got <= 0)
            bench_die("%s: short read", path);
        done += (size_t)got;
    }
    close(fd);
    *size = (size_t)end;
    return data;
}

bool bench_has_suffix(const char *text, const char *suffix) {
    size_t text_length = strlen(text), suffix_length = strlen(suffix);
    return text_length >= suffix_length &&
           memcmp(text + text_length - suffix_length, suffix, suffix_length) == 0;
}

const char *bench_split_path(const char *path, char *dir, size_t dir_capacity) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        snprintf(dir, dir_capacity, ".");
        return path;
    }
    /* "/x.obj" keeps "/" as its folder rather than becoming "". */
    int dir_length = slash == path ? 1 : (int)(slash - path);
    snprintf(dir, dir_capacity, "%.*s", dir_length, path);
    return slash + 1;
}

void bench_cook(const char *path, const char *out_dir, cook_asset_result *result) {
    char input_root[4096];
    const char *source_path = bench_split_path(path, input_root, sizeof input_root);
    const cook_importer *importer = cook_registry_match(source_path);
    if (importer == NULL)
        bench_die("no importer claims '%s'", path);
    cook_settings settings;
    cook_settings_default(&settings);
    cook_request request = {
        .input_root = input_root,
        .output_root = out_dir,
        .source_path = source_path,
        .importer = importer,
        .settings = &settings,
        .verify = true,
    };
    if (!cook_asset(&request, result)) {
        fwrite(result->diag.text.data, 1, result->diag.text.size, stderr);
        bench_die("cooking '%s' failed", path);
    }
}

/* ---------------------------------------------------------------------------
 * The grid (written as OBJ here and as GLB by bench_glb.c)
 *
 * A flat grid would let a clever importer or a compressor take shortcuts on
 * repeated values, so the surface is a smooth height field with distinct
 * positions and normals everywhere. Coordinates span [-1, 1] in x and z.
 * ------------------------------------------------------------------------- */

#define GRID_AMPLITUDE 0.1
#define GRID_FREQ_X 7.0
#define GRID_FREQ_Z 5.0

static double grid_height(double x, double z) {
    return GRID_AMPLITUDE * sin(GRID_FREQ_X * x) * cos(GRID_FREQ_Z * z);
}

/* The analytic normal of y = h(x, z): normalize(-dh/dx, 1, -dh/dz). */
static void grid_normal(double x, double z, double n[3]) {
    double dhdx = GRID_AMPLITUDE * GRID_FREQ_X * cos(GRID_FREQ_X * x) * cos(GRID_FREQ_Z * z);
    double dhdz = -GRID_AMPLITUDE * GRID_FREQ_Z * sin(GRID_FREQ_X * x) * sin(GRID_FREQ_Z * z);
    double length = sqrt(dhdx * dhdx + 1.0 + dhdz * dhdz);
    n[0] = -dhdx / length;
    n[1] = 1.0 / length;
    n[2] = -dhdz / length;
}

void bench_grid_vertex_at(uint32_t quads_per_side, uint32_t row, uint32_t col,
                          bench_grid_vertex *out) {
    double x = -1.0 + 2.0 * col / quads_per_side;
    double z = -1.0 + 2.0 * row / quads_per_side;
    out->position[0] = x;
    out->position[1] = grid_height(x, z);
    out->position[2] = z;
    grid_normal(x, z, out->normal);
    out->uv[0] = (double)col / quads_per_side;
    out->uv[1] = (double)row / quads_per_side;
}

/* Three passes (v, vt, vn) so each attribute block is contiguous, the way
 * exporters lay OBJ files out. */
static void write_grid_vertices(FILE *out, uint32_t quads) {
    uint32_t points = quads + 1;
    bench_grid_vertex v;
    for (uint32_t row = 0; row < points; row++) {
        for (uint32_t col = 0; col < points; col++) {
            bench_grid_vertex_at(quads, row, col, &v);
            fprintf(out, "v %.6f %.6f %.6f\n", v.position[0], v.position[1], v.position[2]);
        }
    }
    for (uint32_t row = 0; row < points; row++) {
        for (uint32_t col = 0; col < points; col++) {
            bench_grid_vertex_at(quads, row, col, &v);
            fprintf(out, "vt %.6f %.6f\n", v.uv[0], v.uv[1]);
        }
    }
    for (uint32_t row = 0; row < points; row++) {
        for (uint32_t col = 0; col < points; col++) {
            bench_grid_vertex_at(quads, row, col, &v);
            fprintf(out, "vn %.6f %.6f %.6f\n", v.normal[0], v.normal[1], v.normal[2]);
        }
    }
}

/* One quad per cell, counter-clockwise seen from +y. Indices are 1-based and
 * v, vt and vn share them, as in most exported OBJ files. */
static void write_grid_faces(FILE *out, uint32_t quads) {
    uint32_t points = quads + 1;
    for (uint32_t row = 0; row < quads; row++) {
        for (uint32_t col = 0; col < quads; col++) {
            unsigned a = row * points + col + 1;
            unsigned b = a + points;
            unsigned c = b + 1;
            unsigned d = a + 1;
            fprintf(out, "f %u/%u/%u %u/%u/%u %u/%u/%u %u/%u/%u\n", a, a, a, b, b, b, c, c, c, d, d,
                    d);
        }
    }
}

bool bench_write_grid_obj(const char *path, uint32_t quads_per_side, char *reason,
                          size_t reason_size) {
    if (quads_per_side == 0 || quads_per_side > 20000) {
        snprintf(reason, reason_size, "grid size %u is out of range 1..20000", quads_per_side);
        return false;
    }
    char temp_path[4096];
    snprintf(temp_path, sizeof temp_path, "%s.tmp", path);
    FILE *out = fopen(temp_path, "w");
    if (out == NULL) {
        snprintf(reason, reason_size, "cannot create '%s': %s", temp_path, strerror(errno));
        return false;
    }
    fprintf(out, "# kiln benchmark grid: %u x %u quads, %llu triangles\n", quads_per_side,
            quads_per_side, 2ull * quads_per_side * quads_per_side);
    fprintf(out, "o grid\n");
    write_grid_vertices(out, quads_per_side);
    write_grid_faces(out, quads_per_side);

    bool ok = !ferror(out);
    if (fclose(out) != 0)
        ok = false;
    if (ok && rename(temp_path, path) != 0)
        ok = false;
    if (!ok) {
        snprintf(reason, reason_size, "cannot write '%s': %s", path, strerror(errno));
        remove(temp_path);
    }
    return ok;
}

/* ---------------------------------------------------------------------------
 * Images
 * ------------------------------------------------------------------------- */

double bench_thread_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bench_load_image(const char *path, uint32_t crop, bench_image *out) {
    uint8_t *bytes;
    size_t size;
    char reason[256];
    if (!cook_read_file(path, (size_t)1 << 30, &bytes, &size, reason, sizeof reason))
        bench_die("%s: %s", path, reason);
    ir_decoded_image decoded;
    if (!image_decode(bytes, size, path, NULL, &decoded, reason, sizeof reason))
        bench_die("%s: %s", path, reason);
    free(bytes);
    uint32_t w = crop && decoded.width > crop ? crop : decoded.width;
    uint32_t h = crop && decoded.height > crop ? crop : decoded.height;
    w &= ~3u, h &= ~3u;
    if (w == 0 || h == 0)
        bench_die("%s: smaller than one 4x4 block", path);
    memset(out, 0, sizeof *out);
    const char *base = strrchr(path, '/');
    snprintf(out->name, sizeof out->name, "%s", base ? base + 1 : path);
    out->width = w, out->height = h;
    /* Texels are 4 bytes (8-bit) or 16 bytes (float); copy the central rows. */
    size_t texel = decoded.rgba8 ? 4 : 4 * sizeof(float);
    const uint8_t *src = decoded.rgba8 ? decoded.rgba8 : (const uint8_t *)decoded.rgbaf;
    uint8_t *dst = malloc((size_t)w * h * texel);
    if (dst == NULL)
        bench_die("out of memory");
    uint32_t x0 = (decoded.width - w) / 2, y0 = (decoded.height - h) / 2;
    for (uint32_t y = 0; y < h; y++)
        memcpy(dst + (size_t)y * w * texel, src + ((size_t)(y0 + y) * decoded.width + x0) * texel,
               (size_t)w * texel);
    if (decoded.rgba8)
        out->rgba8 = dst;
    else
        out->rgbaf = (float *)dst;
    ir_decoded_image_free(&decoded);
}

void bench_image_free(bench_image *image) {
    free(image->rgba8);
    free(image->rgbaf);
    image->rgba8 = NULL;
    image->rgbaf = NULL;
}

uint8_t *bench_synthetic_rgba8(uint32_t n) {
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
            /* Coordinates scaled as if the image were 512 wide, so every
             * size shows the same pattern. */
            uint32_t sx = x * 512 / n, sy = y * 512 / n;
            if (q == 0) {
                p[0] = (uint8_t)sx, p[1] = (uint8_t)sy, p[2] = (uint8_t)(255 - (sx + sy) / 2);
                p[3] = 255;
            } else if (q == 1) {
                int v = 60 + (int)(sx - 256) / 2 + noise;
                p[0] = (uint8_t)v, p[1] = (uint8_t)(v / 2 + 40), p[2] = (uint8_t)(200 - v / 3);
                p[3] = 255;
            } else if (q == 2) {
                int dx = (int)(sx % 64) - 32, dy = (int)(sy % 64) - 32;
                bool disc = dx * dx + dy * dy < 400, stripe = ((sx + sy) / 12) % 2 == 0;
                p[0] = disc ? 230 : stripe ? 30 : 120, p[1] = disc ? 50 : stripe ? 180 : 120;
                p[2] = disc ? 40 : stripe ? 90 : 240, p[3] = 255;
            } else {
                p[0] = (uint8_t)(sx - 256), p[1] = (uint8_t)(255 - (sy - 256));
                p[2] = 128, p[3] = (uint8_t)((sx + sy) / 4);
            }
        }
    }
    return img;
}

double bench_sse_rgba8(const uint8_t *a, const uint8_t *b, size_t pixels, unsigned channel_mask,
                       double *samples) {
    double sse = 0.0;
    for (size_t i = 0; i < pixels; i++)
        for (unsigned c = 0; c < 4; c++)
            if (channel_mask & (1u << c)) {
                double d = (double)a[i * 4 + c] - (double)b[i * 4 + c];
                sse += d * d;
                *samples += 1.0;
            }
    return sse;
}

double bench_psnr(double sse, double samples) {
    return sse <= 0.0 ? INFINITY : 10.0 * log10(255.0 * 255.0 * samples / sse);
}
