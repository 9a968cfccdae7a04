/* Where each format names other files (cook/import/source_paths*.c) and how
 * a new path is spelled there: what `kiln mv` rewrites. Each found path is
 * checked against the bytes it claims to span, and the relative paths
 * (cook_path_relative) against resolving them back (cook_path_resolve). */
#include <stdlib.h>
#include <string.h>

#include "cook/core/named_paths.h"
#include "test_support.h"

typedef struct expected_path {
    const char *what, *path, *spelled; /* spelled: the bytes [start, end) */
    uint32_t line;
    bool from_root, fixed;
} expected_path;

static void expect_paths(const char *name, const char *text, const expected_path *expected,
                         size_t count) {
    cook_named_paths paths;
    char reason[256] = "";
    bool ok =
        cook_source_paths(name, (const uint8_t *)text, strlen(text), &paths, reason, sizeof reason);
    assert_true(ok);
    assert_int_equal(paths.count, count);
    for (size_t i = 0; i < count; i++) {
        const cook_named_path *named = &paths.items[i];
        assert_string_equal(named->what, expected[i].what);
        assert_string_equal(named->path, expected[i].path);
        assert_int_equal(named->end - named->start, strlen(expected[i].spelled));
        assert_memory_equal(text + named->start, expected[i].spelled, strlen(expected[i].spelled));
        assert_int_equal(named->line, expected[i].line);
        assert_int_equal(named->from_root, expected[i].from_root);
        assert_int_equal(named->fixed, expected[i].fixed);
    }
    cook_named_paths_free(&paths);
}

static void level_paths_are_its_includes_assets_and_refs(void **state) {
    (void)state;
    const char *level = "# a level\n"
                        "include: [a.level, 'sub/b.level']\n"
                        "entities:\n"
                        "  - name: x\n"
                        "    asset: \"props/x.obj\"   # comment\n"
                        "    components:\n"
                        "      icon: {ref: props/y.png}\n"
                        "      note: {include: not/a/path}\n";
    const expected_path expected[] = {
        {"include", "a.level", "a.level", 2, false, false},
        {"include", "sub/b.level", "'sub/b.level'", 2, false, false},
        {"asset", "props/x.obj", "\"props/x.obj\"", 5, true, false},
        {"ref", "props/y.png", "props/y.png", 7, true, false},
    };
    expect_paths("levels/l.level", level, expected, 4);
    const expected_path single[] = {{"include", "c.level", "c.level", 1, false, false}};
    expect_paths("l.level", "include: c.level\nentities: []\n", single, 1);
}

/* libyaml counts characters; the spans are bytes, after a byte-order mark. */
static void yaml_spans_are_bytes_past_utf8_and_a_bom(void **state) {
    (void)state;
    const char *level = "\xef\xbb\xbf# caf\xc3\xa9 \xe2\x9d\xa4\n"
                        "entities:\n"
                        "  - name: \"\xc3\xa9t\xc3\xa9\"\n"
                        "    asset: props/\xe2\x9d\xa4.obj # \xc3\xa9\n"
                        "    components: {icon: {ref: 'a.png'}}\n";
    const expected_path expected[] = {
        {"asset", "props/\xe2\x9d\xa4.obj", "props/\xe2\x9d\xa4.obj", 4, true, false},
        {"ref", "a.png", "'a.png'", 5, true, false},
    };
    expect_paths("l.level", level, expected, 2);
    expect_paths("l.level", level + 3, expected, 2); /* without the mark */
}

static void mat_textures_are_paths_or_images(void **state) {
    (void)state;
    const char *mat = "name: Oak\n"
                      "base_color: [1, 1, 1]\n"
                      "textures:\n"
                      "  base_color: tex/oak.png\n"
                      "  normal:\n"
                      "    wrap: repeat\n"
                      "    image: \"tex/oak n.png\"\n"
                      "  emissive: {texcoord: 0}\n";
    const expected_path expected[] = {
        {"textures.base_color", "tex/oak.png", "tex/oak.png", 4, false, false},
        {"textures.normal.image", "tex/oak n.png", "\"tex/oak n.png\"", 7, false, false},
    };
    expect_paths("materials/oak.mat", mat, expected, 2);
}

