/* UASTC rate-distortion optimisation (cook/encode/uastc_rdo.c) and the two
 * encoder hooks it uses: refitting endpoints keeps the weights, reweighing
 * keeps the endpoints; off leaves the blocks alone; on, every block is still
 * valid UASTC, the Zstd size (measured here with libzstd) drops, the PSNR
 * loss stays within the strength's budget (1 dB at normal), the bytes are
 * the same at 1 and 2 threads, and changed blocks carry the transcoding
 * hints of their new texels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/uastc.h"
#include "common/uastc_transcode_etc.h"
#include "cook/encode/encode.h"
#include "test_support.h"

static uint32_t rng_state = 7;
static uint32_t rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static double sq_error(const uint8_t *a, const uint8_t *b, size_t n) {
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        e += d * d;
    }
    return e;
}

/* A smooth block: a gradient per channel plus a little noise. */
static void smooth_block(uint8_t rgba[64]) {
    int base[4], dx[4], dy[4];
    for (int c = 0; c < 4; c++) {
        base[c] = 40 + (int)(rnd() % 170);
        dx[c] = (int)(rnd() % 17) - 8;
        dy[c] = (int)(rnd() % 17) - 8;
    }
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < 4; c++) {
            int v = base[c] + dx[c] * (i % 4) + dy[c] * (i / 4) + (int)(rnd() % 5) - 2;
            rgba[4 * i + c] = (uint8_t)(c == 3 ? 255 : v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

static void refit_keeps_the_weights(void **state) {
    (void)state;
    for (int n = 0; n < 200; n++) {
        uint8_t rgba[64], block[16], out[64];
        smooth_block(rgba);
        uastc_encode_block(rgba, BLOCK_QUALITY_NORMAL, block);
        uastc_logical l;
        assert_int_equal(uastc_unpack(block, &l), UASTC_OK);
        uastc_decode_logical(&l, false, out);
        double original = sq_error(out, rgba, 64);
        uastc_logical refit = l;
        memset(refit.endpoints, 0, sizeof refit.endpoints);
        double e = uastc_refit_endpoints(&refit, rgba);
        assert_memory_equal(refit.weights, l.weights, sizeof l.weights);
        uint8_t packed[16];
        assert_int_equal(uastc_pack(&refit, packed), UASTC_OK);
        uastc_decode_logical(&refit, false, out);
        assert_true(fabs(sq_error(out, rgba, 64) - e) < 1e-6);
        /* Least squares for the encoder's own weights: near its error. */
        assert_true(e <= 2.0 * original + 64.0);
    }
}

static void reweigh_keeps_the_endpoints(void **state) {
    (void)state;
    for (int n = 0; n < 200; n++) {
        uint8_t rgba[64], other[64], block[16], out[64];
        smooth_block(rgba);
        smooth_block(other);
        uastc_encode_block(other, BLOCK_QUALITY_NORMAL, block);
        uastc_logical l;
        assert_int_equal(uastc_unpack(block, &l), UASTC_OK);
        if (l.mode == UASTC_MODE_SOLID)
            continue;
        uastc_logical r = l;
        double e = uastc_reweigh(&r, rgba);
        uint8_t packed[16];
        assert_int_equal(uastc_pack(&r, packed), UASTC_OK);
        uastc_decode_logical(&r, false, out);
        assert_true(fabs(sq_error(out, rgba, 64) - e) < 1e-6);
        assert_int_equal(r.mode, l.mode);
        /* Each endpoint pair is kept, or swapped for an anchor's weight. */
        for (unsigned i = 0; i + 1 < sizeof l.endpoints; i += 2)
            assert_true(
                (r.endpoints[i] == l.endpoints[i] && r.endpoints[i + 1] == l.endpoints[i + 1]) ||
                (r.endpoints[i] == l.endpoints[i + 1] && r.endpoints[i + 1] == l.endpoints[i]));
    }
}

/* A 96x96 image of 8x8 tiles that repeat with small changes: what RDO can
 * make Zstd find. */
enum { W = 96, H = 96 };
static void tiled_image(uint8_t *rgba) {
    uint8_t tile[8 * 8 * 4];
    for (int i = 0; i < 64; i++)
        for (int c = 0; c < 4; c++)
            tile[4 * i + c] =
                (uint8_t)(c == 3 ? 255 : 60 + (i % 8) * 12 + (i / 8) * 7 * (c + 1) % 90);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                int v = tile[4 * ((y % 8) * 8 + x % 8) + c];
                v += c == 3 ? 0 : (int)(rnd() % 7) - 3 + (x / 24) * 2;
                rgba[4 * (y * W + x) + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
}

static size_t zstd_size(const uint8_t *data, size_t size) {
    size_t bound = ZSTD_compressBound(size);
    void *out = malloc(bound);
    assert_non_null(out);
    size_t n = ZSTD_compress(out, bound, data, size, 2);
    assert_false(ZSTD_isError(n));
    free(out);
    return n;
}

static void encode(const uint8_t *rgba, float rdo, unsigned threads, uint8_t *out) {
    block_image_desc d = {.format = BLOCK_FORMAT_UASTC,
                          .quality = BLOCK_QUALITY_NORMAL,
                          .width = W,
                          .height = H,
                          .rgba8 = rgba,
                          .threads = threads,
                          .uastc_rdo = rdo};
    char reason[128];
    assert_true(block_encode_image(&d, out, reason, sizeof reason));
}

static void rdo_is_bounded_smaller_and_deterministic(void **state) {
    (void)state;
    uint8_t *rgba = malloc(W * H * 4);
    size_t size = (W / 4) * (H / 4) * 16;
    uint8_t *plain = malloc(size), *off = malloc(size), *one = malloc(size), *two = malloc(size);
    assert_true(rgba && plain && off && one && two);
    tiled_image(rgba);
    encode(rgba, 0.0f, 1, plain);
    encode(rgba, 0.0f, 2, off);
    assert_memory_equal(plain, off, size); /* off: untouched */
    encode(rgba, uastc_rdo_lambda(COOK_UASTC_RDO_NORMAL), 1, one);
    encode(rgba, uastc_rdo_lambda(COOK_UASTC_RDO_NORMAL), 2, two);
    assert_memory_equal(one, two, size);
    double plain_error = 0, rdo_error = 0;
    size_t changed = 0;
    for (size_t b = 0; b < size / 16; b++) {
        uint8_t src[64], a[64], r[64];
        block_image_desc d = {.width = W, .height = H, .rgba8 = rgba};
        block_gather_rgba8(&d, (uint32_t)(b % (W / 4)), (uint32_t)(b / (W / 4)), src);
        assert_int_equal(uastc_decode(plain + 16 * b, false, a), UASTC_OK);
        assert_int_equal(uastc_decode(one + 16 * b, false, r), UASTC_OK);
        plain_error += sq_error(a, src, 64);
        rdo_error += sq_error(r, src, 64);
        changed += memcmp(plain + 16 * b, one + 16 * b, 16) != 0;
    }
    /* `normal` spends at most 1 dB (the image is opaque: the weighted
     * error the pass budgets is this one). */
    double loss = 10.0 * log10(rdo_error / plain_error);
    size_t before = zstd_size(plain, size), after = zstd_size(one, size);
    print_message("RDO normal: %zu of %zu blocks changed, Zstd %zu -> %zu bytes, %.2f dB lost\n",
                  changed, size / 16, before, after, loss);
    assert_true(changed > 0);
    assert_true(after < before);
    assert_true(loss <= 1.0 + 1e-9);
    free(rgba);
    free(plain);
    free(off);
    free(one);
    free(two);
}

/* Blocks the pass changed carry the transcoding hints of their new texels:
 * each block's hints recomputed here (uastc_encode_hints, as the encoder
 * does) are the ones stored, so its ETC1, ETC2 and BC1 transcodes are
 * those of the freshly hinted block. Translucent texels in part of the
 * image bring in the EAC hints. */
static void rdo_blocks_carry_fresh_hints(void **state) {
    (void)state;
    uint8_t *rgba = malloc(W * H * 4);
    size_t size = (W / 4) * (H / 4) * 16;
    uint8_t *plain = malloc(size), *rdo = malloc(size);
    assert_true(rgba && plain && rdo);
    tiled_image(rgba);
    for (size_t i = 0; i < (size_t)W * H / 2; i++)
        rgba[4 * i + 3] = (uint8_t)(160 + (i % W) / 2);
    encode(rgba, 0.0f, 1, plain);
    encode(rgba, uastc_rdo_lambda(COOK_UASTC_RDO_HIGH), 1, rdo);
    size_t changed = 0;
    for (size_t b = 0; b < size / 16; b++) {
        const uint8_t *block = rdo + 16 * b;
        if (memcmp(block, plain + 16 * b, 16) == 0)
            continue;
        changed++;
        uint8_t src[64], fresh[16];
        block_image_desc d = {.width = W, .height = H, .rgba8 = rgba};
        block_gather_rgba8(&d, (uint32_t)(b % (W / 4)), (uint32_t)(b / (W / 4)), src);
        uastc_logical l;
        assert_int_equal(uastc_unpack(block, &l), UASTC_OK);
        uint32_t stored = l.hints;
        l.hints = 0;
        uastc_encode_hints(src, BLOCK_QUALITY_NORMAL, &l);
        assert_int_equal(stored, l.hints);
        assert_int_equal(uastc_pack(&l, fresh), UASTC_OK);
        uint8_t a[16], f[16];
        assert_int_equal(uastc_block_to_etc1(block, false, a), UASTC_OK);
        assert_int_equal(uastc_block_to_etc1(fresh, false, f), UASTC_OK);
        assert_memory_equal(a, f, 8);
        assert_int_equal(uastc_block_to_etc2_rgba8(block, false, a), UASTC_OK);
        assert_int_equal(uastc_block_to_etc2_rgba8(fresh, false, f), UASTC_OK);
        assert_memory_equal(a, f, 16);
        assert_int_equal(uastc_block_to_bc1(block, false, a), UASTC_OK);
        assert_int_equal(uastc_block_to_bc1(fresh, false, f), UASTC_OK);
        assert_memory_equal(a, f, 8);
    }
    print_message("RDO high: %zu of %zu blocks changed, each with fresh hints\n", changed,
                  size / 16);
    assert_true(changed > 0);
    free(rgba);
    free(plain);
    free(rdo);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refit_keeps_the_weights),
        cmocka_unit_test(reweigh_keeps_the_endpoints),
        cmocka_unit_test(rdo_is_bounded_smaller_and_deterministic),
        cmocka_unit_test(rdo_blocks_carry_fresh_hints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
