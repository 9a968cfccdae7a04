/* Cubemap folders ("*.env/" with px/nx/py/ny/pz/nz): discovery as one asset,
 * one 6-face KTX2 with full mips in KTX2 face order, the six files as
 * dependencies, clear errors naming the face file; the runtime reader's
 * per-face ranges. Faces get the formats 2D textures of the same usage get:
 * BC7 sRGB / BC6H on desktop, ASTC on mobile, BC1 only when every face is
 * opaque (quality fast), exact RGBA8 / RGBA16F with texture.compress false. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/drivers/drivers.h"
#include "cook/encode/encode.h"
#include "test_support.h"

static const char *const stems[6] = {"px", "nx", "py", "ny", "pz", "nz"};

/* A distinct opaque colour per face. */
static void face_colour(int face, uint8_t rgb[3]) {
    rgb[0] = (uint8_t)(20 + face * 40);
    rgb[1] = (uint8_t)(250 - face * 30);
    rgb[2] = (uint8_t)(face * 17);
}

/* A w x h 24-bit BMP of one colour. */
static void write_bmp(const char *path, uint32_t w, uint32_t h, const uint8_t rgb[3]) {
    size_t size, row;
    uint8_t *b = test_bmp_alloc(w, h, 24, &size, &row);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = b + 54 + (size_t)y * row + (size_t)x * 3;
            p[0] = rgb[2];
            p[1] = rgb[1];
            p[2] = rgb[0];
        }
    test_write_file(path, b, size);
    free(b);
}

/* A w x w 32-bit top-down TGA of one RGBA colour. */
static void write_tga(const char *path, uint32_t w, const uint8_t rgba[4]) {
    size_t size = 18 + (size_t)w * w * 4;
    uint8_t *b = calloc(1, size);
    b[2] = 2; /* uncompressed true colour */
    b[12] = (uint8_t)w;
    b[13] = (uint8_t)(w >> 8);
    b[14] = (uint8_t)w;
    b[15] = (uint8_t)(w >> 8);
    b[16] = 32;
    b[17] = 0x28; /* 8 alpha bits, rows top to bottom */
    for (size_t i = 0; i < (size_t)w * w; i++) {
        uint8_t *p = b + 18 + i * 4;
        p[0] = rgba[2];
        p[1] = rgba[1];
        p[2] = rgba[0];
        p[3] = rgba[3];
    }
    test_write_file(path, b, size);
    free(b);
}

/* A flat (not run-length encoded) Radiance HDR of one RGBE texel value. */
static void write_hdr(const char *path, uint32_t size, const uint8_t rgbe[4]) {
    char header[128];
    int n = snprintf(header, sizeof header, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %u +X %u\n",
                     size, size);
    size_t total = (size_t)n + (size_t)size * size * 4;
    uint8_t *b = malloc(total);
    memcpy(b, header, (size_t)n);
    for (size_t i = 0; i < (size_t)size * size; i++)
        memcpy(b + n + i * 4, rgbe, 4);
    test_write_file(path, b, total);
    free(b);
}

typedef struct fixture {
    char *root; /* input */
    char *out;  /* output */
    cook_settings settings;
    cook_asset_result result;
} fixture;

static void fixture_init(fixture *f, const char *name) {
    memset(f, 0, sizeof *f);
    f->root = test_make_temp_dir(name);
    f->out = test_path_join(f->root, "out");
    mkdir(f->out, 0755);
    cook_settings_default(&f->settings);
}

static void fixture_free(fixture *f) {
    cook_asset_result_free(&f->result);
    free(f->root);
    free(f->out);
}

/* Makes <root>/<folder> and returns its full path (caller frees). */
static char *make_folder(const fixture *f, const char *folder) {
    char *full = test_path_join(f->root, folder);
    char *slash = strchr(full + strlen(f->root) + 1, '/');
    if (slash != NULL) { /* one parent level is enough for these tests */
        *slash = '\0';
        mkdir(full, 0755);
        *slash = '/';
    }
    mkdir(full, 0755);
    return full;
}

