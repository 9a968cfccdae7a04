/*
 * A program an engine might write against an installed libkiln: it opens a
 * cooked output folder's manifest and every file the manifest names, through
 * the public header only, and prints one line per ref. test_install.sh builds
 * it outside the tree (pkg-config, find_package, add_subdirectory and
 * FetchContent) and compares its output with `kiln info`.
 */
#include <kiln/kiln.h>

#include <stdio.h>
#include <string.h>

static int open_entry(const char *root, const kiln_manifest_view *manifest,
                      const kiln_manifest_entry *entry) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", root, kiln_manifest_path(manifest, entry));
    if (n < 0 || (size_t)n >= sizeof path) {
        fprintf(stderr, "consumer: path too long\n");
        return 1;
    }
    const char *ref = kiln_manifest_ref(manifest, entry);
    kiln_error err;
    if (entry->kind == KILN_ASSET_TEXTURE) {
        kiln_ktx2_file texture;
        if (kiln_ktx2_map(&texture, path, &err) != KILN_OK) {
            fprintf(stderr, "consumer: %s\n", err.message);
            return 1;
        }
        printf("texture %s %ux%u levels %u\n", ref, texture.view.width, texture.view.height,
               texture.view.levels);
        kiln_ktx2_close(&texture);
        return 0;
    }
    kiln_file file;
    if (kiln_file_map(&file, path, KILN_OPEN_VERIFY_CHECKSUM, &err) != KILN_OK) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    int failed = 0;
    if (entry->kind == KILN_ASSET_MESH) {
        kiln_mesh_view mesh;
        failed = kiln_mesh_view_get(&file, KILN_OPEN_DEEP, &mesh, &err) != KILN_OK;
        if (!failed)
            printf("mesh %s vertices %u indices %u submeshes %u\n", ref, mesh.desc->vertex_count,
                   mesh.desc->index_count, mesh.desc->submesh_count);
    } else if (entry->kind == KILN_ASSET_MATERIAL) {
        kiln_material_view table;
        failed = kiln_material_view_get(&file, 0, &table, &err) != KILN_OK;
        const kiln_material *row = failed ? NULL : kiln_material_row(&table, entry->index);
        if (!failed && !row) {
            snprintf(err.message, sizeof err.message, "%.200s: no row %u", ref, entry->index);
            failed = 1;
        }
        if (!failed)
            printf("material %s alpha %s\n", ref, kiln_alpha_mode_str(row->alpha_mode));
    } else {
        printf("%s %s\n", kiln_asset_kind_str((kiln_asset_kind)entry->kind), ref);
    }
    if (failed)
        fprintf(stderr, "consumer: %s\n", err.message);
    kiln_file_close(&file);
    return failed;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: consumer <cooked folder>\n");
        return 2;
    }
    printf("libkiln %s (%d)\n", KILN_VERSION_STRING, KILN_VERSION);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], KILN_MANIFEST_FILE_NAME);
    kiln_error err;
    kiln_file file;
    kiln_manifest_view manifest;
    if (kiln_file_map(&file, path, 0, &err) != KILN_OK ||
        kiln_manifest_view_get(&file, &manifest, &err) != KILN_OK) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    int failures = 0;
    for (uint32_t i = 0; i < manifest.entry_count; i++)
        failures += open_entry(argv[1], &manifest, &manifest.entries[i]);
    printf("%u refs, %d failed\n", manifest.entry_count, failures);
    kiln_file_close(&file);
    return failures ? 1 : 0;
}
