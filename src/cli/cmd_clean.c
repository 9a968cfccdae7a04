/*
 * cmd_clean.c — `kiln clean`: removes what kiln wrote into an output folder,
 * and nothing else.
 *
 * What kiln wrote is what it recorded: the outputs of every asset in the
 * build cache, every file the manifest names, the cache and the manifest
 * themselves, the temporaries of a killed build, and the pack next to the
 * folder. The folder tree is walked (never entering links or hidden
 * folders) and a file is removed only when it is one of those and a regular
 * file; so a path the cache or manifest names can never reach outside the
 * folder, and a user's own file in it survives. A folder is removed when it
 * is left empty by the removal.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

#define COMMAND "clean"

static const struct option clean_long_options[] = {
    BUILD_SHARED_LONG_OPTIONS,
    {NULL, 0, NULL, 0},
};

void cmd_clean_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln clean [options]\n"
            "\n"
            "Removes what kiln wrote into the output folder: the cooked files its build\n"
            "cache (" CACHE_FILE_NAME ") and manifest (" KILN_MANIFEST_FILE_NAME
            ") know, the cache and the\n"
            "manifest, a killed build's temporaries, and the pack <output>.kpak; then\n"
            "the folders that leaves empty. Files kiln did not write stay. A folder with\n"
            "neither a build cache nor a manifest is refused.\n"
            "\n"
            "Options:\n"
            "  -o, --output DIR   the output folder (default: as `kiln build` decides it:\n"
            "                     the preset's, kiln.yml's, else %s)\n"
            "      --config FILE  read FILE instead of looking for " BUILD_CONFIG_FILE "\n"
            "      --preset NAME  the preset whose output folder to clean\n"
            "  -n, --dry-run      list what would be removed; remove nothing\n"
            "  -q, --quiet        print errors only\n"
            "  -v, --verbose      print every file and folder removed\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when everything listed was removed, 1 when the folder is\n"
            "not a kiln output folder or a file could not be removed, 2 for a\n"
            "command-line mistake.\n",
            BUILD_DEFAULT_OUTPUT);
}

typedef struct clean_run {
    const char *output;
    bool dry_run;
    progress_verbosity verbosity;
    strlist owned; /* what kiln wrote, relative to the output folder, sorted */
    size_t files;  /* removed (or, in a dry run, to remove) */
    size_t folders;
    size_t kept; /* files (and links) kiln did not write, left alone */
    uint64_t bytes;
    bool failed;
} clean_run;

/* Returns -1 to go on, otherwise the exit status. */
static int parse_clean_options(int argc, char **argv, build_options *options) {
    *options = (build_options){.verbosity = PROGRESS_NORMAL, .progress = cli_terminal_progress()};
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX BUILD_SHARED_SHORT_OPTIONS,
                                 clean_long_options, NULL)) != -1) {
        if (option == 'h') {
            cmd_clean_usage(stdout);
            return CLI_EXIT_OK;
        }
        if (!build_shared_option(option, options))
            return cli_option_error(COMMAND, argv, clean_long_options, option);
    }
    if (!cli_reject_operands(COMMAND, argc, argv))
        return CLI_EXIT_USAGE;
    return build_shared_options_done(COMMAND, options);
}

/* ---------------------------------------------------------------------------
 * What kiln wrote
 * ------------------------------------------------------------------------- */

/* Adds the cache's outputs to `owned`, and the cache itself when it is one
 * (it parses, or a damaged one still starts with kiln's first line). True
 * when the cache is readable. */
static bool add_cache_files(const char *output, strlist *owned, bool *ok) {
    char *path = cook_path_join(output, CACHE_FILE_NAME);
    uint8_t *data = NULL;
    size_t size = 0;
    char reason[256] = "out of memory";
    kiln_cache cache = {0};
    struct stat info;
    bool present = path != NULL && lstat(path, &info) == 0 && S_ISREG(info.st_mode);
    bool readable = present &&
                    cook_read_file(path, SIZE_MAX / 2, &data, &size, reason, sizeof reason) &&
                    cache_parse(&cache, data, size, reason, sizeof reason);
    if (present && !readable)
        fprintf(stderr, "%s: warning: cannot read the build cache (%s)\n", cook_escaped(path),
                cook_escaped(reason));
    if (readable || (present && data != NULL && size >= 11 && memcmp(data, "kiln-cache ", 11) == 0))
        *ok = *ok && strlist_push(owned, CACHE_FILE_NAME);
    for (size_t r = 0; r < cache.count; r++)
        *ok = *ok && strlist_push_all(owned, &cache.records[r].outputs);
    cache_free(&cache);
    free(data);
    free(path);
    return readable;
}