/* Six LDR faces, each w x w with its own colour, named <stem>.<ext>. */
static void write_ldr_faces(const fixture *f, const char *folder, uint32_t w) {
    char *dir = make_folder(f, folder);
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s.bmp", stems[i]);
        char *path = test_path_join(dir, name);
        uint8_t rgb[3];
        face_colour(i, rgb);
        write_bmp(path, w, w, rgb);
        free(path);
    }
    free(dir);
}

static bool cook(fixture *f, const char *source) {
    cook_asset_result_free(&f->result);
    const cook_importer *importer = cook_registry_match(source);
    assert_non_null(importer);
    assert_int_equal(importer->kind, COOK_KIND_CUBEMAP);
    cook_request request = {.input_root = f->root,
                            .output_root = f->out,
                            .source_path = source,
                            .importer = importer,
                            .settings = &f->settings,
                            .verify = true};
    return cook_asset(&request, &f->result);
}

static const char *diag_text(const fixture *f) {
    return f->result.diag.text.data ? (const char *)f->result.diag.text.data : "";
}

static void expect_error(fixture *f, const char *source, const char *needle) {
    assert_false(cook(f, source));
    if (strstr(diag_text(f), needle) == NULL)
        fail_msg("expected \"%s\" in: %s", needle, diag_text(f));
    assert_int_equal(f->result.outputs.count, 0);
}

static uint8_t *read_view(const fixture *f, const char *rel, kiln_ktx2_view *v) {
    char *full = test_path_join(f->out, rel);
    size_t size;
    uint8_t *bytes = test_read_file(full, &size);
    free(full);
    kiln_error err;
    if (kiln_ktx2_view_get(v, bytes, size, rel, &err) != KILN_OK)
        fail_msg("%s", err.message);
    return bytes;
}

/* texture.compress false: the faces' exact bytes in sRGB RGBA8. */
static void uncompressed_ldr_folder_is_exact_srgb_rgba8_in_face_order(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_ldr");
    f.settings.texture_compress = false;
    write_ldr_faces(&f, "env/sky.env", 8);
    char *extra = test_path_join(f.root, "env/sky.env/notes.txt");
    test_write_file(extra, "not a face", 10); /* ignored: not a face image */
    free(extra);
    if (!cook(&f, "env/sky.env"))
        fail_msg("%s", diag_text(&f));
    assert_int_equal(f.result.outputs.count, 1);
    assert_string_equal(f.result.outputs.items[0], "env/sky.ktx2");
    assert_int_equal(f.result.manifest.count, 1);
    assert_string_equal(f.result.manifest.items[0].ref, "env/sky");
    assert_int_equal(f.result.manifest.items[0].kind, KILN_ASSET_TEXTURE);
    assert_int_equal(f.result.manifest.items[0].color_space, KILN_COLOR_SPACE_SRGB);
    /* The six faces are the dependencies (the cache keys the asset on them). */
    assert_int_equal(f.result.dependencies.count, 6);
    for (int i = 0; i < 6; i++) {
        char expected[64];
        snprintf(expected, sizeof expected, "env/sky.env/%s.bmp", stems[i]);
        assert_string_equal(f.result.dependencies.items[i], expected);
    }

    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "env/sky.ktx2", &v);
    assert_int_equal(v.faces, 6);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_R8G8B8A8_SRGB);
    assert_int_equal(v.width, 8);
    assert_int_equal(v.height, 8);
    assert_int_equal(v.levels, 4); /* 8, 4, 2, 1 */
    kiln_error err;
    for (uint32_t level = 0; level < v.levels; level++) {
        uint64_t level_size = kiln_ktx2_level_size(&v, level);
        uint32_t side = 8u >> level;
        assert_int_equal(level_size, (uint64_t)side * side * 4 * 6);
        uint8_t *texels = malloc((size_t)level_size);
        assert_int_equal(kiln_ktx2_read_level(&v, level, texels, (size_t)level_size, &err),
                         KILN_OK);
        for (uint32_t face = 0; face < 6; face++) {
            uint64_t offset = 0, size = 0;
            assert_int_equal(kiln_ktx2_image_range(&v, level, 0, face, &offset, &size), KILN_OK);
            assert_int_equal(size, (uint64_t)side * side * 4);
            assert_int_equal(offset, size * face);
            uint8_t rgb[3];
            face_colour((int)face, rgb);
            /* A flat face filters to itself: every texel of every level is its colour. */
            for (uint64_t t = 0; t < size; t += 4) {
                const uint8_t *p = texels + offset + t;
                if (p[0] != rgb[0] || p[1] != rgb[1] || p[2] != rgb[2] || p[3] != 255)
                    fail_msg("level %u face %u texel %u: %u %u %u %u", level, face,
                             (unsigned)(t / 4), p[0], p[1], p[2], p[3]);
            }
        }
        free(texels);
    }
    uint64_t offset, size;
    assert_int_equal(kiln_ktx2_image_range(&v, 0, 0, 6, &offset, &size), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_ktx2_image_range(&v, 4, 0, 0, &offset, &size), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_ktx2_image_range(&v, 0, 1, 0, &offset, &size), KILN_ERR_INVALID_ARGUMENT);
    free(bytes);
    fixture_free(&f);
}

