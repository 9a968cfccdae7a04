// bench_bc7_astc.cpp — astcenc (Debian's libastcenc-dev, C++ API) behind C
// functions: for bench_bc7.c, compress an RGBA8 image to ASTC 4x4 on the
// calling thread, time it, and decompress it for the error measurement; for
// bench_block.c, compress on N threads and time it by the wall clock.
#include <astcenc.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

static double thread_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

extern "C" bool bench_astc_4x4(const unsigned char *rgba, unsigned width, unsigned height,
                               float preset, unsigned runs, unsigned char *decoded, double *seconds,
                               char *reason, size_t reason_size);

// Compresses `runs` times (keeping the least thread CPU time of one
// compression in *seconds; context setup is not timed) and decodes the last
// result into `decoded` (width * height RGBA8).
extern "C" bool bench_astc_4x4(const unsigned char *rgba, unsigned width, unsigned height,
                               float preset, unsigned runs, unsigned char *decoded, double *seconds,
                               char *reason, size_t reason_size) {
    astcenc_config config;
    astcenc_error status = astcenc_config_init(ASTCENC_PRF_LDR, 4, 4, 1, preset, 0, &config);
    astcenc_context *context = nullptr;
    if (status == ASTCENC_SUCCESS)
        status = astcenc_context_alloc(&config, 1, &context);
    if (status != ASTCENC_SUCCESS) {
        snprintf(reason, reason_size, "astcenc setup: %s", astcenc_get_error_string(status));
        return false;
    }
    size_t blocks = (size_t)((width + 3) / 4) * ((height + 3) / 4);
    std::vector<unsigned char> compressed(blocks * 16);
    void *in_slice = const_cast<unsigned char *>(rgba);
    astcenc_image image;
    image.dim_x = width;
    image.dim_y = height;
    image.dim_z = 1;
    image.data_type = ASTCENC_TYPE_U8;
    image.data = &in_slice;
    const astcenc_swizzle swizzle = {ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};
    *seconds = 0.0;
    for (unsigned run = 0; run < runs && status == ASTCENC_SUCCESS; run++) {
        double start = thread_seconds();
        status = astcenc_compress_image(context, &image, &swizzle, compressed.data(),
                                        compressed.size(), 0);
        double elapsed = thread_seconds() - start;
        if (run == 0 || elapsed < *seconds)
            *seconds = elapsed;
        if (status == ASTCENC_SUCCESS)
            status = astcenc_compress_reset(context);
    }
    void *out_slice = decoded;
    astcenc_image out = image;
    out.data = &out_slice;
    if (status == ASTCENC_SUCCESS)
        status = astcenc_decompress_image(context, compressed.data(), compressed.size(), &out,
                                          &swizzle, 0);
    astcenc_context_free(context);
    if (status != ASTCENC_SUCCESS) {
        snprintf(reason, reason_size, "astcenc: %s", astcenc_get_error_string(status));
        return false;
    }
    return true;
}

extern "C" bool bench_astc_encode(const unsigned char *rgba, unsigned width, unsigned height,
                                  unsigned block_size, float preset, unsigned threads,
                                  unsigned char *out, size_t out_size, double *seconds,
                                  char *reason, size_t reason_size);

// Compresses once with a context of `threads` threads (each compressing
// thread passes its own thread_index, as astcenc requires) into `out`;
// *seconds is the wall time of the compression alone, without context setup.
extern "C" bool bench_astc_encode(const unsigned char *rgba, unsigned width, unsigned height,
                                  unsigned block_size, float preset, unsigned threads,
                                  unsigned char *out, size_t out_size, double *seconds,
                                  char *reason, size_t reason_size) {
    threads = threads > 0 ? threads : 1;
    astcenc_config config;
    astcenc_error status =
        astcenc_config_init(ASTCENC_PRF_LDR, block_size, block_size, 1, preset, 0, &config);
    astcenc_context *context = nullptr;
    if (status == ASTCENC_SUCCESS)
        status = astcenc_context_alloc(&config, threads, &context);
    if (status != ASTCENC_SUCCESS) {
        snprintf(reason, reason_size, "astcenc setup: %s", astcenc_get_error_string(status));
        return false;
    }
    void *in_slice = const_cast<unsigned char *>(rgba);
    astcenc_image image;
    image.dim_x = width;
    image.dim_y = height;
    image.dim_z = 1;
    image.data_type = ASTCENC_TYPE_U8;
    image.data = &in_slice;
    const astcenc_swizzle swizzle = {ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};
    std::vector<astcenc_error> results(threads, ASTCENC_SUCCESS);
    auto work = [&](unsigned index) {
        results[index] = astcenc_compress_image(context, &image, &swizzle, out, out_size, index);
    };
    timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    std::vector<std::thread> helpers;
    for (unsigned i = 1; i < threads; i++)
        helpers.emplace_back(work, i);
    work(0);
    for (auto &t : helpers)
        t.join();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    astcenc_context_free(context);
    for (astcenc_error s : results)
        if (s != ASTCENC_SUCCESS) {
            snprintf(reason, reason_size, "astcenc: %s", astcenc_get_error_string(s));
            return false;
        }
    return true;
}
