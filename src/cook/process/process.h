/*
 * process.h — the process stage: pure transformations of the IR and of
 * decoded images.
 *
 *   Meshes (this header):
 *     topology.c   submeshes grouped by topology: triangles, lines, points
 *     normals.c    smooth normals for meshes without them
 *     tangents.c   MikkTSpace-compatible tangents
 *     merge.c      mesh.merge: static nodes baked into one world-space mesh
 *     optimize.c   welding and GPU-friendly vertex order
 *     order.c      vertex cache and overdraw order, chunk by chunk
 *     weld.c       the welding remap: identical vertices found by hash
 *     chunks.c     large submeshes cut into spatial chunks
 *     curve.c      the Morton curve those chunks are cut along
 *     lods.c       simplified levels of detail (and lods_welded.c: kiln's
 *                  simplifier across attribute seams where it stalls, and
 *                  the choice between that level and the other fallback's;
 *                  lods_points.c: a point level's error)
 *     surface_distance.c  how far apart two triangle surfaces are, sampled
 *     simplify.c   kiln's own quadric edge-collapse simplifier (and
 *                  simplify_topology.c: which positions may move)
 *     meshlets.c   meshlets with culling data
 *     meshopt_checked.c   meshoptimizer calls with their input checked first
 *     mesh.c       the steps above in order, as settings ask
 *   Images: mips.c  mip chains (and mips_simd.c: their AVX2/AVX-512 rows)
 *           mips_texel.c    colour-space and 8-bit texel conversion, a
 *                           decoded image in its stored encoding
 *           mips_resample.c area resampling
 *           height_normal.c  a tangent-space normal map from a height map
 *   Animation: anim.c  key reduction and quantization
 *   Shaders (spirv.h): spirv_reflect.c (SPIRV-Cross reflection),
 *                      spirv_stage.c (its result checked, joined to a program),
 *                      spirv_validate.c (SPIRV-Tools' validator)
 *   (Triangulation, normal repair and bounds are core's: core.h.)
 *
 * process may use core and common.
 */
#ifndef KILN_COOK_PROCESS_PROCESS_H
#define KILN_COOK_PROCESS_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/core.h"

/* ---------------------------------------------------------------------------
 * Meshes
 * ------------------------------------------------------------------------- */

/* Submeshes sorted by topology (triangles, lines, points), stably: level 0's
 * indices are moved with them (topology.c). Run before anything else of the
 * mesh stage. False when out of memory, leaving the mesh as it was. */
bool process_sort_topology(ir_mesh *mesh);
/* How many indices the leading triangle submeshes hold: after
 * process_sort_topology, every triangle of level 0 is in [0, this). */
uint32_t mesh_triangle_index_count(const ir_mesh *mesh);

/* Fills mesh->normals with angle-weighted smooth normals when it has none,
 * from mesh->indices[0 .. index_count) read as triangles (process_mesh
 * narrows index_count to the triangles). */
bool process_generate_normals(ir_mesh *mesh);

/* Fills mesh->tangents (xyzw, bitangent = w * cross(normal, tangent)) with
 * MikkTSpace-compatible tangents from the normals and texcoords[texcoord_set],
 * when it has none and both streams exist (else leaves it NULL). May split
 * vertices whose corners need different frames (mirrored UVs): vertex_count
 * grows (copies are appended, so indices past index_count stay valid), every
 * stream is copied and indices are rewritten. Reads mesh->indices[0 ..
 * index_count) as triangles, like process_generate_normals. False only on
 * allocation failure, leaving the mesh valid. (process/tangents.c) */
bool process_generate_tangents(ir_mesh *mesh, uint32_t texcoord_set);

/* mesh.merge: replaces the asset's meshes with one world-space mesh baked from
 * every node that draws a mesh neither skinned nor with morph targets, one submesh per material
 * (merge.c). The nodes then draw nothing and a new root node "merged" (source
 * -1, identity, in every scene) draws mesh 0. An asset without such nodes is
 * left as it is. */
bool process_merge_asset(ir_asset *asset, cook_diag *diag, const char *path);

/* Chunks (process/chunks.c): a submesh of at least two chunks' worth of
 * triangles is cut into spatially compact chunks of about
 * KILN_MESH_CHUNK_TRIANGLES triangles that the order, LOD and meshlet stages
 * process independently, in parallel. */
#define KILN_MESH_CHUNK_TRIANGLES 65536u

