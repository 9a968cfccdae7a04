/*
 * triangulate.c — one simple polygon (convex or concave, any winding) into
 * count - 2 triangles that keep the polygon's winding.
 *
 * The corners are projected onto the plane of the polygon's Newell normal, in
 * a basis oriented so the polygon runs counter-clockwise there; "convex" then
 * means a positive turn. Triangles:
 *
 *   - 3 corners: the triangle itself.
 *   - 4 corners: the diagonal whose two triangles have the larger smaller area,
 *     so a concave quad is split at its reflex corner (the other diagonal would
 *     give a flipped triangle) and a quad with a flat corner is not split into
 *     a sliver. Most quads are decided from 3D cross products, without the
 *     projection (quad_diagonal_without_projection: same result).
 *   - more: ear clipping on a circular linked list. An ear is a convex corner
 *     whose triangle contains no other remaining corner that is not convex
 *     (boundary included; corners at the same position as the triangle's own
 *     are ignored, which is what duplicate points need). When a whole lap finds
 *     no ear, a flat corner (collinear or duplicate, zero area) is clipped, then
 *     failing that any convex corner; only input that is not a simple polygon
 *     gets that far. The candidates that could spoil an ear (corners that are
 *     not convex) sit in a uniform grid, so an ear test looks only at the
 *     cells its triangle's box covers: linear time for convex polygons, close
 *     to it for typical concave ones, O(n^2) at worst.
 *
 * Degenerate input (all corners on one line or one point: the Newell normal is
 * zero) is triangulated as a fan from corner 0 and the function returns 0, the
 * number of triangles that came from a real triangulation; the output always
 * holds count - 2 triangles. Arithmetic is in double, on coordinates taken
 * relative to the centroid, so faces far from the origin keep their precision.
 */
#include <math.h>
#include <stdlib.h>

#include "common/checked.h"
#include "cook/core/core.h"

#define STACK_CORNERS 64u
#define STACK_CELLS 25u /* the grid for 64 corners is 5 x 5 */
#define NONE UINT32_MAX
/* Ear clipping may look at this many corners and cells per corner (plus a
 * constant) before the rest of the polygon becomes a fan: more than simple
 * polygons need (real faces a few dozen; a random star of 65536 corners about
 * 900), and it bounds what a hostile or self-intersecting face costs. */
#define WORK_PER_CORNER 1024u
#define WORK_BASE 65536u

/* The corners still linked, and the non-convex ones among them bucketed in a
 * uniform grid over the polygon's box: only those can spoil an ear, and only
 * those in the cells an ear's box covers are tested. Convex polygons thus
 * triangulate in linear time, typical concave ones close to it. */
typedef struct ear_state {
    const double *xy; /* 2 per corner */
    uint32_t *prev;
    uint32_t *next;
    uint8_t *convex;
    uint32_t *cell_of; /* NONE: not in the grid */
    uint32_t *cell_prev;
    uint32_t *cell_next;
    uint32_t *cells; /* grid * grid list heads */
    uint32_t grid;
    double origin[2];
    double cells_per_unit[2];
    double epsilon;  /* areas at or below this are zero */
    uint64_t work;   /* cells and corners looked at by ear tests */
    uint64_t budget; /* beyond it, the rest becomes a fan */
} ear_state;

/* fmin and fmax with their rule that a NaN loses, inlined: libm's are calls,
 * twenty for each quad, most of the faces of a large OBJ. */
static inline double smaller(double a, double b) {
    return b < a || isnan(a) ? b : a;
}

static inline double larger(double a, double b) {
    return b > a || isnan(a) ? b : a;
}

static double orient(const double *a, const double *b, const double *c) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static bool same_point(const double *a, const double *b) {
    return a[0] == b[0] && a[1] == b[1];
}

static uint32_t fan_from(uint32_t first, const uint32_t *next, uint32_t remaining,
                         uint32_t *triangles) {
    uint32_t written = 0;
    uint32_t b = next[first];
    for (uint32_t i = 0; i + 2 < remaining; i++) {
        uint32_t c = next[b];
        triangles[3 * written + 0] = first;
        triangles[3 * written + 1] = b;
        triangles[3 * written + 2] = c;
        written++;
        b = c;
    }
    return written;
}

/* Fan from corner 0 in input order. */
static void fan_all(uint32_t count, uint32_t *triangles) {
    for (uint32_t t = 0; t + 2 < count; t++) {
        triangles[3 * t + 0] = 0;
        triangles[3 * t + 1] = t + 1;
        triangles[3 * t + 2] = t + 2;
    }
}

