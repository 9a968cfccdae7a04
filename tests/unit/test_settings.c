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
    assert_json(&s, "{\"mesh.lod_ratios\":[0.5,0.25],\"mesh.lods\":2,\"mesh.merge\":false,"
                    "\"mesh.meshlet_triangles\":124,\"mesh.meshlet_vertices\":64,"
                    "\"mesh.meshlets\":true,\"mesh.quantize_positions\":false,"
                    "\"texture.compress\":true,\"texture.format\":\"auto\","
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
    s.texture_compress = false;
    strcpy(s.texture_format, "astc-6x6");
    strcpy(s.texture_quality, "best");
    strcpy(s.texture_target, "mobile");
    s.texture_max_size = 65536;
    s.texture_mipmaps = false;
    s.texture_max_dimension = 1;
    s.texture_zstd_level = -7;
    s.threads = 8;
    s.mesh_chunk_triangles = 99;
    strcpy(s.texture_format_origin, "rule 'match: *' (kiln.yml:3)");
    assert_json(&s, "{\"mesh.lod_ratios\":[0.600000024,0.100000001,0.333333343],\"mesh.lods\":3,"
                    "\"mesh.merge\":true,\"mesh.meshlet_triangles\":1,"
                    "\"mesh.meshlet_vertices\":255,\"mesh.meshlets\":false,"
                    "\"mesh.quantize_positions\":true,\"texture.compress\":false,"
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

/* Each value of the three named settings is written as its name. */
static void every_named_value_is_written_as_its_name(void **state) {
    (void)state;
    static const char *const formats[] = {"auto",     "rgba8",    "bc1",      "bc3",
                                          "bc4",      "bc5",      "bc6h",     "bc7",
                                          "astc-4x4", "astc-5x5", "astc-6x6", "astc-8x8"};
    static const char *const qualities[] = {"fast", "normal", "best"};
    static const char *const targets[] = {"desktop", "mobile"};
    char expected[64];
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        cook_settings s;
        cook_settings_default(&s);
        strcpy(s.texture_format, formats[i]);
        snprintf(expected, sizeof expected, ",\"texture.format\":\"%s\",", formats[i]);
        char *json = settings_json(&s);
        assert_non_null(strstr(json, expected));
        free(json);
    }
    for (size_t i = 0; i < sizeof qualities / sizeof qualities[0]; i++) {
        cook_settings s;
        cook_settings_default(&s);
        strcpy(s.texture_quality, qualities[i]);
        snprintf(expected, sizeof expected, ",\"texture.quality\":\"%s\",", qualities[i]);
        char *json = settings_json(&s);
        assert_non_null(strstr(json, expected));
        free(json);
    }
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        cook_settings s;
        cook_settings_default(&s);
        strcpy(s.texture_target, targets[i]);
        snprintf(expected, sizeof expected, ",\"texture.target\":\"%s\",", targets[i]);
        char *json = settings_json(&s);
        assert_non_null(strstr(json, expected));
        free(json);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_settings_json_is_pinned),
        cmocka_unit_test(non_default_settings_json_is_pinned),
        cmocka_unit_test(every_named_value_is_written_as_its_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
