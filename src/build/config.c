/*
 * config.c — kiln.yml parsing (libyaml's document API) and settings resolution.
 *
 * The whole file is loaded as a node tree first, so every message can carry
 * the line of the node it is about. Values are validated here, once, so the
 * stages can trust cook_settings.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "build/internal.h"
#include "common/fnv.h"
#include "common/grow.h"

#define CONFIG_MAX_SIZE (1u << 20) /* a kiln.yml is a few KiB; refuse anything huge */
#define CONFIG_MAX_ANCESTORS 64
/* The deepest kiln.yml nests four levels (presets: name: rules: - match:);
 * anything far deeper is not a configuration, and libyaml's loader slows
 * down quadratically with depth, so it is refused before it is loaded. */
#define CONFIG_MAX_DEPTH 32
/* Every node costs libyaml some 100 bytes: bound them as the size is bound. */
#define CONFIG_MAX_NODES 100000
/* The values the parser visits once aliases are expanded (each use of an
 * alias visits its anchor's whole value again): 16 per byte of the file, at
 * least CONFIG_MIN_EXPANDED, at most CONFIG_MAX_NODES, as a level bounds
 * its components. Without the bound, a 27 KB kiln.yml of one rule of 2000
 * unknown keys aliased 2000 times made 4 million warnings (135 s, 700 MB). */
#define CONFIG_EXPANDED_PER_BYTE 16u
#define CONFIG_MIN_EXPANDED 4096u

typedef struct parse_state {
    yaml_document_t *doc;
    const char *path;
    cook_diag *diag;
} parse_state;

/* ---------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------- */

static uint32_t node_line(const yaml_node_t *node) {
    return (uint32_t)node->start_mark.line + 1;
}

static yaml_node_t *node_at(const parse_state *state, int index) {
    return yaml_document_get_node(state->doc, index);
}

/* A map pair's key and value, and the key's text; NULL (and no error) for a
 * pair every section skips: a key refuse_duplicate_keys cleared, a missing
 * node, a key that is not a scalar. */
static const char *pair_nodes(const parse_state *state, const yaml_node_pair_t *pair,
                              yaml_node_t **key, yaml_node_t **value) {
    *key = node_at(state, pair->key);
    *value = node_at(state, pair->value);
    if (*key == NULL || *value == NULL || (*key)->type != YAML_SCALAR_NODE)
        return NULL;
    return (const char *)(*key)->data.scalar.value;
}

/* Takes one key of a map: its node, its text and its value's node. */
typedef void (*key_parser)(const parse_state *state, const yaml_node_t *key, const char *name,
                           const yaml_node_t *value, void *context);

/* Calls `parse` for each pair of the map `node` that pair_nodes does not skip. */
static void for_each_key(const parse_state *state, const yaml_node_t *node, key_parser parse,
                         void *context) {
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *key, *value;
        const char *name = pair_nodes(state, pair, &key, &value);
        if (name != NULL)
            parse(state, key, name, value, context);
    }
}

/* The text of a scalar node, or NULL (with an error) for a map or a list. */
static const char *scalar_of(const parse_state *state, const yaml_node_t *node, const char *what) {
    if (node->type == YAML_SCALAR_NODE)
        return (const char *)node->data.scalar.value;
    diag_error(state->diag, state->path, node_line(node), "%s: expected a single value", what);
    return NULL;
}

/* True when `node` is of `type`; an empty section ("default:" with nothing
 * under it, a null scalar) is false without an error; anything else is an
 * error saying what was expected. */
static bool expect_node(const parse_state *state, const yaml_node_t *node, yaml_node_type_t type,
                        const char *what, const char *expected) {
    if (node->type == type)
        return true;
    if (node->type == YAML_SCALAR_NODE && node->data.scalar.length == 0)
        return false;
    diag_error(state->diag, state->path, node_line(node), "%s: expected %s", what, expected);
    return false;
}

static bool expect_mapping(const parse_state *state, const yaml_node_t *node, const char *what) {
    return expect_node(state, node, YAML_MAPPING_NODE, what, "a map of keys");
}

static bool expect_sequence(const parse_state *state, const yaml_node_t *node, const char *what) {
    return expect_node(state, node, YAML_SEQUENCE_NODE, what, "a list");
}

static void warn_unknown_key(const parse_state *state, const yaml_node_t *key, const char *where) {
    const char *name = key->type == YAML_SCALAR_NODE ? (const char *)key->data.scalar.value : "?";
    diag_warning(state->diag, state->path, node_line(key), "unknown key '%s'%s%s (ignored)", name,
                 where[0] ? " in " : "", where);
}

static char *path_folder(const char *path) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return cook_strdup(".");
    size_t length = slash == path ? 1 : (size_t)(slash - path);
    char *folder = malloc(length + 1);
    if (folder != NULL) {
        memcpy(folder, path, length);
        folder[length] = '\0';
    }
    return folder;
}

/* A folder named in the file is relative to the file's own folder, so a build
 * started from a subfolder finds the same input and output. */
static char *config_relative_path(const char *config_path, const char *value) {
    if (value[0] == '/')
        return cook_strdup(value);
    char *folder = path_folder(config_path);
    if (folder == NULL)
        return NULL;
    char *joined = NULL;
    if (strcmp(folder, ".") == 0) {
        joined = cook_strdup(value);
    } else {
        size_t a = strlen(folder), b = strlen(value);
        joined = malloc(a + b + 2);
        if (joined != NULL) {
            memcpy(joined, folder, a);
            joined[a] = '/';
            memcpy(joined + a + 1, value, b + 1);
        }
    }
    free(folder);
    return joined;
}

/* ---------------------------------------------------------------------------
 * Values: one parser per type of settings key (cook_setting_type)
 * ------------------------------------------------------------------------- */

