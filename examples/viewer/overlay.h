/*
 * overlay.h — what kiln-view draws over a rendered frame, on the CPU, into
 * its RGBA8 sRGB rows: lines, the outline of a sphere as the camera sees it
 * (--meshlet-bounds: each meshlet's bounding sphere) and text in an 8x8
 * bitmap font (the window's clip list). Drawn after the frame, so over
 * everything, in the headless image and the window alike.
 */
#ifndef KILN_VIEW_OVERLAY_H
#define KILN_VIEW_OVERLAY_H

#include <stdint.h>

#include "orbit.h"

typedef struct overlay_image {
    uint8_t *pixels; /* 4 * width * height bytes, rows top to bottom */
    uint32_t width, height;
} overlay_image;

/* A one-pixel line between two points in pixels (clipped to the image). */
void overlay_line(const overlay_image *image, float x0, float y0, float x1, float y1,
                  const uint8_t rgba[4]);

/* Where world point p lands in the image, in pixels; false behind the eye. */
bool overlay_project(const overlay_image *image, const camera *cam, const float p[3], float *x,
                     float *y);

/* The sphere's outline as `cam` sees it: the circle where the rays from the
 * eye touch it, drawn as OVERLAY_SPHERE_SEGMENTS lines. Nothing when the
 * eye is inside it or part of the outline is behind the eye. */
#define OVERLAY_SPHERE_SEGMENTS 48
void overlay_sphere(const overlay_image *image, const camera *cam, const float center[3],
                    float radius, const uint8_t rgba[4]);

/* Text at (x, y), its top left, each font pixel `scale` pixels square, over
 * a `background` box when not NULL. Lowercase letters are drawn as capitals,
 * other bytes outside ' '..'_' as '?'. */
#define OVERLAY_GLYPH 8
void overlay_text(const overlay_image *image, int x, int y, int scale, const char *text,
                  const uint8_t rgba[4], const uint8_t *background);

/* The 8 rows of character c's glyph (bit 7 the leftmost column). */
const uint8_t *overlay_glyph(char c);

#endif
