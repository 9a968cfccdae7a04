/*
 * bench_load_gltf.c — loading a cooked .kmesh against loading the .glb it
 * was cooked from, with the loaders a game would otherwise use at run time.
 *
 *   bench_load_gltf MESH.kmesh SOURCE.glb
 *
 * MESH.kmesh is SOURCE.glb cooked by `kiln build` (bench/run.sh does that).
 * Timed, each with a discarded warm-up run (method in bench_util.h):
 *
 *   zero-copy  kiln_file_map + kiln_mesh_view_get + kiln_file_close
 *   copying    kiln_file_load + kiln_mesh_view_get + kiln_file_close: the
 *              fair match for loaders that copy the data into their own memory
 *   tinygltf   TinyGLTF::LoadBinaryFromFile + destroying the model
 *   assimp     aiImportFile(glb, 0) + aiReleaseImport: no post-processing
 *              flags, so assimp only parses and converts to its scene
 *
 * Both source loaders hand back data that still needs work before a draw (a
 * game would at least interleave the attributes into one vertex buffer), so
 * the ratios below flatter them if anything.
 */
#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_tinygltf.h"
#include "bench_util.h"
#include "kiln/kiln.h"

/* Repetition caps and time budgets, as in bench_load.c. */
#define FAST_REPS 20000u /* microsecond operations */
#define FAST_BUDGET 1.0
#define COPY_REPS 200u /* millisecond operations */
#define COPY_BUDGET 3.0
#define SOURCE_REPS 20u /* tens to hundreds of milliseconds */
#define SOURCE_BUDGET 5.0
#define ASSIMP_REPS 5u /* second-long operations: the cap decides */
#define ASSIMP_BUDGET 60.0

/* Results flow into this so no call can be treated as dead code. */
static volatile uint64_t sink;

typedef struct load_case {
    const char *path;
    uint64_t triangles; /* filled by the operation: what it loaded */
} load_case;

/* ---------------------------------------------------------------------------
 * The timed operations
 * ------------------------------------------------------------------------- */

typedef kiln_result (*kiln_opener)(kiln_file *, const char *, uint32_t, kiln_error *);

/* Open, take the mesh view, close: what a game does before handing the
 * buffers to the GPU. Triangles are level 0 of every submesh. */
static void kiln_open_view_close(load_case *c, kiln_opener opener) {
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
    kiln_result result = opener(&file, c->path, 0, &err);
    if (result == KILN_OK) {
        result = kiln_mesh_view_get(&file, 0, &view, &err);
        if (result == KILN_OK) {
            c->triangles = 0;
            for (uint32_t s = 0; s < view.desc->submesh_count; s++)
                if (view.submeshes[s].topology == KILN_TOPOLOGY_TRIANGLES)
                    c->triangles += view.submeshes[s].index_count / 3;
            sink += (uintptr_t)view.indices;
        }
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        bench_die("%s: %s", c->path, err.message);
}

static void op_kiln_map(void *arg) {
    kiln_open_view_close(arg, kiln_file_map);
}

static void op_kiln_load(void *arg) {
    kiln_open_view_close(arg, kiln_file_load);
}

static void op_tinygltf(void *arg) {
    load_case *c = arg;
    char error[512];
    if (!bench_tinygltf_load_glb(c->path, &c->triangles, error, sizeof error))
        bench_die("tinygltf cannot load '%s': %s", c->path, error);
    sink += c->triangles;
}

static void op_assimp(void *arg) {
    load_case *c = arg;
    const struct aiScene *scene = aiImportFile(c->path, 0);
    if (scene == NULL)
        bench_die("assimp cannot import '%s': %s", c->path, aiGetErrorString());
    c->triangles = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++)
        c->triangles += scene->mMeshes[m]->mNumFaces; /* the GLB holds only triangles */
    sink += c->triangles;
    aiReleaseImport(scene);
}

/* ---------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------- */

#define ROW_FORMAT "%-30s %10s %9s %6s %10s %10s %8s\n"

static bench_stats run_case(const char *label, bench_op op, load_case *c, uint32_t max_reps,
                            double budget) {
    bench_stats stats = bench_measure(op, c, max_reps, budget);
    char triangles[32], size[32], reps[32], median[32], min[32], faults[32];
    snprintf(triangles, sizeof triangles, "%llu", (unsigned long long)c->triangles);
    bench_format_bytes(bench_file_size(c->path), size, sizeof size);
    snprintf(reps, sizeof reps, "%u", stats.reps);
    bench_format_duration(stats.median, median, sizeof median);
    bench_format_duration(stats.min, min, sizeof min);
    snprintf(faults, sizeof faults, "%.0f", stats.minor_faults);
    printf(ROW_FORMAT, label, triangles, size, reps, median, min, faults);
    fflush(stdout); /* rows appear as they finish: the assimp row takes a while */
    return stats;
}

static void print_ratio(const char *label, double slow, double fast) {
    printf("  %-34s %12.1fx\n", label, slow / fast);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s MESH.kmesh SOURCE.glb\n", argv[0]);
        return 2;
    }
    load_case cooked = {.path = argv[1]};
    load_case source = {.path = argv[2]};

    printf(ROW_FORMAT, "operation", "triangles", "file", "reps", "median", "min", "faults");
    printf(ROW_FORMAT, "---------", "---------", "----", "----", "------", "---", "------");
    bench_stats map =
        run_case("kiln zero-copy map+view+close", op_kiln_map, &cooked, FAST_REPS, FAST_BUDGET);
    bench_stats load =
        run_case("kiln copying load+view+close", op_kiln_load, &cooked, COPY_REPS, COPY_BUDGET);
    bench_stats tiny =
        run_case("tinygltf LoadBinaryFromFile", op_tinygltf, &source, SOURCE_REPS, SOURCE_BUDGET);
    uint64_t tiny_triangles = source.triangles;
    bench_stats assimp =
        run_case("assimp aiImportFile(glb, 0)", op_assimp, &source, ASSIMP_REPS, ASSIMP_BUDGET);

    printf("\nratios of medians:\n");
    print_ratio("tinygltf / kiln zero-copy", tiny.median, map.median);
    print_ratio("assimp / kiln zero-copy", assimp.median, map.median);
    print_ratio("tinygltf / kiln copying load", tiny.median, load.median);
    print_ratio("assimp / kiln copying load", assimp.median, load.median);
    if (tiny_triangles != cooked.triangles || source.triangles != cooked.triangles)
        printf("note: the loaders saw different triangle counts (see the table)\n");
    return 0;
}
