/* inspect_texture_decode: cooked texture images back to RGBA8. Files are
 * written by the cooker's KTX2 writer from texels and blocks the test makes
 * (hand-built BC1 blocks, BC7 and ASTC encodes of known colours, UASTC
 * blocks packed by hand and encoded); the expected values are computed here
 * from the format rules, or for UASTC by libkiln's kiln_uastc_decode_rgba8. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/uastc.h"
#include "cook/encode/encode.h"
#include "cook/inspect/inspect.h"
#include "cook/write/write.h"
#include "test_support.h"

typedef struct texture_file {
    bytebuf bytes;
    kiln_ktx2_view view;
} texture_file;

/* One KTX2 of `levels` levels (level_data[i], sized by the format). */
static void make_texture(texture_file *file, uint32_t vk_format, uint32_t width, uint32_t height,
                         uint32_t layers, uint32_t faces, uint32_t levels,
                         const uint8_t *const *level_data) {
    const ktx2_format_info *format = ktx2_format_find(vk_format);
    assert_non_null(format);
    size_t sizes[8];
    for (uint32_t i = 0; i < levels; i++)
        sizes[i] = (size_t)ktx2_level_byte_size(format, width, height, 0, layers, faces, i);
    ktx2_image_desc desc = {.vk_format = vk_format,
                            .width = width,
                            .height = height,
                            .layers = layers,
                            .faces = faces,
                            .levels = levels,
                            .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
                            .zstd_level = 3,
                            .level_data = level_data,
                            .level_size = sizes};
    char reason[256];
    memset(file, 0, sizeof *file);
    assert_true(write_ktx2(&desc, &file->bytes, reason, sizeof reason));
    kiln_error error;
    assert_int_equal(
        kiln_ktx2_view_get(&file->view, file->bytes.data, file->bytes.size, "test.ktx2", &error),
        KILN_OK);
}

static void decode_ok(const texture_file *file, uint32_t level, uint32_t layer, uint32_t face,
                      inspect_rgba8_image *image) {
    inspect_texture_image which = {.level = level, .layer = layer, .face = face};
    char reason[256] = "";
    bool ok = inspect_texture_decode(&file->view, &which, image, reason, sizeof reason);
    if (!ok)
        fail_msg("decode failed: %s", reason);
}

static void assert_texel(const inspect_rgba8_image *image, uint32_t x, uint32_t y, int r, int g,
                         int b, int a) {
    const uint8_t *t = image->rgba + ((size_t)y * image->width + x) * 4;
    if (t[0] != r || t[1] != g || t[2] != b || t[3] != a)
        fail_msg("texel (%u,%u) is (%d,%d,%d,%d), expected (%d,%d,%d,%d)", x, y, t[0], t[1], t[2],
                 t[3], r, g, b, a);
}

/* RGBA8 sRGB: a level 1 comes back byte for byte, sRGB values unconverted. */
static void test_rgba8_level(void **state) {
    (void)state;
    uint8_t level0[4 * 4 * 4], level1[2 * 2 * 4];
    for (size_t i = 0; i < sizeof level0; i++)
        level0[i] = (uint8_t)(i * 7);
    for (size_t i = 0; i < sizeof level1; i++)
        level1[i] = (uint8_t)(200 - i * 3);
    const uint8_t *levels[] = {level0, level1};
    texture_file file;
    make_texture(&file, KTX2_VK_FORMAT_R8G8B8A8_SRGB, 4, 4, 0, 1, 2, levels);
    inspect_rgba8_image image;
    decode_ok(&file, 1, 0, 0, &image);
    assert_int_equal(image.width, 2);
    assert_int_equal(image.height, 2);
    assert_memory_equal(image.rgba, level1, sizeof level1);
    inspect_rgba8_image_free(&image);
    bytebuf_free(&file.bytes);
}

/* R8 and RG8: missing channels 0, alpha 255. */
static void test_one_and_two_channels(void **state) {
    (void)state;
    uint8_t r8[4] = {10, 20, 30, 40}, rg8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const uint8_t *r8_levels[] = {r8}, *rg8_levels[] = {rg8};
    texture_file file;
    inspect_rgba8_image image;
    make_texture(&file, KTX2_VK_FORMAT_R8_UNORM, 2, 2, 0, 1, 1, r8_levels);
    decode_ok(&file, 0, 0, 0, &image);
    assert_texel(&image, 1, 1, 40, 0, 0, 255);
    inspect_rgba8_image_free(&image);
    bytebuf_free(&file.bytes);
    make_texture(&file, KTX2_VK_FORMAT_R8G8_UNORM, 2, 2, 0, 1, 1, rg8_levels);
    decode_ok(&file, 0, 0, 0, &image);
    assert_texel(&image, 0, 1, 5, 6, 0, 255);
    inspect_rgba8_image_free(&image);
    bytebuf_free(&file.bytes);
}

