/*
 * isolate_spirv.c — SPIRV-Tools' validator and SPIRV-Cross' reflection
 * (process/spirv*.c) as jobs of a reused child process (import/isolate.h): a
 * precompiled stage (vertex.spv) is a file of the project, and the module
 * glslang's child sends back is untrusted too.
 *
 * The validator's verdict comes back as it is. The reflection's result is a
 * program of offsets into arrays, which kiln would have to check as a whole;
 * instead the child reflects the module once as a probe, and only a module
 * SPIRV-Cross reflected there without crashing or hanging is reflected again
 * in kiln's process (SPIRV-Cross is deterministic: the same module takes the
 * same path), which is what the cook uses. The probe costs one more
 * reflection, a fraction of a millisecond for a real stage.
 *
 * Here, not in process/: the jobs need both the stages' SPIR-V code and the
 * isolation (import/), which only a driver may call together.
 *
 * Requests: u32 "KSVQ", u32 version, u8 what (0 validate, 1 reflect), strings
 * path and test fault, u32 target, u32 stage, string entry, a blob of the
 * module's words. Response: u32 "KSVS", u32 version, u8 ok, the reason.
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

enum { CHECK_VALIDATE = 0, CHECK_REFLECT = 1 };

static bool run_spirv_job(const uint8_t *request, size_t size, bytebuf *response) {
    wire_reader in = {.data = request, .size = size};
    char *path = NULL, *fault = NULL, *entry = NULL;
    const uint8_t *bytes = NULL;
    size_t byte_count = 0;
    bool ok = wire_get_u32(&in) == SPIRV_REQUEST_MAGIC && wire_get_u32(&in) == SPIRV_WIRE_VERSION;
    uint8_t what = wire_get_u8(&in);
    ok = ok && what <= CHECK_REFLECT && wire_get_string(&in, &path) && path != NULL &&
         wire_get_string(&in, &fault);
    uint32_t target = wire_get_u32(&in), stage = wire_get_u32(&in);
    ok = ok && wire_get_string(&in, &entry) && entry != NULL &&
         wire_get_blob(&in, &bytes, &byte_count) && byte_count % sizeof(uint32_t) == 0 &&
         wire_left(&in) == 0 && !in.failed && stage < KILN_SHADER_STAGE_COUNT_;
    uint32_t *words = ok ? malloc(byte_count > 0 ? byte_count : 1) : NULL;
    if (words != NULL) {
#ifdef KILN_TEST_HOOKS
        /* The reflection's faults are asked for as "FILE#reflect". */
        char name[1024];
        snprintf(name, sizeof name, "%s%s", path, what == CHECK_REFLECT ? "#reflect" : "");
        char injected = isolate_test_fault(fault, name);
#endif
        memcpy(words, bytes, byte_count); /* aligned for the libraries */
        size_t word_count = byte_count / sizeof(uint32_t);
        char reason[REASON_MAX] = "";
        bool passed;
        if (what == CHECK_VALIDATE) {
            passed = spirv_validate(words, word_count, target, reason, sizeof reason);
        } else {
            shader_program_ir probe = {.target = target};
            passed = spirv_reflect_stage(&probe, (kiln_shader_stage)stage, entry, words, word_count,
                                         reason, sizeof reason);
            shader_program_ir_free(&probe);
        }
        wire_put_u32(response, SPIRV_RESPONSE_MAGIC);
        wire_put_u32(response, SPIRV_WIRE_VERSION);
        wire_put_u8(response, passed);
        wire_put_string(response, reason);
#ifdef KILN_TEST_HOOKS
        if (injected == 'g' && response->size > 3)
            response->size -= 3;
#endif
    }
    free(words);
    free(path);
    free(fault);
    free(entry);
    return words != NULL;
}

static const isolate_job spirv_jobs[] = {{"spirv-check", run_spirv_job, true}};

