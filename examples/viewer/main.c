/*
 * main.c — kiln-view: renders a cooked model or scene through libkiln's
 * asset manager with Vulkan.
 *
 *   kiln-view OUTPUT [REF] [--size WxH] [--frames N] [--screenshot OUT.png]
 *   kiln-view OUTPUT [REF] --headless --render OUT.png --size WxH [--live]
 *   (either with [--orbit YAW,PITCH] [--time T] [--clip NAME] [--lod N]
 *   [--meshlets] [--meshlet-bounds] [--layer L] [--stats] [--validate]
 *   [--shaders DIR])
 *
 * OUTPUT is a cooked folder (holding assets.kman) or a .kpak; REF a model's
 * ref (its scene is drawn when it has one), a scene's or a mesh's, or a
 * texture's (shown as sampled, its layer --layer: texture_view.h); without
 * it, the output's first scene (by ref), else its first mesh. --time and
 * --clip pose a model's scene with a clip of its animations (skins and morph
 * weights follow; without them morph targets take their default weights).
 * --lod forces a level of detail, --meshlets tints each meshlet, --stats
 * prints what was drawn. Without --headless a window shows it with an orbit
 * camera (interact.h); with it, the frame is rendered offscreen and written
 * as a PNG, and with --live again after each hot reload (live.h). Exit 0
 * when done, 1 with a
 * one-line error otherwise (2 for a usage error). docs/viewer.md is the
 * user's guide.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "draw_list.h"
#include "gpu_assets.h"
#include "kiln/kiln.h"
#include "kiln/manager.h"
#include "live.h"
#include "lod.h"
#include "png_out.h"
#include "texture_view.h"
#include "view.h"
#include "vk_context.h"
#ifdef KILN_VIEW_WINDOW
#include "interact.h"
#endif

#define SHADER_REF "kiln-view/mesh"
#define SKINNED_SHADER_REF "kiln-view/mesh?SKINNED=1"
#define MESHLET_SHADER_REF "kiln-view/mesh?MESHLETS=1"
#define SKINNED_MESHLET_SHADER_REF "kiln-view/mesh?SKINNED=1&MESHLETS=1"
#define SHADER_FOLDER "kiln-view-shaders"
#define MAX_SIZE 16384
#define WINDOW_WIDTH 960
#define WINDOW_HEIGHT 720

typedef struct options {
    const char *output, *ref, *render, *shaders, *clip, *screenshot;
    float time, yaw, pitch; /* --orbit: radians */
    bool posed;             /* --time or --clip given */
    uint32_t width, height, frames;
    bool headless, validate, live;
    int lod; /* LOD_AUTO or the level --lod forces */
    bool meshlets, meshlet_bounds, stats;
    long layer; /* --layer, -1 without */
} options;

static int usage(const char *problem) {
    fprintf(stderr,
            "kiln-view: %s\nusage: kiln-view OUTPUT [REF] [--size WxH] [--frames N] [--screenshot "
            "OUT.png]\n       kiln-view OUTPUT [REF] --headless --render OUT.png --size WxH "
            "[--live]\n       (either with [--orbit YAW,PITCH] [--time T] [--clip NAME] [--lod N] "
            "[--meshlets] [--meshlet-bounds] [--layer L] [--stats] [--validate] [--shaders "
            "DIR])\n",
            problem);
    return 2;
}

