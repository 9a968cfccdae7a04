/* test_meshlet_build.c — kiln's meshlet builder (process/meshlet_build.c) and
 * its nearest-triangle search (process/meshlet_seed.c).
 *
 * Every build is checked against the input by an independent count: each
 * input triangle (its three vertex numbers, in order) appears in exactly one
 * meshlet, limits hold, each meshlet's vertex list has no duplicates and is
 * exactly the set of vertices its triangles use, and the layout is dense. The
 * nearest search is checked against a brute-force scan. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cook/process/meshlet_build.h"

typedef struct triple {
    uint32_t v[3];
} triple;

static int compare_triples(const void *a, const void *b) {
    return memcmp(a, b, sizeof(triple)) < 0 ? -1 : memcmp(a, b, sizeof(triple)) > 0;
}

/* A deterministic pseudo-random sequence (xorshift32). */
static uint32_t next_random(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

typedef struct built {
    meshlet_span *meshlets;
    size_t count;
    uint32_t *vertices;
    uint8_t *triangles;
} built;

static void free_built(built *b) {
    free(b->meshlets);
    free(b->vertices);
    free(b->triangles);
}

/* Whether build() calls meshlet_build_sorted instead of meshlet_build. */
static bool use_sorted;

static bool build(const uint32_t *indices, size_t index_count, const float *positions,
                  size_t vertex_count, size_t max_vertices, size_t max_triangles, built *out) {
    size_t bound = meshlet_build_bound(index_count, max_vertices, max_triangles);
    out->meshlets = malloc((bound + 1) * sizeof *out->meshlets);
    out->vertices = malloc((index_count + 1) * sizeof *out->vertices);
    out->triangles = malloc(index_count + 1);
    assert_non_null(out->meshlets);
    assert_non_null(out->vertices);
    assert_non_null(out->triangles);
    out->count = SIZE_MAX;
    bool ok = (use_sorted ? meshlet_build_sorted : meshlet_build)(
        out->meshlets, out->vertices, out->triangles, &out->count, indices, index_count, positions,
        vertex_count, max_vertices, max_triangles, 0.25f);
    if (ok)
        assert_true(out->count <= bound);
    return ok;
}

/* Builds and checks everything the header promises; returns the meshlets. */
static built check_build(const uint32_t *indices, size_t index_count, const float *positions,
                         size_t vertex_count, size_t max_vertices, size_t max_triangles) {
    built b;
    assert_true(
        build(indices, index_count, positions, vertex_count, max_vertices, max_triangles, &b));
    size_t triangle_count = index_count / 3;
    triple *expected = malloc((triangle_count + 1) * sizeof *expected);
    triple *found = malloc((triangle_count + 1) * sizeof *found);
    uint32_t *seen = calloc(vertex_count + 1, sizeof *seen); /* meshlet number + 1 */
    assert_non_null(expected);
    assert_non_null(found);
    assert_non_null(seen);
    for (size_t t = 0; t < triangle_count; t++)
        memcpy(expected[t].v, indices + 3 * t, sizeof expected[t].v);

    size_t found_count = 0, vertex_total = 0;
    for (size_t m = 0; m < b.count; m++) {
        const meshlet_span *s = &b.meshlets[m];
        /* Dense: each meshlet starts where the one before ended. */
        assert_int_equal(s->vertex_offset, vertex_total);
        assert_int_equal(s->triangle_offset, found_count);
        assert_true(s->triangle_count >= 1 && s->triangle_count <= max_triangles);
        assert_true(s->vertex_count >= 1 && s->vertex_count <= max_vertices);
        /* No vertex twice in one list. */
        for (uint32_t i = 0; i < s->vertex_count; i++) {
            uint32_t v = b.vertices[s->vertex_offset + i];
            assert_true(v < vertex_count);
            assert_int_not_equal(seen[v], m + 1);
            seen[v] = (uint32_t)m + 1;
        }
        /* Each listed vertex used by a triangle, each corner a listed one. */
        bool used[MESHLET_BUILD_MAX_VERTICES] = {false};
        for (uint32_t t = 0; t < s->triangle_count; t++) {
            triple *tri = &found[found_count++];
            for (int k = 0; k < 3; k++) {
                uint8_t local = b.triangles[3 * ((size_t)s->triangle_offset + t) + (size_t)k];
                assert_true(local < s->vertex_count);
                used[local] = true;
                tri->v[k] = b.vertices[s->vertex_offset + local];
            }
        }
        for (uint32_t i = 0; i < s->vertex_count; i++)
            assert_true(used[i]);
        vertex_total += s->vertex_count;
    }
    /* Every triangle exactly once: the same multiset, sorted, equal. */
    assert_int_equal(found_count, triangle_count);
    qsort(expected, triangle_count, sizeof *expected, compare_triples);
    qsort(found, found_count, sizeof *found, compare_triples);
    assert_memory_equal(expected, found, triangle_count * sizeof *found);
    free(expected);
    free(found);
    free(seen);
    return b;
}

/* An n x n grid of quads in the z = 0 plane, two triangles each, in rows. */
static void make_grid(uint32_t n, uint32_t **indices, size_t *index_count, float **positions,
                      size_t *vertex_count) {
    *vertex_count = (size_t)(n + 1) * (n + 1);
    *index_count = (size_t)6 * n * n;
    *positions = malloc(*vertex_count * 3 * sizeof **positions);
    *indices = malloc(*index_count * sizeof **indices);
    assert_non_null(*positions);
    assert_non_null(*indices);
    for (uint32_t y = 0; y <= n; y++)
        for (uint32_t x = 0; x <= n; x++) {
            float *p = *positions + 3 * ((size_t)y * (n + 1) + x);
            p[0] = (float)x;
            p[1] = (float)y;
            p[2] = 0.0f;
        }
    size_t i = 0;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            uint32_t a = y * (n + 1) + x, b = a + 1, c = a + n + 1, d = c + 1;
            uint32_t quad[6] = {a, b, d, a, d, c};
            memcpy(*indices + i, quad, sizeof quad);
            i += 6;
        }
}

