/*
 * progress.c — what a build prints while its workers run.
 *
 * Every call takes the reporter's mutex, so lines from different workers never
 * interleave. On a terminal (and unless quiet) one status line
 * "[12/40] models/crate.obj" is redrawn in place with '\r' and erased before
 * any other output; in a log nothing but real messages is written.
 *
 * While an asset has been cooking for more than PROGRESS_SLOW_SECONDS, the line names
 * it instead, with the stage its cook reports (cook_activity) and the time so
 * far: "[41/96] cooking Sponza.gltf (texture, 12 s)". A ticker thread, started
 * only for a live line, redraws it so that it never stands still.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

#define PROGRESS_LINE_MAX 512
#define ERASE_LINE "\r\033[K"
#define TICK_NS 500000000L

/* An asset being cooked, for the slow-asset line. */
typedef struct cooking_slot {
    const char *path; /* NULL: free */
    double started;   /* cook_clock() */
    cook_activity *activity;
} cooking_slot;

struct progress_reporter {
    pthread_mutex_t lock;
    progress_verbosity verbosity;
    bool live;       /* draw the updating status line */
    bool line_shown; /* the status line is on screen now */
    size_t total;
    size_t finished;
    char line[PROGRESS_LINE_MAX]; /* the status line, for redrawing */
    cooking_slot *cooking;        /* one per worker, when live */
    size_t cooking_count;
    bool ticking; /* the ticker thread runs */
    bool stop;    /* asks it to end */
    pthread_cond_t wake;
    pthread_t ticker;
};

static bool stderr_is_live_terminal(void) {
    if (!isatty(STDERR_FILENO))
        return false;
    const char *term = getenv("TERM");
    return term == NULL || strcmp(term, "dumb") != 0;
}

static void *tick(void *context);

/* The slots and the ticker of the slow-asset line. Without them the line
 * only shows the last asset that started or finished. */
static void start_ticker(progress_reporter *reporter, unsigned workers) {
    reporter->cooking = calloc(workers, sizeof *reporter->cooking);
    if (reporter->cooking == NULL)
        return;
    reporter->cooking_count = workers;
    for (size_t i = 0; i < workers; i++)
        reporter->cooking[i].activity = cook_activity_create();
    pthread_condattr_t attributes;
    if (pthread_condattr_init(&attributes) != 0)
        return;
    bool made = pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) == 0 &&
                pthread_cond_init(&reporter->wake, &attributes) == 0;
    pthread_condattr_destroy(&attributes);
    if (made)
        reporter->ticking = pthread_create(&reporter->ticker, NULL, tick, reporter) == 0;
    if (made && !reporter->ticking)
        pthread_cond_destroy(&reporter->wake);
}

progress_reporter *progress_create(size_t total, progress_verbosity verbosity, unsigned workers) {
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
    if (reporter->live)
        start_ticker(reporter, workers);
    return reporter;
}

/* Ends the ticker thread (waiting for it outside the lock it takes). */
static void stop_ticker(progress_reporter *reporter) {
    pthread_mutex_lock(&reporter->lock);
    bool ticking = reporter->ticking;
    reporter->ticking = false;
    reporter->stop = true;
    if (ticking)
        pthread_cond_signal(&reporter->wake);
    pthread_mutex_unlock(&reporter->lock);
    if (ticking) {
        pthread_join(reporter->ticker, NULL);
        pthread_cond_destroy(&reporter->wake);
    }
}

void progress_destroy(progress_reporter *reporter) {
    if (reporter == NULL)
        return;
    stop_ticker(reporter);
    for (size_t i = 0; i < reporter->cooking_count; i++)
        cook_activity_destroy(reporter->cooking[i].activity);
    free(reporter->cooking);
    pthread_mutex_destroy(&reporter->lock);
    free(reporter);
}

static size_t terminal_columns(void) {
    struct winsize size;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    return 80;
}