/* One chunk: a contiguous range of one submesh's level-0 indices. */
typedef struct mesh_chunk {
    uint32_t submesh;
    uint32_t index_offset;
    uint32_t index_count;
    bool split; /* the submesh has more than one chunk */
} mesh_chunk;

/* Triangles per LOD and meshlet chunk: settings->mesh_chunk_triangles or
 * KILN_MESH_CHUNK_TRIANGLES. */
uint32_t mesh_chunk_size(const cook_settings *settings);
/* How many chunks of about chunk_triangles a submesh of `triangles` triangles
 * is cut into (1: none, when it has less than two chunks' worth). */
uint32_t mesh_chunk_count(uint32_t triangles, uint32_t chunk_triangles);
/* How many chunks submesh `sub` is cut into: mesh_chunk_count of its
 * triangles; lines and points are never cut (1). */
uint32_t submesh_chunk_count(const ir_submesh *sub, uint32_t chunk_triangles);
/* Every submesh's chunks in submesh order (one per small submesh, and per
 * line or point submesh); caller frees. NULL when out of memory. */
mesh_chunk *mesh_chunks(const ir_mesh *mesh, uint32_t chunk_triangles, uint32_t *count);
/* A copy of level 0 (every submesh's range) in which each submesh that is cut
 * into chunks is sorted spatially (mesh_sort_spatially); caller frees. It is
 * mesh_level0_copy then mesh_sort_level0 (process_order_lods_meshlets has
 * order_begin make it from the curve order it finds anyway). */
uint32_t *mesh_spatial_level0(const ir_mesh *mesh, uint32_t chunk_triangles, unsigned threads);
/* Where level 0 ends: the end of the submesh range that ends last. */
size_t mesh_level0_end(const ir_mesh *mesh);
/* A copy of level 0 as it is (caller frees); NULL when out of memory. */
uint32_t *mesh_level0_copy(const ir_mesh *mesh);
/* Sorts each submesh range of `level0` that is cut into chunks spatially, on
 * up to `threads` threads; reads only the mesh's positions and submeshes.
 * False when out of memory. */
bool mesh_sort_level0(const ir_mesh *mesh, uint32_t chunk_triangles, unsigned threads,
                      uint32_t *level0);
/* Reorders triangles along a Morton curve of their centroids (stable), so
 * contiguous ranges are spatially compact (curve.c). False when out of
 * memory. The _on form runs on up to `threads` threads, with the same result
 * whatever their number, and with `codes` non-NULL also gives each sorted
 * triangle's curve code there (index_count / 3 entries), what
 * mesh_curve_cuts_of reads; with `sorted_copy` non-NULL (index_count
 * entries, not overlapping `indices`) the sorted triangles there too. */
bool mesh_sort_spatially(const float *positions, uint32_t *indices, size_t index_count);
bool mesh_sort_spatially_on(unsigned threads, const float *positions, uint32_t *indices,
                            size_t index_count, uint32_t *codes, uint32_t *sorted_copy);
/* Where to cut triangles sorted along the curve (mesh_sort_spatially) into
 * `count` chunks: chunk c is triangles cuts[c] up to cuts[c + 1] (cuts holds
 * count + 1 entries, 0 first and the triangle count last). Each cut lies
 * within half a chunk of the even cut, on the coarsest boundary between
 * blocks of the curve there, so that chunks are compact; the cuts depend on
 * the triangles alone. False when out of memory. */
bool mesh_curve_cuts(const float *positions, const uint32_t *indices, size_t index_count,
                     uint32_t count, uint32_t *cuts);
/* The same cuts from the sorted triangles' codes (mesh_sort_spatially_on's),
 * without computing them again; codes may be NULL when count < 2. */
void mesh_curve_cuts_of(const uint32_t *codes, size_t triangles, uint32_t count, uint32_t *cuts);

/* A chunk's triangles over a compact copy of the vertices they use. */
typedef struct mesh_local {
    uint32_t *indices; /* local vertex numbers */
    size_t index_count;
    uint32_t *vertices; /* local -> mesh vertex, in first-use order */
    float *positions;   /* xyz per local vertex */
    size_t vertex_count;
} mesh_local;

bool mesh_local_build(mesh_local *local, const uint32_t *indices, size_t index_count,
                      const float *positions);
/* The vertex numbers indices[0..index_count) span, *lo..*hi, and whether that
 * span is narrow: at most two numbers per index, where a table over it beats
 * hashing (mesh_local_build) and kiln's meshlet builder, which numbers
 * through such a table, needs no compact copy (meshlets.c). An empty list
 * is narrow, its span empty (*lo > *hi). */