static bool parse_size(const char *text, uint32_t *width, uint32_t *height) {
    char *end;
    unsigned long w = strtoul(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X'))
        return false;
    const char *second = end + 1;
    unsigned long h = strtoul(second, &end, 10);
    if (end == second || *end != '\0' || w == 0 || h == 0 || w > MAX_SIZE || h > MAX_SIZE)
        return false;
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return true;
}

/* "YAW,PITCH" in degrees, into radians. */
static bool parse_angles(const char *text, float *yaw, float *pitch) {
    char *end;
    double y = strtod(text, &end);
    if (end == text || *end != ',' || !(y >= -360.0 && y <= 360.0))
        return false;
    const char *second = end + 1;
    double p = strtod(second, &end);
    if (end == second || *end != '\0' || !(p >= -89.0 && p <= 89.0))
        return false;
    *yaw = (float)(y * M_PI / 180.0);
    *pitch = (float)(p * M_PI / 180.0);
    return true;
}

static int parse(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->lod = LOD_AUTO;
    o->layer = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--headless") == 0) {
            o->headless = true;
        } else if (strcmp(a, "--validate") == 0) {
            o->validate = true;
        } else if (strcmp(a, "--orbit") == 0 && has_value) {
            if (!parse_angles(argv[++i], &o->yaw, &o->pitch))
                return usage("--orbit takes YAW,PITCH in degrees (pitch -89 to 89)");
        } else if (strcmp(a, "--live") == 0) {
            o->live = true;
        } else if (strcmp(a, "--screenshot") == 0 && has_value) {
            o->screenshot = argv[++i];
        } else if (strcmp(a, "--frames") == 0 && has_value) {
            char *end;
            unsigned long frames = strtoul(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || frames == 0 || frames > 1000000)
                return usage("--frames takes a count, 1 to 1000000");
            o->frames = (uint32_t)frames;
        } else if (strcmp(a, "--render") == 0 && has_value) {
            o->render = argv[++i];
        } else if (strcmp(a, "--clip") == 0 && has_value) {
            o->clip = argv[++i];
            o->posed = true;
        } else if (strcmp(a, "--time") == 0 && has_value) {
            char *end;
            double t = strtod(argv[++i], &end);
            if (end == argv[i] || *end != '\0' || !(t >= 0.0 && t <= 1e6))
                return usage("--time takes seconds, 0 to 1000000");
            o->time = (float)t;
            o->posed = true;
        } else if (strcmp(a, "--meshlets") == 0) {
            o->meshlets = true;
        } else if (strcmp(a, "--meshlet-bounds") == 0) {
            o->meshlet_bounds = true;
        } else if (strcmp(a, "--stats") == 0) {
            o->stats = true;
        } else if (strcmp(a, "--lod") == 0 && has_value) {
            char *end;
            long level = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || level < 0 || level >= (long)KILN_MESH_MAX_LODS)
                return usage("--lod takes a level of detail, 0 to 7");
            o->lod = (int)level;
        } else if (strcmp(a, "--layer") == 0 && has_value) {
            char *end;
            o->layer = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || o->layer < 0 || o->layer > 65535)
                return usage("--layer takes a texture's layer, cube or slice, 0 to 65535");
        } else if (strcmp(a, "--shaders") == 0 && has_value) {
            o->shaders = argv[++i];
        } else if (strcmp(a, "--size") == 0 && has_value) {
            if (!parse_size(argv[++i], &o->width, &o->height))
                return usage("--size takes WxH, each 1 to 16384");
        } else if (a[0] == '-') {
            char problem[256];
            snprintf(problem, sizeof problem, "unknown option or missing value: %s", a);
            return usage(problem);
        } else if (o->output == NULL) {
            o->output = a;
        } else if (o->ref == NULL) {
            o->ref = a;
        } else {
            return usage("more than OUTPUT and REF given");
        }
    }
    if (o->output == NULL)
        return usage("no OUTPUT folder or pack given");
    if (o->meshlets && o->lod != LOD_AUTO)
        return usage("--meshlets draws level 0's meshlets: it takes no --lod");
    if (o->headless) {
        if (o->render == NULL || o->width == 0)
            return usage("--headless needs --render OUT.png and --size WxH");
        if (o->frames > 0 || o->screenshot != NULL)
            return usage("--frames and --screenshot are the window's (--headless writes --render)");
        return 0;
    }
#ifndef KILN_VIEW_WINDOW
    return usage("this kiln-view was built without GLFW (libglfw3-dev): only --headless");
