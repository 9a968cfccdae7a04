/* fuzz_ir_wire.c — libFuzzer harness: the IR wire reader (src/cook/import/ir_wire.c), what kiln
 * reads back from an importer's child process, on arbitrary bytes. Build and run: see
 * fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/isolate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    wire_reader in = {.data = data, .size = size};
    ir_asset asset;
    char reason[256];
    if (!ir_wire_read(&in, &asset, reason, sizeof reason))
        return 0;
    /* What it accepts is whole: writing it touches every array, with its
     * declared size, and must give the bytes it was read from. */
    bytebuf again = {0};
    if (!ir_wire_write(&asset, &again) || again.size != in.pos ||
        memcmp(again.data, data, again.size) != 0)
        abort();
    bytebuf_free(&again);
    ir_asset_free(&asset);
    return 0;
}
