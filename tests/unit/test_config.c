/* kiln.yml: parsing, validation messages and every layer of the resolution
 * order (src/build/config.c); its globs are test_discover's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/config.h"
#include "cli/kiln_yml_template.h"
#include "test_support.h"

/* Parses `text` as "dir/kiln.yml"; returns whether it parsed without errors
 * and leaves the messages in *diag. */
static bool parse(kiln_config *config, const char *text, cook_diag *diag) {
    return config_parse(config, "dir/kiln.yml", text, strlen(text), diag);
}

static const char *diag_text(const cook_diag *diag) {
    return diag->text.data ? (const char *)diag->text.data : "";
}

static void resolve(const char *text, const char *preset, const char *path, cook_settings *out) {
    kiln_config config;
    cook_diag diag = {0};
    assert_true(parse(&config, text, &diag));
    const config_preset *chosen = preset ? config_find_preset(&config, preset) : NULL;
    if (preset != NULL)
        assert_non_null(chosen);
    config_resolve(&config, chosen, path, out);
    config_free(&config);
    diag_free(&diag);
}

/* ---- layering -------------------------------------------------------------- */

static void without_a_file_the_builtin_defaults_apply(void **state) {
    (void)state;
    cook_settings expected, got;
    cook_settings_default(&expected);
    resolve("", NULL, "a.obj", &got);
    assert_memory_equal(&expected, &got, sizeof got);
}

/* `kiln init` writes `shader.entry: main`, the default spelled out: it must
 * resolve to the very settings of no kiln.yml (same cache keys, same
 * metadata). */
static void a_default_spelled_out_is_the_default(void **state) {
    (void)state;
    cook_settings expected, got;
    cook_settings_default(&expected);
    resolve("default:\n  shader.entry: main\n", NULL, "a.vert", &got);
    assert_memory_equal(&expected, &got, sizeof got);
    resolve("default:\n  shader.entry: vs_main\n", NULL, "a.vert", &got);
    assert_string_equal(got.shader_entry, "vs_main");
}

static void default_section_overrides_builtin_defaults(void **state) {
    (void)state;
    cook_settings s;
    resolve("default:\n  mesh.lods: 3\n  texture:\n    format: bc7\n", NULL, "a.obj", &s);
    assert_int_equal(s.mesh_lods, 3);
    assert_int_equal(s.texture_format, COOK_FORMAT_BC7);
    assert_true(s.mesh_meshlets); /* untouched keys keep their defaults */
    assert_int_equal(s.texture_max_size, 4096);
}

static void texture_limits_and_zstd_level_are_settings(void **state) {
    (void)state;
    cook_settings s;
    resolve("default:\n  texture.max_dimension: 512\n  texture:\n    zstd_level: 19\n"
            "rules:\n  - match: \"ui/*\"\n    texture.zstd_level: 1\n",
            NULL, "a.png", &s);
    assert_int_equal(s.texture_max_dimension, 512);
    assert_int_equal(s.texture_zstd_level, 19);
    resolve("default:\n  texture.zstd_level: 19\n"
            "rules:\n  - match: \"ui/*\"\n    texture.zstd_level: 1\n",
            NULL, "ui/a.png", &s);
    assert_int_equal(s.texture_zstd_level, 1);
    resolve("default:\n  texture.zstd_level: -3\n", NULL, "a.png", &s);
    assert_int_equal(s.texture_zstd_level, -3);
    assert_int_equal(s.texture_max_dimension, 16384); /* the built-in default */
}

static void preset_overrides_default_section(void **state) {
    (void)state;
    const char *yml = "default:\n  mesh.lods: 3\n  texture.max_size: 1024\n"
                      "presets:\n  mobile:\n    mesh.lods: 1\n";
    cook_settings s;
    resolve(yml, "mobile", "a.obj", &s);
    assert_int_equal(s.mesh_lods, 1);
    assert_int_equal(s.texture_max_size, 1024);
    resolve(yml, NULL, "a.obj", &s);
    assert_int_equal(s.mesh_lods, 3);
}

