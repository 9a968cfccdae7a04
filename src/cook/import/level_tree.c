/*
 * level_tree.c — libyaml events into a compact tree (level_tree.h).
 */
#include "cook/import/level_tree.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "cook/core/yaml_doc.h"

/* Room for one more item in a growable array of level_tree. */
#define MAKE_ROOM(items, count, capacity, initial)                                                 \
    (((count) < (capacity) && (items) != NULL) ||                                                  \
     ((items = array_grow(items, &(capacity), (count) + 1, sizeof *(items), initial)) != NULL))

static bool out_of_memory(const char *path, cook_diag *diag, uint32_t line) {
    diag_error(diag, path, line, "out of memory reading the YAML");
    return false;
}

/* libyaml's loader's wording for a composer error. */
static bool composer_error(const char *path, cook_diag *diag, const yaml_mark_t *mark,
                           const char *problem, const char *context) {
    diag_error(diag, path, (uint32_t)mark->line + 1, "invalid YAML: %s%s%s (column %u)", problem,
               context ? " " : "", context ? context : "", (unsigned)mark->column + 1);
    return false;
}

bool level_tree_next(yaml_parser_t *parser, yaml_event_t *event, const char *path,
                     cook_diag *diag) {
    if (yaml_parser_parse(parser, event))
        return true;
    yaml_doc_parser_error(path, parser, diag);
    return false;
}

static void note_peak(level_tree *t) {
    size_t bytes = t->node_capacity * sizeof *t->nodes + t->kid_capacity * sizeof *t->kids +
                   t->text_capacity + t->pending_capacity * sizeof *t->pending +
                   t->open_capacity * sizeof *t->open;
    if (bytes > t->peak_bytes)
        t->peak_bytes = bytes;
}

static bool add_node(level_tree *t, level_node_type type, const yaml_event_t *event,
                     uint32_t *index) {
    if (t->node_count >= UINT32_MAX || !MAKE_ROOM(t->nodes, t->node_count, t->node_capacity, 256))
        return false;
    *index = (uint32_t)t->node_count;
    t->nodes[t->node_count++] =
        (level_node){.type = (uint8_t)type, .line = (uint32_t)event->start_mark.line + 1};
    return true;
}

static bool add_text(level_tree *t, const unsigned char *value, size_t length, uint32_t *at) {
    size_t needed = t->text_size + length + 1;
    if (needed > UINT32_MAX)
        return false;
    if (needed > t->text_capacity) {
        char *grown = array_grow(t->text, &t->text_capacity, needed, 1, 4096);
        if (grown == NULL)
            return false;
        t->text = grown;
    }
    *at = (uint32_t)t->text_size;
    memcpy(t->text + t->text_size, value, length);
    t->text[t->text_size + length] = '\0';
    t->text_size = needed;
    return true;
}

/* Names `node` by the event's anchor, if it has one; libyaml's loader refuses
 * an anchor given twice. */
static bool add_anchor(level_tree *t, const unsigned char *anchor, uint32_t node,
                       const yaml_event_t *event, const char *path, cook_diag *diag) {
    if (anchor == NULL)
        return true;
    for (size_t i = 0; i < t->anchor_count; i++)
        if (strcmp(t->anchors[i].name, (const char *)anchor) == 0)
            return composer_error(path, diag, &event->start_mark, "second occurrence",
                                  "found duplicate anchor; first occurrence");
    char *name = strdup((const char *)anchor);
    if (name == NULL || !MAKE_ROOM(t->anchors, t->anchor_count, t->anchor_capacity, 8)) {
        free(name);
        return out_of_memory(path, diag, (uint32_t)event->start_mark.line + 1);
    }
    t->anchors[t->anchor_count++] = (struct level_anchor){name, node};
    t->keep = true;
    return true;
}

/* A finished value: a child of the innermost open collection, or the result. */
static bool place(level_tree *t, uint32_t node, bool *done, uint32_t *out) {
    if (t->open_count == 0) {
        *out = node;
        *done = true;
        return true;
    }
    if (!MAKE_ROOM(t->pending, t->pending_count, t->pending_capacity, 256))
        return false;
    t->pending[t->pending_count++] = node;
    return true;
}

