/* Levels (issue 14): the parser (import/level.c) on bytes, and the level
 * driver (drivers/level.c) cooking a level into a .kscene read back through
 * the runtime. Expected hashes are computed here with a FNV-1a 64 of the
 * test's own. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "cook/import/level.h"
#include "test_import.h"
#include "test_support.h"

/* FNV-1a 64, written out independently of src/common/hash.c. */
static uint64_t fnv1a(const char *text) {
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    return h;
}

static const char *diag_text(const cook_diag *diag) {
    return diag->text.size ? (const char *)diag->text.data : "";
}

static void expect_in_diag(const cook_diag *diag, const char *needle) {
    if (diag->text.size == 0 || strstr(diag_text(diag), needle) == NULL)
        fail_msg("expected '%s' in the messages:\n%.*s", needle, (int)diag->text.size,
                 diag_text(diag));
}

/* ---------------------------------------------------------------------------
 * The parser
 * ------------------------------------------------------------------------- */

static bool fake_resolve(void *user, const char *path, uint32_t line, uint64_t *hash) {
    int *calls = user;
    (*calls)++;
    *hash = 0x0123456789abcdefull + line; /* line-dependent: proves which call */
    return strcmp(path, "missing.png") != 0;
}

static bool parse_text(const char *text, cook_diag *diag, level_doc *doc, int *calls) {
    return level_parse((const uint8_t *)text, strlen(text), "a.level", diag, fake_resolve, calls,
                       doc);
}

static void parser_reads_entities_exactly(void **state) {
    (void)state;
    const char *text = "include: [common.level, ../x/other.level]\n"       /* 1 */
                       "entities:\n"                                       /* 2 */
                       "  - name: truck\n"                                 /* 3 */
                       "    asset: models/truck.gltf\n"                    /* 4 */
                       "    translation: [0, 0.5, -5]\n"                   /* 5 */
                       "    rotation: [0, 0, 3, 4]\n"                      /* 6 */
                       "    scale: [2, 2, 2]\n"                            /* 7 */
                       "    parent: yard\n"                                /* 8 */
                       "    components:\n"                                 /* 9 */
                       "      decal: {ref: textures/decal.png, size: 2}\n" /* 10 */
                       "      list: [1e2, \"1\", yes, true, ~, -0.25]\n"   /* 11 */
                       "  - name: yard\n";                                 /* 12 */
    cook_diag diag = {0};
    level_doc doc;
    int calls = 0;
    assert_true(parse_text(text, &diag, &doc, &calls));
    assert_int_equal(diag.errors, 0);
    assert_int_equal(diag.warnings, 1); /* the rotation of length 5 */
    expect_in_diag(&diag, "a.level:6: warning: rotation: quaternion of length 5 normalised");
    assert_int_equal(doc.include_count, 2);
    assert_string_equal(doc.includes[0].path, "common.level");
    assert_int_equal(doc.includes[0].line, 1);
    assert_string_equal(doc.includes[1].path, "../x/other.level");
    assert_int_equal(doc.entity_count, 2);
    const level_entity *e = &doc.entities[0];
    assert_string_equal(e->name, "truck");
    assert_int_equal(e->line, 3);
    assert_string_equal(e->asset, "models/truck.gltf");
    assert_int_equal(e->asset_line, 4);
    assert_string_equal(e->parent, "yard");
    assert_int_equal(e->parent_line, 8);
    assert_true(e->translation[0] == 0.0f && e->translation[1] == 0.5f &&
                e->translation[2] == -5.0f);
    /* (0, 0, 3, 4) / 5 */
    assert_true(e->rotation[0] == 0.0f && e->rotation[1] == 0.0f);
    assert_float_equal(e->rotation[2], 0.6f, 1e-7);
    assert_float_equal(e->rotation[3], 0.8f, 1e-7);
    assert_true(e->scale[0] == 2.0f && e->scale[1] == 2.0f && e->scale[2] == 2.0f);
    assert_int_equal(calls, 1);
    /* 0x0123456789abcdef + 10 (the ref's line) */
    assert_string_equal(e->components,
                        "{\"decal\":{\"ref\":\"textures/decal.png\",\"hash\":\"0123456789abcdf9\","
                        "\"size\":2},\"list\":[1e2,\"1\",\"yes\",true,null,-0.25]}");
    const level_entity *yard = &doc.entities[1];
    assert_string_equal(yard->name, "yard");
    assert_null(yard->asset);
    assert_null(yard->components);
    assert_true(yard->rotation[3] == 1.0f && yard->scale[1] == 1.0f && yard->translation[2] == 0);
    level_doc_free(&doc);
    diag_free(&diag);
}

typedef struct bad_case {
    const char *text;
    const char *message; /* expected in the messages, with the line */
} bad_case;

