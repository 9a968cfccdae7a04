/*
 * assimp.c — every model format kiln does not parse itself (FBX, COLLADA, 3DS,
 * PLY, STL, LightWave, Blender, …), read through assimp's C API.
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
#include <float.h>
#include <limits.h>
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

#include "common/checked.h"
#include "cook/import/assimp_convert.h"
#include "cook/import/import.h"

#define AIMP_MAX_NODES (1u << 24)
#define AIMP_MAX_FILE_BYTES ((size_t)2 << 30) /* as for any dependency */
#define AIMP_MAX_NOTES 16u
#define AIMP_NONE UINT32_MAX

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

/* ---------------------------------------------------------------------------
 * Conversion state
 * ------------------------------------------------------------------------- */

typedef struct node_entry {
    const struct aiNode *node;
    int32_t parent;
} node_entry;

/* Node names → first node index, open addressing, at most half full. */
typedef struct name_slot {
    const char *name; /* NULL: empty; points into the scene */
    size_t length;
    uint32_t node;
} name_slot;

typedef struct aimp_state {
    cook_context *ctx;
    const char *path;
    const struct aiScene *scene;
    ir_asset *out;

    node_entry *nodes;
    uint32_t node_count;
    name_slot *names;
    size_t names_cap;

    uint32_t *slot_of_material; /* per aiMaterial: IR slot, or AIMP_NONE */
    uint32_t *used_materials;   /* per IR slot: aiMaterial index */
    uint32_t used_count;

    uint32_t *group_first;            /* per aiMesh: first group starting with it, or NONE */
    uint32_t *group_next;             /* per group: next group with the same first aiMesh */
    uint32_t *group_mesh;             /* per group: ir mesh index, or NONE (nothing cooked) */
    const struct aiNode **group_node; /* per group: the node that created it */
    uint32_t group_count;
    size_t group_cap;

    bool *mesh_used;    /* per aiMesh: placed by a cooked node */
    int32_t *mesh_skin; /* per ir mesh: index into out->skins, or -1 */
    size_t mesh_skin_cap;

    uint32_t skipped_meshes; /* aiMeshes with nothing kiln cooks */
    bool warned_shear, warned_matrix, warned_embedded, warned_texcoord, warned_uv_set;
    uint32_t textures_reported;
} aimp_state;

static bool out_of_memory(aimp_state *st) {
    diag_error(st->ctx->diag, st->path, 0, "out of memory");
    return false;
}

/* An aiString's text, bounded by its buffer whatever `length` claims. */
static size_t ai_length(const struct aiString *s) {
    size_t limit = sizeof s->data - 1;
    size_t length = s->length < limit ? s->length : limit;
    const char *nul = memchr(s->data, '\0', length);
    return nul ? (size_t)(nul - s->data) : length;
}

static char *ai_strdup(const struct aiString *s) {
    size_t length = ai_length(s);
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, s->data, length);
        copy[length] = '\0';
    }
    return copy;
}

static bool build_name_table(aimp_state *st) {
    size_t cap = 16;
    while (cap < (size_t)st->node_count * 2)
        cap *= 2;
    st->names = calloc(cap, sizeof *st->names);
    if (st->names == NULL)
        return false;
    st->names_cap = cap;
    for (uint32_t i = 0; i < st->node_count; i++) {
        const struct aiString *name = &st->nodes[i].node->mName;
        size_t length = ai_length(name);
        size_t j = (size_t)kiln_ref_hash_n(name->data, length) & (cap - 1);
        bool duplicate = false;
        for (; st->names[j].name != NULL; j = (j + 1) & (cap - 1)) {
            if (st->names[j].length == length &&
                memcmp(st->names[j].name, name->data, length) == 0) {
                duplicate = true; /* the first node of that name wins */
                break;
            }
        }
        if (!duplicate)
            st->names[j] = (name_slot){name->data, length, i};
    }
    return true;
}

static uint32_t find_node(const aimp_state *st, const struct aiString *name) {
    size_t length = ai_length(name);
    size_t mask = st->names_cap - 1;
    for (size_t j = (size_t)kiln_ref_hash_n(name->data, length) & mask; st->names[j].name != NULL;
         j = (j + 1) & mask) {
        if (st->names[j].length == length && memcmp(st->names[j].name, name->data, length) == 0)
            return st->names[j].node;
    }
    return AIMP_NONE;
}

/* ---------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------- */

/* Depth-first, parents first, with an explicit stack (no recursion). */
static bool collect_nodes(aimp_state *st) {
    size_t cap = 64, stack_cap = 64, stack_count = 0;
    st->nodes = malloc(cap * sizeof *st->nodes);
    node_entry *stack = malloc(stack_cap * sizeof *stack);
    if (st->nodes == NULL || stack == NULL) {
        free(stack);
        return out_of_memory(st);
    }
    stack[stack_count++] = (node_entry){st->scene->mRootNode, -1};
    while (stack_count > 0) {
        node_entry entry = stack[--stack_count];
        if (st->node_count >= AIMP_MAX_NODES) {
            free(stack);
            diag_error(st->ctx->diag, st->path, 0, "more than %u nodes", AIMP_MAX_NODES);
            return false;
        }
        if (st->node_count == cap) {
            cap *= 2;
            node_entry *grown = realloc(st->nodes, cap * sizeof *grown);
            if (grown == NULL) {
                free(stack);
                return out_of_memory(st);
            }
            st->nodes = grown;
        }
        uint32_t index = st->node_count++;
        st->nodes[index] = entry;
        const struct aiNode *node = entry.node;
        if (node->mNumChildren > 0 && node->mChildren == NULL)
            continue;
        size_t need;
        if (!checked_add_size(stack_count, node->mNumChildren, &need)) {
            free(stack);
            return out_of_memory(st);
        }
        if (need > stack_cap) {
            while (stack_cap < need) {
                if (stack_cap > SIZE_MAX / 2 / sizeof *stack) {
                    free(stack);
                    return out_of_memory(st);
                }
                stack_cap *= 2;
            }
            node_entry *grown = realloc(stack, stack_cap * sizeof *grown);
            if (grown == NULL) {
                free(stack);
                return out_of_memory(st);
            }
            stack = grown;
        }
        /* Pushed in reverse so the first child is visited first. */
        for (unsigned c = node->mNumChildren; c-- > 0;)
            if (node->mChildren[c] != NULL)
                stack[stack_count++] = (node_entry){node->mChildren[c], (int32_t)index};
    }
    free(stack);
    return true;
}

/* Quaternion (x, y, z, w) of a rotation matrix given column-major. */
static void quaternion_from_matrix(const double r[9], double q[4]) {
#define R(row, col) r[(col)*3 + (row)]
    double trace = R(0, 0) + R(1, 1) + R(2, 2);
    if (trace > 0.0) {
        double s = sqrt(trace + 1.0) * 2.0;
        q[3] = 0.25 * s;
        q[0] = (R(2, 1) - R(1, 2)) / s;
        q[1] = (R(0, 2) - R(2, 0)) / s;
        q[2] = (R(1, 0) - R(0, 1)) / s;
    } else if (R(0, 0) > R(1, 1) && R(0, 0) > R(2, 2)) {
        double s = sqrt(1.0 + R(0, 0) - R(1, 1) - R(2, 2)) * 2.0;
        q[3] = (R(2, 1) - R(1, 2)) / s;
        q[0] = 0.25 * s;
        q[1] = (R(0, 1) + R(1, 0)) / s;
        q[2] = (R(0, 2) + R(2, 0)) / s;
    } else if (R(1, 1) > R(2, 2)) {
        double s = sqrt(1.0 + R(1, 1) - R(0, 0) - R(2, 2)) * 2.0;
        q[3] = (R(0, 2) - R(2, 0)) / s;
        q[0] = (R(0, 1) + R(1, 0)) / s;
        q[1] = 0.25 * s;
        q[2] = (R(1, 2) + R(2, 1)) / s;
    } else {
        double s = sqrt(1.0 + R(2, 2) - R(0, 0) - R(1, 1)) * 2.0;
        q[3] = (R(1, 0) - R(0, 1)) / s;
        q[0] = (R(0, 2) + R(2, 0)) / s;
        q[1] = (R(1, 2) + R(2, 1)) / s;
        q[2] = 0.25 * s;
    }
#undef R
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double sign = q[3] < 0.0 ? -1.0 : 1.0; /* one of q, -q: w >= 0 */
    for (int k = 0; k < 4; k++)
        q[k] = length > 0.0 ? sign * q[k] / length : (k == 3 ? 1.0 : 0.0);
}

static void set_transform(aimp_state *st, ir_node *node, const struct aiMatrix4x4 *t) {
    /* aiMatrix4x4 is row-major (a1..a4 is the first row, translation in a4,
     * b4, c4); the IR's matrix is column-major. */
    const double m[16] = {t->a1, t->b1, t->c1, t->d1, t->a2, t->b2, t->c2, t->d2,
                          t->a3, t->b3, t->c3, t->d3, t->a4, t->b4, t->c4, t->d4};
    for (int i = 0; i < 16; i++) {
        if (!isfinite(m[i])) {
            if (!st->warned_matrix)
                diag_warning(st->ctx->diag, st->path, 0,
                             "node '%s' has a transform that is not finite; identity used",
                             node->name ? node->name : "");
            st->warned_matrix = true;
            return; /* ir_node_init's identity */
        }
    }
    for (int i = 0; i < 16; i++)
        node->matrix[i] = (float)m[i];
    for (int k = 0; k < 3; k++)
        node->translation[k] = (float)m[12 + k];

    double scale[3], r[9];
    for (int c = 0; c < 3; c++)
        scale[c] =
            sqrt(m[4 * c] * m[4 * c] + m[4 * c + 1] * m[4 * c + 1] + m[4 * c + 2] * m[4 * c + 2]);
    double det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
                 m[8] * (m[1] * m[6] - m[2] * m[5]);
    if (det < 0.0)
        scale[0] = -scale[0];
    bool degenerate = scale[0] == 0.0 || scale[1] == 0.0 || scale[2] == 0.0;
    double q[4] = {0.0, 0.0, 0.0, 1.0};
    bool exact = m[3] == 0.0 && m[7] == 0.0 && m[11] == 0.0 && m[15] == 1.0;
    if (!degenerate) {
        for (int c = 0; c < 3; c++)
            for (int row = 0; row < 3; row++)
                r[3 * c + row] = m[4 * c + row] / scale[c];
        /* Orthogonal columns, or the matrix has shear. */
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++) {
                double dot =
                    r[3 * a] * r[3 * b] + r[3 * a + 1] * r[3 * b + 1] + r[3 * a + 2] * r[3 * b + 2];
                if (fabs(dot) > 1e-4)
                    exact = false;
            }
        quaternion_from_matrix(r, q);
    }
    for (int k = 0; k < 3; k++) {
        /* A column of finite floats can be longer than FLT_MAX: the matrix
         * is kept, the scale is the largest float (approximate). */
        if (fabs(scale[k]) > FLT_MAX) {
            scale[k] = copysign(FLT_MAX, scale[k]);
            exact = false;
        }
        node->scale[k] = (float)scale[k];
    }
    for (int k = 0; k < 4; k++)
        node->rotation[k] = (float)q[k];
    if (!exact && !st->warned_shear) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "node '%s' has a transform with shear or projection; its matrix is kept and "
                     "its translation/rotation/scale are approximate",
                     node->name ? node->name : "");
        st->warned_shear = true;
    }
}

