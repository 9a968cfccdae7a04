/*
 * watch_events.c — what `kiln watch` watches (watch.h): inotify on every
 * folder of the input (folders created later too; not the output folder,
 * hidden names or editor temporaries) and on kiln.yml's folder; each change
 * makes a round due and is noted (watch_state.changes) for the requests
 * answered meanwhile.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/watch.h"
#include "common/grow.h"

#define WATCH_MASK                                                                                 \
    (IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM |              \
     IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_EXCL_UNLINK | IN_ONLYDIR)

/* Names no build reads: hidden files (the walk skips them, and editors' lock
 * files are ".#name") and editor temporaries. */
static bool ignored_name(const char *name) {
    size_t length = strlen(name);
    return name[0] == '.' || (length > 0 && name[length - 1] == '~') ||
           (length > 4 &&
            (strcmp(name + length - 4, ".swp") == 0 || strcmp(name + length - 4, ".swx") == 0)) ||
           strcmp(name, "4913") == 0;
}

static watched_folder *find_folder(watch_state *state, int wd) {
    for (size_t i = 0; i < state->folder_count; i++) {
        if (state->folders[i].wd == wd)
            return &state->folders[i];
    }
    return NULL;
}

static void forget_folder(watch_state *state, int wd) {
    for (size_t i = 0; i < state->folder_count; i++) {
        if (state->folders[i].wd == wd) {
            free(state->folders[i].path);
            state->folders[i] = state->folders[--state->folder_count];
            return;
        }
    }
}

/* Looked up each time: `kiln clean` may remove the output folder and a round
 * make it again, a new inode; watching it would make every round cause the next. */
static bool is_output_folder(const watch_state *state, const struct stat *info) {
    struct stat output;
    return stat(state->output, &output) == 0 && info->st_dev == output.st_dev &&
           info->st_ino == output.st_ino;
}

/* Watches input/relative and every folder under it (a folder found twice is
 * watched once: inotify returns the same wd). Hidden folders (and "." and
 * "..") are skipped, as the build's walk skips them. */
static void watch_tree(watch_state *state, const char *relative, unsigned depth) {
    char *full = relative[0] ? cook_path_join(state->input, relative) : cook_strdup(state->input);
    struct stat info;
    /* Like the build's walk, a symbolic link to a folder under the input is
     * not followed (the input itself may be one). */
    int found = full == NULL ? -1 : relative[0] ? lstat(full, &info) : stat(full, &info);
    if (found != 0 || !S_ISDIR(info.st_mode) || is_output_folder(state, &info) || depth > 64) {
        free(full);
        return;
    }
    int wd = inotify_add_watch(state->inotify_fd, full, WATCH_MASK);
    if (wd < 0) {
        char name[1024];
        fprintf(stderr, "%s: warning: cannot watch this folder: %s\n",
                cook_escape_to(name, sizeof name, full), strerror(errno));
        free(full);
        return;
    }
    if (find_folder(state, wd) == NULL) {
        watched_folder *grown = array_grow(state->folders, &state->folder_cap,
                                           state->folder_count + 1, sizeof *grown, 32);
        if (grown == NULL) {
            free(full);
            return;
        }
        state->folders = grown;
        char *copy = cook_strdup(relative);
        if (copy == NULL) {
            free(full);
            return;
        }
        state->folders[state->folder_count++] = (watched_folder){wd, copy};
    } else {
        free(full);
        return; /* already watched: do not walk it again */
    }
    strlist entries = {0};
    DIR *dir = opendir(full);
    struct dirent *entry;
    while (dir != NULL && (entry = readdir(dir)) != NULL) {
        if (entry->d_type != DT_DIR && entry->d_type != DT_UNKNOWN)
            continue;
        if (ignored_name(entry->d_name))
            continue;
        if (!strlist_push(&entries, entry->d_name))
            break;
    }
    if (dir != NULL)
        closedir(dir);
    for (size_t i = 0; i < entries.count; i++) {
        char *child = relative[0] ? cook_path_join(relative, entries.items[i])
                                  : cook_strdup(entries.items[i]);
        if (child != NULL)
            watch_tree(state, child, depth + 1);
        free(child);
    }
    strlist_free(&entries);
    free(full);
}

/* Reads the pending events; true when one of them may change a build. */
static bool read_events(watch_state *state) {
    bool changed = false;
    watch_changes *changes = &state->changes[CHANGES_PENDING];
    _Alignas(struct inotify_event) char buffer[16384];
    for (;;) {
        ssize_t got = read(state->inotify_fd, buffer, sizeof buffer);
        if (got <= 0)
            break;
        for (char *at = buffer; at < buffer + got;) {
            /* The kernel pads each event so the next one is aligned too. */
            const struct inotify_event *event = (const struct inotify_event *)(const void *)at;
            at += sizeof *event + event->len;
            if (event->mask & IN_Q_OVERFLOW) {
                changed = true; /* events were lost: a round checks everything */
                changes_note(changes, "");
                continue;
            }
            if (event->mask & IN_IGNORED) {
                forget_folder(state, event->wd);
                continue;
            }
            const char *name = event->len > 0 ? event->name : "";
            bool is_config = state->config_name != NULL && event->wd == state->config_wd &&
                             strcmp(name, state->config_name) == 0;
            if (event->wd == state->config_wd && find_folder(state, event->wd) == NULL) {
                if (is_config) {
                    changed = true;
                    changes_note(changes, ""); /* kiln.yml: any setting may have changed */
                }
                continue;
            }
            if (name[0] != '\0' && ignored_name(name))
                continue;
            if (is_config) {
                changed = true;
                changes_note(changes, "");
                continue;
            }
            watched_folder *folder = find_folder(state, event->wd);
            if (folder == NULL)
                continue;
            /* The file or folder changed ("": the input folder itself). */
            char *path = folder->path[0] && name[0] ? cook_path_join(folder->path, name)
                                                    : cook_strdup(name[0] ? name : folder->path);
            changes_note(changes, path != NULL ? path : ""); /* out of memory: everything */
            if (path != NULL && (event->mask & IN_ISDIR) &&
                (event->mask & (IN_CREATE | IN_MOVED_TO)))
                watch_tree(state, path, 0);
            if (state->options.verbosity == PROGRESS_VERBOSE && path != NULL)
                printf("changed %s (inotify 0x%x)\n", cook_escaped(path), (unsigned)event->mask);
            free(path);
            changed = true;
        }
    }
    fflush(stdout);
    return changed;
}

void watch_take_events(watch_state *state) {
    if (read_events(state)) {
        state->dirty = true;
        state->last_event = watch_now_ms();
    }
}

bool watch_start_watching(watch_state *state) {
    state->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (state->inotify_fd < 0) {
        cli_error("cannot watch the input folder: inotify: %s", strerror(errno));
        return false;
    }
    watch_tree(state, "", 0);
    if (state->folder_count == 0) {
        cli_error("cannot watch the input folder '%s'", state->input);
        return false;
    }
    state->config_wd = -1;
    if (state->config_folder != NULL) {
        state->config_wd = inotify_add_watch(state->inotify_fd, state->config_folder,
                                             IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE |
                                                 IN_MOVED_FROM | IN_ONLYDIR | IN_MASK_ADD);
    }
    return true;
}
