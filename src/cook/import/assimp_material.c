/*
 * assimp_material.c — aiMaterials into ir_material (assimp_internal.h): PBR
 * keys or the MTL conversion, and their textures resolved as dependencies.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/material.h>
#include <assimp/scene.h>

#include "cook/import/assimp_internal.h"

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
        if (texture == NULL || aimp_string_length(&texture->mFilename) == 0)
            continue;
        char *name = aimp_string_dup(&texture->mFilename);
        bool same = name != NULL && (strcmp(name, path) == 0 ||
                                     strcmp(aimp_base_name(name), aimp_base_name(path)) == 0);
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
    /* $tex.mapmodeu / v: wrap, clamp, mirror; decal (transparent outside
     * [0, 1]) has no sampler of its own: clamped. */
    int modes[2] = {aiTextureMapMode_Wrap, aiTextureMapMode_Wrap};
    get_int(st, material_name, material, _AI_MATKEY_MAPPINGMODE_U_BASE, type, 0, &modes[0]);
    get_int(st, material_name, material, _AI_MATKEY_MAPPINGMODE_V_BASE, type, 0, &modes[1]);
    uint8_t *wraps[2] = {&ref->wrap_s, &ref->wrap_t};
    for (int k = 0; k < 2; k++)
        *wraps[k] = modes[k] == aiTextureMapMode_Mirror ? KILN_WRAP_MIRRORED_REPEAT
                    : modes[k] == aiTextureMapMode_Clamp || modes[k] == aiTextureMapMode_Decal
                        ? KILN_WRAP_CLAMP_TO_EDGE
                        : KILN_WRAP_REPEAT;
    char *path = aimp_string_dup(&raw);
    if (path == NULL)
        return aimp_out_of_memory(st);
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
        found = aimp_base_name(path)[0] != '\0' &&
                cook_resolve_dependency(st->ctx, aimp_base_name(path), &resolved, ignored,
                                        sizeof ignored);
    }
    if (!embedded && !found)
        embedded = embedded_index(st->scene, path) >= 0;
    int64_t embedded_at = embedded ? embedded_index(st->scene, path) : -1;
    bool oom = false;
    int32_t embedded_ir = embedded_at >= 0 ? embedded_image(st, (unsigned)embedded_at, &oom) : -1;
    if (oom) {
        free(path);
        return aimp_out_of_memory(st);
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
            return aimp_out_of_memory(st);
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
    size_t la = aimp_string_length(&pa), lb = aimp_string_length(&pb);
    return la == lb && memcmp(pa.data, pb.data, la) == 0;
}

/* Warns about each texture of the material kiln's material has no slot for
 * (those not in convert_material's slot table, and a height map when a normal
 * map took the normal slot), naming the file: a modeller who set one expects
 * to see it. */
static bool warn_unused_textures(aimp_state *st, const struct aiMaterial *material, ir_material *m,
                                 enum aiTextureType normal_type) {
    static const struct {
        enum aiTextureType type;
        const char *what;
        const char *word; /* in the dropped list `kiln info` shows */
    } dropped[] = {
        {aiTextureType_SPECULAR, "specular map", "specular_map"},
        {aiTextureType_SHININESS, "shininess map", "shininess_map"},
        {aiTextureType_AMBIENT, "ambient map", "ambient_map"},
        {aiTextureType_DISPLACEMENT, "displacement map", "displacement_map"},
        {aiTextureType_HEIGHT, "height map", "height_map"},
        {aiTextureType_REFLECTION, "reflection map", "reflection_map"},
    };
    for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++) {
        struct aiString file;
        if (dropped[i].type == normal_type || !texture_file(material, dropped[i].type, &file))
            continue;
        diag_warning(st->ctx->diag, st->path, 0,
                     "material '%s': %s '%.*s' is not cooked (kiln's material has no slot for it)",
                     m->name, dropped[i].what, (int)aimp_string_length(&file), file.data);
        if (!ir_material_add_dropped(m, dropped[i].word))
            return aimp_out_of_memory(st);
    }
    return true;
}

static bool convert_material(aimp_state *st, unsigned index, ir_material *m) {
    const struct aiMaterial *material = st->scene->mMaterials[index];
    ir_material_init(m);
    struct aiString name;
    if (material != NULL &&
        aiGetMaterialString(material, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS &&
        aimp_string_length(&name) > 0) {
        m->name = aimp_string_dup(&name);
    } else {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "material_%u", index);
        m->name = cook_strdup(fallback);
        m->unnamed = true;
    }
    if (m->name == NULL)
        return aimp_out_of_memory(st);
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
    if (!warn_unused_textures(st, material, m, used[IR_SLOT_NORMAL]))
        return false;
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
    if (get_color(st, m->name, material, AI_MATKEY_COLOR_SPECULAR, rgba)) {
        memcpy(phong.specular, rgba, sizeof phong.specular);
        phong.has_specular = true;
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
        size_t length = aimp_string_length(&mode);
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

bool aimp_build_materials(aimp_state *st) {
    if (st->used_count == 0)
        return true;
    ir_asset *out = st->out;
    out->materials = calloc(st->used_count, sizeof *out->materials);
    if (out->materials == NULL)
        return aimp_out_of_memory(st);
    for (uint32_t s = 0; s < st->used_count; s++) {
        out->material_count = s + 1; /* freed with the asset even if half built */
        if (!convert_material(st, st->used_materials[s], &out->materials[s]))
            return false;
    }
    return true;
}
