/*
 * mtl.c — Wavefront MTL material libraries into ir_material.
 *
 * MTL describes Phong-style materials; the IR holds glTF's metallic-roughness
 * model. The conversion:
 *
 *   MTL statement                 ir_material
 *   ---------------------------   -------------------------------------------
 *   Kd r g b  (or Kd v)           base_color rgb, clamped to [0, 1]
 *                                 (no Kd: white, so a texture shows unchanged)
 *   d a                           base_color alpha, clamped to [0, 1]
 *   Tr t  (only without d)        base_color alpha = 1 - t
 *                                 alpha < 1 -> alpha_mode BLEND
 *   Ke r g b                      emissive (negative values -> 0, beyond FLT_MAX -> FLT_MAX)
 *   Pr r                          roughness, clamped to [0, 1]
 *   Ns e  (only without Pr)       roughness = sqrt(2 / (e + 2)): the GGX
 *                                 roughness whose lobe best matches a Blinn-
 *                                 Phong exponent e (e < 0 taken as 0)
 *   neither Pr nor Ns             roughness 1
 *   Pm m                          metallic, clamped to [0, 1]
 *   no Pm                         metallic 0: MTL is not metallic unless it
 *                                 says so (glTF's own default would be 1)
 *   map_Kd                        textures[BASE_COLOR]
 *   map_Bump, map_bump, bump,     textures[NORMAL]; the -bm value becomes
 *   norm                          normal_scale. (MTL's bump is nominally a
 *                                 height map; in practice exporters put
 *                                 tangent-space normal maps there.)
 *   map_d                         textures[ALPHA], alpha_mode BLEND (the model
 *                                 driver merges it into the base colour's alpha)
 *   map_Ke                        textures[EMISSIVE]; emissive 1,1,1 when
 *                                 there is no Ke (glTF multiplies the two)
 *   map_ORM, map_RMA, map_Pr,     textures[METALLIC_ROUGHNESS], first of them
 *   map_Pm                        in this order of preference. glTF reads
 *                                 roughness from G and metallic from B:
 *                                 map_ORM (occlusion, roughness, metallic)
 *                                 matches and also fills textures[OCCLUSION];
 *                                 map_RMA (roughness, metallic, occlusion)
 *                                 does not, and map_Pr / map_Pm are one-channel
 *                                 images — the image is cooked as-is (no
 *                                 channel swizzle yet). Without Pr, the
 *                                 roughness factor is 1 when the map carries
 *                                 roughness (ORM, RMA, Pr); without Pm, the
 *                                 metallic factor is 1 when it carries
 *                                 metallic (ORM, RMA, Pm), else 0.
 *
 *   The rules that combine several statements (alpha, roughness, metallic,
 *   emissive) are import_phong_to_pbr (cook.h), which the assimp importer
 *   shares for the Phong-style materials of other formats.
 *
 *   Ks r g b                      specular = the largest of r, g, b (clamped
 *                                 to [0, 1]), specular_color = Ks divided by
 *                                 it (KHR_materials_specular's factors); Ks
 *                                 0 0 0 keeps the defaults (1, and white)
 *
 *   map_Ka, map_Ks, map_Ns, disp and map_disp have no IR equivalent: each is
 *   named in a warning and recorded in the material's dropped list, which
 *   `kiln info` shows (dropped_statements).
 *   Ka (written by exporters for every material), Tf, Kt, Ni, illum, sharpness, the
 * sheen/clearcoat/anisotropy extensions (Ps, Pc, Pcr, aniso, anisor, their maps), decal and refl
 * are ignored silently; other statements get one warning per keyword. Keywords match without regard
 * to case. A later statement overrides an earlier one.
 *
 * Texture statements take options before (or, as some exporters write them,
 * after) the file name: -blendu -blendv -boost -cc -clamp -imfchan -texres
 * -type -bm (one value), -mm (two), -o -s -t (one to three numbers; -o and
 * -s become the slot's texture transform, see read_texture). The file
 * name is the remaining words, spaces included; backslashes are folder
 * separators. Paths are relative to the MTL's folder, resolved with
 * cook_resolve_dependency (so they cannot leave the input root) and stored
 * relative to the input root; a texture that cannot be found is a warning
 * and leaves the slot empty.
 *
 * Malformed values are warnings (the statement is ignored): a material
 * library should not stop a model from cooking. Only content that is not
 * text, or running out of memory, fails.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "cook/import/import.h"

#define MTL_MAX_UNKNOWN_REPORTED 16u
#define MTL_MAX_MATERIALS (UINT32_MAX / 2u)

typedef struct mtl_token {
    const char *text; /* into the line buffer */
    size_t length;
} mtl_token;

