/* budget.c — one asset's time budget, checked cooperatively (budget.h). */
#include "cook/core/budget.h"

#include "cook/core/core.h"

/* The calling thread's budget: cook_asset's, or its inherited one inside a
 * parallel_for item; NULL outside a cook. */
static cook_budget *current_budget(void) {
    return parallel_inherited();
}

void cook_budget_begin(cook_budget *budget, uint32_t seconds) {
    budget->deadline = seconds > 0 ? cook_clock() + (double)seconds : 0.0;
    budget->seconds = seconds;
    atomic_init(&budget->stage, COOK_STAGE_IMPORT);
    atomic_init(&budget->ran_out_in, COOK_STAGE_COUNT);
    budget->reported = false;
    budget->outer = parallel_set_inherited(budget);
}

void cook_budget_end(cook_budget *budget) {
    parallel_set_inherited(budget->outer);
}

bool cook_budget_over(void) {
    cook_budget *budget = current_budget();
    if (budget == NULL || budget->deadline == 0.0)
        return false;
    if (atomic_load(&budget->ran_out_in) != COOK_STAGE_COUNT)
        return true;
    if (cook_clock() < budget->deadline)
        return false;
    int none = COOK_STAGE_COUNT; /* the first thread to notice names the stage */
    atomic_compare_exchange_strong(&budget->ran_out_in, &none, atomic_load(&budget->stage));
    return true;
}

double cook_budget_left(void) {
    cook_budget *budget = current_budget();
    if (budget == NULL || budget->deadline == 0.0)
        return -1.0;
    double left = budget->deadline - cook_clock();
    return left > 0.0 ? left : 0.0;
}

void cook_budget_set_stage(cook_stage stage) {
    cook_budget *budget = current_budget();
    if (budget != NULL)
        atomic_store(&budget->stage, (int)stage);
}

bool cook_budget_check(cook_context *ctx) {
    if (!cook_budget_over())
        return true;
    cook_budget *budget = current_budget();
    if (!budget->reported) {
        budget->reported = true;
        diag_error(ctx->diag, ctx->source_path, 0,
                   "cook exceeded the %u s time budget in stage %s; stopped (asset.timeout, "
                   "--asset-timeout)",
                   budget->seconds, cook_stage_name((cook_stage)atomic_load(&budget->ran_out_in)));
    }
    return false;
}
