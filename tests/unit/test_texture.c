/* cook_texture end to end: decode → mips → block encode → KTX2 → file, read
 * back by the runtime reader; formats per usage and target, exact level 0
 * with texture.compress: false, forced formats a texture cannot use, manifest
 * entry, errors; standalone textures through cook_asset and the registry. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/drivers/drivers.h"
#include "cook/encode/encode.h"
#include "test_support.h"

/* A w x h 32-bit BMP (bottom-up, BGRA) whose texels follow a pattern. */
static uint8_t *make_bmp(uint32_t w, uint32_t h, size_t *size) {
    size_t row;
    uint8_t *b = test_bmp_alloc(w, h, 32, size, &row);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p =
                b + 54 + (size_t)(h - 1 - y) * row + (size_t)x * 4; /* row y from the top */
            p[2] = (uint8_t)(x * 13 + y);                           /* R */
            p[1] = (uint8_t)(y * 29 + 7);                           /* G */
            p[0] = (uint8_t)(x ^ y);                                /* B */
            p[3] = 255; /* A (BI_RGB 32-bit: ignored or kept) */
        }
    return b;
}

typedef struct fixture {
    char *out;
    cook_settings settings;
    cook_diag diag;
    cook_context ctx;
    cook_asset_result result;
} fixture;

static void fixture_init(fixture *f, const char *name) {
    memset(f, 0, sizeof *f);
    f->out = test_make_temp_dir(name);
    cook_settings_default(&f->settings);
    f->ctx.settings = &f->settings;
    f->ctx.diag = &f->diag;
    f->ctx.source_path = "t";
    f->ctx.input_root = f->out;
}

static void fixture_free(fixture *f) {
    diag_free(&f->diag);
    cook_asset_result_free(&f->result);
    strlist_free(&f->ctx.dependencies);
    strlist_free(&f->ctx.absent);
    free(f->out);
}

static uint8_t *read_ktx2(const fixture *f, const char *rel, size_t *size, kiln_ktx2_view *v) {
    char *full = test_path_join(f->out, rel);
    uint8_t *bytes = test_read_file(full, size);
    free(full);
    kiln_error err;
    if (kiln_ktx2_view_get(v, bytes, *size, rel, &err) != KILN_OK)
        fail_msg("%s", err.message);
    return bytes;
}

static void color_texture_is_srgb_with_full_chain_and_exact_level0(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "tex_color");
    /* texture.compress: false keeps the texels exact whatever format says. */
    f.settings.texture_compress = false;
    f.settings.texture_format = COOK_FORMAT_BC7;
    size_t size;
    uint8_t *bmp = make_bmp(12, 5, &size);
    cook_texture_source src = {
        .name = "a.bmp", .bytes = bmp, .size = size, .usage = COOK_TEXTURE_COLOR};
    if (!cook_texture(&f.ctx, f.out, &src, "tex/a", "tex/a.ktx2", true, &f.result))
        fail_msg("%.*s", (int)f.diag.text.size, (const char *)f.diag.text.data);
    assert_int_equal(f.result.outputs.count, 1);
    assert_string_equal(f.result.outputs.items[0], "tex/a.ktx2");
    assert_int_equal(f.result.manifest.count, 1);
    assert_int_equal(f.result.manifest.items[0].kind, KILN_ASSET_TEXTURE);
    assert_int_equal(f.result.manifest.items[0].color_space, KILN_COLOR_SPACE_SRGB);
    size_t file_size;
    kiln_ktx2_view v;
    uint8_t *bytes = read_ktx2(&f, "tex/a.ktx2", &file_size, &v);
    assert_int_equal(f.result.bytes_written, file_size);
    assert_int_equal(v.vk_format, 43);
    assert_int_equal(v.width, 12);
    assert_int_equal(v.height, 5);
    assert_int_equal(v.levels, 4); /* 12x5, 6x2, 3x1, 1x1 */
    /* Zstd is asked for but dropped: it makes a chain this small larger. */
    assert_int_equal(v.supercompression, KILN_KTX2_SUPERCOMPRESSION_NONE);
    uint8_t level0[12 * 5 * 4];
    kiln_error err;
    assert_int_equal(kiln_ktx2_read_level(&v, 0, level0, sizeof level0, &err), KILN_OK);
    for (uint32_t y = 0; y < 5; y++)
        for (uint32_t x = 0; x < 12; x++) {
            const uint8_t *p = level0 + (y * 12 + x) * 4;
            assert_int_equal(p[0], (uint8_t)(x * 13 + y));
            assert_int_equal(p[1], (uint8_t)(y * 29 + 7));
            assert_int_equal(p[2], (uint8_t)(x ^ y));
        }
    free(bytes);
    free(bmp);
    fixture_free(&f);
}

