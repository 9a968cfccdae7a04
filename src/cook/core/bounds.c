/* bounds.c — axis-aligned box and bounding sphere of indexed vertices. */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
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

/* The boxes of parallel items (min xyz, max xyz each) joined in item order
 * with geometry_aabb's comparisons, which keep the first of equal values:
 * the box one pass in that order gives. */
static void join_boxes(float (*boxes)[6], uint32_t items, float aabb_min[3], float aabb_max[3]) {
    for (int k = 0; k < 3; k++) {
        aabb_min[k] = INFINITY;
        aabb_max[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < items; i++)
        for (int k = 0; k < 3; k++) {
            aabb_min[k] = boxes[i][k] < aabb_min[k] ? boxes[i][k] : aabb_min[k];
            aabb_max[k] = boxes[i][3 + k] > aabb_max[k] ? boxes[i][3 + k] : aabb_max[k];
        }
}

/* The sphere of parallel items, each with its farthest squared distance. */
static void finish_sphere_of_items(const double centre[3], const double *farthest, uint32_t items,
                                   float sphere[4]) {
    double radius_squared = 0.0;
    for (uint32_t i = 0; i < items; i++)
        radius_squared = farthest[i] > radius_squared ? farthest[i] : radius_squared;
    finish_sphere(centre, radius_squared, sphere);
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

/* With at least as many indices as vertices (a mesh's level 0 names each
 * vertex about six times), the bounds go over the vertices the indices use,
 * each once: a byte per vertex marked from the indices, then the box and the
 * farthest distance over the marked vertices in vertex order, two passes
 * over vertex_count positions instead of two gathers through index_count
 * indices. Minima, maxima and a largest distance over a set do not depend on
 * how often or in which order its members come, with one exception: -0.0
 * and +0.0 compare equal, and the index walk keeps the first it meets; that
 * tie is settled by the index walk's rule (first_zero). */
typedef struct marked_job {
    const float *positions;
    const uint32_t *indices;
    uint32_t index_count, vertex_count;
    atomic_uchar *used;  /* per vertex: 1 when an index names it */
    float (*boxes)[6];   /* per vertex range: min xyz, max xyz */
    uint8_t (*zeros)[3]; /* per vertex range and axis: ZERO_POSITIVE | ZERO_NEGATIVE seen */
    double *farthest;    /* per vertex range, once `centre` is set */
    double centre[3];
} marked_job;

enum { ZERO_POSITIVE = 1, ZERO_NEGATIVE = 2 };

static uint32_t part_count(uint32_t total, uint32_t item) {
    uint32_t left = total - item * BOUNDS_RANGE;
    return left < BOUNDS_RANGE ? left : BOUNDS_RANGE;
}

static void mark_item(void *job_, uint32_t item) {
    marked_job *job = job_;
    const uint32_t *indices = job->indices + (size_t)item * BOUNDS_RANGE;
    uint32_t count = part_count(job->index_count, item);
    /* Relaxed stores of the same value from any thread: plain byte stores. */
    for (uint32_t i = 0; i < count; i++)
        if (indices[i] < job->vertex_count) /* never read past the positions */
            atomic_store_explicit(&job->used[indices[i]], 1, memory_order_relaxed);
}

static void marked_box_item(void *job_, uint32_t item) {
    marked_job *job = job_;
    uint32_t first = item * BOUNDS_RANGE, end = first + part_count(job->vertex_count, item);
    float *box = job->boxes[item];
    uint8_t *zeros = job->zeros[item];
    for (int k = 0; k < 3; k++) {
        box[k] = INFINITY;
        box[3 + k] = -INFINITY;
        zeros[k] = 0;
    }
    for (uint32_t v = first; v < end; v++) {
        if (atomic_load_explicit(&job->used[v], memory_order_relaxed) == 0)
            continue;
        const float *p = job->positions + 3 * (size_t)v;
        for (int k = 0; k < 3; k++) {
            box[k] = p[k] < box[k] ? p[k] : box[k];
            box[3 + k] = p[k] > box[3 + k] ? p[k] : box[3 + k];
            if (p[k] == 0.0f)
                zeros[k] |= signbit(p[k]) ? ZERO_NEGATIVE : ZERO_POSITIVE;
        }
    }
}

static void marked_farthest_item(void *job_, uint32_t item) {
    marked_job *job = job_;
    uint32_t first = item * BOUNDS_RANGE, end = first + part_count(job->vertex_count, item);
    double radius_squared = 0.0;
    for (uint32_t v = first; v < end; v++) {
        if (atomic_load_explicit(&job->used[v], memory_order_relaxed) == 0)
            continue;
        const float *p = job->positions + 3 * (size_t)v;
        double dx = p[0] - job->centre[0], dy = p[1] - job->centre[1], dz = p[2] - job->centre[2];
        double d = dx * dx + dy * dy + dz * dz;
        if (d > radius_squared)
            radius_squared = d;
    }
    job->farthest[item] = radius_squared;
}

/* Axis k's coordinate of the first vertex in index order whose coordinate is
 * zero: the zero the index walk keeps as an extreme when both signs occur. */
static float first_zero(const marked_job *job, int k) {
    for (uint32_t i = 0; i < job->index_count; i++) {
        uint32_t v = job->indices[i];
        if (v < job->vertex_count && job->positions[3 * (size_t)v + (size_t)k] == 0.0f)
            return job->positions[3 * (size_t)v + (size_t)k];
    }
    return 0.0f; /* not reached: a zero was seen */
}

static bool marked_bounds(unsigned threads, const float *positions, uint32_t vertex_count,
                          const uint32_t *indices, uint32_t index_count, float aabb_min[3],
                          float aabb_max[3], float sphere[4]) {
    uint32_t index_items = (uint32_t)(((uint64_t)index_count + BOUNDS_RANGE - 1) / BOUNDS_RANGE);
    uint32_t vertex_items = (uint32_t)(((uint64_t)vertex_count + BOUNDS_RANGE - 1) / BOUNDS_RANGE);
    marked_job job = {positions, indices, index_count, vertex_count,   NULL,
                      NULL,      NULL,    NULL,        {0.0, 0.0, 0.0}};
    job.used = calloc(vertex_count, sizeof *job.used);
    job.boxes = malloc(vertex_items * sizeof *job.boxes);
    job.zeros = malloc(vertex_items * sizeof *job.zeros);
    job.farthest = malloc(vertex_items * sizeof *job.farthest);
    bool ok = job.used != NULL && job.boxes != NULL && job.zeros != NULL && job.farthest != NULL;
    if (ok) {
        parallel_for(threads, index_items, mark_item, &job);
        parallel_for(threads, vertex_items, marked_box_item, &job);
        join_boxes(job.boxes, vertex_items, aabb_min, aabb_max);
        uint8_t zeros[3] = {0, 0, 0};
        for (uint32_t i = 0; i < vertex_items; i++)
            for (int k = 0; k < 3; k++)
                zeros[k] |= job.zeros[i][k];
        for (int k = 0; k < 3; k++)
            if (zeros[k] == (ZERO_POSITIVE | ZERO_NEGATIVE) &&
                (aabb_min[k] == 0.0f || aabb_max[k] == 0.0f)) {
                float zero = first_zero(&job, k);
                aabb_min[k] = aabb_min[k] == 0.0f ? zero : aabb_min[k];
                aabb_max[k] = aabb_max[k] == 0.0f ? zero : aabb_max[k];
            }
        box_centre(aabb_min, aabb_max, job.centre);
        parallel_for(threads, vertex_items, marked_farthest_item, &job);
        finish_sphere_of_items(job.centre, job.farthest, vertex_items, sphere);
    }
    free(job.used);
    free(job.boxes);
    free(job.zeros);
    free(job.farthest);
    return ok;
}

void geometry_bounds_on(unsigned threads, const float *positions, uint32_t vertex_count,
                        const uint32_t *indices, uint32_t index_count, float aabb_min[3],
                        float aabb_max[3], float sphere[4]) {
    if (index_count >= BOUNDS_RANGE && index_count >= vertex_count &&
        marked_bounds(threads, positions, vertex_count, indices, index_count, aabb_min, aabb_max,
                      sphere))
        return;
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
    join_boxes(job.boxes, items, aabb_min, aabb_max);
    box_centre(aabb_min, aabb_max, job.centre);
    parallel_for(threads, items, farthest_item, &job);
    finish_sphere_of_items(job.centre, job.farthest, items, sphere);
    free(job.boxes);
    free(job.farthest);
}
