/*
 * outputs.h — the part of the write stage the build engine uses on its own:
 * atomic files (atomic.c), the manifest assets.kman (manifest.c) and a .kpak
 * (pack.c). Part of write.h; exported by cook.h: the build writes the
 * manifest, its cache and journal files atomically, `kiln pack` lays out a
 * pack, `kiln clean` knows a temporary's name.
 */
#ifndef KILN_COOK_WRITE_OUTPUTS_H
#define KILN_COOK_WRITE_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/diag.h"
#include "cook/core/result.h"
#include "cook/core/util.h"

/* ---------------------------------------------------------------------------
 * atomic.c, pack.c — files into place
 * ------------------------------------------------------------------------- */

/* Where a file's bytes go, in order, as they are made (write_ktx2_packed,
 * write_file_atomic_stream): false stops the writer. */
typedef bool (*write_sink)(void *arg, const void *data, size_t size);

/* Writes bytes to `path` atomically: a temporary file in the same folder, then
 * rename. Creates missing parent folders. */
bool write_file_atomic(const char *path, const void *data, size_t size, char *reason,
                       size_t reason_size);
/* write_file_atomic unless `path` already holds exactly these bytes: then the
 * file is left alone (its mtime too, so make-style consumers of a no-op
 * build rebuild nothing). */
bool write_file_if_changed(const char *path, const void *data, size_t size, char *reason,
                           size_t reason_size);
/* write_file_atomic of bytes made as they are written: `produce` hands the
 * file's bytes to the sink in order (returning false on failure, with a
 * reason or without one: a failed write is named by its errno). */
typedef bool (*write_producer)(void *arg, write_sink sink, void *sink_arg, char *reason,
                               size_t reason_size);
/* `expected_size`: how many bytes `produce` will hand over, or 0 when not
 * known; a large file's space is then reserved before it is written (a
 * hint: the file holds what was handed over, whatever it says). */
bool write_file_atomic_stream(const char *path, uint64_t expected_size, write_producer produce,
                              void *arg, char *reason, size_t reason_size);
/* The first half of write_file_atomic_stream: the bytes in a hidden
 * temporary next to `path`, whose name *staged gets (the caller frees it
 * through write_file_publish, or unlinks and frees it). */
bool write_file_staged_stream(const char *path, uint64_t expected_size, write_producer produce,
                              void *arg, char **staged, char *reason, size_t reason_size);
/* The second half: renames the temporary over `path` (unlinking it when
 * that fails) and frees `staged`. */
bool write_file_publish(char *staged, const char *path, char *reason, size_t reason_size);
/* True for a file name write_file_atomic uses for its temporaries (a dot,
 * the file's name, ".kiln-" and six random characters): what a killed
 * process may leave behind. */
bool write_is_temporary_name(const char *name);

/* Lays out a .kpak (docs/formats/kpak.md) of the files `paths` (relative to
 * `root`, sorted bytewise, unique) into `out` (write/pack.c). */
bool write_pack(const char *root, const strlist *paths, bytebuf *out, char *reason,
                size_t reason_size);

/* ---------------------------------------------------------------------------
 * manifest.c — assets.kman
 * ------------------------------------------------------------------------- */

/* Sorts `entries` by hash and serialises them as a manifest file. Two
 * different refs with one hash, or one ref produced twice, are errors reported
 * to `diag` (against the manifest file name), and nothing is written. */
bool write_manifest(cook_manifest_list *entries, cook_diag *diag, bytebuf *out);

#endif /* KILN_COOK_WRITE_OUTPUTS_H */
