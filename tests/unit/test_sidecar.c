/* Sidecars and stable asset IDs (build/sidecar.h): a sidecar's settings,
 * ID and errors with their lines; the derived ID against XXH3-128 computed
 * here; where each resolved setting came from; and, end to end on the
 * examples, an asset loaded by ID through the manager before and after
 * `kiln mv` moved its source, with the level naming it rewritten. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "cli/cli.h"
#include "kiln/manager.h"
#include "manager_fixture.h"

#define EXAMPLES KILN_EXAMPLES_DIR

static const char *diag_text(cook_diag *diag) {
    bytebuf_append(&diag->text, "", 1);
    diag->text.size--; /* NUL-terminated, not counted */
    return (const char *)diag->text.data;
}

static long value_of(const build_sidecar *sidecar, const char *name) {
    const cook_setting *key = cook_setting_find(name);
    assert_non_null(key);
    assert_true(sidecar->overlay.set & ((uint64_t)1 << (key - cook_setting_table)));
    return cook_setting_get(key, &sidecar->overlay.values);
}

static uint32_t line_of(const build_sidecar *sidecar, const char *name) {
    return sidecar->lines[cook_setting_find(name) - cook_setting_table];
}

static void a_sidecar_holds_an_id_and_settings_flat_or_nested(void **state) {
    (void)state;
    static const char text[] = "# the rock\n"
                               "id: 00112233445566778899AABBCCDDEEFF\n"
                               "mesh.lods: 3\n"
                               "texture:\n"
                               "  format: bc7\n";
    build_sidecar sidecar;
    cook_diag diag = {0};
    assert_true(sidecar_parse("props/rock.obj.kiln.yml", text, sizeof text - 1, &sidecar, &diag));
    assert_int_equal(diag.warnings, 0);
    assert_true(sidecar.present);
    assert_true(sidecar.id.hi == 0x0011223344556677ull && sidecar.id.lo == 0x8899aabbccddeeffull);
    assert_int_equal(sidecar.id_line, 2);
    assert_int_equal(value_of(&sidecar, "mesh.lods"), 3);
    assert_int_equal(line_of(&sidecar, "mesh.lods"), 3);
    assert_int_equal(value_of(&sidecar, "texture.format"), COOK_FORMAT_BC7);
    assert_int_equal(line_of(&sidecar, "texture.format"), 5);
    assert_int_equal(__builtin_popcountll(sidecar.overlay.set), 2);
    diag_free(&diag);
}

