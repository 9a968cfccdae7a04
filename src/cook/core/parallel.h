/* parallel.h — the one thread pool (DESIGN.md: "Jobs run on one thread pool
 * (-j), shared by work across assets and inside one asset").
 *
 * `kiln build -jN` cooks its assets with one parallel_for over them, and a
 * stage spreads work inside one asset (mip rows, block rows, Zstd levels, mesh
 * chunks, vertex packing) with a parallel_for called from inside such an item.
 * Both take the same process-wide workers:
 *
 *   - The pool grows on demand to the largest `threads` any call asked for,
 *     less one for the caller: -jN gives N - 1 workers, the thread that calls
 *     in is the N-th. Nothing else starts threads, so at most N run at once
 *     (plus one for every other thread of the program that calls in).
 *   - A call publishes its items; idle workers help, the oldest call first
 *     (the next asset before a share of one under way). The caller runs its
 *     own items too, and when none is left waits only for the items others
 *     took, helping meanwhile with calls made after its own (the nested calls
 *     of those items). A call nested in an item therefore never waits for a
 *     worker to become free, and never deadlocks.
 *   - Items are handed out in increasing index order from one counter. Items
 *     must write disjoint outputs; then the result does not depend on the
 *     thread count or on which thread ran which item.
 *
 * The workers are joined at exit (atexit) or by parallel_stop. */
#ifndef KILN_COOK_CORE_PARALLEL_H
#define KILN_COOK_CORE_PARALLEL_H

#include <stdint.h>

/* Most threads one call uses, and most workers the pool holds plus one. */
#define PARALLEL_MAX_THREADS 1024u

typedef void (*parallel_fn)(void *ctx, uint32_t index);

/* Runs fn(ctx, i) once for every i in [0, count) on at most `threads` threads
 * at a time (the caller's included) and returns once every item has run.
 * threads 0 and 1 both mean the caller's thread alone, items in order, and no
 * pool. A worker that cannot be started only costs speed. */
void parallel_for(unsigned threads, uint32_t count, parallel_fn fn, void *ctx);

/* One pointer an item inherits from the thread that called parallel_for:
 * while an item runs, parallel_inherited() on its thread returns what it
 * returned on the caller's thread when the call was made. The cook's time
 * budget (core/budget.c) travels this way, so that a loop inside an item run
 * by a worker checks the deadline of the asset it works for. NULL on a thread
 * that never set it. parallel_set_inherited sets the calling thread's and
 * returns the one it replaces. */
void *parallel_inherited(void);
void *parallel_set_inherited(void *value);

/* Online processor count, 1..PARALLEL_MAX_THREADS: the default -j. */
unsigned parallel_cpu_count(void);

/* Joins the pool's workers; the next parallel_for starts them again. Call it
 * only while no parallel_for runs. Registered with atexit when the first
 * worker starts; a test may call it to start from an empty pool. */
void parallel_stop(void);

#endif