/* Which map filled the metallic-roughness slot (higher wins). */
enum { MR_NONE, MR_PM, MR_PR, MR_RMA, MR_ORM };

typedef struct mtl_parser {
    cook_context *ctx;
    const char *path;
    uint32_t line;
    char *prefix; /* the MTL's folder relative to the source's folder: "" or "…/" */

    ir_material *items; /* parsed so far */
    ir_image **images;  /* the caller's image list, textures index into it */
    uint32_t *image_count;
    size_t count;
    size_t cap;

    bool open;          /* a newmtl is being read */
    import_phong phong; /* its colour and scalar statements so far */
    int mr_source;

    bool warned_orphan;
    strlist unknown;

    char *buffer; /* the logical line */
    size_t buffer_cap;
    mtl_token *tokens;
    size_t token_count;
    size_t token_cap;
} mtl_parser;

static bool mtl_out_of_memory(mtl_parser *mp) {
    diag_error(mp->ctx->diag, mp->path, mp->line, "out of memory");
    return false;
}

static bool same_word(const mtl_token *token, const char *word) {
    return ascii_is_word_ci(token->text, token->length, word);
}

static bool is_one_of(const mtl_token *token, const char *const *words) {
    for (; *words != NULL; words++)
        if (same_word(token, *words))
            return true;
    return false;
}

/* The whole token as a number. */
static bool token_number(const mtl_token *token, double *out) {
    const char *cursor = token->text;
    return import_scan_number(&cursor, token->text + token->length, out) &&
           cursor == token->text + token->length;
}

static double clamp01(double value) {
    return value < 0.0 ? 0.0 : (value > 1.0 ? 1.0 : value);
}

/* ---------------------------------------------------------------------------
 * Paths
 * ------------------------------------------------------------------------- */

/* Number of '/'-separated components of the folder part of `path`. */
static size_t folder_depth(const char *path) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return 0;
    size_t depth = 1;
    for (const char *p = path; p < slash; p++)
        depth += *p == '/';
    return depth;
}

/* Start of component `index` of path, and its length. */
static const char *component(const char *path, size_t index, size_t *length) {
    const char *p = path;
    for (size_t i = 0; i < index; i++)
        p = strchr(p, '/') + 1;
    const char *slash = strchr(p, '/');
    *length = slash ? (size_t)(slash - p) : strlen(p);
    return p;
}

/* The MTL's folder as seen from the source's folder (both root-relative),
 * e.g. source "a/b/m.obj", mtl "a/c/m.mtl" -> "../c/". */
static char *relative_folder(const char *source_path, const char *mtl_path) {
    size_t source_depth = folder_depth(source_path), mtl_depth = folder_depth(mtl_path);
    size_t common = 0;
    while (common < source_depth && common < mtl_depth) {
        size_t a, b;
        const char *pa = component(source_path, common, &a);
        const char *pb = component(mtl_path, common, &b);
        if (a != b || memcmp(pa, pb, a) != 0)
            break;
        common++;
    }
    size_t size = 3 * (source_depth - common) + strlen(mtl_path) + 2;
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    size_t length = 0;
    for (size_t i = common; i < source_depth; i++) {
        memcpy(out + length, "../", 3);
        length += 3;
    }
    for (size_t i = common; i < mtl_depth; i++) {
        size_t n;
        const char *part = component(mtl_path, i, &n);
        memcpy(out + length, part, n);
        length += n;
        out[length++] = '/';
    }
    out[length] = '\0';
    return out;
}

/* ---------------------------------------------------------------------------
 * Materials
 * ------------------------------------------------------------------------- */

static ir_material *current(mtl_parser *mp) {
    return &mp->items[mp->count - 1];
}

/* Treats a non-finite value as absent (NaN would pass every comparison). */
static bool usable(bool given, double value) {
    return given && isfinite(value);
}

