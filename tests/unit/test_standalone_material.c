/* Standalone materials ("*.mat"): the parser (every key into the IR
 * material, defaults, errors with their line), the driver (a one-row .kmat
 * under the file's own ref whose row holds exactly the YAML's values, its
 * corpus textures cooked once under <stem>/<name>), a missing texture, and
 * material.replace on a corpus model (the spider OBJ): the replaced row is
 * the standalone material's, references its textures and names its ref in
 * MSRC; the model's image only that row used is no longer cooked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cook/drivers/drivers.h"
#include "cook/import/mat.h"
#include "test_support.h"

static const char oak_text[] = "name: Oak planks\n"
                               "base_color: [0.9, 0.8, 0.7, 0.5]\n"
                               "metallic: 0.25\n"
                               "roughness: 0.75\n"
                               "emissive: [0.5, 0, 2]\n"
                               "normal_scale: 0.5\n"
                               "occlusion_strength: 0.8\n"
                               "alpha_mode: mask\n"
                               "alpha_cutoff: 0.4\n"
                               "specular: 0.3\n"
                               "specular_color: [1, 0.5, 0.25]\n"
                               "double_sided: true\n"
                               "flags: [no_cast_shadows]\n"
                               "textures:\n"
                               "  base_color: ../models/spider/drkwood2.jpg\n"
                               "  normal:\n"
                               "    image: tex/oak.n.png\n"
                               "    wrap_s: clamp_to_edge\n"
                               "    wrap_t: mirrored_repeat\n"
                               "    min_filter: nearest\n"
                               "    mip_filter: none\n"
                               "    texcoord: 1\n"
                               "    offset: [0.25, 0.5]\n"
                               "    scale: [2, 3]\n"
                               "    rotation: 0.5\n";

/* The row oak_text describes, as the .kmat holds it (kmat.md), written out
 * from the text above by hand: the independent side of the comparison. */
static void expect_oak_row(const kiln_material *row, uint64_t base_texture,
                           uint64_t normal_texture) {
    const float base[4] = {0.9f, 0.8f, 0.7f, 0.5f};
    const float emissive[3] = {0.5f, 0.0f, 2.0f};
    const float specular[3] = {1.0f, 0.5f, 0.25f};
    assert_memory_equal(row->base_color, base, sizeof base);
    assert_memory_equal(row->emissive, emissive, sizeof emissive);
    assert_memory_equal(row->specular_color, specular, sizeof specular);
    assert_true(row->metallic == 0.25f && row->roughness == 0.75f);
    assert_true(row->normal_scale == 0.5f && row->occlusion_strength == 0.8f);
    assert_true(row->alpha_cutoff == 0.4f && row->specular == 0.3f);
    assert_int_equal(row->alpha_mode, KILN_ALPHA_MASK);
    /* receive shadows by default, cast cleared by flags, double-sided */
    assert_int_equal(row->flags,
                     KILN_MATERIAL_FLAG_RECEIVE_SHADOWS | KILN_MATERIAL_FLAG_DOUBLE_SIDED);
    const kiln_material_texture *b = &row->textures[KILN_MATERIAL_SLOT_BASE_COLOR];
    assert_true(b->texture == base_texture);
    assert_int_equal(b->wrap_s, KILN_WRAP_REPEAT);
    const kiln_material_texture *n = &row->textures[KILN_MATERIAL_SLOT_NORMAL];
    assert_true(n->texture == normal_texture);
    assert_int_equal(n->wrap_s, KILN_WRAP_CLAMP_TO_EDGE);
    assert_int_equal(n->wrap_t, KILN_WRAP_MIRRORED_REPEAT);
    assert_int_equal(n->mag_filter, KILN_FILTER_LINEAR);
    assert_int_equal(n->min_filter, KILN_FILTER_NEAREST);
    assert_int_equal(n->mip_filter, KILN_MIP_NONE);
    assert_int_equal(n->texcoord, 1);
    assert_true(n->offset[0] == 0.25f && n->offset[1] == 0.5f);
    assert_true(n->scale[0] == 2.0f && n->scale[1] == 3.0f && n->rotation == 0.5f);
    for (int s = 0; s < KILN_MATERIAL_SLOT_COUNT; s++)
        if (s != KILN_MATERIAL_SLOT_BASE_COLOR && s != KILN_MATERIAL_SLOT_NORMAL)
            assert_true(row->textures[s].texture == 0);
}

