/* mips_simd.c — the hot loops of an 8-bit mip chain on AVX2 and AVX-512
 * (mips_simd.h).
 *
 * mips.c makes each texel as 4 floats (RGBA) and stores it as bytes one
 * texel at a time. Two loops here do the same on many texels at once:
 *   - the 8-bit encode of a row, 8 texels transposed into one vector per
 *     channel, the sRGB encode's bucket word (mips_texel.c) one gather a channel;
 *   - the halving of a working row pair (levels 2 and below), two texels
 *     per vector as they lie in memory (RGBA), renormalised in normal maps;
 *   - the halving of an 8-bit row pair (level 0 to level 1, most of a
 *     chain's texels) while its quads are opaque, checked as it goes (no
 *     pass over the alpha first), 16 texels per channel vector: the mode's 256
 *     working values sit in 16 registers, so a byte's value is 8
 *     two-register permutes and 7 blends on its top bits instead of a load,
 *     and the texels are encoded before they are stored back as RGBA.
 * Every lane runs the IEEE operations the scalar code runs, in the same
 * order (no fused multiply-add: the targets are "avx2" and "avx512f"
 * alone), so the bytes are the same; test_mips compares them with the
 * portable code. The functions are built whatever the compiler's baseline
 * and called only after a run-time check of the CPU. */
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

AVX2 size_t mips_halving_avx2(const float *r0, const float *r1, bool normal, float *work,
                              size_t count) {
    const __m256 quarter = _mm256_set1_ps(0.25f);
    size_t done = 0;
    for (; done + 2 <= count; done += 2) {
        const float *p0 = r0 + done * 8, *p1 = r1 + done * 8;
        __m256 r0_01 = _mm256_loadu_ps(p0), r0_23 = _mm256_loadu_ps(p0 + 8);
        __m256 r1_01 = _mm256_loadu_ps(p1), r1_23 = _mm256_loadu_ps(p1 + 8);
        /* a, b: the left and right texels of the two quads' top row; c, d
         * their bottom row; quad_average: ((a + b) + (c + d)) * 0.25 */
        __m256 a = _mm256_permute2f128_ps(r0_01, r0_23, 0x20);
        __m256 b = _mm256_permute2f128_ps(r0_01, r0_23, 0x31);
        __m256 c = _mm256_permute2f128_ps(r1_01, r1_23, 0x20);
        __m256 d = _mm256_permute2f128_ps(r1_01, r1_23, 0x31);
        __m256 h = _mm256_mul_ps(_mm256_add_ps(_mm256_add_ps(a, b), _mm256_add_ps(c, d)), quarter);
        if (normal) { /* renormalised: (x * x + y * y) + z * z, each texel's in its 4 lanes */
            __m256 sq = _mm256_mul_ps(h, h);
            __m256 sum = _mm256_add_ps(
                _mm256_add_ps(_mm256_permute_ps(sq, 0x00), _mm256_permute_ps(sq, 0x55)),
                _mm256_permute_ps(sq, 0xAA));
            __m256 len = _mm256_sqrt_ps(sum);
            __m256 some = _mm256_cmp_ps(len, _mm256_set1_ps(1e-12f), _CMP_GT_OQ);
            __m256 n = _mm256_blendv_ps(_mm256_setr_ps(0, 0, 1, 0, 0, 0, 1, 0),
                                        _mm256_div_ps(h, len), some); /* no length: (0, 0, 1) */
            h = _mm256_blend_ps(n, h, 0x88); /* lanes 3 and 7: alpha as it was */
        }
        _mm256_storeu_ps(work + done * 4, h);
    }
    return done;
}

#define AVX512 __attribute__((target("avx512f")))

bool mips_avx512_available(void) {
    return __builtin_cpu_supports("avx512f");
}

/* table[i] for 16 indices 0..255, the table in 16 registers: each pair
 * of registers answers for 32 indices (the low 5 bits), bits 5, 6 and 7
 * pick among the 8 answers. */
AVX512 static inline __m512 lookup256(const __m512 table[16], __m512i index) {
    __m512 pick[8];
    for (int i = 0; i < 8; i++)
        pick[i] = _mm512_permutex2var_ps(table[2 * i], index, table[2 * i + 1]);
    for (int bit = 5, n = 8; bit < 8; bit++, n /= 2) {
        __mmask16 high = _mm512_test_epi32_mask(index, _mm512_set1_epi32(1 << bit));
        for (int i = 0; i < n / 2; i++)
            pick[i] = _mm512_mask_blend_ps(high, pick[2 * i], pick[2 * i + 1]);
    }
    return pick[0];
}

