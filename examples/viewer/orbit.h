/*
 * orbit.h — kiln-view's orbit camera: it circles a target point at a
 * distance, turned by a yaw about +Y and a pitch above the XZ plane. Yaw and
 * pitch 0 is the automatic camera of docs/viewer.md (looking down -Z with +Y
 * up), and orbit_frame places target and distance exactly as that camera
 * does, so the headless image and the window's first frame agree.
 */
#ifndef KILN_VIEW_ORBIT_H
#define KILN_VIEW_ORBIT_H

#include <stdint.h>

#include "draw_list.h"

#define CAMERA_VERTICAL_FOV 0.78539816f /* 45 degrees */
#define ORBIT_RADIANS_PER_PIXEL 0.01f
#define ORBIT_MAX_PITCH 1.5533430f /* 89 degrees: never straight down the up axis */
#define ORBIT_ZOOM_STEP 0.9f       /* the distance's factor per wheel step in */

typedef struct orbit {
    float target[3];
    float distance; /* from the target to the eye */
    float yaw;      /* radians about +Y; 0: the eye on the target's +Z side */
    float pitch;    /* radians above the XZ plane, within +-ORBIT_MAX_PITCH */
    float radius;   /* of the framed bounding sphere: the depth range and zoom limits */
} orbit;

typedef struct camera {
    float view_proj[16];
    float position[3];
} camera;

/* Aims at the centre of `list`'s bounds from the distance at which their
 * bounding sphere fits the narrower field of view of a width x height
 * image; yaw and pitch are kept (orbit_reset zeroes them first). */
void orbit_frame(orbit *o, const draw_list *list, uint32_t width, uint32_t height);
void orbit_reset(orbit *o, const draw_list *list, uint32_t width, uint32_t height);

/* Sets yaw and pitch (radians; pitch kept within +-ORBIT_MAX_PITCH). */
void orbit_turn_to(orbit *o, float yaw, float pitch);

/* A mouse drag of (dx, dy) pixels (y down): right turns the scene right
 * (the eye goes left), down tilts the eye up over it. */
void orbit_drag(orbit *o, float dx, float dy);

/* `steps` wheel steps (positive: in): the distance times ORBIT_ZOOM_STEP per
 * step, kept between 1/100 and 100 times the framed radius. */
void orbit_zoom(orbit *o, float steps);

/* The eye's position. */
void orbit_eye(const orbit *o, float eye[3]);

/* The camera: a 45-degree vertical field of view and the image's aspect,
 * depth from half the distance to the sphere's front to 1.5 times the
 * distance to its back (Vulkan clip space). */
void orbit_camera(const orbit *o, uint32_t width, uint32_t height, camera *out);

#endif
