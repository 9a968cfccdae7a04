/*
 * shader_ir.h — a shader program between compiling and writing: the
 * .kshader tables being built (docs/formats/kshader.md), filled stage by
 * stage by the reflection (process/spirv.h) and serialised by
 * write/kshader.h. Offsets in the stage records index these buffers.
 */
#ifndef KILN_COOK_CORE_SHADER_IR_H
#define KILN_COOK_CORE_SHADER_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/core.h"
#include "kiln/format.h"

typedef struct shader_program_ir {
    uint32_t target; /* kiln_shader_target */
    uint32_t stage_count;
    kiln_shader_stage_desc stages[KILN_SHADER_STAGE_COUNT_]; /* in pipeline order */
    bytebuf code;                                            /* u32 SPIR-V words of every stage */
    bytebuf io;                                              /* kiln_shader_io[] */
    bytebuf bindings;       /* kiln_shader_binding[], merged over the stages */
    bytebuf push;           /* kiln_shader_push_constant[] */
    bytebuf push_instances; /* kiln_shader_push_instance[], parallel to push */
    bytebuf spec;           /* kiln_shader_spec_constant[] */
    bytebuf strings;        /* NUL-terminated names */
} shader_program_ir;

/* Appends `text` (NULL: "") and its NUL to the string table (string_table_add);
 * *offset, *length locate it. */
void shader_ir_string(shader_program_ir *program, const char *text, uint32_t *offset,
                      uint32_t *length);
/* The string at `offset` (NUL-terminated in the table), or "" out of range. */
const char *shader_ir_string_at(const shader_program_ir *program, uint32_t offset);
/* Element counts of the tables. */
uint32_t shader_ir_binding_count(const shader_program_ir *program);
/* Adds descriptor `b` to the program's bindings, `name` added to the strings
 * when it is new: where (set, binding) is already there with the same type
 * and count, ORs in its stages and keeps the larger block size; with another
 * type or count, false with a reason naming both. */
bool shader_ir_merge_binding(shader_program_ir *program, const kiln_shader_binding *b,
                             const char *name, char *reason, size_t reason_size);
/* Sorts the bindings by set, then binding (the order kshader.md asks). */
void shader_ir_sort_bindings(shader_program_ir *program);
void shader_program_ir_free(shader_program_ir *program);

#endif /* KILN_COOK_CORE_SHADER_IR_H */