#endif
    if (o->render != NULL || o->live)
        return usage("--render and --live go with --headless (the window reloads by itself)");
    if (o->width == 0) {
        o->width = WINDOW_WIDTH;
        o->height = WINDOW_HEIGHT;
    }
    return 0;
}

/* The cooked shaders: --shaders, else $KILN_VIEW_SHADERS, else the folder the
 * build cooked next to this executable. */
static bool shader_folder(const options *o, char *out, size_t capacity) {
    const char *chosen = o->shaders != NULL ? o->shaders : getenv("KILN_VIEW_SHADERS");
    if (chosen != NULL)
        return (size_t)snprintf(out, capacity, "%s", chosen) < capacity;
    char exe[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length <= 0)
        return false;
    exe[length] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    return (size_t)snprintf(out, capacity, "%s/%s", exe, SHADER_FOLDER) < capacity;
}

/* The manifest of a folder or a pack, open in `file` (and `pack`). */
static kiln_result open_manifest(const char *output, kiln_pack *pack, kiln_file *file,
                                 kiln_manifest_view *view, kiln_error *err) {
    struct stat st;
    kiln_result r;
    if (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", output, KILN_MANIFEST_FILE_NAME);
        r = kiln_file_map(file, path, 0, err);
    } else {
        r = kiln_pack_open(pack, output, err);
        if (r == KILN_OK)
            r = kiln_pack_manifest(pack, file, 0, err);
    }
    return r == KILN_OK ? kiln_manifest_view_get(file, view, err) : r;
}

/* The clips of the model whose scene is `ref` ("<model>/scene" has
 * "<model>/anim"), into `anim`; "" when it has none. */
static void anim_of(const kiln_manifest_view *view, const char *ref, char *anim, size_t capacity) {
    size_t length = strlen(ref);
    anim[0] = '\0';
    if (length > 6 && strcmp(ref + length - 6, "/scene") == 0 && length + 1 < capacity) {
        snprintf(anim, capacity, "%.*s/anim", (int)(length - 6), ref);
        const kiln_manifest_entry *e = kiln_manifest_find(view, kiln_ref_hash(anim));
        if (e == NULL || e->kind != KILN_ASSET_ANIMATION)
            anim[0] = '\0';
    }
}

/* What to draw: REF (a model's ref means its scene, REF/scene, when it has
 * one), or the first scene by ref, else the first mesh; and its model's
 * clips' ref in `anim` ("" without). */
static kiln_result choose_ref(const options *o, char *out, size_t capacity, char *anim,
                              size_t anim_capacity, kiln_error *err) {
    kiln_pack pack = {0};
    kiln_file file = {0};
    kiln_manifest_view view;
    kiln_result r = open_manifest(o->output, &pack, &file, &view, err);
    if (r == KILN_OK && o->ref != NULL) {
        char scene[512];
        snprintf(scene, sizeof scene, "%s/scene", o->ref);
        const kiln_manifest_entry *e = kiln_manifest_find(&view, kiln_ref_hash(scene));
        snprintf(out, capacity, "%s", e != NULL && e->kind == KILN_ASSET_SCENE ? scene : o->ref);
    } else if (r == KILN_OK) {
        const char *best = NULL;
        int best_kind = 0;
        for (uint32_t i = 0; i < view.entry_count; i++) {
            int kind = view.entries[i].kind;
            if (kind != KILN_ASSET_SCENE && kind != KILN_ASSET_MESH)
                continue;
            const char *ref = kiln_manifest_ref(&view, &view.entries[i]);
            if (best == NULL || (kind == KILN_ASSET_SCENE && best_kind != KILN_ASSET_SCENE) ||
                (kind == best_kind && strcmp(ref, best) < 0)) {
                best = ref;
                best_kind = kind;
            }
        }
        if (best != NULL) {
            snprintf(out, capacity, "%s", best);
        } else {
            r = KILN_ERR_NOT_FOUND;
            err->code = r;
            snprintf(err->message, sizeof err->message, "%s holds no scene or mesh to draw",
                     o->output);
        }
    }
    if (r == KILN_OK)
        anim_of(&view, out, anim, anim_capacity);
    kiln_file_close(&file);
    kiln_pack_close(&pack);
    return r;
}