/* Six w x w Radiance HDR faces: face i is ((i + 1) / 2, 0.5, 0.25). */
static void write_hdr_faces(const fixture *f, const char *folder, uint32_t w) {
    char *dir = make_folder(f, folder);
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "%s.HDR", stems[i]); /* extensions are case-insensitive */
        char *path = test_path_join(dir, name);
        /* mantissa / 256 * 2^(e - 128), e = 130: face i's red is (i + 1) / 2 */
        uint8_t rgbe[4] = {(uint8_t)(32 * (i + 1)), 32, 16, 130};
        write_hdr(path, w, rgbe);
        free(path);
    }
    free(dir);
}

/* texture.compress false: HDR faces as exact RGBA16F. */
static void uncompressed_hdr_folder_is_rgba16f_and_max_size_applies(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_hdr");
    write_hdr_faces(&f, "sky.env", 4);
    f.settings.texture_compress = false;
    f.settings.texture_max_size = 2;
    if (!cook(&f, "sky.env"))
        fail_msg("%s", diag_text(&f));
    assert_string_equal(f.result.outputs.items[0], "sky.ktx2");
    assert_string_equal(f.result.manifest.items[0].ref, "sky");
    assert_int_equal(f.result.manifest.items[0].color_space, KILN_COLOR_SPACE_LINEAR);
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "sky.ktx2", &v);
    assert_int_equal(v.faces, 6);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_R16G16B16A16_SFLOAT);
    assert_int_equal(v.width, 2); /* downscaled from 4 by texture.max_size */
    assert_int_equal(v.levels, 2);
    uint8_t texels[2 * 2 * 8 * 6];
    kiln_error err;
    assert_int_equal(kiln_ktx2_read_level(&v, 0, texels, sizeof texels, &err), KILN_OK);
    /* Halves: 0.5 = 0x3800, 1.0 = 0x3C00, 1.5 = 0x3E00, 2.0 = 0x4000, 2.5 = 0x4100,
     * 3.0 = 0x4200; green 0.5, blue 0.25 = 0x3400, alpha 1. */
    static const uint16_t red[6] = {0x3800, 0x3C00, 0x3E00, 0x4000, 0x4100, 0x4200};
    for (uint32_t face = 0; face < 6; face++) {
        uint64_t offset, size;
        assert_int_equal(kiln_ktx2_image_range(&v, 0, 0, face, &offset, &size), KILN_OK);
        const uint8_t *p = texels + offset;
        uint16_t h[4];
        for (int c = 0; c < 4; c++)
            h[c] = (uint16_t)(p[c * 2] | p[c * 2 + 1] << 8);
        assert_int_equal(h[0], red[face]);
        assert_int_equal(h[1], 0x3800);
        assert_int_equal(h[2], 0x3400);
        assert_int_equal(h[3], 0x3C00);
    }
    free(bytes);
    fixture_free(&f);
}

/* Decodes face `face` of level `level` of a block-compressed cubemap into
 * side x side texels: rgba8 for LDR formats, rgbaf for BC6H / ASTC HDR. */