/* texture.compress: false: every mip level in the file is mip_build's float
 * chain quantised (the 8-bit levels now come straight from the filter, and
 * R8 takes their first channel), and the file is the same for 1, 2 and 3
 * threads (level 1 of 256x256 is split into rows). */
static void uncompressed_levels_are_the_quantised_chain_on_any_thread_count(void **state) {
    (void)state;
    size_t size;
    uint8_t *bmp = make_bmp(256, 256, &size);
    ir_decoded_image image;
    char reason[256];
    assert_true(image_decode(bmp, size, "a.bmp", NULL, &image, reason, sizeof reason));
    static const struct {
        cook_texture_usage usage;
        mip_mode mode;
        bool weighted;
        uint32_t vk_format, bpp;
    } cases[] = {
        {COOK_TEXTURE_COLOR, MIP_MODE_COLOR_SRGB, true, KTX2_VK_FORMAT_R8G8B8A8_SRGB, 4},
        {COOK_TEXTURE_NORMAL, MIP_MODE_NORMAL, false, KTX2_VK_FORMAT_R8G8B8A8_UNORM, 4},
        {COOK_TEXTURE_SINGLE, MIP_MODE_LINEAR, false, KTX2_VK_FORMAT_R8_UNORM, 1},
    };
    for (size_t c = 0; c < 3; c++) {
        mip_options o = {
            .mode = cases[c].mode, .alpha_weighted = cases[c].weighted, .mipmaps = true};
        mip_chain reference;
        assert_true(mip_build_rgba8(image.rgba8, 256, 256, &o, &reference));
        uint8_t *files[3];
        size_t sizes[3];
        for (unsigned threads = 1; threads <= 3; threads++) {
            fixture f;
            char name[32];
            snprintf(name, sizeof name, "tex_levels_%zu_%u", c, threads);
            fixture_init(&f, name);
            f.settings.texture_compress = false;
            f.settings.threads = threads;
            cook_texture_source src = {
                .name = "a.bmp", .bytes = bmp, .size = size, .usage = cases[c].usage};
            if (!cook_texture(&f.ctx, f.out, &src, "a", "a.ktx2", true, &f.result))
                fail_msg("%.*s", (int)f.diag.text.size, (const char *)f.diag.text.data);
            kiln_ktx2_view v;
            files[threads - 1] = read_ktx2(&f, "a.ktx2", &sizes[threads - 1], &v);
            assert_int_equal(v.vk_format, cases[c].vk_format);
            assert_int_equal(v.levels, reference.count);
            for (uint32_t level = 1; level < v.levels; level++) {
                size_t texels = (size_t)reference.width[level] * reference.height[level];
                assert_int_equal(kiln_ktx2_level_size(&v, level), texels * cases[c].bpp);
                uint8_t *texel = malloc(texels * cases[c].bpp);
                kiln_error err;
                assert_int_equal(
                    kiln_ktx2_read_level(&v, level, texel, texels * cases[c].bpp, &err), KILN_OK);
                for (size_t i = 0; i < texels * cases[c].bpp; i++) {
                    size_t channel = cases[c].bpp == 1 ? i * 4 : i;
                    assert_int_equal(texel[i],
                                     image_float_to_unorm8(reference.levels[level][channel]));
                }
                free(texel);
            }
            fixture_free(&f);
        }
        for (unsigned t = 1; t < 3; t++) {
            assert_int_equal(sizes[t], sizes[0]);
            assert_memory_equal(files[t], files[0], sizes[0]);
            free(files[t]);
        }
        free(files[0]);
        mip_chain_free(&reference);
    }
    ir_decoded_image_free(&image);
    free(bmp);
}

