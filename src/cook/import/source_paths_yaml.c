/*
 * source_paths_yaml.c — the paths the YAML sources name (cook_source_paths):
 * a level's root include: (a path or a list, relative to the level) and
 * every asset: and ref: value (relative to the input root), as
 * import/level.c reads them; a standalone material's textures (a slot's
 * path, or its map's image:, relative to the .mat), as import/mat.c does.
 * libyaml's marks give each scalar's bytes, quotes included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cook/core/yaml_doc.h"
#include "cook/import/level.h"
#include "cook/import/mat.h"
#include "cook/import/source_paths.h"

static cook_path_syntax syntax_of(const yaml_node_t *scalar) {
    switch (scalar->data.scalar.style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
        return COOK_PATH_YAML_SINGLE;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        return COOK_PATH_YAML_DOUBLE;
    default:
        return COOK_PATH_YAML_PLAIN;
    }
}

static bool add_scalar(cook_named_paths *out, const yaml_node_t *scalar, size_t size,
                       bool from_root, const char *what) {
    size_t start = scalar->start_mark.index, end = scalar->end_mark.index; /* characters */
    if (scalar->type != YAML_SCALAR_NODE || start >= end || end > size)
        return true; /* not a path, or an empty one: nothing to rewrite */
    for (size_t i = 0; i < out->count; i++)
        if (out->items[i].start == start)
            return true; /* an alias of one found already */
    if (!cook_named_paths_add(out, (const char *)scalar->data.scalar.value,
                              scalar->data.scalar.length, start, end,
                              (uint32_t)scalar->start_mark.line + 1, syntax_of(scalar), what))
        return false;
    cook_named_path *named = &out->items[out->count - 1];
    named->from_root = from_root;
    /* Block scalars (| and >) and multi-line flow scalars are not rewritten
     * in place: their bytes are not the value's. */
    named->fixed = scalar->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
                   scalar->data.scalar.style == YAML_FOLDED_SCALAR_STYLE ||
                   scalar->start_mark.line != scalar->end_mark.line;
    return true;
}

static bool add_includes(yaml_document_t *doc, const yaml_node_t *value, size_t size,
                         cook_named_paths *out) {
    if (value->type == YAML_SCALAR_NODE)
        return add_scalar(out, value, size, false, "include");
    if (value->type != YAML_SEQUENCE_NODE)
        return true;
    for (yaml_node_item_t *item = value->data.sequence.items.start;
         item < value->data.sequence.items.top; item++) {
        yaml_node_t *entry = yaml_document_get_node(doc, *item);
        if (entry != NULL && !add_scalar(out, entry, size, false, "include"))
            return false;
    }
    return true;
}

static int by_start(const void *a, const void *b) {
    size_t x = ((const cook_named_path *)a)->start, y = ((const cook_named_path *)b)->start;
    return (x > y) - (x < y);
}

/* Loads `bytes` as YAML; false with the loader's first message (from its
 * line number on: the caller names the file) as the reason. */
static bool load(const char *relative, const uint8_t *bytes, size_t size, size_t max_size,
                 unsigned max_depth, yaml_document_t *doc, char *reason, size_t reason_size) {
    cook_diag diag = {0};
    if (size > max_size) {
        snprintf(reason, reason_size, "larger than %zu bytes", max_size);
        return false;
    }
    if (yaml_doc_load(relative, bytes, size, max_depth, doc, &diag)) {
        diag_free(&diag);
        return true;
    }
    const char *text = (const char *)diag.text.data;
    size_t length = 0, size_left = diag.text.size, skip = strlen(relative) + 1;
    if (text != NULL && size_left > skip && memcmp(text, relative, skip - 1) == 0) {
        text += skip;
        size_left -= skip;
    }
    while (text != NULL && length < size_left && text[length] != '\n')
        length++;
    snprintf(reason, reason_size, "%.*s", (int)length, text != NULL ? text : "");
    diag_free(&diag);
    return false;
}

/* libyaml's marks count characters, after a byte-order mark; the spans are
 * wanted in bytes. One pass over the UTF-8 text converts every start and
 * end, in order (scalars do not overlap). */
