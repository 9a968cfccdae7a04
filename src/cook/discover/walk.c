/*
 * walk.c — list the source files under an input folder.
 *
 * The listing is deterministic: every regular file is collected first, then the
 * relative paths are sorted bytewise, so the order never depends on the file
 * system. Hidden entries (names starting with '.') are skipped, and so is the
 * excluded folder (the output folder when it lies inside the input), which is
 * recognised by its device and inode so any spelling of its path works.
 * Symbolic links to files inside the root are listed; a link that leads out
 * of the root (the rule dependencies follow, cook_path_inside_root), a link
 * loop and a broken link are not followed; symbolic links to folders are
 * never followed, so a link cycle cannot make the walk loop. Only regular
 * files are sources: FIFOs, sockets and devices are never opened.
 *
 * With a cook_diag to report to (discover_walk_sources), each such entry, and
 * a folder that cannot be read or a path longer than the system allows, is a
 * warning or an error naming it, and the walk goes on with the rest; without
 * one (discover_walk), they are skipped and a read failure ends the walk.
 *
 * discover_walk_sources also lists asset folders (a cubemap's "sky.env/") as
 * one entry each, without descending: their files belong to that asset.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/grow.h"
#include "cook/core/core.h"
#include "cook/discover/discover.h"

#define WALK_MAX_DEPTH 256u

typedef struct walk_state {
    const char *root;
    bool has_exclude;
    dev_t exclude_device;
    ino_t exclude_inode;
    discover_folder_fn asset_folder; /* NULL, or folders listed as entries, not descended */
    strlist *files;
    cook_diag *problems; /* NULL: skip what is not a source, stop at a read failure */
    int read_errno;      /* why read_folder_names last failed */
    char *reason;
    size_t reason_size;
} walk_state;

static bool walk_fail(walk_state *state, const char *path, const char *what) {
    if (state->reason != NULL && state->reason_size > 0)
        snprintf(state->reason, state->reason_size, "%s: %s", path, what);
    return false;
}

/* An entry that is not listed: reported (and the walk goes on) when there is
 * a cook_diag, else skipped silently, or, when `fatal`, the end of the walk. */
static bool walk_problem(walk_state *state, const char *relative, bool error, bool fatal,
                         const char *what) {
    if (state->problems == NULL)
        return fatal ? walk_fail(state, relative, what) : true;
    if (error)
        diag_error(state->problems, relative, 0, "%s", what);
    else
        diag_warning(state->problems, relative, 0, "%s", what);
    return true;
}

static const char *special_file_kind(mode_t mode) {
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "not a regular file";
}

static bool is_excluded_folder(const walk_state *state, const struct stat *info) {
    return state->has_exclude && info->st_dev == state->exclude_device &&
           info->st_ino == state->exclude_inode;
}

/* The visible names in one folder (without "." and ".." and hidden names),
 * with their types as readdir gives them (DT_UNKNOWN on file systems that do
 * not say): a regular file then needs no lstat, which is most of the cost of
 * walking a large tree. */
typedef struct folder_names {
    strlist names;
    unsigned char *types; /* types[i] for names.items[i] */
    size_t types_cap;
} folder_names;

static bool push_name(folder_names *list, const struct dirent *entry) {
    unsigned char *types =
        array_grow(list->types, &list->types_cap, list->names.count + 1, sizeof *types, 16);
    if (types == NULL)
        return false;
    list->types = types;
    list->types[list->names.count] = entry->d_type;
    return strlist_push(&list->names, entry->d_name);
}

static bool read_folder_names(walk_state *state, const char *full_path, folder_names *names) {
    DIR *folder = opendir(full_path);
    if (folder == NULL) {
        state->read_errno = errno;
        return walk_fail(state, full_path, strerror(errno));
    }
    bool ok = true;
    for (;;) {
        errno = 0;
        struct dirent *entry = readdir(folder);
        if (entry == NULL) {
            if (errno != 0) {
                state->read_errno = errno;
                ok = walk_fail(state, full_path, strerror(errno));
            }
            break;
        }
        if (entry->d_name[0] == '.')
            continue; /* ".", ".." and hidden entries */
        if (!push_name(names, entry)) {
            state->read_errno = ENOMEM;
            ok = walk_fail(state, full_path, "out of memory");
            break;
        }
    }
    closedir(folder);
    return ok;
}

