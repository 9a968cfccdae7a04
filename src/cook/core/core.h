/*
 * core.h — what every stage and driver of the cooker shares, and nothing more:
 * small containers, diagnostics, the resolved settings, the context of the
 * asset being cooked, and its result.
 *
 * The parts the build engine and the CLI use too have headers of their own,
 * which cook.h exports (core.h includes them):
 *
 *   util.c, util.h          bytebuf, string tables, strlist, paths, file reading
 *   diag.c, diag.h          per-asset diagnostics
 *   settings.c, settings.h  the settings vocabulary: defaults, JSON, kiln.yml keys
 *   result.c, activity.c, result.h   the request, what one asset produced
 *                     (outputs, manifest entries, timings), what a cook is
 *                     doing now (for a progress line), the encoder version
 *   parallel.c, parallel.h       the one thread pool
 *   yaml_doc.c, yaml_doc.h       the YAML loader (not included here)
 *
 * Here (or in headers only core.h includes), for the stages and drivers only:
 *
 *   context.c         the asset being cooked: resolving and reading what it names
 *   budget.c, budget.h  its time budget (asset.timeout), checked cooperatively
 *                     (budget.h is C only, not included here: C++ files include core.h)
 *   triangulate.c     one polygon into triangles
 *   repair_normals.c  unusable source normals replaced by the faces'
 *   bounds.c          bounding box and sphere of indexed vertices
 *   ir.c, ir.h        the intermediate representation, built and freed
 *   shader_ir.c, shader_ir.h     a shader program's .kshader tables being built
 *   shader_defines.c, shader_defines.h   the NAME / NAME=VALUE grammar of
 *                     shader.defines and shader.variants
 *
 * core may use common/ and the runtime's public header (include/kiln), never a
 * stage or a driver.
 */
#ifndef KILN_COOK_CORE_CORE_H
#define KILN_COOK_CORE_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ascii.h"
#include "cook/core/diag.h"
#include "cook/core/ir.h"
#include "cook/core/parallel.h"
#include "cook/core/result.h"
#include "cook/core/settings.h"
#include "cook/core/util.h"
#include "kiln/kiln.h"

/* Largest source or dependency file a cook reads. */
#define COOK_SOURCE_MAX_BYTES ((size_t)2 << 30) /* 2 GiB */

/* How a texture is used decides its colour space, channels and mip filter. */
typedef enum cook_texture_usage {
    COOK_TEXTURE_COLOR = 1, /* base colour, emissive, UI: sRGB RGBA8 */
    COOK_TEXTURE_DATA,      /* metallic-roughness / ORM / masks: linear RGBA8 */
    COOK_TEXTURE_NORMAL,    /* tangent-space normal map: linear, renormalised mips */
    COOK_TEXTURE_SINGLE,    /* one channel (AO, height, roughness): linear R8 */
    COOK_TEXTURE_HDR,       /* Radiance .hdr and other float data: RGBA16F */
} cook_texture_usage;

/* ---------------------------------------------------------------------------
 * One asset being cooked (core/context.c)
 * ------------------------------------------------------------------------- */

typedef struct cook_context {
    const char *input_root;  /* as given on the command line */
    const char *source_path; /* relative to input_root, '/'-separated */
    const char *ref;         /* canonical ref of source_path */
    const uint8_t *source;   /* the source file's bytes, NUL-terminated */
    size_t source_size;
    /* The buffer behind `source` when the context owns it (cook_asset), so
     * that a driver done with the bytes can free them early
     * (cook_release_source); NULL otherwise. */
    uint8_t *source_buffer;
    /* XXH3-64 of the source, taken once (cook_asset) for the META chunk of
     * every output: what cook_source_hash answers while `source` and
     * `source_size` are still the bytes it was taken of. */
    struct {
        const uint8_t *bytes;
        size_t size;
        uint64_t xxh3;
        bool released; /* taken of the bytes cook_release_source freed: still theirs */
    } source_hash;
    const cook_settings *settings;
    cook_diag *diag;
    strlist dependencies;    /* paths relative to input_root, recorded by import */
    strlist references;      /* other source assets it names, cooked on their own */
    strlist absent;          /* paths it looked for that were not there (or not usable) */
    cook_activity *activity; /* the stage it is in, for whoever watches; may be NULL */
    /* Where the asset's outputs wait, written to hidden temporaries, until
     * they are renamed into place together once the asset is done
     * (write/emit.c): a failed asset keeps its previous files, all of them.
     * NULL: each file goes into place as it is written. */
    struct write_stage *stage;
} cook_context;

/* Frees the source bytes of a context that owns them (source_buffer) once
 * the driver no longer needs them: a standalone texture after decoding, so
 * the file and the decoded image are not held together; a model once
 * imported, so the process stage reuses the file's pages. source becomes
 * NULL and source_size 0; cook_source_hash still answers the hash taken of
 * them. Nothing when the context does not own them. */
void cook_release_source(cook_context *ctx);

/* XXH3-64 of ctx->source_size bytes at ctx->source (the META chunk's
 * source_hash): the one cook_asset took, or worked out now. */
uint64_t cook_source_hash(const cook_context *ctx);

/* True when `full_path` (under `input_root`) really lies inside the root
 * after following symbolic links (realpath of both); also true when either
 * cannot be resolved (nonexistent: the open that follows reports it). The one
 * rule for dependencies and for the walk's links. */
bool cook_path_inside_root(const char *input_root, const char *full_path);

