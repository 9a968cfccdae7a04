/* fuzz_ktx2.c — the KTX2 reader on arbitrary bytes: the view, every level's
 * range, the Zstd-supercompressed check of the whole file and, when it
 * passes, a full read of each level into a buffer of the size the view
 * states (bounded, so a huge claim is skipped). The check and the read must
 * agree: a level the check accepted that then fails to read stops the fuzzer. */
#include <stdio.h>

#include "fuzz_aligned.h"
#include "kiln/kiln.h"

#define FUZZ_MAX_LEVEL_BYTES (16u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *copy = fuzz_copy(data, size);
    if (copy == NULL)
        return 0;
    kiln_ktx2_view view;
    kiln_error err;
    if (kiln_ktx2_view_get(&view, copy, size, "fuzz", &err) == KILN_OK) {
        fuzz_touch(view.kvd, view.kvd_size);
        uint32_t value_size = 0;
        (void)kiln_ktx2_find_value(&view, "KTXorientation", &value_size);
        for (uint32_t level = 0; level < view.levels; level++) {
            uint64_t offset = 0, bytes = 0;
            (void)kiln_ktx2_image_range(&view, level, 0, 0, &offset, &bytes);
        }
        /* One stream for the file, as `kiln check` does (each level through
         * kiln_ktx2_check_level runs the same code with a stream of its own). */
        bool checked = kiln_ktx2_check_levels(&view, &err) == KILN_OK;
        for (uint32_t level = 0; checked && level < view.levels; level++) {
            uint64_t need = kiln_ktx2_level_size(&view, level);
            if (need == 0 || need > FUZZ_MAX_LEVEL_BYTES)
                continue;
            void *out = malloc((size_t)need);
            if (out == NULL)
                continue;
            if (kiln_ktx2_read_level(&view, level, out, (size_t)need, &err) != KILN_OK) {
                fprintf(stderr, "level %u passed the check but does not read: %s\n", level,
                        err.message);
                abort();
            }
            fuzz_touch(out, (size_t)need);
            free(out);
        }
    }
    free(copy);
    return 0;
}
