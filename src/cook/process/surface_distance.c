/* surface_distance.c — how far apart two triangle surfaces are, sampled: the
 * distance from points of one (corners and centroids) to the nearest triangle
 * of the other, over a uniform grid of triangles. The LOD step's fallback
 * measures its candidates with it (lods.c); bench_simplify its levels.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

#define GRID_MAX_CELLS ((size_t)1 << 24) /* 64 MB of cell starts */
/* At most this many (cell, triangle) entries, 256 MB: a long sliver over a
 * grid of small cells is listed in every cell its box covers, and the counts
 * are 32-bit. */
#define GRID_MAX_ITEMS ((size_t)1 << 26)

/* ---------------------------------------------------------------------------
 * Point to triangle distance over a uniform grid of triangles
 * ------------------------------------------------------------------------- */

static void sub3(const float *a, const float *b, double *out) {
    for (int k = 0; k < 3; k++)
        out[k] = (double)a[k] - (double)b[k];
}

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Squared distance from p to triangle abc (closest point by Voronoi region,
 * as in Ericson, Real-Time Collision Detection, 5.1.5). */
static double point_triangle_distance2(const float *p, const float *a, const float *b,
                                       const float *c) {
    double ab[3], ac[3], ap[3], bp[3], cp[3], closest[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    sub3(p, a, ap);
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    double v = 0.0, w = 0.0;
    sub3(p, b, bp);
    sub3(p, c, cp);
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp), d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
    if (d1 <= 0 && d2 <= 0) {
        v = w = 0.0;
    } else if (d3 >= 0 && d4 <= d3) {
        v = 1.0;
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        v = d1 / (d1 - d3);
    } else if (d6 >= 0 && d5 <= d6) {
        w = 1.0;
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        w = d2 / (d2 - d6);
    } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        v = 1.0 - w;
    } else {
        double denom = 1.0 / (va + vb + vc);
        v = vb * denom;
        w = vc * denom;
    }
    double d2sum = 0.0;
    for (int k = 0; k < 3; k++) {
        closest[k] = (double)a[k] + ab[k] * v + ac[k] * w;
        double d = (double)p[k] - closest[k];
        d2sum += d * d;
    }
    return d2sum;
}

/* Squared distance from p to the bounding box of abc: at most the distance
 * to the triangle. */
static double box_distance2(const float *p, const float *a, const float *b, const float *c) {
    double sum = 0.0;
    for (int k = 0; k < 3; k++) {
        float lo = a[k] < b[k] ? a[k] : b[k], hi = a[k] > b[k] ? a[k] : b[k];
        lo = c[k] < lo ? c[k] : lo;
        hi = c[k] > hi ? c[k] : hi;
        double d = p[k] < lo ? (double)lo - p[k] : (p[k] > hi ? (double)p[k] - hi : 0.0);
        sum += d * d;
    }
    return sum;
}

static uint32_t cell_of(const triangle_grid *g, float x, int k) {
    float q = (x - g->lo[k]) / g->cell;
    if (!(q > 0.0f))
        return 0;
    return q >= (float)g->dims[k] ? g->dims[k] - 1 : (uint32_t)q;
}

static void triangle_cells(const triangle_grid *g, const uint32_t *tri, uint32_t lo[3],
                           uint32_t hi[3]) {
    for (int k = 0; k < 3; k++) {
        float mn = FLT_MAX, mx = -FLT_MAX;
        for (int c = 0; c < 3; c++) {
            float x = g->positions[3 * (size_t)tri[c] + k];
            mn = x < mn ? x : mn;
            mx = x > mx ? x : mx;
        }
        lo[k] = cell_of(g, mn, k);
        hi[k] = cell_of(g, mx, k);
    }
}

static size_t cell_index(const triangle_grid *g, uint32_t x, uint32_t y, uint32_t z) {
    return ((size_t)z * g->dims[1] + y) * g->dims[0] + x;
}

/* How many (cell, triangle) entries the grid would list, stopping past
 * GRID_MAX_ITEMS. */