static void every_triangle_once_within_limits_on_a_grid(void **state) {
    (void)state;
    uint32_t *indices;
    float *positions;
    size_t index_count, vertex_count;
    make_grid(40, &indices, &index_count, &positions, &vertex_count);
    const size_t limits[][2] = {{64, 124}, {3, 1}, {3, 512}, {255, 1}, {255, 512}, {10, 7}};
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        built b =
            check_build(indices, index_count, positions, vertex_count, limits[l][0], limits[l][1]);
        if (limits[l][1] == 1)
            assert_int_equal(b.count, index_count / 3);
        if (limits[l][0] == 3) /* a triangle has 3 distinct corners here */
            assert_int_equal(b.count, index_count / 3);
        free_built(&b);
    }
    /* At the default limits a grid fills its meshlets: every vertex of the
     * 64 allowed in most of them (meshoptimizer gets 64.0 on average too). */
    built b = check_build(indices, index_count, positions, vertex_count, 64, 124);
    size_t full = 0;
    for (size_t m = 0; m < b.count; m++)
        full += b.meshlets[m].vertex_count >= 62;
    assert_true(full * 10 >= b.count * 9);
    free_built(&b);
    free(indices);
    free(positions);
}

static void the_same_input_gives_the_same_bytes(void **state) {
    (void)state;
    uint32_t *indices;
    float *positions;
    size_t index_count, vertex_count;
    make_grid(30, &indices, &index_count, &positions, &vertex_count);
    built a = check_build(indices, index_count, positions, vertex_count, 64, 124);
    built b = check_build(indices, index_count, positions, vertex_count, 64, 124);
    assert_int_equal(a.count, b.count);
    assert_memory_equal(a.meshlets, b.meshlets, a.count * sizeof *a.meshlets);
    size_t vertex_total = 0;
    for (size_t m = 0; m < a.count; m++)
        vertex_total += a.meshlets[m].vertex_count;
    assert_memory_equal(a.vertices, b.vertices, vertex_total * sizeof *a.vertices);
    assert_memory_equal(a.triangles, b.triangles, index_count);
    free_built(&a);
    free_built(&b);
    free(indices);
    free(positions);
}

static void degenerate_and_repeated_triangles(void **state) {
    (void)state;
    float positions[3 * 1002];
    for (size_t i = 0; i < 3 * 1002; i++)
        positions[i] = (float)(i % 7);
    static uint32_t indices[3 * 1000];

    /* One vertex for every corner of 1000 triangles. */
    memset(indices, 0, sizeof indices);
    built b = check_build(indices, 3000, positions, 1, 64, 124);
    assert_int_equal(b.count, (1000 + 123) / 124);
    free_built(&b);
    b = check_build(indices, 3000, positions, 1, 3, 1);
    assert_int_equal(b.count, 1000);
    free_built(&b);

    /* A fan of 1000 triangles around vertex 0 (more than a joining vertex
     * makes candidates at once), and its mirror. */
    for (uint32_t t = 0; t < 1000; t++) {
        indices[3 * t] = 0;
        indices[3 * t + 1] = 1 + t;
        indices[3 * t + 2] = 2 + t;
    }
    b = check_build(indices, 3000, positions, 1002, 64, 124);
    free_built(&b);
    b = check_build(indices, 3000, positions, 1002, 255, 512);
    free_built(&b);

    /* The same triangle 1000 times. */
    for (uint32_t t = 0; t < 1000; t++) {
        indices[3 * t] = 5;
        indices[3 * t + 1] = 6;
        indices[3 * t + 2] = 7;
    }
    b = check_build(indices, 3000, positions, 1002, 64, 124);
    assert_int_equal(b.count, (1000 + 123) / 124);
    free_built(&b);

    /* Corners repeated within triangles, mixed with proper ones. */
    uint32_t mixed[] = {0, 0, 1, 1, 2, 2, 0, 1, 2, 3, 3, 3, 2, 3, 4, 4, 4, 0};
    b = check_build(mixed, sizeof mixed / sizeof mixed[0], positions, 5, 3, 4);
    free_built(&b);
}

