/* The asset manager and UASTC textures (kiln_manager_desc.gpu_formats): a
 * UASTC texture reaches create_texture transcoded to the first format of
 * the mask in the order of preference (BC7, ASTC 4x4, ETC2, BC1/BC3), else
 * decoded to RGBA8, every level at its offset, with the VkFormat of what it
 * holds; ETC2 and BC1/BC3 give an opaque texture (the crate, DFD channel
 * RGB) 8-byte ETC1 RGB or BC1 blocks and a translucent one (glass, RGBA)
 * ETC2 RGBA8 or BC3. The expected bytes are the file's levels read here and
 * transcoded by kiln_uastc_transcode (whose blocks test_uastc_transcode and
 * test_uastc_transcode_etc check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "cli/cli.h"
#include "common/ktx2_format.h"
#include "cook/inspect/inspect.h"
#include "kiln/manager.h"
#include "manager_fixture.h"

typedef struct captured {
    uint32_t vk_format, levels;
    uint8_t *texels;
    size_t size;
    uint64_t offsets[KILN_ASSET_MAX_LEVELS];
} captured;

static kiln_result capture_texture(void *user, const kiln_asset *asset, const void *texels,
                                   size_t size, void **object, kiln_error *err) {
    (void)err;
    captured *c = user;
    c->vk_format = asset->texels_vk_format;
    c->levels = asset->texture.levels;
    c->texels = malloc(size);
    memcpy(c->texels, texels, size);
    c->size = size;
    memcpy(c->offsets, asset->level_offsets, sizeof c->offsets);
    *object = c;
    return KILN_OK;
}

static void drop_texture(void *user, const kiln_asset *asset, void *object) {
    (void)user;
    (void)asset;
    (void)object;
}

static test_project project;
static char *texture_path; /* the cooked UASTC crate */
static char *glass_path;   /* the cooked UASTC glass */

/* A 36x20 translucent PNG: alpha varies, so its UASTC DFD says RGBA. */
static void write_glass(const char *path) {
    enum { W = 36, H = 20 };
    uint8_t rgba[W * H * 4];
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint8_t *t = rgba + (y * W + x) * 4;
            t[0] = (uint8_t)(x * 7);
            t[1] = (uint8_t)(y * 12);
            t[2] = (uint8_t)(200 - x * 3);
            t[3] = (uint8_t)(40 + x * 5 + y * 2);
        }
    inspect_rgba8_image image = {.width = W, .height = H, .rgba = rgba};
    uint8_t *png;
    size_t png_size;
    char reason[128];
    assert_true(inspect_png_encode(&image, &png, &png_size, reason, sizeof reason));
    test_write_file(path, png, png_size);
    free(png);
}

/* The crate's PNG (opaque, 64x64, 7 levels) and the glass (36x20, 6
 * levels) cooked as UASTC, sRGB colour. */
static int setup_all(void **state) {
    (void)state;
    project = test_project_new("manager_uastc", "manager_uastc_out");
    test_project_copy(&project, KILN_EXAMPLES_DIR "/props/crate.png", "props/crate.png");
    char *glass_source = test_path_join(project.src, "props/glass.png");
    write_glass(glass_source);
    free(glass_source);
    char *config = test_path_join(project.src, "kiln.yml");
    const char *settings = "default:\n  texture.format: uastc\n";
    test_write_file(config, settings, strlen(settings));
    char *argv[] = {"kiln", "build", "-q",        "-j", "1",         "--config",
                    config, "-i",    project.src, "-o", project.out, NULL};
    assert_int_equal(cli_main(11, argv), 0);
    free(config);
    texture_path = test_path_join(project.out, "props/crate.ktx2");
    glass_path = test_path_join(project.out, "props/glass.ktx2");
    return 0;
}

static int teardown_all(void **state) {
    (void)state;
    free(texture_path);
    free(glass_path);
    test_project_free(&project);
    return 0;
}

/* Loads `name` with `gpu_formats` (and `flags`) and returns what
 * create_texture got (or, with KILN_MANAGER_KEEP_TEXELS and no engine, the
 * kept texels). */