static bool walk_folder(walk_state *state, const char *relative, unsigned depth);

/* What a symbolic link leads to: a file inside the root is listed; anything
 * else is named (a warning: it is not followed, as a dependency would not
 * be), except a FIFO, socket or device, which is an error like the thing
 * itself. */
static bool walk_link(walk_state *state, const char *relative, const char *full_path) {
    struct stat target;
    char what[160];
    if (stat(full_path, &target) != 0) {
        int error = errno;
        if (error == ELOOP)
            return walk_problem(state, relative, false, false, "symbolic link loop (not followed)");
        snprintf(what, sizeof what, "broken symbolic link (%s; ignored)", strerror(error));
        return walk_problem(state, relative, false, false, what);
    }
    if (S_ISDIR(target.st_mode))
        return walk_problem(state, relative, false, false,
                            "symbolic link to a folder (not followed)");
    if (!cook_path_inside_root(state->root, full_path))
        return walk_problem(state, relative, false, false,
                            "symbolic link leads outside the input folder (not followed)");
    if (!S_ISREG(target.st_mode)) {
        snprintf(what, sizeof what, "symbolic link to %s, not a regular file (not read)",
                 special_file_kind(target.st_mode));
        return walk_problem(state, relative, true, false, what);
    }
    return strlist_push(state->files, relative) || walk_fail(state, relative, "out of memory");
}

/* Decides what one folder entry is and lists or descends into it. */
static bool walk_entry(walk_state *state, const char *relative, unsigned char type,
                       unsigned depth) {
    if (type == DT_REG)
        return strlist_push(state->files, relative) || walk_fail(state, relative, "out of memory");
    char *full_path = cook_path_join(state->root, relative);
    if (full_path == NULL)
        return walk_fail(state, relative, "out of memory");

    bool ok = true;
    struct stat info;
    if (lstat(full_path, &info) != 0) {
        char what[160];
        if (errno == ENAMETOOLONG)
            snprintf(what, sizeof what, "path is %zu bytes, longer than the system allows (%d)",
                     strlen(full_path), PATH_MAX);
        else
            snprintf(what, sizeof what, "%s", strerror(errno));
        ok = walk_problem(state, relative, true, true, what);
    } else if (S_ISLNK(info.st_mode)) {
        ok = walk_link(state, relative, full_path);
    } else if (S_ISDIR(info.st_mode)) {
        if (is_excluded_folder(state, &info)) {
            /* the output folder: not a source */
        } else if (state->asset_folder != NULL && state->asset_folder(relative)) {
            if (!strlist_push(state->files, relative))
                ok = walk_fail(state, full_path, "out of memory");
        } else {
            ok = walk_folder(state, relative, depth + 1);
        }
    } else if (S_ISREG(info.st_mode)) {
        if (!strlist_push(state->files, relative))
            ok = walk_fail(state, full_path, "out of memory");
    } else {
        char what[96];
        snprintf(what, sizeof what, "%s, not a regular file (not read)",
                 special_file_kind(info.st_mode));
        ok = walk_problem(state, relative, true, false, what);
    }
    free(full_path);
    return ok;
}

