/*
 * cmd_pose.c — `kiln pose FILE.kscene [--anim FILE.kanim] [--clip NAME|INDEX]
 * [--time T] [--json]`: every node's global matrix (and each morph node's
 * weights) in the rest pose or a clip's pose at a time, computed by libkiln's
 * calls (kiln_anim_pose_rest, kiln_anim_sample, kiln_anim_apply,
 * kiln_scene_update), and every skin's skinning matrices
 * (kiln_scene_skin_matrices), so it shows what an engine will see.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

#define COMMAND "pose"

enum { OPTION_JSON = 256, OPTION_ANIM, OPTION_CLIP, OPTION_TIME };

static const struct option pose_long_options[] = {
    {"json", no_argument, NULL, OPTION_JSON},
    {"anim", required_argument, NULL, OPTION_ANIM},
    {"clip", required_argument, NULL, OPTION_CLIP},
    {"time", required_argument, NULL, OPTION_TIME},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cmd_pose_usage(FILE *out) {
    fprintf(out, "Usage: kiln pose FILE.kscene [--anim FILE.kanim] [--clip NAME|INDEX] [--time T]\n"
                 "                 [--json]\n"
                 "\n"
                 "Prints every node of a cooked scene with its global (world) matrix, in file\n"
                 "order (depth-first: parents first), as libkiln computes it: what an engine\n"
                 "loading the files sees. Without --clip the rest pose; with it the clip's\n"
                 "pose at time T (seconds, default 0; clamped to the clip's keys). Text shows\n"
                 "each matrix as 4 rows; --json prints\n"
                 "  {\"nodes\": [{\"name\": str, \"source\": int, \"world\": [16 numbers],\n"
                 "               \"weights\": [numbers]}],\n"
                 "   \"skins\": [{\"source\": int, \"joints\": [int, ..],\n"
                 "              \"matrices\": [[16 numbers], ..]}]}\n"
                 "with `world` column-major as in glTF, `source` the node's index in the source\n"
                 "file (-1 for a node the cooker made) and `weights` (morph weights) only for\n"
                 "nodes whose mesh has morph targets. Per skin, `source` is its index in the\n"
                 "source, `joints` the joints' source node indices and each matrix the\n"
                 "joint's world matrix times its inverse bind matrix\n"
                 "(kiln_scene_skin_matrices), column-major. A node with a camera, a light\n"
                 "or instances also has \"camera\" / \"light\" (an index into the\n"
                 "top-level \"cameras\" / \"lights\" lists, which give their values) and\n"
                 "\"instances\" (how many); text names them under the node.\n"
                 "\n"
                 "Options:\n"
                 "      --anim FILE   the clips (.kanim); default: the .kanim beside the scene,\n"
                 "                    when there is one\n"
                 "      --clip CLIP   a clip by name, or by index when no clip has that name\n"
                 "      --time T      seconds into the clip (default 0)\n"
                 "      --json        print one JSON document instead of text\n"
                 "  -h, --help        show this help\n"
                 "\n"
                 "Exit status: 0, 1 when a file cannot be read or is not valid, or the clip\n"
                 "does not exist, 2 for a command-line mistake.\n");
}

/* What is posed: the scene instance, and the clips when there are any. */
typedef struct posed {
    const char *clip_name; /* NULL: rest pose */
    float time;
    bool has_anim;
    kiln_anim_view anim;
    float *weights;
} posed;

static void print_weights(bytebuf *out, const float *weights, uint32_t count) {
    for (uint32_t k = 0; k < count; k++)
        bytebuf_printf(out, " %g", (double)weights[k] + 0.0);
}

/* Floats as JSON: %.9g, exact for a float. */
static json_t *floats_json(const float *values, size_t count) {
    json_t *array = json_array();
    for (size_t i = 0; i < count; i++)
        json_array_append_new(array, cli_json_number(values[i], 9));
    return array;
}

/* The morph record of `node`, or NULL. */
static const kiln_anim_morph *morph_of(const posed *p, uint32_t node) {
    for (uint32_t m = 0; p->has_anim && m < p->anim.morph_count; m++)
        if (p->anim.morphs[m].node == node)
            return &p->anim.morphs[m];
    return NULL;
}

static const char *camera_type(uint32_t type) {
    return type == KILN_CAMERA_ORTHOGRAPHIC ? "orthographic" : "perspective";
}

