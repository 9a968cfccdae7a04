/* test_isolate_threads.c — the process layer of isolation (import/isolate.c)
 * called from many threads at once, built alone under ThreadSanitizer
 * (test_isolate_tsan): the idle servers of each kind are shared through one
 * lock, and a server killed by one caller's job must never be handed to
 * another. Each thread runs the test jobs of both kinds (a server reused
 * across jobs, a fresh child per job), with crashes among them, and checks
 * every outcome. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cook/import/isolate.h"

#define THREADS 4
#define JOBS_EACH 12

static const isolate_limits limits = {.timeout_seconds = 120.0};

/* One job's outcome as expected: "" for a crash (SIGSEGV), else the echo. */
static bool job_as_expected(const char *job, const char *command, const char *echo) {
    const isolate_part part = {command, strlen(command)};
    isolate_outcome outcome;
    isolate_run(job, &part, 1, &limits, &outcome);
    bool same = echo[0] == '\0'
                    ? outcome.status == ISOLATE_SIGNALED && outcome.signal == SIGSEGV
                    : outcome.status == ISOLATE_DONE && outcome.response_size == strlen(echo) &&
                          memcmp(outcome.response, echo, outcome.response_size) == 0;
    if (!same)
        fprintf(stderr, "%s %s: status %d signal %d (%s)\n", job, command, outcome.status,
                outcome.signal, outcome.reason);
    free(outcome.response);
    return same;
}

static void *caller(void *arg) {
    int id = *(int *)arg;
    for (int j = 0; j < JOBS_EACH; j++) {
        const char *job = j % 3 == 2 ? "isolate-test" : "isolate-test-reused";
        char command[80], echo[64];
        snprintf(echo, sizeof echo, "thread %d job %d", id, j);
        snprintf(command, sizeof command, "echo:%s", echo);
        bool crash = (j + id) % 5 == 4;
        if (!job_as_expected(job, crash ? "crash" : command, crash ? "" : echo))
            return (void *)1;
    }
    return NULL;
}

static void many_threads_share_the_servers(void **state) {
    (void)state;
    pthread_t threads[THREADS];
    int ids[THREADS];
    for (int t = 0; t < THREADS; t++) {
        ids[t] = t;
        assert_int_equal(pthread_create(&threads[t], NULL, caller, &ids[t]), 0);
    }
    int failures = 0;
    for (int t = 0; t < THREADS; t++) {
        void *result;
        pthread_join(threads[t], &result);
        failures += result != NULL;
    }
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_threads_share_the_servers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
