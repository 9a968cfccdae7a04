/*
 * mips_texel.c — colour-space and 8-bit texel conversion (process stage):
 * the sRGB curves, the tables mips_texel.h's inline helpers read (built
 * once, with the CPU checks for mips_simd.c), and a decoded image in its
 * stored encoding as floats.
 */
#include "cook/process/mips_texel.h"

float image_srgb_to_linear(float v) {
    if (v <= 0.04045f)
        return v / 12.92f;
    return powf((v + 0.055f) / 1.055f, 2.4f);
}

float image_linear_to_srgb(float v) {
    if (v <= 0.0031308f)
        return v * 12.92f;
    return 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
}

float mips_srgb_table[256];

/* linear -> sRGB 8-bit code without powf, exactly
 * to_unorm8(image_linear_to_srgb(v)) for every float v >= 0: that function
 * is monotonic, so it is a step function whose 255 steps are found once by
 * bisection on the float bit patterns (threshold[k] = the smallest v that
 * encodes to k + 1). A lookup on v's exponent and top 8 mantissa bits gives
 * the code at the start of v's bucket (3328 buckets for 2^-13 .. 1, and one
 * for 1.0; v is clamped into 2^-13 .. 1 first, below 2^-13 everything
 * encodes to 0) and the one step inside the bucket, if any: steps are at
 * least 0.9 % apart (relative), buckets 0.4 % wide, so one compare finishes
 * (test_mips checks every step). */
static float srgb_threshold[256]; /* [255] = +inf: no code above 255 */
uint32_t mips_srgb_bucket[SRGB_BUCKETS + 1];
float mips_unorm8_value[256];
float mips_normal_table[256];
texel_lanes mips_texel_lane[3];
v4f mips_alpha_lane[256];
v4f mips_alpha_weight[256];
pthread_once_t mips_tables_once = PTHREAD_ONCE_INIT;
bool mips_cpu_has_avx2;
bool mips_cpu_has_avx512;

static float float_of_bits(uint32_t bits) {
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static uint8_t srgb_encode_reference(float v) {
    float s = image_linear_to_srgb(v);
    return !(s > 0.0f) ? 0 : s >= 1.0f ? 255 : (uint8_t)lrintf(s * 255.0f);
}

void mips_tables_init(void) {
    mips_cpu_has_avx2 = mips_avx2_available();
    mips_cpu_has_avx512 = mips_avx512_available();
    for (int i = 0; i < 256; i++) {
        mips_srgb_table[i] = image_srgb_to_linear(i / 255.0f);
        mips_unorm8_value[i] = i / 255.0f;
        mips_normal_table[i] = mips_unorm8_value[i] * 2.0f - 1.0f;
    }
    const float *mode_table[3] = {mips_srgb_table, mips_unorm8_value,
                                  mips_normal_table}; /* mip_mode order */
    for (int i = 0; i < 256; i++) {
        float a = mips_unorm8_value[i];
        for (int m = 0; m < 3; m++)
            for (int c = 0; c < 3; c++) {
                mips_texel_lane[m].lane[c][i] = (v4f){0.0f, 0.0f, 0.0f, 0.0f};
                mips_texel_lane[m].lane[c][i][c] = mode_table[m][i];
            }
        mips_alpha_lane[i] = (v4f){0.0f, 0.0f, 0.0f, a};
        mips_alpha_weight[i] = (v4f){a, a, a, 1.0f};
    }
    for (uint32_t k = 0; k < 255; k++) {   /* smallest bits with code > k */
        uint32_t lo = 0, hi = 0x3F800000u; /* code(lo) <= k < code(hi) */
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (srgb_encode_reference(float_of_bits(mid)) > k)
                hi = mid;
            else
                lo = mid;
        }
        srgb_threshold[k] = float_of_bits(hi);
    }
    srgb_threshold[255] = INFINITY;
    uint32_t code = 0;
    for (uint32_t b = 0; b <= SRGB_BUCKETS; b++) {
        float start = float_of_bits(SRGB_LOW_BITS + (b << 15));
        float end = float_of_bits(SRGB_LOW_BITS + ((b + 1) << 15));
        while (code < 255 && start >= srgb_threshold[code])
            code++;
        uint32_t step_bits;
        memcpy(&step_bits, &srgb_threshold[code], sizeof step_bits);
        uint32_t step =
            srgb_threshold[code] < end ? step_bits - (SRGB_LOW_BITS + (b << 15)) : 1u << 15;
        mips_srgb_bucket[b] = code | step << 8;
    }
}

uint8_t image_linear_to_srgb8(float v) {
    pthread_once(&mips_tables_once, mips_tables_init);
    return isnan(v) ? 0 : srgb8_of(v);
}

float image_unorm8_to_float(uint8_t v) {
    pthread_once(&mips_tables_once, mips_tables_init);
    return mips_unorm8_value[v];
}

void image_floats_to_stored(const float *in, float *out, size_t count, cook_texture_usage usage) {
    for (size_t i = 0; i < count * 4; i++) {
        float v = in[i];
        if (!isfinite(v))
            v = 0.0f;
        if (usage != COOK_TEXTURE_HDR) {
            v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
            if (usage == COOK_TEXTURE_COLOR && (i % 4) != 3)
                v = image_linear_to_srgb(v);
        }
        out[i] = v;
    }
}

float *image_to_float(const ir_decoded_image *image, cook_texture_usage usage) {
    size_t count = (size_t)image->width * image->height; /* checked by the decoder */
    float *out = malloc(count * 4 * sizeof(float));
    if (out == NULL)
        return NULL;
    if (image->rgba8 != NULL) {
        for (size_t i = 0; i < count * 4; i++)
            out[i] = image->rgba8[i] / 255.0f;
        return out;
    }
    image_floats_to_stored(image->rgbaf, out, count, usage);
    return out;
}