static bool build_nodes(aimp_state *st) {
    ir_asset *out = st->out;
    out->nodes = calloc(st->node_count, sizeof *out->nodes);
    if (out->nodes == NULL)
        return out_of_memory(st);
    out->node_count = st->node_count;
    for (uint32_t i = 0; i < st->node_count; i++) {
        ir_node *node = &out->nodes[i];
        ir_node_init(node);
        const struct aiNode *source = st->nodes[i].node;
        node->parent = st->nodes[i].parent;
        node->source = (int32_t)i; /* the depth-first position: assimp numbers no nodes */
        if (ai_length(&source->mName) > 0) {
            node->name = ai_strdup(&source->mName);
            if (node->name == NULL)
                return out_of_memory(st);
        }
        set_transform(st, node, &source->mTransformation);
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * Meshes
 * ------------------------------------------------------------------------- */

/* A mesh kiln cooks: triangles, lines or points (SortByPType gives each
 * aiMesh one kind; faces are still classified one by one), or vertices with
 * no faces at all, which are a point cloud (assimp's PLY reader without a
 * face element; only a scene imported again without validation has them). */
static bool is_cooked_mesh(const struct aiMesh *mesh) {
    const unsigned kinds = aiPrimitiveType_POINT | aiPrimitiveType_LINE | aiPrimitiveType_TRIANGLE;
    return mesh != NULL && mesh->mNumVertices > 0 && mesh->mVertices != NULL &&
           (mesh->mNumFaces == 0 || (mesh->mFaces != NULL && (mesh->mPrimitiveTypes & kinds) != 0));
}

static bool is_point_cloud(const struct aiMesh *mesh) {
    return mesh->mNumFaces == 0;
}

/* The topology of a face of `indices` corners, or KILN_TOPOLOGY_COUNT_ for
 * one kiln does not cook (a polygon Triangulate left, or none). */
static kiln_topology face_topology(unsigned indices) {
    return indices == 3   ? KILN_TOPOLOGY_TRIANGLES
           : indices == 2 ? KILN_TOPOLOGY_LINES
           : indices == 1 ? KILN_TOPOLOGY_POINTS
                          : KILN_TOPOLOGY_COUNT_;
}

static bool has_triangles(const struct aiMesh *mesh) {
    return (mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) != 0 && mesh->mNumFaces > 0;
}

static uint32_t material_slot(aimp_state *st, unsigned material) {
    if (material >= st->scene->mNumMaterials)
        return AIMP_NONE;
    if (st->slot_of_material[material] == AIMP_NONE) {
        st->slot_of_material[material] = st->used_count;
        st->used_materials[st->used_count++] = material;
    }
    return st->slot_of_material[material];
}

static bool finite3(const struct aiVector3D *v) {
    return isfinite(v->x) && isfinite(v->y) && isfinite(v->z);
}

/* Normalises xyz in place; false when it has no direction. */
static bool normalize3(float *v) {
    double length = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    if (!(length > 0.0) || !isfinite(length))
        return false;
    for (int k = 0; k < 3; k++)
        v[k] = (float)(v[k] / length);
    return true;
}

static void *alloc_array(size_t count, size_t size) {
    size_t bytes;
    if (!checked_mul_size(count ? count : 1, size, &bytes))
        return NULL;
    return malloc(bytes);
}

typedef struct skin_vertex_stats {
    size_t over_four;
    size_t unknown_bones;
} skin_vertex_stats;

/* Inserts (joint, weight) into a vertex's eight slots, keeping the largest. */
static void add_influence(uint16_t *joints, float *weights, uint8_t *counts, uint16_t joint,
                          float weight) {
    if (*counts < 255)
        (*counts)++;
    int smallest = 0;
    for (int k = 1; k < 8; k++)
        if (weights[k] < weights[smallest])
            smallest = k;
    if (weight > weights[smallest]) {
        weights[smallest] = weight;
        joints[smallest] = joint;
    }
}

/* The bones of one ir_mesh: distinct nodes in order of first appearance. */
typedef struct bone_set {
    uint32_t *nodes;
    float *inverse_bind; /* 16 per bone, column-major */
    uint32_t count, cap;
    int32_t source; /* the first aiMesh with bones */
} bone_set;

/* The local joint index of the bone naming `node`, appended (with its offset
 * matrix) when new; -1 on allocation failure, -2 for a non-finite matrix. */
static int32_t bone_index(bone_set *set, uint32_t node, const struct aiMatrix4x4 *offset) {
    for (uint32_t k = 0; k < set->count; k++)
        if (set->nodes[k] == node)
            return (int32_t)k;
    const double m[16] = {offset->a1, offset->b1, offset->c1, offset->d1, offset->a2, offset->b2,
                          offset->c2, offset->d2, offset->a3, offset->b3, offset->c3, offset->d3,
                          offset->a4, offset->b4, offset->c4, offset->d4};
    for (int e = 0; e < 16; e++)
        if (!isfinite(m[e]))
            return -2;
    if (set->count == set->cap) {
        uint32_t cap = set->cap ? set->cap * 2 : 16;
        uint32_t *nodes = realloc(set->nodes, cap * sizeof *nodes);
        if (nodes != NULL)
            set->nodes = nodes;
        float *matrices = realloc(set->inverse_bind, (size_t)cap * 16 * sizeof *matrices);
        if (matrices != NULL)
            set->inverse_bind = matrices;
        if (nodes == NULL || matrices == NULL)
            return -1;
        set->cap = cap;
    }
    set->nodes[set->count] = node;
    for (int e = 0; e < 16; e++) /* affine: assimp's offsets are; the last row made exact */
        set->inverse_bind[16 * (size_t)set->count + (size_t)e] =
            e == 3 || e == 7 || e == 11 ? 0.0f : (e == 15 ? 1.0f : (float)m[e]);
    return (int32_t)set->count++;
}

/* The skin of `mesh_index` from its bones: an existing skin with the same
 * joints and matrices, else a new one (taking the set's arrays). */
static bool attach_skin(aimp_state *st, uint32_t mesh_index, bone_set *set) {
    if (mesh_index >= st->mesh_skin_cap) {
        size_t cap = st->mesh_skin_cap ? st->mesh_skin_cap * 2 : 16;
        while (cap <= mesh_index)
            cap *= 2;
        int32_t *grown = realloc(st->mesh_skin, cap * sizeof *grown);
        if (grown == NULL)
            return out_of_memory(st);
        for (size_t k = st->mesh_skin_cap; k < cap; k++)
            grown[k] = -1;
        st->mesh_skin = grown;
        st->mesh_skin_cap = cap;
    }
    st->mesh_skin[mesh_index] = -1;
    if (set->count == 0)
        return true;
    ir_asset *out = st->out;
    for (uint32_t s = 0; s < out->skin_count; s++) {
        const ir_skin *skin = &out->skins[s];
        if (skin->joint_count == set->count &&
            memcmp(skin->joints, set->nodes, set->count * sizeof *set->nodes) == 0 &&
            memcmp(skin->inverse_bind, set->inverse_bind, (size_t)set->count * 64) == 0) {
            st->mesh_skin[mesh_index] = (int32_t)s;
            return true;
        }
    }
    ir_skin *skins = realloc(out->skins, ((size_t)out->skin_count + 1) * sizeof *skins);
    if (skins == NULL)
        return out_of_memory(st);
    out->skins = skins;
    ir_skin *skin = &out->skins[out->skin_count];
    memset(skin, 0, sizeof *skin);
    skin->joints = set->nodes;
    skin->inverse_bind = set->inverse_bind;
    skin->joint_count = set->count;
    skin->skeleton = -1;
    skin->source = set->source;
    set->nodes = NULL;
    set->inverse_bind = NULL;
    st->mesh_skin[mesh_index] = (int32_t)out->skin_count++;
    return true;
}

/* The streams of one ir_mesh from the node's aiMeshes. */
/* Morph targets from the aiMeshes' aiAnimMeshes (FBX blend shapes, DAE
 * morph controllers, glTF targets): an aiAnimMesh replaces streams, so a
 * delta is its value minus the base's. Kept when every aiMesh of the group
 * has the same number of them, each with the aiMesh's vertex count; else
 * dropped with a warning. Positions, normals and tangents (the ones the
 * mesh has) are cooked; replaced colours or texture coordinates are named in
 * a warning. Non-finite deltas become 0 with a warning. */
static bool read_anim_meshes(aimp_state *st, const unsigned *meshes, uint32_t count,
                             ir_mesh *mesh) {
    const struct aiScene *scene = st->scene;
    const char *name = mesh->name ? mesh->name : "";
    unsigned targets = scene->mMeshes[meshes[0]]->mNumAnimMeshes;
    bool consistent = true, has[3] = {false, false, false}, other = false;
    for (uint32_t i = 0; i < count; i++) {
        const struct aiMesh *m = scene->mMeshes[meshes[i]];
        unsigned n = m->mAnimMeshes != NULL ? m->mNumAnimMeshes : 0;
        targets = m->mAnimMeshes != NULL ? targets : 0;
        consistent &= n == targets;
        for (unsigned t = 0; consistent && t < n; t++) {
            const struct aiAnimMesh *a = m->mAnimMeshes[t];
            consistent = a != NULL && a->mNumVertices == m->mNumVertices;
            if (!consistent)
                break;
            has[0] |= a->mVertices != NULL;
            has[1] |= a->mNormals != NULL && m->mNormals != NULL;
            has[2] |= a->mTangents != NULL && m->mTangents != NULL;
            other |= a->mColors[0] != NULL || a->mTextureCoords[0] != NULL;
        }
    }
    if (!consistent) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': its parts have different morph targets (aiAnimMesh counts or "
                     "vertex counts); the morph targets are not cooked",
                     name);
        return true;
    }
    has[1] &= mesh->normals != NULL;
    has[2] &= mesh->tangents != NULL;
    if (targets == 0 || (!has[0] && !has[1] && !has[2]))
        return true;
    if (other)
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': morph targets replacing colours or texture coordinates; only "
                     "position, normal and tangent deltas are cooked",
                     name);
    if (targets > UINT16_MAX) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': %u morph targets; more than %u are not cooked", name, targets,
                     UINT16_MAX);
        return true;
    }
    size_t n = mesh->vertex_count;
    mesh->targets = calloc(targets, sizeof *mesh->targets);
    if (mesh->targets == NULL)
        return out_of_memory(st);
    mesh->target_count = targets;
    for (unsigned t = 0; t < targets; t++) {
        ir_morph_target *target = &mesh->targets[t];
        const struct aiAnimMesh *first = scene->mMeshes[meshes[0]]->mAnimMeshes[t];
        if (ai_length(&first->mName) > 0 && (target->name = ai_strdup(&first->mName)) == NULL)
            return out_of_memory(st);
        for (int k = 0; k < 3; k++)
            if (has[k] && /* zeros: a part without this stream does not move */
                (*ir_morph_stream(target, k) = calloc(n ? n : 1, 3 * sizeof(float))) == NULL)
                return out_of_memory(st);
    }
    size_t base = 0, bad = 0;
    for (uint32_t i = 0; i < count; i++) {
        const struct aiMesh *m = scene->mMeshes[meshes[i]];
        const struct aiVector3D *base_streams[3] = {m->mVertices, m->mNormals, m->mTangents};
        for (unsigned t = 0; t < targets; t++) {
            const struct aiAnimMesh *a = m->mAnimMeshes[t];
            const struct aiVector3D *streams[3] = {a->mVertices, a->mNormals, a->mTangents};
            for (int k = 0; k < 3; k++) {
                float *out = *ir_morph_stream(&mesh->targets[t], k);
                if (out == NULL || streams[k] == NULL || base_streams[k] == NULL)
                    continue; /* calloc'd: no change */
                for (unsigned v = 0; v < m->mNumVertices; v++) {
                    const double d[3] = {(double)streams[k][v].x - base_streams[k][v].x,
                                         (double)streams[k][v].y - base_streams[k][v].y,
                                         (double)streams[k][v].z - base_streams[k][v].z};
                    for (int c = 0; c < 3; c++) {
                        float value = (float)d[c];
                        bad += !isfinite(value);
                        out[3 * (base + v) + (size_t)c] = isfinite(value) ? value : 0.0f;
                    }
                }
            }
        }
        base += m->mNumVertices;
    }
    if (bad > 0)
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': %zu morph target delta components are not finite; set to 0", name,
                     bad);
    return true;
}

