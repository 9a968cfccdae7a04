/*
 * discover.h — the discover stage: which source files a build sees.
 *
 *   walk.c   the input tree, listed deterministically
 *   glob.c   glob patterns on names and paths: fnmatch(3)
 *
 * Which importer and driver claim a file is the registry's business
 * (drivers/registry.c); the walk only asks whether a folder is an asset.
 * discover may use core and common.
 */
#ifndef KILN_COOK_DISCOVER_DISCOVER_H
#define KILN_COOK_DISCOVER_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "cook/core/diag.h"
#include "cook/core/util.h"

/* The one glob of kiln: importer patterns on a file name ("*.obj") and
 * kiln.yml's rules, roots and always on a whole source-relative path
 * ("ui/icons/x.png"). POSIX fnmatch(3) without FNM_PATHNAME: '*' matches any
 * run of characters, '/' included (so `**` means the same as `*` and needs no
 * code of its own); '?' exactly one character; "[...]" one of a set; a
 * backslash is literal; letters compared without case (ASCII in the C
 * locale kiln runs in). False when either is NULL. */
bool discover_glob_match(const char *pattern, const char *name);

/* Lists every regular file under `root` (relative paths, '/'-separated, sorted
 * bytewise), skipping hidden entries and any path under `exclude` (may be NULL,
 * relative to the working directory like root). */
bool discover_walk(const char *root, const char *exclude, strlist *files, char *reason,
                   size_t reason_size);

/* Whether a folder (its path relative to the root) is one asset, such as a
 * cubemap's "sky.env/" (cook_registry_is_folder). */
typedef bool (*discover_folder_fn)(const char *relative_path);

/* discover_walk for a build's sources: a folder `is_asset_folder` accepts is
 * listed as one entry, its own path, and its files are not listed. Every
 * entry that is not listed for a reason the user should know is reported to
 * `problems` (paths relative to the root) and the walk goes on: a warning
 * for a symbolic link out of the root, to a folder, in a loop or broken; an
 * error for a FIFO, socket or device, a folder that cannot be read, a path
 * longer than the system allows. False (with a reason) only when the root
 * itself cannot be listed or memory runs out. */
bool discover_walk_sources(const char *root, const char *exclude,
                           discover_folder_fn is_asset_folder, strlist *files, cook_diag *problems,
                           char *reason, size_t reason_size);

#endif /* KILN_COOK_DISCOVER_DISCOVER_H */