static const char *light_type(uint32_t type) {
    return type == KILN_LIGHT_SPOT ? "spot" : type == KILN_LIGHT_POINT ? "point" : "directional";
}

/* The node's camera, light and instances, under its matrix. */
static void print_node_objects(const kiln_scene_view *view, uint32_t i) {
    const kiln_scene_node *n = &view->nodes[i];
    const kiln_scene_camera *c = kiln_scene_node_camera(view, i);
    if (c != NULL && c->type == KILN_CAMERA_ORTHOGRAPHIC)
        printf("  camera %" PRId32 " '%s': orthographic, xmag %g, ymag %g, znear %g, zfar %g\n",
               n->camera, cook_escaped(kiln_scene_camera_name(view, (uint32_t)n->camera)),
               (double)c->xmag, (double)c->ymag, (double)c->znear, (double)c->zfar);
    else if (c != NULL)
        printf("  camera %" PRId32
               " '%s': perspective, yfov %g, aspect %g%s, znear %g, zfar %g%s\n",
               n->camera, cook_escaped(kiln_scene_camera_name(view, (uint32_t)n->camera)),
               (double)c->yfov, (double)c->aspect, c->aspect == 0 ? " (the viewport's)" : "",
               (double)c->znear, (double)c->zfar, c->zfar == 0 ? " (infinite)" : "");
    const kiln_scene_light *l = kiln_scene_node_light(view, i);
    if (l != NULL) {
        printf("  light %" PRId32 " '%s': %s, colour %g %g %g, intensity %g, range %g%s", n->light,
               cook_escaped(kiln_scene_light_name(view, (uint32_t)n->light)), light_type(l->type),
               (double)l->color[0], (double)l->color[1], (double)l->color[2], (double)l->intensity,
               (double)l->range, l->range == 0 ? " (infinite)" : "");
        if (l->type == KILN_LIGHT_SPOT)
            printf(", cone %g .. %g", (double)l->inner_cone, (double)l->outer_cone);
        printf("\n");
    }
    uint32_t count;
    if (kiln_scene_node_instances(view, i, &count) != NULL)
        printf("  %" PRIu32 " instance%s\n", count, cli_plural(count));
}

static void print_text(const char *path, const kiln_scene_view *view,
                       const kiln_scene_instance *instance, const posed *p) {
    printf("%s: %" PRIu32 " node%s, %" PRIu32 " level%s, ", cook_escaped(path), view->node_count,
           cli_plural(view->node_count), view->level_count, cli_plural(view->level_count));
    if (p->clip_name != NULL)
        printf("clip '%s' at %g s\n", cook_escaped(p->clip_name), (double)p->time);
    else
        printf("rest pose\n");
    for (uint32_t i = 0; i < view->node_count; i++) {
        const float *m = kiln_scene_world(instance, i);
        printf("node %" PRIu32 " '%s' (source %" PRId32 ", depth %" PRIu32 ")\n", i,
               cook_escaped(kiln_scene_node_name(view, i)), view->nodes[i].source,
               view->hierarchy[i].depth);
        for (int row = 0; row < 4; row++) /* + 0.0: no "-0" */
            printf("  | %12.6g %12.6g %12.6g %12.6g |\n", m[row] + 0.0, m[4 + row] + 0.0,
                   m[8 + row] + 0.0, m[12 + row] + 0.0);
        print_node_objects(view, i);
        const kiln_anim_morph *morph = morph_of(p, i);
        if (morph != NULL) {
            bytebuf line = {0};
            print_weights(&line, p->weights + morph->weight_offset, morph->weight_count);
            printf("  weights%.*s\n", (int)line.size, line.data ? (const char *)line.data : "");
            bytebuf_free(&line);
        }
    }
}

static json_t *cameras_json(const kiln_scene_view *view) {
    json_t *cameras = json_array();
    for (uint32_t c = 0; c < view->camera_count; c++) {
        const kiln_scene_camera *k = &view->cameras[c];
        json_t *camera = json_object();
        json_object_set_new(camera, "name", cli_json_string(kiln_scene_camera_name(view, c)));
        json_object_set_new(camera, "type", json_string(camera_type(k->type)));
        const char *keys[6] = {"yfov", "aspect", "xmag", "ymag", "znear", "zfar"};
        const float values[6] = {k->yfov, k->aspect, k->xmag, k->ymag, k->znear, k->zfar};
        for (int v = 0; v < 6; v++)
            json_object_set_new(camera, keys[v], cli_json_number(values[v], 9));
        json_array_append_new(cameras, camera);
    }
    return cameras;
}

