/*
 * mat.c — one standalone material file's bytes into a mat_doc (mat.h),
 * through libyaml's document API so that every message carries the line of
 * the node it is about. Values outside the .kmat row's ranges (kmat.md) are
 * errors, not clamped: the file is written by hand.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cook/core/yaml_doc.h"
#include "cook/import/mat.h"

typedef struct mat_state {
    yaml_document_t *doc;
    const char *path;
    cook_diag *diag;
    bool failed;
} mat_state;

static uint32_t node_line(const yaml_node_t *node) {
    return (uint32_t)node->start_mark.line + 1;
}

static void fail(mat_state *state, const yaml_node_t *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(mat_state *state, const yaml_node_t *node, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    diag_verror(state->diag, state->path, node != NULL ? node_line(node) : 0, fmt, args);
    va_end(args);
    state->failed = true;
}

static const char *scalar_text(const yaml_node_t *node) {
    return node != NULL && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value
                                                          : NULL;
}

/* A finite number written as a plain scalar, in [low, high]. */
static bool read_number(mat_state *state, const yaml_node_t *node, const char *key, double low,
                        double high, float *out) {
    const char *text = scalar_text(node);
    char *end = NULL;
    double value = text != NULL && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                           text[0] != '\0' &&
                           strspn(text, "+-.0123456789eE") == node->data.scalar.length
                       ? strtod(text, &end)
                       : NAN;
    if (end == NULL || *end != '\0' || !isfinite(value)) {
        fail(state, node, "%s: expected a number", key);
        return false;
    }
    if (value < low || value > high) {
        fail(state, node, "%s: %s is out of range (%g to %g)", key, text, low, high);
        return false;
    }
    *out = (float)value;
    return true;
}

/* A list of `min`..`max` numbers in [low, high]; `count` receives how many. */
static bool read_numbers(mat_state *state, const yaml_node_t *node, const char *key, size_t min,
                         size_t max, double low, double high, float *out, size_t *count) {
    size_t n = node->type == YAML_SEQUENCE_NODE
                   ? (size_t)(node->data.sequence.items.top - node->data.sequence.items.start)
                   : 0;
    if (node->type != YAML_SEQUENCE_NODE || n < min || n > max) {
        if (min == max)
            fail(state, node, "%s: expected a list of %zu numbers", key, min);
        else
            fail(state, node, "%s: expected a list of %zu to %zu numbers", key, min, max);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *item = yaml_document_get_node(state->doc, node->data.sequence.items.start[i]);
        if (item == NULL || !read_number(state, item, key, low, high, &out[i]))
            return false;
    }
    if (count != NULL)
        *count = n;
    return true;
}

static bool read_bool(mat_state *state, const yaml_node_t *node, const char *key, bool *out) {
    const char *text = scalar_text(node);
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "on"};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "off"};
    for (size_t i = 0; text != NULL && i < sizeof yes / sizeof yes[0]; i++) {
        if (strcmp(text, yes[i]) == 0 || strcmp(text, no[i]) == 0) {
            *out = strcmp(text, yes[i]) == 0;
            return true;
        }
    }
    fail(state, node, "%s: expected true or false", key);
    return false;
}