/* The asset cooking for longest, if that is more than PROGRESS_SLOW_SECONDS. */
static const cooking_slot *slowest_cooking(const progress_reporter *reporter, double now) {
    const cooking_slot *slowest = NULL;
    for (size_t i = 0; i < reporter->cooking_count; i++) {
        const cooking_slot *slot = &reporter->cooking[i];
        if (slot->path != NULL && now - slot->started > PROGRESS_SLOW_SECONDS &&
            (slowest == NULL || slot->started < slowest->started))
            slowest = slot;
    }
    return slowest;
}

/* "[done/total] path", or "[done/total] cooking path (stage, N s)" while an
 * asset is slow; the path is cut at the front so the line never wraps (a
 * wrapped line could not be erased with '\r'). */
static void format_status_line(progress_reporter *reporter, const char *path) {
    char head[64], tail[64] = "";
    double now = cook_clock();
    const cooking_slot *slow = slowest_cooking(reporter, now);
    int head_length = snprintf(head, sizeof head, "[%zu/%zu] %s", reporter->finished,
                               reporter->total, slow ? "cooking " : "");
    if (slow != NULL) {
        const char *stage = cook_stage_name(cook_activity_stage(slow->activity));
        snprintf(tail, sizeof tail, " (%s%s%.0f s)", stage, stage[0] ? ", " : "",
                 now - slow->started);
        path = slow->path;
    }
    char escaped[512];
    path = cook_escape_to(escaped, sizeof escaped, path);
    size_t width = terminal_columns() - 1;
    if (width >= sizeof reporter->line)
        width = sizeof reporter->line - 1;
    size_t fixed = (size_t)head_length + strlen(tail);
    size_t room = width > fixed ? width - fixed : 0;
    size_t path_length = strlen(path);
    if (path_length <= room)
        snprintf(reporter->line, sizeof reporter->line, "%s%s%s", head, path, tail);
    else if (room > 3)
        snprintf(reporter->line, sizeof reporter->line, "%s...%s%s", head,
                 path + path_length - (room - 3), tail);
    else
        snprintf(reporter->line, sizeof reporter->line, "%.*s", (int)width, head);
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

/* Redraws the line every TICK_NS while an asset is slow, until stop_ticker. */
static void *tick(void *context) {
    progress_reporter *reporter = context;
    pthread_mutex_lock(&reporter->lock);
    while (!reporter->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += TICK_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&reporter->wake, &reporter->lock, &until);
        if (!reporter->stop && reporter->live && slowest_cooking(reporter, cook_clock()) != NULL) {
            format_status_line(reporter, "");
            draw_status_line(reporter);
        }
    }
    pthread_mutex_unlock(&reporter->lock);
    return NULL;
}

cook_activity *progress_asset_started(progress_reporter *reporter, const char *source_path) {
    cook_activity *activity = NULL;
    pthread_mutex_lock(&reporter->lock);
    for (size_t i = 0; i < reporter->cooking_count && activity == NULL; i++) {
        cooking_slot *slot = &reporter->cooking[i];
        if (slot->path == NULL && slot->activity != NULL) {
            *slot = (cooking_slot){source_path, cook_clock(), slot->activity};
            activity = slot->activity;
        }
    }
    if (reporter->live) {
        format_status_line(reporter, source_path);
        draw_status_line(reporter);
    }
    pthread_mutex_unlock(&reporter->lock);
    return activity;
}

static void print_asset_line(const char *source_path, const cook_asset_result *result) {
    char name[1024];
    if (!result->ok) {
        printf("failed %s\n", cook_escape_to(name, sizeof name, source_path));
        return;
    }
    printf("cooked %s", cook_escape_to(name, sizeof name, source_path));
    for (size_t i = 0; i < result->outputs.count; i++)
        printf("%s%s", i == 0 ? " -> " : ", ",
               cook_escape_to(name, sizeof name, result->outputs.items[i]));
    putchar('\n');
}