static void decode_face(const kiln_ktx2_view *v, uint32_t level, uint32_t face,
                        const block_image_desc *format, uint8_t *rgba8, float *rgbaf) {
    uint64_t level_size = kiln_ktx2_level_size(v, level);
    uint8_t *texels = malloc((size_t)level_size);
    kiln_error err;
    assert_int_equal(kiln_ktx2_read_level(v, level, texels, (size_t)level_size, &err), KILN_OK);
    uint64_t offset = 0, size = 0;
    assert_int_equal(kiln_ktx2_image_range(v, level, 0, face, &offset, &size), KILN_OK);
    block_image_desc d = *format;
    d.width = v->width >> level ? v->width >> level : 1;
    d.height = d.width;
    assert_int_equal(size, block_image_size(&d));
    assert_int_equal(offset, size * face);
    char reason[256];
    if (!block_decode_image(&d, texels + offset, rgba8, rgbaf, reason, sizeof reason))
        fail_msg("%s", reason);
    free(texels);
}

/* Every texel of every level of every face decodes to the face's colour
 * within `tolerance` (flat faces filter to themselves). */
static void expect_flat_ldr_faces(const kiln_ktx2_view *v, const block_image_desc *format,
                                  int tolerance) {
    for (uint32_t level = 0; level < v->levels; level++) {
        uint32_t side = v->width >> level ? v->width >> level : 1;
        uint8_t *rgba = malloc((size_t)side * side * 4);
        for (uint32_t face = 0; face < 6; face++) {
            decode_face(v, level, face, format, rgba, NULL);
            uint8_t rgb[3];
            face_colour((int)face, rgb);
            for (size_t t = 0; t < (size_t)side * side; t++) {
                const uint8_t *p = rgba + t * 4;
                for (int c = 0; c < 3; c++)
                    if (abs(p[c] - rgb[c]) > tolerance)
                        fail_msg("level %u face %u texel %zu channel %d: %u, expected %u", level,
                                 face, t, c, p[c], rgb[c]);
                assert_int_equal(p[3], 255);
            }
        }
        free(rgba);
    }
}

/* Default settings (desktop, quality normal): BC7 sRGB like a colour texture. */
static void ldr_folder_is_bc7_srgb_by_default(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_bc7");
    write_ldr_faces(&f, "sky.env", 8);
    if (!cook(&f, "sky.env"))
        fail_msg("%s", diag_text(&f));
    assert_int_equal(f.result.manifest.items[0].color_space, KILN_COLOR_SPACE_SRGB);
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "sky.ktx2", &v);
    assert_int_equal(v.faces, 6);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_BC7_SRGB);
    assert_int_equal(v.width, 8);
    assert_int_equal(v.levels, 4); /* 8, 4, 2, 1: every level block-encoded */
    /* 16-byte blocks: 2x2 blocks per face at level 0, then one. */
    assert_int_equal(kiln_ktx2_level_size(&v, 0), 4 * 16 * 6);
    assert_int_equal(kiln_ktx2_level_size(&v, 3), 16 * 6);
    expect_flat_ldr_faces(&v, &(block_image_desc){.format = BLOCK_FORMAT_BC7}, 1);
    free(bytes);
    fixture_free(&f);
}

/* The format is chosen once from all faces: quality fast gives BC1 only when
 * every face is opaque; one translucent face keeps the whole cubemap BC7. */