/* The first rule of the growth, replayed from the output (a meshlet's
 * triangles are stored in the order they joined it): after a meshlet's first
 * triangle, while some triangle not placed yet has all three corners among
 * the meshlet's vertices, the next triangle to join adds no vertex. */
static void triangles_adding_no_vertex_join_first(const uint32_t *indices, size_t index_count,
                                                  const float *positions, size_t vertex_count) {
    built b = check_build(indices, index_count, positions, vertex_count, 64, 124);
    size_t triangle_count = index_count / 3;
    /* Each input triangle's place in the output, by matching local corners
     * back to vertex numbers (the check above proved it is a bijection). */
    triple *output = malloc((triangle_count + 1) * sizeof *output);
    uint8_t *placed = calloc(triangle_count + 1, 1);
    uint8_t *in_meshlet = calloc(vertex_count + 1, 1);
    assert_non_null(output);
    assert_non_null(placed);
    assert_non_null(in_meshlet);
    size_t n = 0;
    for (size_t m = 0; m < b.count; m++)
        for (uint32_t t = 0; t < b.meshlets[m].triangle_count; t++, n++)
            for (int k = 0; k < 3; k++)
                output[n].v[k] =
                    b.vertices[b.meshlets[m].vertex_offset +
                               b.triangles[3 * ((size_t)b.meshlets[m].triangle_offset + t) +
                                           (size_t)k]];
    n = 0;
    size_t checked = 0;
    for (size_t m = 0; m < b.count; m++) {
        for (uint32_t t = 0; t < b.meshlets[m].triangle_count; t++, n++) {
            const uint32_t *next = output[n].v;
            if (t > 0) {
                bool closed_exists = false;
                for (size_t i = 0; i < triangle_count && !closed_exists; i++) {
                    const uint32_t *tri = indices + 3 * i;
                    closed_exists = !placed[i] && in_meshlet[tri[0]] && in_meshlet[tri[1]] &&
                                    in_meshlet[tri[2]];
                }
                if (closed_exists) {
                    assert_true(in_meshlet[next[0]] && in_meshlet[next[1]] && in_meshlet[next[2]]);
                    checked++;
                }
            }
            /* Mark the first unplaced input triangle with these corners. */
            for (size_t i = 0; i < triangle_count; i++) {
                if (!placed[i] && memcmp(indices + 3 * i, next, sizeof(triple)) == 0) {
                    placed[i] = 1;
                    break;
                }
            }
            for (int k = 0; k < 3; k++)
                in_meshlet[next[k]] = 1;
        }
        for (uint32_t v = 0; v < b.meshlets[m].vertex_count; v++)
            in_meshlet[b.vertices[b.meshlets[m].vertex_offset + v]] = 0;
    }
    assert_true(checked > 0); /* the rule was exercised */
    free(output);
    free(placed);
    free(in_meshlet);
    free_built(&b);
}

static void a_triangle_adding_no_vertex_is_taken_first(void **state) {
    (void)state;
    uint32_t *indices;
    float *positions;
    size_t index_count, vertex_count;
    make_grid(24, &indices, &index_count, &positions, &vertex_count);
    triangles_adding_no_vertex_join_first(indices, index_count, positions, vertex_count);
    /* The same grid with its triangles in a shuffled order. */
    uint32_t random = 99;
    for (size_t t = index_count / 3; t > 1; t--) {
        size_t other = next_random(&random) % t;
        triple swap;
        memcpy(&swap, indices + 3 * (t - 1), sizeof swap);
        memcpy(indices + 3 * (t - 1), indices + 3 * other, sizeof swap);
        memcpy(indices + 3 * other, &swap, sizeof swap);
    }
    triangles_adding_no_vertex_join_first(indices, index_count, positions, vertex_count);
    free(indices);
    free(positions);
}

static void no_triangles_make_no_meshlets(void **state) {
    (void)state;
    float position[3] = {0, 0, 0};
    built b;
    assert_true(build(NULL, 0, position, 1, 64, 124, &b));
    assert_int_equal(b.count, 0);
    free_built(&b);
    assert_true(build(NULL, 0, NULL, 0, 3, 1, &b));
    assert_int_equal(b.count, 0);
    free_built(&b);
}