/* Adds the manifest and every file it names to `owned`. True when the
 * manifest is readable. */
static bool add_manifest_files(const char *output, strlist *owned, bool *ok) {
    char *path = cook_path_join(output, KILN_MANIFEST_FILE_NAME);
    kiln_file file;
    kiln_error error;
    kiln_manifest_view view;
    struct stat info;
    bool present = path != NULL && lstat(path, &info) == 0 && S_ISREG(info.st_mode);
    bool readable = present && kiln_file_map_expanded(&file, path, 0, &error) == KILN_OK;
    if (readable && kiln_manifest_view_get(&file, &view, &error) != KILN_OK) {
        kiln_file_close(&file);
        readable = false;
    }
    if (present && !readable)
        fprintf(stderr, "%s: warning: cannot read the manifest (%s)\n", cook_escaped(path),
                cook_escaped(cli_kiln_error_detail(&error, path)));
    if (readable) {
        *ok = *ok && strlist_push(owned, KILN_MANIFEST_FILE_NAME);
        for (uint32_t i = 0; i < view.entry_count; i++)
            *ok = *ok && strlist_push(owned, kiln_manifest_path(&view, &view.entries[i]));
        kiln_file_close(&file);
    }
    free(path);
    return readable;
}

static bool is_owned(const clean_run *run, const char *relative) {
    const strlist *owned = &run->owned;
    return owned->count > 0 && bsearch(&relative, owned->items, owned->count,
                                       sizeof owned->items[0], cli_compare_strings) != NULL;
}

/* ---------------------------------------------------------------------------
 * Removing
 * ------------------------------------------------------------------------- */

/* Removes one file or (empty) folder, or in a dry run says it would. */
static void remove_entry(clean_run *run, const char *full, bool folder, uint64_t bytes) {
    if (run->dry_run) {
        printf("would remove %s%s\n", cook_escaped(full), folder ? "/" : "");
    } else if (folder ? rmdir(full) != 0 : unlink(full) != 0) {
        fprintf(stderr, "%s: error: cannot remove: %s\n", cook_escaped(full), strerror(errno));
        run->failed = true;
        return;
    } else if (run->verbosity == PROGRESS_VERBOSE) {
        printf("removed %s%s\n", cook_escaped(full), folder ? "/" : "");
    }
    if (folder) {
        run->folders++;
    } else {
        run->files++;
        run->bytes += bytes;
    }
}

/* Cleans `folder` (`relative` to the output): removes what kiln wrote, then
 * each subfolder that this leaves empty. Returns whether `folder` is (or, in
 * a dry run, would be) empty now, and sets *removed when anything in it was. */
