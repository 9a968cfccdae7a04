/* The remote cache's keys, indexes and entries (src/build/remote/entry.c),
 * and the layer that fetches and uploads them (remote.c) over a folder
 * (file://): a round trip writes the same bytes, every damaged, foreign or
 * stale entry is a miss with a warning, never a file in the output folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_support.h"

#include <unistd.h>

#include "build/build.h"
#include "build/remote/remote.h"
#include "build/remote/transport.h"

/* ---------------------------------------------------------------------------
 * A small project: a source, a dependency, two outputs
 * ------------------------------------------------------------------------- */

typedef struct project {
    char *root, *input, *output, *store;
    char url[600];
} project;

static void write_under(const char *dir, const char *name, const char *text) {
    test_write_in(dir, name, text, strlen(text));
}

static void make_project(project *p, const char *name) {
    p->root = test_make_temp_dir(name);
    p->input = test_path_join(p->root, "in");
    p->output = test_path_join(p->root, "out");
    p->store = test_path_join(p->root, "store");
    assert_int_equal(mkdir(p->input, 0755), 0);
    assert_int_equal(mkdir(p->output, 0755), 0);
    assert_int_equal(mkdir(p->store, 0755), 0);
    snprintf(p->url, sizeof p->url, "file://%s", p->store);
    write_under(p->input, "models/cube.obj", "v 0 0 0\nmtllib cube.mtl\n");
    write_under(p->input, "models/cube.mtl", "newmtl red\n");
    write_under(p->output, "models/cube.kmesh", "KMESH bytes\n");
    write_under(p->output, "models/cube.kmat", "KMAT bytes\n");
}

static void free_project(project *p) {
    free(p->root);
    free(p->input);
    free(p->output);
    free(p->store);
}

/* The record a cook of models/cube.obj would make, with this tree's hashes. */
static void make_record(const project *p, cache_record *r, const char *diagnostics) {
    *r = (cache_record){.settings = 0x1234};
    r->source = cook_strdup("models/cube.obj");
    r->importer = cook_strdup("obj");
    r->files = calloc(2, sizeof *r->files);
    const char *paths[2] = {"models/cube.obj", "models/cube.mtl"};
    for (size_t i = 0; i < 2; i++) {
        assert_true(cache_stamp_file(p->input, paths[i], &r->files[i]));
        r->files[i].path = cook_strdup(paths[i]);
        assert_true(cache_hash_file(p->input, paths[i], &r->files[i].hash));
    }
    r->file_count = 2;
    strlist_push(&r->absent, "models/cube.png");
    strlist_push(&r->outputs, "models/cube.kmesh");
    strlist_push(&r->outputs, "models/cube.kmat");
    cook_manifest_add(&r->manifest, "models/cube", "models/cube.kmesh", KILN_ASSET_MESH,
                      KILN_COLOR_SPACE_NONE, 0);
    if (diagnostics != NULL) {
        bytebuf_append(&r->diagnostics, diagnostics, strlen(diagnostics));
        r->settings = 0x5678; /* the quoted hash */
    }
}

static remote_asset asset_of(const project *p, const char *output) {
    return (remote_asset){.input = p->input,
                          .output = output,
                          .source = "models/cube.obj",
                          .importer = "obj",
                          .settings = 0x1234,
                          .quoted_settings = 0x5678};
}

/* Warnings the layer said, one per line. */
static char said[8192];
static void collect(void *context, const char *line) {
    (void)context;
    strncat(said, line, sizeof said - strlen(said) - 2);
    strcat(said, "\n");
}

static remote_cache *open_store(const char *url, remote_mode mode) {
    said[0] = '\0';
    remote_request request = {.urls = url, .mode = mode, .encoder_version = 9};
    return remote_cache_open(&request, collect, NULL);
}

static bool same_file(const char *a, const char *b) {
    size_t a_size, b_size;
    uint8_t *x = test_read_file(a, &a_size), *y = test_read_file(b, &b_size);
    bool same = a_size == b_size && memcmp(x, y, a_size) == 0;
    free(x);
    free(y);
    return same;
}

