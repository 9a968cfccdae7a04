/*
 * model_overrides.c — material.overrides: a model's materials changed by
 * name from kiln.yml or a sidecar (docs/models.md#overrides), the model
 * format's MaterialPropertyOverrides, TextureOverrides and
 * TextureMapRedirects. Each line is
 *
 *   PATTERN=FIELD=VALUE FIELD=VALUE ...
 *
 * (in YAML, `- PATTERN: FIELD=VALUE ...`, a map item or a quoted scalar
 * "PATTERN: FIELD=VALUE ..."); PATTERN is a glob over material
 * names (material_<i> for a row without one), later lines win.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

#define FIELD_MAX 40
/* strength: a slope multiplier; beyond this a map is all edges. */
#define STRENGTH_MAX 1000.0

/* The slots a `<slot>_texture` field names, in ir_texture_slot order. */
static const char *const slot_fields[IR_SLOT_COUNT] = {
    "base_color_texture", "metallic_roughness_texture", "normal_texture",
    "occlusion_texture",  "emissive_texture",           "opacity_texture"};

/* One line read: what it sets. */
typedef struct override_line {
    const char *text; /* the line, for messages */
    char pattern[COOK_SHADER_TEXT_MAX];
    bool has_base_color, has_metallic, has_roughness, has_emissive, has_normal_scale, has_occlusion,
        has_alpha_cutoff;
    float base_color[4], metallic, roughness, emissive[3], normal_scale, occlusion, alpha_cutoff;
    /* Per slot: 0 unchanged, 1 an image (image_path), 2 none. */
    int slot_change[IR_SLOT_COUNT];
    char image_path[IR_SLOT_COUNT][COOK_SHADER_TEXT_MAX];
    char height_path[COOK_SHADER_TEXT_MAX]; /* normal_from_height, "" when not given */
    float strength;
} override_line;

/* `count` numbers separated by commas, each within [min, max]. */
static bool parse_numbers(const char *text, float *out, size_t count, double min, double max) {
    for (size_t i = 0; i < count; i++) {
        char *end = NULL;
        double value = strtod(text, &end);
        if (end == text || !isfinite(value) || value < min || value > max)
            return false;
        out[i] = (float)value;
        text = end;
        if (i + 1 < count) {
            if (*text != ',')
                return false;
            text++;
        }
    }
    return *text == '\0';
}

static bool set_number(const char *value, float *out, size_t count, double min, double max,
                       bool *has) {
    *has = parse_numbers(value, out, count, min, max);
    return *has;
}

/* One FIELD=VALUE word into `line`; false when it is not one. */
static bool parse_field(const char *field, const char *value, override_line *line) {
    if (strcmp(field, "base_color") == 0)
        return set_number(value, line->base_color, 4, 0.0, 1.0, &line->has_base_color);
    if (strcmp(field, "metallic") == 0)
        return set_number(value, &line->metallic, 1, 0.0, 1.0, &line->has_metallic);
    if (strcmp(field, "roughness") == 0)
        return set_number(value, &line->roughness, 1, 0.0, 1.0, &line->has_roughness);
    if (strcmp(field, "emissive") == 0)
        return set_number(value, line->emissive, 3, 0.0, 1e6, &line->has_emissive);
    if (strcmp(field, "normal_scale") == 0)
        return set_number(value, &line->normal_scale, 1, -1e6, 1e6, &line->has_normal_scale);
    if (strcmp(field, "occlusion_strength") == 0)
        return set_number(value, &line->occlusion, 1, 0.0, 1.0, &line->has_occlusion);
    if (strcmp(field, "alpha_cutoff") == 0)
        return set_number(value, &line->alpha_cutoff, 1, 0.0, 1.0, &line->has_alpha_cutoff);
    if (strcmp(field, "normal_strength") == 0) {
        bool has;
        return set_number(value, &line->strength, 1, 0.0, STRENGTH_MAX, &has) &&
               line->strength > 0.0f;
    }
    if (strcmp(field, "normal_from_height") == 0) {
        snprintf(line->height_path, sizeof line->height_path, "%s", value);
        return value[0] != '\0';
    }
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        if (strcmp(field, slot_fields[s]) != 0)
            continue;
        line->slot_change[s] = strcmp(value, "none") == 0 ? 2 : 1;
        snprintf(line->image_path[s], sizeof line->image_path[s], "%s", value);
        return value[0] != '\0';
    }
    return false;
}

