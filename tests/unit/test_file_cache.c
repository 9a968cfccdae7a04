/* How the asset manager reads a folder file into memory, and its file-memory
 * cache (src/runtime/manager_files.c), through the manager's internal calls:
 * the bytes read are the file's (compared with test_read_file's copy), 16-byte
 * aligned; with the default allocator a freed block is kept and the next file
 * of its size class is read into it; in-use plus kept bytes never exceed the
 * peak of in-use bytes (the oldest kept block goes first); with allocator
 * hooks nothing is kept and the hooks see every block, of the file's size;
 * kiln_manager_trim frees kept blocks oldest first and lowers the bound, and
 * kiln_manager_stats_get reports both.
 * The size classes are recomputed here from their definition: a size rounded
 * up to a quarter of its power of two, from 4 KiB. Blocks kept at destroy are
 * freed (AddressSanitizer's leak check would fail the test otherwise). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kiln/manager.h"
#include "runtime/manager_internal.h"
#include "runtime/manager_parts.h"
#include "test_support.h"

/* The class size of `size` per the definition above; 0 below 4 KiB. */
static size_t class_size(size_t size) {
    if (size < 4096)
        return 0;
    size_t power = 1;
    while (power * 2 <= size)
        power *= 2;
    size_t quarter = power / 4;
    return (size + quarter - 1) / quarter * quarter;
}

static char *dir;

static char *make_file(const char *name, size_t size, unsigned seed) {
    uint8_t *bytes = malloc(size);
    assert_non_null(bytes);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < size; i++) {
        x = x * 1664525u + 1013904223u;
        bytes[i] = (uint8_t)(x >> 24);
    }
    char *path = test_path_join(dir, name);
    test_write_file(path, bytes, size);
    free(bytes);
    return path;
}

/* Reads `path` with the manager and checks the bytes against the file's. */
static mgr_data read_checked(kiln_manager *m, const char *path) {
    mgr_data d;
    memset(&d, 0, sizeof d);
    size_t size = 0;
    bool mapped = true;
    mgr_file_id id;
    kiln_error err;
    void *data = NULL;
    assert_int_equal(mgr_read_file(m, "f", path, &data, &size, &mapped, &id, &err), KILN_OK);
    size_t expected_size;
    uint8_t *expected = test_read_file(path, &expected_size);
    assert_int_equal(size, expected_size);
    assert_false(mapped);
    assert_int_equal((uintptr_t)data % 16, 0);
    assert_memory_equal(data, expected, size);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(id.ino, (uint64_t)st.st_ino);
    assert_int_equal(id.size, (uint64_t)st.st_size);
    free(expected);
    d.file_memory = data;
    d.file_memory_size = size;
    return d;
}

static kiln_manager *make(const kiln_allocator *hooks) {
    kiln_manager_desc desc;
    memset(&desc, 0, sizeof desc);
    if (hooks != NULL)
        desc.allocator = *hooks;
    kiln_manager *m = NULL;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
    return m;
}

static void assert_bound(const kiln_manager *m) {
    assert_true(m->files.in_use + m->files.kept <= m->files.peak);
}

static void test_reuses_a_freed_block(void **state) {
    (void)state;
    kiln_manager *m = make(NULL);
    assert_true(m->files.enabled);
    char *a = make_file("a.bin", 5000, 1), *b = make_file("b.bin", 5100, 2);
    assert_int_equal(class_size(5000), class_size(5100)); /* 5120 both */
    mgr_data da = read_checked(m, a);
    void *first = da.file_memory;
    assert_int_equal(m->files.in_use, class_size(5000));
    mgr_file_memory_free(m, &da);
    assert_null(da.file_memory);
    assert_int_equal(m->files.in_use, 0);
    assert_int_equal(m->files.kept, class_size(5000));
    mgr_data db = read_checked(m, b); /* the same class: the kept block */
    assert_ptr_equal(db.file_memory, first);
    assert_int_equal(m->files.kept, 0);
    assert_int_equal(m->files.in_use, class_size(5100));
    assert_bound(m);
    mgr_file_memory_free(m, &db);
    kiln_manager_destroy(m); /* frees the kept block */
    free(a);
    free(b);
}

