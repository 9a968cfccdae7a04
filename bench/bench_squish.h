/*
 * bench_squish.h — a C interface to libsquish (C++) for bench_bc1.c: one 4x4
 * block at a time, so both encoders run in the same single-threaded loop.
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

#ifdef __cplusplus
}
#endif

#endif /* KILN_BENCH_SQUISH_H */