/* Reads a file a source refers to (an .mtl, a .bin, a texture). `relative` is
 * resolved against the source file's folder and must stay inside the input
 * root: an absolute path or one that climbs out is refused, never opened. On
 * success the dependency is recorded and *root_relative (may be NULL) receives
 * its path relative to the input root (caller frees). On failure an error is
 * NOT reported: the caller decides whether a missing file is fatal. A path
 * inside the root that was looked for and not found (or leads out through a
 * link) is recorded in ctx->absent: the build's cache must know that the
 * asset's output depends on that file not being there. */
bool cook_resolve_dependency(cook_context *ctx, const char *relative, char **root_relative,
                             char *reason, size_t reason_size);
bool cook_read_dependency(cook_context *ctx, const char *relative, uint8_t **data, size_t *size,
                          char *reason, size_t reason_size);

/* Records a dependency or reference that another process resolved (an
 * importer run in a child process, import/isolate_import.c): `root_relative`
 * must be exactly what cook_resolve_dependency returns for it (relative to the
 * input root, normalised, inside the root after links, existing). False with
 * a reason otherwise, and nothing is recorded. */
bool cook_record_dependency(cook_context *ctx, const char *root_relative, char *reason,
                            size_t reason_size);
bool cook_record_reference(cook_context *ctx, const char *root_relative, char *reason,
                           size_t reason_size);

/* Records a reference: another source asset this one names but does not
 * read or bake in (a level's models and prefabs). `relative` resolves like a
 * dependency and must exist inside the input root. `kiln build --roots`
 * follows references to decide what a root reaches; the referenced asset is
 * cooked on its own. False with a reason when it cannot be resolved. */
bool cook_add_reference(cook_context *ctx, const char *relative, char *reason, size_t reason_size);
/* As cook_resolve_dependency and cook_add_reference, but `relative` is
 * resolved against the folder of `base` (a path relative to the input root;
 * "" for the root itself) instead of the source's: a level's includes are
 * relative to the level that names them, its assets to the input root. */
bool cook_resolve_dependency_from(cook_context *ctx, const char *base, const char *relative,
                                  char **root_relative, char *reason, size_t reason_size);
bool cook_add_reference_from(cook_context *ctx, const char *base, const char *relative,
                             char **root_relative, char *reason, size_t reason_size);

/* A driver entering a stage: ctx->activity says so from now on. False when
 * the asset's time budget ran out (in the stage it leaves): the error is
 * reported (cook_budget_check) and the driver should stop.
 * Test hook: KILN_TEST_SLOW_STAGE=<stage name>:<seconds> (e.g. "texture:3")
 * sleeps that long on entering that stage, so that a test can show a slow
 * asset without cooking one. Nothing else reads it. */
bool cook_stage_enter(cook_context *ctx, cook_stage stage);

/* True while the asset's time budget (budget.h) lasts; once it has run out,
 * reports "cook exceeded the N s time budget in stage S" among the asset's
 * diagnostics (once) and returns false. On the cook's thread only. */
bool cook_budget_check(cook_context *ctx);

/* ---------------------------------------------------------------------------
 * Texels: the one 8-bit quantiser, which mips (process) and the uncompressed
 * formats (encode) must agree on to the bit
 * ------------------------------------------------------------------------- */

/* A 0..1 float to 8 bits: lrintf(255 v), clamped (NaN gives 0). Adding and
 * subtracting 1.5 * 2^23 rounds a float below 2^22 to an integer, half to
 * even, as lrintf does in the default rounding mode, without the library
 * call. */
static inline uint8_t image_float_to_unorm8(float v) {
    if (!(v > 0.0f))
        return 0;
    if (v >= 1.0f)
        return 255;
    return (uint8_t)((v * 255.0f + 12582912.0f) - 12582912.0f);
}

/* ---------------------------------------------------------------------------
 * Geometry the stages share (core/triangulate.c, repair_normals.c, bounds.c):
 * importers triangulate polygons and repair normals, the writer bounds what it
 * stores.
 * ------------------------------------------------------------------------- */

/* Triangulates one simple polygon (convex or concave, any winding) given its
 * corner positions (3 floats each). Writes (count - 2) triangles as corner
 * indices 0..count-1 into `triangles` and returns how many were written: fewer
 * only for degenerate input, where a fan fills the rest. */
uint32_t geometry_triangulate_polygon(const float *corners, uint32_t count, uint32_t *triangles);

/* Replaces the normal of every vertex v with bad[v] != 0 by the normalised,
 * area-weighted sum of the normals of the triangles (of the triangle
 * submeshes) using it (+Z when those are degenerate too, or when only lines
 * or points use it): what an importer does with a source's zero or non-finite
 * normals (core/repair_normals.c). */
void geometry_repair_normals(ir_mesh *mesh, const uint8_t *bad);

/* AABB of the vertices referenced by indices[0..count) (zero when empty). */
void geometry_aabb(const float *positions, const uint32_t *indices, uint32_t index_count,
                   float aabb_min[3], float aabb_max[3]);
/* geometry_aabb and a bounding sphere around the box centre. */
void geometry_bounds(const float *positions, const uint32_t *indices, uint32_t index_count,
                     float aabb_min[3], float aabb_max[3], float sphere[4]);
/* geometry_bounds on `threads` threads, positions holding vertex_count
 * vertices (the same result, bit for bit: a box and a largest distance do
 * not depend on the order the vertices are visited in, nor on how often).
 * Every index must be below vertex_count (the IR's invariant). */
void geometry_bounds_on(unsigned threads, const float *positions, uint32_t vertex_count,
                        const uint32_t *indices, uint32_t index_count, float aabb_min[3],
                        float aabb_max[3], float sphere[4]);

#endif /* KILN_COOK_CORE_CORE_H */
