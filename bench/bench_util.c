/* bench_util.c — timing, statistics and test-data generation for bench/. */
#include "bench_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#define BENCH_MIN_REPS 3u

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of the first `count` samples (sorts them in place). */
static double median_of(double *samples, uint32_t count) {
    qsort(samples, count, sizeof samples[0], compare_doubles);
    if (count % 2 == 1)
        return samples[count / 2];
    return 0.5 * (samples[count / 2 - 1] + samples[count / 2]);
}

/* Minor page faults so far. Counted because for the loads measured here they
 * are much of the cost: mapping costs a fault per page touched, and a fresh
 * multi-megabyte malloc block a fault per page written. */
static long minor_faults_now(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
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
    double spent = 0.0;
    long faults_before = minor_faults_now();
    while (reps < max_reps && (reps < BENCH_MIN_REPS || spent < budget_seconds)) {
        double start = bench_now();
        op(arg);
        double elapsed = bench_now() - start;
        samples[reps++] = elapsed;
        spent += elapsed;
    }

    /* median_of sorts, so the minimum is read only afterwards. */
    bench_stats stats = {.reps = reps};
    stats.minor_faults = (double)(minor_faults_now() - faults_before) / reps;
    stats.median = median_of(samples, reps);
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