static void default_rules_override_preset_settings(void **state) {
    (void)state;
    const char *yml = "presets:\n  mobile:\n    mesh.lods: 1\n"
                      "rules:\n  - match: \"big/*\"\n    mesh.lods: 4\n";
    cook_settings s;
    resolve(yml, "mobile", "big/tree.obj", &s);
    assert_int_equal(s.mesh_lods, 4);
    resolve(yml, "mobile", "small/tree.obj", &s);
    assert_int_equal(s.mesh_lods, 1);
}

static void rules_inside_default_count_as_default_rules(void **state) {
    (void)state;
    const char *yml = "presets:\n  mobile:\n    mesh.lods: 1\n"
                      "default:\n  rules:\n    - match: \"big/*\"\n      mesh.lods: 4\n";
    cook_settings s;
    resolve(yml, "mobile", "big/tree.obj", &s);
    assert_int_equal(s.mesh_lods, 4);
}

static void later_rules_win(void **state) {
    (void)state;
    const char *yml = "rules:\n"
                      "  - match: \"*\"\n    texture.quality: fast\n    mesh.lods: 1\n"
                      "  - match: \"hero/*\"\n    texture.quality: best\n";
    cook_settings s;
    resolve(yml, NULL, "hero/sword.obj", &s);
    assert_int_equal(s.texture_quality, COOK_QUALITY_BEST);
    assert_int_equal(s.mesh_lods, 1); /* the earlier rule still set what the later did not */
    resolve(yml, NULL, "villain/axe.obj", &s);
    assert_int_equal(s.texture_quality, COOK_QUALITY_FAST);
}

static void preset_rules_come_after_default_rules(void **state) {
    (void)state;
    const char *yml = "rules:\n  - match: \"*\"\n    mesh.lods: 4\n"
                      "presets:\n  mobile:\n    rules:\n"
                      "      - match: \"*.obj\"\n        mesh.lods: 0\n";
    cook_settings s;
    resolve(yml, "mobile", "a.obj", &s);
    assert_int_equal(s.mesh_lods, 0);
    resolve(yml, NULL, "a.obj", &s);
    assert_int_equal(s.mesh_lods, 4);
}

static void lod_ratios_replace_the_whole_list(void **state) {
    (void)state;
    cook_settings s;
    resolve("default:\n  mesh.lod_ratios: [0.6, 0.3, 0.1]\n", NULL, "a.obj", &s);
    assert_int_equal(s.mesh_lod_ratio_count, 3);
    assert_true(s.mesh_lod_ratios[2] > 0.09f && s.mesh_lod_ratios[2] < 0.11f);
}

/* ---- top-level keys ------------------------------------------------------------ */

static void folders_are_relative_to_the_file(void **state) {
    (void)state;
    kiln_config config;
    cook_diag diag = {0};
    assert_true(parse(&config,
                      "input: src\noutput: out\npack: true\npreset: pc\n"
                      "presets:\n  pc:\n    output: out_pc\nalways:\n  - boot.obj\n"
                      "roots:\n  - levels/*.gltf\n  - intro.obj\n",
                      &diag));
    assert_string_equal(config.input, "dir/src");
    assert_string_equal(config.output, "dir/out");
    assert_true(config.pack);
    assert_string_equal(config.preset, "pc");
    assert_string_equal(config.presets[0].output, "dir/out_pc");
    assert_int_equal(config.always.count, 1);
    assert_string_equal(config.always.items[0], "boot.obj");
    assert_int_equal(config.roots.count, 2);
    assert_string_equal(config.roots.items[0], "levels/*.gltf"); /* globs, not joined */
    assert_string_equal(config.roots.items[1], "intro.obj");
    assert_null(config_find_preset(&config, "console"));
    config_free(&config);
    diag_free(&diag);
}

/* ---- messages --------------------------------------------------------------------- */