/* ---- the parser ---------------------------------------------------------- */

static const char *parse_error(const char *text) {
    static char message[1024];
    cook_diag diag = {0};
    mat_doc doc;
    bool ok = mat_parse((const uint8_t *)text, strlen(text), "m/bad.mat", &diag, &doc);
    snprintf(message, sizeof message, "%s", diag.text.data ? (const char *)diag.text.data : "");
    if (ok) {
        mat_doc_free(&doc);
        fail_msg("parsed: %s", text);
    }
    diag_free(&diag);
    return message;
}

static void expect_parse_error(const char *text, const char *needle) {
    const char *message = parse_error(text);
    if (strstr(message, needle) == NULL)
        fail_msg("expected \"%s\" in: %s", needle, message);
}

static void parser_reads_every_key(void **state) {
    (void)state;
    cook_diag diag = {0};
    mat_doc doc;
    assert_true(mat_parse((const uint8_t *)oak_text, strlen(oak_text), "m/oak.mat", &diag, &doc));
    assert_int_equal(doc.asset.material_count, 1);
    const ir_material *m = &doc.asset.materials[0];
    assert_string_equal(m->name, "Oak planks");
    assert_true(m->metallic == 0.25f && m->double_sided && !m->unlit);
    assert_int_equal(m->alpha_mode, IR_ALPHA_MASK);
    assert_int_equal(doc.asset.image_count, 2);
    assert_string_equal(doc.asset.images[0].path, "../models/spider/drkwood2.jpg");
    assert_string_equal(doc.asset.images[1].path, "tex/oak.n.png");
    assert_int_equal(doc.image_lines[0], 15);
    assert_int_equal(doc.image_lines[1], 17);
    assert_int_equal(m->textures[IR_SLOT_BASE_COLOR].image, 0);
    assert_int_equal(m->textures[IR_SLOT_NORMAL].image, 1);
    assert_string_equal(doc.flags, "no_cast_shadows");
    mat_doc_free(&doc);
    /* Defaults: glTF's, and the name is the file's stem. An image named by
     * two slots is one image (an ORM texture). */
    const char *small = "textures: {metallic_roughness: orm.png, occlusion: orm.png}\n";
    assert_true(mat_parse((const uint8_t *)small, strlen(small), "a/Stone.mat", &diag, &doc));
    m = &doc.asset.materials[0];
    assert_string_equal(m->name, "Stone");
    assert_true(m->base_color[3] == 1.0f && m->metallic == 1.0f && m->roughness == 1.0f);
    assert_true(m->alpha_cutoff == 0.5f && m->alpha_mode == IR_ALPHA_OPAQUE);
    assert_int_equal(doc.asset.image_count, 1);
    assert_int_equal(m->textures[IR_SLOT_OCCLUSION].image, 0);
    mat_doc_free(&doc);
    assert_int_equal(diag.errors, 0);
    diag_free(&diag);
}

static void parser_errors_name_the_line(void **state) {
    (void)state;
    expect_parse_error("name: x\nroughness: [1\n", "m/bad.mat:3: error: invalid YAML");
    expect_parse_error("name: x\nroughnes: 1\n", "m/bad.mat:2: error: unknown key 'roughnes'");
    expect_parse_error("metallic: 1.5\n", "m/bad.mat:1: error: metallic: 1.5 is out of range");
    expect_parse_error("metallic: high\n", "m/bad.mat:1: error: metallic: expected a number");
    expect_parse_error("base_color: [1, 1]\n", "base_color: expected a list of 3 to 4 numbers");
    expect_parse_error("alpha_mode: cutout\n",
                       "alpha_mode: 'cutout' is not one of opaque, mask, blend");
    expect_parse_error("double_sided: maybe\n", "double_sided: expected true or false");
    expect_parse_error("textures:\n  albedo: a.png\n",
                       "m/bad.mat:2: error: unknown texture slot 'albedo'");
    expect_parse_error("textures:\n  normal: {wrap_s: repeat}\n",
                       "m/bad.mat:2: error: textures.normal: no 'image'");
    expect_parse_error("textures:\n  normal: {image: n.png, wrap_s: tile}\n",
                       "textures.normal.wrap_s: 'tile' is not one of repeat");
    expect_parse_error("metallic: 1\nmetallic: 0\n",
                       "m/bad.mat:2: error: 'metallic' appears twice");
    expect_parse_error("- a\n- b\n", "a material file is a map");
}

