/* simplify.c: kiln's quadric edge-collapse simplifier, what it does to a
 * mesh's shape and topology (targets, borders, seams, flips, sessions,
 * ranking, adjacency). Each property is checked on meshes built here
 * (simplify_fixture.c), against facts computed from their construction
 * (which vertices lie on the border or the seam, which way a plane faces).
 * Its errors and distances are test_simplify_error.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"
#include "cook/process/simplify_internal.h"
#include "simplify_fixture.h"
#include "test_support.h"

static size_t simplify(const grid *g, uint32_t *out, size_t target, float target_error,
                       bool lock_border, float *error) {
    size_t count = SIZE_MAX;
    assert_true(simplify_triangles(out, g->indices, g->index_count, g->positions, g->vertex_count,
                                   target, target_error, lock_border, &count, error));
    assert_true(count <= g->index_count);
    assert_int_equal(count % 3, 0);
    for (size_t i = 0; i < count; i++)
        assert_true(out[i] < g->vertex_count);
    return count;
}

static void reaches_the_target_on_closed_and_open_meshes(void **state) {
    (void)state;
    grid shapes[2];
    sphere_make(&shapes[0], 24, 32);
    grid_make(&shapes[1], 40, 2.0f, 0.3f);
    for (int k = 0; k < 2; k++) {
        uint32_t *out = malloc(shapes[k].index_count * sizeof *out);
        assert_non_null(out);
        size_t targets[2] = {shapes[k].index_count / 2 / 3 * 3, shapes[k].index_count / 4 / 3 * 3};
        for (int t = 0; t < 2; t++) {
            float error = -1.0f;
            size_t count = simplify(&shapes[k], out, targets[t], 1.0f, false, &error);
            assert_true(count <= targets[t]);
            assert_true(count >= targets[t] * 9 / 10); /* close to it, not far below */
            assert_true(error > 0.0f && error < 0.1f);
        }
        free(out);
        grid_free(&shapes[k]);
    }
}

static void a_small_target_error_stops_early(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 30, 2.0f, 0.3f);
    uint32_t *out = malloc(g.index_count * sizeof *out);
    assert_non_null(out);
    float error = -1.0f;
    size_t count = simplify(&g, out, 6, 0.001f, false, &error);
    assert_true(count > 6);
    assert_true(count < g.index_count); /* some collapses cost less */
    assert_true(error <= 0.001f);
    free(out);
    grid_free(&g);
}

static bool on_grid_border(const grid *g, uint32_t v) {
    uint32_t x = v % (g->n + 1), y = v / (g->n + 1);
    return x == 0 || y == 0 || x == g->n || y == g->n;
}

/* How many of the grid's border vertices `indices` still use. */
static size_t border_vertices_used(const grid *g, const uint32_t *indices, size_t count) {
    bool *used = calloc(g->vertex_count, sizeof *used);
    assert_non_null(used);
    for (size_t i = 0; i < count; i++)
        used[indices[i]] = true;
    size_t n = 0;
    for (uint32_t v = 0; v < g->vertex_count; v++)
        n += used[v] && on_grid_border(g, v);
    free(used);
    return n;
}

static void locked_borders_keep_every_border_vertex(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 32, 1.0f, 0.3f);
    uint32_t *out = malloc(g.index_count * sizeof *out);
    assert_non_null(out);
    size_t border = 4 * (size_t)g.n;
    float error;
    size_t count = simplify(&g, out, g.index_count / 4, 1.0f, true, &error);
    assert_true(count < g.index_count / 2);
    assert_int_equal(border_vertices_used(&g, out, count), border);
    /* Unlocked, the border is simplified too: the check above can fail. */
    count = simplify(&g, out, g.index_count / 4, 1.0f, false, &error);
    assert_true(border_vertices_used(&g, out, count) < border);
    free(out);
    grid_free(&g);
}

