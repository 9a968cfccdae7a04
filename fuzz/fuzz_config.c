/* fuzz_config.c — config_parse (kiln.yml and its settings) on arbitrary text,
 * then the resolution of every preset for a path; and the same text read as
 * a sidecar (sidecar_parse). */
#include "build/config.h"
#include "build/sidecar.h"
#include "fuzz_aligned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kiln_config config;
    cook_diag diag = {0};
    (void)config_parse(&config, "kiln.yml", (const char *)data, size, &diag);
    cook_settings settings;
    config_resolve(&config, NULL, "models/a.obj", &settings);
    for (size_t i = 0; i < config.preset_count; i++)
        config_resolve(&config, &config.presets[i], "ui/icon.png", &settings);
    config_free(&config);
    /* The same bytes as a sidecar: the same settings parser, plus `id:`. */
    build_sidecar sidecar;
    (void)sidecar_parse("a.obj.kiln.yml", (const char *)data, size, &sidecar, &diag);
    diag_free(&diag);
    return 0;
}
