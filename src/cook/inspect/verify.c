/*
 * verify.c — a written file read back deeply through the runtime reader, as
 * `kiln build --verify` (write/emit.c) and `kiln check` do (inspect.h).
 */
#include <string.h>

#include "cook/core/core.h"
#include "cook/core/parallel.h"
#include "cook/inspect/inspect.h"

/* True when `message` starts with `prefix` followed by ": ". */
static bool starts_with_name(const char *message, const char *prefix, size_t length) {
    return length > 0 && strncmp(message, prefix, length) == 0 && message[length] == ':' &&
           message[length + 1] == ' ';
}

const char *inspect_error_detail(const kiln_error *error, const char *path) {
    const char *message = error->message;
    /* The runtime names a file by the last characters of its path that fit. */
    size_t length = strlen(path);
    size_t keep = sizeof((kiln_file *)NULL)->name - 1;
    const char *tail = length > keep ? path + (length - keep) : path;
    if (starts_with_name(message, tail, strlen(tail)))
        return message + strlen(tail) + 2;
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    if (starts_with_name(message, name, strlen(name)))
        return message + strlen(name) + 2;
    return message[0] != '\0' ? message : kiln_result_str(error->code);
}

/* The file mapped (expanded when its chunks are encoded) and its kind's view
 * read with `flags`. */
static bool read_view(const char *full_path, kiln_asset_kind kind, uint32_t flags,
                      kiln_error *error) {
    kiln_file file;
    kiln_result result = kiln_file_map_expanded(&file, full_path, flags, error);
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

bool inspect_container_file(const char *full_path, kiln_asset_kind kind, kiln_error *error) {
    return read_view(full_path, kind, KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP, error);
}

/* inspect_container_file's two halves side by side: the checksum with the
 * container's structure (the first step of the one-pass read: its errors
 * come first), and the deep read of the view without the checksum. */
typedef struct verify_halves {
    const char *full_path;
    kiln_asset_kind kind;
    bool ok[2];
    kiln_error errors[2];
} verify_halves;

static void verify_half(void *ctx, uint32_t half) {
    verify_halves *job = ctx;
    if (half == 1) {
        job->ok[1] = read_view(job->full_path, job->kind, KILN_OPEN_DEEP, &job->errors[1]);
        return;
    }
    kiln_file file;
    job->ok[0] = kiln_file_map(&file, job->full_path, KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP,
                               &job->errors[0]) == KILN_OK;
    if (job->ok[0])
        kiln_file_close(&file);
}

bool inspect_container_file_on(unsigned threads, const char *full_path, kiln_asset_kind kind,
                               kiln_error *error) {
    if (threads < 2)
        return inspect_container_file(full_path, kind, error);
    verify_halves job = {.full_path = full_path, .kind = kind};
    parallel_for(2, 2, verify_half, &job);
    for (int half = 0; half < 2; half++)
        if (!job.ok[half]) {
            *error = job.errors[half];
            return false;
        }
    return true;
}

bool inspect_ktx2_bytes(const uint8_t *data, size_t size, const char *name, kiln_error *error) {
    kiln_ktx2_view view;
    return kiln_ktx2_view_get(&view, data, size, name, error) == KILN_OK &&
           kiln_ktx2_check_levels(&view, error) == KILN_OK;
}