static bool parse_bool_value(const parse_state *state, const yaml_node_t *node, const char *key,
                             bool *out) {
    const char *text = scalar_of(state, node, key);
    if (text == NULL)
        return false;
    if (strcmp(text, "true") == 0) {
        *out = true;
        return true;
    }
    if (strcmp(text, "false") == 0) {
        *out = false;
        return true;
    }
    diag_error(state->diag, state->path, node_line(node), "%s: expected true or false, got '%s'",
               key, text);
    return false;
}

static bool parse_int_value(const parse_state *state, const yaml_node_t *node, const char *key,
                            long min, long max, long *out) {
    const char *text = scalar_of(state, node, key);
    if (text == NULL)
        return false;
    char *end = NULL;
    errno = 0;
    bool number = isdigit((unsigned char)text[0]) ||
                  (min < 0 && text[0] == '-' && isdigit((unsigned char)text[1]));
    long value = number ? strtol(text, &end, 10) : 0;
    if (end == NULL || *end != '\0' || errno != 0 || value < min || value > max) {
        diag_error(state->diag, state->path, node_line(node),
                   "%s: expected a whole number from %ld to %ld, got '%s'", key, min, max, text);
        return false;
    }
    *out = value;
    return true;
}

static bool parse_choice_value(const parse_state *state, const yaml_node_t *node, const char *key,
                               const char *const *choices, long *out) {
    const char *text = scalar_of(state, node, key);
    if (text == NULL)
        return false;
    int found = cook_names_find(choices, text);
    if (found >= 0) {
        *out = found;
        return true;
    }
    char list[256] = "";
    for (size_t i = 0; choices[i] != NULL; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, choices[i], sizeof list - strlen(list) - 1);
    }
    diag_error(state->diag, state->path, node_line(node), "%s: '%s' is not one of %s", key, text,
               list);
    return false;
}

/* A list of fractions in (0, 1], such as mesh.lod_ratios: one per reduced level. */
static bool parse_ratios_value(const parse_state *state, const yaml_node_t *node,
                               const cook_setting *setting, cook_settings *values) {
    const char *key = setting->name;
    if (node->type != YAML_SEQUENCE_NODE) {
        diag_error(state->diag, state->path, node_line(node),
                   "%s: expected a list of numbers such as [0.5, 0.25]", key);
        return false;
    }
    size_t count = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    size_t max = (size_t)setting->max;
    if (count > max) {
        diag_error(state->diag, state->path, node_line(node), "%s: at most %zu ratios, got %zu",
                   key, max, count);
        return false;
    }
    uint32_t *ratio_count;
    float *ratios = cook_setting_ratios(setting, values, &ratio_count);
    for (size_t i = 0; i < count; i++) {
        const yaml_node_t *item = node_at(state, node->data.sequence.items.start[i]);
        const char *text = item ? scalar_of(state, item, key) : NULL;
        if (text == NULL)
            return false;
        char *end = NULL;
        double value = strtod(text, &end);
        if (end == text || *end != '\0' || !isfinite(value) || value <= 0.0 || value > 1.0) {
            diag_error(state->diag, state->path, node_line(item),
                       "%s: expected a number in (0, 1], got '%s'", key, text);
            return false;
        }
        ratios[i] = (float)value;
    }
    *ratio_count = (uint32_t)count;
    return true;
}

/* A tolerance number: finite, 0 to 1e6. */
static bool parse_tolerance_number(const parse_state *state, const yaml_node_t *node,
                                   const char *key, float *out) {
    const char *text = scalar_of(state, node, key);
    if (text == NULL)
        return false;
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || !cook_tolerance_valid(value)) {
        diag_error(state->diag, state->path, node_line(node),
                   "%s: expected true, false, a tolerance (a number from 0 to 1e6) or a map of "
                   "translation, rotation (radians), scale, weights; got '%s'",
                   key, text);
        return false;
    }
    *out = (float)value;
    return true;
}

/* TOLERANCE (anim.reduce): true / false (the default tolerances), one number
 * for every path (rotations in radians), or a map of translation, rotation,
 * scale and weights (the others keep their defaults). */
static bool parse_tolerance_value(const parse_state *state, const yaml_node_t *node,
                                  const cook_setting *setting, cook_settings *values) {
    cook_settings scratch;
    cook_setting_set(setting, &scratch, 1);
    cook_anim_tolerance t =
        *(const cook_anim_tolerance *)(const void *)((const char *)&scratch + setting->offset);
    if (node->type == YAML_SCALAR_NODE) {
        const char *text = (const char *)node->data.scalar.value;
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
            t.on = text[0] == 't';
        } else {
            float value = 0.0f;
            if (!parse_tolerance_number(state, node, setting->name, &value))
                return false;
            t.translation = t.rotation = t.scale = t.weights = value;
        }
    } else if (node->type == YAML_MAPPING_NODE) {
        for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
             pair < node->data.mapping.pairs.top; pair++) {
            const yaml_node_t *name = node_at(state, pair->key);
            const yaml_node_t *value = node_at(state, pair->value);
            const char *text = name ? scalar_of(state, name, setting->name) : NULL;
            if (text == NULL || value == NULL)
                return false;
            int field = cook_names_find(cook_tolerance_names, text);
            if (field < 0) {
                diag_error(state->diag, state->path, node_line(name),
                           "%s: unknown tolerance '%s' (expected translation, rotation, scale or "
                           "weights)",
                           setting->name, text);
                return false;
            }
            char where[64];
            snprintf(where, sizeof where, "%s.%s", setting->name, text);
            if (!parse_tolerance_number(state, value, where,
                                        cook_tolerance_field(&t, (size_t)field)))
                return false;
        }
    } else {
        diag_error(state->diag, state->path, node_line(node),
                   "%s: expected true, false, a number or a map", setting->name);
        return false;
    }
    memcpy((char *)values + setting->offset, &t, sizeof t);
    return true;
}

