/* tangents.c — per-vertex tangents compatible with MikkTSpace.
 *
 * glTF asks for MikkTSpace tangents when a model supplies none (Mikkelsen,
 * "Simulation of Wrinkled Surfaces Revisited", 2008): a normal map baked
 * against MikkTSpace decodes without seams only with the very same frames.
 * This is an independent implementation of what MikkTSpace computes, for the
 * IR's indexed triangle lists:
 *
 *  1. Weld. Vertices with identical position, normal and UV (of the chosen set)
 *     are one vertex; other streams play no part. A triangle with two welded
 *     corners alike is degenerate: it takes part in nothing below.
 *  2. Per triangle, the UV gradients: os ∥ dP/du and ot ∥ dP/dv, from the
 *     positions and UVs. The sign of the signed UV area is the triangle's
 *     orientation (handedness). A triangle with zero UV area or no gradient
 *     ("group with any") carries no direction and takes the orientation of the
 *     first group that claims it.
 *  3. Neighbours. Two triangles are neighbours across an edge whose welded ends
 *     they share in opposite directions (consistent winding); a non-manifold
 *     edge pairs up greedily in triangle order.
 *  4. Groups, one per welded vertex and fan: starting from each not yet grouped
 *     corner in triangle order, a group spreads through neighbours across the
 *     two edges at that vertex, to triangles of the group's orientation. So a
 *     vertex's corners split by handedness (mirrored UVs) and by fans that do
 *     not touch.
 *  5. Per corner, the group's frame: each member triangle's os, projected into
 *     the plane of the vertex normal and normalised (Gram-Schmidt), weighted by
 *     the corner angle measured in that plane, summed and normalised. As in
 *     MikkTSpace, a member whose projected os and ot both point exactly
 *     opposite to the corner's own triangle's is left out of that corner's sum
 *     (they would cancel); "group with any" triangles contribute nothing.
 *  6. Output: xyz = that tangent, w = +1 when the group's UV orientation is
 *     preserving, else -1, so that bitangent = w * cross(normal, tangent)
 *     follows the texture's "up". glTF's UV origin is the top left with v
 *     growing downwards (the IR's convention too), while MikkTSpace — and the
 *     tools that baked the glTF sample models' tangents — work with v growing
 *     upwards; so v is negated before the orientation is taken. The stored
 *     tangents of the Khronos sample models agree with this sign.
 *
 * Degenerate triangles' corners take the frame of the first proper corner of
 * their welded vertex. A corner whose group has no direction at all (only
 * zero-UV-area triangles, a zero sum, no normal) gets no frame — MikkTSpace
 * leaves a zero vector there — and adopts whatever frame its vertex gets from
 * its other corners; a vertex with no frame from any corner (only in such
 * triangles, or unreferenced) gets an arbitrary unit tangent perpendicular to
 * its normal, w = +1.
 *
 * Vertex splitting: an IR vertex whose corners end in different frames (two
 * handedness groups at a mirror seam, or fans that do not connect) is split:
 * the first frame keeps the vertex, every other distinct frame gets a copy of
 * the vertex (all streams) appended after the existing vertices, and the
 * corners using that frame are re-indexed. vertex_count may therefore grow;
 * submesh ranges are unchanged; corners without a frame never cause a split.
 * Any stream added to ir_mesh must be copied in split_vertices() below.
 *
 * Deviations from the reference: arithmetic is in double (the reference uses
 * float), so nearly-degenerate input may decide thresholds differently, and a
 * group larger than GROUP_EXCLUSION_LIMIT corners skips the opposite-direction
 * exclusion of step 5 (it is quadratic in the group size). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "cook/process/process.h"

#define NONE UINT32_MAX
#define GROUP_EXCLUSION_LIMIT 512u
/* MikkTSpace keeps a member out of a corner's sum when both its directions are
 * opposite (cosine -1 in the reference's float arithmetic); a hair of slack
 * makes the double arithmetic here catch the same exact mirror cases. */
#define OPPOSITE_COSINE (-1.0 + 1e-6)
/* glTF/IR v grows downwards; MikkTSpace's orientation is taken with v upwards. */
#define V_SIGN (-1.0f)