static void bad_limits_and_indices_are_refused(void **state) {
    (void)state;
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t indices[3] = {0, 1, 2}, out_of_range[3] = {0, 1, 3};
    built b;
    const size_t bad[][2] = {{2, 124}, {256, 124}, {64, 0}, {64, 513}};
    for (size_t l = 0; l < sizeof bad / sizeof bad[0]; l++) {
        assert_false(build(indices, 3, positions, 3, bad[l][0], bad[l][1], &b));
        free_built(&b);
    }
    assert_false(build(out_of_range, 3, positions, 3, 64, 124, &b));
    free_built(&b);
    assert_false(build(indices, 2, positions, 3, 64, 124, &b)); /* not whole triangles */
    free_built(&b);
    meshlet_span span;
    uint32_t vertex;
    uint8_t triangle;
    size_t count;
    assert_false(meshlet_build(&span, &vertex, &triangle, &count, indices, 3, positions, 3, 64, 124,
                               1.5f)); /* cone weight outside [0, 1] */
}

/* Disconnected triangles scattered in space: every step after a meshlet's
 * first triangle asks the nearest-triangle search; NaN positions too. */
static void scattered_triangles_and_nan_positions(void **state) {
    (void)state;
    const size_t triangle_count = 3000;
    float *positions = malloc(9 * triangle_count * sizeof *positions);
    uint32_t *indices = malloc(3 * triangle_count * sizeof *indices);
    assert_non_null(positions);
    assert_non_null(indices);
    uint32_t random = 12345;
    for (size_t t = 0; t < triangle_count; t++) {
        float centre[3];
        for (int k = 0; k < 3; k++)
            centre[k] = (float)(next_random(&random) % 1000);
        for (int c = 0; c < 3; c++) {
            for (int k = 0; k < 3; k++)
                positions[9 * t + 3 * (size_t)c + (size_t)k] = centre[k] + (c == k ? 1.0f : 0.0f);
            indices[3 * t + (size_t)c] = (uint32_t)(3 * t + (size_t)c);
        }
    }
    built b = check_build(indices, 3 * triangle_count, positions, 3 * triangle_count, 64, 124);
    /* 21 separate triangles (63 vertices) fill each meshlet but the last. */
    assert_int_equal(b.count, (triangle_count + 20) / 21);
    free_built(&b);
    for (size_t i = 0; i < 9 * triangle_count; i += 5)
        positions[i] = NAN;
    b = check_build(indices, 3 * triangle_count, positions, 3 * triangle_count, 64, 124);
    free_built(&b);
    free(positions);
    free(indices);
}

/* The nearest unused point, against a scan of all of them, while points are
 * used up in a random order. */
/* The nearest search of either tree (runs: meshlet_seed_runs.c). */
static void check_nearest_search(bool runs) {
    const uint32_t count = 5000;
    float *points = malloc(4 * (size_t)count * sizeof *points); /* stride 4 */
    uint8_t *used = calloc(count, 1);
    assert_non_null(points);
    assert_non_null(used);
    uint32_t random = 777;
    for (uint32_t i = 0; i < count; i++) {
        for (int k = 0; k < 3; k++)
            points[4 * i + (uint32_t)k] = (float)(next_random(&random) % 100000) / 100.0f;
        points[4 * i + 3] = -1.0f;
    }
    /* A cluster of equal points, which no split can separate. */
    for (uint32_t i = 0; i < 200; i++)
        memcpy(points + 4 * i, points + 4 * 200, 3 * sizeof *points);
    meshlet_seed *seed = runs ? NULL : meshlet_seed_create(points, 4, count);
    meshlet_runs *tree = runs ? meshlet_runs_create(points, 4, count) : NULL;
    assert_true(seed != NULL || tree != NULL);
    for (uint32_t round = 0; round < count; round++) {
        float position[3];
        for (int k = 0; k < 3; k++)
            position[k] = (float)(next_random(&random) % 120000) / 100.0f - 100.0f;
        uint32_t got = runs ? meshlet_runs_nearest(tree, position, used)
                            : meshlet_seed_nearest(seed, position, used);
        float best = INFINITY;
        for (uint32_t i = 0; i < count; i++) {
            if (used[i])
                continue;
            float d = 0.0f;
            for (int k = 0; k < 3; k++)
                d += (points[4 * i + (uint32_t)k] - position[k]) *
                     (points[4 * i + (uint32_t)k] - position[k]);
            best = d < best ? d : best;
        }
        assert_true(got < count);
        assert_false(used[got]);
        float d = 0.0f;
        for (int k = 0; k < 3; k++)
            d += (points[4 * got + (uint32_t)k] - position[k]) *
                 (points[4 * got + (uint32_t)k] - position[k]);
        assert_true(d == best);
        /* Use the point found half the time, a random one otherwise. */
        uint32_t gone = round % 2 ? got : next_random(&random) % count;
        while (used[gone])
            gone = (gone + 1) % count;
        used[gone] = 1;
    }
    float origin[3] = {0, 0, 0};
    assert_int_equal(runs ? meshlet_runs_nearest(tree, origin, used)
                          : meshlet_seed_nearest(seed, origin, used),
                     UINT32_MAX);
    meshlet_seed_free(seed);
    meshlet_runs_free(tree);
    free(points);
    free(used);
}

