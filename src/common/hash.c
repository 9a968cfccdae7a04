/* hash.c — the hash of asset refs: FNV-1a 64 (common/fnv.h). */
#include "common/fnv.h"
#include "kiln/kiln.h"

uint64_t kiln_ref_hash_n(const char *ref, size_t length) {
    return fnv1a64(ref, length);
}

uint64_t kiln_ref_hash(const char *ref) {
    size_t length = 0;
    if (ref == NULL)
        return FNV1A64_OFFSET_BASIS;
    while (ref[length] != '\0')
        length++;
    return kiln_ref_hash_n(ref, length);
}
