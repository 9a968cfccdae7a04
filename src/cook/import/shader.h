/*
 * shader.h — the shader importer: GLSL or HLSL source to SPIR-V through
 * libshaderc (glslang), in process (shader_compile.c).
 *
 * Includes are resolved by kiln, not by shaderc: relative to the including
 * file, then through shader.include_dirs, always inside the input root; every
 * file an include reads is a dependency of the asset. Compiler messages go to
 * ctx->diag against the file that holds the line, with the include chain that
 * reached a header as notes.
 */
#ifndef KILN_COOK_IMPORT_SHADER_H
#define KILN_COOK_IMPORT_SHADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/core.h"
#include "kiln/format.h"

typedef struct shader_compile_request {
    const char *path; /* the stage's file, relative to the input root */
    const char *text; /* its bytes (need not be NUL-terminated) */
    size_t size;
    kiln_shader_stage stage;
    bool hlsl;
    const char *entry; /* entry point: "main" unless a rule says otherwise */
    /* Preprocessor definitions, NAME or NAME=VALUE, whitespace-separated:
     * shader.defines then the variant's. Checked by the caller. */
    const char *defines;
    const char *variant_defines;
} shader_compile_request;

/* Compiles one stage with ctx->settings (shader.target, optimize, debug,
 * warnings_as_errors, include_dirs). On success *words (malloc'd) holds the
 * module and *word_count its words. On failure the messages are in ctx->diag
 * and it returns false. */
bool shader_compile(cook_context *ctx, const shader_compile_request *request, uint32_t **words,
                    size_t *word_count);

#endif /* KILN_COOK_IMPORT_SHADER_H */