/* Appends `text` to out[0..cap) after `separator` (none when out is empty);
 * false when it does not fit. */
static bool text_append(char *out, size_t cap, char separator, const char *text) {
    size_t used = strlen(out), length = strlen(text);
    size_t need = used + (used > 0 && separator != '\0') + length + 1;
    if (need > cap)
        return false;
    if (used > 0 && separator != '\0')
        out[used++] = separator;
    memcpy(out + used, text, length + 1);
    return true;
}

/* One item of a TEXT value: a scalar as it is, a list's scalars joined by
 * spaces, a map's pairs as KEY=VALUE joined by spaces. */
static bool text_item(const parse_state *state, const yaml_node_t *node, const char *key,
                      char *item, size_t cap) {
    item[0] = '\0';
    bool ok = true;
    if (node->type == YAML_SCALAR_NODE) {
        ok = text_append(item, cap, ' ', (const char *)node->data.scalar.value);
    } else if (node->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *at = node->data.sequence.items.start;
             ok && at < node->data.sequence.items.top; at++) {
            const yaml_node_t *sub = node_at(state, *at);
            const char *text = sub ? scalar_of(state, sub, key) : NULL;
            if (text == NULL)
                return false;
            ok = text_append(item, cap, ' ', text);
        }
    } else {
        for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
             ok && pair < node->data.mapping.pairs.top; pair++) {
            const yaml_node_t *name = node_at(state, pair->key);
            const yaml_node_t *value = node_at(state, pair->value);
            const char *a = name ? scalar_of(state, name, key) : NULL;
            const char *b = value ? scalar_of(state, value, key) : NULL;
            if (a == NULL || b == NULL)
                return false;
            char define[512];
            snprintf(define, sizeof define, b[0] ? "%s=%s" : "%s", a, b);
            ok = text_append(item, cap, ' ', define);
        }
    }
    if (!ok)
        diag_error(state->diag, state->path, node_line(node), "%s: the value is too long", key);
    return ok;
}

/* TEXT (shader.defines, shader.variants, shader.include_dirs, shader.entry):
 * a scalar, or a list whose items become lines (each item a scalar, a list or
 * a map: text_item), or a map whose pairs become KEY=VALUE lines. */
static bool parse_text_value(const parse_state *state, const yaml_node_t *node,
                             const cook_setting *setting, cook_settings *values) {
    char *out = (char *)values + setting->offset;
    size_t cap = setting->size;
    char *text = calloc(1, cap);
    char *item = calloc(1, cap);
    bool ok = text != NULL && item != NULL;
    if (!ok)
        diag_error(state->diag, state->path, node_line(node), "out of memory");
    if (ok && node->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *at = node->data.sequence.items.start;
             ok && at < node->data.sequence.items.top; at++) {
            const yaml_node_t *sub = node_at(state, *at);
            ok = sub != NULL && text_item(state, sub, setting->name, item, cap);
            /* Lines are kept even when empty (a variant with no defines). */
            if (ok && at > node->data.sequence.items.start)
                ok = text_append(text, cap, '\0', "\n");
            if (ok && !text_append(text, cap, '\0', item)) {
                diag_error(state->diag, state->path, node_line(node), "%s: the value is too long",
                           setting->name);
                ok = false;
            }
        }
    } else if (ok && node->type == YAML_MAPPING_NODE) {
        ok = text_item(state, node, setting->name, text, cap);
        for (char *c = text; ok && *c; c++)
            *c = *c == ' ' ? '\n' : *c;
    } else if (ok) {
        ok = text_item(state, node, setting->name, text, cap);
    }
    if (ok && setting->text_default != NULL && strcmp(text, setting->text_default) == 0)
        memset(text, 0, cap); /* the default spelled out is the default */
    if (ok)
        memcpy(out, text, cap);
    free(text);
    free(item);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Settings keys: the table of core/settings.c
 * ------------------------------------------------------------------------- */

/* Parses the value of one key into `values`; false (with an error) when it is
 * not a valid value, and then `values` keeps what it had. */
static bool parse_key_value(const parse_state *state, const cook_setting *key,
                            const yaml_node_t *node, cook_settings *values) {
    long value = 0;
    bool ok = false;
    switch (key->type) {
    case COOK_SETTING_BOOL: {
        bool flag = false;
        ok = parse_bool_value(state, node, key->name, &flag);
        value = flag;
        break;
    }
    case COOK_SETTING_UINT:
    case COOK_SETTING_INT:
        ok = parse_int_value(state, node, key->name, key->min, key->max, &value);
        if (ok && value == 0 && key->zero_error != NULL) {
            diag_error(state->diag, state->path, node_line(node), "%s: %s", key->name,
                       key->zero_error);
            ok = false;
        } else if (ok && key->multiple_of > 1 && value % key->multiple_of != 0) {
            diag_error(state->diag, state->path, node_line(node),
                       "%s: %ld is not a multiple of %ld", key->name, value, key->multiple_of);
            ok = false;
        }
        break;
    case COOK_SETTING_ENUM:
        ok = parse_choice_value(state, node, key->name, key->names, &value);
        break;
    case COOK_SETTING_RATIOS:
        return parse_ratios_value(state, node, key, values);
    case COOK_SETTING_TEXT:
        return parse_text_value(state, node, key, values);
    case COOK_SETTING_TOLERANCE:
        return parse_tolerance_value(state, node, key, values);
    }
    if (ok)
        cook_setting_set(key, values, value);
    return ok;
}

/* Parses one key's value into the overlay and marks the key set. */
static void parse_key_into(const parse_state *state, const cook_setting *key,
                           const yaml_node_t *value, config_overlay *overlay) {
    if (parse_key_value(state, key, value, &overlay->values))
        overlay->set |= (uint64_t)1 << (key - cook_setting_table);
}

