/*
 * shader_compile.c — GLSL / HLSL to SPIR-V through glslang (shader.h;
 * glslang's C++ API is behind shader_glslang_compile, shader_glslang.cpp).
 *
 * Debian 12's libshaderc.so.1 leaves glslang's symbols to the program that
 * links it, and crashes inside GlslangToSpv when they come from Debian's
 * glslang 12.0 static libraries (an ABI mismatch: glslc carries its own), so
 * kiln drives glslang directly, the compiler shaderc wraps, with the same
 * options (target environment, optimisation, debug info, includes).
 *
 * glslang runs in a reused child process (import/isolate_shader.c), which
 * asks this process for every #include: resolve_include below runs here as
 * in process, so includes are read, bounded and recorded in one place. kiln
 * bounds what it hands glslang: include depth, include paths inside the
 * input root, source size (COOK_SOURCE_MAX_BYTES), and the includes of one
 * shader, in number and in bytes (INCLUDE_MAX_COUNT, include_byte_budget).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/shader_defines.h"
#include "cook/import/shader.h"
#include "cook/import/shader_glslang.h"

#define INCLUDE_MAX_DEPTH 32
/* The depth bound does not bound the number of includes: headers each
 * including the next twice, 20 deep, are 2^20 includes from 7 KB of sources
 * (19 s, 400 MB). glslang reads a header again for every #include of it,
 * include guards or #pragma once notwithstanding, so every one counts. A
 * real shader includes tens to hundreds of headers. */
#define INCLUDE_MAX_COUNT 16384u
/* The bytes all includes of one shader may add: 64 times the shader's own
 * size, at least 16 MiB (far above any real shader library, and glslang
 * reads that in well under a second). */
#define INCLUDE_BYTES_PER_SOURCE_BYTE 64u
#define INCLUDE_MIN_BYTE_BUDGET ((size_t)16 << 20)

/* ---------------------------------------------------------------------------
 * Includes
 * ------------------------------------------------------------------------- */

/* What the include callbacks share: the context (its dependency lists) and
 * who included whom, for the chain in messages. */
typedef struct include_state {
    cook_context *ctx;
    strlist included;       /* root-relative paths, in the order first read */
    strlist includer;       /* includer[i] included included[i] */
    strlist failed;         /* "includer\nrequested" already reported */
    const char *shader;     /* the stage's file, named by the budget's errors */
    uint32_t include_count; /* every #include read, again for each use */
    size_t include_bytes;   /* and the bytes they added */
    size_t byte_budget;     /* include_byte_budget */
    bool over_budget;       /* reported once; every later include fails */
} include_state;

static size_t include_byte_budget(size_t source_size) {
    size_t budget = source_size <= SIZE_MAX / INCLUDE_BYTES_PER_SOURCE_BYTE
                        ? source_size * INCLUDE_BYTES_PER_SOURCE_BYTE
                        : SIZE_MAX;
    return budget > INCLUDE_MIN_BYTE_BUDGET ? budget : INCLUDE_MIN_BYTE_BUDGET;
}

/* Reads `relative` against the folder of `base` (root-relative; "" for the
 * root) as a dependency of the asset. */
static bool read_against(cook_context *ctx, const char *base, const char *relative, char **path,
                         uint8_t **data, size_t *size, char *reason, size_t reason_size) {
    const char *saved = ctx->source_path;
    ctx->source_path = base;
    bool ok = cook_resolve_dependency(ctx, relative, path, reason, reason_size);
    ctx->source_path = saved;
    if (!ok)
        return false;
    char *full = cook_path_join(ctx->input_root, *path);
    ok = full != NULL &&
         cook_read_file(full, COOK_SOURCE_MAX_BYTES, data, size, reason, reason_size);
    free(full);
    if (!ok) {
        free(*path);
        *path = NULL;
    }
    return ok;
}

/* shader_glslang_job.include: "file" against the including file's folder,
 * then (and for <file> only) against each of shader.include_dirs. */
