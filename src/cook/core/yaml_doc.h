/*
 * yaml_doc.h — the one way a YAML file becomes a libyaml node tree: kiln.yml
 * (build/config.c) and *.level (cook/import/level.c) load through it, so
 * they fail the same way with the same message.
 */
#ifndef KILN_COOK_CORE_YAML_DOC_H
#define KILN_COOK_CORE_YAML_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "cook/core/diag.h"

/* yaml_doc_load's max_depth when the caller's own pass over the events has
 * bounded the depth already (kiln.yml's, in build/config.c). */
#define YAML_DOC_DEPTH_CHECKED 0u

/* Loads the first document of `text` into *doc (the caller frees it with
 * yaml_document_delete). First, in one pass that stops where the limit is
 * passed, it refuses collections nested deeper than `max_depth` (libyaml's
 * loader is quadratic in the depth): "<path>:<line>: error: nested deeper
 * than <max_depth> levels"; YAML_DOC_DEPTH_CHECKED skips that pass. On failure *doc is untouched
 * and `diag` gets that or "<path>:<line>: error: invalid YAML: <problem> <context> (column <n>)".
 */
bool yaml_doc_load(const char *path, const unsigned char *text, size_t size, unsigned max_depth,
                   yaml_document_t *doc, cook_diag *diag);

/* For a reader of libyaml's events (level files): one pass over the text
 * that refuses what yaml_doc_load would, with the same messages: nesting
 * deeper than `max_depth`, and invalid YAML in the first document. The
 * composer's errors (an undefined alias, an anchor given twice) are the
 * reader's to report. */
bool yaml_doc_check(const char *path, const unsigned char *text, size_t size, unsigned max_depth,
                    cook_diag *diag);

/* libyaml's parser error as yaml_doc_load reports it: "<path>:<line>:
 * error: invalid YAML: <problem> <context> (column <n>)". */
void yaml_doc_parser_error(const char *path, const yaml_parser_t *parser, cook_diag *diag);

#endif /* KILN_COOK_CORE_YAML_DOC_H */
