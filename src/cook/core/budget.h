/* budget.h — the time budget of one asset's cook (asset.timeout,
 * --asset-timeout), checked cooperatively.
 *
 * Why cooperative: the cook runs on the build's threads, inside the one
 * thread pool, with allocations and locks in flight; no thread can be stopped
 * from outside without leaking or deadlocking, and forking a threaded process
 * per asset is not safe either (only the forking thread survives in the
 * child). So a cook checks its deadline where stopping is clean: at every
 * stage boundary (cook_stage_enter), between meshes, a model's images and
 * shader variants, per row of the block encoder (kiln's own long loop), and
 * once more when the driver returns (cook_asset). Calls into libraries that
 * cannot be interrupted (meshoptimizer, astcenc) are bounded by their inputs
 * instead (degenerate triangles dropped); the assimp importer, the image
 * decoders, libdraco, glslang and SPIRV-Tools/Cross run in a child process,
 * which is killed when the budget's remainder runs out (import/isolate*.c,
 * inspect/isolate_spirv.c).
 *
 * The budget is found through parallel_inherited (core/parallel.h): set on the
 * thread of cook_asset, inherited by every item of a parallel_for called from
 * it, on whichever thread runs the item. */
#ifndef KILN_COOK_CORE_BUDGET_H
#define KILN_COOK_CORE_BUDGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cook/core/result.h"

typedef struct cook_budget {
    double deadline;       /* cook_clock() seconds; 0: no budget */
    uint32_t seconds;      /* the budget, for the message */
    atomic_int stage;      /* the cook_stage the cook is in */
    atomic_int ran_out_in; /* the stage the deadline was noticed in; COOK_STAGE_COUNT: not yet */
    bool reported;         /* the error is among the asset's diagnostics */
    void *outer;           /* the thread's parallel_inherited() before cook_budget_begin */
} cook_budget;

/* Starts the budget of `seconds` (0: none) from now and makes it the calling
 * thread's (and its parallel_for items'); cook_budget_end restores the one
 * before. */
void cook_budget_begin(cook_budget *budget, uint32_t seconds);
void cook_budget_end(cook_budget *budget);

/* True once the current cook's deadline has passed (and from then on); the
 * first call that notices records the stage the cook was in. Cheap (a
 * monotonic clock read): for loops, from any thread of the cook. False with
 * no budget. A loop that sees true stops early, leaving its output
 * incomplete: the cook fails at its next check, before anything is
 * published. */
bool cook_budget_over(void);

/* Seconds left of the current cook's budget (at most 0 once over); a
 * negative number when there is no budget. */
double cook_budget_left(void);

/* The budget's stage is `stage` from now on (cook_stage_enter). */
void cook_budget_set_stage(cook_stage stage);

#endif