bool index_span_narrow(const uint32_t *indices, size_t index_count, uint32_t *lo, uint32_t *hi);
/* Maps local vertex numbers back to the mesh's (in may equal out). */
void mesh_local_to_global(const mesh_local *local, const uint32_t *in, size_t count, uint32_t *out);
void mesh_local_free(mesh_local *local);

/* A step of the mesh stage cut into independent items, so that several steps
 * can share one parallel_for (process_mesh): *_begin plans (false when out of
 * memory), item(job, i) runs on any thread, *_finish assembles the items'
 * results in a fixed order, frees the job and returns false on failure. */
typedef struct mesh_step {
    void *job;
    uint32_t items;
    parallel_fn item;
    void (*discard)(void *job); /* frees a job that will not be finished */
} mesh_step;

/* kiln's simplifier (simplify.c): `indices` (triangles over `positions`, 3
 * floats a vertex) reduced towards target_index_count by collapsing edges
 * into one of their ends, while a collapse costs at most target_error
 * (relative to the largest extent of all vertex_count positions, as
 * meshopt_simplify's error). Attribute seams (vertices at one position) keep
 * their wedges together; with lock_border, vertices on a border never move
 * (meshopt_SimplifyLockBorder). Writes *result_count indices to dest (room
 * for index_count; may be `indices` itself) and the largest collapse's error
 * to *result_error. False, writing nothing, for invalid input or out of
 * memory. Deterministic. */
bool simplify_triangles(uint32_t *dest, const uint32_t *indices, size_t index_count,
                        const float *positions, size_t vertex_count, size_t target_index_count,
                        float target_error, bool lock_border, size_t *result_count,
                        float *result_error);

/* The same, level after level: simplify_begin takes the triangles (NULL for
 * invalid input or out of memory; the arguments as above), each
 * simplify_continue reduces the current level further, towards a smaller
 * target, writes it to dest (room for the count begin took) and returns its
 * count, with the largest error since begin, relative to the original
 * triangles (border positions and long seams carry their quadrics over; a
 * manifold position's or a short seam's cost at a later level is its
 * distance to the last level's planes plus its error so far). */
typedef struct simplify_session simplify_session;
simplify_session *simplify_begin(const uint32_t *indices, size_t index_count,
                                 const float *positions, size_t vertex_count, bool lock_border);
size_t simplify_continue(simplify_session *session, size_t target_index_count, float target_error,
                         uint32_t *dest, float *result_error);
void simplify_end(simplify_session *session);
/* The largest extent of the positions begin took, the unit of the session's
 * errors: meshopt_simplifyScale's value for finite positions, without a
 * second pass over them. */
float simplify_extent(const simplify_session *session);
/* The same session on `indices` (triangles of `mesh`, level 0 of a submesh,
 * kept by reference until the end) welded by position (lods_welded.c):
 * attribute seams do not hold a collapse back. A level's corners are mapped
 * back to vertices of the mesh at their positions: the normal nearest its
 * triangle's, then texture coordinates from one side of a seam. The LOD
 * step's fallback where kiln's simplifier stalls. NULL when out of memory or
 * for invalid input. */
typedef struct welded_session welded_session;
welded_session *welded_begin(const ir_mesh *mesh, const uint32_t *indices, size_t index_count);
size_t welded_continue(welded_session *session, size_t target_index_count, float target_error,
                       uint32_t *dest, float *result_error);
/* A level where kiln's simplifier stalled: the other fallback's level is in
 * dest (*count indices, 0 for none; *error). The welded session's level
 * towards `target`, or towards *count if smaller, replaces it when it
 * reaches the target and the other does not (the sloppy simplifier's grid
 * can miss it by far), or when it is no farther from level 0 in both the
 * largest and the mean sampled distance (surface_distance). A welded level
 * not kept, or over `stall` indices, ends the session (*session NULL).
 * `scratch` holds level 0's count. False when out of memory. */
bool welded_choose(welded_session **session, cook_vertex_cache cache, size_t stall, size_t target,
                   float target_error, uint32_t *scratch, uint32_t *dest, size_t *count,
                   float *error);
void welded_end(welded_session *session);

/* How far apart two triangle surfaces are, sampled (surface_distance.c): the
 * distance from points of one to the nearest triangle of the other, through
 * a uniform grid of triangles. */