/* Level 0 decoded from blocks against the source pattern of make_bmp. */
static double level0_psnr(const kiln_ktx2_view *v, block_format format) {
    block_image_desc d = {.format = format,
                          .width = v->width,
                          .height = v->height,
                          .srgb = v->color_space == KILN_COLOR_SPACE_SRGB};
    size_t size = (size_t)kiln_ktx2_level_size(v, 0);
    assert_int_equal(size, block_image_size(&d));
    uint8_t *blocks = malloc(size);
    kiln_error err;
    assert_int_equal(kiln_ktx2_read_level(v, 0, blocks, size, &err), KILN_OK);
    size_t count = (size_t)v->width * v->height;
    uint8_t *decoded = malloc(count * 4), *expected = malloc(count * 4);
    char reason[256];
    assert_true(block_decode_image(&d, blocks, decoded, NULL, reason, sizeof reason));
    for (uint32_t y = 0; y < v->height; y++)
        for (uint32_t x = 0; x < v->width; x++) {
            uint8_t *p = expected + ((size_t)y * v->width + x) * 4;
            p[0] = (uint8_t)(x * 13 + y);
            p[1] = (uint8_t)(y * 29 + 7);
            p[2] = (uint8_t)(x ^ y);
            p[3] = 255;
        }
    double psnr = block_psnr_rgba8(expected, decoded, count, 7u);
    free(blocks);
    free(decoded);
    free(expected);
    return psnr;
}

/* Default settings compress: BC7 sRGB for colour, every level (12x5 down to
 * 1x1) whole 4x4 blocks, the same bytes for 1 and 2 threads. */
static void color_texture_compresses_to_bc7_srgb(void **state) {
    (void)state;
    size_t size;
    uint8_t *bmp = make_bmp(12, 5, &size);
    uint8_t *files[2];
    size_t sizes[2];
    for (unsigned threads = 1; threads <= 2; threads++) {
        fixture f;
        fixture_init(&f, threads == 1 ? "tex_bc7_1" : "tex_bc7_2");
        f.settings.threads = threads;
        f.settings.texture_block_align = COOK_BLOCK_ALIGN_NONE; /* partial blocks kept */
        cook_texture_source src = {
            .name = "a.bmp", .bytes = bmp, .size = size, .usage = COOK_TEXTURE_COLOR};
        if (!cook_texture(&f.ctx, f.out, &src, "a", "a.ktx2", true, &f.result))
            fail_msg("%.*s", (int)f.diag.text.size, (const char *)f.diag.text.data);
        assert_int_equal(f.result.manifest.items[0].color_space, KILN_COLOR_SPACE_SRGB);
        kiln_ktx2_view v;
        files[threads - 1] = read_ktx2(&f, "a.ktx2", &sizes[threads - 1], &v);
        assert_int_equal(v.vk_format, 146); /* BC7_SRGB_BLOCK */
        assert_int_equal(v.block_width, 4);
        assert_int_equal(v.levels, 4);
        const uint64_t expected[4] = {3 * 2 * 16, 2 * 1 * 16, 16, 16};
        for (uint32_t l = 0; l < 4; l++)
            assert_int_equal(kiln_ktx2_level_size(&v, l), expected[l]);
        double psnr = level0_psnr(&v, BLOCK_FORMAT_BC7);
        assert_true(psnr > 30.0);
        fixture_free(&f);
    }
    assert_int_equal(sizes[0], sizes[1]);
    assert_memory_equal(files[0], files[1], sizes[0]);
    free(files[0]);
    free(files[1]);
    free(bmp);
}

