/*
 * isolate_spirv.c — SPIRV-Tools' validator and SPIRV-Cross' reflection
 * (process/spirv*.c) as jobs of a reused child process (import/isolate.h): a
 * precompiled stage (vertex.spv) is a file of the project, and the module
 * glslang's child sends back is untrusted too.
 *
 * The validator's verdict comes back as it is. The reflection comes back as
 * kiln's own result for the stage alone (spirv_reflect_module: its inputs,
 * outputs, descriptors, push-constant blocks and specialization constants,
 * names inline), which kiln reads and checks whole as untrusted input
 * (spirv_stage_check) before joining it to the program
 * (spirv_stage_append): SPIRV-Cross never runs in kiln's process.
 *
 * Here, not in process/: the jobs need both the stages' SPIR-V code and the
 * isolation (import/), which inspect may call together, and both the shader
 * driver and `kiln check` (shader.c) use them.
 *
 * Request: u32 "KSVQ", u32 version, u8 what (0 validate, 1 reflect), strings
 * path and test fault, u32 target, u32 stage, string entry, a blob of the
 * module's words. Reply (spirv_reply_write): u32 "KSVS", u32 version, u8 ok,
 * string reason; a reflection that succeeded then has its stage:
 *   u32 inputs, u32 outputs; each: u32 location, u32 base type, u8 vecsize,
 *     u8 columns, u32 array size, string name
 *   u32 descriptors; each: u32 set, binding, type, count, block size, string name
 *   u32 push-constant blocks; each: u32 offset, size, strings type and instance name
 *   u32 specialization constants; each: u32 id, base type, default, string name
 *   u32 workgroup size x, y, z
 * Version 2: the reflection's result (1: only whether it ran).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/isolate.h"
#include "cook/inspect/isolate_spirv.h"
#include "cook/process/spirv.h"

#define SPIRV_REQUEST_MAGIC 0x5156534bu  /* "KSVQ" */
#define SPIRV_RESPONSE_MAGIC 0x5356534bu /* "KSVS" */
#define SPIRV_WIRE_VERSION 2u
#define REASON_MAX 4096u

enum { CHECK_VALIDATE = 0, CHECK_REFLECT = 1 };

/* ---------------------------------------------------------------------------
 * The reply
 * ------------------------------------------------------------------------- */

static void put_name(bytebuf *out, const shader_program_ir *alone, uint32_t offset) {
    wire_put_string(out, shader_ir_string_at(alone, offset));
}

static void put_stage(bytebuf *out, const shader_program_ir *alone) {
    const kiln_shader_stage_desc *d = &alone->stages[0];
    const kiln_shader_io *io = (const kiln_shader_io *)(const void *)alone->io.data;
    wire_put_u32(out, d->input_count);
    wire_put_u32(out, d->output_count);
    for (uint32_t i = 0; i < d->input_count + d->output_count; i++) {
        wire_put_u32(out, io[i].location);
        wire_put_u32(out, io[i].base_type);
        wire_put_u8(out, io[i].vecsize);
        wire_put_u8(out, io[i].columns);
        wire_put_u32(out, io[i].array_size);
        put_name(out, alone, io[i].name_offset);
    }
    const kiln_shader_binding *b = (const kiln_shader_binding *)(const void *)alone->bindings.data;
    uint32_t bindings = shader_ir_binding_count(alone);
    wire_put_u32(out, bindings);
    for (uint32_t i = 0; i < bindings; i++) {
        wire_put_u32(out, b[i].set);
        wire_put_u32(out, b[i].binding);
        wire_put_u32(out, b[i].type);
        wire_put_u32(out, b[i].count);
        wire_put_u32(out, b[i].block_size);
        put_name(out, alone, b[i].name_offset);
    }
    const kiln_shader_push_constant *p =
        (const kiln_shader_push_constant *)(const void *)alone->push.data;
    const kiln_shader_push_instance *instance =
        (const kiln_shader_push_instance *)(const void *)alone->push_instances.data;
    wire_put_u32(out, d->push_count);
    for (uint32_t i = 0; i < d->push_count; i++) {
        wire_put_u32(out, p[i].offset);
        wire_put_u32(out, p[i].size);
        put_name(out, alone, p[i].name_offset);
        put_name(out, alone, instance[i].name_offset);
    }
    const kiln_shader_spec_constant *c =
        (const kiln_shader_spec_constant *)(const void *)alone->spec.data;
    wire_put_u32(out, d->spec_count);
    for (uint32_t i = 0; i < d->spec_count; i++) {
        wire_put_u32(out, c[i].constant_id);
        wire_put_u32(out, c[i].base_type);
        wire_put_u32(out, c[i].default_value);
        put_name(out, alone, c[i].name_offset);
    }
    for (int k = 0; k < 3; k++)
        wire_put_u32(out, d->workgroup_size[k]);
}