static void test_small_files_are_not_kept(void **state) {
    (void)state;
    kiln_manager *m = make(NULL);
    char *small = make_file("small.bin", 3000, 3);
    mgr_data d = read_checked(m, small);
    mgr_file_memory_free(m, &d);
    assert_int_equal(m->files.kept, 0);
    assert_int_equal(m->files.peak, 0);
    kiln_manager_destroy(m);
    free(small);
}

static void test_kept_bytes_stay_within_the_peak(void **state) {
    (void)state;
    kiln_manager *m = make(NULL);
    char *a = make_file("a.bin", 5000, 4), *b = make_file("b.bin", 9000, 5);
    char *c = make_file("c.bin", 4096, 6), *big = make_file("big.bin", 200000, 7);
    size_t ca = class_size(5000), cb = class_size(9000), cc = class_size(4096);
    assert_true(ca != cb && cb != cc && ca != cc);
    mgr_data da = read_checked(m, a), db = read_checked(m, b);
    void *b_block = db.file_memory;
    assert_int_equal(m->files.peak, ca + cb);
    mgr_file_memory_free(m, &da); /* kept: the oldest */
    mgr_file_memory_free(m, &db);
    assert_int_equal(m->files.kept, ca + cb);
    assert_bound(m);
    /* A fresh block of another class: the oldest kept (a's) goes, enough
     * to stay within the peak; b's stays. */
    mgr_data dc = read_checked(m, c);
    assert_int_equal(m->files.in_use, cc);
    assert_int_equal(m->files.kept, cb);
    assert_int_equal(m->files.peak, ca + cb);
    assert_bound(m);
    mgr_data db2 = read_checked(m, b);
    assert_ptr_equal(db2.file_memory, b_block);
    assert_int_equal(m->files.kept, 0);
    assert_bound(m);
    /* Beyond the peak: the peak grows, nothing is kept to evict. */
    mgr_data dbig = read_checked(m, big);
    assert_int_equal(m->files.peak, cc + cb + class_size(200000));
    assert_bound(m);
    mgr_file_memory_free(m, &dc);
    mgr_file_memory_free(m, &db2);
    mgr_file_memory_free(m, &dbig);
    assert_int_equal(m->files.in_use, 0);
    assert_int_equal(m->files.kept, m->files.peak);
    kiln_manager_destroy(m);
    free(a);
    free(b);
    free(c);
    free(big);
}

/* The cache's counts as kiln_manager_stats_get reports them. */
static void assert_stats(kiln_manager *m, uint64_t kept, uint64_t bound) {
    kiln_manager_stats stats;
    kiln_error err;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.file_cache_bytes, kept);
    assert_int_equal(stats.file_cache_bound, bound);
}

static void test_trim_frees_oldest_and_lowers_the_bound(void **state) {
    (void)state;
    kiln_manager *m = make(NULL);
    char *big = make_file("big.bin", 200000, 10), *a = make_file("a.bin", 5000, 11);
    char *c = make_file("c.bin", 4096, 12);
    size_t cbig = class_size(200000), ca = class_size(5000), cc = class_size(4096);
    mgr_data dbig = read_checked(m, big), da = read_checked(m, a);
    void *a_block = da.file_memory;
    mgr_file_memory_free(m, &dbig); /* the oldest kept */
    mgr_file_memory_free(m, &da);
    assert_stats(m, cbig + ca, cbig + ca);
    /* Keep a's class size: the big block, older, goes; a's stays. */
    kiln_error err;
    assert_int_equal(kiln_manager_trim(m, ca, &err), KILN_OK);
    assert_stats(m, ca, ca);
    mgr_data da2 = read_checked(m, a);
    assert_ptr_equal(da2.file_memory, a_block);
    mgr_file_memory_free(m, &da2);
    /* The lowered bound holds: a fresh block of another class evicts a's
     * rather than growing the cache back to the big load's peak. */
    mgr_data dc = read_checked(m, c);
    assert_int_equal(m->files.kept, 0);
    assert_int_equal(m->files.peak, ca); /* c's block is smaller: the bound stays */
    assert_bound(m);
    /* Trimming with memory in use: nothing kept to free, the bound is what
     * is in use; freeing it keeps it. */
    assert_int_equal(kiln_manager_trim(m, 0, &err), KILN_OK);
    assert_stats(m, 0, cc);
    mgr_file_memory_free(m, &dc);
    assert_stats(m, cc, cc);
    assert_int_equal(kiln_manager_trim(m, 0, &err), KILN_OK);
    assert_stats(m, 0, 0);
    kiln_manager_destroy(m);
    free(big);
    free(a);
    free(c);
}