static void unknown_keys_are_warnings_with_file_and_line(void **state) {
    (void)state;
    kiln_config config;
    cook_diag diag = {0};
    assert_true(parse(&config, "input: a\ncolour: red\ndefault:\n  mesh.lodz: 2\n", &diag));
    assert_int_equal(diag.warnings, 2);
    assert_non_null(strstr(diag_text(&diag), "dir/kiln.yml:2: warning: unknown key 'colour'"));
    assert_non_null(strstr(diag_text(&diag), "dir/kiln.yml:4: warning: unknown key 'mesh.lodz'"));
    config_free(&config);
    diag_free(&diag);
}

static void expect_error(const char *yml, const char *message) {
    kiln_config config;
    cook_diag diag = {0};
    assert_false(parse(&config, yml, &diag));
    if (strstr(diag_text(&diag), message) == NULL)
        fail_msg("expected \"%s\" in:\n%s", message, diag_text(&diag));
    config_free(&config);
    diag_free(&diag);
}

/* texture.target is a key like the others; the layer that last set
 * texture.format is recorded (for errors about a format a texture cannot
 * use), and only that one. */
static void texture_format_origin_names_the_layer(void **state) {
    (void)state;
    const char *yml = "default:\n"
                      "  texture.format: bc7\n"
                      "presets:\n"
                      "  mobile:\n"
                      "    texture.target: mobile\n"
                      "    texture.format: astc-6x6\n"
                      "rules:\n"
                      "  - match: \"ui/*\"\n"
                      "    texture.format: rgba8\n"
                      "  - match: \"*.png\"\n"
                      "    texture.quality: fast\n";
    cook_settings s;
    resolve(yml, NULL, "props/a.png", &s);
    assert_int_equal(s.texture_target, COOK_TARGET_DESKTOP);
    assert_int_equal(s.texture_format, COOK_FORMAT_BC7);
    assert_non_null(strstr(s.texture_format_origin, "default section"));
    resolve(yml, "mobile", "props/a.png", &s);
    assert_int_equal(s.texture_target, COOK_TARGET_MOBILE);
    assert_int_equal(s.texture_quality, COOK_QUALITY_FAST);
    assert_string_equal(s.texture_format_origin, "preset 'mobile' (dir/kiln.yml:4)");
    resolve(yml, "mobile", "ui/b.png", &s);
    assert_int_equal(s.texture_format, COOK_FORMAT_RGBA8);
    assert_string_equal(s.texture_format_origin, "rule 'match: ui/*' (dir/kiln.yml:8)");
    resolve("", NULL, "a.png", &s);
    assert_string_equal(s.texture_format_origin, "");
}

static void invalid_values_are_errors_with_file_and_line(void **state) {
    (void)state;
    expect_error("default:\n  mesh.merge: maybe\n",
                 "dir/kiln.yml:2: error: mesh.merge: expected true or false");
    expect_error("default:\n  mesh.lods: -1\n", "dir/kiln.yml:2: error: mesh.lods: expected");
    expect_error("default:\n  mesh.meshlet_vertices: 300\n", "dir/kiln.yml:2: error:");
    /* meshoptimizer aborts on meshlets of other sizes. */
    expect_error("default:\n  mesh.meshlet_triangles: 126\n",
                 "dir/kiln.yml:2: error: mesh.meshlet_triangles: 126 is not a multiple of 4");
    expect_error("default:\n  texture.format: dxt9\n",
                 "dir/kiln.yml:2: error: texture.format: 'dxt9' is not one of");
    expect_error("default:\n  texture.quality: ultra\n", "dir/kiln.yml:2: error:");
    expect_error("default:\n  texture.target: console\n",
                 "dir/kiln.yml:2: error: texture.target: 'console' is not one of desktop, mobile");
    expect_error("default:\n  texture.max_size: 0\n", "dir/kiln.yml:2: error:");
    expect_error("default:\n  texture.max_dimension: 0\n",
                 "dir/kiln.yml:2: error: texture.max_dimension: expected a whole number from 1 "
                 "to 65536");
    expect_error(
        "default:\n  texture.zstd_level: 23\n",
        "dir/kiln.yml:2: error: texture.zstd_level: expected a whole number from -7 to 22");
    expect_error(
        "default:\n  texture.zstd_level: -8\n",
        "dir/kiln.yml:2: error: texture.zstd_level: expected a whole number from -7 to 22");
    expect_error("default:\n  texture.zstd_level: 0\n",
                 "dir/kiln.yml:2: error: texture.zstd_level: 0 is not a level");
    expect_error("default:\n  mesh.lod_ratios: [0.5, 2]\n", "dir/kiln.yml:2: error:");
    expect_error("default:\n  mesh.lod_ratios: 0.5\n", "dir/kiln.yml:2: error:");
    expect_error("rules:\n  - texture.mipmaps: false\n",
                 "dir/kiln.yml:2: error: rule without a 'match:' glob");
    expect_error("presets:\n  a: {}\n  a: {}\n",
                 "dir/kiln.yml:3: error: key 'a' defined twice (first on line 2)");
    expect_error("input: [a\n", "dir/kiln.yml:");
    expect_error("- just\n- a list\n", "expected a map of keys");
}