/* The pose --time and --clip ask for: the named clip (else the first) of
 * `anim`. */
static bool choose_pose(const options *o, const kiln_asset *anim, const char *ref, draw_pose *pose,
                        kiln_error *err) {
    err->code = KILN_ERR_NOT_FOUND;
    if (anim == NULL) {
        snprintf(err->message, sizeof err->message, "--time/--clip: %.200s has no animations", ref);
        return false;
    }
    pose->anim = &anim->anim;
    pose->time = o->time;
    pose->clip = 0;
    if (o->clip != NULL && kiln_anim_find_clip(&anim->anim, o->clip, &pose->clip) != KILN_OK) {
        snprintf(err->message, sizeof err->message, "--clip: %.150s has no clip named '%.32s'",
                 anim->ref, o->clip);
        return false;
    }
    if (anim->anim.clip_count == 0) {
        snprintf(err->message, sizeof err->message, "--time/--clip: %.200s has no clips",
                 anim->ref);
        return false;
    }
    return true;
}

/* A texture ref is shown alone (texture_view.h), at --layer: the options
 * that draw models refuse it, and --layer anything else. */
static bool texture_or_model(const options *o, const kiln_asset *asset, view_state *s,
                             kiln_error *err) {
    s->texture = asset != NULL && asset->kind == KILN_ASSET_TEXTURE;
    s->layer = o->layer >= 0 ? (uint32_t)o->layer : 0;
    err->code = KILN_ERR_INVALID_ARGUMENT;
    if (s->texture && (o->posed || o->lod != LOD_AUTO || o->meshlets || o->meshlet_bounds)) {
        snprintf(err->message, sizeof err->message,
                 "%.150s is a texture: --time, --clip, --lod, --meshlets and --meshlet-bounds "
                 "draw models",
                 asset->ref);
        return false;
    }
    if (!s->texture && o->layer >= 0) {
        snprintf(err->message, sizeof err->message,
                 "--layer picks a texture's layer; %.200s is not a texture",
                 asset != NULL ? asset->ref : "REF");
        return false;
    }
    err->code = KILN_OK;
    return true;
}

/* Everything main owns, released in reverse order of creation. */
typedef struct viewer {
    vk_context vk;
#ifdef KILN_VIEW_WINDOW
    window win;
#endif
    live live; /* the upload callbacks' user */
    kiln_manager *manager;
    view_state view;
    uint8_t *pixels;
    const options *o;
    uint32_t frames_written; /* --live */
} viewer;

static void viewer_close(viewer *v) {
    free(v->pixels);
    view_close(&v->view, &v->vk);
    kiln_manager_destroy(v->manager); /* runs the destroy callbacks: before the device goes */
    live_destroy(&v->live);
#ifdef KILN_VIEW_WINDOW
    window_destroy(&v->win); /* its swapchain and surface: before the device and instance */
#endif
    vkc_destroy(&v->vk);
}

static kiln_result load(kiln_manager *manager, const char *ref, kiln_ref *out, kiln_error *err) {
    kiln_result r = kiln_manager_load_ref(manager, KILN_SCOPE_PERMANENT, ref, out, err);
    if (r != KILN_OK)
        return r;
    if (kiln_asset_get(manager, *out) == NULL &&
        kiln_asset_state_of(manager, *out, err) != KILN_ASSET_READY)
        return err->code != KILN_OK ? err->code : KILN_ERR_NOT_FOUND;
    return KILN_OK;
}

