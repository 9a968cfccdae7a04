/*
 * jobs.c — a fixed pool of worker threads over an index range.
 *
 * Workers take the next index from one atomic counter, so a slow job never
 * holds up the others and every index runs exactly once. The calling thread is
 * a worker too: with one worker (or if no thread can be created) everything
 * runs on it, in index order.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"

typedef struct job_queue {
    atomic_size_t next;
    size_t count;
    job_fn fn;
    void *context;
} job_queue;

static void drain_queue(job_queue *queue) {
    for (;;) {
        size_t index = atomic_fetch_add(&queue->next, 1);
        if (index >= queue->count)
            return;
        queue->fn(queue->context, index);
    }
}

static void *worker_main(void *argument) {
    drain_queue(argument);
    return NULL;
}

void jobs_run(size_t count, unsigned workers, job_fn fn, void *context) {
    job_queue queue = {.count = count, .fn = fn, .context = context};
    atomic_init(&queue.next, 0);
    if (count == 0)
        return;

    size_t helper_count = workers > 1 ? (size_t)workers - 1 : 0;
    if (helper_count > count - 1)
        helper_count = count - 1; /* no idle threads */
    pthread_t *helpers = helper_count > 0 ? calloc(helper_count, sizeof *helpers) : NULL;
    if (helpers == NULL)
        helper_count = 0;

    size_t started = 0;
    while (started < helper_count &&
           pthread_create(&helpers[started], NULL, worker_main, &queue) == 0)
        started++;

    drain_queue(&queue);
    for (size_t i = 0; i < started; i++)
        pthread_join(helpers[i], NULL);
    free(helpers);
}

unsigned jobs_default_count(void) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1)
        return 1;
    if (online > CLI_MAX_JOBS)
        return CLI_MAX_JOBS;
    return (unsigned)online;
}