static void a_level_that_does_not_load_is_refused_with_its_line(void **state) {
    (void)state;
    cook_named_paths paths;
    char reason[256] = "";
    const char *text = "entities:\n  - name: [unclosed\n";
    assert_false(cook_source_paths("bad.level", (const uint8_t *)text, strlen(text), &paths, reason,
                                   sizeof reason));
    assert_non_null(strstr(reason, "invalid YAML"));
    assert_int_equal(paths.count, 0);
}

static void obj_libraries_may_hold_spaces(void **state) {
    (void)state;
    const char *obj = "# crate\n"
                      "mtllib a.mtl my lib.MTL\tlast\n"
                      "  mtllib   b.mtl  \r\n"
                      "usemtl mtllib x.mtl\n"
                      "mtllib c.mtl \\\n  d.mtl\n";
    const expected_path expected[] = {
        {"mtllib", "a.mtl", "a.mtl", 2, false, false},
        {"mtllib", "my lib.MTL", "my lib.MTL", 2, false, false},
        {"mtllib", "last", "last", 2, false, false},
        {"mtllib", "b.mtl", "b.mtl", 3, false, false},
        {"mtllib", "c.mtl", "c.mtl", 5, false, true},
        {"mtllib", "\\", "\\", 5, false, true},
    };
    expect_paths("m/crate.obj", obj, expected, 6);
}

static void mtl_maps_skip_their_options(void **state) {
    (void)state;
    const char *mtl = "newmtl wood\n"
                      "Kd 1 1 1\n"
                      "map_Kd -s 2 2 -bm 0.5 wood grain.png\n"
                      "bump -o 0.5 n.png -clamp on\n"
                      "MAP_KS -x spec.png\n"
                      "map_d .\\alpha.png\n"
                      "norm -mm 0 1\n";
    const expected_path expected[] = {
        {"map_Kd", "wood grain.png", "wood grain.png", 3, false, false},
        {"bump", "n.png", "n.png", 4, false, false},
        {"MAP_KS", "spec.png", "spec.png", 5, false, false},
        {"map_d", ".\\alpha.png", ".\\alpha.png", 6, false, false},
    };
    expect_paths("m/crate.mtl", mtl, expected, 4);
}

static void gltf_uris_of_buffers_and_images_only(void **state) {
    (void)state;
    const char *gltf = "{\"asset\":{\"version\":\"2.0\"},\n"
                       " \"buffers\":[{\"byteLength\":4,\"uri\":\"my%20data.bin\"},\n"
                       "  {\"uri\":\"data:application/octet-stream;base64,AAAA\"}],\n"
                       " \"images\":[{\"name\":\"a\"},{\"uri\" : \"tex/\\u0061.png\"},"
                       "{\"uri\":\"https://example.com/x.png\"}],\n"
                       " \"extensions\":{\"X\":{\"images\":[{\"uri\":\"no.png\"}]}}}";
    const expected_path expected[] = {
        {"buffers[0].uri", "my data.bin", "\"my%20data.bin\"", 2, false, false},
        {"images[1].uri", "tex/a.png", "\"tex/\\u0061.png\"", 4, false, true},
    };
    expect_paths("m/x.gltf", gltf, expected, 2);
}

static void glb_paths_are_found_but_fixed(void **state) {
    (void)state;
    const char json[] = "{\"buffers\":[{\"uri\":\"b.bin\"}]}   ";
    uint8_t glb[20 + sizeof json - 1];
    uint32_t words[5] = {0x46546c67u, 2, (uint32_t)sizeof glb, (uint32_t)(sizeof json - 1),
                         0x4e4f534au};
    memcpy(glb, words, 20);
    memcpy(glb + 20, json, sizeof json - 1);
    cook_named_paths paths;
    char reason[256];
    assert_true(cook_source_paths("x.glb", glb, sizeof glb, &paths, reason, sizeof reason));
    assert_int_equal(paths.count, 1);
    assert_string_equal(paths.items[0].path, "b.bin");
    assert_true(paths.items[0].fixed);
    assert_int_equal(paths.items[0].start, 20 + 19);
    cook_named_paths_free(&paths);
}

