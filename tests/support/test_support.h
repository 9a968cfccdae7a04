/* test_support.h — shared helpers for kiln's cmocka tests. */
#ifndef KILN_TEST_SUPPORT_H
#define KILN_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the includes above first. */
#include <cmocka.h>

/* Folder of the shared corpus, or NULL when it is not there (a user's clone).
 * Tests that need it call skip() after saying so with test_skip_without_corpus. */
const char *test_corpus_dir(void);
/* Prints "<test>: skipped: shared corpus not found at <dir>" and returns 1 when
 * the corpus is absent; 0 when it is present. */
int test_skip_without_corpus(const char *test_name);

/* A fresh empty folder under the build tree for this test; caller frees. */
char *test_make_temp_dir(const char *name);

/* Reads a whole file (NUL-terminated copy); aborts the test on failure. */
uint8_t *test_read_file(const char *path, size_t *size);
/* Writes a whole file; aborts the test on failure. */
void test_write_file(const char *path, const void *data, size_t size);
/* Writes dir/relative, creating the folders on the way. */
void test_write_in(const char *dir, const char *relative, const void *data, size_t size);
/* A zeroed bottom-up BMP (BI_RGB, 24 or 32 bits) of w x h with its 54-byte
 * header filled in; pixel row y from the bottom starts at 54 + y * *row_bytes
 * (rows padded to 4 bytes). Aborts the test when out of memory. */
uint8_t *test_bmp_alloc(uint32_t w, uint32_t h, unsigned bits, size_t *size, size_t *row_bytes);

/* An LSB-first bit writer over one 128-bit block (BC7, UASTC), independent of
 * the encoders' own: tests build blocks field by field with it. */
typedef struct test_bits {
    uint8_t bytes[16];
    unsigned pos;
} test_bits;
/* Appends the `count` low bits of `value`; fails the test past bit 128. */
void tput(test_bits *b, unsigned value, unsigned count);

/* Milliseconds on the monotonic clock (arbitrary origin). */
long long test_now_ms(void);
/* `size` pseudo-random bytes (xorshift) from `seed`, any seed; the caller frees. */
uint8_t *test_random_bytes(size_t size, uint64_t seed);

/* Runs `call` in bash with the shell script `script` (one of tests/support)
 * sourced; its exit status, -1 when it did not exit. */
int test_run_sourced(const char *script, const char *call);
/* test_run_sourced of a server's start function that writes the port it
 * listens on to DIR/port (as nginx_dav.sh and redis_server.sh do, called to
 * do so): that port, or 0 when the start failed. */
int test_start_server(const char *script, const char *call, const char *dir);

/* "<dir>/<name>" in a static buffer per call site is error-prone: returns a heap copy. */
char *test_path_join(const char *dir, const char *name);

#endif