/* A node drawing a mesh with morph targets: its default weights, the
 * aiAnimMeshes' mWeight of the group's first aiMesh (ir.h: one per target). */
static bool set_node_weights(aimp_state *st, uint32_t node_index, unsigned first_mesh) {
    ir_node *node = &st->out->nodes[node_index];
    if (node->mesh < 0 || st->out->meshes[node->mesh].target_count == 0)
        return true;
    uint32_t targets = st->out->meshes[node->mesh].target_count;
    const struct aiMesh *m = st->scene->mMeshes[first_mesh];
    free(node->weights);
    node->weights = calloc(targets, sizeof *node->weights);
    if (node->weights == NULL)
        return out_of_memory(st);
    node->weight_count = targets;
    for (uint32_t t = 0; t < targets && t < m->mNumAnimMeshes; t++)
        node->weights[t] = isfinite(m->mAnimMeshes[t]->mWeight) ? m->mAnimMeshes[t]->mWeight : 0.0f;
    return true;
}

static bool build_mesh(aimp_state *st, const unsigned *meshes, uint32_t count, uint32_t node_index,
                       ir_mesh *mesh) {
    const struct aiScene *scene = st->scene;
    uint64_t vertices = 0, indices = 0;
    bool all_normals = true, all_tangents = true, any_uv[2] = {false, false}, any_color = false,
         any_bones = false;
    /* Normals and tangents as the triangle meshes have them (all meshes when
     * none has triangles): lines and points must not cost a surface its own. */
    bool any_triangles = false, triangle_normals = true, triangle_tangents = true;
    for (uint32_t i = 0; i < count; i++) {
        const struct aiMesh *m = scene->mMeshes[meshes[i]];
        vertices += m->mNumVertices;
        if (is_point_cloud(m))
            indices += m->mNumVertices;
        for (unsigned f = 0; f < m->mNumFaces; f++)
            indices += face_topology(m->mFaces[f].mNumIndices) != KILN_TOPOLOGY_COUNT_
                           ? m->mFaces[f].mNumIndices
                           : 0;
        bool tangents = m->mTangents != NULL && m->mBitangents != NULL;
        all_normals &= m->mNormals != NULL;
        all_tangents &= tangents;
        if (has_triangles(m)) {
            any_triangles = true;
            triangle_normals &= m->mNormals != NULL;
            triangle_tangents &= tangents;
        }
        for (int k = 0; k < 2; k++)
            any_uv[k] |= m->mTextureCoords[k] != NULL;
        any_color |= m->mColors[0] != NULL;
        any_bones |= m->mNumBones > 0 && m->mBones != NULL;
        if ((m->mTextureCoords[2] != NULL || m->mColors[1] != NULL) && !st->warned_uv_set) {
            diag_note(st->ctx->diag, st->path, 0,
                      "texture coordinate sets beyond the second and colour sets beyond the "
                      "first are not cooked");
            st->warned_uv_set = true;
        }
    }
    if (any_triangles) {
        all_normals = triangle_normals;
        all_tangents = triangle_tangents;
    }
    if (vertices > UINT32_MAX || indices > UINT32_MAX) {
        diag_error(st->ctx->diag, st->path, 0, "mesh '%s': more than %u vertices or indices",
                   mesh->name ? mesh->name : "", UINT32_MAX);
        return false;
    }
    size_t n = (size_t)vertices;
    mesh->vertex_count = (uint32_t)n;
    mesh->positions = alloc_array(n, 3 * sizeof(float));
    mesh->indices = alloc_array((size_t)indices, sizeof(uint32_t));
    mesh->submeshes = alloc_array((size_t)count * KILN_TOPOLOGY_COUNT_, sizeof(ir_submesh));
    if (mesh->positions == NULL || mesh->indices == NULL || mesh->submeshes == NULL)
        return out_of_memory(st);
    if (all_normals && (mesh->normals = alloc_array(n, 3 * sizeof(float))) == NULL)
        return out_of_memory(st);
    all_tangents &= all_normals;
    if (all_tangents && (mesh->tangents = alloc_array(n, 4 * sizeof(float))) == NULL)
        return out_of_memory(st);
    for (int k = 0; k < 2; k++)
        if (any_uv[k] && (mesh->texcoords[k] = alloc_array(n, 2 * sizeof(float))) == NULL)
            return out_of_memory(st);
    if (any_color && (mesh->colors = alloc_array(n, 4 * sizeof(float))) == NULL)
        return out_of_memory(st);
    uint8_t *influences = NULL;
    uint16_t *joints8 = NULL; /* eight per vertex while the bones are read */
    float *weights8 = NULL;
    bone_set bones = {.source = -1};
    if (any_bones) {
        mesh->joints = calloc(n ? n : 1, 4 * sizeof(uint16_t));
        mesh->weights = calloc(n ? n : 1, 4 * sizeof(float));
        joints8 = calloc(n ? n : 1, 8 * sizeof(uint16_t));
        weights8 = calloc(n ? n : 1, 8 * sizeof(float));
        influences = calloc(n ? n : 1, 1);
        if (mesh->joints == NULL || mesh->weights == NULL || influences == NULL ||
            joints8 == NULL || weights8 == NULL) {
            free(influences);
            free(joints8);
            free(weights8);
            return out_of_memory(st);
        }
    }

    /* Vertices, submesh by submesh in the node's order. */
    bool normals_ok = true, tangents_ok = true;
    size_t bad_texcoords = 0;
    skin_vertex_stats skin = {0, 0};
    uint32_t *first_vertex = alloc_array(count, sizeof(uint32_t));
    if (first_vertex == NULL) {
        free(joints8);
        free(weights8);
        free(influences);
        return out_of_memory(st);
    }
    size_t base = 0;
    for (uint32_t i = 0; i < count; i++) {
        const struct aiMesh *m = scene->mMeshes[meshes[i]];
        first_vertex[i] = (uint32_t)base;
        for (unsigned v = 0; v < m->mNumVertices; v++) {
            size_t o = base + v;
            const struct aiVector3D *p = &m->mVertices[v];
            mesh->positions[3 * o + 0] = (float)p->x;
            mesh->positions[3 * o + 1] = (float)p->y;
            mesh->positions[3 * o + 2] = (float)p->z;
            if (mesh->normals != NULL) {
                float *nrm = mesh->normals + 3 * o;
                nrm[0] = m->mNormals ? (float)m->mNormals[v].x : 0.0f;
                nrm[1] = m->mNormals ? (float)m->mNormals[v].y : 0.0f;
                nrm[2] = m->mNormals ? (float)m->mNormals[v].z : 0.0f;
                /* A line or point mesh without (usable) normals next to
                 * triangles: +Z (assimp's OBJ reader gives them zeros). */
                bool usable = normalize3(nrm);
                if (!usable && !has_triangles(m)) {
                    nrm[0] = nrm[1] = 0.0f;
                    nrm[2] = 1.0f;
                } else {
                    normals_ok &= usable;
                }
            }
            if (mesh->tangents != NULL && (m->mTangents == NULL || m->mBitangents == NULL)) {
                float *tan = mesh->tangents + 4 * o;
                tan[0] = tan[3] = 1.0f;
                tan[1] = tan[2] = 0.0f;
            } else if (mesh->tangents != NULL) {
                float *tan = mesh->tangents + 4 * o;
                const struct aiVector3D *b = &m->mBitangents[v];
                tan[0] = (float)m->mTangents[v].x;
                tan[1] = (float)m->mTangents[v].y;
                tan[2] = (float)m->mTangents[v].z;
                tangents_ok &= normalize3(tan) && finite3(b);
                const float *nrm = mesh->normals + 3 * o;
                double cross[3] = {(double)nrm[1] * tan[2] - (double)nrm[2] * tan[1],
                                   (double)nrm[2] * tan[0] - (double)nrm[0] * tan[2],
                                   (double)nrm[0] * tan[1] - (double)nrm[1] * tan[0]};
                double dot = cross[0] * b->x + cross[1] * b->y + cross[2] * b->z;
                tan[3] = dot < 0.0 ? -1.0f : 1.0f;
            }
            for (int k = 0; k < 2; k++) {
                if (mesh->texcoords[k] == NULL)
                    continue;
                float *uv = mesh->texcoords[k] + 2 * o;
                if (m->mTextureCoords[k] == NULL) {
                    uv[0] = uv[1] = 0.0f;
                    continue;
                }
                double u = m->mTextureCoords[k][v].x, w = m->mTextureCoords[k][v].y;
                if (!isfinite(u) || !isfinite(w)) {
                    bad_texcoords++;
                    u = 0.0;
                    w = 1.0;
                }
                uv[0] = (float)u;
                uv[1] = (float)(1.0 - w);
            }
            if (mesh->colors != NULL) {
                float *c = mesh->colors + 4 * o;
                if (m->mColors[0] == NULL) {
                    c[0] = c[1] = c[2] = c[3] = 1.0f;
                } else {
                    const struct aiColor4D *src = &m->mColors[0][v];
                    const double rgba[4] = {src->r, src->g, src->b, src->a};
                    for (int k = 0; k < 4; k++)
                        c[k] = isfinite(rgba[k]) ? (float)rgba[k] : 1.0f;
                }
            }
        }
        if (mesh->joints != NULL && m->mBones != NULL) {
            for (unsigned b = 0; b < m->mNumBones; b++) {
                const struct aiBone *bone = m->mBones[b];
                if (bone == NULL || bone->mNumWeights == 0 || bone->mWeights == NULL)
                    continue;
                uint32_t node = find_node(st, &bone->mName);
                int32_t joint =
                    node == AIMP_NONE ? -3 : bone_index(&bones, node, &bone->mOffsetMatrix);
                if (joint == -1) {
                    free(joints8);
                    free(weights8);
                    free(influences);
                    free(first_vertex);
                    free(bones.nodes);
                    free(bones.inverse_bind);
                    return out_of_memory(st);
                }
                if (joint == -2) {
                    diag_error(st->ctx->diag, st->path, 0,
                               "bone '%.*s': its offset (inverse bind) matrix is not finite",
                               (int)ai_length(&bone->mName), bone->mName.data);
                    free(joints8);
                    free(weights8);
                    free(influences);
                    free(first_vertex);
                    free(bones.nodes);
                    free(bones.inverse_bind);
                    return false;
                }
                if (bones.source < 0)
                    bones.source = (int32_t)meshes[i];
                if (joint < 0 || joint > UINT16_MAX) {
                    if (skin.unknown_bones++ == 0)
                        diag_warning(st->ctx->diag, st->path, 0,
                                     "bone '%.*s' %s; its weights are dropped",
                                     (int)ai_length(&bone->mName), bone->mName.data,
                                     joint < 0 ? "names no node" : "is joint 65536 or later");
                    continue;
                }
                for (unsigned w = 0; w < bone->mNumWeights; w++) {
                    const struct aiVertexWeight *vw = &bone->mWeights[w];
                    float weight = (float)vw->mWeight;
                    if (vw->mVertexId >= m->mNumVertices || !(weight > 0.0f) || !isfinite(weight))
                        continue;
                    size_t o = base + vw->mVertexId;
                    add_influence(joints8 + 8 * o, weights8 + 8 * o, influences + o,
                                  (uint16_t)joint, weight);
                }
            }
        }
        base += m->mNumVertices;
    }
    (void)node_index;
    bool ok = true;
    if (mesh->joints != NULL) {
        /* Largest first, renormalised; a weightless vertex stays all 0 until
         * ir_bind_weightless binds it to its skin's root joint. */
        size_t over_eight = 0;
        for (size_t v = 0; v < n; v++) {
            uint16_t *j = joints8 + 8 * v;
            float *w = weights8 + 8 * v;
            for (int a = 1; a < 8; a++) /* insertion sort, stable */
                for (int b = a; b > 0 && w[b] > w[b - 1]; b--) {
                    float tw = w[b];
                    w[b] = w[b - 1];
                    w[b - 1] = tw;
                    uint16_t tj = j[b];
                    j[b] = j[b - 1];
                    j[b - 1] = tj;
                }
            double sum = 0.0;
            for (int k = 0; k < 8; k++)
                sum += w[k];
            for (int k = 0; k < 8; k++) {
                w[k] = sum > 0.0 ? (float)(w[k] / sum) : 0.0f;
                if (w[k] == 0.0f)
                    j[k] = 0;
            }
            skin.over_four += influences[v] > 4;
            over_eight += influences[v] > 8;
        }
        if (skin.over_four > 0) {
            mesh->joints1 = calloc(n ? n : 1, 4 * sizeof(uint16_t));
            mesh->weights1 = calloc(n ? n : 1, 4 * sizeof(float));
            ok = mesh->joints1 != NULL && mesh->weights1 != NULL;
        }
        for (size_t v = 0; ok && v < n; v++) {
            memcpy(mesh->joints + 4 * v, joints8 + 8 * v, 4 * sizeof(uint16_t));
            memcpy(mesh->weights + 4 * v, weights8 + 8 * v, 4 * sizeof(float));
            if (mesh->joints1 != NULL) {
                memcpy(mesh->joints1 + 4 * v, joints8 + 8 * v + 4, 4 * sizeof(uint16_t));
                memcpy(mesh->weights1 + 4 * v, weights8 + 8 * v + 4, 4 * sizeof(float));
            }
        }
        if (over_eight > 0)
            diag_warning(st->ctx->diag, st->path, 0,
                         "mesh '%s': %zu vertices have more than 8 bone weights; the 8 largest "
                         "are kept",
                         mesh->name ? mesh->name : "", over_eight);
    }
    free(joints8);
    free(weights8);
    free(influences);
    ok = ok && attach_skin(st, st->out->mesh_count - 1, &bones);
    free(bones.nodes);
    free(bones.inverse_bind);
    if (!ok)
        return st->ctx->diag->errors > 0 ? false : out_of_memory(st);
    if (mesh->normals != NULL && !normals_ok) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': some normals are zero or not finite; normals are generated "
                     "instead",
                     mesh->name ? mesh->name : "");
        free(mesh->normals);
        mesh->normals = NULL;
    }
    if (mesh->tangents != NULL && (!tangents_ok || mesh->normals == NULL)) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': some tangents are zero or not finite; tangents are dropped",
                     mesh->name ? mesh->name : "");
        free(mesh->tangents);
        mesh->tangents = NULL;
    }
    if (!read_anim_meshes(st, meshes, count, mesh)) {
        free(first_vertex);
        return false;
    }
    if (bad_texcoords > 0 && !st->warned_texcoord) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "%zu texture coordinates are not finite numbers; set to 0", bad_texcoords);
        st->warned_texcoord = true;
    }

    /* Indices: one submesh per material and topology, materials in order of
     * first appearance; the node's aiMeshes with that material are
     * concatenated. */
    size_t index_count = 0;
    uint32_t submesh_count = 0;
    const char *kinds[KILN_TOPOLOGY_COUNT_] = {"triangles", "line segments", "points"};
    size_t dropped_of[KILN_TOPOLOGY_COUNT_] = {0, 0, 0};
    for (uint32_t i = 0; i < count; i++) {
        unsigned material = scene->mMeshes[meshes[i]]->mMaterialIndex;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = scene->mMeshes[meshes[j]]->mMaterialIndex == material;
        if (seen)
            continue;
        uint32_t slot = material_slot(st, material);
        if (slot == AIMP_NONE) {
            free(first_vertex);
            diag_error(st->ctx->diag, st->path, 0, "mesh '%s' uses material %u of %u",
                       mesh->name ? mesh->name : "", material, scene->mNumMaterials);
            return false;
        }
        for (int topology = 0; topology < KILN_TOPOLOGY_COUNT_; topology++) {
            size_t offset = index_count;
            for (uint32_t j = i; j < count; j++) {
                const struct aiMesh *m = scene->mMeshes[meshes[j]];
                if (m->mMaterialIndex != material)
                    continue;
                for (unsigned v = 0;
                     topology == KILN_TOPOLOGY_POINTS && is_point_cloud(m) && v < m->mNumVertices;
                     v++) {
                    if (finite3(&m->mVertices[v]))
                        mesh->indices[index_count++] = first_vertex[j] + v;
                    else
                        dropped_of[topology]++;
                }
                for (unsigned f = 0; f < m->mNumFaces; f++) {
                    const struct aiFace *face = &m->mFaces[f];
                    if ((int)face_topology(face->mNumIndices) != topology || face->mIndices == NULL)
                        continue;
                    bool usable = true;
                    for (unsigned c = 0; c < face->mNumIndices; c++)
                        usable &= face->mIndices[c] < m->mNumVertices &&
                                  finite3(&m->mVertices[face->mIndices[c]]);
                    if (!usable) {
                        dropped_of[topology]++;
                        continue;
                    }
                    for (unsigned c = 0; c < face->mNumIndices; c++)
                        mesh->indices[index_count++] = first_vertex[j] + face->mIndices[c];
                }
            }
            if (index_count > offset)
                mesh->submeshes[submesh_count++] =
                    (ir_submesh){.index_offset = (uint32_t)offset,
                                 .index_count = (uint32_t)(index_count - offset),
                                 .material = slot,
                                 .topology = (kiln_topology)topology};
        }
    }
    free(first_vertex);
    mesh->index_count = (uint32_t)index_count;
    mesh->submesh_count = submesh_count;
    for (int topology = 0; topology < KILN_TOPOLOGY_COUNT_; topology++) {
        if (dropped_of[topology] > 0)
            diag_warning(st->ctx->diag, st->path, 0,
                         "mesh '%s': %zu %s dropped: they use a vertex whose position is not "
                         "a finite number, or one that does not exist",
                         mesh->name ? mesh->name : "", dropped_of[topology], kinds[topology]);
    }
    /* Positions no triangle may use must still be finite (ir.h). */
    for (size_t i = 0; i < 3 * n; i++)
        if (!isfinite(mesh->positions[i]))
            mesh->positions[i] = 0.0f;
    return true;
}