static void shader_includes_in_quotes(void **state) {
    (void)state;
    const char *glsl = "#version 450\n"
                       "#include \"common/light.glsl\"\n"
                       "  #  include \"../x.h\"\n"
                       "#include <system.glsl>\n"
                       "// #include \"comment.glsl\"\n";
    const expected_path expected[] = {
        {"#include", "common/light.glsl", "common/light.glsl", 2, false, false},
        {"#include", "../x.h", "../x.h", 3, false, false},
    };
    expect_paths("s/lit.frag", glsl, expected, 2);
}

static void spell(cook_path_syntax syntax, const char *what, const char *path,
                  const char *expected) {
    cook_named_path named = {.syntax = syntax};
    snprintf(named.what, sizeof named.what, "%s", what);
    bytebuf out = {0};
    char reason[256] = "";
    bool ok = cook_named_path_spell(&named, path, &out, reason, sizeof reason);
    if (expected == NULL) {
        assert_false(ok);
        assert_non_null(strstr(reason, path));
    } else {
        assert_true(ok);
        assert_int_equal(out.size, strlen(expected));
        assert_memory_equal(out.data, expected, out.size);
    }
    bytebuf_free(&out);
}

static void new_paths_are_spelled_as_each_syntax_reads_them(void **state) {
    (void)state;
    spell(COOK_PATH_JSON_URI, "images[0].uri", "../a b/t#1.png", "\"../a%20b/t%231.png\"");
    spell(COOK_PATH_JSON_URI, "images[0].uri", "c\xe2\x9d\xa4.png", "\"c\xe2\x9d\xa4.png\"");
    spell(COOK_PATH_YAML_PLAIN, "asset", "props/a.obj", "props/a.obj");
    spell(COOK_PATH_YAML_PLAIN, "asset", "props/a b#c.obj", "\"props/a b#c.obj\"");
    spell(COOK_PATH_YAML_SINGLE, "asset", "it's.obj", "'it''s.obj'");
    spell(COOK_PATH_YAML_DOUBLE, "include", "a\"b.level", "\"a\\\"b.level\"");
    spell(COOK_PATH_TEXT, "mtllib", "../m/my lib.mtl", "../m/my lib.mtl");
    spell(COOK_PATH_TEXT, "mtllib", "../m/my lib.txt", NULL);
    spell(COOK_PATH_TEXT, "map_Kd", "-x.png", NULL);
    spell(COOK_PATH_TEXT, "#include", "a\"b.h", NULL);
}

static void expect_relative(const char *from, const char *to, const char *expected) {
    char *relative = cook_path_relative(from, to);
    assert_non_null(relative);
    assert_string_equal(relative, expected);
    char reason[128];
    char *back = cook_path_resolve(from, relative, reason, sizeof reason);
    assert_non_null(back);
    assert_string_equal(back, to);
    free(back);
    free(relative);
}

static void relative_paths_resolve_back(void **state) {
    (void)state;
    expect_relative("a/x.obj", "b/c.png", "../b/c.png");
    expect_relative("a/x.obj", "a/c.png", "c.png");
    expect_relative("x.obj", "b/c/d.png", "b/c/d.png");
    expect_relative("a/b/c/x.obj", "a/y.png", "../../y.png");
    expect_relative("ab/x.obj", "a/y.png", "../a/y.png");
    expect_relative("a/x.obj", "ab/y.png", "../ab/y.png");
    char reason[128];
    assert_null(cook_path_resolve("a/x.obj", "../../y.png", reason, sizeof reason));
    assert_non_null(strstr(reason, "leaves the input folder"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(level_paths_are_its_includes_assets_and_refs),
        cmocka_unit_test(yaml_spans_are_bytes_past_utf8_and_a_bom),
        cmocka_unit_test(mat_textures_are_paths_or_images),
        cmocka_unit_test(a_level_that_does_not_load_is_refused_with_its_line),
        cmocka_unit_test(obj_libraries_may_hold_spaces),
        cmocka_unit_test(mtl_maps_skip_their_options),
        cmocka_unit_test(gltf_uris_of_buffers_and_images_only),
        cmocka_unit_test(glb_paths_are_found_but_fixed),
        cmocka_unit_test(shader_includes_in_quotes),
        cmocka_unit_test(new_paths_are_spelled_as_each_syntax_reads_them),
        cmocka_unit_test(relative_paths_resolve_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
