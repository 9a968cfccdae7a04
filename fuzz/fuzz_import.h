/* fuzz_import.h — running an importer on fuzz bytes: a cook_context whose
 * input root is an empty folder (so no dependency resolves: the importer's
 * own parsing is what is fuzzed), the default settings, the source
 * NUL-terminated as importers get it. */
#ifndef KILN_FUZZ_IMPORT_H
#define KILN_FUZZ_IMPORT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/import.h"
#include "fuzz_aligned.h"

/* The third-party decoders run in this process, where libFuzzer sees their
 * coverage and their crashes (in a build they run in a child: isolate.h). */
__attribute__((constructor)) static void fuzz_decoders_in_process(void) {
    setenv("KILN_ISOLATE", "0", 1);
}

/* A root that does not exist: every dependency the input names fails to
 * resolve, and nothing is read or written outside the process. */
#define FUZZ_INPUT_ROOT "/nonexistent/kiln-fuzz-root"

static inline void fuzz_import(bool (*importer)(cook_context *, ir_asset *),
                               const char *source_path, const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return;
    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {
        .input_root = FUZZ_INPUT_ROOT,
        .source_path = source_path,
        .ref = "fuzz",
        .source = (const uint8_t *)text,
        .source_size = size,
        .settings = &settings,
        .diag = &diag,
    };
    ir_asset asset = {0};
    (void)importer(&ctx, &asset);
    ir_asset_free(&asset);
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.references);
    strlist_free(&ctx.absent);
    diag_free(&diag);
    free(text);
}
#endif