/* The group (ir mesh) for a node's list of triangle aiMeshes: an existing one
 * when another node placed exactly the same list. */
static bool node_meshes(aimp_state *st, uint32_t node_index, unsigned *scratch) {
    const struct aiScene *scene = st->scene;
    const struct aiNode *node = st->nodes[node_index].node;
    if (node->mNumMeshes == 0 || node->mMeshes == NULL)
        return true;
    uint32_t count = 0;
    for (unsigned i = 0; i < node->mNumMeshes; i++) {
        unsigned index = node->mMeshes[i];
        if (index >= scene->mNumMeshes) {
            diag_error(st->ctx->diag, st->path, 0, "node '%.*s' uses mesh %u of %u",
                       (int)ai_length(&node->mName), node->mName.data, index, scene->mNumMeshes);
            return false;
        }
        const struct aiMesh *mesh = scene->mMeshes[index];
        if (!is_cooked_mesh(mesh)) {
            if (mesh != NULL && !st->mesh_used[index])
                st->skipped_meshes++;
            st->mesh_used[index] = true;
            continue;
        }
        st->mesh_used[index] = true;
        scratch[count++] = index;
    }
    if (count == 0)
        return true;

    for (uint32_t g = st->group_first[scratch[0]]; g != AIMP_NONE; g = st->group_next[g]) {
        const struct aiNode *other = st->group_node[g];
        uint32_t other_count = 0;
        bool same = true;
        for (unsigned i = 0; i < other->mNumMeshes && same; i++) {
            unsigned index = other->mMeshes[i];
            if (!is_cooked_mesh(scene->mMeshes[index]))
                continue;
            same = other_count < count && scratch[other_count] == index;
            other_count++;
        }
        if (same && other_count == count) {
            st->out->nodes[node_index].mesh =
                st->group_mesh[g] == AIMP_NONE ? -1 : (int32_t)st->group_mesh[g];
            return set_node_weights(st, node_index, scratch[0]);
        }
    }

    if (st->group_count == st->group_cap) {
        size_t cap = st->group_cap ? st->group_cap * 2 : 16;
        uint32_t *next = realloc(st->group_next, cap * sizeof *next);
        if (next != NULL)
            st->group_next = next;
        uint32_t *mesh_of = realloc(st->group_mesh, cap * sizeof *mesh_of);
        if (mesh_of != NULL)
            st->group_mesh = mesh_of;
        const struct aiNode **nodes = realloc(st->group_node, cap * sizeof *nodes);
        if (nodes != NULL)
            st->group_node = nodes;
        ir_mesh *meshes = realloc(st->out->meshes, cap * sizeof *meshes);
        if (meshes != NULL)
            st->out->meshes = meshes;
        if (next == NULL || mesh_of == NULL || nodes == NULL || meshes == NULL)
            return out_of_memory(st);
        st->group_cap = cap;
    }
    uint32_t group = st->group_count++;
    st->group_next[group] = st->group_first[scratch[0]];
    st->group_first[scratch[0]] = group;
    st->group_node[group] = node;
    st->group_mesh[group] = AIMP_NONE;

    ir_mesh *mesh = &st->out->meshes[st->out->mesh_count];
    memset(mesh, 0, sizeof *mesh);
    const struct aiString *name =
        ai_length(&node->mName) > 0 ? &node->mName : &scene->mMeshes[scratch[0]]->mName;
    if (ai_length(name) > 0) {
        mesh->name = ai_strdup(name);
    } else {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "mesh_%u", st->out->mesh_count);
        mesh->name = cook_strdup(fallback);
    }
    if (mesh->name == NULL)
        return out_of_memory(st);
    st->out->mesh_count++; /* owned by the asset from here on, even half built */
    if (!build_mesh(st, scratch, count, node_index, mesh))
        return false;
    if (mesh->index_count == 0) { /* every face dropped */
        ir_mesh_free(mesh);
        st->out->mesh_count--;
        if (st->out->mesh_count < st->mesh_skin_cap)
            st->mesh_skin[st->out->mesh_count] = -1;
        return true;
    }
    st->group_mesh[group] = st->out->mesh_count - 1;
    st->out->nodes[node_index].mesh = (int32_t)(st->out->mesh_count - 1);
    return set_node_weights(st, node_index, scratch[0]);
}

