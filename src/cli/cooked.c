/* cooked.c — messages about the files of an output folder. */
#include <string.h>

#include "cli/cli.h"

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
