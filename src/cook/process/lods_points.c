/* lods_points.c — the error of a point level (lods.c): the largest distance
 * from a point of the level before to the nearest point kept, found through a
 * hash grid of the kept points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

/* The kept points in a hash grid: cells of `cell` units, each cell's points
 * contiguous in `points` (sorted by cell key), found through an open
 * addressing table of cell keys. */
typedef struct point_grid {
    float origin[3];
    float cell;
    uint64_t *keys;    /* per table slot: cell key + 1, 0 empty */
    uint32_t *first;   /* per table slot: first entry in points */
    uint32_t *count;   /* per table slot: entries */
    size_t mask;       /* table slots - 1 */
    uint64_t *entries; /* sorted (cell key << 32 | kept index) */
} point_grid;

#define GRID_BIAS (1 << 20) /* cell coordinates are stored + 2^20 in 21 bits */

/* Far outliers clamp to a cell no table holds (grid_nearest skips it). */
static int64_t grid_coordinate(const point_grid *grid, float value, int axis) {
    double c = floor(((double)value - grid->origin[axis]) / grid->cell);
    return c < -2.0 * GRID_BIAS ? -2 * GRID_BIAS
                                : (c > 2.0 * GRID_BIAS ? 2 * GRID_BIAS : (int64_t)c);
}

static uint64_t grid_key(int64_t x, int64_t y, int64_t z) {
    return (uint64_t)(x + GRID_BIAS) << 42 | (uint64_t)(y + GRID_BIAS) << 21 |
           (uint64_t)(z + GRID_BIAS);
}

static size_t grid_slot(const point_grid *grid, uint64_t key) {
    size_t slot = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & grid->mask;
    while (grid->keys[slot] != 0 && grid->keys[slot] != key + 1)
        slot = (slot + 1) & grid->mask;
    return slot;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void grid_free(point_grid *grid) {
    free(grid->keys);
    free(grid->first);
    free(grid->count);
    free(grid->entries);
}

/* Cells about as wide as the spacing of `kept`: the extent over the cube root
 * of their number (a volume) or, when that crowds the cells (a surface or a
 * curve), smaller. */
static bool grid_build(point_grid *grid, const float *positions, const uint32_t *kept,
                       size_t kept_count) {
    memset(grid, 0, sizeof *grid);
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++)
        lo[k] = hi[k] = positions[3 * (size_t)kept[0] + k];
    for (size_t i = 1; i < kept_count; i++)
        for (int k = 0; k < 3; k++) {
            float v = positions[3 * (size_t)kept[i] + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    float extent = 0.0f;
    for (int k = 0; k < 3; k++) {
        grid->origin[k] = lo[k];
        extent = hi[k] - lo[k] > extent ? hi[k] - lo[k] : extent;
    }
    size_t slots = 2;
    while (slots < 2 * kept_count)
        slots *= 2;
    grid->mask = slots - 1;
    grid->entries = malloc(kept_count * sizeof *grid->entries);
    grid->keys = malloc(slots * sizeof *grid->keys);
    grid->first = malloc(slots * sizeof *grid->first);
    grid->count = malloc(slots * sizeof *grid->count);
    if (grid->entries == NULL || grid->keys == NULL || grid->first == NULL || grid->count == NULL) {
        grid_free(grid);
        return false;
    }
    /* At most 2^20 cells a side, so coordinates fit their 21 bits. */
    float cell = extent / cbrtf((float)kept_count);
    float smallest = extent / (float)(GRID_BIAS / 2);
    for (int attempt = 0; attempt < 4; attempt++) {
        grid->cell = cell > smallest && cell > 0.0f ? cell : (smallest > 0.0f ? smallest : 1.0f);
        for (size_t i = 0; i < kept_count; i++) {
            const float *p = positions + 3 * (size_t)kept[i];
            uint64_t key = grid_key(grid_coordinate(grid, p[0], 0), grid_coordinate(grid, p[1], 1),
                                    grid_coordinate(grid, p[2], 2));
            grid->entries[i] = key << 32 | i;
        }
        qsort(grid->entries, kept_count, sizeof *grid->entries, compare_u64);
        size_t cells = 1;
        for (size_t i = 1; i < kept_count; i++)
            cells += grid->entries[i] >> 32 != grid->entries[i - 1] >> 32;
        if (kept_count <= 8 * cells || grid->cell <= smallest)
            break;
        cell = grid->cell / 4.0f; /* crowded: the points lie on a surface or a curve */
    }
    memset(grid->keys, 0, slots * sizeof *grid->keys);
    for (size_t i = 0; i < kept_count; i++) {
        uint64_t key = grid->entries[i] >> 32;
        size_t slot = grid_slot(grid, key);
        if (grid->keys[slot] == 0) {
            grid->keys[slot] = key + 1;
            grid->first[slot] = (uint32_t)i;
            grid->count[slot] = 0;
        }
        grid->count[slot]++;
    }
    return true;
}

static float distance_squared(const float *a, const float *b) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* The nearest kept point's squared distance: the cells around p ring by ring
 * (a point in ring r + 1 is at least r cells away), then every kept point when
 * two rings found nothing close enough (far outliers only). */
static float grid_nearest(const point_grid *grid, const float *positions, const uint32_t *kept,
                          size_t kept_count, const float *p) {
    int64_t c[3];
    for (int k = 0; k < 3; k++)
        c[k] = grid_coordinate(grid, p[k], k);
    float best = INFINITY;
    for (int64_t r = 0; r <= 2; r++) {
        for (int64_t x = c[0] - r; x <= c[0] + r; x++)
            for (int64_t y = c[1] - r; y <= c[1] + r; y++)
                for (int64_t z = c[2] - r; z <= c[2] + r; z++) {
                    int64_t ring = llabs(x - c[0]);
                    ring = llabs(y - c[1]) > ring ? llabs(y - c[1]) : ring;
                    ring = llabs(z - c[2]) > ring ? llabs(z - c[2]) : ring;
                    if (ring != r || x < -GRID_BIAS || y < -GRID_BIAS || z < -GRID_BIAS ||
                        x >= GRID_BIAS || y >= GRID_BIAS || z >= GRID_BIAS)
                        continue;
                    size_t slot = grid_slot(grid, grid_key(x, y, z));
                    for (uint32_t i = 0; grid->keys[slot] != 0 && i < grid->count[slot]; i++) {
                        uint32_t k = (uint32_t)(grid->entries[grid->first[slot] + i] & 0xffffffffu);
                        float d = distance_squared(p, positions + 3 * (size_t)kept[k]);
                        best = d < best ? d : best;
                    }
                }
        float reach = (float)r * grid->cell;
        if (best <= reach * reach)
            return best;
    }
    for (size_t i = 0; i < kept_count; i++) {
        float d = distance_squared(p, positions + 3 * (size_t)kept[i]);
        best = d < best ? d : best;
    }
    return best;
}

bool lods_points_error(const float *positions, const uint32_t *source, size_t source_count,
                       const uint32_t *kept, size_t kept_count, float *error) {
    point_grid grid;
    if (!grid_build(&grid, positions, kept, kept_count))
        return false;
    float worst = 0.0f;
    for (size_t i = 0; i < source_count; i++) {
        float d =
            grid_nearest(&grid, positions, kept, kept_count, positions + 3 * (size_t)source[i]);
        worst = d > worst ? d : worst;
    }
    grid_free(&grid);
    *error = sqrtf(worst);
    return true;
}
