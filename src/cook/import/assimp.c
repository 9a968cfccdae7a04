/*
 * assimp.c — every model format kiln does not parse itself (FBX, COLLADA, 3DS,
 * PLY, STL, LightWave, Blender, …), read through assimp's C API. This file
 * reads the scene (import_assimp) and documents the whole importer; the
 * conversion to IR is in the assimp_*.c files assimp_internal.h lists.
 *
 * Reading
 *   The source is opened with aiImportFileExWithProperties and a custom
 *   aiFileIO, never from the real file system: the main file is served from
 *   ctx->source (the bytes the pipeline read), and every other file assimp asks
 *   for (an LWS scene's objects, an MD3's skins, an Ogre .material …) goes
 *   through cook_resolve_dependency, so it cannot lie outside the input root and
 *   is recorded as a dependency. Opens for writing are refused. Files assimp
 *   asked for but could not have are listed as notes when the import fails
 *   (assimp probes several spellings of a path and optional side files, so on
 *   success a miss is not worth a line).
 *   The main file is named to assimp by its base name, so relative references
 *   resolve against the source's folder; assimp picks the reader from the
 *   extension and falls back to sniffing the content.
 *
 * Threads
 *   assimp 5.2 keeps the message of the last failed import in one global
 *   std::string (gLastErrorString in Assimp.cpp, written without a lock by
 *   every failing aiImport* call, read by aiGetErrorString). Imports therefore
 *   run under one process-wide mutex, together with the read of that message
 *   and aiReleaseImport; converting the scene to IR runs in parallel. Each call
 *   has its own property store and file system.
 *
 * Post-processing
 *   Triangulate | JoinIdenticalVertices | SortByPType | ValidateDataStructure
 *   (a scene that fails validation is rejected with assimp's message), so
 *   each aiMesh holds one kind of face: triangles, lines or points. A scene
 *   that fails validation only for a mesh without faces (assimp's PLY reader
 *   gives a file without a face element that form: a point cloud) is read
 *   again with Triangulate alone, and such a mesh is cooked as points (a
 *   note says so). No normals, tangents or UVs are generated and no degenerate
 *   faces removed: the IR stays what the file says; the pipeline generates
 *   what is missing.
 *   Skeleton-only "meshes" are disabled (AI_CONFIG_IMPORT_NO_SKELETON_MESHES)
 *   and FBX pivots are folded into node transforms (no $AssimpFbx$ helpers).
 *
 * Output
 *   Nodes: every aiNode, depth-first from the root, so parents come first;
 *   `matrix` is the node's aiMatrix4x4 (row-major) written column-major,
 *   `translation/rotation/scale` its decomposition (a negative determinant
 *   negates scale x). A matrix with shear or projection keeps the exact matrix,
 *   with an approximate TRS and a warning; a non-finite one becomes identity.
 *   Meshes: assimp splits geometry per material, so a node's aiMeshes are the
 *   submeshes of one ir_mesh, one submesh per material and topology (aiMeshes
 *   of the node that share a material are concatenated; faces of 3, 2 and 1
 *   corners are triangles, line segments and points, a mesh without faces is
 *   points), materials in order of first appearance.
 *   Nodes referencing the same list of aiMeshes share that ir_mesh
 *   (instancing). The mesh is named after the node, else its first aiMesh,
 *   else "mesh_<index>". Meshes without vertices or faces kiln cooks are
 *   skipped with one warning.
 *   Streams, each present only when the source has it: normals when every
 *   aiMesh with triangles has normals (every aiMesh, when none has triangles),
 *   all usable (else none, so the pipeline generates them for the triangles);
 *   tangents likewise with bitangents, w = +1 or -1 from the sign of
 *   dot(cross(n, t), b); line and point aiMeshes without them get (0, 0, 1)
 *   and (1, 0, 0, 1); texcoords 0 and 1 when
 *   any submesh has that set (others get 0,0), 2D, v flipped to the IR's (glTF)
 *   convention v' = 1 - v; colors from colour set 0 when any submesh has it
 *   (others white), copied unchanged; joints/weights when any submesh has
 *   bones (see Skins).
 *   Skins: the bones of an ir_mesh's aiMeshes, each distinct bone node once
 *   in order of first appearance, make its skin (ir_skin): joints the nodes
 *   named by the bones, inverse bind matrices their mOffsetMatrix, source
 *   the index of the first aiMesh with bones; meshes with the same joints and
 *   matrices share one skin, and every node drawing the mesh names it. A
 *   vertex joint index is the bone's place in that list. Per vertex the 8
 *   largest weights are kept (a warning counts the vertices that had more),
 *   largest first and renormalised to sum to 1 (mesh.skin_influences then
 *   keeps four or eight); a vertex no bone reaches is bound with weight 1 to
 *   the skin's root joint (ir_bind_weightless).
 *   Materials: dense slots, only the materials a cooked submesh uses, in order
 *   of first use (as OBJ does); ir_submesh.material indexes them.
 *   Cameras and lights: every aiCamera and every directional, point or spot
 *   aiLight, in order, on the first node of its name (none of that name: kept
 *   in the table, placed by no node, with a warning). glTF's convention is a
 *   camera or light at its node's origin looking down -Z with +Y up; when
 *   assimp's mPosition / mLookAt (mDirection) / mUp in node space differ from
 *   that, a child node "<name>_frame" (source -1) carries the difference and
 *   the camera or light. Cameras: mHorizontalFOV is taken as the whole
 *   horizontal field of view, as assimp's COLLADA reader fills it (xfov, in
 *   radians; aiCamera's comment says half), so yfov = 2 atan(tan(mHorizontalFOV
 *   / 2) / mAspect); without mAspect the horizontal angle is taken as the
 *   vertical one (square view), with a warning. mOrthographicWidth > 0 makes an
 *   orthographic camera (xmag = that, ymag = xmag / mAspect). A far plane not
 *   beyond the near one becomes infinite (perspective) or near + 1000
 *   (orthographic; the next float when that rounds to near), and a vertical
 *   field of view below the smallest float (a huge mAspect) that float, each
 *   with a warning.
 *   Lights: colour = mColorDiffuse / intensity, intensity = its largest
 *   component (glTF colours are in [0, 1]); spot cone angles are taken as
 *   angles from the axis, outer clamped to pi/2, inner kept below outer.
 *   What does not map is named in a warning: attenuation other than the
 *   inverse square (constant 0, linear 0, quadratic 1), specular or ambient
 *   colours different from the diffuse one, ambient and area lights (not
 *   cooked).
 *   Animations: every aiAnimation, converted by assimp_anim.c (which
 *   documents how).
 *
 * Materials
 *   Assimp's PBR keys are used when present and otherwise the MTL conversion
 *   (import_phong_to_pbr, the table in import/mtl.c), fed like this:
 *     Kd  $clr.base (AI_MATKEY_BASE_COLOR) if present, else $clr.diffuse
 *     d   $mat.opacity; else the alpha of $clr.base when below 1
 *     Ke  $clr.emissive, times $mat.emissiveIntensity when present
 *     Ns  $mat.shininess, ignored when $mat.shinpercent (strength) is 0 or
 *         the shading model has no specular lobe (flat, Gouraud i.e. COLLADA
 *         lambert / MTL illum 1, unlit, Oren-Nayar, Minnaert)
 *     Pr  $mat.roughnessFactor; else 1 - $mat.glossinessFactor
 *     Pm  $mat.metallicFactor
 *   glTF-via-assimp extras: $mat.gltf.alphaMode / alphaCutoff override the
 *   alpha mode, $tex.scale (normals) and $mat.bumpscaling set normal_scale,
 *   $tex.strength (occlusion) occlusion_strength. $mat.twosided sets
 *   double_sided. Properties are read by their type: a number key holding
 *   text is ignored with a warning (assimp 5.2's getters would parse it, and
 *   throw through the C API when it is no number), a colour of fewer than
 *   three values is absent, and $tex.file / $tex.mapping / $tex.uvwsrc are
 *   read one value each (aiGetMaterialTexture writes every value of the
 *   integer keys into one int).
 *   Textures (first type present wins; a texture that cannot be used is a
 *   warning and leaves the slot empty, without trying the next type):
 *     BASE_COLOR         BASE_COLOR, DIFFUSE
 *     NORMAL             NORMALS, NORMAL_CAMERA, HEIGHT (bump maps hold normal
 *                        maps in practice, as with MTL)
 *     EMISSIVE           EMISSIVE, EMISSION_COLOR
 *     OCCLUSION          AMBIENT_OCCLUSION, LIGHTMAP (assimp: "aka AO")
 *     METALLIC_ROUGHNESS DIFFUSE_ROUGHNESS, METALNESS (carries both when the
 *                        two name the same file)
 *     ALPHA              OPACITY (makes the material BLEND)
 *   Paths are resolved against the source's folder with
 *   cook_resolve_dependency (never outside the input root) and stored
 *   relative to the root. An absolute path (DCC tools write them) falls back to
 *   its file name next to the source. A texture embedded in the file ("*0",
 *   or a name matching an aiTexture) gets no path for now, with a warning.
 *   The UV set is the texture's uvindex (0 or 1; others fall back to 0).
 *
 * Problems
 *   A file assimp cannot read, or that fails validation, is one error:
 *   "assimp could not read this file: <assimp's message>", followed by notes
 *   naming the files assimp asked for and could not have. A scene without
 *   meshes or vertices (validation's "mNumMeshes is 0", "contains no vertices")
 *   is a warning and cooks to nothing. Counts from assimp are checked before
 *   anything is allocated. Before assimp sees the file, assimp_precheck
 *   (assimp_precheck.c) refuses the PLY, OFF and AC3D inputs on which assimp
 *   loops, crashes or allocates from a header count. Non-finite positions drop the triangles,
 * segments and points using them (warning); unusable normals or tangents drop that stream
 * (warning); non-finite texture coordinates become 0.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "cook/import/assimp_convert.h"
#include "cook/import/assimp_internal.h"

#define AIMP_MAX_FILE_BYTES ((size_t)2 << 30) /* as for any dependency */

