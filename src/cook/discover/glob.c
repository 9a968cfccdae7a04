/* glob.c — the one glob matcher: importer patterns on file names, kiln.yml's
 * rules, roots and always on source-relative paths (discover.h). */
#include <stddef.h>

#include "cook/discover/discover.h"

/*
 * Iterative glob with single backtracking point: on a mismatch after a '*',
 * retry with the '*' swallowing one more character. Linear in practice and
 * never recursive, so hostile patterns cannot blow the stack.
 */
bool discover_glob_match(const char *pattern, const char *name) {
    if (pattern == NULL || name == NULL)
        return false;
    const unsigned char *p = (const unsigned char *)pattern;
    const unsigned char *n = (const unsigned char *)name;
    const unsigned char *star_pattern = NULL; /* just after the last '*' seen */
    const unsigned char *star_name = NULL;    /* where that '*' resumes in name */

    while (*n != '\0') {
        if (*p == '*') {
            star_pattern = ++p;
            star_name = n;
        } else if (*p != '\0' && (*p == '?' || ascii_lower((char)*p) == ascii_lower((char)*n))) {
            p++;
            n++;
        } else if (star_pattern != NULL) {
            p = star_pattern;
            n = ++star_name;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}