void progress_asset_finished(progress_reporter *reporter, const char *source_path,
                             const cook_asset_result *result) {
    pthread_mutex_lock(&reporter->lock);
    reporter->finished++;
    for (size_t i = 0; i < reporter->cooking_count; i++) {
        if (reporter->cooking[i].path == source_path)
            reporter->cooking[i].path = NULL;
    }
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

void progress_end(progress_reporter *reporter) {
    stop_ticker(reporter);
    pthread_mutex_lock(&reporter->lock);
    erase_status_line(reporter);
    reporter->live = false;
    pthread_mutex_unlock(&reporter->lock);
}

/* The input folder as diagnostics start with it (build_source_folder);
 * unset until a build names it. */
static char source_folder[1024];
static bool source_folder_set;

void cli_set_source_folder(const char *folder) {
    source_folder_set =
        folder != NULL && build_source_folder(folder, source_folder, sizeof source_folder);
}

const char *cli_source_folder(void) {
    return source_folder_set ? source_folder : NULL;
}

void progress_write_diagnostics(FILE *stream, const char *text, size_t size, bool errors_only) {
    bytebuf kept = {0};
    build_filter_diagnostics(text, size, errors_only, cli_source_folder(), &kept);
    if (!kept.failed && kept.size > 0)
        fwrite(kept.data, 1, kept.size, stream);
    bytebuf_free(&kept);
    fflush(stream);
}

/* ---------------------------------------------------------------------------
 * The terminal's build_progress: a reporter from begin to end; messages
 * before and after it go straight to stdout and stderr.
 * ------------------------------------------------------------------------- */

static progress_reporter *terminal_reporter;

static void terminal_begin(void *context, size_t total, progress_verbosity verbosity,
                           unsigned workers) {
    (void)context;
    terminal_reporter = progress_create(total, verbosity, workers);
}

static void terminal_add_total(void *context, size_t more) {
    (void)context;
    if (terminal_reporter != NULL)
        progress_add_total(terminal_reporter, more);
}

static cook_activity *terminal_started(void *context, const char *source_path) {
    (void)context;
    return terminal_reporter ? progress_asset_started(terminal_reporter, source_path) : NULL;
}

static void terminal_finished(void *context, const char *source_path,
                              const cook_asset_result *result) {
    (void)context;
    if (terminal_reporter != NULL)
        progress_asset_finished(terminal_reporter, source_path, result);
}

static void terminal_settled(void *context, const char *source_path, const cook_diag *replayed) {
    (void)context;
    if (terminal_reporter != NULL)
        progress_asset_settled(terminal_reporter, source_path, replayed);
}

static void terminal_end(void *context) {
    (void)context;
    if (terminal_reporter == NULL)
        return;
    progress_end(terminal_reporter);
    progress_destroy(terminal_reporter);
    terminal_reporter = NULL;
}

static void terminal_message(void *context, build_stream stream, const char *text, size_t size) {
    (void)context;
    FILE *file = stream == BUILD_STREAM_OUT ? stdout : stderr;
    progress_reporter *reporter = terminal_reporter;
    if (reporter != NULL) {
        pthread_mutex_lock(&reporter->lock);
        erase_status_line(reporter);
    }
    fwrite(text, 1, size, file);
    fflush(file);
    if (reporter != NULL) {
        draw_status_line(reporter);
        pthread_mutex_unlock(&reporter->lock);
    }
}

const build_progress *cli_terminal_progress(void) {
    static const build_progress terminal = {
        .begin = terminal_begin,
        .add_total = terminal_add_total,
        .asset_started = terminal_started,
        .asset_finished = terminal_finished,
        .asset_settled = terminal_settled,
        .end = terminal_end,
        .message = terminal_message,
    };
    return &terminal;
}

const build_options *cli_message_options(void) {
    static build_options options;
    options.progress = cli_terminal_progress();
    options.verbosity = PROGRESS_NORMAL;
    return &options;
}