/* A settings key, flat ("mesh.lods") or nested ("mesh:" then "lods"). Returns
 * false when `name` is not a settings key at all (the caller warns). */
static bool parse_setting(const parse_state *state, config_overlay *overlay, const char *name,
                          const yaml_node_t *value) {
    const cook_setting *key = cook_setting_find(name);
    if (key != NULL) {
        parse_key_into(state, key, value, overlay);
        return true;
    }
    if (!cook_setting_is_group(name))
        return false;
    if (!expect_mapping(state, value, name))
        return true;
    for (yaml_node_pair_t *pair = value->data.mapping.pairs.start;
         pair < value->data.mapping.pairs.top; pair++) {
        yaml_node_t *sub_key, *sub_value;
        const char *sub_name = pair_nodes(state, pair, &sub_key, &sub_value);
        if (sub_name == NULL)
            continue;
        char full[128];
        snprintf(full, sizeof full, "%s.%s", name, sub_name);
        const cook_setting *sub = cook_setting_find(full);
        if (sub == NULL)
            warn_unknown_key(state, sub_key, name);
        else
            parse_key_into(state, sub, sub_value, overlay);
    }
    return true;
}

void config_overlay_apply(const config_overlay *overlay, cook_settings *settings) {
    for (size_t i = 0; i < cook_setting_count; i++) {
        if (overlay->set & ((uint64_t)1 << i))
            cook_setting_copy(&cook_setting_table[i], settings, &overlay->values);
    }
}

/* ---------------------------------------------------------------------------
 * Sections
 * ------------------------------------------------------------------------- */

static bool rule_list_push(config_rule_list *list, config_rule *rule) {
    config_rule *items = array_grow(list->items, &list->cap, list->count + 1, sizeof *items, 8);
    if (items == NULL)
        return false;
    list->items = items;
    list->items[list->count++] = *rule;
    return true;
}

static void rule_list_free(config_rule_list *list) {
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].match);
    free(list->items);
    *list = (config_rule_list){0};
}

/* A key of a rule (key_parser; `context` the config_rule). */
static void parse_rule_key(const parse_state *state, const yaml_node_t *key, const char *name,
                           const yaml_node_t *value, void *context) {
    config_rule *rule = context;
    if (strcmp(name, "match") == 0) {
        const char *glob = scalar_of(state, value, "match");
        if (glob != NULL) {
            free(rule->match);
            rule->match = cook_strdup(glob);
        }
    } else if (!parse_setting(state, &rule->overlay, name, value)) {
        warn_unknown_key(state, key, "a rule");
    }
}

/* One `- match: GLOB` entry with its settings. */
static void parse_rule(const parse_state *state, const yaml_node_t *node, config_rule_list *rules) {
    if (!expect_mapping(state, node, "rule"))
        return;
    config_rule rule = {.line = node_line(node)};
    for_each_key(state, node, parse_rule_key, &rule);
    if (rule.match == NULL) {
        diag_error(state->diag, state->path, rule.line, "rule without a 'match:' glob");
        return;
    }
    if (!rule_list_push(rules, &rule)) {
        diag_error(state->diag, state->path, rule.line, "out of memory");
        free(rule.match);
    }
}

static void parse_rules(const parse_state *state, const yaml_node_t *node,
                        config_rule_list *rules) {
    if (!expect_sequence(state, node, "rules"))
        return;
    for (yaml_node_item_t *item = node->data.sequence.items.start;
         item < node->data.sequence.items.top; item++) {
        yaml_node_t *rule = node_at(state, *item);
        if (rule != NULL)
            parse_rule(state, rule, rules);
    }
}

/* A key of `default:` (key_parser; `context` the kiln_config). */
static void parse_default_key(const parse_state *state, const yaml_node_t *key, const char *name,
                              const yaml_node_t *value, void *context) {
    kiln_config *config = context;
    if (strcmp(name, "rules") == 0)
        parse_rules(state, value, &config->rules);
    else if (!parse_setting(state, &config->defaults, name, value))
        warn_unknown_key(state, key, "default");
}

/* `default:` — settings, plus an optional `rules:` list. */
static void parse_default(const parse_state *state, const yaml_node_t *node, kiln_config *config) {
    if (expect_mapping(state, node, "default"))
        for_each_key(state, node, parse_default_key, config);
}

/* A key of a preset (key_parser; `context` the config_preset). */
static void parse_preset_key(const parse_state *state, const yaml_node_t *key, const char *name,
                             const yaml_node_t *value, void *context) {
    config_preset *preset = context;
    if (strcmp(name, "rules") == 0) {
        parse_rules(state, value, &preset->rules);
    } else if (strcmp(name, "output") == 0) {
        const char *text = scalar_of(state, value, "output");
        if (text != NULL) {
            free(preset->output);
            preset->output = config_relative_path(state->path, text);
        }
    } else if (!parse_setting(state, &preset->overlay, name, value)) {
        warn_unknown_key(state, key, preset->name);
    }
}

static void parse_preset(const parse_state *state, const yaml_node_t *key, const yaml_node_t *node,
                         config_preset *preset) {
    preset->line = node_line(key);
    if (expect_mapping(state, node, "preset"))
        for_each_key(state, node, parse_preset_key, preset);
}