/* Issue 16: `presets:` given twice kept the first map's count with the second
 * map's presets (a heap overflow under ASan). Any key given twice in any map
 * is an error naming both lines, and only the first is read. */
static void a_key_given_twice_is_an_error_in_every_map(void **state) {
    (void)state;
    expect_error("presets:\n  a: {}\npresets:\n  b: {}\n  c: {}\n  d: {}\n",
                 "dir/kiln.yml:3: error: key 'presets' defined twice (first on line 1)");
    expect_error("presets:\n  a: {}\n  b: {}\n  c: {}\npresets:\n  d: {}\n",
                 "dir/kiln.yml:5: error: key 'presets' defined twice");
    expect_error("default:\n  mesh.lods: 1\n  mesh.lods: 2\n",
                 "dir/kiln.yml:3: error: key 'mesh.lods' defined twice (first on line 2)");
    expect_error("rules:\n  - match: a\n    match: b\n", "dir/kiln.yml:3: error: key 'match'");
    expect_error("presets:\n  m:\n    output: a\n    output: b\n",
                 "dir/kiln.yml:4: error: key 'output' defined twice");
    expect_error("input: a\noutput: b\ninput: c\n", "dir/kiln.yml:3: error: key 'input'");
    expect_error("default:\n  mesh:\n    lods: 1\n    lods: 2\n", "dir/kiln.yml:4: error:");
    /* The first one is the one kept. */
    kiln_config config;
    cook_diag diag = {0};
    assert_false(parse(&config, "presets:\n  a: {}\n  b: {}\npresets:\n  c: {}\n", &diag));
    assert_int_equal(config.preset_count, 2);
    assert_non_null(config_find_preset(&config, "b"));
    assert_null(config_find_preset(&config, "c"));
    config_free(&config);
    diag_free(&diag);
}

/* Issue 16: a kiln.yml nested thousands deep took minutes to load. Nesting
 * and the number of values are bounded, with the line where the limit was
 * passed; the file's size was already (cook_read_file). */
static void deep_or_huge_documents_are_refused_with_the_line(void **state) {
    (void)state;
    size_t depth = 100000;
    char *text = malloc(depth * 2 + 64);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, "input: a\nrules: ");
    for (size_t i = 0; i < depth; i++)
        text[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        text[n++] = ']';
    text[n] = '\0';
    expect_error(text, "dir/kiln.yml:2: error: nested deeper than 32 levels");
    /* Block style, one level a line. */
    n = 0;
    for (size_t i = 0; i < 40; i++)
        n += (size_t)sprintf(text + n, "%*sk%zu:\n", (int)i, "", i);
    expect_error(text, "dir/kiln.yml:33: error: nested deeper than 32 levels");
    free(text);
    /* 200000 values in a flow list. */
    size_t values = 200000;
    text = malloc(values * 2 + 64);
    assert_non_null(text);
    n = (size_t)sprintf(text, "always: [");
    for (size_t i = 0; i < values; i++)
        n += (size_t)sprintf(text + n, "a,");
    sprintf(text + n, "a]\n");
    expect_error(text, "dir/kiln.yml:1: error: more than 100000 values");
    free(text);
}