/* ---------------------------------------------------------------------------
 * Keys and indexes
 * ------------------------------------------------------------------------- */

static void keys_change_with_every_part(void **state) {
    (void)state;
    remote_asset a = {.source = "a.png", .importer = "image", .settings = 1, .quoted_settings = 2};
    char base[REMOTE_KEY_HEX + 1], other[REMOTE_KEY_HEX + 1];
    remote_index_key(3, &a, 99, base);
    assert_int_equal(strlen(base), REMOTE_KEY_HEX);
    remote_index_key(3, &a, 99, other);
    assert_string_equal(base, other); /* the same on every machine */
    remote_index_key(4, &a, 99, other);
    assert_string_not_equal(base, other);
    remote_index_key(3, &a, 98, other);
    assert_string_not_equal(base, other);
    remote_asset b = a;
    b.settings = 7;
    remote_index_key(3, &b, 99, other);
    assert_string_not_equal(base, other);
    b = a;
    b.importer = "cubemap";
    remote_index_key(3, &b, 99, other);
    assert_string_not_equal(base, other);
    b = a;
    b.source = "b.png";
    remote_index_key(3, &b, 99, other);
    assert_string_not_equal(base, other);

    remote_index index = {0};
    strlist_push(&index.files, "a.mtl");
    strlist_push(&index.absent, "a.jpg");
    uint64_t hashes[1] = {5};
    bool absent[1] = {true};
    char entry[REMOTE_KEY_HEX + 1], entry2[REMOTE_KEY_HEX + 1];
    remote_entry_key(base, &index, hashes, absent, entry);
    hashes[0] = 6; /* the dependency changed */
    remote_entry_key(base, &index, hashes, absent, entry2);
    assert_string_not_equal(entry, entry2);
    hashes[0] = 5;
    absent[0] = false; /* the path it looked for appeared */
    remote_entry_key(base, &index, hashes, absent, entry2);
    assert_string_not_equal(entry, entry2);
    char path[REMOTE_MAX_KEY];
    remote_key_path("e", entry, path, sizeof path);
    char expected[REMOTE_MAX_KEY];
    snprintf(expected, sizeof expected, "kiln/1/e/%.2s/%s", entry, entry);
    assert_string_equal(path, expected);
    remote_index_free(&index);
}

static void index_round_trips_and_refuses_damage(void **state) {
    (void)state;
    remote_index index = {0}, parsed;
    strlist_push(&index.files, "textures/a b.png");
    strlist_push(&index.files, "models/cube.mtl");
    strlist_push(&index.absent, "models/missing.png");
    bytebuf bytes = {0};
    remote_index_serialize(&index, &bytes);
    char reason[256];
    assert_true(remote_index_parse(bytes.data, bytes.size, &parsed, reason, sizeof reason));
    assert_int_equal(parsed.files.count, 2);
    assert_string_equal(parsed.files.items[0], "textures/a b.png");
    assert_string_equal(parsed.absent.items[0], "models/missing.png");
    remote_index_free(&parsed);
    for (size_t at = 0; at < bytes.size; at++) { /* every flipped bit is caught */
        bytes.data[at] ^= 0x20;
        assert_false(remote_index_parse(bytes.data, bytes.size, &parsed, reason, sizeof reason));
        bytes.data[at] ^= 0x20;
    }
    for (size_t cut = 0; cut < bytes.size; cut++)
        assert_false(remote_index_parse(bytes.data, cut, &parsed, reason, sizeof reason));
    /* A path climbing out of the folder, with a valid checksum. */
    remote_index evil = {0};
    strlist_push(&evil.files, "../../etc/passwd");
    bytebuf evil_bytes = {0};
    remote_index_serialize(&evil, &evil_bytes);
    assert_false(
        remote_index_parse(evil_bytes.data, evil_bytes.size, &parsed, reason, sizeof reason));
    assert_non_null(strstr(reason, "outside"));
    remote_index_free(&evil);
    remote_index_free(&index);
    bytebuf_free(&bytes);
    bytebuf_free(&evil_bytes);
}

