/*
 * spirv_stage.c — one stage's reflection checked and joined to its program
 * (spirv.h). kiln's own code: the reflection itself (spirv_reflect.c) is
 * SPIRV-Cross's, which a cook runs in a child process, so what it made is
 * checked whole here before any of it is used, whichever process made it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/spirv.h"

__attribute__((format(printf, 3, 4))) static bool refuse(char *reason, size_t reason_size,
                                                         const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(reason, reason_size, format, args);
    va_end(args);
    return false;
}

/* A name of the stage's string table: inside it, NUL-terminated right
 * after `length` bytes without a NUL among them, and not too long. */
static bool name_ok(const shader_program_ir *alone, uint32_t offset, uint32_t length) {
    if (length > SPIRV_STAGE_MAX_NAME || (uint64_t)offset + length >= alone->strings.size)
        return false;
    const uint8_t *text = alone->strings.data + offset;
    return text[length] == '\0' && memchr(text, '\0', length) == NULL;
}

/* Records in a table, or UINT32_MAX when its size is no whole number of them. */
static uint32_t records(const bytebuf *table, size_t record_size) {
    return table->size % record_size == 0 && table->size / record_size < UINT32_MAX
               ? (uint32_t)(table->size / record_size)
               : UINT32_MAX;
}

static bool check_io(const shader_program_ir *alone, uint32_t first, uint32_t count,
                     const char *what, char *reason, size_t reason_size) {
    const kiln_shader_io *io = (const kiln_shader_io *)(const void *)alone->io.data;
    for (uint32_t i = 0; i < count; i++) {
        const kiln_shader_io *v = &io[first + i];
        if (v->base_type >= KILN_SHADER_TYPE_COUNT_ || v->vecsize > 4 || v->columns > 4 ||
            v->flags != 0)
            return refuse(reason, reason_size, "%s %u has an unknown type", what, i);
        if (!name_ok(alone, v->name_offset, v->name_length))
            return refuse(reason, reason_size, "%s %u has a bad name", what, i);
        if (i > 0 && v->location <= v[-1].location)
            return refuse(reason, reason_size,
                          "%s %u (location %u) is not after the one before it (location %u)", what,
                          i, v->location, v[-1].location);
    }
    return true;
}