static void bc1_needs_every_face_opaque(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_bc1");
    f.settings.texture_quality = COOK_QUALITY_FAST;
    write_ldr_faces(&f, "opaque.env", 8);
    if (!cook(&f, "opaque.env"))
        fail_msg("%s", diag_text(&f));
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "opaque.ktx2", &v);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_BC1_RGB_SRGB);
    /* BC1 keeps 5:6:5 endpoints: within the rounding of those. */
    expect_flat_ldr_faces(&v, &(block_image_desc){.format = BLOCK_FORMAT_BC1}, 4);
    free(bytes);

    write_ldr_faces(&f, "glass.env", 8);
    char *path = test_path_join(f.root, "glass.env/ny.bmp");
    remove(path);
    free(path);
    path = test_path_join(f.root, "glass.env/ny.tga");
    write_tga(path, 8, (const uint8_t[4]){10, 20, 30, 128});
    free(path);
    if (!cook(&f, "glass.env"))
        fail_msg("%s", diag_text(&f));
    bytes = read_view(&f, "glass.ktx2", &v);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_BC7_SRGB);
    uint8_t rgba[8 * 8 * 4];
    block_image_desc bc7 = {.format = BLOCK_FORMAT_BC7};
    decode_face(&v, 0, 3, &bc7, rgba, NULL); /* -Y keeps its alpha */
    for (size_t t = 0; t < 64; t++) {
        assert_true(abs(rgba[t * 4] - 10) <= 1 && abs(rgba[t * 4 + 1] - 20) <= 1);
        assert_true(abs(rgba[t * 4 + 2] - 30) <= 1 && abs(rgba[t * 4 + 3] - 128) <= 1);
    }
    decode_face(&v, 0, 0, &bc7, rgba, NULL); /* +X stays opaque */
    for (size_t t = 0; t < 64; t++)
        assert_int_equal(rgba[t * 4 + 3], 255);
    free(bytes);
    fixture_free(&f);
}

/* HDR faces: BC6H like an HDR texture, linear. */
static void hdr_folder_is_bc6h_by_default(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_bc6h");
    write_hdr_faces(&f, "sky.env", 8);
    if (!cook(&f, "sky.env"))
        fail_msg("%s", diag_text(&f));
    assert_int_equal(f.result.manifest.items[0].color_space, KILN_COLOR_SPACE_LINEAR);
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "sky.ktx2", &v);
    assert_int_equal(v.faces, 6);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_BC6H_UFLOAT);
    assert_int_equal(v.levels, 4);
    float rgbaf[8 * 8 * 4];
    for (uint32_t face = 0; face < 6; face++) {
        decode_face(&v, 0, face, &(block_image_desc){.format = BLOCK_FORMAT_BC6H}, NULL, rgbaf);
        float want[3] = {(float)(face + 1) / 2.0f, 0.5f, 0.25f};
        for (size_t t = 0; t < 64; t++)
            for (int c = 0; c < 3; c++)
                if (fabsf(rgbaf[t * 4 + (size_t)c] - want[c]) > want[c] * 0.01f)
                    fail_msg("face %u texel %zu channel %d: %g, expected %g", face, t, c,
                             (double)rgbaf[t * 4 + (size_t)c], (double)want[c]);
    }
    free(bytes);
    fixture_free(&f);
}

/* texture.target mobile: ASTC 6x6 sRGB for LDR faces, ASTC 6x6 HDR for HDR. */
static void mobile_target_gives_astc(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_astc");
    f.settings.texture_target = COOK_TARGET_MOBILE;
    write_ldr_faces(&f, "ldr.env", 8);
    write_hdr_faces(&f, "hdr.env", 8);
    if (!cook(&f, "ldr.env"))
        fail_msg("%s", diag_text(&f));
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "ldr.ktx2", &v);
    assert_int_equal(v.faces, 6);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_ASTC_6x6_SRGB);
    expect_flat_ldr_faces(&v,
                          &(block_image_desc){.format = BLOCK_FORMAT_ASTC_LDR,
                                              .srgb = true,
                                              .astc_block_width = 6,
                                              .astc_block_height = 6},
                          2);
    free(bytes);
    if (!cook(&f, "hdr.env"))
        fail_msg("%s", diag_text(&f));
    bytes = read_view(&f, "hdr.ktx2", &v);
    assert_int_equal(v.faces, 6);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_ASTC_6x6_SFLOAT);
    free(bytes);
    fixture_free(&f);
}

/* A forced format the faces cannot use fails like it does for a 2D texture. */
static void forced_format_the_faces_cannot_use_is_an_error(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_forced");
    f.settings.texture_format = COOK_FORMAT_BC4;
    write_ldr_faces(&f, "sky.env", 4);
    expect_error(&f, "sky.env",
                 "sky.env: error: texture.format 'bc4' cannot be used for this colour texture");
    fixture_free(&f);
}

