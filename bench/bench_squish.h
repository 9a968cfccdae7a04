/*
 * bench_squish.h — a C interface to libsquish (C++): one 4x4 block at a time
 * for bench_bc1.c, so both encoders run in the same single-threaded loop, and
 * whole images on N threads (squish's own OpenMP loop) for bench_block.c.
 */
#ifndef KILN_BENCH_SQUISH_H
#define KILN_BENCH_SQUISH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bench_squish_format {
    BENCH_SQUISH_BC1, /* DXT1 (squish may pick the 3-colour mode) */
    BENCH_SQUISH_BC3, /* DXT5 */
    BENCH_SQUISH_BC4, /* red */
    BENCH_SQUISH_BC5, /* red, green */
} bench_squish_format;

typedef enum bench_squish_fit {
    BENCH_SQUISH_RANGE,
    BENCH_SQUISH_CLUSTER,
    BENCH_SQUISH_ITERATIVE_CLUSTER,
} bench_squish_fit;

/* Encodes 16 RGBA texels (row-major) into `out` (8 or 16 bytes) with uniform
 * RGB weights (libsquish's default metric). */
void bench_squish_encode_block(const uint8_t rgba[64], bench_squish_format format,
                               bench_squish_fit fit, uint8_t *out);

/* Encodes a width x height RGBA image (rows top to bottom) into `out` with
 * squish::CompressImage on `threads` OpenMP threads; blocks in row-major
 * order, as kiln writes them. */
void bench_squish_encode_image(const uint8_t *rgba, uint32_t width, uint32_t height,
                               bench_squish_format format, bench_squish_fit fit, unsigned threads,
                               uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_BENCH_SQUISH_H */