static void test_trim_checks_its_arguments(void **state) {
    (void)state;
    kiln_error err;
    assert_int_equal(kiln_manager_trim(NULL, 0, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "kiln_manager_trim"));
}

typedef struct counting {
    int allocs, frees;
    size_t live;
    size_t last_size;
} counting;

static void *count_alloc(void *user, size_t size, size_t alignment) {
    counting *c = user;
    c->allocs++;
    c->live += size;
    c->last_size = size;
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    return aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

static void count_free(void *user, void *memory, size_t size) {
    counting *c = user;
    c->frees++;
    c->live -= size;
    free(memory);
}

static void test_hooks_get_every_block(void **state) {
    (void)state;
    counting counts = {0};
    kiln_allocator hooks = {count_alloc, count_free, &counts};
    kiln_manager *m = make(&hooks);
    assert_false(m->files.enabled);
    size_t base = counts.live;
    char *a = make_file("a.bin", 5000, 8), *b = make_file("b.bin", 5100, 9);
    int allocs = counts.allocs, frees = counts.frees;
    mgr_data da = read_checked(m, a);
    assert_int_equal(counts.allocs, allocs + 1);
    assert_int_equal(counts.last_size, 5000); /* the file's size, not its class's */
    mgr_file_memory_free(m, &da);
    assert_int_equal(counts.frees, frees + 1);
    assert_int_equal(counts.live, base);
    mgr_data db = read_checked(m, b);
    assert_int_equal(counts.allocs, allocs + 2);
    mgr_file_memory_free(m, &db);
    assert_int_equal(counts.frees, frees + 2);
    assert_int_equal(m->files.kept, 0);
    kiln_error err; /* nothing kept, nothing to trim */
    assert_int_equal(kiln_manager_trim(m, 0, &err), KILN_OK);
    assert_int_equal(counts.frees, frees + 2);
    kiln_manager_destroy(m);
    assert_int_equal(counts.live, 0);
    assert_int_equal(counts.allocs, counts.frees);
    free(a);
    free(b);
}

static void test_missing_file_names_it(void **state) {
    (void)state;
    kiln_manager *m = make(NULL);
    char *missing = test_path_join(dir, "missing.bin");
    void *data = NULL;
    size_t size = 0;
    bool mapped = false;
    kiln_error err;
    assert_int_equal(mgr_read_file(m, "missing.bin", missing, &data, &size, &mapped, NULL, &err),
                     KILN_ERR_IO);
    assert_non_null(strstr(err.message, "missing.bin"));
    assert_non_null(strstr(err.message, "cannot open"));
    assert_int_equal(m->files.in_use, 0);
    kiln_manager_destroy(m);
    free(missing);
}

int main(void) {
    dir = test_make_temp_dir("file_cache");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuses_a_freed_block),
        cmocka_unit_test(test_small_files_are_not_kept),
        cmocka_unit_test(test_kept_bytes_stay_within_the_peak),
        cmocka_unit_test(test_trim_frees_oldest_and_lowers_the_bound),
        cmocka_unit_test(test_trim_checks_its_arguments),
        cmocka_unit_test(test_hooks_get_every_block),
        cmocka_unit_test(test_missing_file_names_it),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(dir);
    return failed;
}
