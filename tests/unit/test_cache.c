/* The incremental build cache file: round trip (warnings and absent paths
 * included), and that no damaged or foreign file is ever trusted
 * (src/build/cache.c); asset folders as sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_support.h"
#include <xxhash.h>

#include "build/cache.h"

/* What a cook with a missing texture prints: backslashes, a tab and a CR
 * (a quoted file name can hold them), a UTF-8 name, a note after the warning. */
static const char warned[] =
    "models/cube.mtl:3: warning: 'map_Kd' texture 'C:\\art\\tex\t1.png\r' not found\n"
    "models/cube.obj: warning: material 'r\xc3\xa9"
    "d': texture 'missing.png' cannot be cooked\n"
    "models/cube.obj: note: the slot gets no texture\n"
    "\n";

static void make_record(cache_record *r, const char *source, uint64_t settings) {
    *r = (cache_record){.settings = settings};
    r->source = cook_strdup(source);
    r->importer = cook_strdup("obj");
    r->files = calloc(2, sizeof *r->files);
    r->files[0] = (cache_stamp){cook_strdup(source), 10, -5, 77, 0xfedcba9876543210ull};
    r->files[1] =
        (cache_stamp){cook_strdup("models/cube.mtl"), 20, 1700000000123456789, 78, settings};
    r->file_count = 2;
    strlist_push(&r->outputs, "models/cube.kmesh");
    cook_manifest_add(&r->manifest, "models/cube", "models/cube.kmesh", KILN_ASSET_MESH,
                      KILN_COLOR_SPACE_NONE, 0);
}

static void make_cache(kiln_cache *cache, bytebuf *bytes) {
    *cache = (kiln_cache){.encoder_version = 7};
    cache_record r;
    make_record(&r, "models/a cube.obj", 1);
    assert_true(cache_add(cache, &r));
    make_record(&r, "models/b.obj", 0xffffffffffffffffull);
    strlist_push(&r.references, "models/a cube.obj"); /* as a level names a model */
    strlist_push(&r.absent, "models/missing.png");
    strlist_push(&r.absent, "models/tex/missing two.png");
    bytebuf_append(&r.diagnostics, warned, sizeof warned - 1);
    assert_true(cache_add(cache, &r));
    cache_serialize(cache, bytes);
    assert_false(bytes->failed);
}

static void cache_round_trips(void **state) {
    (void)state;
    kiln_cache cache, parsed;
    bytebuf bytes = {0}, again = {0};
    make_cache(&cache, &bytes);
    char reason[256];
    assert_true(cache_parse(&parsed, bytes.data, bytes.size, reason, sizeof reason));
    assert_int_equal(parsed.encoder_version, 7);
    assert_int_equal(parsed.count, 2);
    const cache_record *b = cache_find(&parsed, "models/b.obj");
    assert_non_null(b);
    assert_true(b->settings == 0xffffffffffffffffull);
    assert_int_equal(b->file_count, 2);
    assert_true(b->files[0].mtime_ns == -5);
    assert_true(b->files[0].hash == 0xfedcba9876543210ull);
    assert_true(b->files[1].mtime_ns == 1700000000123456789);
    assert_int_equal(b->absent.count, 2);
    assert_string_equal(b->absent.items[1], "models/tex/missing two.png");
    /* The warnings come back byte for byte, in their order. */
    assert_int_equal(b->diagnostics.size, sizeof warned - 1);
    assert_memory_equal(b->diagnostics.data, warned, sizeof warned - 1);
    const cache_record *a = cache_find(&parsed, "models/a cube.obj");
    assert_int_equal(a->diagnostics.size, 0);
    assert_int_equal(a->absent.count, 0);
    cache_record copy;
    assert_true(cache_record_copy(&copy, b));
    assert_int_equal(copy.diagnostics.size, b->diagnostics.size);
    assert_memory_equal(copy.diagnostics.data, warned, sizeof warned - 1);
    assert_string_equal(copy.absent.items[0], "models/missing.png");
    cache_record_free(&copy);
    assert_string_equal(b->manifest.items[0].ref, "models/cube");
    assert_int_equal(b->references.count, 1);
    assert_string_equal(b->references.items[0], "models/a cube.obj");
    assert_int_equal(cache_find(&parsed, "models/a cube.obj")->references.count, 0);
    assert_null(cache_find(&parsed, "models/c.obj"));
    cache_serialize(&parsed, &again);
    assert_int_equal(again.size, bytes.size);
    assert_memory_equal(again.data, bytes.data, bytes.size);
    cache_free(&cache);
    cache_free(&parsed);
    bytebuf_free(&bytes);
    bytebuf_free(&again);
}

