/* bounds.c — axis-aligned box and bounding sphere of indexed vertices. */
#include <math.h>
#include <stdlib.h>

#include "cook/core/core.h"
#include "cook/core/parallel.h"

void geometry_aabb(const float *positions, const uint32_t *indices, uint32_t index_count,
                   float aabb_min[3], float aabb_max[3]) {
    if (index_count == 0) {
        for (int k = 0; k < 3; k++)
            aabb_min[k] = aabb_max[k] = 0.0f;
        return;
    }
    for (int k = 0; k < 3; k++) {
        aabb_min[k] = INFINITY;
        aabb_max[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < index_count; i++) {
        const float *p = positions + 3 * (size_t)indices[i];
        /* Plain comparisons, not fminf/fmaxf: those are libm calls here
         * (NaN rules); a NaN coordinate is skipped by both forms alike. */
        for (int k = 0; k < 3; k++) {
            aabb_min[k] = p[k] < aabb_min[k] ? p[k] : aabb_min[k];
            aabb_max[k] = p[k] > aabb_max[k] ? p[k] : aabb_max[k];
        }
    }
}

/* The largest squared distance from `centre` to a vertex of indices[0..count). */
static double farthest_squared(const float *positions, const uint32_t *indices, uint32_t count,
                               const double centre[3]) {
    double radius_squared = 0.0;
    for (uint32_t i = 0; i < count; i++) {
        const float *p = positions + 3 * (size_t)indices[i];
        double dx = p[0] - centre[0], dy = p[1] - centre[1], dz = p[2] - centre[2];
        double d = dx * dx + dy * dy + dz * dz;
        if (d > radius_squared)
            radius_squared = d;
    }
    return radius_squared;
}

/* Sphere around the box centre: not minimal, but cheap, stable and
 * deterministic, and never tighter than the true extent. */
static void box_centre(const float aabb_min[3], const float aabb_max[3], double centre[3]) {
    for (int k = 0; k < 3; k++)
        centre[k] = 0.5 * ((double)aabb_min[k] + (double)aabb_max[k]);
}

static void finish_sphere(const double centre[3], double radius_squared, float sphere[4]) {
    for (int k = 0; k < 3; k++)
        sphere[k] = (float)centre[k];
    /* Round the radius up so float rounding never leaves a vertex outside. */
    sphere[3] = nextafterf((float)sqrt(radius_squared), INFINITY);
}

void geometry_bounds(const float *positions, const uint32_t *indices, uint32_t index_count,
                     float aabb_min[3], float aabb_max[3], float sphere[4]) {
    geometry_aabb(positions, indices, index_count, aabb_min, aabb_max);
    if (index_count == 0) {
        for (int k = 0; k < 4; k++)
            sphere[k] = 0.0f;
        return;
    }
    double centre[3];
    box_centre(aabb_min, aabb_max, centre);
    finish_sphere(centre, farthest_squared(positions, indices, index_count, centre), sphere);
}

/* Indices per item of geometry_bounds_on: a cut that does not depend on the
 * thread count (minima and maxima do not depend on it either). */
#define BOUNDS_RANGE 262144u

typedef struct bounds_job {
    const float *positions;
    const uint32_t *indices;
    uint32_t index_count;
    float (*boxes)[6]; /* per item: min xyz, max xyz */
    double *farthest;  /* per item, once `centre` is set */
    double centre[3];
} bounds_job;

static uint32_t range_count(const bounds_job *job, uint32_t item) {
    uint32_t left = job->index_count - item * BOUNDS_RANGE;
    return left < BOUNDS_RANGE ? left : BOUNDS_RANGE;
}

static void box_item(void *job_, uint32_t item) {
    bounds_job *job = job_;
    geometry_aabb(job->positions, job->indices + (size_t)item * BOUNDS_RANGE,
                  range_count(job, item), job->boxes[item], job->boxes[item] + 3);
}

static void farthest_item(void *job_, uint32_t item) {
    bounds_job *job = job_;
    job->farthest[item] =
        farthest_squared(job->positions, job->indices + (size_t)item * BOUNDS_RANGE,
                         range_count(job, item), job->centre);
}

void geometry_bounds_on(unsigned threads, const float *positions, const uint32_t *indices,
                        uint32_t index_count, float aabb_min[3], float aabb_max[3],
                        float sphere[4]) {
    uint32_t items = (uint32_t)(((uint64_t)index_count + BOUNDS_RANGE - 1) / BOUNDS_RANGE);
    bounds_job job = {positions, indices, index_count, NULL, NULL, {0.0, 0.0, 0.0}};
    if (threads > 1 && items > 1) {
        job.boxes = malloc(items * sizeof *job.boxes);
        job.farthest = malloc(items * sizeof *job.farthest);
    }
    if (job.boxes == NULL || job.farthest == NULL) { /* small, one thread, or no memory */
        free(job.boxes);
        free(job.farthest);
        geometry_bounds(positions, indices, index_count, aabb_min, aabb_max, sphere);
        return;
    }
    parallel_for(threads, items, box_item, &job);
    /* The items' boxes joined with geometry_aabb's comparisons: the box it
     * gives in one pass. */
    for (int k = 0; k < 3; k++) {
        aabb_min[k] = INFINITY;
        aabb_max[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < items; i++)
        for (int k = 0; k < 3; k++) {
            aabb_min[k] = job.boxes[i][k] < aabb_min[k] ? job.boxes[i][k] : aabb_min[k];
            aabb_max[k] = job.boxes[i][3 + k] > aabb_max[k] ? job.boxes[i][3 + k] : aabb_max[k];
        }
    box_centre(aabb_min, aabb_max, job.centre);
    parallel_for(threads, items, farthest_item, &job);
    double radius_squared = 0.0;
    for (uint32_t i = 0; i < items; i++)
        radius_squared = job.farthest[i] > radius_squared ? job.farthest[i] : radius_squared;
    finish_sphere(job.centre, radius_squared, sphere);
    free(job.boxes);
    free(job.farthest);
}
