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

#define VIEW_PROGRAMS 4 /* plain, skinned, and both tinting meshlets */

typedef struct view_state {
    kiln_manager *manager;
    kiln_ref asset; /* a scene, a mesh, or a texture (texture_view.h) */
    bool texture;   /* `asset` is a texture: shaders[0] is its kiln-view/texture program */
    uint32_t layer; /* the texture's layer, cube or slice shown (--layer) */
    kiln_ref anim;  /* its model's clips and default morph weights; zero without */
    /* Plain, skinned, then (with `meshlets`) both with MESHLETS=1. */
    kiln_ref shaders[VIEW_PROGRAMS];
    const kiln_asset *shader_data[VIEW_PROGRAMS]; /* what pipes[] were made from */
    pipeline pipes[VIEW_PROGRAMS];
    render_program programs[VIEW_PROGRAMS];
    int lod;             /* LOD_AUTO, else the level --lod forces */
    bool meshlets;       /* --meshlets: tint each meshlet (needs all four programs) */
    bool meshlet_bounds; /* --meshlet-bounds (B in the window): their spheres drawn over */
    render_stats stats;  /* what the last frame drew (--stats) */
    draw_list draws;
    morph_cache morphs; /* the Morphs buffer, written when the weights change */
    bool posed;         /* a clip of `anim` poses the scene */
    uint32_t clip;      /* which */
    float time;         /* seconds into it */
} view_state;

/* The programs view_update makes pipelines of: 2, or 4 with `meshlets`; 1
 * for a texture. */
int view_program_count(const view_state *s);

/* Makes the pipelines again where a program's data changed, then the draw
 * list (posed when `posed`: the clip's index is clamped to the clips there
 * are now; else in the rest pose with the clips' default morph weights). */
bool view_update(view_state *s, vk_context *vk, kiln_error *err);

/* The clips' view, or NULL without clips. */
const kiln_anim_view *view_clips(const view_state *s);

/* Renders the draw list with `cam` (render_frame_with: --lod, --meshlets),
 * what it drew into s->stats, then with meshlet_bounds the meshlets'
 * bounding spheres over it; a texture as texture_render draws it. */
bool view_render(view_state *s, vk_context *vk, const camera *cam, uint32_t width, uint32_t height,
                 uint8_t *pixels, kiln_error *err);

/* --stats: `stats` as one line, e.g. "stats: draws 2 triangles 96 lod 0:1
 * 1:1 meshlets 0" (draws per level of detail, up to the highest level drawn). */
void view_stats_line(const render_stats *stats, char *out, size_t capacity);

/* After a reload: the morph buffer is written again on the next frame (a
 * reloaded mesh may sit where a freed one was). */
void view_reloaded(view_state *s);

/* Releases the pipelines, the draw list and the morph buffer (not the manager). */
void view_close(view_state *s, vk_context *vk);

#endif