/* The documented tone map, written again: Reinhard, gamma 1/2.2, rounded. */
static int expected_tonemap(double v) {
    return (int)lrint(pow(v / (1.0 + v), 1.0 / 2.2) * 255.0);
}

/* RGBA16F: RGB tone-mapped, alpha clamped to 0..1. */
static void test_half_float(void **state) {
    (void)state;
    const float values[4][4] = {{0.0f, 1.0f, 3.0f, 0.5f},
                                {0.25f, 16.0f, -2.0f, 2.0f},
                                {1.0f, 1.0f, 1.0f, 1.0f},
                                {0.0f, 0.0f, 0.0f, 0.0f}};
    uint8_t level[4 * 8];
    for (int t = 0; t < 4; t++) {
        for (int c = 0; c < 4; c++) {
            uint16_t half = block_float_to_half(values[t][c]);
            level[t * 8 + c * 2] = (uint8_t)(half & 0xFF);
            level[t * 8 + c * 2 + 1] = (uint8_t)(half >> 8);
        }
    }
    const uint8_t *levels[] = {level};
    texture_file file;
    make_texture(&file, KTX2_VK_FORMAT_R16G16B16A16_SFLOAT, 2, 2, 0, 1, 1, levels);
    inspect_rgba8_image image;
    decode_ok(&file, 0, 0, 0, &image);
    assert_texel(&image, 0, 0, 0, expected_tonemap(1.0), expected_tonemap(3.0), 128);
    assert_texel(&image, 1, 0, expected_tonemap(0.25), expected_tonemap(16.0), 0, 255);
    assert_texel(&image, 0, 1, expected_tonemap(1.0), expected_tonemap(1.0), expected_tonemap(1.0),
                 255);
    assert_texel(&image, 1, 1, 0, 0, 0, 0);
    inspect_rgba8_image_free(&image);
    bytebuf_free(&file.bytes);
}

/* A BC1 block built by hand: endpoints pure red (0xF800) and pure blue
 * (0x001F), c0 > c1 so four colours; row y uses index y for every texel. */
static void test_bc1_known_block(void **state) {
    (void)state;
    uint8_t block[8] = {0x00, 0xF8, 0x1F, 0x00, 0x00, 0x55, 0xAA, 0xFF};
    const uint8_t *levels[] = {block};
    texture_file file;
    make_texture(&file, KTX2_VK_FORMAT_BC1_RGB_UNORM, 4, 4, 0, 1, 1, levels);
    inspect_rgba8_image image;
    decode_ok(&file, 0, 0, 0, &image);
    /* Index 2 is (2 c0 + c1) / 3, index 3 (c0 + 2 c1) / 3. */
    for (uint32_t x = 0; x < 4; x++) {
        assert_texel(&image, x, 0, 255, 0, 0, 255);
        assert_texel(&image, x, 1, 0, 0, 255, 255);
        assert_texel(&image, x, 2, 170, 0, 85, 255);
        assert_texel(&image, x, 3, 85, 0, 170, 255);
    }
    inspect_rgba8_image_free(&image);
    bytebuf_free(&file.bytes);
}

/* 8x4 texels: the left block one colour, the right another. */
static void fill_two_colours(uint8_t *rgba, const uint8_t left[4], const uint8_t right[4]) {
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++)
            memcpy(rgba + (y * 8 + x) * 4, x < 4 ? left : right, 4);
}

static void assert_close_to(const inspect_rgba8_image *image, uint32_t x, uint32_t y,
                            const uint8_t expected[4], int tolerance) {
    const uint8_t *t = image->rgba + ((size_t)y * image->width + x) * 4;
    for (int c = 0; c < 4; c++)
        if (abs(t[c] - expected[c]) > tolerance)
            fail_msg("texel (%u,%u) channel %d is %d, expected %d", x, y, c, t[c], expected[c]);
}

