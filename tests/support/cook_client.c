/*
 * cook_client.c — a development runtime in a few lines, for test_watch.sh:
 * mounts a runtime folder, connects to `kiln watch --serve` (unless the
 * socket is "-") and loads each ref through the public manager API, so that
 * a ref whose cooked file is missing is cooked on demand.
 *
 *   cook_client RUNTIME_FOLDER SOCKET|- REF...
 *
 * Prints per ref "ok <ref> <kind> <path> <file bytes>" or
 * "fail <ref>: <message>"; exit status 0 when every ref loaded.
 */
#include <stdio.h>
#include <string.h>

#include "kiln/manager.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: cook_client RUNTIME_FOLDER SOCKET|- REF...\n");
        return 2;
    }
    kiln_manager_desc desc;
    memset(&desc, 0, sizeof desc);
    kiln_manager *manager = NULL;
    kiln_error err;
    if (kiln_manager_create(&desc, &manager, &err) != KILN_OK ||
        kiln_manager_mount(manager, argv[1], NULL, &err) != KILN_OK) {
        fprintf(stderr, "cook_client: %s\n", err.message);
        kiln_manager_destroy(manager);
        return 1;
    }
    if (strcmp(argv[2], "-") != 0 &&
        kiln_manager_connect_cooker(manager, argv[2], &err) != KILN_OK) {
        fprintf(stderr, "cook_client: %s\n", err.message);
        kiln_manager_destroy(manager);
        return 1;
    }
    kiln_scope level;
    if (kiln_scope_create(manager, "test", 0, &level, &err) != KILN_OK) {
        fprintf(stderr, "cook_client: %s\n", err.message);
        kiln_manager_destroy(manager);
        return 1;
    }
    int status = 0;
    for (int i = 3; i < argc; i++) {
        kiln_ref ref;
        if (kiln_manager_load_ref(manager, level, argv[i], &ref, &err) != KILN_OK) {
            printf("fail %s: %s\n", argv[i], err.message);
            status = 1;
            continue;
        }
        const kiln_asset *asset = kiln_asset_get(manager, ref);
        if (asset == NULL) {
            printf("fail %s: loaded but not ready\n", argv[i]);
            status = 1;
            continue;
        }
        printf("ok %s %s %s %llu\n", argv[i], kiln_asset_kind_str(asset->kind), asset->path,
               (unsigned long long)asset->file_bytes);
    }
    kiln_scope_destroy(manager, level, &err);
    kiln_manager_destroy(manager);
    return status;
}
