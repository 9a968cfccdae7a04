/* test_import.h — shared helpers for the importer tests (OBJ, glTF, assimp,
 * the cross-check): run an importer on bytes or a file as the cooker would,
 * check the IR invariants of ir.h, write input trees, read the corpus index. */
#ifndef KILN_TEST_IMPORT_H
#define KILN_TEST_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

typedef struct test_import {
    cook_settings settings;
    cook_diag diag;
    ir_asset asset;
    strlist dependencies; /* the files the importer opened besides the source */
    strlist absent;       /* the files it looked for and did not find */
    bool ok;
} test_import;

/* Imports `size` bytes as `source_path` under the input root `root`, with
 * default settings, the way the pipeline calls importers (NUL-terminated copy). */
void test_import_bytes(test_import *r, cook_import_fn importer, const char *root,
                       const char *source_path, const void *bytes, size_t size);
/* The same for a file already written under `root`. */
void test_import_file(test_import *r, cook_import_fn importer, const char *root,
                      const char *source_path);
void test_import_free(test_import *r);

/* Everything the importer reported, "" when nothing. */
const char *test_import_messages(const test_import *r);
/* Fails the test with the messages unless the import succeeded without errors. */
void test_import_expect_ok(const test_import *r);

/* The IR invariants of ir.h that hold for every successful import: indices in
 * range, finite positions, unit normals, weights summing to 1, submeshes
 * tiling the index buffer, material slots in range, parents before children. */
void test_check_asset(const ir_asset *asset);

/* printf into a new string with every single quote turned into a double
 * quote, so that tests can write JSON without escapes. Caller frees. */
char *test_json_text(const char *fmt, ...);
/* Writes `json` as <dir>/model.gltf and imports it with the glTF importer. */
void test_import_gltf_json(test_import *r, const char *dir, const char *json);
/* The line of the messages holding `kind` (": error: ", ": warning: ") and
 * every byte of `words`, or fails the test listing the messages. */
void test_expect_message(const test_import *r, const char *kind, const char *words);

/* A node's local transform: translation, a rotation of `angle` radians about
 * z, uniform scale. */
void test_node_set_trs(ir_node *node, float tx, float ty, float tz, float angle, float scale);

/* A cooked scene held 16-byte aligned, as the runtime wants it. */
typedef struct test_held_scene {
    void *block;
    kiln_file file;
    kiln_scene_view view;
} test_held_scene;
/* Opens `size` bytes as a .kscene with the KILN_OPEN_* `flags` (the view is
 * deep-checked when they hold KILN_OPEN_DEEP). */
kiln_result test_scene_hold(test_held_scene *held, const void *bytes, size_t size, uint32_t flags,
                            kiln_error *err);
void test_scene_release(test_held_scene *held);
/* Fails the test unless the view's nodes are in depth-first pre-order as
 * kscene.md R7-R8 say, checked from the parent links alone (ancestor walks,
 * not the reader's rules): every node's subtree_end - 1 - i is its number of
 * descendants and each descendant lies in that range, first_child and
 * next_sibling name the children in order, depths and level_count match.
 * O(nodes x depth). */
void test_expect_depth_first(const kiln_scene_view *view);

/* One row of the corpus's index.tsv. */
typedef struct test_corpus_row {
    const char *path; /* relative to the corpus folder */
    const char *format;
    const char *category;
    const char *expect; /* "ok" or "error" */
} test_corpus_row;

/* Reads the corpus index (header skipped); rows point into the returned
 * storage. Free both with free(). Call only when the corpus is present. */
char *test_corpus_index(test_corpus_row **rows, size_t *count);

#endif