static void usages_pick_formats_and_settings_apply(void **state) {
    (void)state;
    struct {
        cook_texture_usage usage;
        cook_texture_target target;
        bool compress;
        uint32_t vk;
        kiln_color_space space;
    } rows[] = {
        {COOK_TEXTURE_DATA, COOK_TARGET_DESKTOP, false, 37, KILN_COLOR_SPACE_LINEAR},
        {COOK_TEXTURE_NORMAL, COOK_TARGET_DESKTOP, false, 37, KILN_COLOR_SPACE_LINEAR},
        {COOK_TEXTURE_SINGLE, COOK_TARGET_DESKTOP, false, 9, KILN_COLOR_SPACE_LINEAR},
        {COOK_TEXTURE_HDR, COOK_TARGET_DESKTOP, false, 97, KILN_COLOR_SPACE_LINEAR},
        {COOK_TEXTURE_COLOR, COOK_TARGET_DESKTOP, true, 132,
         KILN_COLOR_SPACE_SRGB}, /* BC1: opaque, fast */
        {COOK_TEXTURE_DATA, COOK_TARGET_DESKTOP, true, 145, KILN_COLOR_SPACE_LINEAR},   /* BC7 */
        {COOK_TEXTURE_NORMAL, COOK_TARGET_DESKTOP, true, 141, KILN_COLOR_SPACE_LINEAR}, /* BC5 */
        {COOK_TEXTURE_SINGLE, COOK_TARGET_DESKTOP, true, 139, KILN_COLOR_SPACE_LINEAR}, /* BC4 */
        {COOK_TEXTURE_HDR, COOK_TARGET_DESKTOP, true, 143, KILN_COLOR_SPACE_LINEAR},    /* BC6H */
        {COOK_TEXTURE_COLOR, COOK_TARGET_MOBILE, true, 166,
         KILN_COLOR_SPACE_SRGB}, /* ASTC 6x6 sRGB */
        {COOK_TEXTURE_DATA, COOK_TARGET_MOBILE, true, 165, KILN_COLOR_SPACE_LINEAR}, /* ASTC 6x6 */
        {COOK_TEXTURE_NORMAL, COOK_TARGET_MOBILE, true, 157,
         KILN_COLOR_SPACE_LINEAR},                                                   /* ASTC 4x4 */
        {COOK_TEXTURE_SINGLE, COOK_TARGET_MOBILE, true, 9, KILN_COLOR_SPACE_LINEAR}, /* stays R8 */
        {COOK_TEXTURE_HDR, COOK_TARGET_MOBILE, true, 1000066004u, KILN_COLOR_SPACE_LINEAR},
    };
    size_t size;
    uint8_t *bmp = make_bmp(64, 32, &size);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        fixture f;
        fixture_init(&f, "tex_usage");
        f.settings.texture_max_size = 16;
        f.settings.texture_mipmaps = i != 0;
        f.settings.texture_compress = rows[i].compress;
        f.settings.texture_quality = COOK_QUALITY_FAST;
        f.settings.texture_target = rows[i].target;
        f.settings.texture_block_align = COOK_BLOCK_ALIGN_NONE; /* 16x8 stays for ASTC 6x6 */
        cook_texture_source src = {
            .name = "a.bmp", .bytes = bmp, .size = size, .usage = rows[i].usage};
        if (!cook_texture(&f.ctx, f.out, &src, "a", "a.ktx2", true, &f.result))
            fail_msg("row %zu: %.*s", i, (int)f.diag.text.size, (const char *)f.diag.text.data);
        assert_int_equal(f.result.manifest.items[0].color_space, rows[i].space);
        size_t file_size;
        kiln_ktx2_view v;
        uint8_t *bytes = read_ktx2(&f, "a.ktx2", &file_size, &v);
        assert_int_equal(v.vk_format, rows[i].vk);
        assert_int_equal(v.width, 16);
        assert_int_equal(v.height, 8);
        assert_int_equal(v.levels, i == 0 ? 1 : 5);
        free(bytes);
        fixture_free(&f);
    }
    free(bmp);
}

/* texture.block_align through the texture driver: a 12x5 BC7 texture is
 * padded to 12x8 with its content size in kilnContentSize (level 0 decodes to
 * the source with the edge repeated), resized to 12x8 without the key, or
 * kept at 12x5; an uncompressed texture is never touched. */
