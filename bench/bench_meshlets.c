/*
 * bench_meshlets.c — kiln's meshlet builder against meshoptimizer's: time and
 * what a renderer gets from the meshlets.
 *
 *   bench_meshlets [--rounds N] SOURCE...
 *
 * Imports each SOURCE and runs the cooker's stages before meshlets (normals,
 * weld), then takes level 0 as the meshlet step of a cook reads it (the
 * welded order; a submesh of two chunks' worth or more sorted along the
 * Morton curve: mesh_spatial_level0, default settings; the vertex cache order
 * runs beside the meshlets in a cook, not before them), then builds every
 * triangle submesh's meshlets whole (no chunks) with meshopt_buildMeshlets and
 * with meshlet_build (process/meshlet_build.c), at the cooker's limits (64
 * vertices, 124 triangles) and cone weight, N rounds alternating the two
 * (default 5); the CPU time is this thread's, the median of the rounds.
 *
 * Quality: bounds and cones of every meshlet as each pipeline makes them
 * (meshopt_computeMeshletBounds for meshoptimizer's meshlets, kiln's
 * meshlet_bounds_compute for kiln's; a third row gives kiln's meshlets with
 * meshoptimizer's bounds), then a fixed set of 96 cameras looking
 * at the model's centre from 48 directions (a Fibonacci sphere), at 3 and at
 * 1.2 radii of its bounding sphere, 60 degrees field of view. A meshlet is
 * culled by its sphere when the sphere is outside the view frustum, by its
 * cone when dot(normalize(apex - camera), axis) >= cutoff (meshoptimizer's
 * test). Printed: meshlets, mean triangles and vertices per meshlet, the
 * fraction of meshlets culled by the sphere, by the cone, and the fraction of
 * triangles culled by either (averages over the cameras).
 */
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lod.h"
#include "bench_util.h"
#include "cook/process/meshlet_build.h"
#include "kiln/kiln.h"

#define MAX_VERTICES 64
#define MAX_TRIANGLES 124
#define CONE_WEIGHT 0.25f /* process/meshlets.c */
#define DIRECTIONS 48
#define HALF_FOV 0.5235988f /* 30 degrees */

/* One builder's meshlets, dense (as kiln stores them). */
typedef struct built {
    meshlet_span *meshlets;
    size_t meshlet_count;
    uint32_t *vertices;
    uint8_t *triangles;
} built;

typedef struct totals {
    double seconds;
    size_t meshlets, triangles, vertices;
    double sphere_culled, cone_culled, triangles_culled; /* sums over cameras of fractions */
    unsigned cameras;
} totals;

static void free_built(built *b) {
    free(b->meshlets);
    free(b->vertices);
    free(b->triangles);
    memset(b, 0, sizeof *b);
}

/* Returns the CPU time of meshopt_buildMeshlets alone (not the repacking). */
static double build_meshopt(const uint32_t *indices, size_t index_count, const float *positions,
                            size_t vertex_count, built *out) {
    size_t bound = meshopt_buildMeshletsBound(index_count, MAX_VERTICES, MAX_TRIANGLES);
    struct meshopt_Meshlet *meshlets = malloc((bound ? bound : 1) * sizeof *meshlets);
    unsigned int *vertices = malloc((bound * MAX_VERTICES + 1) * sizeof *vertices);
    unsigned char *triangles = malloc(bound * MAX_TRIANGLES * 3 + 1);
    if (meshlets == NULL || vertices == NULL || triangles == NULL)
        bench_die("out of memory");
    double start = bench_thread_seconds();
    size_t count = meshopt_buildMeshlets(meshlets, vertices, triangles, indices, index_count,
                                         positions, vertex_count, 3 * sizeof(float), MAX_VERTICES,
                                         MAX_TRIANGLES, CONE_WEIGHT);
    double seconds = bench_thread_seconds() - start;
    out->meshlets = malloc((count ? count : 1) * sizeof *out->meshlets);
    out->vertices = malloc((index_count + 1) * sizeof *out->vertices);
    out->triangles = malloc(index_count + 1);
    if (out->meshlets == NULL || out->vertices == NULL || out->triangles == NULL)
        bench_die("out of memory");
    uint32_t next_vertex = 0, next_triangle = 0;
    for (size_t m = 0; m < count; m++) {
        const struct meshopt_Meshlet *src = &meshlets[m];
        out->meshlets[m] =
            (meshlet_span){next_vertex, next_triangle, src->vertex_count, src->triangle_count};
        memcpy(out->vertices + next_vertex, vertices + src->vertex_offset,
               src->vertex_count * sizeof *vertices);
        memcpy(out->triangles + 3 * (size_t)next_triangle, triangles + src->triangle_offset,
               3 * (size_t)src->triangle_count);
        next_vertex += src->vertex_count;
        next_triangle += src->triangle_count;
    }
    out->meshlet_count = count;
    free(meshlets);
    free(vertices);
    free(triangles);
    return seconds;
}