static void nearest_search_matches_a_brute_force_scan(void **state) {
    (void)state;
    check_nearest_search(false);
    check_nearest_search(true);
}

/* The runs search among equal points: the first unused in their order
 * (the leftmost leaf is searched first, a leaf in point order), whichever
 * of a leaf's points are used. */
static void equal_points_give_the_first_unused_one(void **state) {
    (void)state;
    enum { COUNT = 40 };
    float points[3 * COUNT];
    for (size_t i = 0; i < 3 * COUNT; i++)
        points[i] = 1.5f;
    uint8_t used[COUNT] = {0};
    meshlet_runs *tree = meshlet_runs_create(points, 3, COUNT);
    assert_non_null(tree);
    const float position[3] = {0.0f, 2.0f, 0.0f};
    /* Used in a scattered order: 0, then every third, then the rest. */
    for (uint32_t round = 0; round < COUNT; round++) {
        uint32_t expected = 0;
        while (used[expected])
            expected++;
        assert_int_equal(meshlet_runs_nearest(tree, position, used), expected);
        uint32_t gone = round == 0 ? 0 : (round * 3) % COUNT;
        while (used[gone])
            gone = (gone + 1) % COUNT;
        used[gone] = 1;
    }
    assert_int_equal(meshlet_runs_nearest(tree, position, used), UINT32_MAX);
    meshlet_runs_free(tree);
}

/* meshlet_build_sorted (the nearest search for input in spatial order)
 * keeps every promise too, on the grid (row order) and on scattered
 * triangles with NaN positions. */
static void the_sorted_build_keeps_every_promise(void **state) {
    use_sorted = true;
    every_triangle_once_within_limits_on_a_grid(state);
    scattered_triangles_and_nan_positions(state);
    use_sorted = false;
}

/* Two candidates with exactly equal scores (mirror images across the first
 * triangle, the same normal): the lower triangle number joins, whichever
 * order the candidates were found in (a's triangles are listed before b's,
 * so the left one is found first). */
static void equal_scores_go_to_the_lower_triangle(void **state) {
    (void)state;
    /* a(-1,0) b(1,0) c(0,1), and the outer corners e(-1.5,1), d(1.5,1). */
    float positions[15] = {-1, 0, 0, 1, 0, 0, 0, 1, 0, -1.5f, 1, 0, 1.5f, 1, 0};
    const uint32_t middle[3] = {0, 1, 2}, left[3] = {0, 2, 3}, right[3] = {1, 4, 2};
    for (int right_first = 0; right_first < 2; right_first++) {
        uint32_t indices[9];
        memcpy(indices + 3, middle, sizeof middle);
        memcpy(indices, right_first ? right : left, sizeof right);
        memcpy(indices + 6, right_first ? left : right, sizeof left);
        /* Two triangles per meshlet: the middle one (nearest the origin)
         * and the winner of the tie. */
        built b = check_build(indices, 9, positions, 5, 64, 2);
        assert_int_equal(b.count, 2);
        assert_int_equal(b.meshlets[0].triangle_count, 2);
        uint32_t joined[3];
        for (int k = 0; k < 3; k++)
            joined[k] = b.vertices[b.meshlets[0].vertex_offset + b.triangles[3 + k]];
        assert_memory_equal(joined, indices, sizeof joined); /* triangle 0 */
        free_built(&b);
    }
}

/* meshlet_build_sorted_in, told the span of the indices, gives the bytes
 * meshlet_build_sorted gives, and refuses a span the indices leave. */
