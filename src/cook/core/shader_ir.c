/* shader_ir.c — the shader program tables being built (shader_ir.h). */
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