static void bad_folders_are_clear_errors_naming_the_face(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_errors");
    char *path;

    write_ldr_faces(&f, "missing.env", 4);
    path = test_path_join(f.root, "missing.env/ny.bmp");
    remove(path);
    free(path);
    expect_error(&f, "missing.env", "missing.env: error: cubemap face -Y is missing: expected ny");

    write_ldr_faces(&f, "sizes.env", 4);
    path = test_path_join(f.root, "sizes.env/pz.bmp");
    write_bmp(path, 8, 8, (const uint8_t[3]){1, 2, 3});
    free(path);
    expect_error(&f, "sizes.env",
                 "sizes.env/pz.bmp: error: cubemap face +Z is 8x8 but face +X is 4x4");

    write_ldr_faces(&f, "wide.env", 4);
    path = test_path_join(f.root, "wide.env/px.bmp");
    write_bmp(path, 4, 2, (const uint8_t[3]){1, 2, 3});
    free(path);
    expect_error(&f, "wide.env",
                 "wide.env/px.bmp: error: cubemap face +X is 4x2: faces must be square");

    write_ldr_faces(&f, "broken.env", 4);
    path = test_path_join(f.root, "broken.env/nx.bmp");
    test_write_file(path, "BM garbage", 10);
    free(path);
    expect_error(&f, "broken.env", "broken.env/nx.bmp: error: cannot decode cubemap face -X");

    write_ldr_faces(&f, "twice.env", 4);
    path = test_path_join(f.root, "twice.env/PY.png");
    test_write_file(path, "x", 1);
    free(path);
    expect_error(&f, "twice.env", "two files for cubemap face +Y (py): PY.png and py.bmp");

    write_ldr_faces(&f, "mixed.env", 4);
    path = test_path_join(f.root, "mixed.env/nz.bmp");
    remove(path);
    free(path);
    path = test_path_join(f.root, "mixed.env/nz.hdr");
    write_hdr(path, 4, (const uint8_t[4]){128, 128, 128, 128});
    free(path);
    expect_error(&f, "mixed.env",
                 "mixed.env/nz.hdr: error: cubemap face -Z is HDR but face +X is LDR");

    f.settings.texture_max_dimension = 2; /* the decode limit applies to faces too */
    write_ldr_faces(&f, "big.env", 4);
    expect_error(&f, "big.env", "big.env/px.bmp: error: cannot decode cubemap face +X");
    fixture_free(&f);
}

static void walker_lists_a_cubemap_folder_as_one_source(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "cubemap_walk");
    write_ldr_faces(&f, "a/sky.env", 2);
    char *file = test_path_join(f.root, "a/config.env"); /* a file of that name: no cubemap */
    test_write_file(file, "A=1\n", 4);
    free(file);
    char reason[256];
    strlist sources = {0}, files = {0};
    assert_true(discover_walk_sources(f.root, f.out, cook_registry_is_folder, &sources, NULL,
                                      reason, sizeof reason));
    assert_int_equal(sources.count, 2);
    assert_string_equal(sources.items[0], "a/config.env");
    assert_string_equal(sources.items[1], "a/sky.env");
    /* The plain walk (used for output folders) still lists every file. */
    assert_true(discover_walk(f.root, f.out, &files, reason, sizeof reason));
    assert_int_equal(files.count, 7);
    assert_string_equal(files.items[1], "a/sky.env/nx.bmp");
    assert_true(cook_registry_is_folder("a/Sky.ENV"));
    assert_false(cook_registry_is_folder("a/sky.env/px.png"));
    assert_false(cook_registry_is_folder("a/sky"));
    strlist_free(&sources);
    strlist_free(&files);
    fixture_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uncompressed_ldr_folder_is_exact_srgb_rgba8_in_face_order),
        cmocka_unit_test(uncompressed_hdr_folder_is_rgba16f_and_max_size_applies),
        cmocka_unit_test(ldr_folder_is_bc7_srgb_by_default),
        cmocka_unit_test(bc1_needs_every_face_opaque),
        cmocka_unit_test(hdr_folder_is_bc6h_by_default),
        cmocka_unit_test(mobile_target_gives_astc),
        cmocka_unit_test(forced_format_the_faces_cannot_use_is_an_error),
        cmocka_unit_test(bad_folders_are_clear_errors_naming_the_face),
        cmocka_unit_test(walker_lists_a_cubemap_folder_as_one_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