/* BC7 and ASTC 4x4 encodes of two solid blocks decode to their colours. */
static void check_encoded(block_format format, uint32_t vk_format) {
    const uint8_t left[4] = {200, 40, 90, 255}, right[4] = {16, 128, 240, 100};
    uint8_t rgba[8 * 4 * 4];
    fill_two_colours(rgba, left, right);
    block_image_desc desc = {.format = format,
                             .quality = BLOCK_QUALITY_NORMAL,
                             .width = 8,
                             .height = 4,
                             .rgba8 = rgba,
                             .astc_block_width = 4,
                             .astc_block_height = 4};
    uint8_t blocks[32];
    assert_int_equal(block_image_size(&desc), sizeof blocks);
    char reason[256];
    assert_true(block_encode_image(&desc, blocks, reason, sizeof reason));
    const uint8_t *levels[] = {blocks};
    texture_file file;
    make_texture(&file, vk_format, 8, 4, 0, 1, 1, levels);
    inspect_rgba8_image image;
    decode_ok(&file, 0, 0, 0, &image);
    for (uint32_t y = 0; y < 4; y++) {
        assert_close_to(&image, 1, y, left, 1);
        assert_close_to(&image, 6, y, right, 1);
    }
    inspect_rgba8_image_free(&image);
    bytebuf_free(&file.bytes);
}

static void test_bc7_encoded(void **state) {
    (void)state;
    check_encoded(BLOCK_FORMAT_BC7, KTX2_VK_FORMAT_BC7_UNORM);
}

static void test_astc_encoded(void **state) {
    (void)state;
    check_encoded(BLOCK_FORMAT_ASTC_LDR, KTX2_VK_FORMAT_ASTC_4x4_UNORM);
}

/* UASTC (vkFormat UNDEFINED, the UASTC DFD), an sRGB file: a hand-packed
 * solid block gives its colour, an encoded 8x8 gradient and its 4x4 mip give
 * exactly kiln_uastc_decode_rgba8's texels with UNORM8 interpolation; a
 * cubemap's faces are told apart. */
static void test_uastc(void **state) {
    (void)state;
    uint8_t rgba[8 * 8 * 4];
    for (int i = 0; i < 64; i++) {
        int x = i % 8, y = i / 8;
        const uint8_t texel[4] = {(uint8_t)(x * 30), (uint8_t)(y * 25 + 20), (uint8_t)(x * y * 4),
                                  (uint8_t)(255 - x * 9)};
        memcpy(rgba + i * 4, texel, 4);
    }
    block_image_desc desc = {.format = BLOCK_FORMAT_UASTC,
                             .quality = BLOCK_QUALITY_NORMAL,
                             .width = 8,
                             .height = 8,
                             .rgba8 = rgba};
    uint8_t level0[4 * UASTC_BLOCK_BYTES], level1[UASTC_BLOCK_BYTES];
    assert_int_equal(block_image_size(&desc), sizeof level0);
    char reason[256];
    assert_true(block_encode_image(&desc, level0, reason, sizeof reason));
    uastc_logical solid = {.mode = UASTC_MODE_SOLID, .solid = {12, 34, 56, 78}};
    assert_int_equal(uastc_pack(&solid, level1), UASTC_OK);
    const uint8_t *levels[] = {level0, level1};
    texture_file file;
    make_texture(&file, KTX2_KILN_UASTC_RGBA_SRGB, 8, 8, 0, 1, 2, levels);
    assert_int_equal(file.view.vk_format, KTX2_VK_FORMAT_UNDEFINED);

    inspect_rgba8_image image;
    decode_ok(&file, 0, 0, 0, &image);
    assert_int_equal(image.width, 8);
    assert_int_equal(image.height, 8);
    uint8_t expected[8 * 8 * 4];
    kiln_error error;
    assert_int_equal(kiln_uastc_decode_rgba8(level0, sizeof level0, 8, 8, false, expected,
                                             sizeof expected, "expected", &error),
                     KILN_OK);
    assert_memory_equal(image.rgba, expected, sizeof expected);
    inspect_rgba8_image_free(&image);
    decode_ok(&file, 1, 0, 0, &image);
    assert_int_equal(image.width, 4);
    for (uint32_t i = 0; i < 16; i++)
        assert_texel(&image, i % 4, i / 4, 12, 34, 56, 78);
    inspect_rgba8_image_free(&image);
    bytebuf_free(&file.bytes);

    /* A cubemap (RGB, linear): each face's solid block comes back from its face. */
    uint8_t faces[6 * UASTC_BLOCK_BYTES];
    for (uint8_t f = 0; f < 6; f++) {
        uastc_logical face = {.mode = UASTC_MODE_SOLID, .solid = {(uint8_t)(f * 40), 7, 9, 255}};
        assert_int_equal(uastc_pack(&face, faces + f * UASTC_BLOCK_BYTES), UASTC_OK);
    }
    const uint8_t *cube[] = {faces};
    make_texture(&file, KTX2_KILN_UASTC_RGB_UNORM, 4, 4, 0, 6, 1, cube);
    for (uint32_t f = 0; f < 6; f++) {
        decode_ok(&file, 0, 0, f, &image);
        assert_texel(&image, 3, 3, (int)f * 40, 7, 9, 255);
        inspect_rgba8_image_free(&image);
    }
    bytebuf_free(&file.bytes);

    /* Block (1, 0) with the reserved mode code: the reason names it. */
    level0[UASTC_BLOCK_BYTES] = 0x45;
    make_texture(&file, KTX2_KILN_UASTC_RGBA_SRGB, 8, 8, 0, 1, 2, levels);
    inspect_texture_image which = {0};
    assert_false(inspect_texture_decode(&file.view, &which, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "level 0: UASTC: block (1, 0): reserved mode code"));
    bytebuf_free(&file.bytes);
}