/* A rule of `keys` unknown keys (warnings) anchored, then used `uses` times. */
static char *aliased_rules(int keys, int uses) {
    size_t cap = (size_t)keys * 16 + (size_t)uses * 8 + 128, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text + n, cap - n, "r: &r {match: \"*\"");
    for (int k = 0; k < keys; k++)
        n += (size_t)snprintf(text + n, cap - n, ", k%d: 1", k);
    n += (size_t)snprintf(text + n, cap - n, "}\nrules: [");
    for (int u = 0; u < uses; u++)
        n += (size_t)snprintf(text + n, cap - n, "%s*r", u ? ", " : "");
    snprintf(text + n, cap - n, "]\n");
    return text;
}

/* Each use of an alias visits its anchor's value again: the values with
 * aliases expanded are bounded at 16 per byte of the file (at least 4096,
 * at most 100000), before anything is loaded, at the line that passed it. */
static void aliases_are_bounded_by_the_file_size(void **state) {
    (void)state;
    int refused = 0, passed = 0;
    for (int uses = 1; uses <= 200; uses += 7) {
        char *text = aliased_rules(100, uses);
        /* The root map, its keys r and rules, the rules list; the rule map
         * (1 + 2 x 101 scalars) once for its anchor and once per use. */
        uint64_t values = 1 + 2 + 1 + (uint64_t)(uses + 1) * (1 + 2 * 101);
        uint64_t bound = 16 * (uint64_t)strlen(text);
        bound = bound < 4096 ? 4096 : bound > 100000 ? 100000 : bound;
        kiln_config config;
        cook_diag diag = {0};
        bool ok = parse(&config, text, &diag);
        if (values > bound) {
            char expected[128];
            snprintf(expected, sizeof expected,
                     "dir/kiln.yml:2: error: its aliases expand it to more than %llu values",
                     (unsigned long long)bound);
            if (ok || strstr(diag_text(&diag), expected) == NULL)
                fail_msg("%d uses, %llu values over %llu: expected \"%s\" in:\n%s", uses,
                         (unsigned long long)values, (unsigned long long)bound, expected,
                         diag_text(&diag));
            assert_int_equal(diag.errors, 1);
            refused++;
        } else {
            if (!ok)
                fail_msg("%d uses, %llu values within %llu:\n%s", uses, (unsigned long long)values,
                         (unsigned long long)bound, diag_text(&diag));
            /* Every use is a rule, each key a warning. */
            assert_int_equal(config.rules.count, (size_t)uses);
            assert_int_equal(diag.warnings, 1 + (uint32_t)uses * 100);
            passed++;
        }
        config_free(&config);
        diag_free(&diag);
        free(text);
    }
    assert_true(refused > 0 && passed > 0);
    /* 2000 keys used 2000 times: 4 million warnings before the bound (27 KB). */
    char *bomb = aliased_rules(2000, 2000);
    expect_error(bomb, "dir/kiln.yml:2: error: its aliases expand it to more than 100000 values");
    free(bomb);
    /* An alias of the collection that holds it (a cycle) ends. */
    expect_error("a: &a [*a, *a]\nrules: *a\n", "rule");
}

/* ---- the starter kiln.yml ----------------------------------------------------- */

