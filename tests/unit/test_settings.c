/* The resolved settings (src/cook/core/settings.c): the JSON text, which is
 * part of every cache key and of every cooked file's META chunk, pinned to the
 * byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"
#include "test_support.h"

static char *settings_json(const cook_settings *settings) {
    bytebuf text = {0};
    cook_settings_to_json(settings, &text);
    bytebuf_append(&text, "", 1);
    assert_false(text.failed);
    return (char *)text.data;
}

static void assert_json(const cook_settings *settings, const char *expected) {
    char *json = settings_json(settings);
    assert_string_equal(json, expected);
    free(json);
}

static void default_settings_json_is_pinned(void **state) {
    (void)state;
    cook_settings s;
    cook_settings_default(&s);
    assert_json(
        &s, "{\"mesh.lod_ratios\":[0.5,0.25],\"mesh.lods\":2,\"mesh.merge\":false,"
            "\"mesh.meshlet_triangles\":124,\"mesh.meshlet_vertices\":64,"
            "\"mesh.meshlets\":true,\"mesh.quantize_positions\":false,"
            "\"mesh.skin_influences\":4,"
            "\"texture.block_align\":\"pad\",\"texture.compress\":true,\"texture.format\":\"auto\","
            "\"texture.max_dimension\":16384,\"texture.max_size\":4096,"
            "\"texture.mipmaps\":true,\"texture.quality\":\"normal\","
            "\"texture.target\":\"desktop\",\"texture.zstd_level\":2}");
}

/* Every key away from its default; settings that are not part of the output
 * (threads, the chunk size, who set the format) stay out of the text. */
static void non_default_settings_json_is_pinned(void **state) {
    (void)state;
    cook_settings s;
    cook_settings_default(&s);
    s.mesh_merge = true;
    s.mesh_meshlets = false;
    s.mesh_meshlet_vertices = 255;
    s.mesh_meshlet_triangles = 1;
    s.mesh_lods = 3;
    s.mesh_lod_ratio_count = 3;
    s.mesh_lod_ratios[0] = 0.6f;
    s.mesh_lod_ratios[1] = 0.1f;
    s.mesh_lod_ratios[2] = 1.0f / 3.0f;
    s.mesh_quantize_positions = true;
    s.mesh_skin_influences = 8;
    s.texture_compress = false;
    s.texture_format = COOK_FORMAT_ASTC_6X6;
    s.texture_quality = COOK_QUALITY_BEST;
    s.texture_target = COOK_TARGET_MOBILE;
    s.texture_max_size = 65536;
    s.texture_mipmaps = false;
    s.texture_max_dimension = 1;
    s.texture_zstd_level = -7;
    s.texture_block_align = COOK_BLOCK_ALIGN_NONE;
    s.threads = 8;
    s.mesh_chunk_triangles = 99;
    strcpy(s.texture_format_origin, "rule 'match: *' (kiln.yml:3)");
    assert_json(&s, "{\"mesh.lod_ratios\":[0.600000024,0.100000001,0.333333343],\"mesh.lods\":3,"
                    "\"mesh.merge\":true,\"mesh.meshlet_triangles\":1,"
                    "\"mesh.meshlet_vertices\":255,\"mesh.meshlets\":false,"
                    "\"mesh.quantize_positions\":true,\"mesh.skin_influences\":8,"
                    "\"texture.block_align\":\"none\","
                    "\"texture.compress\":false,"
                    "\"texture.format\":\"astc-6x6\",\"texture.max_dimension\":1,"
                    "\"texture.max_size\":65536,\"texture.mipmaps\":false,"
                    "\"texture.quality\":\"best\",\"texture.target\":\"mobile\","
                    "\"texture.zstd_level\":-7}");
    s.mesh_lod_ratio_count = 0;
    s.texture_zstd_level = 22;
    char *json = settings_json(&s);
    assert_non_null(strstr(json, "{\"mesh.lod_ratios\":[],\"mesh.lods\":3,"));
    assert_non_null(strstr(json, ",\"texture.zstd_level\":22}"));
    free(json);
}

/* Every value of an ENUM key is written as its name, and its name table holds
 * exactly the names `expected` lists, in value order. */
static void assert_value_names(const char *name, const char *const *expected, size_t count) {
    const cook_setting *key = cook_setting_find(name);
    assert_non_null(key);
    assert_int_equal(key->type, COOK_SETTING_ENUM);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(key->names[i], expected[i]);
        assert_int_equal(cook_names_find(key->names, expected[i]), i);
        cook_settings s;
        cook_settings_default(&s);
        cook_setting_set(key, &s, (long)i);
        assert_int_equal(cook_setting_get(key, &s), i);
        char text[64];
        snprintf(text, sizeof text, ",\"%s\":\"%s\"", name, expected[i]);
        char *json = settings_json(&s);
        assert_non_null(strstr(json, text));
        free(json);
    }
    assert_null(key->names[count]);
}