static bool parse_line(cook_context *ctx, const char *text, size_t length, override_line *line) {
    *line = (override_line){.strength = 1.0f};
    char copy[COOK_SHADER_TEXT_MAX];
    snprintf(copy, sizeof copy, "%.*s", (int)length, text);
    /* "PATTERN=FIELD=..." (a YAML map item) or "PATTERN: FIELD=..." (a
     * scalar item): the pattern ends at whichever comes first. */
    char *equals = strchr(copy, '=');
    char *colon = strstr(copy, ": ");
    if (colon != NULL && (equals == NULL || colon < equals)) {
        *colon = '=';
        equals = colon;
    }
    if (equals == NULL || equals == copy) {
        diag_error(ctx->diag, ctx->source_path, 0,
                   "material.overrides: '%s' is not PATTERN: FIELD=VALUE ... (a material name "
                   "glob, then fields such as base_color=1,0.5,0.5,1 roughness=0.8)",
                   copy);
        return false;
    }
    *equals = '\0';
    snprintf(line->pattern, sizeof line->pattern, "%s", copy);
    bool ok = true;
    for (char *word = equals + 1; *word != '\0';) {
        word += strspn(word, " \t");
        size_t word_length = strcspn(word, " \t");
        if (word_length == 0)
            break;
        char field[COOK_SHADER_TEXT_MAX];
        snprintf(field, sizeof field, "%.*s", (int)word_length, word);
        word += word_length;
        char *value = strchr(field, '=');
        if (value != NULL)
            *value++ = '\0';
        if (value == NULL || strlen(field) > FIELD_MAX || !parse_field(field, value, line)) {
            diag_error(ctx->diag, ctx->source_path, 0,
                       "material.overrides: '%s=%s' for '%s' is not a field and a valid value "
                       "(base_color=R,G,B,A metallic= roughness= occlusion_strength= "
                       "alpha_cutoff= in 0..1, emissive=R,G,B, normal_scale=, SLOT_texture=PATH "
                       "or none, normal_from_height=PATH, normal_strength= above 0)",
                       field, value ? value : "", line->pattern);
            ok = false;
        }
    }
    return ok;
}

/* The image a line names, resolved in the input folder (a dependency of the
 * model): its index in asset->images, or -1 with an error. */
static int32_t add_image_file(cook_context *ctx, ir_asset *asset, const char *path,
                              const char *field) {
    char *relative = NULL;
    char reason[512];
    if (!cook_resolve_dependency_from(ctx, "", path, &relative, reason, sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "material.overrides: %s '%s': %s", field, path,
                   reason);
        return -1;
    }
    int32_t index = ir_image_add_file(&asset->images, &asset->image_count, relative, relative);
    if (index < 0)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    free(relative);
    return index;
}

/* normal_from_height: the height map read, turned into a normal map and
 * kept as an embedded PNG named <height's stem>_normal. */
