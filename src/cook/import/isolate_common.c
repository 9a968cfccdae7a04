/*
 * isolate_common.c — what every library run in a child shares (isolate.h):
 * the limits of its process, the switch between a child and this process
 * (KILN_ISOLATE), the wording of a failure, and the tests' fault hook.
 *
 * Part of the import stage: may use core and common.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cook/core/budget.h"
#include "cook/import/isolate.h"

#define ISOLATE_ENV "KILN_ISOLATE"
#define MIN_DEFAULT_MEMORY ((uint64_t)4 << 30)

/* ---------------------------------------------------------------------------
 * Limits
 * ------------------------------------------------------------------------- */

static uint64_t default_memory_bytes(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t half = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size / 2 : 0;
    return half > MIN_DEFAULT_MEMORY ? half : MIN_DEFAULT_MEMORY;
}

bool import_isolation_limits(const cook_settings *settings, isolate_limits *limits, char *reason,
                             size_t reason_size) {
    /* import.timeout was validated where it was set (kiln.yml, the command
     * line); a settings struct that never had defaults (0) gets the default. */
    uint32_t timeout = settings != NULL ? settings->import_timeout : 0;
    if (timeout == 0 || timeout > COOK_IMPORT_TIMEOUT_MAX)
        timeout = COOK_IMPORT_TIMEOUT_DEFAULT;
    *limits = (isolate_limits){.timeout_seconds = timeout, .memory_bytes = default_memory_bytes()};
    const char *text = getenv(ISOLATE_MEMORY_ENV);
    if (text != NULL && text[0] != '\0') {
        char *end;
        unsigned long long mib = strtoull(text, &end, 10);
        if (*end != '\0' || text[0] < '0' || text[0] > '9' || mib > ((uint64_t)1 << 40)) {
            snprintf(reason, reason_size, "%s='%s' is not a number of MiB (0: no limit)",
                     ISOLATE_MEMORY_ENV, text);
            return false;
        }
        limits->memory_bytes = (uint64_t)mib << 20;
    }
    /* A backstop for a parent that cannot enforce the timeout (stopped in a
     * debugger): an importer is single-threaded, so it never needs more. */
    limits->cpu_seconds = (uint32_t)ceil(limits->timeout_seconds) + 1;
    /* A response cannot honestly be larger than the memory the child had. */
    limits->max_response_bytes = limits->memory_bytes;
    return true;
}

const char *isolate_test_fault_hook(void) {
#ifdef KILN_TEST_HOOKS
    return getenv("KILN_TEST_ISOLATE_FAULT");
#else
    return NULL;
#endif
}

bool isolate_library_limits(double timeout_seconds, isolate_limits *limits, char *reason,
                            size_t reason_size) {
    if (!import_isolation_limits(NULL, limits, reason, reason_size))
        return false;
    if (timeout_seconds > 0.0)
        limits->timeout_seconds = timeout_seconds;
    double left = cook_budget_left();
    if (left >= 0.0 && left < limits->timeout_seconds)
        limits->timeout_seconds = left > 0.001 ? left : 0.001;
    limits->cpu_seconds = (uint32_t)ceil(limits->timeout_seconds) + 1;
    return true;
}

/* ---------------------------------------------------------------------------
 * Which process, and the messages
 * ------------------------------------------------------------------------- */

const char *isolate_file_name(const char *path) {
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    return slash != NULL ? slash + 1 : path != NULL ? path : "(unnamed)";
}

bool isolate_enabled(bool by_default) {
    const char *isolate = getenv(ISOLATE_ENV);
    if (isolate != NULL && strcmp(isolate, "0") == 0)
        return false;
    if (isolate != NULL && strcmp(isolate, "1") == 0)
        return true;
    return by_default;
}

void isolate_failure_text(const isolate_outcome *outcome, const isolate_limits *limits,
                          const char *library, const char *verb, const char *file, char *text,
                          size_t text_size) {
    switch (outcome->status) {
    case ISOLATE_DONE:
        snprintf(text, text_size, "%s finished %s %s", library, verb, file);
        break;
    case ISOLATE_SIGNALED:
        if (outcome->signal == SIGXCPU)
            snprintf(text, text_size, "%s used more than %u s of CPU time %s %s; stopped", library,
                     limits->cpu_seconds, verb, file);
        else
            snprintf(text, text_size, "%s crashed %s %s (signal %d, SIG%s)", library, verb, file,
                     outcome->signal, isolate_signal_name(outcome->signal));
        break;
    case ISOLATE_EXITED:
        snprintf(text, text_size, "%s failed %s %s: its process exited with status %d", library,
                 verb, file, outcome->exit_code);
        break;
    case ISOLATE_TIMED_OUT:
        snprintf(text, text_size,
                 "%s took longer than %g s %s %s; stopped (import.timeout, --import-timeout)",
                 library, limits->timeout_seconds, verb, file);
        break;
    case ISOLATE_FAILED:
        snprintf(text, text_size, "%s could not run in a child process for %s: %s", library, file,
                 outcome->reason);
        break;
    }
}

#ifdef KILN_TEST_HOOKS
/* Test hook, built only with the tests: KILN_TEST_ISOLATE_FAULT=KIND:NAME
 * makes the child importing or decoding a file whose name is NAME crash
 * (SIGSEGV), hang (sleep forever) or send a truncated response (garbage).
 * The parent reads it and sends it with the request: a server's own
 * environment is the one it started with. */
char isolate_test_fault(const char *hook, const char *source_path) {
    const char *colon = hook != NULL ? strchr(hook, ':') : NULL;
    if (colon == NULL || strcmp(colon + 1, isolate_file_name(source_path)) != 0)
        return 0;
    size_t length = (size_t)(colon - hook);
    if (length == 5 && strncmp(hook, "crash", 5) == 0) {
        signal(SIGSEGV, SIG_DFL); /* past a sanitizer's handler: die as a release build would */
        raise(SIGSEGV);
    }
    if (length == 4 && strncmp(hook, "hang", 4) == 0)
        for (;;)
            pause();
    return length == 7 && strncmp(hook, "garbage", 7) == 0 ? 'g' : 0;
}
#endif
