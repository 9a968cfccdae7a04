#include "test_support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *test_corpus_dir(void) {
    static const char *dir = KILN_TEST_CORPUS_DIR;
    const char *env = getenv("KILN_CORPUS");
    if (env != NULL && env[0] != '\0')
        dir = env;
    struct stat st;
    char index[4096];
    snprintf(index, sizeof index, "%s/index.tsv", dir);
    if (stat(index, &st) != 0)
        return NULL;
    return dir;
}

int test_skip_without_corpus(const char *test_name) {
    if (test_corpus_dir() != NULL)
        return 0;
    printf("%s: skipped: shared corpus not found at %s (set KILN_CORPUS)\n", test_name,
           KILN_TEST_CORPUS_DIR);
    return 1;
}

char *test_path_join(const char *dir, const char *name) {
    size_t size = strlen(dir) + strlen(name) + 2;
    char *path = malloc(size);
    assert_non_null(path);
    snprintf(path, size, "%s/%s", dir, name);
    return path;
}

static void remove_tree(const char *path) {
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", path);
    if (system(command) != 0)
        fail_msg("could not remove %s", path);
}

char *test_make_temp_dir(const char *name) {
    char *path = test_path_join(KILN_TEST_BINARY_DIR "/tmp", name);
    mkdir(KILN_TEST_BINARY_DIR "/tmp", 0755);
    remove_tree(path);
    if (mkdir(path, 0755) != 0)
        fail_msg("mkdir %s: %s", path, strerror(errno));
    return path;
}

uint8_t *test_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    assert_true(length >= 0);
    uint8_t *data = malloc((size_t)length + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)length, f), (size_t)length);
    data[length] = 0;
    fclose(f);
    *size = (size_t)length;
    return data;
}

uint8_t *test_bmp_alloc(uint32_t w, uint32_t h, unsigned bits, size_t *size, size_t *row_bytes) {
    *row_bytes = ((size_t)w * (bits / 8) + 3) & ~(size_t)3;
    *size = 54 + *row_bytes * h;
    uint8_t *b = calloc(1, *size);
    assert_non_null(b);
    b[0] = 'B';
    b[1] = 'M';
    uint32_t v = (uint32_t)*size;
    memcpy(b + 2, &v, 4);
    v = 54; /* pixel data offset */
    memcpy(b + 10, &v, 4);
    v = 40; /* BITMAPINFOHEADER */
    memcpy(b + 14, &v, 4);
    memcpy(b + 18, &w, 4);
    memcpy(b + 22, &h, 4);
    b[26] = 1; /* planes */
    b[28] = (uint8_t)bits;
    return b;
}

void test_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        fail_msg("open %s: %s", path, strerror(errno));
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

void test_write_in(const char *dir, const char *relative, const void *data, size_t size) {
    char *path = test_path_join(dir, relative);
    for (char *slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(path, 0755);
        *slash = '/';
    }
    test_write_file(path, data, size);
    free(path);
}

long long test_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

uint8_t *test_random_bytes(size_t size, uint64_t seed) {
    uint8_t *bytes = malloc(size > 0 ? size : 1);
    assert_non_null(bytes);
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1; /* never 0, where xorshift stays */
    for (size_t i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes[i] = (uint8_t)x;
    }
    return bytes;
}

int test_run_sourced(const char *script, const char *call) {
    char command[4096];
    snprintf(command, sizeof command, "bash -c '. \"%s\" && %s'", script, call);
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int test_start_server(const char *script, const char *call, const char *dir) {
    if (test_run_sourced(script, call) != 0)
        return 0;
    char *path = test_path_join(dir, "port");
    size_t size;
    uint8_t *text = test_read_file(path, &size);
    int port = atoi((const char *)text);
    free(text);
    free(path);
    return port;
}

void tput(test_bits *b, unsigned value, unsigned count) {
    for (unsigned i = 0; i < count; i++, b->pos++) {
        assert_true(b->pos < 128);
        if ((value >> i) & 1u)
            b->bytes[b->pos / 8] |= (uint8_t)(1u << (b->pos % 8));
    }
}
