/* yaml_doc.c — a YAML file's text into a libyaml document (yaml_doc.h). */
#include "cook/core/yaml_doc.h"

bool yaml_doc_load(const char *path, const unsigned char *text, size_t size, yaml_document_t *doc,
                   cook_diag *diag) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        diag_error(diag, path, 0, "out of memory");
        return false;
    }
    yaml_parser_set_input_string(&parser, text, size);
    bool loaded = yaml_parser_load(&parser, doc) != 0;
    if (!loaded)
        diag_error(diag, path, (uint32_t)parser.problem_mark.line + 1,
                   "invalid YAML: %s%s%s (column %u)",
                   parser.problem ? parser.problem : "syntax error", parser.context ? " " : "",
                   parser.context ? parser.context : "", (unsigned)parser.problem_mark.column + 1);
    yaml_parser_delete(&parser);
    return loaded;
}