static captured load_texture(const char *name, uint32_t gpu_formats, uint32_t flags) {
    captured c = {0};
    kiln_manager_desc desc = {0};
    desc.gpu_formats = gpu_formats;
    desc.flags = flags;
    if (flags == 0) {
        desc.engine.user = &c;
        desc.engine.create_texture = capture_texture;
        desc.engine.destroy_texture = drop_texture;
    }
    kiln_manager *m;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
    assert_int_equal(kiln_manager_mount(m, project.out, NULL, &err), KILN_OK);
    kiln_ref ref;
    kiln_result r = kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, name, &ref, &err);
    if (r != KILN_OK)
        fail_msg("load: %s", err.message);
    if (flags != 0) {
        const kiln_asset *a = kiln_asset_get(m, ref);
        c.vk_format = a->texels_vk_format;
        c.levels = a->texture.levels;
        c.size = (size_t)a->texel_bytes;
        c.texels = malloc(c.size);
        memcpy(c.texels, a->texels, c.size);
        memcpy(c.offsets, a->level_offsets, sizeof c.offsets);
    }
    kiln_manager_destroy(m);
    return c;
}

static captured load_crate(uint32_t gpu_formats, uint32_t flags) {
    return load_texture("props/crate", gpu_formats, flags);
}

/* Every level of the file at `path` (`levels` of them, sRGB, DFD channel
 * `channel`) as `target` at 16-byte aligned offsets. */
static void expect_file_levels(const captured *c, const char *path, uint32_t levels,
                               uint32_t channel, kiln_transcode_target target) {
    kiln_ktx2_file file;
    kiln_error err;
    assert_int_equal(kiln_ktx2_map(&file, path, &err), KILN_OK);
    const kiln_ktx2_view *v = &file.view;
    assert_int_equal(v->vk_format, 0);
    assert_int_equal(v->color_space, KILN_COLOR_SPACE_SRGB);
    assert_int_equal(v->dfd_channel, channel);
    assert_int_equal(c->levels, v->levels);
    assert_int_equal(c->levels, levels);
    uint64_t offset = 0;
    for (uint32_t l = 0; l < v->levels; l++) {
        uint32_t width, height, depth;
        kiln_ktx2_level_extent(v, l, &width, &height, &depth);
        size_t in_size = (size_t)kiln_ktx2_level_size(v, l);
        /* Written out here rather than asked of kiln_uastc_transcoded_size. */
        size_t block_bytes =
            target == KILN_TRANSCODE_ETC1_RGB || target == KILN_TRANSCODE_BC1 ? 8 : 16;
        size_t out_size = target == KILN_TRANSCODE_RGBA8
                              ? (size_t)width * height * 4
                              : (size_t)(width + 3) / 4 * ((height + 3) / 4) * block_bytes;
        uint8_t *blocks = malloc(in_size), *want = malloc(out_size);
        assert_int_equal(kiln_ktx2_read_level(v, l, blocks, in_size, &err), KILN_OK);
        assert_int_equal(kiln_uastc_transcode(blocks, in_size, width, height, true, target, want,
                                              out_size, "t", &err),
                         KILN_OK);
        assert_int_equal(c->offsets[l], offset);
        assert_true(offset + out_size <= c->size);
        assert_memory_equal(c->texels + offset, want, out_size);
        offset += (out_size + 15) / 16 * 16;
        free(blocks);
        free(want);
    }
    assert_int_equal(c->size, offset);
    kiln_ktx2_close(&file);
}

static void expect_levels(const captured *c, kiln_transcode_target target) {
    expect_file_levels(c, texture_path, 7, KTX2_DF_CHANNEL_UASTC_RGB, target);
}

static void expect_glass_levels(const captured *c, kiln_transcode_target target) {
    expect_file_levels(c, glass_path, 6, KTX2_DF_CHANNEL_UASTC_RGBA, target);
}

static void no_gpu_formats_give_rgba8(void **state) {
    (void)state;
    captured c = load_crate(0, 0);
    assert_int_equal(c.vk_format, 43); /* R8G8B8A8_SRGB */
    expect_levels(&c, KILN_TRANSCODE_RGBA8);
    free(c.texels);
}

