/* ref.c — canonical asset refs (see kiln.h, kiln_ref_canonicalize). */
#include <string.h>

#include "kiln/kiln.h"

static char ascii_lower(char c) {
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

kiln_result kiln_ref_canonicalize(const char *path, char *out, size_t capacity) {
    if (path == NULL || out == NULL || capacity == 0)
        return KILN_ERR_INVALID_ARGUMENT;
    out[0] = '\0';
    if (path[0] == '/' || path[0] == '\\' || (path[0] != '\0' && path[1] == ':'))
        return KILN_ERR_INVALID_ARGUMENT; /* absolute (POSIX, UNC or drive letter) */

    size_t length = 0;
    size_t last_segment_start = 0;
    const char *p = path;
    while (*p != '\0') {
        /* One segment: up to the next separator. */
        const char *start = p;
        while (*p != '\0' && *p != '/' && *p != '\\')
            p++;
        size_t segment_length = (size_t)(p - start);
        if (*p != '\0')
            p++; /* skip the separator */
        if (segment_length == 0 || (segment_length == 1 && start[0] == '.'))
            continue; /* empty ("a//b") or "." */
        if (segment_length == 2 && start[0] == '.' && start[1] == '.')
            return KILN_ERR_INVALID_ARGUMENT; /* refs never leave the root */
        size_t needed = length + (length > 0) + segment_length + 1;
        if (needed > capacity)
            return KILN_ERR_INVALID_ARGUMENT;
        if (length > 0)
            out[length++] = '/';
        last_segment_start = length;
        for (size_t i = 0; i < segment_length; i++)
            out[length++] = ascii_lower(start[i]);
    }
    out[length] = '\0';

    /* Drop the last extension of the file name, but not a leading dot
     * (".hidden" stays) — the name must keep at least one character. */
    for (size_t i = length; i > last_segment_start + 1; i--) {
        if (out[i - 1] == '.') {
            length = i - 1;
            out[length] = '\0';
            break;
        }
    }
    if (length == 0)
        return KILN_ERR_INVALID_ARGUMENT;
    return KILN_OK;
}