static uint32_t cell_coordinate(const ear_state *s, double value, int axis) {
    double c = (value - s->origin[axis]) * s->cells_per_unit[axis];
    if (!(c > 0.0))
        return 0;
    if (c >= (double)s->grid)
        return s->grid - 1;
    return (uint32_t)c;
}

static void grid_insert(ear_state *s, uint32_t i) {
    uint32_t cell =
        cell_coordinate(s, s->xy[2 * i + 1], 1) * s->grid + cell_coordinate(s, s->xy[2 * i], 0);
    s->cell_of[i] = cell;
    s->cell_prev[i] = NONE;
    s->cell_next[i] = s->cells[cell];
    if (s->cells[cell] != NONE)
        s->cell_prev[s->cells[cell]] = i;
    s->cells[cell] = i;
}

static void grid_remove(ear_state *s, uint32_t i) {
    if (s->cell_of[i] == NONE)
        return;
    if (s->cell_prev[i] != NONE)
        s->cell_next[s->cell_prev[i]] = s->cell_next[i];
    else
        s->cells[s->cell_of[i]] = s->cell_next[i];
    if (s->cell_next[i] != NONE)
        s->cell_prev[s->cell_next[i]] = s->cell_prev[i];
    s->cell_of[i] = NONE;
}

static void update_convexity(ear_state *s, uint32_t i) {
    const double *xy = s->xy;
    bool convex = orient(xy + 2 * s->prev[i], xy + 2 * i, xy + 2 * s->next[i]) > s->epsilon;
    s->convex[i] = convex;
    if (convex)
        grid_remove(s, i);
    else if (s->cell_of[i] == NONE)
        grid_insert(s, i);
}

/* True when the corner `ear` can be cut off: convex and no other remaining
 * non-convex corner inside or on its triangle. */
static bool is_ear(ear_state *s, uint32_t ear) {
    if (!s->convex[ear])
        return false;
    uint32_t ia = s->prev[ear], ic = s->next[ear];
    const double *a = s->xy + 2 * ia, *b = s->xy + 2 * ear, *c = s->xy + 2 * ic;
    double eps = s->epsilon;
    uint32_t low[2], high[2];
    for (int k = 0; k < 2; k++) {
        double lo = smaller(a[k], smaller(b[k], c[k])), hi = larger(a[k], larger(b[k], c[k]));
        double margin = 1e-9 * (hi - lo) + 1e-300;
        low[k] = cell_coordinate(s, lo - margin, k);
        high[k] = cell_coordinate(s, hi + margin, k);
    }
    for (uint32_t y = low[1]; y <= high[1]; y++) {
        for (uint32_t x = low[0]; x <= high[0]; x++) {
            s->work++;
            for (uint32_t q = s->cells[y * s->grid + x]; q != NONE; q = s->cell_next[q]) {
                s->work++;
                if (q == ia || q == ear || q == ic)
                    continue;
                const double *p = s->xy + 2 * q;
                if (same_point(p, a) || same_point(p, b) || same_point(p, c))
                    continue;
                if (orient(a, b, p) >= -eps && orient(b, c, p) >= -eps && orient(c, a, p) >= -eps)
                    return false;
            }
        }
    }
    return true;
}

/* Clips ears until three corners remain; returns the triangles written. */
static uint32_t clip_ears(ear_state *s, uint32_t count, uint32_t *triangles) {
    uint32_t written = 0;
    uint32_t remaining = count;
    uint32_t current = 0;
    uint32_t stalled = 0; /* corners visited since the last clip */
    while (remaining > 3) {
        if (++s->work > s->budget)
            return written; /* not a simple polygon, or a hostile one */
        uint32_t cut = UINT32_MAX;
        if (is_ear(s, current)) {
            cut = current;
        } else if (++stalled < remaining) {
            current = s->next[current];
            continue;
        } else {
            /* A whole lap without an ear: a flat corner, else any convex one. */
            s->work += 2 * (uint64_t)remaining;
            uint32_t i = current;
            for (uint32_t k = 0; k < remaining && cut == UINT32_MAX; k++, i = s->next[i]) {
                double area = orient(s->xy + 2 * s->prev[i], s->xy + 2 * i, s->xy + 2 * s->next[i]);
                if (fabs(area) <= s->epsilon)
                    cut = i;
            }
            for (uint32_t k = 0; k < remaining && cut == UINT32_MAX; k++, i = s->next[i]) {
                if (s->convex[i])
                    cut = i;
            }
            if (cut == UINT32_MAX) /* nothing sensible left: fan the rest */
                return written;
        }
        uint32_t a = s->prev[cut], c = s->next[cut];
        triangles[3 * written + 0] = a;
        triangles[3 * written + 1] = cut;
        triangles[3 * written + 2] = c;
        written++;
        s->next[a] = c;
        s->prev[c] = a;
        grid_remove(s, cut);
        remaining--;
        update_convexity(s, a);
        update_convexity(s, c);
        /* Go on past c, not at it: cutting at c again and again would fan
         * out from a, with ever larger triangles to test. */
        current = s->next[c];
        stalled = 0;
    }
    triangles[3 * written + 0] = s->prev[current];
    triangles[3 * written + 1] = current;
    triangles[3 * written + 2] = s->next[current];
    return written + 1;
}

