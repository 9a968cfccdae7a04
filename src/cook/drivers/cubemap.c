/*
 * cubemap.c — the cubemap driver: a "*.env" folder of six face images → one cubemap KTX2.
 *
 * The folder holds px, nx, py, ny, pz and nz, each with any extension the
 * decoder reads (px.png, nx.hdr ...; case-insensitive). Other files in the
 * folder are not faces and are ignored. Faces must be square, all the same
 * size, and all HDR or all LDR. The six faces are one texture image set
 * (cook_texture_set in texture.c): Radiance HDR faces cook like an HDR
 * texture (BC6H, ASTC HDR on mobile, RGBA16F uncompressed), the rest like a
 * colour texture (BC7 sRGB, ASTC sRGB on mobile, sRGB RGBA8 uncompressed),
 * one format for all faces. Each face gets its own full mip chain (faces are
 * filtered independently, no seam filtering across edges); level i holds the
 * six faces in KTX2 order +X -X +Y -Y +Z -Z.
 *
 * One decoded face is held at a time: each face is decoded and checked, its
 * opacity and channels kept (texture_image_outline, what the format is
 * chosen from) and its texels freed; then cook_texture_set decodes each face
 * again, from the file's bytes read the first time, when its mips and blocks
 * are made. The peak is about one face's decoded size and its mips, not six
 * faces'; the faces' files stay in memory (compressed, far smaller).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

#define CUBE_FACES CUBEMAP_FACES

/* File stems in KTX2 face order, and their names for messages. */
static const char *const face_stems[CUBE_FACES] = {"px", "nx", "py", "ny", "pz", "nz"};
static const char *const face_names[CUBE_FACES] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z"};
static const char *const face_extensions[] = {"png", "jpg", "jpeg", "tga", "bmp", "hdr"};

int cubemap_face_of(const char *name) {
    const char *dot = strrchr(name, '.');
    if (dot == NULL || strchr(name, '/') != NULL)
        return -1;
    bool image = false;
    for (size_t e = 0; e < sizeof face_extensions / sizeof face_extensions[0]; e++)
        image = image || ascii_is_word_ci(dot + 1, strlen(dot + 1), face_extensions[e]);
    for (int f = 0; image && f < (int)CUBE_FACES; f++)
        if (ascii_is_word_ci(name, (size_t)(dot - name), face_stems[f]))
            return f;
    return -1;
}

bool cubemap_pick_faces(cook_context *ctx, const strlist *names, char *faces[CUBEMAP_FACES]) {
    bool ok = true;
    for (size_t i = 0; ok && i < names->count; i++) {
        int f = cubemap_face_of(names->items[i]);
        if (f < 0)
            continue;
        if (faces[f] != NULL) {
            diag_error(ctx->diag, ctx->source_path, 0,
                       "two files for cubemap face %s (%s): %s and %s; keep one", face_names[f],
                       face_stems[f], faces[f], names->items[i]);
            ok = false;
        } else if ((faces[f] = cook_strdup(names->items[i])) == NULL) {
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
            ok = false;
        }
    }
    for (uint32_t f = 0; ok && f < CUBE_FACES; f++) {
        if (faces[f] == NULL) {
            diag_error(ctx->diag, ctx->source_path, 0,
                       "cubemap face %s is missing: expected %s.png (or .jpg, .jpeg, .tga, "
                       ".bmp, .hdr) in the folder",
                       face_names[f], face_stems[f]);
            ok = false;
        }
    }
    return ok;
}

/* Finds the six face files of the folder (names relative to it). */
static bool find_faces(cook_context *ctx, const char *folder_full, char *faces[CUBE_FACES]) {
    strlist names = {0};
    char reason[512];
    if (!discover_walk(folder_full, NULL, &names, reason, sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "cannot list the cubemap folder: %s", reason);
        return false;
    }
    bool ok = cubemap_pick_faces(ctx, &names, faces); /* sorted: messages are deterministic */
    strlist_free(&names);
    return ok;
}