typedef struct edge_entry {
    uint32_t lo, hi; /* welded ends, lo < hi */
    uint32_t tri;    /* index into the proper triangles */
    uint32_t corner; /* the edge runs from corner to corner + 1 */
} edge_entry;

typedef struct tri_info {
    uint32_t corner[3]; /* welded vertex of each corner */
    double os[3], ot[3];
    bool orient; /* orientation preserving: UV area > 0 (v upwards) */
    bool any;    /* no usable UV gradient: groups with anything */
} tri_info;

typedef struct group {
    uint32_t vertex; /* welded vertex */
    bool orient;
    uint32_t first; /* into the members array */
    uint32_t count;
} group;

/* One output frame per corner of every triangle. */
typedef struct frame {
    float t[4];
    bool valid;
} frame;

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static bool not_zero(double x) {
    return fabs(x) > FLT_MIN;
}

static bool normalize3(double *v) {
    double length = sqrt(dot3(v, v));
    if (!not_zero(length) || !isfinite(length))
        return false;
    double inverse = 1.0 / length;
    for (int k = 0; k < 3; k++)
        v[k] *= inverse;
    return true;
}

/* v minus its component along the unit normal n, normalised; zero when v has
 * no component in the plane. */
static void project_to_plane(const double *v, const double *n, double *out) {
    double d = dot3(v, n);
    for (int k = 0; k < 3; k++)
        out[k] = v[k] - d * n[k];
    if (!normalize3(out))
        out[0] = out[1] = out[2] = 0.0;
}

static void load3(const float *src, double *dst) {
    for (int k = 0; k < 3; k++)
        dst[k] = (double)src[k];
}

/* The vertex normal as a unit double vector; false when it has no direction. */
static bool unit_normal(const ir_mesh *mesh, uint32_t vertex, double n[3]) {
    load3(mesh->normals + 3 * (size_t)vertex, n);
    return normalize3(n);
}

/* Some unit tangent perpendicular to the vertex normal, w = +1. */
static void fallback_frame(const ir_mesh *mesh, uint32_t vertex, float out[4]) {
    double n[3];
    out[3] = 1.0f;
    if (!unit_normal(mesh, vertex, n)) {
        out[0] = 1.0f;
        out[1] = 0.0f;
        out[2] = 0.0f;
        return;
    }
    /* The axis least aligned with the normal keeps the projection well away
     * from zero (its length is at least sqrt(2/3)). */
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(n[k]) < fabs(n[axis]))
            axis = k;
    double a[3] = {0.0, 0.0, 0.0}, t[3];
    a[axis] = 1.0;
    project_to_plane(a, n, t);
    for (int k = 0; k < 3; k++)
        out[k] = (float)t[k];
}

/* ---- 1. welding ------------------------------------------------------------ */

static float canonical_zero(float x) {
    return x == 0.0f ? 0.0f : x; /* -0 welds with +0, as float == says */
}

/* A vertex's welding key: position, normal, uv. */
static void weld_key(const ir_mesh *mesh, const float *uv, uint32_t v, float key[8]) {
    for (int i = 0; i < 3; i++) {
        key[i] = canonical_zero(mesh->positions[3 * (size_t)v + (size_t)i]);
        key[3 + i] = canonical_zero(mesh->normals[3 * (size_t)v + (size_t)i]);
    }
    key[6] = canonical_zero(uv[2 * (size_t)v]);
    key[7] = canonical_zero(uv[2 * (size_t)v + 1]);
}

static uint64_t hash_key(const float key[8]) {
    uint32_t words[8];
    memcpy(words, key, sizeof words);
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 8; i++) {
        h ^= words[i];
        h *= 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    return h;
}

/* weld[v] = the lowest vertex index with v's position, normal and uv (exact
 * float equality: NaN welds with nothing). */