void import_phong_to_pbr(const import_phong *phong, ir_material *m) {
    for (int k = 0; k < 3; k++) {
        m->base_color[k] = usable(phong->has_diffuse, phong->diffuse[k])
                               ? (float)clamp01(phong->diffuse[k])
                               : 1.0f;
        m->emissive[k] = usable(phong->has_emissive, phong->emissive[k])
                             ? (float)fmin(fmax(phong->emissive[k], 0.0), FLT_MAX)
                             : (m->textures[IR_SLOT_EMISSIVE].image >= 0 ? 1.0f : 0.0f);
    }
    double alpha = usable(phong->has_opacity, phong->opacity) ? phong->opacity
                   : usable(phong->has_transparency, phong->transparency)
                       ? 1.0 - phong->transparency
                       : 1.0;
    m->base_color[3] = (float)clamp01(alpha);
    m->alpha_mode = (m->base_color[3] < 1.0f || m->textures[IR_SLOT_ALPHA].image >= 0)
                        ? IR_ALPHA_BLEND
                        : IR_ALPHA_OPAQUE;
    if (usable(phong->has_roughness, phong->roughness))
        m->roughness = (float)clamp01(phong->roughness);
    else if (phong->map_roughness)
        m->roughness = 1.0f;
    else if (usable(phong->has_shininess, phong->shininess))
        m->roughness = (float)clamp01(sqrt(2.0 / (fmax(phong->shininess, 0.0) + 2.0)));
    else
        m->roughness = 1.0f;
    if (usable(phong->has_metallic, phong->metallic))
        m->metallic = (float)clamp01(phong->metallic);
    else
        m->metallic = phong->map_metallic ? 1.0f : 0.0f;
    /* Ks as KHR_materials_specular: its brightest channel is the strength,
     * the colour divided by it the tint. Black says nothing (exporters'
     * default): a PBR dielectric always reflects, so the defaults stay. */
    double peak = 0.0;
    for (int k = 0; phong->has_specular && k < 3; k++)
        peak = isfinite(phong->specular[k]) ? fmax(peak, phong->specular[k]) : peak;
    if (peak > 0.0) {
        m->specular = (float)clamp01(peak);
        for (int k = 0; k < 3; k++)
            m->specular_color[k] = isfinite(phong->specular[k])
                                       ? (float)clamp01(fmax(phong->specular[k], 0.0) / peak)
                                       : 1.0f;
    }
}

/* Applies the rules that depend on several statements (see the table). */
static void close_material(mtl_parser *mp) {
    if (!mp->open)
        return;
    mp->phong.map_roughness =
        mp->mr_source == MR_ORM || mp->mr_source == MR_RMA || mp->mr_source == MR_PR;
    mp->phong.map_metallic =
        mp->mr_source == MR_ORM || mp->mr_source == MR_RMA || mp->mr_source == MR_PM;
    import_phong_to_pbr(&mp->phong, current(mp));
    mp->open = false;
}

static bool open_material(mtl_parser *mp, const char *name, size_t length) {
    close_material(mp);
    if (mp->count >= MTL_MAX_MATERIALS) {
        diag_error(mp->ctx->diag, mp->path, mp->line, "more than %u materials", MTL_MAX_MATERIALS);
        return false;
    }
    if (mp->count == mp->cap) {
        ir_material *items = array_grow(mp->items, &mp->cap, mp->count + 1, sizeof *items, 8);
        if (items == NULL)
            return mtl_out_of_memory(mp);
        mp->items = items;
    }
    ir_material *m = &mp->items[mp->count++];
    ir_material_init(m);
    m->name = malloc(length + 1);
    if (m->name == NULL)
        return mtl_out_of_memory(mp);
    memcpy(m->name, name, length);
    m->name[length] = '\0';
    mp->open = true;
    memset(&mp->phong, 0, sizeof mp->phong);
    mp->mr_source = MR_NONE;
    return true;
}

/* ---------------------------------------------------------------------------
 * Statements
 * ------------------------------------------------------------------------- */

static void warn_value(mtl_parser *mp, const mtl_token *keyword) {
    diag_warning(mp->ctx->diag, mp->path, mp->line,
                 "'%.*s' has a missing or malformed value; statement ignored", (int)keyword->length,
                 keyword->text);
}