/* unorm8_of and srgb8_of (above) on 16 lanes. */
AVX512 static inline __m512i unorm8_of16(__m512 v) {
    __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(v, _mm512_set1_ps(255.0f)));
    __mmask16 full = _mm512_cmp_ps_mask(v, _mm512_set1_ps(1.0f), _CMP_GE_OQ);
    __mmask16 some = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ);
    q = _mm512_mask_mov_epi32(q, full, _mm512_set1_epi32(255));
    return _mm512_maskz_mov_epi32(some, q);
}

AVX512 static inline __m512i srgb8_of16(__m512 v, const uint32_t *buckets) {
    const __m512i low = _mm512_set1_epi32((int32_t)SRGB_LOW_BITS);
    __m512i bits = _mm512_max_epi32(_mm512_castps_si512(v), low);
    bits = _mm512_min_epi32(bits, _mm512_set1_epi32((int32_t)SRGB_ONE_BITS));
    __m512i bucket = _mm512_srli_epi32(_mm512_sub_epi32(bits, low), 15);
    __m512i packed = _mm512_i32gather_epi32(bucket, (const void *)buckets, 4);
    __m512i first = _mm512_andnot_si512(_mm512_set1_epi32(0x7FFF), bits);
    __m512i step = _mm512_add_epi32(first, _mm512_srli_epi32(packed, 8));
    __m512i code = _mm512_and_si512(packed, _mm512_set1_epi32(0xFF));
    __mmask16 reached = _mm512_cmp_epi32_mask(bits, step, _MM_CMPINT_NLT);
    return _mm512_mask_add_epi32(code, reached, code, _mm512_set1_epi32(1));
}

/* The stored bytes of 16 opaque working texels (stored_texel8 with alpha 1:
 * nothing to divide; a normal renormalised once more, then * 0.5 + 0.5). */
AVX512 static inline void store_opaque16(const __m512 channel[3], const mips_encode8 *e,
                                         uint8_t *out) {
    __m512i code[3];
    if (e->mode == MIP_MODE_COLOR_SRGB) {
        for (int c = 0; c < 3; c++)
            code[c] = srgb8_of16(channel[c], e->srgb_buckets);
    } else if (e->mode == MIP_MODE_NORMAL) {
        __m512 len =
            _mm512_sqrt_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(channel[0], channel[0]),
                                                       _mm512_mul_ps(channel[1], channel[1])),
                                         _mm512_mul_ps(channel[2], channel[2])));
        __mmask16 some = _mm512_cmp_ps_mask(len, _mm512_set1_ps(1e-12f), _CMP_GT_OQ);
        const __m512 half = _mm512_set1_ps(0.5f);
        for (int c = 0; c < 3; c++) {
            __m512 n =
                _mm512_mask_div_ps(_mm512_set1_ps(c == 2 ? 1.0f : 0.0f), some, channel[c], len);
            code[c] = unorm8_of16(_mm512_add_ps(_mm512_mul_ps(n, half), half));
        }
    } else {
        for (int c = 0; c < 3; c++)
            code[c] = unorm8_of16(channel[c]);
    }
    __m512i rgba = _mm512_or_si512(
        _mm512_or_si512(code[0], _mm512_slli_epi32(code[1], 8)),
        _mm512_or_si512(_mm512_slli_epi32(code[2], 16), _mm512_set1_epi32((int32_t)0xFF000000u)));
    _mm512_storeu_si512(out, rgba);
}

