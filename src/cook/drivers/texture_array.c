/*
 * texture_array.c — the texture array driver: a "*.array" folder → one KTX2
 * array texture (layerCount = the number of layers).
 *
 * The layers are the folder's image files (png, jpg, jpeg, tga, bmp, hdr;
 * any case), or its "*.env" cubemap folders (a cubemap array: each layer six
 * faces, cubemap.c's rules), never both. Layers are in byte order of their
 * names ("a.png" < "b.png" < "b2.png"; capitals before small letters). All
 * layers are the same size and all HDR or all LDR; an odd one is an error
 * naming its file and both sizes. The layers are one texture image set
 * (cook_texture_set): one format for all, chosen as for a texture whose
 * usage the folder's name gives ("ground.n.array" a normal map, as
 * "ground.n.png" would be; HDR when the layers are Radiance HDR), a full
 * mip chain per layer, block-compressed per layer. Anything else in the
 * folder is left out with a warning naming it. All layers are held decoded
 * while the format is chosen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

static const char *const layer_extensions[] = {"png", "jpg", "jpeg", "tga", "bmp", "hdr"};

static bool is_image_name(const char *name) {
    const char *dot = strrchr(name, '.');
    if (dot == NULL || strchr(name, '/') != NULL)
        return false;
    for (size_t e = 0; e < sizeof layer_extensions / sizeof layer_extensions[0]; e++)
        if (ascii_is_word_ci(dot + 1, strlen(dot + 1), layer_extensions[e]))
            return true;
    return false;
}

/* The "*.env" folder a listed path is inside, as its length, or 0. */
static size_t env_folder_length(const char *path) {
    const char *slash = strchr(path, '/');
    if (slash == NULL || strchr(slash + 1, '/') != NULL)
        return 0;
    size_t length = (size_t)(slash - path);
    return length > 4 && ascii_is_word_ci(path + length - 4, 4, ".env") ? length : 0;
}

static int compare_bytes(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int texture_array_layer_names(cook_context *ctx, const strlist *files, strlist *layers,
                              bool *cubes) {
    strlist images = {0}, envs = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < files->count; i++) {
        const char *path = files->items[i];
        size_t env = env_folder_length(path);
        if (env > 0) {
            char name[1024];
            snprintf(name, sizeof name, "%.*s", (int)env, path);
            if (!strlist_contains(&envs, name))
                ok = strlist_push(&envs, name);
        } else if (is_image_name(path)) {
            ok = strlist_push(&images, path);
        } else {
            diag_warning(ctx->diag, ctx->source_path, 0,
                         "'%s' is not a layer (an image file or a *.env cubemap folder); left out",
                         path);
        }
    }
    int count = -1;
    if (!ok) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    } else if (images.count > 0 && envs.count > 0) {
        diag_error(ctx->diag, ctx->source_path, 0,
                   "the folder holds images (%s) and cubemap folders (%s): an array's layers "
                   "are all images or all *.env cubemaps",
                   images.items[0], envs.items[0]);
    } else if (images.count == 0 && envs.count == 0) {
        diag_error(ctx->diag, ctx->source_path, 0,
                   "no layers: expected image files (png, jpg, jpeg, tga, bmp, hdr) or *.env "
                   "cubemap folders in the folder");
    } else if (images.count + envs.count > TEXTURE_ARRAY_MAX_LAYERS) {
        diag_error(ctx->diag, ctx->source_path, 0, "%zu layers: at most %u are allowed",
                   images.count + envs.count, TEXTURE_ARRAY_MAX_LAYERS);
    } else {
        *cubes = envs.count > 0;
        strlist *chosen = *cubes ? &envs : &images;
        qsort(chosen->items, chosen->count, sizeof *chosen->items, compare_bytes);
        *layers = *chosen;
        *chosen = (strlist){0};
        count = (int)layers->count;
    }
    strlist_free(&images);
    strlist_free(&envs);
    return count;
}

bool texture_array_check_layer(cook_context *ctx, const char *layer_path,
                               const ir_decoded_image *image, const char *first_path,
                               const ir_decoded_image *first) {
    if (image->width != first->width || image->height != first->height) {
        diag_error(ctx->diag, layer_path, 0,
                   "layer is %ux%u but the first layer (%s) is %ux%u: all layers must be the "
                   "same size",
                   image->width, image->height, first_path, first->width, first->height);
        return false;
    }
    if ((image->rgbaf != NULL) != (first->rgbaf != NULL)) {
        diag_error(ctx->diag, layer_path, 0,
                   "layer is %s but the first layer (%s) is %s: layers must be all HDR or all "
                   "LDR",
                   image->rgbaf ? "HDR" : "LDR", first_path, first->rgbaf ? "HDR" : "LDR");
        return false;
    }
    return true;
}

/* Reads (as a dependency) and decodes one image of the folder. */
static bool decode_layer(cook_context *ctx, const char *folder_name, const char *name,
                         ir_decoded_image *out) {
    char *relative = cook_path_join(folder_name, name);
    char *shown = cook_path_join(ctx->source_path, name);
    uint8_t *bytes = NULL;
    size_t size = 0;
    char reason[512];
    image_limits limits = texture_image_limits(ctx->settings);
    bool ok = relative != NULL && shown != NULL;
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    else if (!(ok = cook_read_dependency(ctx, relative, &bytes, &size, reason, sizeof reason)))
        diag_error(ctx->diag, shown, 0, "cannot read the layer: %s", reason);
    else if (!(ok = image_decode(bytes, size, shown, &limits, out, reason, sizeof reason)))
        diag_error(ctx->diag, shown, 0, "cannot decode the layer: %s", reason);
    free(bytes);
    free(relative);
    free(shown);
    return ok;
}

