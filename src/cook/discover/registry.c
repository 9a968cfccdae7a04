/*
 * registry.c — which importer cooks which source file.
 *
 * The registry is a static table, one row per importer, in priority order: the
 * first row with a pattern matching a file's name wins. Adding a format is one
 * row here plus its import_* function.
 */
#include <stddef.h>
#include <string.h>

#include "cook/cook.h"

static const char *const obj_patterns[] = {"*.obj", NULL};
static const char *const gltf_patterns[] = {"*.gltf", "*.glb", NULL};
/* What assimp 5.2 reads that kiln does not import itself: model and scene
 * formats only. Left out: obj/gltf/glb (kiln's own importers); generic
 * extensions (.xml, .raw, .mesh, .scn, .3d, .uc, .prj); animation-only files
 * (.bvh, .csm, .md5anim, .md5camera, .mot, .vta); CAD/BIM interchange (.dxf,
 * .ifc, .ifczip, .step, .stp); archives and levels (.pk3, .bsp); .assbin. */
static const char *const assimp_patterns[] = {
    "*.fbx",  "*.dae", "*.zae",  "*.3ds",      "*.blend", "*.x",    "*.ply",  "*.stl",
    "*.off",  "*.lwo", "*.lxo",  "*.lws",      "*.ase",   "*.ms3d", "*.md2",  "*.md3",
    "*.mdc",  "*.mdl", "*.smd",  "*.md5mesh",  "*.ac",    "*.acc",  "*.ac3d", "*.3mf",
    "*.amf",  "*.x3d", "*.x3db", "*.irrmesh",  "*.irr",   "*.cob",  "*.q3o",  "*.q3s",
    "*.ter",  "*.hmp", "*.ogex", "*.mesh.xml", "*.b3d",   "*.xgl",  "*.zgl",  "*.nff",
    "*.enff", "*.sib", "*.ndo",  "*.pmx",      "*.iqm",   NULL};

/* Standalone textures (texture.c): usage by naming convention, see
 * cook_texture_usage_for_path. A model's own images are cooked through the
 * model instead (the build skips files a model depends on). */
static const char *const texture_patterns[] = {"*.png", "*.jpg", "*.jpeg",     "*.tga",
                                               "*.bmp", "*.hdr", "*.lut.cube", NULL};

/* Cubemap folders (texture_cubemap.c). The walker lists such a folder as one
 * entry (discover_walk_sources); a regular file of that name is no cubemap
 * and the build leaves it unclaimed. */
static const char *const cubemap_patterns[] = {"*.env", NULL};

/* Never called: cook_asset sends COOK_KIND_TEXTURE and COOK_KIND_CUBEMAP to
 * cook_texture_asset and cook_cubemap_asset. */
static bool import_texture_unused(cook_context *ctx, ir_asset *out) {
    (void)out;
    diag_error(ctx->diag, ctx->source_path, 0, "textures have no IR import");
    return false;
}

static const cook_importer importer_table[] = {
    {"obj", obj_patterns, COOK_KIND_MODEL, import_obj},
    {"gltf", gltf_patterns, COOK_KIND_MODEL, import_gltf},
    {"assimp", assimp_patterns, COOK_KIND_MODEL, import_assimp},
    {"texture", texture_patterns, COOK_KIND_TEXTURE, import_texture_unused},
    {"cubemap", cubemap_patterns, COOK_KIND_CUBEMAP, import_texture_unused},
};

#define IMPORTER_COUNT (sizeof importer_table / sizeof importer_table[0])

const cook_importer *discover_importers(size_t *count) {
    if (count != NULL)
        *count = IMPORTER_COUNT;
    return importer_table;
}

static unsigned char fold_ascii(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

/*
 * Iterative glob with single backtracking point: on a mismatch after a '*',
 * retry with the '*' swallowing one more character. Linear in practice and
 * never recursive, so hostile patterns cannot blow the stack.
 */
bool discover_glob_match(const char *pattern, const char *name) {
    if (pattern == NULL || name == NULL)
        return false;
    const unsigned char *p = (const unsigned char *)pattern;
    const unsigned char *n = (const unsigned char *)name;
    const unsigned char *star_pattern = NULL; /* just after the last '*' seen */
    const unsigned char *star_name = NULL;    /* where that '*' resumes in name */

    while (*n != '\0') {
        if (*p == '*') {
            star_pattern = ++p;
            star_name = n;
        } else if (*p != '\0' && (*p == '?' || fold_ascii(*p) == fold_ascii(*n))) {
            p++;
            n++;
        } else if (star_pattern != NULL) {
            p = star_pattern;
            n = ++star_name;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

static const char *file_name_of(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *backslash = strrchr(path, '\\');
    if (backslash != NULL && (slash == NULL || backslash > slash))
        slash = backslash;
    return slash != NULL ? slash + 1 : path;
}

static bool importer_claims(const cook_importer *importer, const char *file_name) {
    for (const char *const *pattern = importer->patterns; *pattern != NULL; pattern++) {
        if (discover_glob_match(*pattern, file_name))
            return true;
    }
    return false;
}

const cook_importer *discover_match(const char *relative_path) {
    if (relative_path == NULL)
        return NULL;
    const char *file_name = file_name_of(relative_path);
    if (file_name[0] == '\0')
        return NULL;
    for (size_t i = 0; i < IMPORTER_COUNT; i++) {
        if (importer_claims(&importer_table[i], file_name))
            return &importer_table[i];
    }
    return NULL;
}

bool discover_is_asset_folder(const char *relative_path) {
    const cook_importer *importer = discover_match(relative_path);
    return importer != NULL && importer->kind == COOK_KIND_CUBEMAP;
}