/* One of `names` (NULL-terminated); its index, or -1 after an error. */
static int read_choice(mat_state *state, const yaml_node_t *node, const char *key,
                       const char *const *names) {
    const char *text = scalar_text(node);
    for (int i = 0; text != NULL && names[i] != NULL; i++)
        if (strcmp(text, names[i]) == 0)
            return i;
    char list[256] = "";
    for (int i = 0; names[i] != NULL; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    fail(state, node, "%s: '%s' is not one of %s", key, text ? text : "(not a text)", list);
    return -1;
}

static const char *const slot_keys[] = {
    "base_color", "metallic_roughness", "normal", "occlusion", "emissive", "alpha", NULL};
static const char *const wrap_names[] = {"repeat", "mirrored_repeat", "clamp_to_edge", NULL};
static const char *const filter_names[] = {"linear", "nearest", NULL};
static const char *const mip_filter_names[] = {"linear", "nearest", "none", NULL};
static const char *const alpha_names[] = {"opaque", "mask", "blend", NULL};

/* The image a slot names: an earlier slot's when the text is the same. */
static int32_t add_image(mat_state *state, mat_doc *doc, const yaml_node_t *node, const char *key) {
    const char *text = scalar_text(node);
    if (text == NULL || text[0] == '\0' || strlen(text) != node->data.scalar.length) {
        fail(state, node, "%s: expected an image path (relative to the .mat)", key);
        return -1;
    }
    ir_asset *asset = &doc->asset;
    for (uint32_t i = 0; i < asset->image_count; i++)
        if (strcmp(asset->images[i].path, text) == 0)
            return (int32_t)i;
    ir_image *image = &asset->images[asset->image_count];
    memset(image, 0, sizeof *image);
    image->path = cook_strdup(text);
    image->name = cook_strdup(text);
    if (image->path == NULL || image->name == NULL) {
        free(image->path);
        free(image->name);
        fail(state, node, "out of memory");
        return -1;
    }
    doc->image_lines[asset->image_count] = node_line(node);
    return (int32_t)asset->image_count++;
}

/* A slot: a path, or a map with `image` and the sampler and transform. */
static void read_slot(mat_state *state, mat_doc *doc, const yaml_node_t *node, const char *slot,
                      ir_texture_ref *ref) {
    char key[96];
    if (node->type == YAML_SCALAR_NODE) {
        snprintf(key, sizeof key, "textures.%s", slot);
        ref->image = add_image(state, doc, node, key);
        return;
    }
    if (node->type != YAML_MAPPING_NODE) {
        fail(state, node, "textures.%s: expected an image path or a map with 'image'", slot);
        return;
    }
    const yaml_node_t *image = NULL;
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top && !state->failed; pair++) {
        yaml_node_t *k = yaml_document_get_node(state->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(state->doc, pair->value);
        const char *name = scalar_text(k);
        if (name == NULL || v == NULL)
            continue;
        snprintf(key, sizeof key, "textures.%s.%s", slot, name);
        int choice = 0;
        float numbers[2];
        if (strcmp(name, "image") == 0) {
            image = v;
        } else if (strcmp(name, "texcoord") == 0) {
            float set;
            if (read_number(state, v, key, 0, 1, &set))
                ref->texcoord = set >= 0.5f ? 1u : 0u;
            if (!state->failed && set != 0.0f && set != 1.0f)
                fail(state, v, "%s: expected 0 or 1", key);
        } else if (strcmp(name, "wrap") == 0 || strcmp(name, "wrap_s") == 0 ||
                   strcmp(name, "wrap_t") == 0) {
            if ((choice = read_choice(state, v, key, wrap_names)) >= 0) {
                if (name[4] != '_' || name[5] == 's')
                    ref->wrap_s = (uint8_t)choice;
                if (name[4] != '_' || name[5] == 't')
                    ref->wrap_t = (uint8_t)choice;
            }
        } else if (strcmp(name, "mag_filter") == 0 || strcmp(name, "min_filter") == 0) {
            if ((choice = read_choice(state, v, key, filter_names)) >= 0)
                *(name[1] == 'a' ? &ref->mag_filter : &ref->min_filter) = (uint8_t)choice;
        } else if (strcmp(name, "mip_filter") == 0) {
            if ((choice = read_choice(state, v, key, mip_filter_names)) >= 0)
                ref->mip_filter = (uint8_t)choice;
        } else if (strcmp(name, "offset") == 0 || strcmp(name, "scale") == 0) {
            if (read_numbers(state, v, key, 2, 2, -1e30, 1e30, numbers, NULL))
                memcpy(name[0] == 'o' ? ref->offset : ref->scale, numbers, sizeof numbers);
        } else if (strcmp(name, "rotation") == 0) {
            read_number(state, v, key, -1e30, 1e30, &ref->rotation);
        } else {
            fail(state, k,
                 "unknown key '%s' in textures.%s (image, texcoord, wrap, wrap_s, wrap_t, "
                 "mag_filter, min_filter, mip_filter, offset, scale, rotation)",
                 name, slot);
        }
    }
    if (state->failed)
        return;
    snprintf(key, sizeof key, "textures.%s.image", slot);
    if (image == NULL)
        fail(state, node, "textures.%s: no 'image'", slot);
    else
        ref->image = add_image(state, doc, image, key);
}

static void read_textures(mat_state *state, mat_doc *doc, const yaml_node_t *node) {
    if (node->type != YAML_MAPPING_NODE) {
        fail(state, node, "textures: expected a map of slot: image");
        return;
    }
    ir_material *m = &doc->asset.materials[0];
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top && !state->failed; pair++) {
        yaml_node_t *k = yaml_document_get_node(state->doc, pair->key);
        yaml_node_t *v = yaml_document_get_node(state->doc, pair->value);
        const char *name = scalar_text(k);
        if (name == NULL || v == NULL)
            continue;
        int slot = 0;
        while (slot_keys[slot] != NULL && strcmp(slot_keys[slot], name) != 0)
            slot++;
        if (slot_keys[slot] == NULL)
            fail(state, k,
                 "unknown texture slot '%s' (base_color, metallic_roughness, normal, occlusion, "
                 "emissive, alpha)",
                 name);
        else if (m->textures[slot].image >= 0)
            fail(state, k, "texture slot '%s' appears twice", name);
        else
            read_slot(state, doc, v, name, &m->textures[slot]);
    }
}

