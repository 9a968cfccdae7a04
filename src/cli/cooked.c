/* cooked.c — recognising the files of an output folder. */
#include <string.h>

#include "cli/cli.h"

static const struct {
    const char *pattern;
    cooked_kind kind;
    const char *name;
} cooked_kinds[] = {
    {"*.kmesh", COOKED_MESH, "mesh"},
    {"*.kman", COOKED_MANIFEST, "manifest"},
    {"*.kmat", COOKED_MATERIALS, "materials"},
    {"*.ktx2", COOKED_TEXTURE, "texture"},
};

#define COOKED_KIND_TABLE_SIZE (sizeof cooked_kinds / sizeof cooked_kinds[0])

cooked_kind cooked_kind_of(const char *path) {
    const char *name = cli_file_name(path);
    for (size_t i = 0; i < COOKED_KIND_TABLE_SIZE; i++) {
        if (discover_glob_match(cooked_kinds[i].pattern, name))
            return cooked_kinds[i].kind;
    }
    return COOKED_OTHER;
}

const char *cooked_kind_name(cooked_kind kind) {
    for (size_t i = 0; i < COOKED_KIND_TABLE_SIZE; i++) {
        if (cooked_kinds[i].kind == kind)
            return cooked_kinds[i].name;
    }
    return "other";
}

/* True when `message` starts with `prefix` followed by ": ". */
static bool starts_with_name(const char *message, const char *prefix, size_t length) {
    return length > 0 && strncmp(message, prefix, length) == 0 && message[length] == ':' &&
           message[length + 1] == ' ';
}

const char *cli_kiln_error_detail(const kiln_error *error, const char *path) {
    const char *message = error->message;
    /* The runtime names a file by the last characters of its path that fit. */
    size_t length = strlen(path);
    size_t keep = sizeof((kiln_file *)NULL)->name - 1;
    const char *tail = length > keep ? path + (length - keep) : path;
    if (starts_with_name(message, tail, strlen(tail)))
        return message + strlen(tail) + 2;
    const char *name = cli_file_name(path);
    if (starts_with_name(message, name, strlen(name)))
        return message + strlen(name) + 2;
    return message[0] != '\0' ? message : kiln_result_str(error->code);
}
