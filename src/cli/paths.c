/* paths.c — small path helpers for the commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

bool cli_require_folder(const char *path, const char *role) {
    return build_require_folder(cli_message_options(), path, role);
}

bool cli_same_file(const char *a, const char *b) {
    struct stat a_info, b_info;
    return stat(a, &a_info) == 0 && stat(b, &b_info) == 0 && a_info.st_dev == b_info.st_dev &&
           a_info.st_ino == b_info.st_ino;
}

const char *cli_file_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

bool cli_list_output(const char *output, strlist *files) {
    return build_list_output(cli_message_options(), output, files);
}

int cli_compare_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