static size_t grid_items(const triangle_grid *g, const uint32_t *indices, size_t triangles) {
    size_t items = 0;
    uint32_t lo[3], hi[3];
    for (size_t t = 0; t < triangles && items <= GRID_MAX_ITEMS; t++) {
        triangle_cells(g, indices + 3 * t, lo, hi);
        items += (size_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
    }
    return items;
}

void triangle_grid_free(triangle_grid *g) {
    free(g->starts);
    free(g->items);
    free(g->seen);
}

bool triangle_grid_build(triangle_grid *g, const float *positions, const uint32_t *indices,
                         size_t index_count, const float lo[3], const float hi[3]) {
    memset(g, 0, sizeof *g);
    g->positions = positions;
    g->indices = indices;
    size_t triangles = index_count / 3;
    /* Cells about a typical triangle's size: a few triangles each on
     * a surface (sizing by volume would pile a flat mesh into few cells). */
    double area = 0.0;
    for (size_t t = 0; t < triangles; t++) {
        double u[3], v[3];
        sub3(positions + 3 * (size_t)indices[3 * t + 1], positions + 3 * (size_t)indices[3 * t], u);
        sub3(positions + 3 * (size_t)indices[3 * t + 2], positions + 3 * (size_t)indices[3 * t], v);
        double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                       u[0] * v[1] - u[1] * v[0]};
        area += 0.5 * sqrt(dot3(n, n));
    }
    double extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = (double)hi[k] - lo[k] > extent ? (double)hi[k] - lo[k] : extent;
    g->cell = (float)sqrt(area / (double)(triangles ? triangles : 1));
    /* At most 1024 cells per side. */
    if (g->cell < (float)(extent / 1024.0))
        g->cell = (float)(extent / 1024.0);
    if (g->cell <= 0.0f)
        g->cell = 1.0f;
    /* And at most GRID_MAX_CELLS (a volume of small triangles): coarser. */
    size_t cells;
    for (;;) {
        cells = 1;
        for (int k = 0; k < 3; k++) {
            g->lo[k] = lo[k];
            g->dims[k] = (uint32_t)(((double)hi[k] - lo[k]) / g->cell) + 1;
            cells *= g->dims[k];
        }
        if (cells == 1 ||
            (cells <= GRID_MAX_CELLS && grid_items(g, indices, triangles) <= GRID_MAX_ITEMS))
            break;
        g->cell *= 1.25f;
    }
    g->triangles = triangles;
    g->starts = calloc(cells + 1, sizeof *g->starts);
    g->seen = calloc(triangles ? triangles : 1, sizeof *g->seen);
    if (g->starts == NULL || g->seen == NULL) {
        triangle_grid_free(g);
        return false;
    }
    uint32_t clo[3], chi[3];
    for (int pass = 0; pass < 2; pass++) {
        for (size_t t = 0; t < triangles; t++) {
            triangle_cells(g, indices + 3 * t, clo, chi);
            for (uint32_t z = clo[2]; z <= chi[2]; z++)
                for (uint32_t y = clo[1]; y <= chi[1]; y++)
                    for (uint32_t x = clo[0]; x <= chi[0]; x++) {
                        size_t c = cell_index(g, x, y, z);
                        if (pass == 0)
                            g->starts[c + 1]++;
                        else
                            g->items[g->starts[c]++] = (uint32_t)t;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; c++)
                g->starts[c + 1] += g->starts[c];
            g->items = malloc((g->starts[cells] ? g->starts[cells] : 1) * sizeof *g->items);
            if (g->items == NULL) {
                triangle_grid_free(g);
                return false;
            }
        } else {
            /* The fill advanced every start to the next cell's: shift back. */
            memmove(g->starts + 1, g->starts, cells * sizeof *g->starts);
            g->starts[0] = 0;
        }
    }
    return true;
}

/* Squared distance from p to cell x along axis k, widened by a thousandth of
 * a cell each side (cell_of's float division may put a coordinate on
 * the cell beside its own) and open beyond the grid's first and last cells
 * (cell_of clamps what lies outside into them): no triangle listed in the
 * cell is nearer than this. */
static double cell_axis_distance2(const triangle_grid *g, const float *p, uint32_t x, int k) {
    double margin = 1e-3 * g->cell;
    double lo = (double)g->lo[k] + (double)x * g->cell - margin;
    double hi = (double)g->lo[k] + (double)(x + 1) * g->cell + margin;
    double d = 0.0;
    if (x > 0 && p[k] < lo)
        d = lo - p[k];
    else if (x + 1 < g->dims[k] && p[k] > hi)
        d = p[k] - hi;
    return d * d;
}

/* The triangles listed in one cell, each tested once per query: *best gets
 * the nearest squared distance. */
