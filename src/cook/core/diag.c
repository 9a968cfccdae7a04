/* diag.c — per-asset diagnostics, printed compiler-style by the CLI. */
#include <stdio.h>

#include "cook/core/core.h"

__attribute__((format(printf, 5, 0))) static void diag_add(cook_diag *diag, const char *severity,
                                                           const char *path, uint32_t line,
                                                           const char *fmt, va_list args) {
    char message[1024];
    vsnprintf(message, sizeof message, fmt, args);
    /* File names come from anywhere: a newline or an escape sequence in one
     * must not reach the terminal or split the line. */
    bytebuf_append_escaped(&diag->text, path);
    if (line > 0)
        bytebuf_printf(&diag->text, ":%u: %s: ", line, severity);
    else
        bytebuf_printf(&diag->text, ": %s: ", severity);
    bytebuf_append_escaped(&diag->text, message);
    bytebuf_printf(&diag->text, "\n"); /* keeps the text NUL-terminated */
}

void diag_verror(cook_diag *diag, const char *path, uint32_t line, const char *fmt, va_list args) {
    diag_add(diag, "error", path, line, fmt, args);
    diag->errors++;
}

void diag_error(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    diag_verror(diag, path, line, fmt, args);
    va_end(args);
}

void diag_warning(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    diag_add(diag, "warning", path, line, fmt, args);
    va_end(args);
    diag->warnings++;
}

void diag_note(cook_diag *diag, const char *path, uint32_t line, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    diag_add(diag, "note", path, line, fmt, args);
    va_end(args);
}

void diag_free(cook_diag *diag) {
    bytebuf_free(&diag->text);
    diag->errors = 0;
    diag->warnings = 0;
}