/* flags: a list of words or one text of words, kept as one text for the
 * driver (material.flags' words). */
static void read_flags(mat_state *state, mat_doc *doc, const yaml_node_t *node) {
    bytebuf words = {0};
    if (node->type == YAML_SCALAR_NODE) {
        bytebuf_printf(&words, "%s", scalar_text(node));
    } else if (node->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *item = node->data.sequence.items.start;
             item < node->data.sequence.items.top; item++) {
            const char *word = scalar_text(yaml_document_get_node(state->doc, *item));
            if (word == NULL) {
                fail(state, node, "flags: expected a list of flag words");
                break;
            }
            bytebuf_printf(&words, "%s%s", words.size ? " " : "", word);
        }
    } else {
        fail(state, node, "flags: expected a list of flag words");
    }
    bytebuf_append(&words, "", 1);
    if (!state->failed && !words.failed) {
        doc->flags = (char *)words.data;
        doc->flags_line = node_line(node);
        return;
    }
    if (words.failed)
        fail(state, node, "out of memory");
    bytebuf_free(&words);
}

/* One key of the file's map. */
static void read_key(mat_state *state, mat_doc *doc, const yaml_node_t *k, const yaml_node_t *v) {
    ir_material *m = &doc->asset.materials[0];
    const char *key = scalar_text(k);
    size_t count = 0;
    float numbers[4];
    if (strcmp(key, "name") == 0) {
        const char *text = scalar_text(v);
        if (text == NULL || text[0] == '\0' || strlen(text) != v->data.scalar.length) {
            fail(state, v, "name: expected a non-empty text");
        } else {
            free(m->name);
            if ((m->name = cook_strdup(text)) == NULL)
                fail(state, v, "out of memory");
        }
    } else if (strcmp(key, "base_color") == 0) {
        if (read_numbers(state, v, key, 3, 4, 0, 1, numbers, &count))
            memcpy(m->base_color, numbers, count * sizeof numbers[0]);
    } else if (strcmp(key, "emissive") == 0) {
        read_numbers(state, v, key, 3, 3, 0, 3e38, m->emissive, NULL);
    } else if (strcmp(key, "specular_color") == 0) {
        read_numbers(state, v, key, 3, 3, 0, 3e38, m->specular_color, NULL);
    } else if (strcmp(key, "metallic") == 0) {
        read_number(state, v, key, 0, 1, &m->metallic);
    } else if (strcmp(key, "roughness") == 0) {
        read_number(state, v, key, 0, 1, &m->roughness);
    } else if (strcmp(key, "normal_scale") == 0) {
        read_number(state, v, key, -3e38, 3e38, &m->normal_scale);
    } else if (strcmp(key, "occlusion_strength") == 0) {
        read_number(state, v, key, 0, 1, &m->occlusion_strength);
    } else if (strcmp(key, "alpha_cutoff") == 0) {
        read_number(state, v, key, 0, 3e38, &m->alpha_cutoff);
    } else if (strcmp(key, "specular") == 0) {
        read_number(state, v, key, 0, 1, &m->specular);
    } else if (strcmp(key, "alpha_mode") == 0) {
        int mode = read_choice(state, v, key, alpha_names);
        if (mode >= 0)
            m->alpha_mode = (ir_alpha_mode)mode;
    } else if (strcmp(key, "double_sided") == 0) {
        read_bool(state, v, key, &m->double_sided);
    } else if (strcmp(key, "unlit") == 0) {
        read_bool(state, v, key, &m->unlit);
    } else if (strcmp(key, "flags") == 0) {
        read_flags(state, doc, v);
    } else if (strcmp(key, "textures") == 0) {
        read_textures(state, doc, v);
    } else {
        fail(state, k,
             "unknown key '%s' (name, base_color, emissive, metallic, roughness, normal_scale, "
             "occlusion_strength, alpha_mode, alpha_cutoff, specular, specular_color, "
             "double_sided, unlit, flags, textures)",
             key);
    }
}

