/*
 * bench_mesh_quality.c — what cooking does to a mesh's vertex cache use and
 * size, against the source and against gltfpack's output.
 *
 *   bench_mesh_quality COOK_DIR PACK_DIR SOURCE... [--cache-only SOURCE...]
 *
 * Every SOURCE is cooked in process into COOK_DIR (cook_asset, default
 * settings, as `kiln build` does). PACK_DIR/<name>.glb, when present, is
 * gltfpack's output for the same source (bench/run.sh makes it).
 *
 * Vertex cache (every SOURCE): meshopt_analyzeVertexCache with a 16-entry
 * FIFO, no warp and no primitive groups (meshoptimizer 0.18's signature) over
 *   source    the index buffer as the importer reads it, in the file's order
 *             (kiln's OBJ or glTF importer, nothing processed);
 *   kiln      level 0 of every submesh of the cooked .kmesh, read through the
 *             runtime (kiln_file_map + kiln_mesh_view_get + kiln_mesh_lod);
 *   gltfpack  gltfpack's output, read by kiln's glTF importer (which
 *             understands its KHR_mesh_quantization) in the file's order.
 * ACMR is vertices transformed per triangle (lower is better; 0.5 is the
 * floor of a regular grid), ATVR vertices transformed per vertex (1.0 ideal).
 * Over several meshes both are totals over all of them. The reduced levels of
 * the cooked file get the same ACMR (the vertex cache order of the LOD step).
 *
 * Size (SOURCEs before --cache-only): bytes per level-0 triangle of the
 * source file, gltfpack's file and the .kmesh, the last split into what a
 * renderer of the full-detail mesh uploads (level-0 vertices and indices),
 * the reduced levels' indices and the meshlets. Sources after --cache-only
 * carry textures or animation, which a .kmesh does not hold, so bytes per
 * triangle would compare different contents; they get the cache table only.
 */
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lod.h"
#include "bench_util.h"
#include "cook/drivers/drivers.h"
#include "kiln/kiln.h"

#define CACHE_SIZE 16u
#define MAX_SOURCES 16
#define MAX_LEVELS 3 /* level 0 and the 2 reduced levels of the default settings */

/* Vertex cache totals over one or more meshes. */
typedef struct cache_totals {
    uint64_t triangles;
    uint64_t vertices;
    uint64_t transformed;
    bool present; /* false: nothing was measured (e.g. no gltfpack file) */
} cache_totals;

/* Where the bytes of a cooked file go, summed over its meshes. */
typedef struct kmesh_bytes {
    uint64_t file;
    uint64_t level0; /* vertices + level-0 indices */
    uint64_t lod_indices;
    uint64_t meshlets; /* MLET + MLVX + MLTR */
} kmesh_bytes;

typedef struct source_report {
    const char *path;
    bool size_row;
    cache_totals source, kiln, packed;
    cache_totals levels[MAX_LEVELS]; /* kiln's reduced levels ([0] unused: that is `kiln`) */
    kmesh_bytes cooked;
    uint64_t source_bytes;
    uint64_t packed_bytes; /* 0 when there is no gltfpack file */
} source_report;

static void analyze(const uint32_t *indices, size_t index_count, size_t vertex_count,
                    cache_totals *totals) {
    struct meshopt_VertexCacheStatistics stats =
        meshopt_analyzeVertexCache(indices, index_count, vertex_count, CACHE_SIZE, 0, 0);
    totals->triangles += index_count / 3;
    totals->vertices += vertex_count;
    totals->transformed += stats.vertices_transformed;
    totals->present = true;
}

/* ---------------------------------------------------------------------------
 * Index buffers as a file stores them: kiln's importers, nothing processed
 * ------------------------------------------------------------------------- */

static void analyze_file_order(const char *path, cache_totals *totals) {
    cook_settings settings;
    cook_settings_default(&settings);
    ir_asset asset = bench_lod_import(path, &settings); /* the importer alone */
    for (uint32_t m = 0; m < asset.mesh_count; m++)
        analyze(asset.meshes[m].indices, asset.meshes[m].index_count, asset.meshes[m].vertex_count,
                totals);
    ir_asset_free(&asset);
}

/* ---------------------------------------------------------------------------
 * The cooked file, through the runtime
 * ------------------------------------------------------------------------- */

/* One level of every triangle submesh (level 0 is what the cache and
 * overdraw measures are about), widened to u32 for meshoptimizer. */