/* A key's default as the template spells it: "true", "64", "auto", "[0.5, 0.25]". */
static void template_spelling(const cook_setting *key, const cook_settings *s, char *out,
                              size_t size) {
    if (key->type == COOK_SETTING_RATIOS) {
        cook_settings copy = *s;
        uint32_t *count;
        const float *ratios = cook_setting_ratios(key, &copy, &count);
        size_t at = (size_t)snprintf(out, size, "[");
        for (uint32_t i = 0; i < *count && at < size; i++)
            at += (size_t)snprintf(out + at, size - at, "%s%g", i ? ", " : "", (double)ratios[i]);
        if (at < size)
            snprintf(out + at, size - at, "]");
        return;
    }
    if (key->type == COOK_SETTING_TEXT) { /* "", or the value "" stands for */
        snprintf(out, size, "%s", key->text_default ? key->text_default : "[]");
        return;
    }
    long value = cook_setting_get(key, s);
    if (key->type == COOK_SETTING_BOOL || key->type == COOK_SETTING_TOLERANCE)
        snprintf(out, size, "%s", value ? "true" : "false");
    else if (key->type == COOK_SETTING_ENUM)
        snprintf(out, size, "%s", key->names[value]);
    else
        snprintf(out, size, "%ld", value);
}

/* The `default:` section of the template lists every settings key once, with
 * its built-in default, and no other key; every key the template writes
 * anywhere (presets, rules) is a settings key. */
static void template_lists_every_key_with_its_default(void **state) {
    (void)state;
    cook_settings defaults;
    cook_settings_default(&defaults);
    size_t lines = sizeof kiln_yml_template_lines / sizeof kiln_yml_template_lines[0];
    bool listed[64] = {false}; /* config_overlay.set has a bit a key */
    bool in_default = false;
    for (size_t i = 0; i < lines; i++) {
        const char *line = kiln_yml_template_lines[i];
        if (line[0] != ' ' && line[0] != '\0')
            in_default = strcmp(line, "default:") == 0;
        const char *text = line + strspn(line, " -");
        const char *colon = strchr(text, ':');
        if (text == line || text[0] == '#' || colon == NULL ||
            memchr(text, '.', (size_t)(colon - text)) == NULL)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(colon - text), text);
        const cook_setting *key = cook_setting_find(name);
        if (key == NULL)
            fail_msg("template line %zu: '%s' is not a settings key", i + 1, name);
        if (!in_default)
            continue;
        size_t index = (size_t)(key - cook_setting_table);
        if (listed[index])
            fail_msg("template: '%s' listed twice under default:", name);
        listed[index] = true;
        char spelling[64];
        template_spelling(key, &defaults, spelling, sizeof spelling);
        if (strcmp(colon + 1 + strspn(colon + 1, " "), spelling) != 0)
            fail_msg("template: '%s' should show its default %s", line, spelling);
    }
    for (size_t i = 0; i < cook_setting_count; i++)
        if (!listed[i])
            fail_msg("template: settings key '%s' missing under default:",
                     cook_setting_table[i].name);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_a_file_the_builtin_defaults_apply),
        cmocka_unit_test(default_section_overrides_builtin_defaults),
        cmocka_unit_test(texture_limits_and_zstd_level_are_settings),
        cmocka_unit_test(preset_overrides_default_section),
        cmocka_unit_test(default_rules_override_preset_settings),
        cmocka_unit_test(rules_inside_default_count_as_default_rules),
        cmocka_unit_test(later_rules_win),
        cmocka_unit_test(preset_rules_come_after_default_rules),
        cmocka_unit_test(lod_ratios_replace_the_whole_list),
        cmocka_unit_test(folders_are_relative_to_the_file),
        cmocka_unit_test(unknown_keys_are_warnings_with_file_and_line),
        cmocka_unit_test(texture_format_origin_names_the_layer),
        cmocka_unit_test(invalid_values_are_errors_with_file_and_line),
        cmocka_unit_test(a_key_given_twice_is_an_error_in_every_map),
        cmocka_unit_test(deep_or_huge_documents_are_refused_with_the_line),
        cmocka_unit_test(aliases_are_bounded_by_the_file_size),
        cmocka_unit_test(template_lists_every_key_with_its_default),
        cmocka_unit_test(a_default_spelled_out_is_the_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