/* Kd/Ke: r g b, or one value for all three. */
static bool read_color(mtl_parser *mp, double rgb[3]) {
    const mtl_token *t = mp->tokens;
    if (mp->token_count >= 2 && (same_word(&t[1], "spectral") || same_word(&t[1], "xyz"))) {
        diag_warning(mp->ctx->diag, mp->path, mp->line,
                     "'%.*s %.*s' colours are not supported; statement ignored", (int)t[0].length,
                     t[0].text, (int)t[1].length, t[1].text);
        return false;
    }
    size_t n = mp->token_count - 1;
    if (n != 1 && n != 3) {
        warn_value(mp, &t[0]);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!token_number(&t[1 + i], &rgb[i]) || !isfinite(rgb[i])) {
            warn_value(mp, &t[0]);
            return false;
        }
    }
    if (n == 1)
        rgb[1] = rgb[2] = rgb[0];
    return true;
}

/* One value; `d -halo v` has its option skipped. */
static bool read_scalar(mtl_parser *mp, double *out) {
    size_t first = 1;
    if (mp->token_count > 2 && same_word(&mp->tokens[1], "-halo"))
        first = 2;
    if (mp->token_count != first + 1 || !token_number(&mp->tokens[first], out) || !isfinite(*out)) {
        warn_value(mp, &mp->tokens[0]);
        return false;
    }
    return true;
}

typedef struct texture_option {
    const char *name;
    int values; /* negative: 1 to -values numbers */
} texture_option;

static const texture_option texture_options[] = {
    {"-blendu", 1},  {"-blendv", 1}, {"-boost", 1}, {"-cc", 1}, {"-clamp", 1},
    {"-imfchan", 1}, {"-texres", 1}, {"-type", 1},  {"-bm", 1}, {"-mm", 2},
    {"-o", -3},      {"-s", -3},     {"-t", -3},
};

/* map_* / bump / norm: options, then the file name (which may hold spaces). */
static bool read_texture(mtl_parser *mp, ir_texture_slot slot, double *bump_scale) {
    const mtl_token *t = mp->tokens;
    size_t name_first = 0, name_last = 0; /* 0: none yet */
    bool name_done = false;
    double offset[3] = {0, 0, 0}, scale[3] = {1, 1, 1}; /* -o, -s */
    for (size_t i = 1; i < mp->token_count;) {
        const texture_option *option = NULL;
        for (size_t k = 0;
             t[i].text[0] == '-' && k < sizeof texture_options / sizeof *texture_options; k++)
            if (same_word(&t[i], texture_options[k].name))
                option = &texture_options[k];
        if (option == NULL && t[i].text[0] == '-' && t[i].length > 1 && name_first == 0) {
            diag_warning(mp->ctx->diag, mp->path, mp->line, "unknown texture option '%.*s' ignored",
                         (int)t[i].length, t[i].text);
            i++;
            continue;
        }
        if (option == NULL) {
            if (name_done) {
                diag_warning(mp->ctx->diag, mp->path, mp->line,
                             "'%.*s' after the texture file name ignored", (int)t[i].length,
                             t[i].text);
            } else {
                if (name_first == 0)
                    name_first = i;
                name_last = i;
            }
            i++;
            continue;
        }
        if (name_first != 0)
            name_done = true;
        i++;
        if (option->values > 0) {
            if (same_word(&t[i - 1], "-bm") && i < mp->token_count) {
                double value;
                if (token_number(&t[i], &value) && isfinite(value))
                    *bump_scale = value;
                else
                    diag_warning(mp->ctx->diag, mp->path, mp->line,
                                 "'-bm' needs a number; ignored");
            }
            for (int k = 0; k < option->values && i < mp->token_count; k++)
                i++;
        } else {
            double *target = same_word(&t[i - 1], "-o")   ? offset
                             : same_word(&t[i - 1], "-s") ? scale
                                                          : NULL;
            double value;
            for (int k = 0;
                 k < -option->values && i < mp->token_count && token_number(&t[i], &value); k++) {
                if (target != NULL && isfinite(value))
                    target[k] = value;
                i++;
            }
        }
    }
    if (name_first == 0) {
        diag_warning(mp->ctx->diag, mp->path, mp->line, "'%.*s' without a file name; ignored",
                     (int)t[0].length, t[0].text);
        return false;
    }
    const char *name = t[name_first].text;
    size_t name_length = (size_t)(t[name_last].text + t[name_last].length - name);
    size_t prefix_length = strlen(mp->prefix);
    char *relative = malloc(prefix_length + name_length + 1);
    if (relative == NULL)
        return mtl_out_of_memory(mp);
    memcpy(relative, mp->prefix, prefix_length);
    memcpy(relative + prefix_length, name, name_length);
    relative[prefix_length + name_length] = '\0';
    char reason[512];
    char *path = NULL;
    if (!cook_resolve_dependency(mp->ctx, relative, &path, reason, sizeof reason)) {
        diag_warning(mp->ctx->diag, mp->path, mp->line,
                     "texture '%.*s' of material '%s' cannot be used: %s", (int)name_length, name,
                     current(mp)->name, reason);
        free(relative);
        return false;
    }
    free(relative);
    int32_t image = ir_image_add_file(mp->images, mp->image_count, path, path);
    free(path);
    if (image < 0)
        return mtl_out_of_memory(mp);
    ir_texture_ref *ref = &current(mp)->textures[slot];
    ref->image = image;
    ref->texcoord = 0;
    /* -o / -s map (u, v) to (s u + o); with v flipped to the IR's convention
     * that is scale (su, sv) and offset (ou, 1 - sv - ov). */
    ref->scale[0] = (float)scale[0];
    ref->scale[1] = (float)scale[1];
    ref->offset[0] = (float)offset[0];
    ref->offset[1] = (float)(1.0 - scale[1] - offset[1]);
    ref->rotation = 0.0f;
    return true;
}

