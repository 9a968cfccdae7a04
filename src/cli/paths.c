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

/* The input folder as the user gave it ("" when it is the current folder),
 * without trailing slashes; NULL until a build names it. */
static char source_folder[1024];
static bool source_folder_set;

void cli_set_source_folder(const char *folder) {
    source_folder_set = false;
    if (folder == NULL)
        return;
    size_t length = strlen(folder);
    while (length > 1 && folder[length - 1] == '/')
        length--;
    if (length >= sizeof source_folder)
        return; /* printed relative, as before */
    if ((length == 1 && folder[0] == '.') || length == 0)
        length = 0; /* "." or "./": the paths are already relative to here */
    else if (length >= 2 && folder[length - 1] == '.' && folder[length - 2] == '/')
        length -= 2; /* "assets/." is "assets" */
    memcpy(source_folder, folder, length);
    source_folder[length] = '\0';
    source_folder_set = true;
}

void cli_append_source_folder(bytebuf *out, const char *line) {
    /* "kiln: ..." is no path; an absolute path needs nothing. */
    if (!source_folder_set || source_folder[0] == '\0' || line[0] == '/' || line[0] == '\0' ||
        strncmp(line, "kiln: ", 6) == 0)
        return;
    bytebuf_append_escaped(out, source_folder);
    if (strcmp(source_folder, "/") != 0)
        bytebuf_append(out, "/", 1);
}