/* The default name: the file's name without folder and ".mat". */
static char *stem_of(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t length = strlen(name);
    if (length > 4 && ascii_ends_with_ci(name, ".mat"))
        length -= 4;
    char *stem = malloc(length + 1);
    if (stem != NULL) {
        memcpy(stem, name, length);
        stem[length] = '\0';
    }
    return stem;
}

/* A key given twice: the first repeat, or NULL. */
static const yaml_node_t *repeated_key(const mat_state *state, const yaml_node_t *map) {
    for (yaml_node_pair_t *a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top;
         a++) {
        const char *x = scalar_text(yaml_document_get_node(state->doc, a->key));
        for (yaml_node_pair_t *b = a + 1; x != NULL && b < map->data.mapping.pairs.top; b++) {
            const yaml_node_t *key = yaml_document_get_node(state->doc, b->key);
            const char *y = scalar_text(key);
            if (y != NULL && strcmp(x, y) == 0)
                return key;
        }
    }
    return NULL;
}

bool mat_parse(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag, mat_doc *out) {
    memset(out, 0, sizeof *out);
    if (size > MAT_MAX_BYTES) {
        diag_error(diag, path, 0, "a material file is at most %zu bytes; this one is %zu",
                   MAT_MAX_BYTES, size);
        return false;
    }
    ir_asset *asset = &out->asset;
    asset->materials = calloc(1, sizeof *asset->materials);
    asset->images = calloc(IR_SLOT_COUNT, sizeof *asset->images);
    if (asset->materials == NULL || asset->images == NULL) {
        diag_error(diag, path, 0, "out of memory");
        mat_doc_free(out);
        return false;
    }
    asset->material_count = 1;
    ir_material_init(&asset->materials[0]);
    asset->materials[0].name = stem_of(path);
    const unsigned char *begin = bytes, *end = bytes + size;
    if (size > 0)
        cook_text_trim(&begin, &end);
    yaml_document_t doc;
    if (asset->materials[0].name == NULL ||
        !yaml_doc_load(path, begin, (size_t)(end - begin), MAT_MAX_YAML_DEPTH, &doc, diag)) {
        if (asset->materials[0].name == NULL)
            diag_error(diag, path, 0, "out of memory");
        mat_doc_free(out);
        return false;
    }
    mat_state state = {.doc = &doc, .path = path, .diag = diag};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root == NULL || root->type != YAML_MAPPING_NODE) {
        fail(&state, root, "a material file is a map of keys (name, base_color, textures, ...)");
    } else {
        const yaml_node_t *twice = repeated_key(&state, root);
        if (twice != NULL)
            fail(&state, twice, "'%s' appears twice", scalar_text(twice));
        for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
             pair < root->data.mapping.pairs.top && !state.failed; pair++) {
            yaml_node_t *k = yaml_document_get_node(&doc, pair->key);
            yaml_node_t *v = yaml_document_get_node(&doc, pair->value);
            if (k == NULL || v == NULL || scalar_text(k) == NULL)
                fail(&state, k, "a key of a material file is a text");
            else
                read_key(&state, out, k, v);
        }
    }
    yaml_document_delete(&doc);
    if (state.failed)
        mat_doc_free(out);
    return !state.failed;
}

void mat_doc_free(mat_doc *doc) {
    ir_asset_free(&doc->asset);
    free(doc->flags);
    memset(doc, 0, sizeof *doc);
}
