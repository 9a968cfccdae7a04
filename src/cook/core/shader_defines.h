/*
 * shader_defines.h — the grammar of shader.defines and of each line of
 * shader.variants: whitespace-separated tokens, each NAME or NAME=VALUE,
 * NAME a C identifier. The driver checks a list with it, the compiler turns
 * it into #define lines, one parser for both.
 */
#ifndef KILN_COOK_CORE_SHADER_DEFINES_H
#define KILN_COOK_CORE_SHADER_DEFINES_H

#include <stdbool.h>
#include <stddef.h>

/* One token of a defines list, pointing into the list. */
typedef struct shader_define {
    const char *token; /* NAME or NAME=VALUE */
    size_t length;
    size_t name_length; /* the NAME at token[0..name_length) */
    const char *value;  /* after '=', NULL for a bare NAME */
    size_t value_length;
} shader_define;

/* Reads the token at *cursor (NULL: an empty list) into `define` and moves
 * *cursor past it; false when no token is left. */
bool shader_define_next(const char **cursor, shader_define *define);

/* True when `name` is an identifier (a macro name). */
bool shader_is_identifier(const char *name, size_t length);

/* True when every token of `defines` is NAME or NAME=VALUE; otherwise false
 * with the first token that is not in *bad. */
bool shader_defines_valid(const char *defines, shader_define *bad);

#endif /* KILN_COOK_CORE_SHADER_DEFINES_H */
