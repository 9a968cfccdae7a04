/*
 * isolate_spirv.h — SPIRV-Tools' validator and SPIRV-Cross's reflection in a
 * reused child process (isolate_spirv.c), for the shader driver (a cook) and
 * `kiln check` (shader.c) alike: here because inspect may use both the
 * stages' SPIR-V code (process/) and the isolation (import/), and the
 * drivers may use inspect. Not in inspect.h, which the CLI sees: these
 * speak the cooker's shader IR.
 */
#ifndef KILN_COOK_INSPECT_ISOLATE_SPIRV_H
#define KILN_COOK_INSPECT_ISOLATE_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/shader_ir.h"

/* spirv_validate (process/spirv.h) in a reused child process (isolate_spirv.c;
 * KILN_ISOLATE=0: here) within `timeout_seconds` (import.timeout) or the rest
 * of the asset's budget; a crash or hang of SPIRV-Tools is false with a
 * reason naming the library and `path`'s file. */
bool spirv_validate_isolated(const uint32_t *words, size_t word_count, uint32_t target,
                             const char *path, double timeout_seconds, char *reason,
                             size_t reason_size);
/* spirv_reflect_stage (process/spirv.h) with SPIRV-Cross in a reused child
 * process (isolate_spirv.c; KILN_ISOLATE=0: here): the child reflects the
 * stage alone and sends kiln's result, which is read and checked whole
 * (spirv_reply_read) before it joins `program`. A crash, hang or invalid
 * reply is false with a reason naming SPIRV-Cross and `path`'s file. */
bool spirv_reflect_stage_isolated(shader_program_ir *program, kiln_shader_stage stage,
                                  const char *entry, const uint32_t *words, size_t word_count,
                                  const char *path, double timeout_seconds, char *reason,
                                  size_t reason_size);
/* The SPIR-V child's reply (isolate_spirv.c lays it out): the verdict, the
 * library's reason and, for a reflection that succeeded, `alone` (a stage
 * as spirv_reflect_module makes it; NULL for a validation). */
void spirv_reply_write(bytebuf *out, bool passed, const char *reason,
                       const shader_program_ir *alone);
/* Reads a reply as untrusted input: for a reflection (`alone` not NULL) a
 * stage of kind `stage` within SPIRV_STAGE_MAX_* and whole by
 * spirv_stage_check. True with *passed and the library's reason (and *alone
 * filled when passed), or false with what is wrong and *alone empty. */
bool spirv_reply_read(const uint8_t *data, size_t size, kiln_shader_stage stage,
                      shader_program_ir *alone, bool *passed, char *reason, size_t reason_size);

#endif /* KILN_COOK_INSPECT_ISOLATE_SPIRV_H */
