/*
 * assimp_camera.c — aiCameras and aiLights into the IR (assimp_internal.h),
 * each on its node, with a "_frame" child when assimp's position and
 * direction differ from glTF's convention.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/scene.h>

#include "cook/import/assimp_internal.h"

static double length3(const double v[3]) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static void cross3(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The rotation taking -Z to `forward` and +Y towards `up` (any up when it is
 * zero or parallel to forward), as a unit quaternion; false when forward is
 * zero or not finite (then the identity). */
static bool frame_rotation(const struct aiVector3D *forward, const struct aiVector3D *up,
                           double q[4]) {
    q[0] = q[1] = q[2] = 0.0;
    q[3] = 1.0;
    double f[3] = {forward->x, forward->y, forward->z}, u[3] = {up->x, up->y, up->z};
    double fl = length3(f);
    if (!(fl > 1e-12) || !isfinite(fl))
        return false;
    double z[3] = {-f[0] / fl, -f[1] / fl, -f[2] / fl}, x[3], y[3];
    cross3(u, z, x);
    double xl = length3(x);
    if (!(xl > 1e-9 * (length3(u) + 1.0)) || !isfinite(xl)) {
        /* No usable up: any axis not parallel to z. */
        double axis[3] = {0.0, 1.0, 0.0};
        if (fabs(z[1]) > 0.9) {
            axis[1] = 0.0;
            axis[2] = -1.0;
        }
        cross3(axis, z, x);
        xl = length3(x);
    }
    for (int k = 0; k < 3; k++)
        x[k] /= xl;
    cross3(z, x, y);
    const double r[9] = {x[0], x[1], x[2], y[0], y[1], y[2], z[0], z[1], z[2]};
    aimp_quaternion_from_matrix(r, q);
    return true;
}

/* Where camera or light `name` goes: the node of its name, or a new child of
 * it carrying `position` and rotation `q` when those are not the identity.
 * AIMP_NONE (with a warning) when no node has the name. */
static uint32_t frame_node(aimp_state *st, const struct aiString *name, const char *what,
                           const struct aiVector3D *position, const double q[4], bool *oom) {
    *oom = false;
    uint32_t node = aimp_find_node(st, name);
    if (node == AIMP_NONE) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s '%.*s' is on no node of that name; kept in the scene's table but placed "
                     "by no node",
                     what, (int)aimp_string_length(name), name->data);
        return AIMP_NONE;
    }
    const double p[3] = {position->x, position->y, position->z};
    bool finite = isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
    bool moved = finite && (p[0] != 0.0 || p[1] != 0.0 || p[2] != 0.0);
    bool turned = fabs(q[3]) < 1.0 - 1e-7;
    if (!moved && !turned)
        return node;
    ir_asset *out = st->out;
    ir_node *nodes = realloc(out->nodes, ((size_t)out->node_count + 1) * sizeof *nodes);
    if (nodes == NULL) {
        *oom = true;
        return AIMP_NONE;
    }
    out->nodes = nodes;
    ir_node *child = &nodes[out->node_count];
    ir_node_init(child);
    size_t length = aimp_string_length(name);
    child->name = malloc(length + sizeof "_frame");
    if (child->name == NULL) {
        *oom = true;
        return AIMP_NONE;
    }
    memcpy(child->name, name->data, length);
    memcpy(child->name + length, "_frame", sizeof "_frame");
    child->parent = (int32_t)node;
    for (int k = 0; k < 3; k++)
        child->translation[k] = moved ? (float)p[k] : 0.0f;
    for (int k = 0; k < 4; k++)
        child->rotation[k] = (float)q[k];
    kiln_scene_transform t;
    memcpy(t.translation, child->translation, sizeof t.translation);
    memcpy(t.rotation, child->rotation, sizeof t.rotation);
    t.scale[0] = t.scale[1] = t.scale[2] = 1.0f;
    kiln_scene_compose(&t, child->matrix);
    return out->node_count++;
}

/* Puts camera (or light) `index` on the node named `name`, through
 * frame_node. False only on out-of-memory. */
static bool place_object(aimp_state *st, const struct aiString *name, bool camera,
                         const struct aiVector3D *position, const double q[4], uint32_t index,
                         const char *label) {
    const char *what = camera ? "camera" : "light";
    bool oom;
    uint32_t node = frame_node(st, name, what, position, q, &oom);
    if (oom)
        return aimp_out_of_memory(st);
    if (node != AIMP_NONE) {
        ir_node *n = &st->out->nodes[node];
        int32_t *slot = camera ? &n->camera : &n->light;
        if (*slot >= 0)
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: its node already has a %s; this one is placed by no node", label,
                         what);
        else
            *slot = (int32_t)index;
    }
    return true;
}

