/* The LOD step where kiln's simplifier stalls on attribute seams: the same
 * simplifier welded by position (lods_welded.c) makes the level when it
 * reaches the target the sloppy simplifier misses or is nearer level 0, each
 * corner taking the vertex at its position whose normal faces most like its
 * triangle, then the one whose texture coordinates lie closest to the other
 * corners'. Checked against computations written here: the distance from an
 * ideal torus and linear searches over the vertices at each position; and
 * the sampled distance that choice uses (surface_distance.c) on squares. */
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

#define RING 32 /* quads around the torus' axis */
#define TUBE 16 /* quads around its tube */
#define RING_RADIUS 3.0
#define TUBE_RADIUS 1.0

static void torus_point_of(uint32_t ring, uint32_t tube, uint32_t i, uint32_t j, float p[3]) {
    double u = 2.0 * M_PI * (double)(i % ring) / ring, v = 2.0 * M_PI * (double)(j % tube) / tube;
    p[0] = (float)((RING_RADIUS + TUBE_RADIUS * cos(v)) * cos(u));
    p[1] = (float)((RING_RADIUS + TUBE_RADIUS * cos(v)) * sin(u));
    p[2] = (float)(TUBE_RADIUS * sin(v));
}

static void torus_point(uint32_t i, uint32_t j, float p[3]) {
    torus_point_of(RING, TUBE, i, j, p);
}

/* A closed torus of ring x tube quads, flat shaded: every triangle has its
 * own three vertices with its face normal, so every position has six wedges
 * and kiln's simplifier may move none of them. */
