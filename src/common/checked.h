/*
 * checked.h — overflow-safe size arithmetic for sizes that come from files.
 *
 * Every function returns false (and leaves *out unspecified) when the exact
 * result does not fit; callers treat that as corrupt input.
 */
#ifndef KILN_COMMON_CHECKED_H
#define KILN_COMMON_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool checked_add_u64(uint64_t a, uint64_t b, uint64_t *out) {
    return !__builtin_add_overflow(a, b, out);
}

static inline bool checked_mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}

static inline bool checked_add_size(size_t a, size_t b, size_t *out) {
    return !__builtin_add_overflow(a, b, out);
}

static inline bool checked_mul_size(size_t a, size_t b, size_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}

/* a * b + c, all in size_t. */
static inline bool checked_mad_size(size_t a, size_t b, size_t c, size_t *out) {
    size_t product;
    return checked_mul_size(a, b, &product) && checked_add_size(product, c, out);
}

/* True when [offset, offset + size) lies inside [0, total). */
static inline bool range_inside(uint64_t offset, uint64_t size, uint64_t total) {
    return offset <= total && size <= total - offset;
}

/* Rounds `value` up to a multiple of `alignment` (a power of two). */
static inline uint64_t align_up_u64(uint64_t value, uint64_t alignment) {
    return (value + (alignment - 1)) & ~(alignment - 1);
}

#endif /* KILN_COMMON_CHECKED_H */