static void block_align_setting_pads_resizes_or_keeps(void **state) {
    (void)state;
    size_t size;
    uint8_t *bmp = make_bmp(12, 5, &size);
    const struct {
        cook_block_align align;
        bool compress;
        uint32_t height;
        const char *content;
    } rows[] = {
        {COOK_BLOCK_ALIGN_PAD, true, 8, "12 5"},
        {COOK_BLOCK_ALIGN_RESIZE, true, 8, NULL},
        {COOK_BLOCK_ALIGN_NONE, true, 5, NULL},
        {COOK_BLOCK_ALIGN_PAD, false, 5, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        fixture f;
        fixture_init(&f, "tex_align");
        f.settings.texture_block_align = rows[i].align;
        f.settings.texture_compress = rows[i].compress;
        cook_texture_source src = {
            .name = "a.bmp", .bytes = bmp, .size = size, .usage = COOK_TEXTURE_COLOR};
        if (!cook_texture(&f.ctx, f.out, &src, "a", "a.ktx2", true, &f.result))
            fail_msg("row %zu: %.*s", i, (int)f.diag.text.size, (const char *)f.diag.text.data);
        size_t file_size;
        kiln_ktx2_view v;
        uint8_t *bytes = read_ktx2(&f, "a.ktx2", &file_size, &v);
        assert_int_equal(v.width, 12);
        assert_int_equal(v.height, rows[i].height);
        const char *content = kiln_ktx2_find_value(&v, "kilnContentSize", NULL);
        if (rows[i].content == NULL)
            assert_null(content);
        else
            assert_string_equal(content, rows[i].content);
        if (rows[i].align == COOK_BLOCK_ALIGN_PAD && rows[i].compress) {
            /* Rows 5..7 repeat row 4: level 0 decodes close to the padded source. */
            block_image_desc d = {
                .format = BLOCK_FORMAT_BC7, .width = 12, .height = 8, .srgb = true};
            size_t level = (size_t)kiln_ktx2_level_size(&v, 0);
            uint8_t *blocks = malloc(level), *decoded = malloc(12 * 8 * 4),
                    *expected = malloc(12 * 8 * 4);
            kiln_error err;
            char reason[256];
            assert_int_equal(kiln_ktx2_read_level(&v, 0, blocks, level, &err), KILN_OK);
            assert_true(block_decode_image(&d, blocks, decoded, NULL, reason, sizeof reason));
            for (uint32_t y = 0; y < 8; y++)
                for (uint32_t x = 0; x < 12; x++) {
                    uint32_t sy = y < 5 ? y : 4;
                    uint8_t *p = expected + ((size_t)y * 12 + x) * 4;
                    p[0] = (uint8_t)(x * 13 + sy);
                    p[1] = (uint8_t)(sy * 29 + 7);
                    p[2] = (uint8_t)(x ^ sy);
                    p[3] = 255;
                }
            assert_true(block_psnr_rgba8(expected, decoded, 12 * 8, 7u) > 30.0);
            free(blocks);
            free(decoded);
            free(expected);
        }
        free(bytes);
        fixture_free(&f);
    }
    free(bmp);
}

/* An opacity map merged into a colour texture's alpha (MTL map_d): RGB stays
 * the colour image's, alpha is the map's luminance (Rec. 709 on the stored
 * bytes), resampled with the area filter (4x2 to 8x4: each map texel covers
 * 2x2). Without a colour image the texture is white at the map's size. */
static void opacity_map_becomes_the_alpha_channel(void **state) {
    (void)state;
    size_t color_size, map_size;
    uint8_t *color = make_bmp(8, 4, &color_size);
    uint8_t *map = make_bmp(4, 2, &map_size);
    for (int with_color = 1; with_color >= 0; with_color--) {
        fixture f;
        fixture_init(&f, "tex_opacity");
        f.settings.texture_compress = false; /* exact texels */
        f.settings.texture_mipmaps = false;
        cook_texture_source src = {.name = "c.bmp",
                                   .bytes = with_color ? color : NULL,
                                   .size = with_color ? color_size : 0,
                                   .usage = COOK_TEXTURE_COLOR,
                                   .opacity_name = "o.bmp",
                                   .opacity_bytes = map,
                                   .opacity_size = map_size};
        if (!cook_texture(&f.ctx, f.out, &src, "c", "c.ktx2", true, &f.result))
            fail_msg("%.*s", (int)f.diag.text.size, (const char *)f.diag.text.data);
        size_t file_size;
        kiln_ktx2_view v;
        uint8_t *bytes = read_ktx2(&f, "c.ktx2", &file_size, &v);
        uint32_t w = with_color ? 8 : 4, h = with_color ? 4 : 2;
        assert_int_equal(v.width, w);
        assert_int_equal(v.height, h);
        uint8_t texels[8 * 4 * 4];
        kiln_error err;
        assert_int_equal(kiln_ktx2_read_level(&v, 0, texels, (size_t)w * h * 4, &err), KILN_OK);
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                const uint8_t *t = texels + ((size_t)y * w + x) * 4;
                uint32_t mx = with_color ? x / 2 : x, my = with_color ? y / 2 : y;
                double lum = (0.2126 * (uint8_t)(mx * 13 + my) + 0.7152 * (uint8_t)(my * 29 + 7) +
                              0.0722 * (uint8_t)(mx ^ my)) /
                             255.0;
                if (abs((int)t[3] - (int)lrint(lum * 255.0)) > 1)
                    fail_msg("texel %u,%u: alpha %u, expected %.2f", x, y, t[3], lum * 255.0);
                if (with_color) {
                    assert_int_equal(t[0], (uint8_t)(x * 13 + y));
                    assert_int_equal(t[1], (uint8_t)(y * 29 + 7));
                    assert_int_equal(t[2], (uint8_t)(x ^ y));
                } else {
                    assert_true(t[0] == 255 && t[1] == 255 && t[2] == 255);
                }
            }
        free(bytes);
        fixture_free(&f);
    }
    free(color);
    free(map);
}

