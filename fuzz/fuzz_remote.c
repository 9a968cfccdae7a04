/* fuzz_remote.c — what a remote cache server answers (src/build/remote/entry.c):
 * an index ('I' then its bytes) or an entry ('E' then its bytes), parsed as
 * a build does before it trusts anything. An entry is decoded under the key
 * and encoder version its own header names, so that the fuzzer gets past
 * those checks to the Zstd frame, the checksum and the record. */
#include <string.h>

#include "build/remote/remote.h"
#include "fuzz_aligned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    char reason[256];
    if (data[0] == 'I') {
        remote_index index;
        if (remote_index_parse(data + 1, size - 1, &index, reason, sizeof reason))
            remote_index_free(&index);
    } else if (data[0] == 'E' && size >= 1 + 48) {
        char key[REMOTE_KEY_HEX + 1];
        memcpy(key, data + 1 + 16, REMOTE_KEY_HEX);
        key[REMOTE_KEY_HEX] = '\0';
        const uint8_t *v = data + 1 + 12;
        uint32_t encoder =
            (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
        remote_entry entry;
        if (remote_entry_decode(data + 1, size - 1, key, encoder, 64u << 20, &entry, reason,
                                sizeof reason))
            remote_entry_free(&entry);
    }
    return 0;
}
