/* Image decoding: every corpus image row of index.tsv (png/jpg/hdr) decodes
 * when marked ok and fails clearly when marked error; 16-bit, palette and
 * tRNS PNGs; hand-made BMP and TGA; truncation; dimension limit and the
 * decompression-bomb guard; .cube LUT parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

static bool decode_path(const char *path, ir_decoded_image *image, char *reason, size_t size) {
    size_t length;
    uint8_t *bytes = test_read_file(path, &length);
    bool ok = image_decode(bytes, length, path, NULL, image, reason, size);
    free(bytes);
    return ok;
}

static void corpus_images_decode_or_fail_as_the_index_says(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_images_decode_or_fail_as_the_index_says"))
        skip();
    char *index_path = test_path_join(test_corpus_dir(), "index.tsv");
    size_t size;
    char *text = (char *)test_read_file(index_path, &size);
    int checked = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char path[1024], format[32], category[64], expect[16];
        if (sscanf(line, "%1023[^\t]\t%31[^\t]\t%63[^\t]\t%15[^\t]", path, format, category,
                   expect) != 4)
            continue;
        if (strcmp(format, "png") != 0 && strcmp(format, "jpg") != 0 && strcmp(format, "hdr") != 0)
            continue;
        char *full = test_path_join(test_corpus_dir(), path);
        ir_decoded_image image;
        char reason[256] = "";
        bool ok = decode_path(full, &image, reason, sizeof reason);
        if (strcmp(expect, "ok") == 0) {
            if (!ok)
                fail_msg("%s: %s", path, reason);
            assert_true(image.width > 0 && image.height > 0);
            assert_true((image.rgba8 != NULL) != (image.rgbaf != NULL));
            assert_int_equal(image.rgbaf != NULL, strcmp(format, "hdr") == 0);
            ir_decoded_image_free(&image);
        } else {
            if (ok)
                fail_msg("%s decoded but the index says error", path);
            assert_true(strlen(reason) > 0);
        }
        free(full);
        checked++;
    }
    assert_true(checked >= 20);
    free(text);
    free(index_path);
}

static void pngsuite_bit_depths_palette_and_alpha(void **state) {
    (void)state;
    if (test_skip_without_corpus("pngsuite_bit_depths_palette_and_alpha"))
        skip();
    struct {
        const char *name;
        uint32_t channels, bits;
    } rows[] = {
        {"basn0g16.png", 1, 16}, {"basn2c16.png", 3, 16}, {"basn3p08.png", 3, 8},
        {"basn4a08.png", 2, 8},  {"basn6a08.png", 4, 8},  {"basi0g16.png", 1, 16},
        {"tbrn2c08.png", 3, 8},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "images/pngsuite/%s", rows[i].name);
        char *full = test_path_join(test_corpus_dir(), rel);
        ir_decoded_image image;
        char reason[256];
        if (!decode_path(full, &image, reason, sizeof reason))
            fail_msg("%s: %s", rows[i].name, reason);
        assert_int_equal(image.width, 32);
        assert_int_equal(image.height, 32);
        assert_int_equal(image.source_channels, rows[i].channels);
        assert_int_equal(image.source_bits, rows[i].bits);
        if (strcmp(rows[i].name, "tbrn2c08.png") == 0) {
            /* tRNS colour key: some texels become fully transparent. */
            int transparent = 0;
            for (size_t p = 0; p < 32 * 32; p++)
                transparent += image.rgba8[p * 4 + 3] == 0;
            assert_true(transparent > 0);
        }
        if (rows[i].channels == 1) { /* grey expands to r = g = b, opaque */
            assert_int_equal(image.rgba8[0], image.rgba8[1]);
            assert_int_equal(image.rgba8[3], 255);
        }
        ir_decoded_image_free(&image);
        free(full);
    }
    /* The 'x' files of PngSuite are corrupt: every one is an error. */
    const char *bad[] = {"xc1n0g08.png", "xcrn0g04.png", "xd0n2c08.png",
                         "xdtn0g01.png", "xhdn0g08.png", "xs1n0g01.png"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "images/pngsuite/%s", bad[i]);
        char *full = test_path_join(test_corpus_dir(), rel);
        ir_decoded_image image;
        char reason[256] = "";
        if (decode_path(full, &image, reason, sizeof reason))
            fail_msg("%s decoded", bad[i]);
        assert_true(strlen(reason) > 0);
        free(full);
    }
}

