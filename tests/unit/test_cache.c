/* The incremental build cache file: round trip, and that no damaged or
 * foreign file is ever trusted (src/cli/cache.c); asset folders as sources. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_support.h"
#include <xxhash.h>

#include "cli/cache.h"

static void make_record(cache_record *r, const char *source, uint64_t key) {
    *r = (cache_record){.key = key, .content = key ^ 0x1234};
    r->source = cook_strdup(source);
    r->importer = cook_strdup("obj");
    r->files = calloc(2, sizeof *r->files);
    r->files[0] = (cache_stamp){cook_strdup(source), 10, -5, 77};
    r->files[1] = (cache_stamp){cook_strdup("models/cube.mtl"), 20, 1700000000123456789, 78};
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
    assert_true(b->key == 0xffffffffffffffffull);
    assert_int_equal(b->file_count, 2);
    assert_true(b->files[0].mtime_ns == -5);
    assert_true(b->files[1].mtime_ns == 1700000000123456789);
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
    expect_rejected_body("other-tool 1\n", "not a kiln cache");
    expect_rejected_body("kiln-cache 99\nencoder 1\n", "cache format 99");
    expect_rejected_body("kiln-cache 1\nencoder 1\nasset\tobj\t1\t2\ta.obj\n"
                         "file\t1\t1\t1\ta.obj\nout\t../../etc/passwd\n",
                         "unsafe output path");
    expect_rejected_body("kiln-cache 1\nencoder 1\nasset\tobj\t1\t2\t/abs.obj\n",
                         "malformed asset line");
    expect_rejected_body("kiln-cache 1\nencoder 1\nasset\tobj\t1\t2\tb.obj\nfile\t1\t1\t1\tb.obj\n"
                         "asset\tobj\t1\t2\ta.obj\nfile\t1\t1\t1\ta.obj\n",
                         "out of order");
    expect_rejected_body("kiln-cache 1\nencoder 1\nasset\tobj\t1\t2\ta.obj\nfile\t1\t1\t1\tb.obj\n",
                         "does not start with its source");
    expect_rejected_body("kiln-cache 1\nencoder 1\nout\ta.kmesh\n", "outside a record");
    expect_rejected_body("kiln-cache 1\nencoder 1\nasset\tobj\t1\t2\ta.obj\n"
                         "file\t1\t1\t1\ta.obj\nlink\t../b.obj\n",
                         "unsafe reference path");
    expect_rejected_body("kiln-cache 1\nencoder 1\nasset\tobj\tzz\t2\ta.obj\n",
                         "malformed asset line");
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

static void key_depends_on_every_input(void **state) {
    (void)state;
    cook_settings s, t;
    cook_settings_default(&s);
    t = s;
    t.mesh_lods = 3;
    uint64_t hs = cache_settings_hash(&s), ht = cache_settings_hash(&t);
    uint64_t base = cache_key(1, hs, 2, "obj");
    assert_true(hs == cache_settings_hash(&s));
    assert_true(base == cache_key(1, hs, 2, "obj"));
    assert_true(base != cache_key(2, hs, 2, "obj"));
    assert_true(base != cache_key(1, ht, 2, "obj"));
    assert_true(base != cache_key(1, hs, 3, "obj"));
    assert_true(base != cache_key(1, hs, 2, "gltf"));
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
    assert_true(cache_hash_content(root, &stamp, 1, &before));
    test_write_file(px, "y", 1); /* a face's bytes: hashed as a dependency, not here */
    assert_true(cache_hash_content(root, &stamp, 1, &same));
    assert_true(before == same);
    char *nx = test_path_join(folder, "nx.png");
    test_write_file(nx, "x", 1);
    assert_true(cache_hash_content(root, &stamp, 1, &after));
    assert_true(after != before);
    assert_false(cache_stamp_file(root, "sky.env/missing.png", &stamp));
    free(nx);
    free(px);
    free(folder);
    free(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cache_round_trips),
        cmocka_unit_test(every_truncation_is_rejected),
        cmocka_unit_test(every_changed_byte_is_rejected),
        cmocka_unit_test(hostile_content_is_rejected),
        cmocka_unit_test(unsafe_paths_are_recognised),
        cmocka_unit_test(key_depends_on_every_input),
        cmocka_unit_test(asset_folders_are_stamped_and_hashed_by_their_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
