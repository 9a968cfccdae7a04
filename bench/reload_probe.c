/* reload_probe.c — the runtime's half of the hot-reload latency
 * (bench/watch_latency.py --probe, issue 15): a game loop that mounts a
 * cooked folder, watches it (kiln_manager_watch), loads one ref and pumps
 * every millisecond; each time kiln_asset_get returns new data through the
 * same ref it prints "reloaded <CLOCK_MONOTONIC seconds>" (the clock Python's
 * time.monotonic reads), so the script measures save -> visible. Public
 * headers only, as a game would.
 *
 *     reload_probe <cooked folder> <ref> [seconds to run, default 600]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kiln/manager.h"

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: reload_probe <cooked folder> <ref> [seconds]\n");
        return 2;
    }
    double limit = argc > 3 ? atof(argv[3]) : 600.0;
    kiln_manager_desc desc = {0};
    desc.flags = KILN_MANAGER_KEEP_TEXELS;
    kiln_manager *manager = NULL;
    kiln_error err;
    kiln_ref ref;
    if (kiln_manager_create(&desc, &manager, &err) != KILN_OK ||
        kiln_manager_mount(manager, argv[1], NULL, &err) != KILN_OK ||
        kiln_manager_watch(manager, true, &err) != KILN_OK ||
        kiln_manager_load_ref(manager, KILN_SCOPE_PERMANENT, argv[2], &ref, &err) != KILN_OK) {
        fprintf(stderr, "reload_probe: %s\n", err.message);
        kiln_manager_destroy(manager);
        return 1;
    }
    const kiln_asset *shown = kiln_asset_get(manager, ref);
    printf("ready %s\n", shown ? shown->path : "?");
    fflush(stdout);
    const struct timespec frame = {0, 1000000}; /* 1 ms */
    double end = now_seconds() + limit;
    bool reported = false;
    while (now_seconds() < end) {
        kiln_manager_pump(manager);
        const kiln_asset *asset = kiln_asset_get(manager, ref);
        if (asset != shown) {
            printf("reloaded %.6f\n", now_seconds());
            fflush(stdout);
            shown = asset;
        }
        bool failing = kiln_asset_reload_status(manager, ref, &err) != KILN_OK;
        if (failing && !reported) { /* once per failure, until a reload succeeds */
            printf("failed %s\n", err.message);
            fflush(stdout);
        }
        reported = failing;
        nanosleep(&frame, NULL);
    }
    kiln_manager_destroy(manager);
    return 0;
}