static void parse_presets(const parse_state *state, const yaml_node_t *node, kiln_config *config) {
    if (!expect_mapping(state, node, "presets"))
        return;
    if (config->presets != NULL) { /* refuse_duplicate_keys leaves one `presets:` */
        diag_error(state->diag, state->path, node_line(node), "presets: given twice");
        return;
    }
    size_t count = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
    config_preset *presets = count ? calloc(count, sizeof *presets) : NULL;
    if (count > 0 && presets == NULL) {
        diag_error(state->diag, state->path, node_line(node), "out of memory");
        return;
    }
    config->presets = presets;
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *key = node_at(state, pair->key), *value = node_at(state, pair->value);
        if (key == NULL || value == NULL)
            continue;
        const char *name = scalar_of(state, key, "preset name");
        if (name == NULL)
            continue;
        if (config_find_preset(config, name) != NULL) {
            diag_error(state->diag, state->path, node_line(key), "preset '%s' defined twice", name);
            continue;
        }
        config_preset *preset = &config->presets[config->preset_count++];
        preset->name = cook_strdup(name);
        parse_preset(state, key, value, preset);
    }
}

/* `always:` and `roots:`: lists of source-relative paths or globs. */
static void parse_glob_list(const parse_state *state, const yaml_node_t *node, const char *name,
                            strlist *out) {
    if (!expect_sequence(state, node, name))
        return;
    for (yaml_node_item_t *item = node->data.sequence.items.start;
         item < node->data.sequence.items.top; item++) {
        yaml_node_t *entry = node_at(state, *item);
        const char *text = entry ? scalar_of(state, entry, name) : NULL;
        if (text != NULL)
            strlist_push(out, text);
    }
}

/* A remote cache URL of kiln.yml: kiln.yml is shared, so it holds no
 * credentials (they come from the environment or a file, docs/team.md). */
static void parse_remote_url(const parse_state *state, const yaml_node_t *node, strlist *out) {
    const char *url = scalar_of(state, node, "cache.remote");
    if (url == NULL)
        return;
    const char *authority = strstr(url, "://");
    authority = authority ? authority + 3 : url;
    size_t length = strcspn(authority, "/?#");
    if (memchr(authority, '@', length) != NULL) {
        diag_error(state->diag, state->path, node_line(node),
                   "cache.remote: a URL with a user or password; kiln.yml is shared, so "
                   "credentials go in KILN_REMOTE_CACHE_TOKEN, KILN_REMOTE_CACHE_TOKEN_FILE or "
                   "the netrc file KILN_REMOTE_CACHE_NETRC names");
        return;
    }
    if (url[0] == '\0')
        diag_error(state->diag, state->path, node_line(node), "cache.remote: empty URL");
    else
        strlist_push(out, url);
}

/* One key of the `cache:` section (key_parser; `context` the kiln_config). */
static void parse_cache_key(const parse_state *state, const yaml_node_t *key, const char *name,
                            const yaml_node_t *value, void *context) {
    kiln_config *config = context;
    if (strcmp(name, "remote") == 0) {
        if (value->type != YAML_SEQUENCE_NODE) {
            parse_remote_url(state, value, &config->remote);
            return;
        }
        for (yaml_node_item_t *item = value->data.sequence.items.start;
             item < value->data.sequence.items.top; item++) {
            yaml_node_t *entry = node_at(state, *item);
            if (entry != NULL)
                parse_remote_url(state, entry, &config->remote);
        }
    } else if (strcmp(name, "remote_mode") == 0) {
        const char *text = scalar_of(state, value, "cache.remote_mode");
        if (text != NULL && (config->remote_mode = remote_mode_parse(text)) == REMOTE_MODE_UNSET)
            diag_error(state->diag, state->path, node_line(value),
                       "cache.remote_mode: '%s' is not read-write or read-only", text);
    } else if (strcmp(name, "max_upload") == 0) {
        const char *text = scalar_of(state, value, "cache.max_upload");
        if (text != NULL && !build_parse_size(text, &config->remote_max_upload))
            diag_error(state->diag, state->path, node_line(value),
                       "cache.max_upload: '%s' is not a size (bytes, or with K, M or G)", text);
    } else {
        warn_unknown_key(state, key, "cache");
    }
}

/* A top-level string naming a folder or a preset. */
static void parse_string_key(const parse_state *state, const yaml_node_t *value, const char *name,
                             bool is_path, char **out) {
    const char *text = scalar_of(state, value, name);
    if (text == NULL)
        return;
    if (text[0] == '\0') {
        diag_error(state->diag, state->path, node_line(value), "%s: empty value", name);
        return;
    }
    free(*out);
    *out = is_path ? config_relative_path(state->path, text) : cook_strdup(text);
}

/* A top-level key (key_parser; `context` the kiln_config). */
static void parse_top_level_key(const parse_state *state, const yaml_node_t *key, const char *name,
                                const yaml_node_t *value, void *context) {
    kiln_config *config = context;
    if (strcmp(name, "input") == 0)
        parse_string_key(state, value, name, true, &config->input);
    else if (strcmp(name, "output") == 0)
        parse_string_key(state, value, name, true, &config->output);
    else if (strcmp(name, "preset") == 0)
        parse_string_key(state, value, name, false, &config->preset);
    else if (strcmp(name, "pack") == 0)
        parse_bool_value(state, value, name, &config->pack);
    else if (strcmp(name, "default") == 0)
        parse_default(state, value, config);
    else if (strcmp(name, "rules") == 0)
        parse_rules(state, value, &config->rules);
    else if (strcmp(name, "presets") == 0)
        parse_presets(state, value, config);
    else if (strcmp(name, "always") == 0)
        parse_glob_list(state, value, name, &config->always);
    else if (strcmp(name, "roots") == 0)
        parse_glob_list(state, value, name, &config->roots);
    else if (strcmp(name, "cache") == 0) {
        if (expect_mapping(state, value, "cache"))
            for_each_key(state, value, parse_cache_key, config);
    } else
        warn_unknown_key(state, key, "");
}

static void parse_top_level(const parse_state *state, const yaml_node_t *root,
                            kiln_config *config) {
    for_each_key(state, root, parse_top_level_key, config);
}

