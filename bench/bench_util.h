/*
 * bench_util.h — timing, statistics and test-data generation shared by the
 * benchmarks in bench/.
 *
 * Every benchmark follows the same pattern: one untimed warm-up run (page
 * cache, allocator arenas, lazy initialisation in libraries), then many runs
 * each timed on its own with CLOCK_MONOTONIC, summarised as median and min.
 * The median is what we compare: it ignores the occasional run disturbed by the
 * scheduler, and unlike the mean it is not dragged by one slow outlier.
 */
#ifndef KILN_BENCH_UTIL_H
#define KILN_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------
 * Timing
 * ------------------------------------------------------------------------- */

/* Seconds on the monotonic clock (arbitrary origin). */
double bench_now(void);

/* One operation to time. It must do the whole operation (open, use, release)
 * and stop the program through bench_die() if it fails: a benchmark of a
 * failing call would report nonsense. */
typedef void (*bench_op)(void *arg);

typedef struct bench_stats {
    double median;       /* seconds */
    double min;          /* seconds */
    double minor_faults; /* page faults per timed run, on average */
    double cpu_min;      /* seconds of this process's CPU time (every thread), fastest
                            run: moves much less than wall time on a busy machine */
    uint32_t reps;       /* timed runs (the warm-up is not counted) */
} bench_stats;

/* qsort's comparison of doubles, ascending. */
int bench_compare_doubles(const void *a, const void *b);
/* The median of `count` values (the mean of the middle two when `count` is
 * even); sorts them in place. */
double bench_median(double *values, uint32_t count);

/* Runs `op` once untimed, then times up to `max_reps` runs. Stops early once
 * `budget_seconds` of timed runs have passed, but never before 3 runs, so slow
 * operations get few repetitions and fast ones many. */
bench_stats bench_measure(bench_op op, void *arg, uint32_t max_reps, double budget_seconds);

/* ---------------------------------------------------------------------------
 * Reporting
 * ------------------------------------------------------------------------- */

/* Prints a message to stderr and exits with status 1. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* "812 ns", "4.21 us", "13.0 ms", "2.41 s": 3 significant digits, ASCII only so
 * printf field widths line up. */
void bench_format_duration(double seconds, char *out, size_t capacity);

/* "24.1 MB" (decimal megabytes, like the MB/s figures). */
void bench_format_bytes(uint64_t bytes, char *out, size_t capacity);

/* Size of a file in bytes; dies when it cannot be read. */
uint64_t bench_file_size(const char *path);

/* The whole file in 16-byte aligned memory (free() it) and its size; NULL
 * when it cannot be opened; dies when it cannot be read whole. */
uint8_t *bench_read_whole(const char *path, size_t *size);

/* True when `text` ends with `suffix` ("grid.kmesh", ".kmesh"). */
bool bench_has_suffix(const char *text, const char *suffix);

/* Splits "a/b/c.obj" into a folder ("a/b", or "." when there is none) and a
 * file name ("c.obj"). `dir` must hold at least strlen(path) + 2 bytes. */
const char *bench_split_path(const char *path, char *dir, size_t dir_capacity);

/* The largest source file a benchmark reads. */
#define BENCH_SOURCE_MAX_BYTES ((size_t)2 << 30)

/* Cooks the source at `path` into `out_dir` through cook_asset, as `kiln
 * build` would with the default settings and --verify (a file a benchmark
 * then fails to open helps no one); stops the program with the cook's
 * messages when it fails. The caller frees `result`. */
struct cook_asset_result;
void bench_cook(const char *path, const char *out_dir, struct cook_asset_result *result);

/* ---------------------------------------------------------------------------
 * Test data
 * ------------------------------------------------------------------------- */

/* One point of the benchmark's height field: a grid of quads_per_side x
 * quads_per_side quads over x, z in [-1, 1], y a smooth wave. Every point has a
 * distinct position and normal, so nothing can be shortcut by deduplication. */
typedef struct bench_grid_vertex {
    double position[3];
    double normal[3]; /* unit length, the surface's analytic normal */
    double uv[2];     /* column / quads, row / quads */
} bench_grid_vertex;

/* The point at `row`, `col` (each 0..quads_per_side). Both file writers use
 * it, so the OBJ and the GLB of one size describe the same surface. */
void bench_grid_vertex_at(uint32_t quads_per_side, uint32_t row, uint32_t col,
                          bench_grid_vertex *out);

/* Writes a wavy height-field grid of quads_per_side x quads_per_side quads as
 * OBJ: one v/vt/vn per grid point and one quad face "f a/a/a b/b/b ..." per
 * cell, so 2 * quads_per_side^2 triangles after triangulation. The output is
 * the same on every run (no randomness), written to a temporary name and
 * renamed, so an interrupted run never leaves a truncated file behind. */
bool bench_write_grid_obj(const char *path, uint32_t quads_per_side, char *reason,
                          size_t reason_size);

/* The same grid as a binary glTF (GLB, bench_glb.c): one mesh, one triangle
 * primitive with POSITION, NORMAL, TEXCOORD_0 (float) and u32 indices, the
 * two triangles of each cell in row-major order as an exporter writes them.
 * Deterministic and written atomically like the OBJ. */
bool bench_write_grid_glb(const char *path, uint32_t quads_per_side, char *reason,
                          size_t reason_size);

/* ---------------------------------------------------------------------------
 * Images (block-compression benchmarks; decoded by kiln's image_decode)
 * ------------------------------------------------------------------------- */

/* Seconds of CPU time this thread has used: moves much less than wall time
 * when other work shares the machine. */
double bench_thread_seconds(void);

/* An image in memory: exactly one of rgba8 / rgbaf is set (RGBA texels, rows
 * top to bottom). */
typedef struct bench_image {
    char name[64]; /* file name without its folder, or a generated image's name */
    uint32_t width, height;
    uint8_t *rgba8;
    float *rgbaf; /* HDR files (.hdr) */
} bench_image;

/* Reads and decodes `path` (PNG, JPEG, HDR, ...) and keeps its centre crop of
 * at most crop x crop texels (0: no limit), rounded down to whole 4x4 blocks.
 * Dies when the file cannot be read or decoded or is smaller than a block. */
void bench_load_image(const char *path, uint32_t crop, bench_image *out);
void bench_image_free(bench_image *image);

/* size x size RGBA8 with a varying alpha: quadrants of a colour gradient,
 * value noise over a ramp, hard-edged discs and stripes, and a colour ramp
 * with an alpha ramp. size must be a multiple of 4, at least 8. */
uint8_t *bench_synthetic_rgba8(uint32_t size);

/* Summed squared error of the 8-bit channels in `channel_mask` (bit c =
 * channel c) over `pixels` RGBA texels; adds the number of samples compared
 * to *samples. */
double bench_sse_rgba8(const uint8_t *a, const uint8_t *b, size_t pixels, unsigned channel_mask,
                       double *samples);

/* PSNR in dB of a summed squared error over `samples` 8-bit samples; INFINITY
 * when it is 0 (exact). */
double bench_psnr(double sse, double samples);

#endif /* KILN_BENCH_UTIL_H */