/* The innermost collection closes: its children move to `kids`. */
static bool close_collection(level_tree *t, uint32_t *node) {
    uint32_t index = t->open[t->open_count - 1][0];
    size_t start = t->open[t->open_count - 1][1];
    size_t count = t->pending_count - start;
    if (t->kid_count + count > UINT32_MAX || count > UINT32_MAX)
        return false;
    if (count > 0) {
        uint32_t *grown =
            array_grow(t->kids, &t->kid_capacity, t->kid_count + count, sizeof *t->kids, 256);
        if (grown == NULL)
            return false;
        t->kids = grown;
        memcpy(t->kids + t->kid_count, t->pending + start, count * sizeof *t->kids);
    }
    t->nodes[index].at = (uint32_t)t->kid_count;
    t->nodes[index].count = (uint32_t)count;
    t->kid_count += count;
    t->pending_count = start;
    t->open_count--;
    *node = index;
    return true;
}

/* One event into the tree; *done once the value that began it is whole. */
static bool take(level_tree *t, const yaml_event_t *e, const char *path, cook_diag *diag,
                 bool *done, uint32_t *out) {
    uint32_t line = (uint32_t)e->start_mark.line + 1, node = 0;
    switch (e->type) {
    case YAML_SCALAR_EVENT: {
        uint32_t at;
        if (e->data.scalar.length > UINT32_MAX ||
            !add_text(t, e->data.scalar.value, e->data.scalar.length, &at) ||
            !add_node(t, LEVEL_NODE_SCALAR, e, &node))
            return out_of_memory(path, diag, line);
        t->nodes[node].at = at;
        t->nodes[node].count = (uint32_t)e->data.scalar.length;
        t->nodes[node].plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (!add_anchor(t, e->data.scalar.anchor, node, e, path, diag))
            return false;
        break;
    }
    case YAML_ALIAS_EVENT: {
        size_t i = 0;
        while (i < t->anchor_count &&
               strcmp(t->anchors[i].name, (const char *)e->data.alias.anchor) != 0)
            i++;
        if (i == t->anchor_count)
            return composer_error(path, diag, &e->start_mark, "found undefined alias", NULL);
        node = t->anchors[i].node;
        break;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool sequence = e->type == YAML_SEQUENCE_START_EVENT;
        if (!add_node(t, sequence ? LEVEL_NODE_SEQUENCE : LEVEL_NODE_MAPPING, e, &node) ||
            !MAKE_ROOM(t->open, t->open_count, t->open_capacity, 16))
            return out_of_memory(path, diag, line);
        t->open[t->open_count][0] = node;
        t->open[t->open_count][1] = (uint32_t)t->pending_count;
        t->open_count++;
        const unsigned char *anchor =
            sequence ? e->data.sequence_start.anchor : e->data.mapping_start.anchor;
        return add_anchor(t, anchor, node, e, path, diag);
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (t->open_count == 0 || !close_collection(t, &node))
            return out_of_memory(path, diag, line);
        break;
    default: /* stream and document events come only between values */
        diag_error(diag, path, line, "invalid YAML: unexpected event");
        return false;
    }
    if (!place(t, node, done, out))
        return out_of_memory(path, diag, line);
    return true;
}

bool level_tree_read(level_tree *tree, yaml_parser_t *parser, yaml_event_t *first, const char *path,
                     cook_diag *diag, uint32_t *out) {
    tree->open_count = tree->pending_count = 0;
    bool done = false, ok = take(tree, first, path, diag, &done, out);
    yaml_event_delete(first);
    while (ok && !done) {
        yaml_event_t event; /* zeroed by a parse that fails */
        ok = level_tree_next(parser, &event, path, diag) &&
             take(tree, &event, path, diag, &done, out);
        yaml_event_delete(&event);
    }
    note_peak(tree);
    return ok;
}

void level_tree_forget(level_tree *tree) {
    if (tree->keep)
        return;
    tree->node_count = tree->kid_count = tree->text_size = 0;
}

void level_tree_free(level_tree *tree) {
    for (size_t i = 0; i < tree->anchor_count; i++)
        free(tree->anchors[i].name);
    free(tree->anchors);
    free(tree->nodes);
    free(tree->kids);
    free(tree->text);
    free(tree->pending);
    free(tree->open);
    memset(tree, 0, sizeof *tree);
}
