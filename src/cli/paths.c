/* paths.c — small path helpers for the commands. */
#include <errno.h>
#include <limits.h>
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

char *cli_input_relative(const char *input, const char *path) {
    char root[PATH_MAX], folder[PATH_MAX];
    const char *name = cli_file_name(path);
    size_t folder_length = (size_t)(name - path);
    char *parent = malloc(folder_length + 2);
    if (parent == NULL)
        return NULL;
    if (folder_length == 0)
        strcpy(parent, ".");
    else {
        memcpy(parent, path, folder_length);
        parent[folder_length] = '\0';
    }
    bool resolved = realpath(input, root) != NULL && realpath(parent, folder) != NULL;
    free(parent);
    if (!resolved || name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return NULL;
    size_t root_length = strlen(root);
    bool inside = strncmp(folder, root, root_length) == 0 &&
                  (folder[root_length] == '\0' || folder[root_length] == '/');
    if (!inside)
        return NULL;
    const char *below = folder[root_length] == '/' ? folder + root_length + 1 : "";
    size_t length = strlen(below) + 1 + strlen(name) + 1;
    char *relative = malloc(length);
    if (relative != NULL)
        snprintf(relative, length, "%s%s%s", below, below[0] ? "/" : "", name);
    return relative;
}