static bool clean_folder(clean_run *run, const char *folder, const char *relative, bool *removed) {
    DIR *dir = opendir(folder);
    if (dir == NULL) {
        fprintf(stderr, "%s: error: cannot list: %s\n", cook_escaped(folder), strerror(errno));
        run->failed = true;
        return false;
    }
    strlist names = {0};
    struct dirent *entry;
    bool ok = true;
    while (ok && (entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
            ok = strlist_push(&names, entry->d_name);
    }
    closedir(dir);
    strlist_sort(&names); /* the same listing whatever order readdir gives */
    bool empty = ok;
    for (size_t i = 0; ok && i < names.count; i++) {
        const char *name = names.items[i];
        char *full = cook_path_join(folder, name);
        char *path = cook_path_join(relative, name);
        struct stat info;
        ok = full != NULL && path != NULL;
        if (ok && lstat(full, &info) != 0) {
            empty = false; /* gone meanwhile, or unreadable: leave it */
        } else if (ok && S_ISDIR(info.st_mode) && name[0] != '.') {
            bool inner = false;
            if (clean_folder(run, full, path, &inner) && inner)
                remove_entry(run, full, true, 0);
            else
                empty = false;
            *removed = *removed || inner;
        } else if (ok && S_ISREG(info.st_mode) &&
                   (is_owned(run, path) || write_is_temporary_name(name) ||
                    (relative[0] == '\0' &&
                     (strcmp(name, BUILD_WRITE_PROBE) == 0 || strcmp(name, BUILD_LOCK_FILE) == 0 ||
                      strcmp(name, BUILD_JOURNAL_FILE) == 0)))) {
            remove_entry(run, full, false, (uint64_t)info.st_size);
            *removed = true;
        } else if (ok) {
            run->kept += !S_ISDIR(info.st_mode);
            empty = false;
        }
        free(path);
        free(full);
    }
    strlist_free(&names);
    if (!ok) {
        cli_error("out of memory while cleaning '%s'", folder);
        run->failed = true;
    }
    return ok && empty;
}

/* The pack next to the output folder, if it is one (it opens as a pack), and
 * the temporaries a killed pack write left beside it. */
static void clean_pack(clean_run *run) {
    char *pack = build_pack_path(run->output);
    char *copy = pack ? cook_strdup(pack) : NULL;
    char *slash = copy ? strrchr(copy, '/') : NULL;
    const char *name = pack ? cli_file_name(pack) : "";
    const char *parent = copy == NULL ? NULL : slash == NULL ? "." : slash == copy ? "/" : copy;
    if (slash != NULL && slash != copy)
        *slash = '\0';
    struct stat info;
    kiln_pack opened;
    kiln_error error;
    if (pack != NULL && lstat(pack, &info) == 0 && S_ISREG(info.st_mode) &&
        kiln_pack_open(&opened, pack, &error) == KILN_OK) {
        kiln_pack_close(&opened);
        remove_entry(run, pack, false, (uint64_t)info.st_size);
    }
    DIR *dir = parent ? opendir(parent) : NULL;
    size_t name_length = strlen(name);
    struct dirent *entry;
    while (dir != NULL && (entry = readdir(dir)) != NULL) {
        /* A killed pack write's leftover: ".<name>.kiln-XXXXXX". */
        const char *leftover = entry->d_name;
        if (leftover[0] != '.' || strncmp(leftover + 1, name, name_length) != 0 ||
            leftover[1 + name_length] != '.' || !write_is_temporary_name(leftover))
            continue;
        char *full = cook_path_join(parent, leftover);
        if (full != NULL && lstat(full, &info) == 0 && S_ISREG(info.st_mode))
            remove_entry(run, full, false, (uint64_t)info.st_size);
        free(full);
    }
    if (dir != NULL)
        closedir(dir);
    free(copy);
    free(pack);
}

static void print_summary(const clean_run *run) {
    if (run->verbosity == PROGRESS_QUIET)
        return;
    printf("kiln: %s %zu file%s (%.1f KiB) and %zu folder%s from %s",
           run->dry_run ? "would remove" : "removed", run->files, cli_plural(run->files),
           (double)run->bytes / 1024.0, run->folders, cli_plural(run->folders),
           cook_escaped(run->output));
    if (run->kept > 0)
        printf("; kept %zu file%s kiln did not write", run->kept, cli_plural(run->kept));
    printf("%s\n", run->dry_run ? "; nothing removed (dry run)" : "");
}

static int clean(const build_options *options, const char *output) {
    bool dry_run = options->dry_run;
    progress_verbosity verbosity = options->verbosity;
    if (!cli_require_folder(output, "output"))
        return CLI_EXIT_FAILURE;
    clean_run run = {.output = output, .dry_run = dry_run, .verbosity = verbosity};
    bool ok = true;
    bool known = add_cache_files(output, &run.owned, &ok);
    known = add_manifest_files(output, &run.owned, &ok) || known;
    if (!ok) {
        cli_error("out of memory");
        strlist_free(&run.owned);
        return CLI_EXIT_FAILURE;
    }
    if (!known) {
        cli_error("'%s' has no kiln build cache (" CACHE_FILE_NAME
                  ") or manifest (" KILN_MANIFEST_FILE_NAME
                  "): not a kiln output folder; nothing removed",
                  output);
        strlist_free(&run.owned);
        return CLI_EXIT_FAILURE;
    }
    strlist_sort(&run.owned);
    /* A build into the folder finishes first (its lock; lock.c): cleaning
     * under it would remove what it just wrote. A dry run changes nothing. */
    int lock = -1;
    if (!dry_run && (lock = build_lock_output(options, output)) < 0) {
        strlist_free(&run.owned);
        return CLI_EXIT_FAILURE;
    }
    bool removed = false;
    /* The folder itself goes too when the clean empties it (not the working
     * folder, which cannot be removed from inside). */
    if (clean_folder(&run, output, "", &removed) && removed && !cli_same_file(output, "."))
        remove_entry(&run, output, true, 0);
    clean_pack(&run);
    build_unlock_output(lock);
    print_summary(&run);
    strlist_free(&run.owned);
    return run.failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int cmd_clean(int argc, char **argv) {
    build_options options;
    int status = parse_clean_options(argc, argv, &options);
    if (status >= 0)
        return status;
    build_setup setup;
    status = build_setup_load(&options, &setup);
    if (status < 0)
        status = clean(&options, setup.output);
    config_free(&setup.config);
    return status;
}
