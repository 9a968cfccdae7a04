/* Texture arrays ("*.array/" folders): one KTX2 with layerCount = the number
 * of layers, layers in byte order of their names, each layer's levels the
 * same bytes a standalone texture of that image gets (corpus PNGs, BC7 and
 * uncompressed), cubemap arrays from "*.env" layers, and the errors: a layer
 * of another size (naming the file and both sizes), images mixed with
 * cubemaps, an empty folder; a file that is not a layer is a warning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

typedef struct fixture {
    char *root;
    char *out;
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

static void make_dir(const fixture *f, const char *relative) {
    char *full = test_path_join(f->root, relative);
    mkdir(full, 0755);
    free(full);
}

/* Copies a corpus file to <root>/<relative>. */
static void copy_corpus(const fixture *f, const char *corpus_path, const char *relative) {
    char *from = test_path_join(test_corpus_dir(), corpus_path);
    size_t size;
    uint8_t *bytes = test_read_file(from, &size);
    char *to = test_path_join(f->root, relative);
    test_write_file(to, bytes, size);
    free(bytes);
    free(from);
    free(to);
}

static const char *diag_text(const fixture *f) {
    return f->result.diag.text.data ? (const char *)f->result.diag.text.data : "";
}

static bool cook(fixture *f, const char *source) {
    cook_asset_result_free(&f->result);
    const cook_importer *importer = cook_registry_match(source);
    assert_non_null(importer);
    cook_request request = {.input_root = f->root,
                            .output_root = f->out,
                            .source_path = source,
                            .importer = importer,
                            .settings = &f->settings,
                            .verify = true};
    return cook_asset(&request, &f->result);
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

static uint8_t *inflate_level(const kiln_ktx2_view *v, uint32_t level, uint64_t *size) {
    *size = kiln_ktx2_level_size(v, level);
    uint8_t *texels = malloc((size_t)*size);
    kiln_error err;
    if (kiln_ktx2_read_level(v, level, texels, (size_t)*size, &err) != KILN_OK)
        fail_msg("%s", err.message);
    return texels;
}

/* The three corpus layers (32x32 PngSuite images) under names whose byte
 * order is not their listing order by case: "C.png" < "a.png" < "b.png". */
static const char *const layer_files[3] = {"C.png", "a.png", "b.png"};
static const char *const layer_corpus[3] = {
    "images/pngsuite/basn3p08.png", "images/pngsuite/basn6a08.png", "images/pngsuite/basn2c16.png"};

static void write_corpus_array(const fixture *f) {
    make_dir(f, "tex");
    make_dir(f, "tex/tiles.array");
    make_dir(f, "solo");
    for (int l = 2; l >= 0; l--) {
        char path[64];
        snprintf(path, sizeof path, "tex/tiles.array/%s", layer_files[l]);
        copy_corpus(f, layer_corpus[l], path);
        snprintf(path, sizeof path, "solo/layer%d.png", l);
        copy_corpus(f, layer_corpus[l], path);
    }
}

/* Every level of every layer holds the bytes the layer's image cooked alone
 * gets at that level: the array takes the texture path layer by layer. */
static void check_layers_match_standalone(fixture *f) {
    if (!cook(f, "tex/tiles.array"))
        fail_msg("%s", diag_text(f));
    assert_int_equal(f->result.outputs.count, 1);
    assert_string_equal(f->result.outputs.items[0], "tex/tiles.ktx2");
    assert_string_equal(f->result.manifest.items[0].ref, "tex/tiles");
    assert_int_equal(f->result.manifest.items[0].kind, KILN_ASSET_TEXTURE);
    assert_int_equal(f->result.dependencies.count, 3);
    assert_string_equal(f->result.dependencies.items[0], "tex/tiles.array/C.png");
    kiln_ktx2_view array;
    uint8_t *array_bytes = read_view(f, "tex/tiles.ktx2", &array);
    assert_int_equal(array.layers, 3);
    assert_int_equal(array.faces, 1);
    assert_int_equal(array.width, 32);
    assert_int_equal(array.levels, 6);
    for (int l = 0; l < 3; l++) {
        char source[32], cooked[32];
        snprintf(source, sizeof source, "solo/layer%d.png", l);
        snprintf(cooked, sizeof cooked, "solo/layer%d.ktx2", l);
        if (!cook(f, source))
            fail_msg("%s", diag_text(f));
        kiln_ktx2_view solo;
        uint8_t *solo_bytes = read_view(f, cooked, &solo);
        assert_int_equal(solo.vk_format, array.vk_format);
        assert_int_equal(solo.levels, array.levels);
        for (uint32_t level = 0; level < array.levels; level++) {
            uint64_t array_size, solo_size, offset, size;
            uint8_t *a = inflate_level(&array, level, &array_size);
            uint8_t *s = inflate_level(&solo, level, &solo_size);
            assert_int_equal(kiln_ktx2_image_range(&array, level, (uint32_t)l, 0, &offset, &size),
                             KILN_OK);
            assert_int_equal(size, solo_size);
            assert_int_equal(array_size, solo_size * 3);
            assert_int_equal(offset, size * (uint64_t)l);
            if (memcmp(a + offset, s, (size_t)size) != 0)
                fail_msg("layer %d (%s) level %u differs from the image cooked alone", l,
                         layer_files[l], level);
            free(a);
            free(s);
        }
        free(solo_bytes);
    }
    uint64_t offset, size;
    assert_int_equal(kiln_ktx2_image_range(&array, 0, 3, 0, &offset, &size),
                     KILN_ERR_INVALID_ARGUMENT);
    free(array_bytes);
}

static void corpus_layers_are_the_standalone_textures_bc7(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_layers_are_the_standalone_textures_bc7"))
        skip();
    fixture f;
    fixture_init(&f, "array_bc7");
    write_corpus_array(&f);
    check_layers_match_standalone(&f);
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "tex/tiles.ktx2", &v);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_BC7_SRGB);
    free(bytes);
    fixture_free(&f);
}

