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

static inline void fuzz_touch(const void *bytes, size_t size) {
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < size; i++)
        sink ^= ((const uint8_t *)bytes)[i];
    (void)sink;
}
#endif
