/* context.c — resolving and reading the files a source refers to.
 *
 * A source may name other files (an .mtl, a .bin, a texture). They are resolved
 * against the source's folder and must stay inside the input root, checked twice:
 * lexically (no absolute path, no ".." above the root) and after following
 * symlinks (realpath), so neither "../../etc/passwd" nor a link out is read. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "cook/core/core.h"

void cook_release_source(cook_context *ctx) {
    if (ctx->source_buffer == NULL)
        return;
    /* The outputs written after this still name the file's hash in META. */
    if (ctx->source_hash.bytes != NULL && ctx->source_hash.bytes == ctx->source &&
        ctx->source_hash.size == ctx->source_size) {
        ctx->source_hash.released = true;
        ctx->source_hash.bytes = NULL;
    }
    free(ctx->source_buffer);
    ctx->source_buffer = NULL;
    ctx->source = NULL;
    ctx->source_size = 0;
}

uint64_t cook_source_hash(const cook_context *ctx) {
    if (ctx->source_hash.released && ctx->source == NULL)
        return ctx->source_hash.xxh3;
    if (ctx->source_hash.bytes != NULL && ctx->source_hash.bytes == ctx->source &&
        ctx->source_hash.size == ctx->source_size)
        return ctx->source_hash.xxh3;
    return XXH3_64bits(ctx->source, ctx->source_size);
}

bool cook_path_inside_root(const char *input_root, const char *full_path) {
    char root_real[PATH_MAX];
    char file_real[PATH_MAX];
    if (realpath(input_root, root_real) == NULL || realpath(full_path, file_real) == NULL)
        return true; /* nonexistent: the open that follows reports it */
    size_t root_length = strlen(root_real);
    return strncmp(root_real, file_real, root_length) == 0 &&
           (file_real[root_length] == '/' || file_real[root_length] == '\0');
}

/* Resolves `relative` against the folder of `base` (see cook_resolve_dependency)
 * and records it in `list`. */
static bool resolve_into(cook_context *ctx, const char *base, const char *relative, strlist *list,
                         char **root_relative, char *reason, size_t reason_size) {
    if (root_relative != NULL)
        *root_relative = NULL;
    char *path = cook_path_resolve(base, relative, reason, reason_size);
    if (path == NULL)
        return false;
    char *full = cook_path_join(ctx->input_root, path);
    if (full == NULL) {
        free(path);
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    FILE *probe = NULL;
    bool ok = cook_path_inside_root(ctx->input_root, full);
    if (!ok)
        snprintf(reason, reason_size, "'%s' resolves outside the input folder", relative);
    else if ((probe = cook_open_regular(full, NULL, reason, reason_size)) == NULL) {
        /* Only regular files are read: a FIFO would hang the build. */
        struct stat info;
        char why[160];
        snprintf(why, sizeof why, "%s", reason);
        if (lstat(full, &info) != 0)
            snprintf(reason, reason_size, "'%s' not found", path);
        else
            snprintf(reason, reason_size, "'%s': %s", path, why);
        ok = false;
    }
    if (probe != NULL)
        fclose(probe);
    free(full);
    /* What the cook did depends on this file not being usable: a build may
     * reuse the result only while it still is not (stat fails). A link out of
     * the root exists, so such an asset is simply cooked every time. */
    if (!ok && !strlist_contains(&ctx->absent, path))
        strlist_push(&ctx->absent, path);
    if (ok && !strlist_contains(list, path))
        strlist_push(list, path);
    if (ok && root_relative != NULL)
        *root_relative = path;
    else
        free(path);
    return ok;
}

bool cook_resolve_dependency(cook_context *ctx, const char *relative, char **root_relative,
                             char *reason, size_t reason_size) {
    return resolve_into(ctx, ctx->source_path, relative, &ctx->dependencies, root_relative, reason,
                        reason_size);
}

bool cook_add_reference(cook_context *ctx, const char *relative, char *reason, size_t reason_size) {
    return resolve_into(ctx, ctx->source_path, relative, &ctx->references, NULL, reason,
                        reason_size);
}

bool cook_resolve_dependency_from(cook_context *ctx, const char *base, const char *relative,
                                  char **root_relative, char *reason, size_t reason_size) {
    return resolve_into(ctx, base, relative, &ctx->dependencies, root_relative, reason,
                        reason_size);
}

bool cook_add_reference_from(cook_context *ctx, const char *base, const char *relative,
                             char **root_relative, char *reason, size_t reason_size) {
    return resolve_into(ctx, base, relative, &ctx->references, root_relative, reason, reason_size);
}

/* A path another process resolved: resolved again from the root (base ""),
 * it must come back unchanged, so it passed the same checks and was already
 * what resolving returns. Recorded only then. */
static bool record_resolved(cook_context *ctx, const char *root_relative, strlist *list,
                            char *reason, size_t reason_size) {
    strlist scratch = {0};
    char *normal = NULL;
    bool ok = resolve_into(ctx, "", root_relative, &scratch, &normal, reason, reason_size);
    if (ok && strcmp(normal, root_relative) != 0) {
        snprintf(reason, reason_size, "'%s' is not a path relative to the input folder",
                 root_relative);
        ok = false;
    }
    if (ok && !strlist_contains(list, normal) && !strlist_push(list, normal)) {
        snprintf(reason, reason_size, "out of memory");
        ok = false;
    }
    free(normal);
    strlist_free(&scratch);
    return ok;
}

bool cook_record_dependency(cook_context *ctx, const char *root_relative, char *reason,
                            size_t reason_size) {
    return record_resolved(ctx, root_relative, &ctx->dependencies, reason, reason_size);
}

bool cook_record_reference(cook_context *ctx, const char *root_relative, char *reason,
                           size_t reason_size) {
    return record_resolved(ctx, root_relative, &ctx->references, reason, reason_size);
}

bool cook_read_dependency(cook_context *ctx, const char *relative, uint8_t **data, size_t *size,
                          char *reason, size_t reason_size) {
    *data = NULL;
    *size = 0;
    char *path = NULL;
    if (!cook_resolve_dependency(ctx, relative, &path, reason, reason_size))
        return false;
    char *full = cook_path_join(ctx->input_root, path);
    bool ok = full != NULL &&
              cook_read_file(full, COOK_SOURCE_MAX_BYTES, data, size, reason, reason_size);
    free(full);
    free(path);
    return ok;
}
