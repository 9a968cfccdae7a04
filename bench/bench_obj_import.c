/*
 * bench_obj_import.c — kiln's OBJ importer against assimp's, on the same files.
 *
 *   bench_obj_import FILE.obj [FILE.obj ...]
 *
 * Both sides do the same work: read the file, parse it, triangulate polygons
 * and merge identical v/vt/vn corners into an indexed mesh, then free it.
 *
 *   kiln    cook_read_file + import_obj + ir_asset_free (as the model driver runs it)
 *   assimp  aiImportFile(Triangulate | JoinIdenticalVertices) + aiReleaseImport
 *
 * Throughput is reported in MB/s of OBJ text (1 MB = 10^6 bytes) and millions
 * of output triangles per second, from the median run.
 */
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "cook/drivers/drivers.h"
#include "kiln/kiln.h"

#define MAX_REPS 20u
#define BUDGET_SECONDS 8.0 /* per importer per file: bounds the 1M-triangle runs */

#define ASSIMP_FLAGS (aiProcess_Triangulate | aiProcess_JoinIdenticalVertices)

/* One importer on one file. The op fills in what it produced so the report can
 * show both importers made the same mesh (a fast importer that drops half the
 * faces would be no win). */
typedef struct import_case {
    const char *path;
    uint64_t vertices;
    uint64_t triangles;
} import_case;

/* ---------------------------------------------------------------------------
 * kiln
 * ------------------------------------------------------------------------- */

static void count_ir(const ir_asset *asset, import_case *c) {
    c->vertices = 0;
    c->triangles = 0;
    for (uint32_t m = 0; m < asset->mesh_count; m++) {
        c->vertices += asset->meshes[m].vertex_count;
        c->triangles += asset->meshes[m].index_count / 3;
    }
}

static void op_kiln(void *arg) {
    import_case *c = arg;
    char input_root[4096];
    const char *source_path = bench_split_path(c->path, input_root, sizeof input_root);
    char ref[1024];
    if (kiln_ref_canonicalize(source_path, ref, sizeof ref) != KILN_OK)
        bench_die("cannot form a ref from '%s'", source_path);

    /* The read is part of the measurement: assimp's aiImportFile reads too. */
    uint8_t *source = NULL;
    size_t source_size = 0;
    char reason[512];
    if (!cook_read_file(c->path, BENCH_SOURCE_MAX_BYTES, &source, &source_size, reason,
                        sizeof reason))
        bench_die("%s: %s", c->path, reason);

    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {
        .input_root = input_root,
        .source_path = source_path,
        .ref = ref,
        .source = source,
        .source_size = source_size,
        .settings = &settings,
        .diag = &diag,
    };
    ir_asset asset = {0};
    if (!import_obj(&ctx, &asset) || diag.errors > 0) {
        fwrite(diag.text.data, 1, diag.text.size, stderr);
        bench_die("kiln cannot import '%s'", c->path);
    }
    count_ir(&asset, c);

    ir_asset_free(&asset);
    strlist_free(&ctx.dependencies);
    diag_free(&diag);
    free(source);
}

/* ---------------------------------------------------------------------------
 * assimp
 * ------------------------------------------------------------------------- */

static void op_assimp(void *arg) {
    import_case *c = arg;
    const struct aiScene *scene = aiImportFile(c->path, ASSIMP_FLAGS);
    if (scene == NULL)
        bench_die("assimp cannot import '%s': %s", c->path, aiGetErrorString());
    c->vertices = 0;
    c->triangles = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        c->vertices += scene->mMeshes[m]->mNumVertices;
        c->triangles += scene->mMeshes[m]->mNumFaces; /* all triangles after Triangulate */
    }
    aiReleaseImport(scene);
}

/* ---------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------- */

#define ROW_FORMAT "  %-8s %5s %10s %10s %9s %8s %10s %10s\n"

static bench_stats run_importer(const char *name, bench_op op, import_case *c,
                                uint64_t file_bytes) {
    bench_stats stats = bench_measure(op, c, MAX_REPS, BUDGET_SECONDS);
    char reps[16], median[32], min[32], mbps[32], mtps[32], vertices[32], triangles[32];
    snprintf(reps, sizeof reps, "%u", stats.reps);
    bench_format_duration(stats.median, median, sizeof median);
    bench_format_duration(stats.min, min, sizeof min);
    snprintf(mbps, sizeof mbps, "%.1f", (double)file_bytes / 1e6 / stats.median);
    snprintf(mtps, sizeof mtps, "%.2f", (double)c->triangles / 1e6 / stats.median);
    snprintf(vertices, sizeof vertices, "%llu", (unsigned long long)c->vertices);
    snprintf(triangles, sizeof triangles, "%llu", (unsigned long long)c->triangles);
    printf(ROW_FORMAT, name, reps, median, min, mbps, mtps, vertices, triangles);
    fflush(stdout);
    return stats;
}

static void bench_file(const char *path) {
    uint64_t file_bytes = bench_file_size(path);
    char size[32];
    bench_format_bytes(file_bytes, size, sizeof size);
    printf("\n%s (%s)\n", path, size);
    printf(ROW_FORMAT, "importer", "reps", "median", "min", "MB/s", "Mtri/s", "vertices",
           "triangles");
    printf(ROW_FORMAT, "--------", "----", "------", "---", "----", "------", "--------",
           "---------");

    import_case kiln = {.path = path};
    import_case assimp = {.path = path};
    bench_stats kiln_stats = run_importer("kiln", op_kiln, &kiln, file_bytes);
    bench_stats assimp_stats = run_importer("assimp", op_assimp, &assimp, file_bytes);

    printf("  assimp / kiln (median time): %.2fx   (goal: > 1x, kiln faster)\n",
           assimp_stats.median / kiln_stats.median);
    if (kiln.triangles != assimp.triangles || kiln.vertices != assimp.vertices)
        printf("  note: the importers produced different meshes (see vertices/triangles)\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.obj [FILE.obj ...]\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        bench_file(argv[i]);
    return 0;
}
