/* bench_chunks.c — compressed chunks (container.compress) against the
 * uncompressed files they replace.
 *
 *   bench_chunks PLAIN_DIR COMPRESSED_DIR FILE...
 *
 * FILE names a cooked file relative to both folders (the same sources cooked
 * with container.compress none and small). For each it prints:
 *  - sizes: the uncompressed file, the compressed one, and the file with
 *    every chunk Zstd-compressed alone (level 19, the same as `small`, each
 *    chunk kept as it is unless smaller): what the meshopt filters add;
 *  - for the vertex and index chunks, each encoding on its own (Zstd, the
 *    meshopt filter, the filter under Zstd), to show what the cooker chose;
 *  - decode speed in MB/s of decoded bytes per thread, CPU time: expanding
 *    the compressed file in memory (kiln_file_expand), against read() of
 *    the uncompressed file into a buffer and mmap of it with every page
 *    touched once (the files are in the page cache: this is the CPU cost of
 *    each way, not the disk's).
 * Runs alternate between the three ways so a busy machine slows them alike. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "kiln/kiln.h"

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *detail) {
    fprintf(stderr, "bench_chunks: %s: %s\n", what, detail);
    exit(1);
}

static uint8_t *read_whole(const char *path, size_t *size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        die("cannot open", path);
    *size = (size_t)lseek(fd, 0, SEEK_END);
    uint8_t *data = aligned_alloc(16, (*size + 15) / 16 * 16);
    if (data == NULL || pread(fd, data, *size, 0) != (ssize_t)*size)
        die("cannot read", path);
    close(fd);
    return data;
}

static size_t zstd_size(const void *data, size_t size) {
    size_t bound = ZSTD_compressBound(size);
    void *out = malloc(bound);
    size_t n = ZSTD_compress(out, bound, data, size, 19);
    free(out);
    return ZSTD_isError(n) ? size : n + 4; /* + the checksum the cooker adds */
}

/* The file with every chunk but META Zstd-compressed alone, when smaller. */
static size_t zstd_only_file(const kiln_file *plain) {
    size_t total = 48 + 32 * (size_t)plain->chunk_count;
    for (uint32_t i = 0; i < plain->chunk_count; i++) {
        const kiln_chunk_entry *c = &plain->chunks[i];
        size_t size = (size_t)c->size;
        if (c->fourcc != KILN_CHUNK_META && size > 0) {
            size_t z = zstd_size(plain->data + c->offset, size);
            size = z < size ? z : size;
        }
        total = (total + 15) / 16 * 16 + size;
    }
    return (total + 15) / 16 * 16;
}

/* Sizes of each encoding of a vertex or index chunk. */
static void chunk_encodings(const kiln_file *plain, uint32_t fourcc, const char *label) {
    kiln_chunk chunk;
    kiln_mesh_view view;
    if (kiln_file_find_chunk(plain, fourcc, &chunk) != KILN_OK || chunk.size == 0 ||
        kiln_mesh_view_get(plain, 0, &view, NULL) != KILN_OK)
        return;
    size_t filtered = 0, filtered_zstd = 0, sequence = 0, sequence_zstd = 0;
    size_t element =
        fourcc == KILN_CHUNK_MESH_VERTICES ? view.desc->vertex_stride : view.desc->index_size;
    size_t count = chunk.size / element;
    if (fourcc == KILN_CHUNK_MESH_VERTICES) {
        size_t bound = meshopt_encodeVertexBufferBound(count, element);
        uint8_t *out = malloc(bound);
        filtered = meshopt_encodeVertexBuffer(out, bound, chunk.data, count, element);
        filtered_zstd = zstd_size(out, filtered);
        free(out);
    } else {
        uint32_t *wide = malloc(count * sizeof *wide);
        for (size_t i = 0; i < count; i++)
            wide[i] = element == 2 ? ((const uint16_t *)chunk.data)[i]
                                   : ((const uint32_t *)chunk.data)[i];
        size_t bound = meshopt_encodeIndexBufferBound(count, view.desc->vertex_count) +
                       meshopt_encodeIndexSequenceBound(count, view.desc->vertex_count);
        uint8_t *out = malloc(bound);
        if (count % 3 == 0) {
            filtered = meshopt_encodeIndexBuffer(out, bound, wide, count);
            filtered_zstd = zstd_size(out, filtered);
        }
        sequence = meshopt_encodeIndexSequence(out, bound, wide, count);
        sequence_zstd = zstd_size(out, sequence);
        free(out);
        free(wide);
    }
    printf("    %s %zu bytes: zstd %zu, meshopt %zu, meshopt+zstd %zu", label, chunk.size,
           zstd_size(chunk.data, chunk.size), filtered, filtered_zstd);
    if (sequence > 0)
        printf(", sequence %zu, sequence+zstd %zu", sequence, sequence_zstd);
    printf("\n");
}