static void bc7_gpu_gets_bc7(void **state) {
    (void)state;
    captured c = load_crate(KILN_GPU_BC7, 0);
    assert_int_equal(c.vk_format, 146); /* BC7_SRGB_BLOCK */
    expect_levels(&c, KILN_TRANSCODE_BC7);
    free(c.texels);
}

static void astc_gpu_gets_astc(void **state) {
    (void)state;
    captured c = load_crate(KILN_GPU_ASTC_4X4, 0);
    assert_int_equal(c.vk_format, 158); /* ASTC_4x4_SRGB_BLOCK */
    expect_levels(&c, KILN_TRANSCODE_ASTC_4X4);
    free(c.texels);
}

/* BC7 before ASTC when the GPU samples both. */
static void bc7_is_preferred(void **state) {
    (void)state;
    captured c = load_crate(KILN_GPU_ASTC_4X4 | KILN_GPU_BC7, 0);
    assert_int_equal(c.vk_format, 146);
    expect_levels(&c, KILN_TRANSCODE_BC7);
    free(c.texels);
}

/* ETC2 GPUs: the opaque crate as ETC1 RGB (8-byte blocks, also ETC2 RGB),
 * the glass as ETC2 RGBA8. */
static void etc2_gpu_gets_etc(void **state) {
    (void)state;
    captured c = load_crate(KILN_GPU_ETC2, 0);
    assert_int_equal(c.vk_format, 148); /* ETC2_R8G8B8_SRGB_BLOCK */
    expect_levels(&c, KILN_TRANSCODE_ETC1_RGB);
    free(c.texels);
    c = load_texture("props/glass", KILN_GPU_ETC2, 0);
    assert_int_equal(c.vk_format, 152); /* ETC2_R8G8B8A8_SRGB_BLOCK */
    expect_glass_levels(&c, KILN_TRANSCODE_ETC2_RGBA8);
    free(c.texels);
}

/* BC1/BC3 GPUs: the crate as BC1 RGB, the glass as BC3. */
static void bc1_bc3_gpu_gets_bc1_or_bc3(void **state) {
    (void)state;
    captured c = load_crate(KILN_GPU_BC1_BC3, 0);
    assert_int_equal(c.vk_format, 132); /* BC1_RGB_SRGB_BLOCK */
    expect_levels(&c, KILN_TRANSCODE_BC1);
    free(c.texels);
    c = load_texture("props/glass", KILN_GPU_BC1_BC3, 0);
    assert_int_equal(c.vk_format, 138); /* BC3_SRGB_BLOCK */
    expect_glass_levels(&c, KILN_TRANSCODE_BC3);
    free(c.texels);
}

/* The order of preference over every mask of the four formats: BC7, then
 * ASTC 4x4, then ETC2, then BC1/BC3; the glass takes the alpha block of
 * the same row. */
static void preference_order(void **state) {
    (void)state;
    static const struct {
        uint32_t bit, crate_vk, glass_vk;
    } order[] = {{KILN_GPU_BC7, 146, 146},
                 {KILN_GPU_ASTC_4X4, 158, 158},
                 {KILN_GPU_ETC2, 148, 152},
                 {KILN_GPU_BC1_BC3, 132, 138}};
    for (uint32_t mask = 1; mask < 16; mask++) {
        size_t first = 0;
        while (!(mask & order[first].bit))
            first++;
        captured c = load_crate(mask, KILN_MANAGER_KEEP_TEXELS);
        assert_int_equal(c.vk_format, order[first].crate_vk);
        free(c.texels);
        c = load_texture("props/glass", mask, KILN_MANAGER_KEEP_TEXELS);
        assert_int_equal(c.vk_format, order[first].glass_vk);
        free(c.texels);
    }
}

/* Kept texels (no engine) are transcoded the same way, 8-byte blocks too. */
static void kept_texels_are_transcoded(void **state) {
    (void)state;
    captured c = load_crate(KILN_GPU_ASTC_4X4, KILN_MANAGER_KEEP_TEXELS);
    assert_int_equal(c.vk_format, 158);
    expect_levels(&c, KILN_TRANSCODE_ASTC_4X4);
    free(c.texels);
    c = load_crate(KILN_GPU_BC1_BC3, KILN_MANAGER_KEEP_TEXELS);
    assert_int_equal(c.vk_format, 132);
    expect_levels(&c, KILN_TRANSCODE_BC1);
    free(c.texels);
}