/* A forced format the texture cannot hold is an error naming the file, the
 * format and the configuration layer that set it. */
static void unusable_forced_format_names_the_rule(void **state) {
    (void)state;
    struct {
        cook_texture_format format;
        cook_texture_usage usage;
        const char *why;
    } rows[] = {
        {COOK_FORMAT_BC4, COOK_TEXTURE_COLOR, "colour map"},
        {COOK_FORMAT_BC5, COOK_TEXTURE_COLOR, "two channels"},
        {COOK_FORMAT_BC4, COOK_TEXTURE_NORMAL, "one channel"},
        {COOK_FORMAT_BC6H, COOK_TEXTURE_DATA, "LDR"},
        {COOK_FORMAT_BC7, COOK_TEXTURE_HDR, "HDR image needs"},
    };
    size_t size;
    uint8_t *bmp = make_bmp(8, 8, &size);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        fixture f;
        fixture_init(&f, "tex_forced");
        f.settings.texture_format = rows[i].format;
        strcpy(f.settings.texture_format_origin, "rule 'match: *.bmp' (kiln.yml:12)");
        cook_texture_source src = {
            .name = "art/a.bmp", .bytes = bmp, .size = size, .usage = rows[i].usage};
        assert_false(cook_texture(&f.ctx, f.out, &src, "a", "a.ktx2", false, &f.result));
        const char *text = (const char *)f.diag.text.data;
        assert_non_null(strstr(text, "art/a.bmp"));
        assert_non_null(strstr(text, cook_texture_format_names[rows[i].format]));
        assert_non_null(strstr(text, "rule 'match: *.bmp' (kiln.yml:12)"));
        assert_non_null(strstr(text, rows[i].why));
        assert_int_equal(f.result.outputs.count, 0);
        fixture_free(&f);
    }
    free(bmp);
}

static void hdr_corpus_image_cooks_to_bc6h(void **state) {
    (void)state;
    if (test_skip_without_corpus("hdr_corpus_image_cooks_to_bc6h"))
        skip();
    char *path = test_path_join(test_corpus_dir(), "images/hdr/hdr-rgb-arboretum.hdr");
    size_t size;
    uint8_t *data = test_read_file(path, &size);
    fixture f;
    fixture_init(&f, "tex_hdr");
    f.settings.texture_max_size = 64;
    cook_texture_source src = {
        .name = path, .bytes = data, .size = size, .usage = COOK_TEXTURE_HDR};
    if (!cook_texture(&f.ctx, f.out, &src, "env", "env.ktx2", true, &f.result))
        fail_msg("%.*s", (int)f.diag.text.size, (const char *)f.diag.text.data);
    size_t file_size;
    kiln_ktx2_view v;
    uint8_t *bytes = read_ktx2(&f, "env.ktx2", &file_size, &v);
    assert_int_equal(v.vk_format, 143); /* BC6H_UFLOAT_BLOCK */
    assert_int_equal(v.type_size, 1);
    assert_int_equal(v.dfd_color_model, 133);
    free(bytes);
    fixture_free(&f);
    free(data);
    free(path);
}

static void undecodable_texture_is_an_error_naming_the_file(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "tex_bad");
    cook_texture_source src = {.name = "models/broken.png",
                               .bytes = (const uint8_t *)"\x89PNG\r\n\x1a\nxx",
                               .size = 10,
                               .usage = COOK_TEXTURE_COLOR};
    assert_false(cook_texture(&f.ctx, f.out, &src, "b", "b.ktx2", false, &f.result));
    assert_int_equal(f.diag.errors, 1);
    assert_non_null(strstr((const char *)f.diag.text.data, "models/broken.png"));
    assert_int_equal(f.result.outputs.count, 0);
    assert_int_equal(f.result.manifest.count, 0);
    fixture_free(&f);
}

