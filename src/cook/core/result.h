/*
 * result.h — one cook asked for and what it produced (core/result.c), what
 * it is doing meanwhile (core/activity.c), and the encoder version cooked
 * output carries. Part of core.h; exported by cook.h: the build engine makes
 * requests, keeps results in its cache and watches activities.
 */
#ifndef KILN_COOK_CORE_RESULT_H
#define KILN_COOK_CORE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/diag.h"
#include "cook/core/settings.h"
#include "cook/core/util.h"
#include "kiln/kiln.h"

/* Bump with any change to cooked output (3: .kmat, textures; 4: cascaded LODs;
 * 5: mips halve exactly like the area filter, Zstd level 2, cubemaps;
 * 6: GPU block compression by default; 7: cubemaps block-compressed like 2D
 * textures; 8: BC1 normal/best may use the 3-colour mode on opaque blocks;
 * 9: mips sum texel pairs in float, not double: identical on the corpus, at
 * most 1 code apart where one value is over 2^29 times the other;
 * 10: BC7 normal estimates all 64 two-subset partitions, best refits its
 * winner from extended endpoint starts; 11: large submeshes simplified and
 * split into meshlets by spatial chunk; 12: kmesh version 3, submeshes with a
 * topology: points and lines are cooked; a model's textures are named after
 * their source image, not tex_<index>; Zstd is dropped where it does not make
 * a texture's levels smaller; block-compressed textures in whole blocks;
 * opacity maps merged into the base colour's alpha; every model also
 * writes a .kscene, and a texture named "scene" becomes scene_2;
 * 13: levels cook to a .kscene with an SLNK chunk; .kscene version 2, cameras,
 *     lights and instances;
 *     kmesh version 4: skin weights summing to exactly 65535, eight influences
 *     with mesh.skin_influences: 8; .kscene skin tables;
 *     a model with animations writes a .kanim, and a texture named "anim"
 *     becomes anim_2);
 * 14: kmesh version 5: morph target deltas (MDLT, MNAM); meshes with morph
 *     targets are not baked by mesh.merge; .kanim version 2: channels of a
 *     clip with equal times share them, anim.reduce and anim.quantize, clip
 *     errors; a model whose nodes draw morph targets writes a .kanim;
 *     assimp sources' animations are cooked to a .kanim; a push-constant
 *     block is named by its type, its variable in the new SPSI chunk);
 * 15: assimp sources: morph deltas of a part without that stream are 0 (were
 *     uninitialised), a number material key holding text is ignored, a colour
 *     of fewer than three values is absent, $tex.mapping / $tex.uvwsrc read
 *     their first value; orthographic far planes, vertical fields of view and
 *     node scales stay finite floats; MTL and assimp emissive at most
 *     FLT_MAX; AC3D subdivision past 65,536 faces lowered, not refused past
 *     2^20);
 * 17: .kmat version 2 (names, samplers, specular, shadow and transparency
 *     flags); material rows are named after their materials and the table
 *     has its own ref <sourceRef>/materials, which scenes name);
 * 18: UASTC blocks carry their transcoding hints (ETC1, EAC, BC1), which
 *     were 0; their texels are unchanged);
 * 19: meshlets by kiln's own builder (process/meshlet_build.c, the default
 *     mesh.meshlet_builder: kiln), not meshoptimizer's);
 * 20: a submesh of 131,072 triangles or more is ordered for the vertex cache
 *     and overdraw chunk by chunk (process/order.c): its level-0 triangle
 *     order, and with it the vertex order, changes; smaller ones are as
 *     before);
 * 21: texture.uastc_rdo: an absolute lambda, an 8 KiB window, a loss budget
 *     per strength, fresh hints on the blocks it changes;
 * 22: a .kmat keeps the extras of the images its textures sample, XTRA
 *     object KILN_EXTRAS_IMAGE: only tables of glTFs whose images have
 *     extras or unknown extensions change;
 * 23: .kscene version 3: nodes in depth-first pre-order with subtree ranges
 *     (no level table), so the runtime recomputes a changed subtree by
 *     streaming one range; every node index of a .kscene and a .kanim
 *     follows the new order;
 * 24: UASTC at texture.quality fast (and draft): endpoints refined by least
 *     squares once, translucent blocks also try mode 12; normal and best
 *     are unchanged);
 * 25: kiln's meshlet builder gives ties between equally good candidate
 *     triangles to the lower triangle number (its candidates are now kept
 *     in lists by rank), so a mesh's meshlets change in detail, not in
 *     kind;
 * 26: meshlet bounding spheres and normal cones are kiln's own
 *     (process/meshlet_bounds.c: meshoptimizer's method fitted to each
 *     vertex once), so MLET's bounds change in the last bits; and kiln's
 *     vertex cache order (mesh.vertex_cache: kiln) scores vertices with a
 *     tuned table, so with that setting a mesh's triangle order, vertex
 *     order and meshlets change; and kiln's simplifier (mesh.simplifier:
 *     kiln) weights planes as meshoptimizer does and bounds border and seam
 *     collapses by their chord distance, so with that setting LODs change;
 * 27: kiln's vertex cache order orders reduced levels with scores of their
 *     own, and is the default (mesh.vertex_cache: kiln): every mesh's
 *     triangle order, vertex order and meshlets change; mesh.vertex_cache:
 *     meshopt gives the order of version 26.
 * 28: kiln's simplifier (mesh.simplifier: kiln) bounds only border
 *     collapses by their chord distance, no longer seam ones, so with that
 *     setting LODs of meshes with seams change.
 * 29: kiln's simplifier (mesh.simplifier: kiln) also bounds a collapse by
 *     its removed position's distance to the plane of the nearest triangle
 *     it leaves, so with that setting LODs change.
 * 30: kiln's simplifier (mesh.simplifier: kiln) refuses a collapse only when
 *     a triangle would turn by a right angle or more (meshoptimizer's rule;
 *     was 75.5 degrees) and ranks a collapse a pass put off for its removed
 *     position's distance at that distance in later passes, so with that
 *     setting LODs change.
 * 31: kiln's simplifier (mesh.simplifier: kiln) ranks a later level's
 *     manifold positions by the last level's planes plus their error so far
 *     (border and seam positions by their quadrics since level 0), and where
 *     it stalls on a submesh the same simplifier welded by position makes the
 *     level when it reaches the target the sloppy fallback misses, or is
 *     nearer level 0; so with that setting second and later LOD levels
 *     change.
 * 32: kiln's simplifier (mesh.simplifier: kiln) ranks a later level's seam
 *     positions on runs of up to 8 between locked corners as its manifold
 *     positions (the last level's planes, seam edges' included, plus their
 *     error so far), so with that setting second and later LOD levels of
 *     meshes with such seams change.
 * 33: mesh.simplifier defaults to auto: kiln's simplifier on submeshes of
 *     COOK_SIMPLIFIER_AUTO_TRIANGLES triangles or more, meshoptimizer's below,
 *     so by default the LOD levels of such submeshes change.
 * 34: the sloppy fallback of the LOD step simplifies the vertices the level
 *     before draws (its grid over their extent), not the whole vertex buffer,
 *     so a level no longer draws another submesh's vertex; a level's error is
 *     at least the level before's. Levels made by the sloppy fallback, and
 *     errors of levels kiln's welded session made after a fallback's, change.
 * 35: every Zstd frame (KTX2 levels, container chunks) has a window that holds
 *     its whole input (up to 128 MiB; the frame is single-segment), and frames
 *     under 2 KiB keep their literals raw: textures whose levels exceed the
 *     level's window (2048² BC7 at level 2) and compressed chunks over the
 *     window or under 2 KiB change.
 * 36: kiln's simplifier leaves out triangles with two corners at one position
 *     (no area: slivers along attribute seams, a UV sphere's poles) before it
 *     classifies positions, so LOD levels of meshes with such triangles
 *     change where it runs (by default submeshes of 1,024 triangles or more). */