bool cubemap_decode_face(cook_context *ctx, const uint8_t *bytes, size_t size,
                         const char *face_path, uint32_t f, const cubemap_face_shape *first,
                         ir_decoded_image *out) {
    char reason[512];
    image_limits limits = texture_image_limits(ctx->settings);
    if (!image_decode(bytes, size, face_path, &limits, out, reason, sizeof reason)) {
        diag_error(ctx->diag, face_path, 0, "cannot decode cubemap face %s: %s", face_names[f],
                   reason);
        return false;
    }
    if (out->width != out->height)
        diag_error(ctx->diag, face_path, 0, "cubemap face %s is %ux%u: faces must be square",
                   face_names[f], out->width, out->height);
    else if (first != NULL && out->width != first->size)
        diag_error(ctx->diag, face_path, 0,
                   "cubemap face %s is %ux%u but face +X is %ux%u: all faces must be the same size",
                   face_names[f], out->width, out->height, first->size, first->size);
    else if (first != NULL && (out->rgbaf != NULL) != first->hdr)
        diag_error(ctx->diag, face_path, 0,
                   "cubemap face %s is %s but face +X is %s: faces must be all HDR or all LDR",
                   face_names[f], out->rgbaf ? "HDR" : "LDR", first->hdr ? "HDR" : "LDR");
    else
        return true;
    ir_decoded_image_free(out);
    return false;
}

/* The faces' files, read once (each recorded as a dependency), and what
 * decoding them again needs. */
typedef struct cube_files {
    cook_context *ctx;
    char *paths[CUBE_FACES]; /* relative to the input root */
    uint8_t *bytes[CUBE_FACES];
    size_t sizes[CUBE_FACES];
    cubemap_face_shape first;
} cube_files;

/* Reads face `f`'s file into `files` (recorded as a dependency). */
static bool read_face(cook_context *ctx, const char *relative, uint32_t f, cube_files *files) {
    char reason[512];
    if (!cook_read_dependency(ctx, relative, &files->bytes[f], &files->sizes[f], reason,
                              sizeof reason)) {
        diag_error(ctx->diag, files->paths[f], 0, "cannot read cubemap face %s: %s", face_names[f],
                   reason);
        return false;
    }
    return true;
}

/* texture_set.load: face `index` decoded again from its file's bytes. */
static bool load_face(void *user, uint32_t index, ir_decoded_image *out) {
    cube_files *files = user;
    return cubemap_decode_face(files->ctx, files->bytes[index], files->sizes[index],
                               files->paths[index], index, index > 0 ? &files->first : NULL, out);
}

bool cook_cubemap_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    driver_output out; /* sky.env -> sky.ktx2 */
    bool ok = driver_output_begin(ctx, COOK_STAGE_TEXTURE, ".ktx2", &out);
    const char *slash = strrchr(ctx->source_path, '/');
    const char *folder_name = slash ? slash + 1 : ctx->source_path;
    char *folder_full = cook_path_join(ctx->input_root, ctx->source_path);
    char *faces[CUBE_FACES] = {0};
    ir_decoded_image outlines[CUBE_FACES] = {0};
    cube_files files = {.ctx = ctx};
    if (ok && folder_full == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        ok = false;
    }
    ok = ok && find_faces(ctx, folder_full, faces);
    /* Read and decode every face, checking each against +X, keeping its
     * outline and freeing its texels. */
    for (uint32_t f = 0; ok && f < CUBE_FACES; f++) {
        char *relative = cook_path_join(folder_name, faces[f]);
        files.paths[f] = cook_path_join(ctx->source_path, faces[f]);
        ir_decoded_image face = {0};
        ok = relative != NULL && files.paths[f] != NULL && read_face(ctx, relative, f, &files) &&
             load_face(&files, f, &face);
        if (ok && f == 0)
            files.first = (cubemap_face_shape){.size = face.width, .hdr = face.rgbaf != NULL};
        if (ok && !texture_image_outline(&face, &outlines[f])) {
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
            ok = false;
        } else if (relative == NULL || files.paths[f] == NULL) {
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        }
        ir_decoded_image_free(&face);
        free(relative);
    }
    if (ok) {
        texture_set set = {.name = ctx->source_path,
                           .usage = files.first.hdr ? COOK_TEXTURE_HDR : COOK_TEXTURE_COLOR,
                           .images = outlines,
                           .count = CUBE_FACES,
                           .load = load_face,
                           .load_user = &files};
        ok = cook_texture_set(ctx, request->output_root, &set, ctx->ref, out.relative,
                              request->verify, result);
    }
    for (uint32_t f = 0; f < CUBE_FACES; f++) {
        ir_decoded_image_free(&outlines[f]);
        free(files.paths[f]);
        free(files.bytes[f]);
        free(faces[f]);
    }
    free(folder_full);
    return driver_output_end(&out, result, ok);
}