static int compare_keys(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool check_bindings(const shader_program_ir *alone, uint32_t count, kiln_shader_stage stage,
                           char *reason, size_t reason_size) {
    const kiln_shader_binding *b = (const kiln_shader_binding *)(const void *)alone->bindings.data;
    uint64_t *keys = malloc((count > 0 ? count : 1) * sizeof *keys);
    if (keys == NULL)
        return refuse(reason, reason_size, "out of memory");
    bool ok = true;
    for (uint32_t i = 0; ok && i < count; i++) {
        bool buffer =
            b[i].type == KILN_BINDING_UNIFORM_BUFFER || b[i].type == KILN_BINDING_STORAGE_BUFFER;
        if (b[i].type == KILN_BINDING_INVALID || b[i].type >= KILN_BINDING_TYPE_COUNT_ ||
            b[i].stages != 1u << stage || (!buffer && b[i].block_size != 0))
            ok =
                refuse(reason, reason_size, "binding %u has type %u, stages 0x%x and block size %u",
                       i, b[i].type, b[i].stages, b[i].block_size);
        else if (!name_ok(alone, b[i].name_offset, b[i].name_length))
            ok = refuse(reason, reason_size, "binding %u has a bad name", i);
        keys[i] = (uint64_t)b[i].set << 32 | b[i].binding;
    }
    /* Each (set, binding) once: a stage's own are merged as it is reflected. */
    if (ok)
        qsort(keys, count, sizeof *keys, compare_keys);
    for (uint32_t i = 1; ok && i < count; i++)
        if (keys[i] == keys[i - 1])
            ok = refuse(reason, reason_size, "set %u binding %u is listed twice",
                        (unsigned)(keys[i] >> 32), (unsigned)keys[i]);
    free(keys);
    return ok;
}

static bool check_push_and_spec(const shader_program_ir *alone, uint32_t push_count,
                                uint32_t spec_count, char *reason, size_t reason_size) {
    const kiln_shader_push_constant *p =
        (const kiln_shader_push_constant *)(const void *)alone->push.data;
    const kiln_shader_push_instance *instance =
        (const kiln_shader_push_instance *)(const void *)alone->push_instances.data;
    for (uint32_t i = 0; i < push_count; i++) {
        if ((uint64_t)p[i].offset + p[i].size > UINT32_MAX)
            return refuse(reason, reason_size, "push-constant block %u overflows", i);
        if (!name_ok(alone, p[i].name_offset, p[i].name_length) ||
            !name_ok(alone, instance[i].name_offset, instance[i].name_length))
            return refuse(reason, reason_size, "push-constant block %u has a bad name", i);
    }
    const kiln_shader_spec_constant *c =
        (const kiln_shader_spec_constant *)(const void *)alone->spec.data;
    for (uint32_t i = 0; i < spec_count; i++) {
        if (c[i].base_type >= KILN_SHADER_TYPE_COUNT_ || c[i].reserved != 0)
            return refuse(reason, reason_size, "specialization constant %u has type %u", i,
                          c[i].base_type);
        if (!name_ok(alone, c[i].name_offset, c[i].name_length))
            return refuse(reason, reason_size, "specialization constant %u has a bad name", i);
    }
    return true;
}

bool spirv_stage_check(const shader_program_ir *alone, kiln_shader_stage stage, char *reason,
                       size_t reason_size) {
    const kiln_shader_stage_desc *d = &alone->stages[0];
    if ((unsigned)stage >= KILN_SHADER_STAGE_COUNT_ || alone->stage_count != 1 ||
        d->stage != (uint32_t)stage)
        return refuse(reason, reason_size, "not one %s stage", kiln_shader_stage_str(stage));
    if (d->flags != 0 || d->entry_offset != 0 || d->entry_length != 0 || d->code_offset != 0 ||
        d->code_words != 0 || alone->code.size != 0 ||
        (d->reserved[0] | d->reserved[1] | d->reserved[2]) != 0)
        return refuse(reason, reason_size, "fields that only joining a program sets are set");
    uint32_t io = records(&alone->io, sizeof(kiln_shader_io));
    uint32_t bindings = records(&alone->bindings, sizeof(kiln_shader_binding));
    uint32_t push = records(&alone->push, sizeof(kiln_shader_push_constant));
    uint32_t instances = records(&alone->push_instances, sizeof(kiln_shader_push_instance));
    uint32_t spec = records(&alone->spec, sizeof(kiln_shader_spec_constant));
    if (d->input_count > SPIRV_STAGE_MAX_IO || d->output_count > SPIRV_STAGE_MAX_IO ||
        bindings > SPIRV_STAGE_MAX_BINDINGS || push > SPIRV_STAGE_MAX_PUSH ||
        spec > SPIRV_STAGE_MAX_SPEC)
        return refuse(reason, reason_size,
                      "%u inputs, %u outputs, %u bindings, %u push-constant blocks, %u "
                      "specialization constants: over kiln's bounds",
                      d->input_count, d->output_count, bindings, push, spec);
    if (d->input_offset != 0 || d->output_offset != d->input_count ||
        io != d->input_count + d->output_count || d->push_offset != 0 || d->push_count != push ||
        instances != push || d->spec_offset != 0 || d->spec_count != spec)
        return refuse(reason, reason_size, "its counts do not match its tables");
    if (alone->strings.size > 0 && alone->strings.data[alone->strings.size - 1] != '\0')
        return refuse(reason, reason_size, "its string table does not end with a NUL");
    bool grid = stage == KILN_SHADER_STAGE_COMPUTE || stage == KILN_SHADER_STAGE_TASK ||
                stage == KILN_SHADER_STAGE_MESH;
    if (!grid && (d->workgroup_size[0] | d->workgroup_size[1] | d->workgroup_size[2]) != 0)
        return refuse(reason, reason_size, "a workgroup size for a %s stage",
                      kiln_shader_stage_str(stage));
    return check_io(alone, 0, d->input_count, "input", reason, reason_size) &&
           check_io(alone, d->input_count, d->output_count, "output", reason, reason_size) &&
           check_bindings(alone, bindings, stage, reason, reason_size) &&
           check_push_and_spec(alone, push, spec, reason, reason_size);
}

/* The name at `offset` of `alone` added to `program`'s strings. */
static void copy_name(shader_program_ir *program, const shader_program_ir *alone, uint32_t *offset,
                      uint32_t *length) {
    shader_ir_string(program, shader_ir_string_at(alone, *offset), offset, length);
}

bool spirv_stage_append(shader_program_ir *program, const shader_program_ir *alone,
                        const char *entry, const uint32_t *words, size_t word_count, char *reason,
                        size_t reason_size) {
    if (program->stage_count >= KILN_SHADER_STAGE_COUNT_)
        return refuse(reason, reason_size, "invalid stage");
    if (word_count > UINT32_MAX || program->code.size / 4 + word_count > UINT32_MAX)
        return refuse(reason, reason_size, "the SPIR-V module is too large");
    /* The strings are added in the order the reflection met them: inputs,
     * outputs, new descriptors, push-constant blocks, specialization
     * constants, then the entry point. */
    kiln_shader_stage_desc desc = alone->stages[0];
    desc.input_offset = (uint32_t)(program->io.size / sizeof(kiln_shader_io));
    desc.output_offset = desc.input_offset + desc.input_count;
    const kiln_shader_io *io = (const kiln_shader_io *)(const void *)alone->io.data;
    for (uint32_t i = 0; i < desc.input_count + desc.output_count; i++) {
        kiln_shader_io v = io[i];
        copy_name(program, alone, &v.name_offset, &v.name_length);
        bytebuf_append(&program->io, &v, sizeof v);
    }
    const kiln_shader_binding *b = (const kiln_shader_binding *)(const void *)alone->bindings.data;
    for (uint32_t i = 0; i < shader_ir_binding_count(alone); i++)
        if (!shader_ir_merge_binding(program, &b[i], shader_ir_string_at(alone, b[i].name_offset),
                                     reason, reason_size))
            return false;
    desc.push_offset = (uint32_t)(program->push.size / sizeof(kiln_shader_push_constant));
    const kiln_shader_push_constant *p =
        (const kiln_shader_push_constant *)(const void *)alone->push.data;
    const kiln_shader_push_instance *instance =
        (const kiln_shader_push_instance *)(const void *)alone->push_instances.data;
    for (uint32_t i = 0; i < desc.push_count; i++) {
        kiln_shader_push_constant range = p[i];
        kiln_shader_push_instance variable = instance[i];
        copy_name(program, alone, &range.name_offset, &range.name_length);
        bytebuf_append(&program->push, &range, sizeof range);
        copy_name(program, alone, &variable.name_offset, &variable.name_length);
        bytebuf_append(&program->push_instances, &variable, sizeof variable);
    }
    desc.spec_offset = (uint32_t)(program->spec.size / sizeof(kiln_shader_spec_constant));
    const kiln_shader_spec_constant *c =
        (const kiln_shader_spec_constant *)(const void *)alone->spec.data;
    for (uint32_t i = 0; i < desc.spec_count; i++) {
        kiln_shader_spec_constant constant = c[i];
        copy_name(program, alone, &constant.name_offset, &constant.name_length);
        bytebuf_append(&program->spec, &constant, sizeof constant);
    }
    desc.code_offset = (uint32_t)(program->code.size / 4);
    desc.code_words = (uint32_t)word_count;
    bytebuf_append(&program->code, words, word_count * 4);
    shader_ir_string(program, entry, &desc.entry_offset, &desc.entry_length);
    program->stages[program->stage_count++] = desc;
    return true;
}

bool spirv_reflect_stage(shader_program_ir *program, kiln_shader_stage stage, const char *entry,
                         const uint32_t *words, size_t word_count, char *reason,
                         size_t reason_size) {
    shader_program_ir alone;
    if (!spirv_reflect_module(stage, entry, words, word_count, &alone, reason, reason_size))
        return false;
    char why[512];
    bool ok = spirv_stage_check(&alone, stage, why, sizeof why);
    if (!ok)
        snprintf(reason, reason_size, "SPIRV-Cross's reflection is unusable: %s", why);
    ok = ok && spirv_stage_append(program, &alone, entry, words, word_count, reason, reason_size);
    shader_program_ir_free(&alone);
    return ok;
}
