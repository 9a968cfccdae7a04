/* pool.c: the one thread pool behind parallel_for (cook/core/parallel.h).
 * Every index runs once; threads 0 and 1 run in order on the caller; nested
 * calls from several threads finish with the right sums; a call never has
 * more than `threads` items running, and the pool never more than N - 1
 * workers for calls of at most N threads.
 *
 * Built twice: with the other tests (AddressSanitizer when KILN_SANITIZE), and
 * as test_pool_tsan from parallel.c alone under ThreadSanitizer. It includes
 * nothing of the cooker but parallel.h for that reason. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* cmocka needs the includes above first. */
#include <cmocka.h>

#include "cook/core/parallel.h"

static void pause_briefly(long nanoseconds) {
    struct timespec delay = {0, nanoseconds};
    nanosleep(&delay, NULL);
}

/* ---- every index exactly once ---- */

typedef struct hits_job {
    atomic_uint *hits;
    uint32_t *out; /* out[i] = i * 3 + 1, written by item i alone */
} hits_job;

static void hit(void *ctx, uint32_t index) {
    hits_job *job = ctx;
    atomic_fetch_add(&job->hits[index], 1u);
    job->out[index] = index * 3u + 1u;
}

static void test_every_index_once(void **state) {
    (void)state;
    static const uint32_t counts[] = {0, 1, 2, 3, 5, 17, 64, 1000, 65537};
    static const unsigned threads[] = {0, 1, 2, 3, 4, 8, 64};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            uint32_t count = counts[c];
            hits_job job = {calloc(count + 1, sizeof *job.hits),
                            calloc(count + 1, sizeof *job.out)};
            assert_non_null(job.hits);
            assert_non_null(job.out);
            parallel_for(threads[t], count, hit, &job);
            for (uint32_t i = 0; i < count; i++) {
                assert_int_equal(atomic_load(&job.hits[i]), 1);
                assert_int_equal(job.out[i], i * 3u + 1u);
            }
            free(job.hits);
            free(job.out);
        }
    }
}

/* ---- threads 0 and 1: in order, on the caller ---- */

typedef struct order_job {
    pthread_t caller;
    uint32_t seen[100];
    uint32_t seen_count;
    int elsewhere;
} order_job;

static void record_order(void *ctx, uint32_t index) {
    order_job *job = ctx;
    if (!pthread_equal(pthread_self(), job->caller))
        job->elsewhere++;
    job->seen[job->seen_count++] = index;
}

static void test_one_thread_in_order(void **state) {
    (void)state;
    for (unsigned threads = 0; threads <= 1; threads++) {
        order_job job = {.caller = pthread_self()};
        parallel_for(threads, 100, record_order, &job);
        assert_int_equal(job.seen_count, 100);
        assert_int_equal(job.elsewhere, 0);
        for (uint32_t i = 0; i < 100; i++)
            assert_int_equal(job.seen[i], i);
    }
    /* One item is one thread's work whatever `threads` says. */
    order_job job = {.caller = pthread_self()};
    parallel_for(8, 1, record_order, &job);
    assert_int_equal(job.seen_count, 1);
    assert_int_equal(job.elsewhere, 0);
}

/* ---- nested calls, from several threads at once ---- */

enum { INNER_COUNT = 97, MIDDLE_COUNT = 5, OUTER_COUNT = 12 };

typedef struct nest_job {
    unsigned threads;
    atomic_ullong sums[OUTER_COUNT][MIDDLE_COUNT];
} nest_job;

typedef struct nest_item {
    nest_job *job;
    uint32_t outer, middle;
} nest_item;

static void inner_item(void *ctx, uint32_t index) {
    nest_item *item = ctx;
    atomic_fetch_add(&item->job->sums[item->outer][item->middle], (unsigned long long)index + 1);
    if (index % 16 == 0)
        pause_briefly(20000); /* let other threads come and take items */
}

static void middle_item(void *ctx, uint32_t index) {
    nest_item *outer = ctx;
    nest_item item = {outer->job, outer->outer, index};
    parallel_for(outer->job->threads, INNER_COUNT, inner_item, &item);
}

static void outer_item(void *ctx, uint32_t index) {
    nest_job *job = ctx;
    nest_item item = {job, index, 0};
    parallel_for(job->threads, MIDDLE_COUNT, middle_item, &item);
}

/* False when a sum is wrong (checked by the caller: callers of run_nested
 * may be threads other than cmocka's). */
static bool run_nested(unsigned threads) {
    nest_job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return false;
    job->threads = threads;
    parallel_for(threads, OUTER_COUNT, outer_item, job);
    bool ok = true;
    for (uint32_t o = 0; o < OUTER_COUNT; o++)
        for (uint32_t m = 0; m < MIDDLE_COUNT; m++)
            ok &= atomic_load(&job->sums[o][m]) == INNER_COUNT * (INNER_COUNT + 1) / 2;
    free(job);
    return ok;
}

static void test_nested(void **state) {
    (void)state;
    static const unsigned threads[] = {1, 2, 3, 4, 8};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
        assert_true(run_nested(threads[t]));
}

typedef struct nested_caller_args {
    unsigned threads;
    bool ok;
} nested_caller_args;

static void *nested_caller(void *arg) {
    nested_caller_args *args = arg;
    args->ok = true;
    for (int round = 0; round < 3; round++)
        args->ok &= run_nested(args->threads);
    return NULL;
}

static void test_nested_from_several_threads(void **state) {
    (void)state;
    nested_caller_args args[4] = {{2, false}, {3, false}, {4, false}, {2, false}};
    pthread_t callers[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&callers[i], NULL, nested_caller, &args[i]), 0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(callers[i], NULL), 0);
        assert_true(args[i].ok);
    }
}