static uint32_t *level_indices(const kiln_mesh_view *view, uint32_t level, size_t *count) {
    size_t total = 0;
    for (uint32_t s = 0; s < view->desc->submesh_count; s++)
        if (view->submeshes[s].topology == KILN_TOPOLOGY_TRIANGLES)
            total += kiln_mesh_lod(view, s, level)->index_count;
    uint32_t *out = malloc(total ? total * sizeof *out : 1);
    if (out == NULL)
        bench_die("out of memory");
    size_t used = 0;
    for (uint32_t s = 0; s < view->desc->submesh_count; s++) {
        if (view->submeshes[s].topology != KILN_TOPOLOGY_TRIANGLES)
            continue;
        const kiln_lod *lod = kiln_mesh_lod(view, s, level);
        for (uint32_t i = 0; i < lod->index_count; i++) {
            size_t at = (size_t)lod->index_offset + i;
            out[used++] = view->desc->index_size == 2 ? ((const uint16_t *)view->indices)[at]
                                                      : ((const uint32_t *)view->indices)[at];
        }
    }
    *count = used;
    return out;
}

static void measure_kmesh(const char *path, cache_totals *totals, cache_totals *levels,
                          kmesh_bytes *bytes) {
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
    if (kiln_file_map(&file, path, 0, &err) != KILN_OK ||
        kiln_mesh_view_get(&file, 0, &view, &err) != KILN_OK)
        bench_die("%s: %s", path, err.message);
    size_t count = 0;
    uint32_t *indices = level_indices(&view, 0, &count);
    analyze(indices, count, view.desc->vertex_count, totals);
    free(indices);
    /* The reduced levels: a reused one repeats the level before, counted again. */
    for (uint32_t level = 1; level < view.desc->lod_count && level < MAX_LEVELS; level++) {
        size_t level_count = 0;
        uint32_t *level_list = level_indices(&view, level, &level_count);
        analyze(level_list, level_count, view.desc->vertex_count, &levels[level]);
        free(level_list);
    }

    const kiln_mesh_desc *d = view.desc;
    uint64_t level0_index_bytes = (uint64_t)count * d->index_size;
    bytes->file += file.size;
    bytes->level0 += view.vertex_bytes + level0_index_bytes;
    bytes->lod_indices += view.index_bytes - level0_index_bytes;
    bytes->meshlets += (uint64_t)d->meshlet_count * sizeof(kiln_meshlet) +
                       (uint64_t)d->meshlet_vertex_count * 4 +
                       (uint64_t)d->meshlet_triangle_count * 3;
    kiln_file_close(&file);
}

/* Cooks `path` into cook_dir as `kiln build` would and measures every .kmesh
 * written (other outputs, such as materials, are not meshes). */
static void cook_and_measure(const char *path, const char *cook_dir, source_report *report) {
    cook_asset_result result;
    bench_cook(path, cook_dir, &result);
    for (size_t i = 0; i < result.outputs.count; i++) {
        if (!bench_has_suffix(result.outputs.items[i], ".kmesh"))
            continue;
        char kmesh[8192];
        snprintf(kmesh, sizeof kmesh, "%s/%s", cook_dir, result.outputs.items[i]);
        measure_kmesh(kmesh, &report->kiln, report->levels, &report->cooked);
    }
    cook_asset_result_free(&result);
}

/* ---------------------------------------------------------------------------
 * gltfpack's output
 * ------------------------------------------------------------------------- */

static bool file_exists(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file != NULL)
        fclose(file);
    return file != NULL;
}

/* PACK_DIR/<file name without extension>.glb */
static void packed_path(const char *pack_dir, const char *source, char *out, size_t capacity) {
    const char *slash = strrchr(source, '/');
    const char *name = slash ? slash + 1 : source;
    const char *dot = strrchr(name, '.');
    int stem = dot ? (int)(dot - name) : (int)strlen(name);
    snprintf(out, capacity, "%s/%.*s.glb", pack_dir, stem, name);
}

/* ---------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------- */

static void format_cache(const cache_totals *t, char *acmr, char *atvr, size_t capacity) {
    if (!t->present || t->triangles == 0 || t->vertices == 0) {
        snprintf(acmr, capacity, "-");
        snprintf(atvr, capacity, "-");
        return;
    }
    snprintf(acmr, capacity, "%.3f", (double)t->transformed / (double)t->triangles);
    snprintf(atvr, capacity, "%.3f", (double)t->transformed / (double)t->vertices);
}