static void parser_refuses_bad_input_with_the_line(void **state) {
    (void)state;
    static const bad_case cases[] = {
        {"entities:\n  - name: a\n    translation: [0, .nan, 0]\n",
         "a.level:3: error: translation: expected a list of 3 finite numbers"},
        {"entities:\n  - name: a\n    scale: [1, 1e39, 1]\n",
         "a.level:3: error: scale: expected a list of 3 finite numbers"},
        {"entities:\n  - name: a\n    rotation: [0, 0, 0]\n",
         "a.level:3: error: rotation: expected a list of 4 finite numbers"},
        {"entities:\n  - name: a\n    rotation: [0, 0, 0, 0]\n",
         "a.level:3: error: rotation: a zero quaternion is no rotation"},
        {"entities:\n  - asset: m.obj\n", "a.level:2: error: entity: 'name' is required"},
        {"entities:\n  - name: a\n    components: {x: {ref: missing.png}}\n", NULL},
        {"entities:\n  - name: a\n    components:\n      x: {ref: a.png, hash: 1}\n",
         "a.level:4: error: components: 'hash' beside 'ref' is kiln's"},
        {"entities:\n  - name: a\n    components:\n      x: 1\n      x: 2\n",
         "a.level:5: error: components: key 'x' appears twice in one map"},
        {"entities:\n  - name: a\n    components:\n      y: 1\n      x: 2\n      x: 3\n      y: "
         "4\n",
         "a.level:6: error: components: key 'x' appears twice in one map"},
        {"entities:\n  - name: a\n    components: {x: .inf}\n",
         "a.level:3: error: components: '.inf' is not a finite number"},
        {"entities: [\n", "a.level:2: error: invalid YAML"},
        {"entities: 3\n", "a.level:1: error: entities: expected a list of entities"},
        {"entities:\n  - name: a\n    asset: m.obj\n    asset: n.obj\n",
         "a.level:4: error: entity: key 'asset' appears twice"},
        {"- a\n", "a.level:1: error: a level is a map with 'entities'"},
        {"merge: yes\nentities: []\n", "a.level:1: error: merge: expected true or false"},
        {"merge: [true]\n", "a.level:1: error: merge: expected true or false"},
        {"merge: true\nmerge: false\n", "a.level:2: error: 'merge' appears twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cook_diag diag = {0};
        level_doc doc;
        int calls = 0;
        bool ok = parse_text(cases[i].text, &diag, &doc, &calls);
        if (ok)
            fail_msg("case %zu parsed: %s", i, cases[i].text);
        if (cases[i].message != NULL)
            expect_in_diag(&diag, cases[i].message);
        level_doc_free(&doc);
        diag_free(&diag);
    }
}

/* rotation_degrees: about X, then Y, then Z. Expected quaternions by hand:
 * X 90 = (sin 45, 0, 0, cos 45); Z 90 after Y 90 = (0,0,h,h)(0,h,0,h) =
 * (-1/2, 1/2, 1/2, 1/2) with h = sqrt(1/2). */
static void parser_reads_rotation_degrees(void **state) {
    (void)state;
    const char *text = "entities:\n"
                       "  - name: a\n"
                       "    rotation_degrees: [90, 0, 0]\n"
                       "  - name: b\n"
                       "    rotation_degrees: [0, 90, 90]\n";
    cook_diag diag = {0};
    level_doc doc;
    int calls = 0;
    assert_true(parse_text(text, &diag, &doc, &calls));
    assert_int_equal(diag.warnings, 0);
    const float h = 0.70710678f;
    const float *a = doc.entities[0].rotation, *b = doc.entities[1].rotation;
    assert_float_equal(a[0], h, 1e-7);
    assert_float_equal(a[1], 0.0f, 1e-7);
    assert_float_equal(a[2], 0.0f, 1e-7);
    assert_float_equal(a[3], h, 1e-7);
    assert_float_equal(b[0], -0.5f, 1e-7);
    assert_float_equal(b[1], 0.5f, 1e-7);
    assert_float_equal(b[2], 0.5f, 1e-7);
    assert_float_equal(b[3], 0.5f, 1e-7);
    level_doc_free(&doc);
    diag_free(&diag);
    const char *both = "entities:\n  - name: a\n    rotation: [0, 0, 0, 1]\n"
                       "    rotation_degrees: [0, 0, 0]\n";
    assert_false(parse_text(both, &diag, &doc, &calls));
    expect_in_diag(&diag, "a.level:4: error: entity: give one of rotation and rotation_degrees");
    level_doc_free(&doc);
    diag_free(&diag);
}

/* Components `depth` lists deep, with `prefix` before the entities. */
static void nested_components(bytebuf *out, const char *prefix, size_t depth, const char *inner) {
    bytebuf_printf(out, "%sentities:\n  - name: a\n    components: {x: ", prefix);
    for (size_t i = 0; i < depth; i++)
        bytebuf_append(out, "[", 1);
    bytebuf_printf(out, "%s", inner);
    for (size_t i = 0; i < depth; i++)
        bytebuf_append(out, "]", 1);
    bytebuf_printf(out, "}\n");
    bytebuf_append_zeros(out, 1);
}

static void expect_parse_error(const bytebuf *text, const char *message) {
    cook_diag diag = {0};
    level_doc doc;
    int calls = 0;
    assert_false(parse_text((const char *)text->data, &diag, &doc, &calls));
    expect_in_diag(&diag, message);
    level_doc_free(&doc);
    diag_free(&diag);
}

static void parser_limits_nesting_and_aliases(void **state) {
    (void)state;
    /* The file nested 104 deep: refused before libyaml builds the tree. */
    bytebuf deep = {0};
    nested_components(&deep, "", 100, "");
    expect_parse_error(&deep, "a.level:3: error: nested deeper than 68 levels");
    bytebuf_free(&deep);
    /* 80,000 deep: libyaml's loader took 14.5 s to get there; the pre-scan
     * stops at the limit. */
    nested_components(&deep, "", 80000, "");
    expect_parse_error(&deep, "a.level:3: error: nested deeper than 68 levels");
    bytebuf_free(&deep);
    /* Components nested deeper than the file through an alias of a list 60
     * deep: refused by the components' own bound, not recursed into, at the
     * line of the value too deep (in the anchor's list). */
    bytebuf anchored = {0};
    bytebuf_printf(&anchored, "deep: &deep ");
    for (int i = 0; i < 60; i++)
        bytebuf_append(&anchored, "[", 1);
    for (int i = 0; i < 60; i++)
        bytebuf_append(&anchored, "]", 1);
    bytebuf_printf(&anchored, "\n");
    bytebuf_append_zeros(&anchored, 1);
    nested_components(&deep, (const char *)anchored.data, 10, "*deep");
    expect_parse_error(&deep, "a.level:1: error: components: nested deeper than 64 levels");
    bytebuf_free(&deep);
    bytebuf_free(&anchored);
    cook_diag diag;
    level_doc doc;
    int calls = 0;
    /* Aliases doubling 30 times: 2^30 values, stopped at the floor of the
     * limit (the file is far under 65536 / 16 bytes). */
    bytebuf bomb = {0};
    bytebuf_printf(&bomb, "a0: &a0 [1, 1]\n");
    for (int i = 1; i <= 30; i++)
        bytebuf_printf(&bomb, "a%d: &a%d [*a%d, *a%d]\n", i, i, i - 1, i - 1);
    bytebuf_printf(&bomb, "entities:\n  - name: a\n    components: {x: *a30}\n");
    bytebuf_append_zeros(&bomb, 1);
    diag = (cook_diag){0};
    assert_false(parse_text((const char *)bomb.data, &diag, &doc, &calls));
    expect_in_diag(&diag, "a.level:34: error: components: more than 65536 values, 16 per byte");
    level_doc_free(&doc);
    diag_free(&diag);
    bytebuf_free(&bomb);
}

/* 40 entities whose components are maps of 4096 keys (the most a map may
 * hold), the last map's last key repeating its first: every key compared
 * with each earlier one took 5.7 s for 100 such maps in a release build;
 * sorted, the repeat is still found at its line. */
/* A level of `count` entities, each with a transform and a component. */
static char *many_entities(uint32_t count, const char *first_entity) {
    size_t capacity = 200 + (size_t)count * 120;
    char *text = malloc(capacity);
    assert_non_null(text);
    size_t used = (size_t)snprintf(text, capacity, "entities:\n%s", first_entity);
    for (uint32_t i = 0; i < count; i++)
        used += (size_t)snprintf(text + used, capacity - used,
                                 "  - name: e%u\n    translation: [%u, 0.5, -1]\n"
                                 "    components: {health: {value: %u, max: 100}}\n",
                                 i, i, i % 100);
    return text;
}

/* Streamed: the YAML nodes held at once are one entity's, however many
 * entities the file has, and every entity arrives; a file using anchors
 * keeps its nodes from the first anchor on (aliases may name any of them). */
static void parser_holds_one_entity_at_a_time(void **state) {
    (void)state;
    uint32_t peaks[2];
    for (int big = 0; big < 2; big++) {
        uint32_t count = big ? 20000 : 200;
        char *text = many_entities(count, "");
        cook_diag diag = {0};
        level_doc doc;
        int calls = 0;
        assert_true(parse_text(text, &diag, &doc, &calls));
        assert_int_equal(doc.entity_count, count);
        assert_string_equal(doc.entities[count - 1].name, big ? "e19999" : "e199");
        assert_float_equal(doc.entities[count - 1].translation[0], (float)(count - 1), 0);
        assert_string_equal(doc.entities[count - 1].components,
                            "{\"health\":{\"value\":99,\"max\":100}}");
        peaks[big] = (uint32_t)doc.yaml_peak_bytes;
        level_doc_free(&doc);
        diag_free(&diag);
        free(text);
    }
    assert_true(peaks[0] > 0);
    assert_int_equal(peaks[1], peaks[0]); /* 100 times the entities, the same nodes */
    assert_true(peaks[1] < 16384);
    char *anchored = many_entities(20000, "  - name: &first a\n");
    cook_diag diag = {0};
    level_doc doc;
    int calls = 0;
    assert_true(parse_text(anchored, &diag, &doc, &calls));
    assert_int_equal(doc.entity_count, 20001);
    assert_true(doc.yaml_peak_bytes > strlen(anchored)); /* every node kept */
    level_doc_free(&doc);
    diag_free(&diag);
    free(anchored);
}

static void large_maps_of_components_find_their_repeated_key(void **state) {
    (void)state;
    enum { entities = 40, keys = 4096 };
    bytebuf text = {0};
    bytebuf_printf(&text, "entities:\n");
    for (int e = 0; e < entities; e++) {
        bytebuf_printf(&text, "  - name: e%d\n    components:\n", e);
        for (int k = 0; k < keys; k++)
            bytebuf_printf(&text, "      k%d: %d\n", e == entities - 1 && k == keys - 1 ? 0 : k, k);
    }
    bytebuf_append_zeros(&text, 1);
    uint32_t last_line = (uint32_t)entities * (keys + 2) + 1;
    char expected[128];
    snprintf(expected, sizeof expected,
             "a.level:%u: error: components: key 'k0' appears twice in one map", last_line);
    cook_diag diag = {0};
    level_doc doc;
    int calls = 0;
    assert_false(parse_text((const char *)text.data, &diag, &doc, &calls));
    expect_in_diag(&diag, expected);
    /* The maps before it were read whole. */
    assert_int_equal(doc.entity_count, entities);
    assert_non_null(doc.entities[0].components);
    assert_non_null(strstr(doc.entities[0].components, ",\"k4095\":4095}"));
    level_doc_free(&doc);
    diag_free(&diag);
    bytebuf_free(&text);
}

/* Nine levels of aliases, each list naming the one before eight times, then
 * `lines` comment lines of 99 bytes, padding the file. */
static void alias_levels(bytebuf *out, int lines) {
    bytebuf_printf(out, "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1]\n");
    for (int i = 1; i <= 5; i++) {
        bytebuf_printf(out, "a%d: &a%d [", i, i);
        for (int k = 0; k < 8; k++)
            bytebuf_printf(out, "%s*a%d", k ? ", " : "", i - 1);
        bytebuf_printf(out, "]\n");
    }
    for (int i = 0; i < lines; i++)
        bytebuf_printf(out, "# %096d\n", i);
    bytebuf_printf(out, "entities:\n  - name: e\n    components: {x: *a5}\n");
    bytebuf_append_zeros(out, 1);
}

/* The bound on values visited is 16 per byte of the file, at least 65536:
 * the same aliases pass in a file big enough and fail in a smaller one. */
static void parser_bounds_aliases_by_the_file_size(void **state) {
    (void)state;
    /* Values visited: the components map, its x, then a5's tree: a list
     * of 8 values at a0, each level a list of 8 of the one before. */
    uint64_t tree = 1 + 8;
    for (int i = 1; i <= 5; i++)
        tree = 1 + 8 * tree;
    uint64_t values = 1 + tree;
    assert_int_equal(values, 299594); /* over the floor: the size decides */
    bytebuf small = {0}, big = {0};
    alias_levels(&small, 0);
    /* Lines of 99 bytes enough to allow `values` at 16 per byte. */
    int lines = (int)((values / 16 + 1 - small.size + 99) / 99);
    alias_levels(&big, lines);
    assert_true(16 * (big.size - 1) >= values);
    cook_diag diag = {0};
    level_doc doc;
    int calls = 0;
    if (!parse_text((const char *)big.data, &diag, &doc, &calls))
        fail_msg("%s", (const char *)diag.text.data);
    assert_int_equal(doc.entity_count, 1);
    /* The JSON: a5's tree as nested lists of 1s. */
    assert_int_equal(strncmp(doc.entities[0].components, "{\"x\":[[[[[[1,1,", 15), 0);
    level_doc_free(&doc);
    diag_free(&diag);
    /* Ten lines fewer: over 16 per byte, refused at the first value past it. */
    bytebuf less = {0};
    alias_levels(&less, lines - 10);
    assert_true(16 * (less.size - 1) < values);
    char expected[128];
    snprintf(expected, sizeof expected, "error: components: more than %zu values, 16 per byte",
             16 * (less.size - 1));
    assert_false(parse_text((const char *)less.data, &diag, &doc, &calls));
    expect_in_diag(&diag, expected);
    level_doc_free(&doc);
    diag_free(&diag);
    /* Without the padding: stopped at the floor, 65536 values. */
    assert_false(parse_text((const char *)small.data, &diag, &doc, &calls));
    expect_in_diag(&diag, "error: components: more than 65536 values, 16 per byte");
    level_doc_free(&doc);
    diag_free(&diag);
    bytebuf_free(&small);
    bytebuf_free(&big);
    bytebuf_free(&less);

    /* A long text aliased: few values, much JSON. 4 MiB is the floor of the
     * JSON bound (64 bytes per byte of this 60 KB file is less). */
    for (int copies = 60; copies <= 100; copies += 40) {
        bytebuf text = {0};
        bytebuf_printf(&text, "t: &t \"");
        for (int i = 0; i < 60000; i++)
            bytebuf_printf(&text, "%c", 'a' + i % 26);
        bytebuf_printf(&text, "\"\nentities:\n  - name: e\n    components: {x: [");
        for (int i = 0; i < copies; i++)
            bytebuf_printf(&text, "%s*t", i ? ", " : "");
        bytebuf_printf(&text, "]}\n");
        bytebuf_append_zeros(&text, 1);
        assert_true(64 * text.size < ((size_t)4 << 20));
        bool ok = parse_text((const char *)text.data, &diag, &doc, &calls);
        /* 60 copies: 3.6 MB of JSON; 100: 6 MB, over 4 MiB. */
        size_t json = (size_t)copies * 60003;
        assert_int_equal(ok, json <= ((size_t)4 << 20));
        if (!ok)
            expect_in_diag(&diag, "a.level:4: error: components: more than 4194304 bytes of JSON");
        else
            assert_int_equal(strlen(doc.entities[0].components), json + strlen("{\"x\":[]}") - 1);
        level_doc_free(&doc);
        diag_free(&diag);
        bytebuf_free(&text);
    }
}

/* ---------------------------------------------------------------------------
 * The driver
 * ------------------------------------------------------------------------- */

static const char QUAD_OBJ[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n";

typedef struct level_fixture {
    char *input;
    char *output;
} level_fixture;

static void put(const level_fixture *f, const char *relative, const char *text) {
    test_write_in(f->input, relative, text, strlen(text));
}

static void fixture_make(level_fixture *f, const char *name) {
    f->input = test_make_temp_dir(name);
    f->output = test_path_join(f->input, "out");
    put(f, "models/truck.obj", QUAD_OBJ);
    put(f, "models/tree.obj", QUAD_OBJ);
    put(f, "textures/decal.png", "not decoded by the level");
}

static void fixture_free(level_fixture *f) {
    free(f->input);
    free(f->output);
}

static bool cook_level(const level_fixture *f, const char *source, cook_asset_result *result) {
    cook_settings settings;
    cook_settings_default(&settings);
    cook_request request = {
        .input_root = f->input,
        .output_root = f->output,
        .source_path = source,
        .importer = cook_registry_match(source),
        .settings = &settings,
        .verify = true,
    };
    assert_non_null(request.importer);
    assert_string_equal(request.importer->name, "level");
    return cook_asset(&request, result);
}

/* Cooks `source` (the test fails with its messages when it does not cook),
 * maps the .kscene it wrote and reads its scene with `flags`. */
static void cook_and_open(const level_fixture *f, const char *source, uint32_t flags,
                          cook_asset_result *result, kiln_file *file, kiln_scene_view *view) {
    if (!cook_level(f, source, result))
        fail_msg("cook failed:\n%s", diag_text(&result->diag));
    char kscene[256];
    snprintf(kscene, sizeof kscene, "%.*s.kscene", (int)(strrchr(source, '.') - source), source);
    char *path = test_path_join(f->output, kscene);
    kiln_error err;
    assert_int_equal(kiln_file_map(file, path, 0, &err), KILN_OK);
    assert_int_equal(kiln_scene_view_get(file, flags, view, &err), KILN_OK);
    free(path);
}

static void level_cooks_nodes_transforms_parents_and_links(void **state) {
    (void)state;
    level_fixture f;
    fixture_make(&f, "level_cooks");
    put(&f, "levels/common.level",
        "entities:\n"
        "  - name: yard\n"
        "    translation: [10, 0, 0]\n");
    put(&f, "levels/town.level",
        "include: [common.level]\n"
        "entities:\n"
        "  - name: truck\n"
        "    asset: models/truck.obj\n"
        "    translation: [1, 2, 3]\n"
        "    rotation: [0, 0.6, 0, 0.8]\n"
        "    scale: [2, 3, 4]\n"
        "    parent: yard\n"
        "    components:\n"
        "      decal: {ref: textures/decal.png, size: 2}\n"
        "  - name: tree\n"
        "    asset: models/tree.obj\n");
    cook_asset_result result;
    kiln_file file;
    kiln_scene_view view;
    cook_and_open(&f, "levels/town.level", 0, &result, &file, &view);
    assert_int_equal(result.outputs.count, 1);
    assert_string_equal(result.outputs.items[0], "levels/town.kscene");
    assert_int_equal(result.manifest.count, 1);
    assert_string_equal(result.manifest.items[0].ref, "levels/town/scene");
    assert_int_equal(result.manifest.items[0].kind, KILN_ASSET_SCENE);
    /* Every file it names: the include, the models and the texture. */
    assert_true(strlist_contains(&result.dependencies, "levels/common.level"));
    assert_true(strlist_contains(&result.dependencies, "models/truck.obj"));
    assert_true(strlist_contains(&result.dependencies, "models/tree.obj"));
    assert_true(strlist_contains(&result.dependencies, "textures/decal.png"));
    assert_int_equal(result.references.count, 3);
    assert_true(strlist_contains(&result.references, "models/truck.obj"));
    assert_true(strlist_contains(&result.references, "models/tree.obj"));
    assert_true(strlist_contains(&result.references, "textures/decal.png"));

    /* Depth-first: the root yard (included first) and its truck, then the
     * root tree. */
    assert_int_equal(view.node_count, 3);
    assert_string_equal(kiln_scene_node_name(&view, 0), "yard");
    assert_string_equal(kiln_scene_node_name(&view, 1), "truck");
    assert_string_equal(kiln_scene_node_name(&view, 2), "tree");
    assert_int_equal(view.hierarchy[0].parent, -1);
    assert_int_equal(view.hierarchy[1].parent, 0);
    assert_int_equal(view.hierarchy[2].parent, -1);
    assert_int_equal(view.hierarchy[0].subtree_end, 2);
    const kiln_scene_transform *t = &view.transforms[1];
    assert_true(t->translation[0] == 1.0f && t->translation[1] == 2.0f &&
                t->translation[2] == 3.0f);
    assert_true(t->rotation[0] == 0.0f && t->rotation[2] == 0.0f);
    assert_float_equal(t->rotation[1], 0.6f, 1e-7);
    assert_float_equal(t->rotation[3], 0.8f, 1e-7);
    assert_true(t->scale[0] == 2.0f && t->scale[1] == 3.0f && t->scale[2] == 4.0f);
    assert_true(view.transforms[0].translation[0] == 10.0f);
    /* Links: the models' scenes; yard places nothing. */
    const char *ref = "x";
    assert_true(kiln_scene_node_link(&view, 0, &ref) == 0);
    assert_null(ref);
    assert_true(kiln_scene_node_link(&view, 2, &ref) == fnv1a("models/tree/scene"));
    assert_string_equal(ref, "models/tree/scene");
    assert_true(kiln_scene_node_link(&view, 1, &ref) == fnv1a("models/truck/scene"));
    assert_string_equal(ref, "models/truck/scene");
    size_t length = 0;
    assert_null(kiln_scene_node_components(&view, 2, &length));
    const char *json = kiln_scene_node_components(&view, 1, &length);
    char expected[256];
    snprintf(expected, sizeof expected,
             "{\"decal\":{\"ref\":\"textures/decal.png\",\"hash\":\"%016llx\",\"size\":2}}",
             (unsigned long long)fnv1a("textures/decal"));
    assert_non_null(json);
    assert_string_equal(json, expected);
    assert_int_equal(length, strlen(expected));
    /* One scene, named after the level, listing both roots. */
    assert_int_equal(view.scene_count, 1);
    assert_string_equal(kiln_scene_name(&view, 0), "town");
    assert_int_equal(view.scenes[0].root_count, 2);
    kiln_file_close(&file);
    cook_asset_result_free(&result);
    fixture_free(&f);
}

/* merge: true: the placed models' nodes below their entities, one mesh
 * table naming each model's mesh once (truck is placed twice), no links;
 * merge: false, or no key, the linked scene. */
static void merged_level_inlines_models_with_one_mesh_table(void **state) {
    (void)state;
    level_fixture f;
    fixture_make(&f, "level_merged");
    const char *entities = "entities:\n"
                           "  - name: yard\n"
                           "    translation: [10, 0, 0]\n"
                           "  - name: truck_a\n"
                           "    asset: models/truck.obj\n"
                           "    parent: yard\n"
                           "  - name: truck_b\n"
                           "    asset: models/truck.obj\n"
                           "    components: {tag: b}\n"
                           "  - name: tree\n"
                           "    asset: models/tree.obj\n";
    char text[1024];
    snprintf(text, sizeof text, "merge: true\n%s", entities);
    put(&f, "levels/merged.level", text);
    snprintf(text, sizeof text, "merge: false\n%s", entities);
    put(&f, "levels/linked.level", text);
    cook_asset_result result;
    kiln_file file;
    kiln_scene_view view;
    cook_and_open(&f, "levels/merged.level", 0, &result, &file, &view);
    assert_int_equal(result.diag.warnings, 0);
    assert_true(strlist_contains(&result.dependencies, "models/tree.obj"));
    cook_asset_result_free(&result);
    /* 4 entities and an OBJ's one node per placement. */
    assert_int_equal(view.node_count, 4 + 2 + 1);
    /* One mesh table: truck's mesh once, then tree's (first placements' order). */
    assert_int_equal(view.desc->mesh_count, 2);
    assert_true(view.meshes[0] == fnv1a("models/truck"));
    assert_true(view.meshes[1] == fnv1a("models/tree"));
    uint32_t inlined = 0, truck_nodes = 0;
    for (uint32_t n = 0; n < view.node_count; n++) {
        const char *ref = "x";
        assert_true(kiln_scene_node_link(&view, n, &ref) == 0); /* nothing to follow */
        int32_t parent = view.hierarchy[n].parent;
        const char *name = kiln_scene_node_name(&view, n);
        if (view.nodes[n].mesh < 0)
            continue;
        inlined++;
        /* Each model's root hangs below its entity, and names its model's
         * material table. */
        const char *entity = kiln_scene_node_name(&view, (uint32_t)parent);
        if (view.nodes[n].mesh == 0) {
            truck_nodes++;
            assert_true(strcmp(entity, "truck_a") == 0 || strcmp(entity, "truck_b") == 0);
        } else {
            assert_string_equal(entity, "tree");
        }
        /* An OBJ's node is named after its mesh, the file's stem here. */
        assert_string_equal(name, view.nodes[n].mesh == 0 ? "truck" : "tree");
        if (view.nodes[n].materials >= 0) {
            char table[64];
            snprintf(table, sizeof table, "models/%s/materials",
                     view.nodes[n].mesh == 0 ? "truck" : "tree");
            assert_true(view.materials[view.nodes[n].materials] == fnv1a(table));
        }
    }
    assert_int_equal(inlined, 3);
    assert_int_equal(truck_nodes, 2);
    size_t length = 0;
    uint32_t b = 0;
    assert_int_equal(kiln_scene_find_node(&view, "truck_b", &b), KILN_OK);
    assert_string_equal(kiln_scene_node_components(&view, b, &length), "{\"tag\":\"b\"}");
    kiln_file_close(&file);

    /* merge: false: the linked scene, four nodes and their links. */
    cook_and_open(&f, "levels/linked.level", 0, &result, &file, &view);
    assert_int_equal(view.node_count, 4);
    assert_int_equal(view.desc->mesh_count, 0);
    const char *ref = NULL;
    uint32_t tree = 0;
    assert_int_equal(kiln_scene_find_node(&view, "tree", &tree), KILN_OK);
    assert_true(kiln_scene_node_link(&view, tree, &ref) == fnv1a("models/tree/scene"));
    kiln_file_close(&file);
    cook_asset_result_free(&result);
    fixture_free(&f);
}

/* Entities listed children before parents, across an include: the scene
 * holds each root followed by its whole subtree, children in entity order,
 * and a link stays with its entity. */
static void level_nodes_are_depth_first(void **state) {
    (void)state;
    level_fixture f;
    fixture_make(&f, "level_order");
    put(&f, "levels/base.level",
        "entities:\n"
        "  - name: lamp\n"
        "    parent: street\n"
        "    asset: models/tree.obj\n"
        "  - name: street\n");
    put(&f, "levels/city.level",
        "include: [base.level]\n"
        "entities:\n"
        "  - name: bulb\n"
        "    parent: lamp\n"
        "  - name: house\n"
        "  - name: door\n"
        "    parent: house\n"
        "  - name: bench\n"
        "    parent: street\n"
        "  - name: knob\n"
        "    parent: door\n"
        "  - name: window\n"
        "    parent: house\n");
    cook_asset_result result;
    kiln_file file;
    kiln_scene_view view;
    cook_and_open(&f, "levels/city.level", KILN_OPEN_DEEP, &result, &file, &view);
    test_expect_depth_first(&view);
    const char *names[] = {"street", "lamp", "bulb", "bench", "house", "door", "knob", "window"};
    const uint32_t subtree_end[] = {4, 3, 3, 4, 8, 7, 7, 8};
    assert_int_equal(view.node_count, 8);
    for (uint32_t i = 0; i < 8; i++) {
        if (strcmp(kiln_scene_node_name(&view, i), names[i]) != 0)
            fail_msg("node %u is '%s', not '%s'", i, kiln_scene_node_name(&view, i), names[i]);
        assert_int_equal(view.hierarchy[i].subtree_end, subtree_end[i]);
    }
    assert_true(kiln_scene_node_link(&view, 1, NULL) == fnv1a("models/tree/scene"));
    assert_int_equal(view.scenes[0].root_count, 2);
    kiln_file_close(&file);
    cook_asset_result_free(&result);
    fixture_free(&f);
}

typedef struct driver_case {
    const char *files[3][2]; /* path, text */
    const char *message;
} driver_case;

/* A chain of 100,000 parents, listed leaf first, with a second root among
 * them: placed by depth in one pass (a pass per depth took 6.2 s in a
 * release build), each node after its parent, the roots first in entity
 * order. */
static void a_long_chain_of_parents_cooks_in_depth_order(void **state) {
    (void)state;
    enum { chain = 100000 };
    level_fixture f;
    fixture_make(&f, "level_chain");
    bytebuf text = {0};
    bytebuf_printf(&text, "entities:\n");
    for (uint32_t i = chain - 1; i > 0; i--) {
        bytebuf_printf(&text, "  - name: e%u\n    parent: e%u\n", i, i - 1);
        if (i == chain / 2)
            bytebuf_printf(&text, "  - name: other\n");
    }
    bytebuf_printf(&text, "  - name: e0\n");
    bytebuf_append_zeros(&text, 1);
    put(&f, "levels/chain.level", (const char *)text.data);
    bytebuf_free(&text);
    cook_asset_result result;
    kiln_file file;
    kiln_scene_view view;
    cook_and_open(&f, "levels/chain.level", KILN_OPEN_DEEP, &result, &file, &view);
    assert_int_equal(view.node_count, chain + 1);
    assert_string_equal(kiln_scene_node_name(&view, 0), "other");
    assert_int_equal(view.hierarchy[0].parent, -1);
    char name[32];
    for (uint32_t k = 1; k <= chain; k++) {
        snprintf(name, sizeof name, "e%u", k - 1);
        if (strcmp(kiln_scene_node_name(&view, k), name) != 0)
            fail_msg("node %u is '%s', not '%s'", k, kiln_scene_node_name(&view, k), name);
        assert_int_equal(view.hierarchy[k].parent, k == 1 ? -1 : (int32_t)k - 1);
    }
    kiln_file_close(&file);
    cook_asset_result_free(&result);
    fixture_free(&f);
}

static void level_errors_name_the_file_and_line(void **state) {
    (void)state;
    static const driver_case cases[] = {
        {{{"levels/a.level", "entities:\n  - name: truck\n    asset: models/gone.obj\n"}},
         "levels/a.level:3: error: ref 'models/gone.obj': 'models/gone.obj' not found"},
        {{{"levels/a.level",
           "entities:\n  - name: t\n    components: {d: {ref: textures/none.png}}\n"}},
         "levels/a.level:3: error: ref 'textures/none.png': 'textures/none.png' not found"},
        {{{"levels/a.level", "entities:\n  - name: t\n    asset: textures/decal.png\n"}},
         "levels/a.level:3: error: asset 'textures/decal.png' is not a model"},
        {{{"levels/a.level", "entities:\n  - name: t\n    components: {d: {ref: notes.txt}}\n"},
          {"notes.txt", "x"}},
         "levels/a.level:3: error: ref 'notes.txt': kiln cooks no asset from such a file"},
        {{{"levels/a.level", "include: [b.level]\n"},
          {"levels/b.level", "include: [../levels/a.level]\n"}},
         "levels/b.level:1: error: include cycle: levels/a.level -> levels/b.level -> "
         "levels/a.level"},
        {{{"levels/a.level", "include: [b.level]\nentities:\n  - name: tree\n"},
          {"levels/b.level", "entities:\n  - name: x\n  - name: tree\n"}},
         "levels/a.level:3: error: entity name 'tree' is already used at levels/b.level:3"},
        {{{"levels/a.level", "entities:\n  - name: t\n    parent: nobody\n"}},
         "levels/a.level:3: error: entity 't': parent 'nobody' is no entity of the level"},
        {{{"levels/a.level",
           "entities:\n  - name: p\n    parent: q\n  - name: q\n    parent: p\n"}},
         "error: entity 'p' is its own ancestor (a cycle of parents)"},
        {{{"levels/a.level", "include: [missing.level]\n"}},
         "levels/a.level:1: error: include 'missing.level': 'levels/missing.level' not found"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "level_error_%zu", i);
        level_fixture f;
        fixture_make(&f, name);
        for (int k = 0; k < 3 && cases[i].files[k][0] != NULL; k++)
            put(&f, cases[i].files[k][0], cases[i].files[k][1]);
        cook_asset_result result;
        if (cook_level(&f, "levels/a.level", &result))
            fail_msg("case %zu cooked", i);
        expect_in_diag(&result.diag, cases[i].message);
        assert_int_equal(result.outputs.count, 0);
        cook_asset_result_free(&result);
        fixture_free(&f);
    }
}

static void level_records_absent_refs(void **state) {
    (void)state;
    level_fixture f;
    fixture_make(&f, "level_absent");
    put(&f, "levels/a.level", "entities:\n  - name: t\n    asset: models/later.obj\n");
    cook_asset_result result;
    assert_false(cook_level(&f, "levels/a.level", &result));
    /* A build must cook it again once the model is there. */
    assert_true(strlist_contains(&result.absent, "models/later.obj"));
    cook_asset_result_free(&result);
    fixture_free(&f);
}

/* levels/a.level of one entity `t` placing models/truck.obj (`more`: its
 * other lines), cooked in a new fixture; its .kscene's path and bytes (the
 * caller frees both). */
static uint8_t *cook_one_entity(level_fixture *f, const char *name, const char *more, char **path,
                                size_t *size) {
    fixture_make(f, name);
    char text[256];
    snprintf(text, sizeof text, "entities:\n  - name: t\n    asset: models/truck.obj\n%s", more);
    put(f, "levels/a.level", text);
    cook_asset_result result;
    if (!cook_level(f, "levels/a.level", &result))
        fail_msg("cook failed:\n%s", diag_text(&result.diag));
    cook_asset_result_free(&result);
    *path = test_path_join(f->output, "levels/a.kscene");
    return test_read_file(*path, size);
}

/* The reader refuses a link whose ref does not hash to it (kscene.md R13). */
static void reader_checks_links(void **state) {
    (void)state;
    level_fixture f;
    char *path;
    size_t size = 0;
    uint8_t *bytes = cook_one_entity(&f, "level_reader", "", &path, &size);
    /* The ref "models/truck/scene" is in SSTR: change one letter. */
    uint8_t *at = NULL;
    for (size_t i = 0; at == NULL && i + 18 <= size; i++)
        if (memcmp(bytes + i, "models/truck/scene", 18) == 0)
            at = bytes + i;
    assert_non_null(at);
    at[7] = 'T';
    test_write_file(path, bytes, size);
    kiln_file file;
    kiln_scene_view view;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, path, 0, &err), KILN_OK);
    assert_int_equal(kiln_scene_view_get(&file, 0, &view, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "does not hash to it"));
    kiln_file_close(&file);
    free(bytes);
    free(path);
    fixture_free(&f);
}

