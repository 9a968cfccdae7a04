/* parallel.c — see parallel.h. Threads are started per call: the calls are
 * few and large (block rows of a texture level, chunks of a mesh), so a
 * persistent pool would save microseconds against milliseconds of work. */
#include "cook/core/parallel.h"

#include <pthread.h>
#include <stdatomic.h>

#define PARALLEL_MAX_THREADS 64u

typedef struct parallel_job {
    parallel_fn fn;
    void *ctx;
    uint32_t count;
    atomic_uint next;
} parallel_job;

static void *parallel_worker(void *arg) {
    parallel_job *job = arg;
    for (;;) {
        unsigned index = atomic_fetch_add(&job->next, 1u);
        if (index >= job->count)
            break;
        job->fn(job->ctx, index);
    }
    return NULL;
}

void parallel_for(unsigned threads, uint32_t count, parallel_fn fn, void *ctx) {
    parallel_job job = {.fn = fn, .ctx = ctx, .count = count};
    atomic_init(&job.next, 0u);
    if (threads > PARALLEL_MAX_THREADS)
        threads = PARALLEL_MAX_THREADS;
    if (threads > count)
        threads = count;
    pthread_t helpers[PARALLEL_MAX_THREADS];
    unsigned started = 0;
    while (started + 1 < threads &&
           pthread_create(&helpers[started], NULL, parallel_worker, &job) == 0)
        started++;
    parallel_worker(&job);
    for (unsigned i = 0; i < started; i++)
        pthread_join(helpers[i], NULL);
}
