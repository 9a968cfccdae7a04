/* mv_plan.c — what `kiln mv OLD NEW` rewrites (mv.h). Every file of the
 * input folder that names paths (cook_source_paths: levels, OBJ, MTL, glTF,
 * shaders) is read; each path it names is resolved as the importer resolves
 * it, from where the file is now. When the file or what it names moves, the
 * path is respelled from where the file will be to where the target will be
 * (relative to the file, or to the root for a level's asset: and ref:). A
 * path already right after the move is left alone, so only the paths that
 * would break change, and only their bytes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/mv.h"
#include "common/ascii.h"
#include "common/grow.h"
#include "common/path.h"

/* Larger sources are not read for paths (named in a note): a path-naming
 * text source is far smaller. */
#define MV_MAX_SCAN_BYTES ((size_t)1 << 30)

/* Where `path` (relative to the root) is after the move: OLD itself, or a
 * file inside OLD when it is a folder, goes under NEW. Caller frees. */
static char *moved(const mv_plan *plan, const char *path) {
    size_t length = strlen(plan->old_rel);
    bool inside =
        strncmp(path, plan->old_rel, length) == 0 && (path[length] == '\0' || path[length] == '/');
    if (!inside)
        return cook_strdup(path);
    size_t new_length = strlen(plan->new_rel), rest = strlen(path + length);
    char *out = malloc(new_length + rest + 1);
    if (out != NULL) {
        memcpy(out, plan->new_rel, new_length);
        memcpy(out + new_length, path + length, rest + 1);
    }
    return out;
}

static bool exists_in_input(const mv_plan *plan, const char *relative) {
    char *full = cook_path_join(plan->input, relative);
    struct stat info;
    bool exists = full != NULL && stat(full, &info) == 0;
    free(full);
    return exists;
}

