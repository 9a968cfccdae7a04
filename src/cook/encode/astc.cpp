/*
 * astc.cpp — ASTC through Debian's astcenc (libastcenc-dev), behind the C
 * interface of encode.h. C++ only because astcenc.h is.
 *
 * Quality maps to astcenc's presets: fast -> ASTCENC_PRE_FAST, normal ->
 * ASTCENC_PRE_MEDIUM, best -> ASTCENC_PRE_THOROUGH. Profiles: LDR sRGB or
 * linear for 8-bit input, HDR (RGB and alpha) for float input. astcenc splits
 * one image over the threads of one context (each thread passes its own
 * thread_index), which kiln runs as items of a parallel_for; blocks are
 * independent, so the bytes do not depend on the thread count.
 *
 * Setting up a context costs about as much as compressing a small image at
 * `fast`, so finished contexts are kept in a small process-wide cache keyed
 * by everything they were configured with (profile, block size, preset,
 * flags, thread count) and reused: a context serves one image at a time,
 * taken out of the cache under a mutex and put back after use.
 * astc_free_cached_contexts() frees them (and runs at exit).
 */
#include <astcenc.h>

#include <cstdio>
#include <mutex>
#include <vector>

extern "C" {
#include "cook/encode/encode.h"
}

namespace {

bool fail(char *reason, size_t reason_size, const char *what, astcenc_error status) {
    std::snprintf(reason, reason_size, "astcenc: %s: %s", what, astcenc_get_error_string(status));
    return false;
}

float preset_for(block_quality quality) {
    switch (quality) {
    case BLOCK_QUALITY_DRAFT:
        return ASTCENC_PRE_FASTEST;
    case BLOCK_QUALITY_FAST:
        return ASTCENC_PRE_FAST;
    case BLOCK_QUALITY_BEST:
        return ASTCENC_PRE_THOROUGH;
    case BLOCK_QUALITY_NORMAL:
    default:
        return ASTCENC_PRE_MEDIUM;
    }
}

astcenc_profile profile_for(const block_image_desc *desc) {
    if (desc->format == BLOCK_FORMAT_ASTC_HDR)
        return ASTCENC_PRF_HDR;
    return desc->srgb ? ASTCENC_PRF_LDR_SRGB : ASTCENC_PRF_LDR;
}

/* What a context was configured with: contexts are interchangeable when
 * these are equal. */
struct context_key {
    astcenc_profile profile;
    unsigned block_width, block_height, flags, threads;
    float preset;
    bool operator==(const context_key &o) const {
        return profile == o.profile && block_width == o.block_width &&
               block_height == o.block_height && flags == o.flags && threads == o.threads &&
               preset == o.preset;
    }
};

/* Idle contexts, most recently returned last; at most `capacity`, the
 * oldest freed beyond that (a texture set uses a few configurations). */
struct context_cache {
    static constexpr size_t capacity = 8;
    std::mutex lock;
    std::vector<std::pair<context_key, astcenc_context *>> idle;

    astcenc_context *take(const context_key &key) {
        std::lock_guard<std::mutex> guard(lock);
        for (size_t i = idle.size(); i-- > 0;) {
            if (idle[i].first == key) {
                astcenc_context *ctx = idle[i].second;
                idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(i));
                return ctx;
            }
        }
        return nullptr;
    }
    void give_back(const context_key &key, astcenc_context *ctx) {
        astcenc_context *evicted = nullptr;
        {
            std::lock_guard<std::mutex> guard(lock);
            try {
                idle.emplace_back(key, ctx);
                ctx = nullptr;
                if (idle.size() > capacity) {
                    evicted = idle.front().second;
                    idle.erase(idle.begin());
                }
            } catch (...) {
                /* no room to keep it: freed below */
            }
        }
        if (ctx != nullptr)
            astcenc_context_free(ctx);
        if (evicted != nullptr)
            astcenc_context_free(evicted);
    }
    void clear() {
        std::vector<std::pair<context_key, astcenc_context *>> all;
        {
            std::lock_guard<std::mutex> guard(lock);
            all.swap(idle);
        }
        for (auto &entry : all)
            astcenc_context_free(entry.second);
    }
    ~context_cache() {
        clear();
    }
};

context_cache cache;

/* One context for one image: from the cache or newly set up; back into the
 * cache afterwards unless the image failed (then its state is unknown). */
struct context_holder {
    astcenc_context *ctx = nullptr;
    context_key key{};
    bool reusable = false;
    ~context_holder() {
        if (ctx == nullptr)
            return;
        if (reusable)
            cache.give_back(key, ctx);
        else
            astcenc_context_free(ctx);
    }
};