/* Format 3: the build number and each record's cook times come back; a
 * cache without them is written as format 2, as journal and remote cache
 * entries are. */
static void times_round_trip_in_format_3(void **state) {
    (void)state;
    kiln_cache cache, parsed;
    bytebuf untimed = {0}, bytes = {0}, again = {0};
    make_cache(&cache, &untimed);
    assert_int_equal(memcmp(untimed.data, "kiln-cache 2\n", 13), 0);
    cache.timed = true;
    cache.build = 5;
    cache.records[1].cooked_in = 5;
    const double seconds[COOK_STAGE_COUNT] = {0.25, 1.5, 0.000001, 3.0};
    memcpy(cache.records[1].stage_seconds, seconds, sizeof seconds);
    cache_serialize(&cache, &bytes);
    assert_int_equal(memcmp(bytes.data, "kiln-cache 3\nencoder 7\nbuild 5\n", 31), 0);
    char reason[256];
    assert_true(cache_parse(&parsed, bytes.data, bytes.size, reason, sizeof reason));
    assert_true(parsed.timed);
    assert_int_equal(parsed.build, 5);
    const cache_record *b = cache_find(&parsed, "models/b.obj");
    assert_int_equal(b->cooked_in, 5);
    for (int stage = 0; stage < COOK_STAGE_COUNT; stage++)
        assert_true(b->stage_seconds[stage] == seconds[stage]);
    assert_int_equal(cache_find(&parsed, "models/a cube.obj")->cooked_in, 0);
    cache_record copy;
    assert_true(cache_record_copy(&copy, b));
    assert_int_equal(copy.cooked_in, 5);
    assert_true(copy.stage_seconds[1] == 1.5);
    cache_record_free(&copy);
    cache_serialize(&parsed, &again);
    assert_int_equal(again.size, bytes.size);
    assert_memory_equal(again.data, bytes.data, bytes.size);
    cache_free(&cache);
    cache_free(&parsed);
    bytebuf_free(&untimed);
    bytebuf_free(&bytes);
    bytebuf_free(&again);
}

static void every_truncation_is_rejected(void **state) {
    (void)state;
    kiln_cache cache, parsed;
    bytebuf bytes = {0};
    make_cache(&cache, &bytes);
    char reason[256];
    for (size_t size = 0; size < bytes.size; size++)
        assert_false(cache_parse(&parsed, bytes.data, size, reason, sizeof reason));
    cache_free(&cache);
    bytebuf_free(&bytes);
}

static void every_changed_byte_is_rejected(void **state) {
    (void)state;
    kiln_cache cache, parsed;
    bytebuf bytes = {0};
    make_cache(&cache, &bytes);
    char reason[256];
    for (size_t at = 0; at < bytes.size; at++) {
        bytes.data[at] ^= 0x01;
        assert_false(cache_parse(&parsed, bytes.data, bytes.size, reason, sizeof reason));
        bytes.data[at] ^= 0x01;
    }
    cache_free(&cache);
    bytebuf_free(&bytes);
}

/* A file with a valid checksum but hostile content (as another program could
 * write): rejected by the parser itself. */
static void expect_rejected_body(const char *body, const char *why) {
    bytebuf bytes = {0};
    bytebuf_printf(&bytes, "%s", body);
    uint64_t sum = XXH3_64bits(bytes.data, bytes.size);
    bytebuf_printf(&bytes, "end %016llx\n", (unsigned long long)sum);
    kiln_cache parsed;
    char reason[256] = "";
    assert_false(cache_parse(&parsed, bytes.data, bytes.size, reason, sizeof reason));
    if (strstr(reason, why) == NULL)
        fail_msg("expected '%s' in '%s'", why, reason);
    bytebuf_free(&bytes);
}

