/* activity.c — what a cook is doing now, for a watcher on another thread (the
 * CLI's progress line): the stage, one atomic per cook, set as drivers enter
 * their stages. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cook/core/budget.h"
#include "cook/core/core.h"

#define SLOW_STAGE_ENV "KILN_TEST_SLOW_STAGE"

struct cook_activity {
    atomic_int stage; /* a cook_stage; COOK_STAGE_COUNT: none */
};

cook_activity *cook_activity_create(void) {
    cook_activity *activity = malloc(sizeof *activity);
    if (activity != NULL)
        atomic_init(&activity->stage, COOK_STAGE_COUNT);
    return activity;
}

void cook_activity_destroy(cook_activity *activity) {
    free(activity);
}

cook_stage cook_activity_stage(const cook_activity *activity) {
    /* Only the label of a progress line depends on it: no ordering needed. */
    return (cook_stage)atomic_load_explicit(&((cook_activity *)activity)->stage,
                                            memory_order_relaxed);
}

void cook_activity_set(cook_activity *activity, cook_stage stage) {
    if (activity != NULL)
        atomic_store_explicit(&activity->stage, (int)stage, memory_order_relaxed);
}

/* The test hook of cook_stage_enter: the seconds to sleep on entering
 * `stage`, 0 when the variable does not name it. */
static double test_stage_delay(cook_stage stage) {
    const char *hook = getenv(SLOW_STAGE_ENV);
    const char *name = cook_stage_name(stage);
    size_t length = strlen(name);
    if (hook == NULL || strncmp(hook, name, length) != 0 || hook[length] != ':')
        return 0.0;
    double seconds = strtod(hook + length + 1, NULL);
    return seconds > 0.0 && seconds < 3600.0 ? seconds : 0.0;
}

bool cook_stage_enter(cook_context *ctx, cook_stage stage) {
    /* Checked before the stage changes: the time ran out in the one left. */
    bool in_budget = cook_budget_check(ctx);
    cook_activity_set(ctx->activity, stage);
    cook_budget_set_stage(stage);
    double delay = test_stage_delay(stage);
    if (delay > 0.0) {
        struct timespec pause = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
        while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
        }
    }
    return in_budget;
}