bool make_context(const block_image_desc *desc, unsigned flags, unsigned threads,
                  context_holder &holder, char *reason, size_t reason_size) {
    holder.key =
        context_key{profile_for(desc), desc->astc_block_width,   desc->astc_block_height, flags,
                    threads,           preset_for(desc->quality)};
    holder.ctx = cache.take(holder.key);
    if (holder.ctx != nullptr)
        return true;
    astcenc_config config;
    astcenc_error status =
        astcenc_config_init(profile_for(desc), desc->astc_block_width, desc->astc_block_height, 1,
                            preset_for(desc->quality), flags, &config);
    if (status != ASTCENC_SUCCESS)
        return fail(reason, reason_size, "configuration", status);
    status = astcenc_context_alloc(&config, threads, &holder.ctx);
    if (status != ASTCENC_SUCCESS) {
        holder.ctx = nullptr;
        return fail(reason, reason_size, "context", status);
    }
    return true;
}

/* Texels in RGBA order, as block.c hands them over and takes them back. */
const astcenc_swizzle rgba_swizzle = {ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};

/* astcenc's view of a 2D image of `desc`'s size whose texels are slices[0]:
 * floats for HDR, bytes otherwise. */
astcenc_image one_slice_image(const block_image_desc *desc, bool floats, void **slices) {
    astcenc_image image;
    image.dim_x = desc->width;
    image.dim_y = desc->height;
    image.dim_z = 1;
    image.data_type = floats ? ASTCENC_TYPE_F32 : ASTCENC_TYPE_U8;
    image.data = slices;
    return image;
}

/* One image on the thread pool (cook/core/parallel.h): item i calls in as
 * astcenc's thread_index i. astcenc lets any set of a context's threads call
 * in and shares the blocks among those that come, so items that run one after
 * the other (the pool busy) are fine: the first does the work. */
struct compress_job {
    astcenc_context *ctx;
    astcenc_image *image;
    const astcenc_swizzle *swizzle;
    uint8_t *out;
    size_t out_size;
    astcenc_error *status;
};

void compress_item(void *arg, uint32_t index) {
    compress_job *job = static_cast<compress_job *>(arg);
    job->status[index] =
        astcenc_compress_image(job->ctx, job->image, job->swizzle, job->out, job->out_size, index);
}

} // namespace

extern "C" bool astc_encode_image(const block_image_desc *desc, uint8_t *out, size_t out_size,
                                  char *reason, size_t reason_size) {
    bool hdr = desc->format == BLOCK_FORMAT_ASTC_HDR;
    const void *pixels =
        hdr ? static_cast<const void *>(desc->rgbaf) : static_cast<const void *>(desc->rgba8);
    if (pixels == nullptr) {
        std::snprintf(reason, reason_size, "astcenc: no input texels");
        return false;
    }
    unsigned threads = desc->threads > 1 ? desc->threads : 1;
    if (threads > 64)
        threads = 64;
    context_holder holder;
    if (!make_context(desc, 0, threads, holder, reason, reason_size))
        return false;
    /* astcenc takes a non-const image but only reads the texels. */
    void *slices[1] = {const_cast<void *>(pixels)};
    astcenc_image image = one_slice_image(desc, hdr, slices);

    std::vector<astcenc_error> status(threads, ASTCENC_SUCCESS);
    compress_job job{holder.ctx, &image, &rgba_swizzle, out, out_size, status.data()};
    parallel_for(threads, threads, compress_item, &job);
    for (astcenc_error s : status)
        if (s != ASTCENC_SUCCESS)
            return fail(reason, reason_size, "compression", s);
    /* Every thread is done with this image: ready for the next one. */
    holder.reusable = astcenc_compress_reset(holder.ctx) == ASTCENC_SUCCESS;
    return true;
}

extern "C" bool astc_decode_image(const block_image_desc *desc, const uint8_t *blocks, size_t size,
                                  uint8_t *rgba8_out, float *rgbaf_out, char *reason,
                                  size_t reason_size) {
    bool hdr = desc->format == BLOCK_FORMAT_ASTC_HDR;
    /* LDR into floats too: astcenc's bytes round its 16-bit decoding, its
     * floats are that decoding / 65535 (what the tests compare bit-exactly). */
    bool floats = hdr || rgba8_out == nullptr;
    void *pixels = floats ? static_cast<void *>(rgbaf_out) : static_cast<void *>(rgba8_out);
    if (pixels == nullptr) {
        std::snprintf(reason, reason_size, "astcenc: no output buffer of the right type");
        return false;
    }
    context_holder holder;
    if (!make_context(desc, ASTCENC_FLG_DECOMPRESS_ONLY, 1, holder, reason, reason_size))
        return false;
    void *slices[1] = {pixels};
    astcenc_image image = one_slice_image(desc, floats, slices);
    astcenc_error status =
        astcenc_decompress_image(holder.ctx, blocks, size, &image, &rgba_swizzle, 0);
    if (status != ASTCENC_SUCCESS)
        return fail(reason, reason_size, "decompression", status);
    holder.reusable = astcenc_decompress_reset(holder.ctx) == ASTCENC_SUCCESS;
    return true;
}

extern "C" void astc_free_cached_contexts(void) {
    cache.clear();
}

extern "C" size_t astc_cached_contexts(void) {
    std::lock_guard<std::mutex> guard(cache.lock);
    return cache.idle.size();
}
