/* ASTC through astcenc (astc.cpp): LDR sRGB/linear and HDR at block sizes
 * 4x4..8x8, PSNR floors on a synthetic image and a corpus texture, identical
 * bytes for 1 and 2 threads, invalid block sizes reported, cached contexts
 * reused with the same results (also by concurrent callers). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "cook/encode/encode.h"
#include "test_support.h"

static uint8_t *synthetic_rgba8(uint32_t w, uint32_t h) {
    uint8_t *p = malloc((size_t)w * h * 4);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *t = p + ((size_t)y * w + x) * 4;
            t[0] = (uint8_t)(x * 255 / (w - 1));              /* ramp */
            t[1] = (uint8_t)(y * 255 / (h - 1));              /* ramp */
            t[2] = (uint8_t)((x / 8 + y / 8) % 2 ? 200 : 40); /* hard edges */
            t[3] = (uint8_t)(128 + 127 * sin((double)x * 0.1));
        }
    return p;
}

static double ldr_psnr(const uint8_t *rgba8, uint32_t w, uint32_t h, uint8_t bw, uint8_t bh,
                       bool srgb, block_quality q, unsigned threads, uint8_t **blocks_out) {
    block_image_desc d = {.format = BLOCK_FORMAT_ASTC_LDR,
                          .quality = q,
                          .width = w,
                          .height = h,
                          .rgba8 = rgba8,
                          .srgb = srgb,
                          .astc_block_width = bw,
                          .astc_block_height = bh,
                          .threads = threads};
    size_t size = block_image_size(&d);
    assert_true(size > 0);
    uint8_t *blocks = malloc(size);
    uint8_t *back = malloc((size_t)w * h * 4);
    char reason[256];
    assert_true(block_encode_image(&d, blocks, reason, sizeof reason));
    assert_true(block_decode_image(&d, blocks, back, NULL, reason, sizeof reason));
    double psnr = block_psnr_rgba8(rgba8, back, (size_t)w * h, 15);
    free(back);
    if (blocks_out != NULL)
        *blocks_out = blocks;
    else
        free(blocks);
    return psnr;
}

static void test_ldr_block_sizes(void **state) {
    (void)state;
    const uint32_t w = 61, h = 45; /* partial blocks for every size */
    uint8_t *rgba8 = synthetic_rgba8(w, h);
    const uint8_t sizes[][2] = {{4, 4}, {5, 5}, {6, 6}, {8, 8}};
    const double floors[] = {38.0, 34.0, 31.0, 27.0};
    double previous = 99.0;
    for (size_t i = 0; i < 4; i++) {
        double linear =
            ldr_psnr(rgba8, w, h, sizes[i][0], sizes[i][1], false, BLOCK_QUALITY_FAST, 1, NULL);
        double srgb =
            ldr_psnr(rgba8, w, h, sizes[i][0], sizes[i][1], true, BLOCK_QUALITY_FAST, 1, NULL);
        printf("astc %ux%u fast: PSNR linear %.2f dB, sRGB %.2f dB\n", sizes[i][0], sizes[i][1],
               linear, srgb);
        assert_true(linear > floors[i]);
        assert_true(srgb > floors[i] - 2.0);
        assert_true(linear < previous + 0.01); /* fewer bits per texel, lower PSNR */
        previous = linear;
    }
    free(rgba8);
}

static void test_quality_and_threads(void **state) {
    (void)state;
    const uint32_t w = 48, h = 40;
    uint8_t *rgba8 = synthetic_rgba8(w, h);
    uint8_t *one = NULL, *two = NULL;
    double fast = ldr_psnr(rgba8, w, h, 6, 6, false, BLOCK_QUALITY_FAST, 1, NULL);
    double normal = ldr_psnr(rgba8, w, h, 6, 6, false, BLOCK_QUALITY_NORMAL, 1, &one);
    double normal2 = ldr_psnr(rgba8, w, h, 6, 6, false, BLOCK_QUALITY_NORMAL, 2, &two);
    printf("astc 6x6: fast %.2f dB, normal %.2f dB\n", fast, normal);
    assert_true(normal >= fast - 0.01);
    assert_true(normal == normal2);
    assert_memory_equal(one, two, (size_t)8 * 7 * 16);
    free(one);
    free(two);
    free(rgba8);
}