static bool say(strlist *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool say(strlist *list, const char *fmt, ...) {
    char text[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    return strlist_push(list, text);
}

static bool add_edit(mv_file *file, const cook_named_path *named, bytebuf *text) {
    mv_edit *edits = array_grow(file->edits, &file->cap, file->count + 1, sizeof *edits, 4);
    if (edits == NULL)
        return false;
    file->edits = edits;
    bytebuf_append_zeros(text, 1);
    if (text->failed)
        return false;
    mv_edit *edit = &edits[file->count++];
    *edit = (mv_edit){.start = named->start, .end = named->end, .line = named->line};
    snprintf(edit->what, sizeof edit->what, "%s", named->what);
    edit->text = (char *)text->data;
    *text = (bytebuf){0};
    return true;
}

/* OLD is "<folder>/<path>": what an include folder would find as `path`. */
static bool names_old_by_suffix(const mv_plan *plan, const char *path) {
    size_t old_length = strlen(plan->old_rel), length = strlen(path);
    return length < old_length && plan->old_rel[old_length - length - 1] == '/' &&
           strcmp(plan->old_rel + old_length - length, path) == 0;
}

/* One named path of `file`: an edit, a problem, a note or nothing. */
static bool plan_path(mv_plan *plan, mv_file *file, const cook_named_path *named) {
    char reason[512];
    const char *from = named->from_root ? "" : file->now;
    char *target = cook_path_resolve(from, named->path, reason, sizeof reason);
    bool file_moves = strcmp(file->now, file->after) != 0;
    const char *shown = cook_escaped(named->path);
    if (target == NULL) {
        /* Absolute, empty or out of the root: the importer refuses it, and a
         * move cannot make it name the same file. */
        if (file_moves && !named->from_root && !path_is_absolute(named->path))
            return say(&plan->problems,
                       "%s:%u: error: %s '%s' %s; moved, the file could not keep naming it",
                       cook_escaped(file->now), named->line, named->what, shown, reason);
        return true;
    }
    if (strcmp(target, plan->old_rel) == 0 && !ascii_ends_with_ci(file->now, ".level") &&
        strcmp(named->what, "#include") != 0)
        plan->read_by_model = true;
    char *target_after = moved(plan, target);
    char *spelled = NULL, *again = NULL;
    bytebuf text = {0};
    bool ok = target_after != NULL;
    if (ok && strcmp(named->what, "#include") == 0 && strcmp(target, target_after) == 0 &&
        names_old_by_suffix(plan, named->path) && !exists_in_input(plan, target)) {
        /* Not next to the shader: found in shader.include_dirs, maybe OLD. */
        ok = say(&plan->notes,
                 "%s/%s:%u: warning: %s '%s' may find %s through shader.include_dirs; not "
                 "rewritten (check shader.include_dirs after the move)",
                 plan->input, cook_escaped(file->now), named->line, named->what, shown,
                 cook_escaped(plan->old_rel));
        goto done;
    }
    if (ok && !file_moves && strcmp(target, target_after) == 0)
        goto done; /* neither moves */
    if (ok && strcmp(target, target_after) == 0 && !exists_in_input(plan, target)) {
        /* Not there now (a shader may find it in shader.include_dirs): the
         * move does not break it, so it is not respelled. */
        ok = say(&plan->notes,
                 "%s/%s:%u: warning: %s '%s' names no file next to it; left as written",
                 plan->input, cook_escaped(file->now), named->line, named->what, shown);
        goto done;
    }
    /* Already right from where the file will be? */
    again = ok ? cook_path_resolve(named->from_root ? "" : file->after, named->path, reason,
                                   sizeof reason)
               : NULL;
    if (again != NULL && strcmp(again, target_after) == 0)
        goto done;
    spelled = !ok                ? NULL
              : named->from_root ? cook_strdup(target_after)
                                 : cook_path_relative(file->after, target_after);
    ok = spelled != NULL;
    if (ok && named->fixed) {
        ok = say(&plan->problems,
                 "%s:%u: error: %s '%s' would have to become '%s', which "
                 "kiln mv cannot write there (%s)",
                 cook_escaped(file->now), named->line, named->what, shown, cook_escaped(spelled),
                 ascii_ends_with_ci(file->now, ".glb")
                     ? "a .glb's JSON chunk"
                     : "spelled with escapes or across a line break");
    } else if (ok && !cook_named_path_spell(named, spelled, &text, reason, sizeof reason)) {
        ok = say(&plan->problems, "%s:%u: error: %s", cook_escaped(file->now), named->line, reason);
    } else if (ok) {
        ok = add_edit(file, named, &text);
    }
done:
    bytebuf_free(&text);
    free(spelled);
    free(again);
    free(target_after);
    free(target);
    return ok;
}

static void mv_file_free(mv_file *file) {
    for (size_t e = 0; e < file->count; e++)
        free(file->edits[e].text);
    free(file->edits);
    free(file->bytes);
    free(file->now);
    free(file->after);
}

/* Reads one file and plans its paths; a file with no edit is dropped. */
static bool plan_file(mv_plan *plan, const char *relative) {
    mv_file file = {.now = cook_strdup(relative), .after = moved(plan, relative)};
    char *full = cook_path_join(plan->input, relative);
    char reason[512];
    cook_named_paths paths = {0};
    bool ok = file.now != NULL && file.after != NULL && full != NULL;
    if (ok &&
        !cook_read_file(full, MV_MAX_SCAN_BYTES, &file.bytes, &file.size, reason, sizeof reason)) {
        ok =
            say(&plan->notes, "%s/%s: warning: not read (%s); the paths it names are not rewritten",
                plan->input, cook_escaped(relative), reason);
    } else if (ok &&
               !cook_source_paths(relative, file.bytes, file.size, &paths, reason, sizeof reason)) {
        ok = say(&plan->notes, "%s/%s: warning: %s; the paths it names are not rewritten",
                 plan->input, cook_escaped(relative), reason);
    } else {
        for (size_t i = 0; ok && i < paths.count; i++)
            ok = plan_path(plan, &file, &paths.items[i]);
    }
    cook_named_paths_free(&paths);
    free(full);
    if (ok && file.count > 0) {
        mv_file *files = array_grow(plan->files, &plan->cap, plan->count + 1, sizeof *files, 8);
        ok = files != NULL;
        if (ok) {
            plan->files = files;
            files[plan->count++] = file;
            return true;
        }
    }
    mv_file_free(&file);
    return ok;
}

bool mv_plan_make(mv_plan *plan, const char *input, const char *old_rel, const char *new_rel) {
    *plan = (mv_plan){.input = input, .old_rel = old_rel, .new_rel = new_rel};
    strlist files = {0};
    char reason[512];
    if (!discover_walk(input, NULL, &files, reason, sizeof reason)) {
        cli_error("cannot list %s: %s; nothing moved", input, reason);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < files.count; i++)
        if (cook_names_paths(files.items[i]))
            ok = plan_file(plan, files.items[i]);
    strlist_free(&files);
    if (!ok)
        cli_error("out of memory; nothing moved");
    return ok;
}

void mv_plan_print(const mv_plan *plan, bool dry_run) {
    for (size_t i = 0; i < plan->count; i++) {
        const mv_file *file = &plan->files[i];
        for (size_t e = 0; e < file->count; e++) {
            const mv_edit *edit = &file->edits[e];
            char old_text[COOK_ESCAPED_SIZE];
            char spelled[COOK_ESCAPED_SIZE];
            snprintf(spelled, sizeof spelled, "%.*s", (int)(edit->end - edit->start),
                     (const char *)file->bytes + edit->start);
            cook_escape_to(old_text, sizeof old_text, spelled);
            printf("kiln: %s%s/%s:%u: %s: %s -> %s\n", dry_run ? "would rewrite " : "", plan->input,
                   cook_escaped(file->after), edit->line, edit->what, old_text,
                   cook_escaped(edit->text));
        }
    }
    for (size_t i = 0; i < plan->notes.count; i++)
        fprintf(stderr, "%s\n", plan->notes.items[i]);
}

bool mv_plan_apply(const mv_plan *plan) {
    bool ok = true;
    for (size_t i = 0; i < plan->count; i++) {
        const mv_file *file = &plan->files[i];
        bytebuf out = {0};
        size_t copied = 0;
        for (size_t e = 0; e < file->count; e++) {
            const mv_edit *edit = &file->edits[e];
            bytebuf_append(&out, file->bytes + copied, edit->start - copied);
            bytebuf_append(&out, edit->text, strlen(edit->text));
            copied = edit->end;
        }
        bytebuf_append(&out, file->bytes + copied, file->size - copied);
        char *path = cook_path_join(plan->input, file->after);
        char reason[512] = "out of memory";
        if (path == NULL || out.failed ||
            !write_file_atomic(path, out.data, out.size, reason, sizeof reason)) {
            cli_error("cannot rewrite %s/%s: %s", plan->input, cook_escaped(file->after), reason);
            ok = false;
        }
        free(path);
        bytebuf_free(&out);
    }
    return ok;
}

void mv_plan_free(mv_plan *plan) {
    for (size_t i = 0; i < plan->count; i++)
        mv_file_free(&plan->files[i]);
    free(plan->files);
    strlist_free(&plan->problems);
    strlist_free(&plan->notes);
    *plan = (mv_plan){0};
}