/* --stats: its line of the last frame on stdout. */
static void print_stats(const view_state *s) {
    char line[256];
    view_stats_line(&s->stats, line, sizeof line);
    printf("%s\n", line);
    fflush(stdout);
}

/* Renders the automatic camera's frame (turned by --orbit) into v->pixels. */
static bool render_still(viewer *v, kiln_error *err) {
    orbit eye;
    orbit_reset(&eye, &v->view.draws, v->o->width, v->o->height);
    orbit_turn_to(&eye, v->o->yaw, v->o->pitch);
    camera cam;
    orbit_camera(&eye, v->o->width, v->o->height, &cam);
    return view_render(&v->view, &v->vk, &cam, v->o->width, v->o->height, v->pixels, err);
}

/* --live's frame: the current data drawn and written to --render
 * atomically (a reader never sees half a PNG), then a line on stdout (and
 * the --stats line). */
static bool live_frame(void *user, kiln_error *err) {
    viewer *v = user;
    const char *out = v->o->render;
    char partial[PATH_MAX];
    if ((size_t)snprintf(partial, sizeof partial, "%s.partial", out) >= sizeof partial) {
        err->code = KILN_ERR_INVALID_ARGUMENT;
        snprintf(err->message, sizeof err->message, "%.200s: path too long", out);
        return false;
    }
    /* Called after a reload (or a request on stdin: rare enough to write
     * the morph targets again too). */
    view_reloaded(&v->view);
    if (!view_update(&v->view, &v->vk, err) || !render_still(v, err) ||
        !png_write_rgba(partial, v->pixels, v->o->width, v->o->height, err))
        return false;
    if (rename(partial, out) != 0) {
        err->code = KILN_ERR_IO;
        snprintf(err->message, sizeof err->message, "%.200s: %s", out, strerror(errno));
        remove(partial);
        return false;
    }
    printf("kiln-view: wrote %s (frame %u)\n", out, ++v->frames_written);
    fflush(stdout);
    if (v->o->stats)
        print_stats(&v->view);
    return true;
}

/* The device: a window's (presenting to it) or a headless one. */
static bool open_device(const options *o, viewer *v, const char *ref, kiln_error *err) {
#ifdef KILN_VIEW_WINDOW
    if (!o->headless) {
        char title[600];
        snprintf(title, sizeof title, "kiln-view: %s", ref);
        return window_create(&v->win, &v->vk, o->validate, o->width, o->height, title, err);
    }
#else
    (void)ref;
#endif
    return vkc_create(&v->vk, o->validate, err);
}