static pthread_mutex_t aimp_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------------------
 * File system: everything assimp reads goes through here
 * ------------------------------------------------------------------------- */

typedef struct aimp_io {
    cook_context *ctx;
    const char *main_name;    /* the name assimp knows the source by */
    const uint8_t *main_data; /* its bytes: the source, or the pre-check's rewrite */
    strlist misses;           /* "'path': reason" of refused or missing opens */
    bool out_of_memory;
} aimp_io;

typedef struct aimp_stream {
    aimp_io *io;
    const uint8_t *data;
    uint8_t *owned;
    size_t size;
    size_t pos;
    char *full_path; /* a dependency not read yet (read on first use) */
    bool failed;
} aimp_stream;

static aimp_io *io_state(struct aiFileIO *io) {
    return (aimp_io *)(void *)io->UserData;
}

static aimp_stream *stream_state(struct aiFile *file) {
    return (aimp_stream *)(void *)file->UserData;
}

static void remember_miss(aimp_io *io, const char *path, const char *reason) {
    if (io->misses.count >= AIMP_MAX_NOTES)
        return;
    char line[1024];
    snprintf(line, sizeof line, "'%s': %s", path, reason);
    if (!strlist_contains(&io->misses, line) && !strlist_push(&io->misses, line))
        io->out_of_memory = true;
}