#define KILN_ENCODER_VERSION 36u

/* What one cook is doing now, readable from another thread while it runs (the
 * CLI's progress line names the stage of an asset that takes long). Opaque:
 * its stage is an atomic, set by the drivers through the context
 * (cook_stage_enter) and read with one atomic load (cook_activity_stage). */
typedef struct cook_activity cook_activity;

/* ---------------------------------------------------------------------------
 * What one asset produced (core/result.c)
 * ------------------------------------------------------------------------- */

/* One ref an asset produced: which file (and row) holds it. */
typedef struct cook_manifest_entry {
    char *ref;     /* canonical ref, e.g. "props/crate/material_0" */
    char *path;    /* the cooked file, relative to the output root */
    uint64_t hash; /* kiln_ref_hash(ref) */
    kiln_asset_kind kind;
    kiln_color_space color_space;
    uint32_t index; /* row within the file (materials), else 0 */
    /* Set by the build when it writes the manifest (build/outputs.c): the ID
     * of the asset that made the entry (zero: none), and whether the entry is
     * that asset's main ref, the one its ID resolves to. */
    kiln_asset_id asset_id;
    bool main;
} cook_manifest_entry;

typedef struct cook_manifest_list {
    cook_manifest_entry *items;
    size_t count;
    size_t cap;
} cook_manifest_list;