/* ---------------------------------------------------------------------------
 * Entries
 * ------------------------------------------------------------------------- */

static void entry_round_trips_and_refuses_damage(void **state) {
    (void)state;
    project p;
    make_project(&p, "remote_entry_codec");
    cache_record record;
    make_record(&p, &record, "models/cube.obj:2: warning: a\ttab\n");
    const char *key = "0123456789abcdef0123456789abcdef";
    bytebuf bytes = {0};
    char reason[256];
    assert_true(
        remote_entry_encode(key, &record, 9, p.output, 1 << 20, &bytes, reason, sizeof reason));
    remote_entry entry;
    assert_true(remote_entry_decode(bytes.data, bytes.size, key, 9, 1 << 20, &entry, reason,
                                    sizeof reason));
    assert_string_equal(entry.record.source, "models/cube.obj");
    assert_int_equal(entry.record.outputs.count, 2);
    assert_int_equal(entry.sizes[0], strlen("KMESH bytes\n"));
    assert_memory_equal(entry.payload + entry.offsets[0], "KMESH bytes\n", entry.sizes[0]);
    assert_memory_equal(entry.payload + entry.offsets[1], "KMAT bytes\n", entry.sizes[1]);
    assert_int_equal(entry.record.diagnostics.size, strlen("models/cube.obj:2: warning: a\ttab\n"));
    assert_int_equal(entry.record.files[1].hash, record.files[1].hash);
    remote_entry_free(&entry);

    /* Another key, another encoder version, a smaller cap: refused. */
    assert_false(remote_entry_decode(bytes.data, bytes.size, "ffffffffffffffffffffffffffffffff", 9,
                                     1 << 20, &entry, reason, sizeof reason));
    assert_non_null(strstr(reason, "another key"));
    assert_false(remote_entry_decode(bytes.data, bytes.size, key, 10, 1 << 20, &entry, reason,
                                     sizeof reason));
    assert_false(
        remote_entry_decode(bytes.data, bytes.size, key, 9, 10, &entry, reason, sizeof reason));
    assert_non_null(strstr(reason, "size cap"));
    /* Every flipped byte and every truncation: refused, never a crash. */
    /* Every flipped byte and every truncation: refused, never a crash; or,
     * where Zstd does not read the byte (its frame has such bits), the very
     * same payload, which the checksum proves. */
    remote_entry good;
    assert_true(
        remote_entry_decode(bytes.data, bytes.size, key, 9, 1 << 20, &good, reason, sizeof reason));
    for (size_t at = 0; at < bytes.size; at++) {
        bytes.data[at] ^= 0x5a;
        if (remote_entry_decode(bytes.data, bytes.size, key, 9, 1 << 20, &entry, reason,
                                sizeof reason)) {
            assert_true(at >= 64);
            assert_int_equal(entry.payload_size, good.payload_size);
            assert_memory_equal(entry.payload, good.payload, good.payload_size);
            remote_entry_free(&entry);
        }
        bytes.data[at] ^= 0x5a;
    }
    remote_entry_free(&good);
    for (size_t cut = 0; cut < bytes.size; cut++)
        assert_false(
            remote_entry_decode(bytes.data, cut, key, 9, 1 << 20, &entry, reason, sizeof reason));
    /* Over the upload cap: not encoded, and the reason says so. */
    bytebuf small = {0};
    assert_false(remote_entry_encode(key, &record, 9, p.output, 64, &small, reason, sizeof reason));
    assert_non_null(strstr(reason, "cap"));
    bytebuf_free(&small);
    bytebuf_free(&bytes);
    cache_record_free(&record);
    free_project(&p);
}