/* Reads a dependency's bytes the first time they are needed. */
static bool stream_load(aimp_stream *stream) {
    if (stream->full_path == NULL)
        return !stream->failed;
    char reason[512];
    uint8_t *data = NULL;
    size_t size = 0;
    if (!cook_read_file(stream->full_path, AIMP_MAX_FILE_BYTES, &data, &size, reason,
                        sizeof reason)) {
        remember_miss(stream->io, stream->full_path, reason);
        stream->failed = true;
    } else {
        stream->owned = data;
        stream->data = data;
        stream->size = size;
    }
    free(stream->full_path);
    stream->full_path = NULL;
    return !stream->failed;
}

static size_t file_read(struct aiFile *file, char *buffer, size_t size, size_t count) {
    aimp_stream *stream = stream_state(file);
    if (size == 0 || count == 0 || !stream_load(stream))
        return 0;
    size_t available = stream->size - stream->pos;
    size_t items = available / size < count ? available / size : count;
    memcpy(buffer, stream->data + stream->pos, items * size);
    stream->pos += items * size;
    return items;
}

static size_t file_write(struct aiFile *file, const char *buffer, size_t size, size_t count) {
    (void)file;
    (void)buffer;
    (void)size;
    (void)count;
    return 0;
}

static size_t file_tell(struct aiFile *file) {
    return stream_state(file)->pos;
}