static uint32_t *weld_vertices(const ir_mesh *mesh, const float *uv) {
    uint32_t n = mesh->vertex_count;
    size_t cap = 16;
    while (cap < (size_t)n * 2)
        cap *= 2;
    uint32_t *weld = malloc((size_t)n * sizeof *weld);
    uint32_t *table = malloc(cap * sizeof *table);
    if (weld == NULL || table == NULL) {
        free(weld);
        free(table);
        return NULL;
    }
    for (size_t i = 0; i < cap; i++)
        table[i] = NONE;
    for (uint32_t v = 0; v < n; v++) {
        float key[8];
        weld_key(mesh, uv, v, key);
        weld[v] = v;
        bool has_nan = false;
        for (int i = 0; i < 8; i++)
            has_nan = has_nan || isnan(key[i]);
        if (has_nan)
            continue;
        /* Vertices go in by ascending index, so the first match is the lowest. */
        for (size_t slot = (size_t)hash_key(key) & (cap - 1);; slot = (slot + 1) & (cap - 1)) {
            if (table[slot] == NONE) {
                table[slot] = v;
                break;
            }
            float other[8];
            weld_key(mesh, uv, table[slot], other);
            if (memcmp(key, other, sizeof key) == 0) {
                weld[v] = table[slot];
                break;
            }
        }
    }
    free(table);
    return weld;
}

/* ---- 2. per-triangle UV gradients ------------------------------------------ */

static void init_triangle(const ir_mesh *mesh, const float *uv, const uint32_t *tri,
                          tri_info *info) {
    const float *p0 = mesh->positions + 3 * (size_t)tri[0];
    const float *p1 = mesh->positions + 3 * (size_t)tri[1];
    const float *p2 = mesh->positions + 3 * (size_t)tri[2];
    const float *t0 = uv + 2 * (size_t)tri[0];
    const float *t1 = uv + 2 * (size_t)tri[1];
    const float *t2 = uv + 2 * (size_t)tri[2];
    /* UV edges in float, so the orientation test sees the numbers the
     * reference sees. */
    float s1 = t1[0] - t0[0], s2 = t2[0] - t0[0];
    float v1 = V_SIGN * (t1[1] - t0[1]), v2 = V_SIGN * (t2[1] - t0[1]);
    float area = s1 * v2 - v1 * s2; /* twice the signed UV area */
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)p1[k] - (double)p0[k];
        e2[k] = (double)p2[k] - (double)p0[k];
    }
    /* area * dP/du and area * dP/dv */
    for (int k = 0; k < 3; k++) {
        info->os[k] = (double)v2 * e1[k] - (double)v1 * e2[k];
        info->ot[k] = (double)s1 * e2[k] - (double)s2 * e1[k];
    }
    info->orient = area > 0.0f;
    info->any = true;
    if (not_zero(area)) {
        double sign = info->orient ? 1.0 : -1.0;
        double len_s = sqrt(dot3(info->os, info->os));
        double len_t = sqrt(dot3(info->ot, info->ot));
        if (not_zero(len_s))
            for (int k = 0; k < 3; k++)
                info->os[k] *= sign / len_s;
        if (not_zero(len_t))
            for (int k = 0; k < 3; k++)
                info->ot[k] *= sign / len_t;
        double abs_area = fabs((double)area);
        if (not_zero(len_s / abs_area) && not_zero(len_t / abs_area) && isfinite(len_s) &&
            isfinite(len_t))
            info->any = false;
    }
}

/* ---- 3. neighbours ----------------------------------------------------------- */

static int compare_edges(const void *a, const void *b) {
    const edge_entry *x = a, *y = b;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    if (x->tri != y->tri)
        return x->tri < y->tri ? -1 : 1;
    return x->corner < y->corner ? -1 : (x->corner > y->corner);
}

/* Orders one bucket (all edges with the same lower end) by (hi, tri, corner).
 * Edges were bucketed in (tri, corner) order, so a stable sort on hi is
 * enough; buckets are small except at a vertex of very high valence. */
static void sort_bucket(edge_entry *e, size_t count) {
    if (count > 32) {
        qsort(e, count, sizeof *e, compare_edges);
        return;
    }
    for (size_t i = 1; i < count; i++) {
        edge_entry x = e[i];
        size_t j = i;
        for (; j > 0 && e[j - 1].hi > x.hi; j--)
            e[j] = e[j - 1];
        e[j] = x;
    }
}

/* neighbour[3t + k] = the triangle across t's edge from corner k to k + 1, or
 * NONE. Edges are matched by their welded ends, in opposite directions; where
 * more than two triangles share an edge, they pair up in triangle order. */
