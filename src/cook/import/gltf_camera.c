/*
 * gltf_camera.c — glTF cameras, KHR_lights_punctual lights and
 * EXT_mesh_gpu_instancing instances into the IR (ir_camera, ir_light,
 * ir_instance) and each node's camera, light and instance range.
 *
 * Cameras (glTF 2.0 §5.12)
 *   `type` is required and names the one object the camera holds
 *   (`perspective` or `orthographic`); the other object present too is an
 *   error. Perspective: yfov > 0, znear > 0, aspectRatio > 0 when given, zfar
 *   > znear when given (absent: infinite, stored as 0). Orthographic: xmag and
 *   ymag not 0 (negative is a warning: a mirrored projection), znear >= 0,
 *   zfar > znear, all required.
 *
 * Lights (KHR_lights_punctual)
 *   The root's extensions.KHR_lights_punctual.lights: `type` directional,
 *   point or spot (required); color three numbers in [0, 1] (default white);
 *   intensity >= 0 (default 1); range > 0 when given (absent: infinite,
 *   stored as 0); a spot's `spot` object (required for spot lights, an error
 *   on others) with 0 <= innerConeAngle < outerConeAngle <= pi/2 (defaults 0
 *   and pi/4). A node's extensions.KHR_lights_punctual.light is an index into
 *   them.
 *
 * Instancing (EXT_mesh_gpu_instancing)
 *   A node with a mesh may hold extensions.EXT_mesh_gpu_instancing.attributes
 *   with TRANSLATION (VEC3), ROTATION (VEC4) and SCALE (VEC3) accessors, at
 *   least one, all of the same count. TRANSLATION and SCALE are FLOAT (or,
 *   under KHR_mesh_quantization, BYTE/SHORT and their unsigned forms,
 *   normalized or not); ROTATION is FLOAT or normalized BYTE/SHORT. Each
 *   instance's TRS is relative to the node (world = node world * instance);
 *   missing attributes take the identity. Custom attributes (`_NAME`) are not
 *   cooked: a warning names them.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/gltf_internal.h"

#define HALF_PI 1.57079632679489661923

/* ---------------------------------------------------------------------------
 * Cameras
 * ------------------------------------------------------------------------- */

static bool import_camera(gltf *g, size_t c, ir_camera *out) {
    const json_t *obj = gltf_element(g, g->j_cameras, "cameras", c);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE], path[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "cameras[%zu]", c);
    const char *type;
    if (!gltf_check_object(g, obj, jpath) || !gltf_get_string(g, obj, jpath, "type", true, &type))
        return false;
    bool perspective = strcmp(type, "perspective") == 0;
    if (!perspective && strcmp(type, "orthographic") != 0) {
        gltf_error(g, "%s.type: '%.32s' is neither perspective nor orthographic", jpath, type);
        return false;
    }
    const char *other = perspective ? "orthographic" : "perspective";
    if (json_object_get(obj, other) != NULL) {
        gltf_error(g, "%s.%s: the camera's type is %s; it must hold only a '%s' object", jpath,
                   other, type, type);
        return false;
    }
    const json_t *params;
    if (!gltf_get_object(g, obj, jpath, type, true, &params))
        return false;
    gltf_pathf(path, "%s.%s", jpath, type);
    double yfov = 0, aspect = 0, xmag = 0, ymag = 0, znear = 0, zfar = 0;
    if (perspective) {
        out->type = IR_CAMERA_PERSPECTIVE;
        if (!gltf_get_number(g, params, path, "yfov", true, DBL_MIN, FLT_MAX, &yfov) ||
            !gltf_get_number(g, params, path, "znear", true, DBL_MIN, FLT_MAX, &znear) ||
            !gltf_get_number(g, params, path, "zfar", false, DBL_MIN, FLT_MAX, &zfar) ||
            !gltf_get_number(g, params, path, "aspectRatio", false, DBL_MIN, FLT_MAX, &aspect))
            return false;
    } else {
        out->type = IR_CAMERA_ORTHOGRAPHIC;
        if (!gltf_get_number(g, params, path, "xmag", true, -FLT_MAX, FLT_MAX, &xmag) ||
            !gltf_get_number(g, params, path, "ymag", true, -FLT_MAX, FLT_MAX, &ymag) ||
            !gltf_get_number(g, params, path, "znear", true, 0, FLT_MAX, &znear) ||
            !gltf_get_number(g, params, path, "zfar", true, DBL_MIN, FLT_MAX, &zfar))
            return false;
        if ((float)xmag == 0.0f || (float)ymag == 0.0f) {
            gltf_error(g, "%s.%s: must not be 0", path, (float)xmag == 0.0f ? "xmag" : "ymag");
            return false;
        }
        if (xmag < 0 || ymag < 0)
            gltf_warning(g, "%s: xmag %g, ymag %g: a negative magnification mirrors the view", path,
                         xmag, ymag);
    }
    bool has_far = json_object_get(params, "zfar") != NULL;
    /* Compared as stored: a zfar that rounds onto znear is as bad as an equal one. */
    if (has_far && !((float)zfar > (float)znear)) {
        gltf_error(g, "%s: zfar %g must be greater than znear %g", path, zfar, znear);
        return false;
    }
    if (perspective &&
        !((float)yfov > 0.0f && (float)znear > 0.0f && (aspect == 0 || (float)aspect > 0.0f))) {
        gltf_error(g, "%s: yfov %g, znear %g or aspectRatio %g is too small to store", path, yfov,
                   znear, aspect);
        return false;
    }
    out->yfov = (float)yfov;
    out->aspect = (float)aspect;
    out->xmag = (float)xmag;
    out->ymag = (float)ymag;
    out->znear = (float)znear;
    out->zfar = has_far ? (float)zfar : 0.0f;
    out->name = gltf_name(g, obj, "camera", c);
    return out->name != NULL || gltf_out_of_memory(g);
}

