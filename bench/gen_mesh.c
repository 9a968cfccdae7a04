/*
 * gen_mesh.c — writes the benchmark's height-field grid as OBJ or GLB.
 *
 *   bench_gen_mesh OUT.obj|OUT.glb QUADS_PER_SIDE
 *
 * The format follows the file name's extension. QUADS_PER_SIDE n gives 2n²
 * triangles: 708 gives 1,002,528 (the "1M triangle" mesh), 1416 gives
 * 4,010,112 ("4M"), 224 gives 100,352 and 23 gives 1,058. The data is
 * generated rather than committed: it is hundreds of MB and deterministic, so
 * regenerating it is cheaper than storing it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

typedef bool (*grid_writer)(const char *path, uint32_t quads, char *reason, size_t reason_size);

/* The writer for `path`'s extension, or NULL. */
static grid_writer writer_for(const char *path) {
    const char *dot = strrchr(path, '.');
    if (dot != NULL && strcmp(dot, ".obj") == 0)
        return bench_write_grid_obj;
    if (dot != NULL && strcmp(dot, ".glb") == 0)
        return bench_write_grid_glb;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s OUT.obj|OUT.glb QUADS_PER_SIDE\n", argv[0]);
        return 2;
    }
    grid_writer writer = writer_for(argv[1]);
    if (writer == NULL)
        bench_die("'%s' should end in .obj or .glb", argv[1]);
    char *end = NULL;
    unsigned long quads = strtoul(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || quads == 0 || quads > 20000)
        bench_die("QUADS_PER_SIDE must be a number in 1..20000, not '%s'", argv[2]);

    char reason[512];
    double start = bench_now();
    if (!writer(argv[1], (uint32_t)quads, reason, sizeof reason))
        bench_die("%s", reason);
    char size[32];
    bench_format_bytes(bench_file_size(argv[1]), size, sizeof size);
    printf("generated %s: %lu x %lu quads, %lu triangles, %s in %.1f s\n", argv[1], quads, quads,
           2 * quads * quads, size, bench_now() - start);
    return 0;
}
