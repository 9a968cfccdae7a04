/* shader_ir.c — the shader program tables being built (shader_ir.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/shader_ir.h"

void shader_ir_string(shader_program_ir *program, const char *text, uint32_t *offset,
                      uint32_t *length) {
    /* A table past 4 GiB fails the program, as a failed allocation does. */
    if (!string_table_add(&program->strings, text, offset, length))
        program->strings.failed = true;
}

const char *shader_ir_string_at(const shader_program_ir *program, uint32_t offset) {
    if (program->strings.data == NULL || offset >= program->strings.size)
        return "";
    return (const char *)program->strings.data + offset;
}

uint32_t shader_ir_binding_count(const shader_program_ir *program) {
    return (uint32_t)(program->bindings.size / sizeof(kiln_shader_binding));
}

bool shader_ir_merge_binding(shader_program_ir *program, const kiln_shader_binding *b,
                             const char *name, char *reason, size_t reason_size) {
    kiln_shader_binding *existing = (kiln_shader_binding *)(void *)program->bindings.data;
    uint32_t known = shader_ir_binding_count(program);
    for (uint32_t k = 0; k < known; k++) {
        if (existing[k].set != b->set || existing[k].binding != b->binding)
            continue;
        if (existing[k].type != b->type || existing[k].count != b->count) {
            snprintf(reason, reason_size,
                     "set %u binding %u is '%s' (%s x%u) here but another stage declares "
                     "'%s' (%s x%u)",
                     b->set, b->binding, name, kiln_binding_type_str((kiln_binding_type)b->type),
                     b->count, shader_ir_string_at(program, existing[k].name_offset),
                     kiln_binding_type_str((kiln_binding_type)existing[k].type), existing[k].count);
            return false;
        }
        existing[k].stages |= b->stages;
        if (b->block_size > existing[k].block_size)
            existing[k].block_size = b->block_size;
        return true;
    }
    kiln_shader_binding added = *b;
    shader_ir_string(program, name, &added.name_offset, &added.name_length);
    bytebuf_append(&program->bindings, &added, sizeof added);
    return true;
}

static int compare_bindings(const void *a, const void *b) {
    const kiln_shader_binding *x = a, *y = b;
    if (x->set != y->set)
        return x->set < y->set ? -1 : 1;
    return (x->binding > y->binding) - (x->binding < y->binding);
}

void shader_ir_sort_bindings(shader_program_ir *program) {
    uint32_t count = shader_ir_binding_count(program);
    if (count > 1)
        qsort(program->bindings.data, count, sizeof(kiln_shader_binding), compare_bindings);
}

void shader_program_ir_free(shader_program_ir *program) {
    bytebuf_free(&program->code);
    bytebuf_free(&program->io);
    bytebuf_free(&program->bindings);
    bytebuf_free(&program->push);
    bytebuf_free(&program->push_instances);
    bytebuf_free(&program->spec);
    bytebuf_free(&program->strings);
    memset(program, 0, sizeof *program);
}