static void scan_cell(triangle_grid *g, const float *p, size_t cell, double *best) {
    for (uint32_t i = g->starts[cell]; i < g->starts[cell + 1] && *best > 0.0; i++) {
        if (g->seen[g->items[i]] == g->query)
            continue;
        g->seen[g->items[i]] = g->query;
        const uint32_t *tri = g->indices + 3 * (size_t)g->items[i];
        const float *a = g->positions + 3 * (size_t)tri[0], *b = g->positions + 3 * (size_t)tri[1],
                    *r = g->positions + 3 * (size_t)tri[2];
        if (box_distance2(p, a, b, r) >= *best)
            continue; /* no nearer than the nearest so far */
        double d = point_triangle_distance2(p, a, b, r);
        *best = d < *best ? d : *best;
    }
}

/* Distance from p to the nearest triangle within the 27 cells around it;
 * a point with none there is at least one cell away (reported as that).
 * Its own cell first: most points lie on or near a triangle there, and a
 * cell beside it that lies farther than the nearest so far is skipped (none
 * of its triangles can be nearer), so the same minimum costs a few cells. */
double triangle_grid_distance(triangle_grid *g, const float *p) {
    double best = (double)g->cell * g->cell;
    /* A triangle over several of the cells is tested once per point. */
    if (++g->query == 0) {
        memset(g->seen, 0, g->triangles * sizeof *g->seen);
        g->query = 1;
    }
    uint32_t c[3];
    for (int k = 0; k < 3; k++)
        c[k] = cell_of(g, p[k], k);
    scan_cell(g, p, cell_index(g, c[0], c[1], c[2]), &best);
    for (uint32_t z = c[2] ? c[2] - 1 : 0; z <= c[2] + 1 && z < g->dims[2] && best > 0.0; z++) {
        double dz = cell_axis_distance2(g, p, z, 2);
        for (uint32_t y = c[1] ? c[1] - 1 : 0; y <= c[1] + 1 && y < g->dims[1]; y++) {
            double dzy = dz + cell_axis_distance2(g, p, y, 1);
            for (uint32_t x = c[0] ? c[0] - 1 : 0; x <= c[0] + 1 && x < g->dims[0]; x++) {
                if ((x == c[0] && y == c[1] && z == c[2]) ||
                    dzy + cell_axis_distance2(g, p, x, 0) >= best)
                    continue;
                scan_cell(g, p, cell_index(g, x, y, z), &best);
            }
        }
    }
    return sqrt(best);
}

/* Max and mean distance from the corners and centroids of `indices` (over
 * `positions`) to the surface in `g`: added to *max, *sum and *samples. */
void surface_distance_one_way(const float *positions, const uint32_t *indices, size_t index_count,
                              triangle_grid *g, double *max, double *sum, uint64_t *samples) {
    for (size_t t = 0; t + 2 < index_count; t += 3) {
        float centroid[3] = {0, 0, 0};
        for (int c = 0; c < 3; c++) {
            const float *p = positions + 3 * (size_t)indices[t + (size_t)c];
            for (int k = 0; k < 3; k++)
                centroid[k] += p[k] / 3.0f;
            /* Each corner once per triangle: shared corners weigh more, fine
             * for a max and close enough for a mean. */
            double d = triangle_grid_distance(g, p);
            *max = d > *max ? d : *max;
            *sum += d;
        }
        double d = triangle_grid_distance(g, centroid);
        *max = d > *max ? d : *max;
        *sum += d;
        *samples += 4;
    }
}

void surface_distance_on(triangle_grid *a_grid, const float *positions, const uint32_t *a,
                         size_t a_count, const uint32_t *b, size_t b_count, const float lo[3],
                         const float hi[3], double *max, double *mean, bool *ok) {
    triangle_grid gb;
    *max = *mean = 0.0;
    *ok = triangle_grid_build(&gb, positions, b, b_count, lo, hi);
    if (!*ok)
        return;
    double sum = 0.0;
    uint64_t samples = 0;
    surface_distance_one_way(positions, b, b_count, a_grid, max, &sum, &samples);
    surface_distance_one_way(positions, a, a_count, &gb, max, &sum, &samples);
    *mean = sum / (double)(samples ? samples : 1);
    triangle_grid_free(&gb);
}

void surface_distance(const float *positions, const uint32_t *a, size_t a_count, const uint32_t *b,
                      size_t b_count, const float lo[3], const float hi[3], double *max,
                      double *mean, bool *ok) {
    triangle_grid ga;
    *max = *mean = 0.0;
    *ok = triangle_grid_build(&ga, positions, a, a_count, lo, hi);
    if (!*ok)
        return;
    surface_distance_on(&ga, positions, a, a_count, b, b_count, lo, hi, max, mean, ok);
    triangle_grid_free(&ga);
}
