/* model_materials.c — what a model's materials are called and which flags a
 * kiln.yml rule forces on them: the leaf of each row's ref (its source name
 * where that is unique, else material_<row>) and material.flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

void driver_leaf_from_text(const char *text, size_t length, char *out, size_t size) {
    if (size == 0)
        return;
    if (length >= size)
        length = size - 1;
    for (size_t c = 0; c < length; c++) {
        char ch = ascii_lower(text[c]);
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
        out[c] = keep ? ch : '_';
    }
    out[length] = '\0';
}

bool driver_leaf_is_reserved(const char *leaf) {
    if (strcmp(leaf, "scene") == 0 || strcmp(leaf, "anim") == 0 ||
        strcmp(leaf, DRIVER_MATERIAL_TABLE_LEAF) == 0)
        return true;
    const char *prefixes[] = {"mesh_", "material_"};
    for (size_t p = 0; p < 2; p++) {
        size_t length = strlen(prefixes[p]);
        if (strncmp(leaf, prefixes[p], length) != 0 || leaf[length] == '\0')
            continue;
        if (strspn(leaf + length, "0123456789") == strlen(leaf + length))
            return true;
    }
    return false;
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* How many times `leaf` is in the sorted list. */
static size_t count_in(const char **sorted, size_t count, const char *leaf) {
    const char **hit = bsearch(&leaf, sorted, count, sizeof *sorted, compare_strings);
    if (hit == NULL)
        return 0;
    const char **first = hit, **last = hit;
    while (first > sorted && strcmp(first[-1], leaf) == 0)
        first--;
    while (last + 1 < sorted + count && strcmp(last[1], leaf) == 0)
        last++;
    return (size_t)(last - first) + 1;
}

bool driver_material_leaves(const ir_asset *asset, const char *const *taken, size_t taken_count,
                            char (*leaves)[DRIVER_LEAF_MAX]) {
    uint32_t count = asset->material_count;
    const char **by_name = malloc((count ? count : 1) * sizeof *by_name);
    const char **textures = malloc((taken_count ? taken_count : 1) * sizeof *textures);
    if (by_name == NULL || textures == NULL) {
        free(by_name);
        free(textures);
        return false;
    }
    for (uint32_t m = 0; m < count; m++) {
        const ir_material *material = &asset->materials[m];
        const char *name = material->name && !material->unnamed ? material->name : "";
        driver_leaf_from_text(name, strlen(name), leaves[m], DRIVER_LEAF_MAX);
        by_name[m] = leaves[m];
    }
    memcpy(textures, taken, taken_count * sizeof *textures);
    qsort(by_name, count, sizeof *by_name, compare_strings);
    qsort(textures, taken_count, sizeof *textures, compare_strings);
    /* Decide every row before changing any: the candidates stay in place. */
    bool *fallback = calloc(count ? count : 1, sizeof *fallback);
    if (fallback == NULL) {
        free(by_name);
        free(textures);
        return false;
    }
    for (uint32_t m = 0; m < count; m++) {
        const char *leaf = leaves[m];
        fallback[m] = leaf[0] == '\0' || strspn(leaf, "_") == strlen(leaf) ||
                      driver_leaf_is_reserved(leaf) || count_in(by_name, count, leaf) > 1 ||
                      count_in(textures, taken_count, leaf) > 0;
    }
    for (uint32_t m = 0; m < count; m++)
        if (fallback[m])
            snprintf(leaves[m], DRIVER_LEAF_MAX, "material_%u", m);
    free(fallback);
    free(by_name);
    free(textures);
    return true;
}

/* ---------------------------------------------------------------------------
 * material.flags: lines "PATTERN=FLAG FLAG,..." (docs/configuration.md)
 * ------------------------------------------------------------------------- */

static const struct {
    const char *word;
    uint32_t bit;
} flag_words[] = {
    {"cast_shadows", KILN_MATERIAL_FLAG_CAST_SHADOWS},
    {"receive_shadows", KILN_MATERIAL_FLAG_RECEIVE_SHADOWS},
    {"transparent", KILN_MATERIAL_FLAG_TRANSPARENT},
    {"double_sided", KILN_MATERIAL_FLAG_DOUBLE_SIDED},
};

/* One word ("cast_shadows", "no_transparent"...) into on/off bits. */
bool driver_material_flag_word(const char *word, size_t length, uint32_t *on, uint32_t *off) {
    bool negated = length > 3 && strncmp(word, "no_", 3) == 0;
    const char *base = negated ? word + 3 : word;
    size_t base_length = negated ? length - 3 : length;
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++) {
        if (strlen(flag_words[i].word) != base_length ||
            strncmp(flag_words[i].word, base, base_length) != 0)
            continue;
        if (negated) {
            *off |= flag_words[i].bit;
            *on &= ~flag_words[i].bit;
        } else {
            *on |= flag_words[i].bit;
            *off &= ~flag_words[i].bit;
        }
        return true;
    }
    return false;
}

bool driver_material_flags(cook_context *ctx, ir_asset *asset, char (*leaves)[DRIVER_LEAF_MAX]) {
    const char *text = ctx->settings->material_flags;
    bool ok = true;
    while (*text != '\0') {
        size_t line_length = strcspn(text, "\n");
        char line[COOK_SHADER_TEXT_MAX];
        snprintf(line, sizeof line, "%.*s", (int)line_length, text);
        text += line_length + (text[line_length] == '\n');
        char *equals = strrchr(line, '=');
        if (equals == NULL || equals == line) {
            diag_error(ctx->diag, ctx->source_path, 0,
                       "material.flags: '%s' is not PATTERN=FLAGS (a material name glob, '=', "
                       "then flags separated by spaces or commas)",
                       line);
            ok = false;
            continue;
        }
        *equals = '\0';
        uint32_t on = 0, off = 0;
        for (const char *word = equals + 1; *word != '\0';) {
            word += strspn(word, " ,\t");
            size_t length = strcspn(word, " ,\t");
            if (length == 0)
                break;
            if (!driver_material_flag_word(word, length, &on, &off)) {
                diag_error(ctx->diag, ctx->source_path, 0,
                           "material.flags: '%.*s' is not a flag (cast_shadows, receive_shadows, "
                           "transparent, double_sided, each also with no_ before it)",
                           (int)length, word);
                ok = false;
            }
            word += length;
        }
        /* A line selects a material by its source name or by its ref's leaf
         * (material_3 for one without a name); later lines win. */
        for (uint32_t m = 0; ok && m < asset->material_count; m++) {
            ir_material *material = &asset->materials[m];
            const char *name = material->name && !material->unnamed ? material->name : "";
            if (!discover_glob_match(line, name) && !discover_glob_match(line, leaves[m]))
                continue;
            material->flags_on = (material->flags_on & ~off) | on;
            material->flags_off = (material->flags_off & ~on) | off;
        }
    }
    return ok;
}