/* ---------------------------------------------------------------------------
 * Materials
 * ------------------------------------------------------------------------- */

/* The property `key` holds a number (float, double, integer or buffer):
 * assimp's numeric getters read a text property as numbers, and assimp 5.2
 * throws a C++ exception through its C API on text that is not one, which
 * ends the process. A number key holding text is ignored with a warning
 * naming it. */
static bool numeric_property(aimp_state *st, const char *name, const struct aiMaterial *material,
                             const char *key, unsigned type, unsigned index) {
    const struct aiMaterialProperty *property = NULL;
    if (aiGetMaterialProperty(material, key, type, index, &property) != aiReturn_SUCCESS ||
        property == NULL || property->mData == NULL || property->mDataLength == 0)
        return false;
    if (property->mType == aiPTI_String) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "material '%s': %s holds text where a number is expected; ignored", name, key);
        return false;
    }
    return true;
}

static bool get_float(aimp_state *st, const char *name, const struct aiMaterial *material,
                      const char *key, unsigned type, unsigned index, double *out) {
    ai_real value[4];
    unsigned count = 1;
    if (!numeric_property(st, name, material, key, type, index) ||
        aiGetMaterialFloatArray(material, key, type, index, value, &count) != aiReturn_SUCCESS ||
        count < 1 || !isfinite(value[0]))
        return false;
    *out = value[0];
    return true;
}

/* An RGB or RGBA colour (alpha 1 when three values): fewer values are no
 * colour (aiGetMaterialColor would leave the rest unset). */
static bool get_color(aimp_state *st, const char *name, const struct aiMaterial *material,
                      const char *key, unsigned type, unsigned index, double rgba[4]) {
    ai_real color[4] = {0, 0, 0, 1};
    unsigned count = 4;
    if (!numeric_property(st, name, material, key, type, index) ||
        aiGetMaterialFloatArray(material, key, type, index, color, &count) != aiReturn_SUCCESS ||
        count < 3)
        return false;
    for (int k = 0; k < 4; k++)
        rgba[k] = k < (int)count ? color[k] : 1.0;
    return isfinite(rgba[0]) && isfinite(rgba[1]) && isfinite(rgba[2]) && isfinite(rgba[3]);
}

/* An integer: a one-byte bool or 32-bit values (assimp reads four bytes of
 * any other length), a float, or a double (which assimp's integer getter
 * would read as text: read as a number here). */
static bool get_int(aimp_state *st, const char *name, const struct aiMaterial *material,
                    const char *key, unsigned type, unsigned index, int *out) {
    const struct aiMaterialProperty *property = NULL;
    if (!numeric_property(st, name, material, key, type, index) ||
        aiGetMaterialProperty(material, key, type, index, &property) != aiReturn_SUCCESS)
        return false;
    if (property->mType == aiPTI_Double || property->mType == aiPTI_Float) {
        double value;
        if (!get_float(st, name, material, key, type, index, &value) ||
            !(value >= INT_MIN && value <= INT_MAX))
            return false;
        *out = (int)value;
        return true;
    }
    unsigned count = 1;
    if (property->mDataLength != 1 && property->mDataLength < 4)
        return false;
    return aiGetMaterialIntegerArray(material, key, type, index, out, &count) == aiReturn_SUCCESS &&
           count >= 1;
}

static const char *base_name(const char *path) {
    const char *name = path;
    for (const char *p = path; *p != '\0'; p++)
        if (*p == '/' || *p == '\\')
            name = p + 1;
    return name;
}

static bool is_absolute(const char *path) {
    return path[0] == '/' || path[0] == '\\' || (path[0] != '\0' && path[1] == ':');
}

/* The index of the texture the scene embeds as "*N" or under this file name,
 * or -1. */
static int64_t embedded_index(const struct aiScene *scene, const char *path) {
    if (path[0] == '*') {
        char *end = NULL;
        unsigned long index = strtoul(path + 1, &end, 10);
        return end != path + 1 && *end == '\0' && index < scene->mNumTextures &&
                       scene->mTextures != NULL
                   ? (int64_t)index
                   : -1;
    }
    for (unsigned i = 0; scene->mTextures != NULL && i < scene->mNumTextures; i++) {
        const struct aiTexture *texture = scene->mTextures[i];
        if (texture == NULL || ai_length(&texture->mFilename) == 0)
            continue;
        char *name = ai_strdup(&texture->mFilename);
        bool same = name != NULL &&
                    (strcmp(name, path) == 0 || strcmp(base_name(name), base_name(path)) == 0);
        free(name);
        if (same)
            return i;
    }
    return -1;
}

/* The IR image of embedded texture `index` (an encoded file, mHeight 0),
 * added once; -1 when it holds raw texels kiln does not read (or out of
 * memory, with *oom set). */
static int32_t embedded_image(aimp_state *st, unsigned index, bool *oom) {
    const struct aiTexture *texture = st->scene->mTextures[index];
    *oom = false;
    if (texture == NULL || texture->mHeight != 0 || texture->pcData == NULL || texture->mWidth == 0)
        return -1;
    char name[512];
    snprintf(name, sizeof name, "%s embedded texture %u", st->path, index);
    for (uint32_t i = 0; i < st->out->image_count; i++)
        if (st->out->images[i].path == NULL && strcmp(st->out->images[i].name, name) == 0)
            return (int32_t)i;
    uint8_t *bytes = malloc(texture->mWidth);
    if (bytes == NULL) {
        *oom = true;
        return -1;
    }
    memcpy(bytes, texture->pcData, texture->mWidth);
    int32_t image =
        ir_image_add_bytes(&st->out->images, &st->out->image_count, name, bytes, texture->mWidth);
    /* The file name the exporter kept (FBX does) names the cooked texture. */
    if (image >= 0 && texture->mFilename.length > 0) {
        st->out->images[image].label = cook_strdup(texture->mFilename.data);
        if (st->out->images[image].label == NULL)
            image = -1;
    }
    *oom = image < 0;
    return image;
}