typedef struct timing {
    double expand, read, map;
} timing;

static void time_once(const char *plain_path, const kiln_file *compressed, uint8_t *expanded,
                      size_t capacity, uint8_t *buffer, size_t plain_size, timing *t) {
    double start = cpu_now();
    kiln_error err;
    if (kiln_file_expand(compressed, expanded, capacity, &err) != KILN_OK)
        die("expand", err.message);
    t->expand += cpu_now() - start;

    start = cpu_now();
    int fd = open(plain_path, O_RDONLY);
    size_t done = 0;
    while (done < plain_size) {
        ssize_t n = read(fd, buffer + done, plain_size - done);
        if (n <= 0)
            die("read", plain_path);
        done += (size_t)n;
    }
    close(fd);
    t->read += cpu_now() - start;

    start = cpu_now();
    fd = open(plain_path, O_RDONLY);
    volatile const uint8_t *mapped = mmap(NULL, plain_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if ((const void *)mapped == MAP_FAILED)
        die("mmap", plain_path);
    uint8_t sink = 0;
    for (size_t i = 0; i < plain_size; i += 4096)
        sink ^= mapped[i];
    munmap((void *)mapped, plain_size);
    t->map += cpu_now() - start;
    (void)sink;
}

static void bench_file(const char *plain_dir, const char *compressed_dir, const char *name) {
    char plain_path[4096], compressed_path[4096];
    snprintf(plain_path, sizeof plain_path, "%s/%s", plain_dir, name);
    snprintf(compressed_path, sizeof compressed_path, "%s/%s", compressed_dir, name);
    size_t plain_size, compressed_size;
    uint8_t *plain_bytes = read_whole(plain_path, &plain_size);
    uint8_t *compressed_bytes = read_whole(compressed_path, &compressed_size);
    kiln_file plain, compressed;
    kiln_error err;
    if (kiln_file_from_memory(&plain, plain_bytes, plain_size, name, 0, &err) != KILN_OK ||
        kiln_file_from_memory(&compressed, compressed_bytes, compressed_size, name, 0, &err) !=
            KILN_OK)
        die(name, err.message);
    size_t expanded_size, capacity;
    if (kiln_file_expanded_size(&compressed, &expanded_size, &capacity, &err) != KILN_OK)
        die(name, err.message);
    size_t zstd_only = zstd_only_file(&plain);
    printf("%s: uncompressed %zu, compressed %zu (%.1f%%), zstd-only %zu (%.1f%%)\n", name,
           plain_size, compressed_size, 100.0 * (double)compressed_size / (double)plain_size,
           zstd_only, 100.0 * (double)zstd_only / (double)plain_size);
    if (plain.kind == KILN_KIND_MESH) {
        chunk_encodings(&plain, KILN_CHUNK_MESH_VERTICES, "VTX0");
        chunk_encodings(&plain, KILN_CHUNK_MESH_INDICES, "IDX ");
    }

    uint8_t *expanded = aligned_alloc(16, (capacity + 15) / 16 * 16);
    uint8_t *buffer = malloc(plain_size);
    timing t = {0};
    /* Enough runs for ~0.3 s of expanding, at least 5. */
    int runs = 5;
    double one = cpu_now();
    time_once(plain_path, &compressed, expanded, capacity, buffer, plain_size, &t);
    one = cpu_now() - one;
    if (one > 0 && 0.3 / one > runs)
        runs = (int)(0.3 / one);
    memset(&t, 0, sizeof t);
    for (int r = 0; r < runs; r++)
        time_once(plain_path, &compressed, expanded, capacity, buffer, plain_size, &t);
    double mb = (double)expanded_size * runs / 1e6;
    printf("    decode %.0f MB/s (kiln_file_expand), read() %.0f MB/s, mmap+touch %.0f MB/s "
           "(CPU time, %d runs)\n",
           mb / t.expand, (double)plain_size * runs / 1e6 / t.read,
           (double)plain_size * runs / 1e6 / t.map, runs);
    free(expanded);
    free(buffer);
    kiln_file_close(&plain);
    kiln_file_close(&compressed);
    free(plain_bytes);
    free(compressed_bytes);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_chunks PLAIN_DIR COMPRESSED_DIR FILE...\n");
        return 2;
    }
    for (int i = 3; i < argc; i++)
        bench_file(argv[1], argv[2], argv[i]);
    return 0;
}
