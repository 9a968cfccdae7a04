/* budget.c: one asset's time budget (core/budget.h). A budget whose deadline
 * has passed is seen as over on the cook's thread and in every item of a
 * parallel_for called from it, whichever thread runs the item, and nowhere
 * else; the stage it ran out in is the one the cook was in; cook_budget_check
 * and cook_stage_enter report it once; a block encode stops its rows. No
 * timing is measured: deadlines are set in the past or far in the future. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/budget.h"
#include "cook/encode/encode.h"
#include "test_support.h"

/* Starts a budget and moves its deadline into the past. */
static void begin_expired(cook_budget *budget, uint32_t seconds) {
    cook_budget_begin(budget, seconds);
    budget->deadline = cook_clock() - 1.0;
}

static void no_budget_is_never_over(void **state) {
    (void)state;
    assert_false(cook_budget_over());
    assert_true(cook_budget_left() < 0.0);
    cook_budget budget;
    cook_budget_begin(&budget, 0); /* 0: none */
    assert_false(cook_budget_over());
    assert_true(cook_budget_left() < 0.0);
    cook_budget_end(&budget);
}

static void a_budget_in_time_is_not_over(void **state) {
    (void)state;
    cook_budget budget;
    cook_budget_begin(&budget, 3600);
    assert_false(cook_budget_over());
    double left = cook_budget_left();
    assert_true(left > 3000.0 && left <= 3600.0);
    assert_int_equal(atomic_load(&budget.ran_out_in), COOK_STAGE_COUNT);
    cook_budget_end(&budget);
}

static void an_expired_budget_names_the_stage_it_ran_out_in(void **state) {
    (void)state;
    cook_budget budget;
    begin_expired(&budget, 5);
    cook_budget_set_stage(COOK_STAGE_PROCESS);
    assert_true(cook_budget_over());
    assert_int_equal(atomic_load(&budget.ran_out_in), COOK_STAGE_PROCESS);
    /* Later stages do not change where it ran out; it stays over. */
    cook_budget_set_stage(COOK_STAGE_WRITE);
    assert_true(cook_budget_over());
    assert_int_equal(atomic_load(&budget.ran_out_in), COOK_STAGE_PROCESS);
    assert_true(cook_budget_left() == 0.0);
    cook_budget_end(&budget);
    assert_false(cook_budget_over()); /* the thread has no budget again */
}

typedef struct seen {
    atomic_uint over;
    atomic_uint items;
} seen;

static void count_over(void *ctx, uint32_t index) {
    (void)index;
    seen *s = ctx;
    atomic_fetch_add(&s->items, 1u);
    if (cook_budget_over())
        atomic_fetch_add(&s->over, 1u);
}

static void nested_count_over(void *ctx, uint32_t index) {
    (void)index;
    parallel_for(3, 8, count_over, ctx);
}

static void parallel_items_inherit_the_callers_budget(void **state) {
    (void)state;
    seen in_time = {0}, expired = {0}, outside = {0};
    cook_budget budget;
    cook_budget_begin(&budget, 3600);
    parallel_for(4, 64, count_over, &in_time);
    cook_budget_end(&budget);
    assert_int_equal(atomic_load(&in_time.items), 64);
    assert_int_equal(atomic_load(&in_time.over), 0);

    begin_expired(&budget, 1);
    parallel_for(4, 16, nested_count_over, &expired); /* nested calls inherit it too */
    cook_budget_end(&budget);
    assert_int_equal(atomic_load(&expired.items), 16 * 8);
    assert_int_equal(atomic_load(&expired.over), 16 * 8);

    /* The workers that ran those items keep no budget of their own. */
    parallel_for(4, 64, count_over, &outside);
    assert_int_equal(atomic_load(&outside.over), 0);
}

static void check_and_stage_enter_report_once(void **state) {
    (void)state;
    cook_diag diag = {0};
    cook_context ctx = {.source_path = "textures/big.png", .diag = &diag};
    cook_budget budget;
    cook_budget_begin(&budget, 7);
    assert_true(cook_stage_enter(&ctx, COOK_STAGE_TEXTURE));
    assert_true(cook_budget_check(&ctx));
    assert_int_equal(diag.errors, 0);
    budget.deadline = cook_clock() - 1.0; /* the texture stage took too long */
    assert_false(cook_stage_enter(&ctx, COOK_STAGE_WRITE));
    assert_false(cook_budget_check(&ctx));
    assert_false(cook_stage_enter(&ctx, COOK_STAGE_WRITE));
    cook_budget_end(&budget);
    assert_int_equal(diag.errors, 1);
    bytebuf_append(&diag.text, "", 1);
    assert_string_equal((const char *)diag.text.data,
                        "textures/big.png: error: cook exceeded the 7 s time budget in stage "
                        "texture; stopped (asset.timeout, --asset-timeout)\n");
    diag_free(&diag);
}

/* An out-of-time encode leaves every row zero instead of encoding it. */
static void block_rows_stop_when_the_budget_is_over(void **state) {
    (void)state;
    enum { SIDE = 64 };
    uint8_t *texels = malloc((size_t)SIDE * SIDE * 4);
    for (size_t i = 0; i < (size_t)SIDE * SIDE * 4; i++)
        texels[i] = (uint8_t)(i * 131u + 7u);
    block_image_desc desc = {
        .format = BLOCK_FORMAT_BC1, .width = SIDE, .height = SIDE, .rgba8 = texels, .threads = 2};
    size_t size = block_image_size(&desc);
    uint8_t *in_time = malloc(size), *late = malloc(size), *zero = calloc(1, size);
    memset(late, 0xAB, size);
    char reason[128];
    cook_budget budget;
    cook_budget_begin(&budget, 3600);
    assert_true(block_encode_image(&desc, in_time, reason, sizeof reason));
    cook_budget_end(&budget);
    begin_expired(&budget, 1);
    assert_true(block_encode_image(&desc, late, reason, sizeof reason));
    cook_budget_end(&budget);
    assert_memory_equal(late, zero, size);
    assert_memory_not_equal(in_time, zero, size); /* the encode does write blocks */
    free(texels);
    free(in_time);
    free(late);
    free(zero);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_budget_is_never_over),
        cmocka_unit_test(a_budget_in_time_is_not_over),
        cmocka_unit_test(an_expired_budget_names_the_stage_it_ran_out_in),
        cmocka_unit_test(parallel_items_inherit_the_callers_budget),
        cmocka_unit_test(check_and_stage_enter_report_once),
        cmocka_unit_test(block_rows_stop_when_the_budget_is_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