__attribute__((constructor(ISOLATE_REGISTER_PRIORITY))) static void register_jobs(void) {
    isolate_register_jobs(spirv_jobs, sizeof spirv_jobs / sizeof spirv_jobs[0]);
}

/* One check in the child: true with *passed and the library's reason, or
 * false with a reason naming the library when the child failed. */
static bool check_in_child(uint8_t what, const uint32_t *words, size_t word_count, uint32_t target,
                           kiln_shader_stage stage, const char *entry, const char *path,
                           double timeout_seconds, bool *passed, char *reason, size_t reason_size) {
    const char *library = what == CHECK_VALIDATE ? "SPIRV-Tools" : "SPIRV-Cross";
    isolate_limits limits;
    if (!isolate_library_limits(timeout_seconds, &limits, reason, reason_size))
        return false;
    bytebuf head = {0};
    wire_put_u32(&head, SPIRV_REQUEST_MAGIC);
    wire_put_u32(&head, SPIRV_WIRE_VERSION);
    wire_put_u8(&head, what);
    wire_put_string(&head, path);
    wire_put_string(&head, isolate_test_fault_hook());
    wire_put_u32(&head, target);
    wire_put_u32(&head, (uint32_t)stage);
    wire_put_string(&head, entry);
    wire_put_u64(&head, word_count * sizeof(uint32_t)); /* the blob's length; the words follow */
    if (head.failed) {
        bytebuf_free(&head);
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    const isolate_part parts[] = {{head.data, head.size}, {words, word_count * sizeof(uint32_t)}};
    isolate_outcome outcome;
    isolate_run("spirv-check", parts, 2, &limits, &outcome);
    bytebuf_free(&head);
    if (outcome.status != ISOLATE_DONE) {
        isolate_failure_text(&outcome, &limits, library,
                             what == CHECK_VALIDATE ? "validating" : "reflecting",
                             isolate_file_name(path), reason, reason_size);
        return false;
    }
    wire_reader in = {.data = outcome.response, .size = outcome.response_size};
    char *text = NULL;
    bool read =
        wire_get_u32(&in) == SPIRV_RESPONSE_MAGIC && wire_get_u32(&in) == SPIRV_WIRE_VERSION;
    uint8_t ok = wire_get_u8(&in);
    read = read && ok <= 1 && wire_get_string(&in, &text) && text != NULL &&
           strlen(text) < REASON_MAX && wire_left(&in) == 0;
    if (!read)
        snprintf(reason, reason_size, "%s sent an invalid result for %s", library,
                 isolate_file_name(path));
    else
        snprintf(reason, reason_size, "%s", text);
    *passed = ok == 1;
    free(text);
    free(outcome.response);
    return read;
}

bool spirv_validate_isolated(const uint32_t *words, size_t word_count, uint32_t target,
                             const char *path, double timeout_seconds, char *reason,
                             size_t reason_size) {
    if (!isolate_enabled(true))
        return spirv_validate(words, word_count, target, reason, reason_size);
    bool passed = false;
    return check_in_child(CHECK_VALIDATE, words, word_count, target, KILN_SHADER_STAGE_VERTEX,
                          "main", path, timeout_seconds, &passed, reason, reason_size) &&
           passed;
}

bool spirv_reflect_stage_isolated(shader_program_ir *program, kiln_shader_stage stage,
                                  const char *entry, const uint32_t *words, size_t word_count,
                                  const char *path, double timeout_seconds, char *reason,
                                  size_t reason_size) {
    bool passed = false;
    if (isolate_enabled(true) &&
        !check_in_child(CHECK_REFLECT, words, word_count, program->target, stage, entry, path,
                        timeout_seconds, &passed, reason, reason_size))
        return false;
    /* Survived in the child (or no child): the reflection the cook uses,
     * with the earlier stages' bindings; a failure says what the probe said. */
    return spirv_reflect_stage(program, stage, entry, words, word_count, reason, reason_size);
}