/* Twice the signed area of triangle t of `indices` seen from +z. */
static float facing_z(const float *positions, const uint32_t *indices, size_t t) {
    const float *a = positions + 3 * (size_t)indices[t],
                *b = positions + 3 * (size_t)indices[t + 1],
                *c = positions + 3 * (size_t)indices[t + 2];
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static void no_triangle_turns_over_on_a_plane(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 40, 0.0f, 0.3f); /* flat, irregular triangles */
    for (size_t t = 0; t < g.index_count; t += 3)
        assert_true(facing_z(g.positions, g.indices, t) > 0.0f); /* all facing +z */
    uint32_t *out = malloc(g.index_count * sizeof *out);
    assert_non_null(out);
    float error;
    size_t count = simplify(&g, out, g.index_count / 100 / 3 * 3, 1.0f, false, &error);
    assert_true(count < g.index_count / 50);
    for (size_t t = 0; t < count; t += 3)
        assert_true(facing_z(g.positions, out, t) > 0.0f);
    assert_true(error < 1e-6f); /* a plane simplifies without error */
    free(out);
    grid_free(&g);
}

/* A square's four corners (its border locked) round a spike three times the
 * side high over its centre: moving the spike onto any corner turns the two
 * triangles left by 80.5 degrees (their normals' cosine 0.5 / sqrt(9.25)),
 * short of a right angle, so neither turns over and the spike may go, as in
 * meshoptimizer (with a cosine of 1/4 as the bound it stayed: 4 triangles). */
static void a_triangle_turned_short_of_a_right_angle_does_not_turn_over(void **state) {
    (void)state;
    float positions[15] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5f, 0.5f, 3.0f};
    uint32_t indices[12] = {4, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0};
    uint32_t out[12];
    size_t count = 0;
    float error = 0.0f;
    assert_true(simplify_triangles(out, indices, 12, positions, 5, 6, 1.0f, true, &count, &error));
    assert_int_equal(count, 6);
    for (size_t i = 0; i < count; i++)
        assert_true(out[i] < 4); /* the spike is gone */
}

/* A seam down the middle column (grid_add_seam). */
static void seams_keep_both_sides_on_the_same_positions(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 24, 1.0f, 0.0f);
    grid_add_seam(&g);
    uint32_t n = g.n, column = n / 2;
    size_t original = g.vertex_count - (n + 1);
    uint32_t *out = malloc(g.index_count * sizeof *out);
    assert_non_null(out);
    float error;
    size_t count = simplify(&g, out, g.index_count / 4, 1.0f, false, &error);
    assert_true(count <= g.index_count / 4);
    /* Rows of the seam used by the left side (originals) and the right (copies). */
    bool *left = calloc(n + 1, sizeof *left), *right = calloc(n + 1, sizeof *right);
    assert_non_null(left);
    assert_non_null(right);
    for (size_t t = 0; t < count; t += 3) {
        bool left_half = false, right_half = false, copy = false, original_column = false;
        for (int k = 0; k < 3; k++) {
            uint32_t v = out[t + (size_t)k], x = v % (n + 1);
            if (v >= original)
                right[v - original] = copy = true;
            else if (x == column)
                left[v / (n + 1)] = original_column = true;
            left_half |= v < original && x < column;
            right_half |= v < original && x > column;
        }
        /* Each side keeps its own wedges: no triangle mixes them. */
        assert_false(left_half && (right_half || copy));
        assert_false(right_half && original_column);
    }
    for (uint32_t y = 0; y <= n; y++)
        assert_int_equal(left[y], right[y]); /* the two sides still meet: no crack */
    free(left);
    free(right);
    free(out);
    grid_free(&g);
}