static void truncated_images_are_errors(void **state) {
    (void)state;
    if (test_skip_without_corpus("truncated_images_are_errors"))
        skip();
    const char *files[] = {"images/pngsuite/basn6a08.png", "images/misc/cyan.jpg",
                           "images/hdr/spiaggia_di_mondello_1k.hdr"};
    for (size_t f = 0; f < 3; f++) {
        char *full = test_path_join(test_corpus_dir(), files[f]);
        size_t size;
        uint8_t *bytes = test_read_file(full, &size);
        for (size_t cut = 1; cut < 8; cut++) {
            size_t length = size * cut / 8;
            ir_decoded_image image;
            char reason[256] = "";
            bool ok = image_decode(bytes, length, files[f], NULL, &image, reason, sizeof reason);
            if (ok)
                fail_msg("%s cut to %zu bytes decoded", files[f], length);
            assert_true(strlen(reason) > 0);
        }
        free(bytes);
        free(full);
    }
}

static uint32_t crc_table_value(uint32_t c) {
    for (int k = 0; k < 8; k++)
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    return c;
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_table_value((c ^ p[i]) & 0xFF) ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A PNG signature and IHDR (RGBA8) declaring w x h, then an empty IDAT and IEND. */
static size_t png_header_only(uint8_t *out, uint32_t w, uint32_t h) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(out, sig, 8);
    uint8_t *chunk = out + 8;
    put_be32(chunk, 13);
    memcpy(chunk + 4, "IHDR", 4);
    put_be32(chunk + 8, w);
    put_be32(chunk + 12, h);
    chunk[16] = 8;
    chunk[17] = 6;
    chunk[18] = chunk[19] = chunk[20] = 0;
    put_be32(chunk + 21, crc32_of(chunk + 4, 17));
    uint8_t *end = chunk + 25;
    put_be32(end, 0);
    memcpy(end + 4, "IEND", 4);
    put_be32(end + 8, crc32_of(end + 4, 4));
    return 8 + 25 + 12;
}

static void dimension_limit_and_decompression_bomb_are_refused(void **state) {
    (void)state;
    uint8_t png[64];
    ir_decoded_image image;
    char reason[256];
    size_t size = png_header_only(png, 20000, 16);
    assert_false(image_decode(png, size, "big.png", NULL, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "limit"));
    /* Within the per-side limit but 256 Mi pixels: the bomb guard. */
    size = png_header_only(png, 16384, 16384);
    assert_false(image_decode(png, size, "bomb.png", NULL, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "bomb"));
    /* A configured lower limit. */
    image_limits limits = {64, 1 << 20, 0.0};
    size = png_header_only(png, 65, 1);
    assert_false(image_decode(png, size, "x.png", &limits, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "limit"));
    /* Not an image at all. */
    assert_false(
        image_decode((const uint8_t *)"hello", 5, "a.png", NULL, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "not a recognised image"));
}

