/*
 * bench_lod.c — what the LOD benchmarks (bench_lod_chunks, bench_simplify)
 * share: a source imported and processed up to its LODs. (How far apart two
 * triangle surfaces are, sampled, is the cooker's: surface_distance.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_lod.h"
#include "bench_util.h"
#include "cook/drivers/drivers.h"
#include "kiln/kiln.h"

/* ---------------------------------------------------------------------------
 * Sources processed up to their LODs
 * ------------------------------------------------------------------------- */

double bench_cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

bool bench_lod_weld(ir_mesh *mesh) {
    uint64_t degenerate = 0, repeated = 0;
    return process_weld(mesh) && process_drop_degenerate(mesh, &degenerate, &repeated);
}

void bench_lod_process(ir_mesh *mesh, const cook_settings *settings, double *cpu) {
    double start = bench_cpu_seconds();
    if (!process_generate_normals(mesh) || !bench_lod_weld(mesh) ||
        !process_optimize_order(mesh, settings) || !process_build_lods(mesh, settings))
        bench_die("processing failed");
    *cpu = bench_cpu_seconds() - start;
}

ir_asset bench_lod_import(const char *path, cook_settings *settings) {
    char input_root[4096], reason[512];
    const char *source_path = bench_split_path(path, input_root, sizeof input_root);
    const cook_importer *importer = cook_registry_match(source_path);
    if (importer == NULL)
        bench_die("no importer claims '%s'", path);
    uint8_t *source = NULL;
    size_t size = 0;
    if (!cook_read_file(path, BENCH_SOURCE_MAX_BYTES, &source, &size, reason, sizeof reason))
        bench_die("%s: %s", path, reason);
    cook_diag diag = {0};
    char ref[1024];
    if (kiln_ref_canonicalize(source_path, ref, sizeof ref) != KILN_OK)
        bench_die("cannot form a ref from '%s'", source_path);
    cook_context ctx = {.input_root = input_root,
                        .source_path = source_path,
                        .ref = ref,
                        .settings = settings,
                        .diag = &diag,
                        .source = source,
                        .source_size = size};
    ir_asset asset;
    memset(&asset, 0, sizeof asset);
    if (!importer->import(&ctx, &asset) || diag.errors) {
        fwrite(diag.text.data, 1, diag.text.size, stderr);
        bench_die("importing '%s' failed", path);
    }
    strlist_free(&ctx.dependencies);
    diag_free(&diag);
    free(source);
    return asset;
}