bool gltf_import_cameras(gltf *g, ir_asset *out) {
    if (g->n_cameras == 0)
        return true;
    if (g->n_cameras > INT32_MAX) {
        gltf_error(g, "cameras: too many cameras");
        return false;
    }
    out->cameras = calloc(g->n_cameras, sizeof *out->cameras);
    if (out->cameras == NULL)
        return gltf_out_of_memory(g);
    out->camera_count = (uint32_t)g->n_cameras;
    bool ok = true;
    for (size_t c = 0; c < g->n_cameras && !g->stopped; c++)
        ok = import_camera(g, c, &out->cameras[c]) && ok;
    return ok && !g->stopped;
}

/* ---------------------------------------------------------------------------
 * Lights
 * ------------------------------------------------------------------------- */

static const json_t *light_list(const gltf *g) {
    const json_t *ext = gltf_extension(g->root, "KHR_lights_punctual");
    return ext != NULL ? json_object_get(ext, "lights") : NULL;
}

static bool import_light(gltf *g, const json_t *lights, size_t i, ir_light *out) {
    char jpath[GLTF_PATH_SIZE], spath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "extensions.KHR_lights_punctual.lights[%zu]", i);
    const json_t *obj = json_array_get(lights, i);
    if (!json_is_object(obj)) {
        gltf_error_always(g, "%s: expected an object, found %s", jpath, gltf_json_type_name(obj));
        return false;
    }
    const char *type;
    const json_t *spot;
    double intensity = 1, range = 0;
    out->color[0] = out->color[1] = out->color[2] = 1.0f;
    if (!gltf_check_object(g, obj, jpath) || !gltf_get_string(g, obj, jpath, "type", true, &type) ||
        !gltf_get_floats(g, obj, jpath, "color", 3, 0.0, 1.0, out->color) ||
        !gltf_get_number(g, obj, jpath, "intensity", false, 0, FLT_MAX, &intensity) ||
        !gltf_get_number(g, obj, jpath, "range", false, DBL_MIN, FLT_MAX, &range) ||
        !gltf_get_object(g, obj, jpath, "spot", false, &spot))
        return false;
    if (strcmp(type, "directional") == 0) {
        out->type = IR_LIGHT_DIRECTIONAL;
    } else if (strcmp(type, "point") == 0) {
        out->type = IR_LIGHT_POINT;
    } else if (strcmp(type, "spot") == 0) {
        out->type = IR_LIGHT_SPOT;
    } else {
        gltf_error(g, "%s.type: '%.32s' is not directional, point or spot", jpath, type);
        return false;
    }
    if (json_object_get(obj, "range") != NULL && !((float)range > 0.0f)) {
        gltf_error(g, "%s.range: %g is too small to store", jpath, range);
        return false;
    }
    if (out->type == IR_LIGHT_SPOT) {
        double inner = 0, outer = HALF_PI / 2;
        gltf_pathf(spath, "%s.spot", jpath);
        if (spot == NULL) {
            gltf_error(g, "%s.spot: a spot light needs a 'spot' object", jpath);
            return false;
        }
        if (!gltf_check_object(g, spot, spath) ||
            !gltf_get_number(g, spot, spath, "innerConeAngle", false, 0, HALF_PI, &inner) ||
            !gltf_get_number(g, spot, spath, "outerConeAngle", false, 0, HALF_PI, &outer))
            return false;
        if (!((float)inner < (float)outer)) {
            gltf_error(g, "%s: innerConeAngle %g must be less than outerConeAngle %g", spath, inner,
                       outer);
            return false;
        }
        out->inner_cone = (float)inner;
        out->outer_cone = (float)outer;
    } else if (spot != NULL) {
        gltf_error(g, "%s.spot: only a spot light has a 'spot' object (this one is %s)", jpath,
                   type);
        return false;
    }
    out->intensity = (float)intensity;
    out->range = (float)range;
    out->name = gltf_name(g, obj, "light", i);
    return out->name != NULL || gltf_out_of_memory(g);
}