static void bmp_and_tga_decode(void **state) {
    (void)state;
    /* 2x2 24-bit BMP, bottom-up rows padded to 4 bytes. */
    uint8_t bmp[54 + 16] = {'B', 'M'};
    uint32_t v;
    v = sizeof bmp;
    memcpy(bmp + 2, &v, 4);
    v = 54;
    memcpy(bmp + 10, &v, 4);
    v = 40;
    memcpy(bmp + 14, &v, 4);
    v = 2;
    memcpy(bmp + 18, &v, 4);
    memcpy(bmp + 22, &v, 4);
    bmp[26] = 1;
    bmp[28] = 24;
    v = 16;
    memcpy(bmp + 34, &v, 4);
    /* bottom row: blue, green; top row: red, white (BGR order) */
    const uint8_t pixels[16] = {255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 255, 255, 255, 255, 0, 0};
    memcpy(bmp + 54, pixels, 16);
    ir_decoded_image image;
    char reason[256];
    if (!image_decode(bmp, sizeof bmp, "a.bmp", NULL, &image, reason, sizeof reason))
        fail_msg("bmp: %s", reason);
    assert_int_equal(image.width, 2);
    const uint8_t expected[16] = {255, 0, 0,   255, 255, 255, 255, 255,
                                  0,   0, 255, 255, 0,   255, 0,   255};
    assert_memory_equal(image.rgba8, expected, 16);
    ir_decoded_image_free(&image);
    /* 2x1 uncompressed 32-bit TGA, top-left origin. */
    uint8_t tga[18 + 8] = {0, 0, 2};
    tga[12] = 2;
    tga[14] = 1;
    tga[16] = 32;
    tga[17] = 0x28;
    const uint8_t texels[8] = {0, 0, 255, 128, 255, 0, 0, 255}; /* BGRA */
    memcpy(tga + 18, texels, 8);
    if (!image_decode(tga, sizeof tga, "a.tga", NULL, &image, reason, sizeof reason))
        fail_msg("tga: %s", reason);
    const uint8_t expected_tga[8] = {255, 0, 0, 128, 0, 0, 255, 255};
    assert_memory_equal(image.rgba8, expected_tga, 8);
    ir_decoded_image_free(&image);
    /* Without the .tga name there is no way to know it is a TGA. */
    assert_false(image_decode(tga, sizeof tga, "a.bin", NULL, &image, reason, sizeof reason));
}

static void cube_luts_parse_and_bad_ones_fail(void **state) {
    (void)state;
    const char *good = "TITLE \"x\"\n# comment\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\n"
                       "0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n";
    uint32_t n;
    float *rgb;
    char reason[256];
    assert_true(image_parse_cube_lut(good, strlen(good), &n, &rgb, reason, sizeof reason));
    assert_int_equal(n, 2);
    assert_true(rgb[3] == 1.0f && rgb[21] == 1.0f);
    free(rgb);
    const char *bad[] = {
        "LUT_3D_SIZE 2\n0 0 0\n", "0 0 0\n", "LUT_3D_SIZE 1000\n", "LUT_3D_SIZE 2\n0 0 zero\n",
        "LUT_1D_SIZE 4\n",        "",        "BOGUS 1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        reason[0] = '\0';
        assert_false(image_parse_cube_lut(bad[i], strlen(bad[i]), &n, &rgb, reason, sizeof reason));
        assert_true(strlen(reason) > 0);
    }
}

/* Every decoder checks the declared size before allocating: a header alone
 * declaring a huge image is refused with the limit or the bomb guard. */
static void huge_declared_sizes_are_refused_in_every_format(void **state) {
    (void)state;
    ir_decoded_image image;
    char reason[256];
    /* BMP: 40-byte info header, 32 bits, 20000 x 16 and 16384 x -16384 (top-down). */
    static const int32_t bmp_sizes[2][2] = {{20000, 16}, {16384, -16384}};
    static const char *const bmp_expect[2] = {"limit", "bomb"};
    for (int i = 0; i < 2; i++) {
        uint8_t bmp[54 + 16] = {'B', 'M'};
        uint32_t v = sizeof bmp;
        memcpy(bmp + 2, &v, 4);
        v = 54;
        memcpy(bmp + 10, &v, 4);
        v = 40;
        memcpy(bmp + 14, &v, 4);
        memcpy(bmp + 18, &bmp_sizes[i][0], 4);
        memcpy(bmp + 22, &bmp_sizes[i][1], 4);
        bmp[26] = 1;
        bmp[28] = 32;
        assert_false(image_decode(bmp, sizeof bmp, "big.bmp", NULL, &image, reason, sizeof reason));
        if (strstr(reason, bmp_expect[i]) == NULL)
            fail_msg("bmp %d: %s", i, reason);
    }
    /* TGA: 65535 x 65535, 32 bits, no pixel data. */
    uint8_t tga[18 + 4] = {0, 0, 2};
    tga[12] = tga[13] = tga[14] = tga[15] = 0xFF;
    tga[16] = 32;
    assert_false(image_decode(tga, sizeof tga, "big.tga", NULL, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "limit"));
    /* Radiance HDR: the resolution line alone. */
    const char *hdr = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 16000 +X 16000\n";
    assert_false(image_decode((const uint8_t *)hdr, strlen(hdr), "big.hdr", NULL, &image, reason,
                              sizeof reason));
    assert_non_null(strstr(reason, "bomb"));
    /* A configured per-side limit applies to every format (here HDR). */
    const char *small = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 9\n";
    image_limits limits = {8, 1 << 20, 0.0};
    assert_false(image_decode((const uint8_t *)small, strlen(small), "small.hdr", &limits, &image,
                              reason, sizeof reason));
    assert_non_null(strstr(reason, "larger than the limit of 8"));
}