/* The file of texture 0 of `type` ($tex.file). Not aiGetMaterialTexture:
 * that one also reads $tex.mapping with assimp's integer getter, which writes
 * every value the property holds into one int. */
static bool texture_file(const struct aiMaterial *material, enum aiTextureType type,
                         struct aiString *path) {
    return aiGetMaterialString(material, _AI_MATKEY_TEXTURE_BASE, type, 0, path) ==
           aiReturn_SUCCESS;
}

/* Resolves texture `index` 0 of `type` into `ref`. Returns false only when
 * out of memory; a texture that cannot be used is a warning. */
static bool resolve_texture(aimp_state *st, const struct aiMaterial *material,
                            enum aiTextureType type, const char *material_name,
                            ir_texture_ref *ref) {
    struct aiString raw;
    if (!texture_file(material, type, &raw))
        return true;
    /* As aiGetMaterialTexture reads them, but through get_int: assimp's
     * getter writes every value of these keys into one int. */
    int mapping = aiTextureMapping_UV, uv_source = 0;
    get_int(st, material_name, material, _AI_MATKEY_MAPPING_BASE, type, 0, &mapping);
    if (mapping == aiTextureMapping_UV)
        get_int(st, material_name, material, _AI_MATKEY_UVWSRC_BASE, type, 0, &uv_source);
    unsigned uv = (unsigned)uv_source;
    char *path = ai_strdup(&raw);
    if (path == NULL)
        return out_of_memory(st);
    if (path[0] == '\0') {
        free(path);
        return true;
    }
    char reason[512];
    char *resolved = NULL;
    bool embedded = path[0] == '*';
    bool found =
        !embedded && cook_resolve_dependency(st->ctx, path, &resolved, reason, sizeof reason);
    if (!embedded && !found && is_absolute(path)) {
        /* DCC tools write absolute paths of the artist's machine: the file
         * next to the source is the one meant. */
        char ignored[512];
        found =
            base_name(path)[0] != '\0' &&
            cook_resolve_dependency(st->ctx, base_name(path), &resolved, ignored, sizeof ignored);
    }
    if (!embedded && !found)
        embedded = embedded_index(st->scene, path) >= 0;
    int64_t embedded_at = embedded ? embedded_index(st->scene, path) : -1;
    bool oom = false;
    int32_t embedded_ir = embedded_at >= 0 ? embedded_image(st, (unsigned)embedded_at, &oom) : -1;
    if (oom) {
        free(path);
        return out_of_memory(st);
    }
    if (embedded && embedded_ir >= 0) {
        ref->image = embedded_ir;
        ref->texcoord = uv <= 1 ? uv : 0;
    } else if (embedded) {
        if (!st->warned_embedded)
            diag_warning(st->ctx->diag, st->path, 0,
                         "material '%s' uses a texture embedded in the file ('%s') as raw "
                         "texels, which kiln does not read; the slot gets no texture",
                         material_name, path);
        st->warned_embedded = true;
    } else if (!found) {
        if (st->textures_reported++ < AIMP_MAX_NOTES)
            diag_warning(st->ctx->diag, st->path, 0,
                         "texture '%s' of material '%s' cannot be used: %s", path, material_name,
                         reason);
    } else {
        int32_t image =
            ir_image_add_file(&st->out->images, &st->out->image_count, resolved, resolved);
        free(resolved);
        resolved = NULL;
        if (image < 0) {
            free(path);
            return out_of_memory(st);
        }
        ref->image = image;
        ref->texcoord = uv <= 1 ? uv : 0;
        if (uv > 1)
            diag_warning(st->ctx->diag, st->path, 0,
                         "texture '%s' of material '%s' uses UV set %u; only 0 and 1 are "
                         "cooked, 0 is used",
                         path, material_name, uv);
    }
    free(path);
    return true;
}

/* The first of `types` the material has, or aiTextureType_NONE. */
static enum aiTextureType first_texture(const struct aiMaterial *material,
                                        const enum aiTextureType *types, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (aiGetMaterialTextureCount(material, types[i]) > 0)
            return types[i];
    return aiTextureType_NONE;
}

static bool same_texture(const struct aiMaterial *material, enum aiTextureType a,
                         enum aiTextureType b) {
    struct aiString pa, pb;
    if (!texture_file(material, a, &pa) || !texture_file(material, b, &pb))
        return false;
    size_t la = ai_length(&pa), lb = ai_length(&pb);
    return la == lb && memcmp(pa.data, pb.data, la) == 0;
}

static bool convert_material(aimp_state *st, unsigned index, ir_material *m) {
    const struct aiMaterial *material = st->scene->mMaterials[index];
    ir_material_init(m);
    struct aiString name;
    if (material != NULL &&
        aiGetMaterialString(material, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS &&
        ai_length(&name) > 0) {
        m->name = ai_strdup(&name);
    } else {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "material_%u", index);
        m->name = cook_strdup(fallback);
    }
    if (m->name == NULL)
        return out_of_memory(st);
    import_phong phong;
    memset(&phong, 0, sizeof phong);
    if (material == NULL) {
        import_phong_to_pbr(&phong, m);
        return true;
    }

    static const enum aiTextureType base_types[] = {aiTextureType_BASE_COLOR,
                                                    aiTextureType_DIFFUSE};
    static const enum aiTextureType normal_types[] = {
        aiTextureType_NORMALS, aiTextureType_NORMAL_CAMERA, aiTextureType_HEIGHT};
    static const enum aiTextureType emissive_types[] = {aiTextureType_EMISSIVE,
                                                        aiTextureType_EMISSION_COLOR};
    static const enum aiTextureType occlusion_types[] = {aiTextureType_AMBIENT_OCCLUSION,
                                                         aiTextureType_LIGHTMAP};
    static const enum aiTextureType mr_types[] = {aiTextureType_DIFFUSE_ROUGHNESS,
                                                  aiTextureType_METALNESS};
    static const enum aiTextureType alpha_types[] = {aiTextureType_OPACITY};
    static const struct {
        ir_texture_slot slot;
        const enum aiTextureType *types;
        size_t count;
    } slots[] = {
        {IR_SLOT_BASE_COLOR, base_types, 2},       {IR_SLOT_NORMAL, normal_types, 3},
        {IR_SLOT_EMISSIVE, emissive_types, 2},     {IR_SLOT_OCCLUSION, occlusion_types, 2},
        {IR_SLOT_METALLIC_ROUGHNESS, mr_types, 2}, {IR_SLOT_ALPHA, alpha_types, 1},
    };
    enum aiTextureType used[IR_SLOT_COUNT];
    for (size_t s = 0; s < sizeof slots / sizeof slots[0]; s++) {
        enum aiTextureType type = first_texture(material, slots[s].types, slots[s].count);
        used[slots[s].slot] = type;
        if (type != aiTextureType_NONE &&
            !resolve_texture(st, material, type, m->name, &m->textures[slots[s].slot]))
            return false;
    }
    if (m->textures[IR_SLOT_METALLIC_ROUGHNESS].image >= 0) {
        enum aiTextureType mr = used[IR_SLOT_METALLIC_ROUGHNESS];
        bool both =
            mr == aiTextureType_DIFFUSE_ROUGHNESS &&
            same_texture(material, aiTextureType_DIFFUSE_ROUGHNESS, aiTextureType_METALNESS);
        phong.map_roughness = mr == aiTextureType_DIFFUSE_ROUGHNESS;
        phong.map_metallic = mr == aiTextureType_METALNESS || both;
    }

    double rgba[4], value;
    if (get_color(st, m->name, material, AI_MATKEY_BASE_COLOR, rgba)) {
        memcpy(phong.diffuse, rgba, sizeof phong.diffuse);
        phong.has_diffuse = true;
        if (rgba[3] < 1.0) {
            phong.opacity = rgba[3];
            phong.has_opacity = true;
        }
    } else if (get_color(st, m->name, material, AI_MATKEY_COLOR_DIFFUSE, rgba)) {
        memcpy(phong.diffuse, rgba, sizeof phong.diffuse);
        phong.has_diffuse = true;
    }
    if (get_float(st, m->name, material, AI_MATKEY_OPACITY, &value)) {
        phong.opacity = value;
        phong.has_opacity = true;
    }
    if (get_color(st, m->name, material, AI_MATKEY_COLOR_EMISSIVE, rgba)) {
        double intensity = 1.0;
        get_float(st, m->name, material, AI_MATKEY_EMISSIVE_INTENSITY, &intensity);
        for (int k = 0; k < 3; k++)
            phong.emissive[k] = rgba[k] * intensity;
        phong.has_emissive = true;
    }
    double strength = 1.0;
    get_float(st, m->name, material, AI_MATKEY_SHININESS_STRENGTH, &strength);
    int shading = 0;
    if (!get_int(st, m->name, material, AI_MATKEY_SHADING_MODEL, &shading))
        shading = 0;
    bool diffuse_only = shading == aiShadingMode_Flat || shading == aiShadingMode_Gouraud ||
                        shading == aiShadingMode_NoShading || shading == aiShadingMode_OrenNayar ||
                        shading == aiShadingMode_Minnaert;
    if (strength != 0.0 && !diffuse_only &&
        get_float(st, m->name, material, AI_MATKEY_SHININESS, &value)) {
        phong.shininess = value;
        phong.has_shininess = true;
    }
    if (get_float(st, m->name, material, AI_MATKEY_ROUGHNESS_FACTOR, &value)) {
        phong.roughness = value;
        phong.has_roughness = true;
    } else if (get_float(st, m->name, material, AI_MATKEY_GLOSSINESS_FACTOR, &value)) {
        phong.roughness = 1.0 - value;
        phong.has_roughness = true;
    }
    if (get_float(st, m->name, material, AI_MATKEY_METALLIC_FACTOR, &value)) {
        phong.metallic = value;
        phong.has_metallic = true;
    }
    import_phong_to_pbr(&phong, m);

    struct aiString mode;
    if (aiGetMaterialString(material, "$mat.gltf.alphaMode", 0, 0, &mode) == aiReturn_SUCCESS) {
        size_t length = ai_length(&mode);
        if (length == 6 && memcmp(mode.data, "OPAQUE", 6) == 0)
            m->alpha_mode = IR_ALPHA_OPAQUE;
        else if (length == 4 && memcmp(mode.data, "MASK", 4) == 0)
            m->alpha_mode = IR_ALPHA_MASK;
        else if (length == 5 && memcmp(mode.data, "BLEND", 5) == 0)
            m->alpha_mode = IR_ALPHA_BLEND;
    }
    if (get_float(st, m->name, material, "$mat.gltf.alphaCutoff", 0, 0, &value))
        m->alpha_cutoff = (float)value;
    if (get_float(st, m->name, material, AI_MATKEY_BUMPSCALING, &value))
        m->normal_scale = (float)value;
    if (used[IR_SLOT_NORMAL] != aiTextureType_NONE &&
        get_float(st, m->name, material, "$tex.scale", used[IR_SLOT_NORMAL], 0, &value))
        m->normal_scale = (float)value;
    if (used[IR_SLOT_OCCLUSION] != aiTextureType_NONE &&
        get_float(st, m->name, material, "$tex.strength", used[IR_SLOT_OCCLUSION], 0, &value))
        m->occlusion_strength = (float)value;
    int two_sided = 0;
    if (get_int(st, m->name, material, AI_MATKEY_TWOSIDED, &two_sided))
        m->double_sided = two_sided != 0;
    return true;
}