static bool build_neighbours(const tri_info *tris, uint32_t count, uint32_t vertex_count,
                             uint32_t *neighbour) {
    size_t total = (size_t)count * 3;
    edge_entry *edges = malloc((total > 0 ? total : 1) * sizeof *edges);
    size_t *start = calloc((size_t)vertex_count + 1, sizeof *start);
    if (edges == NULL || start == NULL) {
        free(edges);
        free(start);
        return false;
    }
    /* Counting sort on the lower end, then each bucket on the rest. */
    for (uint32_t t = 0; t < count; t++)
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t a = tris[t].corner[k], b = tris[t].corner[(k + 1) % 3];
            start[(a < b ? a : b) + 1]++;
            neighbour[3 * (size_t)t + k] = NONE;
        }
    for (uint32_t v = 0; v < vertex_count; v++)
        start[v + 1] += start[v];
    for (uint32_t t = 0; t < count; t++)
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t a = tris[t].corner[k], b = tris[t].corner[(k + 1) % 3];
            uint32_t lo = a < b ? a : b;
            edge_entry *e = edges + start[lo]++;
            e->lo = lo;
            e->hi = a < b ? b : a;
            e->tri = t;
            e->corner = k;
        }
    /* start[v] is now the end of bucket v, i.e. the start of bucket v + 1. */
    for (uint32_t v = 0; v < vertex_count; v++) {
        size_t begin = v == 0 ? 0 : start[v - 1];
        sort_bucket(edges + begin, start[v] - begin);
    }
    free(start);
    for (size_t i = 0; i < total;) {
        size_t end = i + 1;
        while (end < total && edges[end].lo == edges[i].lo && edges[end].hi == edges[i].hi)
            end++;
        for (size_t x = i; x < end; x++) {
            const edge_entry *ex = edges + x;
            if (neighbour[3 * (size_t)ex->tri + ex->corner] != NONE)
                continue;
            uint32_t from = tris[ex->tri].corner[ex->corner];
            for (size_t y = x + 1; y < end; y++) {
                const edge_entry *ey = edges + y;
                if (neighbour[3 * (size_t)ey->tri + ey->corner] != NONE)
                    continue;
                if (tris[ey->tri].corner[ey->corner] == from)
                    continue; /* same direction: inconsistent winding */
                neighbour[3 * (size_t)ex->tri + ex->corner] = ey->tri;
                neighbour[3 * (size_t)ey->tri + ey->corner] = ex->tri;
                break;
            }
        }
        i = end;
    }
    free(edges);
    return true;
}

/* ---- 4. groups --------------------------------------------------------------- */

static uint32_t corner_of(const tri_info *tri, uint32_t vertex) {
    for (uint32_t k = 0; k < 3; k++)
        if (tri->corner[k] == vertex)
            return k;
    return NONE;
}

typedef struct grouping {
    group *groups;
    uint32_t group_count;
    uint32_t *members;  /* triangles, each group's contiguous */
    uint32_t *assigned; /* group of corner 3t + k, or NONE */
} grouping;

static void grouping_free(grouping *g) {
    free(g->groups);
    free(g->members);
    free(g->assigned);
}

/* Depth-first from each ungrouped corner: across the edge leaving the vertex
 * first, then the edge arriving at it, as MikkTSpace's recursion visits them
 * (the order decides which group a "group with any" triangle follows). */