static void degenerate_input_is_handled(void **state) {
    (void)state;
    /* All vertices at one point: nothing may move, nothing breaks. */
    float same[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
    uint32_t quad[6] = {0, 1, 2, 0, 2, 3}, out[12];
    size_t count = SIZE_MAX;
    float error = -1.0f;
    assert_true(simplify_triangles(out, quad, 6, same, 4, 3, 1.0f, false, &count, &error));
    assert_true(count <= 6 && count % 3 == 0);
    assert_true(error == 0.0f);
    /* No triangles. */
    assert_true(simplify_triangles(out, quad, 0, same, 4, 0, 1.0f, false, &count, &error));
    assert_int_equal(count, 0);
    /* Every triangle twice: reduced or kept, always valid. */
    grid g;
    grid_make(&g, 8, 1.0f, 0.2f);
    size_t n = g.index_count;
    g.indices = realloc(g.indices, 2 * n * sizeof *g.indices);
    assert_non_null(g.indices);
    memcpy(g.indices + n, g.indices, n * sizeof *g.indices);
    g.index_count = 2 * n;
    uint32_t *many = malloc(g.index_count * sizeof *many);
    assert_non_null(many);
    simplify(&g, many, n / 2, 1.0f, false, &error);
    free(many);
    grid_free(&g);
    /* Invalid input is refused, not read past. */
    uint32_t bad[3] = {0, 1, 9};
    assert_false(simplify_triangles(out, bad, 3, same, 4, 3, 1.0f, false, &count, &error));
    assert_false(simplify_triangles(out, quad, 5, same, 4, 3, 1.0f, false, &count, &error));
}

static void same_result_every_time_and_in_place(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 48, 2.0f, 0.4f);
    uint32_t *a = malloc(g.index_count * sizeof *a), *b = malloc(g.index_count * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    float ea, eb;
    size_t ca = simplify(&g, a, g.index_count / 5, 1.0f, false, &ea);
    size_t cb = simplify(&g, b, g.index_count / 5, 1.0f, false, &eb);
    assert_int_equal(ca, cb);
    assert_memory_equal(a, b, ca * sizeof *a);
    assert_true(ea == eb);
    /* dest may be the input itself. */
    memcpy(b, g.indices, g.index_count * sizeof *b);
    size_t cc = 0;
    float ec;
    assert_true(simplify_triangles(b, b, g.index_count, g.positions, g.vertex_count,
                                   g.index_count / 5, 1.0f, false, &cc, &ec));
    assert_int_equal(cc, ca);
    assert_memory_equal(a, b, ca * sizeof *a);
    free(a);
    free(b);
    grid_free(&g);
}

/* A session goes on from each level: smaller levels, errors that only grow,
 * each level made of the one before's vertices. */
static void a_session_continues_level_after_level(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 40, 2.0f, 0.3f);
    simplify_session *session =
        simplify_begin(g.indices, g.index_count, g.positions, g.vertex_count, false);
    assert_non_null(session);
    uint32_t *levels[3];
    size_t counts[3];
    float errors[3];
    for (int l = 0; l < 3; l++) {
        levels[l] = malloc(g.index_count * sizeof *levels[l]);
        assert_non_null(levels[l]);
        size_t target = g.index_count / ((size_t)2 << l) / 3 * 3;
        counts[l] = simplify_continue(session, target, 1.0f, levels[l], &errors[l]);
        assert_true(counts[l] <= target && counts[l] >= target * 9 / 10);
        if (l > 0) {
            assert_true(errors[l] >= errors[l - 1]);
            bool *used = calloc(g.vertex_count, sizeof *used);
            assert_non_null(used);
            for (size_t i = 0; i < counts[l - 1]; i++)
                used[levels[l - 1][i]] = true;
            for (size_t i = 0; i < counts[l]; i++)
                assert_true(used[levels[l][i]]);
            free(used);
        }
    }
    /* The first level is what one call makes. */
    uint32_t *once = malloc(g.index_count * sizeof *once);
    assert_non_null(once);
    float error;
    size_t count = simplify(&g, once, g.index_count / 2 / 3 * 3, 1.0f, false, &error);
    assert_int_equal(count, counts[0]);
    assert_memory_equal(once, levels[0], count * sizeof *once);
    simplify_end(session);
    for (int l = 0; l < 3; l++)
        free(levels[l]);
    free(once);
    grid_free(&g);
    /* Invalid input starts no session. */
    uint32_t bad[3] = {0, 1, 7};
    float p[9] = {0};
    assert_null(simplify_begin(bad, 3, p, 3, false));
}

/* A collapse a pass puts off (its removed position's distance to what it
 * leaves past the pass's bound) is ranked at that distance, not taken up
 * again first next pass. On a sphere every collapse costs about the same
 * and that distance is above its quadric's mean, so ranked at the quadric
 * alone nearly every collapse was put off once a pass had a sixth of its
 * goal: halving it took 10 passes (each ranks and rewrites the whole mesh),
 * now 3. */
static void a_put_off_collapse_is_ranked_at_its_distance(void **state) {
    (void)state;
    grid g;
    sphere_make(&g, 30, 40);
    simplify_session *session =
        simplify_begin(g.indices, g.index_count, g.positions, g.vertex_count, false);
    assert_non_null(session);
    uint32_t *level = malloc(g.index_count * sizeof *level);
    assert_non_null(level);
    float error;
    size_t target = g.index_count / 2 / 3 * 3;
    size_t count = simplify_continue(session, target, 1.0f, level, &error);
    assert_true(count <= target && count >= target * 9 / 10);
    assert_true(simplify_session_passes(session) <= 3);
    simplify_end(session);
    free(level);
    grid_free(&g);
}

