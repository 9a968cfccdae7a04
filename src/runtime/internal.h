/* internal.h — helpers shared by the runtime's source files (not public). */
#ifndef KILN_RUNTIME_INTERNAL_H
#define KILN_RUNTIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln.h"

/* Fills `err` (may be NULL) with "<name>: <message>" and returns `code`, so a
 * validation rule reads `return runtime_fail(err, CODE, name, "...", ...)`. */
kiln_result runtime_fail(kiln_error *err, kiln_result code, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Clears `err` (may be NULL) and returns KILN_OK. */
kiln_result runtime_succeed(kiln_error *err);

/* Whether every one of `count` floats is finite (not NaN or infinite). */
bool runtime_all_finite(const float *values, size_t count);

/* A chunk kind a reader knows and where runtime_find_chunks stores its table
 * entry (NULL while absent). */
typedef struct runtime_known_chunk {
    uint32_t fourcc;
    const kiln_chunk_entry **slot;
} runtime_known_chunk;

/* Points each known chunk's slot at its table entry; a second chunk of one
 * kind is CORRUPT (every kind's "at most once" rule), other chunks are
 * skipped. The slots must start NULL. */
kiln_result runtime_find_chunks(const kiln_file *file, const runtime_known_chunk *known,
                                size_t known_count, kiln_error *err);

/* A chunk (NULL: absent, read as empty) holding exactly `count` elements of
 * `size` bytes, else CORRUPT naming `what`; *data is its payload, NULL when
 * empty. */
kiln_result runtime_sized_chunk(const kiln_file *file, const kiln_chunk_entry *chunk,
                                uint64_t count, size_t size, const char *what, const void **data,
                                kiln_error *err);

/* chunk_rules.c: a chunk entry's encoding rules (container.md R12, R20-R21):
 * KILN_OK, or the result with what is wrong in detail ("has unknown flags
 * 0x8"), for the caller to put after the chunk's name. */
kiln_result runtime_chunk_encoding_problem(const kiln_chunk_entry *chunk, char *detail,
                                           size_t size);
/* UNSUPPORTED, with what to do instead, when the file has encoded chunks: the
 * views use payloads in place. */
kiln_result runtime_require_plain(const kiln_file *file, kiln_error *err);

/* Whether the string at `offset` of `length` bytes lies inside a string table
 * of `size` bytes, holds no NUL and has one right after it. */
bool runtime_string_valid(const char *strings, size_t size, uint32_t offset, uint32_t length);

/* Thread-safe strerror (the XSI strerror_r) into buf. */
const char *runtime_os_reason(int errnum, char *buf, size_t size);

struct stat;

/* Opens `path` read-only and returns its size: a regular, non-empty file
 * whose size fits in size_t, else an error naming `name`. *st_out (may be
 * NULL) gets the file's fstat. Shared by the container, pack and manager
 * readers. */
kiln_result runtime_open_regular(const char *name, const char *path, int *fd_out, size_t *size_out,
                                 struct stat *st_out, kiln_error *err);

/* A private read-only mapping of the first `size` bytes of `fd` (page-aligned,
 * so 16-byte aligned; the caller munmaps it and may close `fd` at once).
 * `populate` maps every page now (MAP_POPULATE where the system has it): the
 * file is read into the page cache if it is not there, and no later access
 * faults, which is what a loader that hands the bytes on wants. */
kiln_result runtime_map_fd(const char *name, int fd, size_t size, bool populate, void **mapping,
                           kiln_error *err);

/* runtime_open_regular, then runtime_map_fd without populating (pages come
 * in as they are touched); the caller munmaps *mapping, *size. Shared by
 * every reader that opens a file by path. */
kiln_result runtime_map_regular(const char *name, const char *path, void **mapping, size_t *size,
                                kiln_error *err);

#endif /* KILN_RUNTIME_INTERNAL_H */