static bool build_materials(aimp_state *st) {
    if (st->used_count == 0)
        return true;
    ir_asset *out = st->out;
    out->materials = calloc(st->used_count, sizeof *out->materials);
    if (out->materials == NULL)
        return out_of_memory(st);
    for (uint32_t s = 0; s < st->used_count; s++) {
        out->material_count = s + 1; /* freed with the asset even if half built */
        if (!convert_material(st, st->used_materials[s], &out->materials[s]))
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * The scene
 * ------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------
 * Cameras and lights
 * ------------------------------------------------------------------------- */

static double length3(const double v[3]) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static void cross3(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The rotation taking -Z to `forward` and +Y towards `up` (any up when it is
 * zero or parallel to forward), as a unit quaternion; false when forward is
 * zero or not finite (then the identity). */
static bool frame_rotation(const struct aiVector3D *forward, const struct aiVector3D *up,
                           double q[4]) {
    q[0] = q[1] = q[2] = 0.0;
    q[3] = 1.0;
    double f[3] = {forward->x, forward->y, forward->z}, u[3] = {up->x, up->y, up->z};
    double fl = length3(f);
    if (!(fl > 1e-12) || !isfinite(fl))
        return false;
    double z[3] = {-f[0] / fl, -f[1] / fl, -f[2] / fl}, x[3], y[3];
    cross3(u, z, x);
    double xl = length3(x);
    if (!(xl > 1e-9 * (length3(u) + 1.0)) || !isfinite(xl)) {
        /* No usable up: any axis not parallel to z. */
        double axis[3] = {0.0, 1.0, 0.0};
        if (fabs(z[1]) > 0.9) {
            axis[1] = 0.0;
            axis[2] = -1.0;
        }
        cross3(axis, z, x);
        xl = length3(x);
    }
    for (int k = 0; k < 3; k++)
        x[k] /= xl;
    cross3(z, x, y);
    const double r[9] = {x[0], x[1], x[2], y[0], y[1], y[2], z[0], z[1], z[2]};
    quaternion_from_matrix(r, q);
    return true;
}

/* Where camera or light `name` goes: the node of its name, or a new child of
 * it carrying `position` and rotation `q` when those are not the identity.
 * AIMP_NONE (with a warning) when no node has the name. */
static uint32_t frame_node(aimp_state *st, const struct aiString *name, const char *what,
                           const struct aiVector3D *position, const double q[4], bool *oom) {
    *oom = false;
    uint32_t node = find_node(st, name);
    if (node == AIMP_NONE) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s '%.*s' is on no node of that name; kept in the scene's table but placed "
                     "by no node",
                     what, (int)ai_length(name), name->data);
        return AIMP_NONE;
    }
    const double p[3] = {position->x, position->y, position->z};
    bool finite = isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
    bool moved = finite && (p[0] != 0.0 || p[1] != 0.0 || p[2] != 0.0);
    bool turned = fabs(q[3]) < 1.0 - 1e-7;
    if (!moved && !turned)
        return node;
    ir_asset *out = st->out;
    ir_node *nodes = realloc(out->nodes, ((size_t)out->node_count + 1) * sizeof *nodes);
    if (nodes == NULL) {
        *oom = true;
        return AIMP_NONE;
    }
    out->nodes = nodes;
    ir_node *child = &nodes[out->node_count];
    ir_node_init(child);
    size_t length = ai_length(name);
    child->name = malloc(length + sizeof "_frame");
    if (child->name == NULL) {
        *oom = true;
        return AIMP_NONE;
    }
    memcpy(child->name, name->data, length);
    memcpy(child->name + length, "_frame", sizeof "_frame");
    child->parent = (int32_t)node;
    for (int k = 0; k < 3; k++)
        child->translation[k] = moved ? (float)p[k] : 0.0f;
    for (int k = 0; k < 4; k++)
        child->rotation[k] = (float)q[k];
    kiln_scene_transform t;
    memcpy(t.translation, child->translation, sizeof t.translation);
    memcpy(t.rotation, child->rotation, sizeof t.rotation);
    t.scale[0] = t.scale[1] = t.scale[2] = 1.0f;
    kiln_scene_compose(&t, child->matrix);
    return out->node_count++;
}

/* Puts camera (or light) `index` on the node named `name`, through
 * frame_node. False only on out-of-memory. */
static bool place_object(aimp_state *st, const struct aiString *name, bool camera,
                         const struct aiVector3D *position, const double q[4], uint32_t index,
                         const char *label) {
    const char *what = camera ? "camera" : "light";
    bool oom;
    uint32_t node = frame_node(st, name, what, position, q, &oom);
    if (oom)
        return out_of_memory(st);
    if (node != AIMP_NONE) {
        ir_node *n = &st->out->nodes[node];
        int32_t *slot = camera ? &n->camera : &n->light;
        if (*slot >= 0)
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: its node already has a %s; this one is placed by no node", label,
                         what);
        else
            *slot = (int32_t)index;
    }
    return true;
}

static bool convert_camera(aimp_state *st, const struct aiCamera *cam, uint32_t index) {
    ir_camera *c = &st->out->cameras[index];
    size_t length = ai_length(&cam->mName);
    char label[64];
    snprintf(label, sizeof label, "camera '%.*s'", (int)(length < 40 ? length : 40),
             cam->mName.data);
    c->name = length > 0 ? ai_strdup(&cam->mName) : malloc(32);
    if (c->name == NULL)
        return out_of_memory(st);
    if (length == 0)
        snprintf(c->name, 32, "camera_%u", index);
    double aspect = isfinite(cam->mAspect) && cam->mAspect > 0 ? cam->mAspect : 0.0;
    double znear = cam->mClipPlaneNear, zfar = cam->mClipPlaneFar;
    if (isfinite(cam->mOrthographicWidth) && cam->mOrthographicWidth > 0) {
        c->type = IR_CAMERA_ORTHOGRAPHIC;
        c->xmag = cam->mOrthographicWidth;
        c->ymag = (float)(aspect > 0 ? cam->mOrthographicWidth / aspect : cam->mOrthographicWidth);
        if (!(isfinite(znear) && znear >= 0)) {
            diag_warning(st->ctx->diag, st->path, 0, "%s: near plane %g replaced by 0", label,
                         znear);
            znear = 0;
        }
        if (!(isfinite(zfar) && (float)zfar > (float)znear)) {
            float near_plane = (float)znear, far_plane = (float)(znear + 1000.0);
            if (!(far_plane > near_plane) || !isfinite(far_plane)) {
                /* A near plane so far that 1000 more rounds to it (or past
                 * FLT_MAX): the next float after it. */
                if (near_plane == FLT_MAX)
                    near_plane = nextafterf(FLT_MAX, 0.0f);
                far_plane = nextafterf(near_plane, INFINITY);
                znear = near_plane;
            }
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: far plane %g is not beyond the near plane; %g used", label, zfar,
                         (double)far_plane);
            zfar = far_plane;
        }
        if (!(c->ymag != 0.0f) || !isfinite(c->ymag))
            c->ymag = c->xmag;
    } else {
        c->type = IR_CAMERA_PERSPECTIVE;
        double half = 0.5 * cam->mHorizontalFOV;
        if (!(isfinite(half) && half > 0 && half < 1.5707963)) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: horizontal field of view %g is out of range; 90 degrees used", label,
                         (double)cam->mHorizontalFOV);
            half = 0.78539816339744831;
        }
        if (aspect > 0) {
            c->yfov = (float)(2.0 * atan(tan(half) / aspect));
            if (!(c->yfov > 0.0f)) { /* a huge aspect: below the smallest float */
                diag_warning(st->ctx->diag, st->path, 0,
                             "%s: aspect ratio %g leaves no vertical field of view; the "
                             "smallest one used",
                             label, aspect);
                c->yfov = FLT_MIN;
            }
        } else {
            c->yfov = (float)(2.0 * half);
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s has no aspect ratio: its horizontal field of view is used as the "
                         "vertical one",
                         label);
        }
        c->aspect = (float)aspect;
        if (!(isfinite(znear) && (float)znear > 0.0f)) {
            diag_warning(st->ctx->diag, st->path, 0, "%s: near plane %g replaced by 0.01", label,
                         znear);
            znear = 0.01;
        }
        if (!(isfinite(zfar) && (float)zfar > (float)znear)) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: far plane %g is not beyond the near plane; infinite used", label,
                         zfar);
            zfar = 0.0;
        }
    }
    c->znear = (float)znear;
    c->zfar = (float)zfar;
    double q[4];
    if (!frame_rotation(&cam->mLookAt, &cam->mUp, q))
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s looks nowhere (lookAt is zero); the node's -Z is used", label);
    return place_object(st, &cam->mName, true, &cam->mPosition, q, index, label);
}

/* Returns false only on out-of-memory; an unmapped light is skipped (*kept
 * false). */