typedef struct triangle_grid {
    const float *positions;
    const uint32_t *indices;
    float lo[3], cell;
    uint32_t dims[3];
    uint32_t *starts; /* per cell, into items; dims product + 1 entries */
    uint32_t *items;  /* triangle numbers */
    size_t triangles;
    uint32_t *seen; /* per triangle: the last query that tested it */
    uint32_t query;
} triangle_grid;

/* A grid over the triangles `indices` (kept by reference, with positions)
 * covering the box lo..hi, cells about a triangle's size; false when out of
 * memory. */
bool triangle_grid_build(triangle_grid *g, const float *positions, const uint32_t *indices,
                         size_t index_count, const float lo[3], const float hi[3]);
/* Distance from p to the nearest triangle within the 27 cells around it; a
 * point with none there is at least one cell away (reported as that). */
double triangle_grid_distance(triangle_grid *g, const float *p);
void triangle_grid_free(triangle_grid *g);
/* Max and mean distance from the corners and centroids of `indices` to the
 * surface in `g`: added to *max, *sum and *samples. */
void surface_distance_one_way(const float *positions, const uint32_t *indices, size_t index_count,
                              triangle_grid *g, double *max, double *sum, uint64_t *samples);

/* The symmetric sampled distance of triangles a and b (both ways, within the
 * box lo..hi): the largest and the mean; *ok false when out of memory. */
void surface_distance(const float *positions, const uint32_t *a, size_t a_count, const uint32_t *b,
                      size_t b_count, const float lo[3], const float hi[3], double *max,
                      double *mean, bool *ok);
/* The same with a's grid built already (over lo..hi), for many b against
 * one a. */
void surface_distance_on(triangle_grid *a_grid, const float *positions, const uint32_t *a,
                         size_t a_count, const uint32_t *b, size_t b_count, const float lo[3],
                         const float hi[3], double *max, double *mean, bool *ok);

/* A point level's error (lods_points.c): the largest distance from a point
 * of `source` to the nearest of `kept` (indices into `positions`), into
 * *error; false when out of memory. */
bool lods_points_error(const float *positions, const uint32_t *source, size_t source_count,
                       const uint32_t *kept, size_t kept_count, float *error);
/* LODs: one item per chunk; simplifies `level0` (mesh_spatial_level0, kept
 * alive until finish); finish takes level 0 itself from mesh->indices. */
bool lods_begin(const ir_mesh *mesh, const cook_settings *settings, const uint32_t *level0,
                mesh_step *step);
bool lods_finish(mesh_step *step, ir_mesh *mesh);
/* Meshlets of level 0 (`level0` as for LODs): one item per chunk. */
bool meshlets_begin(const ir_mesh *mesh, const cook_settings *settings, const uint32_t *level0,
                    mesh_step *step);
bool meshlets_finish(mesh_step *step, ir_mesh *mesh);
/* The order step (order.c): order_begin sorts each submesh that is cut into
 * chunks along the Morton curve, in place (on up to `threads` threads), and
 * plans one item per chunk (mesh_curve_cuts; a whole submesh when it is not
 * cut), each ordering its
 * triangles for the vertex cache (the order `cache` names) and then overdraw
 * in place. With `spatial`
 * it keeps a copy of the sorted level 0 for the LOD and meshlet steps (what
 * mesh_spatial_level0 gives), order_spatial_level0, alive until order_end.
 * order_end frees the job and returns false when an item ran out of memory;
 * order_begin returns NULL when out of memory. */
typedef struct order_job order_job;
order_job *order_begin(ir_mesh *mesh, uint32_t chunk_triangles, unsigned threads,
                       cook_vertex_cache cache, bool spatial, mesh_step *step);
const uint32_t *order_spatial_level0(const order_job *job);
bool order_end(order_job *job);

/* Merges vertices that are identical in every stream (optimize.c), morph
 * target deltas included. Across topologies too: a merged vertex is the same
 * data, whatever draws it. */
bool process_weld(ir_mesh *mesh);
/* The same on up to `threads` threads (the result does not depend on it). */
bool process_weld_on(ir_mesh *mesh, unsigned threads);
/* One vertex stream for weld_vertex_remap: `size` bytes per vertex, packed. */
typedef struct weld_stream {
    const uint8_t *data;
    size_t size; /* a multiple of 4 */
} weld_stream;
/* The welding remap (weld.c): remap[v] is the new number of vertex v, equal
 * for vertices identical byte for byte in every stream, given in order of
 * first use by `indices` (any count; every index below vertex_count);
 * vertices no index uses get ~0u. Returns the number of new vertices, or
 * SIZE_MAX when out of memory or a stream's size is not a multiple of 4. */
