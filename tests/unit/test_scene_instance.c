/* test_scene_instance.c — the scene instance's own API
 * (docs/formats/kscene.md): kiln_scene_local and kiln_scene_set_pose,
 * kiln_scene_set_locals against kiln_scene_set_local a node, memory of
 * exactly kiln_scene_instance_size bytes at every alignment, and bad memory
 * refused; every result against the independent recompute of
 * scene_fixture.c. */
#include <stdlib.h>
#include <string.h>

#include "scene_fixture.h"

/* The scene of a test of the instance's own API: a random forest of `n`. */
typedef struct instance_case {
    ir_asset asset;
    bytebuf bytes;
    test_held_scene held;
    float *want;
    kiln_scene_transform *locals;
} instance_case;

static const kiln_scene_view *instance_case_open(instance_case *c, uint32_t n, uint32_t seed) {
    random_asset(&c->asset, n, seed);
    write_asset(&c->asset, 0, &c->bytes);
    kiln_error err;
    assert_int_equal(test_scene_hold(&c->held, c->bytes.data, c->bytes.size, 0, &err), KILN_OK);
    c->want = malloc((size_t)n * 16 * sizeof(float));
    assert_non_null(c->want);
    c->locals = rest_pose(&c->held.view);
    return &c->held.view;
}

static void instance_case_close(instance_case *c) {
    free(c->want);
    free(c->locals);
    test_scene_release(&c->held);
    bytebuf_free(&c->bytes);
    ir_asset_free(&c->asset);
}

/* The instance's matrices and local transforms are the recompute's of the
 * case's own copy of the local transforms. */
static void expect_recomputed(instance_case *c, kiln_scene_instance *instance) {
    expect_locals(instance, c->locals);
    recompute_world(&c->held.view, c->locals, c->want);
    assert_memory_equal(instance->world, c->want,
                        (size_t)instance->node_count * 16 * sizeof(float));
}

/* A transform unlike `t`, made from `k`. */
static kiln_scene_transform moved(kiln_scene_transform t, uint32_t k) {
    t.translation[k % 3] += 0.5f + (float)(k % 7);
    t.scale[(k + 1) % 3] *= 1.5f;
    return t;
}

/* kiln_scene_local: the rest pose at init, NULL out of range, writes through
 * it seen by the full pass and not by the update; kiln_scene_set_pose: the
 * count checked, then every node recomputed by either update, and changes
 * after it found again. */
