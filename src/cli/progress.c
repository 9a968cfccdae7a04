/*
 * progress.c — what a build prints while its workers run.
 *
 * Every call takes the reporter's mutex, so lines from different workers never
 * interleave. On a terminal (and unless quiet) one status line
 * "[12/40] models/crate.obj" is redrawn in place with '\r' and erased before
 * any other output; in a log nothing but real messages is written.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"

#define PROGRESS_LINE_MAX 512
#define ERASE_LINE "\r\033[K"

struct progress_reporter {
    pthread_mutex_t lock;
    progress_verbosity verbosity;
    bool live;       /* draw the updating status line */
    bool line_shown; /* the status line is on screen now */
    size_t total;
    size_t finished;
    char line[PROGRESS_LINE_MAX]; /* the status line, for redrawing */
};

static bool stderr_is_live_terminal(void) {
    if (!isatty(STDERR_FILENO))
        return false;
    const char *term = getenv("TERM");
    return term == NULL || strcmp(term, "dumb") != 0;
}

progress_reporter *progress_create(size_t total, progress_verbosity verbosity) {
    progress_reporter *reporter = calloc(1, sizeof *reporter);
    if (reporter == NULL)
        return NULL;
    if (pthread_mutex_init(&reporter->lock, NULL) != 0) {
        free(reporter);
        return NULL;
    }
    reporter->verbosity = verbosity;
    reporter->live = verbosity != PROGRESS_QUIET && stderr_is_live_terminal();
    reporter->total = total;
    return reporter;
}

void progress_destroy(progress_reporter *reporter) {
    if (reporter == NULL)
        return;
    pthread_mutex_destroy(&reporter->lock);
    free(reporter);
}

static size_t terminal_columns(void) {
    struct winsize size;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    return 80;
}

/* "[done/total] path", cut at the front of the path so it never wraps (a
 * wrapped line could not be erased with '\r'). */
static void format_status_line(progress_reporter *reporter, const char *path) {
    char counter[64];
    int counter_length =
        snprintf(counter, sizeof counter, "[%zu/%zu] ", reporter->finished, reporter->total);
    size_t width = terminal_columns() - 1;
    if (width >= sizeof reporter->line)
        width = sizeof reporter->line - 1;
    size_t room = width > (size_t)counter_length ? width - (size_t)counter_length : 0;
    size_t path_length = strlen(path);
    if (path_length <= room)
        snprintf(reporter->line, sizeof reporter->line, "%s%s", counter, path);
    else if (room > 3)
        snprintf(reporter->line, sizeof reporter->line, "%s...%s", counter,
                 path + path_length - (room - 3));
    else
        snprintf(reporter->line, sizeof reporter->line, "%.*s", (int)width, counter);
}

static void erase_status_line(progress_reporter *reporter) {
    if (!reporter->line_shown)
        return;
    fputs(ERASE_LINE, stderr);
    fflush(stderr);
    reporter->line_shown = false;
}

static void draw_status_line(progress_reporter *reporter) {
    if (!reporter->live || reporter->line[0] == '\0')
        return;
    fprintf(stderr, ERASE_LINE "%s", reporter->line);
    fflush(stderr);
    reporter->line_shown = true;
}

void progress_asset_started(progress_reporter *reporter, const char *source_path) {
    pthread_mutex_lock(&reporter->lock);
    if (reporter->live) {
        format_status_line(reporter, source_path);
        draw_status_line(reporter);
    }
    pthread_mutex_unlock(&reporter->lock);
}

static void print_asset_line(const char *source_path, const cook_asset_result *result) {
    if (!result->ok) {
        printf("failed %s\n", source_path);
        return;
    }
    printf("cooked %s", source_path);
    for (size_t i = 0; i < result->outputs.count; i++)
        printf("%s%s", i == 0 ? " -> " : ", ", result->outputs.items[i]);
    putchar('\n');
}

void progress_asset_finished(progress_reporter *reporter, const char *source_path,
                             const cook_asset_result *result) {
    pthread_mutex_lock(&reporter->lock);
    reporter->finished++;
    erase_status_line(reporter);
    if (reporter->verbosity == PROGRESS_VERBOSE) {
        print_asset_line(source_path, result);
        fflush(stdout);
    }
    progress_write_diagnostics(stderr, (const char *)result->diag.text.data, result->diag.text.size,
                               reporter->verbosity == PROGRESS_QUIET);
    if (reporter->live) {
        format_status_line(reporter, source_path);
        draw_status_line(reporter);
    }
    pthread_mutex_unlock(&reporter->lock);
}

void progress_asset_settled(progress_reporter *reporter, const char *source_path,
                            const cook_diag *replayed) {
    pthread_mutex_lock(&reporter->lock);
    reporter->finished++;
    if (replayed != NULL && replayed->text.size > 0) {
        erase_status_line(reporter);
        progress_write_diagnostics(stderr, (const char *)replayed->text.data, replayed->text.size,
                                   reporter->verbosity == PROGRESS_QUIET);
    }
    if (reporter->live) {
        format_status_line(reporter, source_path);
        draw_status_line(reporter);
    }
    pthread_mutex_unlock(&reporter->lock);
}

void progress_add_total(progress_reporter *reporter, size_t more) {
    pthread_mutex_lock(&reporter->lock);
    reporter->total += more;
    pthread_mutex_unlock(&reporter->lock);
}

void progress_print(progress_reporter *reporter, FILE *stream, const char *fmt, ...) {
    pthread_mutex_lock(&reporter->lock);
    erase_status_line(reporter);
    va_list args;
    va_start(args, fmt);
    vfprintf(stream, fmt, args);
    va_end(args);
    fputc('\n', stream);
    fflush(stream);
    draw_status_line(reporter);
    pthread_mutex_unlock(&reporter->lock);
}

void progress_end(progress_reporter *reporter) {
    pthread_mutex_lock(&reporter->lock);
    erase_status_line(reporter);
    reporter->live = false;
    pthread_mutex_unlock(&reporter->lock);
}

static bool line_contains(const char *line, size_t length, const char *needle) {
    size_t needle_length = strlen(needle);
    for (size_t at = 0; at + needle_length <= length; at++) {
        if (memcmp(line + at, needle, needle_length) == 0)
            return true;
    }
    return false;
}

void progress_write_diagnostics(FILE *stream, const char *text, size_t size, bool errors_only) {
    if (text == NULL || size == 0)
        return;
    const char *end = text + size;
    for (const char *line = text; line < end;) {
        const char *newline = memchr(line, '\n', (size_t)(end - line));
        size_t length = newline != NULL ? (size_t)(newline - line) : (size_t)(end - line);
        bool keep = !errors_only || line_contains(line, length, ": error: ");
        if (keep) {
            fwrite(line, 1, length, stream);
            fputc('\n', stream);
        }
        line += length + (newline != NULL ? 1 : 0);
    }
    fflush(stream);
}