static size_t file_size(struct aiFile *file) {
    aimp_stream *stream = stream_state(file);
    return stream_load(stream) ? stream->size : 0;
}

/* Offsets are size_t: a backwards seek arrives as a wrapped-around value, so
 * the arithmetic is modular and only the result is checked. */
static enum aiReturn file_seek(struct aiFile *file, size_t offset, enum aiOrigin origin) {
    aimp_stream *stream = stream_state(file);
    if (!stream_load(stream) ||
        (origin != aiOrigin_SET && origin != aiOrigin_CUR && origin != aiOrigin_END))
        return aiReturn_FAILURE;
    size_t base =
        origin == aiOrigin_SET ? 0 : (origin == aiOrigin_CUR ? stream->pos : stream->size);
    size_t target = base + offset;
    if (target > stream->size)
        return aiReturn_FAILURE;
    stream->pos = target;
    return aiReturn_SUCCESS;
}

static void file_flush(struct aiFile *file) {
    (void)file;
}

static void stream_free(aimp_stream *stream) {
    free(stream->owned);
    free(stream->full_path);
    free(stream);
}

static struct aiFile *file_open(struct aiFileIO *fio, const char *path, const char *mode) {
    aimp_io *io = io_state(fio);
    if (path == NULL || mode == NULL)
        return NULL;
    if (strpbrk(mode, "wa+") != NULL) {
        remember_miss(io, path, "assimp asked to write; refused");
        return NULL;
    }
    const char *name = path;
    while (name[0] == '.' && (name[1] == '/' || name[1] == '\\'))
        name += 2;
    aimp_stream *stream = calloc(1, sizeof *stream);
    struct aiFile *file = calloc(1, sizeof *file);
    if (stream == NULL || file == NULL) {
        io->out_of_memory = true;
        free(stream);
        free(file);
        return NULL;
    }
    stream->io = io;
    if (strcmp(name, io->main_name) == 0) {
        stream->data = io->main_data;
        stream->size = io->ctx->source_size;
    } else {
        char reason[512];
        char *relative = NULL;
        if (!cook_resolve_dependency(io->ctx, name, &relative, reason, sizeof reason)) {
            remember_miss(io, path, reason);
            free(stream);
            free(file);
            return NULL;
        }
        stream->full_path = cook_path_join(io->ctx->input_root, relative);
        free(relative);
        if (stream->full_path == NULL) {
            io->out_of_memory = true;
            free(stream);
            free(file);
            return NULL;
        }
    }
    file->ReadProc = file_read;
    file->WriteProc = file_write;
    file->TellProc = file_tell;
    file->FileSizeProc = file_size;
    file->SeekProc = file_seek;
    file->FlushProc = file_flush;
    file->UserData = (aiUserData)(void *)stream;
    return file;
}

static void file_close(struct aiFileIO *fio, struct aiFile *file) {
    (void)fio;
    if (file == NULL)
        return;
    stream_free(stream_state(file));
    free(file);
}

/* ValidateDataStructure's messages for a scene with nothing to draw. */
static bool is_empty_scene_message(const char *message) {
    static const char *const patterns[] = {"Validation failed: Mesh ",
                                           "Validation failed: The mesh ",
                                           "Validation failed: aiScene::mNumMeshes is 0"};
    static const char *const endings[] = {" contains no faces", " contains no vertices", ""};
    size_t length = strlen(message);
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        size_t ending = strlen(endings[i]);
        if (strncmp(message, patterns[i], strlen(patterns[i])) == 0 && length >= ending &&
            strcmp(message + length - ending, endings[i]) == 0)
            return true;
    }
    return false;
}

