/* parallel.c — the one thread pool (parallel.h).
 *
 * Every parallel_for with more than one thread is a `pool_call` on its
 * caller's stack, linked into the list of open calls (in the order they were
 * made) until it returns. One mutex guards that list, each call's count of
 * threads working on it, and the workers; items are handed out from each
 * call's atomic counter without it. A thread that finds its call's counter past the end leaves the
 * call under the mutex, so the caller sees `working == 0` only after every
 * item has finished, and nobody reads the call after it returns.
 *
 * Why waiting cannot deadlock: a caller waits only for threads that are
 * running items of its call, and helps meanwhile only with calls made after
 * its own. A thread it waits for took that item after the call was made, so
 * it is either running it or itself waiting on a call made later still; along
 * every chain of waits the calls get newer, so no chain closes into a cycle. */
#include "cook/core/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct pool_call {
    parallel_fn fn;
    void *ctx;
    void *inherited; /* the caller's parallel_inherited(), given to every item */
    uint32_t count;
    unsigned limit;                  /* most threads working on it at once */
    unsigned working;                /* threads working on it now */
    atomic_uint_fast64_t next;       /* next index to hand out; grows past count */
    struct pool_call *older, *newer; /* the open calls, in the order made */
} pool_call;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;        /* a call was opened, or its last worker left it */
    pool_call *oldest, *newest; /* the open calls */
    unsigned sleepers;          /* threads waiting on `wake` */
    pthread_t *workers;
    unsigned worker_count;
    bool stopping;
    bool stop_at_exit; /* parallel_stop is registered with atexit */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static _Thread_local void *thread_inherited;

void *parallel_inherited(void) {
    return thread_inherited;
}

void *parallel_set_inherited(void *value) {
    void *previous = thread_inherited;
    thread_inherited = value;
    return previous;
}

static void run_items(pool_call *call) {
    /* A helper may be inside an item of another call (a nested wait): its
     * own value comes back after these items. */
    void *outer = parallel_set_inherited(call->inherited);
    for (;;) {
        uint_fast64_t index = atomic_fetch_add(&call->next, 1u);
        if (index >= call->count)
            break;
        call->fn(call->ctx, (uint32_t)index);
    }
    parallel_set_inherited(outer);
}

static void wait_for_wake(void) {
    pool.sleepers++;
    pthread_cond_wait(&pool.wake, &pool.lock);
    pool.sleepers--;
}

static void wake_all(void) {
    if (pool.sleepers > 0)
        pthread_cond_broadcast(&pool.wake);
}

/* The oldest open call from `call` on (`call` or made after it) that has
 * items left and room for one more thread. Oldest first: while the build has
 * assets left, a free thread starts the next one (the largest items there
 * are); only the last assets' inner calls get helpers. Lock held. */
static pool_call *pick_call(pool_call *call) {
    for (; call != NULL; call = call->newer) {
        if (call->working < call->limit && atomic_load(&call->next) < call->count)
            return call;
    }
    return NULL;
}

/* Runs items of someone else's call until none is left. Lock held on entry
 * and on return, released meanwhile. */
static void help(pool_call *call) {
    call->working++;
    pthread_mutex_unlock(&pool.lock);
    run_items(call);
    pthread_mutex_lock(&pool.lock);
    if (--call->working == 0)
        wake_all(); /* its caller may be waiting for this */
}

static void *pool_worker(void *unused) {
    (void)unused;
    pthread_mutex_lock(&pool.lock);
    while (!pool.stopping) {
        pool_call *call = pick_call(pool.oldest);
        if (call != NULL)
            help(call);
        else
            wait_for_wake();
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* Starts workers until there are `wanted`. Lock held. */
static void pool_grow(unsigned wanted) {
    if (pool.worker_count >= wanted)
        return;
    pthread_t *workers = realloc(pool.workers, wanted * sizeof *workers);
    if (workers == NULL)
        return;
    pool.workers = workers;
    if (!pool.stop_at_exit)
        pool.stop_at_exit = atexit(parallel_stop) == 0;
    while (pool.worker_count < wanted &&
           pthread_create(&workers[pool.worker_count], NULL, pool_worker, NULL) == 0)
        pool.worker_count++;
}

void parallel_for(unsigned threads, uint32_t count, parallel_fn fn, void *ctx) {
    if (threads > count)
        threads = count;
    if (threads > PARALLEL_MAX_THREADS)
        threads = PARALLEL_MAX_THREADS;
    if (threads <= 1) {
        for (uint32_t i = 0; i < count; i++)
            fn(ctx, i);
        return;
    }
    pool_call call = {.fn = fn,
                      .ctx = ctx,
                      .inherited = thread_inherited,
                      .count = count,
                      .limit = threads,
                      .working = 1};
    atomic_init(&call.next, 0u);

    pthread_mutex_lock(&pool.lock);
    pool_grow(threads - 1);
    call.older = pool.newest;
    if (pool.newest != NULL)
        pool.newest->newer = &call;
    else
        pool.oldest = &call;
    pool.newest = &call;
    wake_all();
    pthread_mutex_unlock(&pool.lock);

    run_items(&call);

    pthread_mutex_lock(&pool.lock);
    call.working--;
    while (call.working > 0) { /* items others took are still running */
        pool_call *newer = pick_call(call.newer);
        if (newer != NULL)
            help(newer);
        else
            wait_for_wake();
    }
    if (call.newer != NULL)
        call.newer->older = call.older;
    else
        pool.newest = call.older;
    if (call.older != NULL)
        call.older->newer = call.newer;
    else
        pool.oldest = call.newer;
    pthread_mutex_unlock(&pool.lock);
}

unsigned parallel_cpu_count(void) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1)
        return 1;
    if (online > (long)PARALLEL_MAX_THREADS)
        return PARALLEL_MAX_THREADS;
    return (unsigned)online;
}

void parallel_stop(void) {
    pthread_mutex_lock(&pool.lock);
    if (pool.oldest != NULL) {
        /* A call is under way (exit() from inside an item): joining would
         * wait for it forever. The process is ending; leave the workers. */
        pthread_mutex_unlock(&pool.lock);
        return;
    }
    pthread_t *workers = pool.workers;
    unsigned count = pool.worker_count;
    pool.workers = NULL;
    pool.worker_count = 0;
    pool.stopping = true;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (unsigned i = 0; i < count; i++)
        pthread_join(workers[i], NULL);
    free(workers);
    pthread_mutex_lock(&pool.lock);
    pool.stopping = false;
    pthread_mutex_unlock(&pool.lock);
}
