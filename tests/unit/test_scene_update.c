/* test_scene_update.c — the scene instance's world matrices
 * (docs/formats/kscene.md): against a recursive product of the IR's local
 * transforms in double, and the dirty-subtree update against a full
 * recompute and against the independent recompute of scene_fixture.c, on
 * random forests and on shapes that stress the update's bookkeeping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_fixture.h"
#include "test_reference.h"

/* Global transforms from the instance equal a straightforward recursive
 * product of the IR's local transforms (in double). */
static void double_world(const ir_asset *asset, uint32_t i, double (*world)[16], bool *done) {
    if (done[i])
        return;
    const ir_node *node = &asset->nodes[i];
    double t[3] = {node->translation[0], node->translation[1], node->translation[2]};
    double q[4] = {node->rotation[0], node->rotation[1], node->rotation[2], node->rotation[3]};
    double s[3] = {node->scale[0], node->scale[1], node->scale[2]};
    double local[16];
    ref_mat4_trs(t, q, s, local);
    if (node->parent >= 0) {
        double_world(asset, (uint32_t)node->parent, world, done);
        ref_mat4_multiply(world[node->parent], local, world[i]);
    } else {
        memcpy(world[i], local, sizeof local);
    }
    done[i] = true;
}

static void instance_matches_recursive_product(void **state) {
    (void)state;
    ir_asset asset;
    random_asset(&asset, 400, 7);
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, KILN_OPEN_DEEP, &err), KILN_OK);
    held_instance h;
    instance_open(&h, &held.view);
    double(*world)[16] = calloc(asset.node_count, sizeof *world);
    bool *done = calloc(asset.node_count, sizeof *done);
    for (uint32_t i = 0; i < asset.node_count; i++)
        double_world(&asset, i, world, done);
    for (uint32_t k = 0; k < held.view.node_count; k++) {
        char what[32];
        snprintf(what, sizeof what, "node %u", k);
        expect_close(kiln_scene_world(&h.instance, k), world[held.view.nodes[k].source], 1e-4,
                     what);
    }
    assert_null(kiln_scene_world(&h.instance, held.view.node_count));
    free(world);
    free(done);
    instance_close(&h);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* Changing a few nodes and updating gives exactly (bit for bit) what a full
 * recompute of the same local transforms gives, and recomputes only the
 * changed nodes and their subtrees. */
