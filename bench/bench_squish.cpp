/* bench_squish.cpp — see bench_squish.h. */
#include "bench_squish.h"

#include <squish.h>

void bench_squish_encode_block(const uint8_t rgba[64], bench_squish_format format,
                               bench_squish_fit fit, uint8_t *out) {
    static const int formats[] = {squish::kDxt1, squish::kDxt5, squish::kBc4, squish::kBc5};
    static const int fits[] = {squish::kColourRangeFit, squish::kColourClusterFit,
                               squish::kColourIterativeClusterFit};
    squish::Compress(rgba, out, formats[format] | fits[fit]);
}