static void marks_to_bytes(const uint8_t *bytes, size_t size, cook_named_paths *out) {
    size_t at = size >= 3 && memcmp(bytes, "\xef\xbb\xbf", 3) == 0 ? 3 : 0, characters = 0;
    for (size_t i = 0; i < out->count; i++)
        for (int which = 0; which < 2; which++) {
            size_t *mark = which == 0 ? &out->items[i].start : &out->items[i].end;
            for (; characters < *mark && at < size; characters++)
                for (at++; at < size && (bytes[at] & 0xc0) == 0x80; at++)
                    ; /* a continuation byte */
            *mark = at;
        }
}

static bool finish(yaml_document_t *doc, bool ok, const uint8_t *bytes, size_t size,
                   cook_named_paths *out, char *reason, size_t reason_size) {
    yaml_document_delete(doc);
    if (!ok) {
        snprintf(reason, reason_size, "out of memory");
        cook_named_paths_free(out);
        return false;
    }
    if (out->count > 1)
        qsort(out->items, out->count, sizeof *out->items, by_start);
    marks_to_bytes(bytes, size, out);
    return true;
}

bool source_paths_level(const char *relative, const uint8_t *bytes, size_t size,
                        cook_named_paths *out, char *reason, size_t reason_size) {
    yaml_document_t doc;
    if (!load(relative, bytes, size, LEVEL_MAX_BYTES, LEVEL_MAX_YAML_DEPTH, &doc, reason,
              reason_size))
        return false;
    bool ok = true;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    for (yaml_node_t *node = doc.nodes.start; ok && node < doc.nodes.top; node++) {
        if (node->type != YAML_MAPPING_NODE)
            continue;
        for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
             ok && pair < node->data.mapping.pairs.top; pair++) {
            yaml_node_t *key = yaml_document_get_node(&doc, pair->key);
            yaml_node_t *value = yaml_document_get_node(&doc, pair->value);
            if (key == NULL || value == NULL || key->type != YAML_SCALAR_NODE)
                continue;
            const char *name = (const char *)key->data.scalar.value;
            if (node == root && strcmp(name, "include") == 0)
                ok = add_includes(&doc, value, size, out);
            else if (strcmp(name, "asset") == 0 || strcmp(name, "ref") == 0)
                ok = add_scalar(out, value, size, true, name);
        }
    }
    return finish(&doc, ok, bytes, size, out, reason, reason_size);
}

/* The value of `key` in the mapping `node`, or NULL. */
static yaml_node_t *member(yaml_document_t *doc, const yaml_node_t *node, const char *key) {
    if (node == NULL || node->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *name = yaml_document_get_node(doc, pair->key);
        if (name != NULL && name->type == YAML_SCALAR_NODE &&
            strcmp((const char *)name->data.scalar.value, key) == 0)
            return yaml_document_get_node(doc, pair->value);
    }
    return NULL;
}

bool source_paths_mat(const char *relative, const uint8_t *bytes, size_t size,
                      cook_named_paths *out, char *reason, size_t reason_size) {
    yaml_document_t doc;
    if (!load(relative, bytes, size, MAT_MAX_BYTES, MAT_MAX_YAML_DEPTH, &doc, reason, reason_size))
        return false;
    bool ok = true;
    yaml_node_t *textures = member(&doc, yaml_document_get_root_node(&doc), "textures");
    if (textures != NULL && textures->type == YAML_MAPPING_NODE) {
        for (yaml_node_pair_t *pair = textures->data.mapping.pairs.start;
             ok && pair < textures->data.mapping.pairs.top; pair++) {
            yaml_node_t *key = yaml_document_get_node(&doc, pair->key);
            yaml_node_t *value = yaml_document_get_node(&doc, pair->value);
            if (key == NULL || value == NULL || key->type != YAML_SCALAR_NODE)
                continue;
            char what[64];
            bool direct = value->type == YAML_SCALAR_NODE;
            snprintf(what, sizeof what, "textures.%s%s", (const char *)key->data.scalar.value,
                     direct ? "" : ".image");
            yaml_node_t *image = direct ? value : member(&doc, value, "image");
            if (image != NULL)
                ok = add_scalar(out, image, size, false, what);
        }
    }
    return finish(&doc, ok, bytes, size, out, reason, reason_size);
}
