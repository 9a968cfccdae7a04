/*
 * interact.h — kiln-view's windowed mode (docs/viewer.md, "The window"):
 * the orbit camera on the mouse, the scene's clips on the keys, hot reload
 * while `kiln watch` runs, and the frame shown in the window. Built only
 * where GLFW is (KILN_VIEW_WINDOW).
 */
#ifndef KILN_VIEW_INTERACT_H
#define KILN_VIEW_INTERACT_H

#include "live.h"
#include "view.h"
#include "window.h"

typedef struct interact_options {
    const char *name;       /* the drawn ref, in the title */
    float yaw, pitch;       /* the first view's angles (radians; --orbit) */
    uint32_t frames;        /* > 0: show this many frames, then quit */
    const char *screenshot; /* the last frame shown, read back, as a PNG at the end */
    bool stats;             /* --stats: a line for each frame that draws otherwise than the last */
} interact_options;

/* Runs until Esc, Q, the window closed, SIGINT or SIGTERM (or --frames). */
bool interact_run(window *w, view_state *s, live *l, const interact_options *o, kiln_error *err);

#endif
