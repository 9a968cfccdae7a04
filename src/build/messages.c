/*
 * messages.c — everything the engine says goes through build_progress
 * (build/build.h): these helpers call its members when they are set, so the
 * rest of the room never checks.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "build/internal.h"

static const build_progress *progress_of(const build_options *options) {
    return options != NULL ? options->progress : NULL;
}

void build_write(const build_options *options, build_stream stream, const char *text, size_t size) {
    const build_progress *progress = progress_of(options);
    if (progress != NULL && progress->message != NULL && size > 0)
        progress->message(progress->context, stream, text, size);
}

__attribute__((format(printf, 4, 0))) static void say(const build_options *options,
                                                      build_stream stream, const char *prefix,
                                                      const char *fmt, va_list args) {
    const build_progress *progress = progress_of(options);
    if (progress == NULL || progress->message == NULL)
        return;
    bytebuf line = {0};
    bytebuf_append(&line, prefix, strlen(prefix));
    /* A message is one line that names sources, outputs and servers: it is
     * appended escaped, so no name can end it early or drive the terminal
     * (escaping is idempotent: a name escaped already stays as it is). */
    char stack[1024];
    va_list copy;
    va_copy(copy, args);
    int length = vsnprintf(stack, sizeof stack, fmt, copy);
    va_end(copy);
    if (length >= 0 && (size_t)length < sizeof stack) {
        bytebuf_append_escaped(&line, stack);
    } else if (length >= 0) {
        char *long_text = malloc((size_t)length + 1);
        if (long_text != NULL) {
            vsnprintf(long_text, (size_t)length + 1, fmt, args);
            bytebuf_append_escaped(&line, long_text);
        }
        free(long_text);
    }
    bytebuf_append(&line, "\n", 1);
    if (!line.failed)
        progress->message(progress->context, stream, (const char *)line.data, line.size);
    bytebuf_free(&line);
}

void build_say(const build_options *options, build_stream stream, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    say(options, stream, "", fmt, args);
    va_end(args);
}

void build_error(const build_options *options, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    say(options, BUILD_STREAM_ERR, "kiln: error: ", fmt, args);
    va_end(args);
}

bool build_line_contains(const char *line, size_t length, const char *needle) {
    size_t needle_length = strlen(needle);
    for (size_t at = 0; at + needle_length <= length; at++) {
        if (memcmp(line + at, needle, needle_length) == 0)
            return true;
    }
    return false;
}

bool build_source_folder(const char *input, char *out, size_t capacity) {
    if (capacity > 0)
        out[0] = '\0';
    if (input == NULL || capacity == 0)
        return false;
    size_t length = strlen(input);
    while (length > 1 && input[length - 1] == '/')
        length--;
    if ((length == 1 && input[0] == '.') || length == 0)
        length = 0; /* "." or "./": the paths are already relative to here */
    else if (length >= 2 && input[length - 1] == '.' && input[length - 2] == '/')
        length -= 2; /* "assets/." is "assets" */
    if (length >= capacity)
        return false; /* printed relative to the input, as the cache keeps them */
    memcpy(out, input, length);
    out[length] = '\0';
    return true;
}

/* What goes before diagnostic `line`: the source folder and a '/', or
 * nothing ("kiln: ..." names no path; an absolute path needs nothing). */
static void append_source_folder(bytebuf *out, const char *source_folder, const char *line) {
    if (source_folder == NULL || source_folder[0] == '\0' || line[0] == '/' || line[0] == '\0' ||
        strncmp(line, "kiln: ", 6) == 0)
        return;
    bytebuf_append_escaped(out, source_folder);
    if (strcmp(source_folder, "/") != 0)
        bytebuf_append(out, "/", 1);
}

void build_filter_diagnostics(const char *text, size_t size, bool errors_only,
                              const char *source_folder, bytebuf *out) {
    const char *end = text != NULL ? text + size : text;
    for (const char *line = text; line < end;) {
        const char *newline = memchr(line, '\n', (size_t)(end - line));
        size_t length = newline != NULL ? (size_t)(newline - line) : (size_t)(end - line);
        if (!errors_only || build_line_contains(line, length, ": error: ")) {
            /* diag.c escaped them; lines replayed from an older cache may not be. */
            char *copy = malloc(length + 1);
            if (copy != NULL) {
                memcpy(copy, line, length);
                copy[length] = '\0';
                append_source_folder(out, source_folder, copy);
                bytebuf_append_escaped(out, copy);
                free(copy);
            }
            bytebuf_append(out, "\n", 1);
        }
        line += length + (newline != NULL ? 1 : 0);
    }
}

void build_diagnostics(const build_options *options, const char *text, size_t size,
                       bool errors_only, const char *source_folder) {
    bytebuf kept = {0};
    build_filter_diagnostics(text, size, errors_only, source_folder, &kept);
    if (!kept.failed)
        build_write(options, BUILD_STREAM_ERR, (const char *)kept.data, kept.size);
    bytebuf_free(&kept);
}

void build_progress_begin(const build_options *options, size_t total,
                          progress_verbosity verbosity) {
    const build_progress *progress = progress_of(options);
    if (progress != NULL && progress->begin != NULL)
        progress->begin(progress->context, total, verbosity, options->jobs);
}

void build_progress_add_total(const build_options *options, size_t more) {
    const build_progress *progress = progress_of(options);
    if (progress != NULL && progress->add_total != NULL && more > 0)
        progress->add_total(progress->context, more);
}

cook_activity *build_progress_started(const build_options *options, const char *source_path) {
    const build_progress *progress = progress_of(options);
    if (progress == NULL || progress->asset_started == NULL)
        return NULL;
    return progress->asset_started(progress->context, source_path);
}

void build_progress_finished(const build_options *options, const char *source_path,
                             const cook_asset_result *result) {
    const build_progress *progress = progress_of(options);
    if (progress != NULL && progress->asset_finished != NULL)
        progress->asset_finished(progress->context, source_path, result);
}

void build_progress_settled(const build_options *options, const char *source_path,
                            const cook_diag *replayed) {
    const build_progress *progress = progress_of(options);
    if (progress != NULL && progress->asset_settled != NULL)
        progress->asset_settled(progress->context, source_path, replayed);
}

void build_progress_end(const build_options *options) {
    const build_progress *progress = progress_of(options);
    if (progress != NULL && progress->end != NULL)
        progress->end(progress->context);
}

const char *build_plural(size_t count) {
    return count == 1 ? "" : "s";
}

int build_compare_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