/* One cubemap layer's six faces into out[0..5], checked by cubemap.c's rules. */
static bool decode_cube_layer(cook_context *ctx, const char *folder_name, const strlist *files,
                              const char *env, ir_decoded_image *out) {
    strlist names = {0}; /* the env folder's files, relative to it */
    size_t prefix = strlen(env);
    bool ok = true;
    for (size_t i = 0; ok && i < files->count; i++)
        if (strncmp(files->items[i], env, prefix) == 0 && files->items[i][prefix] == '/')
            ok = strlist_push(&names, files->items[i] + prefix + 1);
    char *faces[CUBEMAP_FACES] = {0};
    char *env_path = cook_path_join(ctx->source_path, env);
    if (!ok || env_path == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        ok = false;
    }
    /* cubemap_pick_faces names the folder in its messages: the layer's. */
    const char *array_path = ctx->source_path;
    ctx->source_path = env_path;
    ok = ok && cubemap_pick_faces(ctx, &names, faces);
    ctx->source_path = array_path;
    cubemap_face_shape first = {0};
    for (uint32_t f = 0; ok && f < CUBEMAP_FACES; f++) {
        char *in_env = cook_path_join(env, faces[f]);
        char *relative = in_env ? cook_path_join(folder_name, in_env) : NULL;
        char *shown = in_env ? cook_path_join(ctx->source_path, in_env) : NULL;
        uint8_t *bytes = NULL;
        size_t size = 0;
        char reason[512];
        ok = relative != NULL && shown != NULL;
        if (!ok)
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        else if (!(ok = cook_read_dependency(ctx, relative, &bytes, &size, reason, sizeof reason)))
            diag_error(ctx->diag, shown, 0, "cannot read the cubemap face: %s", reason);
        else
            ok = cubemap_decode_face(ctx, bytes, size, shown, f, f > 0 ? &first : NULL, &out[f]);
        if (ok && f == 0)
            first = (cubemap_face_shape){.size = out[0].width, .hdr = out[0].rgbaf != NULL};
        free(bytes);
        free(in_env);
        free(relative);
        free(shown);
    }
    for (uint32_t f = 0; f < CUBEMAP_FACES; f++)
        free(faces[f]);
    free(env_path);
    strlist_free(&names);
    return ok;
}

bool cook_texture_array_asset(const cook_request *request, cook_context *ctx,
                              cook_asset_result *result) {
    driver_output out; /* terrain.array -> terrain.ktx2 */
    bool ok = driver_output_begin(ctx, COOK_STAGE_TEXTURE, ".ktx2", &out);
    const char *slash = strrchr(ctx->source_path, '/');
    const char *folder_name = slash ? slash + 1 : ctx->source_path;
    char *folder_full = cook_path_join(ctx->input_root, ctx->source_path);
    strlist files = {0}, layers = {0};
    bool cubes = false;
    char reason[512];
    if (ok && folder_full == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        ok = false;
    } else if (ok && !discover_walk(folder_full, NULL, &files, reason, sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "cannot list the array folder: %s", reason);
        ok = false;
    }
    ok = ok && texture_array_layer_names(ctx, &files, &layers, &cubes) > 0;
    uint32_t faces = cubes ? CUBEMAP_FACES : 1u;
    uint32_t count = ok ? (uint32_t)layers.count * faces : 0;
    ir_decoded_image *images = calloc(count ? count : 1, sizeof *images);
    if (ok && images == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        ok = false;
    }
    for (uint32_t l = 0; ok && l < layers.count; l++) {
        ir_decoded_image *layer = &images[l * faces];
        ok = cubes ? decode_cube_layer(ctx, folder_name, &files, layers.items[l], layer)
                   : decode_layer(ctx, folder_name, layers.items[l], layer);
        if (ok && l > 0) {
            char *shown = cook_path_join(ctx->source_path, layers.items[l]);
            ok = shown != NULL &&
                 texture_array_check_layer(ctx, shown, layer, layers.items[0], &images[0]);
            free(shown);
        }
    }
    if (ok) {
        /* The folder's name gives the usage as an image's name would;
         * Radiance HDR layers make it HDR. */
        cook_texture_usage usage = images[0].rgbaf != NULL
                                       ? COOK_TEXTURE_HDR
                                       : cook_texture_usage_for_path(ctx->source_path);
        texture_set set = {.name = ctx->source_path,
                           .usage = usage,
                           .images = images,
                           .count = count,
                           .layers = (uint32_t)layers.count};
        ok = cook_texture_set(ctx, request->output_root, &set, ctx->ref, out.relative,
                              request->verify, result);
    }
    for (uint32_t i = 0; i < count; i++)
        ir_decoded_image_free(&images[i]);
    free(images);
    strlist_free(&files);
    strlist_free(&layers);
    free(folder_full);
    return driver_output_end(&out, result, ok);
}
