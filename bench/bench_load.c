/*
 * bench_load.c — how long it takes a game to get a mesh it can draw.
 *
 *   bench_load OUT_DIR MESH.obj [MESH.obj ...]     (smallest first)
 *
 * Every OBJ file is cooked once, in process, into OUT_DIR/<name>.kmesh. Then
 * each way of loading is timed (see bench_util.h for the method); the
 * zero-copy load on every mesh, everything else on the last, largest one:
 *
 *   zero-copy     kiln_file_map + kiln_mesh_view_get + kiln_file_close
 *   deep+checksum the same with KILN_OPEN_DEEP | KILN_OPEN_VERIFY_CHECKSUM
 *   copying       kiln_file_load + kiln_mesh_view_get + kiln_file_close
 *   read()        open + read() of the same bytes into malloc'd memory + free,
 *                 the floor any copying load has to pay
 *   assimp        aiImportFile(obj, Triangulate | JoinIdenticalVertices) +
 *                 aiReleaseImport: what a game without a cooker does at run time
 *
 * The files stay in the page cache throughout (each case has a discarded
 * warm-up run), so this measures the CPU cost of loading, not the disk.
 */
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "cook/drivers/drivers.h"
#include "kiln/kiln.h"

/* Repetition caps and time budgets per case: enough runs for a stable median
 * while keeping `make bench` to a few minutes on a small machine. */
#define FAST_REPS 20000u /* microsecond operations */
#define FAST_BUDGET 1.0
#define COPY_REPS 200u /* millisecond operations */
#define COPY_BUDGET 3.0
#define ASSIMP_REPS 5u /* second-long operations: the cap decides */
#define ASSIMP_BUDGET 60.0

#define ASSIMP_FLAGS (aiProcess_Triangulate | aiProcess_JoinIdenticalVertices)

/* Results flow into this so no call can be treated as dead code. */
static volatile uint64_t sink;

/* ---------------------------------------------------------------------------
 * Cooking the inputs
 * ------------------------------------------------------------------------- */

/* Cooks `obj_path` into OUT_DIR through the same entry point as `kiln build`,
 * writes the .kmesh path into `kmesh_path` and returns its triangle count. */
static uint32_t cook_obj(const char *obj_path, const char *out_dir, char *kmesh_path,
                         size_t kmesh_capacity) {
    cook_asset_result result;
    double start = bench_now();
    bench_cook(obj_path, out_dir, &result);
    double elapsed = bench_now() - start;
    /* The mesh is the one .kmesh among the outputs (a material file may
     * come with it). */
    const char *kmesh = NULL;
    size_t kmesh_count = 0;
    for (size_t i = 0; i < result.outputs.count; i++) {
        if (bench_has_suffix(result.outputs.items[i], ".kmesh")) {
            kmesh = result.outputs.items[i];
            kmesh_count++;
        }
    }
    if (kmesh_count != 1)
        bench_die("cooking '%s' wrote %zu .kmesh outputs, not one", obj_path, kmesh_count);
    snprintf(kmesh_path, kmesh_capacity, "%s/%s", out_dir, kmesh);
    printf("cooked %s -> %s: %u triangles, %llu bytes, %.2f s\n", obj_path, kmesh_path,
           result.triangles, (unsigned long long)result.bytes_written, elapsed);
    uint32_t triangles = result.triangles;
    cook_asset_result_free(&result);
    return triangles;
}

/* ---------------------------------------------------------------------------
 * The timed operations
 * ------------------------------------------------------------------------- */

typedef struct load_case {
    const char *path;
    uint32_t flags;     /* KILN_OPEN_* for the kiln cases */
    uint32_t triangles; /* for the report */
} load_case;

static void use_view(const kiln_mesh_view *view) {
    sink += view->desc->index_count + (uintptr_t)view->indices;
}

/* Opens with `opener`, takes a mesh view and closes: everything a game does
 * before handing the buffers to the GPU. */
typedef kiln_result (*kiln_opener)(kiln_file *, const char *, uint32_t, kiln_error *);

static void open_view_close(const load_case *c, kiln_opener opener) {
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
    kiln_result result = opener(&file, c->path, c->flags, &err);
    if (result == KILN_OK) {
        result = kiln_mesh_view_get(&file, c->flags, &view, &err);
        if (result == KILN_OK)
            use_view(&view); /* while the file is open: the view points into it */
        kiln_file_close(&file);
    }
    if (result != KILN_OK)
        bench_die("%s: %s", c->path, err.message);
}

static void op_map_view(void *arg) {
    open_view_close(arg, kiln_file_map);
}

static void op_load_view(void *arg) {
    open_view_close(arg, kiln_file_load);
}

/* The baseline for the copying load: the least work that puts a file's bytes
 * in memory the process owns. */
