/* hash.c — FNV-1a 64, the hash of asset refs. */
#include "kiln/kiln.h"

#define FNV1A64_OFFSET_BASIS 0xcbf29ce484222325ull
#define FNV1A64_PRIME 0x100000001b3ull

uint64_t kiln_ref_hash_n(const char *ref, size_t length) {
    uint64_t hash = FNV1A64_OFFSET_BASIS;
    for (size_t i = 0; i < length; i++) {
        hash ^= (uint8_t)ref[i];
        hash *= FNV1A64_PRIME;
    }
    return hash;
}

uint64_t kiln_ref_hash(const char *ref) {
    size_t length = 0;
    if (ref == NULL)
        return FNV1A64_OFFSET_BASIS;
    while (ref[length] != '\0')
        length++;
    return kiln_ref_hash_n(ref, length);
}
