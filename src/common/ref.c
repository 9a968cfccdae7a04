/* ref.c — canonical asset refs (see kiln.h, kiln_ref_canonicalize). */
#include <string.h>

#include "common/ascii.h"
#include "common/path.h"
#include "kiln/kiln.h"

kiln_result kiln_ref_canonicalize(const char *path, char *out, size_t capacity) {
    if (path == NULL || out == NULL || capacity == 0)
        return KILN_ERR_INVALID_ARGUMENT;
    out[0] = '\0';
    if (path_is_absolute(path))
        return KILN_ERR_INVALID_ARGUMENT; /* absolute (POSIX, UNC or drive letter) */

    /* Find the file name first, so its extension is dropped before copying and
     * the capacity check applies to the result only. */
    path_segment last = {NULL, 0};
    path_segment seg;
    for (const char *p = path; (p = path_next_segment(p, &seg)) != NULL;)
        last = seg;
    if (last.start == NULL)
        return KILN_ERR_INVALID_ARGUMENT;
    /* The last extension goes, but not a leading dot: ".hidden" stays. */
    for (size_t i = last.length; i > 1; i--) {
        if (last.start[i - 1] == '.') {
            last.length = i - 1;
            break;
        }
    }

    size_t length = 0;
    for (const char *p = path; (p = path_next_segment(p, &seg)) != NULL;) {
        if (path_segment_is_parent(&seg))
            return KILN_ERR_INVALID_ARGUMENT; /* refs never leave the root */
        if (seg.start == last.start)
            seg.length = last.length;
        if (length + (length > 0) + seg.length + 1 > capacity)
            return KILN_ERR_INVALID_ARGUMENT;
        if (length > 0)
            out[length++] = '/';
        for (size_t i = 0; i < seg.length; i++)
            out[length++] = ascii_lower(seg.start[i]);
    }
    out[length] = '\0';
    return KILN_OK;
}
