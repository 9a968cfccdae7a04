/* paths.c — small path helpers for the commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

bool cli_require_folder(const char *path, const char *role) {
    struct stat info;
    if (stat(path, &info) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            cli_error("%s folder '%s' does not exist", role, path);
        else
            cli_error("%s folder '%s': %s", role, path, strerror(errno));
        return false;
    }
    if (!S_ISDIR(info.st_mode)) {
        cli_error("%s '%s' is not a folder", role, path);
        return false;
    }
    return true;
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
    if (!cli_require_folder(output, "output"))
        return false;
    char reason[512];
    if (!discover_walk(output, NULL, files, reason, sizeof reason)) {
        cli_error("cannot list the output folder: %s", reason);
        return false;
    }
    return true;
}

int cli_compare_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
