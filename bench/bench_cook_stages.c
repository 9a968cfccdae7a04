/*
 * bench_cook_stages.c — where the time of cooking one mesh goes.
 *
 *   bench_cook_stages [--split] [--same] OUT_DIR SOURCE [REPS [THREADS]]
 *
 * Cooks SOURCE (default 3 times, on THREADS threads, default 1: what
 * `kiln build -jTHREADS` gives one asset) calling the cooker's stages one by
 * one, in the order drivers/model.c and process/mesh.c run them with default
 * settings (--same: without LODs and meshlets, gltfpack's work), and times
 * each stage on its own:
 *
 *   read      cook_read_file_on of the source
 *   import    the importer cook_registry_match picks (OBJ or glTF)
 *   normals   process_generate_normals (a no-op when the source has normals)
 *   weld      process_weld_on: merge vertices identical in every stream
 *   o+l+m+f   process_order_lods_meshlets_fetch: order, LODs and meshlets in
 *             one parallel pass, the fetch remap within it, as the cooker
 *             runs them; with --split instead
 *             lods      process_build_lods: the reduced levels (simplifier)
 *             meshlets  process_build_meshlets: meshlets, bounds and cones
 *             order     process_optimize_order: vertex cache, then overdraw
 *             one after the other (the same output: each reads level 0 as
 *             welded), to see what each costs, and
 *             fetch     process_optimize_fetch_on: vertices renumbered in
 *                       first-use order
 *   encode    encode_mesh_vertices and write_kmesh_layout: the .kmesh laid
 *             out and checksummed, its payloads not copied (as the cooker)
 *   write     write_file_atomic_stream of that layout into OUT_DIR
 *   free      releasing the source, the IR and the image
 *
 * Not included, because they cost little or never run on these inputs:
 * drivers/model.c's IR invariant check (one pass over indices and positions), and
 * tangent generation, which runs only for meshes under a normal map. Use it on
 * sources without one (the generated grids have no materials at all), or the
 * breakdown misses a stage `kiln build` runs. The report gives each stage's
 * median wall time and its share of the sum of medians, so the stage worth
 * optimising stands out, and its median CPU time (all threads together).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cook/drivers/drivers.h"
#include "kiln/kiln.h"

#define DEFAULT_REPS 3u
#define MAX_REPS 20u

/* Everything the stages share for one cook of one source. */
typedef struct cook_run {
    const char *out_dir;
    char input_root[4096];
    const char *source_path; /* relative to input_root */
    char ref[1024];
    const cook_importer *importer;
    cook_settings settings;
    cook_diag diag;
    cook_context ctx;
    uint8_t *source;
    size_t source_size;
    ir_asset asset;
    encoded_vertices vertices; /* of the mesh being cooked */
    kmesh_layout layout;       /* its .kmesh, borrowing the vertices */
    uint32_t mesh;             /* which of asset.meshes the mesh stages work on */
} cook_run;

typedef bool (*stage_fn)(cook_run *run);

static ir_mesh *current_mesh(cook_run *run) {
    return &run->asset.meshes[run->mesh];
}

/* ---------------------------------------------------------------------------
 * The stages, each a thin call into the cooker
 * ------------------------------------------------------------------------- */

static bool stage_read(cook_run *run) {
    char full[8192], reason[512];
    snprintf(full, sizeof full, "%s/%s", run->input_root, run->source_path);
    if (!cook_read_file_on(run->settings.threads, full, BENCH_SOURCE_MAX_BYTES, &run->source,
                           &run->source_size, reason, sizeof reason))
        bench_die("%s: %s", full, reason);
    run->ctx.source = run->source;
    run->ctx.source_size = run->source_size;
    return true;
}

static bool stage_import(cook_run *run) {
    return run->importer->import(&run->ctx, &run->asset) && run->diag.errors == 0;
}

static bool stage_normals(cook_run *run) {
    return process_generate_normals(current_mesh(run));
}