static bool resolve_include(void *user, const char *requested, bool relative,
                            const char *requesting, size_t depth, char **path, char **content,
                            size_t *length) {
    include_state *state = user;
    cook_context *ctx = state->ctx;
    if (state->over_budget)
        return false;
    if (state->include_count >= INCLUDE_MAX_COUNT) {
        diag_error(ctx->diag, state->shader, 0,
                   "more than %u includes (a header included again and again?) at '%s' "
                   "included from %s",
                   INCLUDE_MAX_COUNT, requested, requesting);
        state->over_budget = true;
        return false;
    }
    if (depth > INCLUDE_MAX_DEPTH) {
        diag_error(ctx->diag, requesting, 0,
                   "includes nest deeper than %d (an include cycle?) at '%s'", INCLUDE_MAX_DEPTH,
                   requested);
        return false;
    }
    /* glslang asks for a "file" that was not found once more as <file>: the
     * include dirs were searched the first time, and the error reported. */
    char key[1024];
    snprintf(key, sizeof key, "%s\n%s", requesting, requested);
    if (strlist_contains(&state->failed, key))
        return false;
    char reason[512] = "";
    uint8_t *data = NULL;
    bool found = relative && read_against(ctx, requesting, requested, path, &data, length, reason,
                                          sizeof reason);
    bool outside = strstr(reason, "leaves the input folder") != NULL ||
                   strstr(reason, "outside the input folder") != NULL ||
                   strstr(reason, "absolute path") != NULL;
    const char *dirs = ctx->settings->shader_include_dirs;
    while (!found && !outside && *dirs != '\0') {
        size_t dir_length = strcspn(dirs, "\n");
        char joined[1024];
        snprintf(joined, sizeof joined, "%.*s/%s", (int)dir_length, dirs, requested);
        char dir_reason[512];
        found = dir_length > 0 &&
                read_against(ctx, "", joined, path, &data, length, dir_reason, sizeof dir_reason);
        dirs += dir_length + (dirs[dir_length] == '\n');
    }
    if (!found) {
        strlist_push(&state->failed, key);
        diag_error(ctx->diag, requesting, 0, "cannot include '%s': %s", requested,
                   outside ? reason
                           : "not found next to the including file or in shader.include_dirs");
        return false;
    }
    state->include_count++;
    if (*length > state->byte_budget - state->include_bytes) {
        diag_error(ctx->diag, state->shader, 0,
                   "includes expand to more than %zu bytes (%u times the shader's size, at least "
                   "%zu) at '%s' included from %s",
                   state->byte_budget, INCLUDE_BYTES_PER_SOURCE_BYTE, INCLUDE_MIN_BYTE_BUDGET,
                   requested, requesting);
        state->over_budget = true;
        free(data);
        free(*path);
        *path = NULL;
        return false;
    }
    state->include_bytes += *length;
    if (!strlist_contains(&state->included, *path)) {
        strlist_push(&state->included, *path);
        strlist_push(&state->includer, requesting);
    }
    *content = (char *)data;
    return true;
}

/* ---------------------------------------------------------------------------
 * Messages
 * ------------------------------------------------------------------------- */

/* "header.glsl included from lit.frag", one note per step back to the source. */
static void note_include_chain(const include_state *state, const char *path) {
    for (int step = 0; step < INCLUDE_MAX_DEPTH; step++) {
        size_t i = 0;
        while (i < state->included.count && strcmp(state->included.items[i], path) != 0)
            i++;
        if (i == state->included.count)
            return;
        diag_note(state->ctx->diag, state->included.items[i], 0, "included from %s",
                  state->includer.items[i]);
        path = state->includer.items[i];
    }
}

/* One line of glslang's log: "ERROR: file:line: text", "WARNING: file:line:
 * text", "ERROR: text"; its summaries ("1 compilation errors.  No code
 * generated.") are dropped. */
static void report_line(const include_state *state, const char *fallback, const char *line,
                        size_t length) {
    char text[2048];
    snprintf(text, sizeof text, "%.*s", (int)length, line);
    bool error = strncmp(text, "ERROR: ", 7) == 0;
    bool warning = strncmp(text, "WARNING: ", 9) == 0;
    if (!error && !warning)
        return; /* glslang's continuation lines and notes */
    char *body = text + (error ? 7 : 9);
    if (strstr(body, "compilation errors.") != NULL || strstr(body, "No code generated") != NULL ||
        strstr(body, "compilation warnings.") != NULL ||
        strstr(body, "'' : compilation terminated") != NULL)
        return;
    /* Past the include budget every include left fails: its error said so. */
    if (state->over_budget && strstr(body, "Could not process include directive") != NULL)
        return;
    size_t end = strlen(body);
    while (end > 0 && (body[end - 1] == ' ' || body[end - 1] == '\r'))
        body[--end] = '\0';
    const char *file = fallback;
    uint32_t number = 0;
    /* "file:12: message": the file is what glslang was told (a root-relative path). */
    char *colon = strstr(body, ": ");
    if (colon != NULL) {
        char *line_colon = colon;
        while (line_colon > body && line_colon[-1] >= '0' && line_colon[-1] <= '9')
            line_colon--;
        if (line_colon < colon && line_colon > body && line_colon[-1] == ':') {
            line_colon[-1] = '\0';
            *colon = '\0';
            number = (uint32_t)strtoul(line_colon, NULL, 10);
            file = body;
            body = colon + 2;
        }
    }
    if (error)
        diag_error(state->ctx->diag, file, number, "%s", body);
    else
        diag_warning(state->ctx->diag, file, number, "%s", body);
    if (strcmp(file, fallback) != 0)
        note_include_chain(state, file);
}