static bool convert_light(aimp_state *st, const struct aiLight *src, uint32_t index, bool *kept) {
    *kept = false;
    size_t length = ai_length(&src->mName);
    char label[64];
    snprintf(label, sizeof label, "light '%.*s'", (int)(length < 40 ? length : 40),
             src->mName.data);
    ir_light *l = &st->out->lights[index];
    switch (src->mType) {
    case aiLightSource_DIRECTIONAL:
        l->type = IR_LIGHT_DIRECTIONAL;
        break;
    case aiLightSource_POINT:
        l->type = IR_LIGHT_POINT;
        break;
    case aiLightSource_SPOT:
        l->type = IR_LIGHT_SPOT;
        break;
    default:
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s: %s lights are not cooked (KHR_lights_punctual has directional, point "
                     "and spot lights)",
                     label,
                     src->mType == aiLightSource_AMBIENT ? "ambient"
                     : src->mType == aiLightSource_AREA  ? "area"
                                                         : "undefined");
        return true;
    }
    const double rgb[3] = {src->mColorDiffuse.r, src->mColorDiffuse.g, src->mColorDiffuse.b};
    double intensity = 0;
    for (int k = 0; k < 3; k++)
        if (isfinite(rgb[k]) && rgb[k] > intensity)
            intensity = rgb[k];
    for (int k = 0; k < 3; k++)
        l->color[k] =
            intensity > 0 && isfinite(rgb[k]) && rgb[k] > 0 ? (float)(rgb[k] / intensity) : 0.0f;
    if (intensity == 0)
        l->color[0] = l->color[1] = l->color[2] = 1.0f;
    l->intensity = (float)(intensity < FLT_MAX ? intensity : FLT_MAX);
    const struct aiColor3D *spec = &src->mColorSpecular, *amb = &src->mColorAmbient;
    if ((spec->r != 0 || spec->g != 0 || spec->b != 0) &&
        (spec->r != src->mColorDiffuse.r || spec->g != src->mColorDiffuse.g ||
         spec->b != src->mColorDiffuse.b))
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s: its specular colour (%g %g %g) differs from the diffuse one; not cooked "
                     "(one colour per light)",
                     label, (double)spec->r, (double)spec->g, (double)spec->b);
    if (amb->r != 0 || amb->g != 0 || amb->b != 0)
        diag_warning(st->ctx->diag, st->path, 0, "%s: its ambient colour (%g %g %g) is not cooked",
                     label, (double)amb->r, (double)amb->g, (double)amb->b);
    if (l->type != IR_LIGHT_DIRECTIONAL &&
        (src->mAttenuationConstant != 0 || src->mAttenuationLinear != 0 ||
         src->mAttenuationQuadratic != 1))
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s: attenuation constants (constant %g, linear %g, quadratic %g) are not "
                     "cooked; KHR_lights_punctual lights fall off with the inverse square",
                     label, (double)src->mAttenuationConstant, (double)src->mAttenuationLinear,
                     (double)src->mAttenuationQuadratic);
    if (l->type == IR_LIGHT_SPOT) {
        double outer = src->mAngleOuterCone, inner = src->mAngleInnerCone;
        if (!(isfinite(outer) && outer > 0))
            outer = 0.78539816339744831;
        if (outer > 1.5707963267948966) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: outer cone angle %g is wider than pi/2; pi/2 used", label, outer);
            outer = 1.5707963267948966;
        }
        if (!(isfinite(inner) && inner >= 0))
            inner = 0;
        l->outer_cone = (float)outer;
        l->inner_cone = (float)inner < l->outer_cone ? (float)inner : nextafterf(l->outer_cone, 0);
    }
    l->name = length > 0 ? ai_strdup(&src->mName) : malloc(32);
    if (l->name == NULL)
        return out_of_memory(st);
    if (length == 0)
        snprintf(l->name, 32, "light_%u", index);
    *kept = true;
    double q[4] = {0, 0, 0, 1};
    if (l->type != IR_LIGHT_POINT && !frame_rotation(&src->mDirection, &src->mUp, q))
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s shines nowhere (direction is zero); the node's -Z is used", label);
    return place_object(st, &src->mName, false, &src->mPosition, q, index, label);
}

/* After the nodes: aiCameras and aiLights (see the header comment). New
 * "_frame" nodes are appended, after their parents. */
static bool build_cameras_lights(aimp_state *st) {
    const struct aiScene *scene = st->scene;
    ir_asset *out = st->out;
    unsigned cameras = scene->mCameras != NULL ? scene->mNumCameras : 0;
    unsigned lights = scene->mLights != NULL ? scene->mNumLights : 0;
    if (cameras > AIMP_MAX_NODES || lights > AIMP_MAX_NODES) {
        diag_error(st->ctx->diag, st->path, 0, "%u cameras and %u lights: too many", cameras,
                   lights);
        return false;
    }
    if (cameras > 0) {
        out->cameras = calloc(cameras, sizeof *out->cameras);
        if (out->cameras == NULL)
            return out_of_memory(st);
    }
    for (unsigned i = 0; i < cameras; i++) {
        if (scene->mCameras[i] == NULL)
            continue;
        out->camera_count = i + 1; /* so ir_asset_free frees the names so far */
        if (!convert_camera(st, scene->mCameras[i], i))
            return false;
    }
    out->camera_count = cameras;
    for (unsigned i = 0; i < cameras; i++) { /* a NULL entry: a plain default camera */
        if (scene->mCameras[i] != NULL)
            continue;
        out->cameras[i] = (ir_camera){.yfov = 1.5707964f, .znear = 0.1f, .zfar = 1000.0f};
        out->cameras[i].name = malloc(32);
        if (out->cameras[i].name == NULL)
            return out_of_memory(st);
        snprintf(out->cameras[i].name, 32, "camera_%u", i);
    }
    if (lights > 0) {
        out->lights = calloc(lights, sizeof *out->lights);
        if (out->lights == NULL)
            return out_of_memory(st);
    }
    uint32_t kept_count = 0;
    for (unsigned i = 0; i < lights; i++) {
        bool kept = false;
        out->light_count = kept_count + 1;
        if (scene->mLights[i] != NULL && !convert_light(st, scene->mLights[i], kept_count, &kept))
            return false;
        if (kept) {
            kept_count++;
        } else {
            free(out->lights[kept_count].name);
            memset(&out->lights[kept_count], 0, sizeof out->lights[kept_count]);
        }
        out->light_count = kept_count;
    }
    if (kept_count == 0) {
        free(out->lights);
        out->lights = NULL;
    }
    return true;
}

static bool convert_scene(aimp_state *st) {
    const struct aiScene *scene = st->scene;
    if (scene->mRootNode == NULL) {
        diag_error(st->ctx->diag, st->path, 0, "assimp could not read this file: no root node");
        return false;
    }
    if (scene->mNumMeshes > 0 && scene->mMeshes == NULL) {
        diag_error(st->ctx->diag, st->path, 0, "assimp could not read this file: no mesh array");
        return false;
    }
    if (scene->mNumMaterials > 0 && scene->mMaterials == NULL) {
        diag_error(st->ctx->diag, st->path, 0,
                   "assimp could not read this file: no material array");
        return false;
    }
    if (!collect_nodes(st) || !build_nodes(st))
        return false;
    if (!build_name_table(st))
        return out_of_memory(st);
    size_t meshes = scene->mNumMeshes, materials = scene->mNumMaterials;
    st->slot_of_material = alloc_array(materials, sizeof(uint32_t));
    st->used_materials = alloc_array(materials, sizeof(uint32_t));
    st->group_first = alloc_array(meshes, sizeof(uint32_t));
    st->mesh_used = calloc(meshes ? meshes : 1, sizeof(bool));
    uint32_t max_per_node = 0;
    for (uint32_t i = 0; i < st->node_count; i++)
        if (st->nodes[i].node->mNumMeshes > max_per_node)
            max_per_node = st->nodes[i].node->mNumMeshes;
    unsigned *scratch = alloc_array(max_per_node, sizeof(unsigned));
    if (st->slot_of_material == NULL || st->used_materials == NULL || st->group_first == NULL ||
        st->mesh_used == NULL || scratch == NULL) {
        free(scratch);
        return out_of_memory(st);
    }
    for (size_t i = 0; i < materials; i++)
        st->slot_of_material[i] = AIMP_NONE;
    for (size_t i = 0; i < meshes; i++)
        st->group_first[i] = AIMP_NONE;

    bool ok = true;
    for (uint32_t i = 0; ok && i < st->node_count; i++)
        ok = node_meshes(st, i, scratch);
    free(scratch);
    if (!ok)
        return false;
    for (uint32_t i = 0; i < st->out->node_count; i++) { /* nodes name their mesh's skin */
        ir_node *node = &st->out->nodes[i];
        if (node->mesh >= 0 && (size_t)node->mesh < st->mesh_skin_cap)
            node->skin = st->mesh_skin[node->mesh];
    }
    ir_bind_weightless(st->out);

    uint32_t unplaced = 0;
    for (size_t i = 0; i < meshes; i++)
        unplaced += !st->mesh_used[i] && is_cooked_mesh(scene->mMeshes[i]);
    for (size_t i = 0; i < meshes; i++)
        if (!st->mesh_used[i] && scene->mMeshes[i] != NULL && !is_cooked_mesh(scene->mMeshes[i]))
            st->skipped_meshes++;
    if (unplaced > 0)
        diag_warning(st->ctx->diag, st->path, 0, "%u mesh%s not placed by any node; not cooked",
                     unplaced, unplaced == 1 ? " is" : "es are");
    if (st->skipped_meshes > 0)
        diag_warning(st->ctx->diag, st->path, 0,
                     "%u mesh%s without vertices, or without triangles, lines or points, not "
                     "cooked",
                     st->skipped_meshes, st->skipped_meshes == 1 ? "" : "es");
    else if (meshes == 0)
        diag_warning(st->ctx->diag, st->path, 0, "nothing to cook: the scene has no meshes");
    return build_cameras_lights(st) && build_materials(st) &&
           import_assimp_animations(st->ctx, st->path, scene, st->out);
}

static void state_free(aimp_state *st) {
    free(st->nodes);
    free(st->names);
    free(st->slot_of_material);
    free(st->used_materials);
    free(st->group_first);
    free(st->group_next);
    free(st->group_mesh);
    free(st->group_node);
    free(st->mesh_used);
    free(st->mesh_skin);
}

bool assimp_convert_scene(cook_context *ctx, const struct aiScene *scene, ir_asset *out) {
    memset(out, 0, sizeof *out);
    aimp_state st = {.ctx = ctx, .path = ctx->source_path, .scene = scene, .out = out};
    bool ok = convert_scene(&st);
    state_free(&st);
    if (!ok)
        ir_asset_free(out);
    return ok;
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
    aimp_io io = {.ctx = ctx, .main_name = base_name(path)};
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