static bool stage_weld(cook_run *run) {
    return process_weld_on(current_mesh(run), run->settings.threads);
}

static bool stage_order(cook_run *run) {
    return process_optimize_order(current_mesh(run), &run->settings);
}

static bool stage_lods(cook_run *run) {
    return run->settings.mesh_lods == 0 || process_build_lods(current_mesh(run), &run->settings);
}

static bool stage_together(cook_run *run) {
    return process_order_lods_meshlets_fetch(current_mesh(run), &run->settings);
}

static bool stage_fetch(cook_run *run) {
    return process_optimize_fetch_on(current_mesh(run), run->settings.threads);
}

static bool stage_meshlets(cook_run *run) {
    return !run->settings.mesh_meshlets ||
           process_build_meshlets(current_mesh(run), &run->settings);
}

static void free_encoded(cook_run *run) {
    kmesh_layout_free(&run->layout);
    encoded_vertices_free(&run->vertices);
}

static bool stage_encode(cook_run *run) {
    free_encoded(run);
    return encode_mesh_vertices(current_mesh(run), run->settings.mesh_quantize_positions,
                                run->settings.threads, &run->vertices) &&
           write_kmesh_layout(&run->ctx, current_mesh(run), &run->vertices,
                              run->asset.material_count, run->importer->name, &run->layout);
}

static bool produce_layout(void *layout, write_sink sink, void *sink_arg, char *reason,
                           size_t reason_size) {
    (void)reason;
    (void)reason_size;
    return container_layout_write(&((const kmesh_layout *)layout)->container, sink, sink_arg);
}

static bool stage_write(cook_run *run) {
    char path[8192], reason[512];
    snprintf(path, sizeof path, "%s/stages.mesh%u.kmesh", run->out_dir, run->mesh);
    if (!write_file_atomic_stream(path, run->layout.container.file_size, produce_layout,
                                  &run->layout, reason, sizeof reason))
        bench_die("%s", reason);
    return true;
}

/* Everything a cook allocated, as cook_asset frees it at its end: part of
 * the cook's wall time (large blocks go back to the system with munmap). */
static bool stage_free(cook_run *run) {
    free_encoded(run);
    ir_asset_free(&run->asset);
    strlist_free(&run->ctx.dependencies);
    diag_free(&run->diag);
    free(run->source);
    run->source = NULL;
    return true;
}

/* When a stage runs: once per source before the meshes, once per mesh of the
 * asset (always, or only with or without --split), or once per source after
 * them. */
typedef enum stage_scope {
    PER_SOURCE,
    PER_MESH,
    PER_MESH_TOGETHER,
    PER_MESH_SPLIT,
    AFTER_MESHES
} stage_scope;

typedef struct stage {
    const char *name;
    stage_fn fn;
    stage_scope scope;
} stage;