static void a_known_span_gives_the_same_meshlets(void **state) {
    (void)state;
    uint32_t *indices;
    float *positions;
    size_t index_count, vertex_count;
    make_grid(20, &indices, &index_count, &positions, &vertex_count);
    /* Only the upper half of the rows: the indices span [lo, hi]. */
    size_t skipped = index_count / 2;
    const uint32_t *half = indices + skipped;
    size_t half_count = index_count - skipped;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < half_count; i++) {
        lo = half[i] < lo ? half[i] : lo;
        hi = half[i] > hi ? half[i] : hi;
    }
    use_sorted = true;
    built expected = check_build(half, half_count, positions, vertex_count, 64, 124);
    use_sorted = false;
    size_t bound = meshlet_build_bound(half_count, 64, 124);
    built got = {malloc(bound * sizeof *got.meshlets), 0, malloc(half_count * sizeof *got.vertices),
                 malloc(half_count)};
    assert_non_null(got.meshlets);
    assert_non_null(got.vertices);
    assert_non_null(got.triangles);
    assert_true(meshlet_build_sorted_in(got.meshlets, got.vertices, got.triangles, &got.count, half,
                                        half_count, positions, vertex_count, 64, 124, 0.25f, lo,
                                        hi));
    assert_int_equal(got.count, expected.count);
    assert_memory_equal(got.meshlets, expected.meshlets, got.count * sizeof *got.meshlets);
    size_t vertex_total = 0;
    for (size_t m = 0; m < got.count; m++)
        vertex_total += got.meshlets[m].vertex_count;
    assert_memory_equal(got.vertices, expected.vertices, vertex_total * sizeof *got.vertices);
    assert_memory_equal(got.triangles, expected.triangles, half_count);
    /* A span that leaves out the least or the greatest index, one past the
     * vertices, and one upside down. */
    const uint32_t bad[][2] = {{lo + 1, hi}, {lo, hi - 1}, {lo, (uint32_t)vertex_count}, {hi, lo}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(meshlet_build_sorted_in(got.meshlets, got.vertices, got.triangles, &got.count,
                                             half, half_count, positions, vertex_count, 64, 124,
                                             0.25f, bad[i][0], bad[i][1]));
    free_built(&expected);
    free_built(&got);
    free(indices);
    free(positions);
}

/* ---------------------------------------------------------------------------
 * The builder against a plainly written one
 * ------------------------------------------------------------------------- */

/* The rules of meshlet_build.c written out with no bookkeeping: at every
 * step every unused triangle is looked at, its rank worked out from its
 * corners (0 no new vertex, 1 holding a vertex's last unused triangle, else
 * new vertices + 1), and the seed is a scan for the nearest centroid. Valid
 * for meshes where no vertex has more than 64 triangles (the builder's
 * per-vertex cap) and no two centroids are equally near a meshlet's centre
 * (the builder's tree breaks such ties its own way). Float arithmetic in
 * the builder's order, so scores compare bit for bit. */
typedef struct plain_builder {
    const uint32_t *indices;
    size_t triangle_count;
    float (*centre)[3], (*normal)[3];
    uint32_t *live; /* per vertex, unused triangle corners */
    uint8_t *used;  /* per triangle */
    int32_t *local; /* per vertex, its index in the meshlet or -1 */
    float sum[3], normal_sum[3], at[3], axis[3];
    float cone_weight, distance_scale;
} plain_builder;

static uint32_t plain_outside(const plain_builder *p, size_t t) {
    uint32_t extra = 0;
    for (int k = 0; k < 3; k++)
        extra += p->local[p->indices[3 * t + (size_t)k]] < 0;
    return extra;
}

static uint32_t plain_rank(const plain_builder *p, size_t t) {
    uint32_t extra = plain_outside(p, t);
    if (extra == 0)
        return 0;
    for (int k = 0; k < 3; k++)
        if (p->live[p->indices[3 * t + (size_t)k]] == 1)
            return 1;
    return extra + 1;
}

static float plain_score(const plain_builder *p, size_t t) {
    float dx = p->centre[t][0] - p->at[0], dy = p->centre[t][1] - p->at[1],
          dz = p->centre[t][2] - p->at[2];
    float cone = 1.0f - (p->normal[t][0] * p->axis[0] + p->normal[t][1] * p->axis[1] +
                         p->normal[t][2] * p->axis[2]);
    return (1.0f + sqrtf(dx * dx + dy * dy + dz * dz) * p->distance_scale) *
           (cone < 1e-3f ? 1e-3f : cone);
}

/* The meshlet's centre and its mean normal scaled to the cone weight. */
static void plain_centre(plain_builder *p, uint32_t triangles) {
    float length2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        p->at[k] = triangles > 0 ? p->sum[k] / (float)triangles : 0.0f;
        length2 += p->normal_sum[k] * p->normal_sum[k];
    }
    float scale = length2 > 0.0f ? p->cone_weight / sqrtf(length2) : 0.0f;
    for (int k = 0; k < 3; k++)
        p->axis[k] = p->normal_sum[k] * scale;
}