static void make_flat_shaded_torus_of(ir_mesh *mesh, uint32_t ring, uint32_t tube) {
    memset(mesh, 0, sizeof *mesh);
    mesh->index_count = 6 * ring * tube;
    mesh->vertex_count = mesh->index_count;
    mesh->positions = malloc((size_t)mesh->vertex_count * 3 * sizeof(float));
    mesh->normals = malloc((size_t)mesh->vertex_count * 3 * sizeof(float));
    mesh->indices = malloc((size_t)mesh->index_count * sizeof(uint32_t));
    uint32_t v = 0;
    for (uint32_t i = 0; i < ring; i++)
        for (uint32_t j = 0; j < tube; j++) {
            const uint32_t corners[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
            for (int t = 0; t < 2; t++) {
                float p[3][3];
                for (int k = 0; k < 3; k++)
                    torus_point_of(ring, tube, i + corners[3 * t + k][0], j + corners[3 * t + k][1],
                                   p[k]);
                float u[3], w[3], n[3];
                for (int k = 0; k < 3; k++) {
                    u[k] = p[1][k] - p[0][k];
                    w[k] = p[2][k] - p[0][k];
                }
                n[0] = u[1] * w[2] - u[2] * w[1];
                n[1] = u[2] * w[0] - u[0] * w[2];
                n[2] = u[0] * w[1] - u[1] * w[0];
                float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                for (int k = 0; k < 3; k++, v++) {
                    memcpy(mesh->positions + 3 * (size_t)v, p[k], sizeof p[k]);
                    for (int c = 0; c < 3; c++)
                        mesh->normals[3 * (size_t)v + c] = n[c] / length;
                    mesh->indices[v] = v;
                }
            }
        }
    mesh->submesh_count = 1;
    mesh->submeshes = calloc(1, sizeof *mesh->submeshes);
    mesh->submeshes[0] = (ir_submesh){.index_count = mesh->index_count};
}

static void make_flat_shaded_torus(ir_mesh *mesh) {
    make_flat_shaded_torus_of(mesh, RING, TUBE);
}

/* How far a point is from the ideal torus. */
static double torus_distance(const float *p) {
    double ring = sqrt((double)p[0] * p[0] + (double)p[1] * p[1]) - RING_RADIUS;
    return fabs(sqrt(ring * ring + (double)p[2] * p[2]) - TUBE_RADIUS);
}

/* The largest distance from the ideal torus of the triangles' centroids and
 * edge midpoints (their corners are level 0's, on it). */
static double largest_torus_distance(const float *positions, const uint32_t *indices,
                                     size_t count) {
    double largest = 0.0;
    for (size_t t = 0; t < count; t += 3) {
        const float *c[3];
        for (int k = 0; k < 3; k++)
            c[k] = positions + 3 * (size_t)indices[t + (size_t)k];
        float samples[4][3];
        for (int d = 0; d < 3; d++) {
            samples[0][d] = (c[0][d] + c[1][d] + c[2][d]) / 3.0f;
            for (int k = 0; k < 3; k++)
                samples[1 + k][d] = 0.5f * (c[k][d] + c[(k + 1) % 3][d]);
        }
        for (int s = 0; s < 4; s++) {
            double d = torus_distance(samples[s]);
            largest = d > largest ? d : largest;
        }
    }
    return largest;
}

/* Every position of the flat-shaded torus is locked for kiln's simplifier:
 * its session makes nothing of level 1. That level is then the welded
 * session's, at most the target, its triangles nearer the torus than those of
 * meshoptimizer's sloppy simplifier on level 0 at the same count (the
 * fallback it had before, which stops at 888 triangles; measured: 0.095
 * against 0.183 at 512). */
static void a_stalled_level_is_made_welded_and_nearer_than_the_grid(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_simplifier = COOK_SIMPLIFIER_KILN;
    settings.mesh_meshlets = false;
    ir_mesh mesh;
    make_flat_shaded_torus(&mesh);
    assert_true(process_build_lods(&mesh, &settings));
    assert_int_equal(mesh.lod_count, 3);
    const ir_lod *lod = &mesh.lods[1];
    const uint32_t *level = mesh.indices + lod->index_offset;
    assert_false(lod->reused);
    size_t target = (size_t)(mesh.submeshes[0].index_count * settings.mesh_lod_ratios[0]) / 3 * 3;
    assert_true(lod->index_count <= target);

    uint32_t *sloppy = malloc(mesh.submeshes[0].index_count * sizeof *sloppy);
    size_t sloppy_count =
        meshopt_simplifySloppy(sloppy, mesh.indices, mesh.submeshes[0].index_count, mesh.positions,
                               mesh.vertex_count, 3 * sizeof(float), lod->index_count, 1.0f, NULL);
    assert_true(sloppy_count > 0);
    double distance = largest_torus_distance(mesh.positions, level, lod->index_count);
    double sloppy_distance = largest_torus_distance(mesh.positions, sloppy, sloppy_count);
    print_message("level 1: %u triangles, %.4f from the torus; sloppy: %zu triangles, %.4f\n",
                  lod->index_count / 3, distance, sloppy_count / 3, sloppy_distance);
    assert_true(distance < 0.75 * sloppy_distance);
    free(sloppy);

    /* Every corner: of the vertices at its position, the one whose normal is
     * nearest its triangle's direction. */
    for (size_t t = 0; t < lod->index_count; t += 3) {
        const float *a = mesh.positions + 3 * (size_t)level[t],
                    *b = mesh.positions + 3 * (size_t)level[t + 1],
                    *c = mesh.positions + 3 * (size_t)level[t + 2];
        float n[3] = {(b[1] - a[1]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[1] - a[1]),
                      (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]),
                      (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])};
        for (int k = 0; k < 3; k++) {
            uint32_t v = level[t + (size_t)k];
            const float *p = mesh.positions + 3 * (size_t)v;
            const float *m = mesh.normals + 3 * (size_t)v;
            float chosen = m[0] * n[0] + m[1] * n[1] + m[2] * n[2];
            for (uint32_t other = 0; other < mesh.vertex_count; other++) {
                const float *q = mesh.positions + 3 * (size_t)other;
                if (q[0] != p[0] || q[1] != p[1] || q[2] != p[2])
                    continue;
                const float *o = mesh.normals + 3 * (size_t)other;
                assert_true(o[0] * n[0] + o[1] * n[1] + o[2] * n[2] <= chosen);
            }
        }
    }
    ir_mesh_free(&mesh);
}

static int triangle_order(const void *a, const void *b) {
    return memcmp(a, b, 3 * sizeof(uint32_t));
}

/* Above 8,192 triangles the welded fallback is not tried (measuring it
 * against the old one would cost more than the LOD step): a flat-shaded
 * torus of 9,216 triangles gets the old fallback's level, meshoptimizer's
 * sloppy simplifier on level 0 towards the target with the sloppy bound
 * (0.05), the same triangles in the vertex cache order. */
static void above_the_bound_the_old_fallback_makes_the_level(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_simplifier = COOK_SIMPLIFIER_KILN;
    settings.mesh_meshlets = false;
    ir_mesh mesh;
    make_flat_shaded_torus_of(&mesh, 96, 48);
    size_t count = mesh.submeshes[0].index_count;
    assert_true(count / 3 > 8192);
    uint32_t *expected = malloc(count * sizeof *expected);
    assert_non_null(expected);
    size_t target = (size_t)(count * settings.mesh_lod_ratios[0]) / 3 * 3;
    size_t expected_count =
        meshopt_simplifySloppy(expected, mesh.indices, count, mesh.positions, mesh.vertex_count,
                               3 * sizeof(float), target, 0.05f, NULL);
    assert_true(expected_count > 0 && expected_count < count * 9 / 10);
    assert_true(process_build_lods(&mesh, &settings));
    const ir_lod *lod = &mesh.lods[1];
    assert_false(lod->reused);
    assert_int_equal(lod->index_count, expected_count);
    uint32_t *got = malloc(expected_count * sizeof *got);
    assert_non_null(got);
    memcpy(got, mesh.indices + lod->index_offset, expected_count * sizeof *got);
    qsort(got, expected_count / 3, 3 * sizeof *got, triangle_order);
    qsort(expected, expected_count / 3, 3 * sizeof *expected, triangle_order);
    assert_memory_equal(got, expected, expected_count * sizeof *got);
    free(got);
    free(expected);
    ir_mesh_free(&mesh);
}