bool cook_manifest_add(cook_manifest_list *list, const char *ref, const char *path,
                       kiln_asset_kind kind, kiln_color_space color_space, uint32_t index);
/* Appends a copy of every entry of `from`. */
bool cook_manifest_add_all(cook_manifest_list *list, const cook_manifest_list *from);
void cook_manifest_list_free(cook_manifest_list *list);

typedef struct cook_request {
    const char *input_root;               /* folder of sources */
    const char *output_root;              /* folder of cooked files */
    const char *source_path;              /* relative to input_root, '/'-separated */
    const struct cook_importer *importer; /* its registry row (cook.h) */
    const cook_settings *settings;
    bool verify;             /* re-read and validate every file written */
    cook_activity *activity; /* where the cook reports its stage; NULL: nobody watches */
    /* The resolved settings of another source of the build (a merged
     * level's placed model), or NULL; NULL here: the asset's own stand in. */
    const cook_settings *(*settings_of)(void *user, const char *source_path);
    void *settings_user;
    /* Called once with the source's bytes as cook_asset read them, before the
     * driver runs (NULL: nobody asks): the build hashes them for its cache
     * record there instead of reading the file a second time. */
    void (*source_read)(void *ctx, const uint8_t *bytes, size_t size);
    void *source_read_ctx;
} cook_request;

/* Where a cook spends its time, measured per asset (cook_stage_add). */
typedef enum cook_stage {
    COOK_STAGE_IMPORT,  /* reading the source and its dependencies, parsing */
    COOK_STAGE_PROCESS, /* merge, checks, normals, weld, LODs, meshlets */
    COOK_STAGE_WRITE,   /* encoding the cooked files and writing them */
    COOK_STAGE_TEXTURE, /* texture decode → mips → KTX2, not split further yet */
    COOK_STAGE_COUNT
} cook_stage;

typedef struct cook_asset_result {
    bool ok;
    cook_diag diag;              /* messages about this asset, compiler-style lines */
    strlist outputs;             /* files written, relative to output_root */
    strlist dependencies;        /* files read besides the source, relative to input_root */
    strlist references;          /* source assets it names (cook_add_reference) */
    strlist absent;              /* paths it looked for and did not find (cook_context) */
    cook_manifest_list manifest; /* every ref this asset produced */
    uint64_t bytes_written;
    bool write_failed; /* an output could not be written (disk full, EFBIG): always an error */
    uint32_t meshes;
    uint32_t triangles;
    double stage_seconds[COOK_STAGE_COUNT];
} cook_asset_result;

/* A monotonic timestamp in seconds, and adding the time since one to a stage
 * (which returns the new timestamp, to chain stages). */
double cook_clock(void);
double cook_stage_add(cook_asset_result *result, cook_stage stage, double since);
/* "import", "process", "write", "texture": in reports and the progress line. */
const char *cook_stage_name(cook_stage stage);

/* ---------------------------------------------------------------------------
 * What a cook is doing now (core/activity.c)
 * ------------------------------------------------------------------------- */

/* NULL on allocation failure; a new activity is in no stage. */
cook_activity *cook_activity_create(void);
void cook_activity_destroy(cook_activity *activity);
/* The stage the cook is in, or COOK_STAGE_COUNT when it is in none. */
cook_stage cook_activity_stage(const cook_activity *activity);
/* Sets the stage (COOK_STAGE_COUNT: none); a NULL activity is ignored. */
void cook_activity_set(cook_activity *activity, cook_stage stage);

void cook_asset_result_free(cook_asset_result *result);

#endif /* KILN_COOK_CORE_RESULT_H */