/* Three levels of one session, into `levels` (3 x index_count). */
static void three_levels(const grid *g, bool rank_all, uint32_t *levels, size_t counts[3],
                         float errors[3]) {
    simplify_session *session =
        simplify_begin(g->indices, g->index_count, g->positions, g->vertex_count, false);
    assert_non_null(session);
    if (rank_all)
        simplify_session_rank_all(session);
    for (int l = 0; l < 3; l++) {
        size_t target = g->index_count / ((size_t)2 << l) / 3 * 3;
        counts[l] = simplify_continue(session, target, 1.0f, levels + (size_t)l * g->index_count,
                                      &errors[l]);
    }
    simplify_end(session);
}

/* Ranking only the edges around the last pass's collapses (and, at a new
 * level, only those with a manifold end) is an optimisation: every level
 * must be what ranking every edge gives, on a closed mesh, on an open one
 * (its border loops shorten as they go) and on one with a seam. */
static void ranking_only_changed_edges_gives_the_same_levels(void **state) {
    (void)state;
    grid shapes[3];
    sphere_make(&shapes[0], 30, 40);
    grid_make(&shapes[1], 48, 2.0f, 0.4f);
    grid_make(&shapes[2], 48, 2.0f, 0.4f);
    grid_add_seam(&shapes[2]);
    for (int k = 0; k < 3; k++) {
        const grid *g = &shapes[k];
        uint32_t *a = malloc(3 * g->index_count * sizeof *a),
                 *b = malloc(3 * g->index_count * sizeof *b);
        assert_non_null(a);
        assert_non_null(b);
        size_t ca[3], cb[3];
        float ea[3], eb[3];
        three_levels(g, false, a, ca, ea);
        three_levels(g, true, b, cb, eb);
        for (int l = 0; l < 3; l++) {
            assert_true(ca[l] < g->index_count / ((size_t)1 << l)); /* it did reduce */
            assert_int_equal(ca[l], cb[l]);
            assert_memory_equal(a + (size_t)l * g->index_count, b + (size_t)l * g->index_count,
                                ca[l] * sizeof *a);
            assert_true(ea[l] == eb[l]);
        }
        free(a);
        free(b);
        grid_free(&shapes[k]);
    }
}

/* The ranking skips the chord cost on manifold edges because no loop runs
 * through a manifold position; that must hold as border and seam loops
 * shorten, checked after every few collapses down to a tenth of an open
 * grid with a seam. */
static void loops_never_reach_a_manifold_position(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 32, 2.0f, 0.3f);
    grid_add_seam(&g);
    simplify_session *session =
        simplify_begin(g.indices, g.index_count, g.positions, g.vertex_count, false);
    assert_non_null(session);
    assert_true(simplify_session_loops_avoid_manifold(session));
    uint32_t *out = malloc(g.index_count * sizeof *out);
    assert_non_null(out);
    size_t count = g.index_count, steps = 0;
    while (count > g.index_count / 10) {
        float error;
        size_t target = (count - count / 30) / 3 * 3;
        size_t reached = simplify_continue(session, target, 1.0f, out, &error);
        assert_true(simplify_session_loops_avoid_manifold(session));
        if (reached == count)
            break; /* nothing more may collapse */
        count = reached;
        steps++;
    }
    assert_true(count <= g.index_count / 10); /* it went the whole way */
    assert_true(steps > 20);
    free(out);
    simplify_end(session);
    grid_free(&g);
}

/* simplify_adjacency_build against the triangles around each vertex found
 * by scanning the index buffer: per vertex, its triangles in index order,
 * each as its other two corners in winding order. On a seamed grid whose
 * triangles were shuffled and some dropped (vertices of every valence,
 * some unused). */