/* ---------------------------------------------------------------------------
 * Whole-document checks, before any section is read
 * ------------------------------------------------------------------------- */

typedef struct key_slot {
    const char *name;
    size_t length;
    yaml_node_pair_t *pair;
    const yaml_node_t *key;
} key_slot;

static int compare_key_slots(const void *a, const void *b) {
    const key_slot *x = a, *y = b;
    size_t shorter = x->length < y->length ? x->length : y->length;
    int order = memcmp(x->name, y->name, shorter);
    if (order == 0)
        order = (x->length > y->length) - (x->length < y->length);
    if (order == 0) /* in the file's order, so the first one is kept */
        order = (x->pair > y->pair) - (x->pair < y->pair);
    return order;
}

/* A key given twice in one map (`presets:` twice, a setting twice in a rule)
 * is an error naming both lines, and only its first occurrence is read: the
 * later pairs' keys are cleared (index 0, which node_at turns into NULL and
 * every section loop skips). Sorting makes it O(n log n) in the map's size. */
static void refuse_duplicate_keys(const parse_state *state) {
    for (yaml_node_t *node = state->doc->nodes.start; node < state->doc->nodes.top; node++) {
        if (node->type != YAML_MAPPING_NODE)
            continue;
        size_t count = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
        if (count < 2)
            continue;
        key_slot *slots = malloc(count * sizeof *slots);
        if (slots == NULL) {
            diag_error(state->diag, state->path, node_line(node), "out of memory");
            return;
        }
        size_t used = 0;
        for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
             pair < node->data.mapping.pairs.top; pair++) {
            const yaml_node_t *key = node_at(state, pair->key);
            if (key != NULL && key->type == YAML_SCALAR_NODE)
                slots[used++] = (key_slot){(const char *)key->data.scalar.value,
                                           key->data.scalar.length, pair, key};
        }
        qsort(slots, used, sizeof *slots, compare_key_slots);
        for (size_t i = 1; i < used; i++) {
            size_t first = i - 1;
            while (i < used && slots[i].length == slots[first].length &&
                   memcmp(slots[i].name, slots[first].name, slots[i].length) == 0) {
                diag_error(state->diag, state->path, node_line(slots[i].key),
                           "key '%s' defined twice (first on line %u)", slots[i].name,
                           node_line(slots[first].key));
                slots[i].pair->key = 0;
                i++;
            }
        }
        free(slots);
    }
}

/* Anchors and the number of values their node holds once its aliases are
 * expanded: an open-addressing table by name (a name defined again takes
 * the new count, as YAML's later anchor does). */
typedef struct anchor_table {
    char **names;
    uint64_t *counts;
    size_t cap, used;
} anchor_table;

static size_t anchor_slot(const anchor_table *t, const char *name) {
    size_t i = (size_t)fnv1a64(name, strlen(name)) & (t->cap - 1);
    while (t->names[i] != NULL && strcmp(t->names[i], name) != 0)
        i = (i + 1) & (t->cap - 1);
    return i;
}

static bool anchor_set(anchor_table *t, const char *name, uint64_t count) {
    if (2 * (t->used + 1) > t->cap) {
        anchor_table grown = {.cap = t->cap ? t->cap * 2 : 64};
        grown.names = calloc(grown.cap, sizeof *grown.names);
        grown.counts = calloc(grown.cap, sizeof *grown.counts);
        if (grown.names == NULL || grown.counts == NULL) {
            free(grown.names);
            free(grown.counts);
            return false;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->names[i] != NULL) {
                size_t j = anchor_slot(&grown, t->names[i]);
                grown.names[j] = t->names[i];
                grown.counts[j] = t->counts[i];
            }
        grown.used = t->used;
        free(t->names);
        free(t->counts);
        *t = grown;
    }
    size_t i = anchor_slot(t, name);
    if (t->names[i] == NULL) {
        t->names[i] = cook_strdup(name);
        if (t->names[i] == NULL)
            return false;
        t->used++;
    }
    t->counts[i] = count;
    return true;
}

static uint64_t anchor_count(const anchor_table *t, const char *name) {
    if (t->cap == 0)
        return 1;
    size_t i = anchor_slot(t, name);
    return t->names[i] != NULL ? t->counts[i] : 1; /* unknown: libyaml's loader says so */
}

static void anchor_table_free(anchor_table *t) {
    for (size_t i = 0; i < t->cap; i++)
        free(t->names[i]);
    free(t->names);
    free(t->counts);
}

/* Refuses, before libyaml builds the node tree, a document nested deeper
 * than CONFIG_MAX_DEPTH, holding more than CONFIG_MAX_NODES nodes, or whose
 * aliases expand it past the bound of CONFIG_EXPANDED_PER_BYTE: an error
 * with the line where the limit was passed. The expanded count of each open
 * collection is kept on a stack (one frame per level, so at most
 * CONFIG_MAX_DEPTH + 1); an anchor's count is known when its value ends, so
 * an alias of an enclosing collection (a cycle) counts 1. */