/* The crate with block 5 of level 0 given the reserved mode: level 0 (the
 * last in the file) inflated, corrupted, deflated again and its index
 * entry's length updated. */
static char *corrupt_copy(void) {
    size_t size;
    uint8_t *file = test_read_file(texture_path, &size);
    uint64_t offset, length, inflated;
    memcpy(&offset, file + 80, 8);
    memcpy(&length, file + 88, 8);
    memcpy(&inflated, file + 96, 8);
    assert_int_equal(offset + length, size);
    uint8_t *level = malloc(inflated);
    assert_int_equal(ZSTD_decompress(level, inflated, file + offset, length), inflated);
    level[5 * 16] = 0x45;
    size_t bound = ZSTD_compressBound(inflated);
    uint8_t *out = malloc(offset + bound);
    memcpy(out, file, offset);
    size_t packed = ZSTD_compress(out + offset, bound, level, inflated, 3);
    assert_false(ZSTD_isError(packed));
    uint64_t packed64 = packed;
    memcpy(out + 88, &packed64, 8);
    char *dir = test_make_temp_dir("manager_uastc_corrupt");
    char *props = test_path_join(dir, "props");
    assert_int_equal(mkdir(props, 0755), 0);
    char *manifest = test_path_join(project.out, "assets.kman");
    char *manifest_copy = test_path_join(dir, "assets.kman");
    size_t manifest_size;
    uint8_t *manifest_bytes = test_read_file(manifest, &manifest_size);
    test_write_file(manifest_copy, manifest_bytes, manifest_size);
    char *path = test_path_join(props, "crate.ktx2");
    test_write_file(path, out, offset + packed);
    free(file);
    free(level);
    free(out);
    free(props);
    free(manifest);
    free(manifest_copy);
    free(manifest_bytes);
    free(path);
    return dir;
}

/* A corrupt block fails the load naming the file, level and block: decoded,
 * transcoded in place (BC7) or through the scratch level (ETC1). */
static void corrupt_block_fails_the_texture(void **state) {
    (void)state;
    char *dir = corrupt_copy();
    const uint32_t masks[] = {0, KILN_GPU_BC7, KILN_GPU_ETC2};
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
        uint32_t gpu_formats = masks[i];
        captured c = {0};
        kiln_manager_desc desc = {0};
        desc.gpu_formats = gpu_formats;
        desc.engine.user = &c;
        desc.engine.create_texture = capture_texture;
        desc.engine.destroy_texture = drop_texture;
        kiln_manager *m;
        kiln_error err;
        assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
        assert_int_equal(kiln_manager_mount(m, dir, NULL, &err), KILN_OK);
        kiln_ref ref;
        assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate", &ref, &err),
                         KILN_ERR_CORRUPT);
        assert_non_null(
            strstr(err.message, "crate.ktx2 level 0: UASTC: block (5, 0): reserved mode code"));
        assert_null(c.texels);
        kiln_manager_destroy(m);
    }
    free(dir);
}

static void unknown_gpu_formats_are_refused(void **state) {
    (void)state;
    kiln_manager_desc desc = {0};
    desc.gpu_formats = 0x100;
    kiln_manager *m = NULL;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_null(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_gpu_formats_give_rgba8),
        cmocka_unit_test(bc7_gpu_gets_bc7),
        cmocka_unit_test(astc_gpu_gets_astc),
        cmocka_unit_test(bc7_is_preferred),
        cmocka_unit_test(etc2_gpu_gets_etc),
        cmocka_unit_test(bc1_bc3_gpu_gets_bc1_or_bc3),
        cmocka_unit_test(preference_order),
        cmocka_unit_test(kept_texels_are_transcoded),
        cmocka_unit_test(corrupt_block_fails_the_texture),
        cmocka_unit_test(unknown_gpu_formats_are_refused),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