/* A cubemap array: (layer, face) picks its own image; out of range is named. */
static void test_faces_layers_and_ranges(void **state) {
    (void)state;
    enum { LAYERS = 2, FACES = 6 };
    uint8_t level[LAYERS * FACES * 4];
    for (int image = 0; image < LAYERS * FACES; image++) {
        level[image * 4] = (uint8_t)(image * 10);
        level[image * 4 + 1] = (uint8_t)image;
        level[image * 4 + 2] = 7;
        level[image * 4 + 3] = 255;
    }
    const uint8_t *levels[] = {level};
    texture_file file;
    make_texture(&file, KTX2_VK_FORMAT_R8G8B8A8_UNORM, 1, 1, LAYERS, FACES, 1, levels);
    inspect_rgba8_image image;
    decode_ok(&file, 0, 1, 4, &image);
    assert_texel(&image, 0, 0, (1 * FACES + 4) * 10, 1 * FACES + 4, 7, 255);
    inspect_rgba8_image_free(&image);

    char reason[256];
    inspect_texture_image which = {.level = 1};
    assert_false(inspect_texture_decode(&file.view, &which, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "level 1 is out of range: the texture has 1 level"));
    which = (inspect_texture_image){.face = 6};
    assert_false(inspect_texture_decode(&file.view, &which, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "face 6 is out of range: the texture has 6 faces"));
    which = (inspect_texture_image){.layer = 2};
    assert_false(inspect_texture_decode(&file.view, &which, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "layer 2 is out of range: the texture has 2 array layers"));

    /* A format kiln does not know (e.g. one added later) is refused by name. */
    kiln_ktx2_view unknown = file.view;
    unknown.vk_format = 1000156000u;
    which = (inspect_texture_image){0};
    assert_false(inspect_texture_decode(&unknown, &which, &image, reason, sizeof reason));
    assert_non_null(strstr(reason, "unsupported format"));
    assert_null(image.rgba);
    bytebuf_free(&file.bytes);
}

/* Thumbnails average the box each texel covers. */
static void test_thumbnail(void **state) {
    (void)state;
    uint8_t rgba[4 * 2 * 4] = {0};
    for (int x = 0; x < 4; x++) {
        rgba[x * 4] = (uint8_t)(x * 40);           /* row 0 */
        rgba[(4 + x) * 4] = (uint8_t)(x * 40 + 2); /* row 1 */
    }
    inspect_rgba8_image image = {.width = 4, .height = 2, .rgba = rgba}, small;
    assert_true(inspect_rgba8_thumbnail(&image, 2, &small));
    assert_int_equal(small.width, 2);
    assert_int_equal(small.height, 1);
    /* (0 + 40 + 2 + 42) / 4 = 21, (80 + 120 + 82 + 122) / 4 = 101 */
    assert_int_equal(small.rgba[0], 21);
    assert_int_equal(small.rgba[4], 101);
    inspect_rgba8_image_free(&small);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rgba8_level), cmocka_unit_test(test_one_and_two_channels),
        cmocka_unit_test(test_half_float),  cmocka_unit_test(test_bc1_known_block),
        cmocka_unit_test(test_bc7_encoded), cmocka_unit_test(test_astc_encoded),
        cmocka_unit_test(test_uastc),       cmocka_unit_test(test_faces_layers_and_ranges),
        cmocka_unit_test(test_thumbnail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