/* R13 on SLNK itself: unknown flags are UNSUPPORTED, a reserved word or a
 * components string outside the table CORRUPT; the accessors answer 0 / NULL
 * out of range. */
static void reader_checks_link_words(void **state) {
    (void)state;
    level_fixture f;
    char *path;
    size_t size = 0;
    uint8_t *bytes =
        cook_one_entity(&f, "level_reader_words", "    components: {a: 1}\n", &path, &size);
    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_from_memory(&file, bytes, size, "a.kscene", 0, &err), KILN_OK);
    size_t link = 0;
    for (uint32_t c = 0; c < file.chunk_count; c++)
        if (file.chunks[c].fourcc == KILN_CHUNK_SCENE_LINKS)
            link = (size_t)file.chunks[c].offset;
    kiln_scene_view view;
    assert_int_equal(kiln_scene_view_get(&file, 0, &view, &err), KILN_OK);
    assert_true(kiln_scene_node_link(&view, 1, NULL) == 0);
    assert_null(kiln_scene_node_components(&view, 1, NULL));
    assert_true(kiln_scene_node_link(NULL, 0, NULL) == 0);
    kiln_file_close(&file);
    assert_true(link != 0);
    static const struct {
        size_t offset; /* in kiln_scene_link */
        uint32_t value;
        kiln_result expected;
    } cases[] = {
        {offsetof(kiln_scene_link, flags), 1, KILN_ERR_UNSUPPORTED},
        {offsetof(kiln_scene_link, reserved), 1, KILN_ERR_CORRUPT},
        {offsetof(kiln_scene_link, components_offset), 0xfffffff0u, KILN_ERR_CORRUPT},
        {offsetof(kiln_scene_link, ref_length), 0, KILN_ERR_CORRUPT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *copy = malloc(size);
        assert_non_null(copy);
        memcpy(copy, bytes, size);
        memcpy(copy + link + cases[i].offset, &cases[i].value, sizeof cases[i].value);
        assert_int_equal(kiln_file_from_memory(&file, copy, size, "a.kscene", 0, &err), KILN_OK);
        assert_int_equal(kiln_scene_view_get(&file, 0, &view, &err), cases[i].expected);
        kiln_file_close(&file);
        free(copy);
    }
    free(bytes);
    free(path);
    fixture_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parser_reads_entities_exactly),
        cmocka_unit_test(parser_refuses_bad_input_with_the_line),
        cmocka_unit_test(parser_reads_rotation_degrees),
        cmocka_unit_test(parser_limits_nesting_and_aliases),
        cmocka_unit_test(parser_bounds_aliases_by_the_file_size),
        cmocka_unit_test(parser_holds_one_entity_at_a_time),
        cmocka_unit_test(large_maps_of_components_find_their_repeated_key),
        cmocka_unit_test(level_cooks_nodes_transforms_parents_and_links),
        cmocka_unit_test(merged_level_inlines_models_with_one_mesh_table),
        cmocka_unit_test(level_nodes_are_depth_first),
        cmocka_unit_test(a_long_chain_of_parents_cooks_in_depth_order),
        cmocka_unit_test(level_errors_name_the_file_and_line),
        cmocka_unit_test(level_records_absent_refs),
        cmocka_unit_test(reader_checks_links),
        cmocka_unit_test(reader_checks_link_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