/* ---------------------------------------------------------------------------
 * The layer over a folder
 * ------------------------------------------------------------------------- */

static void upload_then_fetch_writes_the_same_bytes(void **state) {
    (void)state;
    project p;
    make_project(&p, "remote_entry_layer");
    cache_record record;
    make_record(&p, &record, NULL);
    remote_cache *remote = open_store(p.url, REMOTE_MODE_UNSET);
    assert_non_null(remote);
    assert_true(remote_cache_writes(remote)); /* read-write by default */
    remote_asset asset = asset_of(&p, p.output);
    remote_cache_upload(remote, &asset, &record);
    remote_stats stats;
    remote_cache_stats(remote, &stats);
    assert_int_equal(stats.uploads, 1);
    assert_true(stats.bytes_up > 0);
    assert_string_equal(said, "");

    /* Another machine: an empty output folder. */
    char *other = test_path_join(p.root, "other");
    assert_int_equal(mkdir(other, 0755), 0);
    remote_asset there = asset_of(&p, other);
    cache_record fetched;
    assert_true(remote_cache_fetch(remote, &there, &fetched));
    char *a = test_path_join(p.output, "models/cube.kmesh"),
         *b = test_path_join(other, "models/cube.kmesh");
    assert_true(same_file(a, b));
    free(a);
    free(b);
    a = test_path_join(p.output, "models/cube.kmat");
    b = test_path_join(other, "models/cube.kmat");
    assert_true(same_file(a, b));
    free(a);
    free(b);
    assert_string_equal(fetched.source, "models/cube.obj");
    assert_int_equal(fetched.file_count, 2);
    assert_int_equal(fetched.files[1].hash, record.files[1].hash);
    assert_int_equal(fetched.manifest.count, 1);
    cache_record_free(&fetched);

    /* The texture the cook looked for appears: no entry fits. */
    write_under(p.input, "models/cube.png", "png");
    assert_false(remote_cache_fetch(remote, &there, &fetched));
    char *png = test_path_join(p.input, "models/cube.png");
    unlink(png);
    free(png);
    /* The dependency changes: a miss, and the upload of the new cook keeps
     * the old entry (both versions are served). */
    write_under(p.input, "models/cube.mtl", "newmtl blue\n");
    assert_false(remote_cache_fetch(remote, &there, &fetched));
    cache_record changed;
    make_record(&p, &changed, NULL);
    remote_cache_upload(remote, &asset, &changed);
    assert_true(remote_cache_fetch(remote, &there, &fetched));
    cache_record_free(&fetched);
    write_under(p.input, "models/cube.mtl", "newmtl red\n");
    assert_true(remote_cache_fetch(remote, &there, &fetched));
    cache_record_free(&fetched);
    /* Other settings: another key. */
    there.settings = 1;
    assert_false(remote_cache_fetch(remote, &there, &fetched));
    remote_cache_stats(remote, &stats);
    assert_int_equal(stats.hits, 3);
    assert_int_equal(stats.misses, 3);
    assert_int_equal(stats.errors, 0);
    assert_string_equal(said, "");
    remote_cache_close(remote);
    cache_record_free(&changed);
    cache_record_free(&record);
    free(other);
    free_project(&p);
}

/* Every file of the store (entries and indexes) corrupted in turn: a miss
 * with a warning naming the asset, nothing written to the output folder. */