/* A LUT whose LUT_3D_SIZE the rest of the file cannot hold is refused before
 * its table is allocated (a 16-byte file must not ask for 200 MB); binary
 * garbage is a clear error too. */
static void lut_sizes_beyond_the_file_and_garbage_fail(void **state) {
    (void)state;
    uint32_t n;
    float *rgb;
    char reason[256];
    const char *bomb = "LUT_3D_SIZE 256\n";
    assert_false(image_parse_cube_lut(bomb, strlen(bomb), &n, &rgb, reason, sizeof reason));
    assert_non_null(strstr(reason, "LUT_3D_SIZE 256 needs 16777216 entries"));
    /* Exactly enough bytes (no final newline) still parses. */
    const char *tight = "LUT_3D_SIZE 2\n0 0 0\n0 0 0\n0 0 0\n0 0 0\n0 0 0\n0 0 0\n0 0 0\n0 0 0";
    assert_true(image_parse_cube_lut(tight, strlen(tight), &n, &rgb, reason, sizeof reason));
    free(rgb);
    const char garbage[] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";
    assert_false(
        image_parse_cube_lut(garbage, sizeof garbage - 1, &n, &rgb, reason, sizeof reason));
    assert_true(strlen(reason) > 0);
}

/* A top-down BMP (negative height, as many writers produce) decodes, first
 * stored row on top: stbi_info reports its height as negative. */
static void top_down_bmp_decodes(void **state) {
    (void)state;
    uint8_t bmp[54 + 16] = {'B', 'M'};
    uint32_t v = sizeof bmp;
    memcpy(bmp + 2, &v, 4);
    v = 54;
    memcpy(bmp + 10, &v, 4);
    v = 40;
    memcpy(bmp + 14, &v, 4);
    int32_t w = 2, h = -2;
    memcpy(bmp + 18, &w, 4);
    memcpy(bmp + 22, &h, 4);
    bmp[26] = 1;
    bmp[28] = 32;
    for (int i = 0; i < 16; i++)
        bmp[54 + i] = (uint8_t)(i * 10); /* BGRA */
    ir_decoded_image image;
    char reason[256];
    if (!image_decode(bmp, sizeof bmp, "top.bmp", NULL, &image, reason, sizeof reason))
        fail_msg("%s", reason);
    assert_int_equal(image.width, 2);
    assert_int_equal(image.height, 2);
    const uint8_t first[4] = {20, 10, 0, 30}, last[4] = {140, 130, 120, 150};
    assert_memory_equal(image.rgba8, first, 4);
    assert_memory_equal(image.rgba8 + 12, last, 4);
    ir_decoded_image_free(&image);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_images_decode_or_fail_as_the_index_says),
        cmocka_unit_test(pngsuite_bit_depths_palette_and_alpha),
        cmocka_unit_test(truncated_images_are_errors),
        cmocka_unit_test(dimension_limit_and_decompression_bomb_are_refused),
        cmocka_unit_test(bmp_and_tga_decode),
        cmocka_unit_test(cube_luts_parse_and_bad_ones_fail),
        cmocka_unit_test(huge_declared_sizes_are_refused_in_every_format),
        cmocka_unit_test(lut_sizes_beyond_the_file_and_garbage_fail),
        cmocka_unit_test(top_down_bmp_decodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