static bool set_metallic_roughness_map(mtl_parser *mp, int source) {
    if (source <= mp->mr_source)
        return true;
    double ignored = 1.0;
    if (!read_texture(mp, IR_SLOT_METALLIC_ROUGHNESS, &ignored))
        return true;
    mp->mr_source = source;
    ir_material *m = current(mp);
    if (source == MR_ORM)
        m->textures[IR_SLOT_OCCLUSION] = m->textures[IR_SLOT_METALLIC_ROUGHNESS];
    return true;
}

/* Ka too: exporters write it for every material (Blender: 1 1 1), and the
 * environment, not the material, gives a PBR renderer its ambient light. */
static const char *const ignored_keywords[] = {
    "Ka",        "Tf",         "Kt",    "Ni",     "illum",    "sharpness", "Ps",
    "Pc",        "Pcr",        "aniso", "anisor", "map_Ps",   "map_Pc",    "map_Pcr",
    "map_aniso", "map_anisor", "decal", "refl",   "map_refl", "map_decal", NULL};

/* Statements with a value kiln's material has no place for, and why: named in
 * a warning, as a modeller who set them expects to see them. */
typedef struct dropped_statement {
    const char *keyword;
    const char *reason;
} dropped_statement;

static const dropped_statement dropped_statements[] = {
    {"map_Ka", "kiln's material has no ambient slot; occlusion is map_ORM"},
    {"map_Ks", "kiln's material has no specular slot"},
    {"map_Ns", "kiln's material has no specular-power slot; a roughness map is map_Pr"},
    {"disp", "kiln's material has no displacement slot"},
    {"map_disp", "kiln's material has no displacement slot"},
};

/* Warns that the statement is not cooked, naming its value, and records it in
 * the material's dropped list; false when the keyword is not one of
 * dropped_statements. */
static bool warn_dropped_statement(mtl_parser *mp) {
    const mtl_token *keyword = &mp->tokens[0];
    for (size_t i = 0; i < sizeof dropped_statements / sizeof dropped_statements[0]; i++) {
        const dropped_statement *d = &dropped_statements[i];
        if (!same_word(keyword, d->keyword))
            continue;
        if (mp->token_count < 2)
            return true;
        if (!ir_material_add_dropped(current(mp), d->keyword)) {
            mtl_out_of_memory(mp);
            return true;
        }
        const mtl_token *last = &mp->tokens[mp->token_count - 1];
        int value_length = (int)(last->text + last->length - mp->tokens[1].text);
        diag_warning(mp->ctx->diag, mp->path, mp->line,
                     "material '%s': %.*s '%.*s' is not cooked (%s)", current(mp)->name,
                     (int)keyword->length, keyword->text, value_length, mp->tokens[1].text,
                     d->reason);
        return true;
    }
    return false;
}

