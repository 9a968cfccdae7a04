/* bench_squish.cpp — see bench_squish.h. */
#include "bench_squish.h"

#include <omp.h>
#include <squish.h>

static int squish_flags(bench_squish_format format, bench_squish_fit fit) {
    static const int formats[] = {squish::kDxt1, squish::kDxt5, squish::kBc4, squish::kBc5};
    static const int fits[] = {squish::kColourRangeFit, squish::kColourClusterFit,
                               squish::kColourIterativeClusterFit};
    return formats[format] | fits[fit];
}

void bench_squish_encode_block(const uint8_t rgba[64], bench_squish_format format,
                               bench_squish_fit fit, uint8_t *out) {
    squish::Compress(rgba, out, squish_flags(format, fit));
}

void bench_squish_encode_image(const uint8_t *rgba, uint32_t width, uint32_t height,
                               bench_squish_format format, bench_squish_fit fit, unsigned threads,
                               uint8_t *out) {
    omp_set_num_threads(threads > 0 ? (int)threads : 1);
    squish::CompressImage(rgba, (int)width, (int)height, out, squish_flags(format, fit));
}