static void dirty_update_equals_full_recompute(void **state) {
    (void)state;
    ir_asset asset;
    random_asset(&asset, 2000, 11);
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
    const kiln_scene_view *v = &held.view;
    held_instance lazy, full;
    instance_open(&lazy, v);
    instance_open(&full, v);
    uint8_t *in_subtree = malloc(v->node_count);
    srand(3);
    for (int round = 0; round < 20; round++) {
        memset(in_subtree, 0, v->node_count);
        /* Few changes, and some rounds so many that nodes and their ancestors
         * change together (a node must still be recomputed once). */
        uint32_t changes = round == 0 ? 0 : (uint32_t)(rand() % (round % 4 == 0 ? 800 : 40)) + 1;
        for (uint32_t c = 0; c < changes; c++) {
            uint32_t node = (uint32_t)rand() % v->node_count;
            kiln_scene_transform t = *kiln_scene_local(&lazy.instance, node);
            t.translation[0] += 0.25f;
            t.scale[1] *= 1.5f;
            assert_int_equal(kiln_scene_set_local(&lazy.instance, node, &t, &err), KILN_OK);
            *kiln_scene_local(&full.instance, node) = t; /* seen by the full pass */
            in_subtree[node] = 1;
        }
        for (uint32_t i = 0; i < v->node_count; i++) /* parents first */
            if (v->hierarchy[i].parent >= 0 && in_subtree[v->hierarchy[i].parent])
                in_subtree[i] = 1;
        uint32_t expected = 0;
        for (uint32_t i = 0; i < v->node_count; i++)
            expected += in_subtree[i];
        assert_int_equal(kiln_scene_update(&lazy.instance), expected);
        assert_int_equal(kiln_scene_update(&lazy.instance), 0); /* nothing left */
        kiln_scene_update_all(&full.instance);
        assert_memory_equal(lazy.instance.world, full.instance.world,
                            (size_t)v->node_count * 16 * sizeof(float));
    }
    kiln_scene_transform t = v->transforms[0];
    assert_int_equal(kiln_scene_set_local(&lazy.instance, v->node_count, &t, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    free(in_subtree);
    instance_close(&lazy);
    instance_close(&full);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* The update against the independent recompute on random forests, with the
 * edge cases: nothing changed, a root, a leaf, a node and its ancestor, the
 * same node twice, every node, and random sets of every size. */
static void update_matches_independent_recompute(void **state) {
    (void)state;
    for (uint32_t seed = 1; seed <= 6; seed++) {
        ir_asset asset;
        random_asset(&asset, 50 + seed * 97, seed);
        bytebuf bytes;
        write_asset(&asset, 0, &bytes);
        test_held_scene held;
        kiln_error err;
        assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
        const kiln_scene_view *v = &held.view;
        uint32_t n = v->node_count;
        test_expect_depth_first(v);
        held_instance h;
        instance_open(&h, v);
        uint8_t *marked = malloc(n);
        float *want = malloc((size_t)n * 16 * sizeof(float));
        kiln_scene_transform *locals = rest_pose(v);
        assert_non_null(marked);
        assert_non_null(want);
        uint32_t leaf = 0, inner = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (v->hierarchy[i].subtree_end == i + 1)
                leaf = i;
            else if (v->hierarchy[i].parent >= 0)
                inner = i;
        }
        srand(seed);
        for (int round = 0; round < 12; round++) {
            memset(marked, 0, n);
            uint32_t picks[4], count = 0;
            switch (round) {
            case 0:
                break; /* nothing */
            case 1:
                picks[count++] = 0;
                break; /* a root (node 0 has depth 0) */
            case 2:
                picks[count++] = leaf;
                break;
            case 3: /* a node, then its parent: one run, each node once */
                picks[count++] = inner;
                picks[count++] = (uint32_t)v->hierarchy[inner].parent;
                break;
            case 4:
                picks[count++] = inner, picks[count++] = inner;
                break;
            default:
                break;
            }
            bool all = round == 5, random = round > 5;
            uint32_t random_count = random ? (uint32_t)rand() % n + 1 : 0;
            for (uint32_t k = 0; k < (all ? n : random ? random_count : count); k++) {
                uint32_t node = all ? n - 1 - k : random ? (uint32_t)rand() % n : picks[k];
                kiln_scene_transform t = locals[node];
                t.translation[k % 3] += 0.5f;
                t.scale[(k + 1) % 3] *= 1.25f;
                assert_int_equal(kiln_scene_set_local(&h.instance, node, &t, &err), KILN_OK);
                locals[node] = t;
                marked[node] = 1;
            }
            uint32_t expected = count_subtrees(v, marked);
            assert_int_equal(kiln_scene_update(&h.instance), expected);
            assert_int_equal(kiln_scene_update(&h.instance), 0);
            expect_locals(&h.instance, locals);
            recompute_world(v, locals, want);
            assert_memory_equal(h.instance.world, want, (size_t)n * 16 * sizeof(float));
        }
        free(locals);
        free(marked);
        free(want);
        instance_close(&h);
        test_scene_release(&held);
        bytebuf_free(&bytes);
        ir_asset_free(&asset);
    }
}

/* How change_and_check hands its changes over: kiln_scene_set_local per
 * node then kiln_scene_update, or one kiln_scene_update_with given the
 * nodes as they come or sorted (its own path: changes written in its run
 * loop). */
typedef enum change_path { SET_EACH, UPDATE_WITH, UPDATE_WITH_SORTED, CHANGE_PATHS } change_path;
static const char *const path_names[CHANGE_PATHS] = {
    "kiln_scene_set_local", "kiln_scene_update_with", "kiln_scene_update_with, sorted"};

/* Sorts nodes[0 .. count - 1] and `batch` alongside, a node's repeats kept
 * in their order (insertion sort: stable). */
static void sort_batch(uint32_t *nodes, kiln_scene_transform *batch, uint32_t count) {
    for (uint32_t k = 1; k < count; k++) {
        uint32_t node = nodes[k], j = k;
        kiln_scene_transform t = batch[k];
        for (; j > 0 && nodes[j - 1] > node; j--) {
            nodes[j] = nodes[j - 1];
            batch[j] = batch[j - 1];
        }
        nodes[j] = node;
        batch[j] = t;
    }
}

/* Gives `nodes` (repeats allowed, the last transform of a node kept) new
 * local transforms through `path`, updates, and checks the count and every
 * matrix against the independent recompute; a second update then has
 * nothing left. */
static void change_and_check(held_instance *h, const kiln_scene_view *v, const uint32_t *nodes,
                             uint32_t count, kiln_scene_transform *locals, uint8_t *marked,
                             float *want, const char *what, change_path path) {
    kiln_error err;
    memset(marked, 0, v->node_count);
    uint32_t *batch_nodes = malloc((size_t)count * sizeof *batch_nodes + 1);
    kiln_scene_transform *batch = malloc((size_t)count * sizeof *batch + 1);
    assert_non_null(batch_nodes);
    assert_non_null(batch);
    for (uint32_t k = 0; k < count; k++) {
        kiln_scene_transform t = locals[nodes[k]];
        t.translation[k % 3] -= 0.75f;
        t.scale[(k + 2) % 3] *= 0.8f;
        if (path == SET_EACH)
            assert_int_equal(kiln_scene_set_local(&h->instance, nodes[k], &t, &err), KILN_OK);
        batch_nodes[k] = nodes[k];
        batch[k] = t;
        locals[nodes[k]] = t;
        marked[nodes[k]] = 1;
    }
    uint32_t expected = count_subtrees(v, marked), got = 0;
    if (path == SET_EACH) {
        got = kiln_scene_update(&h->instance);
    } else {
        if (path == UPDATE_WITH_SORTED)
            sort_batch(batch_nodes, batch, count);
        got = UINT32_MAX;
        assert_int_equal(
            kiln_scene_update_with(&h->instance, batch_nodes, batch, count, &got, &err), KILN_OK);
    }
    free(batch_nodes);
    free(batch);
    if (got != expected)
        fail_msg("%s (%s): %u nodes recomputed, expected %u", what, path_names[path], got,
                 expected);
    assert_int_equal(kiln_scene_update(&h->instance), 0);
    expect_locals(&h->instance, locals);
    recompute_world(v, locals, want);
    for (uint32_t i = 0; i < v->node_count; i++)
        if (memcmp(h->instance.world + (size_t)i * 16, want + (size_t)i * 16, 16 * sizeof(float)))
            fail_msg("%s (%s): node %u's world matrix differs from the recompute", what,
                     path_names[path], i);
}

/* Three shapes that stress the update's bookkeeping: a forest of roots only
 * (all changed: a run per node, the most the scratch words must hold), one
 * chain (any change: a single run to the end), and a random forest; 130 and
 * 128 nodes, so the last bitmap word is partly padding and exactly full, and
 * 9,000, so the bits of words span three summary words. */
static void forest_asset(ir_asset *asset, uint32_t n, int shape) {
    random_asset(asset, n, 7 + (uint32_t)shape);
    for (uint32_t i = 0; i < n && shape != 2; i++)
        asset->nodes[i].parent = shape == 0 || i == 0 ? -1 : (int32_t)i - 1;
}

static void update_edge_cases_match_independent_recompute(void **state) {
    (void)state;
    const uint32_t sizes[3] = {130, 128, 9000};
    const char *names[3] = {"roots only", "a chain", "a random forest"};
    for (int shape = 0; shape < 3; shape++) {
        ir_asset asset;
        forest_asset(&asset, sizes[shape], shape);
        bytebuf bytes;
        write_asset(&asset, 0, &bytes);
        test_held_scene held;
        kiln_error err;
        assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
        const kiln_scene_view *v = &held.view;
        uint32_t n = v->node_count;
        assert_int_equal(n, sizes[shape]);
        held_instance h;
        instance_open(&h, v);
        uint8_t *marked = malloc(n);
        float *want = malloc((size_t)n * 16 * sizeof(float));
        uint32_t *nodes = malloc((size_t)n * 2 * sizeof *nodes);
        kiln_scene_transform *locals = rest_pose(v);
        assert_non_null(marked);
        assert_non_null(want);
        assert_non_null(nodes);
        char what[96];
        for (int c = 0; c < 9; c++) {
            uint32_t count = 0;
            switch (c) {
            case 0: /* the last node: a run at the end of the array */
                nodes[count++] = n - 1;
                break;
            case 1: /* the last three: three bits in one word */
                nodes[count++] = n - 3, nodes[count++] = n - 1, nodes[count++] = n - 2;
                break;
            case 2: /* a whole bitmap word */
                for (uint32_t i = 0; i < 64; i++)
                    nodes[count++] = 63 - i;
                break;
            case 3: /* the first root, then nodes inside the range it takes */
                nodes[count++] = 0;
                for (uint32_t i = 1; i < v->hierarchy[0].subtree_end; i += 3)
                    nodes[count++] = i;
                break;
            case 4: /* one node set five times */
                for (uint32_t i = 0; i < 5; i++)
                    nodes[count++] = n / 2;
                break;
            case 5: /* every node, last first */
                for (uint32_t i = 0; i < n; i++)
                    nodes[count++] = n - 1 - i;
                break;
            case 6: /* every other node */
                for (uint32_t i = 0; i < n; i += 2)
                    nodes[count++] = i;
                break;
            case 7: /* the first and the last: empty words between */
                nodes[count++] = n - 1, nodes[count++] = 0;
                break;
            default: /* every node twice */
                for (uint32_t i = 0; i < 2 * n; i++)
                    nodes[count++] = i % n;
                break;
            }
            snprintf(what, sizeof what, "%s, case %d", names[shape], c);
            for (change_path path = SET_EACH; path < CHANGE_PATHS; path++)
                change_and_check(&h, v, nodes, count, locals, marked, want, what, path);
        }
        /* Changes the full pass takes care of leave nothing for the update,
         * and the next change is found again. */
        for (uint32_t k = 0; k < 3; k++) {
            kiln_scene_transform t = locals[k * (n - 1) / 2];
            t.translation[1] += 2.0f;
            assert_int_equal(kiln_scene_set_local(&h.instance, k * (n - 1) / 2, &t, &err), KILN_OK);
            locals[k * (n - 1) / 2] = t;
        }
        kiln_scene_update_all(&h.instance);
        assert_int_equal(kiln_scene_update(&h.instance), 0);
        recompute_world(v, locals, want);
        assert_memory_equal(h.instance.world, want, (size_t)n * 16 * sizeof(float));
        nodes[0] = n / 3;
        snprintf(what, sizeof what, "%s, after the full pass", names[shape]);
        change_and_check(&h, v, nodes, 1, locals, marked, want, what, SET_EACH);
        free(locals);
        free(nodes);
        free(marked);
        free(want);
        instance_close(&h);
        test_scene_release(&held);
        bytebuf_free(&bytes);
        ir_asset_free(&asset);
    }
}

/* The update looks ahead in its list of runs and within a run (a run's first
 * 4, 8 or 16 nodes, by its length, then 16 nodes on), so runs of every
 * length around those steps, the list's first and last runs, fewer runs than
 * the update looks ahead, exactly as many and one more, none, and every
 * root (the whole scene stale) are checked against the independent
 * recompute: 40 trees of 1-40 nodes (node j of a tree below node (j - 1) / 3,
 * as bench_scene's level objects), the last one ending the array. */
static void runs_of_every_length_match_independent_recompute(void **state) {
    (void)state;
    enum { TREES = 40 };
    uint32_t sizes[TREES], n = 0;
    for (uint32_t t = 0; t < TREES; t++)
        n += sizes[t] = 1 + (t * 7) % TREES; /* 1..40, each once */
    ir_asset asset;
    random_asset(&asset, n, 41);
    for (uint32_t t = 0, first = 0; t < TREES; first += sizes[t++])
        for (uint32_t j = 0; j < sizes[t]; j++)
            asset.nodes[first + j].parent = j == 0 ? -1 : (int32_t)(first + (j - 1) / 3);
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
    const kiln_scene_view *v = &held.view;
    assert_int_equal(v->node_count, n);
    uint32_t roots[TREES], root_count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (v->hierarchy[i].parent < 0)
            roots[root_count++] = i;
    assert_int_equal(root_count, TREES);
    held_instance h;
    instance_open(&h, v);
    uint8_t *marked = malloc(n);
    float *want = malloc((size_t)n * 16 * sizeof(float));
    uint32_t nodes[TREES];
    kiln_scene_transform *locals = rest_pose(v);
    assert_non_null(marked);
    assert_non_null(want);
    char what[64];
    /* The first m roots, then the last m (the look-ahead running off the end
     * of the list at once or after a while). */
    const uint32_t firsts[] = {0, 1, 2, 11, 12, 13, 15, 16, 17, 24, 31, 32, 33, TREES};
    for (uint32_t c = 0; c < sizeof firsts / sizeof firsts[0]; c++)
        for (int from_end = 0; from_end < 2; from_end++) {
            uint32_t m = firsts[c];
            for (uint32_t k = 0; k < m; k++)
                nodes[k] = roots[from_end ? TREES - m + k : k];
            snprintf(what, sizeof what, "%u roots from the %s", m, from_end ? "end" : "start");
            for (change_path path = SET_EACH; path < CHANGE_PATHS; path++)
                change_and_check(&h, v, nodes, m, locals, marked, want, what, path);
        }
    /* Each tree's second node (a one-node tree's: the next tree's root), and
     * every leaf: runs of one node. */
    uint32_t count = 0;
    for (uint32_t t = 0; t < TREES; t++)
        if (roots[t] + 1 < n)
            nodes[count++] = roots[t] + 1;
    for (change_path path = SET_EACH; path < CHANGE_PATHS; path++)
        change_and_check(&h, v, nodes, count, locals, marked, want, "each tree's second node",
                         path);
    uint32_t *leaves = malloc((size_t)n * sizeof *leaves), leaf_count = 0;
    assert_non_null(leaves);
    for (uint32_t i = 0; i < n; i++)
        if (v->hierarchy[i].subtree_end == i + 1)
            leaves[leaf_count++] = i;
    for (change_path path = SET_EACH; path < CHANGE_PATHS; path++)
        change_and_check(&h, v, leaves, leaf_count, locals, marked, want, "every leaf", path);
    free(leaves);
    free(locals);
    free(marked);
    free(want);
    instance_close(&h);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

/* kiln_scene_update_with against the two calls it stands for
 * (kiln_scene_set_locals, kiln_scene_update) on a second instance of the
 * same scene: random batches with repeats, sorted (its own path) or as they
 * come, some after a kiln_scene_set_local of their own; the same matrices bit
 * for bit, the same count, the same local transforms. Then an empty batch,
 * and a node out of range: rejected, its index in the message, nothing
 * changed or updated. */
static void update_with_equals_separate_calls(void **state) {
    (void)state;
    ir_asset asset;
    random_asset(&asset, 3000, 17);
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
    const kiln_scene_view *v = &held.view;
    const uint32_t n = v->node_count;
    held_instance two_calls, one_call;
    instance_open(&two_calls, v);
    instance_open(&one_call, v);
    enum { MAX_BATCH = 900 };
    uint32_t *nodes = malloc(MAX_BATCH * sizeof *nodes);
    kiln_scene_transform *batch = malloc(MAX_BATCH * sizeof *batch);
    assert_non_null(nodes);
    assert_non_null(batch);
    const size_t matrix_bytes = (size_t)n * 16 * sizeof(float);
    srand(5);
    for (uint32_t round = 0; round < 30; round++) {
        uint32_t count = (uint32_t)rand() % (round % 3 == 0 ? MAX_BATCH : 40) + 1;
        for (uint32_t k = 0; k < count; k++) {
            nodes[k] = k % 7 == 6 ? nodes[k / 2] : (uint32_t)rand() % n; /* repeats */
            batch[k] = *kiln_scene_local(&two_calls.instance, nodes[k]);
            batch[k].translation[k % 3] += 0.5f + (float)round;
            batch[k].scale[(k + 1) % 3] *= 1.125f;
        }
        if (round % 2 == 0)
            sort_batch(nodes, batch, count);
        if (round % 5 == 4) { /* a change before the batch: both take it along */
            kiln_scene_transform t = *kiln_scene_local(&two_calls.instance, round);
            t.translation[1] -= 3.0f;
            assert_int_equal(kiln_scene_set_local(&two_calls.instance, round, &t, &err), KILN_OK);
            assert_int_equal(kiln_scene_set_local(&one_call.instance, round, &t, &err), KILN_OK);
        }
        assert_int_equal(kiln_scene_set_locals(&two_calls.instance, nodes, batch, count, &err),
                         KILN_OK);
        uint32_t expected = kiln_scene_update(&two_calls.instance), got = UINT32_MAX;
        assert_int_equal(
            kiln_scene_update_with(&one_call.instance, nodes, batch, count, &got, &err), KILN_OK);
        if (got != expected)
            fail_msg("round %u: %u nodes recomputed, the two calls %u", round, got, expected);
        assert_memory_equal(one_call.instance.world, two_calls.instance.world, matrix_bytes);
        for (uint32_t i = 0; i < n; i++)
            assert_memory_equal(kiln_scene_local(&one_call.instance, i),
                                kiln_scene_local(&two_calls.instance, i),
                                sizeof(kiln_scene_transform));
        assert_int_equal(kiln_scene_update(&one_call.instance), 0);
    }
    uint32_t got = UINT32_MAX;
    assert_int_equal(kiln_scene_update_with(&one_call.instance, NULL, NULL, 0, &got, &err),
                     KILN_OK);
    assert_int_equal(got, 0);
    assert_int_equal(kiln_scene_update_with(&one_call.instance, nodes, batch, 0, NULL, &err),
                     KILN_OK);

    kiln_scene_transform before = *kiln_scene_local(&one_call.instance, 5);
    nodes[0] = 5, nodes[1] = n, nodes[2] = 7;
    batch[0].translation[0] = batch[1].translation[0] = batch[2].translation[0] = 1000.0f;
    got = UINT32_MAX;
    assert_int_equal(kiln_scene_update_with(&one_call.instance, nodes, batch, 3, &got, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.code, KILN_ERR_INVALID_ARGUMENT);
    char message[64];
    snprintf(message, sizeof message, "nodes[1] = %u of %u", n, n);
    assert_non_null(strstr(err.message, message));
    assert_int_equal(got, 0);
    assert_memory_equal(kiln_scene_local(&one_call.instance, 5), &before, sizeof before);
    assert_int_equal(kiln_scene_update(&one_call.instance), 0); /* nothing marked */
    assert_memory_equal(one_call.instance.world, two_calls.instance.world, matrix_bytes);
    assert_int_equal(kiln_scene_update_with(NULL, nodes, batch, 1, &got, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_update_with(&one_call.instance, NULL, batch, 1, &got, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    free(nodes);
    free(batch);
    instance_close(&two_calls);
    instance_close(&one_call);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(instance_matches_recursive_product),
        cmocka_unit_test(dirty_update_equals_full_recompute),
        cmocka_unit_test(update_matches_independent_recompute),
        cmocka_unit_test(update_edge_cases_match_independent_recompute),
        cmocka_unit_test(runs_of_every_length_match_independent_recompute),
        cmocka_unit_test(update_with_equals_separate_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
