/* fuzz_spirv_reply.c — libFuzzer harness: the reply of SPIRV-Cross's child process
 * (spirv_reply_read, src/cook/inspect/isolate_spirv.c), what kiln reads back from a
 * reflection run in a child, on arbitrary bytes. The first byte picks the stage it was
 * asked for; the rest is the reply. Build and run: see fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cook/inspect/isolate_spirv.h"
#include "cook/process/spirv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    kiln_shader_stage stage = (kiln_shader_stage)(data[0] % KILN_SHADER_STAGE_COUNT_);
    shader_program_ir alone;
    bool passed = false;
    char reason[4096];
    if (!spirv_reply_read(data + 1, size - 1, stage, &alone, &passed, reason, sizeof reason)) {
        if (reason[0] == '\0') /* a refusal says why */
            abort();
        return 0;
    }
    /* What it accepts is whole: written again it gives the bytes it was
     * read from, and it joins a program (twice: the second time every
     * descriptor merges into the first's) without reading out of bounds. */
    bytebuf again = {0};
    spirv_reply_write(&again, passed, reason, passed ? &alone : NULL);
    if (again.size != size - 1 || memcmp(again.data, data + 1, again.size) != 0)
        abort();
    bytebuf_free(&again);
    if (passed) {
        static const uint32_t words[5] = {0x07230203u, 0x00010000u, 0, 1, 0};
        shader_program_ir program = {0};
        char why[512];
        for (int k = 0; k < 2; k++)
            if (!spirv_stage_append(&program, &alone, "main", words, 5, why, sizeof why))
                abort(); /* the same stage twice merges: never a conflict */
        if (program.stage_count != 2 ||
            shader_ir_binding_count(&program) != shader_ir_binding_count(&alone))
            abort();
        shader_program_ir_free(&program);
    }
    shader_program_ir_free(&alone);
    return 0;
}
