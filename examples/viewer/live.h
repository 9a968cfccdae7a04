/*
 * live.h — hot reload in kiln-view (docs/viewer.md, "Hot reload"): the
 * asset manager's reload events, noted by its `reloaded` callback as one
 * line each for stdout, and the headless live loop that renders a frame
 * after every pump that applied a reload, or when a line arrives on stdin.
 */
#ifndef KILN_VIEW_LIVE_H
#define KILN_VIEW_LIVE_H

#include <pthread.h>
#include <stdio.h>

#include "gpu_assets.h"

#define LIVE_MAX_LINES 64
#define LIVE_LINE_MAX 320 /* a ref, a path or a message, trimmed */

/* The callbacks' user: gpu_assets first, so that the upload callbacks,
 * which take their user as a gpu_assets, get it (C guarantees a struct and
 * its first member share their address). */
typedef struct live {
    gpu_assets assets;
    pthread_mutex_t lock; /* the callback runs on whichever thread applied the reload */
    char lines[LIVE_MAX_LINES][LIVE_LINE_MAX];
    uint32_t line_count, lines_dropped;
    uint32_t applied; /* reloads applied since the last live_take */
} live;

void live_init(live *l, vk_context *vk);
void live_destroy(live *l);

/* gpu_assets' callbacks and the reload callback, all with `l` as user. */
kiln_engine_callbacks live_callbacks(live *l);

/* Writes the lines noted since the last call to `out` ("kiln-view:
 * reloaded REF (PATH)", "kiln-view: reload failed: REF: why"), flushed;
 * returns how many reloads were applied meanwhile. */
uint32_t live_take(live *l, FILE *out);

/* Renders one frame (and writes it); false with `err` filled fails the
 * loop. */
typedef bool (*live_frame_fn)(void *user, kiln_error *err);

/* The headless live loop: watches the manager's folder mounts, then, until
 * SIGINT, SIGTERM or the end of stdin, pumps the manager every 50 ms and
 * calls `frame` after a pump that applied a reload or when a line arrived
 * on stdin. */
bool live_run_headless(live *l, kiln_manager *manager, live_frame_fn frame, void *user,
                       kiln_error *err);

/* Starts watching the manager's folder mounts (kiln_manager_watch). */
bool live_watch(kiln_manager *manager, kiln_error *err);

/* live_catch_signals notes SIGINT and SIGTERM instead of dying of them, so
 * that the loops end cleanly (the manager and device released);
 * live_stopping says whether one arrived since. */
void live_catch_signals(void);
bool live_stopping(void);

#endif