static uint32_t triangulate_quad(const double *xy, uint32_t *triangles) {
    /* Diagonal 0-2: triangles (0,1,2) (0,2,3); diagonal 1-3: (0,1,3) (1,2,3). */
    double a1 = orient(xy + 0, xy + 2, xy + 4), a2 = orient(xy + 0, xy + 4, xy + 6);
    double b1 = orient(xy + 0, xy + 2, xy + 6), b2 = orient(xy + 2, xy + 4, xy + 6);
    static const uint32_t split_02[6] = {0, 1, 2, 0, 2, 3};
    static const uint32_t split_13[6] = {0, 1, 3, 1, 2, 3};
    const uint32_t *pick = smaller(b1, b2) > smaller(a1, a2) ? split_13 : split_02;
    for (int i = 0; i < 6; i++)
        triangles[i] = pick[i];
    return 2;
}

/* The corners' centroid, their Newell normal about it (twice the area
 * along the normal) and their largest coordinate about it. */
static inline void polygon_plane(const float *corners, uint32_t count, double centre[3],
                                 double normal[3], double *extent) {
    for (int k = 0; k < 3; k++)
        centre[k] = normal[k] = 0.0;
    for (uint32_t i = 0; i < count; i++)
        for (int k = 0; k < 3; k++)
            centre[k] += (double)corners[3 * i + k];
    for (int k = 0; k < 3; k++)
        centre[k] /= (double)count;
    *extent = 0.0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t j = i + 1 == count ? 0 : i + 1;
        double p[3], q[3];
        for (int k = 0; k < 3; k++) {
            p[k] = (double)corners[3 * i + k] - centre[k];
            q[k] = (double)corners[3 * j + k] - centre[k];
            *extent = larger(*extent, fabs(p[k]));
        }
        normal[0] += (p[1] - q[1]) * (p[2] + q[2]);
        normal[1] += (p[2] - q[2]) * (p[0] + q[0]);
        normal[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
}

/* The quad's diagonal as triangulate_quad picks it, found without the
 * projection when that is certain: twice each triangle's area in the plane
 * is its 3D cross product dotted with the unit normal (whatever orthonormal
 * basis the plane gets), so the areas dotted with the unnormalised `normal`
 * are the projected ones times `length`. The projection's rounding moves the
 * areas it compares by a few hundred ulps of extent^2; a difference beyond
 * 1e-9 * extent^2 decides as it would. Closer (a flat square's four equal
 * areas), false: the projection decides. */
static bool quad_diagonal_without_projection(double p[4][3], const double normal[3], double length,
                                             double extent, uint32_t *triangles) {
    static const uint8_t corners_of[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 1, 3}, {1, 2, 3}};
    double area[4]; /* a1 a2 b1 b2 of triangulate_quad, times length */
    for (int t = 0; t < 4; t++) {
        const double *a = p[corners_of[t][0]], *b = p[corners_of[t][1]], *c = p[corners_of[t][2]];
        double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double f[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        area[t] = (e[1] * f[2] - e[2] * f[1]) * normal[0] +
                  (e[2] * f[0] - e[0] * f[2]) * normal[1] + (e[0] * f[1] - e[1] * f[0]) * normal[2];
    }
    double difference = smaller(area[2], area[3]) - smaller(area[0], area[1]);
    double margin = 1e-9 * extent * extent * length;
    if (!(fabs(difference) > margin))
        return false; /* also NaN */
    static const uint32_t split_02[6] = {0, 1, 2, 0, 2, 3};
    static const uint32_t split_13[6] = {0, 1, 3, 1, 2, 3};
    const uint32_t *pick = difference > 0.0 ? split_13 : split_02;
    for (int i = 0; i < 6; i++)
        triangles[i] = pick[i];
    return true;
}

uint32_t geometry_triangulate_polygon(const float *corners, uint32_t count, uint32_t *triangles) {
    if (count < 3)
        return 0;
    if (count == 3) {
        triangles[0] = 0;
        triangles[1] = 1;
        triangles[2] = 2;
        return 1;
    }

    /* Centroid, then the Newell normal of the corners relative to it. */
    double centre[3], normal[3], extent;
    if (count == 4) /* most polygons: the same code, unrolled */
        polygon_plane(corners, 4, centre, normal, &extent);
    else
        polygon_plane(corners, count, centre, normal, &extent);
    double length = sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
    /* Twice the area is `length`; below a relative 1e-12 it is rounding noise. */
    if (!(length > extent * extent * 1e-12) || !isfinite(length)) {
        fan_all(count, triangles);
        return 0;
    }
    if (count == 4) {
        double p[4][3];
        for (uint32_t i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                p[i][k] = (double)corners[3 * i + k] - centre[k];
        if (quad_diagonal_without_projection(p, normal, length, extent, triangles))
            return 2;
    }
    for (int k = 0; k < 3; k++)
        normal[k] /= length;

    /* Basis (u, v) with u x v = normal: counter-clockwise about the normal
     * stays counter-clockwise in (u, v). */
    int smallest = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(normal[k]) < fabs(normal[smallest]))
            smallest = k;
    double axis[3] = {0.0, 0.0, 0.0};
    axis[smallest] = 1.0;
    double u[3] = {axis[1] * normal[2] - axis[2] * normal[1],
                   axis[2] * normal[0] - axis[0] * normal[2],
                   axis[0] * normal[1] - axis[1] * normal[0]};
    double u_length = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++)
        u[k] /= u_length;
    double v[3] = {normal[1] * u[2] - normal[2] * u[1], normal[2] * u[0] - normal[0] * u[2],
                   normal[0] * u[1] - normal[1] * u[0]};

    /* Grid of about 4 corners per cell. */
    uint32_t grid = 1 + (uint32_t)sqrt((double)count / 4.0);
    size_t cell_count = (size_t)grid * grid;
    double stack_xy[2 * STACK_CORNERS];
    uint32_t stack_links[5 * STACK_CORNERS + STACK_CELLS];
    uint8_t stack_convex[STACK_CORNERS];
    double *xy = stack_xy;
    uint32_t *links = stack_links;
    uint8_t *convex = stack_convex;
    void *heap = NULL;
    if (count > STACK_CORNERS) {
        /* Per corner: xy, 5 links, a flag; then the cells. */
        size_t per_corner = 2 * sizeof(double) + 5 * sizeof(uint32_t) + sizeof(uint8_t);
        size_t bytes;
        if (!checked_mad_size(count, per_corner, cell_count * sizeof(uint32_t), &bytes) ||
            (heap = malloc(bytes)) == NULL) {
            fan_all(count, triangles);
            return 0;
        }
        xy = heap;
        links = (uint32_t *)(xy + 2 * (size_t)count);
        convex = (uint8_t *)(links + 5 * (size_t)count + cell_count);
    }
    double low[2] = {INFINITY, INFINITY}, high[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < count; i++) {
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = (double)corners[3 * i + k] - centre[k];
        xy[2 * i + 0] = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
        xy[2 * i + 1] = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
        for (int k = 0; k < 2; k++) {
            low[k] = smaller(low[k], xy[2 * i + k]);
            high[k] = larger(high[k], xy[2 * i + k]);
        }
    }

    uint32_t written;
    if (count == 4) {
        written = triangulate_quad(xy, triangles);
    } else {
        ear_state s = {
            .xy = xy,
            .prev = links,
            .next = links + count,
            .cell_of = links + 2 * (size_t)count,
            .cell_prev = links + 3 * (size_t)count,
            .cell_next = links + 4 * (size_t)count,
            .cells = links + 5 * (size_t)count,
            .convex = convex,
            .grid = grid,
            .origin = {low[0], low[1]},
            .epsilon = extent * extent * 1e-12,
            .budget = WORK_BASE + WORK_PER_CORNER * (uint64_t)count,
        };
        for (int k = 0; k < 2; k++)
            s.cells_per_unit[k] = high[k] > low[k] ? (double)grid / (high[k] - low[k]) : 0.0;
        for (size_t c = 0; c < cell_count; c++)
            s.cells[c] = NONE;
        for (uint32_t i = 0; i < count; i++) {
            s.prev[i] = i == 0 ? count - 1 : i - 1;
            s.next[i] = i + 1 == count ? 0 : i + 1;
            s.cell_of[i] = NONE;
        }
        for (uint32_t i = 0; i < count; i++)
            update_convexity(&s, i);
        written = clip_ears(&s, count, triangles);
        if (written < count - 2) {
            /* The last cut's third corner is still linked (corner 0 when
             * nothing was cut). */
            uint32_t start = written > 0 ? triangles[3 * (written - 1) + 2] : 0;
            fan_from(start, s.next, count - written, triangles + 3 * (size_t)written);
        }
    }
    free(heap);
    return written;
}