/* ---- the driver ---------------------------------------------------------- */

typedef struct fixture {
    char *root;
    char *out;
    cook_settings settings;
    cook_asset_result result;
} fixture;

static void make_dir(const fixture *f, const char *relative) {
    char *full = test_path_join(f->root, relative);
    mkdir(full, 0755);
    free(full);
}

static void write_text(const fixture *f, const char *relative, const char *text) {
    char *full = test_path_join(f->root, relative);
    test_write_file(full, text, strlen(text));
    free(full);
}

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

/* The spider OBJ and its images under models/spider/, oak.mat under
 * materials/ with a corpus PNG as its normal map. */
static void fixture_init(fixture *f, const char *name) {
    memset(f, 0, sizeof *f);
    f->root = test_make_temp_dir(name);
    f->out = test_path_join(f->root, "out");
    mkdir(f->out, 0755);
    cook_settings_default(&f->settings);
    f->settings.texture_compress = false; /* fast; the path is the same */
    make_dir(f, "models");
    make_dir(f, "models/spider");
    const char *files[] = {"spider.obj",        "spider.mtl",   "SpiderTex.jpg",
                           "wal67ar_small.jpg", "drkwood2.jpg", "wal69ar_small.jpg"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char from[128], to[128];
        snprintf(from, sizeof from, "obj/spider/%s", files[i]);
        snprintf(to, sizeof to, "models/spider/%s", files[i]);
        copy_corpus(f, from, to);
    }
    make_dir(f, "materials");
    make_dir(f, "materials/tex");
    copy_corpus(f, "images/pngsuite/basn2c16.png", "materials/tex/oak.n.png");
    write_text(f, "materials/oak.mat", oak_text);
}

