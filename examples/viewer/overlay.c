/*
 * overlay.c — lines, sphere outlines and text over a frame (overlay.h).
 */
#include "overlay.h"

#include <math.h>
#include <string.h>

static void put(const overlay_image *image, int x, int y, const uint8_t rgba[4]) {
    if (x < 0 || y < 0 || (uint32_t)x >= image->width || (uint32_t)y >= image->height)
        return;
    memcpy(image->pixels + 4 * ((size_t)y * image->width + (size_t)x), rgba, 4);
}

void overlay_line(const overlay_image *image, float x0, float y0, float x1, float y1,
                  const uint8_t rgba[4]) {
    float dx = x1 - x0, dy = y1 - y0;
    float longest = fmaxf(fabsf(dx), fabsf(dy));
    /* A line far outside the image (a point near the eye's plane) is not
     * walked pixel by pixel. */
    float limit = 4.0f * (float)(image->width + image->height);
    if (!(longest < limit) || fabsf(x0) > limit || fabsf(y0) > limit)
        return;
    int steps = (int)ceilf(longest);
    for (int i = 0; i <= steps; i++) {
        float t = steps > 0 ? (float)i / (float)steps : 0.0f;
        put(image, (int)floorf(x0 + t * dx), (int)floorf(y0 + t * dy), rgba);
    }
}

bool overlay_project(const overlay_image *image, const camera *cam, const float p[3], float *x,
                     float *y) {
    const float *m = cam->view_proj; /* column-major */
    float clip[4];
    for (int row = 0; row < 4; row++)
        clip[row] = m[row] * p[0] + m[4 + row] * p[1] + m[8 + row] * p[2] + m[12 + row];
    if (!(clip[3] > 1e-6f))
        return false;
    /* Vulkan's clip space: y points down the image. */
    *x = (clip[0] / clip[3] + 1.0f) * 0.5f * (float)image->width;
    *y = (clip[1] / clip[3] + 1.0f) * 0.5f * (float)image->height;
    return true;
}

static float length3(const float v[3]) {
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

void overlay_sphere(const overlay_image *image, const camera *cam, const float center[3],
                    float radius, const uint8_t rgba[4]) {
    float to_center[3] = {center[0] - cam->position[0], center[1] - cam->position[1],
                          center[2] - cam->position[2]};
    float d = length3(to_center);
    if (!(d > radius) || !(radius > 0.0f))
        return;
    float u[3] = {to_center[0] / d, to_center[1] / d, to_center[2] / d};
    /* The circle of contact: centred r^2/d before the centre, radius r*sqrt(d^2-r^2)/d. */
    float ring_center[3], ring_radius = radius * sqrtf(d * d - radius * radius) / d;
    for (int k = 0; k < 3; k++)
        ring_center[k] = center[k] - u[k] * radius * radius / d;
    /* Two axes across u: the world axis least along u, crossed with it. */
    float helper[3] = {0, 0, 0};
    int least = fabsf(u[0]) < fabsf(u[1]) ? (fabsf(u[0]) < fabsf(u[2]) ? 0 : 2)
                                          : (fabsf(u[1]) < fabsf(u[2]) ? 1 : 2);
    helper[least] = 1.0f;
    float a[3] = {u[1] * helper[2] - u[2] * helper[1], u[2] * helper[0] - u[0] * helper[2],
                  u[0] * helper[1] - u[1] * helper[0]};
    float a_length = length3(a);
    for (int k = 0; k < 3; k++)
        a[k] /= a_length;
    float b[3] = {u[1] * a[2] - u[2] * a[1], u[2] * a[0] - u[0] * a[2], u[0] * a[1] - u[1] * a[0]};
    float xs[OVERLAY_SPHERE_SEGMENTS], ys[OVERLAY_SPHERE_SEGMENTS];
    for (int i = 0; i < OVERLAY_SPHERE_SEGMENTS; i++) {
        float angle = 2.0f * 3.14159265f * (float)i / OVERLAY_SPHERE_SEGMENTS;
        float c = cosf(angle) * ring_radius, s = sinf(angle) * ring_radius;
        float p[3];
        for (int k = 0; k < 3; k++)
            p[k] = ring_center[k] + c * a[k] + s * b[k];
        if (!overlay_project(image, cam, p, &xs[i], &ys[i]))
            return;
    }
    for (int i = 0; i < OVERLAY_SPHERE_SEGMENTS; i++) {
        int next = (i + 1) % OVERLAY_SPHERE_SEGMENTS;
        overlay_line(image, xs[i], ys[i], xs[next], ys[next], rgba);
    }
}

void overlay_text(const overlay_image *image, int x, int y, int scale, const char *text,
                  const uint8_t rgba[4], const uint8_t *background) {
    size_t length = strlen(text);
    for (size_t i = 0; i < length; i++) {
        const uint8_t *glyph = overlay_glyph(text[i]);
        int left = x + (int)i * OVERLAY_GLYPH * scale;
        for (int row = 0; row < OVERLAY_GLYPH * scale; row++)
            for (int column = 0; column < OVERLAY_GLYPH * scale; column++) {
                bool on = glyph[row / scale] & (0x80u >> (column / scale));
                if (on)
                    put(image, left + column, y + row, rgba);
                else if (background != NULL)
                    put(image, left + column, y + row, background);
            }
    }
}
