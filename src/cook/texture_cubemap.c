/*
 * texture_cubemap.c — a "*.env" folder of six face images → one cubemap KTX2.
 *
 * The folder holds px, nx, py, ny, pz and nz, each with any extension the
 * decoder reads (px.png, nx.hdr ...; case-insensitive). Other files in the
 * folder are not faces and are ignored. Faces must be square, all the same
 * size, and all HDR or all LDR: Radiance HDR faces cook to RGBA16F, the rest
 * to sRGB RGBA8 filtered in linear light like any colour texture. Each face
 * gets its own full mip chain (faces are filtered independently, no seam
 * filtering across edges); level i holds the six faces in KTX2 order
 * +X -X +Y -Y +Z -Z. Faces are processed one at a time so memory stays at one
 * face's float chain plus the encoded levels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/texture_internal.h"

#define CUBE_FACES 6u

/* File stems in KTX2 face order, and their names for messages. */
static const char *const face_stems[CUBE_FACES] = {"px", "nx", "py", "ny", "pz", "nz"};
static const char *const face_names[CUBE_FACES] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z"};
static const char *const face_extensions[] = {"png", "jpg", "jpeg", "tga", "bmp", "hdr"};

static bool equal_ci(const char *a, const char *b, size_t length) {
    for (size_t i = 0; i < length; i++) {
        char x = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] - 'A' + 'a') : a[i];
        if (x != b[i] || b[i] == '\0')
            return false;
    }
    return b[length] == '\0';
}

/* The face a file name is (0..5), or -1 when it is not a face image. */
static int face_of(const char *name) {
    const char *dot = strrchr(name, '.');
    if (dot == NULL || strchr(name, '/') != NULL)
        return -1;
    bool image = false;
    for (size_t e = 0; e < sizeof face_extensions / sizeof face_extensions[0]; e++)
        image = image || equal_ci(dot + 1, face_extensions[e], strlen(dot + 1));
    for (int f = 0; image && f < (int)CUBE_FACES; f++)
        if (equal_ci(name, face_stems[f], (size_t)(dot - name)))
            return f;
    return -1;
}

static char *join2(const char *a, const char *b) {
    size_t size = strlen(a) + 1 + strlen(b) + 1;
    char *out = malloc(size);
    if (out != NULL)
        snprintf(out, size, "%s/%s", a, b);
    return out;
}