static void standalone_textures_by_naming_convention(void **state) {
    (void)state;
    assert_int_equal(cook_texture_usage_for_path("a/crate.png"), COOK_TEXTURE_COLOR);
    assert_int_equal(cook_texture_usage_for_path("a/crate.n.png"), COOK_TEXTURE_NORMAL);
    assert_int_equal(cook_texture_usage_for_path("crate.AO.png"), COOK_TEXTURE_SINGLE);
    assert_int_equal(cook_texture_usage_for_path("crate.h.png"), COOK_TEXTURE_SINGLE);
    assert_int_equal(cook_texture_usage_for_path("crate.r.jpg"), COOK_TEXTURE_SINGLE);
    assert_int_equal(cook_texture_usage_for_path("sky.hdr"), COOK_TEXTURE_HDR);
    const char *names[] = {"a.png", "a.jpg", "a.JPEG", "a.tga", "a.bmp", "a.hdr", "a.n.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const cook_importer *importer = cook_registry_match(names[i]);
        assert_non_null(importer);
        assert_int_equal(importer->kind, COOK_KIND_TEXTURE);
    }
    /* Through cook_asset: input/props/crate.n.bmp -> props/crate.n.ktx2. */
    char *input = test_make_temp_dir("tex_standalone_in");
    char *output = test_make_temp_dir("tex_standalone_out");
    char *dir = test_path_join(input, "props");
    mkdir(dir, 0755);
    size_t size;
    uint8_t *bmp = make_bmp(8, 8, &size);
    char *file = test_path_join(dir, "crate.n.bmp");
    test_write_file(file, bmp, size);
    cook_settings settings;
    cook_settings_default(&settings);
    cook_request request = {.input_root = input,
                            .output_root = output,
                            .source_path = "props/crate.n.bmp",
                            .importer = cook_registry_match("props/crate.n.bmp"),
                            .settings = &settings,
                            .verify = true};
    cook_asset_result result;
    if (!cook_asset(&request, &result))
        fail_msg("%.*s", (int)result.diag.text.size, (const char *)result.diag.text.data);
    assert_int_equal(result.outputs.count, 1);
    assert_string_equal(result.outputs.items[0], "props/crate.n.ktx2");
    assert_string_equal(result.manifest.items[0].ref, "props/crate.n");
    assert_int_equal(result.manifest.items[0].color_space, KILN_COLOR_SPACE_LINEAR);
    cook_asset_result_free(&result);
    free(file);
    free(bmp);
    free(dir);
    free(input);
    free(output);
}

static void zstd_output_is_deterministic(void **state) {
    (void)state;
    size_t size;
    uint8_t *bmp = make_bmp(33, 17, &size);
    uint8_t *files[2];
    size_t sizes[2];
    for (int run = 0; run < 2; run++) {
        fixture f;
        fixture_init(&f, run ? "tex_det1" : "tex_det0");
        cook_texture_source src = {.name = "a.bmp",
                                   .bytes = bmp,
                                   .size = size,
                                   .usage = COOK_TEXTURE_COLOR,
                                   .alpha_cutoff = 0.5f};
        assert_true(cook_texture(&f.ctx, f.out, &src, "a", "a.ktx2", false, &f.result));
        char *full = test_path_join(f.out, "a.ktx2");
        files[run] = test_read_file(full, &sizes[run]);
        free(full);
        fixture_free(&f);
    }
    assert_int_equal(sizes[0], sizes[1]);
    assert_memory_equal(files[0], files[1], sizes[0]);
    free(files[0]);
    free(files[1]);
    free(bmp);
}