/* One import under the process-wide lock; on failure, assimp's message. */
static const struct aiScene *read_scene(aimp_io *io, unsigned flags, struct aiFileIO *file_io,
                                        const struct aiPropertyStore *props, char *message,
                                        size_t size) {
    pthread_mutex_lock(&aimp_lock);
    const struct aiScene *scene =
        aiImportFileExWithProperties(io->main_name, flags, file_io, props);
    if (scene == NULL) {
        const char *error = aiGetErrorString();
        snprintf(message, size, "%s", error != NULL ? error : "");
    }
    pthread_mutex_unlock(&aimp_lock);
    return scene;
}

/* assimp's message on one line, without control characters. */
static void clean_message(char *text) {
    for (char *p = text; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    size_t length = strlen(text);
    while (length > 0 && text[length - 1] == ' ')
        text[--length] = '\0';
}

bool import_assimp(cook_context *ctx, ir_asset *out) {
    memset(out, 0, sizeof *out);
    const char *path = ctx->source_path;
    aimp_io io = {.ctx = ctx, .main_name = aimp_base_name(path)};
    if (io.main_name[0] == '\0') {
        diag_error(ctx->diag, path, 0, "assimp could not read this file: it has no file name");
        return false;
    }
    uint8_t *rewritten = NULL; /* the source with AC3D subdivision lowered */
    if (!assimp_precheck(ctx->source, ctx->source_size, path, ctx->diag, &rewritten))
        return false;
    io.main_data = rewritten != NULL ? rewritten : ctx->source;
    struct aiFileIO file_io = {file_open, file_close, (aiUserData)(void *)&io};
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (props == NULL) {
        diag_error(ctx->diag, path, 0, "out of memory");
        free(rewritten);
        return false;
    }
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    const unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                           aiProcess_SortByPType | aiProcess_ValidateDataStructure;

    char message[1024] = "";
    const struct aiScene *scene = read_scene(&io, flags, &file_io, props, message, sizeof message);
    clean_message(message);
    bool no_faces = scene == NULL && is_empty_scene_message(message) &&
                    strstr(message, " contains no faces") != NULL;
    if (no_faces) {
        /* Validation refuses a mesh of vertices without faces, which is how
         * assimp reads a point cloud (a PLY without a face element). Read it
         * again without validation: the conversion checks every count and
         * index it uses, and cooks such a mesh as points. */
        char again[1024] = "";
        scene = read_scene(&io, aiProcess_Triangulate, &file_io, props, again, sizeof again);
    }
    aiReleasePropertyStore(props);

    bool ok = scene != NULL;
    if (no_faces && ok)
        diag_note(ctx->diag, path, 0,
                  "a mesh without faces is cooked as a point cloud (assimp validation: %s)",
                  message);
    if (!ok) {
        if (is_empty_scene_message(message)) {
            /* Validation rejects a scene without meshes or a mesh without
             * vertices (an STL with no facets): that is an empty model, not
             * a broken file. */
            diag_warning(ctx->diag, path, 0,
                         "nothing to cook: the file holds no geometry (assimp: %s)", message);
            ok = true;
        } else {
            diag_error(ctx->diag, path, 0, "assimp could not read this file: %s",
                       message[0] ? message : "unknown error");
            /* What it could not open may explain why (on success, misses are
             * assimp probing optional files and not worth a line). */
            for (size_t i = 0; i < io.misses.count; i++)
                diag_note(ctx->diag, path, 0, "assimp asked for %s", io.misses.items[i]);
        }
    }
    if (io.out_of_memory) {
        diag_error(ctx->diag, path, 0, "out of memory");
        ok = false;
    }
    if (ok && scene != NULL)
        ok = assimp_convert_scene(ctx, scene, out);
    if (scene != NULL) {
        pthread_mutex_lock(&aimp_lock);
        aiReleaseImport(scene);
        pthread_mutex_unlock(&aimp_lock);
    }
    strlist_free(&io.misses);
    free(rewritten);
    if (!ok)
        ir_asset_free(out);
    return ok;
}
