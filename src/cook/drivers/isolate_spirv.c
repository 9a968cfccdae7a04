/*
 * isolate_spirv.c — SPIRV-Tools' validator (process/spirv_validate.c) as a
 * job of a reused child process (import/isolate.h): a precompiled stage
 * (vertex.spv) is a file of the project, and the module glslang's child
 * sends back is untrusted too. SPIRV-Cross then reflects only a module the
 * validator passed, in process.
 *
 * Here, not in process/: the job needs both the validator (a stage) and the
 * isolation (import/), which only a driver may call together.
 *
 * Request: u32 "KSVQ", u32 version, strings path and test fault, u32 target,
 * a blob of the module's words. Response: u32 "KSVS", u32 version, u8 valid,
 * the validator's reason as a string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "cook/import/isolate.h"
#include "cook/process/spirv.h"

#define SPIRV_REQUEST_MAGIC 0x5156534bu  /* "KSVQ" */
#define SPIRV_RESPONSE_MAGIC 0x5356534bu /* "KSVS" */
#define SPIRV_WIRE_VERSION 1u
#define REASON_MAX 4096u

static bool run_spirv_job(const uint8_t *request, size_t size, bytebuf *response) {
    wire_reader in = {.data = request, .size = size};
    char *path = NULL, *fault = NULL;
    const uint8_t *bytes = NULL;
    size_t byte_count = 0;
    bool ok = wire_get_u32(&in) == SPIRV_REQUEST_MAGIC && wire_get_u32(&in) == SPIRV_WIRE_VERSION &&
              wire_get_string(&in, &path) && path != NULL && wire_get_string(&in, &fault);
    uint32_t target = wire_get_u32(&in);
    ok = ok && wire_get_blob(&in, &bytes, &byte_count) && byte_count % sizeof(uint32_t) == 0 &&
         wire_left(&in) == 0 && !in.failed;
    uint32_t *words = ok ? malloc(byte_count > 0 ? byte_count : 1) : NULL;
    if (words != NULL) {
#ifdef KILN_TEST_HOOKS
        char injected = isolate_test_fault(fault, path);
#endif
        memcpy(words, bytes, byte_count); /* aligned for the validator */
        char reason[REASON_MAX] = "";
        bool valid =
            spirv_validate(words, byte_count / sizeof(uint32_t), target, reason, sizeof reason);
        wire_put_u32(response, SPIRV_RESPONSE_MAGIC);
        wire_put_u32(response, SPIRV_WIRE_VERSION);
        wire_put_u8(response, valid);
        wire_put_string(response, reason);
#ifdef KILN_TEST_HOOKS
        if (injected == 'g' && response->size > 3)
            response->size -= 3;
#endif
    }
    free(words);
    free(path);
    free(fault);
    return words != NULL;
}

static const isolate_job spirv_jobs[] = {{"spirv-validate", run_spirv_job, true}};

__attribute__((constructor(ISOLATE_REGISTER_PRIORITY))) static void register_jobs(void) {
    isolate_register_jobs(spirv_jobs, sizeof spirv_jobs / sizeof spirv_jobs[0]);
}

bool spirv_validate_isolated(const uint32_t *words, size_t word_count, uint32_t target,
                             const char *path, double timeout_seconds, char *reason,
                             size_t reason_size) {
    if (!isolate_enabled(true))
        return spirv_validate(words, word_count, target, reason, reason_size);
    isolate_limits limits;
    if (!isolate_library_limits(timeout_seconds, &limits, reason, reason_size))
        return false;
    bytebuf head = {0};
    wire_put_u32(&head, SPIRV_REQUEST_MAGIC);
    wire_put_u32(&head, SPIRV_WIRE_VERSION);
    wire_put_string(&head, path);
    wire_put_string(&head, isolate_test_fault_hook());
    wire_put_u32(&head, target);
    wire_put_u64(&head, word_count * sizeof(uint32_t)); /* the blob's length; the words follow */
    if (head.failed) {
        bytebuf_free(&head);
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    const isolate_part parts[] = {{head.data, head.size}, {words, word_count * sizeof(uint32_t)}};
    isolate_outcome outcome;
    isolate_run("spirv-validate", parts, 2, &limits, &outcome);
    bytebuf_free(&head);
    if (outcome.status != ISOLATE_DONE) {
        isolate_failure_text(&outcome, &limits, "SPIRV-Tools", "validating",
                             isolate_file_name(path), reason, reason_size);
        return false;
    }
    wire_reader in = {.data = outcome.response, .size = outcome.response_size};
    char *text = NULL;
    bool read =
        wire_get_u32(&in) == SPIRV_RESPONSE_MAGIC && wire_get_u32(&in) == SPIRV_WIRE_VERSION;
    uint8_t valid = wire_get_u8(&in);
    read = read && valid <= 1 && wire_get_string(&in, &text) && text != NULL &&
           strlen(text) < REASON_MAX && wire_left(&in) == 0;
    if (!read)
        snprintf(reason, reason_size, "SPIRV-Tools sent an invalid result for %s",
                 isolate_file_name(path));
    else if (!valid)
        snprintf(reason, reason_size, "%s", text);
    free(text);
    free(outcome.response);
    return read && valid;
}