static void sidecar_errors_name_the_file_and_line(void **state) {
    (void)state;
    static const struct {
        const char *text, *message;
        bool ok;
    } cases[] = {
        {"mesh.lods: 2\nmesh.lods: 99\n", "a.png.kiln.yml:2: error: key 'mesh.lods' defined twice",
         false},
        {"\n\nmesh.lods: 99\n", "a.png.kiln.yml:3: error: mesh.lods: expected a whole number",
         false},
        {"id: 12\n", "a.png.kiln.yml:1: error: id: '12' is not an asset ID", false},
        {"id: [1, 2]\n", "a.png.kiln.yml:1: error: id: expected 32 hex digits", false},
        {"id: 00000000000000000000000000000000\n", "a.png.kiln.yml:1: error: id:", false},
        {"mesh: {lodz: 1}\n", "a.png.kiln.yml:1: warning: unknown key 'lodz' in mesh", true},
        {"colour: red\n", "a.png.kiln.yml:1: warning: unknown key 'colour'", true},
        {"- a list\n", "a.png.kiln.yml:1: error: a.png.kiln.yml: expected a map of keys", false},
        {"mesh.lods: [unclosed\n", "a.png.kiln.yml:", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        build_sidecar sidecar;
        cook_diag diag = {0};
        bool ok =
            sidecar_parse("a.png.kiln.yml", cases[i].text, strlen(cases[i].text), &sidecar, &diag);
        if (ok != cases[i].ok || strstr(diag_text(&diag), cases[i].message) == NULL)
            fail_msg("case %zu: got %s:\n%s", i, ok ? "ok" : "error", diag_text(&diag));
        diag_free(&diag);
    }
}

static void sidecar_names_are_source_names_with_kiln_yml(void **state) {
    (void)state;
    assert_true(sidecar_is_name("props/crate.obj.kiln.yml"));
    assert_true(sidecar_is_name("sky.env.kiln.yml"));
    assert_false(sidecar_is_name("kiln.yml"));
    assert_false(sidecar_is_name("sub/kiln.yml"));
    assert_false(sidecar_is_name("props/crate.obj"));
    assert_false(sidecar_is_name("props/crate.kiln.yaml"));
    char *path = sidecar_path_of("props/crate.obj");
    assert_string_equal(path, "props/crate.obj.kiln.yml");
    free(path);
}

/* The derived ID is XXH3-128 of "kiln asset id", its NUL, then the path. */
static void the_derived_id_is_xxh3_128_of_the_source_path(void **state) {
    (void)state;
    static const char bytes[] = "kiln asset id\0props/crate.obj";
    XXH128_hash_t expected = XXH3_128bits(bytes, sizeof bytes - 1);
    kiln_asset_id id = sidecar_derived_id("props/crate.obj");
    assert_true(id.hi == expected.high64 && id.lo == expected.low64);
    kiln_asset_id other = sidecar_derived_id("props/Crate.obj");
    assert_false(other.hi == id.hi && other.lo == id.lo);
    build_sidecar pinned = {.present = true, .id = {5, 6}};
    kiln_asset_id kept = sidecar_asset_id(&pinned, "props/crate.obj");
    assert_true(kept.hi == 5 && kept.lo == 6);
    kiln_asset_id none = sidecar_asset_id(NULL, "props/crate.obj");
    assert_true(none.hi == id.hi && none.lo == id.lo);
}

static void each_setting_says_where_it_came_from(void **state) {
    (void)state;
    static const char yml[] = "default:\n"
                              "  mesh.lods: 1\n"
                              "rules:\n"
                              "  - match: \"props/*\"\n"
                              "    mesh.meshlets: false\n"
                              "    texture.format: bc1\n";
    kiln_config config;
    cook_diag diag = {0};
    assert_true(config_parse(&config, "kiln.yml", yml, sizeof yml - 1, &diag));
    static const char side[] = "texture.format: bc7\n";
    build_sidecar sidecar;
    assert_true(sidecar_parse("props/rock.obj.kiln.yml", side, sizeof side - 1, &sidecar, &diag));
    char(*origin)[160] = calloc(cook_setting_count, sizeof *origin);
    cook_settings settings;
    sidecar_resolve_explained(&config, NULL, "props/rock.obj", &sidecar, &settings, origin);
    size_t lods = (size_t)(cook_setting_find("mesh.lods") - cook_setting_table);
    size_t meshlets = (size_t)(cook_setting_find("mesh.meshlets") - cook_setting_table);
    size_t format = (size_t)(cook_setting_find("texture.format") - cook_setting_table);
    size_t quality = (size_t)(cook_setting_find("texture.quality") - cook_setting_table);
    assert_string_equal(origin[lods], "the default section (kiln.yml)");
    assert_string_equal(origin[meshlets], "rule 'match: props/*' (kiln.yml:4)");
    assert_string_equal(origin[format], "props/rock.obj.kiln.yml:1");
    assert_string_equal(origin[quality], "default");
    assert_int_equal(settings.mesh_lods, 1);
    assert_false(settings.mesh_meshlets);
    assert_int_equal(settings.texture_format, COOK_FORMAT_BC7);
    assert_string_equal(settings.texture_format_origin, "the sidecar (props/rock.obj.kiln.yml:1)");
    free(origin);
    config_free(&config);
    diag_free(&diag);
}

/* The ref the manager loads for `id` from a fresh manager on `out`. */
static void load_by_id(const char *out, kiln_asset_id id, const char *expected_ref) {
    kiln_manager *m = test_manager_new(NULL, 0, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, out, NULL, &err), KILN_OK);
    kiln_scope scope;
    assert_int_equal(kiln_scope_create(m, "ids", 0, &scope, &err), KILN_OK);
    kiln_ref ref;
    kiln_result result = kiln_manager_load_id(m, scope, id, &ref, &err);
    if (expected_ref == NULL) {
        assert_int_equal(result, KILN_ERR_NOT_FOUND);
        assert_non_null(strstr(err.message, "no mounted manifest has this asset ID"));
    } else {
        if (result != KILN_OK)
            fail_msg("load by ID: %s", err.message);
        assert_string_equal(kiln_asset_get(m, ref)->ref, expected_ref);
        kiln_ref requested;
        assert_int_equal(kiln_manager_request_id(m, scope, id, 0, NULL, NULL, &requested, &err),
                         KILN_OK);
        assert_int_equal(requested.slot, ref.slot);
    }
    kiln_manager_destroy(m);
}

