/* yaml_doc.c — a YAML file's text into a libyaml document (yaml_doc.h). */
#include "cook/core/yaml_doc.h"

void yaml_doc_parser_error(const char *path, const yaml_parser_t *parser, cook_diag *diag) {
    if (parser->error == YAML_MEMORY_ERROR) {
        diag_error(diag, path, (uint32_t)parser->problem_mark.line + 1, "out of memory");
        return;
    }
    diag_error(diag, path, (uint32_t)parser->problem_mark.line + 1,
               "invalid YAML: %s%s%s (column %u)",
               parser->problem ? parser->problem : "syntax error", parser->context ? " " : "",
               parser->context ? parser->context : "", (unsigned)parser->problem_mark.column + 1);
}

/* Refuses a document whose collections nest deeper than `max_depth`, before
 * libyaml's loader sees it: the loader's scanner rechecks every open flow
 * level on each token, so 80,000 '[' took 14.5 s to load. This pass reads
 * events only until the limit is passed, and the scanner looks at most
 * 1024 characters ahead of them, so its cost is linear in what it reads.
 * A syntax error stops it: quietly when the loader follows and reports it;
 * with `report_syntax` (yaml_doc_check), reported as the loader would, when
 * it lies in the first document (the only one loaded). */
static bool within_depth(const char *path, const unsigned char *text, size_t size,
                         unsigned max_depth, bool report_syntax, cook_diag *diag) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        diag_error(diag, path, 0, "out of memory");
        return false;
    }
    yaml_parser_set_input_string(&parser, text, size);
    unsigned depth = 0;
    bool ok = true, first_document = true;
    for (bool done = false; ok && !done;) {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event)) {
            if (report_syntax && first_document) {
                yaml_doc_parser_error(path, &parser, diag);
                ok = false;
            }
            break;
        }
        switch (event.type) {
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (++depth > max_depth) {
                diag_error(diag, path, (uint32_t)event.start_mark.line + 1,
                           "nested deeper than %u levels", max_depth);
                ok = false;
            }
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth -= depth > 0;
            break;
        case YAML_DOCUMENT_END_EVENT:
            first_document = false;
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&event);
    }
    yaml_parser_delete(&parser);
    return ok;
}

bool yaml_doc_load(const char *path, const unsigned char *text, size_t size, unsigned max_depth,
                   yaml_document_t *doc, cook_diag *diag) {
    if (max_depth != YAML_DOC_DEPTH_CHECKED &&
        !within_depth(path, text, size, max_depth, false, diag))
        return false;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        diag_error(diag, path, 0, "out of memory");
        return false;
    }
    yaml_parser_set_input_string(&parser, text, size);
    bool loaded = yaml_parser_load(&parser, doc) != 0;
    if (!loaded)
        yaml_doc_parser_error(path, &parser, diag);
    yaml_parser_delete(&parser);
    return loaded;
}

bool yaml_doc_check(const char *path, const unsigned char *text, size_t size, unsigned max_depth,
                    cook_diag *diag) {
    return within_depth(path, text, size, max_depth, true, diag);
}
