/*
 * ascii.h — ASCII case folding, the one definition the runtime and the cooker
 * share. Only 'A'..'Z' fold: file names, refs and keywords compare the same
 * whatever the C locale (tolower() does not promise that).
 */
#ifndef KILN_COMMON_ASCII_H
#define KILN_COMMON_ASCII_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline char ascii_lower(char c) {
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* The first `length` bytes of a and b are equal, letters compared without case. */
static inline bool ascii_equal_n_ci(const char *a, const char *b, size_t length) {
    for (size_t i = 0; i < length; i++)
        if (ascii_lower(a[i]) != ascii_lower(b[i]))
            return false;
    return true;
}

/* a[0..length) equals the NUL-terminated `word`, letters compared without case. */
static inline bool ascii_is_word_ci(const char *a, size_t length, const char *word) {
    return strlen(word) == length && ascii_equal_n_ci(a, word, length);
}

/* `text` starts with `prefix`, letters compared without case. */
static inline bool ascii_starts_with_ci(const char *text, const char *prefix) {
    size_t n = strlen(prefix);
    return strnlen(text, n) == n && ascii_equal_n_ci(text, prefix, n);
}

/* `text` ends with `suffix`, letters compared without case; false for NULL. */
static inline bool ascii_ends_with_ci(const char *text, const char *suffix) {
    if (text == NULL)
        return false;
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && ascii_equal_n_ci(text + n - m, suffix, m);
}

#endif /* KILN_COMMON_ASCII_H */
