/* test_mesh_order.c — the vertex cache and overdraw order chunk by chunk
 * (process/order.c): every triangle kept exactly once, each chunk's triangles
 * contiguous and in curve order, the vertex cache improved, the same result
 * on any thread count, and small submeshes ordered whole as before. */
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
// clang-format on

#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

/* An n x n grid of quads as one submesh, its triangles scrambled (so that
 * there is something to order and no chunk lies in source order), welded:
 * (n + 1)^2 vertices, 2 n^2 triangles. */
static void make_scrambled_grid(ir_mesh *mesh, uint32_t n, unsigned seed) {
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = (n + 1) * (n + 1);
    mesh->positions = malloc((size_t)mesh->vertex_count * 3 * sizeof(float));
    for (uint32_t y = 0; y <= n; y++)
        for (uint32_t x = 0; x <= n; x++) {
            float *p = mesh->positions + 3 * ((size_t)y * (n + 1) + x);
            p[0] = (float)x;
            p[1] = (float)y;
            p[2] = 0.25f * sinf((float)x * 0.3f) * cosf((float)y * 0.2f);
        }
    uint32_t triangles = 2 * n * n;
    mesh->index_count = 3 * triangles;
    mesh->indices = malloc((size_t)mesh->index_count * sizeof(uint32_t));
    uint32_t *out = mesh->indices;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            uint32_t a = y * (n + 1) + x, b = a + 1, c = a + n + 2, d = a + n + 1;
            const uint32_t quad[6] = {a, b, c, a, c, d};
            memcpy(out, quad, sizeof quad);
            out += 6;
        }
    srand(seed);
    for (uint32_t t = triangles - 1; t > 0; t--) {
        uint32_t u = (uint32_t)rand() % (t + 1);
        for (int k = 0; k < 3; k++) {
            uint32_t swap = mesh->indices[3 * t + (uint32_t)k];
            mesh->indices[3 * t + (uint32_t)k] = mesh->indices[3 * u + (uint32_t)k];
            mesh->indices[3 * u + (uint32_t)k] = swap;
        }
    }
    mesh->submesh_count = 1;
    mesh->submeshes = calloc(1, sizeof *mesh->submeshes);
    mesh->submeshes[0] = (ir_submesh){.index_count = mesh->index_count};
}

/* A triangle with its winding, independent of which corner comes first:
 * rotated so that its smallest vertex leads. */