static void op_read_baseline(void *arg) {
    const load_case *c = arg;
    int fd = open(c->path, O_RDONLY);
    if (fd < 0)
        bench_die("cannot open '%s': %s", c->path, strerror(errno));
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0 || lseek(fd, 0, SEEK_SET) != 0)
        bench_die("cannot seek '%s': %s", c->path, strerror(errno));
    uint8_t *buffer = malloc((size_t)size);
    if (buffer == NULL)
        bench_die("out of memory");
    size_t done = 0;
    while (done < (size_t)size) {
        ssize_t got = read(fd, buffer + done, (size_t)size - done);
        if (got <= 0)
            bench_die("cannot read '%s': %s", c->path, got < 0 ? strerror(errno) : "short file");
        done += (size_t)got;
    }
    close(fd);
    sink += buffer[done / 2];
    free(buffer);
}

static void op_assimp(void *arg) {
    const load_case *c = arg;
    const struct aiScene *scene = aiImportFile(c->path, ASSIMP_FLAGS);
    if (scene == NULL)
        bench_die("assimp cannot import '%s': %s", c->path, aiGetErrorString());
    sink += scene->mNumMeshes ? scene->mMeshes[0]->mNumFaces : 0;
    aiReleaseImport(scene);
}

/* ---------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------- */

#define ROW_FORMAT "%-30s %10s %9s %6s %10s %10s %8s\n"

static void print_header(void) {
    printf("\n" ROW_FORMAT, "operation", "triangles", "file", "reps", "median", "min", "faults");
    printf(ROW_FORMAT, "---------", "---------", "----", "----", "------", "---", "------");
}

static bench_stats run_case(const char *label, bench_op op, const load_case *c, uint32_t max_reps,
                            double budget) {
    bench_stats stats = bench_measure(op, (void *)c, max_reps, budget);
    char triangles[32], size[32], reps[32], median[32], min[32], faults[32];
    snprintf(triangles, sizeof triangles, "%u", c->triangles);
    bench_format_bytes(bench_file_size(c->path), size, sizeof size);
    snprintf(reps, sizeof reps, "%u", stats.reps);
    bench_format_duration(stats.median, median, sizeof median);
    bench_format_duration(stats.min, min, sizeof min);
    snprintf(faults, sizeof faults, "%.0f", stats.minor_faults);
    printf(ROW_FORMAT, label, triangles, size, reps, median, min, faults);
    fflush(stdout); /* rows appear as they finish: the assimp row takes a while */
    return stats;
}

static void print_ratio(const char *label, double ratio, const char *goal) {
    printf("  %-36s %12.2fx   (goal: %s)\n", label, ratio, goal);
}

#define MAX_MESHES 8

int main(int argc, char **argv) {
    if (argc < 3 || argc - 2 > MAX_MESHES) {
        fprintf(stderr, "usage: %s OUT_DIR MESH.obj [MESH.obj ...] (at most %d, smallest first)\n",
                argv[0], MAX_MESHES);
        return 2;
    }
    const char *out_dir = argv[1];
    int mesh_count = argc - 2;
    static char kmesh_paths[MAX_MESHES][4096];
    load_case meshes[MAX_MESHES];
    for (int i = 0; i < mesh_count; i++) {
        uint32_t triangles = cook_obj(argv[2 + i], out_dir, kmesh_paths[i], sizeof kmesh_paths[i]);
        meshes[i] = (load_case){kmesh_paths[i], 0, triangles};
    }
    /* Every case but the zero-copy one runs on the last (largest) mesh only:
     * the zero-copy rows are there to show the cost does not grow with size. */
    const load_case *large = &meshes[mesh_count - 1];
    load_case large_checked = *large;
    large_checked.flags = KILN_OPEN_DEEP | KILN_OPEN_VERIFY_CHECKSUM;
    load_case large_source = {argv[argc - 1], 0, large->triangles};

    print_header();
    bench_stats map_smallest = {0}, map_large = {0};
    for (int i = 0; i < mesh_count; i++) {
        bench_stats stats =
            run_case("zero-copy map+view+close", op_map_view, &meshes[i], FAST_REPS, FAST_BUDGET);
        if (i == 0)
            map_smallest = stats;
        map_large = stats;
    }
    run_case("map+view+close deep+checksum", op_map_view, &large_checked, COPY_REPS, COPY_BUDGET);
    bench_stats load_large =
        run_case("copying load+view+close", op_load_view, large, COPY_REPS, COPY_BUDGET);
    bench_stats read_large =
        run_case("open+read()+free (baseline)", op_read_baseline, large, COPY_REPS, COPY_BUDGET);
    bench_stats assimp_large = run_case("assimp aiImportFile (.obj)", op_assimp, &large_source,
                                        ASSIMP_REPS, ASSIMP_BUDGET);

    printf("\nratios of medians (largest mesh unless noted):\n");
    print_ratio("zero-copy largest / smallest mesh", map_large.median / map_smallest.median,
                "~1, independent of size");
    print_ratio("assimp / zero-copy", assimp_large.median / map_large.median, ">= 1000x");
    print_ratio("copying load / read()", load_large.median / read_large.median, "<= 1.5x");
    return 0;
}