static bool build_groups(tri_info *tris, uint32_t count, const uint32_t *neighbour, grouping *out) {
    memset(out, 0, sizeof *out);
    size_t corners = (size_t)count * 3;
    out->groups = malloc((corners > 0 ? corners : 1) * sizeof *out->groups);
    out->members = malloc((corners > 0 ? corners : 1) * sizeof *out->members);
    out->assigned = malloc((corners > 0 ? corners : 1) * sizeof *out->assigned);
    /* Each member pushes at most two triangles; plus the seed's two. */
    uint32_t *stack = malloc(((size_t)count * 2 + 2) * sizeof *stack);
    if (out->groups == NULL || out->members == NULL || out->assigned == NULL || stack == NULL) {
        free(stack);
        grouping_free(out);
        return false;
    }
    for (size_t c = 0; c < corners; c++)
        out->assigned[c] = NONE;
    uint32_t member_count = 0;
    for (uint32_t t = 0; t < count; t++) {
        for (uint32_t k = 0; k < 3; k++) {
            if (out->assigned[3 * (size_t)t + k] != NONE)
                continue;
            uint32_t id = out->group_count++;
            group *g = out->groups + id;
            g->vertex = tris[t].corner[k];
            g->orient = tris[t].orient;
            g->first = member_count;
            g->count = 0;
            out->assigned[3 * (size_t)t + k] = id;
            out->members[member_count++] = t;
            g->count++;
            size_t top = 0;
            uint32_t arriving = neighbour[3 * (size_t)t + (k + 2) % 3];
            uint32_t leaving = neighbour[3 * (size_t)t + k];
            if (arriving != NONE)
                stack[top++] = arriving;
            if (leaving != NONE)
                stack[top++] = leaving;
            while (top > 0) {
                uint32_t u = stack[--top];
                tri_info *tri = tris + u;
                uint32_t j = corner_of(tri, g->vertex);
                if (j == NONE || out->assigned[3 * (size_t)u + j] != NONE)
                    continue;
                if (tri->any && out->assigned[3 * (size_t)u] == NONE &&
                    out->assigned[3 * (size_t)u + 1] == NONE &&
                    out->assigned[3 * (size_t)u + 2] == NONE)
                    tri->orient = g->orient; /* the first group to reach it decides */
                if (tri->orient != g->orient)
                    continue;
                out->assigned[3 * (size_t)u + j] = id;
                out->members[member_count++] = u;
                g->count++;
                arriving = neighbour[3 * (size_t)u + (j + 2) % 3];
                leaving = neighbour[3 * (size_t)u + j];
                if (arriving != NONE)
                    stack[top++] = arriving;
                if (leaving != NONE)
                    stack[top++] = leaving;
            }
        }
    }
    free(stack);
    return true;
}

/* ---- 5. frames --------------------------------------------------------------- */

/* One member of a group, seen from the group's vertex. */
typedef struct member_frame {
    const tri_info *tri;
    double os[3]; /* projected into the normal's plane, unit or zero */
    double ot[3]; /* likewise, computed only when needed (ot_ready) */
    double angle; /* corner angle in that plane */
    bool any;     /* contributes nothing */
    bool ot_ready;
} member_frame;

static void eval_member(const ir_mesh *mesh, const uint32_t *tri_indices, const tri_info *tri,
                        uint32_t corner, const double n[3], member_frame *m) {
    m->tri = tri;
    m->ot_ready = false;
    project_to_plane(tri->os, n, m->os);
    m->any = tri->any;
    double p[3][3];
    for (int c = 0; c < 3; c++)
        load3(mesh->positions + 3 * (size_t)tri_indices[(corner + (uint32_t)c + 2) % 3], p[c]);
    double a[3], b[3], pa[3], pb[3];
    for (int k = 0; k < 3; k++) {
        a[k] = p[0][k] - p[1][k]; /* towards the previous corner */
        b[k] = p[2][k] - p[1][k]; /* towards the next corner */
    }
    project_to_plane(a, n, pa);
    project_to_plane(b, n, pb);
    double c = dot3(pa, pb);
    c = c < -1.0 ? -1.0 : (c > 1.0 ? 1.0 : c);
    m->angle = acos(c);
    if (!isfinite(m->angle) || !isfinite(m->os[0] + m->os[1] + m->os[2]))
        m->any = true; /* NaN input contributes nothing */
}

static const double *member_ot(member_frame *m, const double n[3]) {
    if (!m->ot_ready) {
        project_to_plane(m->tri->ot, n, m->ot);
        m->ot_ready = true;
    }
    return m->ot;
}

/* Whether member j stays out of member i's sum: both of its directions point
 * exactly opposite to i's (MikkTSpace's sub-grouping at its default 180°
 * threshold). Members without a direction are never left out. */
static bool opposite(member_frame *i, member_frame *j, const double n[3]) {
    if (i->any || j->any || dot3(i->os, j->os) > OPPOSITE_COSINE)
        return false;
    return dot3(member_ot(i, n), member_ot(j, n)) <= OPPOSITE_COSINE;
}