/* In the order the cooker runs them. */
static const stage stages[] = {
    {"read", stage_read, PER_SOURCE},
    {"import", stage_import, PER_SOURCE},
    {"normals", stage_normals, PER_MESH},
    {"weld", stage_weld, PER_MESH},
    {"o+l+m+f", stage_together, PER_MESH_TOGETHER},
    {"lods", stage_lods, PER_MESH_SPLIT},
    {"meshlets", stage_meshlets, PER_MESH_SPLIT},
    {"order", stage_order, PER_MESH_SPLIT},
    {"fetch", stage_fetch, PER_MESH_SPLIT},
    {"encode", stage_encode, PER_MESH},
    {"write", stage_write, PER_MESH},
    {"free", stage_free, AFTER_MESHES},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

/* ---------------------------------------------------------------------------
 * One cook, timed stage by stage
 * ------------------------------------------------------------------------- */

static bool split_mode; /* --split: order, LODs and meshlets timed apart */
static bool same_work;  /* --same: gltfpack's work, no LODs and no meshlets */

static void run_init(cook_run *run, const char *out_dir, const char *source, uint32_t threads) {
    memset(run, 0, sizeof *run);
    run->out_dir = out_dir;
    run->source_path = bench_split_path(source, run->input_root, sizeof run->input_root);
    run->importer = cook_registry_match(run->source_path);
    if (run->importer == NULL)
        bench_die("no importer claims '%s'", source);
    if (kiln_ref_canonicalize(run->source_path, run->ref, sizeof run->ref) != KILN_OK)
        bench_die("cannot form a ref from '%s'", run->source_path);
    cook_settings_default(&run->settings);
    run->settings.threads = threads;
    if (same_work) {
        run->settings.mesh_lods = 0;
        run->settings.mesh_meshlets = false;
    }
    run->ctx = (cook_context){
        .input_root = run->input_root,
        .source_path = run->source_path,
        .ref = run->ref,
        .settings = &run->settings,
        .diag = &run->diag,
    };
}

/* CPU time of the whole process (every thread), in seconds: on a shared
 * machine steadier than wall time, and with THREADS > 1 it shows what the
 * threads cost together. */
static double process_cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* Whether stage i runs in `scope` (PER_MESH: its split or together ones too). */
static bool stage_runs(size_t i, stage_scope scope) {
    if (scope == PER_MESH && stages[i].scope == (split_mode ? PER_MESH_SPLIT : PER_MESH_TOGETHER))
        return true;
    return stages[i].scope == scope;
}

/* Runs every stage of `scope`, adding each one's wall and CPU time to
 * seconds[stage] and cpu[stage]. */
static void run_stages(cook_run *run, stage_scope scope, double seconds[STAGE_COUNT],
                       double cpu[STAGE_COUNT]) {
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!stage_runs(i, scope))
            continue;
        double start = bench_now(), cpu_start = process_cpu_seconds();
        bool ok = stages[i].fn(run);
        seconds[i] += bench_now() - start;
        cpu[i] += process_cpu_seconds() - cpu_start;
        if (!ok) {
            fwrite(run->diag.text.data, 1, run->diag.text.size, stderr);
            bench_die("stage '%s' failed on '%s'", stages[i].name, run->source_path);
        }
    }
}

/* What the LODs reached: per level, triangles against the target and the
 * recorded error (the largest over the asset's submeshes). */
static void print_lods(const ir_mesh *mesh, const cook_settings *settings) {
    for (uint32_t level = 1; level < mesh->lod_count; level++) {
        uint64_t triangles = 0, target = 0;
        float error = 0.0f;
        for (uint32_t s = 0; s < mesh->submesh_count; s++) {
            const ir_lod *lod = &mesh->lods[(size_t)s * mesh->lod_count + level];
            triangles += lod->index_count / 3;
            double ratio = level - 1 < settings->mesh_lod_ratio_count
                               ? settings->mesh_lod_ratios[level - 1]
                               : 0.0;
            target += (uint64_t)(mesh->submeshes[s].index_count / 3 * ratio);
            error = lod->error > error ? lod->error : error;
        }
        printf("  LOD %u: %llu triangles (target %llu, %.3f of it), error %.5f\n", level,
               (unsigned long long)triangles, (unsigned long long)target,
               target ? (double)triangles / (double)target : 0.0, (double)error);
    }
}

/* One full cook; seconds[i] receives the time of stage i (summed over meshes). */
static void cook_once(const char *out_dir, const char *source, uint32_t threads,
                      double seconds[STAGE_COUNT], double cpu[STAGE_COUNT], uint64_t *triangles,
                      bool report_lods) {
    cook_run run;
    run_init(&run, out_dir, source, threads);
    memset(seconds, 0, STAGE_COUNT * sizeof seconds[0]);
    memset(cpu, 0, STAGE_COUNT * sizeof cpu[0]);
    *triangles = 0;
    run_stages(&run, PER_SOURCE, seconds, cpu);
    for (run.mesh = 0; run.mesh < run.asset.mesh_count; run.mesh++) {
        *triangles += current_mesh(&run)->index_count / 3;
        run_stages(&run, PER_MESH, seconds, cpu);
        if (report_lods)
            print_lods(current_mesh(&run), &run.settings);
    }
    run_stages(&run, AFTER_MESHES, seconds, cpu);
}