static bool within_limits(const char *path, const char *text, size_t size, cook_diag *diag) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        diag_error(diag, path, 0, "out of memory");
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, size);
    uint64_t max_expanded = (uint64_t)size * CONFIG_EXPANDED_PER_BYTE;
    if (max_expanded < CONFIG_MIN_EXPANDED)
        max_expanded = CONFIG_MIN_EXPANDED;
    if (max_expanded > CONFIG_MAX_NODES)
        max_expanded = CONFIG_MAX_NODES;
    struct {
        uint64_t count;
        char *anchor;
    } open[CONFIG_MAX_DEPTH + 2];
    unsigned depth = 0;
    size_t nodes = 0;
    uint64_t expanded = 0; /* of the whole document so far */
    anchor_table anchors = {0};
    bool ok = true, out_of_memory = false;
    for (bool done = false; !done;) {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event))
            break; /* the loader that follows reports the syntax error */
        uint32_t line = (uint32_t)event.start_mark.line + 1;
        uint64_t added = 0; /* values this event adds to the enclosing collection */
        switch (event.type) {
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT: {
            if (++depth > CONFIG_MAX_DEPTH) {
                diag_error(diag, path, line, "nested deeper than %d levels", CONFIG_MAX_DEPTH);
                open[depth].anchor = NULL;
                ok = false;
                break;
            }
            const yaml_char_t *anchor = event.type == YAML_MAPPING_START_EVENT
                                            ? event.data.mapping_start.anchor
                                            : event.data.sequence_start.anchor;
            open[depth].count = 1;
            open[depth].anchor = anchor != NULL ? cook_strdup((const char *)anchor) : NULL;
            out_of_memory |= anchor != NULL && open[depth].anchor == NULL;
            nodes++;
            expanded++;
            break;
        }
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            if (depth > 0) {
                if (open[depth].anchor != NULL &&
                    !anchor_set(&anchors, open[depth].anchor, open[depth].count))
                    out_of_memory = true;
                free(open[depth].anchor);
                added = open[depth].count;
                depth--;
            }
            break;
        case YAML_SCALAR_EVENT:
            if (event.data.scalar.anchor != NULL &&
                !anchor_set(&anchors, (const char *)event.data.scalar.anchor, 1))
                out_of_memory = true;
            nodes++;
            expanded++;
            added = 1;
            break;
        case YAML_ALIAS_EVENT:
            nodes++;
            added = anchor_count(&anchors, (const char *)event.data.alias.anchor);
            expanded = expanded > UINT64_MAX - added ? UINT64_MAX : expanded + added;
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        if (depth > 0 && added > 0) /* the collection it belongs to */
            open[depth].count =
                open[depth].count > UINT64_MAX - added ? UINT64_MAX : open[depth].count + added;
        if (ok && nodes > CONFIG_MAX_NODES) {
            diag_error(diag, path, line, "more than %d values: not a kiln.yml", CONFIG_MAX_NODES);
            ok = false;
        }
        if (ok && expanded > max_expanded) {
            diag_error(diag, path, line,
                       "its aliases expand it to more than %llu values (%u per byte of the file, "
                       "at least %u, at most %d): not a kiln.yml",
                       (unsigned long long)max_expanded, CONFIG_EXPANDED_PER_BYTE,
                       CONFIG_MIN_EXPANDED, CONFIG_MAX_NODES);
            ok = false;
        }
        if (ok && out_of_memory) {
            diag_error(diag, path, line, "out of memory");
            ok = false;
        }
        yaml_event_delete(&event);
        if (!ok)
            break;
    }
    for (; depth > 0; depth--)
        free(open[depth].anchor);
    anchor_table_free(&anchors);
    yaml_parser_delete(&parser);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Public functions
 * ------------------------------------------------------------------------- */

bool config_parse(kiln_config *config, const char *path, const char *text, size_t size,
                  cook_diag *diag) {
    *config = (kiln_config){0};
    config->path = cook_strdup(path);
    uint32_t errors_before = diag->errors;
    if (!within_limits(path, text, size, diag))
        return false;
    yaml_document_t doc;
    /* within_limits bounded the depth already: one pass over the events, not two. */
    if (!yaml_doc_load(path, (const unsigned char *)text, size, YAML_DOC_DEPTH_CHECKED, &doc, diag))
        return false;
    parse_state state = {&doc, path, diag};
    refuse_duplicate_keys(&state);
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root != NULL && expect_mapping(&state, root, "kiln.yml"))
        parse_top_level(&state, root, config);
    yaml_document_delete(&doc);
    return diag->errors == errors_before;
}

bool config_load(kiln_config *config, const char *path, cook_diag *diag) {
    uint8_t *text = NULL;
    size_t size = 0;
    char reason[256];
    if (!cook_read_file(path, CONFIG_MAX_SIZE, &text, &size, reason, sizeof reason)) {
        *config = (kiln_config){0};
        diag_error(diag, path, 0, "cannot read: %s", reason);
        return false;
    }
    bool ok = config_parse(config, path, (const char *)text, size, diag);
    free(text);
    return ok;
}

/* The line of `setting` given as `key` (flat) or under it (nested). */
static uint32_t setting_line(const parse_state *state, const yaml_node_t *key,
                             const yaml_node_t *value, const cook_setting *setting) {
    size_t group = strlen((const char *)key->data.scalar.value);
    if (value->type != YAML_MAPPING_NODE || strlen(setting->name) <= group)
        return node_line(key);
    for (yaml_node_pair_t *pair = value->data.mapping.pairs.start;
         pair < value->data.mapping.pairs.top; pair++) {
        yaml_node_t *sub_key, *sub_value;
        const char *name = pair_nodes(state, pair, &sub_key, &sub_value);
        if (name != NULL && strcmp(name, setting->name + group + 1) == 0)
            return node_line(sub_key);
    }
    return node_line(key);
}

/* Parses a document whose top level is a map of settings keys (a sidecar):
 * the settings go into `overlay` with the line of each key in `lines`; any
 * other key goes to `other` (NULL: every other key is an unknown-key warning),
 * which returns false for a key it does not know either. */