static void hostile_content_is_rejected(void **state) {
    (void)state;
#define HEAD "kiln-cache 2\nencoder 1\n"
#define A_OBJ "asset\tobj\t1\ta.obj\nfile\t1\t1\t1\t2\ta.obj\n"
    expect_rejected_body("other-tool 1\n", "not a kiln cache");
    expect_rejected_body("kiln-cache 99\nencoder 1\n", "cache format 99");
    expect_rejected_body("kiln-cache 1\nencoder 1\n", "cache format 1, this kiln reads 2 and 3");
    /* Numbers are digits as kiln writes them, within their width: 2^32 + 2
     * is not format 2, 2^32 + 1 not encoder 1, -1 not 2^32 - 1. */
    expect_rejected_body("kiln-cache 4294967298\nencoder 1\n", "not a kiln cache");
    expect_rejected_body("kiln-cache  2\nencoder 1\n", "not a kiln cache");
    expect_rejected_body("kiln-cache 2\nencoder 4294967297\n", "malformed encoder line");
    expect_rejected_body("kiln-cache 2\nencoder -1\n", "malformed encoder line");
    expect_rejected_body("kiln-cache 2\nencoder\t1\n", "malformed encoder line");
    expect_rejected_body("kiln-cache 2\nencoder 1x\n", "malformed encoder line");
    expect_rejected_body("kiln-cache 3\nencoder 1\nbuild 4294967296\n", "malformed build line");
    expect_rejected_body(
        "kiln-cache 2\nencoder 1\nasset\tobj\t1\ta.obj\nfile\t\v-1\t1\t1\t2\ta.obj\n",
        "malformed file line");
    expect_rejected_body("kiln-cache 2\nencoder 1\nasset\tobj\t\f1\ta.obj\n",
                         "malformed asset line");
    /* A hexadecimal field is hex digits only: strtoull took a "0x". */
    expect_rejected_body("kiln-cache 2\nencoder 1\nasset\tobj\t0x1\ta.obj\n",
                         "malformed asset line");
    /* Format 3: a build line after the encoder; time lines only there. */
    expect_rejected_body("kiln-cache 3\nencoder 1\n" A_OBJ, "malformed build line");
    expect_rejected_body("kiln-cache 3\nencoder 1\nbuild -1\n", "malformed build line");
    expect_rejected_body(HEAD A_OBJ "time\t1\t0\t0\t0\t0\n", "malformed time line");
#define HEAD3 "kiln-cache 3\nencoder 1\nbuild 2\n"
    expect_rejected_body(HEAD3 A_OBJ "time\t0\t0\t0\t0\t0\n", "malformed time line");
    expect_rejected_body(HEAD3 A_OBJ "time\t1\t-1\t0\t0\t0\n", "malformed time line");
    expect_rejected_body(HEAD3 A_OBJ "time\t1\t0\t0\t0\n", "malformed time line");
    expect_rejected_body(HEAD3 A_OBJ "time\t1\tnan\t0\t0\t0\n", "malformed time line");
#undef HEAD3
    expect_rejected_body(HEAD A_OBJ "out\t../../etc/passwd\n", "unsafe output path");
    expect_rejected_body(HEAD "asset\tobj\t1\t/abs.obj\n", "malformed asset line");
    expect_rejected_body(HEAD "asset\tobj\t1\tb.obj\nfile\t1\t1\t1\t2\tb.obj\n" A_OBJ,
                         "out of order");
    expect_rejected_body(HEAD "asset\tobj\t1\ta.obj\nfile\t1\t1\t1\t2\tb.obj\n",
                         "does not start with its source");
    expect_rejected_body(HEAD "out\ta.kmesh\n", "outside a record");
    expect_rejected_body(HEAD A_OBJ "link\t../b.obj\n", "unsafe reference path");
    expect_rejected_body(HEAD A_OBJ "absent\t/etc/passwd\n", "unsafe absent path");
    expect_rejected_body(HEAD "asset\tobj\tzz\ta.obj\n", "malformed asset line");
    expect_rejected_body(HEAD "asset\tobj\t1\ta.obj\nfile\t1\t1\t1\ta.obj\n",
                         "malformed file line"); /* format 1's line, no hash */
    expect_rejected_body(HEAD A_OBJ "diag\ta\tb\n", "malformed diag line");
    expect_rejected_body(HEAD A_OBJ "diag\ta\\x\n", "malformed diag line");
    expect_rejected_body(HEAD A_OBJ "diag\tends in \\\n", "malformed diag line");
#undef A_OBJ
#undef HEAD
}