bool gltf_import_lights(gltf *g, ir_asset *out) {
    const json_t *ext = gltf_extension(g->root, "KHR_lights_punctual");
    if (ext == NULL)
        return true;
    const json_t *lights;
    if (!gltf_get_array(g, ext, "extensions.KHR_lights_punctual", "lights", true, &lights))
        return false;
    size_t n = json_array_size(lights);
    if (n == 0)
        return true;
    if (n > INT32_MAX) {
        gltf_error(g, "extensions.KHR_lights_punctual.lights: too many lights");
        return false;
    }
    out->lights = calloc(n, sizeof *out->lights);
    if (out->lights == NULL)
        return gltf_out_of_memory(g);
    out->light_count = (uint32_t)n;
    bool ok = true;
    for (size_t i = 0; i < n && !g->stopped; i++)
        ok = import_light(g, lights, i, &out->lights[i]) && ok;
    return ok && !g->stopped;
}

/* ---------------------------------------------------------------------------
 * Instancing
 * ------------------------------------------------------------------------- */

enum { INST_TRANSLATION, INST_ROTATION, INST_SCALE, INST_COUNT };

static bool instance_format_ok(const gltf *g, const gltf_accessor *a, int which) {
    uint32_t ct = a->component_type;
    if (strcmp(a->type, which == INST_ROTATION ? "VEC4" : "VEC3") != 0)
        return false;
    if (ct == GLTF_FLOAT)
        return true;
    if (which == INST_ROTATION)
        return a->normalized && (ct == GLTF_BYTE || ct == GLTF_SHORT);
    return g->ext_quantization && (ct == GLTF_BYTE || ct == GLTF_UNSIGNED_BYTE ||
                                   ct == GLTF_SHORT || ct == GLTF_UNSIGNED_SHORT);
}