bool config_parse_settings_map(const char *path, const char *text, size_t size,
                               config_overlay *overlay, uint32_t lines[64], config_other_key other,
                               void *context, cook_diag *diag) {
    *overlay = (config_overlay){0};
    memset(lines, 0, 64 * sizeof *lines);
    uint32_t errors_before = diag->errors;
    if (!within_limits(path, text, size, diag))
        return false;
    yaml_document_t doc;
    if (!yaml_doc_load(path, (const unsigned char *)text, size, YAML_DOC_DEPTH_CHECKED, &doc, diag))
        return false;
    parse_state state = {&doc, path, diag};
    refuse_duplicate_keys(&state);
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root != NULL && expect_mapping(&state, root, path)) {
        for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
             pair < root->data.mapping.pairs.top; pair++) {
            yaml_node_t *key, *value;
            const char *name = pair_nodes(&state, pair, &key, &value);
            if (name == NULL)
                continue;
            uint64_t before = overlay->set;
            if (parse_setting(&state, overlay, name, value)) {
                for (size_t i = 0; i < cook_setting_count && i < 64; i++)
                    if ((overlay->set & ~before) & ((uint64_t)1 << i))
                        lines[i] = setting_line(&state, key, value, &cook_setting_table[i]);
                continue;
            }
            if (other == NULL || !other(context, &doc, key, value, diag))
                warn_unknown_key(&state, key, "");
        }
    }
    yaml_document_delete(&doc);
    return diag->errors == errors_before;
}

static bool is_file(const char *path) {
    struct stat info;
    return stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

/* Tries start_dir/kiln.yml, start_dir/../kiln.yml, ... up to the root (where
 * ".." is the folder itself). The result is relative when start_dir is. */
char *config_find(const char *start_dir) {
    size_t base = strlen(start_dir);
    size_t cap = base + 3 * CONFIG_MAX_ANCESTORS + sizeof BUILD_CONFIG_FILE + 2;
    char *folder = malloc(cap);
    if (folder == NULL)
        return NULL;
    strcpy(folder, start_dir);
    for (int depth = 0; depth < CONFIG_MAX_ANCESTORS; depth++) {
        size_t length = strlen(folder);
        snprintf(folder + length, cap - length, "/%s", BUILD_CONFIG_FILE);
        if (is_file(folder)) {
            /* "./kiln.yml" reads better as "kiln.yml" in messages. */
            if (strncmp(folder, "./", 2) == 0)
                memmove(folder, folder + 2, strlen(folder + 2) + 1);
            return folder;
        }
        folder[length] = '\0';
        struct stat here, parent;
        char *up = malloc(length + 4);
        if (up == NULL)
            break;
        snprintf(up, length + 4, "%s/..", folder);
        bool at_root = stat(folder, &here) != 0 || stat(up, &parent) != 0 ||
                       (here.st_dev == parent.st_dev && here.st_ino == parent.st_ino);
        free(up);
        if (at_root)
            break;
        strcat(folder, "/..");
    }
    free(folder);
    return NULL;
}

void config_free(kiln_config *config) {
    free(config->path);
    free(config->input);
    free(config->output);
    free(config->preset);
    rule_list_free(&config->rules);
    for (size_t i = 0; i < config->preset_count; i++) {
        free(config->presets[i].name);
        free(config->presets[i].output);
        rule_list_free(&config->presets[i].rules);
    }
    free(config->presets);
    strlist_free(&config->always);
    strlist_free(&config->roots);
    strlist_free(&config->remote);
    *config = (kiln_config){0};
}

const config_preset *config_find_preset(const kiln_config *config, const char *name) {
    for (size_t i = 0; i < config->preset_count; i++) {
        if (config->presets[i].name != NULL && strcmp(config->presets[i].name, name) == 0)
            return &config->presets[i];
    }
    return NULL;
}

/* The overlay bit of texture.format, whose origin is kept for messages. */
static uint64_t texture_format_bit(void) {
    return (uint64_t)1 << (cook_setting_find("texture.format") - cook_setting_table);
}

static void visit_rules(const config_rule_list *rules, const char *file, const char *source_path,
                        config_layer_fn visit, void *context) {
    for (size_t i = 0; i < rules->count; i++) {
        if (!discover_glob_match(rules->items[i].match, source_path))
            continue;
        char what[96];
        snprintf(what, sizeof what, "rule 'match: %.60s'", rules->items[i].match);
        visit(context, &rules->items[i].overlay, what, file, rules->items[i].line);
    }
}

void config_each_layer(const kiln_config *config, const config_preset *preset,
                       const char *source_path, config_layer_fn visit, void *context) {
    const char *file = config->path ? config->path : "kiln.yml";
    /* The `default:` section's line is not kept; its keys are found by name. */
    visit(context, &config->defaults, "the default section", file, 0);
    if (preset != NULL) {
        char what[96];
        snprintf(what, sizeof what, "preset '%.60s'", preset->name ? preset->name : "?");
        visit(context, &preset->overlay, what, file, preset->line);
    }
    visit_rules(&config->rules, file, source_path, visit, context);
    if (preset != NULL)
        visit_rules(&preset->rules, file, source_path, visit, context);
}

void config_layer_origin(char *out, size_t size, const char *what, const char *file,
                         uint32_t line) {
    if (line == 0)
        snprintf(out, size, "%s (%s)", what, file);
    else
        snprintf(out, size, "%s (%s:%u)", what, file, line);
}

/* Applies one layer and, when it sets texture.format, records where
 * (config_layer_fn; `context` the cook_settings). */
static void apply_layer(void *context, const config_overlay *overlay, const char *what,
                        const char *file, uint32_t line) {
    cook_settings *out = context;
    config_overlay_apply(overlay, out);
    if (overlay->set & texture_format_bit())
        config_layer_origin(out->texture_format_origin, sizeof out->texture_format_origin, what,
                            file, line);
}

void config_resolve(const kiln_config *config, const config_preset *preset, const char *source_path,
                    cook_settings *out) {
    cook_settings_default(out);
    config_each_layer(config, preset, source_path, apply_layer, out);
}

void config_apply_layer(const config_overlay *overlay, const char *what, const char *file,
                        uint32_t line, cook_settings *out) {
    apply_layer(out, overlay, what, file, line);
}
