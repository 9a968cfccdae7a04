/* parallel.h — the one way cook stages spread work inside one asset.
 *
 * `parallel_for` runs fn(ctx, i) for every i in [0, count) on up to `threads`
 * threads (the caller's thread included), items taken in order from one
 * atomic counter. Items must write disjoint outputs; then the result does not
 * depend on the thread count or on which thread ran which item. */
#ifndef KILN_COOK_CORE_PARALLEL_H
#define KILN_COOK_CORE_PARALLEL_H

#include <stdint.h>

typedef void (*parallel_fn)(void *ctx, uint32_t index);

/* Returns once every item has run; threads 0 and 1 both mean the caller's
 * thread alone. A helper thread that cannot be started
 * only costs speed: the caller's thread takes the remaining items. */
void parallel_for(unsigned threads, uint32_t count, parallel_fn fn, void *ctx);

#endif