AVX512 size_t mips_opaque_halving_avx512(const uint8_t *r0, const uint8_t *r1, const float *value,
                                         const mips_encode8 *e, float *work, uint8_t *out,
                                         size_t count) {
    bool normal = e->mode == MIP_MODE_NORMAL;
    __m512 table[16];
    for (int i = 0; i < 16; i++)
        table[i] = _mm512_loadu_ps(value + 16 * i);
    const __m512i even =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i byte = _mm512_set1_epi32(0xFF);
    const __m512 quarter = _mm512_set1_ps(0.25f), one = _mm512_set1_ps(1.0f);
    size_t done = 0;
    for (; done + 16 <= count; done += 16) {
        /* The 32 texels of each row as words, the left and right of each
         * pair apart. */
        __m512i texel[4], both = _mm512_set1_epi32(-1);
        for (int r = 0; r < 2; r++) {
            const uint8_t *row = (r == 0 ? r0 : r1) + done * 8;
            __m512i lo = _mm512_loadu_si512(row), hi = _mm512_loadu_si512(row + 64);
            both = _mm512_and_si512(both, _mm512_and_si512(lo, hi));
            texel[2 * r] = _mm512_permutex2var_epi32(lo, even, hi);
            texel[2 * r + 1] = _mm512_permutex2var_epi32(lo, odd, hi);
        }
        const __m512i alpha = _mm512_set1_epi32((int32_t)0xFF000000u);
        if (_mm512_cmpneq_epi32_mask(_mm512_and_si512(both, alpha), alpha) != 0)
            break; /* a texel with alpha below 255 */
        __m512 channel[4];
        for (int c = 0; c < 3; c++) {
            __m512 v[4];
            for (int t = 0; t < 4; t++)
                v[t] = lookup256(table, _mm512_and_si512(_mm512_srli_epi32(texel[t], 8 * c), byte));
            /* quad_average: ((a + b) + (c + d)) * 0.25 */
            channel[c] = _mm512_mul_ps(
                _mm512_add_ps(_mm512_add_ps(v[0], v[1]), _mm512_add_ps(v[2], v[3])), quarter);
        }
        channel[3] = one;
        if (normal) { /* renormalised */
            __m512 len =
                _mm512_sqrt_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(channel[0], channel[0]),
                                                           _mm512_mul_ps(channel[1], channel[1])),
                                             _mm512_mul_ps(channel[2], channel[2])));
            __mmask16 some = _mm512_cmp_ps_mask(len, _mm512_set1_ps(1e-12f), _CMP_GT_OQ);
            for (int c = 0; c < 3; c++)
                channel[c] =
                    _mm512_mask_div_ps(_mm512_set1_ps(c == 2 ? 1.0f : 0.0f), some, channel[c], len);
        }
        store_opaque16(channel, e, out + done * 4);
        /* Back to texels (RGBA) in order: lanes of t0..t3 hold texels
         * 4k, 4k + 1, 4k + 2, 4k + 3 of 128-bit lane k. */
        __m512 rg_lo = _mm512_unpacklo_ps(channel[0], channel[1]);
        __m512 rg_hi = _mm512_unpackhi_ps(channel[0], channel[1]);
        __m512 ba_lo = _mm512_unpacklo_ps(channel[2], channel[3]);
        __m512 ba_hi = _mm512_unpackhi_ps(channel[2], channel[3]);
        __m512d t0 = _mm512_unpacklo_pd(_mm512_castps_pd(rg_lo), _mm512_castps_pd(ba_lo));
        __m512d t1 = _mm512_unpackhi_pd(_mm512_castps_pd(rg_lo), _mm512_castps_pd(ba_lo));
        __m512d t2 = _mm512_unpacklo_pd(_mm512_castps_pd(rg_hi), _mm512_castps_pd(ba_hi));
        __m512d t3 = _mm512_unpackhi_pd(_mm512_castps_pd(rg_hi), _mm512_castps_pd(ba_hi));
        __m512d u0 = _mm512_shuffle_f64x2(t0, t1, _MM_SHUFFLE(2, 0, 2, 0)); /* 0 8 1 9 */
        __m512d u1 = _mm512_shuffle_f64x2(t2, t3, _MM_SHUFFLE(2, 0, 2, 0)); /* 2 10 3 11 */
        __m512d u2 = _mm512_shuffle_f64x2(t0, t1, _MM_SHUFFLE(3, 1, 3, 1)); /* 4 12 5 13 */
        __m512d u3 = _mm512_shuffle_f64x2(t2, t3, _MM_SHUFFLE(3, 1, 3, 1)); /* 6 14 7 15 */
        float *texels = work + done * 4;
        _mm512_storeu_pd(texels, _mm512_shuffle_f64x2(u0, u1, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm512_storeu_pd(texels + 16, _mm512_shuffle_f64x2(u2, u3, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm512_storeu_pd(texels + 32, _mm512_shuffle_f64x2(u0, u1, _MM_SHUFFLE(3, 1, 3, 1)));
        _mm512_storeu_pd(texels + 48, _mm512_shuffle_f64x2(u2, u3, _MM_SHUFFLE(3, 1, 3, 1)));
    }
    return done;
}

#else

bool mips_avx512_available(void) {
    return false;
}

size_t mips_opaque_halving_avx512(const uint8_t *r0, const uint8_t *r1, const float *value,
                                  const mips_encode8 *e, float *work, uint8_t *out, size_t count) {
    (void)r0, (void)r1, (void)value, (void)e, (void)work, (void)out, (void)count;
    return 0;
}

bool mips_avx2_available(void) {
    return false;
}

size_t mips_encode8_avx2(const float *work, uint8_t *out, size_t count, const mips_encode8 *e) {
    (void)work, (void)out, (void)count, (void)e;
    return 0;
}

size_t mips_halving_avx2(const float *r0, const float *r1, bool normal, float *work, size_t count) {
    (void)r0, (void)r1, (void)normal, (void)work, (void)count;
    return 0;
}

#endif