static bool convert_camera(aimp_state *st, const struct aiCamera *cam, uint32_t index) {
    ir_camera *c = &st->out->cameras[index];
    size_t length = aimp_string_length(&cam->mName);
    char label[64];
    snprintf(label, sizeof label, "camera '%.*s'", (int)(length < 40 ? length : 40),
             cam->mName.data);
    c->name = length > 0 ? aimp_string_dup(&cam->mName) : malloc(32);
    if (c->name == NULL)
        return aimp_out_of_memory(st);
    if (length == 0)
        snprintf(c->name, 32, "camera_%u", index);
    double aspect = isfinite(cam->mAspect) && cam->mAspect > 0 ? cam->mAspect : 0.0;
    double znear = cam->mClipPlaneNear, zfar = cam->mClipPlaneFar;
    if (isfinite(cam->mOrthographicWidth) && cam->mOrthographicWidth > 0) {
        c->type = IR_CAMERA_ORTHOGRAPHIC;
        c->xmag = cam->mOrthographicWidth;
        c->ymag = (float)(aspect > 0 ? cam->mOrthographicWidth / aspect : cam->mOrthographicWidth);
        if (!(isfinite(znear) && znear >= 0)) {
            diag_warning(st->ctx->diag, st->path, 0, "%s: near plane %g replaced by 0", label,
                         znear);
            znear = 0;
        }
        if (!(isfinite(zfar) && (float)zfar > (float)znear)) {
            float near_plane = (float)znear, far_plane = (float)(znear + 1000.0);
            if (!(far_plane > near_plane) || !isfinite(far_plane)) {
                /* A near plane so far that 1000 more rounds to it (or past
                 * FLT_MAX): the next float after it. */
                if (near_plane == FLT_MAX)
                    near_plane = nextafterf(FLT_MAX, 0.0f);
                far_plane = nextafterf(near_plane, INFINITY);
                znear = near_plane;
            }
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: far plane %g is not beyond the near plane; %g used", label, zfar,
                         (double)far_plane);
            zfar = far_plane;
        }
        if (!(c->ymag != 0.0f) || !isfinite(c->ymag))
            c->ymag = c->xmag;
    } else {
        c->type = IR_CAMERA_PERSPECTIVE;
        double half = 0.5 * cam->mHorizontalFOV;
        if (!(isfinite(half) && half > 0 && half < 1.5707963)) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: horizontal field of view %g is out of range; 90 degrees used", label,
                         (double)cam->mHorizontalFOV);
            half = 0.78539816339744831;
        }
        if (aspect > 0) {
            c->yfov = (float)(2.0 * atan(tan(half) / aspect));
            if (!(c->yfov > 0.0f)) { /* a huge aspect: below the smallest float */
                diag_warning(st->ctx->diag, st->path, 0,
                             "%s: aspect ratio %g leaves no vertical field of view; the "
                             "smallest one used",
                             label, aspect);
                c->yfov = FLT_MIN;
            }
        } else {
            c->yfov = (float)(2.0 * half);
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s has no aspect ratio: its horizontal field of view is used as the "
                         "vertical one",
                         label);
        }
        c->aspect = (float)aspect;
        if (!(isfinite(znear) && (float)znear > 0.0f)) {
            diag_warning(st->ctx->diag, st->path, 0, "%s: near plane %g replaced by 0.01", label,
                         znear);
            znear = 0.01;
        }
        if (!(isfinite(zfar) && (float)zfar > (float)znear)) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: far plane %g is not beyond the near plane; infinite used", label,
                         zfar);
            zfar = 0.0;
        }
    }
    c->znear = (float)znear;
    c->zfar = (float)zfar;
    double q[4];
    if (!frame_rotation(&cam->mLookAt, &cam->mUp, q))
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s looks nowhere (lookAt is zero); the node's -Z is used", label);
    return place_object(st, &cam->mName, true, &cam->mPosition, q, index, label);
}

/* Returns false only on out-of-memory; an unmapped light is skipped (*kept
 * false). */