size_t weld_vertex_remap(uint32_t *remap, const uint32_t *indices, size_t index_count,
                         size_t vertex_count, const weld_stream *streams, size_t stream_count);
/* The same remap, found on up to `threads` threads. */
size_t weld_vertex_remap_on(unsigned threads, uint32_t *remap, const uint32_t *indices,
                            size_t index_count, size_t vertex_count, const weld_stream *streams,
                            size_t stream_count);
/* After welding: drops the triangles with two corners on one vertex and the
 * repeats of a triangle of the same submesh (degenerate.c), compacting the
 * submeshes' index ranges; counts each. False when out of memory. */
bool process_drop_degenerate(ir_mesh *mesh, uint64_t *degenerate, uint64_t *repeated);
/* mesh.skin_influences: with 4, a mesh holding eight influences per vertex
 * (joints1/weights1) keeps the four strongest, renormalised to sum to 1, and
 * drops the second set; with 8 it stays as it is. Returns how many vertices
 * lost an influence of some weight. */
uint32_t process_skin_influences(ir_mesh *mesh, uint32_t influences);
/* Reorders each triangle submesh's triangles for the vertex cache, then
 * overdraw, a large submesh chunk by chunk (order_begin; on settings->threads
 * threads); lines and points keep their order. */
bool process_optimize_order(ir_mesh *mesh, const cook_settings *settings);
/* Renumbers vertices in first-use order over all indices; drops unused ones
 * (meshlet vertex lists are renumbered too). */
bool process_optimize_fetch(ir_mesh *mesh);
/* The same, the streams remapped on up to `threads` threads. */
bool process_optimize_fetch_on(ir_mesh *mesh, unsigned threads);
/* process_optimize_fetch_on in three steps: the first-use remap (caller
 * frees; NULL when out of memory) with *used vertices kept, applied to the
 * indices only; then to every vertex stream, positions remapped into a new
 * *positions (mesh->positions kept as it is; NULL after a failure); then
 * fetch_remap_finish puts those in place and remaps the meshlet vertex
 * lists and the vertex count. Until the last, positions and count are as
 * they were: what meshlets are built from. */
unsigned int *fetch_remap_indices(ir_mesh *mesh, size_t *used);
bool fetch_remap_streams(ir_mesh *mesh, const unsigned int *remap, size_t used, float **positions,
                         unsigned threads);
void fetch_remap_finish(ir_mesh *mesh, const unsigned int *remap, size_t used, float *positions);

/* Appends settings->mesh_lods reduced levels per submesh (lods.c): triangles
 * through the simplifier, points through the point simplifier; lines are not
 * reduced (every level reused). */
bool process_build_lods(ir_mesh *mesh, const cook_settings *settings);

/* Splits each triangle submesh's level 0 into meshlets with bounds and cones
 * (meshlets.c); lines and points get none. */
bool process_build_meshlets(ir_mesh *mesh, const cook_settings *settings);

/* Order, LODs and meshlets (as the settings ask) in one parallel pass over
 * the welded mesh (mesh.c): LODs and meshlets come from level 0 as the weld
 * left it (sorted spatially), while the order step reorders level 0 itself.
 * Run process_optimize_fetch after it. */
bool process_order_lods_meshlets(ir_mesh *mesh, const cook_settings *settings);
/* The same followed by process_optimize_fetch_on, with the same result: the
 * levels are joined and the fetch remap found while meshlets are still being
 * built (mesh.c). */
bool process_order_lods_meshlets_fetch(ir_mesh *mesh, const cook_settings *settings);

/* The whole mesh process stage in order: topology sort, normals and tangents
 * (of the triangles), weld, then order, LODs and meshlets together, then
 * fetch, as the settings ask (process/mesh.c). Reports to ctx->diag. */
bool process_mesh(cook_context *ctx, ir_mesh *mesh, const ir_asset *asset);

/* ---------------------------------------------------------------------------
 * meshopt_checked.c — meshoptimizer on buffers a stage makes up (LOD levels,
 * chunks, ranges): its documented preconditions checked first, so bad input
 * fails a step, never the process
 * ------------------------------------------------------------------------- */

/* A whole number of triangles, every index below vertex_count. */
bool meshopt_triangles_valid(const uint32_t *indices, size_t index_count, size_t vertex_count);
/* meshopt_simplify / meshopt_simplifySloppy of positions (3 floats each):
 * `target` is clamped to the input and rounded down to whole triangles; 0
 * (and *result_error 0) for empty or invalid input. */
