/*
 * interact.c — the window's loop (interact.h).
 */
#include "interact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clip_list.h"
#include "orbit.h"
#include "png_out.h"

#define IDLE_WAIT_SECONDS 0.05 /* between pumps while nothing moves */

/* The clips, printed once: the keys step through them by index. */
static void print_clips(const view_state *s, const char *name) {
    if (s->texture) {
        printf("kiln-view: %s is a texture: drag: look around a cubemap, R: front view, Esc: "
               "quit\n",
               name);
        fflush(stdout);
        return;
    }
    const kiln_anim_view *clips = view_clips(s);
    if (clips == NULL) {
        printf("kiln-view: %s has no clips\n", name);
    } else {
        printf("kiln-view: %s has %u clips (Left/Right: previous/next, Space: play/pause):\n", name,
               clips->clip_count);
        for (uint32_t c = 0; c < clips->clip_count; c++) {
            const char *clip = kiln_anim_clip_name(clips, c);
            printf("  %u  %s (%.2f s)\n", c, clip != NULL && clip[0] != '\0' ? clip : "(unnamed)",
                   (double)clips->clips[c].duration);
        }
    }
    printf("kiln-view: drag: orbit, wheel: zoom, F: frame, R: front view, B: meshlet bounds, "
           "C: clip list, Esc: quit\n");
    fflush(stdout);
}

static void set_title(window *w, const view_state *s, const char *name, bool playing) {
    char title[512];
    const kiln_anim_view *clips = view_clips(s);
    if (clips != NULL && s->posed) {
        const char *clip = kiln_anim_clip_name(clips, s->clip);
        snprintf(title, sizeof title, "kiln-view: %.200s - %.100s %.2f s%s", name,
                 clip != NULL && clip[0] != '\0' ? clip : "(unnamed)", (double)s->time,
                 playing ? "" : " (paused)");
    } else {
        snprintf(title, sizeof title, "kiln-view: %.200s", name);
    }
    window_set_title(w, title);
}

/* The next (or previous) clip, wrapping, from its start. */
static void step_clip(view_state *s, bool next) {
    const kiln_anim_view *clips = view_clips(s);
    if (clips == NULL)
        return;
    uint32_t count = clips->clip_count;
    s->clip = (s->clip + (next ? 1 : count - 1)) % count;
    s->time = 0.0f;
    s->posed = true;
}

/* Advances the playing clip by `seconds`, looping over its length. */
static void advance(view_state *s, double seconds) {
    const kiln_anim_view *clips = view_clips(s);
    if (clips == NULL)
        return;
    float length = clips->clips[s->clip].duration;
    double t = s->time + seconds;
    s->time = length > 0.0f ? (float)fmod(t, length) : 0.0f;
    s->posed = true;
}

bool interact_run(window *w, view_state *s, live *l, const interact_options *o, kiln_error *err) {
    /* The window works without hot reload (no inotify): it says so. */
    if (!live_watch(s->manager, err))
        fprintf(stderr, "kiln-view: warning: no hot reload: %s\n", err->message);
    *err = (kiln_error){0};
    print_clips(s, o->name);
    orbit eye;
    orbit_reset(&eye, &s->draws, w->extent.width, w->extent.height);
    orbit_turn_to(&eye, o->yaw, o->pitch);
    bool playing = view_clips(s) != NULL && !s->posed, dirty = true, ok = true;
    bool show_clips = true; /* the list over the frame (C) */
    uint8_t *pixels = NULL, *shot = NULL;
    size_t capacity = 0;
    uint32_t shown_frames = 0, shot_width = 0, shot_height = 0;
    char stats_shown[256] = "";
    double last = glfwGetTime();
    while (ok && !live_stopping()) {
        window_input in;
        window_poll(w, dirty || playing || o->frames > 0 ? 0.0 : IDLE_WAIT_SECONDS, &in);
        bool rebuild = false;
        if (in.drag_x != 0.0f || in.drag_y != 0.0f)
            orbit_drag(&eye, in.drag_x, in.drag_y);
        if (in.wheel != 0.0f)
            orbit_zoom(&eye, in.wheel);
        if (in.frame)
            orbit_frame(&eye, &s->draws, w->extent.width, w->extent.height);
        if (in.reset)
            orbit_reset(&eye, &s->draws, w->extent.width, w->extent.height);
        if (in.toggle_bounds)
            s->meshlet_bounds = !s->meshlet_bounds;
        if (in.toggle_clips)
            show_clips = !show_clips;
        if (in.play_pause && view_clips(s) != NULL)
            playing = !playing;
        if (in.next_clip || in.previous_clip) {
            step_clip(s, in.next_clip);
            rebuild = true;
        }
        double now = glfwGetTime();
        if (playing) {
            advance(s, now - last);
            rebuild = true;
        }
        last = now;
        kiln_manager_pump(s->manager);
        if (live_take(l, stdout) > 0) {
            view_reloaded(s);
            rebuild = true;
        }
        if (rebuild && !view_update(s, w->vk, err)) {
            ok = false;
            break;
        }
        dirty = dirty || rebuild || in.resized || in.drag_x != 0.0f || in.drag_y != 0.0f ||
                in.wheel != 0.0f || in.frame || in.reset || in.play_pause || in.toggle_bounds ||
                in.toggle_clips;
        /* Esc after a drag that arrived in the same poll (a slow frame)
         * still shows the dragged frame first: it is the screenshot. */
        if (in.quit && !dirty)
            break;
        if (!dirty && o->frames == 0)
            continue;
        uint32_t width = w->extent.width, height = w->extent.height;
        size_t bytes = 4 * (size_t)width * height;
        if (bytes > capacity) {
            free(pixels);
            free(shot);
            pixels = malloc(bytes);
            shot = malloc(bytes);
            capacity = bytes;
            if (pixels == NULL || shot == NULL) {
                err->code = KILN_ERR_OUT_OF_MEMORY;
                snprintf(err->message, sizeof err->message, "out of memory for a %ux%u frame",
                         width, height);
                ok = false;
                break;
            }
        }
        camera cam;
        orbit_camera(&eye, width, height, &cam);
        bool last_frame = o->frames > 0 && shown_frames + 1 == o->frames;
        /* Without --frames every frame is read back: the last one shown is
         * the screenshot, whenever the user quits. */
        bool read_back = o->screenshot != NULL && (o->frames == 0 || last_frame);
        bool shown;
        ok = view_render(s, w->vk, &cam, width, height, pixels, err);
        if (ok && show_clips)
            clip_list_draw(&(overlay_image){pixels, width, height}, view_clips(s), s->clip);
        ok = ok && window_present(w, pixels, read_back ? shot : NULL, &shown, err);
        if (!ok || !shown) {
            if (in.quit)
                break;
            continue;
        }
        if (read_back) {
            shot_width = width;
            shot_height = height;
        }
        dirty = false;
        set_title(w, s, o->name, playing);
        if (o->stats) {
            /* Printed when it changes (a zoom switching levels of detail),
             * not for every frame of a playing clip. */
            char line[sizeof stats_shown];
            view_stats_line(&s->stats, line, sizeof line);
            if (strcmp(line, stats_shown) != 0) {
                printf("%s\n", line);
                fflush(stdout);
                memcpy(stats_shown, line, sizeof line);
            }
        }
        if (last_frame || in.quit)
            break;
        shown_frames++;
    }
    if (ok && o->screenshot != NULL && shot_width > 0)
        ok = png_write_rgba(o->screenshot, shot, shot_width, shot_height, err);
    free(pixels);
    free(shot);
    return ok;
}