static void damaged_entries_are_misses(void **state) {
    (void)state;
    project p;
    make_project(&p, "remote_entry_damage");
    cache_record record;
    make_record(&p, &record, NULL);
    remote_cache *remote = open_store(p.url, REMOTE_MODE_READ_WRITE);
    remote_asset asset = asset_of(&p, p.output);
    remote_cache_upload(remote, &asset, &record);
    remote_cache_close(remote);

    char command[1200];
    snprintf(command, sizeof command, "cd '%s' && find . -type f | sort", p.store);
    FILE *list = popen(command, "r");
    char line[512];
    size_t files = 0;
    char *other = test_path_join(p.root, "other");
    while (fgets(line, sizeof line, list) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *path = test_path_join(p.store, line + 2);
        size_t size;
        uint8_t *original = test_read_file(path, &size);
        for (int damage = 0; damage < 2; damage++) {
            if (damage == 0) { /* a flipped byte in the middle */
                original[size / 2] ^= 1;
                test_write_file(path, original, size);
                original[size / 2] ^= 1;
            } else { /* cut short */
                test_write_file(path, original, size / 2);
            }
            snprintf(command, sizeof command, "rm -rf '%s' && mkdir '%s'", other, other);
            assert_int_equal(system(command), 0);
            remote = open_store(p.url, REMOTE_MODE_READ_ONLY);
            remote_asset there = asset_of(&p, other);
            cache_record fetched;
            assert_false(remote_cache_fetch(remote, &there, &fetched));
            assert_non_null(strstr(said, "models/cube.obj"));
            assert_non_null(strstr(said, "cannot be used"));
            remote_cache_close(remote);
            char *written = test_path_join(other, "models");
            struct stat info;
            assert_int_not_equal(stat(written, &info), 0); /* nothing written */
            free(written);
        }
        test_write_file(path, original, size);
        free(original);
        free(path);
        files++;
    }
    pclose(list);
    assert_int_equal(files, 2); /* one index, one entry */
    free(other);
    cache_record_free(&record);
    free_project(&p);
}

static void read_only_never_writes(void **state) {
    (void)state;
    project p;
    make_project(&p, "remote_entry_read_only");
    cache_record record;
    make_record(&p, &record, NULL);
    remote_cache *remote = open_store(p.url, REMOTE_MODE_READ_ONLY);
    assert_false(remote_cache_writes(remote));
    remote_asset asset = asset_of(&p, p.output);
    remote_cache_upload(remote, &asset, &record);
    remote_stats stats;
    remote_cache_stats(remote, &stats);
    assert_int_equal(stats.uploads, 0);
    remote_cache_close(remote);
    char command[1200];
    snprintf(command, sizeof command, "test -z \"$(ls -A '%s')\"", p.store);
    assert_int_equal(system(command), 0);
    cache_record_free(&record);
    free_project(&p);
}

static void unusable_urls_are_warned_about(void **state) {
    (void)state;
    remote_cache *remote = open_store("ftp://cache.example/x, file:///no/such/folder", 0);
    assert_null(remote); /* no server left */
    assert_non_null(strstr(said, "ftp://cache.example/x: not an http"));
    assert_non_null(strstr(said, "file:///no/such/folder: no folder there"));
    remote_request off = {.urls = "file:///tmp", .off = true};
    assert_null(remote_cache_open(&off, collect, NULL));
    uint64_t size;
    assert_true(build_parse_size("64M", &size));
    assert_int_equal(size, 64u << 20);
    assert_true(build_parse_size("2GiB", &size));
    assert_int_equal(size, 2ull << 30);
    assert_true(build_parse_size("1000", &size));
    assert_int_equal(size, 1000);
    assert_false(build_parse_size("0", &size));
    assert_false(build_parse_size("12X", &size));
    assert_false(build_parse_size("-5", &size));
    assert_int_equal(remote_mode_parse("read-only"), REMOTE_MODE_READ_ONLY);
    assert_int_equal(remote_mode_parse("read-write"), REMOTE_MODE_READ_WRITE);
    assert_int_equal(remote_mode_parse("rw"), REMOTE_MODE_UNSET);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_change_with_every_part),
        cmocka_unit_test(index_round_trips_and_refuses_damage),
        cmocka_unit_test(entry_round_trips_and_refuses_damage),
        cmocka_unit_test(upload_then_fetch_writes_the_same_bytes),
        cmocka_unit_test(damaged_entries_are_misses),
        cmocka_unit_test(read_only_never_writes),
        cmocka_unit_test(unusable_urls_are_warned_about),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