static bool convert_light(aimp_state *st, const struct aiLight *src, uint32_t index, bool *kept) {
    *kept = false;
    size_t length = aimp_string_length(&src->mName);
    char label[64];
    snprintf(label, sizeof label, "light '%.*s'", (int)(length < 40 ? length : 40),
             src->mName.data);
    ir_light *l = &st->out->lights[index];
    switch (src->mType) {
    case aiLightSource_DIRECTIONAL:
        l->type = IR_LIGHT_DIRECTIONAL;
        break;
    case aiLightSource_POINT:
        l->type = IR_LIGHT_POINT;
        break;
    case aiLightSource_SPOT:
        l->type = IR_LIGHT_SPOT;
        break;
    default:
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s: %s lights are not cooked (KHR_lights_punctual has directional, point "
                     "and spot lights)",
                     label,
                     src->mType == aiLightSource_AMBIENT ? "ambient"
                     : src->mType == aiLightSource_AREA  ? "area"
                                                         : "undefined");
        return true;
    }
    const double rgb[3] = {src->mColorDiffuse.r, src->mColorDiffuse.g, src->mColorDiffuse.b};
    double intensity = 0;
    for (int k = 0; k < 3; k++)
        if (isfinite(rgb[k]) && rgb[k] > intensity)
            intensity = rgb[k];
    for (int k = 0; k < 3; k++)
        l->color[k] =
            intensity > 0 && isfinite(rgb[k]) && rgb[k] > 0 ? (float)(rgb[k] / intensity) : 0.0f;
    if (intensity == 0)
        l->color[0] = l->color[1] = l->color[2] = 1.0f;
    l->intensity = (float)(intensity < FLT_MAX ? intensity : FLT_MAX);
    const struct aiColor3D *spec = &src->mColorSpecular, *amb = &src->mColorAmbient;
    if ((spec->r != 0 || spec->g != 0 || spec->b != 0) &&
        (spec->r != src->mColorDiffuse.r || spec->g != src->mColorDiffuse.g ||
         spec->b != src->mColorDiffuse.b))
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s: its specular colour (%g %g %g) differs from the diffuse one; not cooked "
                     "(one colour per light)",
                     label, (double)spec->r, (double)spec->g, (double)spec->b);
    if (amb->r != 0 || amb->g != 0 || amb->b != 0)
        diag_warning(st->ctx->diag, st->path, 0, "%s: its ambient colour (%g %g %g) is not cooked",
                     label, (double)amb->r, (double)amb->g, (double)amb->b);
    if (l->type != IR_LIGHT_DIRECTIONAL &&
        (src->mAttenuationConstant != 0 || src->mAttenuationLinear != 0 ||
         src->mAttenuationQuadratic != 1))
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s: attenuation constants (constant %g, linear %g, quadratic %g) are not "
                     "cooked; KHR_lights_punctual lights fall off with the inverse square",
                     label, (double)src->mAttenuationConstant, (double)src->mAttenuationLinear,
                     (double)src->mAttenuationQuadratic);
    if (l->type == IR_LIGHT_SPOT) {
        double outer = src->mAngleOuterCone, inner = src->mAngleInnerCone;
        if (!(isfinite(outer) && outer > 0))
            outer = 0.78539816339744831;
        if (outer > 1.5707963267948966) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "%s: outer cone angle %g is wider than pi/2; pi/2 used", label, outer);
            outer = 1.5707963267948966;
        }
        if (!(isfinite(inner) && inner >= 0))
            inner = 0;
        l->outer_cone = (float)outer;
        l->inner_cone = (float)inner < l->outer_cone ? (float)inner : nextafterf(l->outer_cone, 0);
    }
    l->name = length > 0 ? aimp_string_dup(&src->mName) : malloc(32);
    if (l->name == NULL)
        return aimp_out_of_memory(st);
    if (length == 0)
        snprintf(l->name, 32, "light_%u", index);
    *kept = true;
    double q[4] = {0, 0, 0, 1};
    if (l->type != IR_LIGHT_POINT && !frame_rotation(&src->mDirection, &src->mUp, q))
        diag_warning(st->ctx->diag, st->path, 0,
                     "%s shines nowhere (direction is zero); the node's -Z is used", label);
    return place_object(st, &src->mName, false, &src->mPosition, q, index, label);
}

bool aimp_build_cameras_lights(aimp_state *st) {
    const struct aiScene *scene = st->scene;
    ir_asset *out = st->out;
    unsigned cameras = scene->mCameras != NULL ? scene->mNumCameras : 0;
    unsigned lights = scene->mLights != NULL ? scene->mNumLights : 0;
    if (cameras > AIMP_MAX_NODES || lights > AIMP_MAX_NODES) {
        diag_error(st->ctx->diag, st->path, 0, "%u cameras and %u lights: too many", cameras,
                   lights);
        return false;
    }
    if (cameras > 0) {
        out->cameras = calloc(cameras, sizeof *out->cameras);
        if (out->cameras == NULL)
            return aimp_out_of_memory(st);
    }
    for (unsigned i = 0; i < cameras; i++) {
        if (scene->mCameras[i] == NULL)
            continue;
        out->camera_count = i + 1; /* so ir_asset_free frees the names so far */
        if (!convert_camera(st, scene->mCameras[i], i))
            return false;
    }
    out->camera_count = cameras;
    for (unsigned i = 0; i < cameras; i++) { /* a NULL entry: a plain default camera */
        if (scene->mCameras[i] != NULL)
            continue;
        out->cameras[i] = (ir_camera){.yfov = 1.5707964f, .znear = 0.1f, .zfar = 1000.0f};
        out->cameras[i].name = malloc(32);
        if (out->cameras[i].name == NULL)
            return aimp_out_of_memory(st);
        snprintf(out->cameras[i].name, 32, "camera_%u", i);
    }
    if (lights > 0) {
        out->lights = calloc(lights, sizeof *out->lights);
        if (out->lights == NULL)
            return aimp_out_of_memory(st);
    }
    uint32_t kept_count = 0;
    for (unsigned i = 0; i < lights; i++) {
        bool kept = false;
        out->light_count = kept_count + 1;
        if (scene->mLights[i] != NULL && !convert_light(st, scene->mLights[i], kept_count, &kept))
            return false;
        if (kept) {
            kept_count++;
        } else {
            free(out->lights[kept_count].name);
            memset(&out->lights[kept_count], 0, sizeof out->lights[kept_count]);
        }
        out->light_count = kept_count;
    }
    if (kept_count == 0) {
        free(out->lights);
        out->lights = NULL;
    }
    return true;
}
