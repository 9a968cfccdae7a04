/*
 * fnv.h — FNV-1a 64, the one copy (Fowler, Noll, Vo; the IETF draft
 * draft-eastlake-fnv). Asset ref hashes (kiln_ref_hash), cache keys and the
 * cooker's quick equality tables all use it.
 *
 *   uint64_t h = fnv1a64(bytes, size);                 one-shot
 *   uint64_t h = FNV1A64_OFFSET_BASIS;                  streaming
 *   h = fnv1a64_update(h, part1, size1);
 *   h = fnv1a64_update(h, part2, size2);
 */
#ifndef KILN_COMMON_FNV_H
#define KILN_COMMON_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_OFFSET_BASIS 0xcbf29ce484222325ull
#define FNV1A64_PRIME 0x100000001b3ull

/* Continues a hash over `size` more bytes. */
static inline uint64_t fnv1a64_update(uint64_t hash, const void *data, size_t size) {
    const unsigned char *bytes = (const unsigned char *)data;
    for (size_t i = 0; i < size; i++) {
        hash ^= bytes[i];
        hash *= FNV1A64_PRIME;
    }
    return hash;
}

/* The hash of `size` bytes. */
static inline uint64_t fnv1a64(const void *data, size_t size) {
    return fnv1a64_update(FNV1A64_OFFSET_BASIS, data, size);
}

#endif /* KILN_COMMON_FNV_H */