static json_t *lights_json(const kiln_scene_view *view) {
    json_t *lights = json_array();
    for (uint32_t l = 0; l < view->light_count; l++) {
        const kiln_scene_light *k = &view->lights[l];
        json_t *light = json_object();
        json_object_set_new(light, "name", cli_json_string(kiln_scene_light_name(view, l)));
        json_object_set_new(light, "type", json_string(light_type(k->type)));
        json_object_set_new(light, "color", floats_json(k->color, 3));
        const char *keys[4] = {"intensity", "range", "inner_cone", "outer_cone"};
        const float values[4] = {k->intensity, k->range, k->inner_cone, k->outer_cone};
        for (int v = 0; v < 4; v++)
            json_object_set_new(light, keys[v], cli_json_number(values[v], 9));
        json_array_append_new(lights, light);
    }
    return lights;
}

/* Room for the largest skin's matrices, or NULL after saying why there is none
 * (also NULL, without a message, for a scene without skins). */
static float *skin_memory(const kiln_scene_view *view, bool *failed) {
    uint32_t most = 0;
    for (uint32_t s = 0; s < view->skin_count; s++)
        if (view->skins[s].joint_count > most)
            most = view->skins[s].joint_count;
    *failed = false;
    if (most == 0)
        return NULL;
    float *matrices = malloc((size_t)most * 16 * sizeof *matrices);
    if (matrices == NULL) {
        cli_error("out of memory");
        *failed = true;
    }
    return matrices;
}

/* Each skin's joints and skinning matrices (kiln_scene_skin_matrices). */
static void print_skins_text(const kiln_scene_view *view, const kiln_scene_instance *instance,
                             float *matrices) {
    for (uint32_t s = 0; s < view->skin_count; s++) {
        uint32_t count;
        const kiln_scene_joint *joints = kiln_scene_skin_joints(view, s, &count);
        kiln_error err;
        if (kiln_scene_skin_matrices(view, instance, s, matrices, count, &err) != KILN_OK)
            continue; /* cannot happen: the view and the room are right */
        printf("skin %" PRIu32 " (source %" PRId32 "), %" PRIu32 " joint%s\n", s,
               view->skins[s].source, count, cli_plural(count));
        for (uint32_t j = 0; j < count; j++) {
            const float *m = matrices + 16 * (size_t)j;
            printf("joint %" PRIu32 " node %" PRIu32 " '%s' (source %" PRId32 ")\n", j,
                   joints[j].node, cook_escaped(kiln_scene_node_name(view, joints[j].node)),
                   view->nodes[joints[j].node].source);
            for (int row = 0; row < 4; row++)
                printf("  | %12.6g %12.6g %12.6g %12.6g |\n", m[row] + 0.0, m[4 + row] + 0.0,
                       m[8 + row] + 0.0, m[12 + row] + 0.0);
        }
    }
}

static json_t *skins_json(const kiln_scene_view *view, const kiln_scene_instance *instance,
                          float *matrices) {
    json_t *skins = json_array();
    for (uint32_t s = 0; s < view->skin_count; s++) {
        uint32_t count;
        const kiln_scene_joint *joints = kiln_scene_skin_joints(view, s, &count);
        kiln_error err;
        if (kiln_scene_skin_matrices(view, instance, s, matrices, count, &err) != KILN_OK)
            count = 0; /* cannot happen: the view and the room are right */
        json_t *skin = json_object(), *sources = json_array(), *listed = json_array();
        json_object_set_new(skin, "source", json_integer(view->skins[s].source));
        for (uint32_t j = 0; j < count; j++) {
            json_array_append_new(sources, json_integer(view->nodes[joints[j].node].source));
            json_array_append_new(listed, floats_json(matrices + 16 * (size_t)j, 16));
        }
        json_object_set_new(skin, "joints", sources);
        json_object_set_new(skin, "matrices", listed);
        json_array_append_new(skins, skin);
    }
    return skins;
}

