/* internal.h — helpers shared by the runtime's source files (not public). */
#ifndef KILN_RUNTIME_INTERNAL_H
#define KILN_RUNTIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "kiln/kiln.h"

/* Fills `err` (may be NULL) with "<name>: <message>" and returns `code`, so a
 * validation rule reads `return runtime_fail(err, CODE, name, "...", ...)`. */
kiln_result runtime_fail(kiln_error *err, kiln_result code, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Clears `err` (may be NULL) and returns KILN_OK. */
kiln_result runtime_succeed(kiln_error *err);

/* Whether every one of `count` floats is finite (not NaN or infinite). */
bool runtime_all_finite(const float *values, size_t count);

/* Thread-safe strerror (the XSI strerror_r) into buf. */
const char *runtime_os_reason(int errnum, char *buf, size_t size);

/* Opens `path` read-only and returns its size: a regular, non-empty file
 * whose size fits in size_t, else an error naming `name`. Shared by the
 * container and pack readers. */
kiln_result runtime_open_regular(const char *name, const char *path, int *fd_out, size_t *size_out,
                                 kiln_error *err);

/* runtime_open_regular, then a private read-only mapping of the whole file
 * (page-aligned, so 16-byte aligned); the caller munmaps *mapping, *size.
 * Shared by every reader that opens a file by path. */
kiln_result runtime_map_regular(const char *name, const char *path, void **mapping, size_t *size,
                                kiln_error *err);

#endif /* KILN_RUNTIME_INTERNAL_H */
