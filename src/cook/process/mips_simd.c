/* mips_simd.c — the 8-bit encode of a row of mip texels, 8 texels per AVX2
 * instruction (mips_simd.h).
 *
 * mips.c turns each filtered texel (4 floats, RGBA) into its stored bytes one
 * texel at a time, and most of that is the sRGB encode's two table lookups
 * per channel. Here 8 texels are transposed into one vector per channel and
 * the lookups are gathers. Every lane runs the IEEE operations the scalar
 * code runs, in the same order (no fused multiply-add: the target is "avx2"
 * alone), so the bytes are the same; test_mips compares the two paths. The
 * function is built for AVX2 whatever the compiler's baseline and only called
 * after a run-time check of the CPU. */
#include "cook/process/mips_simd.h"

#include "cook/process/process.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MIPS_HAVE_AVX2 1
#include <immintrin.h>
#endif

#ifdef MIPS_HAVE_AVX2

bool mips_avx2_available(void) {
    return __builtin_cpu_supports("avx2");
}

#define AVX2 __attribute__((target("avx2")))

/* image_float_to_unorm8 of 8 lanes (0 unless v > 0, 255 from 1 up, else v
 * * 255 rounded to nearest even), as int32 lanes. */
AVX2 static inline __m256i unorm8_of(__m256 v) {
    __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(v, _mm256_set1_ps(255.0f)));
    __m256i full = _mm256_castps_si256(_mm256_cmp_ps(v, _mm256_set1_ps(1.0f), _CMP_GE_OQ));
    __m256i some = _mm256_castps_si256(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ));
    q = _mm256_blendv_epi8(q, _mm256_set1_epi32(255), full);
    return _mm256_and_si256(q, some);
}

/* srgb8_of of 8 lanes: the bits clamped into 2^-13 .. 1 as signed integers
 * (which order them as floats), the bucket's code, plus one where the bits
 * reach the bucket's step. */
AVX2 static inline __m256i srgb8_of(__m256 v, const mips_encode8 *e) {
    const __m256i low = _mm256_set1_epi32((int32_t)SRGB_LOW_BITS);
    __m256i bits = _mm256_max_epi32(_mm256_castps_si256(v), low);
    bits = _mm256_min_epi32(bits, _mm256_set1_epi32((int32_t)SRGB_ONE_BITS));
    __m256i bucket = _mm256_srli_epi32(_mm256_sub_epi32(bits, low), 15);
    __m256i packed = _mm256_i32gather_epi32((const int *)(const void *)e->srgb_buckets, bucket, 4);
    __m256i first = _mm256_andnot_si256(_mm256_set1_epi32(0x7FFF), bits); /* the bucket's */
    __m256i step = _mm256_add_epi32(first, _mm256_srli_epi32(packed, 8));
    __m256i code = _mm256_and_si256(packed, _mm256_set1_epi32(0xFF));
    __m256i short_of_step = _mm256_cmpgt_epi32(step, bits); /* all ones: -1 */
    return _mm256_add_epi32(_mm256_add_epi32(code, _mm256_set1_epi32(1)), short_of_step);
}

AVX2 size_t mips_encode8_avx2(const float *work, uint8_t *out, size_t count,
                              const mips_encode8 *e) {
    const __m256 zero = _mm256_setzero_ps(), half = _mm256_set1_ps(0.5f);
    /* The transposed lanes hold texels 0 2 4 6 1 3 5 7; this puts them back. */
    const __m256i texel_order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    size_t done = 0;
    for (; done + 8 <= count; done += 8) {
        const float *p = work + done * 4;
        __m256 t01 = _mm256_loadu_ps(p), t23 = _mm256_loadu_ps(p + 8);
        __m256 t45 = _mm256_loadu_ps(p + 16), t67 = _mm256_loadu_ps(p + 24);
        __m256d rg0 = _mm256_castps_pd(_mm256_unpacklo_ps(t01, t23));
        __m256d ba0 = _mm256_castps_pd(_mm256_unpackhi_ps(t01, t23));
        __m256d rg1 = _mm256_castps_pd(_mm256_unpacklo_ps(t45, t67));
        __m256d ba1 = _mm256_castps_pd(_mm256_unpackhi_ps(t45, t67));
        __m256 r = _mm256_castpd_ps(_mm256_unpacklo_pd(rg0, rg1));
        __m256 g = _mm256_castpd_ps(_mm256_unpackhi_pd(rg0, rg1));
        __m256 b = _mm256_castpd_ps(_mm256_unpacklo_pd(ba0, ba1));
        __m256 a = _mm256_castpd_ps(_mm256_unpackhi_pd(ba0, ba1));
        if (e->mode == MIP_MODE_NORMAL) { /* renormalised, then * 0.5 + 0.5 */
            __m256 len = _mm256_sqrt_ps(_mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(r, r), _mm256_mul_ps(g, g)), _mm256_mul_ps(b, b)));
            __m256 some = _mm256_cmp_ps(len, _mm256_set1_ps(1e-12f), _CMP_GT_OQ);
            r = _mm256_add_ps(_mm256_mul_ps(_mm256_div_ps(r, len), half), half);
            g = _mm256_add_ps(_mm256_mul_ps(_mm256_div_ps(g, len), half), half);
            b = _mm256_add_ps(_mm256_mul_ps(_mm256_div_ps(b, len), half), half);
            r = _mm256_blendv_ps(half, r, some); /* no length: (0, 0, 1) */
            g = _mm256_blendv_ps(half, g, some);
            b = _mm256_blendv_ps(_mm256_set1_ps(1.0f), b, some);
        } else if (e->unweight) { /* colour / alpha, or 0 where alpha is 0 */
            __m256 some = _mm256_cmp_ps(a, zero, _CMP_GT_OQ);
            r = _mm256_and_ps(_mm256_div_ps(r, a), some);
            g = _mm256_and_ps(_mm256_div_ps(g, a), some);
            b = _mm256_and_ps(_mm256_div_ps(b, a), some);
        }
        __m256i cr, cg, cb;
        if (e->mode == MIP_MODE_COLOR_SRGB) {
            cr = srgb8_of(r, e);
            cg = srgb8_of(g, e);
            cb = srgb8_of(b, e);
        } else {
            cr = unorm8_of(r);
            cg = unorm8_of(g);
            cb = unorm8_of(b);
        }
        __m256i rgba = _mm256_or_si256(
            _mm256_or_si256(cr, _mm256_slli_epi32(cg, 8)),
            _mm256_or_si256(_mm256_slli_epi32(cb, 16), _mm256_slli_epi32(unorm8_of(a), 24)));
        rgba = _mm256_permutevar8x32_epi32(rgba, texel_order);
        _mm256_storeu_si256((__m256i *)(void *)(out + done * 4), rgba);
    }
    return done;
}

#else

bool mips_avx2_available(void) {
    return false;
}

size_t mips_encode8_avx2(const float *work, uint8_t *out, size_t count, const mips_encode8 *e) {
    (void)work, (void)out, (void)count, (void)e;
    return 0;
}

#endif