static void fixture_free(fixture *f) {
    cook_asset_result_free(&f->result);
    free(f->root);
    free(f->out);
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

static bool has_output(const fixture *f, const char *relative) {
    for (size_t i = 0; i < f->result.outputs.count; i++)
        if (strcmp(f->result.outputs.items[i], relative) == 0)
            return true;
    return false;
}

/* Maps a cooked .kmat; the caller closes `file`. */
static void open_table(const fixture *f, const char *relative, kiln_file *file,
                       kiln_material_view *view) {
    char *full = test_path_join(f->out, relative);
    kiln_error err;
    if (kiln_file_map(file, full, KILN_OPEN_VERIFY_CHECKSUM, &err) != KILN_OK ||
        kiln_material_view_get(file, 0, view, &err) != KILN_OK)
        fail_msg("%s", err.message);
    free(full);
}

static void mat_cooks_to_a_one_row_table_with_the_yaml_values(void **state) {
    (void)state;
    if (test_skip_without_corpus("mat_cooks_to_a_one_row_table_with_the_yaml_values"))
        skip();
    fixture f;
    fixture_init(&f, "mat_driver");
    if (!cook(&f, "materials/oak.mat"))
        fail_msg("%s", diag_text(&f));
    assert_true(has_output(&f, "materials/oak.kmat"));
    assert_true(has_output(&f, "materials/oak/drkwood2.ktx2"));
    assert_true(has_output(&f, "materials/oak/oak_n.ktx2"));
    assert_int_equal(f.result.outputs.count, 3);
    /* The table's ref is the file's own; the textures' are under it. */
    bool table = false;
    for (size_t i = 0; i < f.result.manifest.count; i++) {
        const cook_manifest_entry *item = &f.result.manifest.items[i];
        if (strcmp(item->ref, "materials/oak") == 0) {
            table = true;
            assert_int_equal(item->kind, KILN_ASSET_MATERIAL);
            assert_int_equal(item->index, 0);
        }
    }
    assert_true(table);
    assert_int_equal(f.result.manifest.count, 3);
    /* The images are its dependencies (the build cooks them through it). */
    assert_true(strlist_contains(&f.result.dependencies, "models/spider/drkwood2.jpg"));
    assert_true(strlist_contains(&f.result.dependencies, "materials/tex/oak.n.png"));
    kiln_file file;
    kiln_material_view view;
    open_table(&f, "materials/oak.kmat", &file, &view);
    assert_int_equal(view.material_count, 1);
    assert_string_equal(kiln_material_name(&view, 0), "Oak planks");
    assert_null(view.sources); /* no MSRC: it is no replacement */
    expect_oak_row(&view.materials[0], kiln_ref_hash("materials/oak/drkwood2"),
                   kiln_ref_hash("materials/oak/oak_n"));
    kiln_file_close(&file);
    /* The normal slot's image was cooked as a normal map. */
    char *ktx = test_path_join(f.out, "materials/oak/oak_n.ktx2");
    size_t size;
    uint8_t *bytes = test_read_file(ktx, &size);
    kiln_ktx2_view tex;
    kiln_error err;
    assert_int_equal(kiln_ktx2_view_get(&tex, bytes, size, "oak_n", &err), KILN_OK);
    assert_int_equal(tex.vk_format, KTX2_VK_FORMAT_R8G8B8A8_UNORM);
    free(bytes);
    free(ktx);
    fixture_free(&f);
}

static void a_missing_texture_or_bad_yaml_is_an_error_naming_it(void **state) {
    (void)state;
    if (test_skip_without_corpus("a_missing_texture_or_bad_yaml_is_an_error_naming_it"))
        skip();
    fixture f;
    fixture_init(&f, "mat_missing");
    write_text(&f, "materials/gone.mat",
               "roughness: 0.5\ntextures:\n  base_color: tex/nowhere.png\n");
    assert_false(cook(&f, "materials/gone.mat"));
    if (strstr(diag_text(&f), "materials/gone.mat:3: error: texture 'tex/nowhere.png'") == NULL)
        fail_msg("%s", diag_text(&f));
    assert_int_equal(f.result.outputs.count, 0);
    write_text(&f, "materials/bad.mat", "roughness: 0.5\nmetallic: [\n");
    assert_false(cook(&f, "materials/bad.mat"));
    if (strstr(diag_text(&f), "materials/bad.mat:3: error: invalid YAML") == NULL)
        fail_msg("%s", diag_text(&f));
    /* An image that is there but not an image fails the material too. */
    write_text(&f, "materials/tex/junk.png", "not a png");
    write_text(&f, "materials/junk.mat", "textures: {emissive: tex/junk.png}\n");
    assert_false(cook(&f, "materials/junk.mat"));
    if (strstr(diag_text(&f), "texture 'materials/tex/junk.png' was not cooked") == NULL)
        fail_msg("%s", diag_text(&f));
    fixture_free(&f);
}

/* Whether the cooked mesh has tangents. */
static bool mesh_has_tangents(const fixture *f, const char *relative) {
    char *full = test_path_join(f->out, relative);
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
    if (kiln_file_map(&file, full, 0, &err) != KILN_OK ||
        kiln_mesh_view_get(&file, 0, &view, &err) != KILN_OK)
        fail_msg("%s", err.message);
    free(full);
    bool has = kiln_mesh_find_attribute(&view, KILN_SEMANTIC_TANGENT) != NULL;
    kiln_file_close(&file);
    return has;
}

/* Row `name`'s index in a table, failing the test when it is not there. */
static uint32_t row_named(const kiln_material_view *view, const char *name) {
    for (uint32_t i = 0; i < view->material_count; i++)
        if (strcmp(kiln_material_name(view, i), name) == 0)
            return i;
    fail_msg("no row '%s'", name);
    return 0;
}

static void replace_gives_a_model_row_the_standalone_material(void **state) {
    (void)state;
    if (test_skip_without_corpus("replace_gives_a_model_row_the_standalone_material"))
        skip();
    fixture f;
    fixture_init(&f, "mat_replace");
    /* Without the setting: the spider's own Skin, with its own image. */
    if (!cook(&f, "models/spider/spider.obj"))
        fail_msg("%s", diag_text(&f));
    assert_true(has_output(&f, "models/spider/spider/wal67ar_small.ktx2"));
    assert_false(mesh_has_tangents(&f, "models/spider/spider.kmesh")); /* no normal map */
    snprintf(f.settings.material_replace, sizeof f.settings.material_replace,
             "Nothing*=materials/absent.mat\nSk?n=materials/oak.mat");
    if (!cook(&f, "models/spider/spider.obj"))
        fail_msg("%s", diag_text(&f));
    /* oak.mat's normal map reads UV set 1, which the spider lacks: no tangents. */
    assert_false(mesh_has_tangents(&f, "models/spider/spider.kmesh"));
    /* Skin was the only user of wal67ar_small: not cooked any more. */
    assert_false(has_output(&f, "models/spider/spider/wal67ar_small.ktx2"));
    assert_true(has_output(&f, "models/spider/spider/spidertex.ktx2"));
    /* The .mat is a dependency: a change to it recooks the model. */
    assert_true(strlist_contains(&f.result.dependencies, "materials/oak.mat"));
    kiln_file file;
    kiln_material_view view;
    open_table(&f, "models/spider/spider.kmat", &file, &view);
    uint32_t skin = row_named(&view, "Skin"), other = row_named(&view, "HLeibTex");
    expect_oak_row(&view.materials[skin], kiln_ref_hash("materials/oak/drkwood2"),
                   kiln_ref_hash("materials/oak/oak_n"));
    assert_non_null(view.sources);
    assert_true(kiln_material_source(&view, skin) == kiln_ref_hash("materials/oak"));
    /* The other rows are the spider's own. */
    assert_true(kiln_material_source(&view, other) == 0);
    assert_true(view.materials[other].textures[KILN_MATERIAL_SLOT_BASE_COLOR].texture ==
                kiln_ref_hash("models/spider/spider/spidertex"));
    assert_true(kiln_material_source(&view, view.material_count) == 0);
    /* MSRC's bytes (kmat.md): one little-endian u64 per row, after MTNM. */
    const kiln_chunk_entry *msrc = NULL;
    int msrc_at = -1, names_at = -1;
    for (uint32_t c = 0; c < file.chunk_count; c++) {
        if (file.chunks[c].fourcc == KILN_FOURCC('M', 'S', 'R', 'C')) {
            msrc = &file.chunks[c];
            msrc_at = (int)c;
        }
        if (file.chunks[c].fourcc == KILN_CHUNK_MATERIAL_NAMES)
            names_at = (int)c;
    }
    assert_non_null(msrc);
    assert_true(msrc_at > names_at);
    assert_int_equal(msrc->size, (uint64_t)view.material_count * 8);
    uint64_t oak = kiln_ref_hash("materials/oak");
    for (uint32_t row = 0; row < view.material_count; row++) {
        uint8_t expected[8] = {0};
        for (int b = 0; row == skin && b < 8; b++)
            expected[b] = (uint8_t)(oak >> (8 * b));
        assert_memory_equal(file.data + msrc->offset + (size_t)row * 8, expected, 8);
    }
    kiln_file_close(&file);
    /* A standalone normal map on UV set 0 asks for tangents, as the spider's own would. */
    write_text(&f, "materials/bump.mat", "textures: {normal: tex/oak.n.png}\n");
    snprintf(f.settings.material_replace, sizeof f.settings.material_replace,
             "Skin=materials/bump.mat");
    if (!cook(&f, "models/spider/spider.obj"))
        fail_msg("%s", diag_text(&f));
    assert_true(mesh_has_tangents(&f, "models/spider/spider.kmesh"));
    /* A rule naming a file that is not there fails the model, naming it. */
    snprintf(f.settings.material_replace, sizeof f.settings.material_replace,
             "Skin=materials/absent.mat");
    assert_false(cook(&f, "models/spider/spider.obj"));
    if (strstr(diag_text(&f), "material.replace: 'materials/absent.mat'") == NULL)
        fail_msg("%s", diag_text(&f));
    snprintf(f.settings.material_replace, sizeof f.settings.material_replace, "Skin");
    assert_false(cook(&f, "models/spider/spider.obj"));
    if (strstr(diag_text(&f), "material.replace: 'Skin' is not NAME=PATH") == NULL)
        fail_msg("%s", diag_text(&f));
    fixture_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parser_reads_every_key),
        cmocka_unit_test(parser_errors_name_the_line),
        cmocka_unit_test(mat_cooks_to_a_one_row_table_with_the_yaml_values),
        cmocka_unit_test(a_missing_texture_or_bad_yaml_is_an_error_naming_it),
        cmocka_unit_test(replace_gives_a_model_row_the_standalone_material),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