static void adjacency_lists_every_triangle_around_each_vertex(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 9, 0.5f, 0.3f);
    grid_add_seam(&g);
    /* Every third triangle dropped, the rest reversed in order. */
    size_t count = 0;
    uint32_t *indices = malloc(g.index_count * sizeof *indices);
    assert_non_null(indices);
    for (size_t t = g.index_count; t >= 3; t -= 3)
        if ((t / 3) % 3 != 0) {
            memcpy(indices + count, g.indices + t - 3, 3 * sizeof *indices);
            count += 3;
        }
    simplify_state s = {.vertex_count = g.vertex_count};
    s.adjacency_first = malloc((g.vertex_count + 1) * sizeof *s.adjacency_first);
    s.adjacency = malloc(count * sizeof *s.adjacency);
    assert_non_null(s.adjacency_first);
    assert_non_null(s.adjacency);
    simplify_adjacency_build(&s, indices, count);
    assert_int_equal(s.adjacency_first[0], 0);
    assert_int_equal(s.adjacency_first[g.vertex_count], count);
    for (uint32_t v = 0; v < g.vertex_count; v++) {
        uint32_t slot = s.adjacency_first[v];
        for (size_t t = 0; t < count; t += 3)
            for (size_t k = 0; k < 3; k++) {
                if (indices[t + k] != v)
                    continue;
                assert_true(slot < s.adjacency_first[v + 1]);
                assert_int_equal(s.adjacency[slot].next, indices[t + (k + 1) % 3]);
                assert_int_equal(s.adjacency[slot].prev, indices[t + (k + 2) % 3]);
                slot++;
            }
        assert_int_equal(slot, s.adjacency_first[v + 1]);
    }
    free(s.adjacency_first);
    free(s.adjacency);
    free(indices);
    grid_free(&g);
}

/* The adjacency a session keeps between passes (apply_collapses counts each
 * vertex's triangles as it rewrites the indices, the next pass fills the
 * lists from those counts) against one built afresh from the level's
 * indices, after every step down to a tenth of a seamed open grid and a
 * sphere. */
static void the_kept_adjacency_is_a_fresh_one(void **state) {
    (void)state;
    grid shapes[2];
    grid_make(&shapes[0], 32, 2.0f, 0.3f);
    grid_add_seam(&shapes[0]);
    sphere_make(&shapes[1], 24, 32);
    for (int k = 0; k < 2; k++) {
        const grid *g = &shapes[k];
        simplify_session *session =
            simplify_begin(g->indices, g->index_count, g->positions, g->vertex_count, false);
        assert_non_null(session);
        assert_true(simplify_session_adjacency_current(session));
        uint32_t *out = malloc(g->index_count * sizeof *out);
        assert_non_null(out);
        size_t count = g->index_count, steps = 0;
        while (count > g->index_count / 10) {
            float error;
            size_t target = (count - count / 30) / 3 * 3;
            size_t reached = simplify_continue(session, target, 1.0f, out, &error);
            assert_true(simplify_session_adjacency_current(session));
            if (reached == count)
                break;
            count = reached;
            steps++;
        }
        assert_true(steps > 20);
        free(out);
        simplify_end(session);
        grid_free(&shapes[k]);
    }
}

/* simplify_classify's unpaired edges (open[]) against a scan of the whole
 * index buffer: the edge a -> b is unpaired when no triangle has b -> a.
 * Returns how many there are. */
static size_t assert_classify_finds_the_unpaired_edges(const uint32_t *indices, size_t count,
                                                       const float *positions, size_t n) {
    simplify_state s = {.vertex_count = n};
    s.remap = malloc(n * sizeof *s.remap);
    s.wedge = malloc(n * sizeof *s.wedge);
    s.loop = malloc(n * sizeof *s.loop);
    s.kind = malloc(n);
    s.adjacency_first = malloc((n + 1) * sizeof *s.adjacency_first);
    s.adjacency = malloc(count * sizeof *s.adjacency);
    uint8_t *open = malloc(count);
    assert_true(s.remap && s.wedge && s.loop && s.kind && s.adjacency_first && s.adjacency && open);
    assert_true(simplify_weld(&s, indices, count, positions));
    simplify_adjacency_build(&s, indices, count);
    simplify_classify(&s, indices, count, false, open);
    size_t unpaired = 0;
    for (size_t t = 0; t < count; t += 3)
        for (size_t k = 0; k < 3; k++) {
            uint32_t a = indices[t + k], b = indices[t + (k + 1) % 3];
            bool paired = false;
            for (size_t u = 0; u < count && !paired; u += 3)
                for (size_t j = 0; j < 3; j++)
                    paired |= indices[u + j] == b && indices[u + (j + 1) % 3] == a;
            assert_int_equal(open[t + k], !paired);
            unpaired += !paired;
        }
    free(s.remap);
    free(s.wedge);
    free(s.loop);
    free(s.kind);
    free(s.adjacency_first);
    free(s.adjacency);
    free(open);
    return unpaired;
}

