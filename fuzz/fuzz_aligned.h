/* fuzz_aligned.h — what the harnesses share: the bytes copied into a block of
 * exactly their size, 16-byte aligned as the runtime expects mapped files
 * (ASan then sees the end of the input as the end of the block), and a read
 * of every byte a view hands out, so a pointer outside the input is caught. */
#ifndef KILN_FUZZ_ALIGNED_H
#define KILN_FUZZ_ALIGNED_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void *fuzz_copy(const uint8_t *data, size_t size) {
    void *copy = NULL;
    if (posix_memalign(&copy, 16, size > 0 ? size : 1) != 0)
        return NULL;
    if (size > 0)
        memcpy(copy, data, size);
    return copy;
}

/* A NUL-terminated copy, as the importers want their text. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (text != NULL) {
        if (size > 0)
            memcpy(text, data, size);
        text[size] = '\0';
    }
    return text;
}

/* Under ASan the shadow memory tells at once whether any byte of the range is
 * outside a live block (a redzone, freed memory, past the input); a byte is
 * still read on every page and at the end, so a range over unmapped memory or
 * from NULL faults as before. Only a range with a bad byte is then read byte by
 * byte, which makes ASan report the first bad read with its stack. (Reading
 * every byte of each decoded RGBA8 image was a third of fuzz_image's time.) */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(FUZZ_ASAN)
#define FUZZ_ASAN 1
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

static inline void fuzz_touch(const void *bytes, size_t size) {
    const uint8_t *p = bytes;
    volatile uint8_t sink = 0;
#ifdef FUZZ_ASAN
    if (size > 0 && __asan_region_is_poisoned((void *)(uintptr_t)p, size) == NULL) {
        for (size_t i = 0; i < size; i += 4096)
            sink ^= p[i];
        sink ^= p[size - 1];
        return;
    }
#endif
    for (size_t i = 0; i < size; i++)
        sink ^= p[i];
    (void)sink;
}
#endif
