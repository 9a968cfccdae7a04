/*
 * level_tree.h — a level file's YAML read from libyaml's events (its
 * streaming API) into a compact tree, one value at a time: level.c reads an
 * entity, turns it into kiln's level IR and forgets its nodes before the
 * next, so the whole document is never held (libyaml's document API built
 * a node and a tag string per scalar, list or map: 30 to 95 times the file).
 *
 * A node is 16 bytes, its scalar text in one arena, a collection's children
 * contiguous in one index array. Aliases name the anchored node; once a file
 * defines an anchor, nodes are kept from then on (an alias may name any
 * earlier node), so a file using anchors holds the tree of what follows its
 * first anchor: at most about 11 times the file (`[1,1,...]`).
 */
#ifndef KILN_COOK_IMPORT_LEVEL_TREE_H
#define KILN_COOK_IMPORT_LEVEL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "cook/core/diag.h"

typedef enum level_node_type {
    LEVEL_NODE_SCALAR,
    LEVEL_NODE_SEQUENCE,
    LEVEL_NODE_MAPPING
} level_node_type;

typedef struct level_node {
    uint8_t type;  /* level_node_type */
    uint8_t plain; /* a plain scalar (not quoted, not a block) */
    uint32_t line; /* 1-based, of its first character */
    /* Scalar: its length in bytes (it may hold NULs); sequence: its items;
     * mapping: twice its pairs (key, value, key, value, ...). */
    uint32_t count;
    /* Scalar: offset of its text (NUL-terminated) in `text`; collection:
     * index of its first child in `kids`. */
    uint32_t at;
} level_node;

typedef struct level_tree {
    level_node *nodes;
    size_t node_count, node_capacity;
    uint32_t *kids;
    size_t kid_count, kid_capacity;
    char *text;
    size_t text_size, text_capacity;
    /* Children of the open collections, before they close. */
    uint32_t *pending;
    size_t pending_count, pending_capacity;
    /* Open collections: node index and where their children start in `pending`. */
    uint32_t (*open)[2];
    size_t open_count, open_capacity;
    /* Anchors by name, each naming a node. */
    struct level_anchor {
        char *name;
        uint32_t node;
    } * anchors;
    size_t anchor_count, anchor_capacity;
    bool keep;         /* an anchor was defined: level_tree_forget keeps every node */
    size_t peak_bytes; /* the most its arrays held at once (tests, reliability.md) */
} level_tree;

/* Reads the value that begins with `first` (an event already parsed, which
 * this takes over and deletes) and the events up to its end into the tree;
 * *out is its node. False with an error in `diag` naming `path` and the line:
 * libyaml's message for invalid YAML, an alias without its anchor or an
 * anchor given twice (the messages libyaml's document loader gives), out of
 * memory. */
bool level_tree_read(level_tree *tree, yaml_parser_t *parser, yaml_event_t *first, const char *path,
                     cook_diag *diag, uint32_t *out);

/* Forgets every node read so far (their indices are then invalid), unless
 * an anchor kept them. */
void level_tree_forget(level_tree *tree);
void level_tree_free(level_tree *tree);

/* The next event from the parser; false with libyaml's message in `diag`. */
bool level_tree_next(yaml_parser_t *parser, yaml_event_t *event, const char *path, cook_diag *diag);

static inline const level_node *level_tree_kid(const level_tree *tree, const level_node *node,
                                               uint32_t i) {
    return &tree->nodes[tree->kids[node->at + i]];
}

/* A scalar's text, or NULL for a collection. */
static inline const char *level_tree_text(const level_tree *tree, const level_node *node) {
    return node->type == LEVEL_NODE_SCALAR ? tree->text + node->at : NULL;
}

#endif