static void test_hdr(void **state) {
    (void)state;
    const uint32_t w = 36, h = 24;
    float *rgba = malloc((size_t)w * h * 4 * sizeof(float));
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float *t = rgba + ((size_t)y * w + x) * 4;
            float lum = exp2f((float)x / (float)w * 10.0f - 4.0f);
            t[0] = lum;
            t[1] = lum * (0.3f + 0.02f * (float)y);
            t[2] = lum * 0.5f;
            t[3] = 1.0f;
        }
    block_image_desc d = {.format = BLOCK_FORMAT_ASTC_HDR,
                          .quality = BLOCK_QUALITY_FAST,
                          .width = w,
                          .height = h,
                          .rgbaf = rgba,
                          .astc_block_width = 6,
                          .astc_block_height = 6};
    uint8_t *blocks = malloc(block_image_size(&d));
    float *back = malloc((size_t)w * h * 4 * sizeof(float));
    char reason[256];
    assert_true(block_encode_image(&d, blocks, reason, sizeof reason));
    assert_true(block_decode_image(&d, blocks, NULL, back, reason, sizeof reason));
    /* Relative error per channel, the way HDR is judged. */
    double worst = 0.0, sum = 0.0;
    for (size_t i = 0; i < (size_t)w * h * 4; i++) {
        double e = fabs(back[i] - rgba[i]) / (rgba[i] + 1e-3);
        worst = e > worst ? e : worst;
        sum += e;
    }
    double mean = sum / ((double)w * h * 4);
    printf("astc hdr 6x6 fast: relative error mean %.4f, worst %.3f\n", mean, worst);
    assert_true(mean < 0.03);
    assert_true(worst < 0.25);
    free(blocks);
    free(back);
    free(rgba);
}

static void test_corpus_texture(void **state) {
    (void)state;
    if (test_skip_without_corpus("test_corpus_texture"))
        skip();
    char *path =
        test_path_join(test_corpus_dir(), "gltf/WaterBottle/glTF/WaterBottle_baseColor.png");
    size_t size = 0;
    uint8_t *bytes = test_read_file(path, &size);
    ir_decoded_image image;
    char reason[256];
    assert_true(image_decode(bytes, size, path, NULL, &image, reason, sizeof reason));
    uint32_t w = image.width < 128 ? image.width : 128;
    uint32_t h = image.height < 128 ? image.height : 128;
    uint8_t *crop = malloc((size_t)w * h * 4);
    uint32_t x0 = (image.width - w) / 2, y0 = (image.height - h) / 2; /* detailed middle */
    for (uint32_t y = 0; y < h; y++)
        memcpy(crop + (size_t)y * w * 4, image.rgba8 + ((size_t)(y0 + y) * image.width + x0) * 4,
               (size_t)w * 4);
    double p4 = ldr_psnr(crop, w, h, 4, 4, true, BLOCK_QUALITY_NORMAL, 2, NULL);
    double p6 = ldr_psnr(crop, w, h, 6, 6, true, BLOCK_QUALITY_NORMAL, 2, NULL);
    printf("astc WaterBottle_baseColor.png %ux%u: 4x4 %.2f dB, 6x6 %.2f dB\n", w, h, p4, p6);
    assert_true(p4 > 38.0);
    assert_true(p6 > 32.0);
    free(crop);
    ir_decoded_image_free(&image);
    free(bytes);
    free(path);
}