/* ---------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------- */

static void print_report(double samples[][MAX_REPS], double cpu_samples[][MAX_REPS], uint32_t reps,
                         double total_median) {
    double medians[STAGE_COUNT], cpu_medians[STAGE_COUNT], sum = 0.0, cpu_sum = 0.0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        medians[i] = bench_median(samples[i], reps);
        cpu_medians[i] = bench_median(cpu_samples[i], reps);
        sum += medians[i];
        cpu_sum += cpu_medians[i];
    }
    printf("  %-9s %10s %7s %10s\n", "stage", "median", "share", "CPU");
    printf("  %-9s %10s %7s %10s\n", "-----", "------", "-----", "---");
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (stages[i].scope == (split_mode ? PER_MESH_TOGETHER : PER_MESH_SPLIT))
            continue;
        char duration[32], cpu[32];
        bench_format_duration(medians[i], duration, sizeof duration);
        bench_format_duration(cpu_medians[i], cpu, sizeof cpu);
        printf("  %-9s %10s %6.1f%% %10s\n", stages[i].name, duration, 100.0 * medians[i] / sum,
               cpu);
    }
    char sum_text[32], cpu_text[32], total_text[32];
    bench_format_duration(sum, sum_text, sizeof sum_text);
    bench_format_duration(cpu_sum, cpu_text, sizeof cpu_text);
    bench_format_duration(total_median, total_text, sizeof total_text);
    printf("  %-9s %10s %7s %10s   (median of whole cooks: %s)\n", "sum", sum_text, "", cpu_text,
           total_text);
}

int main(int argc, char **argv) {
    while (argc > 1 && (strcmp(argv[1], "--split") == 0 || strcmp(argv[1], "--same") == 0)) {
        if (strcmp(argv[1], "--split") == 0)
            split_mode = true;
        else
            same_work = true;
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: %s [--split] [--same] OUT_DIR SOURCE [REPS [THREADS]]\n", argv[0]);
        return 2;
    }
    uint32_t reps = argc >= 4 ? (uint32_t)strtoul(argv[3], NULL, 10) : DEFAULT_REPS;
    if (reps < 1 || reps > MAX_REPS)
        bench_die("REPS must be 1..%u", MAX_REPS);
    uint32_t threads = argc == 5 ? (uint32_t)strtoul(argv[4], NULL, 10) : 1;
    if (threads < 1 || threads > 64)
        bench_die("THREADS must be 1..64");

    /* No warm-up run: one cook of a large mesh is seconds long, far above
     * what a cold allocator or page cache adds, and the median absorbs it. */
    static double samples[STAGE_COUNT][MAX_REPS], cpu_samples[STAGE_COUNT][MAX_REPS];
    double totals[MAX_REPS];
    uint64_t triangles = 0;
    for (uint32_t r = 0; r < reps; r++) {
        double one[STAGE_COUNT], one_cpu[STAGE_COUNT];
        double start = bench_now();
        cook_once(argv[1], argv[2], threads, one, one_cpu, &triangles, r + 1 == reps);
        totals[r] = bench_now() - start;
        for (size_t i = 0; i < STAGE_COUNT; i++)
            samples[i][r] = one[i];
        for (size_t i = 0; i < STAGE_COUNT; i++)
            cpu_samples[i][r] = one_cpu[i];
    }
    char size[32];
    bench_format_bytes(bench_file_size(argv[2]), size, sizeof size);
    printf("%s (%s, %llu triangles), %u cooks, %u thread%s:\n", argv[2], size,
           (unsigned long long)triangles, reps, threads, threads == 1 ? "" : "s");
    print_report(samples, cpu_samples, reps, bench_median(totals, reps));
    return 0;
}