static void build_kiln(const uint32_t *indices, size_t index_count, const float *positions,
                       size_t vertex_count, built *out) {
    size_t bound = meshlet_build_bound(index_count, MAX_VERTICES, MAX_TRIANGLES);
    out->meshlets = malloc((bound ? bound : 1) * sizeof *out->meshlets);
    out->vertices = malloc((index_count + 1) * sizeof *out->vertices);
    out->triangles = malloc(index_count + 1);
    if (out->meshlets == NULL || out->vertices == NULL || out->triangles == NULL ||
        !meshlet_build(out->meshlets, out->vertices, out->triangles, &out->meshlet_count, indices,
                       index_count, positions, vertex_count, MAX_VERTICES, MAX_TRIANGLES,
                       CONE_WEIGHT))
        bench_die("meshlet_build failed");
}

/* ---------------------------------------------------------------------------
 * Culling over a fixed set of cameras
 * ------------------------------------------------------------------------- */

static float dot3(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void normalize3(float *v) {
    float length = sqrtf(dot3(v, v));
    for (int k = 0; k < 3; k++)
        v[k] = length > 0.0f ? v[k] / length : 0.0f;
}

typedef struct camera {
    float position[3], forward[3], right[3], up[3];
} camera;

/* Camera i of 2 * DIRECTIONS around the sphere (centre, radius). */
static camera camera_at(unsigned i, const float centre[3], float radius) {
    unsigned d = i % DIRECTIONS;
    float distance = i < DIRECTIONS ? 3.0f * radius : 1.2f * radius;
    /* Fibonacci sphere: evenly spread directions. */
    float z = 1.0f - (2.0f * (float)d + 1.0f) / (float)DIRECTIONS;
    float ring = sqrtf(1.0f - z * z), angle = 2.39996323f * (float)d;
    float dir[3] = {ring * cosf(angle), ring * sinf(angle), z};
    camera c;
    for (int k = 0; k < 3; k++) {
        c.position[k] = centre[k] + dir[k] * distance;
        c.forward[k] = -dir[k];
    }
    float helper[3] = {0.0f, 0.0f, 1.0f};
    if (fabsf(c.forward[2]) > 0.9f)
        helper[2] = 0.0f, helper[0] = 1.0f;
    c.right[0] = c.forward[1] * helper[2] - c.forward[2] * helper[1];
    c.right[1] = c.forward[2] * helper[0] - c.forward[0] * helper[2];
    c.right[2] = c.forward[0] * helper[1] - c.forward[1] * helper[0];
    normalize3(c.right);
    c.up[0] = c.right[1] * c.forward[2] - c.right[2] * c.forward[1];
    c.up[1] = c.right[2] * c.forward[0] - c.right[0] * c.forward[2];
    c.up[2] = c.right[0] * c.forward[1] - c.right[1] * c.forward[0];
    return c;
}

static bool sphere_outside(const camera *c, const float centre[3], float radius) {
    float rel[3] = {centre[0] - c->position[0], centre[1] - c->position[1],
                    centre[2] - c->position[2]};
    float x = dot3(rel, c->right), y = dot3(rel, c->up), z = dot3(rel, c->forward);
    float cs = cosf(HALF_FOV), sn = sinf(HALF_FOV);
    return z < -radius || x * cs - z * sn > radius || -x * cs - z * sn > radius ||
           y * cs - z * sn > radius || -y * cs - z * sn > radius;
}

static bool cone_backfacing(const camera *c, const struct meshopt_Bounds *b) {
    if (b->cone_cutoff >= 1.0f)
        return false;
    float view[3] = {b->cone_apex[0] - c->position[0], b->cone_apex[1] - c->position[1],
                     b->cone_apex[2] - c->position[2]};
    normalize3(view);
    return dot3(view, b->cone_axis) >= b->cone_cutoff;
}

/* kiln's bounds (meshlet_bounds.c, what the cooker stores) in meshoptimizer's struct. */
static struct meshopt_Bounds kiln_bounds(const uint32_t *vertices, size_t vertex_count,
                                         const uint8_t *triangles, size_t triangle_count,
                                         const float *positions) {
    meshlet_bounds k;
    meshlet_bounds_compute(&k, vertices, vertex_count, triangles, triangle_count, positions);
    struct meshopt_Bounds b;
    memset(&b, 0, sizeof b);
    memcpy(b.center, k.center, sizeof b.center);
    b.radius = k.radius;
    memcpy(b.cone_apex, k.cone_apex, sizeof b.cone_apex);
    memcpy(b.cone_axis, k.cone_axis, sizeof b.cone_axis);
    b.cone_cutoff = k.cone_cutoff;
    return b;
}

static void measure(const built *b, bool with_kiln_bounds, const float *positions,
                    size_t vertex_count, const float centre[3], float radius, totals *t) {
    struct meshopt_Bounds *bounds = malloc((b->meshlet_count + 1) * sizeof *bounds);
    if (bounds == NULL)
        bench_die("out of memory");
    size_t triangles = 0;
    for (size_t m = 0; m < b->meshlet_count; m++) {
        const meshlet_span *s = &b->meshlets[m];
        const uint8_t *tris = b->triangles + 3 * (size_t)s->triangle_offset;
        bounds[m] = with_kiln_bounds
                        ? kiln_bounds(b->vertices + s->vertex_offset, s->vertex_count, tris,
                                      s->triangle_count, positions)
                        : meshopt_computeMeshletBounds(b->vertices + s->vertex_offset, tris,
                                                       s->triangle_count, positions, vertex_count,
                                                       3 * sizeof(float));
        triangles += s->triangle_count;
        t->vertices += s->vertex_count;
    }
    t->meshlets += b->meshlet_count;
    t->triangles += triangles;
    for (unsigned i = 0; i < 2 * DIRECTIONS; i++) {
        camera c = camera_at(i, centre, radius);
        size_t by_sphere = 0, by_cone = 0, tris_culled = 0;
        for (size_t m = 0; m < b->meshlet_count; m++) {
            bool sphere = sphere_outside(&c, bounds[m].center, bounds[m].radius);
            bool cone = cone_backfacing(&c, &bounds[m]);
            by_sphere += sphere;
            by_cone += cone;
            if (sphere || cone)
                tris_culled += b->meshlets[m].triangle_count;
        }
        if (b->meshlet_count > 0) {
            t->sphere_culled += (double)by_sphere / (double)b->meshlet_count;
            t->cone_culled += (double)by_cone / (double)b->meshlet_count;
            t->triangles_culled += (double)tris_culled / (double)triangles;
        }
        t->cameras++;
    }
    free(bounds);
}

static void print_row(const char *name, const char *builder, const totals *t) {
    double n = t->cameras ? (double)t->cameras : 1.0;
    printf("| %s | %s | %.1f ms | %zu | %.1f | %.1f | %.2f %% | %.2f %% | %.2f %% |\n", name,
           builder, 1e3 * t->seconds, t->meshlets, (double)t->triangles / (double)t->meshlets,
           (double)t->vertices / (double)t->meshlets, 100.0 * t->sphere_culled / n,
           100.0 * t->cone_culled / n, 100.0 * t->triangles_culled / n);
}

int main(int argc, char **argv) {
    int rounds = 5, first = 1;
    if (argc > 2 && strcmp(argv[1], "--rounds") == 0) {
        rounds = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || rounds < 1) {
        fprintf(stderr, "usage: %s [--rounds N] SOURCE...\n", argv[0]);
        return 2;
    }
    printf("| source | builder | CPU (median of %d) | meshlets | triangles / meshlet | vertices / "
           "meshlet | culled by sphere | culled by cone | triangles culled |\n",
           rounds);
    printf("|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int a = first; a < argc; a++) {
        cook_settings settings;
        cook_settings_default(&settings);
        settings.threads = 1;
        ir_asset asset = bench_lod_import(argv[a], &settings);
        totals mo = {0}, ki = {0}, ki_mo = {0}; /* ki_mo: kiln's meshlets, meshopt's bounds */
        double *times = malloc(2 * (size_t)rounds * sizeof *times);
        if (times == NULL)
            bench_die("out of memory");
        for (uint32_t m = 0; m < asset.mesh_count; m++) {
            ir_mesh *mesh = &asset.meshes[m];
            if (!process_generate_normals(mesh) || !bench_lod_weld(mesh))
                bench_die("processing '%s' failed", argv[a]);
            uint32_t *level0 =
                mesh_spatial_level0(mesh, mesh_chunk_size(&settings), settings.threads);
            if (level0 == NULL)
                bench_die("out of memory");
            for (uint32_t s = 0; s < mesh->submesh_count; s++) {
                const ir_submesh *sub = &mesh->submeshes[s];
                if (sub->topology != KILN_TOPOLOGY_TRIANGLES || sub->index_count == 0)
                    continue;
                const uint32_t *indices = level0 + sub->index_offset;
                float lo[3], hi[3], sphere[4];
                geometry_bounds(mesh->positions, indices, sub->index_count, lo, hi, sphere);
                built bm = {0}, bk = {0};
                for (int r = 0; r < rounds; r++) {
                    free_built(&bm);
                    free_built(&bk);
                    times[r] = build_meshopt(indices, sub->index_count, mesh->positions,
                                             mesh->vertex_count, &bm);
                    double start = bench_thread_seconds();
                    build_kiln(indices, sub->index_count, mesh->positions, mesh->vertex_count, &bk);
                    times[rounds + r] = bench_thread_seconds() - start;
                }
                qsort(times, (size_t)rounds, sizeof *times, bench_compare_doubles);
                qsort(times + rounds, (size_t)rounds, sizeof *times, bench_compare_doubles);
                mo.seconds += times[rounds / 2];
                ki.seconds += times[rounds + rounds / 2];
                measure(&bm, false, mesh->positions, mesh->vertex_count, sphere, sphere[3], &mo);
                measure(&bk, true, mesh->positions, mesh->vertex_count, sphere, sphere[3], &ki);
                ki_mo.seconds = ki.seconds;
                measure(&bk, false, mesh->positions, mesh->vertex_count, sphere, sphere[3], &ki_mo);
                free_built(&bm);
                free_built(&bk);
            }
            free(level0);
        }
        free(times);
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        print_row(name, "meshoptimizer", &mo);
        print_row(name, "kiln", &ki);
        print_row(name, "kiln, meshoptimizer's bounds", &ki_mo);
        ir_asset_free(&asset);
    }
    return 0;
}