static built plain_build(const uint32_t *indices, size_t index_count, const float *positions,
                         size_t vertex_count, size_t max_vertices, size_t max_triangles,
                         float cone_weight) {
    size_t triangles = index_count / 3;
    plain_builder p = {.indices = indices, .triangle_count = triangles, .cone_weight = cone_weight};
    p.centre = malloc(triangles * sizeof *p.centre);
    p.normal = malloc(triangles * sizeof *p.normal);
    p.live = calloc(vertex_count, sizeof *p.live);
    p.used = calloc(triangles, 1);
    p.local = malloc(vertex_count * sizeof *p.local);
    built out = {malloc(triangles * sizeof *out.meshlets), 0,
                 malloc(index_count * sizeof *out.vertices), malloc(index_count)};
    assert_true(p.centre && p.normal && p.live && p.used && p.local && out.meshlets &&
                out.vertices && out.triangles);
    double area2 = 0.0;
    for (size_t t = 0; t < triangles; t++) {
        const float *c[3];
        for (int k = 0; k < 3; k++) {
            c[k] = positions + 3 * (size_t)indices[3 * t + (size_t)k];
            p.live[indices[3 * t + (size_t)k]]++;
        }
        float e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = c[1][k] - c[0][k];
            e2[k] = c[2][k] - c[0][k];
        }
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) {
            p.centre[t][k] = (c[0][k] + c[1][k] + c[2][k]) / 3.0f;
            p.normal[t][k] = n[k] * (length > 0.0f ? 1.0f / length : 0.0f);
        }
        area2 += length;
    }
    double radius = sqrt(area2 / (double)triangles * 0.5 * (double)max_triangles) * 0.5;
    p.distance_scale = radius > 0.0 ? (float)((1.0 - cone_weight) / radius) : 0.0f;
    for (size_t v = 0; v < vertex_count; v++)
        p.local[v] = -1;
    meshlet_span current = {0, 0, 0, 0};
    for (size_t done = 0; done < triangles; done++) {
        /* The best candidate: least rank, then least score, then number. */
        size_t best = SIZE_MAX, in_rank = 0;
        uint32_t best_rank = UINT32_MAX;
        float best_score = INFINITY;
        for (size_t t = 0; t < triangles; t++) {
            if (p.used[t] || plain_outside(&p, t) == 3)
                continue; /* not a candidate: no corner in the meshlet */
            uint32_t rank = plain_rank(&p, t);
            float score = plain_score(&p, t);
            if (rank < best_rank) {
                best_rank = rank;
                in_rank = 0;
            }
            if (rank == best_rank) {
                in_rank++;
                if (best == SIZE_MAX || plain_rank(&p, best) > rank || score < best_score) {
                    best = t;
                    best_score = score;
                }
            }
        }
        if (best != SIZE_MAX && (current.vertex_count + best_rank > max_vertices ||
                                 current.triangle_count >= max_triangles)) {
            /* It does not fit: the next meshlet starts from the candidate
             * of that rank whose vertices have fewest unused triangles. */
            uint64_t best_live = UINT64_MAX;
            for (size_t t = 0; t < triangles; t++) {
                if (p.used[t] || plain_outside(&p, t) == 3 || plain_rank(&p, t) != best_rank)
                    continue;
                const uint32_t *tri = indices + 3 * t;
                uint64_t live = (uint64_t)p.live[tri[0]] + p.live[tri[1]] + p.live[tri[2]];
                if (live < best_live) {
                    best_live = live;
                    best = t;
                }
            }
        }
        if (best == SIZE_MAX) { /* no candidate: the nearest unused centroid */
            float nearest = INFINITY;
            for (size_t t = 0; t < triangles; t++) {
                float d[3] = {p.centre[t][0] - p.at[0], p.centre[t][1] - p.at[1],
                              p.centre[t][2] - p.at[2]};
                float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if (!p.used[t] && d2 < nearest) {
                    nearest = d2;
                    best = t;
                }
            }
        }
        const uint32_t *tri = indices + 3 * best;
        if (current.vertex_count + plain_outside(&p, best) > max_vertices ||
            current.triangle_count >= max_triangles) {
            out.meshlets[out.count++] = current;
            for (uint32_t i = 0; i < current.vertex_count; i++)
                p.local[out.vertices[current.vertex_offset + i]] = -1;
            current = (meshlet_span){current.vertex_offset + current.vertex_count,
                                     current.triangle_offset + current.triangle_count, 0, 0};
            memset(p.sum, 0, sizeof p.sum);
            memset(p.normal_sum, 0, sizeof p.normal_sum);
        }
        p.used[best] = 1;
        for (int k = 0; k < 3; k++) {
            p.live[tri[k]]--;
            p.sum[k] += p.centre[best][k];
            p.normal_sum[k] += p.normal[best][k];
        }
        current.triangle_count++;
        plain_centre(&p, current.triangle_count);
        for (int k = 0; k < 3; k++)
            if (p.local[tri[k]] < 0) {
                p.local[tri[k]] = (int32_t)current.vertex_count;
                out.vertices[current.vertex_offset + current.vertex_count++] = tri[k];
            }
        for (int k = 0; k < 3; k++)
            out.triangles[3 * ((size_t)current.triangle_offset + current.triangle_count - 1) +
                          (size_t)k] = (uint8_t)p.local[tri[k]];
    }
    if (current.triangle_count > 0)
        out.meshlets[out.count++] = current;
    free(p.centre);
    free(p.normal);
    free(p.live);
    free(p.used);
    free(p.local);
    return out;
}

