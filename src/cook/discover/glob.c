/* glob.c — the one glob matcher: importer patterns on file names, kiln.yml's
 * rules, roots and always on source-relative paths (discover.h), as POSIX
 * fnmatch(3). */

/* FNM_CASEFOLD is a GNU extension, hidden by _POSIX_C_SOURCE unless asked for. */
#define _GNU_SOURCE
#include <fnmatch.h>

#include "cook/core/core.h"
#include "cook/discover/discover.h"

/* Without FNM_PATHNAME, '*' and '?' match '/' too, so "**" needs no code of
 * its own; FNM_NOESCAPE keeps a backslash literal. */
bool discover_glob_match(const char *pattern, const char *name) {
    return pattern != NULL && name != NULL &&
           fnmatch(pattern, name, FNM_CASEFOLD | FNM_NOESCAPE) == 0;
}