void spirv_reply_write(bytebuf *out, bool passed, const char *reason,
                       const shader_program_ir *alone) {
    wire_put_u32(out, SPIRV_RESPONSE_MAGIC);
    wire_put_u32(out, SPIRV_WIRE_VERSION);
    wire_put_u8(out, passed);
    wire_put_string(out, reason);
    if (passed && alone != NULL)
        put_stage(out, alone);
}

/* A name read into `alone`'s strings: false for a NULL string, a short read
 * or one over the bounds (before it is copied). */
static bool get_name(wire_reader *in, shader_program_ir *alone, uint32_t *offset,
                     uint32_t *length) {
    char *text = NULL;
    bool ok = wire_get_string(in, &text) && text != NULL && strlen(text) <= SPIRV_STAGE_MAX_NAME;
    if (ok)
        shader_ir_string(alone, text, offset, length);
    free(text);
    return ok;
}

/* A count of records, within `max` (so reading them allocates a bounded amount). */
static bool get_count(wire_reader *in, uint32_t max, uint32_t *count) {
    *count = wire_get_u32(in);
    return !in->failed && *count <= max;
}

static bool get_stage(wire_reader *in, kiln_shader_stage stage, shader_program_ir *alone) {
    kiln_shader_stage_desc d = {.stage = (uint32_t)stage};
    bool ok = get_count(in, SPIRV_STAGE_MAX_IO, &d.input_count) &&
              get_count(in, SPIRV_STAGE_MAX_IO, &d.output_count);
    d.output_offset = d.input_count;
    for (uint32_t i = 0; ok && i < d.input_count + d.output_count; i++) {
        kiln_shader_io io = {.location = wire_get_u32(in)};
        uint32_t base_type = wire_get_u32(in);
        io.base_type = (uint16_t)base_type;
        io.vecsize = wire_get_u8(in);
        io.columns = wire_get_u8(in);
        io.array_size = wire_get_u32(in);
        ok = base_type <= UINT16_MAX && get_name(in, alone, &io.name_offset, &io.name_length);
        bytebuf_append(&alone->io, &io, sizeof io);
    }
    uint32_t bindings = 0;
    ok = ok && get_count(in, SPIRV_STAGE_MAX_BINDINGS, &bindings);
    for (uint32_t i = 0; ok && i < bindings; i++) {
        kiln_shader_binding b = {.stages = 1u << stage};
        b.set = wire_get_u32(in);
        b.binding = wire_get_u32(in);
        b.type = wire_get_u32(in);
        b.count = wire_get_u32(in);
        b.block_size = wire_get_u32(in);
        ok = get_name(in, alone, &b.name_offset, &b.name_length);
        bytebuf_append(&alone->bindings, &b, sizeof b);
    }
    ok = ok && get_count(in, SPIRV_STAGE_MAX_PUSH, &d.push_count);
    for (uint32_t i = 0; ok && i < d.push_count; i++) {
        kiln_shader_push_constant p = {.offset = wire_get_u32(in)};
        p.size = wire_get_u32(in);
        kiln_shader_push_instance instance = {0};
        ok = get_name(in, alone, &p.name_offset, &p.name_length) &&
             get_name(in, alone, &instance.name_offset, &instance.name_length);
        bytebuf_append(&alone->push, &p, sizeof p);
        bytebuf_append(&alone->push_instances, &instance, sizeof instance);
    }
    ok = ok && get_count(in, SPIRV_STAGE_MAX_SPEC, &d.spec_count);
    for (uint32_t i = 0; ok && i < d.spec_count; i++) {
        kiln_shader_spec_constant c = {.constant_id = wire_get_u32(in)};
        c.base_type = wire_get_u32(in);
        c.default_value = wire_get_u32(in);
        ok = get_name(in, alone, &c.name_offset, &c.name_length);
        bytebuf_append(&alone->spec, &c, sizeof c);
    }
    for (int k = 0; k < 3; k++)
        d.workgroup_size[k] = wire_get_u32(in);
    alone->stages[0] = d;
    alone->stage_count = 1;
    return ok && !in->failed;
}