/* Uncompressed: level 0 of layer l is exactly the decoded source image. */
static void corpus_layers_uncompressed_are_the_decoded_images(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_layers_uncompressed_are_the_decoded_images"))
        skip();
    fixture f;
    fixture_init(&f, "array_rgba8");
    f.settings.texture_compress = false;
    write_corpus_array(&f);
    check_layers_match_standalone(&f);
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "tex/tiles.ktx2", &v);
    assert_int_equal(v.vk_format, KTX2_VK_FORMAT_R8G8B8A8_SRGB);
    uint64_t level_size;
    uint8_t *texels = inflate_level(&v, 0, &level_size);
    for (int l = 0; l < 3; l++) {
        char *path = test_path_join(test_corpus_dir(), layer_corpus[l]);
        size_t size;
        uint8_t *png = test_read_file(path, &size);
        ir_decoded_image image;
        char reason[256];
        assert_true(image_decode(png, size, path, NULL, &image, reason, sizeof reason));
        assert_memory_equal(texels + (size_t)l * 32 * 32 * 4, image.rgba8, 32 * 32 * 4);
        ir_decoded_image_free(&image);
        free(png);
        free(path);
    }
    free(texels);
    free(bytes);
    fixture_free(&f);
}

static void odd_layer_size_names_the_file_and_both_sizes(void **state) {
    (void)state;
    if (test_skip_without_corpus("odd_layer_size_names_the_file_and_both_sizes"))
        skip();
    fixture f;
    fixture_init(&f, "array_odd");
    write_corpus_array(&f);
    copy_corpus(&f, "images/pngsuite/s01n3p01.png", "tex/tiles.array/d.png"); /* 1x1 */
    expect_error(&f, "tex/tiles.array",
                 "tex/tiles.array/d.png: error: layer is 1x1 but the first layer (C.png) is "
                 "32x32: all layers must be the same size");
    fixture_free(&f);
}

/* A w x w 24-bit BMP of one colour. */
static void write_bmp(const fixture *f, const char *relative, uint32_t w, const uint8_t rgb[3]) {
    size_t size, row;
    uint8_t *b = test_bmp_alloc(w, w, 24, &size, &row);
    for (uint32_t y = 0; y < w; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = b + 54 + (size_t)y * row + (size_t)x * 3;
            p[0] = rgb[2];
            p[1] = rgb[1];
            p[2] = rgb[0];
        }
    char *path = test_path_join(f->root, relative);
    test_write_file(path, b, size);
    free(path);
    free(b);
}

static const char *const stems[6] = {"px", "nx", "py", "ny", "pz", "nz"};

static void cube_colour(int layer, int face, uint8_t rgb[3]) {
    rgb[0] = (uint8_t)(10 + 100 * layer);
    rgb[1] = (uint8_t)(20 + 30 * face);
    rgb[2] = (uint8_t)(200 - 50 * layer - 10 * face);
}

static void write_cube(const fixture *f, const char *folder, int layer, uint32_t w) {
    make_dir(f, folder);
    for (int face = 0; face < 6; face++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s.bmp", folder, stems[face]);
        uint8_t rgb[3];
        cube_colour(layer, face, rgb);
        write_bmp(f, path, w, rgb);
    }
}