static void test_invalid_block_size(void **state) {
    (void)state;
    uint8_t rgba8[16 * 4] = {0};
    block_image_desc d = {.format = BLOCK_FORMAT_ASTC_LDR,
                          .width = 4,
                          .height = 4,
                          .rgba8 = rgba8,
                          .astc_block_width = 7,
                          .astc_block_height = 7};
    uint8_t out[16];
    char reason[256] = "";
    assert_false(block_encode_image(&d, out, reason, sizeof reason));
    assert_non_null(strstr(reason, "astcenc"));
}

/* Encodes w x h rgba8 as ASTC 4x4 `fast` on `threads` threads into a new
 * buffer of *size bytes. */
static uint8_t *encode_4x4(const uint8_t *rgba8, uint32_t w, uint32_t h, unsigned threads,
                           size_t *size) {
    block_image_desc d = {.format = BLOCK_FORMAT_ASTC_LDR,
                          .quality = BLOCK_QUALITY_FAST,
                          .width = w,
                          .height = h,
                          .rgba8 = rgba8,
                          .astc_block_width = 4,
                          .astc_block_height = 4,
                          .threads = threads};
    *size = block_image_size(&d);
    uint8_t *blocks = malloc(*size);
    assert_non_null(blocks);
    char reason[256];
    assert_true(block_encode_image(&d, blocks, reason, sizeof reason));
    return blocks;
}

typedef struct cache_job {
    const uint8_t *rgba8, *expected;
    uint32_t w, h;
    size_t size;
    int mismatches;
} cache_job;

static void *encode_repeatedly(void *arg) {
    cache_job *job = arg;
    for (int i = 0; i < 4; i++) {
        size_t size;
        uint8_t *blocks = encode_4x4(job->rgba8, job->w, job->h, 1 + (unsigned)(i % 2), &size);
        job->mismatches += size != job->size || memcmp(blocks, job->expected, size) != 0;
        free(blocks);
    }
    return NULL;
}

static void test_contexts_are_cached(void **state) {
    (void)state;
    const uint32_t w = 40, h = 36;
    uint8_t *a = synthetic_rgba8(w, h), *b = synthetic_rgba8(h, w);
    astc_free_cached_contexts();
    assert_int_equal(astc_cached_contexts(), 0);
    size_t size, size2;
    uint8_t *first = encode_4x4(a, w, h, 1, &size);
    assert_int_equal(astc_cached_contexts(), 1); /* kept for the next image */
    /* Another image, then the first again from the same (reset) context. */
    free(encode_4x4(b, h, w, 1, &size2));
    uint8_t *again = encode_4x4(a, w, h, 1, &size2);
    assert_int_equal(astc_cached_contexts(), 1);
    assert_memory_equal(first, again, size);
    free(again);
    /* Two threads: a context of its own, the same bytes. */
    again = encode_4x4(a, w, h, 2, &size2);
    assert_int_equal(astc_cached_contexts(), 2);
    assert_memory_equal(first, again, size);
    free(again);
    /* Concurrent callers each take a context of their own. */
    cache_job jobs[3];
    pthread_t threads[3];
    for (int i = 0; i < 3; i++) {
        jobs[i] = (cache_job){.rgba8 = a, .expected = first, .w = w, .h = h, .size = size};
        assert_int_equal(pthread_create(&threads[i], NULL, encode_repeatedly, &jobs[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(threads[i], NULL);
        assert_int_equal(jobs[i].mismatches, 0);
    }
    size_t cached = astc_cached_contexts();
    assert_true(cached >= 2 && cached <= 6); /* at most one per caller and thread count */
    astc_free_cached_contexts();
    assert_int_equal(astc_cached_contexts(), 0);
    free(first);
    free(a);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ldr_block_sizes),
        cmocka_unit_test(test_quality_and_threads),
        cmocka_unit_test(test_hdr),
        cmocka_unit_test(test_corpus_texture),
        cmocka_unit_test(test_invalid_block_size),
        cmocka_unit_test(test_contexts_are_cached),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