bool spirv_reply_read(const uint8_t *data, size_t size, kiln_shader_stage stage,
                      shader_program_ir *alone, bool *passed, char *reason, size_t reason_size) {
    wire_reader in = {.data = data, .size = size};
    char *text = NULL;
    *passed = false;
    if (alone != NULL)
        *alone = (shader_program_ir){0};
    bool ok = wire_get_u32(&in) == SPIRV_RESPONSE_MAGIC && wire_get_u32(&in) == SPIRV_WIRE_VERSION;
    uint8_t verdict = wire_get_u8(&in);
    ok = ok && verdict <= 1 && wire_get_string(&in, &text) && text != NULL &&
         strlen(text) < REASON_MAX;
    if (!ok) {
        snprintf(reason, reason_size, "not a reply of this version with a reason");
    } else if (verdict == 1 && alone != NULL) {
        char why[512];
        bool read = get_stage(&in, stage, alone);
        if (!read)
            snprintf(why, sizeof why,
                     "its stage is cut short, or a count or a name is over kiln's bounds");
        else if (wire_left(&in) != 0)
            snprintf(why, sizeof why, "%zu bytes after its end", wire_left(&in));
        ok = read && wire_left(&in) == 0 && spirv_stage_check(alone, stage, why, sizeof why);
        if (!ok)
            snprintf(reason, reason_size, "%s", why);
    } else if (wire_left(&in) != 0) {
        ok = false;
        snprintf(reason, reason_size, "%zu bytes after its end", wire_left(&in));
    }
    if (ok) {
        *passed = verdict == 1;
        snprintf(reason, reason_size, "%s", text);
    } else if (alone != NULL) {
        shader_program_ir_free(alone);
    }
    free(text);
    return ok;
}

/* ---------------------------------------------------------------------------
 * The job, in the child
 * ------------------------------------------------------------------------- */

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
        if (what == CHECK_VALIDATE) {
            bool passed = spirv_validate(words, word_count, target, reason, sizeof reason);
            spirv_reply_write(response, passed, reason, NULL);
        } else {
            shader_program_ir alone;
            bool passed = spirv_reflect_module((kiln_shader_stage)stage, entry, words, word_count,
                                               &alone, reason, sizeof reason);
            spirv_reply_write(response, passed, reason, &alone);
            shader_program_ir_free(&alone);
        }
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

/* ---------------------------------------------------------------------------
 * The parent
 * ------------------------------------------------------------------------- */

/* One check in the child: true with *passed, the library's reason and (a
 * reflection) *alone checked, or false with a reason naming the library
 * when the child failed or sent an invalid reply. */
static bool check_in_child(uint8_t what, const uint32_t *words, size_t word_count, uint32_t target,
                           kiln_shader_stage stage, const char *entry, const char *path,
                           double timeout_seconds, shader_program_ir *alone, bool *passed,
                           char *reason, size_t reason_size) {
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
    char why[REASON_MAX];
    bool read = spirv_reply_read(outcome.response, outcome.response_size, stage, alone, passed, why,
                                 sizeof why);
    if (!read)
        snprintf(reason, reason_size, "%s sent an invalid result for %s: %s", library,
                 isolate_file_name(path), why);
    else
        snprintf(reason, reason_size, "%s", why);
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
                          "main", path, timeout_seconds, NULL, &passed, reason, reason_size) &&
           passed;
}

bool spirv_reflect_stage_isolated(shader_program_ir *program, kiln_shader_stage stage,
                                  const char *entry, const uint32_t *words, size_t word_count,
                                  const char *path, double timeout_seconds, char *reason,
                                  size_t reason_size) {
    if (!isolate_enabled(true))
        return spirv_reflect_stage(program, stage, entry, words, word_count, reason, reason_size);
    shader_program_ir alone = {0};
    bool passed = false;
    bool ok = check_in_child(CHECK_REFLECT, words, word_count, program->target, stage, entry, path,
                             timeout_seconds, &alone, &passed, reason, reason_size) &&
              passed &&
              spirv_stage_append(program, &alone, entry, words, word_count, reason, reason_size);
    shader_program_ir_free(&alone);
    return ok;
}