static void an_id_survives_kiln_mv_and_loads_before_and_after(void **state) {
    (void)state;
    test_project p = test_project_new("sidecar_mv_src", "sidecar_mv_out");
    static const char *const files[] = {"props/crate.obj", "props/crate.mtl", "props/crate.png",
                                        "props/sign.obj", "props/pebble.obj"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *from = test_path_join(EXAMPLES, files[i]);
        test_project_copy(&p, from, files[i]);
        free(from);
    }
    static const char level[] = "entities:\n"
                                "  - name: sign\n"
                                "    asset: props/sign.obj # the sign\n"
                                "    components:\n"
                                "      icon: {ref: \"props/sign.obj\"}\n"
                                "      other: {ref: props/pebble.obj}\n";
    test_project_write_text(&p, "levels/yard.level", level);
    test_project_cook(&p);
    kiln_asset_id sign = sidecar_derived_id("props/sign.obj");
    kiln_asset_id yard = sidecar_derived_id("levels/yard.level");
    load_by_id(p.out, sign, "props/sign");
    load_by_id(p.out, yard, "levels/yard/scene");

    char *old_path = test_path_join(p.src, "props/sign.obj");
    char *new_path = test_path_join(p.src, "levels/signpost.obj");
    char *argv[] = {"kiln", "mv", "-i", p.src, old_path, new_path, NULL};
    assert_int_equal(cli_main(6, argv), 0);
    char *level_path = test_path_join(p.src, "levels/yard.level");
    size_t size;
    char *text = (char *)test_read_file(level_path, &size);
    assert_int_equal(size, strlen(level) + 2 * (strlen("levels/signpost") - strlen("props/sign")));
    assert_memory_equal(text,
                        "entities:\n"
                        "  - name: sign\n"
                        "    asset: levels/signpost.obj # the sign\n"
                        "    components:\n"
                        "      icon: {ref: \"levels/signpost.obj\"}\n"
                        "      other: {ref: props/pebble.obj}\n",
                        size);
    test_project_cook(&p);
    load_by_id(p.out, sign, "levels/signpost");
    load_by_id(p.out, yard, "levels/yard/scene");
    load_by_id(p.out, sidecar_derived_id("levels/signpost.obj"), NULL);

    /* A copy of the source with its sidecar has the same ID: the build
     * fails naming both, until the copy's id: line is removed. */
    char *copy_source = test_path_join(p.src, "props/copy.obj");
    char *copy_sidecar = test_path_join(p.src, "props/copy.obj.kiln.yml");
    char *sidecar_path = test_path_join(p.src, "levels/signpost.obj.kiln.yml");
    size_t sidecar_size, source_size;
    uint8_t *sidecar_text = test_read_file(sidecar_path, &sidecar_size);
    uint8_t *source_text = test_read_file(new_path, &source_size);
    test_write_file(copy_source, source_text, source_size);
    test_write_file(copy_sidecar, sidecar_text, sidecar_size);
    char *build[] = {"kiln", "build", "-q", "-j", "1", "-i", p.src, "-o", p.out, NULL};
    assert_int_equal(cli_main(9, build), 1);
    test_write_file(copy_sidecar, "", 0);
    test_project_cook(&p);
    load_by_id(p.out, sign, "levels/signpost");
    load_by_id(p.out, sidecar_derived_id("props/copy.obj"), "props/copy");

    free(sidecar_text);
    free(source_text);
    free(copy_source);
    free(copy_sidecar);
    free(sidecar_path);
    free(text);
    free(level_path);
    free(old_path);
    free(new_path);
    test_project_free(&p);
}