static bool run(const options *o, viewer *v, kiln_error *err) {
    char shaders[PATH_MAX], ref[512], anim_ref[512];
    if (!shader_folder(o, shaders, sizeof shaders)) {
        err->code = KILN_ERR_NOT_FOUND;
        snprintf(err->message, sizeof err->message, "cannot find the cooked shaders' folder");
        return false;
    }
    char manifest[PATH_MAX + 32];
    snprintf(manifest, sizeof manifest, "%s/%s", shaders, KILN_MANIFEST_FILE_NAME);
    if (access(manifest, R_OK) != 0) {
        err->code = KILN_ERR_NOT_FOUND;
        snprintf(err->message, sizeof err->message,
                 "no cooked shaders in %.160s (the build cooks them there; or pass --shaders DIR)",
                 shaders);
        return false;
    }
    if (choose_ref(o, ref, sizeof ref, anim_ref, sizeof anim_ref, err) != KILN_OK ||
        !open_device(o, v, ref, err))
        return false;
    live_init(&v->live, &v->vk);
    /* UASTC textures arrive as BC7 where the device samples BC (lavapipe
     * does), else as RGBA8 texels. */
    kiln_manager_desc desc = {.engine = live_callbacks(&v->live),
                              .gpu_formats = v->vk.bc_textures ? KILN_GPU_BC7 : 0};
    view_state *s = &v->view;
    s->lod = o->lod;
    s->meshlets = o->meshlets;
    s->meshlet_bounds = o->meshlet_bounds;
    static const char *const shader_refs[VIEW_PROGRAMS] = {
        SHADER_REF, SKINNED_SHADER_REF, MESHLET_SHADER_REF, SKINNED_MESHLET_SHADER_REF};
    /* The shaders' folder is mounted last so their refs win over the output's. */
    if (kiln_manager_create(&desc, &v->manager, err) != KILN_OK ||
        kiln_manager_mount(v->manager, o->output, NULL, err) != KILN_OK ||
        kiln_manager_mount(v->manager, shaders, NULL, err) != KILN_OK ||
        load(v->manager, ref, &s->asset, err) != KILN_OK)
        return false;
    if (!texture_or_model(o, kiln_asset_get(v->manager, s->asset), s, err))
        return false;
    for (int p = 0; p < view_program_count(s); p++)
        if (load(v->manager,
                 s->texture ? texture_program_refs[texture_program_of(
                                  &kiln_asset_get(v->manager, s->asset)->texture)]
                            : shader_refs[p],
                 &s->shaders[p], err) != KILN_OK)
            return false;
    s->manager = v->manager;
    /* The clips pose a still and the window steps through them; unposed,
     * their file still holds the default morph weights. */
    if (anim_ref[0] != '\0' && load(v->manager, anim_ref, &s->anim, err) != KILN_OK) {
        if (o->posed)
            return false;
        fprintf(stderr, "kiln-view: warning: %s; morph targets drawn in their base shape\n",
                err->message);
        s->anim = (kiln_ref){0};
        *err = (kiln_error){0};
    }
    draw_pose pose;
    if (o->posed) {
        if (!choose_pose(o, kiln_asset_get(v->manager, s->anim), ref, &pose, err))
            return false;
        s->posed = true;
        s->clip = pose.clip;
        s->time = pose.time;
    }
    if (!view_update(s, &v->vk, err))
        return false;
    if (s->draws.skipped_primitives > 0)
        fprintf(stderr, "kiln-view: warning: %s: %u line or point submeshes not drawn\n", ref,
                s->draws.skipped_primitives);
#ifdef KILN_VIEW_WINDOW
    if (!o->headless) {
        live_catch_signals();
        interact_options io = {.name = ref,
                               .yaw = o->yaw,
                               .pitch = o->pitch,
                               .frames = o->frames,
                               .screenshot = o->screenshot,
                               .stats = o->stats};
        return interact_run(&v->win, s, &v->live, &io, err);
    }
#endif
    v->pixels = malloc(4 * (size_t)o->width * o->height);
    if (v->pixels == NULL) {
        snprintf(err->message, sizeof err->message, "out of memory for a %ux%u image", o->width,
                 o->height);
        return false;
    }
    if (o->live) {
        live_catch_signals();
        return live_frame(v, err) && live_run_headless(&v->live, v->manager, live_frame, v, err);
    }
    if (!render_still(v, err) || !png_write_rgba(o->render, v->pixels, o->width, o->height, err))
        return false;
    if (o->stats)
        print_stats(&v->view);
    return true;
}

/* A failed run leaves no image behind. */
static void remove_output(const options *o) {
    if (o->render != NULL)
        remove(o->render);
    if (o->screenshot != NULL)
        remove(o->screenshot);
}

int main(int argc, char **argv) {
    options o;
    int bad = parse(argc, argv, &o);
    if (bad != 0)
        return bad;
    viewer v = {.o = &o};
    kiln_error err = {0};
    bool ok = run(&o, &v, &err);
    viewer_close(&v);
    if (!ok) {
        fprintf(stderr, "kiln-view: %s\n", err.message);
        remove_output(&o);
        return 1;
    }
    if (v.vk.validation_errors > 0) {
        fprintf(stderr, "kiln-view: %u Vulkan validation errors\n", v.vk.validation_errors);
        remove_output(&o);
        return 1;
    }
    return 0;
}