static int32_t add_height_normal(cook_context *ctx, ir_asset *asset, const char *path,
                                 float strength) {
    char *relative = NULL;
    char reason[512] = "out of memory";
    uint8_t *bytes = NULL, *rgba = NULL, *png = NULL;
    size_t size = 0, png_size = 0;
    ir_decoded_image height = {0};
    image_limits limits = texture_image_limits(ctx->settings);
    char *full = NULL;
    bool ok = cook_resolve_dependency_from(ctx, "", path, &relative, reason, sizeof reason) &&
              (full = cook_path_join(ctx->input_root, relative)) != NULL &&
              cook_read_file(full, COOK_SOURCE_MAX_BYTES, &bytes, &size, reason, sizeof reason) &&
              image_decode(bytes, size, relative, &limits, &height, reason, sizeof reason);
    if (ok) {
        rgba = malloc((size_t)height.width * height.height * 4);
        ok = rgba != NULL;
        if (!ok)
            snprintf(reason, sizeof reason, "out of memory");
    }
    if (ok) {
        process_height_to_normal(&height, strength, rgba);
        inspect_rgba8_image image = {height.width, height.height, rgba};
        ok = inspect_png_encode(&image, &png, &png_size, reason, sizeof reason);
    }
    int32_t index = -1;
    if (ok) {
        char name[COOK_SHADER_TEXT_MAX + 64];
        snprintf(name, sizeof name, "%s as a normal map (strength %g)", relative, (double)strength);
        index = ir_image_add_bytes(&asset->images, &asset->image_count, name, png, png_size);
        png = NULL; /* owned by the image now, or freed */
        const char *stem = strrchr(relative, '/') ? strrchr(relative, '/') + 1 : relative;
        size_t stem_length = strcspn(stem, ".");
        char label[COOK_SHADER_TEXT_MAX];
        snprintf(label, sizeof label, "%.*s_normal", (int)stem_length, stem);
        if (index >= 0 && (asset->images[index].label = cook_strdup(label)) == NULL)
            index = -1;
        if (index < 0)
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    } else {
        diag_error(ctx->diag, ctx->source_path, 0,
                   "material.overrides: normal_from_height '%s': %s", path, reason);
    }
    ir_decoded_image_free(&height);
    free(png);
    free(rgba);
    free(bytes);
    free(full);
    free(relative);
    return index;
}

/* The images of `line` added to the asset: image[s] for each slot it sets
 * (-1: none), normal from the height map when given. */
static bool add_line_images(cook_context *ctx, ir_asset *asset, const override_line *line,
                            int32_t image[IR_SLOT_COUNT]) {
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        image[s] = -1;
        if (line->slot_change[s] == 1 &&
            (image[s] = add_image_file(ctx, asset, line->image_path[s], slot_fields[s])) < 0)
            return false;
    }
    if (line->height_path[0] != '\0' && (image[IR_SLOT_NORMAL] = add_height_normal(
                                             ctx, asset, line->height_path, line->strength)) < 0)
        return false;
    return true;
}

static void apply_line(const override_line *line, const int32_t image[IR_SLOT_COUNT],
                       ir_material *material) {
    if (line->has_base_color)
        memcpy(material->base_color, line->base_color, sizeof line->base_color);
    if (line->has_metallic)
        material->metallic = line->metallic;
    if (line->has_roughness)
        material->roughness = line->roughness;
    if (line->has_emissive)
        memcpy(material->emissive, line->emissive, sizeof line->emissive);
    if (line->has_normal_scale)
        material->normal_scale = line->normal_scale;
    if (line->has_occlusion)
        material->occlusion_strength = line->occlusion;
    if (line->has_alpha_cutoff)
        material->alpha_cutoff = line->alpha_cutoff;
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        bool redirected = s == IR_SLOT_NORMAL && line->height_path[0] != '\0';
        if (line->slot_change[s] != 0 || redirected)
            material->textures[s].image = image[s];
    }
}

bool driver_material_overrides(cook_context *ctx, ir_asset *asset) {
    const char *text = ctx->settings->material_overrides;
    bool ok = true;
    override_line *line = malloc(sizeof *line);
    if (line == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    while (ok && *text != '\0') {
        size_t length = strcspn(text, "\n");
        ok = parse_line(ctx, text, length, line);
        text += length + (text[length] == '\n');
        int32_t image[IR_SLOT_COUNT];
        bool matched = false;
        for (uint32_t m = 0; ok && m < asset->material_count; m++) {
            ir_material *material = &asset->materials[m];
            char fallback[32];
            snprintf(fallback, sizeof fallback, "material_%u", m);
            const char *name = material->name && !material->unnamed ? material->name : fallback;
            if (!discover_glob_match(line->pattern, name))
                continue;
            if (!matched)
                ok = add_line_images(ctx, asset, line, image);
            matched = true;
            if (ok)
                apply_line(line, image, &asset->materials[m]);
        }
        if (ok && !matched)
            diag_warning(ctx->diag, ctx->source_path, 0,
                         "material.overrides: '%s' names no material of this model (ignored)",
                         line->pattern);
    }
    free(line);
    return ok;
}