static json_t *pose_json(const kiln_scene_view *view, const kiln_scene_instance *instance,
                         const posed *p, float *matrices) {
    json_t *document = json_object(), *nodes = json_array();
    for (uint32_t i = 0; i < view->node_count; i++) {
        json_t *node = json_object();
        json_object_set_new(node, "name", cli_json_string(kiln_scene_node_name(view, i)));
        json_object_set_new(node, "source", json_integer(view->nodes[i].source));
        json_object_set_new(node, "world", floats_json(kiln_scene_world(instance, i), 16));
        if (view->nodes[i].camera >= 0)
            json_object_set_new(node, "camera", json_integer(view->nodes[i].camera));
        if (view->nodes[i].light >= 0)
            json_object_set_new(node, "light", json_integer(view->nodes[i].light));
        uint32_t count;
        if (kiln_scene_node_instances(view, i, &count) != NULL)
            json_object_set_new(node, "instances", json_integer(count));
        const kiln_anim_morph *morph = morph_of(p, i);
        if (morph != NULL)
            json_object_set_new(
                node, "weights",
                floats_json(p->weights + morph->weight_offset, morph->weight_count));
        json_array_append_new(nodes, node);
    }
    json_object_set_new(document, "nodes", nodes);
    json_object_set_new(document, "skins", skins_json(view, instance, matrices));
    json_object_set_new(document, "cameras", cameras_json(view));
    json_object_set_new(document, "lights", lights_json(view));
    return document;
}

/* The instance's memory, or NULL after saying why there is none. */
static void *instance_memory(const char *path, const kiln_scene_view *view, size_t *size) {
    *size = kiln_scene_instance_size(view);
    void *memory = *size > 0 ? aligned_alloc(16, (*size + 15) & ~(size_t)15) : NULL;
    if (*size == 0)
        fprintf(stderr, "%s: error: the scene is too large for this machine\n", cook_escaped(path));
    else if (memory == NULL)
        cli_error("out of memory");
    return memory;
}

/* The .kanim beside a .kscene (same stem), as a new string. */
static char *beside(const char *scene_path) {
    size_t length = strlen(scene_path);
    const char *dot = strrchr(scene_path, '.'), *slash = strrchr(scene_path, '/');
    if (dot != NULL && (slash == NULL || dot > slash))
        length = (size_t)(dot - scene_path);
    char *out = malloc(length + 7);
    if (out != NULL) {
        memcpy(out, scene_path, length);
        memcpy(out + length, ".kanim", 7);
    }
    return out;
}

/* Opens the clips and poses the instance: the rest pose with the default
 * weights, then the clip at the time. Reports and returns false on failure. */
static bool pose_clip(const char *anim_path, const char *clip, float time, kiln_file *file,
                      const kiln_scene_view *view, kiln_scene_instance *instance, posed *p) {
    kiln_error err;
    if (kiln_file_map_expanded(file, anim_path, 0, &err) != KILN_OK) {
        fprintf(stderr, "%s: error: %s\n", cook_escaped(anim_path),
                cook_escaped(cli_kiln_error_detail(&err, anim_path)));
        return false;
    }
    p->has_anim = true;
    if (kiln_anim_view_get(file, 0, &p->anim, &err) != KILN_OK) {
        fprintf(stderr, "%s: error: %s\n", cook_escaped(anim_path),
                cook_escaped(cli_kiln_error_detail(&err, anim_path)));
        return false;
    }
    size_t nodes = view->node_count ? view->node_count : 1;
    kiln_anim_pose pose = {malloc(nodes * sizeof *pose.local),
                           malloc((p->anim.weight_count + 1) * sizeof(float))};
    p->weights = pose.weights;
    bool ok = pose.local != NULL && pose.weights != NULL;
    if (!ok)
        cli_error("out of memory");
    if (ok && kiln_anim_pose_rest(&p->anim, view, &pose, &err) != KILN_OK) {
        fprintf(stderr, "%s: error: %s (the clips are not for this scene)\n",
                cook_escaped(anim_path), cook_escaped(err.message));
        ok = false;
    }
    uint32_t index = 0;
    if (ok && clip != NULL && kiln_anim_find_clip(&p->anim, clip, &index) != KILN_OK) {
        unsigned long n = 0;
        if (!cli_parse_whole(clip, 0, UINT32_MAX, &n) || n >= p->anim.clip_count) {
            fprintf(stderr, "%s: error: no clip '%s' (%" PRIu32 " clip%s", cook_escaped(anim_path),
                    cook_escaped(clip), p->anim.clip_count, cli_plural(p->anim.clip_count));
            for (uint32_t c = 0; c < p->anim.clip_count; c++)
                fprintf(stderr, "%s'%s'", c ? ", " : ": ",
                        cook_escaped(kiln_anim_clip_name(&p->anim, c)));
            fprintf(stderr, ")\n");
            ok = false;
        }
        index = (uint32_t)n;
    }
    if (ok && clip != NULL) {
        p->clip_name = kiln_anim_clip_name(&p->anim, index);
        p->time = time;
        ok = kiln_anim_sample(&p->anim, index, time, NULL, &pose, &err) == KILN_OK &&
             kiln_anim_apply(&p->anim, index, &pose, instance, &err) == KILN_OK;
        if (!ok)
            fprintf(stderr, "%s: error: %s\n", cook_escaped(anim_path), cook_escaped(err.message));
        kiln_scene_update(instance);
    }
    free(pose.local);
    return ok;
}