size_t meshopt_checked_simplify(uint32_t *dest, const uint32_t *indices, size_t index_count,
                                const float *positions, size_t vertex_count, size_t target,
                                float target_error, unsigned options, float *result_error);
size_t meshopt_checked_simplify_sloppy(uint32_t *dest, const uint32_t *indices, size_t index_count,
                                       const float *positions, size_t vertex_count, size_t target,
                                       float target_error, float *result_error);
/* meshopt_optimizeVertexFetchRemap of a whole IR index buffer (every index
 * below vertex_count, as the model driver checked) of any length: one of
 * lines or points is padded for meshoptimizer, with the same remap. SIZE_MAX
 * when out of memory. */
size_t meshopt_checked_fetch_remap(unsigned int *remap, const uint32_t *indices, size_t index_count,
                                   size_t vertex_count);
/* meshopt_simplifyPoints of the vertices (3 floats each) towards `target`
 * points (clamped to vertex_count): writes at most that many vertex indices to
 * dest and returns how many; 0 for empty input or a target of 0. */
size_t meshopt_checked_simplify_points(uint32_t *dest, const float *positions, size_t vertex_count,
                                       size_t target);
/* Vertex cache order in place, then (with `overdraw`) overdraw order allowing
 * 5% worse cache use. False, leaving the indices, for invalid input. */
bool meshopt_checked_order(uint32_t *indices, size_t index_count, const float *positions,
                           size_t vertex_count, bool overdraw);
/* kiln's vertex cache order of the triangles, in place (vertex_cache.c): a
 * permutation of them, each keeping its corners in order. False, leaving the
 * indices, for invalid input (as meshopt_triangles_valid), more than ~1.4
 * billion triangles, 4 x vertices + 3 x triangles of 2^32 or more (its
 * working array's 32-bit places), or out of memory. */
bool vertex_cache_order(uint32_t *indices, size_t index_count, size_t vertex_count);
/* The scores kiln's order gives a vertex: by its age in a FIFO of
 * VERTEX_CACHE_FIFO (the insertions since its own; VERTEX_CACHE_FIFO: not
 * cached) plus by its triangles not drawn yet (VERTEX_CACHE_VALENCE: that
 * many or more; live[0] is not used). */
#define VERTEX_CACHE_FIFO 16
#define VERTEX_CACHE_VALENCE 8
typedef struct vertex_cache_scores {
    float cache[VERTEX_CACHE_FIFO + 1];
    float live[VERTEX_CACHE_VALENCE + 1];
} vertex_cache_scores;
extern const vertex_cache_scores vertex_cache_tuned; /* what vertex_cache_order uses */
/* The scores for reduced levels (the simplifier's output), found on them. */
extern const vertex_cache_scores vertex_cache_tuned_reduced;
/* vertex_cache_order with other scores (bench/tune_vertex_cache.py). */
bool vertex_cache_order_scored(uint32_t *indices, size_t index_count, size_t vertex_count,
                               const vertex_cache_scores *scores);
/* The vertex cache order `cache` names (mesh.vertex_cache), then with
 * `overdraw` meshoptimizer's overdraw order, as meshopt_checked_order; false,
 * leaving the indices, when the cache order refused them. */
bool mesh_cache_order(uint32_t *indices, size_t index_count, const float *positions,
                      size_t vertex_count, cook_vertex_cache cache, bool overdraw);
/* The vertex cache order `cache` names for a reduced level (kiln's with
 * vertex_cache_tuned_reduced), no overdraw order; false, leaving the indices,
 * for invalid input. */
bool mesh_cache_order_reduced(uint32_t *indices, size_t index_count, size_t vertex_count,
                              cook_vertex_cache cache);
/* meshopt_optimizeOverdraw (threshold 1.05) of triangles already in cache order. */
bool meshopt_checked_overdraw(uint32_t *indices, size_t index_count, const float *positions,
                              size_t vertex_count);
/* Meshlet limits meshoptimizer accepts: 3..255 vertices, 4..512 triangles in
 * multiples of 4. */
bool meshopt_meshlet_limits_valid(size_t max_vertices, size_t max_triangles);

/* ---------------------------------------------------------------------------
 * A normal map from a height map (height_normal.c)
 * ------------------------------------------------------------------------- */

