/*
 * view.h — what kiln-view shows, kept current across hot reloads: the drawn
 * asset and its model's clips by ref, the two shader programs by ref with
 * their pipelines (made again when a program is reloaded), and the draw
 * list, rebuilt from the manager's current data by view_update. A reload
 * frees the data it replaced two pumps later, so view_update must follow
 * every pump that applied one, before the next.
 */
#ifndef KILN_VIEW_VIEW_H
#define KILN_VIEW_VIEW_H

#include "render.h"

typedef struct view_state {
    kiln_manager *manager;
    kiln_ref asset;                   /* a scene or a mesh */
    kiln_ref anim;                    /* its model's clips; zero without */
    kiln_ref shaders[2];              /* plain, skinned */
    const kiln_asset *shader_data[2]; /* what pipes[] were made from */
    pipeline pipes[2];
    render_program programs[2];
    draw_list draws;
    bool posed;    /* a clip of `anim` poses the scene */
    uint32_t clip; /* which */
    float time;    /* seconds into it */
} view_state;

/* Makes the pipelines again where a program's data changed, then the draw
 * list (posed when `posed`: the clip's index is clamped to the clips there
 * are now). */
bool view_update(view_state *s, vk_context *vk, kiln_error *err);

/* The clips' view, or NULL without clips. */
const kiln_anim_view *view_clips(const view_state *s);

/* Renders the draw list with `cam` (render_frame). */
bool view_render(view_state *s, vk_context *vk, const camera *cam, uint32_t width, uint32_t height,
                 uint8_t *pixels, kiln_error *err);

/* Releases the pipelines and the draw list (not the manager). */
void view_close(view_state *s, vk_context *vk);

#endif
