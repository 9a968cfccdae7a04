/*
 * spirv.h — what the cooker learns from and checks in a SPIR-V module:
 * reflection through SPIRV-Cross's C API (spirv_reflect.c), the check of its
 * result and its joining to a program (spirv_stage.c), and validation
 * through SPIRV-Tools' validator (spirv_validate.c).
 */
#ifndef KILN_COOK_PROCESS_SPIRV_H
#define KILN_COOK_PROCESS_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/shader_ir.h"

/* Reflects `words` (one stage's module, entry point `entry` of `stage`)
 * into `alone`, a program of that stage only (stages[0], no code and no
 * entry name): its stage inputs and outputs (by location, built-ins left
 * out), descriptors (one per (set, binding)), push-constant blocks,
 * specialization constants and workgroup size. SPIRV-Cross does the reading
 * (spirv_reflect.c), so a cook runs this in a child process
 * (inspect/isolate_spirv.c) and checks what comes back with
 * spirv_stage_check. False with a reason, *alone empty, when the module
 * cannot be parsed, has no such entry point, or declares one (set, binding)
 * with two types. */
bool spirv_reflect_module(kiln_shader_stage stage, const char *entry, const uint32_t *words,
                          size_t word_count, shader_program_ir *alone, char *reason,
                          size_t reason_size);

/* What a stage's reflection may hold (spirv_stage_check): far above any real
 * stage, low enough that a reflection from a failing child cannot make kiln
 * allocate or compare without end. */
#define SPIRV_STAGE_MAX_IO 1024u       /* inputs, and outputs, of a stage */
#define SPIRV_STAGE_MAX_BINDINGS 4096u /* descriptors of a stage */
#define SPIRV_STAGE_MAX_PUSH 64u       /* push-constant blocks of a stage */
#define SPIRV_STAGE_MAX_SPEC 4096u     /* specialization constants of a stage */
#define SPIRV_STAGE_MAX_NAME 4096u     /* bytes of a name */

/* Checks `alone` as spirv_reflect_module makes it, whole, as untrusted input:
 * one stage, `stage`; counts within the bounds above and equal to its tables;
 * names within the string table, NUL-terminated, at most
 * SPIRV_STAGE_MAX_NAME bytes; inputs and outputs in strictly ascending
 * location with known types; descriptors of known types, each (set, binding)
 * once, its stage bit alone, a block size only for buffers; push-constant
 * ranges inside 32 bits; specialization constants of known types; a
 * workgroup size only for compute, task and mesh stages. False with the first
 * problem found. */
bool spirv_stage_check(const shader_program_ir *alone, kiln_shader_stage stage, char *reason,
                       size_t reason_size);

/* Appends the checked stage `alone` to `program` as the next stage, with its
 * module `words` and its entry point's name: its tables after the program's,
 * its descriptors merged into the program's (the stage's bit added where
 * (set, binding) is already there). False with a reason when an earlier stage
 * declares one of its (set, binding) with another type or count, or the
 * program would pass 2^32 words of code. Stages must be appended in pipeline
 * order. */
bool spirv_stage_append(shader_program_ir *program, const shader_program_ir *alone,
                        const char *entry, const uint32_t *words, size_t word_count, char *reason,
                        size_t reason_size);

/* spirv_reflect_module, spirv_stage_check and spirv_stage_append in this
 * process: one stage's interface appended to `program`. */
bool spirv_reflect_stage(shader_program_ir *program, kiln_shader_stage stage, const char *entry,
                         const uint32_t *words, size_t word_count, char *reason,
                         size_t reason_size);

/* Validates a module with SPIRV-Tools for `target` (kiln_shader_target).
 * A module that is valid only with scalar block layout passes (it needs the
 * device's scalarBlockLayout, which the target may lack). False with the
 * validator's message otherwise. */
bool spirv_validate(const uint32_t *words, size_t word_count, uint32_t target, char *reason,
                    size_t reason_size);

#endif /* KILN_COOK_PROCESS_SPIRV_H */