/* The tangent-space normal map of `height` (its first channel, 0..1, as the
 * height) into rgba (width * height * 4 bytes): at each texel the Sobel
 * gradient (Sobel and Feldman, 1968; Gonzalez and Woods, Digital Image
 * Processing, 3.6.4) with edges clamped, divided by 8 so that a ramp of one
 * unit per texel has slope 1, scaled by `strength`:
 *   n = normalize(-strength * dh/dx, strength * dh/dy_down, 1)
 * (+X right, +Y up the image, as glTF's normal textures), stored as
 * round((n * 0.5 + 0.5) * 255), alpha 255. */
void process_height_to_normal(const ir_decoded_image *height, float strength, uint8_t *rgba);

/* ---------------------------------------------------------------------------
 * Images (mips.c, mips_texel.c, mips_resample.c)
 * ------------------------------------------------------------------------- */

float image_srgb_to_linear(float value);
float image_linear_to_srgb(float value);
/* image_linear_to_srgb then rounded to 8 bits (0..255, clamped), exactly as
 * lrintf(255 * image_linear_to_srgb(v)) would give, without powf. */
uint8_t image_linear_to_srgb8(float value);
/* k / 255.0f from a table. */
float image_unorm8_to_float(uint8_t value);
/* image_float_to_unorm8 (0..1 float to 8 bits) is core's (core.h). */

/* Area (box with exact fractional coverage) resampling of float RGBA from
 * sw x sh to dw x dh, separable. dst holds dw * dh * 4 floats. */
bool image_resample_area(const float *src, uint32_t sw, uint32_t sh, float *dst, uint32_t dw,
                         uint32_t dh);

typedef enum mip_mode {
    MIP_MODE_COLOR_SRGB = 1, /* stored values sRGB-encoded, alpha linear */
    MIP_MODE_LINEAR,         /* stored values are linear data */
    MIP_MODE_NORMAL,         /* xyz = 2v - 1, renormalised per level */
} mip_mode;

#define MIP_MAX_LEVELS 16u

typedef struct mip_options {
    mip_mode mode;
    bool alpha_weighted; /* premultiply for filtering (colour does not bleed) */
    float alpha_cutoff;  /* > 0: preserve alpha-test coverage at this cutoff */
    uint32_t max_size;   /* 0: no limit; else level 0 fits in max_size² */
    bool mipmaps;        /* false: level 0 only */
    bool skip_level0;    /* leave level 0 NULL when it needs no downscale */
    /* Level 0's size is made a multiple of these (a block format's texel
     * block; 0 or 1: any size): resampled to it when level 0 is resampled
     * anyway (max_size) or align_by_padding is false, else extended to it by
     * repeating the right column and bottom row (then level 0 is built, never
     * skipped). Lower levels halve as usual. */
    uint32_t align_width, align_height;
    bool align_by_padding;
    bool levels8;     /* RGBA8 levels (levels8) instead of float levels */
    unsigned threads; /* rows of a level run on this many threads (0, 1: this one) */
    /* The first level filtered (level 0 when resized, else level 1) keeps no
     * whole float working copy when the next level halves it exactly: the
     * two are made together in bands of `band_rows` rows of the next level
     * (0: about 4 MiB of working rows). whole_levels keeps every working copy
     * whole instead (the reference the tests compare the bands with; the
     * levels are the same bytes either way). */
    uint32_t band_rows;
    bool whole_levels;
    /* No code for instruction sets beyond the compiler's baseline (AVX2 is
     * used when the CPU has it): the same bytes, for tests to compare. */
    bool portable;
} mip_options;

/* Levels in the stored encoding (sRGB-encoded for COLOR_SRGB, 0..1 for
 * normals, raw for linear data), level 0 first: float RGBA in `levels`, or
 * with options.levels8 RGBA8 in `levels8`, each byte image_float_to_unorm8
 * of the float level (the same chain quantised, without the float levels).
 * Filtered COLOR_SRGB float levels hold their colour on the 8-bit grid
 * (k / 255): the sRGB encode is a table step function, exact after rounding
 * to 8 bits. The bytes do not depend on options.threads. */
typedef struct mip_chain {
    uint32_t count;
    uint32_t width[MIP_MAX_LEVELS];
    uint32_t height[MIP_MAX_LEVELS];
    /* The part of level 0 the image covers: width[0] x height[0] unless
     * level 0 was padded (mip_options.align_by_padding). */
    uint32_t content_width, content_height;
    float *levels[MIP_MAX_LEVELS];
    uint8_t *levels8[MIP_MAX_LEVELS];
} mip_chain;