/* The header's numbers take all of 32 bits, and no more (above). */
static void header_numbers_take_their_whole_range(void **state) {
    (void)state;
    bytebuf bytes = {0};
    bytebuf_printf(&bytes, "kiln-cache 3\nencoder 4294967295\nbuild 4294967295\n");
    uint64_t sum = XXH3_64bits(bytes.data, bytes.size);
    bytebuf_printf(&bytes, "end %016llx\n", (unsigned long long)sum);
    kiln_cache parsed;
    char reason[256] = "";
    assert_true(cache_parse(&parsed, bytes.data, bytes.size, reason, sizeof reason));
    assert_true(parsed.timed);
    assert_true(parsed.encoder_version == UINT32_MAX);
    assert_true(parsed.build == UINT32_MAX);
    cache_free(&parsed);
    bytebuf_free(&bytes);
}

static void unsafe_paths_are_recognised(void **state) {
    (void)state;
    assert_true(cache_path_is_safe("a/b c/d.obj"));
    assert_true(cache_path_is_safe(".hidden/x"));
    assert_false(cache_path_is_safe(""));
    assert_false(cache_path_is_safe("/a"));
    assert_false(cache_path_is_safe("a/../b"));
    assert_false(cache_path_is_safe(".."));
    assert_false(cache_path_is_safe("./a"));
    assert_false(cache_path_is_safe("a//b"));
    assert_false(cache_path_is_safe("a/"));
    assert_false(cache_path_is_safe("a\tb"));
    assert_false(cache_path_is_safe("a\nb"));
}

/* The settings hash covers every setting; the one of a record with
 * diagnostics also covers where kiln.yml set texture.format (a message may
 * quote it), which a silent record does not depend on. */
static void settings_hash_depends_on_what_records_quote(void **state) {
    (void)state;
    cook_settings s, t;
    cook_settings_default(&s);
    t = s;
    t.mesh_lods = 3;
    uint64_t hs = cache_settings_hash(&s), ht = cache_settings_hash(&t);
    assert_true(hs == cache_settings_hash(&s));
    assert_true(hs != ht);
    t = s;
    snprintf(t.texture_format_origin, sizeof t.texture_format_origin, "rule (kiln.yml:4)");
    assert_true(cache_settings_hash(&t) == hs);
    uint64_t quoted = cache_quoted_settings_hash(hs, &t);
    assert_true(quoted != hs);
    assert_true(quoted != cache_quoted_settings_hash(hs, &s));
    assert_true(quoted == cache_quoted_settings_hash(hs, &t));
    snprintf(t.texture_format_origin, sizeof t.texture_format_origin, "rule (kiln.yml:5)");
    assert_true(quoted != cache_quoted_settings_hash(hs, &t));
}

/* An asset folder (a cubemap's "sky.env") is a source the cache can stamp
 * and hash: its hash covers the names it holds, so adding or renaming a file
 * in it changes the content even though the faces are hashed on their own. */
static void asset_folders_are_stamped_and_hashed_by_their_names(void **state) {
    (void)state;
    char *root = test_make_temp_dir("cache_folder");
    char *folder = test_path_join(root, "sky.env");
    mkdir(folder, 0755);
    char *px = test_path_join(folder, "px.png");
    test_write_file(px, "x", 1);
    cache_stamp stamp;
    assert_true(cache_stamp_file(root, "sky.env", &stamp));
    assert_string_equal(stamp.path, "sky.env");
    uint64_t before, same, after;
    assert_true(cache_hash_file(root, "sky.env", &before));
    test_write_file(px, "y", 1); /* a face's bytes: hashed as a dependency, not here */
    assert_true(cache_hash_file(root, "sky.env", &same));
    assert_true(before == same);
    char *nx = test_path_join(folder, "nx.png");
    test_write_file(nx, "x", 1);
    assert_true(cache_hash_file(root, "sky.env", &after));
    assert_true(after != before);
    assert_false(cache_stamp_file(root, "sky.env/missing.png", &stamp));
    assert_true(cache_path_absent(root, "sky.env/missing.png"));
    assert_false(cache_path_absent(root, "sky.env/nx.png"));
    assert_false(cache_path_absent(root, "sky.env"));
    free(nx);
    free(px);
    free(folder);
    free(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cache_round_trips),
        cmocka_unit_test(times_round_trip_in_format_3),
        cmocka_unit_test(every_truncation_is_rejected),
        cmocka_unit_test(every_changed_byte_is_rejected),
        cmocka_unit_test(hostile_content_is_rejected),
        cmocka_unit_test(header_numbers_take_their_whole_range),
        cmocka_unit_test(unsafe_paths_are_recognised),
        cmocka_unit_test(settings_hash_depends_on_what_records_quote),
        cmocka_unit_test(asset_folders_are_stamped_and_hashed_by_their_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