/* ---------------------------------------------------------------------------
 * material.overrides
 * ------------------------------------------------------------------------- */

#define HEIGHT_W 9
#define HEIGHT_H 7

/* The test's height map: uneven in both directions, so both slopes count. */
static uint8_t test_height(uint32_t x, uint32_t y) {
    return (uint8_t)((x * x * 3u + y * 29u + (x * y) % 7u * 5u) % 256u);
}

/* The rows of `out`/props/crate.kmat, copied (the mapping is closed). */
static kiln_material *read_crate_rows(const char *out, uint32_t *count) {
    char *path = test_path_join(out, "props/crate.kmat");
    kiln_file file;
    kiln_material_view view;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, path, 0, &err), KILN_OK);
    assert_int_equal(kiln_material_view_get(&file, 0, &view, &err), KILN_OK);
    *count = view.material_count;
    kiln_material *rows = malloc(view.material_count * sizeof *rows);
    memcpy(rows, view.materials, view.material_count * sizeof *rows);
    kiln_file_close(&file);
    free(path);
    return rows;
}

/* The normal the test expects at (x, y): the Sobel gradient written out
 * here, heights clamped at the edges, divided by 8, times `strength`. */
static void expected_normal(uint32_t x, uint32_t y, double strength, double n[3]) {
#define H(i, j)                                                                                    \
    (test_height((uint32_t)((i) < 0           ? 0                                                  \
                            : (i) >= HEIGHT_W ? HEIGHT_W - 1                                       \
                                              : (i)),                                              \
                 (uint32_t)((j) < 0           ? 0                                                  \
                            : (j) >= HEIGHT_H ? HEIGHT_H - 1                                       \
                                              : (j))) /                                            \
     255.0)
    int xi = (int)x, yi = (int)y;
    double right = H(xi + 1, yi - 1) + 2 * H(xi + 1, yi) + H(xi + 1, yi + 1);
    double left = H(xi - 1, yi - 1) + 2 * H(xi - 1, yi) + H(xi - 1, yi + 1);
    double below = H(xi - 1, yi + 1) + 2 * H(xi, yi + 1) + H(xi + 1, yi + 1);
    double above = H(xi - 1, yi - 1) + 2 * H(xi, yi - 1) + H(xi + 1, yi - 1);
#undef H
    double v[3] = {-strength * (right - left) / 8.0, strength * (below - above) / 8.0, 1.0};
    double length = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++)
        n[i] = v[i] / length;
}