/* Finds the six face files of the folder (names relative to it). */
static bool find_faces(cook_context *ctx, const char *folder_full, char *faces[CUBE_FACES]) {
    strlist names = {0};
    char reason[512];
    if (!discover_walk(folder_full, NULL, &names, reason, sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "cannot list the cubemap folder: %s", reason);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < names.count; i++) { /* sorted: messages are deterministic */
        int f = face_of(names.items[i]);
        if (f < 0)
            continue;
        if (faces[f] != NULL) {
            diag_error(ctx->diag, ctx->source_path, 0,
                       "two files for cubemap face %s (%s): %s and %s; keep one", face_names[f],
                       face_stems[f], faces[f], names.items[i]);
            ok = false;
        } else if ((faces[f] = cook_strdup(names.items[i])) == NULL) {
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
    strlist_free(&names);
    return ok;
}

/* What face +X set, which the other faces must match. */
typedef struct face_shape {
    uint32_t size; /* width = height */
    bool hdr;
} face_shape;

/* Reads and decodes face `f` (recorded as a dependency), checking it against
 * +X (`first`, NULL for +X itself). `face_path` is relative to the input root. */
static bool decode_face(cook_context *ctx, const char *relative, const char *face_path, uint32_t f,
                        const face_shape *first, cook_image *out) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    char reason[512];
    if (!cook_read_dependency(ctx, relative, &bytes, &size, reason, sizeof reason)) {
        diag_error(ctx->diag, face_path, 0, "cannot read cubemap face %s: %s", face_names[f],
                   reason);
        return false;
    }
    image_limits limits = {IMAGE_DEFAULT_MAX_DIMENSION, IMAGE_DEFAULT_MAX_PIXELS};
    if (ctx->settings->texture_max_dimension > 0)
        limits.max_dimension = ctx->settings->texture_max_dimension;
    bool ok = image_decode(bytes, size, face_path, &limits, out, reason, sizeof reason);
    free(bytes);
    if (!ok) {
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
    cook_image_free(out);
    return false;
}

/* Mips of one face, encoded into slot `f` of every level buffer (allocated
 * on the first face, when the chain's dimensions are known). */
static bool encode_face(cook_context *ctx, const char *face_path, const cook_image *image,
                        cook_texture_usage usage, uint32_t f, mip_chain *dims,
                        uint8_t *levels[MIP_MAX_LEVELS], size_t level_size[MIP_MAX_LEVELS]) {
    uint32_t vk_format = usage == COOK_TEXTURE_HDR ? KTX2_VK_FORMAT_R16G16B16A16_SFLOAT
                                                   : KTX2_VK_FORMAT_R8G8B8A8_SRGB;
    float *base = image->rgba8 != NULL ? NULL : image_to_float(image, usage);
    mip_options options = {
        .mode = usage == COOK_TEXTURE_HDR ? MIP_MODE_LINEAR : MIP_MODE_COLOR_SRGB,
        .alpha_weighted = true,
        .max_size = ctx->settings->texture_max_size,
        .mipmaps = ctx->settings->texture_mipmaps,
    };
    mip_chain chain;
    bool ok = base != NULL ? mip_build(base, image->width, image->height, &options, &chain)
              : image->rgba8 != NULL
                  ? mip_build_rgba8(image->rgba8, image->width, image->height, &options, &chain)
                  : false;
    free(base);
    if (!ok) {
        diag_error(ctx->diag, face_path, 0, "out of memory building mipmaps");
        return false;
    }
    if (f == 0) {
        *dims = (mip_chain){.count = chain.count};
        memcpy(dims->width, chain.width, sizeof chain.width);
        memcpy(dims->height, chain.height, sizeof chain.height);
    }
    for (uint32_t i = 0; ok && i < chain.count; i++) {
        size_t face_size = 0;
        uint8_t *bytes = encode_level(chain.levels[i], (size_t)chain.width[i] * chain.height[i],
                                      vk_format, &face_size);
        if (bytes != NULL && levels[i] == NULL) {
            level_size[i] = face_size * CUBE_FACES;
            levels[i] = malloc(level_size[i]);
        }
        ok = bytes != NULL && levels[i] != NULL;
        if (ok)
            memcpy(levels[i] + face_size * f, bytes, face_size);
        free(bytes);
    }
    mip_chain_free(&chain);
    if (!ok)
        diag_error(ctx->diag, face_path, 0, "out of memory encoding mip levels");
    return ok;
}

/* Writes the finished file and records its output and manifest entry. */
static bool write_cubemap(const cook_request *request, cook_context *ctx, const bytebuf *bytes,
                          const char *out_path, kiln_color_space space, cook_asset_result *result) {
    char reason[512];
    char *full = join2(request->output_root, out_path);
    bool ok =
        full != NULL && write_file_atomic(full, bytes->data, bytes->size, reason, sizeof reason);
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "%s", full ? reason : "out of memory");
    if (ok && request->verify)
        ok = verify_ktx2(full, ctx->source_path, bytes, ctx->diag);
    free(full);
    if (ok) {
        ok = strlist_push(&result->outputs, out_path) &&
             cook_manifest_add(&result->manifest, ctx->ref, out_path, KILN_ASSET_TEXTURE, space, 0);
        if (ok)
            result->bytes_written += bytes->size;
        else
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    }
    return ok;
}

bool cook_cubemap_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    const char *slash = strrchr(ctx->source_path, '/');
    const char *folder_name = slash ? slash + 1 : ctx->source_path;
    char *folder_full = join2(ctx->input_root, ctx->source_path);
    char *out_path = cook_output_path(ctx->source_path, ".ktx2"); /* sky.env -> sky.ktx2 */
    char *faces[CUBE_FACES] = {0};
    uint8_t *levels[MIP_MAX_LEVELS] = {0};
    size_t level_size[MIP_MAX_LEVELS] = {0};
    mip_chain dims = {0};
    face_shape first = {0};
    bool ok = folder_full != NULL && out_path != NULL;
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    ok = ok && find_faces(ctx, folder_full, faces);
    /* One face at a time: decode, check against +X, filter, encode. */
    for (uint32_t f = 0; ok && f < CUBE_FACES; f++) {
        char *relative = join2(folder_name, faces[f]);
        char *face_path = join2(ctx->source_path, faces[f]);
        cook_image image;
        ok = relative != NULL && face_path != NULL &&
             decode_face(ctx, relative, face_path, f, f > 0 ? &first : NULL, &image);
        if (ok) {
            if (f == 0)
                first = (face_shape){.size = image.width, .hdr = image.rgbaf != NULL};
            ok = encode_face(ctx, face_path, &image,
                             first.hdr ? COOK_TEXTURE_HDR : COOK_TEXTURE_COLOR, f, &dims, levels,
                             level_size);
            cook_image_free(&image);
        } else if (relative == NULL || face_path == NULL) {
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        }
        free(relative);
        free(face_path);
    }
    bool hdr = first.hdr;

    bytebuf bytes = {0};
    if (ok) {
        char reason[512];
        ktx2_image_desc desc = {
            .vk_format = hdr ? KTX2_VK_FORMAT_R16G16B16A16_SFLOAT : KTX2_VK_FORMAT_R8G8B8A8_SRGB,
            .width = dims.width[0],
            .height = dims.height[0],
            .faces = CUBE_FACES,
            .levels = dims.count,
            .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
            .zstd_level = ctx->settings->texture_zstd_level,
            .level_data = (const uint8_t *const *)levels,
            .level_size = level_size,
        };
        ok = write_ktx2(&desc, &bytes, reason, sizeof reason);
        if (!ok)
            diag_error(ctx->diag, ctx->source_path, 0, "%s", reason);
    }
    for (uint32_t i = 0; i < MIP_MAX_LEVELS; i++)
        free(levels[i]);
    if (ok)
        ok = write_cubemap(request, ctx, &bytes, out_path,
                           hdr ? KILN_COLOR_SPACE_LINEAR : KILN_COLOR_SPACE_SRGB, result);
    bytebuf_free(&bytes);
    for (uint32_t f = 0; f < CUBE_FACES; f++)
        free(faces[f]);
    free(out_path);
    free(folder_full);
    return ok;
}
