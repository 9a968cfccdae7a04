/*
 * mv.h — `kiln mv`'s plan (mv_plan.c): every path in the input folder's
 * files that the move would break, found and respelled before anything
 * moves, so that a refusal leaves the tree as it was and --dry-run prints
 * exactly what a move does.
 */
#ifndef KILN_CLI_MV_H
#define KILN_CLI_MV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

typedef struct mv_edit {
    size_t start, end; /* the bytes replaced, in the file as it is now */
    uint32_t line;
    char what[64]; /* "mtllib", "include", "images[0].uri" */
    char *text;    /* what replaces them */
} mv_edit;

/* A file with paths to rewrite. */
typedef struct mv_file {
    char *now;   /* relative to the input folder, before the move */
    char *after; /* and after it (differs when it is the moved file or in it) */
    uint8_t *bytes;
    size_t size;
    mv_edit *edits;
    size_t count, cap;
} mv_file;

typedef struct mv_plan {
    const char *input, *old_rel, *new_rel;
    mv_file *files;
    size_t count, cap;
    strlist problems;   /* each a path the move would break and cannot rewrite */
    strlist notes;      /* paths left as written, files not read: said, not fatal */
    bool read_by_model; /* an OBJ, MTL or glTF names OLD: it is cooked through that model */
} mv_plan;

/* Plans moving old_rel to new_rel (relative to `input`): false only when the
 * input folder cannot be listed or memory runs out (said). The plan's
 * problems, when there are any, refuse the move. */
bool mv_plan_make(mv_plan *plan, const char *input, const char *old_rel, const char *new_rel);
/* mv_settings.c: adds to the plan's notes what kiln.yml and the sidecars
 * say that the move changes and kiln mv does not rewrite: a source's settings
 * its rules resolve otherwise at NEW, a setting naming OLD's path. */
void mv_plan_settings(mv_plan *plan, const build_setup *setup, bool source);
/* Prints each rewrite: "kiln: <file>:<line>: <what>: <old> -> <new>",
 * after "would rewrite" for a dry run. */
void mv_plan_print(const mv_plan *plan, bool dry_run);
/* Writes every rewritten file where it is after the move; false (said) when
 * one cannot be written. */
bool mv_plan_apply(const mv_plan *plan);
void mv_plan_free(mv_plan *plan);

#endif /* KILN_CLI_MV_H */
