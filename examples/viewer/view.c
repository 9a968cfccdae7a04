/*
 * view.c — the shown asset kept current across reloads (view.h).
 */
#include "view.h"

#include <stdio.h>

#include "meshlets.h"
#include "texture_view.h"

#define COLOR_FORMAT VK_FORMAT_R8G8B8A8_SRGB
#define DEPTH_FORMAT VK_FORMAT_D32_SFLOAT

static bool make_pipeline(view_state *s, vk_context *vk, int p, const kiln_asset *shader,
                          kiln_error *err) {
    if (shader == NULL || shader->kind != KILN_ASSET_SHADER) {
        err->code = KILN_ERR_INVALID_ARGUMENT;
        snprintf(err->message, sizeof err->message, "%.200s is not a shader",
                 shader != NULL ? shader->ref : "a program");
        return false;
    }
    if (s->shader_data[p] != NULL) {
        vkDeviceWaitIdle(vk->device);
        pipeline_destroy(vk, &s->pipes[p]);
        s->shader_data[p] = NULL;
    }
    /* A texture is drawn over nothing: no depth. */
    if (!pipeline_create(vk, &shader->shader, shader->path, COLOR_FORMAT,
                         s->texture ? VK_FORMAT_UNDEFINED : DEPTH_FORMAT, &s->pipes[p], err))
        return false;
    s->shader_data[p] = shader;
    s->programs[p] = (render_program){&s->pipes[p], &shader->shader};
    return true;
}

int view_program_count(const view_state *s) {
    return s->texture ? 1 : s->meshlets ? VIEW_PROGRAMS : 2;
}

const kiln_anim_view *view_clips(const view_state *s) {
    const kiln_asset *anim = kiln_asset_get(s->manager, s->anim);
    return anim != NULL && anim->anim.clip_count > 0 ? &anim->anim : NULL;
}

bool view_update(view_state *s, vk_context *vk, kiln_error *err) {
    for (int p = 0; p < view_program_count(s); p++) {
        const kiln_asset *shader = kiln_asset_get(s->manager, s->shaders[p]);
        if (shader != s->shader_data[p] && !make_pipeline(s, vk, p, shader, err))
            return false;
    }
    const kiln_asset *asset = kiln_asset_get(s->manager, s->asset);
    draw_list_free(&s->draws);
    if (s->texture)
        return true; /* drawn from the asset itself, each frame */
    const kiln_asset *anim = kiln_asset_get(s->manager, s->anim);
    const kiln_anim_view *clips = view_clips(s);
    if (clips != NULL && s->clip >= clips->clip_count)
        s->clip = 0;
    /* Unposed, the clips' file still holds the default morph weights. */
    draw_pose pose = {.anim = clips, .clip = s->clip, .time = s->time};
    if (!(s->posed && clips != NULL) && anim != NULL)
        pose = (draw_pose){&anim->anim, DRAW_POSE_REST, 0.0f};
    return draw_list_build(s->manager, asset, pose.anim != NULL ? &pose : NULL, &s->draws, err) ==
           KILN_OK;
}

bool view_render(view_state *s, vk_context *vk, const camera *cam, uint32_t width, uint32_t height,
                 uint8_t *pixels, kiln_error *err) {
    if (s->texture) {
        const kiln_asset *texture = kiln_asset_get(s->manager, s->asset);
        s->stats = (render_stats){0};
        if (texture == NULL) {
            err->code = KILN_ERR_NOT_FOUND;
            snprintf(err->message, sizeof err->message, "the texture is not loaded");
            return false;
        }
        return texture_render(vk, &s->programs[0], texture, s->layer, cam, width, height, pixels,
                              err);
    }
    render_options drawing = {.lod = s->lod,
                              .meshlet_programs = s->meshlets ? &s->programs[2] : NULL,
                              .morphs = &s->morphs};
    if (!render_frame_with(vk, s->programs, &s->draws, cam, width, height, &drawing, pixels,
                           &s->stats, err))
        return false;
    if (s->meshlet_bounds)
        meshlet_bounds_draw(&(overlay_image){pixels, width, height}, cam, &s->draws);
    return true;
}

void view_stats_line(const render_stats *stats, char *out, size_t capacity) {
    int highest = 0;
    for (int level = 0; level < (int)KILN_MESH_MAX_LODS; level++)
        if (stats->lod_draws[level] > 0)
            highest = level;
    size_t used = (size_t)snprintf(out, capacity, "stats: draws %u triangles %llu lod",
                                   stats->draws, (unsigned long long)stats->triangles);
    for (int level = 0; level <= highest && used < capacity; level++)
        used +=
            (size_t)snprintf(out + used, capacity - used, " %d:%u", level, stats->lod_draws[level]);
    if (used < capacity)
        snprintf(out + used, capacity - used, " meshlets %u", stats->meshlets);
}

void view_reloaded(view_state *s) {
    morph_cache_forget(&s->morphs);
}

void view_close(view_state *s, vk_context *vk) {
    draw_list_free(&s->draws);
    if (vk->device != VK_NULL_HANDLE)
        morph_cache_destroy(vk, &s->morphs);
    else
        morph_cache_forget(&s->morphs);
    if (vk->device != VK_NULL_HANDLE)
        for (int p = 0; p < VIEW_PROGRAMS; p++)
            if (s->shader_data[p] != NULL)
                pipeline_destroy(vk, &s->pipes[p]);
}