/* The normalised, angle-weighted sum of the members' directions, except
 * members opposite to `self` (NULL: all). False when it has no direction. */
static bool member_sum(member_frame *m, uint32_t count, member_frame *self, const double n[3],
                       float out[3]) {
    double sum[3] = {0.0, 0.0, 0.0};
    for (uint32_t j = 0; j < count; j++) {
        if (m[j].any || (self != NULL && m + j != self && opposite(self, m + j, n)))
            continue;
        for (int k = 0; k < 3; k++)
            sum[k] += m[j].angle * m[j].os[k];
    }
    if (!normalize3(sum))
        return false;
    /* Each term lies in the plane; take out what rounding left along n. */
    double d = dot3(sum, n);
    for (int k = 0; k < 3; k++)
        sum[k] -= d * n[k];
    if (!normalize3(sum))
        return false;
    for (int k = 0; k < 3; k++)
        out[k] = (float)sum[k];
    return true;
}

static bool compute_frames(const ir_mesh *mesh, const tri_info *tris, const uint32_t *good,
                           const grouping *grouped, frame *frames) {
    uint32_t largest = 0;
    for (uint32_t g = 0; g < grouped->group_count; g++)
        if (grouped->groups[g].count > largest)
            largest = grouped->groups[g].count;
    member_frame *m = malloc((largest > 0 ? largest : 1) * sizeof *m);
    if (m == NULL)
        return false;
    for (uint32_t g = 0; g < grouped->group_count; g++) {
        const group *grp = grouped->groups + g;
        const uint32_t *members = grouped->members + grp->first;
        uint32_t count = grp->count;
        /* Welded corners share one normal: take the seed's. */
        const uint32_t *seed = mesh->indices + 3 * (size_t)good[members[0]];
        double n[3];
        if (!unit_normal(mesh, seed[corner_of(tris + members[0], grp->vertex)], n))
            continue; /* no frame: the corners stay invalid */
        for (uint32_t i = 0; i < count; i++) {
            const tri_info *tri = tris + members[i];
            eval_member(mesh, mesh->indices + 3 * (size_t)good[members[i]], tri,
                        corner_of(tri, grp->vertex), n, m + i);
        }
        float whole[3];
        bool whole_valid = member_sum(m, count, NULL, n, whole);
        for (uint32_t i = 0; i < count; i++) {
            frame *f =
                frames + 3 * (size_t)good[members[i]] + corner_of(tris + members[i], grp->vertex);
            bool excludes = false;
            for (uint32_t j = 0; j < count && count <= GROUP_EXCLUSION_LIMIT && !excludes; j++)
                excludes = opposite(m + i, m + j, n);
            if (excludes) {
                f->valid = member_sum(m, count, m + i, n, f->t);
            } else {
                f->valid = whole_valid;
                memcpy(f->t, whole, sizeof whole);
            }
            f->t[3] = grp->orient ? 1.0f : -1.0f;
        }
    }
    free(m);
    return true;
}

/* ---- 6. per-vertex output, splitting where corners disagree ------------------ */

static bool same_frame(const float *a, const float *b) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

/* Grows `*array` of `elem_size` elements from old_count to new_count, copying
 * element source[i] into old_count + i. NULL streams stay NULL. */
static bool grow_stream(void **array, size_t elem_size, uint32_t old_count, uint32_t new_count,
                        const uint32_t *source) {
    if (*array == NULL)
        return true;
    uint8_t *grown = realloc(*array, (size_t)new_count * elem_size);
    if (grown == NULL)
        return false;
    for (uint32_t i = old_count; i < new_count; i++)
        memcpy(grown + (size_t)i * elem_size, grown + (size_t)source[i - old_count] * elem_size,
               elem_size);
    *array = grown;
    return true;
}

typedef struct copies {
    uint32_t *source; /* copy i duplicates vertex source[i] */
    uint32_t *next;   /* next copy of the same source vertex, or NONE */
    float *tangent;   /* 4 per copy */
    uint32_t count;
    size_t cap;
} copies;

static void copies_free(copies *c) {
    free(c->source);
    free(c->next);
    free(c->tangent);
}