/* Two "*.env" layers: a cubemap array, every (layer, face) image its colour. */
static void env_layers_make_a_cubemap_array(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "array_cubes");
    f.settings.texture_compress = false;
    make_dir(&f, "skies.array");
    write_cube(&f, "skies.array/night.env", 1, 4);
    write_cube(&f, "skies.array/day.env", 0, 4); /* "day" sorts first */
    if (!cook(&f, "skies.array"))
        fail_msg("%s", diag_text(&f));
    assert_int_equal(f.result.dependencies.count, 12);
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "skies.ktx2", &v);
    assert_int_equal(v.layers, 2);
    assert_int_equal(v.faces, 6);
    assert_int_equal(v.levels, 3);
    for (uint32_t level = 0; level < v.levels; level++) {
        uint64_t level_size;
        uint8_t *texels = inflate_level(&v, level, &level_size);
        for (uint32_t layer = 0; layer < 2; layer++)
            for (uint32_t face = 0; face < 6; face++) {
                uint64_t offset, size;
                assert_int_equal(kiln_ktx2_image_range(&v, level, layer, face, &offset, &size),
                                 KILN_OK);
                uint8_t rgb[3];
                cube_colour((int)layer, (int)face, rgb);
                for (uint64_t t = 0; t < size; t += 4) {
                    const uint8_t *p = texels + offset + t;
                    if (p[0] != rgb[0] || p[1] != rgb[1] || p[2] != rgb[2] || p[3] != 255)
                        fail_msg("level %u layer %u face %u: %u %u %u", level, layer, face, p[0],
                                 p[1], p[2]);
                }
            }
        free(texels);
    }
    free(bytes);
    fixture_free(&f);
}

static void a_cube_layer_of_another_size_is_an_error(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "array_cube_odd");
    f.settings.texture_compress = false;
    make_dir(&f, "skies.array");
    write_cube(&f, "skies.array/a.env", 0, 4);
    write_cube(&f, "skies.array/b.env", 1, 8);
    expect_error(&f, "skies.array",
                 "skies.array/b.env: error: layer is 8x8 but the first layer (a.env) is 4x4");
    fixture_free(&f);
}

static void mixed_empty_and_stray_files(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, "array_bad");
    f.settings.texture_compress = false;
    make_dir(&f, "mixed.array");
    write_cube(&f, "mixed.array/a.env", 0, 4);
    uint8_t grey[3] = {128, 128, 128};
    write_bmp(&f, "mixed.array/b.bmp", 4, grey);
    expect_error(&f, "mixed.array", "the folder holds images (b.bmp) and cubemap folders (a.env)");
    make_dir(&f, "empty.array");
    expect_error(&f, "empty.array", "empty.array: error: no layers");
    /* A stray file is left out with a warning; the layers still cook. */
    make_dir(&f, "one.array");
    write_bmp(&f, "one.array/a.bmp", 4, grey);
    char *notes = test_path_join(f.root, "one.array/notes.txt");
    test_write_file(notes, "x", 1);
    free(notes);
    if (!cook(&f, "one.array"))
        fail_msg("%s", diag_text(&f));
    assert_non_null(strstr(diag_text(&f), "warning: 'notes.txt' is not a layer"));
    kiln_ktx2_view v;
    uint8_t *bytes = read_view(&f, "one.ktx2", &v);
    assert_int_equal(v.layers, 1); /* an array of one layer is still an array */
    free(bytes);
    fixture_free(&f);
}

/* The layer list alone: byte order, env folders found from their files. */
static void layer_names_sort_bytewise(void **state) {
    (void)state;
    cook_diag diag = {0};
    cook_context ctx = {.source_path = "t.array", .diag = &diag};
    strlist files = {0}, layers = {0};
    const char *names[] = {"Z.png", "a.png", "a10.png", "a2.PNG", "readme.md"};
    for (size_t i = 0; i < 5; i++)
        assert_true(strlist_push(&files, names[i]));
    bool cubes = true;
    assert_int_equal(texture_array_layer_names(&ctx, &files, &layers, &cubes), 4);
    assert_false(cubes);
    const char *expected[] = {"Z.png", "a.png", "a10.png", "a2.PNG"};
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(layers.items[i], expected[i]);
    assert_int_equal(diag.warnings, 1);
    strlist_free(&files);
    strlist_free(&layers);
    const char *env_names[] = {"b.env/px.png", "b.env/nx.png", "a-b.env/px.png", "a.env/px.png"};
    for (size_t i = 0; i < 4; i++)
        assert_true(strlist_push(&files, env_names[i]));
    assert_int_equal(texture_array_layer_names(&ctx, &files, &layers, &cubes), 3);
    assert_true(cubes);
    assert_string_equal(layers.items[0], "a-b.env");
    assert_string_equal(layers.items[1], "a.env");
    assert_string_equal(layers.items[2], "b.env");
    strlist_free(&files);
    strlist_free(&layers);
    diag_free(&diag);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_layers_are_the_standalone_textures_bc7),
        cmocka_unit_test(corpus_layers_uncompressed_are_the_decoded_images),
        cmocka_unit_test(odd_layer_size_names_the_file_and_both_sizes),
        cmocka_unit_test(env_layers_make_a_cubemap_array),
        cmocka_unit_test(a_cube_layer_of_another_size_is_an_error),
        cmocka_unit_test(mixed_empty_and_stray_files),
        cmocka_unit_test(layer_names_sort_bytewise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