/* A smooth torus with texture coordinates: (RING + 1) x (TUBE + 1) vertices,
 * u = i / RING around the axis and v = j / TUBE around the tube, so the
 * seams u = 0 | 1 and v = 0 | 1 have two vertices a position with the same
 * normal (computed once per position) and different coordinates. */
static void make_textured_torus(ir_mesh *mesh) {
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = (RING + 1) * (TUBE + 1);
    mesh->positions = malloc((size_t)mesh->vertex_count * 3 * sizeof(float));
    mesh->normals = malloc((size_t)mesh->vertex_count * 3 * sizeof(float));
    mesh->texcoords[0] = malloc((size_t)mesh->vertex_count * 2 * sizeof(float));
    for (uint32_t i = 0; i <= RING; i++)
        for (uint32_t j = 0; j <= TUBE; j++) {
            size_t v = (size_t)i * (TUBE + 1) + j;
            torus_point(i, j, mesh->positions + 3 * v);
            double u = 2.0 * M_PI * (double)(i % RING) / RING;
            double t = 2.0 * M_PI * (double)(j % TUBE) / TUBE;
            mesh->normals[3 * v] = (float)(cos(t) * cos(u));
            mesh->normals[3 * v + 1] = (float)(cos(t) * sin(u));
            mesh->normals[3 * v + 2] = (float)sin(t);
            mesh->texcoords[0][2 * v] = (float)i / RING;
            mesh->texcoords[0][2 * v + 1] = (float)j / TUBE;
        }
    mesh->index_count = 6 * RING * TUBE;
    mesh->indices = malloc((size_t)mesh->index_count * sizeof(uint32_t));
    uint32_t *out = mesh->indices;
    for (uint32_t i = 0; i < RING; i++)
        for (uint32_t j = 0; j < TUBE; j++) {
            uint32_t a = i * (TUBE + 1) + j, b = a + TUBE + 1, c = b + 1, d = a + 1;
            const uint32_t quad[6] = {a, b, c, a, c, d};
            memcpy(out, quad, sizeof quad);
            out += 6;
        }
    mesh->submesh_count = 1;
    mesh->submeshes = calloc(1, sizeof *mesh->submeshes);
    mesh->submeshes[0] = (ir_submesh){.index_count = mesh->index_count};
}

static float spread_of(const float *uv, const uint32_t c[3]) {
    float spread = 0.0f;
    for (int k = 0; k < 3; k++) {
        const float *p = uv + 2 * (size_t)c[k], *q = uv + 2 * (size_t)c[(k + 1) % 3];
        spread += (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]);
    }
    return spread;
}

/* The vertices at v's position with v's normal (a linear search). */
static uint32_t same_place(const ir_mesh *mesh, uint32_t v, uint32_t out[8]) {
    uint32_t count = 0;
    for (uint32_t o = 0; o < mesh->vertex_count && count < 8; o++)
        if (memcmp(mesh->positions + 3 * (size_t)o, mesh->positions + 3 * (size_t)v,
                   3 * sizeof(float)) == 0 &&
            memcmp(mesh->normals + 3 * (size_t)o, mesh->normals + 3 * (size_t)v,
                   3 * sizeof(float)) == 0)
            out[count++] = o;
    return count;
}

/* The welded session on the textured torus, halved: every triangle's
 * corners, of the vertices at their positions with the same normals, are
 * the three whose texture coordinates lie closest together (the sum of
 * squared edge lengths in texture space), so a triangle on a seam takes one
 * side's coordinates; the first vertex of each position (u = 0 on the
 * ring's seam) would stretch the triangles beside u = 1 over the texture. */