static void assert_as_the_plain_builder(const uint32_t *indices, size_t index_count,
                                        const float *positions, size_t vertex_count,
                                        size_t max_vertices, size_t max_triangles) {
    built expected = plain_build(indices, index_count, positions, vertex_count, max_vertices,
                                 max_triangles, 0.25f);
    for (int sorted = 0; sorted < 2; sorted++) {
        use_sorted = sorted;
        built got =
            check_build(indices, index_count, positions, vertex_count, max_vertices, max_triangles);
        assert_int_equal(got.count, expected.count);
        assert_memory_equal(got.meshlets, expected.meshlets, got.count * sizeof *got.meshlets);
        const meshlet_span *last = &got.meshlets[got.count - 1];
        assert_memory_equal(got.vertices, expected.vertices,
                            (last->vertex_offset + last->vertex_count) * sizeof *got.vertices);
        assert_memory_equal(got.triangles, expected.triangles, index_count);
        free_built(&got);
    }
    use_sorted = false;
    free_built(&expected);
}

/* The builder's candidate lists, ranks and counts kept up to date step by
 * step give what looking at everything at every step gives: on a bumpy
 * grid whose points are moved off the lattice (no equal distances), at the
 * default limits and at small ones that close meshlets on either limit and
 * make candidates not fit; and on nearby random triangles with repeated
 * corners (two corners one vertex) and vertices of one triangle. */
static void the_meshlets_are_the_plainly_written_ones(void **state) {
    (void)state;
    uint32_t *indices;
    float *positions;
    size_t index_count, vertex_count;
    make_grid(24, &indices, &index_count, &positions, &vertex_count);
    uint32_t seed = 7;
    for (size_t i = 0; i < 3 * vertex_count; i++)
        positions[i] += (float)(next_random(&seed) % 1000) * (i % 3 == 2 ? 4e-4f : 2e-4f);
    const size_t limits[][2] = {{64, 124}, {16, 20}, {5, 4}, {3, 1}, {255, 512}};
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++)
        assert_as_the_plain_builder(indices, index_count, positions, vertex_count, limits[l][0],
                                    limits[l][1]);
    free(indices);
    free(positions);

    size_t points = 300, triangles = 900;
    float *scattered = malloc(3 * points * sizeof *scattered);
    uint32_t *random = malloc(3 * triangles * sizeof *random);
    assert_non_null(scattered);
    assert_non_null(random);
    for (size_t i = 0; i < 3 * points; i++)
        scattered[i] = (float)(next_random(&seed) % 100000) * 1e-3f;
    for (size_t t = 0; t < triangles; t++)
        for (int k = 0; k < 3; k++) /* near the triangle's own number: shared vertices */
            random[3 * t + (size_t)k] = (uint32_t)((t / 3 + next_random(&seed) % 12) % points);
    for (size_t t = 0; t < triangles; t += 10)
        random[3 * t + 1] = random[3 * t]; /* a repeated corner every tenth */
    assert_as_the_plain_builder(random, 3 * triangles, scattered, points, 64, 124);
    assert_as_the_plain_builder(random, 3 * triangles, scattered, points, 10, 16);
    free(scattered);
    free(random);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_triangle_once_within_limits_on_a_grid),
        cmocka_unit_test(the_same_input_gives_the_same_bytes),
        cmocka_unit_test(the_sorted_build_keeps_every_promise),
        cmocka_unit_test(degenerate_and_repeated_triangles),
        cmocka_unit_test(a_triangle_adding_no_vertex_is_taken_first),
        cmocka_unit_test(no_triangles_make_no_meshlets),
        cmocka_unit_test(bad_limits_and_indices_are_refused),
        cmocka_unit_test(scattered_triangles_and_nan_positions),
        cmocka_unit_test(nearest_search_matches_a_brute_force_scan),
        cmocka_unit_test(equal_points_give_the_first_unused_one),
        cmocka_unit_test(equal_scores_go_to_the_lower_triangle),
        cmocka_unit_test(a_known_span_gives_the_same_meshlets),
        cmocka_unit_test(the_meshlets_are_the_plainly_written_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