static void cube_lut_cooks_to_a_3d_rgba16f_texture(void **state) {
    (void)state;
    char *input = test_make_temp_dir("tex_lut_in");
    char *output = test_make_temp_dir("tex_lut_out");
    const char *text = "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n"
                       "0.5 0.25 2\n";
    char *file = test_path_join(input, "grade.lut.cube");
    test_write_file(file, text, strlen(text));
    const cook_importer *importer = cook_registry_match("grade.lut.cube");
    assert_non_null(importer);
    assert_int_equal(importer->kind, COOK_KIND_LUT);
    cook_settings settings;
    cook_settings_default(&settings);
    cook_request request = {.input_root = input,
                            .output_root = output,
                            .source_path = "grade.lut.cube",
                            .importer = importer,
                            .settings = &settings,
                            .verify = true};
    cook_asset_result result;
    if (!cook_asset(&request, &result))
        fail_msg("%.*s", (int)result.diag.text.size, (const char *)result.diag.text.data);
    assert_string_equal(result.outputs.items[0], "grade.lut.ktx2");
    cook_asset_result_free(&result);
    char *cooked = test_path_join(output, "grade.lut.ktx2");
    size_t size;
    uint8_t *bytes = test_read_file(cooked, &size);
    kiln_ktx2_view v;
    kiln_error err;
    assert_int_equal(kiln_ktx2_view_get(&v, bytes, size, "lut", &err), KILN_OK);
    assert_int_equal(v.vk_format, 97);
    assert_int_equal(v.depth, 2);
    assert_int_equal(v.levels, 1);
    assert_string_equal(kiln_ktx2_find_value(&v, "KTXorientation", NULL), "rdi");
    uint16_t texels[2 * 2 * 2 * 4];
    assert_int_equal(kiln_ktx2_read_level(&v, 0, texels, sizeof texels, &err), KILN_OK);
    /* Last entry (x=1, y=1, z=1): 0.5, 0.25, 2.0 as halves, alpha 1. */
    assert_int_equal(texels[7 * 4 + 0], 0x3800);
    assert_int_equal(texels[7 * 4 + 1], 0x3400);
    assert_int_equal(texels[7 * 4 + 2], 0x4000);
    assert_int_equal(texels[7 * 4 + 3], 0x3C00);
    /* A broken LUT fails clearly. */
    test_write_file(file, "LUT_3D_SIZE 2\n0 0 0\n", 20);
    assert_false(cook_asset(&request, &result));
    assert_non_null(strstr((const char *)result.diag.text.data, "grade.lut.cube"));
    cook_asset_result_free(&result);
    free(bytes);
    free(cooked);
    free(file);
    free(input);
    free(output);
}

/* texture.max_dimension reaches the decoder: a larger image is an error
 * naming the file and the limit, and nothing is written. */
static void max_dimension_setting_refuses_larger_images(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "tex_max_dimension");
    f.settings.texture_max_dimension = 8;
    size_t size;
    uint8_t *bmp = make_bmp(12, 5, &size);
    cook_texture_source src = {
        .name = "ui/wide.bmp", .bytes = bmp, .size = size, .usage = COOK_TEXTURE_COLOR};
    assert_false(cook_texture(&f.ctx, f.out, &src, "w", "w.ktx2", false, &f.result));
    const char *text = (const char *)f.diag.text.data;
    assert_non_null(strstr(text, "ui/wide.bmp: error: cannot decode image: image is 12x5, larger "
                                 "than the limit of 8 pixels per side"));
    assert_int_equal(f.result.outputs.count, 0);
    f.settings.texture_max_dimension = 12; /* at the limit: fine */
    diag_free(&f.diag);
    assert_true(cook_texture(&f.ctx, f.out, &src, "w", "w.ktx2", false, &f.result));
    free(bmp);
    fixture_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(color_texture_is_srgb_with_full_chain_and_exact_level0),
        cmocka_unit_test(color_texture_compresses_to_bc7_srgb),
        cmocka_unit_test(block_align_setting_pads_resizes_or_keeps),
        cmocka_unit_test(opacity_map_becomes_the_alpha_channel),
        cmocka_unit_test(uncompressed_levels_are_the_quantised_chain_on_any_thread_count),
        cmocka_unit_test(usages_pick_formats_and_settings_apply),
        cmocka_unit_test(unusable_forced_format_names_the_rule),
        cmocka_unit_test(hdr_corpus_image_cooks_to_bc6h),
        cmocka_unit_test(undecodable_texture_is_an_error_naming_the_file),
        cmocka_unit_test(standalone_textures_by_naming_convention),
        cmocka_unit_test(zstd_output_is_deterministic),
        cmocka_unit_test(cube_lut_cooks_to_a_3d_rgba16f_texture),
        cmocka_unit_test(max_dimension_setting_refuses_larger_images),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