/* Reads node `i`'s instances (glTF node `source`) and appends them. */
static bool import_instances(gltf *g, const json_t *ext, size_t source, ir_node *node,
                             bytebuf *instances) {
    static const char *const names[INST_COUNT] = {"TRANSLATION", "ROTATION", "SCALE"};
    static const char *const expected[INST_COUNT] = {
        "VEC3 FLOAT (or a KHR_mesh_quantization integer type)",
        "VEC4 FLOAT or normalized BYTE or SHORT",
        "VEC3 FLOAT (or a KHR_mesh_quantization integer type)"};
    char jpath[GLTF_PATH_SIZE], apath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "nodes[%zu].extensions.EXT_mesh_gpu_instancing", source);
    gltf_pathf(apath, "%s.attributes", jpath);
    const json_t *attributes;
    if (!gltf_get_object(g, ext, jpath, "attributes", true, &attributes))
        return false;
    if (node->mesh < 0 && json_object_get(json_array_get(g->j_nodes, source), "mesh") == NULL) {
        gltf_error(g, "%s: a node with instances needs a mesh", jpath);
        return false;
    }
    int64_t accessor[INST_COUNT] = {-1, -1, -1};
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)attributes, key, value) {
        int which = -1;
        for (int k = 0; k < INST_COUNT; k++)
            if (strcmp(key, names[k]) == 0)
                which = k;
        if (which < 0 && key[0] == '_') {
            gltf_warning(g, "%s.%.64s: custom instance attribute not cooked", apath, key);
            continue;
        }
        if (which < 0) {
            gltf_error(g, "%s.%.64s: not TRANSLATION, ROTATION, SCALE or a custom _NAME", apath,
                       key);
            return false;
        }
        char path[GLTF_PATH_SIZE];
        gltf_pathf(path, "%s.%s", apath, key);
        if (!gltf_index_value(g, value, path, "accessor", g->n_accessors, &accessor[which]) ||
            !gltf_accessor_valid(g, (uint32_t)accessor[which]) ||
            !gltf_use_accessor_view(g, (uint32_t)accessor[which], GLTF_USE_VERTEX, path))
            return false;
        const gltf_accessor *a = &g->accessors[accessor[which]];
        if (!instance_format_ok(g, a, which)) {
            gltf_error(g, "%s: accessor %lld is %s %s%s; %s must be %s", path,
                       (long long)accessor[which], a->type, a->normalized ? "normalized " : "",
                       gltf_component_name(a->component_type), key, expected[which]);
            return false;
        }
    }
    uint32_t count = 0;
    int first = -1;
    for (int k = 0; k < INST_COUNT; k++) {
        if (accessor[k] < 0)
            continue;
        uint32_t n = g->accessors[accessor[k]].count;
        if (first < 0) {
            first = k;
            count = n;
        } else if (n != count) {
            gltf_error(g,
                       "%s.%s: accessor %lld has %u elements, but %s has %u; every instance "
                       "attribute needs the same count",
                       apath, names[k], (long long)accessor[k], n, names[first], count);
            return false;
        }
    }
    if (first < 0) {
        gltf_error(g, "%s: needs at least one of TRANSLATION, ROTATION and SCALE", apath);
        return false;
    }
    if ((uint64_t)instances->size / sizeof(ir_instance) + count > INT32_MAX) {
        gltf_error(g, "%s: too many instances", apath);
        return false;
    }
    float *values[INST_COUNT] = {NULL, NULL, NULL};
    bool ok = true;
    for (int k = 0; k < INST_COUNT && ok; k++) {
        char path[GLTF_PATH_SIZE];
        gltf_pathf(path, "%s.%s", apath, names[k]);
        if (accessor[k] >= 0)
            ok = gltf_read_floats(g, (uint32_t)accessor[k], path, &values[k]);
    }
    node->instance_offset = (uint32_t)(instances->size / sizeof(ir_instance));
    node->instance_count = ok ? count : 0;
    for (uint32_t e = 0; ok && e < count; e++) {
        ir_instance inst = {.rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}};
        if (values[INST_TRANSLATION] != NULL)
            memcpy(inst.translation, values[INST_TRANSLATION] + 3 * (size_t)e, 12);
        if (values[INST_ROTATION] != NULL)
            memcpy(inst.rotation, values[INST_ROTATION] + 4 * (size_t)e, 16);
        if (values[INST_SCALE] != NULL)
            memcpy(inst.scale, values[INST_SCALE] + 3 * (size_t)e, 12);
        const float *q = inst.rotation;
        float length = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (fabsf(length - 1.0f) > 0.01f) {
            gltf_error(g, "%s.ROTATION: instance %u is not a unit quaternion (length %g)", apath, e,
                       (double)length);
            ok = false;
            break;
        }
        for (int k = 0; k < 4; k++)
            inst.rotation[k] = q[k] / length;
        bytebuf_append(instances, &inst, sizeof inst);
    }
    for (int k = 0; k < INST_COUNT; k++)
        free(values[k]);
    return ok && (!instances->failed || gltf_out_of_memory(g));
}

/* After gltf_import_nodes, cameras and lights: each IR node's camera, light
 * and instances, read from its glTF node (ir_node.source). */
bool gltf_import_node_objects(gltf *g, ir_asset *out) {
    const json_t *lights = light_list(g);
    size_t light_count = json_array_size(lights);
    bytebuf instances = {0};
    bool ok = true;
    for (uint32_t k = 0; k < out->node_count && !g->stopped; k++) {
        ir_node *node = &out->nodes[k];
        size_t source = (size_t)node->source;
        const json_t *obj = json_array_get(g->j_nodes, source);
        char jpath[GLTF_PATH_SIZE];
        gltf_pathf(jpath, "nodes[%zu]", source);
        const json_t *camera = json_object_get(obj, "camera");
        if (json_is_integer(camera)) /* gltf_import_nodes checked the index */
            node->camera = (int32_t)json_integer_value(camera);
        const json_t *light = gltf_extension(obj, "KHR_lights_punctual");
        if (light != NULL) {
            char lpath[GLTF_PATH_SIZE];
            gltf_pathf(lpath, "%s.extensions.KHR_lights_punctual", jpath);
            int64_t index;
            if (gltf_get_index(g, light, lpath, "light", true, "light", light_count, &index))
                node->light = (int32_t)index;
            else
                ok = false;
        }
        const json_t *inst = gltf_extension(obj, "EXT_mesh_gpu_instancing");
        if (inst != NULL)
            ok = import_instances(g, inst, source, node, &instances) && ok;
    }
    if (ok && !g->stopped && instances.size > 0) {
        out->instances = (ir_instance *)(void *)instances.data;
        out->instance_count = (uint32_t)(instances.size / sizeof(ir_instance));
        instances.data = NULL;
    }
    bytebuf_free(&instances);
    return ok && !g->stopped;
}
