/*
 * registry.c — which importer cooks which source file.
 *
 * The registry is a static table, one row per importer, in priority order: the
 * first row with a pattern matching a file's name wins. Adding a format is one
 * row here plus its import_* function (a model format) or its driver (a new
 * asset kind, drivers.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

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
static const char *const texture_patterns[] = {"*.png", "*.jpg", "*.jpeg", "*.tga",
                                               "*.bmp", "*.hdr", NULL};

/* 3D colour grading LUTs (lut.c). */
static const char *const lut_patterns[] = {"*.lut.cube", NULL};

/* Cubemap folders (cubemap.c). The walker lists such a folder as one
 * entry (discover_walk_sources); a regular file of that name is no cubemap
 * and the build leaves it unclaimed. */
static const char *const cubemap_patterns[] = {"*.env", NULL};

/* Texture array folders (texture_array.c), listed as one entry like a
 * cubemap folder. */
static const char *const array_patterns[] = {"*.array", NULL};

/* Standalone materials (material.c): their images are cooked through them. */
static const char *const material_patterns[] = {"*.mat", NULL};

/* Text levels placing models (level.c). */
static const char *const level_patterns[] = {"*.level", NULL};
/* Shaders (shader.c): GLSL stages by extension, HLSL (stage from the name,
 * lit.ps.hlsl, or shader.stage), and "*.shader" folders of stage files.
 * Headers (*.glsl *.hlsli *.h) have no row: they are read through #include. */
static const char *const shader_patterns[] = {
    "*.vert", "*.frag",  "*.comp",  "*.geom",  "*.tesc", "*.tese",  "*.task", "*.mesh",
    "*.rgen", "*.rahit", "*.rchit", "*.rmiss", "*.rint", "*.rcall", "*.hlsl", NULL};
static const char *const shader_folder_patterns[] = {"*.shader", NULL};

static const cook_importer importer_table[] = {
    {"obj", obj_patterns, COOK_KIND_MODEL, cook_model_asset, import_obj, false},
    {"gltf", gltf_patterns, COOK_KIND_MODEL, cook_model_asset, import_gltf, false},
    {"assimp", assimp_patterns, COOK_KIND_MODEL, cook_model_asset, import_assimp, false},
    {"texture", texture_patterns, COOK_KIND_TEXTURE, cook_texture_asset, NULL, false},
    {"lut", lut_patterns, COOK_KIND_LUT, cook_lut_asset, NULL, false},
    {"cubemap", cubemap_patterns, COOK_KIND_CUBEMAP, cook_cubemap_asset, NULL, true},
    {"texture-array", array_patterns, COOK_KIND_TEXTURE_ARRAY, cook_texture_array_asset, NULL,
     true},
    {"material", material_patterns, COOK_KIND_MATERIAL, cook_material_asset, NULL, false},
    {"level", level_patterns, COOK_KIND_LEVEL, cook_level_asset, NULL, false},
    {"shader", shader_patterns, COOK_KIND_SHADER, cook_shader_asset, NULL, false},
    {"shader-folder", shader_folder_patterns, COOK_KIND_SHADER, cook_shader_asset, NULL, true},
};

#define IMPORTER_COUNT (sizeof importer_table / sizeof importer_table[0])

const cook_importer *cook_registry_rows(size_t *count) {
    if (count != NULL)
        *count = IMPORTER_COUNT;
    return importer_table;
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

const cook_importer *cook_registry_match(const char *relative_path) {
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

bool cook_registry_is_folder(const char *relative_path) {
    const cook_importer *importer = cook_registry_match(relative_path);
    return importer != NULL && importer->folder;
}

kiln_result cook_asset_ref(const cook_importer *importer, const char *relative_path, char *out,
                           size_t capacity) {
    /* A lone GLSL stage keeps its extension (lit.vert and lit.frag are two
     * programs): canonicalised with a stand-in extension for the one dropped. */
    if (importer != NULL && importer->kind == COOK_KIND_SHADER && !importer->folder &&
        !ascii_ends_with_ci(relative_path, ".hlsl")) {
        size_t length = strlen(relative_path);
        char *with = malloc(length + 3);
        if (with == NULL)
            return KILN_ERR_OUT_OF_MEMORY;
        memcpy(with, relative_path, length);
        memcpy(with + length, ".x", 3);
        kiln_result result = kiln_ref_canonicalize(with, out, capacity);
        free(with);
        return result;
    }
    return kiln_ref_canonicalize(relative_path, out, capacity);
}