static const char *file_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void print_cache_table(const source_report *reports, int count) {
    printf("vertex cache: meshopt_analyzeVertexCache, cache %u, warp 0, primgroup 0\n", CACHE_SIZE);
    printf("%-24s %10s | %8s %8s %8s | %8s %8s %8s\n", "file", "triangles", "ACMR src", "kiln",
           "gltfpack", "ATVR src", "kiln", "gltfpack");
    for (int i = 0; i < count; i++) {
        const source_report *r = &reports[i];
        char acmr[3][32], atvr[3][32];
        format_cache(&r->source, acmr[0], atvr[0], 32);
        format_cache(&r->kiln, acmr[1], atvr[1], 32);
        format_cache(&r->packed, acmr[2], atvr[2], 32);
        printf("%-24s %10llu | %8s %8s %8s | %8s %8s %8s\n", file_name(r->path),
               (unsigned long long)r->kiln.triangles, acmr[0], acmr[1], acmr[2], atvr[0], atvr[1],
               atvr[2]);
    }
    /* ATVR of a reduced level counts every vertex of the buffer: only ACMR. */
    printf("\nreduced levels (kiln): ACMR, same cache\n");
    printf("%-24s %10s %8s | %10s %8s\n", "file", "level 1", "ACMR", "level 2", "ACMR");
    for (int i = 0; i < count; i++) {
        const source_report *r = &reports[i];
        char acmr[MAX_LEVELS][32], unused[32];
        for (int l = 1; l < MAX_LEVELS; l++)
            format_cache(&r->levels[l], acmr[l], unused, 32);
        printf("%-24s %10llu %8s | %10llu %8s\n", file_name(r->path),
               (unsigned long long)r->levels[1].triangles, acmr[1],
               (unsigned long long)r->levels[2].triangles, acmr[2]);
    }
}

static double per_triangle(uint64_t bytes, uint64_t triangles) {
    return triangles ? (double)bytes / (double)triangles : 0.0;
}

static void print_size_table(const source_report *reports, int count) {
    printf("\nsize: bytes per (level-0) triangle\n");
    printf("%-24s %10s | %8s %9s | %8s %8s %8s %8s\n", "file", "triangles", "source", "gltfpack",
           "kmesh", "level 0", "LOD idx", "meshlets");
    for (int i = 0; i < count; i++) {
        const source_report *r = &reports[i];
        if (!r->size_row)
            continue;
        uint64_t t = r->kiln.triangles;
        char packed[32] = "-";
        if (r->packed_bytes > 0)
            snprintf(packed, sizeof packed, "%.2f", per_triangle(r->packed_bytes, t));
        printf("%-24s %10llu | %8.2f %9s | %8.2f %8.2f %8.2f %8.2f\n", file_name(r->path),
               (unsigned long long)t, per_triangle(r->source_bytes, t), packed,
               per_triangle(r->cooked.file, t), per_triangle(r->cooked.level0, t),
               per_triangle(r->cooked.lod_indices, t), per_triangle(r->cooked.meshlets, t));
    }
    printf("(kmesh = whole file; level 0 = its vertices + level-0 indices, what drawing the\n"
           " full-detail mesh uploads; LOD idx = indices of the 2 reduced levels; meshlets =\n"
           " MLET + MLVX + MLTR; the rest is tables and metadata)\n");
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s COOK_DIR PACK_DIR SOURCE... [--cache-only SOURCE...]\n",
                argv[0]);
        return 2;
    }
    const char *cook_dir = argv[1];
    const char *pack_dir = argv[2];
    static source_report reports[MAX_SOURCES];
    int count = 0;
    bool size_rows = true;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--cache-only") == 0) {
            size_rows = false;
            continue;
        }
        if (count == MAX_SOURCES)
            bench_die("at most %d sources", MAX_SOURCES);
        source_report *r = &reports[count++];
        r->path = argv[i];
        r->size_row = size_rows;
        r->source_bytes = bench_file_size(r->path);
        analyze_file_order(r->path, &r->source);
        cook_and_measure(r->path, cook_dir, r);
        char packed[8192];
        packed_path(pack_dir, r->path, packed, sizeof packed);
        if (file_exists(packed)) {
            analyze_file_order(packed, &r->packed);
            r->packed_bytes = bench_file_size(packed);
        }
    }
    print_cache_table(reports, count);
    print_size_table(reports, count);
    return 0;
}