static void welded_triangles_take_one_side_of_a_texture_seam(void **state) {
    (void)state;
    ir_mesh mesh;
    make_textured_torus(&mesh);
    welded_session *welded = welded_begin(&mesh, mesh.indices, mesh.index_count);
    assert_non_null(welded);
    uint32_t *level = malloc(mesh.index_count * sizeof *level);
    float error = 0.0f;
    size_t count = welded_continue(welded, mesh.index_count / 2, 1.0f, level, &error);
    welded_end(welded);
    assert_true(count > 0 && count <= mesh.index_count / 2);
    const float *uv = mesh.texcoords[0];
    size_t on_seams = 0;
    for (size_t t = 0; t < count; t += 3) {
        uint32_t places[3][8], n[3];
        for (int k = 0; k < 3; k++)
            n[k] = same_place(&mesh, level[t + (size_t)k], places[k]);
        on_seams += n[0] * n[1] * n[2] > 1;
        float chosen = spread_of(uv, level + t);
        for (uint32_t a = 0; a < n[0]; a++)
            for (uint32_t b = 0; b < n[1]; b++)
                for (uint32_t c = 0; c < n[2]; c++) {
                    const uint32_t other[3] = {places[0][a], places[1][b], places[2][c]};
                    assert_true(chosen <= spread_of(uv, other));
                }
    }
    print_message("%zu triangles, %zu with a corner on a seam\n", count / 3, on_seams);
    assert_true(on_seams > 0);
    free(level);
    ir_mesh_free(&mesh);
}

/* surface_distance on squares whose distances are known: a unit square
 * against the same square raised by 0.25 (every sample 0.25 away, both
 * ways), and against itself (every sample on it). */
/* Thin triangles across the whole box over a grid that small triangles make
 * fine: each would be listed in every cell (300 of them in 2^24 cells, past
 * the 32-bit counts); the grid is made coarser until it lists at most 2^26
 * entries, and still finds a point on a sliver at distance 0. */
static void a_sliver_grid_stays_bounded(void **state) {
    (void)state;
    const uint32_t tiny = 2000, slivers = 300;
    size_t vertex_count = 3 * (size_t)(tiny + slivers);
    float *positions = malloc(vertex_count * 3 * sizeof *positions);
    uint32_t *indices = malloc(vertex_count * sizeof *indices);
    assert_true(positions && indices);
    uint32_t seed = 5;
    for (uint32_t t = 0; t < tiny + slivers; t++) {
        float base[3];
        for (int k = 0; k < 3; k++) {
            seed = seed * 1664525u + 1013904223u;
            base[k] = (float)(seed >> 8) / 16777216.0f;
        }
        for (uint32_t c = 0; c < 3; c++) {
            float *p = positions + 9 * (size_t)t + 3 * c;
            if (t < tiny) { /* a triangle 1e-4 across */
                for (int k = 0; k < 3; k++)
                    p[k] = base[k] * 0.999f + (c == (uint32_t)k ? 1e-4f : 0.0f);
            } else { /* the box's diagonal, and a point just off it */
                for (int k = 0; k < 3; k++)
                    p[k] = c == 0 ? 0.0f : (c == 1 ? 1.0f : 1.0f - (k == 0 ? 1e-3f : 0.0f));
            }
            indices[3 * t + c] = 3 * t + c;
        }
    }
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    triangle_grid grid;
    assert_true(triangle_grid_build(&grid, positions, indices, vertex_count, lo, hi));
    size_t cells = (size_t)grid.dims[0] * grid.dims[1] * grid.dims[2];
    assert_true(grid.starts[cells] <= ((size_t)1 << 26));
    assert_true(grid.starts[cells] >= tiny + slivers); /* every triangle listed */
    const float on_sliver[3] = {0.5f, 0.5f, 0.5f};
    assert_true(triangle_grid_distance(&grid, on_sliver) < 1e-6);
    triangle_grid_free(&grid);
    free(indices);
    free(positions);
}

static void surface_distance_of_squares(void **state) {
    (void)state;
    const float positions[] = {0, 0, 0,     1, 0, 0,     1, 1, 0,     0, 1, 0,
                               0, 0, 0.25f, 1, 0, 0.25f, 1, 1, 0.25f, 0, 1, 0.25f};
    const uint32_t low[] = {0, 1, 2, 0, 2, 3}, high[] = {4, 5, 6, 4, 6, 7};
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0.25f};
    double max = 0.0, mean = 0.0;
    bool ok = false;
    surface_distance(positions, low, 6, high, 6, lo, hi, &max, &mean, &ok);
    assert_true(ok);
    assert_float_equal(max, 0.25, 1e-6);
    assert_float_equal(mean, 0.25, 1e-6);
    /* The same square against itself: every sample on the other. */
    surface_distance(positions, low, 6, low, 6, lo, hi, &max, &mean, &ok);
    assert_true(ok);
    assert_float_equal(max, 0.0, 0.0);
    assert_float_equal(mean, 0.0, 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(surface_distance_of_squares),
        cmocka_unit_test(a_sliver_grid_stays_bounded),
        cmocka_unit_test(a_stalled_level_is_made_welded_and_nearer_than_the_grid),
        cmocka_unit_test(welded_triangles_take_one_side_of_a_texture_seam),
        cmocka_unit_test(above_the_bound_the_old_fallback_makes_the_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