/* ---- at most `threads` items of a call at once; at most N threads in all ---- */

enum { MAX_SEEN = 64 };

typedef struct limit_job {
    unsigned threads;
    atomic_uint running;
    atomic_uint most;
    pthread_mutex_t lock;
    pthread_t seen[MAX_SEEN]; /* threads that ran an item */
    unsigned seen_count;
} limit_job;

static void note_thread(limit_job *job) {
    pthread_mutex_lock(&job->lock);
    unsigned i = 0;
    while (i < job->seen_count && !pthread_equal(job->seen[i], pthread_self()))
        i++;
    if (i == job->seen_count && job->seen_count < MAX_SEEN)
        job->seen[job->seen_count++] = pthread_self();
    pthread_mutex_unlock(&job->lock);
}

static void limited_item(void *ctx, uint32_t index) {
    limit_job *job = ctx;
    note_thread(job);
    unsigned now = atomic_fetch_add(&job->running, 1u) + 1u;
    unsigned most = atomic_load(&job->most);
    while (now > most && !atomic_compare_exchange_weak(&job->most, &most, now)) {
    }
    pause_briefly(200000);
    atomic_fetch_sub(&job->running, 1u);
}

static void limited_outer_item(void *ctx, uint32_t index) {
    limit_job *job = ctx;
    note_thread(job);
    parallel_for(job->threads, 6, limited_item, job);
}

static void limit_job_init(limit_job *job, unsigned threads) {
    memset(job, 0, sizeof *job);
    job->threads = threads;
    atomic_init(&job->running, 0u);
    atomic_init(&job->most, 0u);
    pthread_mutex_init(&job->lock, NULL);
}

static void test_thread_limits(void **state) {
    (void)state;
    /* A pool grown by an earlier call to more workers than these may use. */
    limit_job wide;
    limit_job_init(&wide, 8);
    parallel_for(8, 8, limited_item, &wide);
    assert_true(atomic_load(&wide.most) <= 8);
    pthread_mutex_destroy(&wide.lock);
    for (unsigned threads = 2; threads <= 3; threads++) {
        limit_job job;
        limit_job_init(&job, threads);
        parallel_for(threads, 24, limited_item, &job);
        assert_true(atomic_load(&job.most) <= threads);
        pthread_mutex_destroy(&job.lock);
    }

    /* From an empty pool, -j3: outer and nested calls of 3 share 3 threads. */
    parallel_stop();
    limit_job job;
    limit_job_init(&job, 3);
    parallel_for(3, 5, limited_outer_item, &job);
    assert_true(job.seen_count >= 1 && job.seen_count <= 3);
    assert_true(atomic_load(&job.most) <= 3);
    pthread_mutex_destroy(&job.lock);
}

/* ---- stop, start again, stress ---- */

typedef struct stress_job {
    unsigned threads;
    uint32_t count;
    atomic_ullong sum;
} stress_job;

static void stress_inner(void *ctx, uint32_t index) {
    stress_job *job = ctx;
    atomic_fetch_add(&job->sum, index);
}

static void stress_outer(void *ctx, uint32_t index) {
    stress_job *outer = ctx;
    stress_job inner = {outer->threads, index % 7, 0};
    parallel_for(inner.threads, inner.count, stress_inner, &inner);
    if (atomic_load(&inner.sum) != inner.count * (inner.count - 1u) / 2u)
        atomic_fetch_add(&outer->sum, 1000000u); /* counted as a failure below */
    atomic_fetch_add(&outer->sum, 1u);
}

static void test_stress(void **state) {
    (void)state;
    for (uint32_t round = 0; round < 2000; round++) {
        if (round % 500 == 250)
            parallel_stop(); /* the next call starts the workers again */
        stress_job job = {1 + round % 4, round % 23, 0};
        parallel_for(job.threads, job.count, stress_outer, &job);
        assert_int_equal(atomic_load(&job.sum), job.count);
    }
}

static void test_cpu_count(void **state) {
    (void)state;
    unsigned count = parallel_cpu_count();
    assert_true(count >= 1 && count <= PARALLEL_MAX_THREADS);
}

/* ---- parallel_inherited: what items see is their caller's ---- */

typedef struct inherit_job {
    void *expected;
    atomic_uint matched;
} inherit_job;

static void check_inherited(void *ctx, uint32_t index) {
    (void)index;
    inherit_job *job = ctx;
    if (parallel_inherited() == job->expected)
        atomic_fetch_add(&job->matched, 1u);
}

static void inherit_nested(void *ctx, uint32_t index) {
    (void)index;
    parallel_for(3, 8, check_inherited, ctx);
}

static void test_inherited(void **state) {
    (void)state;
    int mine = 0;
    inherit_job job = {.expected = &mine};
    atomic_init(&job.matched, 0u);
    void *before = parallel_set_inherited(&mine);
    parallel_for(4, 200, check_inherited, &job);
    parallel_for(4, 20, inherit_nested, &job); /* and items of the items' calls */
    assert_ptr_equal(parallel_set_inherited(before), &mine);
    assert_int_equal(atomic_load(&job.matched), 200 + 20 * 8);
    /* Workers give it back: a call made without one sees none. */
    inherit_job none = {.expected = NULL};
    atomic_init(&none.matched, 0u);
    parallel_for(4, 200, check_inherited, &none);
    assert_int_equal(atomic_load(&none.matched), 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_index_once), cmocka_unit_test(test_one_thread_in_order),
        cmocka_unit_test(test_nested),           cmocka_unit_test(test_nested_from_several_threads),
        cmocka_unit_test(test_thread_limits),    cmocka_unit_test(test_stress),
        cmocka_unit_test(test_cpu_count),        cmocka_unit_test(test_inherited),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