static bool copies_push(copies *c, uint32_t source, const float *tangent) {
    if (c->count == c->cap) {
        /* Three parallel arrays of one capacity: each grows from the same
         * one, so each ends at the same one. */
        size_t source_cap = c->cap, next_cap = c->cap, tangent_cap = c->cap;
        size_t needed = (size_t)c->count + 1;
        uint32_t *s = array_grow(c->source, &source_cap, needed, sizeof *s, 16);
        if (s == NULL)
            return false;
        c->source = s;
        uint32_t *n = array_grow(c->next, &next_cap, needed, sizeof *n, 16);
        if (n == NULL)
            return false;
        c->next = n;
        float *t = array_grow(c->tangent, &tangent_cap, needed, 4 * sizeof *t, 16);
        if (t == NULL)
            return false;
        c->tangent = t;
        c->cap = source_cap;
    }
    c->source[c->count] = source;
    c->next[c->count] = NONE;
    memcpy(c->tangent + 4 * (size_t)c->count, tangent, 4 * sizeof *tangent);
    c->count++;
    return true;
}

static bool split_vertices(ir_mesh *mesh, const copies *extra, float *tangents) {
    uint32_t old_count = mesh->vertex_count, new_count = old_count + extra->count;
    const uint32_t *src = extra->source;
    if (!grow_stream((void **)&mesh->positions, 3 * sizeof(float), old_count, new_count, src) ||
        !grow_stream((void **)&mesh->normals, 3 * sizeof(float), old_count, new_count, src) ||
        !grow_stream((void **)&mesh->texcoords[0], 2 * sizeof(float), old_count, new_count, src) ||
        !grow_stream((void **)&mesh->texcoords[1], 2 * sizeof(float), old_count, new_count, src) ||
        !grow_stream((void **)&mesh->colors, 4 * sizeof(float), old_count, new_count, src) ||
        !grow_stream((void **)&mesh->joints, 4 * sizeof(uint16_t), old_count, new_count, src) ||
        !grow_stream((void **)&mesh->weights, 4 * sizeof(float), old_count, new_count, src) ||
        !grow_stream((void **)&mesh->joints1, 4 * sizeof(uint16_t), old_count, new_count, src) ||
        !grow_stream((void **)&mesh->weights1, 4 * sizeof(float), old_count, new_count, src))
        return false; /* streams grown so far only have spare room: still valid */
    for (uint32_t t = 0; t < mesh->target_count; t++) /* a copy keeps its morph deltas */
        for (int k = 0; k < 3; k++)
            if (!grow_stream((void **)ir_morph_stream(&mesh->targets[t], k), 3 * sizeof(float),
                             old_count, new_count, src))
                return false;
    memcpy(tangents + 4 * (size_t)old_count, extra->tangent, 4 * sizeof(float) * extra->count);
    mesh->vertex_count = new_count;
    return true;
}