/* `relative` is "" for the root itself. */
static bool walk_folder(walk_state *state, const char *relative, unsigned depth) {
    char *full_path = cook_path_join(state->root, relative);
    if (full_path == NULL)
        return walk_fail(state, relative, "out of memory");
    if (depth > WALK_MAX_DEPTH) {
        bool result = walk_problem(state, relative, true, true, "folders nested too deeply");
        free(full_path);
        return result;
    }

    folder_names names = {0};
    bool ok = read_folder_names(state, full_path, &names);
    size_t listed = names.names.count;
    if (!ok && state->problems != NULL && relative[0] != '\0' && state->read_errno != ENOMEM) {
        /* One folder that cannot be read (no permission, a path too long)
         * is an error of its own; the rest of the tree is still listed. */
        diag_error(state->problems, relative, 0, "cannot read the folder: %s",
                   strerror(state->read_errno));
        ok = true;
        listed = 0; /* what it listed before failing is kept out */
    }
    for (size_t i = 0; ok && i < listed; i++) {
        char *child = cook_path_join(relative, names.names.items[i]);
        if (child == NULL) {
            ok = walk_fail(state, full_path, "out of memory");
            break;
        }
        ok = walk_entry(state, child, names.types[i], depth);
        free(child);
    }
    strlist_free(&names.names);
    free(names.types);
    free(full_path);
    return ok;
}

static int compare_paths_bytewise(const void *a, const void *b) {
    const char *left = *(const char *const *)a;
    const char *right = *(const char *const *)b;
    return strcmp(left, right); /* compares as unsigned char: bytewise */
}

/* Sorts the lines the walk added to `problems` (from byte `start`), so they
 * come out in path order whatever order the folders were read in. Each line
 * is one whole message: diag.c escaped any newline of a name. */
static void sort_problems(cook_diag *problems, size_t start) {
    bytebuf *text = &problems->text;
    if (text->failed || text->size <= start)
        return;
    strlist lines = {0};
    char *begin = (char *)text->data + start, *end = (char *)text->data + text->size;
    bool ok = true;
    for (char *line = begin; ok && line < end;) {
        char *newline = memchr(line, '\n', (size_t)(end - line));
        if (newline == NULL)
            break;
        *newline = '\0';
        ok = strlist_push(&lines, line);
        *newline = '\n';
        line = newline + 1;
    }
    if (ok) {
        strlist_sort(&lines);
        text->size = start;
        for (size_t i = 0; i < lines.count; i++)
            bytebuf_printf(text, "%s\n", lines.items[i]);
    }
    strlist_free(&lines);
}

static bool walk(const char *root, const char *exclude, discover_folder_fn asset_folder,
                 strlist *files, cook_diag *problems, char *reason, size_t reason_size) {
    walk_state state = {.root = root,
                        .asset_folder = asset_folder,
                        .files = files,
                        .problems = problems,
                        .reason = reason,
                        .reason_size = reason_size};
    if (reason != NULL && reason_size > 0)
        reason[0] = '\0';
    if (root == NULL || files == NULL)
        return walk_fail(&state, "(null)", "invalid argument");

    struct stat root_info;
    if (stat(root, &root_info) != 0)
        return walk_fail(&state, root, strerror(errno));
    if (!S_ISDIR(root_info.st_mode))
        return walk_fail(&state, root, "not a folder");

    struct stat exclude_info;
    if (exclude != NULL && stat(exclude, &exclude_info) == 0 && S_ISDIR(exclude_info.st_mode)) {
        state.has_exclude = true;
        state.exclude_device = exclude_info.st_dev;
        state.exclude_inode = exclude_info.st_ino;
    }
    if (is_excluded_folder(&state, &root_info))
        return true; /* the whole input is excluded: nothing to list */

    size_t first_new = files->count;
    size_t first_problem = problems != NULL ? problems->text.size : 0;
    bool ok = walk_folder(&state, "", 0);
    if (problems != NULL)
        sort_problems(problems, first_problem);
    if (!ok)
        return false;
    if (files->count > first_new)
        qsort(files->items + first_new, files->count - first_new, sizeof files->items[0],
              compare_paths_bytewise);
    return true;
}

bool discover_walk(const char *root, const char *exclude, strlist *files, char *reason,
                   size_t reason_size) {
    return walk(root, exclude, NULL, files, NULL, reason, reason_size);
}

bool discover_walk_sources(const char *root, const char *exclude,
                           discover_folder_fn is_asset_folder, strlist *files, cook_diag *problems,
                           char *reason, size_t reason_size) {
    return walk(root, exclude, is_asset_folder, files, problems, reason, reason_size);
}
