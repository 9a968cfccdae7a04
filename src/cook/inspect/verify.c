/*
 * verify.c — a written file read back deeply through the runtime reader, as
 * `kiln build --verify` (write/emit.c) and `kiln check` do (inspect.h).
 */
#include "cook/inspect/inspect.h"

bool inspect_container_file(const char *full_path, kiln_asset_kind kind, kiln_error *error) {
    kiln_file file;
    uint32_t flags = KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP;
    kiln_result result = kiln_file_map(&file, full_path, flags, error);
    if (result != KILN_OK)
        return false;
    if (kind == KILN_ASSET_MESH) {
        kiln_mesh_view view;
        result = kiln_mesh_view_get(&file, flags, &view, error);
    } else if (kind == KILN_ASSET_SCENE) {
        kiln_scene_view view;
        result = kiln_scene_view_get(&file, flags, &view, error);
    } else if (kind == KILN_ASSET_SHADER) {
        kiln_shader_view view;
        result = kiln_shader_view_get(&file, flags, &view, error);
    } else if (kind == KILN_ASSET_ANIMATION) {
        kiln_anim_view view;
        result = kiln_anim_view_get(&file, flags, &view, error);
    } else {
        kiln_material_view view;
        result = kiln_material_view_get(&file, KILN_OPEN_DEEP, &view, error);
    }
    kiln_file_close(&file);
    return result == KILN_OK;
}

bool inspect_ktx2_bytes(const uint8_t *data, size_t size, const char *name, kiln_error *error) {
    kiln_ktx2_view view;
    return kiln_ktx2_view_get(&view, data, size, name, error) == KILN_OK &&
           kiln_ktx2_check_levels(&view, error) == KILN_OK;
}