/* On a seamed grid with every third triangle dropped (borders inside it),
 * one triangle doubled (a non-manifold edge) and one degenerate. */
static void classify_finds_the_unpaired_edges(void **state) {
    (void)state;
    grid g;
    grid_make(&g, 9, 0.5f, 0.3f);
    grid_add_seam(&g);
    size_t count = 0;
    uint32_t *indices = malloc((g.index_count + 6) * sizeof *indices);
    assert_non_null(indices);
    for (size_t t = 0; t < g.index_count; t += 3)
        if ((t / 3) % 3 != 1) {
            memcpy(indices + count, g.indices + t, 3 * sizeof *indices);
            count += 3;
        }
    memcpy(indices + count, indices + 6, 3 * sizeof *indices); /* a triangle twice */
    count += 3;
    uint32_t degenerate[3] = {indices[0], indices[0], indices[1]};
    memcpy(indices + count, degenerate, sizeof degenerate);
    count += 3;
    size_t unpaired =
        assert_classify_finds_the_unpaired_edges(indices, count, g.positions, g.vertex_count);
    assert_true(unpaired > count / 6); /* the dropped triangles left many */
    free(indices);
    grid_free(&g);
}

/* Round a vertex of 600 triangles (its edges are paired through a sorted
 * list, not a walk per edge): a fan with gaps, one triangle doubled, one
 * reversed, and degenerate ones on the centre. */
static void classify_pairs_the_edges_of_a_crowded_vertex(void **state) {
    (void)state;
    const uint32_t rim = 600;
    float *positions = malloc(3 * (rim + 1) * sizeof *positions);
    uint32_t *indices = malloc(3 * (rim + 8) * sizeof *indices);
    assert_true(positions && indices);
    memset(positions, 0, 3 * sizeof *positions);
    for (uint32_t i = 0; i < rim; i++) {
        float angle = 6.2831853f * (float)i / (float)rim;
        positions[3 * (1 + i)] = cosf(angle);
        positions[3 * (1 + i) + 1] = sinf(angle);
        positions[3 * (1 + i) + 2] = 0.1f * (float)(i % 3);
    }
    size_t count = 0;
    for (uint32_t i = 0; i < rim; i++) {
        if (i % 50 == 7)
            continue; /* a gap: two border edges */
        uint32_t triangle[3] = {0, 1 + i, 1 + (i + 1) % rim};
        memcpy(indices + count, triangle, sizeof triangle);
        count += 3;
    }
    memcpy(indices + count, indices + 30, 3 * sizeof *indices); /* a triangle twice */
    count += 3;
    uint32_t reversed[3] = {0, 1 + 201, 1 + 200};
    uint32_t degenerate[6] = {0, 0, 5, 9, 0, 9};
    memcpy(indices + count, reversed, sizeof reversed);
    memcpy(indices + count + 3, degenerate, sizeof degenerate);
    count += 9;
    size_t unpaired = assert_classify_finds_the_unpaired_edges(indices, count, positions, rim + 1);
    assert_true(unpaired > rim); /* the rim and the gaps */
    free(indices);
    free(positions);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reaches_the_target_on_closed_and_open_meshes),
        cmocka_unit_test(a_small_target_error_stops_early),
        cmocka_unit_test(locked_borders_keep_every_border_vertex),
        cmocka_unit_test(no_triangle_turns_over_on_a_plane),
        cmocka_unit_test(a_triangle_turned_short_of_a_right_angle_does_not_turn_over),
        cmocka_unit_test(seams_keep_both_sides_on_the_same_positions),
        cmocka_unit_test(degenerate_input_is_handled),
        cmocka_unit_test(same_result_every_time_and_in_place),
        cmocka_unit_test(a_session_continues_level_after_level),
        cmocka_unit_test(ranking_only_changed_edges_gives_the_same_levels),
        cmocka_unit_test(a_put_off_collapse_is_ranked_at_its_distance),
        cmocka_unit_test(loops_never_reach_a_manifold_position),
        cmocka_unit_test(adjacency_lists_every_triangle_around_each_vertex),
        cmocka_unit_test(the_kept_adjacency_is_a_fresh_one),
        cmocka_unit_test(classify_finds_the_unpaired_edges),
        cmocka_unit_test(classify_pairs_the_edges_of_a_crowded_vertex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
