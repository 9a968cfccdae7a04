/* internal.h — helpers shared by the runtime's source files (not public). */
#ifndef KILN_RUNTIME_INTERNAL_H
#define KILN_RUNTIME_INTERNAL_H

#include "kiln/kiln.h"

/* Fills `err` (may be NULL) with "<name>: <message>" and returns `code`, so a
 * validation rule reads `return runtime_fail(err, CODE, name, "...", ...)`. */
kiln_result runtime_fail(kiln_error *err, kiln_result code, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Clears `err` (may be NULL) and returns KILN_OK. */
kiln_result runtime_succeed(kiln_error *err);

#endif /* KILN_RUNTIME_INTERNAL_H */