static int pose(const char *path, const char *anim_path, const char *clip, float time, bool json) {
    kiln_file file, anim_file;
    kiln_error err;
    kiln_scene_view view;
    kiln_scene_instance instance;
    posed p = {0};
    size_t size = 0;
    void *memory = NULL;
    bool ok = kiln_file_map_expanded(&file, path, 0, &err) == KILN_OK;
    if (ok && kiln_scene_view_get(&file, 0, &view, &err) != KILN_OK) {
        kiln_file_close(&file);
        ok = false;
    }
    if (!ok) {
        fprintf(stderr, "%s: error: %s\n", cook_escaped(path),
                cook_escaped(cli_kiln_error_detail(&err, path)));
        return CLI_EXIT_FAILURE;
    }
    ok = (memory = instance_memory(path, &view, &size)) != NULL &&
         kiln_scene_instance_init(&instance, &view, memory, size, &err) == KILN_OK;
    if (memory != NULL && !ok)
        fprintf(stderr, "%s: error: %s\n", cook_escaped(path),
                cook_escaped(cli_kiln_error_detail(&err, path)));
    /* The clips: --anim, else the .kanim beside the scene when it exists. */
    char *default_anim = anim_path == NULL ? beside(path) : NULL;
    struct stat st;
    if (anim_path == NULL && default_anim != NULL && stat(default_anim, &st) == 0)
        anim_path = default_anim;
    if (ok && anim_path == NULL && clip != NULL) {
        fprintf(stderr, "%s: error: no clips to pose: %s does not exist (give --anim)\n",
                cook_escaped(path), default_anim ? cook_escaped(default_anim) : "the .kanim");
        ok = false;
    }
    if (ok && anim_path != NULL)
        ok = pose_clip(anim_path, clip, time, &anim_file, &view, &instance, &p);
    bool skin_failed = false;
    float *matrices = ok ? skin_memory(&view, &skin_failed) : NULL;
    ok = ok && !skin_failed;
    if (ok && json) {
        json_t *document = pose_json(&view, &instance, &p, matrices);
        ok = cli_json_print(stdout, document);
        json_decref(document);
    } else if (ok) {
        print_text(path, &view, &instance, &p);
        print_skins_text(&view, &instance, matrices);
    }
    free(matrices);
    fflush(stdout);
    if (p.has_anim)
        kiln_file_close(&anim_file);
    free(p.weights);
    free(default_anim);
    free(memory);
    kiln_file_close(&file);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int cmd_pose(int argc, char **argv) {
    bool json = false;
    const char *anim = NULL, *clip = NULL;
    float time = 0.0f;
    char *end;
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "h", pose_long_options, NULL)) !=
           -1) {
        switch (option) {
        case OPTION_JSON:
            json = true;
            break;
        case OPTION_ANIM:
            anim = optarg;
            break;
        case OPTION_CLIP:
            clip = optarg;
            break;
        case OPTION_TIME:
            time = strtof(optarg, &end);
            if (end == optarg || *end != '\0' || !isfinite(time))
                return cli_usage_error(COMMAND, "--time: '%s' is not a number of seconds", optarg);
            break;
        case 'h':
            cmd_pose_usage(stdout);
            return CLI_EXIT_OK;
        default:
            return cli_option_error(COMMAND, argv, pose_long_options, option);
        }
    }
    if (optind >= argc)
        return cli_usage_error(COMMAND, "missing the .kscene file to pose");
    if (argc - optind > 1)
        return cli_usage_error(COMMAND, "unexpected argument '%s'", argv[optind + 1]);
    return pose(argv[optind], anim, clip, time, json);
}