static void local_accessor_and_whole_pose(void **state) {
    (void)state;
    instance_case c;
    const kiln_scene_view *v = instance_case_open(&c, 300, 21);
    uint32_t n = v->node_count;
    held_instance h;
    instance_open(&h, v);
    kiln_error err;
    expect_locals(&h.instance, c.locals); /* the rest pose, first to last record */
    assert_null(kiln_scene_local(&h.instance, n));
    assert_null(kiln_scene_local(&h.instance, UINT32_MAX));
    assert_null(kiln_scene_local(NULL, 0));

    const uint32_t ends[3] = {0, n / 2, n - 1}; /* a root, a middle node, the last */
    for (uint32_t k = 0; k < 3; k++)
        *kiln_scene_local(&h.instance, ends[k]) = c.locals[ends[k]] = moved(c.locals[ends[k]], k);
    assert_int_equal(kiln_scene_update(&h.instance), 0); /* nothing was marked */
    kiln_scene_update_all(&h.instance);
    expect_recomputed(&c, &h.instance);

    kiln_scene_transform *pose = malloc((size_t)n * sizeof *pose);
    assert_non_null(pose);
    for (uint32_t i = 0; i < n; i++)
        pose[i] = moved(c.locals[i], i + 3);
    assert_int_equal(kiln_scene_set_pose(&h.instance, pose, n - 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "kiln_scene_set_pose: 299 transforms for 300 nodes"));
    assert_int_equal(kiln_scene_set_pose(&h.instance, pose, n + 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_pose(&h.instance, NULL, n, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_pose(NULL, pose, n, &err), KILN_ERR_INVALID_ARGUMENT);
    expect_recomputed(&c, &h.instance); /* refused: nothing changed */

    /* Marked nodes before and after the pose: the update recomputes all. */
    kiln_scene_transform t = moved(c.locals[7], 1);
    assert_int_equal(kiln_scene_set_local(&h.instance, 7, &t, &err), KILN_OK);
    assert_int_equal(kiln_scene_set_pose(&h.instance, pose, n, &err), KILN_OK);
    memcpy(c.locals, pose, (size_t)n * sizeof *pose);
    c.locals[n - 1] = moved(c.locals[n - 1], 2);
    assert_int_equal(kiln_scene_set_local(&h.instance, n - 1, &c.locals[n - 1], &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&h.instance), n);
    assert_int_equal(kiln_scene_update(&h.instance), 0);
    expect_recomputed(&c, &h.instance);

    /* After it, one change is one subtree again (the last node, a leaf). */
    c.locals[n - 1] = moved(c.locals[n - 1], 5);
    assert_int_equal(kiln_scene_set_local(&h.instance, n - 1, &c.locals[n - 1], &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&h.instance), 1);
    expect_recomputed(&c, &h.instance);

    /* A pose the full pass brings in leaves nothing for the update. */
    for (uint32_t i = 0; i < n; i++)
        pose[i] = c.locals[i] = moved(c.locals[i], i);
    assert_int_equal(kiln_scene_set_pose(&h.instance, pose, n, &err), KILN_OK);
    kiln_scene_update_all(&h.instance);
    assert_int_equal(kiln_scene_update(&h.instance), 0);
    expect_recomputed(&c, &h.instance);
    free(pose);
    instance_close(&h);
    instance_case_close(&c);
}

/* kiln_scene_set_locals against kiln_scene_set_local a node on a second
 * instance and the independent recompute: batches of 0, 1, 17 (one more than
 * it requests ahead) and 400 nodes, with nodes given twice (the last
 * transform kept), the first and the last node; a batch with a node out of
 * range or no arrays refused whole. */
static void batch_of_changes_equals_one_call_a_node(void **state) {
    (void)state;
    instance_case c;
    const kiln_scene_view *v = instance_case_open(&c, 2000, 41);
    uint32_t n = v->node_count;
    held_instance batch, single;
    instance_open(&batch, v);
    instance_open(&single, v);
    kiln_error err;
    enum { MOST = 400 };
    uint32_t nodes[MOST];
    kiln_scene_transform locals[MOST];
    uint8_t *marked = malloc(n);
    assert_non_null(marked);
    const uint32_t sizes[4] = {0, 1, 17, MOST};
    uint32_t state_bits = 12345;
    for (uint32_t s = 0; s < 4; s++) {
        uint32_t count = sizes[s];
        memset(marked, 0, n);
        for (uint32_t k = 0; k < count; k++) {
            state_bits = state_bits * 1664525u + 1013904223u;
            nodes[k] = k == 0 ? n - 1 : k == 1 ? 0 : k % 5 == 0 ? nodes[k - 3] : state_bits % n;
            locals[k] = moved(c.locals[nodes[k]], k + s);
            c.locals[nodes[k]] = locals[k]; /* in order: the last one given stays */
            marked[nodes[k]] = 1;
            assert_int_equal(kiln_scene_set_local(&single.instance, nodes[k], &locals[k], &err),
                             KILN_OK);
        }
        assert_int_equal(kiln_scene_set_locals(&batch.instance, nodes, locals, count, &err),
                         KILN_OK);
        uint32_t stale = count_subtrees(v, marked);
        assert_int_equal(kiln_scene_update(&batch.instance), stale);
        assert_int_equal(kiln_scene_update(&single.instance), stale);
        expect_recomputed(&c, &batch.instance);
        assert_memory_equal(batch.instance.world, single.instance.world,
                            (size_t)n * 16 * sizeof(float));
    }

    /* Refused whole: the node out of range is the batch's last. */
    nodes[0] = 3;
    nodes[1] = n;
    locals[0] = locals[1] = moved(c.locals[3], 9);
    assert_int_equal(kiln_scene_set_locals(&batch.instance, nodes, locals, 2, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "kiln_scene_set_locals: nodes[1] = 2000 of 2000"));
    assert_int_equal(kiln_scene_set_locals(&batch.instance, NULL, locals, 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_locals(&batch.instance, nodes, NULL, 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_locals(NULL, nodes, locals, 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scene_set_locals(&batch.instance, NULL, NULL, 0, &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&batch.instance), 0);
    expect_recomputed(&c, &batch.instance);
    free(marked);
    instance_close(&batch);
    instance_close(&single);
    instance_case_close(&c);
}

/* Memory exactly kiln_scene_instance_size bytes long at each 16-byte
 * alignment (the sanitizer catches a byte beyond it): the matrices 64-byte
 * aligned, no node's local transform across two cache lines, and changes to
 * the first and last records updated right. */
static void instance_fits_at_every_alignment(void **state) {
    (void)state;
    instance_case c;
    const kiln_scene_view *v = instance_case_open(&c, 1000, 33);
    uint32_t n = v->node_count;
    size_t size = kiln_scene_instance_size(v);
    kiln_error err;
    for (size_t shift = 0; shift < 64; shift += 16) {
        void *block;
        assert_int_equal(posix_memalign(&block, 64, size + shift), 0);
        kiln_scene_instance instance;
        assert_int_equal(
            kiln_scene_instance_init(&instance, v, (uint8_t *)block + shift, size, &err), KILN_OK);
        assert_int_equal((uintptr_t)instance.world % 64, 0);
        for (uint32_t i = 0; i < n; i++) {
            uintptr_t at = (uintptr_t)kiln_scene_local(&instance, i);
            if (at / 64 != (at + sizeof(kiln_scene_transform) - 1) / 64)
                fail_msg("shift %zu: node %u's local transform spans two lines", shift, i);
        }
        memcpy(c.locals, v->transforms, (size_t)n * sizeof *c.locals);
        expect_recomputed(&c, &instance);
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t node = k == 0 ? 0 : n - 1;
            c.locals[node] = moved(c.locals[node], k + (uint32_t)shift);
            assert_int_equal(kiln_scene_set_local(&instance, node, &c.locals[node], &err), KILN_OK);
        }
        uint32_t root_end = v->hierarchy[0].subtree_end;
        assert_int_equal(kiln_scene_update(&instance), root_end + (n - 1 >= root_end));
        expect_recomputed(&c, &instance);
        free(block);
    }
    instance_case_close(&c);
}

static void instance_refuses_bad_memory(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    bytebuf bytes;
    write_asset(&asset, 0, &bytes);
    test_held_scene held;
    kiln_error err;
    assert_int_equal(test_scene_hold(&held, bytes.data, bytes.size, 0, &err), KILN_OK);
    size_t size = kiln_scene_instance_size(&held.view);
    void *memory;
    assert_int_equal(posix_memalign(&memory, 16, size + 16), 0);
    kiln_scene_instance instance;
    assert_int_equal(kiln_scene_instance_init(&instance, &held.view, memory, size - 1, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        kiln_scene_instance_init(&instance, &held.view, (uint8_t *)memory + 4, size, &err),
        KILN_ERR_INVALID_ARGUMENT);
    kiln_scene_view empty = {0};
    assert_int_equal(kiln_scene_instance_init(&instance, &empty, memory, size, &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&instance), 0);
    assert_int_equal(kiln_scene_instance_init(&instance, &held.view, memory, size, &err), KILN_OK);
    free(memory);
    test_scene_release(&held);
    bytebuf_free(&bytes);
    ir_asset_free(&asset);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(local_accessor_and_whole_pose),
        cmocka_unit_test(batch_of_changes_equals_one_call_a_node),
        cmocka_unit_test(instance_fits_at_every_alignment),
        cmocka_unit_test(instance_refuses_bad_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