static void report_messages(const include_state *state, const char *fallback, const char *text) {
    while (text != NULL && *text != '\0') {
        size_t length = strcspn(text, "\n");
        report_line(state, fallback, text, length);
        text += length + (text[length] == '\n');
    }
}

/* ---------------------------------------------------------------------------
 * Compiling
 * ------------------------------------------------------------------------- */

/* "#define NAME VALUE\n" for each NAME=VALUE of `defines`, "#define NAME 1\n"
 * for each NAME (shader_defines.h). */
static void add_defines(bytebuf *preamble, const char *defines) {
    shader_define define;
    while (shader_define_next(&defines, &define))
        if (define.value != NULL)
            bytebuf_printf(preamble, "#define %.*s %.*s\n", (int)define.name_length, define.token,
                           (int)define.value_length, define.value);
        else
            bytebuf_printf(preamble, "#define %.*s 1\n", (int)define.name_length, define.token);
}

/* True when the text holds "#include" (in a comment too: a needless
 * preamble costs only its bytes). */
static bool mentions_include(const char *text, size_t size) {
    static const char needle[] = "#include";
    for (size_t at = 0; size >= sizeof needle - 1 && at <= size - (sizeof needle - 1); at++) {
        if (text[at] == '#' && memcmp(text + at, needle, sizeof needle - 1) == 0)
            return true;
    }
    return false;
}

bool shader_compile(cook_context *ctx, const shader_compile_request *request, uint32_t **words,
                    size_t *word_count) {
    *words = NULL;
    *word_count = 0;
    const cook_settings *s = ctx->settings;
    include_state state = {
        .ctx = ctx, .shader = request->path, .byte_budget = include_byte_budget(request->size)};
    bytebuf preamble = {0};
    /* As glslc does: #include works without the source's own #extension line.
     * The preamble is a string of its own, so error lines stay the user's.
     * Only for a source that includes: glslang records the extension in the
     * module, and a shader without includes keeps its bytes. */
    if (!request->hlsl && mentions_include(request->text, request->size))
        bytebuf_printf(&preamble, "#extension GL_GOOGLE_include_directive : enable\n");
    add_defines(&preamble, request->defines);
    add_defines(&preamble, request->variant_defines);
    bytebuf_append(&preamble, "", 1);
    if (preamble.failed) {
        diag_error(ctx->diag, request->path, 0, "out of memory");
        bytebuf_free(&preamble);
        return false;
    }
    shader_glslang_job job = {
        .path = request->path,
        .text = request->text,
        .size = request->size,
        .stage = (int)request->stage,
        .hlsl = request->hlsl,
        .entry = request->entry,
        .preamble = (const char *)preamble.data,
        .target = s->shader_target,
        .optimize = s->shader_optimize,
        .debug = s->shader_debug,
        .warnings_as_errors = s->shader_warnings_as_errors,
        .user = &state,
        .include = resolve_include,
    };
    uint32_t errors_before = ctx->diag->errors;
    bool ok = shader_glslang_compile_isolated(&job, s->import_timeout);
    if (job.failure[0] != '\0')
        diag_error(ctx->diag, request->path, 0, "%s", job.failure);
    report_messages(&state, request->path, job.log);
    if (!ok && ctx->diag->errors == errors_before)
        diag_error(ctx->diag, request->path, 0, "the shader does not compile");
    if (ok && ctx->diag->errors == errors_before) {
        *words = job.words;
        *word_count = job.word_count;
        job.words = NULL;
    } else {
        ok = false;
    }
    free(job.words);
    free(job.log);
    bytebuf_free(&preamble);
    strlist_free(&state.included);
    strlist_free(&state.includer);
    strlist_free(&state.failed);
    return ok;
}
