/*
 * live.c — reload events and the headless live loop (live.h).
 */
#include "live.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define PUMP_INTERVAL_MS 50

void live_init(live *l, vk_context *vk) {
    memset(l, 0, sizeof *l);
    l->assets.vk = vk;
    pthread_mutex_init(&l->lock, NULL);
}

void live_destroy(live *l) {
    pthread_mutex_destroy(&l->lock);
}

static void note(live *l, const kiln_reload_event *event) {
    const kiln_asset *a = event->asset;
    pthread_mutex_lock(&l->lock);
    if (event->kind == KILN_RELOAD_APPLIED)
        l->applied++;
    if (l->line_count == LIVE_MAX_LINES) {
        l->lines_dropped++;
    } else if (event->kind == KILN_RELOAD_APPLIED) {
        snprintf(l->lines[l->line_count++], LIVE_LINE_MAX, "kiln-view: reloaded %.140s (%.140s)",
                 a->ref, a->path);
    } else {
        snprintf(l->lines[l->line_count++], LIVE_LINE_MAX,
                 "kiln-view: reload failed: %.80s: %.200s", a->ref,
                 event->error != NULL ? event->error->message : "no reason given");
    }
    pthread_mutex_unlock(&l->lock);
}

/* The manager's reload callback: an applied or failed reload is a line; a
 * dependency's event is not (the dependency's own is). */
static void on_reloaded(void *user, const kiln_reload_event *event) {
    if (event->kind != KILN_RELOAD_DEPENDENCY)
        note(user, event);
}

kiln_engine_callbacks live_callbacks(live *l) {
    kiln_engine_callbacks callbacks = gpu_assets_callbacks(&l->assets);
    callbacks.user = l; /* == &l->assets */
    callbacks.reloaded = on_reloaded;
    return callbacks;
}

uint32_t live_take(live *l, FILE *out) {
    pthread_mutex_lock(&l->lock);
    for (uint32_t i = 0; i < l->line_count; i++)
        fprintf(out, "%s\n", l->lines[i]);
    if (l->lines_dropped > 0)
        fprintf(out, "kiln-view: and %u more reload events\n", l->lines_dropped);
    fflush(out);
    uint32_t applied = l->applied;
    l->line_count = l->lines_dropped = l->applied = 0;
    pthread_mutex_unlock(&l->lock);
    return applied;
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int signal) {
    stop_signal = signal;
}

void live_catch_signals(void) {
    /* No SA_RESTART: a signal interrupts the wait for stdin at once. */
    struct sigaction action = {.sa_handler = on_signal};
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

bool live_stopping(void) {
    return stop_signal != 0;
}

bool live_watch(kiln_manager *manager, kiln_error *err) {
    return kiln_manager_watch(manager, true, err) == KILN_OK;
}

/* Reads what stdin holds: true when a whole line arrived; *closed at its
 * end (or an error). */
static bool read_request(bool *closed) {
    char buffer[256];
    ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR)
        return false;
    if (got <= 0) {
        *closed = true;
        return false;
    }
    return memchr(buffer, '\n', (size_t)got) != NULL;
}

bool live_run_headless(live *l, kiln_manager *manager, live_frame_fn frame, void *user,
                       kiln_error *err) {
    if (!live_watch(manager, err))
        return false;
    bool closed = false;
    while (!closed && !live_stopping()) {
        struct pollfd input = {.fd = STDIN_FILENO, .events = POLLIN};
        bool requested = false;
        if (poll(&input, 1, PUMP_INTERVAL_MS) > 0)
            requested = read_request(&closed);
        kiln_manager_pump(manager);
        uint32_t applied = live_take(l, stdout);
        if ((applied > 0 || requested) && !frame(user, err))
            return false;
    }
    return true;
}