bool process_generate_tangents(ir_mesh *mesh, uint32_t texcoord_set) {
    if (mesh->tangents != NULL || mesh->normals == NULL || texcoord_set >= 2 ||
        mesh->texcoords[texcoord_set] == NULL || mesh->vertex_count == 0)
        return true;
    const float *uv = mesh->texcoords[texcoord_set];
    uint32_t n = mesh->vertex_count;
    uint32_t tri_count = mesh->index_count / 3;
    bool ok = false;
    uint32_t *weld = NULL, *good = NULL, *neighbour = NULL, *first_corner = NULL;
    uint32_t *corner_vertex = NULL;
    tri_info *tris = NULL;
    frame *frames = NULL;
    float *tangents = NULL;
    uint8_t *has_frame = NULL;
    grouping grouped = {0};
    copies extra = {0};

    weld = weld_vertices(mesh, uv);
    good = malloc(((size_t)tri_count + 1) * sizeof *good);
    tris = malloc(((size_t)tri_count + 1) * sizeof *tris);
    frames = calloc((size_t)tri_count * 3 + 1, sizeof *frames);
    neighbour = malloc(((size_t)tri_count * 3 + 1) * sizeof *neighbour);
    first_corner = malloc((size_t)n * sizeof *first_corner);
    corner_vertex = malloc(((size_t)tri_count * 3 + 1) * sizeof *corner_vertex);
    has_frame = calloc(n, 1);
    if (weld == NULL || good == NULL || tris == NULL || frames == NULL || neighbour == NULL ||
        first_corner == NULL || corner_vertex == NULL || has_frame == NULL)
        goto done;

    /* 1–2: proper triangles (three distinct welded corners), in order. */
    uint32_t good_count = 0;
    for (uint32_t t = 0; t < tri_count; t++) {
        const uint32_t *tri = mesh->indices + 3 * (size_t)t;
        uint32_t a = weld[tri[0]], b = weld[tri[1]], c = weld[tri[2]];
        if (a == b || b == c || a == c)
            continue;
        tri_info *info = tris + good_count;
        info->corner[0] = a;
        info->corner[1] = b;
        info->corner[2] = c;
        init_triangle(mesh, uv, tri, info);
        good[good_count++] = t;
    }
    /* 3–5 */
    if (!build_neighbours(tris, good_count, n, neighbour) ||
        !build_groups(tris, good_count, neighbour, &grouped) ||
        !compute_frames(mesh, tris, good, &grouped, frames))
        goto done;

    /* Degenerate triangles' corners: the first proper corner of the welded vertex. */
    for (uint32_t v = 0; v < n; v++)
        first_corner[v] = NONE;
    for (uint32_t g = 0; g < good_count; g++)
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t w = tris[g].corner[k];
            if (first_corner[w] == NONE)
                first_corner[w] = 3 * good[g] + k;
        }
    for (uint32_t t = 0, g = 0; t < tri_count; t++) {
        if (g < good_count && good[g] == t) {
            g++;
            continue;
        }
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t from = first_corner[weld[mesh->indices[3 * (size_t)t + k]]];
            if (from != NONE)
                frames[3 * (size_t)t + k] = frames[from];
        }
    }
    /* 6: the first frame of a vertex keeps it; other distinct frames get copies.
     * Corners without a frame carry no information and split nothing. */
    tangents = malloc((size_t)n * 4 * sizeof *tangents);
    if (tangents == NULL)
        goto done;
    uint32_t *first_copy = first_corner; /* reused: vertex -> its first copy */
    for (uint32_t v = 0; v < n; v++)
        first_copy[v] = NONE;
    for (uint32_t c = 0; c < tri_count * 3; c++) {
        uint32_t v = mesh->indices[c];
        const float *t = frames[c].t;
        corner_vertex[c] = v;
        if (!frames[c].valid)
            continue;
        if (!has_frame[v]) {
            has_frame[v] = 1;
            memcpy(tangents + 4 * (size_t)v, t, 4 * sizeof *t);
            continue;
        }
        if (same_frame(tangents + 4 * (size_t)v, t))
            continue;
        uint32_t copy = first_copy[v], last = NONE;
        while (copy != NONE && !same_frame(extra.tangent + 4 * (size_t)copy, t)) {
            last = copy;
            copy = extra.next[copy];
        }
        if (copy == NONE) {
            if (extra.count >= UINT32_MAX - n)
                goto done; /* no index left for another vertex */
            copy = extra.count;
            if (!copies_push(&extra, v, t))
                goto done;
            if (last == NONE)
                first_copy[v] = copy;
            else
                extra.next[last] = copy;
        }
        corner_vertex[c] = n + copy;
    }
    /* Vertices with no frame at all (only in degenerate or UV-less triangles,
     * or unreferenced): some tangent perpendicular to the normal. */
    for (uint32_t v = 0; v < n; v++)
        if (!has_frame[v])
            fallback_frame(mesh, v, tangents + 4 * (size_t)v);

    if (extra.count > 0) {
        float *grown = realloc(tangents, ((size_t)n + extra.count) * 4 * sizeof *grown);
        if (grown == NULL)
            goto done;
        tangents = grown;
        if (!split_vertices(mesh, &extra, tangents))
            goto done;
        memcpy(mesh->indices, corner_vertex, (size_t)tri_count * 3 * sizeof *corner_vertex);
    }
    mesh->tangents = tangents;
    tangents = NULL;
    ok = true;
done:
    free(weld);
    free(good);
    free(tris);
    free(frames);
    free(neighbour);
    free(first_corner);
    free(corner_vertex);
    free(has_frame);
    free(tangents);
    grouping_free(&grouped);
    copies_free(&extra);
    return ok;
}
