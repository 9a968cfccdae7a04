/*
 * gen_assets.c — a folder of many small source assets, for the build-system
 * benchmarks (no-op builds, one change among many, -j scaling).
 *
 *   bench_gen_assets DIR COUNT
 *
 * Writes COUNT assets into DIR/dNN/ folders of 100: three in four are OBJ
 * quads (each with its own coordinates, so no two cook alike), the rest 8x8
 * uncompressed 32-bit TGA images (standalone textures). Deterministic: the
 * same COUNT gives the same bytes. Exits 1 on a write error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PER_FOLDER 100
#define TGA_SIDE 8

static int make_folder(const char *path) {
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "bench_gen_assets: cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

static void write_obj(FILE *f, unsigned index) {
    double s = 1.0 + (double)(index % 97) / 97.0;
    fprintf(f, "# generated asset %u\n", index);
    fprintf(f, "v 0 0 0\nv %.4f 0 0\nv %.4f %.4f 0\nv 0 %.4f %.4f\n", s, s, s, s,
            (double)(index % 13) / 13.0);
    fprintf(f, "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n");
    fprintf(f, "f 1/1/1 2/2/1 3/3/1 4/4/1\n");
}

/* TGA type 2 (uncompressed true colour), 32 bits, origin top-left. */
static void write_tga(FILE *f, unsigned index) {
    uint8_t header[18] = {0};
    header[2] = 2;
    header[12] = TGA_SIDE;
    header[14] = TGA_SIDE;
    header[16] = 32;
    header[17] = 0x28; /* 8 alpha bits, top-left origin */
    fwrite(header, 1, sizeof header, f);
    for (unsigned y = 0; y < TGA_SIDE; y++) {
        for (unsigned x = 0; x < TGA_SIDE; x++) {
            uint8_t bgra[4] = {(uint8_t)(index * 7 + x * 16), (uint8_t)(index * 3 + y * 16),
                               (uint8_t)(index >> 4), 255};
            fwrite(bgra, 1, sizeof bgra, f);
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench_gen_assets DIR COUNT\n");
        return 2;
    }
    const char *root = argv[1];
    unsigned count = (unsigned)strtoul(argv[2], NULL, 10);
    if (make_folder(root) != 0)
        return 1;
    char path[4096];
    for (unsigned i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/d%03u", root, i / PER_FOLDER);
        if (i % PER_FOLDER == 0 && make_folder(path) != 0)
            return 1;
        bool texture = i % 4 == 3;
        snprintf(path, sizeof path, "%s/d%03u/a%05u.%s", root, i / PER_FOLDER, i,
                 texture ? "tga" : "obj");
        FILE *f = fopen(path, "wb");
        if (f == NULL) {
            fprintf(stderr, "bench_gen_assets: cannot write %s: %s\n", path, strerror(errno));
            return 1;
        }
        if (texture)
            write_tga(f, i);
        else
            write_obj(f, i);
        if (fclose(f) != 0) {
            fprintf(stderr, "bench_gen_assets: cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}