/* Number of levels of a full chain for w x h (floor halving down to 1x1). */
uint32_t mip_level_count(uint32_t width, uint32_t height);

/* Builds the chain from `base` (w x h float RGBA in the stored encoding).
 * Level 0 equals `base` exactly unless it had to be downscaled. */
bool mip_build(const float *base, uint32_t width, uint32_t height, const mip_options *options,
               mip_chain *out);
/* mip_build of an 8-bit RGBA level 0 (the same chain as mip_build of its
 * k / 255 floats, which colour usages' stored encoding is), without a float
 * copy of level 0 when its sides are even. */
bool mip_build_rgba8(const uint8_t *rgba8, uint32_t width, uint32_t height,
                     const mip_options *options, mip_chain *out);
void mip_chain_free(mip_chain *chain);

/* Fraction of texels whose alpha (channel 3) is above `cutoff`. */
float mip_alpha_coverage(const float *rgba, size_t pixel_count, float cutoff);
/* Float RGBA in the stored encoding of `usage` (sRGB-encoded for COLOR,
 * clamped to 0..1 unless HDR) from a decoded image; NULL when out of memory. */
float *image_to_float(const ir_decoded_image *image, cook_texture_usage usage);
/* The same for `count` RGBA float texels of a float image (Radiance HDR), in
 * place or from `in` into `out`: non-finite values become 0. */
void image_floats_to_stored(const float *in, float *out, size_t count, cook_texture_usage usage);

/* ---------------------------------------------------------------------------
 * Animation keys (anim.c): reduction and quantization at write time
 * ------------------------------------------------------------------------- */

/* One channel's keys: times strictly increasing, values per key `components`
 * floats (three groups for CUBICSPLINE: in tangent, value, out tangent). */
typedef struct anim_keys {
    uint32_t key_count;
    uint32_t components;
    ir_interpolation interpolation;
    ir_anim_path path;
    float *times;
    float *values;
} anim_keys;

/* The channel at `time` by glTF 2.0 Appendix C in double precision (slerp on
 * the shortest arc, rotations normalised) into out[components]. */
void anim_evaluate(const anim_keys *keys, double time, double *out);
/* How far apart two values of `path` are: translation distance, rotation
 * angle in radians (2 acos |dot|), the largest component difference else. */
double anim_difference(ir_anim_path path, uint32_t components, const double *a, const double *b);
/* `out` = src's keys without those interpolation reproduces within the
 * tolerance (src unchanged, a copy when the tolerance is off). False when out
 * of memory. Free out with anim_keys_free. */
bool anim_reduce(const anim_keys *src, const cook_anim_tolerance *tolerance, anim_keys *out);
void anim_keys_free(anim_keys *keys);

/* LINEAR or STEP translation, rotation or scale: anim.quantize applies. */
bool anim_quantizable(const anim_keys *keys);
/* Translation / scale: min xyz and step xyz ((max - min) / 65535) over the keys. */
void anim_quantize_range(const anim_keys *keys, float range[6]);
void anim_quantize_vec3(const float *v, const float range[6], uint16_t *q);
void anim_dequantize_vec3(const uint16_t *q, const float range[6], float *v);
/* Rotation: smallest three in 3 x u16 (kanim.md); decoding as the runtime does. */
void anim_quantize_rotation(const float *quaternion, uint16_t *q);
void anim_dequantize_rotation(const uint16_t *q, float *quaternion);

/* anim.reduce and anim.quantize over every clip of the asset: each sampler's
 * keys replaced by the reduced ones (values decoded from `quantized` when
 * quantized), the clip's time range and worst error recorded (ir.h). A
 * sampler no channel uses, or used by channels of different paths, is left
 * as it is. False when out of memory. Nothing to do when both are off. */
bool process_animations(ir_asset *asset, const cook_settings *settings);

/* scene.scale and scene.up (scene_units.c): the conversion put in front of
 * every root node (and the keys of clips animating one), so every world
 * transform W the scene gives becomes s·R·W; vertex data is unchanged. */
typedef struct scene_units {
    float scale; /* > 0; 1 for none */
    bool z_up;   /* the source is Z-up: turned -90 degrees about X into Y-up */
} scene_units;
/* Converts `asset`'s roots; false with `problem` when a root's clip keys are
 * shared with another channel (they cannot be converted apart). Nothing to
 * do for scale 1 and Y-up. */
bool process_scene_units(ir_asset *asset, const scene_units *units, char *problem,
                         size_t problem_size);

#endif /* KILN_COOK_PROCESS_PROCESS_H */
