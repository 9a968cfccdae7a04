/* fuzz_kshader.c — the container validator and the shader view on arbitrary
 * bytes; every stage's SPIR-V words, entry point and reflected name it hands
 * out is read. */
#include "fuzz_aligned.h"
#include "kiln/kiln.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *copy = fuzz_copy(data, size);
    if (copy == NULL)
        return 0;
    kiln_file file;
    kiln_error err;
    if (kiln_file_from_memory(&file, copy, size, "fuzz", 0, &err) == KILN_OK) {
        kiln_shader_view view;
        if (kiln_shader_view_get(&file, KILN_OPEN_DEEP, &view, &err) == KILN_OK) {
            for (uint32_t s = 0; s < view.stage_count; s++) {
                uint32_t words = 0;
                const uint32_t *code = kiln_shader_stage_code(&view, s, &words);
                if (code == NULL)
                    abort(); /* every stage of an accepted file has its module */
                fuzz_touch(code, (size_t)words * 4);
                const char *entry = kiln_shader_string(&view, view.stages[s].entry_offset);
                fuzz_touch(entry, strlen(entry));
            }
            for (uint32_t b = 0; b < view.binding_count; b++) {
                const char *name = kiln_shader_string(&view, view.bindings[b].name_offset);
                fuzz_touch(name, strlen(name));
            }
        }
        kiln_file_close(&file);
    }
    free(copy);
    return 0;
}