static void overrides_change_exactly_the_overridden_kmat_values(void **state) {
    (void)state;
    test_project p = test_project_new("sidecar_overrides_src", "sidecar_overrides_out");
    static const char *const files[] = {"props/crate.obj", "props/crate.mtl", "props/crate.png"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *from = test_path_join(EXAMPLES, files[i]);
        test_project_copy(&p, from, files[i]);
        free(from);
    }
    size_t size, row_bytes;
    uint8_t *bmp = test_bmp_alloc(HEIGHT_W, HEIGHT_H, 24, &size, &row_bytes);
    for (uint32_t y = 0; y < HEIGHT_H; y++) /* bottom-up rows */
        for (uint32_t x = 0; x < HEIGHT_W; x++)
            memset(bmp + 54 + (HEIGHT_H - 1 - y) * row_bytes + x * 3, test_height(x, y), 3);
    test_project_write(&p, "textures/bump.bmp", bmp, size);
    free(bmp);
    test_project_write_text(&p, "props/crate.obj.kiln.yml", "texture.compress: false\n");
    test_project_cook(&p);
    uint32_t count, count_after;
    kiln_material *before = read_crate_rows(p.out, &count);
    assert_int_equal(count, 2); /* wood, metal */

    test_project_write_text(&p, "props/crate.obj.kiln.yml",
                            "texture.compress: false\n"
                            "material.overrides:\n"
                            "  - wood: base_color=1,0.5,0.25,1 roughness=0.3\n"
                            "  - metal: normal_from_height=textures/bump.bmp normal_strength=3 "
                            "metallic=0.5\n");
    test_project_cook(&p);
    kiln_material *after = read_crate_rows(p.out, &count_after);
    assert_int_equal(count_after, 2);
    /* The expected rows: the ones before with exactly the overridden values. */
    kiln_material expected[2];
    memcpy(expected, before, sizeof expected);
    memcpy(expected[0].base_color, (float[4]){1.0f, 0.5f, 0.25f, 1.0f}, sizeof(float[4]));
    expected[0].roughness = 0.3f;
    expected[1].metallic = 0.5f;
    expected[1].textures[KILN_MATERIAL_SLOT_NORMAL].texture =
        kiln_ref_hash("props/crate/bump_normal");
    assert_memory_equal(after, expected, sizeof expected);

    /* The normal map: what the Sobel gradient of the heights gives. */
    char *texture = test_path_join(p.out, "props/crate/bump_normal.ktx2");
    kiln_ktx2_file ktx;
    kiln_error err;
    assert_int_equal(kiln_ktx2_map(&ktx, texture, &err), KILN_OK);
    uint32_t w, h, d;
    kiln_ktx2_level_extent(&ktx.view, 0, &w, &h, &d);
    assert_int_equal(w, HEIGHT_W);
    assert_int_equal(h, HEIGHT_H);
    size_t level_size = (size_t)kiln_ktx2_level_size(&ktx.view, 0);
    assert_int_equal(level_size, HEIGHT_W * HEIGHT_H * 4);
    uint8_t *texels = malloc(level_size);
    assert_int_equal(kiln_ktx2_read_level(&ktx.view, 0, texels, level_size, &err), KILN_OK);
    int worst = 0;
    for (uint32_t y = 0; y < HEIGHT_H; y++)
        for (uint32_t x = 0; x < HEIGHT_W; x++) {
            double n[3];
            expected_normal(x, y, 3.0, n);
            for (int c = 0; c < 3; c++) {
                int want = (int)lround((n[c] * 0.5 + 0.5) * 255.0);
                int got = texels[((size_t)y * HEIGHT_W + x) * 4 + (size_t)c];
                worst = abs(got - want) > worst ? abs(got - want) : worst;
            }
        }
    assert_in_range(worst, 0, 1); /* 8-bit rounding of a renormalised vector */
    free(texels);
    kiln_ktx2_close(&ktx);
    free(texture);
    free(before);
    free(after);
    test_project_free(&p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_sidecar_holds_an_id_and_settings_flat_or_nested),
        cmocka_unit_test(sidecar_errors_name_the_file_and_line),
        cmocka_unit_test(sidecar_names_are_source_names_with_kiln_yml),
        cmocka_unit_test(the_derived_id_is_xxh3_128_of_the_source_path),
        cmocka_unit_test(each_setting_says_where_it_came_from),
        cmocka_unit_test(an_id_survives_kiln_mv_and_loads_before_and_after),
        cmocka_unit_test(overrides_change_exactly_the_overridden_kmat_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