static void every_named_value_is_written_as_its_name(void **state) {
    (void)state;
    static const char *const formats[] = {"auto",     "rgba8",    "bc1",  "bc3",      "bc4",
                                          "bc5",      "bc6h",     "bc7",  "astc-4x4", "astc-5x5",
                                          "astc-6x6", "astc-8x8", "uastc"};
    static const char *const qualities[] = {"fast", "normal", "best", "draft"};
    static const char *const targets[] = {"desktop", "mobile"};
    static const char *const aligns[] = {"pad", "resize", "none"};
    assert_value_names("texture.format", formats, sizeof formats / sizeof formats[0]);
    assert_value_names("texture.quality", qualities, sizeof qualities / sizeof qualities[0]);
    assert_value_names("texture.target", targets, sizeof targets / sizeof targets[0]);
    assert_value_names("texture.block_align", aligns, sizeof aligns / sizeof aligns[0]);
    assert_int_equal(cook_names_find(cook_quality_names, "Best"), -1); /* names are exact */
    assert_int_equal(cook_names_find(cook_quality_names, ""), -1);
    assert_int_equal(cook_names_find(cook_quality_names, NULL), -1);
    cook_settings s;
    cook_settings_default(&s);
    assert_int_equal(s.texture_format, COOK_FORMAT_AUTO);
    assert_int_equal(s.texture_quality, COOK_QUALITY_NORMAL);
    assert_int_equal(s.texture_target, COOK_TARGET_DESKTOP);
    assert_int_equal(s.texture_block_align, COOK_BLOCK_ALIGN_PAD);
}

/* The table: sorted (the JSON's key order), at most 64 keys (kiln.yml
 * overlays keep one bit a key), each described and stored apart. */
static void the_table_is_sorted_and_complete(void **state) {
    (void)state;
    assert_true(cook_setting_count > 0 && cook_setting_count <= 64);
    for (size_t i = 0; i < cook_setting_count; i++) {
        const cook_setting *key = &cook_setting_table[i];
        if (i > 0)
            assert_true(strcmp(cook_setting_table[i - 1].name, key->name) < 0);
        assert_ptr_equal(cook_setting_find(key->name), key);
        assert_non_null(strchr(key->name, '.'));
        assert_true(key->description != NULL && key->description[0] != '\0');
        assert_true(key->offset + key->size <= offsetof(cook_settings, threads));
        assert_true(key->type != COOK_SETTING_ENUM || key->names != NULL);
        assert_true(key->type != COOK_SETTING_RATIOS || key->default_ratios != NULL);
        for (size_t j = 0; j < i; j++) /* no two keys share a field */
            assert_true(key->offset + key->size <= cook_setting_table[j].offset ||
                        cook_setting_table[j].offset + cook_setting_table[j].size <= key->offset);
    }
    assert_null(cook_setting_find("mesh.lodz"));
    assert_null(cook_setting_find("mesh"));
    assert_true(cook_setting_is_group("mesh"));
    assert_true(cook_setting_is_group("texture"));
    assert_false(cook_setting_is_group("mes"));
    assert_false(cook_setting_is_group("mesh.lods"));
    assert_false(cook_setting_is_group(""));
}

/* Copying a key copies its value only; a ratio list with its count. */
static void copying_a_key_copies_its_value_only(void **state) {
    (void)state;
    cook_settings from, to, expected;
    cook_settings_default(&from);
    cook_settings_default(&to);
    from.mesh_lods = 5;
    from.mesh_lod_ratio_count = 1;
    from.mesh_lod_ratios[0] = 0.75f;
    from.texture_format = COOK_FORMAT_BC5;
    expected = to;
    cook_setting_copy(cook_setting_find("mesh.lod_ratios"), &to, &from);
    expected.mesh_lod_ratio_count = 1;
    expected.mesh_lod_ratios[0] = 0.75f;
    assert_memory_equal(&to, &expected, sizeof to);
    cook_setting_copy(cook_setting_find("texture.format"), &to, &from);
    expected.texture_format = COOK_FORMAT_BC5;
    assert_memory_equal(&to, &expected, sizeof to);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_settings_json_is_pinned),
        cmocka_unit_test(non_default_settings_json_is_pinned),
        cmocka_unit_test(every_named_value_is_written_as_its_name),
        cmocka_unit_test(the_table_is_sorted_and_complete),
        cmocka_unit_test(copying_a_key_copies_its_value_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
