/*
 * diag.h — per-asset diagnostics (core/diag.c). Part of core.h; exported by
 * cook.h: the build engine reports through them and the CLI prints them.
 */
#ifndef KILN_COOK_CORE_DIAG_H
#define KILN_COOK_CORE_DIAG_H

#include <stdarg.h>
#include <stdint.h>

#include "cook/core/util.h"

/* ---------------------------------------------------------------------------
 * Diagnostics (core/diag.c)
 *
 * Each asset collects its own messages (jobs run in parallel); the CLI prints
 * them compiler-style once the asset is done:  path:line: error: message
 * ------------------------------------------------------------------------- */

typedef struct cook_diag {
    bytebuf text; /* complete lines, each ending in '\n' */
    uint32_t errors;
    uint32_t warnings;
} cook_diag;

/* line 0 means "no line". `path` is the file the message is about. */
void diag_error(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* diag_error with the arguments in a va_list, for a caller's own variadic
 * reporter. */
void diag_verror(cook_diag *diag, const char *path, uint32_t line, const char *fmt, va_list args)
    __attribute__((format(printf, 4, 0)));
void diag_warning(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_note(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_free(cook_diag *diag);

#endif /* KILN_COOK_CORE_DIAG_H */
