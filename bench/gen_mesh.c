/*
 * gen_mesh.c — writes the benchmark's grid OBJ.
 *
 *   bench_gen_mesh OUT.obj QUADS_PER_SIDE
 *
 * 708 quads per side gives 1,002,528 triangles (the "1M triangle" mesh); 23
 * gives 1,058 (the "1k" one). The data is generated rather than committed: it
 * is ~90 MB and deterministic, so regenerating it is cheaper than storing it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s OUT.obj QUADS_PER_SIDE\n", argv[0]);
        return 2;
    }
    char *end = NULL;
    unsigned long quads = strtoul(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || quads == 0 || quads > 20000)
        bench_die("QUADS_PER_SIDE must be a number in 1..20000, not '%s'", argv[2]);

    char reason[512];
    double start = bench_now();
    if (!bench_write_grid_obj(argv[1], (uint32_t)quads, reason, sizeof reason))
        bench_die("%s", reason);
    char size[32];
    bench_format_bytes(bench_file_size(argv[1]), size, sizeof size);
    printf("generated %s: %lu x %lu quads, %lu triangles, %s in %.1f s\n", argv[1], quads, quads,
           2 * quads * quads, size, bench_now() - start);
    return 0;
}
