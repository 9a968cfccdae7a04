/*
 * orbit.c — the orbit camera (orbit.h).
 */
#include "orbit.h"

#include <math.h>

#include "kiln/kiln.h"

void orbit_frame(orbit *o, const draw_list *list, uint32_t width, uint32_t height) {
    float center[3] = {0, 0, 0}, radius = 1.0f;
    if (list->count > 0) {
        float squared = 0.0f;
        for (int axis = 0; axis < 3; axis++) {
            center[axis] = 0.5f * (list->bounds_min[axis] + list->bounds_max[axis]);
            float half = 0.5f * (list->bounds_max[axis] - list->bounds_min[axis]);
            squared += half * half;
        }
        radius = squared > 0.0f ? sqrtf(squared) : 1.0f;
    }
    float aspect = (float)width / (float)height;
    float half_v = 0.5f * CAMERA_VERTICAL_FOV;
    float half_h = atanf(tanf(half_v) * aspect);
    for (int axis = 0; axis < 3; axis++)
        o->target[axis] = center[axis];
    o->radius = radius;
    o->distance = radius / sinf(fminf(half_v, half_h));
}

void orbit_reset(orbit *o, const draw_list *list, uint32_t width, uint32_t height) {
    o->yaw = 0.0f;
    o->pitch = 0.0f;
    orbit_frame(o, list, width, height);
}

void orbit_turn_to(orbit *o, float yaw, float pitch) {
    const float turn = 6.28318531f;
    o->yaw = fmodf(yaw, turn);
    o->pitch = fmaxf(-ORBIT_MAX_PITCH, fminf(ORBIT_MAX_PITCH, pitch));
}

void orbit_drag(orbit *o, float dx, float dy) {
    orbit_turn_to(o, o->yaw - dx * ORBIT_RADIANS_PER_PIXEL,
                  o->pitch + dy * ORBIT_RADIANS_PER_PIXEL);
}

void orbit_zoom(orbit *o, float steps) {
    float distance = o->distance * powf(ORBIT_ZOOM_STEP, steps);
    o->distance = fmaxf(o->radius * 0.01f, fminf(o->radius * 100.0f, distance));
}

void orbit_eye(const orbit *o, float eye[3]) {
    float flat = cosf(o->pitch);
    eye[0] = o->target[0] + o->distance * flat * sinf(o->yaw);
    eye[1] = o->target[1] + o->distance * sinf(o->pitch);
    eye[2] = o->target[2] + o->distance * flat * cosf(o->yaw);
}

void orbit_camera(const orbit *o, uint32_t width, uint32_t height, camera *out) {
    float aspect = (float)width / (float)height;
    kiln_scene_camera lens = {.type = KILN_CAMERA_PERSPECTIVE,
                              .yfov = CAMERA_VERTICAL_FOV,
                              .aspect = aspect,
                              .znear = fmaxf(o->distance - o->radius, o->distance * 1e-3f) * 0.5f,
                              .zfar = (o->distance + o->radius) * 1.5f};
    float projection[16];
    kiln_error err;
    kiln_camera_projection(&lens, aspect, KILN_PROJECTION_VULKAN, projection, &err);
    orbit_eye(o, out->position);
    /* Look-at with +Y up: rows right, up, back (the eye's direction from the
     * target); at yaw and pitch 0 the rotation is the identity. */
    float back[3] = {cosf(o->pitch) * sinf(o->yaw), sinf(o->pitch), cosf(o->pitch) * cosf(o->yaw)};
    float right[3] = {back[2], 0.0f, -back[0]}; /* up x back, normalised below */
    float length = sqrtf(right[0] * right[0] + right[2] * right[2]);
    right[0] /= length;
    right[2] /= length;
    float up[3] = {back[1] * right[2] - back[2] * right[1], back[2] * right[0] - back[0] * right[2],
                   back[0] * right[1] - back[1] * right[0]};
    float view[16] = {0};
    for (int column = 0; column < 3; column++) {
        view[4 * column + 0] = right[column];
        view[4 * column + 1] = up[column];
        view[4 * column + 2] = back[column];
    }
    const float *eye = out->position;
    view[12] = -(right[0] * eye[0] + right[1] * eye[1] + right[2] * eye[2]);
    view[13] = -(up[0] * eye[0] + up[1] * eye[1] + up[2] * eye[2]);
    view[14] = -(back[0] * eye[0] + back[1] * eye[1] + back[2] * eye[2]);
    view[15] = 1.0f;
    mat4_multiply(projection, view, out->view_proj);
}
