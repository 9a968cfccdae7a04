/*
 * spirv.h — what the cooker learns from and checks in a SPIR-V module:
 * reflection through SPIRV-Cross's C API (spirv_reflect.c) and validation
 * through SPIRV-Tools' validator (spirv_validate.c).
 */
#ifndef KILN_COOK_PROCESS_SPIRV_H
#define KILN_COOK_PROCESS_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/shader_ir.h"

/* Reflects `words` (one stage's module, entry point `entry` of `stage`) and
 * appends the stage to `program`: its code, stage inputs and outputs (by
 * location, built-ins left out), push-constant blocks, specialization
 * constants and workgroup size; its descriptors are merged into the
 * program's bindings (the stage's bit added where (set, binding) is already
 * there). False with a reason when the module cannot be parsed, has no such
 * entry point, or declares (set, binding) with another type than an earlier
 * stage. Stages must be appended in pipeline order. */
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