static uint64_t winding_key(const uint32_t *t) {
    int first = t[1] < t[0] ? (t[2] < t[1] ? 2 : 1) : (t[2] < t[0] ? 2 : 0);
    uint64_t a = t[first], b = t[(first + 1) % 3], c = t[(first + 2) % 3];
    return a << 42 | b << 21 | c;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The sorted winding keys of triangles [first, end) of `indices`. */
static uint64_t *sorted_keys(const uint32_t *indices, size_t first, size_t end) {
    uint64_t *keys = malloc((end - first + 1) * sizeof *keys);
    for (size_t t = first; t < end; t++)
        keys[t - first] = winding_key(indices + 3 * t);
    qsort(keys, end - first, sizeof *keys, compare_u64);
    return keys;
}

/* The chunks the order step should have used: the triangles along the
 * Morton curve (mesh_sort_spatially, tested in test_mesh_process) cut into
 * `count` ranges, each holding its own triangles, in any order. On a square
 * grid of 2^k quads a side the even cuts (chunk c: triangles T c / count up
 * to T (c + 1) / count) are block boundaries of the curve, where
 * mesh_curve_cuts keeps them. `count` is 8 here. */
static void check_chunks(const uint32_t *before, const ir_mesh *after, uint32_t count) {
    size_t triangles = after->index_count / 3;
    /* Every triangle exactly once, windings kept. */
    uint64_t *all_before = sorted_keys(before, 0, triangles);
    uint64_t *all_after = sorted_keys(after->indices, 0, triangles);
    assert_memory_equal(all_before, all_after, triangles * sizeof *all_after);
    free(all_before);
    free(all_after);

    uint32_t *expected = malloc(after->index_count * sizeof *expected);
    memcpy(expected, before, after->index_count * sizeof *expected);
    assert_true(mesh_sort_spatially(after->positions, expected, after->index_count));
    for (uint32_t c = 0; c < count; c++) {
        size_t first = triangles * c / count, end = triangles * (c + 1) / count;
        uint64_t *want = sorted_keys(expected, first, end);
        uint64_t *got = sorted_keys(after->indices, first, end);
        assert_memory_equal(want, got, (end - first) * sizeof *got);
        free(want);
        free(got);
        /* And, without the sort: an eighth of the curve over a square grid
         * is two of its sixteen sub-squares, so a chunk spans at most half
         * the grid each way (a scrambled range spans all of it). */
        float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (size_t i = 3 * first; i < 3 * end; i++)
            for (int a = 0; a < 2; a++) {
                float v = after->positions[3 * (size_t)after->indices[i] + (size_t)a];
                lo[a] = fminf(lo[a], v);
                hi[a] = fmaxf(hi[a], v);
            }
        float side = sqrtf((float)triangles / 2.0f);
        assert_true(hi[0] - lo[0] <= side / 2 && hi[1] - lo[1] <= side / 2);
    }
    free(expected);
}

static float acmr(const ir_mesh *mesh, size_t first, size_t end) {
    return meshopt_analyzeVertexCache(mesh->indices + 3 * first, 3 * (end - first),
                                      mesh->vertex_count, 16, 0, 0)
        .acmr;
}

static void chunked_order_with(cook_vertex_cache cache) {
    const uint32_t n = 64; /* 8192 triangles */
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_vertex_cache = cache;
    settings.mesh_chunk_triangles = 1000; /* 8 chunks of 1024 */
    settings.threads = 3;
    ir_mesh mesh;
    make_scrambled_grid(&mesh, n, 11);
    uint32_t *before = malloc(mesh.index_count * sizeof *before);
    memcpy(before, mesh.indices, mesh.index_count * sizeof *before);
    float scrambled = acmr(&mesh, 0, mesh.index_count / 3);

    assert_true(process_optimize_order(&mesh, &settings));
    check_chunks(before, &mesh, 8);
    /* Each chunk is ordered for the cache, not just cut: a scrambled grid
     * transforms ~2.9 vertices per triangle, an ordered one less than 0.8. */
    for (uint32_t c = 0; c < 8; c++) {
        size_t first = 1024 * (size_t)c, end = first + 1024;
        print_message("chunk %u: ACMR %.3f\n", c, (double)acmr(&mesh, first, end));
        assert_true(acmr(&mesh, first, end) < 0.8f);
    }
    float whole = acmr(&mesh, 0, mesh.index_count / 3);
    print_message("ACMR %.3f -> %.3f\n", (double)scrambled, (double)whole);
    assert_true(whole < scrambled * 0.3f);
    free(before);
    ir_mesh_free(&mesh);
}

static void chunked_order_keeps_each_triangle_once_and_chunks_contiguous(void **state) {
    (void)state;
    chunked_order_with(COOK_VERTEX_CACHE_MESHOPT);
}

/* mesh.vertex_cache kiln: the same guarantees through kiln's order. */
static void kilns_cache_order_keeps_the_chunks_and_orders_each(void **state) {
    (void)state;
    chunked_order_with(COOK_VERTEX_CACHE_KILN);
}

static void chunked_order_is_the_same_on_1_and_2_threads(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_chunk_triangles = 700;
    ir_mesh one, two;
    make_scrambled_grid(&one, 48, 5);
    make_scrambled_grid(&two, 48, 5);
    settings.threads = 1;
    assert_true(process_optimize_order(&one, &settings));
    settings.threads = 2;
    assert_true(process_optimize_order(&two, &settings));
    assert_memory_equal(one.indices, two.indices, one.index_count * sizeof *one.indices);
    ir_mesh_free(&one);
    ir_mesh_free(&two);
}

/* Below two chunks' worth a submesh is ordered whole, by the same calls as
 * before chunking existed (the vertex cache order, then meshoptimizer's
 * overdraw order): the bytes of small meshes do not change. */
static void small_submesh_is_ordered_whole_with(cook_vertex_cache cache) {
    cook_settings settings;
    cook_settings_default(&settings); /* 65536-triangle chunks */
    settings.mesh_vertex_cache = cache;
    ir_mesh mesh;
    make_scrambled_grid(&mesh, 40, 3); /* 3200 triangles */
    uint32_t *expected = malloc(mesh.index_count * sizeof *expected);
    if (cache == COOK_VERTEX_CACHE_MESHOPT) {
        meshopt_optimizeVertexCache(expected, mesh.indices, mesh.index_count, mesh.vertex_count);
    } else {
        memcpy(expected, mesh.indices, mesh.index_count * sizeof *expected);
        assert_true(vertex_cache_order(expected, mesh.index_count, mesh.vertex_count));
    }
    meshopt_optimizeOverdraw(expected, expected, mesh.index_count, mesh.positions,
                             mesh.vertex_count, 3 * sizeof(float), 1.05f);
    assert_true(process_optimize_order(&mesh, &settings));
    assert_memory_equal(expected, mesh.indices, mesh.index_count * sizeof *expected);
    free(expected);
    ir_mesh_free(&mesh);
}

static void small_submesh_is_ordered_whole(void **state) {
    (void)state;
    small_submesh_is_ordered_whole_with(COOK_VERTEX_CACHE_KILN); /* the default */
    small_submesh_is_ordered_whole_with(COOK_VERTEX_CACHE_MESHOPT);
}

/* Cuts stay ordered, within half a chunk of the even cut, and on a grid
 * whose even cuts fall inside curve blocks (48 is no power of 2) move to
 * where the chunk is more compact than the even range. */
static void curve_cuts_stay_near_even_cuts_and_make_compact_chunks(void **state) {
    (void)state;
    ir_mesh mesh;
    make_scrambled_grid(&mesh, 48, 9); /* 4608 triangles */
    assert_true(mesh_sort_spatially(mesh.positions, mesh.indices, mesh.index_count));
    const uint32_t count = 3, triangles = mesh.index_count / 3;
    uint32_t cuts[4];
    assert_true(mesh_curve_cuts(mesh.positions, mesh.indices, mesh.index_count, count, cuts));
    assert_int_equal(cuts[0], 0);
    assert_int_equal(cuts[count], triangles);
    uint32_t even_border = 0, cut_border = 0;
    for (uint32_t c = 0; c < count; c++) {
        assert_true(cuts[c] <= cuts[c + 1]);
        uint32_t even = triangles * c / count;
        assert_true(cuts[c] + triangles / count / 2 >= even &&
                    cuts[c] <= even + triangles / count / 2);
        /* Border: vertices of the chunk that another chunk also uses. */
        for (int which = 0; which < 2; which++) {
            uint32_t first = which ? cuts[c] : even,
                     end = which ? cuts[c + 1] : triangles * (c + 1) / count;
            uint8_t *inside = calloc(mesh.vertex_count, 1), *outside = calloc(mesh.vertex_count, 1);
            for (uint32_t i = 0; i < mesh.index_count; i++)
                (i >= 3 * first && i < 3 * end ? inside : outside)[mesh.indices[i]] = 1;
            for (uint32_t v = 0; v < mesh.vertex_count; v++)
                *(which ? &cut_border : &even_border) += inside[v] && outside[v];
            free(inside);
            free(outside);
        }
    }
    print_message("border vertices: even cuts %u, curve cuts %u\n", even_border, cut_border);
    assert_true(cut_border < even_border);
    ir_mesh_free(&mesh);
}

/* The curve sort on several threads against the curve written out here: the
 * centroids' box, cubic cells of 1024 per side, Morton codes with x in the
 * lowest bit, triangles ordered by code and then by source position (qsort of
 * code << 32 | triangle). The grid twice over (the copy on copied vertices)
 * is ten of the sort's blocks of 16,384 triangles, and every copy's code
 * equals its original's, so equal codes must keep their source order. The codes the sort gives must
 * be the sorted triangles' codes, and the cuts made from them mesh_curve_cuts' own. */
static uint32_t spread_bits(uint32_t v) {
    uint32_t out = 0;
    for (uint32_t bit = 0; bit < 10; bit++)
        out |= ((v >> bit) & 1u) << (3 * bit);
    return out;
}

static void curve_sort_on_threads_matches_the_curve_written_out(void **state) {
    (void)state;
    ir_mesh grid;
    make_scrambled_grid(&grid, 200, 5); /* 80,000 triangles */
    /* Twice over: the copy's triangles use copies of the vertices. */
    const uint32_t vertices = 2 * grid.vertex_count, index_count = 2 * grid.index_count;
    const uint32_t triangles = index_count / 3;
    float *positions = malloc(3 * (size_t)vertices * sizeof *positions);
    uint32_t *indices = malloc(index_count * sizeof *indices);
    for (uint32_t k = 0; k < 2; k++) {
        memcpy(positions + 3 * (size_t)k * grid.vertex_count, grid.positions,
               3 * (size_t)grid.vertex_count * sizeof *positions);
        for (uint32_t i = 0; i < grid.index_count; i++)
            indices[k * grid.index_count + i] = grid.indices[i] + k * grid.vertex_count;
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    float *centroids = malloc(3 * (size_t)triangles * sizeof *centroids);
    for (uint32_t t = 0; t < triangles; t++)
        for (int a = 0; a < 3; a++) {
            const uint32_t *tri = indices + 3 * t;
            float c = (positions[3 * (size_t)tri[0] + a] + positions[3 * (size_t)tri[1] + a] +
                       positions[3 * (size_t)tri[2] + a]) *
                      (1.0f / 3.0f);
            centroids[3 * t + (uint32_t)a] = c;
            lo[a] = fminf(lo[a], c);
            hi[a] = fmaxf(hi[a], c);
        }
    float extent = fmaxf(fmaxf(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
    float scale = 1023.0f / extent;
    uint64_t *keys = malloc(triangles * sizeof *keys);
    for (uint32_t t = 0; t < triangles; t++) {
        uint32_t code = 0;
        for (int a = 0; a < 3; a++) {
            float q = (centroids[3 * t + (uint32_t)a] - lo[a]) * scale;
            uint32_t cell = q > 0.0f ? (q < 1024.0f ? (uint32_t)q : 1023u) : 0u;
            code |= spread_bits(cell) << a;
        }
        keys[t] = (uint64_t)code << 32 | t;
    }
    qsort(keys, triangles, sizeof *keys, compare_u64);

    uint32_t *sorted = malloc(index_count * sizeof *sorted);
    uint32_t *codes = malloc(triangles * sizeof *codes);
    memcpy(sorted, indices, index_count * sizeof *sorted);
    uint32_t *copy = malloc(index_count * sizeof *copy);
    assert_true(mesh_sort_spatially_on(4, positions, sorted, index_count, codes, copy));
    assert_memory_equal(copy, sorted, index_count * sizeof *copy); /* the same sort, twice */
    free(copy);
    uint32_t equal_codes = 0;
    for (uint32_t t = 0; t < triangles; t++) {
        uint32_t source = (uint32_t)keys[t];
        assert_memory_equal(sorted + 3 * t, indices + 3 * source, 3 * sizeof *sorted);
        assert_int_equal(codes[t], keys[t] >> 32);
        equal_codes += t > 0 && codes[t] == codes[t - 1];
    }
    assert_true(equal_codes >= triangles / 2); /* every copy next to its original */

    uint32_t cuts[6], expected[6];
    mesh_curve_cuts_of(codes, triangles, 5, cuts);
    assert_true(mesh_curve_cuts(positions, sorted, index_count, 5, expected));
    assert_memory_equal(cuts, expected, sizeof cuts);
    free(positions);
    free(indices);
    free(centroids);
    free(keys);
    free(sorted);
    free(codes);
    ir_mesh_free(&grid);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunked_order_keeps_each_triangle_once_and_chunks_contiguous),
        cmocka_unit_test(kilns_cache_order_keeps_the_chunks_and_orders_each),
        cmocka_unit_test(chunked_order_is_the_same_on_1_and_2_threads),
        cmocka_unit_test(small_submesh_is_ordered_whole),
        cmocka_unit_test(curve_cuts_stay_near_even_cuts_and_make_compact_chunks),
        cmocka_unit_test(curve_sort_on_threads_matches_the_curve_written_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
