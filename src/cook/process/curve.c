/* curve.c — triangles sorted along a Morton curve of their centroids, and
 * where to cut the sorted run into compact chunks (chunks.c says why).
 *
 * The sort is a stable LSD radix sort of (code, triangle) keys. Every pass
 * runs over fixed blocks of triangles on the -j threads: each block counts
 * its codes' digits, the offsets are laid out bucket by bucket and, within a
 * bucket, block by block, and each block scatters its keys in its own order.
 * That is the serial sort's placement exactly, so the order depends on the
 * triangles alone, never on the thread or block count. */
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

#define MORTON_BITS 10u /* per axis: 30-bit codes, 1024 cells per side */
#define RADIX_BITS 10u
#define RADIX_BUCKETS (1u << RADIX_BITS)
#define BLOCK_TRIANGLES 16384u /* a block's keys and counts stay in the caches */

/* Spreads the low 10 bits of v to every third bit. */
static uint32_t morton_spread(uint32_t v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

static float triangle_centroid(const float *positions, const uint32_t *tri, int axis) {
    return (positions[3 * (size_t)tri[0] + axis] + positions[3 * (size_t)tri[1] + axis] +
            positions[3 * (size_t)tri[2] + axis]) *
           (1.0f / 3.0f);
}

/* The cells of the curve over a set of triangles: their centroids' box. */
typedef struct curve_frame {
    float lo[3];
    float scale;
} curve_frame;

/* The 30-bit Morton code of a triangle's centroid's cell. */
static uint32_t curve_code(const float *positions, const uint32_t *tri, const curve_frame *frame) {
    uint32_t cell[3];
    for (int a = 0; a < 3; a++) {
        float q = (triangle_centroid(positions, tri, a) - frame->lo[a]) * frame->scale;
        /* NaN and out-of-range centroids land in cell 0 or the last cell. */
        cell[a] =
            q > 0.0f ? (q < (float)(1u << MORTON_BITS) ? (uint32_t)q : (1u << MORTON_BITS) - 1) : 0;
    }
    return morton_spread(cell[0]) | morton_spread(cell[1]) << 1 | morton_spread(cell[2]) << 2;
}

/* One sort's shared state; each parallel_for item is one block. */
typedef struct curve_sort {
    const float *positions;
    const uint32_t *indices;
    uint32_t *sorted_out; /* where the sorted triangles go back: indices */
    size_t triangles;
    uint32_t blocks;
    float (*box)[6]; /* per block: centroid lo xyz, hi xyz */
    curve_frame frame;
    uint64_t *from, *to;              /* keys: code << 32 | triangle */
    uint32_t shift;                   /* the digit the current pass sorts by */
    size_t (*offsets)[RADIX_BUCKETS]; /* per block: counts, then where it writes */
    uint32_t *sorted;                 /* the gathered triangles */
    uint32_t *codes;                  /* the sorted codes, or NULL */
} curve_sort;

static void block_range(const curve_sort *sort, uint32_t block, size_t *first, size_t *end) {
    *first = (size_t)block * BLOCK_TRIANGLES;
    *end = *first + BLOCK_TRIANGLES < sort->triangles ? *first + BLOCK_TRIANGLES : sort->triangles;
}

static void box_block(void *ctx, uint32_t block) {
    curve_sort *sort = ctx;
    size_t first, end;
    block_range(sort, block, &first, &end);
    float *box = sort->box[block];
    for (int a = 0; a < 3; a++)
        box[a] = box[3 + a] = triangle_centroid(sort->positions, sort->indices + 3 * first, a);
    for (size_t t = first + 1; t < end; t++)
        for (int a = 0; a < 3; a++) {
            float c = triangle_centroid(sort->positions, sort->indices + 3 * t, a);
            box[a] = c < box[a] ? c : box[a];
            box[3 + a] = c > box[3 + a] ? c : box[3 + a];
        }
}

/* The blocks' boxes joined in block order. Centroids of finite positions are
 * never NaN (the driver rejects non-finite positions), so the min and max do
 * not depend on how the triangles were grouped. */
static void join_boxes(curve_sort *sort) {
    float hi[3];
    for (int a = 0; a < 3; a++) {
        sort->frame.lo[a] = sort->box[0][a];
        hi[a] = sort->box[0][3 + a];
    }
    for (uint32_t b = 1; b < sort->blocks; b++)
        for (int a = 0; a < 3; a++) {
            float lo = sort->box[b][a], high = sort->box[b][3 + a];
            sort->frame.lo[a] = lo < sort->frame.lo[a] ? lo : sort->frame.lo[a];
            hi[a] = high > hi[a] ? high : hi[a];
        }
    /* One scale for all axes keeps cells cubic, so chunks stay compact. */
    float extent = 0.0f;
    for (int a = 0; a < 3; a++)
        extent = hi[a] - sort->frame.lo[a] > extent ? hi[a] - sort->frame.lo[a] : extent;
    sort->frame.scale = extent > 0.0f ? (float)((1u << MORTON_BITS) - 1) / extent : 0.0f;
}

static void key_block(void *ctx, uint32_t block) {
    curve_sort *sort = ctx;
    size_t first, end;
    block_range(sort, block, &first, &end);
    for (size_t t = first; t < end; t++)
        sort->from[t] =
            (uint64_t)curve_code(sort->positions, sort->indices + 3 * t, &sort->frame) << 32 | t;
}

static uint32_t digit(const curve_sort *sort, uint64_t key) {
    return (uint32_t)(key >> sort->shift) & (RADIX_BUCKETS - 1);
}

static void count_block(void *ctx, uint32_t block) {
    curve_sort *sort = ctx;
    size_t first, end;
    block_range(sort, block, &first, &end);
    size_t *counts = sort->offsets[block];
    memset(counts, 0, sizeof sort->offsets[block]);
    for (size_t t = first; t < end; t++)
        counts[digit(sort, sort->from[t])]++;
}

/* Counts become offsets: bucket by bucket, and block by block within one.
 * Walked block by block (each block's row is contiguous): the bucket-major
 * walk strode a whole row per step, ~0.8 ms a pass for 62 blocks. */
static void lay_out_offsets(curve_sort *sort) {
    size_t start[RADIX_BUCKETS] = {0}; /* first, per-bucket totals */
    for (uint32_t b = 0; b < sort->blocks; b++)
        for (uint32_t d = 0; d < RADIX_BUCKETS; d++)
            start[d] += sort->offsets[b][d];
    size_t sum = 0;
    for (uint32_t d = 0; d < RADIX_BUCKETS; d++) {
        size_t n = start[d];
        start[d] = sum;
        sum += n;
    }
    for (uint32_t b = 0; b < sort->blocks; b++)
        for (uint32_t d = 0; d < RADIX_BUCKETS; d++) {
            size_t n = sort->offsets[b][d];
            sort->offsets[b][d] = start[d];
            start[d] += n;
        }
}

static void scatter_block(void *ctx, uint32_t block) {
    curve_sort *sort = ctx;
    size_t first, end;
    block_range(sort, block, &first, &end);
    size_t *offsets = sort->offsets[block];
    for (size_t t = first; t < end; t++)
        sort->to[offsets[digit(sort, sort->from[t])]++] = sort->from[t];
}

static void gather_block(void *ctx, uint32_t block) {
    curve_sort *sort = ctx;
    size_t first, end;
    block_range(sort, block, &first, &end);
    for (size_t t = first; t < end; t++) {
        memcpy(sort->sorted + 3 * t, sort->indices + 3 * (sort->from[t] & 0xffffffffu),
               3 * sizeof *sort->sorted);
        if (sort->codes != NULL)
            sort->codes[t] = (uint32_t)(sort->from[t] >> 32);
    }
}

/* The sorted triangles back into the caller's indices. */
static void copy_back_block(void *ctx, uint32_t block) {
    curve_sort *sort = ctx;
    size_t first, end;
    block_range(sort, block, &first, &end);
    memcpy(sort->sorted_out + 3 * first, sort->sorted + 3 * first,
           (end - first) * 3 * sizeof *sort->sorted_out);
}

/* The curve's frame over the triangles and every triangle's key, in
 * sort->from (2 * triangles entries: the sort's passes use the other half). */
static bool curve_keys(curve_sort *sort, unsigned threads) {
    sort->blocks = (uint32_t)((sort->triangles + BLOCK_TRIANGLES - 1) / BLOCK_TRIANGLES);
    sort->box = malloc(sort->blocks * sizeof *sort->box);
    sort->from = malloc(2 * sort->triangles * sizeof *sort->from);
    if (sort->box == NULL || sort->from == NULL)
        return false;
    sort->to = sort->from + sort->triangles;
    parallel_for(threads, sort->blocks, box_block, sort);
    join_boxes(sort);
    parallel_for(threads, sort->blocks, key_block, sort);
    return true;
}

bool mesh_sort_spatially_on(unsigned threads, const float *positions, uint32_t *indices,
                            size_t index_count, uint32_t *codes, uint32_t *sorted_copy) {
    size_t triangles = index_count / 3;
    if (triangles < 2) {
        if (codes != NULL && triangles == 1)
            codes[0] = 0; /* the frame of one centroid is that centroid's cell */
        if (sorted_copy != NULL)
            memcpy(sorted_copy, indices, index_count * sizeof *sorted_copy);
        return true;
    }
    curve_sort sort = {.positions = positions,
                       .indices = indices,
                       .sorted_out = indices,
                       .triangles = triangles,
                       .codes = codes};
    bool ok = curve_keys(&sort, threads);
    uint64_t *keys = sort.from;
    sort.offsets = ok ? malloc(sort.blocks * sizeof *sort.offsets) : NULL;
    /* The caller's copy is where the triangles are gathered anyway. */
    sort.sorted = !ok                   ? NULL
                  : sorted_copy != NULL ? sorted_copy
                                        : malloc(index_count * sizeof *sort.sorted);
    ok = ok && sort.offsets != NULL && sort.sorted != NULL;
    if (ok) {
        /* Keys: Morton code above, triangle number below; sorting the code's
         * digits stably keeps equal codes in source order. */
        for (sort.shift = 32; sort.shift < 32 + 3 * MORTON_BITS; sort.shift += RADIX_BITS) {
            parallel_for(threads, sort.blocks, count_block, &sort);
            lay_out_offsets(&sort);
            parallel_for(threads, sort.blocks, scatter_block, &sort);
            uint64_t *swap = sort.from;
            sort.from = sort.to;
            sort.to = swap;
        }
        parallel_for(threads, sort.blocks, gather_block, &sort);
        parallel_for(threads, sort.blocks, copy_back_block, &sort);
    }
    free(sort.box);
    free(sort.offsets);
    free(keys);
    if (sort.sorted != sorted_copy)
        free(sort.sorted);
    return ok;
}

bool mesh_sort_spatially(const float *positions, uint32_t *indices, size_t index_count) {
    return mesh_sort_spatially_on(1, positions, indices, index_count, NULL, NULL);
}

/* The larger, the coarser the curve's block boundary between codes a and b
 * (0: the same cell): the number of the highest bit in which they differ. */
static int boundary_level(uint32_t a, uint32_t b) {
    uint32_t x = a ^ b;
    return x != 0 ? 32 - __builtin_clz(x) : 0;
}

void mesh_curve_cuts_of(const uint32_t *codes, size_t triangles, uint32_t count, uint32_t *cuts) {
    cuts[0] = 0;
    cuts[count] = (uint32_t)triangles;
    if (count < 2 || triangles < 2) {
        for (uint32_t c = 1; c < count; c++)
            cuts[c] = (uint32_t)(triangles * c / count);
        return;
    }
    /* Each cut moves, within half a chunk of the even cut, to the coarsest
     * block boundary (then the nearest one, then the earlier): a chunk is
     * then a few whole blocks of the curve, compact, instead of a block and
     * ragged pieces of its neighbours, whose borders cost the vertex cache. */
    size_t window = triangles / count / 2;
    for (uint32_t c = 1; c < count; c++) {
        size_t even = triangles * c / count, best = even;
        int best_level = -1;
        size_t first = even > window ? even - window : 1, last = even + window;
        for (size_t t = first < 1 ? 1 : first; t <= last && t < triangles; t++) {
            int level = boundary_level(codes[t - 1], codes[t]);
            size_t distance = t > even ? t - even : even - t;
            size_t best_distance = best > even ? best - even : even - best;
            if (level > best_level || (level == best_level && distance < best_distance)) {
                best_level = level;
                best = t;
            }
        }
        cuts[c] = (uint32_t)(best > cuts[c - 1] ? best : cuts[c - 1]);
    }
}

bool mesh_curve_cuts(const float *positions, const uint32_t *indices, size_t index_count,
                     uint32_t count, uint32_t *cuts) {
    size_t triangles = index_count / 3;
    if (count < 2 || triangles < 2) {
        mesh_curve_cuts_of(NULL, triangles, count, cuts);
        return true;
    }
    curve_sort sort = {.positions = positions, .indices = indices, .triangles = triangles};
    uint32_t *codes = malloc(triangles * sizeof *codes);
    bool ok = codes != NULL && curve_keys(&sort, 1);
    for (size_t t = 0; ok && t < triangles; t++)
        codes[t] = (uint32_t)(sort.from[t] >> 32);
    if (ok)
        mesh_curve_cuts_of(codes, triangles, count, cuts);
    free(sort.box);
    free(sort.from);
    free(codes);
    return ok;
}