static bool run_statement(mtl_parser *mp) {
    const mtl_token *keyword = &mp->tokens[0];
    if (same_word(keyword, "newmtl")) {
        const char *name = mp->token_count > 1 ? mp->tokens[1].text : "";
        const mtl_token *last = &mp->tokens[mp->token_count - 1];
        size_t length = mp->token_count > 1 ? (size_t)(last->text + last->length - name) : 0;
        if (length == 0)
            diag_warning(mp->ctx->diag, mp->path, mp->line, "'newmtl' without a name");
        return open_material(mp, name, length);
    }
    if (!mp->open) {
        if (!mp->warned_orphan)
            diag_warning(mp->ctx->diag, mp->path, mp->line, "'%.*s' before any 'newmtl'; ignored",
                         (int)keyword->length, keyword->text);
        mp->warned_orphan = true;
        return true;
    }
    ir_material *m = current(mp);
    double rgb[3], value;
    if (same_word(keyword, "Kd")) {
        if (read_color(mp, rgb)) {
            memcpy(mp->phong.diffuse, rgb, sizeof rgb);
            mp->phong.has_diffuse = true;
        }
    } else if (same_word(keyword, "Ks")) {
        if (read_color(mp, rgb)) {
            memcpy(mp->phong.specular, rgb, sizeof rgb);
            mp->phong.has_specular = true;
        }
    } else if (same_word(keyword, "Ke")) {
        if (read_color(mp, rgb)) {
            memcpy(mp->phong.emissive, rgb, sizeof rgb);
            mp->phong.has_emissive = true;
        }
    } else if (same_word(keyword, "d")) {
        if (read_scalar(mp, &value)) {
            mp->phong.opacity = value;
            mp->phong.has_opacity = true;
        }
    } else if (same_word(keyword, "Tr")) {
        if (read_scalar(mp, &value)) {
            mp->phong.transparency = value;
            mp->phong.has_transparency = true;
        }
    } else if (same_word(keyword, "Ns")) {
        if (read_scalar(mp, &value)) {
            mp->phong.shininess = value;
            mp->phong.has_shininess = true;
        }
    } else if (same_word(keyword, "Pr")) {
        if (read_scalar(mp, &value)) {
            mp->phong.roughness = value;
            mp->phong.has_roughness = true;
        }
    } else if (same_word(keyword, "Pm")) {
        if (read_scalar(mp, &value)) {
            mp->phong.metallic = value;
            mp->phong.has_metallic = true;
        }
    } else if (same_word(keyword, "map_Kd")) {
        double ignored = 1.0;
        read_texture(mp, IR_SLOT_BASE_COLOR, &ignored);
    } else if (same_word(keyword, "map_d")) {
        double ignored = 1.0;
        read_texture(mp, IR_SLOT_ALPHA, &ignored);
    } else if (same_word(keyword, "map_Ke")) {
        double ignored = 1.0;
        read_texture(mp, IR_SLOT_EMISSIVE, &ignored);
    } else if (same_word(keyword, "map_Bump") || same_word(keyword, "bump") ||
               same_word(keyword, "norm") || same_word(keyword, "map_norm")) {
        double scale = 1.0;
        if (read_texture(mp, IR_SLOT_NORMAL, &scale))
            m->normal_scale = (float)scale;
    } else if (same_word(keyword, "map_ORM")) {
        return set_metallic_roughness_map(mp, MR_ORM);
    } else if (same_word(keyword, "map_RMA")) {
        return set_metallic_roughness_map(mp, MR_RMA);
    } else if (same_word(keyword, "map_Pr")) {
        return set_metallic_roughness_map(mp, MR_PR);
    } else if (same_word(keyword, "map_Pm")) {
        return set_metallic_roughness_map(mp, MR_PM);
    } else if (!warn_dropped_statement(mp) && !is_one_of(keyword, ignored_keywords)) {
        char name[48];
        snprintf(name, sizeof name, "%.*s", (int)(keyword->length < 40 ? keyword->length : 40),
                 keyword->text);
        if (mp->unknown.count < MTL_MAX_UNKNOWN_REPORTED && !strlist_contains(&mp->unknown, name)) {
            if (!strlist_push(&mp->unknown, name))
                return mtl_out_of_memory(mp);
            diag_warning(mp->ctx->diag, mp->path, mp->line, "unsupported statement '%s' ignored",
                         name);
        }
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * Lines
 * ------------------------------------------------------------------------- */

static bool is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Copies the logical line starting at *cursor into the buffer (a backslash
 * before the newline joins the next line), splits it into words up to a
 * comment, and advances *cursor past the newline. */
static bool read_line(mtl_parser *mp, const unsigned char **cursor, const unsigned char *end) {
    const unsigned char *p = *cursor;
    size_t length = 0;
    uint32_t lines = 1;
    for (;;) {
        const unsigned char *stop = p;
        while (stop < end && *stop != '\n')
            stop++;
        size_t n = (size_t)(stop - p);
        bool joined = n > 0 && p[n - 1] == '\\';
        if (!joined && n > 0 && p[n - 1] == '\r' && n > 1 && p[n - 2] == '\\') {
            joined = true;
            n--;
        }
        if (joined)
            n--; /* the backslash */
        if (length + n + 2 > mp->buffer_cap) {
            char *buffer = array_grow(mp->buffer, &mp->buffer_cap, length + n + 2, 1, 256);
            if (buffer == NULL)
                return mtl_out_of_memory(mp);
            mp->buffer = buffer;
        }
        for (size_t i = 0; i < n; i++) {
            unsigned char c = p[i];
            if (c == 0 || (c < 0x20 && !is_blank(c)) || c == 0x7f) {
                diag_error(mp->ctx->diag, mp->path, mp->line + lines - 1,
                           "not a text MTL file (byte 0x%02x where text was expected)", c);
                return false;
            }
            mp->buffer[length++] = is_blank(c) ? ' ' : (char)c;
        }
        p = stop < end ? stop + 1 : stop;
        if (!joined || stop >= end)
            break;
        mp->buffer[length++] = ' ';
        lines++;
    }
    mp->buffer[length] = '\0';
    *cursor = p;

    mp->token_count = 0;
    for (size_t i = 0; i < length;) {
        while (i < length && mp->buffer[i] == ' ')
            i++;
        if (i >= length || mp->buffer[i] == '#')
            break;
        size_t start = i;
        while (i < length && mp->buffer[i] != ' ')
            i++;
        if (mp->token_count == mp->token_cap) {
            mtl_token *tokens =
                array_grow(mp->tokens, &mp->token_cap, mp->token_count + 1, sizeof *tokens, 16);
            if (tokens == NULL)
                return mtl_out_of_memory(mp);
            mp->tokens = tokens;
        }
        mp->tokens[mp->token_count++] = (mtl_token){mp->buffer + start, i - start};
    }
    return true;
}

bool import_mtl(cook_context *ctx, const char *mtl_path, const char *text, size_t size,
                ir_material **materials, uint32_t *material_count, ir_image **images,
                uint32_t *image_count) {
    mtl_parser mp = {
        .ctx = ctx, .path = mtl_path, .line = 1, .images = images, .image_count = image_count};
    mp.prefix = relative_folder(ctx->source_path, mtl_path);
    bool ok = mp.prefix != NULL || mtl_out_of_memory(&mp);
    const unsigned char *p = (const unsigned char *)text, *end = p + size;
    cook_text_trim(&p, &end);
    while (ok && p < end) {
        const unsigned char *line_start = p;
        ok = read_line(&mp, &p, end);
        if (ok && mp.token_count > 0)
            ok = run_statement(&mp);
        for (const unsigned char *q = line_start; q < p; q++)
            mp.line += *q == '\n';
    }
    close_material(&mp);
    if (ok && mp.count > 0 && (uint64_t)*material_count + mp.count > UINT32_MAX / 2) {
        diag_error(ctx->diag, mtl_path, 0, "too many materials");
        ok = false;
    }
    if (ok && mp.count > 0) {
        ir_material *grown =
            realloc(*materials, ((size_t)*material_count + mp.count) * sizeof **materials);
        if (grown == NULL) {
            ok = mtl_out_of_memory(&mp);
        } else {
            memcpy(grown + *material_count, mp.items, mp.count * sizeof *mp.items);
            *materials = grown;
            *material_count += (uint32_t)mp.count;
            mp.count = 0;
        }
    }
    for (size_t i = 0; i < mp.count; i++)
        ir_material_free(&mp.items[i]);
    free(mp.items);
    free(mp.prefix);
    free(mp.buffer);
    free(mp.tokens);
    strlist_free(&mp.unknown);
    return ok;
}
